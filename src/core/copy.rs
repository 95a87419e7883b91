//! The `copy` kernel: forward problems whose axes are all identity, i.e. pure layout and
//! data-type conversions (oneDNN's reorder). It computes exactly what the reference path
//! computes per element (raw copy or load -> post-ops -> store, zeros in dst padding) but
//! walks the dst along its finest axis with per-axis offset tables instead of dividing
//! indices per element.

use super::dtype::{load_f32, store_f32};
use super::reference::{post_ops, Bufs};
use super::{Direction, Problem, MAX_RANK};

/// Positions of the second axis per run: keeps a tile's working set in L1 and gives the
/// threads work even when the other axes are few.
pub(crate) const TILE: usize = 64;

/// Geometry of the `copy` kernel.
#[derive(Clone, Debug)]
pub(crate) struct CopyGeom {
    /// Logical axis walked by the inner loop (the finest dst step).
    pub inner: usize,
    /// Per axis, per padded index: element offset contributions in src (0 in padding) and dst.
    pub src_off: Vec<Vec<usize>>,
    pub dst_off: Vec<Vec<usize>>,
    /// The next-finest dst axis, also walked inside a run (amortises the run setup when the
    /// finest axis is short, e.g. the 16 lanes of nChw16c).
    pub inner2: Option<usize>,
    /// Runs: the product of the other axes' padded dst sizes.
    pub runs: usize,
}

/// The copy geometry when `p` is a forward problem without resampled axes.
/// Most offset-table entries (all axes together) a copy plan builds.
const MAX_TABLE: usize = 1 << 22;

pub(crate) fn choose(p: &Problem, resampled: usize) -> Option<CopyGeom> {
    if resampled != 0 || p.direction != Direction::Forward {
        return None;
    }
    let (s, d) = (&p.src, &p.dst);
    let rank = d.rank();
    // Offset tables hold an entry per index of every axis; beyond this many the scalar
    // path (which tabulates nothing) runs instead of allocating gigabytes at plan time.
    if d.padded.iter().sum::<usize>() > MAX_TABLE {
        return None;
    }
    let step = |a: usize| {
        if d.blocks[a] > 1 {
            d.inner_strides[a]
        } else {
            d.strides[a]
        }
    };
    let inner = (0..rank)
        .filter(|&a| d.padded[a] > 1)
        .min_by_key(|&a| (step(a), usize::MAX - d.padded[a]))
        .unwrap_or(rank - 1);
    let table = |l: &super::Layout, a: usize, n: usize, logical: usize| -> Vec<usize> {
        (0..n)
            .map(|i| {
                if i >= logical {
                    return 0;
                }
                let b = l.blocks[a];
                if b == 1 {
                    i * l.strides[a]
                } else {
                    (i / b) * l.strides[a] + (i % b) * l.inner_strides[a]
                }
            })
            .collect()
    };
    let src_off = (0..rank)
        .map(|a| table(s, a, d.padded[a], s.dims[a]))
        .collect();
    let dst_off = (0..rank)
        .map(|a| table(d, a, d.padded[a], d.padded[a]))
        .collect();
    let inner2 = (0..rank)
        .filter(|&a| a != inner && d.padded[a] > 1)
        .min_by_key(|&a| (step(a), usize::MAX - d.padded[a]));
    let runs = (0..rank)
        .filter(|&a| a != inner && Some(a) != inner2)
        .map(|a| d.padded[a])
        .product::<usize>()
        * inner2.map_or(1, |a| d.padded[a].div_ceil(TILE));
    Some(CopyGeom {
        inner,
        inner2,
        src_off,
        dst_off,
        runs,
    })
}

/// Copies runs `start..end`.
///
/// # Safety
/// Buffers must cover the layouts; run ranges of concurrent calls must be disjoint.
pub(crate) unsafe fn copy(p: &Problem, g: &CopyGeom, b: Bufs<'_>, start: usize, end: usize) {
    // SAFETY: the caller guarantees the buffers cover both layouts (every offset from `g` stays
    // inside them) and that concurrent calls own disjoint runs, so each element has one writer.
    unsafe {
        let (s, d) = (&p.src, &p.dst);
        let rank = d.rank();
        let (ssz, dsz) = (s.dtype.size(), d.dtype.size());
        let raw = p.post_ops.is_empty() && p.numerics.raw_copy_allowed(s.dtype, d.dtype);
        let n_inner = d.padded[g.inner];
        let logical_inner = d.dims[g.inner];
        let (si, di) = (&g.src_off[g.inner], &g.dst_off[g.inner]);
        let mut idx = [0usize; MAX_RANK];
        let (n2, logical2) = g.inner2.map_or((1, 1), |a| (d.padded[a], d.dims[a]));
        let tiles = n2.div_ceil(TILE).max(1);
        for r in start..end {
            // A run is one tile of the second axis at one position of the others.
            let (r, tile) = (r / tiles, r % tiles);
            let (j0, j1) = (tile * TILE, ((tile + 1) * TILE).min(n2));
            // Decode the other axes (row-major, last axis fastest).
            let mut rem = r;
            let mut pad = false;
            let (mut sb, mut db) = (s.offset, d.offset);
            for a in (0..rank).rev() {
                if a == g.inner || Some(a) == g.inner2 {
                    continue;
                }
                let i = rem % d.padded[a];
                rem /= d.padded[a];
                idx[a] = i;
                pad |= i >= d.dims[a];
                sb += g.src_off[a][i];
                db += g.dst_off[a][i];
            }
            if let (true, false, Some(a)) = (raw, pad, g.inner2) {
                // Unblocked second axis in both tensors: a strided tile, second axis innermost.
                // Only worth it when src is more contiguous along the second axis than along the
                // first (nchw -> nChw16c / nhwc); otherwise the row loop below streams better.
                let src_step1 = si.get(1).copied().unwrap_or(usize::MAX);
                if s.blocks[a] == 1
                    && d.blocks[a] == 1
                    && n2 == logical2
                    && logical_inner == n_inner
                    && s.strides[a] < src_step1
                {
                    let (ss2, ds2) = (s.strides[a], d.strides[a]);
                    let sp = b.src.add((sb + j0 * ss2) * ssz);
                    let dp = b.dst.add((db + j0 * ds2) * dsz);
                    let n = j1 - j0;
                    match dsz {
                        4 => tile_raw::<u32>(sp, dp, si, di, ss2, ds2, n),
                        2 => tile_raw::<u16>(sp, dp, si, di, ss2, ds2, n),
                        1 => tile_raw::<u8>(sp, dp, si, di, ss2, ds2, n),
                        _ => tile_raw::<u64>(sp, dp, si, di, ss2, ds2, n),
                    }
                    continue;
                }
            }
            let (sb0, db0, pad0) = (sb, db, pad);
            'rows: for j in j0..j1 {
                let (mut sb, mut db, mut pad) = (sb0, db0, pad0);
                if let Some(a) = g.inner2 {
                    idx[a] = j;
                    pad |= j >= logical2;
                    sb += g.src_off[a][j];
                    db += g.dst_off[a][j];
                }
                let dbase = b.dst.add(db * dsz);
                if pad {
                    for &o in di.iter() {
                        std::ptr::write_bytes(dbase.add(o * dsz), 0, dsz);
                    }
                    continue 'rows;
                }
                let sbase = b.src.add(sb * ssz);
                if raw {
                    match dsz {
                        4 => row_raw::<u32>(sbase, dbase, si, di, logical_inner),
                        2 => row_raw::<u16>(sbase, dbase, si, di, logical_inner),
                        1 => row_raw::<u8>(sbase, dbase, si, di, logical_inner),
                        _ => row_raw::<u64>(sbase, dbase, si, di, logical_inner),
                    }
                } else if p.post_ops.is_empty() {
                    for k in 0..logical_inner {
                        let v = load_f32(sbase.add(si[k] * ssz), s.dtype);
                        store_f32(dbase.add(di[k] * dsz), d.dtype, v, p.numerics);
                    }
                } else {
                    for k in 0..logical_inner {
                        idx[g.inner] = k;
                        let v = load_f32(sbase.add(si[k] * ssz), s.dtype);
                        let dp = dbase.add(di[k] * dsz);
                        store_f32(
                            dp,
                            d.dtype,
                            post_ops(p, v, dp, &idx[..rank], b.bins),
                            p.numerics,
                        );
                    }
                }
                for &o in &di[logical_inner..n_inner] {
                    std::ptr::write_bytes(dbase.add(o * dsz), 0, dsz);
                }
            }
        }
    }
}

/// `dst[di[k] + j*ds2] = src[si[k] + j*ss2]` for every `k` and `j < n2`.
#[inline(always)]
unsafe fn tile_raw<T: Copy>(
    src: *const u8,
    dst: *mut u8,
    si: &[usize],
    di: &[usize],
    ss2: usize,
    ds2: usize,
    n2: usize,
) {
    // SAFETY: the caller guarantees `src + si[k] + j * ss2` readable and `dst + di[k] + j * ds2`
    // writable for every `k` and `j < n2` (elements of `T`, any alignment).
    unsafe {
        let (s, d) = (src as *const T, dst as *mut T);
        for (&sk, &dk) in si.iter().zip(di) {
            let (sr, dr) = (s.add(sk), d.add(dk));
            for j in 0..n2 {
                dr.add(j * ds2)
                    .write_unaligned(sr.add(j * ss2).read_unaligned());
            }
        }
    }
}

#[inline(always)]
unsafe fn row_raw<T: Copy>(src: *const u8, dst: *mut u8, si: &[usize], di: &[usize], n: usize) {
    // SAFETY: the caller guarantees `src + si[k]` readable and `dst + di[k]` writable for `k < n`
    // (elements of `T`, any alignment).
    unsafe {
        let (s, d) = (src as *const T, dst as *mut T);
        for k in 0..n {
            d.add(di[k]).write_unaligned(s.add(si[k]).read_unaligned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Algorithm, AxisRule, DataType, EltwiseAlg, Layout, Numerics, Plan, PostOp};
    use super::*;

    fn blocked(dt: DataType, dims: &[usize], axis: usize, b: usize, order: &[usize]) -> Layout {
        let mut padded = dims.to_vec();
        padded[axis] = dims[axis].div_ceil(b) * b;
        let mut strides = vec![0; dims.len()];
        let mut s = b;
        for &a in order.iter().rev() {
            strides[a] = s;
            s *= if a == axis { padded[a] / b } else { dims[a] };
        }
        let mut blocks = vec![1; dims.len()];
        let mut inner = vec![0; dims.len()];
        blocks[axis] = b;
        inner[axis] = 1;
        Layout {
            dtype: dt,
            dims: dims.to_vec(),
            padded,
            strides,
            blocks,
            inner_strides: inner,
            offset: 3,
        }
    }

    #[test]
    fn copy_matches_reference() {
        use DataType::*;
        let dims = [2, 19, 3, 5];
        let mut x = 0x1234_5678u32;
        for (k, (sdt, ddt)) in [
            (F32, Bf16),
            (S32, S32),
            (U8, F32),
            (F16, S8),
            (Bf16, Bf16),
            (F32, F16),
        ]
        .into_iter()
        .enumerate()
        {
            let src = if k % 2 == 0 {
                Layout::dense_permuted(sdt, &dims, &[0, 2, 3, 1])
            } else {
                blocked(sdt, &dims, 1, 8, &[0, 1, 2, 3])
            };
            let dst = blocked(ddt, &dims, 1, 16, &[0, 1, 2, 3]);
            let post_ops = if sdt == F16 || ddt == F16 {
                vec![PostOp::Eltwise {
                    alg: EltwiseAlg::Linear,
                    alpha: 1.0,
                    beta: 0.0,
                    scale: 1.0,
                }]
            } else {
                Vec::new()
            };
            let plan = Plan::new(Problem {
                alg: Algorithm::Nearest,
                direction: Direction::Forward,
                axes: vec![AxisRule::Identity; 4],
                src: src.clone(),
                dst: dst.clone(),
                post_ops,
                numerics: Numerics::OnednnReorder,
            })
            .unwrap();
            assert_eq!(plan.kernel_name(), "copy");
            let sbuf: Vec<u8> = (0..src.span_bytes().unwrap())
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    x as u8
                })
                .collect();
            let n = dst.span_bytes().unwrap();
            let (mut a, mut b) = (vec![0xA5u8; n], vec![0xA5u8; n]);
            plan.execute(&sbuf, &mut a, &[]).unwrap();
            plan.execute_reference(&sbuf, &mut b, &[]).unwrap();
            assert!(a == b, "{sdt:?} -> {ddt:?}");
        }
    }
}
