//! Scratch buffers whose elements start on a cache line.
//!
//! Kernels blend rows into scratch and read them back with whole vectors. A `Vec<f32>` is
//! only 16-byte aligned, so every 64-byte vector access to it straddles two cache lines and
//! costs two: nhwc f32 8x64 56->112 at one thread (AVX-512) took 1.22 ms with its row buffer
//! 16 bytes off a line and 0.99 ms on one (the same loop in C: 1.22 vs 0.99 ms).

use std::cell::RefCell;
use std::ops::{Deref, DerefMut};

/// The alignment: a cache line, which is also the widest vector.
const LINE: usize = 64;

/// Buffers of at most this many bytes go back to their thread's pool when dropped, and a
/// new buffer takes one from there: a tiny problem's scratch was a calloc and a free per
/// row walk, a fifth of its call (nchw u8 1x1 26->13 linear, 0.3 us). Larger ones come
/// zeroed from calloc's untouched pages, which costs nothing where a run never uses them.
const POOLED_BYTES: usize = 16 << 10;
/// Buffers a thread's pool of one element type keeps.
const POOL_SIZE: usize = 8;

/// Element types of [`AlignedBuf`]: plain values, each with its thread's pool of buffers.
pub(crate) trait Elem: Copy + Default + 'static {
    /// `f` on this thread's pool; `None` where the thread is exiting and its pool is gone.
    fn with_pool<R>(f: impl FnOnce(&mut Vec<Vec<Self>>) -> R) -> Option<R>;
}

macro_rules! elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            fn with_pool<R>(f: impl FnOnce(&mut Vec<Vec<Self>>) -> R) -> Option<R> {
                thread_local! {
                    static POOL: RefCell<Vec<Vec<$t>>> = const { RefCell::new(Vec::new()) };
                }
                POOL.try_with(|p| p.try_borrow_mut().ok().map(|mut p| f(&mut p)))
                    .ok()
                    .flatten()
            }
        }
    )*};
}
elem!(f32, u16, u8);

/// A growable buffer of `T` starting on a 64-byte boundary; derefs to its `len()` elements.
pub(crate) struct AlignedBuf<T: Elem> {
    raw: Vec<T>,
    shift: usize,
    len: usize,
}

impl<T: Elem> AlignedBuf<T> {
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
            // large buffer a run never uses costs nothing, where filling it cost a memset);
            // a small one from the pool is filled.
            let want = n + slack;
            let mut raw = match take_pooled::<T>(want) {
                Some(mut v) => {
                    v.clear();
                    v.resize(want, T::default());
                    v
                }
                None => vec![T::default(); want],
            };
            let shift = raw.as_ptr().align_offset(LINE).min(slack);
            raw[shift..shift + self.len].copy_from_slice(&self.raw[self.shift..][..self.len]);
            let old = std::mem::replace(&mut self.raw, raw);
            self.shift = shift;
            recycle(old);
        } else if n > self.len {
            self.raw[self.shift + self.len..self.shift + n].fill(T::default());
        }
        self.len = n;
    }
}

/// A buffer of capacity at least `want` from this thread's pool, when `want` is small
/// enough to be pooled and the pool holds one (its contents are stale).
fn take_pooled<T: Elem>(want: usize) -> Option<Vec<T>> {
    if want.saturating_mul(std::mem::size_of::<T>()) > POOLED_BYTES {
        return None;
    }
    T::with_pool(|p| {
        let i = p.iter().position(|v| v.capacity() >= want)?;
        Some(p.swap_remove(i))
    })
    .flatten()
}

/// Gives a small buffer back to its thread's pool (a full pool drops it).
fn recycle<T: Elem>(v: Vec<T>) {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes > 0 && bytes <= POOLED_BYTES {
        // (During thread exit the pool may be gone: the buffer is then freed.)
        let _ = T::with_pool(|p| {
            if p.len() < POOL_SIZE {
                p.push(v);
            }
        });
    }
}

impl<T: Elem> Drop for AlignedBuf<T> {
    fn drop(&mut self) {
        recycle(std::mem::take(&mut self.raw));
    }
}

impl<T: Elem> Deref for AlignedBuf<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.raw[self.shift..self.shift + self.len]
    }
}

impl<T: Elem> DerefMut for AlignedBuf<T> {
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

    #[test]
    fn pooled_buffers_come_back_zeroed_and_aligned() {
        // Dirty small buffers of every size class, dropped into the pool, then taken again:
        // each must read as a fresh one.
        for n in [1usize, 15, 64, 1000, 3000] {
            for _ in 0..POOL_SIZE + 2 {
                let mut b = AlignedBuf::<f32>::zeroed(n);
                b.iter_mut().for_each(|x| *x = f32::NAN);
                let mut c = AlignedBuf::<u16>::zeroed(n);
                c.iter_mut().for_each(|x| *x = 0xFFFF);
            }
            for _ in 0..POOL_SIZE + 2 {
                let b = AlignedBuf::<f32>::zeroed(n);
                let c = AlignedBuf::<u16>::zeroed(n);
                assert!(
                    b.iter().all(|x| x.to_bits() == 0) && b.len() == n,
                    "f32 {n}"
                );
                assert!(c.iter().all(|&x| x == 0) && c.len() == n, "u16 {n}");
                assert!((b.as_ptr() as usize).is_multiple_of(LINE));
                assert!((c.as_ptr() as usize).is_multiple_of(LINE));
                // Held together: distinct buffers, not one handed out twice.
                assert_ne!(b.as_ptr() as usize, c.as_ptr() as usize);
            }
        }
        // A buffer grown within one taken from the pool keeps its values.
        let mut b = AlignedBuf::<u8>::zeroed(10);
        b.iter_mut().for_each(|x| *x = 7);
        b.resize(500);
        assert!(b[..10].iter().all(|&x| x == 7) && b[10..].iter().all(|&x| x == 0));
    }
}
