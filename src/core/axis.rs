//! Axis rules: the only place where coordinate formulas live.
//!
//! A rule maps a forward *output* index `o` (of `O`) to forward *input* taps (of `I`).
//! Each face picks the rule of the API it mimics and fills in its parameters; the
//! formulas below reproduce the original float operation order, because the originals'
//! results depend on it.

use super::taps::{BwdTaps, FwdTaps};
use super::Algorithm;

/// Rounding of a nearest-neighbour coordinate (DirectML's variants).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NearestRounding {
    /// `floor(c + 0.5)` (DML_RESAMPLE, DML_RESAMPLE1).
    HalfUp,
    /// `floor(c)` (DML_AXIS_DIRECTION_DECREASING).
    Floor,
    /// `ceil(c)` (DML_AXIS_DIRECTION_INCREASING).
    Ceil,
}

/// How one axis maps output indices to input taps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AxisRule {
    /// The axis is not resampled (input and output sizes are equal).
    Identity,
    /// oneDNN v1.7+/2.x half-pixel: `s = ((o + 0.5f) * I / O) - 0.5f` in f32; nearest is
    /// `roundf(s)`; linear taps `trunc(s)`, `ceil(s)` clamped, `w1 = |s - idx0|`.
    /// Backward uses oneDNN's own range tables (`bwd_linear_coeffs_t`).
    OnednnHalfPixel,
    /// As [`AxisRule::OnednnHalfPixel`], except that nearest backward ranges use the
    /// precomputed ratio `f = (float)O / (float)I`: `[ceil(i*f - 0.5f), ceil((i+1)*f - 0.5f))`.
    /// That is the formula of oneDNN 2.x's AVX-512 jit backward kernel (the default for nspc
    /// and 8/16-blocked f32/bf16); at half-way ties it hands some outputs to a different input
    /// than `ref`/`simple` do (60 -> 2: output 1 goes to input 44, not 45).
    OnednnHalfPixelJitBwd,
    /// DNNL 1.2–1.6 (`reference/onednn.md` §2.4; libdnnl.so.1's default): the float factor
    /// `f = (float)((double)O / I)`; forward nearest `(dim_t)((o + 0.5f) * (1.f / f))`,
    /// linear `s = (float)((o + 0.5f) * (1.f / f)) - 0.5f` with 2.x's taps and weights;
    /// backward nearest ranges `[ceil(i*f - 0.5f), ceil((i+1.f)*f - 0.5f))`, linear ranges
    /// from `(x + 0.5f) * f - 0.5f` with weights from the forward `s`.
    Dnnl12,
    /// DirectML: `c = (o - output_offset) / scale - input_offset`; nearest by `rounding`;
    /// linear with edge clamp; with `antialias` and `scale < 0.5`, a normalised tent filter
    /// of half-width `1/scale`.
    Affine {
        scale: f32,
        input_offset: f32,
        output_offset: f32,
        rounding: NearestRounding,
        antialias: bool,
    },
    /// PyTorch / Ascend nearest: `min(floor((float)o * ratio), I - 1)`, or with `exact`
    /// `min(floor(((float)o + 0.5f) * ratio), I - 1)`. `ratio` is input per output.
    Floor { ratio: f32, exact: bool },
    /// ONNX Resize (opset 11-19) as `onnx.reference` computes it: the source coordinate
    /// `x` from `coord` in f64 (`scale` is ONNX's per-axis scale factor, output per input);
    /// nearest picks by `nearest`; linear taps `floor(x)`, `floor(x) + 1` edge-clamped with
    /// weights `1 - r`, `r` (an integer `x` gives taps `x - 1`, `x` weighted 0, 1, as the
    /// reference's `ratio = 1` does); with `antialias` and `scale < 1`, the normalised tent
    /// of half-width `1/scale` (exclude_outside = 0). `tf_crop_and_resize` is not offered.
    Onnx {
        coord: OnnxCoord,
        nearest: OnnxNearest,
        scale: f64,
        antialias: bool,
    },
    /// PyTorch linear (`F.interpolate(mode="linear"|"bilinear"|"trilinear")`, CPU):
    /// `src = scale * o` (align_corners) or `max(scale * (o + 0.5f) - 0.5f, 0)` in f32,
    /// `i0 = min(floor(src), I - 1)`, `i1 = i0 + (i0 < I - 1)`, `l1 = clamp(src - i0, 0, 1)`,
    /// `l0 = 1 - l1`; equal sizes copy. `scale` comes from [`torch_linear_scale`]. Meant for
    /// [`Algorithm::Linear`]; nearest takes `i0`.
    TorchLinear { scale: f32, align_corners: bool },
}

/// ONNX `coordinate_transformation_mode` (all but `tf_crop_and_resize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OnnxCoord {
    HalfPixel,
    PytorchHalfPixel,
    AlignCorners,
    Asymmetric,
    HalfPixelSymmetric,
}

/// ONNX `nearest_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OnnxNearest {
    RoundPreferFloor,
    RoundPreferCeil,
    Floor,
    Ceil,
}

/// PyTorch's `area_pixel_compute_scale<float>`: with align_corners `(I-1)/(O-1)` (0 when
/// `O <= 1`), else `(float)(1.0 / user_scale)` when a positive scale was given, else
/// `(float)I / O`.
pub fn torch_linear_scale(
    in_size: usize,
    out_size: usize,
    align_corners: bool,
    user_scale: Option<f64>,
) -> f32 {
    if align_corners {
        if out_size > 1 {
            (in_size as f32 - 1.0) / (out_size - 1) as f32
        } else {
            0.0
        }
    } else {
        torch_nearest_ratio(in_size, out_size, user_scale)
    }
}

/// PyTorch's `compute_scales_value<float>`: `(float)(1.0 / user_scale)` for a positive
/// scale, else `(float)I / O` (the ratio of [`AxisRule::Floor`]).
pub fn torch_nearest_ratio(in_size: usize, out_size: usize, user_scale: Option<f64>) -> f32 {
    match user_scale {
        Some(s) if s > 0.0 => (1.0 / s) as f32,
        _ => in_size as f32 / out_size as f32,
    }
}

/// ONNX source coordinate of output `y`, in `onnx.reference`'s f64 operation order
/// (`output_width = scale * I` is a float there, not the integer output size).
fn onnx_coord(coord: OnnxCoord, scale: f64, in_size: usize, out_size: usize, y: usize) -> f64 {
    let (y, iw) = (y as f64, in_size as f64);
    let out_w = scale * iw;
    match coord {
        OnnxCoord::HalfPixel => (y + 0.5) / scale - 0.5,
        OnnxCoord::PytorchHalfPixel if out_w == 1.0 => -0.5,
        OnnxCoord::PytorchHalfPixel => (y + 0.5) / scale - 0.5,
        OnnxCoord::AlignCorners if out_w == 1.0 => 0.0,
        OnnxCoord::AlignCorners => y * (iw - 1.0) / (out_w - 1.0),
        OnnxCoord::Asymmetric => y / scale,
        OnnxCoord::HalfPixelSymmetric => {
            let adjustment = out_size as f64 / out_w;
            let center = iw / 2.0;
            let offset = center * (1.0 - adjustment);
            offset + (y + 0.5) / scale - 0.5
        }
    }
}

/// The coordinate formulas of one oneDNN generation along one axis (`I` inputs, `O`
/// outputs), each in the original's float operation order. Rust's f32 `*`, `+`, `/` round
/// every result and never contract, which is what 1.2's `volatile float s` enforced.
#[derive(Clone, Copy)]
enum OnednnMath {
    /// v1.7+ / 2.x: everything from the dims (`linear_map(y, y_max, x_max)`).
    V2 { i: usize, o: usize },
    /// v2.x jit backward: as `V2`, nearest backward bounds from `f = (float)O / (float)I`.
    V2JitBwd { i: usize, o: usize, f: f32 },
    /// v1.2–1.6: everything from the factor `f = (float)((double)O / I)`.
    V12 { f: f32 },
}

impl OnednnMath {
    fn of(rule: &AxisRule, i: usize, o: usize) -> Self {
        match rule {
            AxisRule::OnednnHalfPixelJitBwd => Self::V2JitBwd {
                i,
                o,
                f: o as f32 / i as f32,
            },
            AxisRule::Dnnl12 => Self::V12 {
                f: (o as f64 / i as f64) as f32,
            },
            _ => Self::V2 { i, o },
        }
    }

    /// Forward: output `y` -> input coordinate `s` (linear taps).
    fn src_coord(self, y: i64) -> f32 {
        self.maps().0.at(y)
    }

    /// The forward and backward linear coordinate maps.
    fn maps(self) -> (LinMap, LinMap) {
        match self {
            // `linear_map(y, y_max, x_max)` both ways.
            Self::V2 { i, o } | Self::V2JitBwd { i, o, .. } => (
                LinMap {
                    a: i as f32,
                    b: o as f32,
                },
                LinMap {
                    a: o as f32,
                    b: i as f32,
                },
            ),
            // `linear_map(y, f)` with `1 / f` forward.
            Self::V12 { f } => (LinMap { a: 1.0 / f, b: 1.0 }, LinMap { a: f, b: 1.0 }),
        }
    }

    /// Forward nearest input index of output `y` (before clamping).
    fn nearest(self, y: i64) -> i64 {
        match self {
            Self::V2 { .. } | Self::V2JitBwd { .. } => self.src_coord(y).round() as i64,
            Self::V12 { f } => ((y as f32 + 0.5) * (1.0 / f)) as i64,
        }
    }

    /// Backward nearest: first output read from input `x` (`x + 1` gives the end).
    fn nearest_bwd_bound(self, x: i64) -> i64 {
        match self {
            Self::V2 { i, o } => onednn_ceil_idx(x as f32 * o as f32 / i as f32 - 0.5),
            Self::V2JitBwd { f, .. } | Self::V12 { f } => onednn_ceil_idx(x as f32 * f - 0.5),
        }
    }
}

/// One of oneDNN's linear coordinate maps, `((y + 0.5) * a) / b - 0.5` in f32: 2.x
/// `linear_map(y, y_max, x_max)` is `a = x_max, b = y_max`; DNNL 1.2 `linear_map(y, f)`
/// (`volatile float s = (y + 0.5f) * f; return s - 0.5f`) is `a = f, b = 1` (the division by
/// one is exact). `kernels::bwd_long` evaluates it in vectors, operation for operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LinMap {
    pub a: f32,
    pub b: f32,
}

impl LinMap {
    #[inline]
    pub(crate) fn at(self, y: i64) -> f32 {
        ((y as f32 + 0.5) * self.a) / self.b - 0.5
    }
}

/// oneDNN's linear backward along one axis of `i -> o` under `rule`, when the rule is one of
/// oneDNN's: the forward map (its weights, [`onednn_bwd_weight`]) and the backward map (its
/// lists, [`onednn_bwd_lists`]).
pub(crate) fn onednn_linear_maps(rule: &AxisRule, i: usize, o: usize) -> Option<(LinMap, LinMap)> {
    match rule {
        AxisRule::OnednnHalfPixel | AxisRule::OnednnHalfPixelJitBwd | AxisRule::Dnnl12 => {
            Some(OnednnMath::of(rule, i, o).maps())
        }
        _ => None,
    }
}

/// oneDNN's backward linear weight `w = |s - trunc(s)|` of output `o` (`src` the forward
/// map): group 0 (left taps) weighs `1 - w`, group 1 (right taps) `w`.
#[inline]
pub(crate) fn onednn_bwd_weight(src: LinMap, o: i64) -> f32 {
    let s = src.at(o);
    (s - (s as i64) as f32).abs()
}

/// oneDNN's backward linear lists of input `x` (`dst` the backward map, `i_n -> o_n`): the
/// outputs using `x` as left tap (group 0), then as right tap (group 1), each a range
/// clamped to `0..o_n` (empty when its end is not past its start).
#[inline]
pub(crate) fn onednn_bwd_lists(dst: LinMap, x: i64, i_n: usize, o_n: usize) -> [(i64, i64); 2] {
    let o_n = o_n as i64;
    let after = |s: f32| if s < 0.0 { 0 } else { s as i64 + 1 };
    let start0 = if x == 0 {
        0
    } else {
        onednn_ceil_idx(dst.at(x))
    };
    let end0 = onednn_ceil_idx(dst.at(x + 1)).min(o_n);
    let end1 = if x == i_n as i64 - 1 {
        o_n
    } else {
        after(dst.at(x)).min(o_n)
    };
    let clamp = |v: i64| v.clamp(0, o_n);
    [
        (clamp(start0), clamp(end0)),
        (clamp(after(dst.at(x - 1))), clamp(end1)),
    ]
}

/// oneDNN's `ceil_idx`: 0 for negatives, else the ceiling as an integer.
#[inline]
fn onednn_ceil_idx(x: f32) -> i64 {
    if x < 0.0 {
        return 0;
    }
    let t = x as i64;
    if t as f32 == x {
        t
    } else {
        t + 1
    }
}

#[inline]
fn clamp_idx(i: i64, size: usize) -> u32 {
    i.clamp(0, size as i64 - 1) as u32
}

/// Forward taps of one axis.
pub fn forward_taps(rule: &AxisRule, alg: Algorithm, in_size: usize, out_size: usize) -> FwdTaps {
    match *rule {
        AxisRule::Identity => FwdTaps::from_fn(out_size, |o, t| t.push((o as u32, 1.0))),
        AxisRule::OnednnHalfPixel | AxisRule::OnednnHalfPixelJitBwd | AxisRule::Dnnl12 => {
            let m = OnednnMath::of(rule, in_size, out_size);
            FwdTaps::from_fn(out_size, |o, t| match alg {
                Algorithm::Nearest => t.push((clamp_idx(m.nearest(o as i64), in_size), 1.0)),
                Algorithm::Linear => {
                    let s = m.src_coord(o as i64);
                    let i0 = (s as i64).max(0);
                    let i1 = onednn_ceil_idx(s).min(in_size as i64 - 1);
                    let w1 = (s - i0 as f32).abs();
                    let w0 = 1.0 - w1;
                    // oneDNN's lerp is `c0*w0 + c1*(1 - w0)`: keep that second weight.
                    t.push((clamp_idx(i0, in_size), w0));
                    t.push((clamp_idx(i1, in_size), 1.0 - w0));
                }
            })
        }
        AxisRule::Affine {
            scale,
            input_offset,
            output_offset,
            rounding,
            antialias,
        } => FwdTaps::from_fn(out_size, |o, t| {
            let c = (o as f32 - output_offset) / scale - input_offset;
            // A finite descriptor can still overflow c (denormal scale, huge offsets);
            // an infinite c samples the edge, like any c beyond it.
            let c = if c.is_finite() {
                c
            } else if c > 0.0 {
                in_size as f32
            } else {
                -1.0
            };
            match alg {
                Algorithm::Nearest => {
                    let r = match rounding {
                        NearestRounding::HalfUp => (c + 0.5).floor(),
                        NearestRounding::Floor => c.floor(),
                        NearestRounding::Ceil => c.ceil(),
                    };
                    t.push((clamp_idx(r as i64, in_size), 1.0));
                }
                Algorithm::Linear if antialias && scale < 0.5 => {
                    antialias_taps(c as f64, scale as f64, in_size, t)
                }
                Algorithm::Linear => {
                    let f = c.floor();
                    let w = c - f;
                    let i0 = f as i64;
                    t.push((clamp_idx(i0, in_size), 1.0 - w));
                    t.push((clamp_idx(i0.saturating_add(1), in_size), w));
                }
            }
        }),
        AxisRule::Floor { ratio, exact } => FwdTaps::from_fn(out_size, |o, t| {
            let src = if exact {
                (o as f32 + 0.5) * ratio
            } else {
                o as f32 * ratio
            };
            t.push((clamp_idx(src.floor() as i64, in_size), 1.0));
        }),
        AxisRule::Onnx {
            coord,
            nearest,
            scale,
            antialias,
        } => FwdTaps::from_fn(out_size, |o, t| {
            let x = onnx_coord(coord, scale, in_size, out_size, o);
            // Non-finite only for a rule the plan refuses; sample the nearer edge anyway.
            let x = if x.is_finite() {
                x
            } else if x > 0.0 {
                in_size as f64
            } else {
                -1.0
            };
            let fl = x.floor();
            let i0 = fl as i64;
            // The reference sets ratio = 1 for an integer x, with taps (x - 1, x).
            let integer = x == fl;
            let ratio = x - fl;
            match alg {
                Algorithm::Nearest => {
                    let upper = !integer
                        && match nearest {
                            OnnxNearest::RoundPreferFloor => ratio > 0.5,
                            OnnxNearest::RoundPreferCeil => ratio >= 0.5,
                            OnnxNearest::Floor => false,
                            OnnxNearest::Ceil => true,
                        };
                    t.push((clamp_idx(i0.saturating_add(upper as i64), in_size), 1.0));
                }
                Algorithm::Linear if antialias && scale < 1.0 => {
                    antialias_taps(x, scale, in_size, t)
                }
                Algorithm::Linear if integer => {
                    t.push((clamp_idx(i0.saturating_sub(1), in_size), 0.0));
                    t.push((clamp_idx(i0, in_size), 1.0));
                }
                Algorithm::Linear => {
                    t.push((clamp_idx(i0, in_size), (1.0 - ratio) as f32));
                    t.push((clamp_idx(i0.saturating_add(1), in_size), ratio as f32));
                }
            }
        }),
        AxisRule::TorchLinear {
            scale,
            align_corners,
        } => FwdTaps::from_fn(out_size, |o, t| {
            if in_size == out_size {
                t.push((o as u32, 1.0));
                if alg == Algorithm::Linear {
                    t.push((o as u32, 0.0));
                }
                return;
            }
            let src = if align_corners {
                scale * o as f32
            } else {
                let s = scale * (o as f32 + 0.5) - 0.5;
                if s < 0.0 {
                    0.0
                } else {
                    s
                }
            };
            let i0 = (src.floor() as i64).min(in_size as i64 - 1);
            let l1 = (src - i0 as f32).clamp(0.0, 1.0);
            if alg == Algorithm::Nearest {
                // Not a PyTorch mode (its nearest is `Floor`); the lower tap keeps it total.
                t.push((clamp_idx(i0, in_size), 1.0));
                return;
            }
            let i1 = i0 + (i0 < in_size as i64 - 1) as i64;
            t.push((clamp_idx(i0, in_size), 1.0 - l1));
            t.push((clamp_idx(i1, in_size), l1));
        }),
    }
}

/// Tent filter stretched by `1/scale`, weights normalised to sum 1, taps edge-clamped
/// (the ONNX Resize-18 antialias enumeration, which DirectML documents): every integer `j`
/// with `|j - c| < 1/scale` contributes `1 - |j - c| * scale` to input `clamp(j, 0, I-1)`.
///
/// Taps clamped onto the same edge index are merged, their weight summed in closed form,
/// so the table stays at most `I` taps wide however small the scale (a tiny scale would
/// otherwise enumerate ~2/scale taps per output). Weights are computed in f64 and rounded
/// to f32 once after normalisation.
fn antialias_taps(c: f64, s: f64, in_size: usize, t: &mut Vec<(u32, f32)>) {
    if in_size <= 1 {
        t.push((0, 1.0));
        return;
    }
    let half = 1.0 / s;
    let last = (in_size - 1) as f64;
    // Positive-weight taps: integers j with c - half < j < c + half.
    let lo = (c - half).floor() + 1.0;
    let hi = (c + half).ceil() - 1.0;
    let weight = |j: f64| 1.0 - (j - c).abs() * s;
    // Sum of the weights of the integers a..=b (all inside the tent), in closed form.
    let range_sum = |a: f64, b: f64| -> f64 {
        if a > b {
            return 0.0;
        }
        let m = c.floor();
        let mut dist = 0.0;
        let b1 = b.min(m);
        if a <= b1 {
            dist += (b1 - a + 1.0) * (c - (a + b1) * 0.5);
        }
        let a2 = a.max(m + 1.0);
        if a2 <= b {
            dist += (b - a2 + 1.0) * ((a2 + b) * 0.5 - c);
        }
        (b - a + 1.0) - s * dist
    };
    let mut taps: Vec<(u32, f64)> = Vec::new();
    let left = range_sum(lo, hi.min(0.0));
    if left > 0.0 {
        taps.push((0, left));
    }
    let (m_lo, m_hi) = (lo.max(1.0), hi.min(last - 1.0));
    let mut j = m_lo;
    while j <= m_hi {
        taps.push((j as u32, weight(j)));
        j += 1.0;
    }
    let right = range_sum(lo.max(last), hi);
    if right > 0.0 {
        taps.push((in_size as u32 - 1, right));
    }
    let sum: f64 = taps.iter().map(|&(_, w)| w).sum();
    if taps.is_empty() || sum <= 0.0 || !sum.is_finite() {
        // Unreachable for a finite c (the tent is wider than 2 pixels); stay total anyway.
        t.push((
            clamp_idx(c.round().clamp(-1.0, last + 1.0) as i64, in_size),
            1.0,
        ));
        return;
    }
    t.extend(taps.into_iter().map(|(i, w)| (i, (w / sum) as f32)));
}

/// Backward taps of one axis (input index → outputs that read it, grouped by tap).
pub fn backward_taps(rule: &AxisRule, alg: Algorithm, in_size: usize, out_size: usize) -> BwdTaps {
    match *rule {
        AxisRule::OnednnHalfPixel | AxisRule::OnednnHalfPixelJitBwd | AxisRule::Dnnl12 => {
            onednn_backward_taps(
                OnednnMath::of(rule, in_size, out_size),
                alg,
                in_size,
                out_size,
            )
        }
        _ => forward_taps(rule, alg, in_size, out_size).transpose(in_size),
    }
}

/// oneDNN's backward ranges (2.6 `ref_resampling_bwd_t`, `bwd_linear_coeffs_t`; 1.2 the
/// same with its own maps): for each input `x`, group 0 holds outputs using `x` as left
/// tap (weight `1 - w`), group 1 the outputs using it as right tap (weight `w`), with
/// `w = |s - trunc(s)|` of the forward coordinate `s`.
fn onednn_backward_taps(m: OnednnMath, alg: Algorithm, in_size: usize, out_size: usize) -> BwdTaps {
    let (i_n, o_n) = (in_size, out_size);
    let clamp_o = |v: i64| v.clamp(0, o_n as i64) as u32;
    match alg {
        Algorithm::Nearest => BwdTaps::build(1, i_n, |x, push| {
            let x = x as i64;
            let (start, end) = (m.nearest_bwd_bound(x), m.nearest_bwd_bound(x + 1));
            (clamp_o(start)..clamp_o(end)).for_each(|o| push(o, 1.0));
        }),
        Algorithm::Linear => {
            let (src, dst) = m.maps();
            BwdTaps::build(2, 2 * i_n, |l, push| {
                let (x, k) = ((l / 2) as i64, l % 2);
                let (s, e) = onednn_bwd_lists(dst, x, i_n, o_n)[k];
                for o in s..e {
                    let w = onednn_bwd_weight(src, o);
                    push(o as u32, if k == 0 { 1.0 - w } else { w });
                }
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nearest(rule: AxisRule, i: usize, o: usize) -> Vec<u32> {
        forward_taps(&rule, Algorithm::Nearest, i, o).idx
    }

    #[test]
    fn onednn_nearest_examples() {
        let r = AxisRule::OnednnHalfPixel;
        assert_eq!(nearest(r, 4, 1), [2]);
        assert_eq!(nearest(r, 3, 5), [0, 0, 1, 2, 2]);
        assert_eq!(nearest(r, 5, 3), [0, 2, 4]);
        assert_eq!(nearest(r, 2, 6), [0, 0, 0, 1, 1, 1]);
        assert_eq!(
            nearest(r, 21, 13),
            [0, 2, 4, 5, 7, 8, 10, 12, 13, 15, 16, 18, 20]
        );
    }

    #[test]
    fn onednn_backward_ranges_match_forward_transpose() {
        for alg in [Algorithm::Nearest, Algorithm::Linear] {
            for i in 1..40 {
                for o in 1..40 {
                    let r = AxisRule::OnednnHalfPixel;
                    let mine = backward_taps(&r, alg, i, o);
                    let fwd = forward_taps(&r, alg, i, o).transpose(i);
                    for x in 0..i {
                        for g in 0..mine.groups {
                            assert_eq!(
                                mine.group(x, g).0,
                                fwd.group(x, g).0,
                                "{alg:?} {i}->{o} x={x} g={g}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn onednn_jit_backward_nearest_ratio() {
        // 60 -> 2 forward picks inputs 15 and 45; ref's backward agrees, the jit's precomputed
        // ratio hands output 1 to input 44 (verified against libdnnl 2.6.3, nhwc).
        let bwd = |r: AxisRule| backward_taps(&r, Algorithm::Nearest, 60, 2);
        let (rf, jit) = (
            bwd(AxisRule::OnednnHalfPixel),
            bwd(AxisRule::OnednnHalfPixelJitBwd),
        );
        assert_eq!(
            (rf.group(45, 0).0, rf.group(44, 0).0),
            (&[1u32][..], &[][..])
        );
        assert_eq!(
            (jit.group(44, 0).0, jit.group(45, 0).0),
            (&[1u32][..], &[][..])
        );
        assert_eq!(
            (jit.group(15, 0).0, jit.group(14, 0).0),
            (&[0u32][..], &[][..])
        );
    }

    #[test]
    fn dnnl12_nearest_differs_from_v2_as_documented() {
        // reference/onednn.md §2.4: I=2, O=41, o=20 gives 0 in v1.2 and 1 in v2.x.
        assert_eq!(nearest(AxisRule::Dnnl12, 2, 41)[20], 0);
        assert_eq!(nearest(AxisRule::OnednnHalfPixel, 2, 41)[20], 1);
        // ... and 8242 of the 13.5 M nearest indices over I, O <= 300 differ.
        let mut differ = 0;
        for i in 1..=300 {
            for o in 1..=300 {
                let (a, b) = (
                    nearest(AxisRule::Dnnl12, i, o),
                    nearest(AxisRule::OnednnHalfPixel, i, o),
                );
                differ += a.iter().zip(&b).filter(|(x, y)| x != y).count();
            }
        }
        assert_eq!(differ, 8242);
    }

    /// Plain scalar model of DNNL 1.2's `linear_coeffs_t` and nearest (written from §2.4).
    fn dnnl12_model(i: usize, o: usize, y: usize) -> (i64, i64, f32, i64) {
        let f = (o as f64 / i as f64) as f32;
        let r = 1.0f32 / f;
        let p = (y as f32 + 0.5) * r;
        let s = p - 0.5;
        let i0 = if s < 0.0 { 0 } else { s.trunc() as i64 };
        let c = if s < 0.0 { 0 } else { s.ceil() as i64 };
        let i1 = c.min(i as i64 - 1);
        let w0 = 1.0 - (s - i0 as f32).abs();
        (i0, i1, w0, p as i64)
    }

    #[test]
    fn dnnl12_forward_matches_scalar_model() {
        for i in 1..60 {
            for o in 1..60 {
                let lin = forward_taps(&AxisRule::Dnnl12, Algorithm::Linear, i, o);
                let nn = nearest(AxisRule::Dnnl12, i, o);
                for y in 0..o {
                    let (i0, i1, w0, n) = dnnl12_model(i, o, y);
                    let (idx, w) = lin.taps(y);
                    assert_eq!(idx, [i0 as u32, i1 as u32], "{i}->{o} y={y}");
                    assert_eq!(w[0].to_bits(), w0.to_bits());
                    assert_eq!(w[1].to_bits(), (1.0 - w0).to_bits());
                    assert_eq!(nn[y] as i64, n.min(i as i64 - 1));
                }
            }
        }
    }

    #[test]
    fn dnnl12_backward_examples() {
        // Nearest ranges from the factor: 3 <- 5 (f = 5/3) sends outputs {0,1}, {2}, {3,4}.
        let b = backward_taps(&AxisRule::Dnnl12, Algorithm::Nearest, 3, 5);
        let got: Vec<Vec<u32>> = (0..3).map(|x| b.group(x, 0).0.to_vec()).collect();
        assert_eq!(got, [vec![0, 1], vec![2], vec![3, 4]]);
        // Linear ranges and weights against a scalar model of 1.2's `bwd_linear_coeffs_t`
        // (maps with f, weights with 1/f). Unlike 2.x's, 1.2's ranges are not exactly the
        // forward taps transposed (3 -> 13: output 6 reads input 1 as left tap, but input
        // 1's left range misses it); libdnnl.so.1 keeps that.
        let ceil = |v: f32| if v < 0.0 { 0 } else { v.ceil() as i64 };
        let after = |v: f32| if v < 0.0 { 0 } else { v.trunc() as i64 + 1 };
        let mut not_adjoint = 0;
        for i in 1..40usize {
            for o in 1..40usize {
                let f = (o as f64 / i as f64) as f32;
                let map = |x: i64| (x as f32 + 0.5) * f - 0.5;
                let b = backward_taps(&AxisRule::Dnnl12, Algorithm::Linear, i, o);
                let fwd = forward_taps(&AxisRule::Dnnl12, Algorithm::Linear, i, o).transpose(i);
                for x in 0..i as i64 {
                    let s0 = if x == 0 { 0 } else { ceil(map(x)) };
                    let e0 = ceil(map(x + 1)).min(o as i64);
                    let s1 = after(map(x - 1));
                    let e1 = if x == i as i64 - 1 {
                        o as i64
                    } else {
                        after(map(x)).min(o as i64)
                    };
                    for (k, (s, e)) in [(s0, e0), (s1, e1)].into_iter().enumerate() {
                        let want: Vec<u32> =
                            (s.max(0)..e.max(s.max(0))).map(|v| v as u32).collect();
                        let (got, w) = b.group(x as usize, k);
                        assert_eq!(got, &want[..], "{i}->{o} x={x} k={k}");
                        for (&y, &w) in got.iter().zip(w) {
                            let t = (y as f32 + 0.5) * (1.0 / f) - 0.5;
                            let d = (t - t.trunc()).abs();
                            let ww = if k == 0 { 1.0 - d } else { d };
                            assert_eq!(w.to_bits(), ww.to_bits());
                        }
                        not_adjoint += usize::from(got != fwd.group(x as usize, k).0);
                    }
                }
            }
        }
        assert!(not_adjoint > 0);
    }

    #[test]
    fn floor_rules() {
        let r = AxisRule::Floor {
            ratio: 2.0 / 82.0,
            exact: false,
        };
        assert_eq!(nearest(r, 2, 82)[41], 0);
        let e = AxisRule::Floor {
            ratio: 5.0 / 3.0,
            exact: true,
        };
        assert_eq!(nearest(e, 5, 3), [0, 2, 4]);
    }

    #[test]
    fn onnx_nearest_modes_and_integer_coordinates() {
        let r = |coord, nearest, scale| AxisRule::Onnx {
            coord,
            nearest,
            scale,
            antialias: false,
        };
        use OnnxCoord::*;
        use OnnxNearest::*;
        // asymmetric 4 -> 3 (scale 0.75): x = 0, 1.33, 2.67.
        assert_eq!(
            nearest(r(Asymmetric, RoundPreferFloor, 0.75), 4, 3),
            [0, 1, 3]
        );
        assert_eq!(nearest(r(Asymmetric, Floor, 0.75), 4, 3), [0, 1, 2]);
        assert_eq!(nearest(r(Asymmetric, Ceil, 0.75), 4, 3), [0, 2, 3]);
        // asymmetric 2 -> 4: x = 0, 0.5, 1, 1.5: ties go by the mode, the edge clamps.
        assert_eq!(
            nearest(r(Asymmetric, RoundPreferFloor, 2.0), 2, 4),
            [0, 0, 1, 1]
        );
        assert_eq!(
            nearest(r(Asymmetric, RoundPreferCeil, 2.0), 2, 4),
            [0, 1, 1, 1]
        );
        // half_pixel 2 -> 4: x = -0.25, 0.25, 0.75, 1.25.
        assert_eq!(
            nearest(r(HalfPixel, RoundPreferFloor, 2.0), 2, 4),
            [0, 0, 1, 1]
        );
        // An integer x takes taps (x - 1, x) weighted (0, 1), as onnx.reference does.
        let t = forward_taps(&r(Asymmetric, Floor, 2.0), Algorithm::Linear, 2, 4);
        assert_eq!(t.taps(2), (&[0u32, 1][..], &[0.0f32, 1.0][..]));
        assert_eq!(t.taps(1), (&[0u32, 1][..], &[0.5f32, 0.5][..]));
        // align_corners with a single output samples input 0.
        assert_eq!(nearest(r(AlignCorners, Ceil, 0.25), 4, 1), [0]);
    }

    #[test]
    fn torch_linear_formulas() {
        let r = |align_corners, i, o| AxisRule::TorchLinear {
            scale: torch_linear_scale(i, o, align_corners, None),
            align_corners,
        };
        // 4 -> 8, half-pixel: src = max(0.5 * (o + 0.5) - 0.5, 0).
        let t = forward_taps(&r(false, 4, 8), Algorithm::Linear, 4, 8);
        assert_eq!(t.taps(0), (&[0u32, 1][..], &[1.0f32, 0.0][..]));
        assert_eq!(t.taps(3), (&[1u32, 2][..], &[0.75f32, 0.25][..]));
        assert_eq!(t.taps(7), (&[3u32, 3][..], &[0.75f32, 0.25][..]));
        // align_corners 4 -> 7: src = o * 0.5.
        let t = forward_taps(&r(true, 4, 7), Algorithm::Linear, 4, 7);
        assert_eq!(t.taps(3), (&[1u32, 2][..], &[0.5f32, 0.5][..]));
        assert_eq!(t.taps(6), (&[3u32, 3][..], &[1.0f32, 0.0][..]));
        // Equal sizes copy whatever the scale.
        let t = forward_taps(&r(false, 5, 5), Algorithm::Linear, 5, 5);
        assert_eq!(t.taps(4), (&[4u32, 4][..], &[1.0f32, 0.0][..]));
        assert_eq!(torch_nearest_ratio(3, 7, Some(2.0)), 0.5);
        assert_eq!(torch_nearest_ratio(3, 7, None), 3.0 / 7.0);
    }

    #[test]
    fn antialias_example() {
        let r = AxisRule::Affine {
            scale: 0.25,
            input_offset: 0.5,
            output_offset: -0.5,
            rounding: NearestRounding::HalfUp,
            antialias: true,
        };
        let t = forward_taps(&r, Algorithm::Linear, 8, 2);
        let out: Vec<f32> = (0..2)
            .map(|o| {
                let (i, w) = t.taps(o);
                i.iter().zip(w).map(|(&i, &w)| i as f32 * w).sum()
            })
            .collect();
        assert!(
            (out[0] - 1.65625).abs() < 1e-6 && (out[1] - 5.34375).abs() < 1e-6,
            "{out:?}"
        );
    }

    /// Brute-force tent: every integer tap, clamped, summed in f64.
    fn tent_brute(c: f64, s: f64, n: usize) -> Vec<f64> {
        let mut w = vec![0.0; n];
        let half = 1.0 / s;
        let mut j = (c - half).floor() - 1.0;
        while j <= c + half + 1.0 {
            let v = 1.0 - (j - c).abs() * s;
            if v > 0.0 {
                w[(j.max(0.0) as usize).min(n - 1)] += v;
            }
            j += 1.0;
        }
        let sum: f64 = w.iter().sum();
        w.iter().map(|v| v / sum).collect()
    }

    fn aa_rule(scale: f32, io: f32, oo: f32) -> AxisRule {
        AxisRule::Affine {
            scale,
            input_offset: io,
            output_offset: oo,
            rounding: NearestRounding::Floor,
            antialias: true,
        }
    }

    #[test]
    fn antialias_merged_edges_match_brute_force() {
        let cases = [
            (8usize, 2usize, 0.25f32, 0.5f32, -0.5f32),
            (5, 3, 0.1, 0.5, -0.5),
            (1, 4, 0.3, 0.5, -0.5),
            (2, 7, 0.01, 0.0, 0.0),
            (17, 5, 0.29, 1.3, -2.2),
            (9, 3, 0.45, -3.0, 0.7),
        ];
        for &(n, o, scale, io, oo) in &cases {
            let t = forward_taps(&aa_rule(scale, io, oo), Algorithm::Linear, n, o);
            for oi in 0..o {
                let c = ((oi as f32 - oo) / scale - io) as f64;
                let want = tent_brute(c, scale as f64, n);
                let (idx, wt) = t.taps(oi);
                let mut got = vec![0.0f64; n];
                for (&i, &w) in idx.iter().zip(wt) {
                    got[i as usize] += w as f64;
                }
                let mut seen = idx.to_vec();
                seen.dedup();
                assert_eq!(seen.len(), idx.len(), "duplicate taps {idx:?}");
                for k in 0..n {
                    assert!(
                        (got[k] - want[k]).abs() < 1e-6,
                        "n={n} o={oi} s={scale}: {got:?} vs {want:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn tiny_scales_and_infinite_coordinates_stay_bounded() {
        for scale in [1e-30f32, f32::from_bits(1), 1e-7] {
            let t = forward_taps(&aa_rule(scale, 0.5, -0.5), Algorithm::Linear, 6, 3);
            for o in 0..3 {
                let (idx, wt) = t.taps(o);
                assert!(idx.len() <= 6 && idx.iter().all(|&i| i < 6));
                let sum: f32 = wt.iter().sum();
                assert!(
                    (sum - 1.0).abs() < 1e-5 && wt.iter().all(|w| w.is_finite()),
                    "{scale}: {wt:?}"
                );
            }
        }
        // Denormal scale: c overflows to +inf; linear and nearest sample the last element.
        let r = AxisRule::Affine {
            scale: f32::from_bits(1),
            input_offset: 0.5,
            output_offset: -0.5,
            rounding: NearestRounding::HalfUp,
            antialias: false,
        };
        let t = forward_taps(&r, Algorithm::Linear, 4, 2);
        for o in 0..2 {
            let (idx, wt) = t.taps(o);
            let v: f32 = idx.iter().zip(wt).map(|(&i, &w)| i as f32 * w).sum();
            assert_eq!(v, 3.0);
        }
        assert_eq!(nearest(r, 4, 2), [3, 3]);
    }
}
