"""The compiled tier on CuPy arrays: a recorded program's fusion groups as CuPy kernels,
called from one generated driver.

NOTE [CuPy kernels]: a program whose equations run on one device namespace that has user
kernels (``cupy``, or the strict stand-in ``ftransforms.strict_backend.xp``) compiles
here instead of through numba (``tier.compile_program`` asks :func:`device_namespace`);
the policy is the tier's (NOTE [compiled tier] in ``ftransforms/compiled/__init__.py``:
hot count, ``compile=True``, ``FTRANSFORMS_JIT_COMPILE``, the faster tier kept, timed
with the device synchronized).  ``lowering.plan(..., xp=xp)`` cuts the program into
segments; ``cupy_backend.segment_kernels`` prints each as ElementwiseKernels and
ReductionKernels; a :class:`SegmentRun` calls them in order (views realized with the
namespace's own ``reshape``/``transpose``/``broadcast_to``, outputs allocated with
``xp.empty``, a ReductionKernel allocating its own), and ``program.generate`` writes
the driver: each segment one call, every other equation (matmul, linear algebra,
indexing, random draws, control flow) the CuPy call it was; control-flow nodes'
sub-programs get drivers of their own.  Kernel objects are cached per process by their
source (:func:`kernel`), whose identifiers are numbered in order of appearance, so the
steps of a loop that ``jit(grad(...))`` unrolled share theirs; CuPy compiles each at its
first call and keeps the binary in its own disk cache, so every segment runs once on
zeros when the program is compiled (in the tier's background thread), not at the first
compiled call.

Example:
    >>> import numpy as np, ftransforms as ft
    >>> from ftransforms import strict_backend as sb
    >>> f = ft.jit(lambda x: np.sum(x * x, axis=1) * 2.0 + 1.0, compile=False)
    >>> x = sb.asarray(np.ones((2, 3)))
    >>> y = f(x)
    >>> f.compile()
    1
    >>> print(f(x).get(), next(iter(f.cache.values())).tier)
    [7. 7.] compiled
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from ftransforms.compiled import lowering
from ftransforms.compiled.cupy_backend import (
    KernelSpec,
    apply_view_plan,
    segment_kernels,
    view_plan,
)
from ftransforms.program import ControlNode, Eqn, Program, generate

__all__ = ["SegmentRun", "build", "device_namespace", "kernel", "synchronizer"]

#: Kernels per program at most (the first ones), bounding the compile time.
MAX_KERNELS = 48

_KERNELS: dict[tuple, Any] = {}


def _namespaces(eqns: list, found: set) -> None:
    for eqn in eqns:
        if eqn.xp is not numpy:
            found.add(eqn.xp)
        if isinstance(eqn.prim, ControlNode):
            for sub in eqn.prim.subprograms.values():
                _namespaces(getattr(sub, "eqns", ()), found)


def device_namespace(program: Program) -> Any | None:
    """The device namespace of ``program``'s equations (sub-programs included) when
    there is exactly one and it has user kernels (``ElementwiseKernel`` and
    ``ReductionKernel``), else ``None``."""
    found: set = set()
    _namespaces(program.eqns, found)
    if len(found) != 1:
        return None
    (xp,) = found
    ok = hasattr(xp, "ElementwiseKernel") and hasattr(xp, "ReductionKernel")
    return xp if ok else None


def kernel(xp: Any, spec: KernelSpec) -> Any:
    """The kernel object of ``spec`` on ``xp``, made once per process."""
    key = (id(xp), spec.key())
    found = _KERNELS.get(key)
    if found is None:
        found = _KERNELS[key] = spec.make(xp)
    return found


class SegmentRun:
    """One segment's kernels, called in order: ``run(*inputs) -> tuple of outputs``."""

    def __init__(self, xp: Any, seg: lowering.Segment, specs: list[KernelSpec]) -> None:
        self.xp, self.seg = xp, seg
        self.steps: list = []
        for item in seg.items:
            if isinstance(item, lowering.Nest):
                for s in specs:
                    if s.nest is item:  # each argument's view steps, worked out once
                        plans = [(v.base, view_plan(seg.avals[v.base][0], v)) for v in s.views]
                        self.steps.append(("kernel", s, kernel(xp, s), plans))
            else:
                self.steps.append(item)  # ("reshape", out, src, shape)

    def __call__(self, *arrays: Any) -> tuple:
        xp, seg = self.xp, self.seg
        env = {}
        for s, a in zip(seg.inputs, arrays):
            if isinstance(a, (numpy.ndarray, numpy.generic, float, int)):
                a = xp.asarray(a)  # a host scalar input (jit passes NumPy float scalars)
            env[s] = a
        for step in self.steps:
            if step[0] == "kernel":
                _, spec, k, plans = step
                ins = [apply_view_plan(xp, env[b], p) if p else env[b] for b, p in plans]
                if spec.kind == "elementwise":
                    outs = [xp.empty(*seg.avals[s]) for s in spec.outs]
                    k(*ins, *outs)
                    env.update(zip(spec.outs, outs))
                else:
                    ins = [xp.broadcast_to(a, spec.shape) for a in ins]
                    env[spec.outs[0]] = k(*ins, axis=spec.axis, keepdims=spec.keepdims)
            else:
                _, out, src, shape = step
                env[out] = xp.reshape(env[src], shape)
        return tuple(env[s] for s in seg.outputs)

    def warm(self) -> None:
        """Run once on zeros: CuPy compiles (or loads from its disk cache) every kernel."""
        self(*[self.xp.zeros(*self.seg.avals[s]) for s in self.seg.inputs])


class _SegmentCall:
    """A segment's pseudo-primitive in a driver (``generate`` asks it for its line)."""

    multiple_results = True
    effectful = False

    def __init__(self, run: SegmentRun, index: int) -> None:
        self.run = run
        self.name = f"fused{index}"

    def impl(self, xp: Any, *args: Any) -> tuple:
        return self.run(*args)

    def emit(self, args: list, outs: tuple, global_name: Callable) -> list[str]:
        targets = "".join(f"a{s}, " for s in outs)
        return [f"{targets}= {global_name(self.run, 'k')}({', '.join(args)})"]


def synchronizer(xp: Any) -> Callable[[], None]:
    cuda = getattr(xp, "cuda", None)
    if cuda is None:
        return lambda: None
    return lambda: cuda.get_current_stream().synchronize()


def build(
    eqns: list,
    n_inputs: int,
    out_refs: list,
    out_consts: list,
    in_avals: Any,
    xp: Any,
    *,
    form: str = "list",
    arrays_0d: bool = False,
    in_shapes: Any = None,
    swaps: list | None = None,
    opaque: frozenset = frozenset(),
    budget: list | None = None,
    shared_from: int | None = None,
) -> Callable | None:
    """The driver of ``eqns`` with its segments as kernel calls (control-flow nodes'
    sub-programs built alike, recorded in ``swaps``), or ``None`` when nothing lowers."""
    budget = [MAX_KERNELS] if budget is None else budget
    if swaps is not None:
        lowering.build_subprograms(
            eqns,
            swaps,
            lambda *sub, **how: build(*sub, xp, swaps=swaps, opaque=opaque, budget=budget, **how),
        )
    items = lowering.plan(eqns, n_inputs, out_refs, in_avals, xp=xp, opaque=opaque)
    new_eqns: list = []
    n_kernels = 0
    for k, it in enumerate(items):
        if isinstance(it, Eqn):
            new_eqns.append(it)
            continue
        try:
            specs = segment_kernels(it) if it.outputs else []
        except ValueError:
            specs = []
        if not specs or len(specs) > budget[0]:
            new_eqns.extend(it.eqns)  # its CuPy calls as they were
            continue
        budget[0] -= len(specs)
        run = SegmentRun(xp, it, specs)
        run.warm()
        n_kernels += len(specs)
        refs = tuple(it.inputs)
        avals = tuple(it.avals[s] for s in it.outputs)
        new_eqns.append(
            Eqn(_SegmentCall(run, k), xp, refs, (None,) * len(refs), {}, tuple(it.outputs), avals)
        )
        new_eqns.extend(it.post)
    if not n_kernels:
        return None
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
    fn.n_kernels = n_kernels
    fn.synchronize = synchronizer(xp)
    return fn
