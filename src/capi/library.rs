//! Library-wide C functions that belong to no face: version and thread control.

use std::ffi::c_char;

/// Version of libresample as a NUL-terminated string ("MAJOR.MINOR.PATCH").
#[no_mangle]
pub extern "C" fn resample_version_string() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// Sets the number of threads later executions use (all faces). 0 restores the default:
/// `OMP_NUM_THREADS` if set, else every available core. Negative values are ignored.
#[no_mangle]
pub extern "C" fn resample_set_num_threads(n: i32) {
    ffi_guard!({
        if n >= 0 {
            crate::core::threads::set_max_threads(n as usize);
        }
    })
}

/// Number of threads executions use.
#[no_mangle]
pub extern "C" fn resample_get_num_threads() -> i32 {
    ffi_guard!(sentinel = 1, {
        crate::core::threads::max_threads().min(i32::MAX as usize) as i32
    })
}
