"""Hand-written vectorized NumPy (CuPy with ``--device cuda``): ``benchmarks.reference`` run
in float32."""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks import reference
from benchmarks.peers import Peer, Unavailable


def cupy_or_unavailable() -> Any:
    try:
        import cupy
    except ImportError as e:
        raise Unavailable("cupy is not installed (pip install cupy-cuda12x)") from e
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise Unavailable("cupy sees no CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError as e:
        raise Unavailable(f"cupy sees no CUDA device ({e})") from e
    return cupy


def array_module(device: str) -> Any:
    """The array namespace of ``device``: NumPy (``cpu``), CuPy (``cuda``), or, for the
    tests only, the strict CuPy stand-in (``strict``: ``ftransforms.strict_backend``,
    NumPy storage that refuses host/device mixing as CuPy does), so that a peer that makes
    a host array next to device ones fails on the CPU too."""
    if device == "cuda":
        return cupy_or_unavailable()
    if device == "strict":
        from ftransforms import strict_backend

        return strict_backend.xp
    return np


def device_to_numpy(xp: Any, leaves: list) -> list:
    """The result leaves as NumPy arrays (``.get()`` is the explicit copy from the device)."""
    return [np.asarray(v) if xp is np else v.get() for v in leaves]


class NumpyPeer(Peer):
    name = "numpy"

    def setup(self, device: str, threads: int) -> None:
        super().setup(device, threads)
        self.xp = array_module(device)
        self.version = ("cupy " if device == "cuda" else "numpy ") + getattr(
            self.xp, "__version__", np.__version__
        )

    def convert(self, inputs: dict) -> dict:
        return {k: self.xp.asarray(v) for k, v in inputs.items()}

    def build(self, case: Any, inputs: dict) -> Any:
        return lambda: reference.compute(case, inputs, self.xp)

    def sync(self, out: Any) -> None:
        if self.device == "cuda":
            self.xp.cuda.get_current_stream().synchronize()

    def to_numpy(self, out: Any) -> list:
        return device_to_numpy(self.xp, out)
