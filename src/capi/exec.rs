//! Running a plan on caller memory, the same way for every face.

use crate::core::{CoreError, Plan};

/// A caller's buffer: its address and length in bytes (any address when empty).
#[derive(Clone, Copy)]
pub(crate) struct Raw {
    pub ptr: *const u8,
    pub len: usize,
}

impl Raw {
    fn overlaps(self, ptr: *mut u8, len: usize) -> bool {
        let (a, b) = (self.ptr as usize, ptr as usize);
        self.len > 0 && len > 0 && a < b.saturating_add(len) && b < a.saturating_add(self.len)
    }
}

/// Executes `plan` reading `src` and `bins` and writing `len` bytes at `dst`. Inputs that
/// share bytes with dst are read from private copies: a shared and a mutable slice over the
/// same bytes would be undefined behaviour, and kernels may write outputs before reading
/// every input. A copy that cannot be allocated is `OutOfMemory`, never an abort.
///
/// # Safety
/// Each buffer must be valid for its length (dst for writes) for the duration of the call.
pub(crate) unsafe fn execute(
    plan: &Plan,
    src: Raw,
    dst: *mut u8,
    len: usize,
    bins: &[Raw],
) -> Result<(), CoreError> {
    let slice = |r: Raw| {
        if r.len == 0 {
            &[][..]
        } else {
            // SAFETY: the caller guarantees `r` is readable for its length.
            unsafe { std::slice::from_raw_parts(r.ptr, r.len) }
        }
    };
    let out = |len: usize| -> &mut [u8] {
        if len == 0 {
            &mut []
        } else {
            // SAFETY: the caller guarantees dst is writable for `len` bytes; the callers
            // below make sure no input slice aliases it.
            unsafe { std::slice::from_raw_parts_mut(dst, len) }
        }
    };
    if bins.is_empty() && !src.overlaps(dst, len) {
        // The common call: no copies, no allocation.
        return plan.execute(slice(src), out(len), &[]);
    }
    let inputs: Vec<Raw> = std::iter::once(src).chain(bins.iter().copied()).collect();
    let mut copies: Vec<Vec<u8>> = Vec::new();
    for r in inputs.iter().filter(|r| r.overlaps(dst, len)) {
        let mut c = crate::core::faults::try_with_capacity(r.len)?;
        // SAFETY: the caller guarantees `r` is readable for its length.
        c.extend_from_slice(unsafe { std::slice::from_raw_parts(r.ptr, r.len) });
        copies.push(c);
    }
    let mut next = copies.iter();
    let slices: Vec<&[u8]> = inputs
        .iter()
        .map(|r| {
            if r.overlaps(dst, len) {
                next.next().map_or(&[][..], |c| &c[..])
            } else {
                // Readable for its length and disjoint from dst (checked above).
                slice(*r)
            }
        })
        .collect();
    plan.execute(slices[0], out(len), &slices[1..])
}
