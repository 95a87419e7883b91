//! Output bytes built in a small cache-resident buffer and streamed to dst past the cache.
//!
//! Kernels that build their output in pieces (short rows, stretches of long ones) ask for a
//! slot per piece; pieces that continue each other in dst share the buffer and go out with
//! non-temporal stores when it is full (its whole lines; a partial last line waits for the
//! next piece) or when the next piece goes elsewhere, so partial lines, which cost a
//! read-for-ownership, are left only where the output itself has a gap.

use super::super::aligned::AlignedBuf;
use super::simd;

/// Bytes a batch holds: 32 lines, about what the core's write-combining buffers absorb while
/// the next batch is built (nchw f32 8x256 32->64 nearest, streamed, 1 thread: 2.7 ms with
/// 2 KiB batches, 3.4 with 8 KiB).
pub(crate) const BATCH: usize = 2048;

pub(crate) struct NtBatch {
    buf: AlignedBuf<u8>,
    /// Where the pending bytes go.
    dst: *mut u8,
    len: usize,
}

impl NtBatch {
    pub(crate) fn new() -> Self {
        NtBatch {
            buf: AlignedBuf::zeroed(BATCH + 64),
            dst: std::ptr::null_mut(),
            len: 0,
        }
    }

    /// A buffer pointer for `n` bytes bound for `dst`: after the pending ones when they
    /// continue them (the whole lines of a full batch streamed first), else in a fresh
    /// batch (the pending one streamed first).
    ///
    /// # Safety
    /// `dst..dst + n` is writable by this caller alone until [`NtBatch::flush`], and the
    /// caller writes all `n` bytes at the returned pointer before asking for another slot.
    #[inline]
    pub(crate) unsafe fn slot(&mut self, dst: *mut u8, n: usize) -> *mut u8 {
        // SAFETY: the pending bytes were promised writable by earlier slots; the slot lies in
        // the buffer, grown to hold the batch past dst's offset.
        unsafe {
            if self.len > 0 {
                if dst != self.dst.wrapping_add(self.len) {
                    self.flush();
                } else if self.len + n > BATCH {
                    self.flush_lines();
                }
            }
            if self.len == 0 {
                self.dst = dst;
            }
            // At dst's offset within its line: the stream copy then loads whole buffer lines.
            let p = simd::scratch_bytes_like(&mut self.buf, self.dst, self.len + n).add(self.len);
            self.len += n;
            p
        }
    }

    /// Streams the pending bytes' whole lines and keeps the partial last line pending, so
    /// that a stream continued by the next slot has no partial line in its middle.
    unsafe fn flush_lines(&mut self) {
        let shift = self.dst as usize % 64;
        let keep = (shift + self.len) % 64;
        if keep >= self.len {
            return;
        }
        // SAFETY: as `flush`; the kept bytes move to the buffer's first line, where the
        // advanced `dst` (on a line) starts.
        unsafe {
            let out = self.len - keep;
            simd::stream_copy(self.buf.as_ptr().add(shift), self.dst, out);
            let b = self.buf.as_mut_ptr();
            std::ptr::copy(b.add(shift + out), b, keep);
            self.dst = self.dst.add(out);
            self.len = keep;
        }
    }

    /// Streams the pending bytes out. The caller fences before its output is read.
    ///
    /// # Safety
    /// As [`NtBatch::slot`]: the pending bytes' destination is still this caller's.
    pub(crate) unsafe fn flush(&mut self) {
        if self.len > 0 {
            // SAFETY: `len` bytes were built at the batch's shift, bound for `dst`.
            unsafe {
                simd::stream_copy(
                    self.buf.as_ptr().add(self.dst as usize % 64),
                    self.dst,
                    self.len,
                )
            };
            self.len = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pieces in order, with gaps and at every alignment, land exactly where they were
    /// bound, whatever the batches they shared.
    #[test]
    fn pieces_land_where_bound() {
        for shift in [0usize, 1, 13, 64] {
            for piece in [1usize, 7, 64, 100, 3000, BATCH, BATCH + 5] {
                let mut out = vec![0u8; 4 * BATCH + 20000];
                let mut want = out.clone();
                let mut nb = NtBatch::new();
                let mut at = shift;
                let mut v = 1u8;
                while at + piece < out.len() {
                    // SAFETY: the piece lies in `out`, flushed before it is read.
                    unsafe {
                        let p = nb.slot(out.as_mut_ptr().add(at), piece);
                        for i in 0..piece {
                            *p.add(i) = v.wrapping_add(i as u8);
                            want[at + i] = v.wrapping_add(i as u8);
                        }
                    }
                    v = v.wrapping_add(31);
                    // Every third piece leaves a gap after it.
                    at += piece + if v.is_multiple_of(3) { 17 } else { 0 };
                }
                // SAFETY: as above.
                unsafe { nb.flush() };
                simd::store_fence();
                assert_eq!(out, want, "shift {shift} piece {piece}");
            }
        }
    }
}
