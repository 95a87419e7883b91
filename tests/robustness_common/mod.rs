//! Shared machinery of the `robustness_*` suites: a seeded PRNG, generators of extreme
//! values, guarded buffers (canaries on both sides), and a process guard that turns the
//! failure modes asserts cannot see into a message naming the case:
//!
//! - the address space is capped (`RLIMIT_AS`), so an absurd allocation fails inside the
//!   library (which must then answer out-of-memory) instead of succeeding by overcommit;
//! - panics caught by `ffi_guard!` are counted (a caught panic is still a bug: the caller
//!   gets a runtime error instead of a clear status);
//! - a fatal signal (segfault, abort from a failed allocation, …) prints the case running;
//! - a watchdog aborts a case that runs longer than [`CASE_TIMEOUT`].
//!
//! Reproduce a failure with `ROBUST_SEED=<seed> ROBUST_CASE=<index> cargo test --test
//! robustness_<face>`; `ROBUST_CASES=<n>` changes the number of random cases.

#![allow(dead_code)]

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// Default seed; override with `ROBUST_SEED`.
pub const DEFAULT_SEED: u64 = 0x5eed_2024_0bad_f00d;

/// Address-space cap of the test process.
pub const ADDRESS_SPACE_LIMIT: u64 = 6 << 30;

/// A case running longer than this is a hang.
pub const CASE_TIMEOUT: Duration = Duration::from_secs(30);

/// Largest buffer a suite allocates to execute a successful call (bytes).
pub const EXEC_LIMIT: usize = 1 << 20;

/// splitmix64: small, seedable, good enough to spread cases.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The generator of case `index` of a suite run with `seed`.
    pub fn for_case(seed: u64, index: u64) -> Self {
        let mut r = Rng(seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        r.next();
        r
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.below((hi - lo + 1) as u64) as i64)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / ((1u64 << 53) as f64)) < p
    }

    pub fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len() as u64) as usize]
    }

    pub fn bytes(&mut self, out: &mut [u8]) {
        for b in out {
            *b = self.next() as u8;
        }
    }

    /// An i64 biased towards values that break size arithmetic.
    pub fn i64_extreme(&mut self) -> i64 {
        match self.below(10) {
            0..=2 => self.range(-2, 17),
            3 => self.pick(&[i64::MIN, i64::MAX, i64::MIN + 1, i64::MAX - 1]),
            4 => self.pick(&[
                1 << 31,
                (1 << 31) - 1,
                1 << 32,
                (1 << 32) + 1,
                1 << 62,
                -(1 << 31),
                u32::MAX as i64,
            ]),
            5 => 1i64 << self.below(63),
            6 => -(1i64 << self.below(63)),
            7 => self.range(0, 1 << 20),
            _ => self.next() as i64,
        }
    }

    /// A u32 biased towards extremes.
    pub fn u32_extreme(&mut self) -> u32 {
        match self.below(8) {
            0..=2 => self.range(0, 17) as u32,
            3 => self.pick(&[u32::MAX, u32::MAX - 1, 1 << 31, (1 << 31) - 1, 1 << 16]),
            4 => 1u32 << self.below(32),
            5 => self.range(0, 1 << 16) as u32,
            _ => self.next() as u32,
        }
    }

    /// A float biased towards NaN, infinities, zeros, denormals and huge values.
    pub fn f32_extreme(&mut self) -> f32 {
        match self.below(12) {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3 => self.pick(&[0.0, -0.0]),
            4 => self.pick(&[
                f32::MIN_POSITIVE / 4.0,
                f32::from_bits(1),
                -f32::from_bits(1),
            ]),
            5 => self.pick(&[f32::MAX, f32::MIN, 1e30, -1e30, 3e38]),
            6 => self.pick(&[1e-30, 1e-10, 1e-6]),
            7 => f32::from_bits(self.next() as u32),
            _ => self.pick(&[0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 0.3, 7.0, -1.0, -0.5]),
        }
    }

    pub fn f64_extreme(&mut self) -> f64 {
        match self.below(12) {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => f64::NEG_INFINITY,
            3 => self.pick(&[0.0, -0.0]),
            4 => self.pick(&[f64::MIN_POSITIVE / 4.0, f64::from_bits(1)]),
            5 => self.pick(&[f64::MAX, f64::MIN, 1e300, -1e300, 1e40]),
            6 => self.pick(&[1e-30, 1e-10, 1e-300]),
            7 => f64::from_bits(self.next()),
            _ => self.pick(&[0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 0.3, 7.0, -1.0, -0.5]),
        }
    }
}

/// Seed of this run.
pub fn seed() -> u64 {
    std::env::var("ROBUST_SEED")
        .ok()
        .and_then(|s| {
            let s = s.trim();
            match s.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16).ok(),
                None => s.parse().ok(),
            }
        })
        .unwrap_or(DEFAULT_SEED)
}

/// The case indices to run: `ROBUST_CASE` alone, else `0..ROBUST_CASES` (default `n`).
pub fn cases(n: u64) -> std::ops::Range<u64> {
    if let Some(c) = std::env::var("ROBUST_CASE")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
    {
        return c..c + 1;
    }
    let n = std::env::var("ROBUST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(n);
    0..n
}

// ---------------------------------------------------------------------------------------
// Process guard

/// Panics on threads that run no case (library worker threads).
static PANICS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Panics on this thread, and whether it runs cases.
    static MY_PANICS: std::cell::Cell<(usize, bool)> = const { std::cell::Cell::new((0, false)) };
}
static PANIC_MSG: Mutex<String> = Mutex::new(String::new());

/// What is running, for the signal handler and the watchdog (fixed storage: the signal
/// handler must not allocate or lock).
static CASE_BUF: [AtomicU64; 32] = [const { AtomicU64::new(0) }; 32];
static CASE_LEN: AtomicUsize = AtomicUsize::new(0);
/// Milliseconds since [`epoch`] at which the current case started (0: none).
static CASE_START: AtomicU64 = AtomicU64::new(0);

fn epoch() -> Instant {
    static E: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    *E.get_or_init(Instant::now)
}

fn now_ms() -> u64 {
    epoch().elapsed().as_millis() as u64 + 1
}

fn set_case_text(s: &str) {
    let b = s.as_bytes();
    let n = b.len().min(CASE_BUF.len() * 8);
    for (i, w) in CASE_BUF.iter().enumerate() {
        let mut v = [0u8; 8];
        for (k, x) in v.iter_mut().enumerate() {
            let j = i * 8 + k;
            if j < n {
                *x = b[j];
            }
        }
        w.store(u64::from_le_bytes(v), Ordering::Relaxed);
    }
    CASE_LEN.store(n, Ordering::Release);
}

fn case_text_bytes(out: &mut [u8; 256]) -> usize {
    let n = CASE_LEN.load(Ordering::Acquire).min(256);
    for (i, w) in CASE_BUF.iter().enumerate() {
        out[i * 8..i * 8 + 8].copy_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
    }
    n
}

extern "C" fn on_fatal(sig: libc::c_int) {
    let mut buf = [0u8; 256];
    let n = case_text_bytes(&mut buf);
    let head = b"\n*** robustness: fatal signal during case: ";
    // SAFETY: write(2) is async-signal-safe; the buffers are valid.
    unsafe {
        libc::write(2, head.as_ptr().cast(), head.len());
        libc::write(2, buf.as_ptr().cast(), n);
        libc::write(2, b"\n".as_ptr().cast(), 1);
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// Installs the guard once per process (address-space cap, panic counter, fatal-signal
/// report, watchdog).
pub fn install_guard() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = epoch();
        // SAFETY: plain libc calls with valid arguments.
        unsafe {
            let mut cur = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            if libc::getrlimit(libc::RLIMIT_AS, &mut cur) == 0 {
                let lim = ADDRESS_SPACE_LIMIT.min(cur.rlim_max);
                let new = libc::rlimit {
                    rlim_cur: lim as libc::rlim_t,
                    rlim_max: cur.rlim_max,
                };
                libc::setrlimit(libc::RLIMIT_AS, &new);
            }
            for sig in [
                libc::SIGSEGV,
                libc::SIGBUS,
                libc::SIGABRT,
                libc::SIGILL,
                libc::SIGFPE,
            ] {
                libc::signal(sig, on_fatal as *const () as libc::sighandler_t);
            }
        }
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let (n, runs_cases) = MY_PANICS.with(|c| c.get());
            if runs_cases {
                MY_PANICS.with(|c| c.set((n + 1, true)));
            } else {
                PANICS.fetch_add(1, Ordering::SeqCst);
            }
            let mut m = PANIC_MSG.lock().unwrap_or_else(|e| e.into_inner());
            if m.is_empty() {
                *m = info.to_string();
            }
            drop(m);
            prev(info);
        }));
        std::thread::Builder::new()
            .name("robustness-watchdog".into())
            .spawn(|| loop {
                std::thread::sleep(Duration::from_millis(500));
                let start = CASE_START.load(Ordering::Acquire);
                if start != 0 && now_ms().saturating_sub(start) > CASE_TIMEOUT.as_millis() as u64 {
                    let mut buf = [0u8; 256];
                    let n = case_text_bytes(&mut buf);
                    eprintln!(
                        "\n*** robustness: case hangs (> {:?}): {}",
                        CASE_TIMEOUT,
                        String::from_utf8_lossy(&buf[..n])
                    );
                    std::process::abort();
                }
            })
            .expect("watchdog thread");
    });
}

/// Marks the start of a case (for the fatal-signal report and the watchdog).
pub fn begin_case(text: &str) {
    set_case_text(text);
    CASE_START.store(now_ms(), Ordering::Release);
}

pub fn end_case() {
    CASE_START.store(0, Ordering::Release);
}

/// Number of panics seen so far (caught ones included) on this thread and on threads that
/// run no case.
pub fn panics() -> usize {
    MY_PANICS.with(|c| c.set((c.get().0, true)));
    PANICS.load(Ordering::SeqCst) + MY_PANICS.with(|c| c.get().0)
}

pub fn first_panic() -> String {
    PANIC_MSG.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Failures of a suite: collected, printed together, then asserted empty.
#[derive(Default)]
pub struct Failures {
    pub list: Vec<String>,
    pub checked: u64,
    /// How often interesting paths were reached (printed at the end, to see the coverage).
    pub reached: std::collections::BTreeMap<&'static str, u64>,
}

impl Failures {
    pub fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.checked += 1;
        if !ok && self.list.len() < 200 {
            self.list.push(what());
        }
    }

    pub fn reach(&mut self, what: &'static str) {
        *self.reached.entry(what).or_default() += 1;
    }

    pub fn finish(self, suite: &str, seed: u64) {
        eprintln!(
            "{suite}: seed {seed:#x}: {} checks, {} failures, reached {:?}",
            self.checked,
            self.list.len(),
            self.reached
        );
        for f in &self.list {
            eprintln!("  FAIL {f}");
        }
        assert!(
            self.list.is_empty(),
            "{suite}: {} failures (seed {seed:#x}; rerun one with ROBUST_SEED={seed:#x} ROBUST_CASE=<n>)",
            self.list.len()
        );
    }
}

/// Runs `f` as case `index` of `suite`, recording any panic (caught at the boundary or in
/// the test itself) as a failure of that case.
pub fn run_case(
    fails: &mut Failures,
    suite: &str,
    seed: u64,
    index: u64,
    f: impl FnOnce(&mut Rng, &mut Failures, &str),
) {
    let label = format!("{suite} seed={seed:#x} case={index}");
    begin_case(&label);
    let before = panics();
    let mut rng = Rng::for_case(seed ^ fnv(suite), index);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut rng, fails, &label)));
    end_case();
    let after = panics();
    fails.check(r.is_ok() && after == before, || {
        format!("{label}: panic ({}): {}", after - before, first_panic())
    });
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

// ---------------------------------------------------------------------------------------
// Guarded buffers

const CANARY: usize = 256;

/// A zero-initialised byte buffer of `len` bytes (aligned to 64) between two canary zones;
/// [`GuardedBuf::intact`] tells whether anything wrote outside `len`.
pub struct GuardedBuf {
    raw: Vec<u8>,
    start: usize,
    pub len: usize,
    pattern: u8,
}

impl GuardedBuf {
    pub fn new(len: usize, pattern: u8) -> Self {
        let mut raw = vec![pattern; len + 2 * CANARY + 64];
        let base = raw.as_ptr() as usize;
        let start = CANARY + (64 - (base + CANARY) % 64) % 64;
        raw[start..start + len].fill(0);
        GuardedBuf {
            raw,
            start,
            len,
            pattern,
        }
    }

    pub fn ptr(&mut self) -> *mut u8 {
        // SAFETY: start + len <= raw.len().
        unsafe { self.raw.as_mut_ptr().add(self.start) }
    }

    pub fn data(&self) -> &[u8] {
        &self.raw[self.start..self.start + self.len]
    }

    pub fn fill_random(&mut self, rng: &mut Rng) {
        let (s, l) = (self.start, self.len);
        rng.bytes(&mut self.raw[s..s + l]);
    }

    pub fn intact(&self) -> bool {
        self.raw[..self.start].iter().all(|&b| b == self.pattern)
            && self.raw[self.start + self.len..]
                .iter()
                .all(|&b| b == self.pattern)
    }
}
