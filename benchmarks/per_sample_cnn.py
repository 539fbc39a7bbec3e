"""Per-example gradients of a small CNN (MNIST-sized, float32): ``ftransforms.nn`` under
``vmap(grad)`` against a Python loop of ``grad`` and, when installed, ``torch.func`` and
JAX (jitted, compile excluded).  Standalone: ``python -m benchmarks.per_sample_cnn``.

Model: conv 1->16 3x3 pad 1, relu, maxpool 2, conv 16->32 3x3 pad 1, relu, maxpool 2,
linear 1568->10, cross-entropy.  Times are the best of ``--repeat`` runs.  On a busy
machine, threaded BLAS makes the small stacked GEMMs erratic: compare single-threaded
(``OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 XLA_FLAGS=--xla_cpu_multi_thread_eigen=false``).
"""

from __future__ import annotations

import argparse
import timeit

import numpy as np


def _best(fn, repeat):
    fn()
    return min(timeit.repeat(fn, number=1, repeat=repeat))


def _ftransforms(params, x, y, repeat, loop):
    from ftransforms import grad, nn, vmap  # noqa: PLC0415

    def model(p, x):
        x = nn.relu(nn.conv2d(x, p["c1"]["w"], p["c1"]["b"], padding=1))
        x = nn.max_pool2d(x, 2)
        x = nn.relu(nn.conv2d(x, p["c2"]["w"], p["c2"]["b"], padding=1))
        x = nn.max_pool2d(x, 2)
        return nn.linear(p["fc"], nn.flatten(x, x.ndim - 3))

    def loss(p, x, y):
        return nn.cross_entropy(model(p, x), y)

    per_example = vmap(grad(loss), in_dims=(None, 0, 0))
    out = {"ftransforms vmap(grad)": _best(lambda: per_example(params, x, y), repeat)}
    if loop:
        g = grad(loss)
        out["ftransforms loop of grad"] = _best(
            lambda: [g(params, x[i], y[i]) for i in range(len(x))], max(1, repeat // 2)
        )
    return out


def _torch(params, x, y, repeat):
    try:
        import torch  # noqa: PLC0415
        from torch.func import grad, vmap  # noqa: PLC0415
    except ImportError:
        return {}
    F = torch.nn.functional
    tp = {k: {n: torch.tensor(v) for n, v in d.items()} for k, d in params.items()}

    def loss(p, x, y):
        h = F.max_pool2d(F.relu(F.conv2d(x[None], p["c1"]["w"], p["c1"]["b"], padding=1)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, p["c2"]["w"], p["c2"]["b"], padding=1)), 2)
        return F.cross_entropy(F.linear(h.flatten(1), p["fc"]["w"], p["fc"]["b"]), y[None])

    f = vmap(grad(loss), in_dims=(None, 0, 0))
    tx, ty = torch.tensor(x), torch.tensor(y)
    return {"torch.func vmap(grad)": _best(lambda: f(tp, tx, ty), repeat)}


def _jax(params, x, y, repeat):
    try:
        import jax  # noqa: PLC0415
        import jax.numpy as jnp  # noqa: PLC0415
    except ImportError:
        return {}

    def conv(h, q):
        dn = ("NCHW", "OIHW", "NCHW")
        out = jax.lax.conv_general_dilated(
            h, q["w"], (1, 1), ((1, 1), (1, 1)), dimension_numbers=dn
        )
        return out + q["b"].reshape(-1, 1, 1)

    def pool(h):
        n, c, hh, ww = h.shape
        return h.reshape(n, c, hh // 2, 2, ww // 2, 2).max(axis=(3, 5))

    def loss(p, x, y):
        h = pool(jax.nn.relu(conv(x[None], p["c1"])))
        h = pool(jax.nn.relu(conv(h, p["c2"])))
        logits = h.reshape(1, -1) @ p["fc"]["w"].T + p["fc"]["b"]
        return -jax.nn.log_softmax(logits[0])[y]

    f = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))
    jp = jax.tree_util.tree_map(jnp.asarray, params)
    jx, jy = jnp.asarray(x), jnp.asarray(y)

    def run():
        jax.block_until_ready(f(jp, jx, jy))

    return {"jax jit(vmap(grad))": _best(run, repeat)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-loop", action="store_true")
    parser.add_argument("--no-peers", action="store_true")
    args = parser.parse_args(argv)

    from ftransforms import nn  # noqa: PLC0415

    rng = np.random.default_rng(0)
    params = {
        "c1": nn.init_conv2d(rng, 1, 16, 3),
        "c2": nn.init_conv2d(rng, 16, 32, 3),
        "fc": nn.init_linear(rng, 32 * 7 * 7, 10),
    }
    x = rng.normal(size=(args.batch, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, size=args.batch)
    rows = _ftransforms(params, x, y, args.repeat, not args.no_loop)
    if not args.no_peers:
        rows.update(_torch(params, x, y, args.repeat))
        rows.update(_jax(params, x, y, args.repeat))
    base = rows["ftransforms vmap(grad)"]
    print(f"per-example gradients, CNN, batch {args.batch}, float32")
    for name, t in rows.items():
        print(f"  {name:28s} {t * 1e3:9.1f} ms   ({t / base:5.2f}x ftransforms vmap)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
