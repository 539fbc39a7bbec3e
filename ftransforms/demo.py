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

from ftransforms import grad, hessian, jacrev, jit, jvp, vjp, vmap
from ftransforms.backend import namespace_of
from ftransforms.pytree import tree_leaves

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
    picked = np.take_along_axis(logits, y[..., None], axis=-1)[..., 0]
    return np.mean(lse - picked)


# -- helpers -------------------------------------------------------------------------------


def _to_host(x: Any) -> np.ndarray:
    return x.get() if hasattr(x, "get") else np.asarray(x)


def _timed(fn: Callable[[], Any], repeat: int, sync: Callable[[], None]) -> tuple[Any, float]:
    out = fn()  # warm-up (and the result)
    sync()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - t0)
    return out, best


def _max_diff(a: Any, b: Any) -> float:
    return max(
        float(np.max(np.abs(_to_host(u) - _to_host(v))))
        for u, v in zip(tree_leaves(a), tree_leaves(b))
    )


def _device(name: str) -> tuple[Any, Callable[[], None]]:
    """(array module, synchronise) for ``--device``; exits with a clear message if the
    GPU path cannot run."""
    if name == "cpu":
        return np, lambda: None
    try:
        import cupy
    except ImportError:
        sys.exit(
            "--device cuda needs CuPy: pip install -e '.[cuda]' (cupy-cuda12x; use "
            "cupy-cuda13x for CUDA 13), or run on the CPU without --device"
        )
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as err:  # cupy raises CUDARuntimeError without a driver
        count, why = 0, f" ({err})"
    else:
        why = ""
    if count == 0:
        sys.exit(f"--device cuda: CuPy is installed but no CUDA GPU is visible{why}")
    return cupy, lambda: cupy.cuda.Device().synchronize()


def _save_figures(directory: str, results: dict) -> list[str]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("--save-figures needs matplotlib: pip install matplotlib")
    import os

    os.makedirs(directory, exist_ok=True)
    saved = []
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    norms = np.sqrt(
        sum(
            np.sum(_to_host(g).reshape(len(_to_host(g)), -1) ** 2, axis=1)
            for layer in results["per_sample"]
            for g in layer
        )
    )
    axes[0].hist(norms, bins=30, color="tab:blue")
    axes[0].set(title="per-example gradient norms", xlabel="||g_i||", ylabel="examples")
    im = axes[1].imshow(_to_host(results["jacobian"]), aspect="auto", cmap="RdBu_r")
    axes[1].set(title="Jacobian d logits / d pixels", xlabel="pixel", ylabel="logit")
    fig.colorbar(im, ax=axes[1])
    im = axes[2].imshow(_to_host(results["hessian"]), cmap="RdBu_r")
    axes[2].set(title="Hessian of the loss wrt the last bias")
    fig.colorbar(im, ax=axes[2])
    fig.tight_layout()
    path = os.path.join(directory, "demo_results.png")
    fig.savefig(path, dpi=120)
    saved.append(path)
    fig, ax = plt.subplots(figsize=(7, 3.2))
    names = [row[0].split("  ")[0] for row in results["timings"]]
    ax.barh(names, [row[2] / row[1] for row in results["timings"]], color="tab:green")
    ax.set(xlabel="speedup over the naive loop (x)", title="ftransforms vs naive loop")
    fig.tight_layout()
    path = os.path.join(directory, "demo_speedups.png")
    fig.savefig(path, dpi=120)
    saved.append(path)
    plt.close("all")
    return saved


def _load_digits(dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        sys.exit("The demo uses scikit-learn's bundled digits data: pip install scikit-learn")
    data = load_digits()
    return (data.data / 16.0).astype(dtype), data.target.astype(np.int64)


# -- the four tasks ------------------------------------------------------------------------


# Each task returns (transformed function, its arguments, the naive loop): the demo times
# the function eagerly and under ``jit`` (recorded on the warm-up call, then replayed).


def per_sample_gradients(params, x, y):
    fast = vmap(grad(cross_entropy), in_dims=(None, 0, 0))
    xp = namespace_of(x)  # numpy, or cupy on the GPU: the loops' arrays stay there

    def loop():
        grads = [grad(cross_entropy)(params, x[i], y[i]) for i in range(len(x))]
        return [
            tuple(xp.stack([g[k][j] for g in grads]) for j in range(2)) for k in range(len(params))
        ]

    return fast, (params, x, y), loop


def input_jacobian(params, x):
    fast = jacrev(lambda v, p: mlp(p, v))
    xp = namespace_of(x)

    def loop():
        out, vjp_fn = vjp(lambda v: mlp(params, v), x)
        return xp.stack([vjp_fn(row)[0] for row in xp.eye(out.size, dtype=x.dtype)])

    return fast, (x, params), loop


def last_layer_hessian(params, x, y):
    def loss_of_bias(b, params, x, y):
        return cross_entropy(params[:-1] + [(params[-1][0], b)], x, y)

    b = params[-1][1]
    xp = namespace_of(b)

    def loop():
        g = grad(loss_of_bias)
        cols = [
            jvp(lambda v: g(v, params, x, y), (b,), (e,))[1] for e in xp.eye(b.size, dtype=b.dtype)
        ]
        return xp.stack(cols, axis=1)

    return hessian(loss_of_bias), (b, params, x, y), loop


def maml_step(params, xs, ys, xq, yq, lr=0.5):
    def adapted_query_loss(p, xs_t, ys_t, xq_t, yq_t):
        g = grad(cross_entropy)(p, xs_t, ys_t)
        fast_p = [(w - lr * gw, b - lr * gb) for (w, b), (gw, gb) in zip(p, g)]
        return cross_entropy(fast_p, xq_t, yq_t)

    def meta_loss(p, xs, ys, xq, yq):
        losses = vmap(adapted_query_loss, in_dims=(None, 0, 0, 0, 0))(p, xs, ys, xq, yq)
        return np.mean(losses)

    def loop():
        grads = [
            grad(adapted_query_loss)(params, xs[t], ys[t], xq[t], yq[t]) for t in range(len(xs))
        ]
        return [
            tuple(sum(g[k][j] for g in grads) / len(grads) for j in range(2))
            for k in range(len(params))
        ]

    return grad(meta_loss), (params, xs, ys, xq, yq), loop


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ftransforms.demo", description=__doc__)
    parser.add_argument("--batch", type=int, default=128, help="examples per batch (128)")
    parser.add_argument("--tasks", type=int, default=16, help="MAML tasks (16)")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--repeat", type=int, default=3, help="timing repetitions (3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--device",
        default="cpu",
        choices=["cpu", "cuda"],
        help="run on NumPy (cpu) or CuPy arrays (cuda)",
    )
    parser.add_argument(
        "--save-figures",
        metavar="DIR",
        help="also save the figures (gradient norms, Jacobian, Hessian, speedups)",
    )
    args = parser.parse_args(argv)

    xp, sync = _device(args.device)
    dtype = np.dtype(args.dtype)
    rng = np.random.default_rng(args.seed)
    x_all, y_all = _load_digits(dtype)
    idx = rng.choice(len(x_all), size=args.batch, replace=False)
    task_idx = rng.choice(len(x_all), size=(args.tasks, 20), replace=True)
    params = init_mlp(rng, [64, 32, 10], dtype)
    if xp is not np:  # everything on the GPU: ftransforms follows the arrays
        x_all, y_all = xp.asarray(x_all), xp.asarray(y_all)
        params = [(xp.asarray(w), xp.asarray(b)) for w, b in params]
        idx, task_idx = xp.asarray(idx), xp.asarray(task_idx)
    x, y = x_all[idx], y_all[idx]
    xs, ys = x_all[task_idx[:, :10]], y_all[task_idx[:, :10]]
    xq, yq = x_all[task_idx[:, 10:]], y_all[task_idx[:, 10:]]

    rows = [
        (f"per-sample gradients  vmap(grad)  B={args.batch}", *per_sample_gradients(params, x, y)),
        ("Jacobian d logits/d input  jacrev  10x64", *input_jacobian(params, x[0])),
        ("Hessian of loss wrt last bias  10x10", *last_layer_hessian(params, x, y)),
        (f"MAML meta-gradient  vmap over {args.tasks} tasks", *maml_step(params, xs, ys, xq, yq)),
    ]
    print(
        f"ftransforms demo: digits {tuple(x_all.shape)}, MLP 64-32-10 tanh, {dtype.name}, "
        f"{'CuPy on the GPU' if xp is not np else 'NumPy on the CPU'}\n"
    )
    header = (
        f"{'task':<48} {'ftransforms':>12} {'+ jit':>10} {'naive loop':>12} {'speedup':>8} "
        f"{'max |diff|':>11}"
    )
    tol = 1e-4 if dtype == np.float32 else 1e-10
    ok = True
    lines, outputs, timings = [], [], []
    for name, fast, fast_args, loop in _progress(rows):
        compiled = jit(fast)
        got, t_fast = _timed(lambda: fast(*fast_args), args.repeat, sync)
        got_jit, t_jit = _timed(lambda: compiled(*fast_args), args.repeat, sync)
        want, t_loop = _timed(loop, args.repeat, sync)
        diff = max(_max_diff(got, want), _max_diff(got_jit, want))
        ok &= diff <= tol
        outputs.append(got)
        timings.append((name, min(t_fast, t_jit), t_loop))
        lines.append(
            f"{name:<48} {t_fast * 1e3:>10.2f}ms {t_jit * 1e3:>8.2f}ms {t_loop * 1e3:>10.2f}ms "
            f"{t_loop / min(t_fast, t_jit):>7.1f}x {diff:>11.1e}"
        )
    print(header)
    print("-" * len(header))
    print("\n".join(lines))
    print(
        "\nbest of --repeat calls after a warm-up; '+ jit' = the same transformed function under "
        "ftransforms.jit\n(recorded on the warm-up call, replayed); speedup = naive loop / the "
        "faster of the two"
    )
    print("\nall results match the naive loop" if ok else "\nMISMATCH against the naive loop")
    if args.save_figures:
        results = {
            "per_sample": outputs[0],
            "jacobian": outputs[1],
            "hessian": outputs[2],
            "timings": timings,
        }
        for path in _save_figures(args.save_figures, results):
            print(f"saved {path}")
    return 0 if ok else 1


def _progress(rows: list) -> Any:
    """A progress bar over the tasks that appears only if they take over a second."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return rows
    return tqdm(rows, desc="timing", unit="task", delay=1.0, leave=False)


if __name__ == "__main__":
    raise SystemExit(main())
