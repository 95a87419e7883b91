#!/bin/sh
# The peer benchmark (issue 8): libresample against oneDNN 2.6, oneDNN 3.x, PyTorch, OpenCV and
# ONNX Runtime in one process, at 1 thread and at all cores. See bench/README.md.
#   bench/peers.sh [--quick] [--threads 1|all] [--save] [FILTER...]
set -eu
cd "$(dirname "$0")/.."
exec "${PYTHON:-python3}" bench/peers.py "$@"
