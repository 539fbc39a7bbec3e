"""The README's main job: per-sample gradients, a Jacobian, a Hessian and a batched MAML
step on scikit-learn's bundled digits data, each checked against the naive loop.

Run ``python -m ftransforms.demo`` (``--help`` for options).  The model is written with
plain ``import numpy as np``: ftransforms transforms it unchanged.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ftransforms import grad, hessian, jacrev, jvp, vjp, vmap

# -- the model: plain NumPy ----------------------------------------------------------------


def init_mlp(rng: np.random.Generator, sizes: list[int], dtype: Any) -> list[tuple]:
    """Weights ``(out, in)`` and biases of a tanh MLP, scaled by 1/sqrt(fan_in)."""
    return [
        (
            (rng.standard_normal((n_out, n_in)) / np.sqrt(n_in)).astype(dtype),
            np.zeros(n_out, dtype=dtype),
        )
        for n_in, n_out in zip(sizes[:-1], sizes[1:])
    ]


def mlp(params: list[tuple], x: Any) -> Any:
    for w, b in params[:-1]:
        x = np.tanh(x @ w.T + b)
    w, b = params[-1]
    return x @ w.T + b


def cross_entropy(params: list[tuple], x: Any, y: Any) -> Any:
    """Mean softmax cross-entropy of integer labels ``y`` (works for one example too)."""
    logits = mlp(params, x)
    m = np.max(logits, axis=-1, keepdims=True)
    lse = np.log(np.sum(np.exp(logits - m), axis=-1)) + m[..., 0]
    picked = np.take_along_axis(logits, np.expand_dims(y, -1), axis=-1)[..., 0]
    return np.mean(lse - picked)


# -- helpers -------------------------------------------------------------------------------


def _timed(fn: Callable[[], Any], repeat: int) -> tuple[Any, float]:
    out = fn()  # warm-up (and the result)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def _max_diff(a: Any, b: Any) -> float:
    from ftransforms.pytree import tree_leaves

    return max(
        float(np.max(np.abs(np.asarray(u) - np.asarray(v))))
        for u, v in zip(tree_leaves(a), tree_leaves(b))
    )


def _load_digits(dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        sys.exit("The demo uses scikit-learn's bundled digits data: pip install scikit-learn")
    data = load_digits()
    return (data.data / 16.0).astype(dtype), data.target.astype(np.int64)


# -- the four tasks ------------------------------------------------------------------------


def per_sample_gradients(params, x, y):
    fast = lambda: vmap(grad(cross_entropy), in_dims=(None, 0, 0))(params, x, y)

    def loop():
        grads = [grad(cross_entropy)(params, x[i], y[i]) for i in range(len(x))]
        return [
            tuple(np.stack([g[k][j] for g in grads]) for j in range(2)) for k in range(len(params))
        ]

    return fast, loop


def input_jacobian(params, x):
    f = lambda v: mlp(params, v)
    fast = lambda: jacrev(f)(x)

    def loop():
        out, vjp_fn = vjp(f, x)
        return np.stack([vjp_fn(row)[0] for row in np.eye(out.size, dtype=x.dtype)])

    return fast, loop


def last_layer_hessian(params, x, y):
    def loss_of_bias(b):
        return cross_entropy(params[:-1] + [(params[-1][0], b)], x, y)

    b = params[-1][1]
    fast = lambda: hessian(loss_of_bias)(b)

    def loop():
        g = grad(loss_of_bias)
        cols = [jvp(g, (b,), (e,))[1] for e in np.eye(b.size, dtype=b.dtype)]
        return np.stack(cols, axis=1)

    return fast, loop


def maml_step(params, xs, ys, xq, yq, lr=0.5):
    def adapted_query_loss(p, xs_t, ys_t, xq_t, yq_t):
        g = grad(cross_entropy)(p, xs_t, ys_t)
        fast_p = [(w - lr * gw, b - lr * gb) for (w, b), (gw, gb) in zip(p, g)]
        return cross_entropy(fast_p, xq_t, yq_t)

    def meta_loss(p):
        losses = vmap(adapted_query_loss, in_dims=(None, 0, 0, 0, 0))(p, xs, ys, xq, yq)
        return np.mean(losses)

    fast = lambda: grad(meta_loss)(params)

    def loop():
        grads = [
            grad(adapted_query_loss)(params, xs[t], ys[t], xq[t], yq[t]) for t in range(len(xs))
        ]
        return [
            tuple(sum(g[k][j] for g in grads) / len(grads) for j in range(2))
            for k in range(len(params))
        ]

    return fast, loop


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ftransforms.demo", description=__doc__)
    parser.add_argument("--batch", type=int, default=128, help="examples per batch (128)")
    parser.add_argument("--tasks", type=int, default=16, help="MAML tasks (16)")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--repeat", type=int, default=3, help="timing repetitions (3)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    dtype = np.dtype(args.dtype)
    rng = np.random.default_rng(args.seed)
    x_all, y_all = _load_digits(dtype)
    idx = rng.choice(len(x_all), size=args.batch, replace=False)
    x, y = x_all[idx], y_all[idx]
    params = init_mlp(rng, [64, 32, 10], dtype)

    task_idx = rng.choice(len(x_all), size=(args.tasks, 20), replace=True)
    xs, ys = x_all[task_idx[:, :10]], y_all[task_idx[:, :10]]
    xq, yq = x_all[task_idx[:, 10:]], y_all[task_idx[:, 10:]]

    rows = [
        (f"per-sample gradients  vmap(grad)  B={args.batch}", *per_sample_gradients(params, x, y)),
        ("Jacobian d logits/d input  jacrev  10x64", *input_jacobian(params, x[0])),
        ("Hessian of loss wrt last bias  10x10", *last_layer_hessian(params, x, y)),
        (f"MAML meta-gradient  vmap over {args.tasks} tasks", *maml_step(params, xs, ys, xq, yq)),
    ]
    print(f"ftransforms demo: digits {x_all.shape}, MLP 64-32-10 tanh, {dtype.name}\n")
    header = (
        f"{'task':<48} {'ftransforms':>12} {'naive loop':>12} {'speedup':>8} {'max |diff|':>11}"
    )
    print(header)
    print("-" * len(header))
    tol = 1e-4 if dtype == np.float32 else 1e-10
    ok = True
    for name, fast, loop in rows:
        got, t_fast = _timed(fast, args.repeat)
        want, t_loop = _timed(loop, args.repeat)
        diff = _max_diff(got, want)
        ok &= diff <= tol
        print(
            f"{name:<48} {t_fast * 1e3:>10.2f}ms {t_loop * 1e3:>10.2f}ms "
            f"{t_loop / t_fast:>7.1f}x {diff:>11.1e}"
        )
    print("\nall results match the naive loop" if ok else "\nMISMATCH against the naive loop")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
