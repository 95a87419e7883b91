#!/usr/bin/env sh
# Fetches the real DNNL 1.3 headers (numbering identical to 1.2's) that the libdnnl.so.1
# tests compile against: the mxnet 1.7.0.post2 wheel ships them under mxnet/include/mkldnn/.
# Unpacks only that directory into <repo>/target/dnnl13/, where tests/dnnl1_c.rs looks.
# No runnable DNNL 1.x library exists in the registries; the headers are the ground truth.
set -eu
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="$root/target/dnnl13"
[ -f "$dest/mxnet/include/mkldnn/dnnl.hpp" ] && { echo "DNNL 1.3 headers: $dest/mxnet/include/mkldnn"; exit 0; }
mkdir -p "$dest/wheel"
python3 -m pip download --no-deps mxnet==1.7.0.post2 -d "$dest/wheel" >/dev/null
# Only mxnet/include/mkldnn/ (the wheel also holds a ~200 MB libmxnet.so).
python3 - "$dest" <<'PY'
import glob, sys, zipfile
dest = sys.argv[1]
whl = sorted(glob.glob(dest + "/wheel/mxnet-1.7.0.post2-*.whl"))[0]
with zipfile.ZipFile(whl) as z:
    z.extractall(dest, [n for n in z.namelist() if n.startswith("mxnet/include/mkldnn/")])
PY
echo "DNNL 1.3 headers: $dest/mxnet/include/mkldnn"
