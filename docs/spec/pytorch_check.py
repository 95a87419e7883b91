#!/usr/bin/env python3
"""Compares PyTorch CPU's nearest / nearest-exact indices with the float32 index math of
libresample's Ascend face (docs/spec/ascend.md §4.2), 1-D, no scales:

    r = (float)in / (float)out
    nearest: src = min(floor((float)o * r), in - 1)
    exact:   src = min(floor(((float)o + 0.5f) * r), in - 1)

Forward: F.interpolate on arange(in), every in, out in [1, N] (default 200). Backward: the
gradient of F.interpolate for random gradOut against "add each gradOut element, in output
order, to the input the forward index picks" (np.add.at), every in, out in [1, M]
(default 120). Prints the number of (in, out) pairs whose results differ.
Usage: python3 docs/spec/pytorch_check.py [N [M]]; set ATEN_CPU_CAPABILITY=default to use
PyTorch's portable kernels instead of its vectorised ones.
"""
import sys
import numpy as np
import torch
import torch.nn.functional as F

N = int(sys.argv[1]) if len(sys.argv) > 1 else 200
M = int(sys.argv[2]) if len(sys.argv) > 2 else 120
torch.set_num_threads(1)


def lib_idx(i, o, exact):
    r = np.float32(i) / np.float32(o)
    d = np.arange(o, dtype=np.float32)
    if exact:
        d = d + np.float32(0.5)
    return np.minimum(np.floor(d * r).astype(np.int64), i - 1)


print("torch", torch.__version__, "cpu capability", torch.backends.cpu.get_cpu_capability())
for dt in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
    for mode in ("nearest", "nearest-exact"):
        bad, first = 0, None
        for i in range(1, N + 1):
            x = torch.arange(i, dtype=dt).reshape(1, 1, i)
            for o in range(1, N + 1):
                got = F.interpolate(x, size=o, mode=mode)[0, 0].to(torch.float64).numpy()
                want = lib_idx(i, o, mode == "nearest-exact")
                if not np.array_equal(got.astype(np.int64), want):
                    bad += 1
                    if first is None:
                        k = int(np.nonzero(got.astype(np.int64) != want)[0][0])
                        first = f"in {i}, out {o}, output {k}: torch {int(got[k])}, lib {want[k]}"
        print(f"forward  {str(dt):15} {mode:13} {bad} of {N * N} pairs differ  {first or ''}")

rng = np.random.default_rng(1)
for dt, npdt in ((torch.float32, np.float32), (torch.float64, np.float64)):
    for mode in ("nearest", "nearest-exact"):
        bad = 0
        for i in range(1, M + 1):
            for o in range(1, M + 1):
                g = rng.standard_normal(o).astype(npdt)
                x = torch.zeros(1, 1, i, dtype=dt, requires_grad=True)
                F.interpolate(x, size=o, mode=mode).backward(torch.from_numpy(g).reshape(1, 1, o))
                want = np.zeros(i, dtype=npdt)
                np.add.at(want, lib_idx(i, o, mode == "nearest-exact"), g)
                bad += not np.array_equal(x.grad[0, 0].numpy(), want)
        print(f"backward {str(dt):15} {mode:13} {bad} of {M * M} pairs differ")
