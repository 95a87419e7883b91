#!/usr/bin/env python3
"""Compares reorder_cmp outputs (libdnnl vs libresample) line by line: identical, except that
a libdnnl 'status 3' (pair or layout not implemented in 2.6.3) may be a success here, and
that on a CPU without AVX-512 bf16 pairs are left out: libdnnl then reorders bf16 with other
implementations than the AVX-512 `jit:uni` whose NaN, subnormal and rounding results this
library mimics (on a Zen 1 AVX2 host every differing line was a bf16 pair)."""
import sys


def has_avx512():
    try:
        with open("/proc/cpuinfo") as f:
            return any(l.startswith("flags") and " avx512f" in l for l in f)
    except OSError:
        return True
a = open(sys.argv[1]).read().splitlines()
b = open(sys.argv[2]).read().splitlines()
bad = superset = left_out = 0
avx512 = has_avx512()
if len(a) != len(b):
    print("line counts differ", len(a), len(b)); sys.exit(1)
for x, y in zip(a, b):
    if x == y:
        continue
    hx, tx = x.split(" : ", 1) if " : " in x else (x, "")
    hy, ty = y.split(" : ", 1) if " : " in y else (y, "")
    if hx == hy and tx == "status 3" and ty.startswith("exec 0"):
        superset += 1
        continue
    if not avx512 and hx == hy and "bf16" in hx:
        left_out += 1
        continue
    bad += 1
    if bad <= 20:
        print("DIFF\n  dnnl:", x, "\n  ours:", y)
print(f"reorder: {len(a)} lines, {superset} only here, bad {bad}"
      + (f", {left_out} differing bf16 pairs left out (no AVX-512 here)" if left_out else ""))
sys.exit(1 if bad else 0)
