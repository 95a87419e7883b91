"""Why antialiasing matters when shrinking: a zone plate (rings whose frequency grows towards
the edge) and a stripe pattern, shrunk 4x and enlarged 4x with nearest, linear and antialiased
linear through the `resample` Python package, side by side in one PNG; plus a plot of the
1-D kernels (each kernel is read back from the library as the gradient of one output).

    cargo build --release && pip install ./python pillow matplotlib
    python examples/resample_image.py --out docs/resample_image.png --kernels docs/kernels.png
"""
import argparse

import numpy as np
from PIL import Image, ImageDraw

import resample

MODES = ["nearest", "linear", "antialias"]


def test_picture(n=512):
    """A zone plate on the left half, fine diagonal stripes and a disc on the right: RGB u8."""
    y, x = np.mgrid[0:n, 0:n].astype(np.float64)
    r2 = ((x - n / 2) ** 2 + (y - n / 2) ** 2) / n
    zone = 0.5 + 0.5 * np.cos(np.pi * r2 * 0.9)
    stripes = 0.5 + 0.5 * np.sign(np.sin((x + y) * np.pi / 3.0))
    disc = ((x - 0.75 * n) ** 2 + (y - 0.3 * n) ** 2) < (0.12 * n) ** 2
    img = np.where(x < n / 2, zone, stripes)
    img = np.where(disc, 0.2, img)
    rgb = np.stack([img, img * 0.85 + 0.1 * (y / n), 0.6 * img + 0.4 * (x / n)], axis=-1)
    return np.clip(rgb * 255 + 0.5, 0, 255).astype(np.uint8)


def label(tile, text):
    im = Image.fromarray(tile)
    d = ImageDraw.Draw(im)
    d.rectangle([0, 0, 8 * len(text) + 6, 14], fill=(0, 0, 0))
    d.text((3, 1), text, fill=(255, 255, 255))
    return np.asarray(im)


def side_by_side(rows, gap=6):
    h = max(t.shape[0] for r in rows for t in r)
    lines = []
    for r in rows:
        parts = []
        for t in r:
            pad = np.full((h, t.shape[1], 3), 255, np.uint8)
            pad[: t.shape[0]] = t
            parts += [pad, np.full((h, gap, 3), 255, np.uint8)]
        lines.append(np.concatenate(parts[:-1], axis=1))
    w = max(line.shape[1] for line in lines)
    out = []
    for line in lines:
        pad = np.full((line.shape[0], w, 3), 255, np.uint8)
        pad[:, : line.shape[1]] = line
        out += [pad, np.full((gap, w, 3), 255, np.uint8)]
    return np.concatenate(out[:-1], axis=0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="resample_image.png")
    ap.add_argument("--kernels", default="resample_kernels.png")
    ap.add_argument("--input", help="a picture to use instead of the generated one")
    args = ap.parse_args()

    if args.input:
        src = np.asarray(Image.open(args.input).convert("RGB"))
    else:
        src = test_picture()
    h, w = src.shape[:2]
    small = (h // 4, w // 4)
    # Shrink 4x: axes 0 and 1 of an HxWx3 u8 image (the channel axis stays).
    down = [resample.resize(src, size=small, axes=(0, 1), mode=m) for m in MODES]
    # Enlarge a 64x64 crop 4x.
    crop = src[h // 2 - 32 : h // 2 + 32, w // 2 + 16 : w // 2 + 80]
    up = [resample.resize(crop, size=(256, 256), axes=(0, 1), mode=m) for m in MODES]
    # Show the shrunk images at the original size (nearest x4) so the aliasing is visible.
    show = [resample.resize(d, size=(h // 2, w // 2), axes=(0, 1), mode="nearest") for d in down]
    orig = resample.resize(src, size=(h // 2, w // 2), axes=(0, 1), mode="antialias")
    rows = [
        [label(orig, "original")] + [label(s, f"4x smaller, {m}") for s, m in zip(show, MODES)],
        [label(np.kron(crop, np.ones((4, 4, 1), np.uint8)), "crop (pixels)")]
        + [label(u, f"4x larger, {m}") for u, m in zip(up, MODES)],
    ]
    Image.fromarray(side_by_side(rows)).save(args.out, optimize=True)
    print(f"wrote {args.out}")

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no kernel plot")
        return
    # Kernels: the weights one output gives its inputs = the gradient of that output.
    n_in, n_out, o = 64, 16, 8  # shrink 4x; output 8 sits at input coordinate 33.5
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.2))
    for m in MODES:
        g = np.zeros(n_out, np.float32)
        g[o] = 1
        wts = resample.resize_backward(g, (n_in,), mode=m)
        axes[0].step(np.arange(n_in), wts, where="mid", label=m)
    axes[0].set_xlim(24, 44)
    axes[0].set_title("shrink 4x: weights of output 8 over the inputs")
    axes[0].legend()
    n_in, n_out = 8, 32
    x = np.zeros(n_in, np.float32)
    x[4] = 1
    for m in MODES:
        axes[1].plot(np.arange(n_out) / 4 - 0.375, resample.resize(x, size=n_out, mode=m),
                     marker=".", label=m)
    axes[1].set_title("enlarge 4x: response to one input pixel")
    axes[1].legend()
    fig.tight_layout()
    fig.savefig(args.kernels, dpi=90)
    print(f"wrote {args.kernels}")


if __name__ == "__main__":
    main()
