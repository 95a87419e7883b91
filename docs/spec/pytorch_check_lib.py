#!/usr/bin/env python3
"""Runs libresample's Ascend face itself (through ctypes) against PyTorch CPU:
1-D forward (aclnnUpsampleNearest1d: f32, f64; aclnnUpsampleNearestExact1d: f32) on arange(in)
for every in, out in [1, N] (default 200); 1-D nearest backward (f32, f64, random gradOut) for
every in, out in [1, min(N, 120)]; and 2dV2 100 -> 100 with scales 1.005. Prints how many
(in, out) pairs differ. The model-only version is pytorch_check.py.
Usage: cargo build --release; python3 docs/spec/pytorch_check_lib.py target/release/libresample.so [N]
(ATEN_CPU_CAPABILITY=default selects PyTorch's portable kernels.)
"""
import ctypes as C, numpy as np, torch, torch.nn.functional as F, sys
torch.set_num_threads(1)
L = C.CDLL(sys.argv[1])
P, I64, U64 = C.c_void_p, C.c_int64, C.c_uint64
L.aclCreateTensor.restype = P
L.aclCreateTensor.argtypes = [C.POINTER(I64), U64, C.c_int32, P, I64, C.c_int32, C.POINTER(I64), U64, P]
L.aclCreateIntArray.restype = P
L.aclCreateIntArray.argtypes = [C.POINTER(I64), U64]
L.aclDestroyTensor.argtypes = [P]; L.aclDestroyIntArray.argtypes = [P]
for n in ("aclnnUpsampleNearest1d", "aclnnUpsampleNearestExact1d", "aclnnUpsampleNearest2dV2", "aclnnUpsampleNearest1dBackward"):
    getattr(L, n).argtypes = [P, U64, P, P]
L.aclnnUpsampleNearest1dGetWorkspaceSize.argtypes = [P, P, P, C.POINTER(U64), C.POINTER(P)]
L.aclnnUpsampleNearestExact1dGetWorkspaceSize.argtypes = [P, P, C.c_double, P, C.POINTER(U64), C.POINTER(P)]
L.aclnnUpsampleNearest2dV2GetWorkspaceSize.argtypes = [P, P, C.c_float, C.c_float, P, C.POINTER(U64), C.POINTER(P)]
L.aclnnUpsampleNearest1dBackwardGetWorkspaceSize.argtypes = [P, P, P, C.c_double, P, C.POINTER(U64), C.POINTER(P)]
DT = {np.float32: 0, np.float64: 11}
def tensor(a, fmt):
    dims = (I64 * a.ndim)(*a.shape)
    return L.aclCreateTensor(dims, a.ndim, DT[a.dtype.type], None, 0, fmt, dims, a.ndim, a.ctypes.data)
def ints(v):
    return L.aclCreateIntArray((I64 * len(v))(*v), len(v))
def run(name, *args):
    ws, ex = U64(0), P()
    st = getattr(L, name + "GetWorkspaceSize")(*args, C.byref(ws), C.byref(ex))
    assert st == 0, (name, st)
    assert getattr(L, name)(None, ws.value, ex, None) == 0
NCL, NCHW = 47, 0
def lib1d(x, o, exact):
    y = np.zeros((1, 1, o), x.dtype)
    s, d, os = tensor(x, NCL), tensor(y, NCL), ints([o])
    if exact: run("aclnnUpsampleNearestExact1d", s, os, 0.0, d)
    else: run("aclnnUpsampleNearest1d", s, os, d)
    return y[0, 0]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 200
print("torch", torch.__version__, torch.backends.cpu.get_cpu_capability())
for npdt, tdt, modes in ((np.float32, torch.float32, ("nearest", "nearest-exact")), (np.float64, torch.float64, ("nearest",))):
    for mode in modes:
        bad = 0
        for i in range(1, N + 1):
            x = np.arange(i, dtype=npdt).reshape(1, 1, i)
            for o in range(1, N + 1):
                t = F.interpolate(torch.from_numpy(x), size=o, mode=mode)[0, 0].numpy()
                bad += not np.array_equal(t, lib1d(x, o, mode == "nearest-exact"))
        print(f"forward {npdt.__name__} {mode}: {bad} of {N*N} pairs differ (libresample vs torch)", flush=True)
# backward 1d nearest, random gradients
rng = np.random.default_rng(2); M = min(N, 120)
for npdt, tdt in ((np.float32, torch.float32), (np.float64, torch.float64)):
    bad = 0
    for i in range(1, M + 1):
        for o in range(1, M + 1):
            g = rng.standard_normal((1, 1, o)).astype(npdt)
            gi = np.zeros((1, 1, i), npdt)
            run("aclnnUpsampleNearest1dBackward", tensor(g, NCL), ints([o]), ints([1, 1, i]), 0.0, tensor(gi, NCL))
            x = torch.zeros(1, 1, i, dtype=tdt, requires_grad=True)
            F.interpolate(x, size=o, mode="nearest").backward(torch.from_numpy(g))
            bad += not np.array_equal(x.grad.numpy(), gi)
    print(f"backward {npdt.__name__} nearest: {bad} of {M*M} pairs differ", flush=True)
# 2dV2, in == out = 100, scales 1.005
x = np.ascontiguousarray(np.broadcast_to(np.arange(100, dtype=np.float32), (1, 1, 100, 100)))
y = np.zeros_like(x)
run("aclnnUpsampleNearest2dV2", tensor(x, NCHW), ints([100, 100]), 1.005, 1.005, tensor(y, NCHW))
t = F.interpolate(torch.from_numpy(x), scale_factor=1.005, mode="nearest", recompute_scale_factor=False)
print("2dV2 100->100 scales 1.005, outputs 95..99: libresample", y[0, 0, 0, 95:].tolist(), "torch NCHW", t[0, 0, 0, 95:].tolist())
