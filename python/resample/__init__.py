"""Tensor resampling for NumPy arrays over libresample's native C API (ctypes, no compiled
extension).

    >>> import numpy as np, resample
    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> resample.resize(x, size=(2, 2), mode="antialias").shape
    (1, 1, 2, 2)

The library is found from ``RESAMPLE_LIBRARY`` (a file path), next to this package, or on
the system library path. Executions release the GIL (ctypes does for every foreign call),
so several threads can resample at once.
"""

import ctypes
import ctypes.util
import math
import os
import threading

import numpy as np

__all__ = [
    "resize",
    "resize_backward",
    "ResampleError",
    "UnsupportedError",
    "library_path",
    "version",
    "COORDINATE_MODES",
]

__version__ = "0.1.0"

_MAX_RANK = 5

# Status codes, types, algorithms and rules of include/resample.h.
_SUCCESS, _INVALID, _UNSUPPORTED, _OOM = 0, 1, 2, 3
_F32, _F16, _BF16, _S32, _S8, _U8, _F64 = 1, 2, 3, 4, 5, 6, 7
_ALGS = {"nearest": 0, "linear": 1, "antialias": 2}
_NEAREST_MODES = {
    None: 0,
    "round_prefer_floor": 1,
    "round_prefer_ceil": 2,
    "floor": 3,
    "ceil": 4,
}

#: ``coordinate_mode`` values: the ONNX Resize ``coordinate_transformation_mode`` names,
#: ``"onednn"``, PyTorch's ``"torch"`` (nearest: legacy ``floor(o * r)``; linear:
#: align_corners=False), ``"torch_align_corners"`` (linear), ``"torch_nearest_exact"``,
#: and ``"directml"`` (half-pixel offsets 0.5 / -0.5).
COORDINATE_MODES = {
    "onednn": 1,
    "half_pixel": 2,
    "pytorch_half_pixel": 3,
    "align_corners": 4,
    "asymmetric": 5,
    "half_pixel_symmetric": 6,
    "tf_crop_and_resize": 7,
    "torch_nearest": 8,
    "torch_nearest_exact": 9,
    "torch_linear": 10,
    "torch_align_corners": 11,
    "directml": 12,
}


class ResampleError(ValueError):
    """The library refused a problem (invalid argument, out of memory)."""


class UnsupportedError(ResampleError, NotImplementedError):
    """A well-formed request the library does not implement."""


class _Axis(ctypes.Structure):
    _fields_ = [
        ("rule", ctypes.c_int32),
        ("nearest_mode", ctypes.c_int32),
        ("scale", ctypes.c_double),
        ("input_offset", ctypes.c_double),
        ("output_offset", ctypes.c_double),
    ]


class _Problem(ctypes.Structure):
    _fields_ = [
        ("rank", ctypes.c_int32),
        ("algorithm", ctypes.c_int32),
        ("direction", ctypes.c_int32),
        ("src_type", ctypes.c_int32),
        ("dst_type", ctypes.c_int32),
        ("src_dims", ctypes.c_int64 * _MAX_RANK),
        ("src_strides", ctypes.c_int64 * _MAX_RANK),
        ("dst_dims", ctypes.c_int64 * _MAX_RANK),
        ("dst_strides", ctypes.c_int64 * _MAX_RANK),
        ("axes", _Axis * _MAX_RANK),
    ]


_lib = None
_lib_path = None
_lib_lock = threading.Lock()


def _candidates():
    env = os.environ.get("RESAMPLE_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("libresample.so", "libresample.so.1", "libresample.dylib", "resample.dll"):
        path = os.path.join(here, name)
        if os.path.isfile(path):
            yield path
    found = ctypes.util.find_library("resample")
    if found:
        yield found
    yield "libresample.so.1"


def _load():
    global _lib, _lib_path
    with _lib_lock:
        if _lib is not None:
            return _lib
        errors = []
        for path in _candidates():
            try:
                lib = ctypes.CDLL(path)
                break
            except OSError as e:
                errors.append(f"{path}: {e}")
        else:
            raise OSError(
                "libresample not found; set RESAMPLE_LIBRARY to libresample.so "
                "(tried " + "; ".join(errors) + ")"
            )
        p = ctypes.c_void_p
        lib.resample_plan_create.argtypes = [ctypes.POINTER(p), ctypes.POINTER(_Problem)]
        lib.resample_plan_create.restype = ctypes.c_int32
        lib.resample_plan_destroy.argtypes = [p]
        lib.resample_plan_destroy.restype = None
        lib.resample_execute.argtypes = [p, p, ctypes.c_size_t, p, ctypes.c_size_t]
        lib.resample_execute.restype = ctypes.c_int32
        lib.resample_plan_src_bytes.argtypes = [p]
        lib.resample_plan_src_bytes.restype = ctypes.c_size_t
        lib.resample_plan_dst_bytes.argtypes = [p]
        lib.resample_plan_dst_bytes.restype = ctypes.c_size_t
        lib.resample_plan_kernel.argtypes = [p]
        lib.resample_plan_kernel.restype = ctypes.c_char_p
        lib.resample_last_error.argtypes = []
        lib.resample_last_error.restype = ctypes.c_char_p
        lib.resample_version_string.argtypes = []
        lib.resample_version_string.restype = ctypes.c_char_p
        _lib, _lib_path = lib, path
        return lib


def library_path():
    """Path of the loaded libresample."""
    _load()
    return _lib_path


def version():
    """libresample's version string."""
    return _load().resample_version_string().decode()


def _raise(lib, status):
    msg = (lib.resample_last_error() or b"").decode(errors="replace")
    if status == _UNSUPPORTED:
        raise UnsupportedError(msg)
    if status == _OOM:
        raise MemoryError(msg)
    raise ResampleError(msg or f"libresample status {status}")


class _Plan:
    """An owned resample_plan_t."""

    def __init__(self, problem):
        self._lib = _load()
        self.handle = ctypes.c_void_p()
        st = self._lib.resample_plan_create(ctypes.byref(self.handle), ctypes.byref(problem))
        if st != _SUCCESS:
            _raise(self._lib, st)
        self.src_bytes = self._lib.resample_plan_src_bytes(self.handle)
        self.dst_bytes = self._lib.resample_plan_dst_bytes(self.handle)
        self.kernel = self._lib.resample_plan_kernel(self.handle).decode()

    def execute(self, src_ptr, dst_ptr):
        st = self._lib.resample_execute(
            self.handle, src_ptr, self.src_bytes, dst_ptr, self.dst_bytes
        )
        if st != _SUCCESS:
            _raise(self._lib, st)

    def __del__(self):
        h = getattr(self, "handle", None)
        if h:
            self._lib.resample_plan_destroy(h)
            self.handle = None


# Plans are cached by problem; a plan holds tap tables, so reusing it saves their setup.
_cache = {}
_cache_lock = threading.Lock()
_CACHE_SIZE = 64


def _plan(problem):
    key = bytes(problem)
    with _cache_lock:
        plan = _cache.get(key)
        if plan is not None:
            return plan
    plan = _Plan(problem)
    with _cache_lock:
        if len(_cache) >= _CACHE_SIZE:
            _cache.pop(next(iter(_cache)))
        _cache[key] = plan
    return plan


def _bf16():
    try:
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    except ImportError:
        return None


def _type_code(dt):
    dt = np.dtype(dt)
    codes = {
        np.dtype(np.float32): _F32,
        np.dtype(np.float16): _F16,
        np.dtype(np.int32): _S32,
        np.dtype(np.int8): _S8,
        np.dtype(np.uint8): _U8,
        np.dtype(np.float64): _F64,
    }
    if dt in codes:
        return codes[dt]
    if dt == _bf16():
        return _BF16
    raise TypeError(f"dtype {dt} is not supported (f32, f64, f16, bf16, s32, s8, u8)")


def _native_order(a):
    """`a` in the machine's byte order (the library reads native-endian elements)."""
    if a.dtype.byteorder not in ("=", "|"):
        return a.astype(a.dtype.newbyteorder("="))
    return a


def _elem_strides(a):
    """Element strides of `a`, or None when they are negative or not whole elements."""
    out = []
    for s in a.strides:
        if s < 0 or s % a.itemsize:
            return None
        out.append(s // a.itemsize)
    return out


def _normalise_axes(ndim, axes, count):
    if axes is None:
        # Like F.interpolate: the trailing `count` axes.
        return list(range(ndim - count, ndim))
    axes = [int(a) + ndim if int(a) < 0 else int(a) for a in axes]
    if len(set(axes)) != len(axes) or any(a < 0 or a >= ndim for a in axes):
        raise ValueError(f"axes {axes} are out of range or repeated for {ndim} dimensions")
    return axes


def _as_list(v, n, name):
    if v is None:
        return None
    if np.isscalar(v):
        return [v] * n
    v = list(v)
    if len(v) != n:
        raise ValueError(f"{name} has {len(v)} entries for {n} axes")
    return v


def _rule(mode, coordinate_mode):
    cm = "half_pixel" if coordinate_mode is None else coordinate_mode
    if cm == "torch":
        cm = "torch_nearest" if mode == "nearest" else "torch_linear"
    if cm not in COORDINATE_MODES:
        raise ValueError(
            f"coordinate_mode {coordinate_mode!r}: one of {sorted(COORDINATE_MODES)} or 'torch'"
        )
    return COORDINATE_MODES[cm]


def _run(direction, src, in_shape, out_shape, axes, scale, mode, coordinate_mode,
         nearest_mode, out, dst_dtype):
    if mode not in _ALGS:
        raise ValueError(f"mode {mode!r}: one of {sorted(_ALGS)}")
    if nearest_mode not in _NEAREST_MODES:
        raise ValueError(f"nearest_mode {nearest_mode!r}: one of {sorted(k for k in _NEAREST_MODES if k)}")
    ndim = src.ndim
    if not 1 <= ndim <= _MAX_RANK:
        raise ValueError(f"arrays of 1..{_MAX_RANK} dimensions are supported, not {ndim}")
    rule = _rule(mode, coordinate_mode)

    # f64 interpolates in f32 (the library copies f64 only for nearest).
    compute = dst_dtype
    if np.dtype(dst_dtype) == np.float64 and mode != "nearest":
        compute = np.dtype(np.float32)
    if src.dtype != compute and np.dtype(src.dtype) == np.float64:
        src = src.astype(compute)
    src_strides = _elem_strides(src)
    if src_strides is None:
        src = np.ascontiguousarray(src)
        src_strides = _elem_strides(src)

    dst_shape = tuple(out_shape if direction == 0 else in_shape)
    direct = (
        out is not None
        and out.dtype == compute
        and _elem_strides(out) is not None
        and out.flags.writeable
    )
    if out is not None:
        if tuple(out.shape) != dst_shape:
            raise ValueError(f"out has shape {out.shape}, {dst_shape} expected")
    dst = out if direct else np.empty(dst_shape, dtype=compute)

    p = _Problem()
    p.rank = ndim
    p.algorithm = _ALGS[mode]
    p.direction = direction
    p.src_type = _type_code(src.dtype)
    p.dst_type = _type_code(dst.dtype)
    for d in range(ndim):
        p.src_dims[d] = src.shape[d]
        p.src_strides[d] = src_strides[d]
        p.dst_dims[d] = dst.shape[d]
        p.dst_strides[d] = _elem_strides(dst)[d]
    for k, d in enumerate(axes):
        a = p.axes[d]
        a.rule = rule
        a.nearest_mode = _NEAREST_MODES[nearest_mode]
        if scale is not None:
            a.scale = float(scale[k])
        if rule == COORDINATE_MODES["directml"]:
            a.input_offset, a.output_offset = 0.5, -0.5
    # Unlisted axes keep rule 0 (identity); their sizes must agree.
    if src.size and dst.size:
        # A zero stride on src (broadcast) is fine; the plan checks everything else.
        _plan(p).execute(src.ctypes.data, dst.ctypes.data)
    elif dst.size:
        _plan(p).execute(None, dst.ctypes.data)
    if out is not None and not direct:
        out[...] = dst.astype(out.dtype, copy=False)
        return out
    if np.dtype(dst.dtype) != np.dtype(dst_dtype):
        return dst.astype(dst_dtype)
    return dst


def _sizes(in_shape, axes, size, scale, coordinate_mode):
    """Output sizes of the resampled axes: `size`, else floor(in * scale)."""
    if size is not None:
        return [int(s) for s in size]
    return [int(math.floor(in_shape[d] * float(s))) for d, s in zip(axes, scale)]


def resize(x, size=None, scale=None, mode="nearest", coordinate_mode=None, axes=None,
           out=None, nearest_mode=None):
    """Resamples `x` along `axes`.

    size:   output sizes of the resampled axes (ints), or
    scale:  output-per-input factors; the output size is floor(in * scale). With both,
            `size` gives the shape and `scale` feeds the coordinate rule (as ONNX Resize
            does with keep_aspect_ratio_policy).
    mode:   "nearest", "linear" or "antialias" (linear with a tent filter when shrinking;
            ONNX and DirectML coordinate modes).
    coordinate_mode: ONNX ``coordinate_transformation_mode`` ("half_pixel" default,
            "pytorch_half_pixel", "align_corners", "asymmetric", "half_pixel_symmetric"),
            "torch" / "torch_align_corners" / "torch_nearest_exact" (F.interpolate),
            "onednn", "directml". See COORDINATE_MODES.
    axes:   which axes resample (default: the trailing len(size or scale) axes).
    nearest_mode: ONNX ``nearest_mode`` for nearest ("round_prefer_floor" default,
            "round_prefer_ceil", "floor", "ceil").
    out:    optional output array (any strides) of the result shape.

    Accepts float32, float64 (nearest copies f64; linear computes in f32), float16,
    bfloat16 (ml_dtypes), int32, int8 and uint8 arrays with any strides.
    """
    x = _native_order(np.asarray(x))
    if size is None and scale is None:
        raise ValueError("give size or scale")
    n = len(size) if size is not None and not np.isscalar(size) else (
        len(scale) if scale is not None and not np.isscalar(scale) else None)
    if n is None:
        n = x.ndim if axes is None else len(axes)
    axes = _normalise_axes(x.ndim, axes, n)
    size = _as_list(size, len(axes), "size")
    scale = _as_list(scale, len(axes), "scale")
    osz = _sizes(x.shape, axes, size, scale, coordinate_mode)
    out_shape = list(x.shape)
    for d, s in zip(axes, osz):
        out_shape[d] = s
    return _run(0, x, x.shape, out_shape, axes, scale, mode, coordinate_mode, nearest_mode,
                out, x.dtype)


def resize_backward(grad, input_shape, scale=None, mode="nearest", coordinate_mode=None,
                    axes=None, out=None, nearest_mode=None):
    """Gradient of :func:`resize` with respect to its input: `grad` has the forward output
    shape, the result has `input_shape`. Arguments mean what they mean for `resize`
    (`scale` only feeds the coordinate rule here)."""
    grad = _native_order(np.asarray(grad))
    input_shape = tuple(int(s) for s in input_shape)
    if len(input_shape) != grad.ndim:
        raise ValueError("input_shape and grad differ in rank")
    if axes is None:
        axes = [d for d in range(grad.ndim) if grad.shape[d] != input_shape[d]]
    axes = _normalise_axes(grad.ndim, axes, len(axes))
    scale = _as_list(scale, len(axes), "scale")
    for d in range(grad.ndim):
        if d not in axes and grad.shape[d] != input_shape[d]:
            raise ValueError(f"axis {d} is not resampled but sizes differ")
    return _run(1, grad, input_shape, grad.shape, axes, scale, mode, coordinate_mode,
                nearest_mode, out, grad.dtype)
