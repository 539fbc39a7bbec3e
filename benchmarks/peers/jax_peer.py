"""JAX transforms, eager and under ``jax.jit`` (float32, JAX's default; CPU, or the GPU
with ``--device cuda``).  Arrays are passed as arguments, never closed over, so that jit
does not fold them into constants.

On the GPU, JAX computes float32 matmuls in TF32 by default (10-bit mantissa inputs on
tensor cores, errors near 1e-3 against float64); every other peer computes them in full
float32 (CuPy and torch by default), so on ``--device cuda`` this peer sets
``jax_default_matmul_precision`` to ``"highest"`` (true float32) for its worker process."""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.cases import param_names
from benchmarks.peers import Peer, Unavailable
from benchmarks.reference import w5_chain

P3 = param_names(3)


class JaxPeer(Peer):
    name = "jax"
    jit = False

    def setup(self, device: str, threads: int) -> None:
        super().setup(device, threads)
        import jax
        import jax.numpy as jnp

        self.jax, self.jnp = jax, jnp
        try:
            self.dev = jax.devices("gpu" if device == "cuda" else "cpu")[0]
        except RuntimeError as e:
            raise Unavailable(f"JAX has no {'GPU' if device == 'cuda' else 'CPU'} backend") from e
        self.version = f"jax {jax.__version__} ({self.dev.platform})"
        if device == "cuda":  # full float32 matmuls, not TF32 (see the module docstring)
            jax.config.update("jax_default_matmul_precision", "highest")
            self.version += ", float32 matmuls at full precision"

    def convert(self, inputs: dict) -> dict:
        out = {}
        for k, v in inputs.items():
            if v.dtype == np.int64:  # JAX without x64 is int32 anyway; say so explicitly
                v = v.astype(np.int32)
            out[k] = self.jax.device_put(v, self.dev)
        return out

    def sync(self, out: Any) -> None:
        self.jax.block_until_ready(out)

    def to_numpy(self, out: Any) -> list:
        return [np.asarray(v) for v in out]

    def _wrap(self, f):
        return self.jax.jit(f) if self.jit else f

    def w1(self, case, inp):
        jax, jnp = self.jax, self.jnp

        def loss(p, x, y):
            w1, b1, w2, b2, w3, b3 = p
            h = jnp.tanh(x @ w1.T + b1)
            h = jnp.tanh(h @ w2.T + b2)
            logits = h @ w3.T + b3
            return jax.nn.logsumexp(logits) - logits[y]

        per_example = self._wrap(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))
        p = tuple(inp[k] for k in P3)
        return lambda: list(per_example(p, inp["x"], inp["y"]))

    def w2(self, case, inp):
        jax, jnp = self.jax, self.jnp
        jac = {"jacrev": jax.jacrev, "jacfwd": jax.jacfwd}[case.mode]
        j = self._wrap(jac(lambda v, w, b: jnp.tanh(w @ v + b)))
        return lambda: [j(inp["x"], inp["w"], inp["b"])]

    def w3(self, case, inp):
        jax, jnp = self.jax, self.jnp
        h = self._wrap(jax.hessian(lambda v, a: jnp.sum(jnp.tanh(a @ v) ** 2) + jnp.sum(v**2) ** 2))
        return lambda: [h(inp["x"], inp["a"])]

    def w4(self, case, inp):
        jax, jnp, lr = self.jax, self.jnp, case.extra["lr"]

        def mse(p, x, y):
            w1, b1, w2, b2, w3, b3 = p
            h = jax.nn.relu(x @ w1.T + b1)
            h = jax.nn.relu(h @ w2.T + b2)
            return jnp.mean((h @ w3.T + b3 - y) ** 2)

        def task_loss(p, xs, ys, xq, yq):
            g = jax.grad(mse)(p, xs, ys)
            return mse(tuple(a - lr * ga for a, ga in zip(p, g)), xq, yq)

        def meta_loss(p, xs, ys, xq, yq):
            return jnp.mean(jax.vmap(task_loss, in_axes=(None, 0, 0, 0, 0))(p, xs, ys, xq, yq))

        meta_grad = self._wrap(jax.grad(meta_loss))
        p = tuple(inp[k] for k in P3)
        data = tuple(inp[k] for k in ("xs", "ys", "xq", "yq"))
        return lambda: list(meta_grad(p, *data))

    def w5(self, case, inp):
        jax, jnp, x = self.jax, self.jnp, inp["x"]
        chain = lambda v: w5_chain(jnp, v)
        g = jax.grad(lambda v: jnp.sum(w5_chain(jnp, v)))
        f = {"none": chain, "grad": g, "vmap": jax.vmap(chain), "vmap_grad": jax.vmap(g)}
        f = self._wrap(f[case.mode])
        return lambda: [f(x)]

    def w6(self, case, inp):
        jax, jnp = self.jax, self.jnp

        def loss(p, x, y):  # one sequence, the recurrence as lax.scan
            wx, wh, b, v = p
            h = wh.shape[1]
            xz = x @ wx.T + b

            def step(carry, inputs):
                hh, cc = carry
                xz_t, y_t = inputs
                z = xz_t + wh @ hh
                i, f = jax.nn.sigmoid(z[:h]), jax.nn.sigmoid(z[h : 2 * h])
                g, o = jnp.tanh(z[2 * h : 3 * h]), jax.nn.sigmoid(z[3 * h :])
                cc = f * cc + i * g
                hh = o * jnp.tanh(cc)
                return (hh, cc), (hh @ v - y_t) ** 2

            h0 = jnp.zeros(h, dtype=x.dtype)
            return jax.lax.scan(step, (h0, h0), (xz, y))[1].mean()

        per_seq = self._wrap(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))
        p = tuple(inp[k] for k in ("wx", "wh", "b", "v"))
        return lambda: list(per_seq(p, inp["x"], inp["y"]))


class JaxJitPeer(JaxPeer):
    name = "jax.jit"
    jit = True
