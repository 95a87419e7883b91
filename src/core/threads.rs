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

fn pool() -> Option<Arc<rayon::ThreadPool>> {
    let mut st = state().lock().unwrap_or_else(|e| e.into_inner());
    if st.threads <= 1 {
        return None;
    }
    if st.pool.is_none() {
        st.pool = rayon::ThreadPoolBuilder::new()
            .num_threads(st.threads)
            .thread_name(|i| format!("resample-{i}"))
            .build()
            .ok()
            .map(Arc::new);
    }
    st.pool.clone()
}

/// Runs `f` over `0..items` split into contiguous chunks of at least `grain` items, in
/// parallel when that pays off. `f` receives `(start, end)`.
pub fn parallel_for(items: usize, grain: usize, f: impl Fn(usize, usize) + Sync) {
    let grain = grain.max(1);
    if items == 0 {
        return;
    }
    let pool = if items > grain { pool() } else { None };
    let Some(pool) = pool else {
        f(0, items);
        return;
    };
    let nthr = pool.current_num_threads();
    // A few chunks per thread balances uneven rows without fine-grained overhead.
    let chunks = (items / grain).clamp(1, nthr * 4);
    let per = items.div_ceil(chunks);
    pool.install(|| {
        use rayon::prelude::*;
        (0..chunks).into_par_iter().for_each(|c| {
            let s = c * per;
            let e = (s + per).min(items);
            if s < e {
                f(s, e);
            }
        })
    });
}
