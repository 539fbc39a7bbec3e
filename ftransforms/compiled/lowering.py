"""Fusion groups of a recorded program: which equations a compiler may lower, and how.

:func:`plan` cuts a program's equations (``ftransforms/program.py``) into *segments*:
maximal runs of equations a backend can compile (elementwise arithmetic and math on
float and bool arrays, sums/maxima/minima, and views that only permute, insert, drop or
broadcast axes), separated by the equations that stay NumPy/CuPy calls (BLAS, linear
algebra, FFT, special functions, indexing with data, control flow).  A segment is a list
of *nests*: one loop nest over one iteration shape each, in which every elementwise
value lives in a register, and reductions accumulate as they go.  A value leaves its nest
as an array only when something outside the nest reads it (NOTE [compiled tier] in
``ftransforms/compiled/__init__.py``).

Nothing here generates code: backends (``numba_backend``, ``cupy_backend``) print the
plan.

Example:
    >>> import numpy as np
    >>> from ftransforms import make_program
    >>> f = lambda x, w: np.tanh(x @ w) * 2.0 + 1.0
    >>> prog = make_program(f)(np.ones((2, 3)), np.ones((3, 4)))
    >>> [type(item).__name__ for item in plan(prog.eqns, prog.n_inputs, prog.out_refs)]
    ['Eqn', 'Segment']
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from ftransforms.program import ControlNode, Eqn, eliminate_dead, forwarded_name, has_effects

__all__ = ["ELEMENTWISE", "Nest", "Op", "Segment", "View", "plan"]

#: Elementwise primitives a backend lowers, by name: how many operands, and whether the
#: output is bool (comparisons compute in the operands' common dtype, everything else in
#: the output dtype).
ELEMENTWISE: dict[str, tuple[int, bool]] = {
    **{
        n: (1, False)
        for n in (
            "negative sin cos tan tanh exp log sqrt square sinh cosh arcsin arccos arctan "
            "arcsinh arctanh expm1 log1p log2 log10 exp2 abs reciprocal floor ceil trunc"
        ).split()
    },
    **{n: (2, False) for n in "add subtract multiply divide maximum minimum power".split()},
    **{n: (2, True) for n in "equal not_equal less less_equal greater greater_equal".split()},
}

#: Elementwise functions that a compiled loop evaluates one scalar libm call at a time,
#: 7-18x slower per element than NumPy's SIMD loops (float32 ``tanh``: 20 ns against 1.2
#: ns on x86-64): lowered only in nests of at most :data:`MATH_MAX_SIZE` elements, where
#: NumPy's fixed cost per call (about 0.5 us) is the larger.  (CPU only: a CuPy kernel
#: evaluates them with the device's math functions, one element per thread.)
MATH = frozenset(
    "sin cos tan tanh exp log sinh cosh arcsin arccos arctan arcsinh arctanh expm1 log1p "
    "log2 log10 exp2".split()
)
MATH_MAX_SIZE = 48

#: Computing equations a segment must replace to be compiled: a kernel call costs about
#: two NumPy calls (0.2 us per array argument, with numba).
MIN_OPS = 3

#: ...unless the segment has a product of at least this many elements along a broadcast
#: operand's stride-0 axis (an outer product, ``(B, m, 1) * (B, 1, n)``): NumPy's loop
#: runs at a third to a half of the memory bandwidth a compiled loop writes at (67 MB,
#: float32: 21 ms against 13 ms on x86-64), so one such op is worth its kernel.
OUTER_MIN_SIZE = 2048

#: Reductions a backend lowers: the accumulator's starting value and update.
REDUCTIONS = ("reduce_sum", "reduce_max", "reduce_min")

_FLOATS = (numpy.dtype("float32"), numpy.dtype("float64"))
_KINDS = (*_FLOATS, numpy.dtype(bool))


class View:
    """An array read through a view: ``base`` (a slot) indexed so that view axis ``k`` of
    ``shape`` reads base axis ``axes.index(k)``; ``axes[b]`` is the view axis base axis
    ``b`` follows, or ``None`` where the view does not follow it (index ``starts[b]``).
    Base axis ``b`` is read at ``starts[b] + steps[b] * i`` for view index ``i`` (a static
    ``getitem`` slice; 0 and 1 otherwise)."""

    __slots__ = ("base", "shape", "axes", "starts", "steps")

    def __init__(
        self, base: int, shape: tuple, axes: tuple, starts: tuple = (), steps: tuple = ()
    ) -> None:
        self.base, self.shape, self.axes = base, tuple(shape), tuple(axes)
        self.starts = tuple(starts) or (0,) * len(self.axes)
        self.steps = tuple(steps) or (1,) * len(self.axes)

    @property
    def offset(self) -> bool:
        """Whether the view reads anything but ``base[..., 0:n:1, ...]`` along its axes."""
        return any(self.starts) or any(t != 1 for t in self.steps)

    def like(self, shape: tuple, axes: tuple) -> View:
        """The same base, starts and steps, read with other view axes."""
        return View(self.base, shape, axes, self.starts, self.steps)

    def __repr__(self) -> str:
        extra = f", {self.starts}, {self.steps}" if self.offset else ""
        return f"View(%{self.base}, {self.shape}, {self.axes}{extra})"


class Op:
    """One lowered equation inside a nest.

    ``kind`` is ``"ew"`` (``name`` one of :data:`ELEMENTWISE`, ``"select"``, ``"convert"``)
    or ``"reduce"``; ``args`` are ``("local", slot)`` (a value of this nest),
    ``("array", View)`` or ``("const", python scalar)``; ``dtype`` is the output dtype and
    ``compute`` the dtype the operands are cast to; ``axis``/``keepdims`` for reductions.
    """

    __slots__ = ("kind", "name", "out", "args", "dtype", "compute", "axis", "keepdims", "shape")

    def __init__(self, kind, name, out, args, dtype, compute, shape, axis=(), keepdims=False):
        self.kind, self.name, self.out, self.args = kind, name, out, args
        self.dtype, self.compute, self.shape = dtype, compute, tuple(shape)
        self.axis, self.keepdims = tuple(axis), keepdims


class Nest:
    """A loop nest over ``shape``: ops in program order; ``stores`` are the elementwise
    values written out as arrays (read outside the nest)."""

    __slots__ = ("shape", "ops", "stores")

    def __init__(self, shape: tuple) -> None:
        self.shape = tuple(shape)
        self.ops: list[Op] = []
        self.stores: set[int] = set()

    @property
    def size(self) -> int:
        return math.prod(self.shape)


class Segment:
    """A compiled unit: ``items`` are :class:`Nest` objects and ``("reshape", out, src,
    shape)`` steps (a reshape of an array this segment wrote); ``inputs`` are the slots it
    reads from outside, ``outputs`` the slots it hands back (in order), ``avals`` the
    ``(shape, dtype)`` of every array slot it writes or reads, ``eqns`` what it replaces;
    ``pre`` are static ``getitem`` equations of arrays from outside, run (as NumPy views)
    before the kernel, whose results it reads as inputs: the same kernel then serves
    every step of an unrolled loop, whatever step it slices.  ``contiguous``: the inputs
    known to arrive C-contiguous (:func:`mark_contiguous`), which the kernel may index
    as such; ``blocks``: ``(outputs, axis, joined)``, outputs of one shape and dtype that
    the driver allocates as one array stacked along ``axis`` (``tier.mark_blocks``), the
    kernel taking it as one argument; ``joined``: the slot of their ``concatenate``
    along that axis (the block reshaped), or None."""

    __slots__ = (
        "blocks",
        "items",
        "inputs",
        "outputs",
        "avals",
        "eqns",
        "internal",
        "post",
        "pre",
        "contiguous",
    )

    def __init__(self) -> None:
        self.items: list = []
        self.inputs: list[int] = []
        self.outputs: list[int] = []
        self.avals: dict[int, tuple] = {}
        self.eqns: list[Eqn] = []
        self.internal: list[int] = []
        self.post: list[Eqn] = []
        self.pre: list[Eqn] = []
        self.contiguous: frozenset = frozenset()
        self.blocks: list[tuple] = []

    def __repr__(self) -> str:
        nests = [i for i in self.items if isinstance(i, Nest)]
        return f"<segment of {len(self.eqns)} eqns in {len(nests)} nests>"


# -- which equations lower ----------------------------------------------------------------


def _uniform(c: Any) -> Any:
    """A constant operand as a scalar: a Python scalar as it is (weak, as NumPy treats it);
    a NumPy scalar, a uniform NumPy array (a pre-broadcast scalar, such as the ones that
    seed a gradient) or a uniform device array (CuPy: read once, when planned) as a NumPy
    scalar of its dtype, which takes part in a comparison's promotion as NumPy's does
    (``float32 < float64 array`` compares in float64); ``None`` for anything else."""
    if isinstance(c, (bool, int, float)):
        return c
    if isinstance(c, numpy.generic):
        return c if c.dtype in _KINDS else None
    if hasattr(c, "get") and getattr(c, "dtype", None) in _KINDS and 0 < c.size <= 1 << 16:
        c = c.get()  # a device constant: one copy to the host, when the program is planned
    if type(c) is numpy.ndarray and c.dtype in _KINDS and c.size and c.size <= 1 << 16:
        first = c.flat[0]
        if c.size == 1 or (first == first and bool((c == first).all())):
            return first
        return None
    return None


def _has_outer(nest: Nest) -> bool:
    """Whether ``nest`` computes an outer product worth a kernel (:data:`OUTER_MIN_SIZE`):
    an op reading an array that does not vary along the nest's last axis."""
    if nest.size < OUTER_MIN_SIZE or nest.shape[-1] == 1:
        return False
    return any(
        kind == "array" and v.shape and v.shape[-1] == 1 and math.prod(v.shape) > 1
        for op in nest.ops
        for kind, v in op.args
    )


def _is_plain(eqn: Eqn, name: str, xp: Any) -> bool:
    """The equation calls exactly ``xp.<name>`` on the backend ``xp`` (or is one of our
    known settings-only primitives), so lowering it computes what NumPy computes."""
    if eqn.xp is not xp or type(eqn.out) is tuple or isinstance(eqn.prim, ControlNode):
        return False
    if name in ELEMENTWISE:
        return not eqn.params and forwarded_name(eqn.prim.impl) == name
    return True


def _dtype(d: Any) -> numpy.dtype:
    return numpy.dtype(d)


class _Planner:
    def __init__(
        self, eqns: Sequence[Eqn], outputs: Sequence, in_avals, xp: Any, reductions: bool
    ) -> None:
        self.eqns = list(eqns)
        self.xp, self.reductions = xp, reductions
        self.avals: dict[int, tuple] = {}
        if in_avals is not None:
            for i, av in enumerate(in_avals):
                if av is not None:
                    self.avals[i] = (tuple(av[0]), _dtype(av[1]))
        for eqn in self.eqns:
            avs = eqn.avals if type(eqn.out) is tuple else (eqn.avals,)
            outs = eqn.out if type(eqn.out) is tuple else (eqn.out,)
            for s, (shape, dtype) in zip(outs, avs):
                self.avals[s] = (tuple(shape), _dtype(dtype))
        self.program_outputs = {r for r in outputs if r is not None}
        self.items: list = []
        self.segment: Segment | None = None
        self.nest: Nest | None = None
        self.local: dict[int, Nest] = {}  # slot of a nest's elementwise value -> its nest
        self.arrays: set[int] = set()  # slots of reductions and reshapes (arrays)
        self.reduced_in: dict[int, Nest] = {}  # slot of a reduction -> its nest
        self.views: dict[int, View] = {}  # slot of a view equation of a segment -> view
        self.view_eqns: dict[int, Eqn] = {}
        self.owner: dict[int, Segment] = {}
        self.exclude: frozenset = frozenset()
        self.opaque: frozenset = frozenset()

    def view_of(self, slot: int) -> View | None:
        """The slot as a view of an array (the identity view if it is one)."""
        if slot in self.views:
            return self.views[slot]
        aval = self.avals.get(slot)
        if aval is None or aval[1] not in _KINDS:
            return None
        return View(slot, aval[0], tuple(range(len(aval[0]))))

    def operand(self, eqn: Eqn, i: int, shape: tuple) -> Any:
        """``("local", slot)``, ``("array", View)``, ``("const", v)``; ``None`` when not
        lowerable; ``"close"`` when it reads a view of the nest being built."""
        r, c = eqn.refs[i], eqn.consts[i]
        if r is None:
            if id(c) in self.opaque:
                return None  # an array from outside the arguments: read at every call
            v = _uniform(c)
            return None if v is None else ("const", v)
        if r not in self.views and self.local.get(r) is self.nest and self.nest is not None:
            return ("local", r)
        v = self.view_of(r)
        if v is None:
            return None
        base_nest = self.local.get(v.base)
        if self.nest is not None and self.nest in (base_nest, self.reduced_in.get(v.base)):
            return "close"
        if base_nest is not None:
            base_nest.stores.add(v.base)
        if len(v.shape) > len(shape) or any(
            d != 1 and d != s for d, s in zip(v.shape[::-1], shape[::-1])
        ):
            return None
        return ("array", v)

    def in_segment(self, slot: int) -> bool:
        """Whether the open segment computes ``slot``."""
        if self.segment is None:
            return False
        nest = self.local.get(slot) or self.reduced_in.get(slot)
        if nest is not None:
            return any(nest is item for item in self.segment.items)
        return slot in self.arrays and self.owner.get(slot) is None

    def close_segment(self) -> None:
        seg = self.segment
        if seg is not None:
            nests = [i for i in seg.items if isinstance(i, Nest)]
            if sum(len(n.ops) for n in nests) >= MIN_OPS or any(map(_has_outer, nests)):
                self.items.append(seg)
                for eqn in seg.eqns:
                    if not any(eqn is e for e in seg.pre):
                        self.owner[eqn.out] = seg
            else:  # not worth a kernel: its NumPy calls as they were
                self.items.extend(seg.eqns)
                for eqn in seg.eqns:
                    self.local.pop(eqn.out, None)
                    self.arrays.discard(eqn.out)
                    self.reduced_in.pop(eqn.out, None)
        self.segment = None
        self.nest = None

    def open_segment(self) -> Segment:
        if self.segment is None:
            self.segment = Segment()
        return self.segment

    def try_view(self, eqn: Eqn, name: str) -> bool:
        src = eqn.refs[0]
        if src is None or len(eqn.refs) != 1:
            return False
        v = self.view_of(src)
        if v is None:
            return False
        out_shape = tuple(eqn.avals[0])
        if name == "getitem":
            new = _sliced(v, eqn.params["index"], out_shape)
            if new is None:
                return False
            if src not in self.views and not self.in_segment(src):
                # a slice of an array from outside: a NumPy view the kernel takes as input
                seg = self.open_segment()
                seg.eqns.append(eqn)
                seg.pre.append(eqn)
                return True
        elif name == "transpose":
            inv = {old: new for new, old in enumerate(tuple(eqn.params["axes"]))}
            new = v.like(out_shape, tuple(None if a is None else inv[a] for a in v.axes))
        elif name == "broadcast_to":
            lead = len(out_shape) - len(v.shape)
            if lead < 0:
                return False
            axes = []
            for a in v.axes:
                if a is None or (v.shape[a] == 1 and out_shape[a + lead] != 1):
                    axes.append(None)
                else:
                    axes.append(a + lead)
            new = v.like(out_shape, tuple(axes))
        else:  # reshape: only unit axes inserted or dropped, else a real reshape
            old = [(a, d) for a, d in enumerate(v.shape) if d != 1]
            now = [(a, d) for a, d in enumerate(out_shape) if d != 1]
            if [d for _, d in old] != [d for _, d in now]:
                return self.try_reshape(eqn, src, out_shape)
            moved = {a: b for (a, _), (b, _) in zip(old, now)}
            new = v.like(out_shape, tuple(None if a is None else moved.get(a) for a in v.axes))
        self.open_segment().eqns.append(eqn)
        self.views[eqn.out] = new
        self.view_eqns[eqn.out] = eqn
        return True

    def try_reshape(self, eqn: Eqn, src: int, shape: tuple) -> bool:
        """A general reshape of an array this segment writes (C order) is done in the
        compiled code; of anything else it is left to NumPy."""
        nest = self.local.get(src)
        if src in self.views or self.owner.get(src) is not None:
            return False  # only arrays this segment writes are C-contiguous
        if nest is None and src not in self.arrays:
            return False
        if nest is not None:
            nest.stores.add(src)
        self.nest = None
        self.segment.items.append(("reshape", eqn.out, src, shape))
        self.segment.eqns.append(eqn)
        self.arrays.add(eqn.out)
        self.view_eqns[eqn.out] = eqn  # read outside: the driver reshapes the output
        return True

    def operands(self, eqn: Eqn, n_args: int, shape: tuple) -> list | None:
        if self.nest is None or self.nest.shape != shape:
            self.start_nest(shape)
        args = [self.operand(eqn, i, shape) for i in range(n_args)]
        if "close" in args:
            self.start_nest(shape)
            args = [self.operand(eqn, i, shape) for i in range(n_args)]
        if any(a is None or a == "close" for a in args):
            return None
        return args

    def arg_dtype(self, a: tuple) -> Any:
        if a[0] == "local":
            return self.avals[a[1]][1]
        if a[0] == "array":
            return self.avals[a[1].base][1]
        if isinstance(a[1], numpy.generic):
            return a[1].dtype  # a NumPy scalar or array: strong
        return a[1]  # a Python scalar: weak, as NumPy treats it

    def lower_op(self, eqn: Eqn, name: str) -> bool:
        out_shape, dtype = self.avals[eqn.out]
        if name == "select":
            n_args, boolean = 3, False
        elif name == "convert":
            n_args, boolean = 1, False
        else:
            n_args, boolean = ELEMENTWISE[name]
        if len(eqn.refs) != n_args or dtype not in _KINDS:
            return False
        if name in MATH and self.xp is numpy and math.prod(out_shape) > MATH_MAX_SIZE:
            return False  # on CuPy every element has its own thread: always lowered
        if name == "power" and not (eqn.refs[1] is None and _uniform(eqn.consts[1]) == 2):
            return False  # NumPy's own power loop rounds its own way: only x**2 (x * x)
        args = self.operands(eqn, n_args, out_shape)
        if args is None:
            return False
        types = [self.arg_dtype(a) for a in args]
        if any(isinstance(t, numpy.dtype) and t not in _KINDS for t in types):
            return False
        if any(isinstance(t, complex) for t in types):
            return False
        if boolean:
            try:
                compute = numpy.result_type(*types)
            except TypeError:
                return False
            if compute not in _KINDS:
                return False
        elif name == "convert":
            compute = dtype
        else:
            if dtype not in _FLOATS:
                return False
            compute = dtype
        if name == "select" and types[0] != numpy.dtype(bool):
            return False
        self.nest.ops.append(Op("ew", name, eqn.out, args, dtype, compute, out_shape))
        self.local[eqn.out] = self.nest
        self.segment.eqns.append(eqn)
        return True

    def lower_reduce(self, eqn: Eqn, name: str) -> bool:
        src = eqn.refs[0]
        if src is None or set(eqn.params) != {"axis", "keepdims"} or len(eqn.refs) != 1:
            return False
        in_shape, in_dtype = self.avals.get(src, ((), None))
        out_shape, dtype = self.avals[eqn.out]
        if in_dtype not in _FLOATS or dtype != in_dtype:
            return False
        axis = tuple(sorted({a % len(in_shape) for a in eqn.params["axis"]})) if in_shape else ()
        if name != "reduce_sum" and any(in_shape[a] == 0 for a in axis):
            return False  # NumPy raises for the extremum of nothing
        if (
            name == "reduce_sum"
            and in_dtype != numpy.float64
            and any(in_shape[a] > 1 for a in axis)
        ):
            # NumPy sums float32 pairwise in float32: a loop's sum (even in float64) differs
            # in the last float32 bits, which a float64 result downstream would show
            return False
        args = self.operands(eqn, 1, in_shape)
        if args is None or (args[0][0] == "array" and args[0][1].shape != in_shape):
            return False
        op = Op(
            "reduce",
            name,
            eqn.out,
            args,
            dtype,
            dtype,
            out_shape,
            axis,
            bool(eqn.params["keepdims"]),
        )
        self.nest.ops.append(op)
        self.arrays.add(eqn.out)
        self.reduced_in[eqn.out] = self.nest
        self.segment.eqns.append(eqn)
        return True

    def lower_pad(self, eqn: Eqn) -> bool:
        """``getitem_transpose`` with a static index of ints and unit-step slices (zeros
        with the operand written at the index): an elementwise op of the output's nest
        that reads the operand where the index covers, 0 elsewhere."""
        if set(eqn.params) != {"index", "shape"} or len(eqn.refs) != 1 or eqn.refs[0] is None:
            return False
        out_shape, dtype = self.avals[eqn.out]
        src = eqn.refs[0]
        spec = _pad_spec(eqn.params["index"], out_shape)
        if spec is None or dtype not in _FLOATS or self.avals.get(src, (0, 0))[1] != dtype:
            return False
        if tuple(e - s for s, e, kept in spec if kept) != self.avals[src][0]:
            return False
        if self.nest is None or self.nest.shape != out_shape:
            self.start_nest(out_shape)
        v = self.view_of(src)
        if v is None:
            return False
        base_nest = self.local.get(v.base)
        if self.nest in (base_nest, self.reduced_in.get(v.base)):
            self.start_nest(out_shape)
        if base_nest is not None:
            base_nest.stores.add(v.base)
        op = Op("ew", "pad", eqn.out, [("array", v)], dtype, dtype, out_shape, axis=spec)
        self.nest.ops.append(op)
        self.local[eqn.out] = self.nest
        self.segment.eqns.append(eqn)
        return True

    def start_nest(self, shape: tuple) -> None:
        self.nest = Nest(shape)
        self.open_segment().items.append(self.nest)

    def step(self, eqn: Eqn) -> None:
        name = eqn.prim.name
        ok = False
        if eqn.out in self.exclude:
            pass
        elif _is_plain(eqn, name, self.xp) and self.avals[eqn.out][1] in _KINDS:
            if name in ("reshape", "transpose", "broadcast_to"):
                ok = self.try_view(eqn, name)
            elif name == "getitem" and self.xp is numpy and set(eqn.params) == {"index"}:
                ok = self.try_view(eqn, name)
            elif name == "getitem_transpose" and self.xp is numpy:
                ok = self.lower_pad(eqn)
            elif name in REDUCTIONS:
                ok = self.reductions and self.lower_reduce(eqn, name)
            elif name in ELEMENTWISE or (name == "select" and not eqn.params):
                ok = self.lower_op(eqn, name)
            elif name == "convert" and set(eqn.params) == {"dtype"}:
                ok = self.lower_op(eqn, name)
        if not ok:
            self.close_segment()
            self.items.append(eqn)

    def finish(self, seg: Segment) -> None:
        """Inputs, outputs (and the view equations the driver replays after the kernel),
        and internal arrays of a segment, once every reader is known."""
        produced = set()
        for item in seg.items:
            if isinstance(item, Nest):
                produced.update(op.out for op in item.ops)
            else:
                produced.add(item[1])
        inputs: list[int] = []

        def add_input(slot: int) -> None:
            if slot not in produced and slot not in inputs:
                inputs.append(slot)

        for item in seg.items:
            if isinstance(item, Nest):
                for op in item.ops:
                    for a in op.args:
                        if a[0] == "local":
                            add_input(a[1])
                        elif a[0] == "array":
                            add_input(a[1].base)
            else:
                add_input(item[2])
        seg.inputs = inputs
        for s in list(inputs) + sorted(produced):
            seg.avals[s] = self.avals[s]


def _index_entries(index: Any, ndim: int) -> list | None:
    """A static index (ints, slices, one ``...``) as one int or slice per axis; ``None``
    when it holds anything else (``None``, arrays, booleans)."""
    index = index if type(index) is tuple else (index,)
    if any(not (type(i) is int or type(i) is slice or i is Ellipsis) for i in index):
        return None
    if sum(i is Ellipsis for i in index) > 1:
        return None
    if Ellipsis in index:
        k = index.index(Ellipsis)
        fill = ndim - (len(index) - 1)
        if fill < 0:
            return None
        index = index[:k] + (slice(None),) * fill + index[k + 1 :]
    if len(index) > ndim:
        return None
    return list(index) + [slice(None)] * (ndim - len(index))


def _sliced(v: View, index: Any, out_shape: tuple) -> View | None:
    """The view ``v[index]`` for a static basic index, or ``None``."""
    entries = _index_entries(index, len(v.shape))
    if entries is None:
        return None
    starts, steps, axes = list(v.starts), list(v.steps), list(v.axes)
    new_axis: dict[int, int | None] = {}  # old view axis -> new view axis (None: dropped)
    fixed: dict[int, int] = {}  # old view axis -> its fixed index
    step_of: dict[int, tuple] = {}
    k = 0
    for a, (entry, n) in enumerate(zip(entries, v.shape)):
        if type(entry) is int:
            if not -n <= entry < n:
                return None  # NumPy raises IndexError: the replay does
            fixed[a] = entry % n
            new_axis[a] = None
        else:
            start, _, step = entry.indices(n)
            step_of[a] = (start, step)
            new_axis[a] = k
            k += 1
    if tuple(out_shape) != tuple(
        len(range(*e.indices(n))) for e, n in zip(entries, v.shape) if type(e) is slice
    ):
        return None
    for b, a in enumerate(v.axes):
        if a is None:
            continue
        if a in fixed:
            starts[b] += steps[b] * fixed[a]
            axes[b] = None
        else:
            start, step = step_of[a]
            starts[b] += steps[b] * start
            steps[b] *= step
            axes[b] = new_axis[a]
    return View(v.base, out_shape, tuple(axes), starts, steps)


def _pad_spec(index: Any, shape: tuple) -> tuple | None:
    """Per output axis of ``getitem_transpose``: ``(start, stop, kept)``: a unit-step
    slice (``kept``: the operand has the axis) or an int ``c`` as ``(c, c + 1, False)``;
    ``None`` when the index is anything else."""
    entries = _index_entries(index, len(shape))
    if entries is None:
        return None
    spec = []
    for entry, n in zip(entries, shape):
        if type(entry) is int:
            if not -n <= entry < n:
                return None
            spec.append((entry % n, entry % n + 1, False))
            continue
        start, stop, step = entry.indices(n)
        if step != 1:
            return None
        spec.append((start, max(start, stop), True))
    return tuple(spec)


_FUSIBLE = frozenset(
    (*ELEMENTWISE, *REDUCTIONS, "select", "convert", "reshape", "transpose", "broadcast_to")
) | {"getitem", "getitem_transpose"}


def _fusible(eqn: Eqn, xp: Any) -> bool:
    """A guess (for the order only) whether the planner lowers ``eqn``."""
    name = eqn.prim.name
    if eqn.xp is not xp or type(eqn.out) is tuple or name not in _FUSIBLE:
        return False
    return not (name in MATH and xp is numpy and math.prod(eqn.avals[0]) > MATH_MAX_SIZE)


def schedule(eqns: Sequence[Eqn], xp: Any = numpy) -> list[Eqn]:
    """``eqns`` in a dependency order that runs the ready equations the planner can fuse
    until none is ready, then the ready ones it cannot until none is, and so on, so that
    the NumPy calls (BLAS, SIMD math) gather between longer fused runs: the gates of an
    LSTM step, each a slice, a NumPy ``exp`` and arithmetic, become one run before the
    ``exp`` calls and one after.  Programs with effects, random draws or control flow
    keep their order."""
    if any(
        isinstance(e.prim, ControlNode) or has_effects(e.prim) or "rng" in e.params for e in eqns
    ):
        return list(eqns)
    writer: dict[int, int] = {}
    for k, eqn in enumerate(eqns):
        for s in eqn.out if type(eqn.out) is tuple else (eqn.out,):
            writer[s] = k
    waiting = [0] * len(eqns)
    readers: list[list[int]] = [[] for _ in eqns]
    for k, eqn in enumerate(eqns):
        for d in {writer[r] for r in eqn.refs if r is not None and r in writer}:
            waiting[k] += 1
            readers[d].append(k)
    fused = [_fusible(e, xp) for e in eqns]
    ready: tuple[list, list] = ([], [])  # (fusible, other), by program position
    for k in range(len(eqns)):
        if not waiting[k]:
            heapq.heappush(ready[not fused[k]], k)
    order, which = [], 0
    while ready[0] or ready[1]:
        if not ready[which]:
            which = 1 - which  # drain one kind before switching: longer runs of each
        k = heapq.heappop(ready[which])
        order.append(eqns[k])
        for r in readers[k]:
            waiting[r] -= 1
            if not waiting[r]:
                heapq.heappush(ready[not fused[r]], r)
    return _views_late(order)


def _views_late(eqns: list[Eqn]) -> list[Eqn]:
    """Each view equation (a slice, reshape, transpose) moved to just before its first
    reader (or the end): a slice of an earlier result is then taken where it is used,
    from outside the segment being built (``Segment.pre``), not baked into a kernel with
    its offset."""
    views = {"getitem", "reshape", "transpose", "broadcast_to"}
    pending: dict[int, Eqn] = {}  # output slot -> a view not yet placed
    out: list[Eqn] = []

    def place(eqn: Eqn) -> None:
        for r in eqn.refs:
            if r is not None and r in pending:
                place(pending.pop(r))
        out.append(eqn)

    for eqn in eqns:
        if eqn.prim.name in views and type(eqn.out) is not tuple:
            pending[eqn.out] = eqn
        else:
            place(eqn)
    for slot in list(pending):  # views no equation reads (program outputs)
        if slot in pending:
            place(pending.pop(slot))
    return out


def mark_contiguous(
    items: list, eqns: Sequence[Eqn], in_avals: Sequence | None, n_inputs: int = 0
) -> None:
    """Set each segment's ``contiguous``: its inputs known to be C-contiguous, so that the
    kernel is compiled for that layout (loops it can vectorise, about twice as fast as
    for any layout) instead of any.  Known: what a kernel allocated; what NumPy's
    ``matmul``, a reduction, or an elementwise ufunc whose full-shape operands are all
    known returned (NumPy lays the result out as its operands: C-contiguous also where
    they are static slices of known arrays, whose axes keep C's order); and the program's
    first ``n_inputs`` slots (its inputs), which the driver makes C-contiguous before the
    first kernel reads them (``tier.build``; a copy only for another layout)."""
    shapes: dict[int, tuple] = {}
    for k, av in enumerate(in_avals or ()):
        if av is not None:
            shapes[k] = tuple(av[0])
    for eqn in eqns:
        if type(eqn.out) is not tuple:
            shapes[eqn.out] = tuple(eqn.avals[0])
    known: set[int] = {k for k in range(n_inputs) if shapes.get(k)}
    ordered: set[int] = set()  # static slices of known arrays: strides in C's order
    for it in items:
        if isinstance(it, Segment):
            it.contiguous = frozenset(s for s in it.inputs if s in known)
            known.update(it.outputs)
            continue
        name = it.prim.name
        if it.xp is not numpy or type(it.out) is tuple:
            continue
        out_shape = shapes.get(it.out, ())
        if name in REDUCTIONS and it.refs[0] in known and out_shape:
            known.add(it.out)  # NumPy's reduction of a C-contiguous array
        elif name == "getitem" and len(it.refs) == 1 and _ordered_slice(it.params):
            if it.refs[0] in known or it.refs[0] in ordered:
                ordered.add(it.out)
        elif it.params:
            continue
        elif name == "matmul" and len(it.refs) == 2 and None not in it.refs:
            a, b = shapes.get(it.refs[0], ()), shapes.get(it.refs[1], ())
            if len(a) >= 2 and len(b) >= 2 and not (a[-1] == 1 and b[-2] == 1):
                known.add(it.out)  # NumPy's matmul (not the outer product's multiply)
        elif name in ELEMENTWISE and forwarded_name(it.prim.impl) == name and out_shape:
            full = [r for r in it.refs if r is not None and shapes.get(r) == out_shape]
            if full and all(r in known or r in ordered for r in full):
                known.add(it.out)


def _ordered_slice(params: dict) -> bool:
    """Whether ``getitem``'s ``index`` keeps its operand's axes in order: ints and slices
    of positive step only (no new axis, no index array)."""
    index = params.get("index")
    if set(params) != {"index"} or type(index) is not tuple:
        return False
    return all(
        type(e) is int or (type(e) is slice and (e.step is None or e.step > 0)) for e in index
    )


def plan(
    eqns: Sequence[Eqn],
    n_inputs: int,
    outputs: Sequence,
    in_avals: Sequence | None = None,
    *,
    xp: Any = numpy,
    reductions: bool = True,
    exclude: frozenset = frozenset(),
    opaque: frozenset = frozenset(),
) -> list:
    """The program as a list of :class:`Eqn` (left as they are) and :class:`Segment`
    (compiled), in order.  ``in_avals``: the inputs' ``(shape, dtype)`` where known;
    ``xp``: the backend whose calls lower; ``reductions``: whether reductions do.

    A segment's ``post`` are its view equations whose results are read after it: the
    driver replays them on the arrays the segment hands back.  ``exclude``: output slots
    of equations to leave as they are; ``opaque``: ids of constant arrays never read as
    literals (arrays from outside jit's arguments, NOTE [values read from outside under
    jit])."""
    p = _Planner(schedule(eqns, xp), outputs, in_avals, xp, reductions)
    p.exclude, p.opaque = exclude, opaque
    for eqn in p.eqns:
        p.step(eqn)
    p.close_segment()
    segments = [it for it in p.items if isinstance(it, Segment)]
    for seg in segments:
        p.finish(seg)
    outs: dict[Segment, set] = {seg: set() for seg in segments}
    post: dict[Segment, set] = {seg: set() for seg in segments}

    def need(slot: int, reader: Any) -> None:
        seg = p.owner.get(slot)
        if seg is None or seg is reader:
            return
        if slot in p.view_eqns:
            post[seg].add(slot)
            need(p.view_eqns[slot].refs[0], reader)
            return
        outs[seg].add(slot)
        nest = p.local.get(slot)
        if nest is not None:
            nest.stores.add(slot)

    for it in p.items:
        if isinstance(it, Segment):
            for s in it.inputs:
                need(s, it)
            for eqn in it.pre:
                need(eqn.refs[0], it)
        else:
            for r in it.refs:
                if r is not None:
                    need(r, it)
    for r in sorted(p.program_outputs):
        need(r, None)
    for seg in segments:
        seg.outputs = sorted(outs[seg])
        seg.post = [e for e in seg.eqns if e.out in post[seg]]
        stored = set()
        for item in seg.items:
            if isinstance(item, Nest):
                stored |= item.stores
                for op in item.ops:
                    if op.kind == "reduce":
                        stored.add(op.out)
        seg.internal = sorted(stored - set(seg.outputs))
    return p.items


def build_subprograms(eqns: Sequence[Eqn], swaps: list, build_sub: Callable) -> None:
    """Give the sub-programs of every control-flow node in ``eqns`` a compiled driver,
    ``build_sub(eqns, n_inputs, out_refs, out_consts, in_avals)`` of the sub-program
    (``None`` where nothing lowers); each is recorded in ``swaps`` as ``(node, name, old,
    new)``, which the tier swaps in and out."""
    fields = ("eqns", "n_inputs", "out_refs", "out_consts", "in_avals")
    for eqn in eqns:
        if isinstance(eqn.prim, ControlNode):
            for name, sub in eqn.prim.subprograms.items():
                values = [getattr(sub, attr, None) for attr in fields]
                unread = eqn.prim.unread() if eqn.prim.unread is not None else ()
                if unread and values[0] is not None:
                    # outputs the loop does not store: their work is dropped (the replay
                    # computes them, they are what the step's other outputs are made of)
                    out_refs = [None if k in unread else r for k, r in enumerate(values[2])]
                    out_consts = [None if k in unread else c for k, c in enumerate(values[3])]
                    live = {r for r in out_refs if r is not None}
                    values[:4] = [eliminate_dead(values[0], live), values[1], out_refs, out_consts]
                avals = values[4]
                known = avals is not None and all(av is not None for av in avals)
                shared_from = getattr(sub, "shared_from", None)
                new = build_sub(
                    *values,
                    in_shapes=[tuple(av[0]) for av in avals] if known else None,
                    shared_from=shared_from,
                )
                if new is not None:
                    for attr, value in zip(fields, values):
                        setattr(new, attr, value)
                    new.shared_from = shared_from
                    swaps.append((eqn.prim, name, sub, new))
