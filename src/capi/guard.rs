//! Boundary discipline shared by every face: panic containment, pointer checks and the
//! verbose switch.
//!
//! # Panic values
//!
//! Every `extern "C"` body runs under a guard that catches a panic and returns a value
//! instead, so unwinding never reaches C. Which value is not chosen at the call site:
//!
//! - A function returning a face's **status** (all `i32` aliases in C, so the type alone
//!   cannot pick the code) uses that face's guard, defined once below:
//!   `onednn_guard!` (`dnnl_runtime_error`), `dml_guard!` (`E_FAIL`), `aclnn_guard!`
//!   (`ACLNN_ERR_RUNTIME_ERROR`), `acl_guard!` (`ACL_ERROR_INTERNAL_ERROR`, the `aclrt*`
//!   runtime calls) and `native_guard!` (`RESAMPLE_RUNTIME_ERROR`). Each also pins the
//!   body's type to the face's status type.
//! - A function returning a pointer or nothing uses `ffi_guard!` without a value: the
//!   value comes from [`PanicValue`] (null, `()`). Plain `i32` has no `PanicValue`, so a
//!   status function cannot reach for this form by mistake.
//! - The few functions returning a count, a size, an enum or a string use
//!   `ffi_guard!(sentinel = VALUE, { .. })`, where the value is that function's documented
//!   "nothing" answer. The test `status_functions_use_their_face_guard` below checks that no
//!   function returning a status type goes through this form (or through no guard at all).

/// The value a caught panic returns, for return types with one obvious failure value.
pub trait PanicValue {
    fn panic_value() -> Self;
}

impl PanicValue for () {
    fn panic_value() -> Self {}
}

impl<T> PanicValue for *mut T {
    fn panic_value() -> Self {
        std::ptr::null_mut()
    }
}

impl<T> PanicValue for *const T {
    fn panic_value() -> Self {
        std::ptr::null()
    }
}

/// Runs `$body`, turning a panic into a value: `ffi_guard!({ .. })` takes it from the return
/// type's [`PanicValue`](crate::capi::guard::PanicValue) (pointers: null; `()`);
/// `ffi_guard!(sentinel = V, { .. })` is for counts, sizes, enums and strings only. Status
/// functions use their face's guard (see the [module docs](crate::capi::guard)).
#[macro_export]
macro_rules! ffi_guard {
    ($body:block) => {{
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| $body)) {
            Ok(v) => v,
            Err(_) => $crate::capi::guard::PanicValue::panic_value(),
        }
    }};
    (sentinel = $on_panic:expr, $body:block) => {
        $crate::ffi_guard!(@value $on_panic, $body)
    };
    (@value $on_panic:expr, $body:block) => {{
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| $body)) {
            Ok(v) => v,
            Err(_) => $on_panic,
        }
    }};
}

/// A face's status guard: `$body` must have type `$status`; a panic returns `$code`.
macro_rules! status_guard {
    ($status:ty, $code:expr, $body:block) => {{
        let r: $status = $crate::ffi_guard!(@value $code, $body);
        r
    }};
}

/// oneDNN face: a panic returns `dnnl_runtime_error`.
macro_rules! onednn_guard {
    ($body:block) => {
        status_guard!(
            $crate::capi::onednn::types::dnnl_status_t,
            $crate::capi::onednn::types::dnnl_runtime_error,
            $body
        )
    };
}

/// DirectML face: a panic returns `E_FAIL` (the face's `PANIC_HR`).
macro_rules! dml_guard {
    ($body:block) => {
        status_guard!(
            $crate::capi::directml::types::HRESULT,
            $crate::capi::directml::refusal::PANIC_HR,
            $body
        )
    };
}

/// Ascend aclnn operator calls: a panic returns `ACLNN_ERR_RUNTIME_ERROR`.
macro_rules! aclnn_guard {
    ($body:block) => {
        status_guard!(
            $crate::capi::ascend::types::aclnnStatus,
            $crate::capi::ascend::types::ACLNN_ERR_RUNTIME_ERROR,
            $body
        )
    };
}

/// Ascend `aclrt*` runtime calls: a panic returns `ACL_ERROR_INTERNAL_ERROR`.
macro_rules! acl_guard {
    ($body:block) => {
        status_guard!(
            $crate::capi::ascend::types::aclError,
            $crate::capi::ascend::types::ACL_ERROR_INTERNAL_ERROR,
            $body
        )
    };
}

/// Native face: a panic returns `RESAMPLE_RUNTIME_ERROR`.
macro_rules! native_guard {
    ($body:block) => {
        status_guard!(
            $crate::capi::native::resample_status_t,
            $crate::capi::native::RESAMPLE_RUNTIME_ERROR,
            $body
        )
    };
}

/// Returns `$err` from the enclosing function when `$ptr` is null.
#[macro_export]
macro_rules! null_check {
    ($err:expr, $($ptr:expr),+ $(,)?) => {
        $(if $ptr.is_null() {
            return $err;
        })+
    };
}

/// True when an environment variable is set to something other than "" or "0".
pub(crate) fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// `RESAMPLE_VERBOSE`: every face prints why it refused a call (read once).
pub(crate) fn verbose() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| env_flag("RESAMPLE_VERBOSE"))
}

#[cfg(test)]
mod tests {
    /// Every `extern "C"` function returning a face's status type runs its body under that
    /// face's guard (so a panic returns the one code defined above), never under
    /// `ffi_guard!(sentinel = ..)` or another face's guard, and never unguarded.
    #[test]
    fn status_functions_use_their_face_guard() {
        let guards = [
            ("dnnl_status_t", "onednn_guard!"),
            ("HRESULT", "dml_guard!"),
            ("aclnnStatus", "aclnn_guard!"),
            ("aclError", "acl_guard!"),
            ("resample_status_t", "native_guard!"),
        ];
        let all = [
            "ffi_guard!",
            "onednn_guard!",
            "dml_guard!",
            "aclnn_guard!",
            "acl_guard!",
        ];
        let all = all.iter().chain(["native_guard!"].iter());
        let all: Vec<&str> = all.copied().collect();
        let mut files = vec![];
        // The crate root, also when compiled as crates/dnnl1 (same sources).
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .find(|a| a.join("src/capi/guard.rs").is_file())
            .unwrap();
        let mut dirs = vec![root.join("src/capi")];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    files.push(p);
                }
            }
        }
        let (mut checked, mut bad) = (0, vec![]);
        for f in &files {
            let src = std::fs::read_to_string(f).unwrap();
            // Function items start at `extern "C" fn`; each runs to the next one.
            let starts: Vec<usize> = src
                .match_indices("extern \"C\" fn ")
                .map(|(i, _)| i)
                .collect();
            for (k, &s) in starts.iter().enumerate() {
                let item = &src[s..starts.get(k + 1).copied().unwrap_or(src.len())];
                let Some(open) = item.find('{') else { continue };
                let sig = &item[..open];
                let name = sig["extern \"C\" fn ".len()..]
                    .split('(')
                    .next()
                    .unwrap()
                    .trim();
                let Some(ret) = sig.rsplit_once("->").map(|(_, r)| r.trim()) else {
                    continue;
                };
                let Some(&(_, want)) = guards.iter().find(|(t, _)| ret == *t) else {
                    continue;
                };
                checked += 1;
                let first = all
                    .iter()
                    .filter_map(|g| item[open..].find(g).map(|i| (i, *g)))
                    .min();
                if first.map(|(_, g)| g) != Some(want) {
                    bad.push(format!(
                        "{}: {name} -> {ret}: {first:?}, want {want}",
                        f.display()
                    ));
                }
            }
        }
        assert!(
            checked > 150,
            "only {checked} status functions found: the scan is broken"
        );
        assert!(
            bad.is_empty(),
            "status functions not under their face's guard:\n{}",
            bad.join("\n")
        );
    }
}
