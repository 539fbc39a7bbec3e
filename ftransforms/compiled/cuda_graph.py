"""A recorded CuPy program replayed as one CUDA graph launch (experimental, opt-in).

NOTE [CUDA graphs]: on a GPU a jitted program's replay is host-bound: each CuPy call costs
5-25 us of Python and driver time, so a program of 100 small kernels takes 1-2 ms where
its arithmetic takes 0.1 ms (benchmarks/README.md, the H200 runs).  CUDA can record the
kernels a stream receives (*stream capture*) as a graph and launch them all in one call.
A graph replays with the addresses it was captured with, so for one recorded program
(one input signature) this module keeps:

- a private memory pool and stream: the program runs once on them to warm the pool (and
  compile its kernels), then once while the stream captures; every array the capture
  allocated stays in that pool, which nothing else allocates from, so the graph's
  intermediates are never handed to anyone else;
- one input buffer per array argument: a call copies its arguments into them
  (``xp.copyto``, a device copy), launches the graph and hands back fresh copies of the
  outputs (an output that is an argument itself is handed back as the argument, host
  constants as they are), all on the caller's current stream, under a lock (a call from
  another stream first waits for the previous one);
- the matrix products through :class:`CapturableGemm` (cuBLAS on CuPy's own handle with a
  fixed workspace, which stream capture needs; CuPy refuses its cuBLAS calls while a
  stream captures).

Loop bodies and branches (a ``scan``'s step) get drivers of their own with their products
through it too, swapped in while the program is captured (``lowering.build_subprograms``,
as the compiled tier swaps its own).  Anything that cannot be captured (a host read, such
as a ``while_loop``'s predicate, cuSOLVER, random draws, a batched or ``einsum`` product)
makes the capture fail; that program
then stays the replay, with the reason in ``program.tier``.  Programs with host callbacks,
arguments written in place, host (NumPy) arguments or value checks are not captured.

Off unless ``FTRANSFORMS_JIT_CUDA_GRAPHS=always``: verified on the CPU stand-in only
(``tests/test_cuda_graph_tier.py`` replaces capture by a re-run that writes the captured
buffers), so it stays opt-in until the GPU check (``benchmarks/gpu_check.sh``, step
``graphs``) has compared it with the replay on a card.

Example:
    >>> mode() in ("never", "always")  # FTRANSFORMS_JIT_CUDA_GRAPHS; "never" when unset
    True
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Callable
from typing import Any

import numpy

from ftransforms.compiled import lowering
from ftransforms.program import ControlNode, Program, generate

__all__ = [
    "CapturableGemm",
    "GraphedProgram",
    "attach",
    "capture",
    "eligible",
    "gemm_plan",
    "mode",
]

_OP_N, _OP_T = 0, 1
#: Bytes of cuBLAS workspace fixed for captured products (cuBLAS's own recommendation for
#: graphs on recent GPUs is up to 32 MiB).
WORKSPACE_BYTES = 32 << 20


def mode() -> str:
    """``FTRANSFORMS_JIT_CUDA_GRAPHS``: ``always`` (capture a device program at its first
    replay) or ``never`` (the default)."""
    value = os.environ.get("FTRANSFORMS_JIT_CUDA_GRAPHS", "never").strip().lower()
    return "always" if value in ("1", "on", "true", "yes", "always") else "never"


def _libcublas() -> ctypes.CDLL:
    """The libcublas that CuPy loaded (found in this process's memory map)."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "libcublas.so" in path and "Lt" not in path:
                return ctypes.CDLL(path)
    raise RuntimeError("libcublas is not loaded: call a CuPy matmul first")


def _layout(x: Any) -> tuple[int, int, int] | None:
    """``(op, leading dimension, batch stride)`` in elements of a 2-D or 3-D array's
    matrices as cuBLAS reads them (column-major: a row-major matrix is read transposed,
    which the row-major product ``C = A B``, computed as ``C^T = B^T A^T``, wants), or
    ``None`` where its matrices are not strided so (cuBLAS needs unit stride on one axis)."""
    size = x.itemsize
    rows, cols = x.shape[-2:]
    s_rows, s_cols = x.strides[-2:]
    if s_cols == size and s_rows % size == 0 and s_rows // size >= max(cols, 1):
        op, ld = _OP_N, s_rows // size
    elif s_rows == size and s_cols % size == 0 and s_cols // size >= max(rows, 1):
        op, ld = _OP_T, s_cols // size
    else:
        return None
    batch = x.strides[0] if x.ndim == 3 else 0
    if batch % size or batch < 0:
        return None
    return op, ld, batch // size


def gemm_plan(a: Any, b: Any) -> tuple | None:
    """The cuBLAS arguments of ``a @ b`` (2-D or 3-D with one batch size, float32/float64,
    nonempty): ``(batch, op_b, op_a, n, m, k, ldb, stride_b, lda, stride_a)`` for the
    column-major product ``c^T = b^T a^T`` of a row-major ``(batch,) m x n`` result;
    ``None`` where CuPy's ``matmul`` should do it."""
    if not (
        a.ndim in (2, 3)
        and b.ndim in (2, 3)
        and a.dtype == b.dtype
        and a.dtype in (numpy.float32, numpy.float64)
        and a.shape[-1] == b.shape[-2]
        and min(a.shape + b.shape) > 0
    ):
        return None
    batch = max(a.shape[0] if a.ndim == 3 else 1, b.shape[0] if b.ndim == 3 else 1)
    if any(x.ndim == 3 and x.shape[0] != batch for x in (a, b)):
        return None  # broadcast batches: CuPy's
    la, lb = _layout(a), _layout(b)
    if la is None or lb is None:
        return None
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    return batch, lb[0], la[0], n, m, k, lb[1], lb[2], la[1], la[2]


class CapturableGemm:
    """``matmul(a, b)`` of 2-D or 3-D (batched) float32/float64 arrays through cuBLAS on
    CuPy's handle, callable while a stream captures; every other case goes to CuPy's
    ``matmul``.  Each layout's first call outside a capture is checked against CuPy's
    ``matmul`` (a difference raises: the program then stays the replay), and a layout not
    checked yet goes to CuPy's while capturing.  Making one fixes the handle's workspace
    (kept alive with this object)."""

    def __init__(self, cupy: Any) -> None:
        self.cupy, self.original = cupy, cupy.matmul
        cupy.matmul(cupy.ones((2, 2), numpy.float32), cupy.ones((2, 2), numpy.float32))
        self.lib = _libcublas()
        self.handle = ctypes.c_void_p(cupy.cuda.device.get_cublas_handle())
        self.workspace = cupy.empty(WORKSPACE_BYTES, numpy.uint8)
        rc = self.lib.cublasSetWorkspace_v2(
            self.handle,
            ctypes.c_void_p(self.workspace.data.ptr),
            ctypes.c_size_t(WORKSPACE_BYTES),
        )
        if rc:
            raise RuntimeError(f"cublasSetWorkspace_v2 returned {rc}")
        self.checked: set = set()
        self.calls = 0

    def __call__(self, a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
        cupy = self.cupy
        plan = None
        if not args and not kwargs and type(a) is cupy.ndarray and type(b) is cupy.ndarray:
            plan = gemm_plan(a, b)
        if plan is None:
            return self.original(a, b, *args, **kwargs)
        batch, op_b, op_a, n, m, k, ldb, sb, lda, sa = plan
        key = (a.dtype.char, a.ndim, b.ndim, op_a, op_b)
        capturing = cupy.cuda.get_current_stream().is_capturing()
        if key not in self.checked and capturing:
            return self.original(a, b)  # (refused while capturing: the program stays a replay)
        c = cupy.empty((batch, m, n) if max(a.ndim, b.ndim) == 3 else (m, n), a.dtype)
        f32 = a.dtype == numpy.float32
        scalar = ctypes.c_float if f32 else ctypes.c_double
        alpha, beta = scalar(1.0), scalar(0.0)
        stream = ctypes.c_void_p(cupy.cuda.get_current_stream().ptr)
        self.lib.cublasSetStream_v2(self.handle, stream)
        ptr = lambda x: ctypes.c_void_p(x.data.ptr)  # noqa: E731
        if c.ndim == 2:
            gemm = self.lib.cublasSgemm_v2 if f32 else self.lib.cublasDgemm_v2
            rc = gemm(
                self.handle, op_b, op_a, n, m, k, ctypes.byref(alpha), ptr(b), ldb, ptr(a),
                lda, ctypes.byref(beta), ptr(c), n,
            )  # fmt: skip
        else:
            gemm = self.lib.cublasSgemmStridedBatched if f32 else self.lib.cublasDgemmStridedBatched
            wide = ctypes.c_longlong
            rc = gemm(
                self.handle, op_b, op_a, n, m, k, ctypes.byref(alpha), ptr(b), ldb, wide(sb),
                ptr(a), lda, wide(sa), ctypes.byref(beta), ptr(c), n, wide(m * n), batch,
            )  # fmt: skip
        if rc:
            raise RuntimeError(f"cuBLAS gemm returned status {rc}")
        if key not in self.checked:
            want = self.original(a, b)
            scale = float(cupy.max(cupy.abs(want))) or 1.0
            if float(cupy.max(cupy.abs(c - want))) > scale * (1e-4 if f32 else 1e-10):
                raise RuntimeError(f"the capturable gemm differs from cupy.matmul for {key}")
            self.checked.add(key)
        self.calls += 1
        return c


_GEMMS: dict[int, Any] = {}  # id(xp) -> its CapturableGemm (one per process: a workspace)


def _gemm(xp: Any) -> Any:
    found = _GEMMS.get(id(xp))
    if found is None:
        maker = getattr(xp, "CapturableGemm", None)  # a stand-in brings its own
        found = _GEMMS[id(xp)] = maker() if maker is not None else CapturableGemm(xp)
    return found


class _CaptureNamespace:
    """``xp`` with ``matmul`` replaced (the namespace of a captured program's products)."""

    def __init__(self, xp: Any, matmul: Callable) -> None:
        self._xp, self.matmul = xp, matmul

    def __getattr__(self, name: str) -> Any:
        return getattr(self._xp, name)


def _has_callbacks(eqns: list) -> bool:
    for eqn in eqns:
        if isinstance(eqn.prim, ControlNode):
            if any(_has_callbacks(getattr(s, "eqns", ())) for s in eqn.prim.subprograms.values()):
                return True
        elif "callback" in getattr(eqn.prim, "name", ""):
            return True
    return False


def eligible(program: Program, xp: Any) -> str | None:
    """Why ``program`` is not captured, or ``None`` when it may be."""
    cuda = getattr(xp, "cuda", None)
    needs = ("Stream", "MemoryPool", "using_allocator")
    if cuda is None or not all(hasattr(cuda, n) for n in needs):
        return "the array namespace has no stream capture"
    if program.value_dependent or getattr(program, "writes_inputs", False):
        return "it reads values or writes its arguments"
    if type(program) is not Program:
        return "it checks values it read"
    if _has_callbacks(program.eqns):
        return "it calls back to the host"
    return None


def _products_through(eqns: list, space: _CaptureNamespace) -> list:
    return [e._replace(xp=space) if e.prim.name == "matmul" else e for e in eqns]


def _sub_builder(space: _CaptureNamespace, swaps: list) -> Callable:
    """``lowering.build_subprograms``'s builder: a loop body's or branch's driver with its
    products through the capturable gemm (nested nodes alike), recorded in ``swaps``."""

    def build(
        eqns: list,
        n_inputs: int,
        out_refs: list,
        out_consts: list,
        in_avals: Any,
        *,
        in_shapes: Any = None,
        shared_from: int | None = None,
    ) -> Callable:
        lowering.build_subprograms(eqns, swaps, build)
        return generate(
            _products_through(eqns, space),
            n_inputs,
            out_refs,
            list(out_consts),
            in_shapes=in_shapes,
            shared_from=shared_from,
        )

    return build


def _capture_driver(program: Program, xp: Any) -> tuple[Callable, list]:
    """The program's replay with its matrix products through the gemm above, and the
    ``(node, name, old, new)`` swaps of its control-flow nodes' sub-programs that do the
    same in loop bodies and branches (swapped in while it is captured)."""
    space = _CaptureNamespace(xp, _gemm(xp))
    swaps: list = []
    lowering.build_subprograms(program.eqns, swaps, _sub_builder(space, swaps))
    return program.generate_with(_products_through(program.eqns, space)), swaps


class GraphedProgram:
    """A program's driver captured as one CUDA graph: called like the driver (the same
    output structure), each call copies in, launches, copies out (NOTE [CUDA graphs])."""

    def __init__(self, xp: Any, driver: Callable, leaves: tuple, form: str | None) -> None:
        for a in leaves:
            if type(a) is not xp.ndarray:
                raise TypeError(f"a {type(a).__name__} argument (only device arrays are copied in)")
        cuda = xp.cuda
        self.xp, self.form = xp, form
        self.pool = cuda.MemoryPool()  # the graph's memory: nobody else allocates from it
        self.stream = cuda.Stream(non_blocking=True)
        self.lock = threading.Lock()
        self.last: Any = None  # the stream of the previous call
        cuda.get_current_stream().synchronize()  # the arguments are ready
        with cuda.using_allocator(self.pool.malloc), self.stream:
            self.inputs = [xp.empty(a.shape, a.dtype) for a in leaves]
            for buf, a in zip(self.inputs, leaves):
                xp.copyto(buf, a)
            driver(*self.inputs)  # compiles kernels, fills the pool with the blocks used
            self.stream.synchronize()
            self.stream.begin_capture()
            try:
                out = driver(*self.inputs)
            except BaseException:
                try:
                    self.stream.end_capture()
                except Exception:  # noqa: BLE001, S110 - the capture was invalidated
                    pass
                raise
            self.graph = self.stream.end_capture()
        self.plan, self.outputs = self._plan(out)

    def _plan(self, out: Any) -> tuple[list, list]:
        """Each output as ``("in", i)``, ``("copy", j)`` (a captured array) or
        ``("const", value)``."""
        flat = [out] if self.form == "leaf" else list(out)
        plan, outputs, seen = [], [], {}
        for o in flat:
            at = next((i for i, b in enumerate(self.inputs) if o is b), None)
            if at is not None:
                plan.append(("in", at))
            elif type(o) is self.xp.ndarray:
                if id(o) not in seen:
                    seen[id(o)] = len(outputs)
                    outputs.append(o)
                plan.append(("copy", seen[id(o)]))
            else:
                plan.append(("const", o))
        return plan, outputs

    def __call__(self, *leaves: Any) -> Any:
        xp = self.xp
        stream = xp.cuda.get_current_stream()
        with self.lock:
            if self.last is not None and self.last.ptr != stream.ptr:
                self.last.synchronize()  # the buffers are free again
            self.last = stream
            for buf, a in zip(self.inputs, leaves):
                xp.copyto(buf, a)
            self.graph.launch(stream)
            made = [o.copy() for o in self.outputs]
        flat = [
            leaves[v] if how == "in" else made[v] if how == "copy" else v for how, v in self.plan
        ]
        if self.form == "leaf":
            return flat[0]
        return tuple(flat) if self.form == "tuple" else flat


def capture(program: Program, xp: Any, leaves: tuple) -> GraphedProgram:
    """``program`` captured on the arguments ``leaves`` (raises where it cannot be)."""
    driver, swaps = _capture_driver(program, xp)
    for node, name, _, new in swaps:
        node.subprograms[name] = new
    try:
        return GraphedProgram(xp, driver, leaves, program._form or "list")
    finally:  # the graph calls no Python: the replay's sub-programs go back
        for node, name, old, _ in swaps:
            node.subprograms[name] = old


def attach(program: Program, xp: Any) -> bool:
    """Make ``program`` capture itself at its next call and run as a graph from then on
    (the replay stays where capture fails); False when it is not :func:`eligible`."""
    why = eligible(program, xp)
    if why is not None:
        program.tier = f"replay (no CUDA graph: {why})"
        return False
    replay = program._compiled()

    def capturing(*leaves: Any) -> Any:
        for a in leaves:
            if type(a) is not xp.ndarray:
                return replay(*leaves)  # a host scalar argument: the replay
        try:
            graphed = capture(program, xp, leaves)
        except Exception as err:  # noqa: BLE001 - whatever capture refused: the replay
            program._fn = replay
            program.tier = f"replay (no CUDA graph: {type(err).__name__}: {err})"
            return replay(*leaves)
        program._fn = graphed
        program.tier = "cuda graph"
        return graphed(*leaves)

    program._fn = capturing
    program.tier = "cuda graph (captured at the next call)"
    return True
