#!/bin/sh
# Builds libresample (release) and the side-by-side benchmark, then runs it:
#   bench/run.sh [--min-time S] [--reps N] [FILTER...]
# Threads: set OMP_NUM_THREADS (both libraries honour it), e.g.
#   OMP_NUM_THREADS=1 bench/run.sh
# Needs the real oneDNN 2.6 (apt-get install libdnnl-dev) for the header and libdnnl.so.2.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
if [ ! -f /usr/include/oneapi/dnnl/dnnl.h ]; then
    echo "oneDNN 2.6 header missing: apt-get install libdnnl-dev" >&2
    exit 1
fi
cargo build --release --lib
CC=${CC:-cc}
mkdir -p target/bench
"$CC" -O2 -Wall -o target/bench/bench_onednn bench/bench_onednn.c -ldl -lm
exec target/bench/bench_onednn --ours "$ROOT/target/release/libresample.so" \
    --dnnl "${DNNL_LIB:-libdnnl.so.2}" "$@"
