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


class NumpyPeer(Peer):
    name = "numpy"

    def setup(self, device: str, threads: int) -> None:
        super().setup(device, threads)
        self.xp = cupy_or_unavailable() if device == "cuda" else np
        self.version = ("cupy " if device == "cuda" else "numpy ") + self.xp.__version__

    def convert(self, inputs: dict) -> dict:
        return {k: self.xp.asarray(v) for k, v in inputs.items()}

    def build(self, case: Any, inputs: dict) -> Any:
        return lambda: reference.compute(case, inputs, self.xp)

    def sync(self, out: Any) -> None:
        if self.xp is not np:
            self.xp.cuda.get_current_stream().synchronize()

    def to_numpy(self, out: Any) -> list:
        return [self.xp.asnumpy(v) if self.xp is not np else np.asarray(v) for v in out]
