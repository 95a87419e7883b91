//! Scratch buffers whose elements start on a cache line.
//!
//! Kernels blend rows into scratch and read them back with whole vectors. A `Vec<f32>` is
//! only 16-byte aligned, so every 64-byte vector access to it straddles two cache lines and
//! costs two: nhwc f32 8x64 56->112 at one thread (AVX-512) took 1.22 ms with its row buffer
//! 16 bytes off a line and 0.99 ms on one (the same loop in C: 1.22 vs 0.99 ms).

use std::ops::{Deref, DerefMut};

/// The alignment: a cache line, which is also the widest vector.
const LINE: usize = 64;

/// A growable buffer of `T` starting on a 64-byte boundary; derefs to its `len()` elements.
pub(crate) struct AlignedBuf<T> {
    raw: Vec<T>,
    shift: usize,
    len: usize,
}

impl<T: Copy + Default> AlignedBuf<T> {
    pub(crate) const fn new() -> Self {
        AlignedBuf {
            raw: Vec::new(),
            shift: 0,
            len: 0,
        }
    }

    /// `n` default (zero) elements.
    pub(crate) fn zeroed(n: usize) -> Self {
        let mut b = Self::new();
        b.resize(n);
        b
    }

    /// Sets the length to `n` as `Vec::resize` with `T::default()` does: the first
    /// `min(len, n)` elements are kept, new ones are the default.
    pub(crate) fn resize(&mut self, n: usize) {
        let slack = LINE / std::mem::size_of::<T>().max(1);
        if self.shift + n > self.raw.len() {
            // A fresh buffer is all default already (for zero, calloc's untouched pages: a
            // large buffer a run never uses costs nothing, where filling it cost a memset).
            let mut raw = vec![T::default(); n + slack];
            let shift = raw.as_ptr().align_offset(LINE).min(slack);
            raw[shift..shift + self.len].copy_from_slice(&self.raw[self.shift..][..self.len]);
            (self.raw, self.shift) = (raw, shift);
        } else if n > self.len {
            self.raw[self.shift + self.len..self.shift + n].fill(T::default());
        }
        self.len = n;
    }
}

impl<T> Deref for AlignedBuf<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.raw[self.shift..self.shift + self.len]
    }
}

impl<T> DerefMut for AlignedBuf<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.raw[self.shift..self.shift + self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_on_a_line_and_resizes_like_a_vec() {
        let mut b = AlignedBuf::<f32>::new();
        let mut v: Vec<f32> = Vec::new();
        for (k, n) in [5usize, 3, 100, 100, 7, 4097, 0, 16]
            .into_iter()
            .enumerate()
        {
            b.resize(n);
            v.resize(n, 0.0);
            assert_eq!(&b[..], &v[..], "step {k}");
            assert!(
                n == 0 || (b.as_ptr() as usize).is_multiple_of(LINE),
                "step {k}"
            );
            for (i, x) in b.iter_mut().enumerate() {
                *x = (k * 1000 + i) as f32;
            }
            for (i, x) in v.iter_mut().enumerate() {
                *x = (k * 1000 + i) as f32;
            }
        }
        let z = AlignedBuf::<u8>::zeroed(77);
        assert!(z.iter().all(|&x| x == 0) && z.len() == 77);
        assert!((z.as_ptr() as usize).is_multiple_of(LINE));
    }
}
