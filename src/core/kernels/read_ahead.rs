//! Software read-ahead for walks that move forward through a source: each line past the
//! furthest address read so far is asked for once, a fixed distance ahead of the walk.
//!
//! Where the source comes from memory, one thread's hardware prefetchers leave the walk
//! waiting on its loads: nchw f32 8x64 112x112 -> 56x56 linear stalled 80% of its time on
//! the source rows (1 thread, Zen 4). Asking 32 KiB ahead into L2 took it from 2.3-3.3 ms
//! to 1.6-1.9 (planes); 1 KiB ahead was slower than nothing, and from cache (2x64, 8 MB)
//! the requests cost 8-13%: callers ask that far only when the problem is beyond the cache
//! ([`crate::core::streaming::beyond`]). Where the hardware keeps up (channels-last pixel
//! rows, raw nearest gathers, nearest backward sums) the far requests cost 13-200%: each
//! walk that asks was measured against not asking.

use crate::core::simd;

/// Distance asked ahead of walks from memory, into L2.
pub(crate) const FAR: usize = 32 << 10;

/// The cursor of one thread's walk.
pub(crate) struct ReadAhead {
    /// Address asked for up to (exclusive).
    done: usize,
    /// Bytes ahead of the walk; 0 asks for nothing.
    dist: usize,
    /// Into L2 only, else into L1 as well.
    l2: bool,
}

impl ReadAhead {
    pub(crate) fn new(dist: usize, l2: bool) -> Self {
        ReadAhead { done: 0, dist, l2 }
    }

    /// [`FAR`] into L2 when `on` (the source comes from memory), else nothing.
    pub(crate) fn from_memory(on: bool) -> Self {
        Self::new(if on { FAR } else { 0 }, true)
    }

    /// The walk has read up to `end` (exclusive): asks for the lines up to the distance
    /// past it not asked for yet. Behind the walk, or far ahead of it after a jump back
    /// (another plane), the mark starts again from `end`.
    #[inline(always)]
    pub(crate) fn reach(&mut self, end: *const u8) {
        if self.dist == 0 {
            return;
        }
        let end = end as usize;
        let target = end.wrapping_add(self.dist);
        let from = match self.done {
            d if d < end || d > target.wrapping_add(self.dist) => end,
            d => d,
        };
        if from < target {
            simd::prefetch_span_in(self.l2, from as *const u8, target - from);
            self.done = target;
        }
    }
}
