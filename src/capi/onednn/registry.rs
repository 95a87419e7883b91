//! Live-handle registry: every opaque handle this face hands out is recorded here with its
//! kind, so a call given a NULL, destroyed, foreign or wrong-kind pointer is refused with
//! `dnnl_invalid_arguments` instead of dereferencing it.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, OnceLock};

/// What a registered pointer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Engine,
    Stream,
    Memory,
    PrimitiveDesc,
    PdIterator,
    Primitive,
    Attr,
    /// An attribute set owned by a primitive descriptor (read-only for the caller).
    PdAttr,
    /// A post-op chain the caller created.
    PostOps,
    /// A post-op chain owned by an attribute set (read-only for the caller).
    AttrPostOps,
    /// A oneDNN 3.x memory descriptor handle the caller owns (libdnnl.so.3 only).
    #[cfg(resample_dnnl3)]
    MemoryDesc,
}

/// Hashes a handle address with one folded 128-bit multiply: every execute looks up three
/// or more handles, and SipHash made those lookups a tenth of a tiny call's time.
#[derive(Default)]
struct AddrHasher(u64);

impl std::hash::Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0 ^ b as u64);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        // Folding the full product mixes every address bit into the low (bucket) and high
        // (control byte) bits alike.
        let m = (n as u128) * 0x9E37_79B9_7F4A_7C15u128;
        self.0 = (m as u64) ^ ((m >> 64) as u64);
    }
}

type Live = HashMap<usize, Kind, std::hash::BuildHasherDefault<AddrHasher>>;

fn live() -> MutexGuard<'static, Live> {
    static LIVE: OnceLock<Mutex<Live>> = OnceLock::new();
    LIVE.get_or_init(|| Mutex::new(Live::default()))
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// Moves `value` to the heap and records it; the result is the C handle.
pub(crate) fn register<T>(value: T, kind: Kind) -> *mut T {
    let p = Box::into_raw(Box::new(value));
    live().insert(p as usize, kind);
    p
}

/// The object behind `p` when `p` is a live handle of `kind`.
///
/// # Safety
/// Registered pointers stay valid until [`unregister`]; a caller destroying a handle while
/// another thread uses it is a race in the C program, as in oneDNN.
pub(crate) unsafe fn get<'a, T>(p: *const T, kind: Kind) -> Option<&'a T> {
    // SAFETY: a pointer found live in the registry points to its boxed object, valid until
    // `unregister` (destroying a handle another thread uses is the C program's race, as in oneDNN).
    unsafe {
        if p.is_null() || live().get(&(p as usize)) != Some(&kind) {
            return None;
        }
        Some(&*p)
    }
}

/// Removes a live handle and returns ownership of it; `None` if `p` is not a live `kind`.
pub(crate) unsafe fn unregister<T>(p: *mut T, kind: Kind) -> Option<Box<T>> {
    // SAFETY: a pointer live in the registry came from `Box::into_raw`; it is removed here, so it
    // is freed once.
    unsafe {
        let mut l = live();
        if p.is_null() || l.get(&(p as usize)) != Some(&kind) {
            return None;
        }
        l.remove(&(p as usize));
        drop(l);
        Some(Box::from_raw(p))
    }
}
