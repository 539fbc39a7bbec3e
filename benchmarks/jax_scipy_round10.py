"""Round 10's jax.scipy/jax.image names side by side with their peers: ``ft.image.resize``
(a 256x256x3 image to 128x128 and 512x512, bilinear with antialiasing) against
``jax.jit(jax.image.resize)``; ``ft.scipy.signal.welch`` of 16 signals of 4096 samples
against ``scipy.signal.welch`` and ``jax.jit(jax.scipy.signal.welch)``; and ``grad`` of a
``gaussian_kde`` log density (500 points, 100 queries) against ``jax.grad``.

Run from the repository root: ``python -m benchmarks.jax_scipy_round10`` (best of n).
"""

from __future__ import annotations

import numpy as np
import scipy.signal

import ftransforms as ft
from benchmarks.timing import wall_times


def _best(fn, reps: int) -> float:
    return min(wall_times(fn, reps))


def main() -> None:
    import jax  # a peer, measured beside us
    import jax.scipy.stats

    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)

    image = rng.normal(size=(256, 256, 3))
    for size in (128, 512):
        shape = (size, size, 3)
        jresize = jax.jit(lambda im, s=shape: jax.image.resize(im, s, "bilinear"))
        jresize(image).block_until_ready()
        a = _best(lambda s=shape: ft.image.resize(image, s, "bilinear"), 5)
        b = _best(lambda: jresize(image).block_until_ready(), 5)
        print(
            f"resize 256->{size} bilinear f64: ft {a * 1e3:.2f} ms, "
            f"jax.jit {b * 1e3:.2f} ms, ft/jax {a / b:.2f}"
        )

    x = rng.normal(size=(16, 4096))
    jwelch = jax.jit(lambda u: jax.scipy.signal.welch(u, nperseg=256)[1])
    jwelch(x).block_until_ready()
    a = _best(lambda: ft.scipy.signal.welch(x, nperseg=256), 5)
    b = _best(lambda: scipy.signal.welch(x, nperseg=256), 5)
    c = _best(lambda: jwelch(x).block_until_ready(), 5)
    print(
        f"welch 16x4096, nperseg 256: ft {a * 1e3:.2f} ms, scipy {b * 1e3:.2f} ms, "
        f"jax.jit {c * 1e3:.2f} ms, ft/scipy {a / b:.2f}, ft/jax {a / c:.2f}"
    )

    data, points = rng.normal(size=(2, 500)), rng.normal(size=(2, 100))

    def loss(api):
        return lambda d: api.scipy.stats.gaussian_kde(d).logpdf(points).sum()

    jgrad = jax.jit(jax.grad(loss(jax)))
    jgrad(data).block_until_ready()
    a = _best(lambda: ft.grad(loss(ft))(data), 5)
    b = _best(lambda: jgrad(data).block_until_ready(), 5)
    print(
        f"grad kde logpdf 2x500 at 100: ft {a * 1e3:.2f} ms, jax.jit {b * 1e3:.2f} ms, "
        f"ft/jax {a / b:.2f}"
    )


if __name__ == "__main__":
    main()
