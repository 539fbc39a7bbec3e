"""ftransforms, and the naive Python loop over ftransforms.grad/vjp/jvp.

The model code is plain ``import numpy as np`` (what ftransforms users write); W5 uses the
explicit ``ftransforms.numpy`` namespace so that its no-transform row measures
``fnp.sin(x)`` against ``np.sin(x)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.cases import param_names
from benchmarks.peers import Peer
from benchmarks.peers.numpy_peer import array_module, device_to_numpy
from benchmarks.reference import w5_chain

P3 = param_names(3)

# -- user code: plain NumPy --------------------------------------------------------------


def mlp_loss(p: tuple, x: Any, y: Any) -> Any:
    """Softmax cross-entropy of one example (W1)."""
    w1, b1, w2, b2, w3, b3 = p
    h = np.tanh(x @ w1.T + b1)
    h = np.tanh(h @ w2.T + b2)
    logits = h @ w3.T + b3
    m = logits.max()
    return np.log(np.sum(np.exp(logits - m))) + m - logits[y]


def relu_net(p: tuple, x: Any) -> Any:
    w1, b1, w2, b2, w3, b3 = p
    h = np.maximum(x @ w1.T + b1, 0)
    h = np.maximum(h @ w2.T + b2, 0)
    return h @ w3.T + b3


def mse(p: tuple, x: Any, y: Any) -> Any:
    return np.mean((relu_net(p, x) - y) ** 2)


W6_PARAMS = ("wx", "wh", "b", "v")


def lstm_loss(ft: Any, step_wrapper: Any = None, segment: int | None = None) -> Any:
    """The W6 loss of ONE sequence, x (T, D), y (T,): an LSTM over ``ft.scan`` (see
    ``benchmarks.reference.w6_lstm_grads`` for the equations).  ``step_wrapper`` wraps the
    step (``ft.checkpoint``); with ``segment``, the steps run as a scan over checkpointed
    segments of that many steps (``benchmarks.lstm_memory``)."""

    def loss(p: tuple, x: Any, y: Any) -> Any:
        wx, wh, b, v = p
        h = wh.shape[1]
        h0 = np.zeros_like(v)  # on the arrays' backend (np.zeros(h) would be a host array)
        xz = x @ wx.T + b  # the input projection of every step at once

        def step(carry, inputs):
            hh, cc = carry
            xz_t, y_t = inputs
            z = xz_t + wh @ hh
            i, f = 1 / (1 + np.exp(-z[:h])), 1 / (1 + np.exp(-z[h : 2 * h]))
            g, o = np.tanh(z[2 * h : 3 * h]), 1 / (1 + np.exp(-z[3 * h :]))
            cc = f * cc + i * g
            hh = o * np.tanh(cc)
            return (hh, cc), (hh @ v - y_t) ** 2

        body = step if step_wrapper is None else step_wrapper(step)
        if segment is None:
            _, errors = ft.scan(body, (h0, h0), (xz, y))
            return errors.mean()

        @ft.checkpoint
        def run_segment(carry, inputs):
            return ft.scan(body, carry, inputs)

        n = xz.shape[0] // segment
        chunks = (xz.reshape(n, segment, -1), y.reshape(n, segment))
        _, errors = ft.scan(run_segment, (h0, h0), chunks)
        return errors.mean()

    return loss


class FtransformsPeer(Peer):
    name = "ftransforms"

    def setup(self, device: str, threads: int) -> None:
        super().setup(device, threads)
        import ftransforms
        import ftransforms.numpy as fnp

        self.ft, self.fnp = ftransforms, fnp
        self.xp = array_module(device)  # "strict" (tests only): the CuPy stand-in
        self.version = getattr(ftransforms, "__version__", "")
        if not self.version:
            from importlib.metadata import version

            self.version = version("ftransforms")

    def convert(self, inputs: dict) -> dict:
        return {k: self.xp.asarray(v) for k, v in inputs.items()}

    def sync(self, out: Any) -> None:
        if self.device == "cuda":
            self.xp.cuda.get_current_stream().synchronize()

    def to_numpy(self, out: Any) -> list:
        return device_to_numpy(self.xp, out if isinstance(out, list) else [out])

    def _wrap(self, f):
        """The transformed function as timed (``ftransforms.jit`` in the jit peer)."""
        return f

    # each method returns a callable producing the canonical list of leaves; arrays are
    # arguments, never closed over, so that jit records them as inputs (as for jax.jit)

    def w1(self, case, inp):
        p = tuple(inp[k] for k in P3)
        per_example = self._wrap(self.ft.vmap(self.ft.grad(mlp_loss), in_dims=(None, 0, 0)))
        return lambda: list(per_example(p, inp["x"], inp["y"]))

    def w2(self, case, inp):
        jac = {"jacrev": self.ft.jacrev, "jacfwd": self.ft.jacfwd}[case.mode]
        j = self._wrap(jac(lambda v, w, b: np.tanh(w @ v + b)))
        return lambda: [j(inp["x"], inp["w"], inp["b"])]

    def w3(self, case, inp):
        h = self._wrap(
            self.ft.hessian(lambda v, a: np.sum(np.tanh(a @ v) ** 2) + np.sum(v**2) ** 2)
        )
        return lambda: [h(inp["x"], inp["a"])]

    def _task_loss(self, lr):
        grad = self.ft.grad

        def task_loss(p, xs, ys, xq, yq):
            g = grad(mse)(p, xs, ys)
            return mse(tuple(a - lr * ga for a, ga in zip(p, g)), xq, yq)

        return task_loss

    def w4(self, case, inp):
        ft, task_loss = self.ft, self._task_loss(case.extra["lr"])
        p = tuple(inp[k] for k in P3)
        data = tuple(inp[k] for k in ("xs", "ys", "xq", "yq"))

        def meta_loss(p, xs, ys, xq, yq):
            return np.mean(ft.vmap(task_loss, in_dims=(None, 0, 0, 0, 0))(p, xs, ys, xq, yq))

        meta_grad = self._wrap(ft.grad(meta_loss))
        return lambda: list(meta_grad(p, *data))

    def w5(self, case, inp):
        ft, fnp, x = self.ft, self.fnp, inp["x"]
        chain = lambda v: w5_chain(fnp, v)
        g = ft.grad(lambda v: fnp.sum(w5_chain(fnp, v)))
        fn = {"none": chain, "grad": g, "vmap": ft.vmap(chain), "vmap_grad": ft.vmap(g)}
        f = self._wrap(fn[case.mode])
        return lambda: [f(x)]

    def w6(self, case, inp):
        ft = self.ft
        p = tuple(inp[k] for k in W6_PARAMS)
        per_seq = self._wrap(ft.vmap(ft.grad(lstm_loss(ft)), in_dims=(None, 0, 0)))
        return lambda: list(per_seq(p, inp["x"], inp["y"]))


class FtransformsJitPeer(FtransformsPeer):
    """The same transformed functions under ``ftransforms.jit``: recorded on the first
    call (the ``first call`` column), replayed as straight-line NumPy afterwards."""

    name = "ftransforms.jit"

    def _wrap(self, f):
        return self.ft.jit(f, compile=False)  # the replay tier; see FtransformsCompiledPeer


class FtransformsGraphPeer(FtransformsJitPeer):
    """``ftransforms.jit``'s replay captured as one CUDA graph per signature (NOTE [CUDA
    graphs], opt-in): on CuPy, the first replay captures; elsewhere it is the replay."""

    name = "ftransforms.graph"

    def setup(self, device: str, threads: int) -> None:
        import os

        os.environ["FTRANSFORMS_JIT_CUDA_GRAPHS"] = "always"  # (each peer: its own process)
        super().setup(device, threads)


class FtransformsCompiledPeer(FtransformsPeer):
    """``ftransforms.jit``'s compiled tier: the first call records (the ``first call``
    column, as for the replay), then ``jit(f).compile()`` compiles what it recorded,
    timed apart (``after_first``: cold in the first pass, from the disk cache in the
    next ones, as ``run.py`` gives every run a fresh cache folder)."""

    name = "ftransforms.compiled"

    def setup(self, device: str, threads: int) -> None:
        super().setup(device, threads)
        self.jitted: list = []

    def _wrap(self, f):
        j = self.ft.jit(f, compile=False)
        self.jitted.append(j)
        return j

    def after_first(self) -> dict:
        import time

        t0 = time.perf_counter()
        for j in self.jitted:
            j.compile()
        seconds = time.perf_counter() - t0
        tiers = sorted({p.tier for j in self.jitted for p in j.cache.values()})
        self.jitted = []
        return {"compile_s": seconds, "tier": ", ".join(tiers)}


class LoopPeer(FtransformsPeer):
    """The naive loop: one ftransforms.grad (vjp, jvp) call per example / task / basis
    vector, results stacked."""

    name = "loop"

    def w1(self, case, inp):
        p = tuple(inp[k] for k in P3)
        g, x, y, xp = self.ft.grad(mlp_loss), inp["x"], inp["y"], self.xp

        def run():
            grads = [g(p, x[i], y[i]) for i in range(x.shape[0])]
            return [xp.stack([gi[k] for gi in grads]) for k in range(len(p))]

        return run

    def w2(self, case, inp):
        ft, xp = self.ft, self.xp
        w, b, x = inp["w"], inp["b"], inp["x"]
        f = lambda v: np.tanh(w @ v + b)
        eye = xp.eye(x.shape[0], dtype=x.dtype)
        if case.mode == "jacrev":

            def run():
                _, vjp_fn = ft.vjp(f, x)
                return [xp.stack([vjp_fn(e)[0] for e in eye])]
        else:

            def run():
                return [xp.stack([ft.jvp(f, (x,), (e,))[1] for e in eye], axis=1)]

        return run

    def w3(self, case, inp):
        ft, xp = self.ft, self.xp
        a, x = inp["a"], inp["x"]
        g = ft.grad(lambda v: np.sum(np.tanh(a @ v) ** 2) + np.sum(v**2) ** 2)
        eye = xp.eye(x.shape[0], dtype=x.dtype)
        return lambda: [xp.stack([ft.jvp(g, (x,), (e,))[1] for e in eye], axis=1)]

    def w4(self, case, inp):
        g = self.ft.grad(self._task_loss(case.extra["lr"]))
        p = tuple(inp[k] for k in P3)
        xs, ys, xq, yq = (inp[k] for k in ("xs", "ys", "xq", "yq"))
        n = xs.shape[0]

        def run():
            grads = [g(p, xs[t], ys[t], xq[t], yq[t]) for t in range(n)]
            return [sum(gt[k] for gt in grads) / n for k in range(len(p))]

        return run

    def w6(self, case, inp):
        g = self.ft.grad(lstm_loss(self.ft))
        p = tuple(inp[k] for k in W6_PARAMS)
        x, y, xp = inp["x"], inp["y"], self.xp

        def run():
            grads = [g(p, x[i], y[i]) for i in range(x.shape[0])]
            return [xp.stack([gi[k] for gi in grads]) for k in range(len(p))]

        return run

    def w5(self, case, inp):
        if case.mode in ("none", "grad"):
            return "no batch to loop over: the ftransforms row"
        ft, fnp, xp, x = self.ft, self.fnp, self.xp, inp["x"]
        if case.mode == "vmap":
            f = lambda v: w5_chain(fnp, v)
        else:
            f = ft.grad(lambda v: fnp.sum(w5_chain(fnp, v)))
        return lambda: [xp.stack([f(x[i]) for i in range(x.shape[0])])]
