"""ONNX Resize through the package, on the ONNX backend node test cases for Resize
(generated in memory by onnx.backend.test.case.node; the wheel ships no node data), checked
against the cases' expected outputs and against onnx.reference."""
import warnings

import numpy as np
import pytest

import resample

onnx = pytest.importorskip("onnx")
from onnx import helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402


def _cases():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from onnx.backend.test.case import node

        return node.collect_testcases("Resize")


CASES = _cases()


def _attrs(n):
    return {a.name: helper.get_attribute_value(a) for a in n.attribute}


def onnx_resize(x, roi, scales, sizes, attrs):
    """Maps one Resize node onto resample.resize the way onnx.reference computes it."""
    mode = attrs.get("mode", b"nearest").decode()
    if mode == "cubic":
        raise resample.UnsupportedError("cubic")
    if attrs.get("antialias", 0):
        mode = "antialias"
    coord = attrs.get("coordinate_transformation_mode", b"half_pixel").decode()
    nearest = attrs.get("nearest_mode", b"round_prefer_floor").decode()
    policy = attrs.get("keep_aspect_ratio_policy", b"stretch").decode()
    axes = list(attrs.get("axes", range(x.ndim)))
    axes = [a + x.ndim if a < 0 else a for a in axes]
    if sizes is not None and sizes.size:
        size = [int(s) for s in sizes]
        scale = [size[k] / x.shape[d] for k, d in enumerate(axes)]
        if policy != "stretch":
            s = min(scale) if policy == "not_larger" else max(scale)
            scale = [s] * len(axes)
            size = [int(s * x.shape[d] + 0.5) for d in axes]
    else:
        scale = [float(s) for s in scales]
        size = [int(np.float64(s) * x.shape[d]) for s, d in zip(scales, axes)]
    # Axes with scale 1 and equal size are skipped by the reference; leave them out.
    keep = [k for k, d in enumerate(axes) if not (scale[k] == 1.0 and size[k] == x.shape[d])]
    return resample.resize(
        x,
        size=[size[k] for k in keep],
        scale=[scale[k] for k in keep],
        mode=mode,
        coordinate_mode=coord,
        nearest_mode=nearest,
        axes=[axes[k] for k in keep],
    )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_onnx_node_case(case):
    graph = case.model.graph
    n = graph.node[0]
    attrs = _attrs(n)
    names = [i.name for i in graph.input]
    for inputs, outputs in case.data_sets:
        feed = dict(zip(names, inputs))
        by_role = {}
        for role, name in zip(["X", "roi", "scales", "sizes"], list(n.input)):
            by_role[role] = feed.get(name) if name else None
        x = by_role["X"]
        try:
            got = onnx_resize(x, by_role.get("roi"), by_role.get("scales"),
                              by_role.get("sizes"), attrs)
        except resample.UnsupportedError as e:
            mode = attrs.get("mode", b"").decode()
            coord = attrs.get("coordinate_transformation_mode", b"").decode()
            assert mode == "cubic" or coord == "tf_crop_and_resize", e
            pytest.skip(f"unsupported by design: {e}")
        ref = ReferenceEvaluator(case.model).run(None, feed)[0]
        assert got.shape == ref.shape == outputs[0].shape
        if attrs.get("mode", b"nearest") == b"nearest":
            np.testing.assert_array_equal(got, ref)
        else:
            np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(got, outputs[0], rtol=1e-5, atol=1e-5)


def _random_model(x, sizes, attrs):
    X = helper.make_tensor_value_info("X", onnx.TensorProto.FLOAT, list(x.shape))
    Y = helper.make_tensor_value_info("Y", onnx.TensorProto.FLOAT, None)
    S = helper.make_tensor_value_info("sizes", onnx.TensorProto.INT64, [len(sizes)])
    node = helper.make_node("Resize", ["X", "", "", "sizes"], ["Y"], **attrs)
    g = helper.make_graph([node], "g", [X, S], [Y])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 19)])


@pytest.mark.parametrize("seed", range(40))
def test_random_against_onnx_reference(seed):
    """Random shapes, modes and coordinate rules against onnx.reference."""
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(1, 4))
    x = rng.standard_normal(rng.integers(1, 9, size=rank)).astype(np.float32)
    sizes = rng.integers(1, 12, size=rank)
    mode = str(rng.choice(["nearest", "linear"]))
    coord = str(rng.choice(["half_pixel", "pytorch_half_pixel", "align_corners",
                            "asymmetric", "half_pixel_symmetric"]))
    attrs = {"mode": mode, "coordinate_transformation_mode": coord}
    if mode == "nearest":
        attrs["nearest_mode"] = str(rng.choice(
            ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]))
    elif rng.integers(2):
        attrs["antialias"] = 1
    model = _random_model(x, sizes, attrs)
    ref = ReferenceEvaluator(model).run(None, {"X": x, "sizes": sizes.astype(np.int64)})[0]
    enc = {k: (v.encode() if isinstance(v, str) else v) for k, v in attrs.items()}
    got = onnx_resize(x, None, None, sizes, enc)
    if mode == "nearest":
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
