//! Memory layout of a tensor: logical dims, element strides, an optional inner block per
//! axis (oneDNN's nChw16c and friends) with padding, and a base element offset.

use super::dtype::DataType;
use super::CoreError;

/// Highest tensor rank any face uses (oneDNN 5, Ascend 5, DirectML 4).
pub const MAX_RANK: usize = 5;

/// Largest element count for which [`Layout::elements_may_overlap`] enumerates offsets.
const OVERLAP_ENUM_LIMIT: usize = 1 << 22;

/// Where the elements of a tensor live, relative to the start of its buffer.
///
/// Element `idx` sits at element offset
/// `offset + Σ_d (idx[d] / blocks[d]) * strides[d] + (idx[d] % blocks[d]) * inner_strides[d]`.
/// Logical indices run over `dims`; `padded[d] >= dims[d]` is a multiple of `blocks[d]`,
/// and elements in `dims[d]..padded[d]` are padding (outputs write zeros there).
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub dtype: DataType,
    pub dims: Vec<usize>,
    pub padded: Vec<usize>,
    pub strides: Vec<usize>,
    pub blocks: Vec<usize>,
    pub inner_strides: Vec<usize>,
    pub offset: usize,
}

impl Layout {
    /// An unblocked layout with the given element strides.
    pub fn strided(dtype: DataType, dims: &[usize], strides: &[usize], offset: usize) -> Self {
        let r = dims.len();
        Layout {
            dtype,
            dims: dims.to_vec(),
            padded: dims.to_vec(),
            strides: strides.to_vec(),
            blocks: vec![1; r],
            inner_strides: vec![0; r],
            offset,
        }
    }

    /// Dense row-major layout (last axis contiguous).
    pub fn dense(dtype: DataType, dims: &[usize]) -> Self {
        let mut strides = vec![0; dims.len()];
        let mut s = 1usize;
        for d in (0..dims.len()).rev() {
            strides[d] = s;
            s = s.saturating_mul(dims[d].max(1));
        }
        Self::strided(dtype, dims, &strides, 0)
    }

    /// Dense layout whose axes are stored in `order` (outermost first), e.g. `[0,2,3,1]`
    /// for NHWC of a 4-D tensor.
    pub fn dense_permuted(dtype: DataType, dims: &[usize], order: &[usize]) -> Self {
        let mut strides = vec![0; dims.len()];
        let mut s = 1usize;
        for &d in order.iter().rev() {
            strides[d] = s;
            s = s.saturating_mul(dims[d].max(1));
        }
        Self::strided(dtype, dims, &strides, 0)
    }

    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Number of logical elements (padding excluded).
    pub fn elements(&self) -> usize {
        self.dims.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.dims.contains(&0)
    }

    pub fn is_blocked(&self) -> bool {
        self.blocks.iter().any(|&b| b > 1)
    }

    /// Element offset of a logical (or padded) index.
    #[inline]
    pub fn elem_offset(&self, idx: &[usize]) -> usize {
        let mut off = self.offset;
        for d in 0..idx.len() {
            let b = self.blocks[d];
            if b == 1 {
                off += idx[d] * self.strides[d];
            } else {
                off += (idx[d] / b) * self.strides[d] + (idx[d] % b) * self.inner_strides[d];
            }
        }
        off
    }

    /// Bytes a buffer must hold for every (padded) element to be in bounds; 0 when the
    /// tensor has no elements. `None` on arithmetic overflow or beyond `isize::MAX` (no
    /// buffer, and no Rust slice, can be that large).
    pub fn span_bytes(&self) -> Option<usize> {
        if self.padded.contains(&0) {
            return Some(0);
        }
        let mut last = self.offset;
        for d in 0..self.rank() {
            let b = self.blocks[d];
            let outer = self.padded[d] / b - 1;
            last = last.checked_add(outer.checked_mul(self.strides[d])?)?;
            last = last.checked_add((b - 1).checked_mul(self.inner_strides[d])?)?;
        }
        last.checked_add(1)?
            .checked_mul(self.dtype.size())
            .filter(|&b| b <= isize::MAX as usize)
    }

    /// True when two distinct (padded) indices may share an element offset, which an output
    /// must not allow (kernels write each element once, from one thread).
    ///
    /// Exact: a nested-strides argument proves most layouts disjoint at once (axes longer
    /// than 1 sorted by stride, a block's inner positions counting as an axis of their own;
    /// each stride must exceed the reach of the smaller ones); layouts it cannot prove are
    /// enumerated when small, and conservatively reported as overlapping when larger than
    /// [`OVERLAP_ENUM_LIMIT`] elements.
    pub fn elements_may_overlap(&self) -> bool {
        let mut axes: Vec<(usize, usize)> = Vec::with_capacity(2 * self.rank());
        for d in 0..self.rank() {
            let b = self.blocks[d];
            axes.push((self.strides[d], self.padded[d] / b.max(1)));
            if b > 1 {
                axes.push((self.inner_strides[d], b));
            }
        }
        axes.retain(|&(_, n)| n > 1);
        axes.sort_unstable();
        let mut reach: u128 = 0; // largest offset reached by the axes so far
        let mut nested = true;
        for &(s, n) in &axes {
            if (s as u128) <= reach || s == 0 {
                nested = false;
                break;
            }
            reach += (n as u128 - 1) * s as u128;
        }
        if nested {
            return false;
        }
        if axes.iter().any(|&(s, _)| s == 0) {
            return true;
        }
        let total = axes
            .iter()
            .try_fold(1usize, |t, &(_, n)| t.checked_mul(n))
            .unwrap_or(usize::MAX);
        if total > OVERLAP_ENUM_LIMIT {
            return true;
        }
        let mut offs: Vec<u128> = vec![0];
        for &(s, n) in &axes {
            let prev = std::mem::take(&mut offs);
            offs.reserve(prev.len() * n);
            for i in 0..n as u128 {
                offs.extend(prev.iter().map(|&o| o + i * s as u128));
            }
        }
        offs.sort_unstable();
        offs.windows(2).any(|w| w[0] == w[1])
    }

    /// Checks the internal consistency the kernels rely on.
    pub fn validate(&self) -> Result<(), CoreError> {
        let r = self.rank();
        if r == 0 || r > MAX_RANK {
            return Err(CoreError::invalid(format!(
                "tensor rank {r} is outside 1..={MAX_RANK}"
            )));
        }
        if [
            self.padded.len(),
            self.strides.len(),
            self.blocks.len(),
            self.inner_strides.len(),
        ]
        .iter()
        .any(|&l| l != r)
        {
            return Err(CoreError::invalid("layout vectors disagree in length"));
        }
        for d in 0..r {
            let b = self.blocks[d];
            if b == 0 || self.padded[d] < self.dims[d] || !self.padded[d].is_multiple_of(b) {
                return Err(CoreError::invalid(format!(
                    "axis {d}: padded size {} is not a multiple of block {b} covering {}",
                    self.padded[d], self.dims[d]
                )));
            }
            if b == 1 && self.padded[d] != self.dims[d] {
                return Err(CoreError::invalid(format!(
                    "axis {d} is padded without a block"
                )));
            }
        }
        if self.span_bytes().is_none() {
            return Err(CoreError::invalid(
                "tensor size overflows the address space",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(dims: &[usize], strides: &[usize]) -> Layout {
        Layout::strided(DataType::F32, dims, strides, 0)
    }

    #[test]
    fn overlap_detection() {
        assert!(!l(&[2, 3], &[3, 1]).elements_may_overlap());
        assert!(!l(&[2, 3], &[1, 2]).elements_may_overlap());
        assert!(!l(&[3, 2], &[2, 3]).elements_may_overlap()); // interleaved but disjoint
        assert!(l(&[2, 3], &[1, 1]).elements_may_overlap());
        assert!(l(&[2, 2], &[0, 1]).elements_may_overlap());
        assert!(!l(&[1, 4], &[0, 1]).elements_may_overlap()); // size-1 axes never overlap
        assert!(!l(&[2, 2, 5], &[100, 10, 2]).elements_may_overlap());
        assert!(!l(&[2, 3, 4], &[1, 2, 6]).elements_may_overlap());
        assert!(l(&[2, 3, 4], &[12, 3, 1]).elements_may_overlap());
        assert!(!l(&[1, 3, 1], &[0, 1, 0]).elements_may_overlap());
        // Too many elements to enumerate and not provably disjoint: reported.
        assert!(l(&[4096, 4096], &[3, 2]).elements_may_overlap());
        // nChw16c with C = 20: blocks of 16 (inner stride 1) every 16*H*W elements.
        let mut b = l(&[1, 20, 3, 3], &[288, 144, 48, 16]);
        b.blocks[1] = 16;
        b.padded[1] = 32;
        b.inner_strides[1] = 1;
        assert!(!b.elements_may_overlap());
        b.strides[1] = 8; // the second block starts inside the first
        assert!(b.elements_may_overlap());
    }
}
