"""Compares smoke.c output from libdnnl (argv[1]) and libresample (argv[2]).

Every non-value line (memory descriptors, statuses, factors) must be identical. Values:
forward nearest must be exact; linear (and backward nearest, whose sums libdnnl's jit kernel
adds in another order) may differ by a few ulp of the data's magnitude, because libdnnl's
default jit kernels differ from its ref:any by 1-2 ulp (docs/spec/onednn.md §2.2, §3.2).
Integer outputs may differ by 1 (x.5 ties), bf16 by one bf16 ulp of the magnitude.
"""
import re
import sys

from cases import aligned

a = open(sys.argv[1]).read().split("\n")
b = open(sys.argv[2]).read().split("\n")
a, b, dropped = aligned(a, b)
if dropped:
    print("bf16 cases the real library refused on this CPU (left out):", dropped)
assert len(a) == len(b), (len(a), len(b))
# magnitude of the inputs smoke.c generates, per source data type
SCALE = {3: 32.0, 2: 32.0, 4: 32768.0, 5: 128.0, 6: 256.0}
mode = None
case = ""
bad = nonvalue = nvals = 0
for x, y in zip(a, b):
    if x.startswith("CASE"):
        case = x
        mode = None
    if x.startswith("VALUES"):
        _, alg, dt, _ = x.split()
        sdt = int(re.search(r"sdt=(\d+)", case).group(1))
        mode = (alg, int(dt), "bwd=1" in case, sdt)
        if x != y:
            bad += 1
        continue
    if mode and x and not x[0].isalpha():
        nvals += 1
        fx, fy = float.fromhex(x), float.fromhex(y)
        if fx == fy:
            continue
        alg, dt, bwd, sdt = mode
        d = abs(fx - fy)
        mag = max(abs(fx), SCALE.get(sdt, 1.0))
        if alg == "nearest" and not bwd:
            ok = False
        elif dt == 3:
            ok = d <= 2.0**-20 * mag
        elif dt == 2:
            ok = d <= 2.0**-7 * mag
        else:
            ok = d <= 1
        if not ok:
            bad += 1
            if bad < 15:
                print("DIFF", case, mode, x, y)
        continue
    if x != y and not x.startswith("version"):
        nonvalue += 1
        if nonvalue < 10:
            print("LINE", case, "|", x, "|", y)
print("values", nvals, "bad", bad, "nonvalue diffs", nonvalue)
sys.exit(1 if bad or nonvalue else 0)
