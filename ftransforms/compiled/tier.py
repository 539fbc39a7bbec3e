"""When and how a recorded program moves to the compiled tier (NOTE [compiled tier] in
``ftransforms/compiled/__init__.py``): the policy, the driver, the background worker.

Example:
    >>> import numpy as np
    >>> from ftransforms import make_program
    >>> prog = make_program(lambda x: np.sin(x) * 2.0 + 1.0)(np.ones(4))
    >>> mode() in ("auto", "always", "never")  # FTRANSFORMS_JIT_COMPILE; "auto" when unset
    True
"""

from __future__ import annotations

import functools
import importlib.util
import os
import queue
import threading
import time
import types
from collections.abc import Callable
from typing import Any

import numpy

from ftransforms.compiled import cuda_graph, cupy_driver, lowering, numba_backend
from ftransforms.program import Eqn, Program, generate, numpy_errors_raise

__all__ = ["HOT_CALLS", "attach", "available", "compile_program", "mode"]

#: Replays of one program before it is compiled in the background (``auto`` mode).
HOT_CALLS = 20
#: Calls of each tier timed, alternately, before ``auto`` mode keeps the faster one.
TRIAL_CALLS = 5

#: Outputs of one kernel of at most this many bytes together, of one shape and dtype, that
#: the program does not return, are allocated as one array (``mark_blocks``).
MAX_BLOCK_BYTES = 1 << 20

#: Distinct kernels compiled per program at most (the first ones), bounding the compile
#: time (an unrolled loop's steps share kernels).
MAX_KERNELS = 48

_AVAILABLE: bool | None = None


def available() -> bool:
    """Whether the optional compiler (numba) is installed; found without importing it."""
    global _AVAILABLE
    if _AVAILABLE is None:
        try:
            _AVAILABLE = importlib.util.find_spec("numba") is not None
        except (ImportError, ValueError):  # a broken or hidden installation
            _AVAILABLE = False
    return _AVAILABLE


def mode() -> str:
    """``FTRANSFORMS_JIT_COMPILE``: ``auto`` (default), ``always`` or ``never``."""
    value = os.environ.get("FTRANSFORMS_JIT_COMPILE", "auto").strip().lower()
    if value in ("0", "off", "false", "no", "never"):
        return "never"
    if value in ("1", "on", "true", "yes", "always"):
        return "always"
    return "auto"


class KernelCall:
    """The pseudo-primitive of a compiled segment in a driver: ``generate`` asks it for
    the lines that allocate the segment's outputs and call its kernel."""

    multiple_results = True
    effectful = False

    def __init__(self, kernel: Callable, seg: lowering.Segment, index: int) -> None:
        self.kernel = kernel
        self.seg = seg
        self.name = f"fused{index}"

    def outputs(self) -> list[int]:
        """The slots the call hands back: the outputs not joined into a ``concatenate``
        (``mark_blocks``), then the joined results."""
        seg = self.seg
        joined = {s for b, _, out in seg.blocks if out is not None for s in b}
        return [s for s in seg.outputs if s not in joined] + [
            out for _, _, out in seg.blocks if out is not None
        ]

    def impl(self, xp: Any, *args: Any) -> tuple:
        seg = self.seg
        in_block = {s for b, _, _ in seg.blocks for s in b}
        made = {s: numpy.empty(*seg.avals[s]) for s in seg.outputs if s not in in_block}
        blocks = []
        for b, axis, out in seg.blocks:
            shape, dtype = seg.avals[b[0]]
            block = numpy.empty((*shape[:axis], len(b), *shape[axis:]), dtype)
            blocks.append(block)
            if out is not None:
                made[out] = block.reshape(seg.avals[out][0])
            else:
                made.update(zip(b, block))
        ins = [a[()] if not seg.avals[s][0] else a for a, s in zip(args, seg.inputs)]
        self.kernel(*ins, *[made[s] for s in seg.outputs if s not in in_block], *blocks)
        return tuple(made[s] for s in self.outputs())

    def emit(self, args: list, outs: tuple, global_name: Callable) -> list[str]:
        seg = self.seg
        empty = global_name(numpy.empty, "u")
        in_block = {s for b, _, _ in seg.blocks for s in b}
        lines = []
        for s in seg.outputs:
            if s not in in_block:
                shape, dtype = seg.avals[s]
                lines.append(
                    f"a{s} = {empty}({global_name(tuple(shape), 'p')}, {global_name(dtype, 'p')})"
                )
        names = [f"b{b[0]}" for b, _, _ in seg.blocks]
        for name, (b, axis, _) in zip(names, seg.blocks):
            shape, dtype = seg.avals[b[0]]
            shape = global_name((*shape[:axis], len(b), *shape[axis:]), "p")
            lines.append(f"{name} = {empty}({shape}, {global_name(dtype, 'p')})")
        call = [f"{a}[()]" if not seg.avals[s][0] else a for a, s in zip(args, seg.inputs)]
        call += [f"a{s}" for s in seg.outputs if s not in in_block] + names
        lines.append(f"{global_name(self.kernel, 'k')}({', '.join(call)})")
        for name, (b, _, out) in zip(names, seg.blocks):
            if out is not None:  # the concatenate it replaces: the block, reshaped
                lines.append(f"a{out} = {name}.reshape({global_name(seg.avals[out][0], 'p')})")
            else:  # the views of the block, one per output
                lines.append(f"{', '.join(f'a{s}' for s in b)}, = {name}")
        return lines


class _MakeContiguous:
    """The pseudo-primitive that makes a program input C-contiguous in a driver, before
    the first kernel compiled for that layout reads it (``lowering.mark_contiguous``)."""

    name = "ascontiguousarray"
    multiple_results = False
    effectful = False

    def impl(self, xp: Any, a: Any) -> Any:
        return numpy.ascontiguousarray(a)

    def emit(self, args: list, outs: tuple, global_name: Callable) -> list[str]:
        fn = global_name(numpy.ascontiguousarray, "u")
        return [f"a{outs[0]} = {fn}({args[0]})"]


_CONTIGUOUS = _MakeContiguous()


def mark_blocks(segments: list, out_refs: list, shared_from: int | None, items: list = ()) -> set:
    """Set each segment's ``blocks``: its outputs of one shape and dtype, two or more,
    that the driver allocates as one array (one ``empty`` and one kernel argument instead
    of one each: most of a small kernel's call in a loop step), at most
    :data:`MAX_BLOCK_BYTES` together.  Never a result the program hands back (it would
    keep the others' memory and not own its data), except a loop step's per-step outputs
    (``shared_from``), which the loop copies or keeps for itself.  A ``concatenate`` (of
    the ``items``) of outputs of one kernel that nothing else reads (a gradient's joined
    slices) is such a block stacked along its axis, which the kernel writes in place:
    the result is the block reshaped, and the ``id`` of each such equation is returned
    (the driver leaves it out)."""
    returned = {
        r
        for k, r in enumerate(out_refs)
        if r is not None and (shared_from is None or k < shared_from)
    }
    outputs = {r for r in out_refs if r is not None}
    owner = {s: seg for seg in segments for s in seg.outputs}
    joins = [it for it in items if isinstance(it, Eqn) and it.prim.name == "concatenate"]
    reads: dict[int, int] = {}
    for it in items:
        for e in [it] if isinstance(it, Eqn) else [*it.pre, *it.eqns, *it.post]:
            for r in e.refs:
                if r is not None:
                    reads[r] = reads.get(r, 0) + 1
    for seg in segments:
        seg.blocks = []
    joined: set[int] = set()
    for eqn in joins:
        refs, seg = eqn.refs, owner.get(eqn.refs[0]) if eqn.refs else None
        if (
            seg is None
            or eqn.xp is not numpy
            or set(eqn.params) != {"axis"}
            or type(eqn.out) is tuple
            or len(set(refs)) != len(refs) < 2
            or eqn.out in returned
            or any(owner.get(r) is not seg or r in outputs or reads.get(r) != 1 for r in refs)
            or any(r in b for b, _, _ in seg.blocks for r in refs)
        ):
            continue
        shape, dtype = seg.avals[refs[0]]
        if not shape or any(seg.avals[r] != (shape, dtype) for r in refs):
            continue
        axis = eqn.params["axis"]
        if type(axis) is not int or not -len(shape) <= axis < len(shape):
            continue
        seg.blocks.append((list(refs), axis % len(shape), eqn.out))
        seg.avals[eqn.out] = (tuple(eqn.avals[0]), eqn.avals[1])
        try:
            numba_backend.kernel_source(seg, "k")  # every access to the slices rewritten
        except ValueError:
            seg.blocks.pop()
        else:
            joined.add(id(eqn))
    for seg in segments:
        taken = {s for b, _, _ in seg.blocks for s in b}
        groups: dict = {}
        for s in seg.outputs:
            shape, dtype = seg.avals[s]
            if s not in returned and s not in taken and shape:
                groups.setdefault((tuple(shape), numpy.dtype(dtype)), []).append(s)
        seg.blocks += [
            (g, 0, None)
            for (shape, dtype), g in groups.items()
            if len(g) > 1 and len(g) * dtype.itemsize * numpy.prod(shape) <= MAX_BLOCK_BYTES
        ]
    return joined


def _kernels(segments: list) -> list:
    """Compile every segment (one generated module, cached on disk)."""
    return numba_backend.compile_segments(segments, MAX_KERNELS)


def build(
    eqns: list,
    n_inputs: int,
    out_refs: list,
    out_consts: list,
    in_avals: Any,
    *,
    form: str = "list",
    arrays_0d: bool = False,
    in_shapes: Any = None,
    swaps: list | None = None,
    opaque: frozenset = frozenset(),
    shared_from: int | None = None,
) -> Callable | None:
    """The driver of a program's equations with its fusion groups compiled (and its
    control-flow nodes' sub-programs, recorded in ``swaps``), or ``None`` when nothing
    lowers; ``shared_from`` as for ``program.generate``."""
    if swaps is not None:
        lowering.build_subprograms(
            eqns, swaps, functools.partial(build, swaps=swaps, opaque=opaque)
        )
    items = lowering.plan(eqns, n_inputs, out_refs, in_avals, opaque=opaque)
    segments = [it for it in items if isinstance(it, lowering.Segment) and it.outputs]
    if not segments:
        return None
    lowering.mark_contiguous(items, eqns, in_avals, n_inputs)
    joined = mark_blocks(segments, out_refs, shared_from, items)
    kernels = _kernels(segments)
    if not any(k is not None for k in kernels):
        return None
    if None in kernels:
        # over the kernel budget: plan again without those segments, whose views and
        # slices the other segments' plans must then not assume (the kept kernels are
        # the same source: numba's cache hands them back)
        dropped = frozenset(e.out for s, k in zip(segments, kernels) if k is None for e in s.eqns)
        items = lowering.plan(eqns, n_inputs, out_refs, in_avals, exclude=dropped, opaque=opaque)
        segments = [it for it in items if isinstance(it, lowering.Segment) and it.outputs]
        lowering.mark_contiguous(items, eqns, in_avals, n_inputs)
        joined = mark_blocks(segments, out_refs, shared_from, items)
        kernels = _kernels(segments)
        if not segments or None in kernels:
            return None
    new_eqns: list = []
    by_seg = {id(s): k for s, k in zip(segments, kernels) if k is not None}
    made_contiguous: set[int] = set()
    for k, it in enumerate(items):
        if isinstance(it, Eqn):
            if id(it) not in joined:  # else the kernel's block is the concatenation
                new_eqns.append(it)
        elif id(it) not in by_seg:
            new_eqns.extend(it.eqns)  # not worth a kernel: its NumPy calls as they were
        else:
            for s in sorted(it.contiguous):
                if s < n_inputs and s not in made_contiguous:  # the kernel assumes it
                    made_contiguous.add(s)
                    aval = it.avals[s]
                    new_eqns.append(Eqn(_CONTIGUOUS, numpy, (s,), (None,), {}, s, aval))
            new_eqns.extend(it.pre)
            prim = KernelCall(by_seg[id(it)], it, k)
            outs = tuple(prim.outputs())
            avals = tuple(it.avals[s] for s in outs)
            refs = tuple(it.inputs)
            new_eqns.append(Eqn(prim, numpy, refs, (None,) * len(refs), {}, outs, avals))
            new_eqns.extend(it.post)
    fn = generate(
        new_eqns,
        n_inputs,
        out_refs,
        out_consts,
        in_shapes=in_shapes,
        form=form,
        arrays_0d=arrays_0d,
        shared_from=shared_from,
    )
    fn.n_kernels = len(by_seg)
    return fn


def compile_program(program: Program) -> tuple[Callable, list] | None:
    """``(driver, sub-program swaps)`` for ``program``, or ``None`` when nothing lowers:
    numba kernels for NumPy arrays, CuPy kernels for CuPy arrays (NOTE [CuPy kernels])."""
    xp = cupy_driver.device_namespace(program)
    builder = build if xp is None else functools.partial(cupy_driver.build, xp=xp)
    swaps: list = []
    in_avals = None
    if program.in_shapes is not None:
        in_avals = list(zip(program.in_shapes, program.in_dtypes))
    replay = program._compiled()
    fn = builder(
        program.eqns,
        program.n_inputs,
        program.out_refs,
        program.out_consts,
        in_avals,
        form=program._form or "list",
        arrays_0d=True,
        in_shapes=program.in_shapes,
        swaps=swaps,
        opaque=program.opaque,
    )
    if fn is None and not swaps:
        return None
    if fn is None:
        fn = replay
        if xp is not None:
            fn.synchronize = cupy_driver.synchronizer(xp)
    if xp is None:
        fn = _under_errstate(fn, replay, swaps)
    return fn, swaps


_raising = numpy_errors_raise  # (read in the drivers' namespace: NOTE below)


def _under_errstate(fn: Callable, replay: Callable, swaps: list) -> Callable:
    """NOTE [compiled tier under np.errstate]: numba's kernels compute inf and nan where
    NumPy's ufuncs report the error by its error handling; under ``np.seterr(all="raise")``
    or ``with np.errstate(over="raise")`` around the call NumPy raises FloatingPointError
    (a ``try`` around the call may count on it), so there the replay runs instead, its
    loop bodies too (one context-variable read per call).  Warnings ('warn', the default)
    are not repeated by the kernels."""

    def driver(*args: Any) -> Any:
        if not _raising():
            return fn(*args)
        for node, name, old, _ in swaps:
            node.subprograms[name] = old
        try:
            return replay(*args)
        finally:
            for node, name, _, new in swaps:
                node.subprograms[name] = new

    # in the generated driver's own namespace, so that it reads as the driver it runs
    env = fn.__globals__
    env["_raising"] = _raising
    out = types.FunctionType(driver.__code__, env, "program", None, driver.__closure__)
    out.__dict__.update(fn.__dict__)  # (its source, its count of kernels)
    return out


def _activate(program: Program, compiled: tuple) -> None:
    fn, swaps = compiled
    for node, name, _, new in swaps:
        node.subprograms[name] = new
    program._fn = fn
    program.tier = "compiled"


def _deactivate(program: Program, compiled: tuple) -> None:
    for node, name, old, _ in compiled[1]:
        node.subprograms[name] = old
    program._fn = program._compiled()
    program.tier = "replay"


def compile_now(program: Program) -> bool:
    """Compile ``program`` here and now and use it from the next call; False (and the
    replay stays) when nothing lowers, the compiler fails or is not installed."""
    device = cupy_driver.device_namespace(program) is not None
    if not (available() or device) or program.value_dependent:
        return False
    try:
        compiled = compile_program(program)
    except Exception as err:  # noqa: BLE001 - any compiler failure: the replay stays
        program.tier = f"replay (compilation failed: {type(err).__name__}: {err})"
        return False
    if compiled is None:
        program.tier = "replay (nothing to compile)"
        return False
    _activate(program, compiled)
    return True


# -- the background worker --------------------------------------------------------------

_QUEUE: queue.Queue | None = None
_LOCK = threading.Lock()


def _worker() -> None:
    while True:
        program, done = _QUEUE.get()
        try:
            compiled = compile_program(program)
        except Exception as err:  # noqa: BLE001 - the replay stays
            compiled = None
            program.tier = f"replay (compilation failed: {type(err).__name__}: {err})"
        else:
            if compiled is None:
                program.tier = "replay (nothing to compile)"
        done(compiled)


def _submit(program: Program, done: Callable) -> None:
    global _QUEUE
    with _LOCK:
        if _QUEUE is None:
            _QUEUE = queue.Queue()
            threading.Thread(target=_worker, name="ftransforms-compile", daemon=True).start()
    program.tier = "compiling"
    _QUEUE.put((program, done))


def _trial(program: Program, compiled: tuple) -> None:
    """Alternate the two tiers for ``TRIAL_CALLS`` calls each, timing them, then keep the
    faster (the replay when the compiled program raises)."""
    replay = program._compiled()
    fast = compiled[0]
    sync = getattr(fast, "synchronize", None) or (lambda: None)  # a device's queue
    times: dict[bool, list] = {True: [], False: []}
    clock = time.perf_counter

    def trial(*args: Any) -> Any:
        use = len(times[True]) <= len(times[False])
        if use:
            for node, name, _, new in compiled[1]:
                node.subprograms[name] = new
        else:
            for node, name, old, _ in compiled[1]:
                node.subprograms[name] = old
        sync()
        t0 = clock()
        try:
            out = (fast if use else replay)(*args)
            sync()
        except Exception:
            if not use:
                raise
            _deactivate(program, compiled)
            program.tier = "replay (the compiled program raised)"
            return replay(*args)
        times[use].append(clock() - t0)
        if len(times[False]) >= TRIAL_CALLS and len(times[True]) >= TRIAL_CALLS:
            if min(times[True]) < min(times[False]):
                _activate(program, compiled)
            else:
                _deactivate(program, compiled)
                program.tier = "replay (measured faster)"
        return out

    program._fn = trial
    program.tier = "trial"


def attach(program: Program, how: str) -> None:
    """Give a freshly recorded program its compiled tier: ``how`` is ``"auto"`` (compile in
    the background after :data:`HOT_CALLS` replays, keep whichever tier measures
    faster), ``"eager"`` (compile in the background now, use it when ready), ``"always"``
    (compile now, here) or ``"never"``."""
    program.tier = "replay"
    if program.value_dependent:
        return
    if cuda_graph.mode() == "always" and any(e.xp is not numpy for e in program.eqns):
        xp = cupy_driver.device_namespace(program)
        if xp is not None and cuda_graph.attach(program, xp):
            return  # NOTE [CUDA graphs]
    if how == "never":
        return
    if any(e.xp is not numpy for e in program.eqns):
        if cupy_driver.device_namespace(program) is None:
            return  # device arrays without user kernels: the replay
    elif not available():
        return
    if how == "always":
        compile_now(program)
        return
    if how == "eager":
        _submit(program, lambda c: c is not None and _activate(program, c))
        return
    replay = program._compiled()
    count = [0]

    def counting(*args: Any) -> Any:
        count[0] += 1
        if count[0] == HOT_CALLS:
            program._fn = replay
            _submit(program, lambda c: c is not None and _trial(program, c))
        return replay(*args)

    program._fn = counting
