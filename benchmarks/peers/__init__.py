"""The peers: one class per library, each turning a case into a zero-argument callable.

A peer module is imported only inside its worker process (``benchmarks.worker``), so the
main process never imports torch, JAX or autograd.  Every peer implements:

- ``setup(device, threads)``: import the library (``ImportError`` = peer skipped), pick the
  device (raise :class:`Unavailable` when it has no variant for it), set threads;
- ``convert(inputs)``: the case's NumPy inputs as the library's arrays (not timed);
- ``build(case, inputs)``: a zero-argument callable computing the case's result, or a
  string saying why this peer has no row for the case;
- ``sync(out)``: wait until ``out`` is computed (JAX dispatch, CUDA streams);
- ``to_numpy(out)``: the result as the canonical list of NumPy leaves (not timed).
"""

from __future__ import annotations

import importlib
from typing import Any

#: Table order; the value is (module, class name).
PEERS: dict[str, tuple[str, str]] = {
    "numpy": ("benchmarks.peers.numpy_peer", "NumpyPeer"),
    "ftransforms": ("benchmarks.peers.ftransforms_peer", "FtransformsPeer"),
    "ftransforms.jit": ("benchmarks.peers.ftransforms_peer", "FtransformsJitPeer"),
    "ftransforms.compiled": ("benchmarks.peers.ftransforms_peer", "FtransformsCompiledPeer"),
    "ftransforms.graph": ("benchmarks.peers.ftransforms_peer", "FtransformsGraphPeer"),
    "loop": ("benchmarks.peers.ftransforms_peer", "LoopPeer"),
    "torch.func": ("benchmarks.peers.torch_peer", "TorchPeer"),
    "jax": ("benchmarks.peers.jax_peer", "JaxPeer"),
    "jax.jit": ("benchmarks.peers.jax_peer", "JaxJitPeer"),
    "autograd": ("benchmarks.peers.autograd_peer", "AutogradPeer"),
}

ALIASES = {
    "ft.jit": "ftransforms.jit",
    "ft.compiled": "ftransforms.compiled",
    "ft.graph": "ftransforms.graph",
    "torch": "torch.func",
    "jit": "jax.jit",
    "jax-jit": "jax.jit",
    "np": "numpy",
}

#: What each peer row is, for the table's legend.
DESCRIPTIONS = {
    "numpy": "hand-written vectorized NumPy (derivatives by hand): the x-numpy baseline",
    "ftransforms": "ftransforms transforms of plain-NumPy user code (vmap(grad), jacrev, ...)",
    "ftransforms.jit": "the same under ftransforms.jit: recorded once, replayed as flat NumPy",
    "ftransforms.compiled": "ftransforms.jit's compiled tier (numba), compiled after the first "
    "call by jit(f).compile() (not timed: see the compiled-tier table)",
    "ftransforms.graph": "ftransforms.jit's replay as one CUDA graph per signature "
    "(FTRANSFORMS_JIT_CUDA_GRAPHS=always; CuPy only: elsewhere the replay)",
    "loop": "naive Python loop: ftransforms.grad/vjp/jvp per example, task or basis vector",
    "torch.func": "torch.func transforms on CPU tensors, CUDA ones with --device cuda (float32 "
    "matmuls at full precision there, no TF32) (the x-torch.func baseline)",
    "jax": "JAX transforms, eager (no jit); on the GPU float32 matmuls at full precision "
    "(jax_default_matmul_precision='highest'; JAX's default there is TF32)",
    "jax.jit": "JAX transforms under jax.jit (first call includes compilation); on the GPU "
    "float32 matmuls at full precision, as for jax",
    "autograd": "HIPS autograd: per-example/per-task loop; its own jacobian/hessian",
}


class Unavailable(Exception):
    """The peer is installed but cannot run here (e.g. no GPU for ``--device cuda``)."""


def canonical(name: str) -> str:
    name = ALIASES.get(name.strip(), name.strip())
    if name not in PEERS:
        raise ValueError(f"unknown peer {name!r}; choose from {', '.join(PEERS)}")
    return name


def load(name: str) -> Any:
    module, cls = PEERS[canonical(name)]
    return getattr(importlib.import_module(module), cls)()


class Peer:
    name = "?"
    version = ""

    def setup(self, device: str, threads: int) -> None:
        self.device = device

    def convert(self, inputs: dict) -> dict:
        return inputs

    def build(self, case: Any, inputs: dict) -> Any:
        method = getattr(self, case.workload.lower(), None)
        if method is None:
            return f"{self.name} has no {case.workload} implementation"
        return method(case, inputs)

    def sync(self, out: Any) -> None:
        pass

    def to_numpy(self, out: Any) -> list:
        raise NotImplementedError
