"""The rejection samplers on keys (``ft.random.gamma``, ``poisson``, ``binomial``, JAX's
algorithms run on the host) side by side with ``jax.jit`` of ``jax.random``'s (the same
numbers) and NumPy's ``Generator`` (other algorithms, other numbers), and ``gamma``'s
gradient in its shape against ``jax.grad``.

Run from the repository root: ``python -m benchmarks.random_samplers`` (best of n).
"""

from __future__ import annotations

import numpy as np

import ftransforms as ft
from benchmarks.timing import wall_times


def _best(fn, reps: int) -> float:
    return min(wall_times(fn, reps))


def main() -> None:
    import jax  # a peer, measured beside us

    jax.config.update("jax_enable_x64", True)
    n = 100_000
    key, jkey = ft.random.PRNGKey(0), jax.random.PRNGKey(0)
    rng = np.random.default_rng(0)
    cases = {
        "gamma(a=0.5)": (
            lambda: ft.random.gamma(key, 0.5, (n,)),
            jax.jit(lambda k: jax.random.gamma(k, 0.5, (n,))),
            lambda: rng.gamma(0.5, size=n),
        ),
        "poisson(lam=4)": (
            lambda: ft.random.poisson(key, 4.0, (n,)),
            jax.jit(lambda k: jax.random.poisson(k, 4.0, (n,))),
            lambda: rng.poisson(4.0, size=n),
        ),
        "binomial(n=100, p=0.3)": (
            lambda: ft.random.binomial(key, 100.0, 0.3, (n,)),
            jax.jit(lambda k: jax.random.binomial(k, 100.0, 0.3, (n,))),
            lambda: rng.binomial(100, 0.3, size=n),
        ),
        "grad gamma(a) sum": (
            lambda: ft.grad(lambda a: ft.random.gamma(key, a, (n,)).sum())(2.0),
            jax.jit(lambda k: jax.grad(lambda a: jax.random.gamma(k, a, (n,)).sum())(2.0)),
            None,
        ),
    }
    for name, (ours, theirs, numpy_form) in cases.items():
        np.asarray(theirs(jkey))  # compile
        a = _best(ours, 3)
        b = _best(lambda: np.asarray(theirs(jkey)), 3)
        c = _best(numpy_form, 3) if numpy_form is not None else float("nan")
        print(
            f"{name}, n=1e5: ft {a * 1e3:.1f} ms, jax.jit {b * 1e3:.1f} ms, "
            f"numpy Generator {c * 1e3:.1f} ms, ft/jax {a / b:.2f}"
        )


if __name__ == "__main__":
    main()
