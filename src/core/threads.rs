//! The library's own thread pool.
//!
//! Size: the value set through the API ([`set_max_threads`]), else `OMP_NUM_THREADS` (first
//! entry of the list, as OpenMP reads it), else the number of available cores. Work is split
//! into coarse contiguous chunks with a minimum grain; with one thread or a small problem the
//! caller's thread runs it directly.

use std::sync::{Arc, Mutex, OnceLock};

struct PoolState {
    threads: usize,
    pool: Option<Arc<rayon::ThreadPool>>,
}

fn state() -> &'static Mutex<PoolState> {
    static STATE: OnceLock<Mutex<PoolState>> = OnceLock::new();
    STATE.get_or_init(|| {
        Mutex::new(PoolState {
            threads: default_threads(),
            pool: None,
        })
    })
}

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

/// Sets the number of threads used by later executions; 0 restores the default.
pub fn set_max_threads(n: usize) {
    let mut st = state().lock().unwrap_or_else(|e| e.into_inner());
    let n = if n == 0 { default_threads() } else { n };
    if n != st.threads {
        st.threads = n;
        st.pool = None;
    }
}

/// Number of threads executions use.
pub fn max_threads() -> usize {
    state().lock().unwrap_or_else(|e| e.into_inner()).threads
}

/// The helper pool: `threads - 1` workers, since the calling thread works too.
fn pool() -> Option<(Arc<rayon::ThreadPool>, usize)> {
    let mut st = state().lock().unwrap_or_else(|e| e.into_inner());
    if st.threads <= 1 {
        return None;
    }
    if st.pool.is_none() {
        st.pool = rayon::ThreadPoolBuilder::new()
            .num_threads(st.threads - 1)
            .thread_name(|i| format!("resample-{i}"))
            .build()
            .ok()
            .map(Arc::new);
    }
    st.pool.clone().map(|p| (p, st.threads))
}

/// Runs `f` over `0..items` split into contiguous chunks of at least `grain` items, in
/// parallel when that pays off. `f` receives `(start, end)`.
///
/// The calling thread starts on the first chunk at once and the pool's workers join as they
/// wake; chunks are claimed from a shared counter, so a late worker simply takes fewer. That
/// keeps small problems from waiting on a thread wake-up before any work starts.
pub fn parallel_for(items: usize, grain: usize, f: impl Fn(usize, usize) + Sync) {
    let grain = grain.max(1);
    if items == 0 {
        return;
    }
    let pool = if items > grain { pool() } else { None };
    let Some((pool, nthr)) = pool else {
        f(0, items);
        return;
    };
    // A few chunks per thread balance uneven rows without fine-grained overhead.
    let chunks = (items / grain).clamp(1, nthr * 8);
    let per = items.div_ceil(chunks);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || loop {
        let c = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if c >= chunks {
            break;
        }
        let s = c * per;
        let e = (s + per).min(items);
        if s < e {
            f(s, e);
        }
    };
    pool.in_place_scope(|scope| {
        for _ in 1..nthr.min(chunks) {
            scope.spawn(|_| work());
        }
        work();
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

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
}
