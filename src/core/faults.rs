//! Test-only fault injection (cargo feature `fault-injection`, off in every shipped build):
//! an internal panic on the next plan creation or execution, and a cap on the bytes one
//! allocation may take, so tests can prove that each face turns them into its own
//! runtime-error and out-of-memory codes. Without the feature every hook is a no-op.

#[cfg(feature = "fault-injection")]
mod state {
    use std::sync::atomic::{AtomicBool, AtomicUsize};
    pub static PANIC: AtomicBool = AtomicBool::new(false);
    pub static CAP: AtomicUsize = AtomicUsize::new(usize::MAX);
}

/// Makes the next plan creation or execution panic inside the library.
#[cfg(feature = "fault-injection")]
pub fn panic_next() {
    state::PANIC.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Refuses every later allocation the hooks guard above `bytes` (`usize::MAX` lifts it).
#[cfg(feature = "fault-injection")]
pub fn cap_allocations(bytes: usize) {
    state::CAP.store(bytes, std::sync::atomic::Ordering::SeqCst);
}

/// Panics if a panic was injected (plan creation and execution call this).
#[inline(always)]
pub(crate) fn maybe_panic() {
    #[cfg(feature = "fault-injection")]
    if state::PANIC.swap(false, std::sync::atomic::Ordering::SeqCst) {
        panic!("injected fault (fault-injection feature)");
    }
}

/// An empty vector with room for `n` elements, or `OutOfMemory` — never an abort (and
/// refused under fault injection as [`may_allocate`] says).
pub(crate) fn try_with_capacity<T>(n: usize) -> Result<Vec<T>, super::CoreError> {
    let bytes = n
        .checked_mul(std::mem::size_of::<T>())
        .ok_or(super::CoreError::OutOfMemory)?;
    if !may_allocate(bytes) {
        return Err(super::CoreError::OutOfMemory);
    }
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| super::CoreError::OutOfMemory)?;
    Ok(v)
}

/// False when an allocation of `bytes` must fail as if memory were exhausted.
#[inline(always)]
pub(crate) fn may_allocate(bytes: usize) -> bool {
    #[cfg(feature = "fault-injection")]
    return bytes <= state::CAP.load(std::sync::atomic::Ordering::SeqCst);
    #[cfg(not(feature = "fault-injection"))]
    {
        let _ = bytes;
        true
    }
}
