//! Why a call was refused: an HRESULT plus a message, printed as one stderr line when
//! `RESAMPLE_VERBOSE=1` (or `DML_VERBOSE=1`) is set.

use super::types::{E_FAIL, E_INVALIDARG, E_NOTIMPL, E_OUTOFMEMORY, E_POINTER, HRESULT};
use crate::core::CoreError;
use std::sync::OnceLock;

/// A refused call: the code returned to C and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub hr: HRESULT,
    pub msg: String,
}

impl Refusal {
    pub fn invalid(msg: impl Into<String>) -> Self {
        Refusal {
            hr: E_INVALIDARG,
            msg: msg.into(),
        }
    }
    pub fn pointer(msg: impl Into<String>) -> Self {
        Refusal {
            hr: E_POINTER,
            msg: msg.into(),
        }
    }
    pub fn not_implemented(msg: impl Into<String>) -> Self {
        Refusal {
            hr: E_NOTIMPL,
            msg: msg.into(),
        }
    }
}

impl From<CoreError> for Refusal {
    fn from(e: CoreError) -> Self {
        let hr = match e {
            CoreError::Invalid(_) => E_INVALIDARG,
            CoreError::Unsupported(_) => E_NOTIMPL,
            CoreError::OutOfMemory => E_OUTOFMEMORY,
        };
        Refusal {
            hr,
            msg: e.to_string(),
        }
    }
}

/// `RESAMPLE_VERBOSE`, or this face's own `DML_VERBOSE`.
fn verbose() -> bool {
    static DML: OnceLock<bool> = OnceLock::new();
    crate::capi::guard::verbose()
        || *DML.get_or_init(|| crate::capi::guard::env_flag("DML_VERBOSE"))
}

/// Turns a call's result into its HRESULT, reporting a refusal when verbose.
pub(crate) fn finish(func: &str, r: Result<(), Refusal>) -> HRESULT {
    match r {
        Ok(()) => super::types::S_OK,
        Err(e) => {
            if verbose() {
                eprintln!(
                    "libresample: directml: {func}: {:#010x}: {}",
                    e.hr as u32, e.msg
                );
            }
            e.hr
        }
    }
}

/// HRESULT for a panic caught at the boundary.
pub(crate) const PANIC_HR: HRESULT = E_FAIL;
