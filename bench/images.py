#!/usr/bin/env python3
"""Channels-last image resizes: libresample (through its oneDNN 2.6 C API, via ctypes)
against OpenCV's cv2.resize and PyTorch's interpolate, in one process, alternating rounds,
median per call.

    cargo build --release --lib
    python3 bench/images.py [--threads N] [--rounds R] [--lib target/release/libresample.so]
                            [FILTER...]

Peers (all writing into preallocated outputs): cv2.resize INTER_LINEAR / INTER_NEAREST
(nearest is floor-based there: timing only), torch aten upsample_bilinear2d /
upsample_nearest2d .out on channels_last tensors (skipped when torch does not import or
refuses the dtype). The ratio column is best peer / ours
(> 1: we are faster).
"""
import argparse
import ctypes as C
import os
import statistics
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--rounds", type=int, default=7)
ap.add_argument("--min-time", type=float, default=0.05, help="seconds per round and library")
ap.add_argument("--lib", default=os.path.join(os.path.dirname(__file__), "..", "target",
                                              "release", "libresample.so"))
ap.add_argument("filters", nargs="*")
args = ap.parse_args()
# Both our pool and the peers read their thread count before their first parallel call.
os.environ["OMP_NUM_THREADS"] = str(args.threads)

import numpy as np  # noqa: E402
import cv2  # noqa: E402

cv2.setNumThreads(args.threads)
try:
    import torch  # noqa: E402
    import torch.nn.functional as F  # noqa: E402

    torch.set_num_threads(args.threads)
except Exception:  # torch is optional
    torch = None

# oneDNN 2.6 ABI constants (dnnl_types.h).
DT = {"f32": 3, "u8": 6, "bf16": 2}
TAG = {4: 20, 3: 4, 5: 0}  # acdb (nhwc); others unused here
ALG = {"linear": 0x2FFF1, "nearest": 0x2FFF0}
FWD_TRAINING, CPU, ARG_SRC, ARG_DST = 64, 1, 1, 17

lib = C.CDLL(os.path.abspath(args.lib))
vp = C.c_void_p


class ExecArg(C.Structure):
    _fields_ = [("arg", C.c_int), ("memory", vp)]


def check(st, what):
    if st != 0:
        raise RuntimeError(f"{what}: status {st}")


class Ours:
    """One libresample primitive for an NHWC resize of `src` (H, W, C) to (oh, ow)."""

    def __init__(self, alg, src, oh, ow):
        h, w, c = src.shape
        dt = DT["u8" if src.dtype == np.uint8 else "f32"]
        self.eng, self.st = vp(), vp()
        check(lib.dnnl_engine_create(C.byref(self.eng), CPU, C.c_size_t(0)), "engine")
        check(lib.dnnl_stream_create(C.byref(self.st), self.eng, 0), "stream")
        mds = []
        for dims in ((1, c, h, w), (1, c, oh, ow)):
            md = C.create_string_buffer(4096)
            d = (C.c_int64 * 12)(*dims)
            check(lib.dnnl_memory_desc_init_by_tag(md, 4, d, dt, TAG[4]), "md")
            mds.append(md)
        rd = C.create_string_buffer(8192)
        check(lib.dnnl_resampling_forward_desc_init(rd, FWD_TRAINING, ALG[alg], None, mds[0],
                                                    mds[1]), "desc")
        self.pd, self.prim = vp(), vp()
        check(lib.dnnl_primitive_desc_create(C.byref(self.pd), rd, None, self.eng, None), "pd")
        check(lib.dnnl_primitive_create(C.byref(self.prim), self.pd), "prim")
        self.src = src
        self.dst = np.zeros((oh, ow, c), dtype=src.dtype)
        self.mem = []
        for md, arr in ((mds[0], self.src), (mds[1], self.dst)):
            m = vp()
            check(lib.dnnl_memory_create(C.byref(m), md, self.eng,
                                         vp(arr.ctypes.data)), "memory")
            self.mem.append(m)
        self.args = (ExecArg * 2)(ExecArg(ARG_SRC, self.mem[0]), ExecArg(ARG_DST, self.mem[1]))

    def __call__(self):
        check(lib.dnnl_primitive_execute(self.prim, self.st, 2, self.args), "execute")
        check(lib.dnnl_stream_wait(self.st), "wait")
        return self.dst


def peers(alg, src, oh, ow):
    """Peers writing into preallocated outputs (no page faults timed)."""
    out = {}
    interp = cv2.INTER_LINEAR if alg == "linear" else cv2.INTER_NEAREST
    d = np.empty((oh, ow, src.shape[2]), dtype=src.dtype)
    out["opencv"] = lambda: cv2.resize(src, (ow, oh), dst=d, interpolation=interp)
    if torch is not None:
        aten = torch.ops.aten
        x = torch.from_numpy(src).permute(2, 0, 1).unsqueeze(0)  # NCHW view, channels_last
        y = torch.empty((1, src.shape[2], oh, ow), dtype=x.dtype).to(
            memory_format=torch.channels_last)
        if alg == "linear":
            f = lambda: aten.upsample_bilinear2d.out(x, (oh, ow), False, None, None, out=y)  # noqa
        else:
            f = lambda: aten.upsample_nearest2d.out(x, (oh, ow), None, None, out=y)  # noqa
        try:
            f()
            out["torch"] = f
        except Exception as e:  # e.g. a dtype torch does not resize
            print(f"  torch skipped: {e}", file=sys.stderr)
    return out


def timeit(f, min_time):
    n, t0 = 0, time.perf_counter()
    while True:
        f()
        n += 1
        dt = time.perf_counter() - t0
        if dt >= min_time and n >= 2:
            return dt / n


PROBLEMS = [
    ("linear", "f32", 3, 1080, 1920, 2160, 3840),
    ("linear", "u8", 3, 1080, 1920, 2160, 3840),
    ("linear", "f32", 3, 2160, 3840, 1080, 1920),
    ("linear", "u8", 3, 2160, 3840, 1080, 1920),
    ("linear", "f32", 3, 720, 1280, 1080, 1920),
    ("linear", "u8", 3, 720, 1280, 1080, 1920),
    ("linear", "u8", 4, 720, 1280, 1080, 1920),
    ("linear", "u8", 1, 1080, 1920, 2160, 3840),
    ("nearest", "u8", 3, 1080, 1920, 2160, 3840),
    ("nearest", "f32", 3, 720, 1280, 1080, 1920),
    ("nearest", "u8", 3, 2160, 3840, 1080, 1920),
]

print(f"threads={args.threads} rounds={args.rounds} torch={'yes' if torch else 'no'} "
      f"cv2={cv2.__version__}")
# Memory roofline: memcpy bandwidth (bytes read + written per second) of a large copy.
mc_a = np.ones(64 << 20, dtype=np.uint8)
mc_b = np.empty_like(mc_a)
mc_t = statistics.median(timeit(lambda: np.copyto(mc_b, mc_a), args.min_time)
                         for _ in range(args.rounds))
bw = 2 * mc_a.nbytes / mc_t
print(f"memcpy bandwidth {bw / 1e9:.1f} GB/s (read + write); roof% = (in + out bytes) / bw "
      f"/ ours time")
print(f"{'problem':44} {'ours ms':>8} {'opencv':>8} {'torch':>8} {'best/ours':>9} "
      f"{'roof%':>6}")
rng = np.random.default_rng(1)
for alg, dt, c, ih, iw, oh, ow in PROBLEMS:
    name = f"{alg}_nhwc_{dt}_c{c}_{ih}x{iw}->{oh}x{ow}"
    if args.filters and not any(f in name for f in args.filters):
        continue
    if dt == "u8":
        src = rng.integers(0, 256, (ih, iw, c), dtype=np.uint8)
    else:
        src = rng.random((ih, iw, c), dtype=np.float32)
    ours = Ours(alg, src, oh, ow)
    libs = {"ours": ours}
    libs.update(peers(alg, src, oh, ow))
    times = {k: [] for k in libs}
    for r in range(args.rounds):
        order = list(libs) if r % 2 == 0 else list(reversed(libs))
        for k in order:
            times[k].append(timeit(libs[k], args.min_time))
    med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    best = min(v for k, v in med.items() if k != "ours")
    cell = lambda k: f"{med[k]:8.2f}" if k in med else f"{'-':>8}"  # noqa: E731
    roof = (src.nbytes + ours.dst.nbytes) / bw * 1e3 / med["ours"] * 100
    print(f"{name:44} {cell('ours')} {cell('opencv')} {cell('torch')} "
          f"{best / med['ours']:9.2f} {roof:6.0f}", flush=True)
