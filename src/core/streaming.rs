//! Whether an execution writes its output with non-temporal (streamed) stores.
//!
//! Streamed stores skip the read-for-ownership of every output line: they pay once source
//! and destination no longer fit the cache, and lose while they do (plain stores also leave
//! the output cached for its next reader). Where that line lies, sysfs does not reliably
//! say. A VM's two cores on a 260 MiB L3 (Intel Xeon, 5th generation) see a 130 MiB share
//! each and get a few MiB of it: a 4x upsampling copy of 16 MiB runs at 18.5 GB/s with plain
//! stores and 23.8 streamed. A 2-core slice of an AMD EPYC keeps plain stores ahead up to
//! its 16 MiB share. The kernel matters too: at 40 MB on that Xeon, nhwc f32 8x256 32->64
//! linear takes 1.87 ms plain and 1.01 streamed, nchw 8x64 56->112 1.96 plain and 2.62
//! streamed (one thread, side by side).
//!
//! So: plain within the threads' L2, streamed beyond their sysfs share of the last level
//! (at most 64 MiB a thread), and in between each problem times both on its first
//! executions, each kind in a block of its own, and keeps the faster.
//! A problem beyond a core's share is memory-bound whatever its stores: the execution's
//! [`Mode`] says so too, for kernels with a loop of their own for data coming from memory.
//! The trial belongs to the problem (a registry keyed by the canonical problem), not to one
//! plan, so that faces which plan per call (aclnn) also decide once per shape.

use std::cell::Cell;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::simd::Isa;
use super::{cache, threads, Direction, Problem};

/// One execution's stores, and whether its problem lies beyond a core's share of the
/// last-level cache: memory-bound whatever its stores, where kernels that have one take
/// their loop for data coming from memory (see `bwd_stream::px_wide`). Only rules with a
/// trial say so (an ISA with streamed stores, a problem past the L2): elsewhere `beyond`
/// stays false, and those kernels keep their cache loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Mode {
    pub nt: bool,
    pub beyond: bool,
}

thread_local! {
    /// The running execution's mode, set around every chunk by [`with`].
    static MODE: Cell<Mode> = const { Cell::new(Mode { nt: false, beyond: false }) };
}

/// Tests: stream every output whatever its size (the outputs are the same either way, so
/// tests running meanwhile are unaffected).
#[cfg(test)]
pub(crate) static FORCE_STREAM: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Whether the running execution streams its output.
#[inline]
pub(crate) fn now() -> bool {
    #[cfg(test)]
    if FORCE_STREAM.load(std::sync::atomic::Ordering::Relaxed) {
        return true;
    }
    MODE.with(Cell::get).nt
}

/// Whether the running execution's problem lies beyond a core's cache share ([`Mode`]).
#[inline]
pub(crate) fn beyond() -> bool {
    #[cfg(test)]
    if FORCE_STREAM.load(std::sync::atomic::Ordering::Relaxed) {
        return true;
    }
    MODE.with(Cell::get).beyond
}

/// Runs `f` (a chunk of an execution, on any thread) with the execution's mode.
pub(crate) fn with<R>(mode: Mode, f: impl FnOnce() -> R) -> R {
    struct Restore(Mode);
    impl Drop for Restore {
        fn drop(&mut self) {
            MODE.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(MODE.with(|c| c.replace(mode)));
    f()
}

/// The trial: one untimed warm-up (its page faults and cold caches would count against
/// whichever went first), a block of streamed executions, then a block of plain ones.
/// Blocks, not alternation: a streamed execution evicts the output, and plain stores reach
/// their speed only once the output is cached again, after a few executions in a row (1
/// thread, Intel Xeon, ms per execution of nhwc f32 4x40 40x64->80x128 linear: plain after
/// streamed 0.93-1.0, plain in a row 0.76 0.65 0.48 0.45, streamed 0.6; 8x64 56->112: plain
/// 4.8 5.1 3.6 2.7 2.2 1.9 1.9, streamed 1.8). Plain is kept when the median of its block
/// beats the best streamed execution. The block begins after one untimed plain execution
/// (the streamed ones left no output line cached; counting that one too made the choice a
/// coin flip where plain wins once warm: nchw f32 16x64 24x24->48x48 linear, 12 MB, plain
/// 1.37 1.12 0.78 0.69 0.69 after streamed 0.83, then 0.7 plain or 0.8-0.94 streamed),
/// and is still partly cold: a caller alternating a larger problem with other work pays
/// that warm-up every time (in the benchmark's alternating rounds the 8x64 problem took
/// 1.9 ms plain, 1.5 streamed). The blocks are short: a benchmark timing a few executions
/// of each problem counts the trial's slower ones.
const WARMUP: u32 = 1;
const STREAMED: u32 = 3;
const REWARM: u32 = 1;
const PLAIN: u32 = 5;
/// Bytes per thread beyond which a problem streams whatever the LLC share: no cache keeps
/// an output that large from call to call among other work (HWC f32 HD linear, 119 MiB on a
/// 130 MiB share: 18 ms plain, 11 streamed), and a trial there costs more than a
/// benchmark's dozen timed executions can hide.
const STREAM_BEYOND: usize = 64 << 20;
/// The last-level cache share a problem is weighed against: the sysfs one, capped at
/// [`STREAM_BEYOND`].
fn llc_share(llc: usize) -> usize {
    llc.min(STREAM_BEYOND)
}

/// Problems the registry remembers; beyond, new ones keep a trial of their own plan.
const MAX_PROBLEMS: usize = 4096;
/// Thread counts one problem remembers a decision for.
const MAX_SLOTS: usize = 8;

/// Where a problem of `bytes` falls for `threads` threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Zone {
    Plain,
    Trial,
    Stream,
}

fn zone(bytes: usize, threads: usize, plain: usize, llc: usize) -> Zone {
    if bytes <= threads.saturating_mul(plain) {
        Zone::Plain
    } else if bytes > threads.saturating_mul(llc) {
        Zone::Stream
    } else {
        Zone::Trial
    }
}

/// A plan's rule: the bytes it moves, and its problem's trial when it can have one.
#[derive(Clone, Debug)]
pub(crate) struct StreamRule {
    /// Source plus destination bytes (raw nearest copies count 8/9 of them: their partly
    /// cached lines keep plain stores ahead a little longer).
    bytes: usize,
    /// `None`: this ISA has no streamed stores here, or the problem fits every L2.
    trial: Option<Arc<Trial>>,
}

/// One execution's choice; hand it back to [`StreamRule::end`].
#[must_use]
pub(crate) struct Choice {
    pub mode: Mode,
    /// The trial's clock: (start, threads), when this execution is one of its samples.
    timed: Option<(Instant, usize)>,
}

impl StreamRule {
    /// `key` names the kernel and ISA the problem runs with (asked only when a trial can
    /// happen: it formats the whole problem).
    pub(crate) fn of(p: &Problem, isa: Isa, key: impl FnOnce() -> String) -> Self {
        let dst = p.dst.span_bytes().unwrap_or(usize::MAX);
        let bytes = dst.saturating_add(p.src.span_bytes().unwrap_or(usize::MAX));
        let copy = p.direction == Direction::Forward && p.raw_nearest().is_some();
        let bytes = if copy { bytes / 9 * 8 } else { bytes };
        // Only x86 vector code has streamed stores here; elsewhere scratch would be a copy.
        let has_nt = cfg!(target_arch = "x86_64") && isa != Isa::Base;
        let trial = (has_nt && bytes > cache::l2_per_core()).then(|| registered(key()));
        StreamRule { bytes, trial }
    }

    /// Decided per execution: the thread count can change after planning.
    pub(crate) fn begin(&self) -> Choice {
        let Some(trial) = &self.trial else {
            return Choice {
                mode: Mode::default(),
                timed: None,
            };
        };
        let threads = threads::max_threads();
        let llc = llc_share(cache::llc_per_core());
        // Beyond one core's share whatever the thread count: the other threads' shares of a
        // shared cache are not all theirs either (2 threads, Zen 4, 32 MiB L3, nhwc f32
        // backward of 2x256 50x50 -> 100x100 nearest, 26 MB: 1.55 ms read as from cache,
        // 0.97 as from memory; 1x128 80x80 -> 160x160, 16 MB: 0.19, 0.22).
        let beyond = self.bytes > llc;
        let (nt, timed) = match zone(self.bytes, threads, cache::l2_per_core(), llc) {
            Zone::Plain => (false, None),
            Zone::Stream => (true, None),
            Zone::Trial => {
                let (nt, timed) = trial.begin(threads);
                (nt, timed.then(|| (Instant::now(), threads)))
            }
        };
        Choice {
            mode: Mode { nt, beyond },
            timed,
        }
    }

    pub(crate) fn end(&self, c: Choice) {
        if let (Some(trial), Some((start, threads))) = (&self.trial, c.timed) {
            trial.end(threads, c.mode.nt, start.elapsed());
        }
    }
}

/// The trial registered for `key`'s problem.
fn registered(key: String) -> Arc<Trial> {
    static REGISTRY: Mutex<Option<HashMap<u64, Arc<Trial>>>> = Mutex::new(None);
    let mut h = DefaultHasher::new();
    key.hash(&mut h);
    let id = h.finish();
    let mut reg = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    let map = reg.get_or_insert_with(HashMap::new);
    if let Some(t) = map.get(&id) {
        return t.clone();
    }
    let t = Arc::new(Trial::default());
    if map.len() < MAX_PROBLEMS {
        map.insert(id, t.clone());
    }
    t
}

/// Both kinds of store timed on one problem, per thread count.
#[derive(Debug, Default)]
pub(crate) struct Trial {
    slots: Mutex<Vec<Slot>>,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    threads: usize,
    begun: u32,
    /// Streamed executions ended, and the fastest.
    streamed: u32,
    best: Duration,
    /// Plain executions ended.
    plain: [Duration; PLAIN as usize],
    plain_n: u32,
    decided: Option<bool>,
}

impl Trial {
    fn slots(&self) -> MutexGuard<'_, Vec<Slot>> {
        // A panic elsewhere cannot leave a slot inconsistent: each update is one statement.
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// (stream?, time this one?) for the next execution at `threads` threads.
    fn begin(&self, threads: usize) -> (bool, bool) {
        let mut slots = self.slots();
        let i = match slots.iter().position(|s| s.threads == threads) {
            Some(i) => i,
            None => {
                if slots.len() == MAX_SLOTS {
                    slots.remove(0);
                }
                slots.push(Slot {
                    threads,
                    begun: 0,
                    streamed: 0,
                    best: Duration::MAX,
                    plain: [Duration::ZERO; PLAIN as usize],
                    plain_n: 0,
                    decided: None,
                });
                slots.len() - 1
            }
        };
        let s = &mut slots[i];
        if let Some(nt) = s.decided {
            return (nt, false);
        }
        let n = s.begun;
        s.begun = n.saturating_add(1);
        match n.checked_sub(WARMUP) {
            Some(k) if k < STREAMED => (true, true),
            Some(k) if k < STREAMED + REWARM => (false, false),
            Some(k) if k < STREAMED + REWARM + PLAIN => (false, true),
            // Warm-up, or samples still running on other threads.
            _ => (false, false),
        }
    }

    fn end(&self, threads: usize, nt: bool, took: Duration) {
        let mut slots = self.slots();
        let Some(s) = slots.iter_mut().find(|s| s.threads == threads) else {
            return;
        };
        if s.decided.is_some() {
            return;
        }
        if nt {
            s.streamed += 1;
            s.best = s.best.min(took);
        } else if s.plain_n < PLAIN {
            s.plain[s.plain_n as usize] = took;
            s.plain_n += 1;
        }
        if s.streamed < STREAMED {
            return;
        }
        // Decided once the block's median is known: a majority on one side of the best
        // streamed time.
        let plain = &s.plain[..s.plain_n as usize];
        let faster = plain.iter().filter(|&&t| t < s.best).count() as u32;
        let half = PLAIN / 2 + 1;
        if faster >= half {
            s.decided = Some(false);
        } else if s.plain_n - faster >= half {
            s.decided = Some(true);
        }
    }

    #[cfg(test)]
    fn decided(&self, threads: usize) -> Option<bool> {
        self.slots()
            .iter()
            .find(|s| s.threads == threads)
            .and_then(|s| s.decided)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_follow_the_cache_sizes() {
        let (l2, llc) = (2 << 20, 16 << 20);
        assert_eq!(zone(2 << 20, 1, l2, llc), Zone::Plain);
        assert_eq!(zone((2 << 20) + 1, 1, l2, llc), Zone::Trial);
        assert_eq!(zone(4 << 20, 2, l2, llc), Zone::Plain);
        assert_eq!(zone(16 << 20, 1, l2, llc), Zone::Trial);
        assert_eq!(zone((16 << 20) + 1, 1, l2, llc), Zone::Stream);
        assert_eq!(zone((16 << 20) + 1, 2, l2, llc), Zone::Trial);
        assert_eq!(zone(usize::MAX, usize::MAX, l2, llc), Zone::Plain);
        // The share is capped: a 130 MiB one streams beyond 64 MiB a thread.
        let big = llc_share(130 << 20);
        assert_eq!(zone(119 << 20, 1, l2, big), Zone::Stream);
        assert_eq!(zone(119 << 20, 2, l2, big), Zone::Trial);
    }

    /// Runs a trial where streamed executions take `nt_ms` and the plain ones in a row
    /// `plain_ms` in turn (the last repeated); returns the kinds executed.
    fn settle(t: &Trial, threads: usize, plain_ms: &[u64], nt_ms: u64) -> Vec<bool> {
        let mut kinds = Vec::new();
        let mut plain = 0;
        for _ in 0..(WARMUP + STREAMED + REWARM + PLAIN + 2) {
            let (nt, timed) = t.begin(threads);
            kinds.push(nt);
            if timed {
                let ms = if nt {
                    nt_ms
                } else {
                    plain += 1;
                    plain_ms[(plain - 1).min(plain_ms.len() - 1)]
                };
                t.end(threads, nt, Duration::from_millis(ms));
            }
        }
        kinds
    }

    #[test]
    fn trials_keep_the_faster_store_per_thread_count() {
        let (f, t) = (false, true);
        let tr = Trial::default();
        // Plain slower from the start: streamed once three plain runs have lost.
        let kinds = settle(&tr, 1, &[100, 99, 98], 50);
        assert_eq!(kinds, [f, t, t, t, f, f, f, f, t, t, t, t]);
        assert_eq!(tr.decided(1), Some(true));
        // Another thread count decides on its own: plain warming up quickly wins the
        // block's majority.
        let kinds = settle(&tr, 2, &[350, 120, 110], 160);
        assert_eq!(kinds, [f, t, t, t, f, f, f, f, f, f, f, f]);
        assert_eq!(tr.decided(2), Some(false));
        assert_eq!(tr.decided(1), Some(true));
        // Plain that ends up as fast only after most of its block loses.
        let tr = Trial::default();
        settle(&tr, 1, &[480, 360, 220, 170, 160], 176);
        assert_eq!(tr.decided(1), Some(true));
        // Ties go to streaming.
        let tr = Trial::default();
        settle(&tr, 1, &[100], 100);
        assert_eq!(tr.decided(1), Some(true));
        // Executions begun but not yet ended do not decide.
        let tr = Trial::default();
        for _ in 0..WARMUP + STREAMED + REWARM + PLAIN {
            let _ = tr.begin(1);
        }
        assert_eq!(tr.begin(1), (false, false));
        assert_eq!(tr.decided(1), None);
    }

    #[test]
    fn problems_share_their_trial() {
        let a = registered("streaming test problem".into());
        let b = registered("streaming test problem".into());
        let c = registered("another streaming test problem".into());
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
    }

    #[test]
    fn the_choice_reaches_every_chunk() {
        let forced = || FORCE_STREAM.load(std::sync::atomic::Ordering::Relaxed);
        let (on, off) = (
            Mode {
                nt: true,
                beyond: true,
            },
            Mode::default(),
        );
        assert!(!now() || forced());
        assert!(with(on, now) && with(on, beyond));
        let inner = with(on, || with(off, || now() || beyond()));
        assert!(!inner || forced());
        assert!(with(on, || {
            with(off, || ());
            now() && beyond()
        }));
    }
}
