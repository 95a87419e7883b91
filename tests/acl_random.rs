//! Randomised comparison of every Ascend operator against an independent scalar model
//! written from PyTorch's CPU formulas (UpSample.h / UpSampleMoreKernel.cpp) and the
//! per-API scale rules of docs/spec/ascend.md §4.1 / §5.1: sizes 1..300, with and without
//! scales, non-integer ratios, all dtypes each API allows, channels-first and channels-last,
//! strided views with offsets.

mod acl_common;

use acl_common::*;
use resample::capi::ascend::backward::*;
use resample::capi::ascend::forward::*;
use resample::capi::ascend::*;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Api {
    N1d,
    N1dV2,
    N2d,
    N2dV2,
    N3d,
    E1d,
    E2d,
    E3d,
    N1dB,
    N2dB,
    N3dB,
    E1dB,
    E2dB,
    E3dB,
}
use Api::*;

impl Api {
    fn spatial(self) -> usize {
        match self {
            N1d | N1dV2 | E1d | N1dB | E1dB => 1,
            N2d | N2dV2 | E2d | N2dB | E2dB => 2,
            N3d | E3d | N3dB | E3dB => 3,
        }
    }
    fn backward(self) -> bool {
        matches!(self, N1dB | N2dB | N3dB | E1dB | E2dB | E3dB)
    }
    fn dtypes(self) -> &'static [aclDataType] {
        match self {
            N1d | N1dV2 | N2d | N2dV2 => &[ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_UINT8],
            N3d | N3dB | N1dB => &[ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE],
            E1d | E2d => &[ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_UINT8],
            E3d | N2dB | E1dB | E2dB | E3dB => &[ACL_FLOAT, ACL_FLOAT16, ACL_BF16],
        }
    }
    /// (format, channels-last) choices.
    fn formats(self) -> &'static [(aclFormat, bool)] {
        match self {
            N1d | N1dV2 | N1dB => &[(ACL_FORMAT_NCL, false)],
            E1d | E1dB => &[(ACL_FORMAT_NCL, false), (ACL_FORMAT_ND, false)],
            N2d | N2dV2 | N2dB => &[(ACL_FORMAT_NCHW, false), (ACL_FORMAT_NHWC, true)],
            E2d => &[
                (ACL_FORMAT_NCHW, false),
                (ACL_FORMAT_NHWC, true),
                (ACL_FORMAT_ND, false),
            ],
            E2dB => &[(ACL_FORMAT_NCHW, false), (ACL_FORMAT_ND, false)],
            N3d | E3d | N3dB | E3dB => &[
                (ACL_FORMAT_NCDHW, false),
                (ACL_FORMAT_NDHWC, true),
                (ACL_FORMAT_ND, false),
            ],
        }
    }
}

// ---------------------------------------------------------------- the independent model

/// PyTorch `compute_scales_value<float>`.
fn compute_scales_value(scale: f64, input: i64, output: i64) -> f32 {
    if scale > 0.0 {
        (1.0 / scale) as f32
    } else {
        input as f32 / output as f32
    }
}

/// PyTorch `nearest_neighbor_compute_source_index`: `floorf(dst_index * scale)`.
fn nearest_src(scale: f32, dst: i64, input: i64) -> i64 {
    ((dst as f32 * scale).floor() as i64).min(input - 1)
}

/// PyTorch `nearest_neighbor_exact_compute_source_index`: `floorf((dst_index + 0.5) * scale)`
/// (the product is a double, rounded to float by floorf's parameter).
fn exact_src(scale: f32, dst: i64, input: i64) -> i64 {
    ((((dst as f64 + 0.5) * scale as f64) as f32).floor() as i64).min(input - 1)
}

/// The source index table of every spatial dim, by the API's scale rule.
#[allow(clippy::too_many_arguments)]
fn model_tables(
    api: Api,
    input: &[i64],
    output: &[i64],
    scales: &[f64],
    dtype: aclDataType,
    cl: bool,
    c: i64,
) -> Vec<Vec<usize>> {
    let k = input.len();
    let aicore = [ACL_FLOAT, ACL_FLOAT16, ACL_BF16].contains(&dtype);
    let all = scales.iter().all(|&s| s > 0.0);
    (0..k)
        .map(|d| {
            let (i, o) = (input[d], output[d]);
            let f: Box<dyn Fn(i64) -> i64> = match api {
                N1d | N2d => Box::new(move |x| nearest_src(compute_scales_value(0.0, i, o), x, i)),
                N3d | N3dB => {
                    let s = if all { scales[d] } else { 0.0 };
                    Box::new(move |x| nearest_src(compute_scales_value(s, i, o), x, i))
                }
                E3d | E3dB => {
                    let s = if all { scales[d] } else { 0.0 };
                    Box::new(move |x| exact_src(compute_scales_value(s, i, o), x, i))
                }
                N1dV2 => {
                    let s = if aicore { scales[0] } else { 0.0 };
                    Box::new(move |x| nearest_src(compute_scales_value(s, i, o), x, i))
                }
                N2dV2 => {
                    if all && aicore {
                        // PyTorch nearest_idx with the vectorised-kernel condition.
                        let vec = (cl && c > 3) || output[0] + output[1] <= 128;
                        let s = scales[d];
                        Box::new(move |x| {
                            if o == i {
                                x
                            } else if o == 2 * i && vec {
                                x >> 1
                            } else {
                                nearest_src(compute_scales_value(s, i, o), x, i)
                            }
                        })
                    } else {
                        Box::new(move |x| nearest_src(compute_scales_value(0.0, i, o), x, i))
                    }
                }
                E1d | E2d => {
                    let s = scales[d];
                    let two = api == E2d;
                    Box::new(move |x| {
                        if two && i == o {
                            x
                        } else {
                            exact_src(compute_scales_value(s, i, o), x, i)
                        }
                    })
                }
                N1dB | N2dB => {
                    let s = scales[d];
                    Box::new(move |x| nearest_src(compute_scales_value(s, i, o), x, i))
                }
                E1dB | E2dB => {
                    let s = scales[d];
                    Box::new(move |x| exact_src(compute_scales_value(s, i, o), x, i))
                }
            };
            (0..o).map(|x| f(x) as usize).collect()
        })
        .collect()
}

// ---------------------------------------------------------------- calling the API

/// Phase 1 + phase 2; returns the phase-1 status (phase 2 must succeed when it is 0).
unsafe fn call(
    api: Api,
    src: *const aclTensor,
    os: &Arr,
    is: &Arr,
    sc: &[f64],
    dst: *mut aclTensor,
) -> aclnnStatus {
    let mut ws = 0u64;
    let mut ex: *mut aclOpExecutor = std::ptr::null_mut();
    let (w, e) = (&mut ws as *mut u64, &mut ex as *mut *mut aclOpExecutor);
    let (o, i) = (os.0 as *const _, is.0 as *const _);
    let st = match api {
        N1d => aclnnUpsampleNearest1dGetWorkspaceSize(src, o, dst, w, e),
        N1dV2 => aclnnUpsampleNearest1dV2GetWorkspaceSize(src, o, sc[0] as f32, dst, w, e),
        N2d => aclnnUpsampleNearest2dGetWorkspaceSize(src, o, dst, w, e),
        N2dV2 => {
            aclnnUpsampleNearest2dV2GetWorkspaceSize(src, o, sc[0] as f32, sc[1] as f32, dst, w, e)
        }
        N3d => aclnnUpsampleNearest3dGetWorkspaceSize(src, o, sc[0], sc[1], sc[2], dst, w, e),
        E1d => aclnnUpsampleNearestExact1dGetWorkspaceSize(src, o, sc[0], dst, w, e),
        E2d => aclnnUpsampleNearestExact2dGetWorkspaceSize(src, o, sc[0], sc[1], dst, w, e),
        E3d => aclnnUpsampleNearestExact3dGetWorkspaceSize(src, o, sc[0], sc[1], sc[2], dst, w, e),
        N1dB => aclnnUpsampleNearest1dBackwardGetWorkspaceSize(src, o, i, sc[0], dst, w, e),
        N2dB => aclnnUpsampleNearest2dBackwardGetWorkspaceSize(src, o, i, sc[0], sc[1], dst, w, e),
        N3dB => aclnnUpsampleNearest3dBackwardGetWorkspaceSize(
            src, o, i, sc[0], sc[1], sc[2], dst, w, e,
        ),
        E1dB => aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(src, o, i, sc[0], dst, w, e),
        E2dB => {
            aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(src, o, i, sc[0], sc[1], dst, w, e)
        }
        E3dB => aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
            src, o, i, sc[0], sc[1], sc[2], dst, w, e,
        ),
    };
    if st != ACLNN_SUCCESS {
        return st;
    }
    assert_eq!(ws, 0);
    let null = std::ptr::null_mut();
    let r = match api {
        N1d => aclnnUpsampleNearest1d(null, ws, ex, null),
        N1dV2 => aclnnUpsampleNearest1dV2(null, ws, ex, null),
        N2d => aclnnUpsampleNearest2d(null, ws, ex, null),
        N2dV2 => aclnnUpsampleNearest2dV2(null, ws, ex, null),
        N3d => aclnnUpsampleNearest3d(null, ws, ex, null),
        E1d => aclnnUpsampleNearestExact1d(null, ws, ex, null),
        E2d => aclnnUpsampleNearestExact2d(null, ws, ex, null),
        E3d => aclnnUpsampleNearestExact3d(null, ws, ex, null),
        N1dB => aclnnUpsampleNearest1dBackward(null, ws, ex, null),
        N2dB => aclnnUpsampleNearest2dBackward(null, ws, ex, null),
        N3dB => aclnnUpsampleNearest3dBackward(null, ws, ex, null),
        E1dB => aclnnUpsampleNearestExact1dBackward(null, ws, ex, null),
        E2dB => aclnnUpsampleNearestExact2dBackward(null, ws, ex, null),
        E3dB => aclnnUpsampleNearestExact3dBackward(null, ws, ex, null),
    };
    assert_eq!(r, ACLNN_SUCCESS, "{api:?} run");
    ACLNN_SUCCESS
}

// ---------------------------------------------------------------- random problems

struct Case {
    n: i64,
    c: i64,
    input: Vec<i64>,
    output: Vec<i64>,
    scales: Vec<f64>,
    dtype: aclDataType,
    format: aclFormat,
    cl: bool,
}

fn random_case(api: Api, rng: &mut Rng) -> Case {
    let k = api.spatial();
    let budget: i64 = 40_000;
    let mut input: Vec<i64> = (0..k).map(|_| rng.range(1, 300)).collect();
    let mut output: Vec<i64> = (0..k)
        .map(|_| {
            if rng.range(0, 4) == 0 {
                input[0].min(300)
            } else {
                rng.range(1, 300)
            }
        })
        .collect();
    // Sometimes exact multiples / halves, to hit the shortcuts.
    for d in 0..k {
        match rng.range(0, 5) {
            0 => output[d] = (input[d] * 2).min(600),
            1 => output[d] = input[d],
            _ => {}
        }
    }
    while input
        .iter()
        .product::<i64>()
        .max(output.iter().product::<i64>())
        > budget
    {
        let d = rng.range(0, k as i64 - 1) as usize;
        input[d] = (input[d] / 2).max(1);
        output[d] = (output[d] / 2).max(1);
    }
    let dtype = rng.pick(api.dtypes());
    let (format, cl) = rng.pick(api.formats());
    let n = rng.range(1, 2);
    let c = rng.range(1, 5);
    let mode = rng.range(0, 3);
    let mut scales: Vec<f64> = match mode {
        0 => vec![if rng.coin() { 0.0 } else { -1.0 }; k],
        1 => (0..k).map(|d| output[d] as f64 / input[d] as f64).collect(),
        _ => (0..k).map(|_| 0.2 + rng.unit() * 4.8).collect(),
    };
    if mode == 2 && rng.range(0, 3) == 0 {
        // Only some scales given.
        let d = rng.range(0, k as i64 - 1) as usize;
        scales[d] = 0.0;
    }
    match api {
        E3d if scales.iter().all(|&s| s > 0.0) => {
            // The scales must agree with outputSize: derive the sizes from them.
            for d in 0..k {
                let o = (input[d] as f64 * scales[d]) as i64;
                if o < 1 {
                    output[d] = input[d];
                    scales[d] = 1.0;
                } else {
                    output[d] = o;
                }
            }
        }
        E1dB | E2dB => {
            // Inverse scales must be >= 0.02 and scales not negative.
            for s in scales.iter_mut() {
                *s = s.max(0.0);
            }
            for d in 0..k {
                let inv = if scales[d] > 0.0 {
                    1.0 / scales[d]
                } else {
                    input[d] as f64 / output[d] as f64
                };
                if inv < 0.02 {
                    output[d] = input[d];
                    scales[d] = 0.0;
                }
            }
        }
        E3dB => {
            for d in 0..k {
                let real = if scales[d] > 0.0 {
                    scales[d]
                } else {
                    output[d] as f64 / input[d] as f64
                };
                if real > 50.0 {
                    output[d] = input[d];
                    scales[d] = 0.0;
                }
            }
        }
        _ => {}
    }
    Case {
        n,
        c,
        input,
        output,
        scales,
        dtype,
        format,
        cl,
    }
}

fn random_bits(dt: aclDataType, rng: &mut Rng) -> u64 {
    let b = rng.next();
    match esize(dt) {
        1 => b & 0xFF,
        2 => b & 0xFFFF,
        4 => b & 0xFFFF_FFFF,
        _ => b,
    }
}

fn check_forward(api: Api, case: &Case, rng: &mut Rng) {
    let Case {
        n,
        c,
        input,
        output,
        scales,
        dtype,
        format,
        cl,
    } = case;
    let mut lin = vec![*n, *c];
    lin.extend(input);
    let mut lout = vec![*n, *c];
    lout.extend(output);
    let src = Tensor::new(*dtype, *format, &lin, *cl, Some(rng));
    let dst = Tensor::new(*dtype, *format, &lout, *cl, Some(rng));
    for_each_index(&src.logical_dims(), |idx| {
        src.set_bits(idx, random_bits(*dtype, rng))
    });
    let before = dst.storage();
    let os = Arr::new(output);
    let is = Arr::new(&[]);
    let mut sc = scales.clone();
    if matches!(api, N1dV2 | N2dV2) {
        // The V2 scales are floats: the model sees what the API sees.
        sc = sc.iter().map(|&s| s as f32 as f64).collect();
    }
    let st = unsafe { call(api, src.t, &os, &is, &sc, dst.t) };
    assert_eq!(
        st, ACLNN_SUCCESS,
        "{api:?} in {input:?} out {output:?} scales {scales:?} dtype {dtype} fmt {format}"
    );
    let tabs = model_tables(api, input, output, &sc, *dtype, *cl, *c);
    let mut bad = 0;
    for_each_index(&dst.logical_dims(), |idx| {
        let mut s = idx.to_vec();
        for d in 0..tabs.len() {
            s[2 + d] = tabs[d][idx[2 + d]];
        }
        let (want, got) = (src.get_bits(&s), dst.get_bits(idx));
        if want != got && bad < 5 {
            bad += 1;
            eprintln!("{api:?} {idx:?}: want {want:#x} (from {s:?}) got {got:#x}; in {input:?} out {output:?} scales {sc:?} dtype {dtype} fmt {format}");
        }
    });
    assert_eq!(bad, 0);
    let after = dst.storage();
    let view = dst.view_elements();
    let es = esize(*dtype);
    for (e, inside) in view.iter().enumerate() {
        if !inside {
            assert_eq!(
                before[e * es..(e + 1) * es],
                after[e * es..(e + 1) * es],
                "{api:?} wrote outside the out view"
            );
        }
    }
}

fn check_backward(api: Api, case: &Case, rng: &mut Rng) {
    let Case {
        n,
        c,
        input,
        output,
        scales,
        dtype,
        format,
        cl,
    } = case;
    let k = input.len();
    let mut lin = vec![*n, *c];
    lin.extend(input);
    let mut lout = vec![*n, *c];
    lout.extend(output);
    let g = Tensor::new(*dtype, *format, &lout, *cl, Some(rng));
    let gi = Tensor::new(*dtype, *format, &lin, *cl, Some(rng));
    for_each_index(&g.logical_dims(), |idx| {
        g.set_f64(
            idx,
            (rng.unit() * 8.0 - 4.0) * if rng.coin() { 1.0 } else { 1e-3 },
        )
    });
    let os = Arr::new(output);
    // inputSize: N, C, spatial — except 2dBackward with NHWC gradOut: N, H, W, C.
    let isz: Vec<i64> = if api == N2dB && *cl {
        vec![*n, input[0], input[1], *c]
    } else {
        lin.clone()
    };
    let is = Arr::new(&isz);
    let st = unsafe { call(api, g.t, &os, &is, scales, gi.t) };
    assert_eq!(
        st, ACLNN_SUCCESS,
        "{api:?} in {input:?} out {output:?} scales {scales:?} dtype {dtype} fmt {format}"
    );
    let tabs = model_tables(api, input, output, scales, *dtype, *cl, *c);
    // PyTorch cpu_upsample_nearest_backward: zeroed accumulator per (n, c) plane, outputs in
    // increasing (od, oh, ow) order, `acc[src] += grad`, one rounding at the end.
    let in_plane: usize = input.iter().map(|&x| x as usize).product();
    let mut bad = 0;
    for nn in 0..*n as usize {
        for cc in 0..*c as usize {
            let mut acc32 = vec![0f32; in_plane];
            let mut acc64 = vec![0f64; in_plane];
            let odims: Vec<usize> = output.iter().map(|&x| x as usize).collect();
            for_each_index(&odims, |o| {
                let mut lin_i = 0usize;
                for d in 0..k {
                    lin_i = lin_i * input[d] as usize + tabs[d][o[d]];
                }
                let mut full = vec![nn, cc];
                full.extend_from_slice(o);
                let v = g.get_f64(&full);
                acc32[lin_i] += v as f32;
                acc64[lin_i] += v;
            });
            let idims: Vec<usize> = input.iter().map(|&x| x as usize).collect();
            let mut p = 0usize;
            for_each_index(&idims, |i| {
                let mut full = vec![nn, cc];
                full.extend_from_slice(i);
                let want = if *dtype == ACL_DOUBLE {
                    acc64[p].to_bits()
                } else {
                    from_f64(*dtype, acc32[p] as f64)
                };
                let got = gi.get_bits(&full);
                if want != got && bad < 5 {
                    bad += 1;
                    eprintln!("{api:?} {full:?}: want {want:#x} got {got:#x}; in {input:?} out {output:?} scales {scales:?} dtype {dtype} fmt {format}");
                }
                p += 1;
            });
        }
    }
    assert_eq!(bad, 0);
}

fn run_many(api: Api, cases: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    for _ in 0..cases {
        let case = random_case(api, &mut rng);
        if api.backward() {
            check_backward(api, &case, &mut rng);
        } else {
            check_forward(api, &case, &mut rng);
        }
    }
}

#[test]
fn forward_nearest_1d() {
    run_many(N1d, 120, 1);
    run_many(N1dV2, 200, 2);
}

#[test]
fn forward_nearest_2d() {
    run_many(N2d, 80, 3);
    run_many(N2dV2, 200, 4);
}

#[test]
fn forward_nearest_3d() {
    run_many(N3d, 120, 5);
}

#[test]
fn forward_exact() {
    run_many(E1d, 150, 6);
    run_many(E2d, 100, 7);
    run_many(E3d, 100, 8);
}

#[test]
fn backward_nearest() {
    run_many(N1dB, 150, 9);
    run_many(N2dB, 80, 10);
    run_many(N3dB, 80, 11);
}

#[test]
fn backward_exact() {
    run_many(E1dB, 150, 12);
    run_many(E2dB, 80, 13);
    run_many(E3dB, 80, 14);
}

/// The model itself reproduces the spec's hand-derived vectors (§8).
#[test]
fn model_matches_spec_vectors() {
    let t = |api, i: i64, o: i64, s: f64| {
        model_tables(api, &[i], &[o], &[s], ACL_FLOAT, false, 1)[0].clone()
    };
    assert_eq!(t(N1d, 5, 3, 0.0), [0, 1, 3]);
    assert_eq!(t(E1d, 5, 3, 0.0), [0, 2, 4]);
    assert_eq!(t(N1dV2, 4, 6, 1.5), [0, 0, 1, 2, 2, 3]);
    assert_eq!(t(N1dB, 2, 82, 0.0)[41], 0);
    let w = model_tables(N2dV2, &[4, 4], &[8, 8], &[1.0, 3.0], ACL_FLOAT, false, 1);
    assert_eq!(w[1], [0, 0, 1, 1, 2, 2, 3, 3]);
}
