//! Boundary discipline shared by every face: panic containment, pointer checks and the
//! verbose switch.

/// Runs `$body` (which returns the face's status type), turning a panic into `$on_panic`.
///
/// Every `extern "C"` function body goes through this macro, so unwinding never reaches C.
#[macro_export]
macro_rules! ffi_guard {
    ($on_panic:expr, $body:block) => {{
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| $body)) {
            Ok(v) => v,
            Err(_) => $on_panic,
        }
    }};
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
