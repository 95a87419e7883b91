//! Canonical form of a problem, so that a problem runs the same kernel whichever face
//! described it: size-1 identity axes are dropped, identity axes stored contiguously
//! together are merged into one, and forward nearest axes that sample input `o` for output
//! `o` become identity axes. None of this changes a result bit: the reference order only
//! concerns resampled axes, whose relative order is kept.

use super::axis::forward_taps;
use super::layout::Layout;
use super::postops::PostOp;
use super::{Algorithm, AxisRule, Direction, Problem};

/// The canonical form of a valid problem (the problem itself when nothing simplifies).
/// Problems with binary post-ops keep their axes: the post-op inputs are indexed by them.
pub(crate) fn canonicalize(p: &Problem) -> Problem {
    if p.post_ops
        .iter()
        .any(|op| matches!(op, PostOp::Binary { .. }))
    {
        return p.clone();
    }
    let rank = p.src.rank();
    let mut axes = p.axes.clone();
    for (d, rule) in axes.iter_mut().enumerate() {
        if samples_itself(p, d) {
            *rule = AxisRule::Identity;
        }
    }
    let plain = |d: usize| p.src.blocks[d] == 1 && p.dst.blocks[d] == 1;
    let identity = |d: usize| axes[d] == AxisRule::Identity;
    let mut keep: Vec<usize> = (0..rank)
        .filter(|&d| !(identity(d) && plain(d) && p.dst.dims[d] == 1))
        .collect();
    if keep.is_empty() {
        keep.push(rank - 1);
    }
    // Groups of kept axes, outermost first; a group of several axes is merged into one.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &d in &keep {
        if let Some(g) = groups.last_mut() {
            let a = *g.last().unwrap();
            let nests = |l: &Layout| l.strides[a] == l.strides[d] * l.dims[d];
            if identity(a) && identity(d) && plain(a) && plain(d) && nests(&p.src) && nests(&p.dst)
            {
                g.push(d);
                continue;
            }
        }
        groups.push(vec![d]);
    }
    if groups.len() == rank {
        return Problem { axes, ..p.clone() };
    }
    let layout = |l: &Layout| {
        let mut c = Layout {
            dtype: l.dtype,
            dims: Vec::new(),
            padded: Vec::new(),
            strides: Vec::new(),
            blocks: Vec::new(),
            inner_strides: Vec::new(),
            offset: l.offset,
        };
        for g in &groups {
            let inner = *g.last().unwrap();
            let n: usize = g.iter().map(|&a| l.dims[a]).product();
            let padded: usize = g.iter().map(|&a| l.padded[a]).product();
            c.dims.push(n);
            c.padded.push(padded);
            c.strides.push(l.strides[inner]);
            c.blocks.push(l.blocks[inner]);
            c.inner_strides.push(l.inner_strides[inner]);
        }
        c
    };
    Problem {
        alg: p.alg,
        direction: p.direction,
        axes: groups.iter().map(|g| axes[g[0]]).collect(),
        src: layout(&p.src),
        dst: layout(&p.dst),
        post_ops: p.post_ops.clone(),
        numerics: p.numerics,
    }
}

/// A forward nearest axis of `n -> n` whose every output `o` reads input `o`: an identity
/// axis in all but name (a raw copy or one conversion either way). Backward keeps its rule:
/// a gather adds its values to +0.0, which an identity axis does not.
fn samples_itself(p: &Problem, d: usize) -> bool {
    let (i, o) = p.fwd_sizes(d);
    p.axes[d] != AxisRule::Identity
        && p.alg == Algorithm::Nearest
        && p.direction == Direction::Forward
        && i == o
        && {
            let t = forward_taps(&p.axes[d], p.alg, i, o);
            t.idx.len() == o && t.idx.iter().enumerate().all(|(k, &x)| x as usize == k)
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{DataType, Numerics};

    fn problem(src: Layout, dst: Layout, axes: Vec<AxisRule>) -> Problem {
        Problem {
            alg: Algorithm::Linear,
            direction: Direction::Forward,
            axes,
            src,
            dst,
            post_ops: vec![],
            numerics: Numerics::Onednn,
        }
    }

    #[test]
    fn nchw_merges_batch_and_channels() {
        let f = DataType::F32;
        let id = AxisRule::Identity;
        let r = AxisRule::OnednnHalfPixel;
        let p = problem(
            Layout::dense(f, &[1, 3, 1, 4, 5]),
            Layout::dense(f, &[1, 3, 1, 8, 10]),
            vec![id, id, id, r, r],
        );
        let c = canonicalize(&p);
        assert_eq!(c.src.dims, vec![3, 4, 5]);
        assert_eq!(c.dst.dims, vec![3, 8, 10]);
        assert_eq!(c.dst.strides, vec![80, 10, 1]);
        assert_eq!(c.axes, vec![id, r, r]);
    }

    #[test]
    fn channels_last_keeps_channel_axis() {
        let f = DataType::F32;
        let id = AxisRule::Identity;
        let r = AxisRule::OnednnHalfPixel;
        let p = problem(
            Layout::dense_permuted(f, &[2, 3, 4, 5], &[0, 2, 3, 1]),
            Layout::dense_permuted(f, &[2, 3, 8, 10], &[0, 2, 3, 1]),
            vec![id, id, r, r],
        );
        assert_eq!(canonicalize(&p).src.dims, vec![2, 3, 4, 5]);
    }

    #[test]
    fn all_size_one_keeps_one_axis() {
        let f = DataType::F32;
        let p = problem(
            Layout::dense(f, &[1, 1, 1]),
            Layout::dense(f, &[1, 1, 1]),
            vec![AxisRule::Identity; 3],
        );
        assert_eq!(canonicalize(&p).src.dims, vec![1]);
    }

    #[test]
    fn nearest_one_to_one_becomes_identity() {
        let f = DataType::F32;
        let mut p = problem(
            Layout::dense(f, &[2, 6, 7]),
            Layout::dense(f, &[2, 6, 14]),
            vec![
                AxisRule::Identity,
                AxisRule::Floor {
                    ratio: 1.0,
                    exact: false,
                },
                AxisRule::OnednnHalfPixel,
            ],
        );
        p.alg = Algorithm::Nearest;
        let c = canonicalize(&p);
        assert_eq!(c.src.dims, vec![12, 7]);
        p.direction = Direction::Backward;
        std::mem::swap(&mut p.src, &mut p.dst);
        assert_eq!(canonicalize(&p).src.rank(), 3);
    }
}
