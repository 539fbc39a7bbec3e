"""HIPS autograd (CPU only).  It has no vmap: per-example (W1), per-task (W4) and per-row
(W5 vmap rows) Python loops; its own ``jacobian``/``hessian`` for W2 jacrev and W3, and a
loop of its forward-mode ``make_jvp`` over basis vectors for W2 jacfwd."""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.cases import param_names
from benchmarks.peers import Peer, Unavailable
from benchmarks.reference import w5_chain

P3 = param_names(3)


class AutogradPeer(Peer):
    name = "autograd"

    def setup(self, device: str, threads: int) -> None:
        super().setup(device, threads)
        import autograd
        import autograd.numpy as anp

        if device == "cuda":
            raise Unavailable("autograd runs on NumPy arrays only (no GPU)")
        self.ag, self.anp = autograd, anp
        from importlib.metadata import version

        self.version = f"autograd {version('autograd')}"

    def to_numpy(self, out: Any) -> list:
        return [np.asarray(v) for v in out]

    def w1(self, case, inp):
        ag, anp = self.ag, self.anp

        def loss(p, x, y):
            w1, b1, w2, b2, w3, b3 = p
            h = anp.tanh(anp.dot(x, w1.T) + b1)
            h = anp.tanh(anp.dot(h, w2.T) + b2)
            logits = anp.dot(h, w3.T) + b3
            m = anp.max(logits)
            return anp.log(anp.sum(anp.exp(logits - m))) + m - logits[y]

        g = ag.grad(loss)
        p = tuple(inp[k] for k in P3)
        x, y = inp["x"], inp["y"]

        def run():
            grads = [g(p, x[i], int(y[i])) for i in range(x.shape[0])]
            return [np.stack([gi[k] for gi in grads]) for k in range(len(p))]

        return run

    def w2(self, case, inp):
        ag, anp = self.ag, self.anp
        w, b, x = inp["w"], inp["b"], inp["x"]
        f = lambda v: anp.tanh(anp.dot(w, v) + b)
        if case.mode == "jacrev":
            j = ag.jacobian(f)
            return lambda: [j(x)]
        from autograd.differential_operators import make_jvp

        eye = np.eye(x.shape[0], dtype=x.dtype)

        def run():
            push = make_jvp(f)(x)
            return [np.stack([push(e)[1] for e in eye], axis=1)]

        return run

    def w3(self, case, inp):
        ag, anp = self.ag, self.anp
        a = inp["a"]
        h = ag.hessian(lambda v: anp.sum(anp.tanh(anp.dot(a, v)) ** 2) + anp.sum(v**2) ** 2)
        return lambda: [h(inp["x"])]

    def w4(self, case, inp):
        ag, anp, lr = self.ag, self.anp, case.extra["lr"]

        def mse(p, x, y):
            w1, b1, w2, b2, w3, b3 = p
            h = anp.maximum(anp.dot(x, w1.T) + b1, 0.0)
            h = anp.maximum(anp.dot(h, w2.T) + b2, 0.0)
            return anp.mean((anp.dot(h, w3.T) + b3 - y) ** 2)

        def task_loss(p, xs, ys, xq, yq):
            g = ag.grad(mse)(p, xs, ys)
            return mse(tuple(a - lr * ga for a, ga in zip(p, g)), xq, yq)

        g = ag.grad(task_loss)
        p = tuple(inp[k] for k in P3)
        xs, ys, xq, yq = (inp[k] for k in ("xs", "ys", "xq", "yq"))
        n = xs.shape[0]

        def run():
            grads = [g(p, xs[t], ys[t], xq[t], yq[t]) for t in range(n)]
            return [sum(gt[k] for gt in grads) / n for k in range(len(p))]

        return run

    def w5(self, case, inp):
        ag, anp, x = self.ag, self.anp, inp["x"]
        chain = lambda v: w5_chain(anp, v)
        g = ag.grad(lambda v: anp.sum(w5_chain(anp, v)))
        f = chain if case.mode in ("none", "vmap") else g
        if case.mode in ("none", "grad"):
            return lambda: [f(x)]
        return lambda: [np.stack([f(x[i]) for i in range(x.shape[0])])]
