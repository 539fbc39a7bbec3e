"""Algebraic rewrites of recorded programs (``ftransforms.jit``), run before replay.

The transforms leave patterns in a recording that a person writing the formula by hand
would not: ``vmap`` over the basis vectors of ``jacfwd``/``hessian`` turns every tangent
into a full batch of rows, and forward-over-reverse then scales that batch by one small
vector after another (``(dt * a) * b``, ``-(dt) * c``, ``dt * d + dt * e``), each a pass
over the whole batch.  And ``vmap`` broadcasts unbatched operands to the batch shape
before an elementwise op that would broadcast them anyway.

NOTE [scaled rows]: :func:`factor_scalings` tracks, for every slot, whether its value is
``base * coef`` with ``coef`` smaller than ``base`` (broadcasting to it), and rewrites

- ``(base * c) * v``      as ``base * (c * v)``,
- ``-(base * c)``         as ``base * (-c)``,
- ``base * c1 ± base * c2`` as ``base * (c1 ± c2)``,
- ``reshape(base * c)``   as ``reshape(base) * c`` (when the reshape keeps the trailing
  axes that ``c`` varies along),

so that the small factors are combined on small arrays and the batch is scaled once.
The values are the same products and sums, associated (and distributed) differently:
equal up to floating-point rounding, and except where an intermediate product over- or
underflows or a sum of zeros has a different sign (as for any reassociation).  The
rewritten program is kept only when it is cheaper by a simple cost model (:func:`cost`:
a fixed cost per call plus the elements it writes).

:func:`drop_broadcasts` is exact: ``broadcast_to(x, s) op y`` is ``x op y`` when NumPy's
broadcasting of ``x`` and ``y`` alone gives the same shape.

Example:
    >>> import numpy as np
    >>> from ftransforms import hessian, make_program
    >>> f = hessian(lambda x, a: np.sum(np.tanh(a @ x) ** 2))
    >>> prog = make_program(f)(np.ones(8), np.eye(8))
    >>> sum(e.prim.name == "multiply" and e.avals[0] == (8, 8) for e in prog.eqns)
    1
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy

from ftransforms.core.primitive import REGISTRY
from ftransforms.program import Eqn, eliminate_dead

__all__ = ["cost", "drop_broadcasts", "factor_scalings", "join_scatters", "sink_transposes"]

#: The per-call cost of a backend call in the cost model, in elements written: about what
#: NumPy's fixed cost per ufunc call is worth in float32 elements on a CPU.
CALL_COST = 1500

#: Calls that return a view (or a broadcast view): no elements written.
_VIEWS = frozenset({"reshape", "transpose", "broadcast_to"})

#: Elementwise binary ufuncs whose operands NumPy broadcasts itself.
_BROADCASTING = frozenset(
    {"add", "subtract", "multiply", "divide", "maximum", "minimum", "true_divide"}
)


def cost(eqns: Sequence[Eqn]) -> int:
    """The cost model: :data:`CALL_COST` per call plus the elements every non-view call
    writes (a control-flow node counts as one call).

    Example:
        >>> import numpy as np
        >>> from ftransforms import make_program
        >>> cost(make_program(lambda x: np.sin(x) * 2.0)(np.ones(10)).eqns)  # two calls
        3020
    """
    total = 0
    for eqn in eqns:
        total += CALL_COST
        if eqn.prim.name not in _VIEWS and type(eqn.out) is not tuple:
            total += math.prod(eqn.avals[0])
    return total


def _avals_of(eqns: Sequence[Eqn], in_avals: Sequence | None) -> dict:
    avals: dict[int, tuple] = {}
    if in_avals is not None:
        for i, av in enumerate(in_avals):
            if av is not None:
                avals[i] = (tuple(av[0]), numpy.dtype(av[1]))
    for eqn in eqns:
        if type(eqn.out) is tuple:
            for s, (shape, dtype) in zip(eqn.out, eqn.avals):
                avals[s] = (tuple(shape), dtype)
        else:
            avals[eqn.out] = (tuple(eqn.avals[0]), eqn.avals[1])
    return avals


def drop_broadcasts(eqns: Sequence[Eqn], in_avals: Sequence | None = None) -> list[Eqn]:
    """Feed an elementwise binary NumPy op the source of a ``broadcast_to`` operand where
    NumPy's own broadcasting gives the result's shape anyway (exact; see the module).

    Example:
        >>> import numpy as np
        >>> from ftransforms import make_program
        >>> f = lambda x, y: np.broadcast_to(x, (4, 3)) + y
        >>> prog = make_program(f, optimize=False)(np.ones(3), np.ones((4, 3)))
        >>> types = [((3,), np.float64), ((4, 3), np.float64)]
        >>> [e.refs for e in drop_broadcasts(prog.eqns, types)]  # the add reads %0
        [(0,), (0, 1)]
    """
    avals = _avals_of(eqns, in_avals)
    source: dict[int, int] = {}  # slot of a broadcast_to result -> the slot it broadcasts
    out = []
    for eqn in eqns:
        name = eqn.prim.name
        if name == "broadcast_to" and eqn.refs[0] is not None and eqn.xp is numpy:
            source[eqn.out] = eqn.refs[0]
        elif (
            name in _BROADCASTING
            and eqn.xp is numpy
            and not eqn.params
            and type(eqn.out) is not tuple
            and len(eqn.refs) == 2
            and any(r in source for r in eqn.refs)
        ):
            refs = list(eqn.refs)
            for i in (0, 1):
                src = source.get(refs[i])
                if src is None or src not in avals:
                    continue
                other = refs[1 - i]
                o_shape = avals[other][0] if other is not None else numpy.shape(eqn.consts[1 - i])
                if other is not None and other not in avals:
                    continue
                try:
                    shape = numpy.broadcast_shapes(avals[src][0], o_shape)
                except ValueError:
                    continue
                if shape == tuple(eqn.avals[0]):
                    refs[i] = src
            eqn = eqn._replace(refs=tuple(refs))
        out.append(eqn)
    return out


def join_scatters(eqns: Sequence[Eqn], outputs: Sequence) -> list[Eqn]:
    """A sum of ``getitem_transpose`` pieces (each a slice's cotangent scattered into zeros
    of the whole) whose slices tile one axis: one ``concatenate`` of the pieces.  The
    gradient of ``z[:, :h], z[:, h:2*h], ...`` (an LSTM's gates) records one zero array
    and one addition per slice; the values are the same, but for the sign of a zero (an
    added ``+0.0`` turns a ``-0.0`` into ``0.0``).  The sums and pieces must be read by
    nothing else.

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad, make_program
        >>> f = grad(lambda z: np.sum(np.sin(z[:2]) * np.cos(z[2:])))
        >>> prog = make_program(f, optimize=False)(np.ones(4))
        >>> [e.prim.name for e in join_scatters(prog.eqns, prog.out_refs)][-1]
        'concatenate'
    """
    uses: dict[int, int] = {}
    for eqn in eqns:
        for r in eqn.refs:
            if r is not None:
                uses[r] = uses.get(r, 0) + 1
    for r in outputs:
        if r is not None:
            uses[r] = uses.get(r, 0) + 2  # an output is never folded into a sum
    # slot -> (axis, shape, dtype, [(start, stop, slot of the piece's values)])
    parts: dict[int, tuple] = {}
    joined: dict[int, Eqn] = {}
    for eqn in eqns:
        name = eqn.prim.name
        if name == "getitem_transpose" and len(eqn.refs) == 1 and eqn.refs[0] is not None:
            shape = tuple(eqn.params["shape"])
            cut = _one_slice(eqn.params["index"], shape)
            if cut is not None:
                axis, start, stop = cut
                parts[eqn.out] = (axis, shape, eqn.avals[1], [(start, stop, eqn.refs[0])])
        elif name == "add" and not eqn.params and len(eqn.refs) == 2 and None not in eqn.refs:
            a, b = (parts.get(r) for r in eqn.refs)
            if (
                a is not None
                and b is not None
                and a[:3] == b[:3]
                and all(uses.get(r) == 1 for r in eqn.refs)
                and type(eqn.out) is not tuple
            ):
                pieces = sorted(a[3] + b[3])
                if all(p[1] <= q[0] for p, q in zip(pieces, pieces[1:])):
                    parts[eqn.out] = (a[0], a[1], a[2], pieces)
                    axis, shape = a[0], a[1]
                    if (
                        pieces[0][0] == 0
                        and pieces[-1][1] == shape[axis]
                        and all(p[1] == q[0] for p, q in zip(pieces, pieces[1:]))
                    ):
                        refs = tuple(p[2] for p in pieces)
                        joined[eqn.out] = Eqn(
                            REGISTRY["concatenate"],
                            eqn.xp,
                            refs,
                            (None,) * len(refs),
                            {"axis": axis},
                            eqn.out,
                            eqn.avals,
                        )
    if not joined:
        return list(eqns)
    out = [joined.get(e.out, e) if type(e.out) is not tuple else e for e in eqns]
    return eliminate_dead(out, {r for r in outputs if r is not None})


def _one_slice(index: Any, shape: tuple) -> tuple | None:
    """``(axis, start, stop)`` of an index that slices one axis (step 1) and takes every
    other one whole, or ``None``."""
    if type(index) is not tuple or len(index) > len(shape):
        return None
    cut = None
    for axis, entry in enumerate(index):
        if type(entry) is not slice:
            return None
        start, stop, step = entry.indices(shape[axis])
        if step != 1:
            return None
        if (start, stop) != (0, shape[axis]):
            if cut is not None or stop <= start:
                return None
            cut = (axis, start, stop)
    return cut


def sink_transposes(
    eqns: Sequence[Eqn], outputs: Sequence, in_avals: Sequence | None = None
) -> list[Eqn]:
    """``transpose(x op y)`` as ``transpose(x) op transpose(y)`` (exact: the same values)
    for an elementwise NumPy op whose result nothing else reads, where the transpose
    makes the last axis longer: NumPy then writes the result along its longest axis
    instead of a short one (``vmap`` of an outer product ``u[:, None] * v`` with a short
    ``u`` writes rows of ``len(u)`` and transposes them).

    Example:
        >>> import numpy as np
        >>> from ftransforms import make_program
        >>> f = lambda u, v: np.transpose(np.reshape(u, (50, 1)) * np.reshape(v, (1, 3)))
        >>> prog = make_program(f, optimize=False)(np.ones(50), np.ones(3))
        >>> types = [((50,), np.float64), ((3,), np.float64)]
        >>> [e.prim.name for e in sink_transposes(prog.eqns, prog.out_refs, types)]
        ['reshape', 'reshape', 'multiply']
    """
    avals = _avals_of(eqns, in_avals)
    uses: dict[int, int] = {}
    for eqn in eqns:
        for r in eqn.refs:
            if r is not None:
                uses[r] = uses.get(r, 0) + 1
    for r in outputs:
        if r is not None:
            uses[r] = uses.get(r, 0) + 2
    producer = {eqn.out: i for i, eqn in enumerate(eqns) if type(eqn.out) is not tuple}
    replace: dict[int, list[Eqn]] = {}
    next_slot = max(avals, default=-1) + 1
    for i, eqn in enumerate(eqns):
        if eqn.prim.name != "transpose" or eqn.refs[0] is None or eqn.xp is not numpy:
            continue
        j = producer.get(eqn.refs[0])
        if j is None or j in replace or uses.get(eqn.refs[0]) != 1:
            continue
        op = eqns[j]
        shape = tuple(op.avals[0]) if type(op.out) is not tuple else ()
        if (
            op.prim.name not in _BROADCASTING
            or op.xp is not numpy
            or op.params
            or len(op.refs) != 2
            or not shape
        ):
            continue
        sunk = _sink(eqns, eqn, op, avals, uses, producer, replace, next_slot)
        if sunk is None:
            continue
        new, dropped = sunk
        old_last, new_last = shape[-1], tuple(eqn.avals[0])[-1]
        added, removed = len(new) - 1, 1 + len(dropped)
        if not (
            (added < removed and new_last >= old_last) or (added <= removed and new_last > old_last)
        ):
            continue  # never more calls, and never shorter rows, than were recorded
        next_slot += added
        replace[i] = new
        replace[j] = []
        for k in dropped:
            replace[k] = []
    if not replace:
        return list(eqns)
    return [e for i, eqn in enumerate(eqns) for e in replace.get(i, [eqn])]


def _sink(
    eqns: Sequence[Eqn],
    eqn: Eqn,
    op: Eqn,
    avals: dict,
    uses: dict,
    producer: dict,
    replace: dict,
    next_slot: int,
) -> tuple[list[Eqn], list[int]] | None:
    """``transpose(op(x, y))`` (``eqn`` of ``op``'s result) as ``op`` of its operands
    transposed: ``(new calls ending with op's, producers that die)``, or None.  An operand
    that is itself a transpose is composed with it (nothing, when they cancel); one whose
    transpose only moves unit axes (a reshape, or a lower-rank operand that broadcasting
    pads with leading unit axes) is reshaped; a Python scalar stays as it is."""
    axes = eqn.params["axes"]
    nd = len(axes)
    transpose = REGISTRY["transpose"]
    reshape = REGISTRY["reshape"]
    new: list[Eqn] = []
    dropped: list[int] = []
    refs, consts = [], []
    for r, c in zip(op.refs, op.consts):
        if r is None:
            if numpy.ndim(c) != 0:
                return None
            refs.append(None)
            consts.append(c)
            continue
        if r not in avals or len(avals[r][0]) > nd:
            return None
        full = (1,) * (nd - len(avals[r][0])) + tuple(avals[r][0])
        aval = (tuple(full[a] for a in axes), avals[r][1])
        k = producer.get(r)
        src = eqns[k] if k is not None and k not in replace else None
        if src is not None and (src.xp is not numpy or src.refs[0] is None):
            src = None
        dies = src is not None and uses.get(r) == 1
        consts.append(None)
        if src is not None and src.prim.name == "transpose" and len(full) == len(avals[r][0]):
            composed = tuple(src.params["axes"][a] for a in axes)
            if dies:
                dropped.append(k)
            if composed == tuple(range(nd)):
                refs.append(src.refs[0])  # transpose(transpose(x)) is x
                continue
            params = {"axes": composed}
            new.append(Eqn(transpose, numpy, src.refs, (None,), params, next_slot, aval))
        elif _moves_unit_axes_only(axes, full):
            source = r
            if dies and src.prim.name == "reshape":
                source = src.refs[0]  # reshape(reshape(x)): one reshape of x
                dropped.append(k)
            params = {"shape": aval[0]}
            new.append(Eqn(reshape, numpy, (source,), (None,), params, next_slot, aval))
        elif len(full) == len(avals[r][0]):
            params = {"axes": axes}
            new.append(Eqn(transpose, numpy, (r,), (None,), params, next_slot, aval))
        else:
            return None
        refs.append(next_slot)
        next_slot += 1
    new.append(op._replace(refs=tuple(refs), consts=tuple(consts), out=eqn.out, avals=eqn.avals))
    return new, dropped


def _moves_unit_axes_only(axes: Sequence[int], shape: Sequence[int]) -> bool:
    """Whether ``transpose(x, axes)`` of an ``x`` of ``shape`` is a reshape: the axes
    longer than 1 keep their order.  Comparing the shapes is not enough: a square
    matrix keeps its shape under ``axes=(1, 0)`` and is still transposed."""
    moved = [a for a in axes if shape[a] != 1]
    return moved == sorted(moved)


class _Factoring:
    """The state of :func:`factor_scalings`' forward walk."""

    def __init__(self, eqns: Sequence[Eqn], in_avals: Sequence | None) -> None:
        self.avals = _avals_of(eqns, in_avals)
        self.next_slot = max(self.avals, default=-1) + 1
        # slot -> (base slot, coef slot or None, coef constant)
        self.scaled: dict[int, tuple] = {}
        self.reshaped: dict[tuple, int] = {}  # (slot, shape) -> slot of its reshape
        self.reshape_source: dict[int, int] = {}  # slot of a reshape result -> its source
        self.out: list[Eqn] = []

    def new_eqn(self, name: str, xp: Any, refs: tuple, consts: tuple, params: dict, aval):
        slot = self.next_slot
        self.next_slot += 1
        self.avals[slot] = aval
        self.out.append(Eqn(REGISTRY[name], xp, refs, consts, params, slot, aval))
        return slot

    def operand(self, eqn: Eqn, i: int) -> tuple | None:
        """``(shape, dtype or None for a Python scalar)`` of argument ``i``, or None."""
        r, c = eqn.refs[i], eqn.consts[i]
        if r is not None:
            return self.avals.get(r)
        if isinstance(c, (int, float, complex)) and not isinstance(c, bool):
            return ((), None)
        if isinstance(c, (numpy.ndarray, numpy.generic)):
            return (tuple(c.shape), c.dtype)
        return None

    def coef_shape(self, coef: tuple) -> tuple | None:
        r, c = coef
        if r is not None:
            return self.avals[r][0]
        return tuple(numpy.shape(c))

    def combine(self, name: str, xp: Any, a: tuple, b: tuple, aval: tuple) -> tuple | None:
        """The coefficient ``a <name> b`` (each ``(slot, const)``), as a new small call;
        None when both are constants (left as they are)."""
        if a[0] is None and b[0] is None:
            return None
        shape = numpy.broadcast_shapes(self.coef_shape(a), self.coef_shape(b))
        if len(shape) > len(aval[0]) or math.prod(shape) >= math.prod(aval[0]):
            return None
        slot = self.new_eqn(name, xp, (a[0], b[0]), (a[1], b[1]), {}, (shape, aval[1]))
        return (slot, None)

    def negate(self, xp: Any, c: tuple, aval: tuple) -> tuple:
        if c[0] is None:  # negation is exact; -0 of an int would lose the sign of zero
            return (None, -float(c[1]) if type(c[1]) is int else -c[1])
        shape = self.avals[c[0]][0]
        return (self.new_eqn("negative", xp, (c[0],), (None,), {}, (shape, aval[1])), None)

    def scale(self, eqn: Eqn, base: int, coef: tuple) -> None:
        """Emit ``eqn.out = base * coef``."""
        self.out.append(
            Eqn(
                REGISTRY["multiply"],
                eqn.xp,
                (base, coef[0]),
                (None, coef[1]),
                {},
                eqn.out,
                eqn.avals,
            )
        )
        self.scaled[eqn.out] = (base, coef)

    def small(self, info: tuple | None, aval: tuple) -> bool:
        """An operand that may be a coefficient of a result of ``aval``: the same dtype
        (or a Python scalar), no more axes, fewer elements."""
        if info is None:
            return False
        shape, dtype = info
        return (
            (dtype is None or dtype == aval[1])
            and len(shape) <= len(aval[0])
            and math.prod(shape) < math.prod(aval[0])
        )

    def reshape_of(self, eqn: Eqn, base: int, shape: tuple) -> int:
        src = self.reshape_source.get(base, base)
        if self.avals[src][0] == shape:
            return src
        key = (src, shape)
        if key not in self.reshaped:
            slot = self.new_eqn(
                "reshape", eqn.xp, (src,), (None,), {"shape": shape}, (shape, self.avals[src][1])
            )
            self.reshaped[key] = slot
            self.reshape_source[slot] = src
        return self.reshaped[key]

    def step(self, eqn: Eqn) -> None:
        name = eqn.prim.name
        if (
            type(eqn.out) is tuple
            or eqn.xp is not numpy
            or numpy.dtype(eqn.avals[1]).kind not in "fc"
        ):
            self.out.append(eqn)
            return
        aval = (tuple(eqn.avals[0]), numpy.dtype(eqn.avals[1]))
        if name == "multiply" and not eqn.params and len(eqn.refs) == 2:
            infos = [self.operand(eqn, 0), self.operand(eqn, 1)]
            for i in (0, 1):
                r = eqn.refs[i]
                if r is None or infos[i] != aval or not self.small(infos[1 - i], aval):
                    continue
                v = (eqn.refs[1 - i], eqn.consts[1 - i])
                if r in self.scaled:
                    base, c = self.scaled[r]
                    c2 = self.combine("multiply", eqn.xp, c, v, aval)
                    if c2 is not None:
                        self.scale(eqn, base, c2)
                        return
                self.scaled[eqn.out] = (r, v)
                break
        elif name == "negative" and eqn.refs[0] in self.scaled:
            base, c = self.scaled[eqn.refs[0]]
            self.scale(eqn, base, self.negate(eqn.xp, c, aval))
            return
        elif (
            name in ("add", "subtract")
            and not eqn.params
            and len(eqn.refs) == 2
            and eqn.refs[0] in self.scaled
            and eqn.refs[1] in self.scaled
        ):
            (b1, c1), (b2, c2) = self.scaled[eqn.refs[0]], self.scaled[eqn.refs[1]]
            if b1 == b2 and self.avals[b1] == aval:
                c = self.combine(name, eqn.xp, c1, c2, aval)
                if c is not None:
                    self.scale(eqn, b1, c)
                    return
        elif name == "reshape" and eqn.refs[0] in self.scaled:
            base, c = self.scaled[eqn.refs[0]]
            c_shape = self.coef_shape(c)
            k = len(c_shape)
            while k and c_shape[len(c_shape) - k] == 1:
                k -= 1  # leading unit axes of the coefficient broadcast anywhere
            b_shape = self.avals[base][0]
            if len(c_shape) <= len(aval[0]) and (k == 0 or aval[0][-k:] == b_shape[-k:]):
                self.scale(eqn, self.reshape_of(eqn, base, aval[0]), c)
                return
        self.out.append(eqn)


def factor_scalings(
    eqns: Sequence[Eqn], outputs: Sequence, in_avals: Sequence | None = None
) -> list[Eqn]:
    """NOTE [scaled rows]: combine the small factors of a big operand on small arrays.
    Returns ``eqns`` itself unless the rewritten program (dead calls dropped) is cheaper.
    ``in_avals``: the inputs' ``(shape, dtype)``, where known.

    Example:
        >>> import numpy as np
        >>> from ftransforms import make_program
        >>> f = lambda x, u, v: (x * u) * v
        >>> prog = make_program(f, optimize=False)(np.ones((8, 8)), np.ones(8), np.ones(8))
        >>> types = [((8, 8), np.float64), ((8,), np.float64), ((8,), np.float64)]
        >>> [e.avals[0] for e in factor_scalings(prog.eqns, prog.out_refs, types)]
        [(8,), (8, 8)]
    """
    f = _Factoring(eqns, in_avals)
    for eqn in eqns:
        f.step(eqn)
    if len(f.out) == len(eqns) and not f.scaled:
        return list(eqns)
    live = {r for r in outputs if r is not None}
    rewritten = eliminate_dead(f.out, live)
    if cost(rewritten) < cost(eliminate_dead(eqns, live)):
        return rewritten
    return list(eqns)
