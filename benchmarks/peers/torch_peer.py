"""torch.func (functorch) on CPU tensors, or CUDA tensors with ``--device cuda``.

Pure functions of a parameter tuple (no nn.Module / functional_call needed); the thread
count is set to numpy's (``torch.set_num_threads``).  On CUDA, float32 matmuls (and cuDNN
convolutions, whose default is TF32, should a workload add one) are set to full float32
precision, as for the other peers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.cases import param_names
from benchmarks.peers import Peer, Unavailable
from benchmarks.reference import w5_chain

P3 = param_names(3)


def _full_float32(torch: Any) -> None:
    """No TF32 on CUDA: matmuls are full float32 by default, cuDNN convolutions are not."""
    matmul = torch.backends.cuda.matmul
    if hasattr(matmul, "fp32_precision"):  # torch >= 2.9: the allow_tf32 flags are deprecated
        matmul.fp32_precision = "ieee"
        torch.backends.cudnn.conv.fp32_precision = "ieee"
    else:
        matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False


class TorchPeer(Peer):
    name = "torch.func"

    def setup(self, device: str, threads: int) -> None:
        super().setup(device, threads)
        import torch
        import torch.func

        self.torch = torch
        if device == "cuda" and not torch.cuda.is_available():
            raise Unavailable("torch.cuda.is_available() is False")
        self.dev = torch.device("cuda" if device == "cuda" else "cpu")
        if device == "cuda":
            _full_float32(torch)
        torch.set_num_threads(threads)
        self.version = f"torch {torch.__version__} (threads: {torch.get_num_threads()})"

    def convert(self, inputs: dict) -> dict:
        to = lambda v: self.torch.from_numpy(np.ascontiguousarray(v)).to(self.dev)
        return {k: to(v) for k, v in inputs.items()}

    def sync(self, out: Any) -> None:
        if self.dev.type == "cuda":
            self.torch.cuda.synchronize()

    def to_numpy(self, out: Any) -> list:
        return [t.detach().cpu().numpy() for t in out]

    def w1(self, case, inp):
        torch, tf = self.torch, self.torch.func
        F = torch.nn.functional

        def loss(p, x, y):
            w1, b1, w2, b2, w3, b3 = p
            h = torch.tanh(x @ w1.T + b1)
            h = torch.tanh(h @ w2.T + b2)
            logits = h @ w3.T + b3
            return F.cross_entropy(logits.unsqueeze(0), y.unsqueeze(0))

        per_example = tf.vmap(tf.grad(loss), in_dims=(None, 0, 0))
        p = tuple(inp[k] for k in P3)
        return lambda: list(per_example(p, inp["x"], inp["y"]))

    def w2(self, case, inp):
        torch, tf = self.torch, self.torch.func
        w, b, x = inp["w"], inp["b"], inp["x"]
        jac = {"jacrev": tf.jacrev, "jacfwd": tf.jacfwd}[case.mode]
        j = jac(lambda v: torch.tanh(w @ v + b))
        return lambda: [j(x)]

    def w3(self, case, inp):
        torch, tf = self.torch, self.torch.func
        a, x = inp["a"], inp["x"]
        h = tf.hessian(lambda v: torch.sum(torch.tanh(a @ v) ** 2) + torch.sum(v**2) ** 2)
        return lambda: [h(x)]

    def w4(self, case, inp):
        torch, tf, lr = self.torch, self.torch.func, case.extra["lr"]

        def mse(p, x, y):
            w1, b1, w2, b2, w3, b3 = p
            h = torch.relu(x @ w1.T + b1)
            h = torch.relu(h @ w2.T + b2)
            return torch.mean((h @ w3.T + b3 - y) ** 2)

        def task_loss(p, xs, ys, xq, yq):
            g = tf.grad(mse)(p, xs, ys)
            return mse(tuple(a - lr * ga for a, ga in zip(p, g)), xq, yq)

        def meta_loss(p, xs, ys, xq, yq):
            return torch.mean(tf.vmap(task_loss, in_dims=(None, 0, 0, 0, 0))(p, xs, ys, xq, yq))

        meta_grad = tf.grad(meta_loss)
        p = tuple(inp[k] for k in P3)
        data = tuple(inp[k] for k in ("xs", "ys", "xq", "yq"))
        return lambda: list(meta_grad(p, *data))

    def w5(self, case, inp):
        torch, tf, x = self.torch, self.torch.func, inp["x"]
        chain = lambda v: w5_chain(torch, v)
        g = tf.grad(lambda v: torch.sum(w5_chain(torch, v)))
        f = {"none": chain, "grad": g, "vmap": tf.vmap(chain), "vmap_grad": tf.vmap(g)}[case.mode]
        return lambda: [f(x)]

    def w6(self, case, inp):
        torch, tf = self.torch, self.torch.func

        def loss(p, x, y):  # one sequence; the recurrence is a Python loop over the steps
            wx, wh, b, v = p
            h = wh.shape[1]
            xz = x @ wx.T + b
            hh = cc = torch.zeros(h, dtype=x.dtype, device=x.device)
            total = 0
            for t in range(x.shape[0]):
                z = xz[t] + wh @ hh
                i, f = torch.sigmoid(z[:h]), torch.sigmoid(z[h : 2 * h])
                g, o = torch.tanh(z[2 * h : 3 * h]), torch.sigmoid(z[3 * h :])
                cc = f * cc + i * g
                hh = o * torch.tanh(cc)
                total = total + (hh @ v - y[t]) ** 2
            return total / x.shape[0]

        per_seq = tf.vmap(tf.grad(loss), in_dims=(None, 0, 0))
        p = tuple(inp[k] for k in ("wx", "wh", "b", "v"))
        return lambda: list(per_seq(p, inp["x"], inp["y"]))
