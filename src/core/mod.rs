//! The safe resampling core. It knows nothing of C types: each face translates its
//! descriptors into a [`Problem`], builds a [`Plan`] once, and executes it on byte slices.

// Every unsafe block outside `kernels` states why it is sound (issue 9).
#![warn(clippy::undocumented_unsafe_blocks)]

mod aligned;
pub mod axis;
mod cache;
mod canonical;
mod copy;
pub mod dtype;
pub mod faults;
mod kernels;
pub mod layout;
pub mod plan;
pub mod postops;
pub(crate) mod reference;
pub(crate) mod simd;
mod streaming;
pub mod taps;
pub mod threads;

pub use axis::{AxisRule, NearestRounding, OnnxCoord, OnnxNearest};
pub use dtype::{DataType, Numerics};
pub use layout::{Layout, MAX_RANK};
pub use plan::Plan;
pub use postops::{BinaryOp, EltwiseAlg, PostOp};

/// Interpolation algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    Nearest,
    /// Two taps per resampled axis (or a normalised tent where an axis rule asks for it).
    Linear,
}

/// Forward (dst from src) or backward (diff_src from diff_dst).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    Forward,
    Backward,
}

/// One resampling problem.
///
/// Sizes per axis come from the layouts: forward reads `src` (forward-input sizes) and
/// writes `dst` (forward-output sizes); backward reads `src` = diff_dst (forward-output
/// sizes) and writes `dst` = diff_src (forward-input sizes). Rules map forward-output
/// indices to forward-input taps either way.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub alg: Algorithm,
    pub direction: Direction,
    pub axes: Vec<AxisRule>,
    pub src: Layout,
    pub dst: Layout,
    /// Applied in order to the f32 result before the store (forward only).
    pub post_ops: Vec<PostOp>,
    pub numerics: Numerics,
}

/// How a nearest problem moves values without converting them (see [`Problem::raw_nearest`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RawCopy {
    /// The source bits as they are.
    Bits,
    /// bf16 under oneDNN numerics: the bits, then subnormals flushed to signed zero and NaNs
    /// quieted — what oneDNN's round trip through f32 does to each value.
    Bf16Onednn,
}

impl Problem {
    /// Nearest without post-ops where the load / convert / store round trip is the source
    /// bits, or the bits and a per-value fixup: every kernel may then move raw bytes.
    pub(crate) fn raw_nearest(&self) -> Option<RawCopy> {
        let (s, d) = (self.src.dtype, self.dst.dtype);
        if self.alg != Algorithm::Nearest || !self.post_ops.is_empty() {
            None
        } else if self.numerics.raw_copy_allowed(s, d) {
            Some(RawCopy::Bits)
        } else if s == DataType::Bf16 && d == DataType::Bf16 && self.numerics == Numerics::Onednn {
            Some(RawCopy::Bf16Onednn)
        } else {
            None
        }
    }

    /// (forward-input, forward-output) size of axis `d`.
    pub fn fwd_sizes(&self, d: usize) -> (usize, usize) {
        match self.direction {
            Direction::Forward => (self.src.dims[d], self.dst.dims[d]),
            Direction::Backward => (self.dst.dims[d], self.src.dims[d]),
        }
    }
}

/// Why a problem was refused or an execution failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoreError {
    /// The problem or its buffers are malformed (maps to invalid-argument codes).
    #[error("invalid argument: {0}")]
    Invalid(String),
    /// Well-formed but not supported by this library.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// Memory for tables or buffers could not be obtained (or tables would exceed
    /// [`plan::MAX_TABLE_ENTRIES`]).
    #[error("out of memory (tables or buffers could not be allocated)")]
    OutOfMemory,
}

impl CoreError {
    pub fn invalid(msg: impl Into<String>) -> Self {
        CoreError::Invalid(msg.into())
    }
    pub fn unsupported(msg: impl Into<String>) -> Self {
        CoreError::Unsupported(msg.into())
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_bwd;
#[cfg(test)]
mod tests_threads;
