//! The library's own thread pool.
//!
//! Size: the value set through the API ([`set_max_threads`]), else `OMP_NUM_THREADS` (first
//! entry of the list, as OpenMP reads it), else the number of available cores. Work is split
//! into coarse contiguous chunks with a minimum grain; with one thread or a small problem the
//! caller's thread runs it directly.
//!
//! Workers spin for a short while after each job before they sleep (as OpenMP runtimes do):
//! waking a sleeping thread costs tens of microseconds, far more than a small resampling,
//! and inside a virtual machine an idle vCPU is halted and costs more still. The spin time
//! is `RESAMPLE_SPIN_US` microseconds (default 500; 0 sleeps at once).

use std::cell::Cell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

struct PoolState {
    threads: usize,
    pool: Option<Arc<Pool>>,
}

fn state() -> &'static Mutex<PoolState> {
    static STATE: OnceLock<Mutex<PoolState>> = OnceLock::new();
    STATE.get_or_init(|| {
        let threads = default_threads();
        THREADS.store(threads, Relaxed);
        Mutex::new(PoolState {
            threads,
            pool: None,
        })
    })
}

/// `PoolState::threads` for lock-free reads (kernels ask once per chunk); 0 until the state
/// exists. Written under the state's lock.
static THREADS: AtomicUsize = AtomicUsize::new(0);

fn default_threads() -> usize {
    std::env::var("OMP_NUM_THREADS")
        .ok()
        .and_then(|v| {
            v.split(',')
                .next()
                .and_then(|s| s.trim().parse::<usize>().ok())
        })
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn spin_time() -> Duration {
    static SPIN: OnceLock<Duration> = OnceLock::new();
    *SPIN.get_or_init(|| {
        let us = std::env::var("RESAMPLE_SPIN_US")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(500);
        Duration::from_micros(us.min(1_000_000))
    })
}

/// Sets the number of threads used by later executions; 0 restores the default.
pub fn set_max_threads(n: usize) {
    let mut st = state().lock().unwrap_or_else(|e| e.into_inner());
    let n = if n == 0 { default_threads() } else { n };
    if n != st.threads {
        st.threads = n;
        THREADS.store(n, Relaxed);
        // Running jobs keep the old pool alive; its workers exit when it is dropped.
        st.pool = None;
    }
}

/// Number of threads executions use.
pub fn max_threads() -> usize {
    match THREADS.load(Relaxed) {
        0 => state().lock().unwrap_or_else(|e| e.into_inner()).threads,
        n => n,
    }
}

/// The pool of `threads - 1` workers (the calling thread works too), started on first use.
fn pool() -> Option<Arc<Pool>> {
    let mut st = state().lock().unwrap_or_else(|e| e.into_inner());
    if st.threads <= 1 {
        return None;
    }
    if st.pool.is_none() {
        st.pool = Pool::start(st.threads - 1).map(Arc::new);
    }
    st.pool.clone()
}

/// One job: a type-erased `&dyn Fn()` on the submitter's stack, plus whether a worker's
/// share of it panicked.
struct Job<'a> {
    work: &'a (dyn Fn() + Sync),
    panicked: AtomicBool,
}

struct Shared {
    /// The current job, null between jobs. Workers increment `inside` *before* loading it and
    /// decrement after running it; the submitter clears it and then waits for `inside == 0`
    /// before its stack frame (which the job points into) goes away.
    job: AtomicPtr<Job<'static>>,
    inside: AtomicUsize,
    /// Bumped for every job; workers wait for it to change.
    epoch: AtomicUsize,
    shutdown: AtomicBool,
    /// Workers blocked on `wake` (changed under `sleep`): a job is only announced through
    /// the condvar when one is, since `notify_all` is a system call even with no waiter.
    sleepers: AtomicUsize,
    sleep: Mutex<()>,
    wake: Condvar,
}

struct Pool {
    shared: Arc<Shared>,
    workers: usize,
    /// One job at a time; a second caller meanwhile runs its work on its own thread.
    submit: Mutex<()>,
}

impl Pool {
    fn start(workers: usize) -> Option<Pool> {
        let shared = Arc::new(Shared {
            job: AtomicPtr::new(std::ptr::null_mut()),
            inside: AtomicUsize::new(0),
            epoch: AtomicUsize::new(0),
            shutdown: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
            sleep: Mutex::new(()),
            wake: Condvar::new(),
        });
        let mut started = 0;
        for i in 0..workers {
            let sh = shared.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("resample-{i}"))
                .spawn(move || {
                    SLOT.with(|s| s.set(i + 1));
                    worker(&sh)
                });
            if spawned.is_ok() {
                started += 1;
            }
        }
        (started > 0).then(|| Pool {
            shared,
            workers: started,
            submit: Mutex::new(()),
        })
    }

    /// Runs `work` on the calling thread and on every worker that wakes in time; returns when
    /// all of them are done with it. A panic in any share is re-raised here.
    fn run(&self, work: &(dyn Fn() + Sync)) {
        let Ok(_one) = self.submit.try_lock() else {
            return work();
        };
        let sh = &*self.shared;
        let job = Job {
            work,
            panicked: AtomicBool::new(false),
        };
        // The 'static is a lie the protocol below makes harmless: the pointer is withdrawn
        // and every worker that may have loaded it has left before `job` is dropped.
        let ptr = &job as *const Job<'_> as *mut Job<'static>;
        sh.job.store(ptr, SeqCst);
        sh.epoch.fetch_add(1, SeqCst);
        // A worker counts itself in `sleepers` before it checks `epoch` for the last time, so
        // either it sees this job or this load sees it (both SeqCst).
        if sh.sleepers.load(SeqCst) != 0 {
            let _g = sh.sleep.lock().unwrap_or_else(|e| e.into_inner());
            sh.wake.notify_all();
        }
        let mine = catch_unwind(AssertUnwindSafe(work));
        sh.job.store(std::ptr::null_mut(), SeqCst);
        let mut spins = 0u32;
        while sh.inside.load(SeqCst) != 0 {
            spins += 1;
            if spins < 1 << 16 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        if let Err(e) = mine {
            resume_unwind(e);
        }
        if job.panicked.load(SeqCst) {
            panic!("a resampling worker thread panicked");
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, SeqCst);
        let _g = self.shared.sleep.lock().unwrap_or_else(|e| e.into_inner());
        self.shared.wake.notify_all();
    }
}

fn worker(sh: &Shared) {
    let mut seen = sh.epoch.load(SeqCst);
    loop {
        // Spin for the next job, then sleep until one is posted.
        let t0 = Instant::now();
        let mut n = 0u32;
        while sh.epoch.load(SeqCst) == seen && !sh.shutdown.load(Relaxed) {
            std::hint::spin_loop();
            n = n.wrapping_add(1);
            if n.is_multiple_of(64) && t0.elapsed() >= spin_time() {
                let mut g = sh.sleep.lock().unwrap_or_else(|e| e.into_inner());
                sh.sleepers.fetch_add(1, SeqCst);
                while sh.epoch.load(SeqCst) == seen && !sh.shutdown.load(SeqCst) {
                    g = sh.wake.wait(g).unwrap_or_else(|e| e.into_inner());
                }
                sh.sleepers.fetch_sub(1, SeqCst);
                break;
            }
        }
        if sh.shutdown.load(SeqCst) {
            return;
        }
        seen = sh.epoch.load(SeqCst);
        sh.inside.fetch_add(1, SeqCst);
        let j = sh.job.load(SeqCst);
        if !j.is_null() {
            // SAFETY: `inside` was raised before the load, so the submitter (which clears
            // `job` and then waits for `inside == 0`) keeps `*j` alive until we leave.
            let job = unsafe { &*j };
            if catch_unwind(AssertUnwindSafe(job.work)).is_err() {
                job.panicked.store(true, SeqCst);
            }
        }
        sh.inside.fetch_sub(1, SeqCst);
    }
}

/// Runs `f` over `0..items` split into contiguous chunks of at least `grain` items, in
/// parallel when that pays off. `f` receives `(start, end)`.
///
/// Each thread owns a contiguous share of the chunks, the same share in every call with the
/// same split, so data a call leaves in a core's cache is where that core looks for it in the
/// next call (two threads, nhwc f32 2x48 34x40->67x79 nearest, 2.5 MB: 58 us with chunks
/// claimed first come first served, which moved half the data between the cores' L2s every
/// call). The calling thread starts at once; a thread done with its share takes chunks from
/// the end of the others', so a late or sleeping worker simply does fewer and small problems
/// never wait on a wake-up.
pub fn parallel_for(items: usize, grain: usize, f: impl Fn(usize, usize) + Sync) {
    #[cfg(test)]
    let grain = grain.min(tests::GRAIN_CAP.load(Relaxed));
    let grain = grain.max(1);
    if items == 0 {
        return;
    }
    // Under two grains the work is one chunk: no pool (its lock and reference count).
    let pool = if items / grain >= 2 { pool() } else { None };
    let Some(pool) = pool else {
        f(0, items);
        return;
    };
    let nthr = pool.workers + 1;
    // A few chunks per thread balance uneven rows without fine-grained overhead; a few
    // chunks are a multiple of the threads, each then a little under the grain (3 chunks
    // on 2 threads took 2/3 of the one-thread time: nCx16c f32 8x96 6x10->12x3 13 us, now
    // 10; oneDNN 11).
    let chunks = (items / grain).clamp(1, nthr * 8);
    let chunks = match chunks {
        1 => 1,
        c => c.next_multiple_of(nthr).min(items),
    };
    if chunks == 1 {
        f(0, items);
        return;
    }
    let per = items.div_ceil(chunks);
    let shares = Shares::new(nthr.min(MAX_SHARES), chunks);
    let work = || {
        let me = SLOT.with(Cell::get) % shares.n;
        while let Some(c) = shares.claim(me) {
            let s = c * per;
            let e = (s + per).min(items);
            if s < e {
                f(s, e);
            }
        }
    };
    pool.run(&work);
}

/// Most shares a call splits its chunks into (threads beyond start in a shared one).
const MAX_SHARES: usize = 64;

thread_local! {
    /// The share a thread starts with: 0 for callers, `i + 1` for worker `i`.
    static SLOT: Cell<usize> = const { Cell::new(0) };
}

/// Chunks `0..chunks` split into `n` contiguous shares, each its unclaimed range `lo..hi`
/// packed in one word: the owner claims from the front, others from the back.
struct Shares {
    n: usize,
    range: [AtomicU64; MAX_SHARES],
}

impl Shares {
    fn new(n: usize, chunks: usize) -> Self {
        let range = std::array::from_fn(|k| {
            let (lo, hi) = (k * chunks / n, (k + 1) * chunks / n);
            AtomicU64::new(((hi as u64) << 32) | lo as u64)
        });
        Shares { n, range }
    }

    /// The next chunk for the thread starting in share `me`: its own share's first unclaimed
    /// one, else the last unclaimed one of the next share that has any.
    fn claim(&self, me: usize) -> Option<usize> {
        for k in (0..self.n).map(|j| (me + j) % self.n) {
            let own = k == me;
            let r = &self.range[k];
            let mut cur = r.load(Relaxed);
            loop {
                let (lo, hi) = (cur & 0xFFFF_FFFF, cur >> 32);
                if lo >= hi {
                    break;
                }
                let (next, c) = if own {
                    (cur + 1, lo)
                } else {
                    (((hi - 1) << 32) | lo, hi - 1)
                };
                match r.compare_exchange_weak(cur, next, Relaxed, Relaxed) {
                    Ok(_) => return Some(c as usize),
                    Err(v) => cur = v,
                }
            }
        }
        None
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// Largest grain `parallel_for` uses: tests lower it so that small problems split into
    /// chunks starting and ending anywhere (it changes where chunks cut, never results).
    pub(crate) static GRAIN_CAP: AtomicUsize = AtomicUsize::new(usize::MAX);

    /// Runs `f` with `threads` threads and grains of at most `cap` items.
    pub(crate) fn with_small_chunks(threads: usize, cap: usize, f: impl FnOnce()) {
        let before = max_threads();
        set_max_threads(threads);
        GRAIN_CAP.store(cap, Relaxed);
        f();
        GRAIN_CAP.store(usize::MAX, Relaxed);
        set_max_threads(before);
    }

    #[test]
    fn every_item_runs_exactly_once() {
        for threads in [1, 2, 3, 5] {
            set_max_threads(threads);
            for (items, grain) in [(0, 1), (1, 1), (7, 3), (1000, 7), (100_000, 64), (33, 100)] {
                let seen: Vec<AtomicU32> = (0..items).map(|_| AtomicU32::new(0)).collect();
                parallel_for(items, grain, |s, e| {
                    assert!(s < e && e <= items);
                    for i in s..e {
                        seen[i].fetch_add(1, Ordering::Relaxed);
                    }
                });
                assert!(
                    seen.iter().all(|c| c.load(Ordering::Relaxed) == 1),
                    "{threads} {items} {grain}"
                );
            }
        }
        set_max_threads(0);
    }

    /// A thread takes its own share front to back, then the others' from their ends; threads
    /// claiming at once get every chunk exactly once.
    #[test]
    fn shares_keep_their_owner_and_split_exactly() {
        let s = Shares::new(3, 10); // shares 0..3, 3..6, 6..10
        let order: Vec<usize> = std::iter::from_fn(|| s.claim(1)).collect();
        assert_eq!(order, [3, 4, 5, 9, 8, 7, 6, 2, 1, 0]);
        for (n, chunks) in [(2, 16), (3, 7), (4, 1000), (64, 64)] {
            let s = Shares::new(n, chunks);
            let seen: Vec<AtomicU32> = (0..chunks).map(|_| AtomicU32::new(0)).collect();
            std::thread::scope(|sc| {
                for me in 0..n.min(8) {
                    let (s, seen) = (&s, &seen);
                    sc.spawn(move || {
                        while let Some(c) = s.claim(me) {
                            seen[c].fetch_add(1, Ordering::Relaxed);
                        }
                    });
                }
            });
            assert!(
                seen.iter().all(|c| c.load(Ordering::Relaxed) == 1),
                "{n} {chunks}"
            );
        }
    }

    /// A panic in any chunk (on a worker or on the caller) reaches the caller after every
    /// share has finished, and the pool keeps working afterwards.
    #[test]
    fn panics_reach_the_caller_and_the_pool_survives() {
        set_max_threads(3);
        for bad in [0, 5, 15] {
            let r = std::panic::catch_unwind(|| {
                // The chunk holding item `bad` panics, however the items were split (other
                // tests change the global thread count concurrently, so chunk starts vary).
                parallel_for(16, 1, |s, e| {
                    if (s..e).contains(&bad) {
                        panic!("injected");
                    }
                    std::thread::sleep(std::time::Duration::from_millis(1));
                })
            });
            assert!(r.is_err(), "chunk {bad}");
            let n = AtomicU32::new(0);
            parallel_for(1000, 10, |s, e| {
                n.fetch_add((e - s) as u32, Ordering::Relaxed);
            });
            assert_eq!(n.load(Ordering::Relaxed), 1000);
        }
        set_max_threads(0);
    }

    /// Callers on several threads at once each get all of their items run exactly once (one
    /// of them uses the pool, the others run on their own thread).
    #[test]
    fn concurrent_callers() {
        set_max_threads(2);
        std::thread::scope(|sc| {
            for t in 0..6 {
                sc.spawn(move || {
                    for round in 0..200 {
                        let items = 100 + t * 37 + round;
                        let seen: Vec<AtomicU32> = (0..items).map(|_| AtomicU32::new(0)).collect();
                        parallel_for(items, 3, |s, e| {
                            for c in &seen[s..e] {
                                c.fetch_add(1, Ordering::Relaxed);
                            }
                        });
                        assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1));
                    }
                });
            }
        });
        set_max_threads(0);
    }
}
