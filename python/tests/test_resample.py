"""The package on its own: dtypes, strided views, out=, backward as the adjoint of forward,
threads, refusals; PyTorch F.interpolate where torch is installed."""
import threading
import warnings

import numpy as np
import pytest

import resample


def test_library_loads():
    assert resample.version()
    assert resample.library_path()


def test_onnx_example_linear():
    x = np.array([[[[1, 2], [3, 4]]]], dtype=np.float32)
    y = resample.resize(x, scale=(2, 2), mode="linear")
    want = [[1, 1.25, 1.75, 2], [1.5, 1.75, 2.25, 2.5], [2.5, 2.75, 3.25, 3.5],
            [3, 3.25, 3.75, 4]]
    np.testing.assert_allclose(y[0, 0], want, rtol=0, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "uint8", "int8", "int32",
                                   "bfloat16"])
@pytest.mark.parametrize("mode", ["nearest", "linear", "antialias"])
def test_dtypes_follow_f32(dtype, mode):
    if dtype == "bfloat16":
        ml_dtypes = pytest.importorskip("ml_dtypes")
        dt = np.dtype(ml_dtypes.bfloat16)
    else:
        dt = np.dtype(dtype)
    rng = np.random.default_rng(0)
    base = rng.uniform(0, 100, size=(2, 9, 7)).astype(np.float32)
    if dt.kind in "iu":
        base = np.round(base)
    x = base.astype(dt)
    y = resample.resize(x, size=(4, 11), mode=mode)
    assert y.dtype == dt and y.shape == (2, 4, 11)
    ref = resample.resize(x.astype(np.float32), size=(4, 11), mode=mode)
    if dt.kind in "iu":
        want = np.clip(np.round(ref), np.iinfo(dt).min, np.iinfo(dt).max).astype(dt)
        np.testing.assert_array_equal(y, want)
    else:
        np.testing.assert_allclose(y.astype(np.float32), ref, rtol=1e-2 if dt.itemsize == 2
                                   else 1e-6)


def test_byte_swapped_input():
    x = np.arange(12, dtype=">f4").reshape(3, 4)
    y = resample.resize(x, size=(6, 8), mode="linear")
    np.testing.assert_array_equal(y, resample.resize(x.astype("<f4"), size=(6, 8), mode="linear"))


def test_f64_nearest_is_exact():
    x = np.array([1e300, np.pi, -0.0, 2.0 ** -1070])
    y = resample.resize(x, size=8, mode="nearest", coordinate_mode="asymmetric")
    assert y.dtype == np.float64
    np.testing.assert_array_equal(y, np.repeat(x, 2))


@pytest.mark.parametrize("mode", ["nearest", "linear", "antialias"])
def test_strided_views_and_out(mode):
    rng = np.random.default_rng(1)
    big = rng.standard_normal((6, 20, 30)).astype(np.float32)
    view = big[::2, 3:17:3, ::-2]  # negative stride: copied internally
    dense = np.ascontiguousarray(view)
    want = resample.resize(dense, size=(3, 7), mode=mode)
    np.testing.assert_array_equal(resample.resize(view, size=(3, 7), mode=mode), want)
    t = big.transpose(2, 0, 1)  # any positive strides go straight to the library
    np.testing.assert_array_equal(resample.resize(t, size=(4, 9), axes=(1, 2), mode=mode),
                                  resample.resize(np.ascontiguousarray(t), size=(4, 9),
                                                  axes=(1, 2), mode=mode))
    out_base = np.zeros((7, 3, 3), dtype=np.float32)
    out = out_base.transpose(1, 2, 0)
    r = resample.resize(dense, size=(3, 7), mode=mode, out=out)
    assert r is out
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("coord", ["half_pixel", "align_corners", "asymmetric", "onednn",
                                   "torch", "torch_align_corners", "directml"])
@pytest.mark.parametrize("mode", ["nearest", "linear", "antialias"])
def test_backward_is_the_adjoint(coord, mode):
    if mode == "antialias" and coord in ("onednn", "torch", "torch_align_corners"):
        with pytest.raises(resample.UnsupportedError):
            resample.resize(np.zeros((4, 4), np.float32), size=(2, 2), mode=mode,
                            coordinate_mode=coord)
        return
    if coord == "torch_align_corners" and mode == "nearest":
        return
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 13, 6)).astype(np.float32)
    y = resample.resize(x, size=(5, 14), mode=mode, coordinate_mode=coord)
    g = rng.standard_normal(y.shape).astype(np.float32)
    gx = resample.resize_backward(g, x.shape, mode=mode, coordinate_mode=coord)
    assert gx.shape == x.shape
    lhs = float(np.dot(y.ravel().astype(np.float64), g.ravel()))
    rhs = float(np.dot(x.ravel().astype(np.float64), gx.ravel()))
    assert abs(lhs - rhs) <= 1e-4 * (1 + abs(lhs))


def test_threads_share_plans():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 64, 64)).astype(np.float32)
    want = resample.resize(x, size=(33, 47), mode="linear")
    errors = []

    def work():
        for _ in range(10):
            if not np.array_equal(resample.resize(x, size=(33, 47), mode="linear"), want):
                errors.append("mismatch")

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors


def test_refusals_raise_with_messages():
    x = np.zeros((4, 4), np.float32)
    with pytest.raises(resample.UnsupportedError, match="tf_crop_and_resize"):
        resample.resize(x, size=(2, 2), mode="linear", coordinate_mode="tf_crop_and_resize")
    with pytest.raises(ValueError):
        resample.resize(x, size=(2, 2), mode="cubic")
    with pytest.raises(ValueError):
        resample.resize(x, size=(2, 2), coordinate_mode="nope")
    with pytest.raises(resample.ResampleError, match="RESAMPLE_LINEAR"):
        resample.resize(x, size=(2, 2), mode="nearest", coordinate_mode="torch_align_corners")
    with pytest.raises(TypeError):
        resample.resize(x.astype(np.complex64), size=(2, 2))
    with pytest.raises(ValueError):
        resample.resize(np.zeros((1,) * 6, np.float32), size=(2, 2))


# --- PyTorch -----------------------------------------------------------------------------

def _torch():
    try:
        import torch  # noqa: F401
    except Exception as e:  # ImportError, or a broken install
        msg = f"PyTorch is not installed ({e}); F.interpolate comparisons SKIPPED"
        warnings.warn(msg)
        print("\n*** " + msg)
        pytest.skip(msg)
    import torch

    return torch


TORCH_CASES = [
    ("nearest", "torch", False),
    ("nearest-exact", "torch_nearest_exact", False),
    ("linear", "torch", False),
    ("linear", "torch_align_corners", True),
]


@pytest.mark.parametrize("tmode,coord,align", TORCH_CASES)
@pytest.mark.parametrize("rank", [1, 2, 3])
@pytest.mark.parametrize("use_scale", [False, True])
def test_against_torch_interpolate(tmode, coord, align, rank, use_scale):
    torch = _torch()
    import torch.nn.functional as F

    rng = np.random.default_rng(rank * 10 + use_scale)
    for _ in range(10):
        shape = (2, 3) + tuple(int(v) for v in rng.integers(1, 10, size=rank))
        x = rng.standard_normal(shape).astype(np.float32)
        if use_scale:
            sf = [float(v) for v in rng.choice([0.5, 0.75, 1.5, 2.0, 3.0, 1.7], size=rank)]
            size = [int(np.floor(shape[2 + k] * sf[k])) for k in range(rank)]
            if min(size) < 1:
                continue
            kw = {"scale_factor": sf}
        else:
            sf = None
            size = [int(v) for v in rng.integers(1, 12, size=rank)]
            kw = {"size": size}
        torch_mode = tmode if tmode != "linear" else ["linear", "bilinear", "trilinear"][rank - 1]
        if tmode == "linear":
            kw["align_corners"] = align
        want = F.interpolate(torch.from_numpy(x), mode=torch_mode, **kw).numpy()
        mode = "nearest" if tmode.startswith("nearest") else "linear"
        got = resample.resize(x, size=size, scale=sf, mode=mode, coordinate_mode=coord)
        if mode == "nearest":
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
