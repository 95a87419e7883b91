#!/usr/bin/env python3
"""Compares dtypes_cmp outputs (libdnnl vs libresample): values must be bit-identical, except
that any two NaNs are equal (payloads are unspecified), libdnnl's 'status 3' (f16 on CPU) may
be a success here, and lines marked 'nanint' (NaN -> integer, implementation-defined in
libdnnl) are only counted."""
import sys

def is_nan(tok, dt):
    v = int(tok, 16)
    if dt == "f32":
        return (v >> 23) & 0xFF == 0xFF and v & 0x7FFFFF
    if dt == "bf16":
        return (v >> 7) & 0xFF == 0xFF and v & 0x7F
    if dt == "f16":
        return (v >> 10) & 0x1F == 0x1F and v & 0x3FF
    return False

a = open(sys.argv[1]).read().splitlines()
b = open(sys.argv[2]).read().splitlines()
if len(a) != len(b):
    print("line counts differ", len(a), len(b)); sys.exit(1)
bad = superset = nanint = 0
for x, y in zip(a, b):
    if x == y:
        continue
    hx, tx = x.split(" : ", 1)
    hy, ty = y.split(" : ", 1)
    if hx == hy and tx == "status 3" and ty.startswith("exec 0"):
        superset += 1
        continue
    if hx.startswith("nanint"):
        nanint += 1
        continue
    ddt = hx.split("->")[1].split("[")[0]
    ok = hx == hy and tx.split(":")[0] == ty.split(":")[0]
    if ok:
        vx, vy = tx.split(":", 1)[1].split(), ty.split(":", 1)[1].split()
        ok = len(vx) == len(vy) and all(p == q or (is_nan(p, ddt) and is_nan(q, ddt)) for p, q in zip(vx, vy))
    if not ok:
        bad += 1
        if bad <= 10:
            print("DIFF\n  dnnl:", x[:300], "\n  ours:", y[:300])
print(f"dtypes: {len(a)} lines, {superset} f16 only here, {nanint} NaN->int lines differ (impl-defined), bad {bad}")
sys.exit(1 if bad else 0)
