//! A [`Plan`]: a validated problem with its tap tables and kernel choice, built once and
//! executed many times from any thread.

use super::axis::{backward_taps, forward_taps, AxisRule};
use super::canonical;
use super::copy::{self, CopyGeom};
use super::dtype::DataType;
use super::faults;
use super::kernels::{self, LaneGeom, RowGeom};
use super::postops::PostOp;
use super::reference::{self, Bufs, Tables};
use super::simd::{self, Isa};
use super::streaming::{self, StreamRule};
use super::threads;
use super::{Algorithm, CoreError, Direction, Problem};

/// Which kernel executes a plan.
#[derive(Clone, Debug)]
pub(crate) enum Strategy {
    /// Vectorised over an identity axis contiguous in src and dst (nhwc, nChw16c, …).
    Lanes(LaneGeom),
    /// Forward along a unit-stride resampled last axis (nchw): row blend, then W gather.
    Rows(RowGeom),
    /// Forward u8 / s8 linear rows with dyadic weights, in integers (kernels/dyadic.rs).
    Dyadic(kernels::dyadic::DyadicGeom),
    /// Forward f32 linear over small planes: one call per plane (kernels/planes.rs).
    Planes(kernels::planes::PlaneGeom),
    /// Forward raw nearest over tiny planes: a tabulated gather per plane.
    Gather(kernels::gather::GatherGeom),
    /// Backward along a unit-stride resampled last axis (nchw): per-element gather.
    BwdRows(RowGeom),
    /// Backward by streaming diff_dst rows into diff_src rows (contiguous `w` lists).
    BwdStream(kernels::bwd_stream::StreamGeom),
    /// Backward linear along long rows under oneDNN's maps: lists and weights computed.
    BwdLong(kernels::bwd_long::LongGeom),
    BwdPlanes(kernels::bwd_planes::PlaneGeom),
    /// Backward linear over planes upsampled 2x along both axes: diff_dst row pairs once.
    BwdTwice(kernels::bwd_twice::TwiceGeom),
    /// Backward nearest at integer upsampling ratios: each diff_src row sums its boxes.
    BwdBox(kernels::bwd_box::BoxGeom),
    /// Backward over tiny resampled extents, vectorised across an identity axis.
    BwdTiny(kernels::bwd_tiny::TinyGeom),
    /// Backward of forward downsampling over small planes: diff_dst scattered.
    BwdScatter(kernels::bwd_scatter::ScatterGeom),
    /// Nearest backward reading no diff_dst element twice: diff_dst rows spread out.
    BwdExpand(kernels::bwd_expand::ExpandGeom),
    /// No resampled axis (a layout / type conversion) that `Lanes` does not cover: rows
    /// along the finest dst axis with per-axis offset tables.
    Copy(CopyGeom),
    /// The scalar reference path, parallel over dst elements.
    Generic,
}

impl Strategy {
    fn name(&self) -> &'static str {
        match *self {
            Strategy::Lanes(LaneGeom {
                pixels: Some(_), ..
            }) => "lanes_rows",
            Strategy::Lanes(_) => "lanes",
            Strategy::Rows(RowGeom { lane: Some(_), .. }) => "image_rows",
            Strategy::Rows(_) => "rows",
            Strategy::Dyadic(_) => "dyadic_rows",
            Strategy::Planes(_) => "planes",
            Strategy::Gather(_) => "gather",
            Strategy::BwdRows(_) => "bwd_rows",
            Strategy::BwdStream(ref g) if g.flat.is_some() => "bwd_stream_flat",
            Strategy::BwdStream(ref g) if g.lane.is_some() => "bwd_stream_lanes",
            Strategy::BwdStream(ref g) if g.perm.as_ref().is_some_and(|pm| pm.together) => {
                "bwd_perm_rows"
            }
            Strategy::BwdStream(ref g) if g.perm.as_ref().is_some_and(|pm| pm.repeat.is_some()) => {
                "bwd_repeat"
            }
            Strategy::BwdStream(ref g) if g.perm.as_ref().is_some_and(|pm| pm.pairs.is_some()) => {
                "bwd_pairs"
            }
            Strategy::BwdStream(ref g) if g.perm.as_ref().is_some_and(|pm| pm.quad) => {
                "bwd_perm_quad"
            }
            Strategy::BwdStream(ref g) if g.perm.is_some() => "bwd_stream_perm",
            Strategy::BwdStream(_) => "bwd_stream",
            Strategy::BwdLong(_) => "bwd_long",
            Strategy::BwdPlanes(_) => "bwd_planes",
            Strategy::BwdTwice(_) => "bwd_twice",
            Strategy::BwdBox(_) => "bwd_box",
            Strategy::BwdTiny(ref g) if g.transpose.is_some() => "bwd_tiny_transposed",
            Strategy::BwdTiny(_) => "bwd_tiny",
            Strategy::BwdScatter(_) => "bwd_scatter",
            Strategy::BwdExpand(_) => "bwd_expand",
            Strategy::Copy(_) => "copy",
            Strategy::Generic => "generic",
        }
    }
}

/// Elements of work per chunk (below two chunks a problem runs on the caller's thread): 8192
/// outputs that compute (raw nearest plane gathers among them), 32768 raw nearest row and
/// pixel copies. Measured at two threads (µs, medians of
/// 5 alternating runs, AVX-512): with 32768 for all, nxc f32 8x48 78->157 linear 4.0 -> 3.5,
/// nCx16c f32 2x32 20x20->30x30 15.5 -> 9.9, bwd nhwc f32 2x32 16x16 <- 32x32 11.9 -> 7.7 at
/// 8192; a raw nearest copy of 16K outputs (nhwc 4x16 16x16->32x32) 3.7 -> 4.5 split.
const GRAIN_ELEMS: usize = 1 << 13;
const RAW_GRAIN_ELEMS: usize = 1 << 15;

#[derive(Clone, Debug)]
pub struct Plan {
    /// The problem as described.
    problem: Problem,
    /// Its canonical form, which the tables, the strategy and the kernels refer to.
    exec: Problem,
    /// The vector ISA the plan was built for and executes with.
    isa: Isa,
    tables: Tables,
    pub(crate) strategy: Strategy,
    /// `span_bytes` of src, dst and each binary post-op input (`None`: too large), computed
    /// once for the per-call buffer checks.
    spans: Vec<Option<usize>>,
    /// Plain or streamed stores, per execution.
    stream: StreamRule,
}

impl Plan {
    /// Validates `problem`, builds its tables and picks its kernel.
    pub fn new(problem: Problem) -> Result<Plan, CoreError> {
        Self::with_isa(problem, simd::detected_isa())
    }

    /// As [`Plan::new`], for an ISA of this CPU other than the widest (tests run every
    /// kernel variant in one process this way).
    pub(crate) fn with_isa(problem: Problem, isa: Isa) -> Result<Plan, CoreError> {
        simd::with_isa(isa, || Self::build(problem, isa))
    }

    fn build(problem: Problem, isa: Isa) -> Result<Plan, CoreError> {
        faults::maybe_panic();
        validate(&problem)?;
        reserve_tables(&problem)?;
        let exec = canonical::canonicalize(&problem);
        let tables = build_tables(&exec);
        let strategy = match kernels::choose(&exec, &tables) {
            Strategy::Generic => copy::choose(&exec, tables.resampled.len())
                .map_or(Strategy::Generic, Strategy::Copy),
            s => s,
        };
        let spans = [&problem.src, &problem.dst]
            .into_iter()
            .chain(problem.post_ops.iter().filter_map(|op| match op {
                PostOp::Binary { src1, .. } => Some(src1),
                _ => None,
            }))
            .map(|l| l.span_bytes())
            .collect();
        let isa = isa.min(simd::detected_isa());
        let stream = StreamRule::of(&exec, isa, || {
            format!("{exec:?} {isa:?} {}", strategy.name())
        });
        Ok(Plan {
            problem,
            exec,
            isa,
            tables,
            strategy,
            spans,
            stream,
        })
    }

    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// Short name of the kernel in use (for verbose output).
    pub fn kernel_name(&self) -> &'static str {
        self.strategy.name()
    }

    /// Checks that every buffer holds its layout's `span_bytes` (one binary input per
    /// binary post-op): what makes executing on them sound.
    fn check_buffers(&self, src: &[u8], dst: &[u8], bins: &[&[u8]]) -> Result<(), CoreError> {
        let fits = |what: &dyn Fn() -> String, len: usize, span: Option<usize>| {
            let need = span.ok_or_else(|| CoreError::invalid("tensor too large"))?;
            if len < need {
                return Err(CoreError::invalid(format!(
                    "{} buffer holds {len} bytes, {need} needed",
                    what()
                )));
            }
            Ok(())
        };
        fits(&|| "src".into(), src.len(), self.spans[0])?;
        fits(&|| "dst".into(), dst.len(), self.spans[1])?;
        let expected = self.spans.len() - 2;
        if bins.len() != expected {
            return Err(CoreError::invalid(format!(
                "{} binary inputs given, {expected} expected",
                bins.len()
            )));
        }
        for (k, (b, &span)) in bins.iter().zip(&self.spans[2..]).enumerate() {
            fits(&|| format!("binary post-op input {k}"), b.len(), span)?;
        }
        Ok(())
    }

    /// Executes on `src` into `dst`. `bins` holds one src1 buffer per binary post-op, in
    /// chain order. Every buffer must hold its layout's `span_bytes`.
    pub fn execute(&self, src: &[u8], dst: &mut [u8], bins: &[&[u8]]) -> Result<(), CoreError> {
        self.check_buffers(src, dst, bins)?;
        faults::maybe_panic();
        let p = &self.problem;
        if !self.aligned(src, dst, bins) {
            return self.execute_aligned(src, dst, bins);
        }
        if p.dst.padded.contains(&0) {
            return Ok(());
        }
        if p.src.is_empty() {
            // Nothing to read: a forward output would be undefined, a backward one is zero.
            if p.direction == Direction::Backward {
                dst.fill(0);
                return Ok(());
            }
            return Err(CoreError::invalid("src has no elements but dst has"));
        }
        let bin_ptrs: Vec<*const u8> = bins.iter().map(|b| b.as_ptr()).collect();
        let b = Bufs {
            src: src.as_ptr(),
            dst: dst.as_mut_ptr(),
            bins: &bin_ptrs,
        };
        // SAFETY: buffer sizes cover every element the layouts address (checked above);
        // kernels write each dst element from exactly one chunk.
        unsafe { self.run(b) };
        Ok(())
    }

    /// Whether every buffer starts on a multiple of its element size: the kernels read and
    /// write elements in place (typed slices, vector loads of whole elements).
    fn aligned(&self, src: &[u8], dst: &[u8], bins: &[&[u8]]) -> bool {
        let p = &self.problem;
        let on = |b: &[u8], dt: DataType| (b.as_ptr() as usize).is_multiple_of(dt.size());
        let src1 = p.post_ops.iter().filter_map(|op| match op {
            PostOp::Binary { src1, .. } => Some(src1.dtype),
            _ => None,
        });
        on(src, p.src.dtype)
            && on(dst, p.dst.dtype)
            && bins.iter().zip(src1).all(|(b, dt)| on(b, dt))
    }

    /// [`Plan::execute`] for buffers that are not element-aligned (a C caller's pointer can
    /// be anything): through aligned copies of them, dst copied back.
    fn execute_aligned(&self, src: &[u8], dst: &mut [u8], bins: &[&[u8]]) -> Result<(), CoreError> {
        // u64 words: aligned for every element type.
        fn copy(b: &[u8]) -> Result<Vec<u64>, CoreError> {
            let words = b.len().div_ceil(8);
            let mut v = faults::try_with_capacity(words)?;
            v.resize(words, 0);
            bytes_mut(&mut v)[..b.len()].copy_from_slice(b);
            Ok(v)
        }
        fn bytes_mut(v: &mut [u64]) -> &mut [u8] {
            // SAFETY: u64 words viewed as their bytes (u8 has no alignment or validity rules).
            unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u8, v.len() * 8) }
        }
        let (s, mut d) = (copy(src)?, copy(dst)?);
        let bs: Vec<Vec<u64>> = bins.iter().map(|b| copy(b)).collect::<Result<_, _>>()?;
        let view = |v: &[u64], n: usize| -> &[u8] {
            // SAFETY: as in `bytes_mut`; `n` is at most the copied length.
            unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, n) }
        };
        let bin_views: Vec<&[u8]> = bs.iter().zip(bins).map(|(v, b)| view(v, b.len())).collect();
        let n = dst.len();
        self.execute(view(&s, src.len()), &mut bytes_mut(&mut d)[..n], &bin_views)?;
        dst.copy_from_slice(&bytes_mut(&mut d)[..n]);
        Ok(())
    }

    unsafe fn run(&self, b: Bufs<'_>) {
        let choice = self.stream.begin();
        // SAFETY: `run`'s contract.
        unsafe { self.run_with(b, choice.mode) };
        self.stream.end(choice);
    }

    /// [`Plan::run`] with plain or streamed stores (`mode`).
    unsafe fn run_with(&self, b: Bufs<'_>, mode: streaming::Mode) {
        let (p, t) = (&self.exec, &self.tables);
        let isa = self.isa;
        let grain_elems = match p.raw_nearest() {
            Some(_) => RAW_GRAIN_ELEMS,
            None => GRAIN_ELEMS,
        };
        // Every chunk, on whichever thread, dispatches on the plan's ISA.
        let par = |n: usize, grain: usize, f: &(dyn Fn(usize, usize) + Sync)| {
            threads::parallel_for(n, grain, |s, e| {
                simd::with_isa(isa, || streaming::with(mode, || f(s, e)))
            })
        };
        match &self.strategy {
            Strategy::Lanes(g) if g.pixels.is_some() => {
                let pr = g.pixels.as_ref().unwrap();
                // (Runs of every lane block: `pr.run_pixels` counts them; 8x96 nCx16c
                // 6x10->12x3 linear ran on one thread of two, 29 us, oneDNN 16.)
                let per_run = (g.block * pr.run_pixels).max(1);
                // Linear pixels of eight corners (3-D) or converted from or to another type
                // cost 3-4x an f32 2-D one: a quarter of the grain (2 threads, AVX-512, us:
                // u8 nCx16c 4x48 10x2x4->5x6x2 19.0 -> 9.1, oneDNN 9.6; bf16 nhwc 2x12
                // 19x3->57x4 7.3 -> 4.4, 3.8; f32 nCx16c 2x64 8x9x7->6x4x5 8.4 -> 6.3, 7.1;
                // f32 2-D nhwc 2x32 20x20->30x30 unchanged at a half or a quarter).
                let heavy = p.alg == Algorithm::Linear
                    && (p.src.dtype != DataType::F32
                        || p.dst.dtype != DataType::F32
                        || t.resampled.len() >= 3);
                let grain_elems = if heavy { grain_elems / 4 } else { grain_elems };
                // SAFETY: `run`'s contract (buffers cover the layouts); chunks are disjoint, so
                // every dst element has one writer.
                par(pr.runs, (grain_elems / per_run).max(1), &|s, e| unsafe {
                    kernels::lanes_rows(p, t, g, pr, b, s, e)
                })
            }
            Strategy::Lanes(g) => {
                let per_run = g.block.max(1);
                // SAFETY: `run`'s contract (buffers cover the layouts); chunks are disjoint, so
                // every dst element has one writer.
                par(g.runs, (grain_elems / per_run).max(1), &|s, e| unsafe {
                    kernels::lanes(p, t, g, b, s, e)
                })
            }
            Strategy::Rows(g) => {
                // Split by rows, not planes: one image plane keeps every thread busy.
                let per_row = g.out_w.max(1);
                let rows = g.runs * g.rows_per_run.max(1);
                // A plane gather costs about an element a cycle, not a copy's fraction: nchw
                // f32 1x256 5x8->16x15 nearest 18.8 -> 11.6 us at two threads (oneDNN 15.7).
                let grain_elems = match g.plane_idx {
                    Some(_) => GRAIN_ELEMS,
                    None => grain_elems,
                };
                // Fewer tiled rows than threads split by tiles: work item `i` is tile `i % nt`
                // of row `i / nt` (whole rows otherwise: every chunk costs its buffers, nwc
                // bf16 2x3 50000->90000 77 -> 86 us at two threads split by tiles).
                let nt = match g.tiles_per_row() {
                    nt if rows < threads::max_threads() => nt,
                    _ => 1,
                };
                // SAFETY: `run`'s contract (buffers cover the layouts); chunks are disjoint, so
                // every dst element has one writer.
                par(
                    rows * nt,
                    (grain_elems * nt / per_row).max(1),
                    &|s, e| unsafe { kernels::rows(p, t, g, b, s, e, nt) },
                )
            }
            Strategy::Dyadic(g) => par(
                g.runs * g.out_h,
                (grain_elems / g.out_n).max(1),
                // SAFETY: `run`'s contract (buffers cover the layouts); chunks take disjoint
                // dst rows, so every dst element has one writer.
                &|s, e| unsafe { kernels::dyadic::run(p, g, b, s, e) },
            ),
            Strategy::Planes(g) => par(
                g.runs,
                (grain_elems / g.cost()).max(1),
                // SAFETY: `run`'s contract (buffers cover the layouts); chunks are disjoint, so
                // every dst element has one writer.
                &|s, e| unsafe { kernels::planes::run(p, t, g, b, s, e) },
            ),
            Strategy::Gather(g) => par(
                g.runs,
                (GRAIN_ELEMS / g.outputs().max(1)).max(1),
                // SAFETY: `run`'s contract (buffers cover the layouts); chunks take disjoint
                // planes, so every dst element has one writer.
                &|s, e| unsafe { kernels::gather::run(p, t, g, b, s, e) },
            ),
            Strategy::BwdRows(g) => {
                let per_run = g.out_w.max(1) * 4;
                // SAFETY: `run`'s contract (buffers cover the layouts); chunks are disjoint, so
                // every dst element has one writer.
                par(g.runs, (grain_elems / per_run).max(1), &|s, e| unsafe {
                    kernels::bwd_rows(p, t, g, b, s, e)
                })
            }
            Strategy::BwdStream(g) => {
                let per_run = kernels::bwd_stream::run_cost(p, g).max(1);
                // SAFETY: `run`'s contract (buffers cover the layouts); chunks are disjoint, so
                // every dst element has one writer.
                par(g.runs, (grain_elems / per_run).max(1), &|s, e| unsafe {
                    kernels::bwd_stream::run(p, t, g, b, s, e)
                })
            }
            Strategy::BwdLong(g) => par(
                g.runs,
                (grain_elems / g.run_cost).max(1),
                // SAFETY: `run`'s contract (buffers cover the layouts, the plan's ISA); chunks
                // take disjoint diff_src elements, so every dst element has one writer.
                &|s, e| unsafe { kernels::bwd_long::run(p, t, g, b, s, e) },
            ),
            Strategy::BwdPlanes(g) => par(
                g.runs,
                (grain_elems / g.run_cost()).max(1),
                // SAFETY: `run`'s contract (buffers cover the layouts); chunks take disjoint
                // planes, so every dst element has one writer.
                &|s, e| unsafe { kernels::bwd_planes::run(p, t, g, b, s, e) },
            ),
            Strategy::BwdTwice(g) => par(
                g.runs,
                (grain_elems / g.run_cost()).max(1),
                // SAFETY: `run`'s contract (buffers cover the layouts, the plan's ISA); chunks
                // take disjoint rows, so every dst element has one writer.
                &|s, e| unsafe { kernels::bwd_twice::run(p, t, g, b, s, e) },
            ),
            Strategy::BwdBox(g) => par(
                g.runs,
                (grain_elems / g.run_cost(p.dst.dims[g.w])).max(1),
                // SAFETY: `run`'s contract (buffers cover the layouts); chunks take disjoint
                // diff_src rows, so every dst element has one writer.
                &|s, e| unsafe { kernels::bwd_box::run(p, t, g, b, s, e) },
            ),
            Strategy::BwdTiny(g) => par(
                g.runs,
                (grain_elems / g.run_cost()).max(1),
                // SAFETY: `run`'s contract (buffers cover the layouts); chunks take disjoint
                // lanes, so every dst element has one writer.
                &|s, e| unsafe { kernels::bwd_tiny::run(p, t, g, b, s, e) },
            ),
            Strategy::BwdScatter(g) => par(
                g.runs,
                (grain_elems / g.run_cost()).max(1),
                // SAFETY: `run`'s contract (buffers cover the layouts); chunks take disjoint
                // planes, so every dst element has one writer.
                &|s, e| unsafe { kernels::bwd_scatter::run(p, t, g, b, s, e) },
            ),
            Strategy::BwdExpand(g) => par(
                g.runs,
                (grain_elems / g.run_cost()).max(1),
                // SAFETY: `run`'s contract (buffers cover the layouts); chunks take disjoint
                // rows, so every dst element has one writer.
                &|s, e| unsafe { kernels::bwd_expand::run(p, t, g, b, s, e) },
            ),
            Strategy::Copy(g) => {
                let per_run =
                    (p.dst.padded[g.inner] * g.inner2.map_or(1, |a| p.dst.padded[a])).max(1);
                // SAFETY: `run`'s contract (buffers cover the layouts); chunks are disjoint, so
                // every dst element has one writer.
                par(g.runs, (grain_elems / per_run).max(1), &|s, e| unsafe {
                    copy::copy(p, g, b, s, e)
                })
            }
            Strategy::Generic => {
                let total: usize = p.dst.padded.iter().product();
                // SAFETY: `run`'s contract (buffers cover the layouts); chunks are disjoint, so
                // every dst element has one writer.
                par(total, grain_elems / 4, &|s, e| unsafe {
                    reference::run_range(p, t, b, s, e)
                })
            }
        }
    }

    /// Runs the scalar reference path serially on the problem as described (not its
    /// canonical form, so that comparing with [`Plan::execute`] checks both).
    pub fn execute_reference(
        &self,
        src: &[u8],
        dst: &mut [u8],
        bins: &[&[u8]],
    ) -> Result<(), CoreError> {
        self.check_buffers(src, dst, bins)?;
        // SAFETY: every buffer covers its layout (checked above).
        unsafe { reference::run(&self.problem, &build_tables(&self.problem), src, dst, bins) };
        Ok(())
    }
}

/// Tap tables of every resampled axis of `p`.
fn build_tables(p: &Problem) -> Tables {
    let rank = p.src.rank();
    let mut tables = Tables {
        fwd: vec![None; rank],
        bwd: vec![None; rank],
        resampled: Vec::new(),
    };
    for d in 0..rank {
        let rule = &p.axes[d];
        if *rule == AxisRule::Identity {
            continue;
        }
        let (i, o) = p.fwd_sizes(d);
        tables.resampled.push(d);
        match p.direction {
            Direction::Forward => tables.fwd[d] = Some(forward_taps(rule, p.alg, i, o)),
            Direction::Backward => tables.bwd[d] = Some(backward_taps(rule, p.alg, i, o)),
        }
    }
    tables
}

/// Most table entries (taps, plus one bound per input) a plan may hold: larger tables
/// are refused as out of memory rather than risking an abort on allocation.
pub(crate) const MAX_TABLE_ENTRIES: f64 = (1u64 << 27) as f64;

/// Bytes per table entry: a 4-byte index and a 4-byte weight per tap, a 4-byte bound (and
/// a transient 4-byte cursor while transposing) per list; bounds count as entries.
const TABLE_BYTES_PER_ENTRY: usize = 12;

/// Taps one output of axis `d` reads at most: one for nearest, two for linear, the tent's
/// width for antialiased linear (min(I, ~2/scale)).
fn taps_per_output(p: &Problem, d: usize) -> f64 {
    let (i, _) = p.fwd_sizes(d);
    let tent = |scale: f64| (i as f64).min((2.0 / scale).ceil() + 3.0);
    match (p.alg, &p.axes[d]) {
        (Algorithm::Nearest, _) => 1.0,
        (
            Algorithm::Linear,
            AxisRule::Affine {
                scale,
                antialias: true,
                ..
            },
        ) if *scale < 0.5 => tent(*scale as f64),
        (
            Algorithm::Linear,
            AxisRule::Onnx {
                scale,
                antialias: true,
                ..
            },
        ) if *scale < 1.0 => tent(*scale),
        (Algorithm::Linear, _) => 2.0,
    }
}

/// Fails with `OutOfMemory` (instead of aborting later) when the tap tables of `p` would
/// exceed [`MAX_TABLE_ENTRIES`] or could not be allocated.
fn reserve_tables(p: &Problem) -> Result<(), CoreError> {
    let mut entries = 0.0f64;
    for d in 0..p.src.rank() {
        if p.axes[d] != AxisRule::Identity {
            let (i, o) = p.fwd_sizes(d);
            let taps = taps_per_output(p, d);
            // Forward: the taps plus a bound per output; backward also a bound per input
            // and tap position (one group per position).
            entries += taps * o as f64
                + match p.direction {
                    Direction::Forward => o as f64,
                    Direction::Backward => i as f64 * taps,
                };
        }
    }
    if entries > MAX_TABLE_ENTRIES {
        return Err(CoreError::OutOfMemory);
    }
    faults::try_with_capacity::<u8>(entries as usize * TABLE_BYTES_PER_ENTRY).map(drop)
}

fn validate(p: &Problem) -> Result<(), CoreError> {
    p.src.validate()?;
    p.dst.validate()?;
    let rank = p.src.rank();
    if p.dst.rank() != rank || p.axes.len() != rank {
        return Err(CoreError::invalid(
            "src, dst and axis rules disagree in rank",
        ));
    }
    for d in 0..rank {
        let (i, o) = p.fwd_sizes(d);
        if i > u32::MAX as usize || o > u32::MAX as usize {
            return Err(CoreError::unsupported(format!(
                "axis {d} is longer than 2^32-1"
            )));
        }
        if p.axes[d] == AxisRule::Identity && i != o {
            return Err(CoreError::invalid(format!(
                "axis {d} is not resampled but sizes differ ({i} vs {o})"
            )));
        }
        if let AxisRule::Affine {
            scale,
            input_offset,
            output_offset,
            ..
        } = p.axes[d]
        {
            if !(scale.is_finite()
                && scale > 0.0
                && input_offset.is_finite()
                && output_offset.is_finite())
            {
                return Err(CoreError::invalid(format!(
                    "axis {d}: scale and offsets must be finite, scale > 0"
                )));
            }
        }
        if let AxisRule::Floor { ratio, .. } = p.axes[d] {
            if !ratio.is_finite() || ratio < 0.0 {
                return Err(CoreError::invalid(format!(
                    "axis {d}: ratio must be finite and >= 0"
                )));
            }
        }
        if let AxisRule::Onnx { scale, .. } = p.axes[d] {
            if !(scale.is_finite() && scale > 0.0) {
                return Err(CoreError::invalid(format!(
                    "axis {d}: the ONNX scale must be finite and > 0"
                )));
            }
        }
        if let AxisRule::TorchLinear { scale, .. } = p.axes[d] {
            if !scale.is_finite() || scale < 0.0 {
                return Err(CoreError::invalid(format!(
                    "axis {d}: scale must be finite and >= 0"
                )));
            }
        }
        let resampled = p.axes[d] != AxisRule::Identity;
        if resampled && (p.src.blocks[d] > 1 || p.dst.blocks[d] > 1) {
            return Err(CoreError::unsupported(format!(
                "axis {d} is resampled and blocked"
            )));
        }
        if resampled && i == 0 && o > 0 && p.direction == Direction::Forward {
            return Err(CoreError::invalid(format!(
                "axis {d}: cannot sample an empty input"
            )));
        }
    }
    if p.direction == Direction::Backward && !p.post_ops.is_empty() {
        return Err(CoreError::unsupported(
            "post-ops apply to forward problems only",
        ));
    }
    let f64_involved = p.src.dtype == DataType::F64 || p.dst.dtype == DataType::F64;
    if f64_involved
        && (p.alg != Algorithm::Nearest || p.src.dtype != p.dst.dtype || !p.post_ops.is_empty())
    {
        return Err(CoreError::unsupported(
            "f64 is supported for nearest without conversion or post-ops only",
        ));
    }
    for op in &p.post_ops {
        if let PostOp::Binary { src1, .. } = op {
            src1.validate()?;
            if src1.rank() != rank
                || (0..rank).any(|d| src1.dims[d] != 1 && src1.dims[d] != p.dst.dims[d])
            {
                return Err(CoreError::invalid(
                    "binary post-op src1 dims must be 1 or equal to dst dims",
                ));
            }
        }
    }
    Ok(())
}
