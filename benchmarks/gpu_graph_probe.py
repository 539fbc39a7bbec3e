"""Can a recorded program with matrix products be one CUDA graph on CuPy?  A probe.

CuPy 14 refuses every cuBLAS call while a stream is capturing (its ``setStream`` raises
``NotImplementedError``), so ``ft.jit``'s replay of W1 (five matrix products) cannot be
captured, while W5 (elementwise only) captured as a graph launches in 0.06x the replay's
time on an H200 (``benchmarks/README.md``, run 5).  cuBLAS itself supports stream capture
(given a workspace of its own: ``cublasSetWorkspace``).  This probe, for the next step of
issue 25 on the GPU, calls ``cublasSgemm``/``cublasDgemm`` through ctypes on CuPy's own
handle for the 2-D products of the replay while capturing (everything else is CuPy's own
call), then launches the graph and compares its results and time with the replay's.
It is a measurement, not a tier: the library never calls cuBLAS behind CuPy's back.

    python -m benchmarks.gpu_graph_probe --batch 32     # on the GPU machine
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from typing import Any

import numpy as np

from benchmarks.gpu_check import _median_seconds

_OP_N, _OP_T = 0, 1


def _libcublas() -> ctypes.CDLL:
    """The libcublas that CuPy loaded (found in this process's memory map)."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "libcublas.so" in path and "Lt" not in path:
                return ctypes.CDLL(path)
    raise RuntimeError("libcublas is not loaded: call a CuPy matmul first")


class CapturableGemm:
    """``matmul(a, b)`` of 2-D float32/float64 arrays through cuBLAS on CuPy's handle,
    callable while a stream is capturing; other cases go to CuPy's ``matmul``."""

    def __init__(self, cupy: Any) -> None:
        self.cupy, self.original = cupy, cupy.matmul
        cupy.matmul(cupy.ones((2, 2), np.float32), cupy.ones((2, 2), np.float32))
        self.lib = _libcublas()
        self.handle = ctypes.c_void_p(cupy.cuda.device.get_cublas_handle())
        self.workspace = cupy.empty(32 << 20, np.uint8)  # cuBLAS's own, fixed for graphs
        rc = self.lib.cublasSetWorkspace_v2(
            self.handle, ctypes.c_void_p(self.workspace.data.ptr), ctypes.c_size_t(32 << 20)
        )
        if rc:
            raise RuntimeError(f"cublasSetWorkspace_v2 returned {rc}")
        self.calls = 0

    def __call__(self, a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
        cupy = self.cupy
        ok = (
            not args
            and not kwargs
            and a.ndim == 2
            and b.ndim == 2
            and a.dtype == b.dtype
            and a.dtype in (np.float32, np.float64)
            and (a.flags.c_contiguous or a.flags.f_contiguous)
            and (b.flags.c_contiguous or b.flags.f_contiguous)
        )
        if not ok:
            return self.original(a, b, *args, **kwargs)
        m, k = a.shape
        n = b.shape[1]
        c = cupy.empty((m, n), a.dtype)
        # row-major C = A B is column-major C^T = B^T A^T
        op_b, ldb = (_OP_N, n) if b.flags.c_contiguous else (_OP_T, k)
        op_a, lda = (_OP_N, k) if a.flags.c_contiguous else (_OP_T, m)
        scalar = ctypes.c_float if a.dtype == np.float32 else ctypes.c_double
        gemm = self.lib.cublasSgemm_v2 if a.dtype == np.float32 else self.lib.cublasDgemm_v2
        stream = ctypes.c_void_p(cupy.cuda.get_current_stream().ptr)
        self.lib.cublasSetStream_v2(self.handle, stream)
        alpha, beta = scalar(1.0), scalar(0.0)
        rc = gemm(
            self.handle, op_b, op_a, n, m, k, ctypes.byref(alpha),
            ctypes.c_void_p(b.data.ptr), ldb, ctypes.c_void_p(a.data.ptr), lda,
            ctypes.byref(beta), ctypes.c_void_p(c.data.ptr), n,
        )  # fmt: skip
        if rc:
            raise RuntimeError(f"cublas gemm returned {rc}")
        self.calls += 1
        return c


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.gpu_graph_probe")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--reps", type=int, default=50)
    args = p.parse_args(argv)
    import cupy

    import ftransforms as ft
    from benchmarks import cases
    from benchmarks.peers.ftransforms_peer import P3, mlp_loss

    (case,) = cases.make_cases(["W1"], sizes_override={"W1": [args.batch]})
    dev = {k: cupy.asarray(v) for k, v in cases.make_inputs(case).items()}
    fn = ft.vmap(ft.grad(mlp_loss), in_dims=(None, 0, 0))
    call = (tuple(dev[k] for k in P3), dev["x"], dev["y"])
    gemm = CapturableGemm(cupy)
    replay = ft.jit(fn, compile=False)
    want = [cupy.asnumpy(g) for g in replay(*call)]
    t_replay = _median_seconds(lambda: replay(*call), cupy.cuda.Device().synchronize, args.reps)
    stream = cupy.cuda.Stream(non_blocking=True)
    cupy.matmul = gemm  # before the recording: the generated program binds its matmul
    jf = ft.jit(fn, compile=False)
    try:
        with stream:
            jf(*call)  # the recording, then a replay: warms this stream's memory pool
            direct = [cupy.asnumpy(g) for g in jf(*call)]
            stream.synchronize()
            stream.begin_capture()
            try:
                got = jf(*call)
            finally:
                graph = stream.end_capture()
            graph.launch(stream)
            stream.synchronize()
            t_graph = _median_seconds(lambda: graph.launch(stream), stream.synchronize, args.reps)
            t_direct = _median_seconds(lambda: jf(*call), stream.synchronize, args.reps)
    except Exception as err:  # noqa: BLE001 - the probe reports what capture refused
        print(f"[graph+cublas] W1 B={args.batch}: failed: {type(err).__name__}: {err}")
        return 1
    finally:
        cupy.matmul = gemm.original

    def worst(xs: list) -> float:
        return max(
            float(np.max(np.abs(cupy.asnumpy(x) - w)) / max(float(np.max(np.abs(w))), 1e-30))
            for x, w in zip(xs, want)
        )

    print(
        f"[graph+cublas] W1 B={args.batch}: {gemm.calls} gemm calls through ctypes; replay "
        f"{t_replay * 1e6:.1f} us, replay with the ctypes gemm {t_direct * 1e6:.1f} us, one "
        f"CUDA graph {t_graph * 1e6:.1f} us ({t_graph / t_replay:.2f}x the replay); max rel "
        f"diff vs the replay: ctypes gemm {worst(direct):.1e}, graph {worst(got):.1e}",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
