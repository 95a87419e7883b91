#!/usr/bin/env python3
"""Peer benchmark: libresample against every library a user could pick instead, side by side
in ONE process, on the same problems and the same input.

    python3 bench/peers.py                  # build, then all problems at 1 thread and at all cores
    python3 bench/peers.py --threads 1      # one thread count only
    python3 bench/peers.py --quick nhwc     # fewer rounds, only problems whose name has "nhwc"
    python3 bench/peers.py --save           # also write bench/results/peers_{1thread,all}.md

Peers (each skipped with a notice when it cannot be loaded):
  dnnl2.6  libdnnl.so.2 (apt libdnnl-dev), oneDNN 2.x C API
  dnnl3    libdnnl.so.3 of the onednn-cpu-gomp wheel, oneDNN 3.x C API
  torch    PyTorch CPU, the aten `.out` / `.grad_input` variants into preallocated tensors
  cv2      OpenCV cv2.resize on HWC images (N = 1, channels-last, 2-D; f32 and u8)
  ort      ONNX Runtime CPU Resize (opset 18, IO binding), on the DirectML-style problems
libresample ("ours") runs through the face the problem names: the oneDNN 2.6 API, DirectML
(RESAMPLE2 / RESAMPLE3) or Ascend aclnn. The C libraries are driven by a small C harness
(bench/harness/*.c -> target/bench/libharness.so) that dlopen()s each with RTLD_LOCAL and
resolves its entry points into a table of its own; Python times torch / cv2 / ORT itself.

Timing: every peer of a problem is measured in alternating rounds (an untimed execution, a
block of ~20 ms of individually timed executions, a short pause so that its worker threads
fall asleep, then the next peer; the peer order rotates every round). A cell is the median
execution time over all rounds. `best/ours` = fastest peer's time / ours (> 1: libresample is
faster). `roofline` = (bytes read + bytes written) / ours' time, as a percentage of the memcpy
bandwidth measured in the same run (a buffer larger than the last-level cache, split over the
same number of threads). `maxdiff` = the largest |peer - ours| over all peers, relative to
max |ours| (a sanity check; peers with other rounding or other index rules show up here).
"""
import argparse
import ctypes
import math
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARNESS = os.path.join(ROOT, "target", "bench", "libharness.so")
OURS = os.path.join(ROOT, "target", "release", "libresample.so")
# libdnnl.so.3 of this project (crates/dnnl3): the "ours v3" column runs the oneDNN 3.x
# backend against it, as the dnnl3 column does against the wheel; never a "best peer".
OURS3 = os.path.join(ROOT, "target", "release", "libdnnl3.so")

# ----------------------------------------------------------------------------------------
# Problems


class Problem:
    """Shapes are the forward shapes (N, C, spatial...). face: how libresample is called."""

    def __init__(self, name, bwd, alg, dt, layout, inn, out, face="onednn"):
        self.name, self.bwd, self.alg, self.dt, self.layout = name, bwd, alg, dt, layout
        self.inn, self.out, self.face = tuple(inn), tuple(out), face
        self.ndims = len(self.inn)

    @property
    def src_shape(self):  # what the operation reads (diff_dst for backward)
        return self.out if self.bwd else self.inn

    @property
    def dst_shape(self):
        return self.inn if self.bwd else self.out


def P(name, bwd, alg, dt, layout, n, c, sin, sout, face="onednn"):
    return Problem(name, bwd, alg, dt, layout, (n, c) + tuple(sin), (n, c) + tuple(sout), face)


F, B = 0, 1
NN, LIN, AA = "nearest", "linear", "linear_aa"
PL, CL, BL = "plain", "clast", "block16"

PROBLEMS = [
    # ---- issue 8 workloads ----
    P("fwd_nearest_nchw_f32_mb8ic64_56to112", F, NN, "f32", PL, 8, 64, (56, 56), (112, 112)),
    P("fwd_nearest_nhwc_f32_mb8ic64_56to112", F, NN, "f32", CL, 8, 64, (56, 56), (112, 112)),
    P("fwd_linear_nchw_f32_mb8ic64_56to112", F, LIN, "f32", PL, 8, 64, (56, 56), (112, 112)),
    P("fwd_linear_nhwc_f32_mb8ic64_56to112", F, LIN, "f32", CL, 8, 64, (56, 56), (112, 112)),
    P("fwd_linear_nChw16c_f32_mb8ic64_56to112", F, LIN, "f32", BL, 8, 64, (56, 56), (112, 112)),
    P("fwd_linear_nchw_f32_mb1ic3_1080x1920to2160x3840", F, LIN, "f32", PL, 1, 3, (1080, 1920),
      (2160, 3840)),
    P("img_linear_hwc_f32_1080x1920x3to2160x3840", F, LIN, "f32", CL, 1, 3, (1080, 1920),
      (2160, 3840)),
    P("img_linear_hwc_u8_1080x1920x3to2160x3840", F, LIN, "u8", CL, 1, 3, (1080, 1920),
      (2160, 3840)),
    P("img_nearest_hwc_f32_1080x1920x3to2160x3840", F, NN, "f32", CL, 1, 3, (1080, 1920),
      (2160, 3840)),
    P("img_nearest_hwc_u8_1080x1920x3to2160x3840", F, NN, "u8", CL, 1, 3, (1080, 1920),
      (2160, 3840)),
    P("fwd_linear_nchw_f32_mb8ic64_112to56", F, LIN, "f32", PL, 8, 64, (112, 112), (56, 56)),
    P("fwd_linear_ncdhw_f32_mb2ic32_16to32", F, LIN, "f32", PL, 2, 32, (16, 16, 16),
      (32, 32, 32)),
    P("bwd_nearest_nchw_f32_mb8ic64_56to112", B, NN, "f32", PL, 8, 64, (56, 56), (112, 112)),
    P("bwd_linear_nchw_f32_mb8ic64_56to112", B, LIN, "f32", PL, 8, 64, (56, 56), (112, 112)),
    P("bwd_linear_nhwc_f32_mb8ic64_56to112", B, LIN, "f32", CL, 8, 64, (56, 56), (112, 112)),
    P("tiny_linear_nchw_f32_mb1ic16_4to8", F, LIN, "f32", PL, 1, 16, (4, 4), (8, 8)),
    P("fwd_linear_nhwc_bf16_mb4ic48_20x32to40x64", F, LIN, "bf16", CL, 4, 48, (20, 32),
      (40, 64)),
    # ---- the DirectML face (half-pixel offsets, as ORT's DirectML provider builds Resize) ----
    P("dml_resample2_linear_4d_1x3x1080x1920to2160x3840", F, LIN, "f32", PL, 1, 3,
      (1080, 1920), (2160, 3840), face="dml"),
    P("dml_resample2_linear_3d_3x1080x1920to2160x3840", F, LIN, "f32", PL, 1, 3, (1080, 1920),
      (2160, 3840), face="dml3d"),
    P("dml_resample3_aa_1x3x512x512to128x128", F, AA, "f32", PL, 1, 3, (512, 512), (128, 128),
      face="dml"),
    P("dml_resample3_aa_hwc_512x512x3to128x128", F, AA, "f32", CL, 1, 3, (512, 512),
      (128, 128), face="dml"),
    # ---- the Ascend face (PyTorch's legacy nearest: src = floor(dst * in / out)) ----
    P("acl_bwd_nearest2d_nchw_mb8ic64_56to56", B, NN, "f32", PL, 8, 64, (56, 56), (56, 56),
      face="acl"),
    P("acl_bwd_nearest2d_nchw_mb8ic64_112to56", B, NN, "f32", PL, 8, 64, (112, 112),
      (56, 56), face="acl"),
    # (the "112->56" may mean gradOut 112 -> gradInput 56: the forward 56 -> 112)
    P("acl_bwd_nearest2d_nchw_mb8ic64_56to112", B, NN, "f32", PL, 8, 64, (56, 56), (112, 112),
      face="acl"),
    P("acl_fwd_nearest2d_nchw_mb8ic64_56to112", F, NN, "f32", PL, 8, 64, (56, 56), (112, 112),
      face="acl"),
    # ---- bench_onednn.c's benchdnn-style shapes ----
    P("fwd_linear_nchw_f32_mb1ic3_ih227oh350_iw227ow350", F, LIN, "f32", PL, 1, 3,
      (227, 227), (350, 350)),
    P("fwd_linear_nchw_f32_mb1ic3_ih427oh800_iw640ow800", F, LIN, "f32", PL, 1, 3,
      (427, 640), (800, 800)),
    P("fwd_nearest_nhwc_f32_mb2ic1280_ih12oh24_iw12ow24", F, NN, "f32", CL, 2, 1280,
      (12, 12), (24, 24)),
    P("fwd_nearest_nchw_f32_mb8ic256_ih32oh64_iw32ow64", F, NN, "f32", PL, 8, 256, (32, 32),
      (64, 64)),
    P("fwd_nearest_nhwc_f32_mb8ic256_ih32oh64_iw32ow64", F, NN, "f32", CL, 8, 256, (32, 32),
      (64, 64)),
    P("fwd_linear_nchw_f32_mb8ic256_ih32oh64_iw32ow64", F, LIN, "f32", PL, 8, 256, (32, 32),
      (64, 64)),
    P("fwd_linear_nhwc_f32_mb8ic256_ih32oh64_iw32ow64", F, LIN, "f32", CL, 8, 256, (32, 32),
      (64, 64)),
    P("fwd_nearest_nchw_f32_mb1ic256_ih34oh68_iw25ow50", F, NN, "f32", PL, 1, 256, (34, 25),
      (68, 50)),
    P("fwd_linear_nhwc_f32_mb4ic40_ih40oh80_iw64ow128", F, LIN, "f32", CL, 4, 40, (40, 64),
      (80, 128)),
    P("fwd_linear_ncw_f32_mb16ic64_iw32ow64", F, LIN, "f32", PL, 16, 64, (32,), (64,)),
    P("fwd_nearest_nwc_f32_mb16ic64_iw32ow64", F, NN, "f32", CL, 16, 64, (32,), (64,)),
    P("fwd_linear_ncw_f32_mb1ic32_iw151ow300", F, LIN, "f32", PL, 1, 32, (151,), (300,)),
    P("fwd_linear_ncdhw_f32_mb2ic32_id16od32_ih16oh32_iw16ow32", F, LIN, "f32", PL, 2, 32,
      (16, 16, 16), (32, 32, 32)),
    P("fwd_linear_ndhwc_f32_mb2ic32_id16od32_ih16oh32_iw16ow32", F, LIN, "f32", CL, 2, 32,
      (16, 16, 16), (32, 32, 32)),
    P("fwd_nearest_ndhwc_f32_mb4ic16_id6od12_ih6oh6_iw6ow3", F, NN, "f32", CL, 4, 16,
      (6, 6, 6), (12, 6, 3)),
    P("fwd_linear_nchw_f32_mb1ic256_ih136oh68_iw100ow50", F, LIN, "f32", PL, 1, 256,
      (136, 100), (68, 50)),
    P("fwd_linear_nhwc_f32_mb8ic64_ih112oh75_iw112ow75", F, LIN, "f32", CL, 8, 64, (112, 112),
      (75, 75)),
    P("fwd_nearest_nchw_f32_mb8ic64_ih112oh56_iw112ow56", F, NN, "f32", PL, 8, 64, (112, 112),
      (56, 56)),
    P("fwd_nearest_nhwc_bf16_mb8ic1280_ih8oh16_iw8ow16", F, NN, "bf16", CL, 8, 1280, (8, 8),
      (16, 16)),
    # (fwd_linear_nhwc_bf16_mb4ic48_ih20oh40_iw32ow64 is the bf16 row above)
    P("fwd_linear_nchw_bf16_mb8ic256_ih32oh64_iw32ow64", F, LIN, "bf16", PL, 8, 256, (32, 32),
      (64, 64)),
    P("bwd_linear_nchw_f32_mb8ic256_ih32oh64_iw32ow64", B, LIN, "f32", PL, 8, 256, (32, 32),
      (64, 64)),
    P("bwd_linear_nhwc_f32_mb4ic40_ih40oh80_iw64ow128", B, LIN, "f32", CL, 4, 40, (40, 64),
      (80, 128)),
    P("bwd_nearest_nchw_f32_mb8ic256_ih32oh64_iw32ow64", B, NN, "f32", PL, 8, 256, (32, 32),
      (64, 64)),
    P("bwd_nearest_nhwc_f32_mb2ic256_ih50oh100_iw50ow100", B, NN, "f32", CL, 2, 256, (50, 50),
      (100, 100)),
    P("bwd_linear_nhwc_bf16_mb4ic48_ih20oh40_iw32ow64", B, LIN, "bf16", CL, 4, 48, (20, 32),
      (40, 64)),
    P("bwd_linear_ncdhw_f32_mb2ic16_id8od16_ih8oh16_iw8ow16", B, LIN, "f32", PL, 2, 16,
      (8, 8, 8), (16, 16, 16)),
]



def random_problems(count, seed):
    """`count` random oneDNN-face problems (the space an independent suite samples): forward
    and backward, nearest and linear, 1-3 spatial axes, plain / channels-last / nChw16c,
    f32 / bf16 / u8 (forward), ratios 1/3..3, 10^3..10^7 elements per tensor"""
    import random
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        bwd = rng.random() < 0.35
        alg = rng.choice([NN, LIN])
        nsp = rng.choice([1, 2, 2, 2, 3])
        layout = rng.choice([PL, PL, CL, CL, BL])
        dt = rng.choice(["f32", "f32", "bf16"] + ([] if bwd else ["u8"]))
        c = rng.choice([1, 3, 4, 8, 16, 17, 32, 48, 64, 96, 128, 256, 512])
        if layout == BL:
            c = max(16, c // 16 * 16)
        n = rng.choice([1, 1, 2, 4, 8])
        target = 10 ** rng.uniform(3, 7) / (n * c)  # spatial points of the larger side
        side = max(1.0, target ** (1.0 / nsp))
        inn, outs = [], []
        for _ in range(nsp):
            r = rng.choice([0.5, 2.0, 2.0, 3.0, 1 / 3, rng.uniform(1 / 3, 3)])
            big = max(2, int(side * rng.uniform(0.6, 1.4)))
            small = max(1, int(round(big / max(r, 1 / r))))
            i, o = (small, big) if r >= 1 else (big, small)
            inn.append(i)
            outs.append(o)
        lt = {PL: "ncx", CL: "nxc", BL: "nCx16c"}[layout]
        name = (f"rnd{len(out)}_{'bwd' if bwd else 'fwd'}_{alg}_{lt}_{dt}_mb{n}ic{c}_"
                f"{'x'.join(map(str, inn))}to{'x'.join(map(str, outs))}")
        out.append(P(name, B if bwd else F, alg, dt, layout, n, c, inn, outs))
    return out


# ----------------------------------------------------------------------------------------
# Buffers: numpy arrays in the problem's physical layout

NP_DT = {"f32": np.float32, "bf16": np.uint16, "u8": np.uint8}
# largest max|peer - ours| / max|ours| still counted as the same result: f32 peers differ in
# how they round coordinates (~1e-5), bf16 by an ulp (2^-8), u8 by one level
TOLERANCE = {"f32": 1e-3, "bf16": 1e-2, "u8": 1.01 / 255}


def physical(x, layout):
    """logical (N, C, spatial...) -> contiguous array in `layout`"""
    if layout == PL:
        return np.ascontiguousarray(x)
    if layout == CL:
        return np.ascontiguousarray(np.moveaxis(x, 1, -1))
    n, c = x.shape[:2]
    assert c % 16 == 0
    return np.ascontiguousarray(np.moveaxis(x.reshape((n, c // 16, 16) + x.shape[2:]), 2, -1))


def logical(buf, layout):
    """inverse of physical(): a (possibly strided) logical view"""
    if layout == PL:
        return buf
    if layout == CL:
        return np.moveaxis(buf, -1, 1)
    x = np.moveaxis(buf, -1, 2)
    return x.reshape((x.shape[0], x.shape[1] * 16) + x.shape[3:])


def phys_shape(shape, layout):
    if layout == PL:
        return shape
    if layout == CL:
        return (shape[0],) + shape[2:] + (shape[1],)
    return (shape[0], shape[1] // 16) + shape[2:] + (16,)


def to_f64(a, dt):
    if dt == "bf16":
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


def aligned_zeros(shape, dtype, align=64):
    """zeroed array whose data is `align`-byte aligned: oneDNN's JIT kernels use aligned
    (non-temporal) stores and fault on the 16-byte alignment numpy gives by default"""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape)) * dtype.itemsize
    raw = np.zeros(n + align, dtype=np.uint8)
    off = (-raw.ctypes.data) % align
    return raw[off:off + n].view(dtype).reshape(shape)


def make_input(p, seed):
    rng = np.random.default_rng(seed)
    shape = p.src_shape
    if p.dt == "u8":
        x = rng.integers(0, 256, size=shape, dtype=np.uint8)
    else:
        x = rng.uniform(-1, 1, size=shape).astype(np.float32)
        if p.dt == "bf16":  # round to nearest even
            u = x.view(np.uint32)
            x = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    x = physical(x, p.layout)
    a = aligned_zeros(x.shape, x.dtype)
    a[...] = x
    return a


def empty_like_dst(p):
    return aligned_zeros(phys_shape(p.dst_shape, p.layout), NP_DT[p.dt])


# ----------------------------------------------------------------------------------------
# C harness


class HProb(ctypes.Structure):
    _fields_ = [("bwd", ctypes.c_int32), ("alg", ctypes.c_int32), ("dt", ctypes.c_int32),
                ("layout", ctypes.c_int32), ("ndims", ctypes.c_int32), ("face", ctypes.c_int32),
                ("inn", ctypes.c_int64 * 5), ("out", ctypes.c_int64 * 5)]


class Harness:
    API = {"dnnl2": 2, "dnnl3": 3, "dml": 10, "acl": 11}

    def __init__(self, path):
        h = ctypes.CDLL(path)
        h.h_open.restype = ctypes.c_void_p
        h.h_open.argtypes = [ctypes.c_int, ctypes.c_char_p]
        h.h_setup.restype = ctypes.c_void_p
        h.h_setup.argtypes = [ctypes.c_void_p, ctypes.POINTER(HProb), ctypes.c_void_p,
                              ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]
        h.h_run.restype = ctypes.c_double
        h.h_run.argtypes = [ctypes.c_void_p, ctypes.c_int]
        h.h_run_samples.restype = ctypes.c_int
        h.h_run_samples.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
        h.h_free.argtypes = [ctypes.c_void_p]
        h.h_impl.restype = ctypes.c_char_p
        h.h_impl.argtypes = [ctypes.c_void_p]
        h.h_error.restype = ctypes.c_char_p
        h.h_memcpy_bw.restype = ctypes.c_double
        h.h_memcpy_bw.argtypes = [ctypes.c_size_t, ctypes.c_int, ctypes.c_int]
        self.h = h

    def open(self, api, path):
        lib = self.h.h_open(self.API[api], path.encode())
        if not lib:
            raise OSError(self.h.h_error().decode())
        return lib

    def error(self):
        return self.h.h_error().decode()


class Unavailable(Exception):
    """the peer cannot express this problem ("—") or refused it ("refused")"""

    def __init__(self, cell, why=""):
        super().__init__(why)
        self.cell = cell


class CPeer:
    """A problem set up in one C library; run(k) times k executions in C."""

    def __init__(self, H, lib, p, src, dst, face_code):
        hp = HProb(p.bwd, {NN: 0, LIN: 1, AA: 2}[p.alg], {"f32": 0, "bf16": 1, "u8": 2}[p.dt],
                   {PL: 0, CL: 1, BL: 2}[p.layout], p.ndims, face_code)
        for i in range(p.ndims):
            hp.inn[i], hp.out[i] = p.inn[i], p.out[i]
        self.H, self.src, self.dst = H, src, dst
        self.inst = H.h.h_setup(lib, ctypes.byref(hp), src.ctypes.data, src.nbytes,
                                dst.ctypes.data, dst.nbytes)
        if not self.inst:
            err = H.error()
            raise Unavailable("refused" if err.startswith("refused") else "error", err)
        self.impl = H.h.h_impl(self.inst).decode()

    def run(self, k):
        t = self.H.h.h_run(self.inst, k)
        if t < 0:
            raise RuntimeError("execution failed")
        return t

    def samples(self, k):
        buf = np.zeros(k, dtype=np.float64)
        if self.H.h.h_run_samples(self.inst, k, buf.ctypes.data):
            raise RuntimeError("execution failed")
        return buf.tolist()

    def output(self):
        return self.dst

    def close(self):
        if self.inst:
            self.H.h.h_free(self.inst)
            self.inst = None


class PyPeer:
    """A Python callable timed with perf_counter around a block of calls."""

    def __init__(self, fn, out_logical_f64, impl):
        self.fn, self.out_fn, self.impl = fn, out_logical_f64, impl

    def run(self, k):
        fn = self.fn
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        return time.perf_counter() - t0

    def samples(self, k):
        fn, clock, out = self.fn, time.perf_counter, []
        for _ in range(k):
            t0 = clock()
            fn()
            out.append(clock() - t0)
        return out

    def close(self):
        self.fn = None


# ----------------------------------------------------------------------------------------
# Python peers


def torch_peer(torch, p, src, threads):
    if p.layout == BL:
        raise Unavailable("—", "no blocked layouts")
    if p.alg == AA and (p.bwd or p.ndims != 4):
        raise Unavailable("—", "antialias is 2-D forward only")
    aten = torch.ops.aten
    tdt = {"f32": torch.float32, "bf16": torch.bfloat16, "u8": torch.uint8}[p.dt]
    s = src.view(np.int16) if p.dt == "bf16" else src
    x = torch.from_numpy(s)
    if p.dt == "bf16":
        x = x.view(torch.bfloat16)
    if p.layout == CL:
        x = x.movedim(-1, 1)  # logical view with channels-last strides
    mf = torch.contiguous_format
    if p.layout == CL:
        mf = torch.channels_last if p.ndims == 4 else (
            torch.channels_last_3d if p.ndims == 5 else torch.contiguous_format)
    if p.layout == CL and p.ndims == 3:
        y = torch.empty(phys_shape(p.dst_shape, CL), dtype=tdt).movedim(-1, 1)
    else:
        y = torch.empty(p.dst_shape, dtype=tdt).contiguous(memory_format=mf)
    osz, isz = list(p.out[2:]), list(p.inn)
    nsp = p.ndims - 2
    nones = [None] * nsp
    legacy = p.face == "acl"  # PyTorch's own nearest: floor(dst * scale)
    if not p.bwd:
        if p.alg == AA:
            op, args = aten._upsample_bilinear2d_aa.out, (x, osz, False, None, None)
        elif p.alg == LIN:
            op = {1: aten.upsample_linear1d.out, 2: aten.upsample_bilinear2d.out,
                  3: aten.upsample_trilinear3d.out}[nsp]
            args = (x, osz, False, *nones)
        else:
            op = ({1: aten.upsample_nearest1d.out, 2: aten.upsample_nearest2d.out,
                   3: aten.upsample_nearest3d.out} if legacy else
                  {1: aten._upsample_nearest_exact1d.out, 2: aten._upsample_nearest_exact2d.out,
                   3: aten._upsample_nearest_exact3d.out})[nsp]
            args = (x, osz, *nones)

        def fn():
            op(*args, out=y)
    else:
        if p.alg == LIN:
            op = {1: aten.upsample_linear1d_backward.grad_input,
                  2: aten.upsample_bilinear2d_backward.grad_input,
                  3: aten.upsample_trilinear3d_backward.grad_input}[nsp]
            args = (x, osz, isz, False, *nones)
        else:
            op = ({1: aten.upsample_nearest1d_backward.grad_input,
                   2: aten.upsample_nearest2d_backward.grad_input,
                   3: aten.upsample_nearest3d_backward.grad_input} if legacy else
                  {1: aten._upsample_nearest_exact1d_backward.grad_input,
                   2: aten._upsample_nearest_exact2d_backward.grad_input,
                   3: aten._upsample_nearest_exact3d_backward.grad_input})[nsp]
            args = (x, osz, isz, *nones)

        def fn():
            op(*args, grad_input=y)
    try:
        fn()
    except Exception as e:  # e.g. an unsupported dtype
        raise Unavailable("refused", str(e).splitlines()[0][:120])

    def out():
        return y.float().numpy().astype(np.float64)
    return PyPeer(fn, out, f"torch {op.__name__}")


def cv2_peer(cv2, p, src):
    if p.bwd or p.ndims != 4 or p.inn[0] != 1 or p.layout != CL or p.dt not in ("f32", "u8"):
        raise Unavailable("—", "cv2.resize takes HWC images")
    if p.inn[1] > 4:
        raise Unavailable("—", "not an image (C > 4)")
    oh, ow = p.out[2:]
    interp = {LIN: cv2.INTER_LINEAR, AA: cv2.INTER_AREA,
              NN: cv2.INTER_NEAREST if p.face == "acl" else cv2.INTER_NEAREST_EXACT}[p.alg]
    img = src[0]
    dst = aligned_zeros(phys_shape(p.out, CL), src.dtype)
    d = dst[0]

    def fn():
        cv2.resize(img, (ow, oh), dst=d, interpolation=interp)
    fn()
    name = {cv2.INTER_LINEAR: "INTER_LINEAR", cv2.INTER_AREA: "INTER_AREA",
            cv2.INTER_NEAREST: "INTER_NEAREST",
            cv2.INTER_NEAREST_EXACT: "INTER_NEAREST_EXACT"}[interp]
    return PyPeer(fn, lambda: to_f64(logical(dst, CL), p.dt), f"cv2.resize {name}")


def ort_peer(ort, p, src, threads):
    import onnx
    from onnx import TensorProto, helper
    if p.face not in ("dml", "dml3d") or p.bwd or p.dt != "f32" or p.layout == BL:
        raise Unavailable("—", "ORT Resize is run on the DirectML-style problems")
    xs = src.shape  # physical shape; Resize works on the array as stored
    ys = phys_shape(p.out, p.layout)
    if p.face == "dml3d":
        xs, ys = xs[1:], ys[1:]
    attrs = dict(mode="nearest" if p.alg == NN else "linear",
                 coordinate_transformation_mode="half_pixel")
    if p.alg == AA:
        attrs["antialias"] = 1
    sizes = helper.make_tensor("sizes", TensorProto.INT64, [len(ys)], list(ys))
    node = helper.make_node("Resize", ["X", "", "", "sizes"], ["Y"], **attrs)
    graph = helper.make_graph([node], "resize",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(xs))],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, list(ys))],
                              initializer=[sizes])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.checker.check_model(model)
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    try:
        sess = ort.InferenceSession(model.SerializeToString(), so,
                                    providers=["CPUExecutionProvider"])
    except Exception as e:
        raise Unavailable("refused", str(e).splitlines()[0][:120])
    x = src.reshape(xs)
    y = aligned_zeros(ys, np.float32)
    b = sess.io_binding()
    b.bind_cpu_input("X", x)
    b.bind_output("Y", "cpu", 0, np.float32, list(ys), y.ctypes.data)

    def fn():
        sess.run_with_iobinding(b)
    try:
        fn()
    except Exception as e:
        raise Unavailable("refused", str(e).splitlines()[0][:120])
    yl = y.reshape(phys_shape(p.out, p.layout))
    return PyPeer(fn, lambda: logical(yl, p.layout).astype(np.float64),
                  "onnxruntime Resize" + (" antialias" if p.alg == AA else ""))


# ----------------------------------------------------------------------------------------
# Measurement


def measure(peers, rounds, block, pause):
    """alternating rounds of ~`block`-second blocks of individually timed executions;
    returns {name: median seconds per execution over all rounds} (the median, not the mean,
    so that executions stalled by other processes on a shared machine do not count)"""
    per = {}
    for name, pr in peers.items():  # warm-up and calibration
        pr.run(1)
        t = pr.run(1)
        per[name] = max(1, min(100000, int(block / max(t, 1e-7))))
    samples = {name: [] for name in peers}
    names = list(peers)
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            pr, k = peers[name], per[name]
            if k > 1:
                pr.run(1)  # this library's threads and caches warm up again
            samples[name].extend(pr.samples(k))
            time.sleep(pause)
    return {name: statistics.median(s) for name, s in samples.items()}


def isa_line():
    flags = set()
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
                elif line.startswith("model name") and model == "?":
                    model = line.split(":", 1)[1].strip()
    except OSError:
        pass
    avx512 = sorted(f for f in flags if f.startswith("avx512"))
    isa = "AVX-512" if "avx512f" in flags else ("AVX2" if "avx2" in flags else "baseline")
    return f"{model}; {isa}" + (f" ({' '.join(avx512)})" if avx512 else "") + \
        ("; avx2 fma" if "avx2" in flags else "")


def fmt_ms(t):
    return f"{t * 1e3:.4f}" if t < 0.01 else f"{t * 1e3:.2f}"


def run_all(args, nthreads):
    H = Harness(HARNESS)
    libs, notices = {}, []
    ours_path = args.ours
    try:
        ours = {"onednn": ("dnnl2", H.open("dnnl2", ours_path)),
                "dml": ("dml", H.open("dml", ours_path)),
                "acl": ("acl", H.open("acl", ours_path))}
        ours["dml3d"] = ours["dml"]
    except OSError as e:
        sys.exit(f"cannot load libresample: {e}")
    for name, api, path in (("dnnl2.6", "dnnl2", args.dnnl2), ("dnnl3", "dnnl3", args.dnnl3),
                            ("ours v3", "dnnl3", args.ours3)):
        try:
            libs[name] = (api, H.open(api, path))
        except OSError as e:
            notices.append(f"{name} skipped: {e}")
    # torch after the C libraries: it brings its own OpenMP runtime and oneDNN (internal,
    # no exported dnnl_* symbols); loaded last, the dnnl_* tables above are already bound.
    mods = {}
    for mod in ("torch", "cv2", "onnxruntime"):
        if mod in args.skip:
            notices.append(f"{mod} skipped (--skip)")
            continue
        try:
            mods[mod] = __import__(mod)
        except Exception as e:
            notices.append(f"{mod} skipped: not importable ({type(e).__name__}: {e})")
    if "torch" in mods:
        mods["torch"].set_num_threads(nthreads)
    if "cv2" in mods:
        mods["cv2"].setNumThreads(nthreads)
    bw = H.h.h_memcpy_bw(args.memcpy_mb << 20, nthreads, 9)

    peer_names = ["dnnl2.6", "dnnl3", "torch", "cv2", "ort", "ours v3"]
    versions = []
    if "torch" in mods:
        versions.append(f"torch {mods['torch'].__version__}")
    if "cv2" in mods:
        versions.append(f"opencv {mods['cv2'].__version__}")
    if "onnxruntime" in mods:
        versions.append(f"onnxruntime {mods['onnxruntime'].__version__}")
    out = []

    def emit(line=""):
        print(line, flush=True)
        out.append(line)

    emit(f"# Peer benchmark, {'1 thread' if nthreads == 1 else f'{nthreads} threads (all cores)'}")
    emit()
    emit(f"- CPU: {isa_line()}; {os.cpu_count()} CPUs online")
    load = os.getloadavg()
    emit(f"- load average at start: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}" + (
        " — WARNING: the machine is busy; the ratios (all-cores ones especially: an OpenMP "
        "parallel region waits for its descheduled threads) are unreliable"
        if load[0] > 0.75 * (os.cpu_count() or 1) else ""))
    emit("- " + ", ".join(f"{v}={os.environ.get(v, '(unset)')}" for v in (
        "RESAMPLE_ISA", "DNNL_MAX_CPU_ISA", "OMP_NUM_THREADS", "NUMPY_MADVISE_HUGEPAGE",
        "OPENBLAS_NUM_THREADS")))
    emit(f"- memcpy bandwidth (read+write, {args.memcpy_mb} MiB buffer, {nthreads} thread(s)): "
         f"{bw / 1e9:.1f} GB/s")
    emit(f"- ours: {ours_path}; dnnl2.6: {args.dnnl2}; dnnl3: {args.dnnl3}; "
         f"ours v3 (the oneDNN 3.x API on this project's libdnnl.so.3): {args.ours3}")
    emit(f"- {', '.join(versions)}")
    emit(f"- {args.rounds} rounds of ~{args.block * 1e3:.0f} ms blocks per peer, median "
         "execution time; "
         "best/ours > 1: libresample is faster")
    for n in notices:
        emit(f"- NOTICE: {n}")
    emit()
    emit("| workload | ours ms | " + " | ".join(f"{n} ms" for n in peer_names) +
         " | best peer | best/ours | ours % roofline | maxdiff |")
    emit("|---|---:|" + "---:|" * len(peer_names) + "---|---:|---:|---:|")
    ratios, impls = [], []
    for k, p in enumerate(PROBLEMS):
        if args.filters and not any(f in p.name for f in args.filters):
            continue
        src = make_input(p, k)
        peers, cells = {}, {}
        try:
            api, lib = ours[p.face]
            face_code = 1 if p.face == "dml3d" else 0
            peers["ours"] = CPeer(H, lib, p, src, empty_like_dst(p), face_code)
        except Unavailable as e:
            emit(f"| {p.name} | {e.cell}: {e} |")
            continue
        for name in ("dnnl2.6", "dnnl3", "ours v3"):
            if name not in libs:
                cells[name] = "n/a"
                continue
            if p.alg == AA:
                cells[name] = "—"
                continue
            try:
                peers[name] = CPeer(H, libs[name][1], p, src, empty_like_dst(p), 0)
            except Unavailable as e:
                cells[name] = e.cell
        for name, mod, fn in (("torch", "torch", lambda m: torch_peer(m, p, src, nthreads)),
                              ("cv2", "cv2", lambda m: cv2_peer(m, p, src)),
                              ("ort", "onnxruntime", lambda m: ort_peer(m, p, src, nthreads))):
            if mod not in mods:
                cells[name] = "n/a"
                continue
            try:
                peers[name] = fn(mods[mod])
            except Unavailable as e:
                cells[name] = e.cell
            except Exception as e:  # a peer failing must not stop the run
                cells[name] = "error"
                notices.append(f"{p.name}: {name}: {type(e).__name__}: {e}")
        try:
            t = measure(peers, args.rounds, args.block, args.pause)
        except RuntimeError as e:
            emit(f"| {p.name} | error: {e} |")
            for pr in peers.values():
                pr.close()
            continue
        ref = to_f64(logical(peers["ours"].output(), p.layout), p.dt)
        scale = max(float(np.max(np.abs(ref))), 1e-30)
        diffs = {}
        for name, pr in peers.items():
            if name == "ours":
                continue
            if isinstance(pr, CPeer):
                o = to_f64(logical(pr.output(), p.layout), p.dt)
            else:
                o = pr.out_fn()
            diffs[name] = float(np.max(np.abs(o - ref))) / scale
        # a peer computing something else (another filter or index rule) is marked, not "best"
        same = {n for n, d in diffs.items() if d <= TOLERANCE[p.dt]}
        # "ours v3" is this project too: shown (its output checked), never the best peer
        rivals = same - {"ours v3"}
        for name in peer_names:
            if name in peers:
                cells[name] = fmt_ms(t[name]) + ("" if name in same else "*")
        best = min(rivals, key=lambda n: t[n], default=None)
        nbytes = src.nbytes + peers["ours"].dst.nbytes
        roof = nbytes / t["ours"] / bw * 100 if bw > 0 else float("nan")
        if best:
            ratio = t[best] / t["ours"]
            ratios.append(ratio)
            rcell = f"{ratio:.2f}"
        else:
            rcell = "—"
        worst = max(diffs, key=lambda n: diffs[n], default=None)
        dcell = "—" if worst is None else f"{diffs[worst]:.1e}" + (
            f" ({worst})" if diffs[worst] > 0 else "")
        emit(f"| {p.name} | {fmt_ms(t['ours'])} | " +
             " | ".join(cells.get(n, "—") for n in peer_names) +
             f" | {best or '—'} | {rcell} | {roof:.0f}% | {dcell} |")
        impls.append((p.name, {n: (pr.impl, diffs.get(n)) for n, pr in peers.items()}))
        for pr in peers.values():
            pr.close()
    emit()
    if ratios:
        g = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        emit(f"**Geometric mean of best/ours over {len(ratios)} workloads: {g:.2f}**")
        emit()
    emit("Cells: `—` the peer cannot express the workload; `refused` the peer declined it "
         "(e.g. a dtype it does not implement on this CPU); `n/a` the peer is not installed; "
         "`*` the peer's output differs from ours beyond rounding (another filter or index "
         "rule: timed, but not counted as best peer). Roofline above 100%: the working set "
         "fits in cache, the memcpy buffer does not.")
    if notices[len([n for n in notices if "skipped" in n]):]:
        emit()
        for n in notices:
            if "skipped" not in n:
                emit(f"- {n}")
    emit()
    emit("Implementations, and each peer's max |peer - ours| / max |ours|:")
    emit()
    for name, d in impls:
        emit(f"- {name}: " + "; ".join(
            f"{n} `{i}`" + ("" if df is None else f" {df:.1e}") for n, (i, df) in d.items()))
    return out


def wheel_file(dist, suffix):
    """the path of a file of an installed Python distribution (e.g. the oneDNN 3 wheels)"""
    try:
        import importlib.metadata as md
        for f in md.files(dist) or []:
            if str(f).endswith(suffix):
                return os.path.normpath(str(f.locate()))
    except Exception:
        pass
    return None


def dnnl3_include():
    h = wheel_file("onednn-devel-cpu-gomp", "oneapi/dnnl/dnnl.h")
    if h:
        return os.path.dirname(os.path.dirname(os.path.dirname(h)))
    return os.path.join(sys.prefix, "include")


def build(args):
    """cargo build --release, then target/bench/libharness.so; a oneDNN backend whose headers
    are missing is left out (its column then says n/a)"""
    if not args.no_cargo:
        subprocess.run(["cargo", "build", "--release", "--lib"], cwd=ROOT, check=True)
    os.makedirs(os.path.dirname(HARNESS), exist_ok=True)
    cc = os.environ.get("CC", "cc")
    hd = os.path.join(ROOT, "bench", "harness")
    units = [("harness.c", []), ("faces.c", ["-I" + os.path.join(ROOT, "include")])]
    if os.path.exists("/usr/include/oneapi/dnnl/dnnl.h"):
        units.append(("dnnl2.c", ["-I/usr/include"]))
    else:
        print("oneDNN 2.6 headers missing (apt-get install libdnnl-dev): dnnl2.6 left out")
    v3 = dnnl3_include()
    if os.path.exists(os.path.join(v3, "oneapi", "dnnl", "dnnl.h")):
        units.append(("dnnl3.c", ["-I" + v3]))
    else:
        print("oneDNN 3 headers missing (pip install onednn-devel-cpu-gomp): dnnl3 left out")
    objs = []
    for src, inc in units:
        obj = os.path.join(os.path.dirname(HARNESS), "h_" + src[:-2] + ".o")
        subprocess.run([cc, "-O2", "-Wall", "-Wextra", "-fPIC", *inc, "-c",
                        os.path.join(hd, src), "-o", obj], check=True)
        objs.append(obj)
    subprocess.run([cc, "-shared", "-o", HARNESS, *objs, "-ldl", "-lpthread"], check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("filters", nargs="*", help="run only workloads whose name contains one")
    ap.add_argument("--threads", choices=["1", "all"],
                    help="one thread count (default: 1, then all cores)")
    ap.add_argument("--quick", action="store_true", help="3 rounds of 10 ms blocks")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--block", type=float, default=0.02, help="seconds per timed block")
    ap.add_argument("--pause", type=float, default=0.01, help="seconds between blocks")
    ap.add_argument("--memcpy-mb", type=int, default=256)
    ap.add_argument("--save", action="store_true",
                    help="write bench/results/peers_1thread.md / peers_all.md")
    ap.add_argument("--skip", action="append", default=[],
                    help="do not load a Python peer (torch, cv2, onnxruntime)")
    ap.add_argument("--pages", choices=["4k", "huge"], default="4k",
                    help="page size of the benchmark's buffers: 4k (default; what a C "
                         "program's malloc gets under THP=madvise) or huge (numpy's own "
                         "default: transparent huge pages for arrays from 4 MiB)")
    ap.add_argument("--no-build", action="store_true", help="use the built libraries as they are")
    ap.add_argument("--no-cargo", action="store_true", help="build the harness only")
    ap.add_argument("--ours", default=os.environ.get("RESAMPLE_LIB", OURS))
    ap.add_argument("--dnnl2", default=os.environ.get("DNNL_LIB", "libdnnl.so.2"))
    ap.add_argument("--ours3", default=os.environ.get("RESAMPLE3_LIB", OURS3))
    ap.add_argument("--dnnl3", default=os.environ.get("DNNL3_LIB") or wheel_file(
        "onednn-cpu-gomp", "libdnnl.so.3") or os.path.join(sys.prefix, "lib", "libdnnl.so.3"))
    ap.add_argument("--random", type=int, metavar="N",
                    help="run N random problems (seeded by --seed) instead of the fixed list")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.random:
        PROBLEMS[:] = random_problems(args.random, args.seed)
    if args.quick:
        args.rounds, args.block = 3, 0.01
    allcpu = len(os.sched_getaffinity(0))
    if args.threads is None:
        if not args.no_build:
            build(args)
        rest = [a for a in sys.argv[1:]]
        rc = 0
        for t in ("1", "all"):
            rc |= subprocess.run([sys.executable, os.path.abspath(__file__), "--threads", t,
                                  "--no-build", *rest]).returncode
            print()
        sys.exit(rc)
    n = 1 if args.threads == "1" else allcpu
    # OpenMP runtimes read OMP_NUM_THREADS when they load, numpy NUMPY_MADVISE_HUGEPAGE when
    # it is imported: set them, then re-exec once. The page size moves results by up to 2x
    # (nearest nchw 8x64 112->56: ours 2.25 vs 2.58 ms, oneDNN 3.2 2.73 vs 2.13), so it is
    # fixed and printed.
    # numpy's own BLAS threads (OpenBLAS reads OMP_NUM_THREADS too) are no peer: left at
    # n they spin after numpy's calls and take a core from whichever library runs next
    # (DirectML antialias at 2 threads: 0.34 ms with them spinning, 0.25 without).
    hp = "1" if args.pages == "huge" else "0"
    if os.environ.get("OMP_NUM_THREADS") != str(n) or \
            os.environ.get("NUMPY_MADVISE_HUGEPAGE") != hp or \
            os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        if not args.no_build:
            build(args)
        env = dict(os.environ, OMP_NUM_THREADS=str(n), NUMPY_MADVISE_HUGEPAGE=hp,
                   OPENBLAS_NUM_THREADS="1")
        argv = [sys.executable, os.path.abspath(__file__), *sys.argv[1:], "--no-build"]
        os.execve(sys.executable, argv, env)
    out = run_all(args, n)
    if args.save:
        d = os.path.join(ROOT, "bench", "results")
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "peers_1thread.md" if n == 1 else "peers_all.md")
        with open(path, "w") as f:
            f.write("\n".join(out) + "\n")
        print(f"saved {path}")


if __name__ == "__main__":
    main()
