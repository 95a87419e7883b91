//! Boundary discipline shared by every face: panic containment and pointer checks.

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
