"""Recorded programs: the flat list of backend calls behind ``ftransforms.jit``.

A :class:`Program` holds equations ``%out = prim[params] %in ...`` recorded by the tracing
interpreter (``interpreters/tracing.py``).  Before it is replayed it is simplified —
dead equations dropped, repeated ones shared, small scalar operands pre-broadcast — and
turned into one straight-line Python function (``def program(a0, a1): a2 = sin(xp, a0)
...``) whose only work is the backend calls, each intermediate freed after its last use.

Example:
    >>> import numpy as np
    >>> from ftransforms import grad, make_program
    >>> prog = make_program(grad(lambda x: np.sum(np.sin(x))))(np.zeros(3))
    >>> print(prog)
    { lambda %0:float64[3] .
        %3 = cos[] %0
      in ( %3 ) }
"""

from __future__ import annotations

import keyword
import math
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy

from ftransforms.core.avals import ShapedArray
from ftransforms.core.primitive import EFFECT_PRIMITIVES, Primitive
from ftransforms.pytree import tree_flatten, tree_unflatten

__all__ = [
    "ControlNode",
    "Eqn",
    "Inside",
    "InsidePrimitive",
    "Program",
    "compile_subprogram",
    "inside",
]

#: Outputs up to this many elements get scalar operands pre-broadcast to full arrays:
#: for small arrays NumPy spends more time converting a Python scalar than computing.
_MATERIALIZE_MAX_SIZE = 4096


class Eqn(NamedTuple):
    """One backend call: ``out = prim.impl(xp, *args, **params)``.

    ``refs[i]`` is the slot argument ``i`` is read from, or ``None`` when the argument is
    the constant ``consts[i]``; ``out`` is a slot (or a tuple of slots for multiple
    results); ``avals`` is the output's ``(shape, dtype)`` (a tuple of them likewise).
    """

    prim: Any
    xp: Any
    refs: tuple
    consts: tuple
    params: dict
    out: Any
    avals: Any

    @property
    def primitive(self) -> Any:
        """The primitive, under the name of ``jax.core.JaxprEqn``'s attribute."""
        return self.prim


#: ``Eqn``'s constructor without the Python frame of the named tuple's ``__new__``.
_new_eqn = tuple.__new__


def _out_slots(eqn: Eqn) -> tuple:
    return eqn.out if type(eqn.out) is tuple else (eqn.out,)


# -- passes -----------------------------------------------------------------------------


#: ``[n]``: while ``n > 0`` a trial call is running (a loop's body run once to learn its
#: carry's types): effect primitives neither run nor are recorded (:class:`effects_muted`).
MUTED = [0]


class effects_muted:  # noqa: N801 - used as ``with effects_muted():``
    """The block is a trial run: ``ft.debug`` callbacks in it do not fire."""

    def __enter__(self) -> None:
        MUTED[0] += 1

    def __exit__(self, *exc: Any) -> None:
        MUTED[0] -= 1


def has_effects(prim: Any) -> bool:
    """An effect primitive, or a control-flow node whose sub-programs hold one."""
    return prim in EFFECT_PRIMITIVES or getattr(prim, "has_effects", False)


def eliminate_dead(eqns: Sequence[Eqn], live: set) -> list[Eqn]:
    """Drop the equations none of whose outputs reach ``live`` (the program's outputs)."""
    live = set(live)
    kept = []
    for eqn in reversed(eqns):
        out = eqn.out
        if (
            (out in live if type(out) is not tuple else any(s in live for s in out))
            or eqn.prim in EFFECT_PRIMITIVES
            or getattr(eqn.prim, "has_effects", False)
        ):
            kept.append(eqn)
            live.update(eqn.refs)
    kept.reverse()
    live.discard(None)
    return kept


def freeze(value: Any) -> Any:
    """A hashable key that equals another only for the same value *and type*: ``1``,
    ``1.0`` and ``True`` differ, and so do ``0.0`` and ``-0.0`` (``==`` merges them).
    Raises ``TypeError`` for unhashable values (arrays)."""
    if isinstance(value, (float, complex, numpy.inexact)):
        return (type(value), repr(value))
    if isinstance(value, (tuple, list)):
        return (type(value), tuple(freeze(v) for v in value))
    hash(value)
    return (type(value), value)


def _const_key(c: Any) -> Any:
    if isinstance(c, (bool, int, float, complex, numpy.generic)):
        return ("scalar", freeze(c))
    return ("object", id(c))


def _params_key(params: dict) -> Any:
    # TypeError for unhashable settings (arrays): the caller skips the equation
    if not params:
        return ()
    return tuple((k, freeze(v)) for k, v in sorted(params.items()))


def eliminate_common(eqns: Sequence[Eqn], outputs: list) -> tuple[list[Eqn], list]:
    """Share equations that apply the same primitive, settings and arguments.

    Returns the new equations and ``outputs`` with renamed slots.
    """
    rename: dict[int, int] = {}
    seen: dict[Any, Any] = {}
    kept = []
    get = rename.get
    for eqn in eqns:
        refs = eqn.refs
        if rename:
            new_refs = tuple([get(r, r) for r in refs])  # None maps to itself
            if new_refs != refs:
                refs = new_refs
                eqn = _new_eqn(Eqn, (eqn[0], eqn[1], refs, *eqn[3:]))
        if has_effects(eqn.prim):
            kept.append(eqn)
            continue
        try:
            key = (
                eqn.prim,
                id(eqn.xp),
                refs,
                tuple([None if r is not None else _const_key(c) for r, c in zip(refs, eqn.consts)])
                if None in refs
                else None,
                _params_key(eqn.params),
            )
        except TypeError:
            kept.append(eqn)
            continue
        earlier = seen.get(key)
        if earlier is None:
            seen[key] = eqn.out
            kept.append(eqn)
        elif type(earlier) is tuple:
            rename.update(zip(eqn.out, earlier))
        else:
            rename[eqn.out] = earlier
    return kept, [None if r is None else rename.get(r, r) for r in outputs]


#: The arithmetic ufuncs whose scalar operand :func:`materialize_scalars` may pre-broadcast:
#: NumPy casts a weak scalar to the array's dtype for these and computes the same thing
#: with an array operand.  Not ``power`` (NumPy squares / takes square roots for a scalar
#: exponent of 2 / 0.5 only), not comparisons, not special functions with integer orders.
MATERIALIZABLE = frozenset({"add", "subtract", "multiply", "divide", "maximum", "minimum"})


def materialize_scalars(eqns: Sequence[Eqn]) -> list:
    """Replace a Python/NumPy scalar operand of a small arithmetic NumPy op
    (:data:`MATERIALIZABLE`) by an array of the output's shape and dtype, built once: for
    small arrays NumPy spends longer converting a scalar than computing.

    Only where the result is provably the same: the output has the dtype of an array
    operand, so NumPy would cast the scalar to it anyway.
    """
    out = []
    for eqn in eqns:
        if None not in eqn.refs or type(eqn.out) is tuple:
            out.append(eqn)  # no constant operand (or several results)
            continue
        shape, dtype = eqn.avals
        if (
            eqn.xp is not numpy
            or eqn.prim.name not in MATERIALIZABLE
            or eqn.params
            or math.prod(shape) > _MATERIALIZE_MAX_SIZE
            or not any(
                r is None
                and isinstance(c, (int, float, complex, numpy.generic))
                and not isinstance(c, bool)
                for r, c in zip(eqn.refs, eqn.consts)
            )
        ):
            out.append(eqn)
            continue
        consts = tuple(
            numpy.full(shape, c, dtype=dtype)
            if r is None
            and isinstance(c, (int, float, complex, numpy.generic))
            and not isinstance(c, bool)
            and numpy.can_cast(numpy.min_scalar_type(c), dtype, "same_kind")
            else c
            for r, c in zip(eqn.refs, eqn.consts)
        )
        out.append(eqn._replace(consts=consts))
    return out


# -- NumPy's error handling and warnings filters set inside -------------------------------


class Inside:
    """NOTE [error handling set inside under jit]: ``with np.errstate(divide="ignore")``,
    ``np.seterr(...)`` or ``warnings.simplefilter("ignore")`` (in a ``catch_warnings``
    block or not) inside the function changes which of NumPy's floating-point warnings
    its operations show (or raise); a replay runs under the caller's settings, so it
    printed ``divide by zero`` where the eager call was silent, and raised (then ran
    eagerly) under the caller's ``np.seterr(all="raise")`` or filter ``"error"``.  So
    the tracing interpreter notes, when the settings change during a recording, what
    differs from those at the call (``errstate``: the error handling's changed entries;
    ``filters``: the filters for ``RuntimeWarning`` put in front of the caller's, or
    with ``whole`` the whole list where the function replaced it), and records each
    operation made under a difference as an :class:`InsidePrimitive`, which the replay
    runs under the same difference applied to the caller's settings at the replay (the
    generated code opens one ``with`` block per run of such operations).  The same holds
    for ``"raise"`` and a filter ``"error"`` set inside, whose errors the function may
    catch (``try: ... except FloatingPointError``): a replay that raises one runs the
    call eagerly (NOTE [a replay that raises] in ``jit.py``), and operations recorded
    under such a setting are effects (kept where their results are unused); a function
    that writes into its arguments (whose replay is not run again) or collects its
    warnings (``record=True``) runs eagerly (NOTE [np.errstate under jit], NOTE
    [warnings set inside under jit] in ``interpreters/tracing.py``).  Nothing is
    recorded differently where the settings do not change, and a recorded operation
    pays nothing for it."""

    __slots__ = ("errstate", "filters", "whole", "raises")

    def __init__(self, errstate: tuple, filters: tuple | None, whole: bool) -> None:
        self.errstate = errstate  # ((key, value), ...) for np.errstate
        self.filters = filters  # warnings.filters entries, in order, or None
        self.whole = whole
        # whether an error of the data raises under it (``"raise"``, a filter ``"error"``):
        # its operations are kept where their results are unused (``try: np.log(x)``)
        self.raises = any(v == "raise" for _, v in errstate) or any(
            f[0] == "error" for f in filters or ()
        )

    def __call__(self) -> _InsideBlock:
        """A fresh context manager that applies the settings (one per replay)."""
        return _InsideBlock(self)

    def __repr__(self) -> str:
        parts = []
        if self.errstate:
            parts.append(",".join(f"{k}={v}" for k, v in self.errstate))
        if self.filters is not None:
            parts.append("warnings:" + ",".join(f[0] for f in self.filters))
        return ";".join(parts)


class _InsideBlock:
    __slots__ = ("state", "err", "caught")

    def __init__(self, state: Inside) -> None:
        self.state = state
        self.err: Any = None
        self.caught: Any = None

    def __enter__(self) -> None:
        state = self.state
        if state.errstate:
            self.err = numpy.errstate(**dict(state.errstate))
            self.err.__enter__()
        if state.filters is not None:
            self.caught = warnings.catch_warnings()
            self.caught.__enter__()
            if state.whole:
                warnings.resetwarnings()
            for action, message, category, module, lineno in reversed(state.filters):
                warnings.filterwarnings(
                    action,
                    message.pattern if message is not None else "",
                    category,
                    module.pattern if module is not None else "",
                    lineno,
                )

    def __exit__(self, *exc: Any) -> None:
        if self.caught is not None:
            self.caught.__exit__(*exc)
        if self.err is not None:
            self.err.__exit__(*exc)


class InsidePrimitive(Primitive):
    """``inner`` recorded under the settings ``state`` (NOTE [error handling set inside
    under jit]): named ``<name>@inside``, so that no rewrite nor the compiled tier takes
    it for ``inner``; :func:`generate` calls ``inner`` in a ``with state():`` block."""

    __slots__ = ("inner", "state", "has_effects")


_INSIDE: dict = {}  # (primitive, state) -> its InsidePrimitive


def inside(prim: Primitive, state: Inside) -> InsidePrimitive:
    """The one :class:`InsidePrimitive` of ``prim`` under ``state``."""
    wrapped = _INSIDE.get((prim, state))
    if wrapped is None:
        inner_impl = prim.impl

        def impl(xp: Any, *args: Any, **params: Any) -> Any:
            with state():
                return inner_impl(xp, *args, **params)

        wrapped = InsidePrimitive(
            f"{prim.name}@inside", impl, multiple_results=prim.multiple_results
        )
        wrapped.inner, wrapped.state, wrapped.has_effects = prim, state, state.raises
        _INSIDE[(prim, state)] = wrapped
    return wrapped


# -- code generation ----------------------------------------------------------------------

_FORWARDS: dict[Any, str | None] = {}


def forwarded_name(impl: Callable) -> str | None:
    """``"sin"`` when ``impl`` is exactly ``lambda xp, x: xp.sin(x)`` (any arity, no
    defaults, no closure), else ``None``: the program then calls ``xp.sin`` directly.

    The test is the bytecode itself, compared with that of a freshly compiled lambda of the
    same shape, so an implementation that does anything more is never mistaken for one.
    """
    code = getattr(impl, "__code__", None)
    if code is None:
        return None
    if code in _FORWARDS:
        return _FORWARDS[code]
    name = None
    n = code.co_argcount
    if (
        len(code.co_names) == 1
        and n >= 2
        and not code.co_freevars
        and not getattr(impl, "__defaults__", None)
        and not getattr(impl, "__kwdefaults__", None)
        and not code.co_kwonlyargcount
        and code.co_varnames[0] == "xp"
    ):
        params = code.co_varnames[:n]
        ref = f"lambda {', '.join(params)}: xp.{code.co_names[0]}({', '.join(params[1:])})"
        if eval(ref).__code__.co_code == code.co_code:  # noqa: S307 - our own literal text
            name = code.co_names[0]
    _FORWARDS[code] = name
    return name


#: Outputs from this many elements get an outer-product ``multiply`` spelled as ``einsum``.
_OUTER_EINSUM_MIN_SIZE = 2048

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def outer_product_subscripts(a: tuple, b: tuple, a_dtype: Any, b_dtype: Any) -> str | None:
    """The ``einsum`` subscripts of the elementwise product of arrays of shapes ``a`` and
    ``b`` when both are float32 or both float64, each broadcast along an axis the other
    spans (``(B, 1, n) * (B, m, 1)``, a matmul over one term), else ``None``."""
    if a == b:
        return None
    dtype = numpy.dtype(a_dtype)
    if dtype.char not in "fd" or numpy.dtype(b_dtype) != dtype:
        return None
    n = max(len(a), len(b))
    if n > len(_LETTERS):
        return None
    pa, pb = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    if not (any(i == 1 < j for i, j in zip(pa, pb)) and any(j == 1 < i for i, j in zip(pa, pb))):
        return None
    if any(i != j and 1 not in (i, j) for i, j in zip(pa, pb)):
        return None  # (NumPy raises: not broadcastable)
    out = _LETTERS[:n]
    return f"{out[n - len(a) :]},{out[n - len(b) :]}->{out}"


def _outer_product(eqn: Eqn, shapes: dict, dtypes: dict) -> str | None:
    """The ``einsum`` subscripts of ``eqn``'s elementwise product when it multiplies two
    float32/float64 arrays of the output's dtype, each broadcast along an axis the other
    spans, else ``None``: NumPy's ufunc loops then run along a stride-0 operand, which
    ``einsum`` (the same products, no sums) does up to twice as fast up to a few MB;
    beyond, both are bound by memory (NOTE [outer products as einsum])."""
    a, b = shapes.get(eqn.refs[0]), shapes.get(eqn.refs[1])
    if a is None or b is None or math.prod(eqn.avals[0]) < _OUTER_EINSUM_MIN_SIZE:
        return None
    if dtypes.get(eqn.refs[0]) != numpy.dtype(eqn.avals[1]) or len(eqn.avals[0]) != max(
        len(a), len(b)
    ):
        return None
    return outer_product_subscripts(a, b, dtypes.get(eqn.refs[0]), dtypes.get(eqn.refs[1]))


#: NumPy's context variable of its error handling (None on NumPy 1), and the last value
#: seen with whether it raises (NOTE [compiled tier under np.errstate]).
_ERRSTATE = getattr(
    getattr(getattr(numpy, "_core", None), "umath", None), "_extobj_contextvar", None
)
_SEEN: list = [(object(), False)]


def numpy_errors_raise() -> bool:
    """Whether NumPy's error handling here raises (or calls back, or logs) on some error."""
    now = _ERRSTATE.get() if _ERRSTATE is not None else None
    seen = _SEEN[0]  # (one tuple: threads read a consistent pair)
    if now is seen[0] and now is not None:
        return seen[1]
    raising = any(v in ("raise", "call", "log") for v in numpy.geterr().values())
    _SEEN[0] = (now, raising)
    return raising


def outer_product(subscripts: str, a: Any, b: Any) -> Any:
    """``a * b`` of an outer product (:func:`outer_product_subscripts`) in a replay.

    NOTE [outer products as einsum]: NumPy's ``multiply`` of ``(B, m, 1)`` by ``(B, 1,
    n)`` (what ``vmap(grad)`` computes for per-example weight gradients) calls its inner
    loop once per row of ``n`` along a stride-0 operand; ``einsum`` with no summed index
    makes the same products 1.2-2x faster, but as sums started at zero: a product that
    is -0.0 comes out +0.0, and it sets no floating-point flags.  A replay uses it (from
    2048 elements) unless NumPy's error handling raises (``np.errstate(invalid="raise")``
    around the call: then ``multiply``, which raises as NumPy does); so a replay may warn
    less than NumPy and give +0.0 for -0.0, as the compiled tier's kernels warn less.  The
    recording call (``jit``'s first) is the eager call: ``multiply``, NumPy's values,
    warnings and errors (an ``einsum`` there where every product is a normal finite number
    was measured: 1-5% of W1's first call, within the noise, so it was not kept)."""
    if numpy_errors_raise():
        return numpy.multiply(a, b)
    return numpy.einsum(subscripts, a, b)


def _direct_call(
    eqn: Eqn, args: list[str], shapes: dict, global_name: Callable, dtypes: dict | None = None
) -> str | None:
    """A cheaper spelling of ``eqn``'s call where it provably computes the same thing, or
    ``None``: the array methods ``x.reshape(shape)`` / ``x.transpose(axes)`` (what
    ``xp.reshape``/``xp.transpose`` call, without NumPy's dispatch), ``matmul`` without the
    outer-product test its implementation makes (the shapes are those of the recording),
    ``numpy.add.reduce`` for a float ``reduce_sum`` (what ``numpy.sum`` calls), and
    ``einsum`` for an outer-product ``multiply`` (:func:`_outer_product`: the same values,
    but no floating-point warning, as ``einsum`` sets none)."""
    name = eqn.prim.name
    if eqn.refs and eqn.refs[0] is None:
        return None
    if name == "reshape" and set(eqn.params) == {"shape"}:
        return f"{args[0]}.reshape({global_name(eqn.params['shape'], 'p')})"
    if name == "transpose" and set(eqn.params) == {"axes"}:
        return f"{args[0]}.transpose({global_name(eqn.params['axes'], 'p')})"
    if name == "matmul" and not eqn.params and len(args) == 2 and eqn.refs[1] is not None:
        a, b = shapes.get(eqn.refs[0]), shapes.get(eqn.refs[1])
        matmul = getattr(eqn.xp, "matmul", None)
        if a is None or b is None or matmul is None:
            return None
        if len(a) >= 2 and len(b) >= 2 and a[-1] == 1 and b[-2] == 1:
            # the implementation multiplies instead (ops/linalg.py): an outer product
            if dtypes is None or eqn.xp is not numpy:
                return None
            subscripts = _outer_product(eqn, shapes, dtypes)
            if subscripts is None:
                return None
            return f"{global_name(outer_product, 'u')}({subscripts!r}, {args[0]}, {args[1]})"
        return f"{global_name(matmul, 'u')}({args[0]}, {args[1]})"
    if (
        name == "multiply"
        and eqn.xp is numpy
        and not eqn.params
        and len(args) == 2
        and eqn.refs[1] is not None
        and dtypes is not None
        and (subscripts := _outer_product(eqn, shapes, dtypes)) is not None
    ):
        return f"{global_name(outer_product, 'u')}({subscripts!r}, {args[0]}, {args[1]})"
    if (
        name == "reduce_sum"
        and eqn.xp is numpy
        and set(eqn.params) == {"axis", "keepdims"}
        and type(eqn.out) is not tuple
        and numpy.dtype(eqn.avals[1]).kind in "fc"
    ):
        p = eqn.params
        return (
            f"{global_name(numpy.add.reduce, 'u')}({args[0]}, "
            f"axis={global_name(p['axis'], 'p')}, keepdims={global_name(p['keepdims'], 'p')})"
        )
    return None


def generate(
    eqns: Sequence[Eqn],
    n_inputs: int,
    outputs: list,
    out_consts: list,
    *,
    in_shapes: Sequence | None = None,
    form: str = "list",
    arrays_0d: bool = False,
    in_dtypes: Sequence | None = None,
    shared_from: int | None = None,
) -> Callable:
    """One Python function running ``eqns`` as straight-line code, each intermediate freed
    (``del``) after its last use.  Returns ``fn(*inputs) -> outputs``: a list, or with
    ``form`` ``"leaf"``/``"tuple"`` the one output / a tuple of them; with ``arrays_0d``
    0-d NumPy results as arrays (as eagerly).  ``in_shapes``: the inputs' shapes, if known.
    ``shared_from``: the outputs from this position on may be inputs or repeat another
    output (their caller copies them: a loop's per-step outputs); the others never are."""
    env: dict[str, Any] = {}
    names: dict[int, str] = {}  # id(object) -> global name

    def global_name(obj: Any, prefix: str) -> str:
        name = names.get(id(obj))
        if name is None:
            name = names[id(obj)] = f"{prefix}{len(names)}"
            env[name] = obj
        return name

    shapes: dict[int, tuple] = dict(enumerate(in_shapes)) if in_shapes is not None else {}
    dtypes: dict[int, Any] = dict(enumerate(in_dtypes)) if in_dtypes is not None else {}
    numpy_0d: set[int] = set()  # slots NumPy may hand back as a scalar (numpy.generic)
    for eqn in eqns:
        avals = eqn.avals if type(eqn.out) is tuple else (eqn.avals,)
        for s, (shape, dtype) in zip(_out_slots(eqn), avals):
            shapes[s] = tuple(shape)
            dtypes[s] = dtype
            if arrays_0d and eqn.xp is numpy and not shape:
                numpy_0d.add(s)
    out_slots = {r for r in outputs if r is not None}
    last_use: dict[int, int] = {}
    for i, eqn in enumerate(eqns):
        for r in eqn.refs:
            if r is not None:
                last_use[r] = i
    lines = ["def program(" + ", ".join(f"a{i}" for i in range(n_inputs)) + "):"]
    block = None  # the settings of the open ``with`` block (NOTE [error handling set inside
    pad = "    "  # under jit])
    for i, eqn in enumerate(eqns):
        state = eqn.prim.state if type(eqn.prim) is InsidePrimitive else None
        if state is not block:
            block, pad = state, "    "
            if state is not None:
                lines.append(f"    with {global_name(state, 's')}():")
                pad = "        "
        if state is not None:
            eqn = eqn._replace(prim=eqn.prim.inner)
        args = [
            f"a{r}" if r is not None else global_name(c, "c") for r, c in zip(eqn.refs, eqn.consts)
        ]
        emit = getattr(eqn.prim, "emit", None)  # a compiled kernel (NOTE [compiled tier])
        call = _direct_call(eqn, args, shapes, global_name, dtypes) if emit is None else None
        if emit is not None:
            lines.extend(pad + x for x in emit(args, _out_slots(eqn), global_name))
        elif call is None:
            direct = None if eqn.params else forwarded_name(eqn.prim.impl)
            fn = getattr(eqn.xp, direct, None) if direct else None
            if fn is None:
                args.insert(0, global_name(eqn.xp, "xp"))
            for k, v in eqn.params.items():
                if k.isidentifier() and not keyword.iskeyword(k):
                    args.append(f"{k}={global_name(v, 'p')}")
                else:
                    args.append(f"**{{{k!r}: {global_name(v, 'p')}}}")
            callee = global_name(fn, "u") if fn is not None else global_name(eqn.prim.impl, "f")
            call = f"{callee}({', '.join(args)})"
        slots = _out_slots(eqn)
        if emit is None:
            target = ", ".join(f"a{s}" for s in slots) + ("," if type(eqn.out) is tuple else "")
            lines.append(f"{pad}{target} = {call}" if slots else f"{pad}{call}")
        dead = [r for r in set(eqn.refs) if r is not None and last_use[r] == i]
        dead += [s for s in slots if s not in last_use]  # results nobody reads
        dead = [r for r in dead if r not in out_slots]
        if dead:
            lines.append(pad + "del " + ", ".join(f"a{r}" for r in sorted(dead)))
    # The caller may update a result in place, so every result is an array no one else
    # holds: constants, inputs (``x * 1`` is recorded as ``x``) and a slot returned twice
    # (two outputs that common-call elimination merged) are copied.
    rets, returned = [], set()
    asarray = global_name(numpy.asarray, "u")
    for k, (r, c) in enumerate(zip(outputs, out_consts)):
        if shared_from is not None and k >= shared_from and r is not None:
            rets.append(f"{asarray}(a{r})" if r in numpy_0d else f"a{r}")
            continue
        if r is None:
            if type(c) is LiveOutput:
                rets.append(global_name(c.value, "c"))
            elif type(c) is SameOutput:
                rets.append("")  # (named below)
            elif arrays_0d and isinstance(c, numpy.generic):
                rets.append(f"{asarray}({global_name(c, 'c')})")
            else:
                rets.append(global_name(c, "c") + (".copy()" if _is_mutable(c) else ""))
        elif r in returned or r < n_inputs:
            rets.append(f"a{r}.copy()")
        elif r in numpy_0d:
            rets.append(f"{asarray}(a{r})")  # 0-d results are arrays, as eagerly
        else:
            rets.append(f"a{r}")
        if r is not None:
            returned.add(r)
    repeated = sorted({c.index for c in out_consts if type(c) is SameOutput})
    for j in repeated:  # NOTE [one output object returned twice]
        lines.append(f"    o{j} = {rets[j]}")
        rets[j] = f"o{j}"
    if repeated:
        rets = [f"o{c.index}" if type(c) is SameOutput else r for r, c in zip(rets, out_consts)]
    if form == "leaf" and len(rets) == 1:
        lines.append(f"    return {rets[0]}")
    elif form == "tuple":
        lines.append("    return (" + "".join(f"{r}, " for r in rets) + ")")
    else:
        lines.append("    return [" + ", ".join(rets) + "]")
    source = "\n".join(lines)
    exec(compile(source, "<ftransforms.jit program>", "exec"), env)  # noqa: S102
    fn = env["program"]
    fn.source = source
    return fn


class SameOutput:
    """NOTE [one output object returned twice]: ``y = x * 2; return y, y`` returns one
    array twice, so that a write into one is a write into the other; a recording notes
    the output it repeats (``index``) and every replay returns that array again, where
    two outputs of equal value (``return x * 2, x * 2``, merged by common-call
    elimination) are two arrays."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f"output {self.index}"


class LiveOutput:
    """An output that is an array from outside the arguments, returned as it is (``return
    loss, W`` with a global ``W``): every replay returns that array itself, as the function
    does eagerly, so a change made in it since the recording shows (NOTE [values read from
    outside under jit] in ftransforms/jit_guards.py)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"live {_aval_str(self.value)}"


def _is_mutable(value: Any) -> bool:
    """An array (NumPy or CuPy, 0-d included), not an immutable scalar (nor a class, such
    as ``np.float32``, whose ``shape`` and ``copy`` are its methods)."""
    return (
        hasattr(value, "shape")
        and hasattr(value, "copy")
        and not isinstance(value, (numpy.generic, type))
    )


# -- structured control flow -------------------------------------------------------------


class ControlNode:
    """The primitive of a recorded ``cond``/``switch``/``while_loop``/``scan``/``fori_loop``
    equation (NOTE [control flow under jit] in ``interpreters/tracing.py``): ``impl`` runs
    the compiled sub-programs with the real predicate or trip count at every replay.

    It is not a registered primitive (it only ever appears in recordings); it quacks like
    one where a program needs it (``name``, ``impl``, ``multiple_results``).
    """

    __slots__ = ("name", "impl", "subprograms", "has_effects", "unread")
    multiple_results = True
    effectful = False

    def __init__(self, name: str, impl: Callable, subprograms: dict[str, Callable]) -> None:
        self.name = name
        self.impl = impl
        self.subprograms = subprograms
        # ``unread()``: the positions of a loop step's outputs the loop does not store,
        # once the recording is complete (the compiled tier drops their work), or None
        self.unread: Callable | None = None
        # a body or branch that calls ft.debug: kept by the passes like the call itself
        self.has_effects = any(
            has_effects(eqn.prim) for fn in subprograms.values() for eqn in fn.eqns
        )

    def __repr__(self) -> str:
        return f"<control node {self.name}>"


def compile_subprogram(
    eqns: Sequence[Eqn],
    inputs: Sequence[int],
    outputs: list,
    out_consts: list,
    in_avals: Sequence | None = None,
    shared_from: int | None = None,
) -> Callable:
    """``fn(*inputs) -> list of outputs`` running ``eqns`` (a recorded body or branch).

    ``inputs`` are the slots the body reads from outside (its carry or operands, then
    the values it closes over), renumbered ``0..n-1``; the body's own slots follow.  The
    same passes as a whole program run on it before it is generated.  ``in_avals``: the
    inputs' ``(shape, dtype)`` (``None`` where unknown), for the compiled tier;
    ``shared_from``: as for :func:`generate`.
    """
    rename = {slot: i for i, slot in enumerate(inputs)}
    n = len(rename)
    renamed = []
    for eqn in eqns:
        refs = tuple(None if r is None else rename[r] for r in eqn.refs)
        outs = []
        for s in _out_slots(eqn):
            rename[s] = n
            outs.append(n)
            n += 1
        out = tuple(outs) if type(eqn.out) is tuple else outs[0]
        renamed.append(eqn._replace(refs=refs, out=out))
    out_refs = [None if r is None else rename[r] for r in outputs]
    renamed, out_refs = eliminate_common(renamed, out_refs)
    renamed = eliminate_dead(renamed, {r for r in out_refs if r is not None})
    from ftransforms import program_rewrites as rw  # late import: it imports Eqn

    renamed = rw.join_scatters(renamed, out_refs)
    renamed = materialize_scalars(renamed)
    known = in_avals is not None and all(av is not None for av in in_avals)
    fn = generate(
        renamed,
        len(inputs),
        out_refs,
        list(out_consts),
        in_shapes=[tuple(av[0]) for av in in_avals] if known else None,
        in_dtypes=[numpy.dtype(av[1]) for av in in_avals] if known else None,
        shared_from=shared_from,
    )
    fn.eqns, fn.n_inputs, fn.out_refs, fn.out_consts = renamed, len(inputs), out_refs, out_consts
    fn.shared_from = shared_from
    fn.in_avals = list(in_avals) if in_avals is not None else None
    return fn


def _aval_str(v: Any) -> str:
    if hasattr(v, "shape") and getattr(v, "ndim", 0) > 0:
        kind = f"{v.dtype}{list(v.shape)}"
        if isinstance(v, numpy.ndarray) and v.size and (v == v.flat[0]).all():
            return f"{v.flat[0].item()!r}:{kind}"  # a pre-broadcast scalar
        return kind
    return repr(v.item() if isinstance(v, numpy.ndarray | numpy.generic) else v)


def _format_args(refs: Sequence, consts: Sequence, sep: str = " ") -> str:
    return sep.join(f"%{r}" if r is not None else f"<{_aval_str(c)}>" for r, c in zip(refs, consts))


def _format_eqns(eqns: Sequence[Eqn], indent: str, lines: list) -> None:
    """One line per equation; a control-flow node's sub-programs follow it, indented, in
    their own numbering (their inputs first: the carry or operands, then what they close
    over, in the order of the node's arguments)."""
    for eqn in eqns:
        settings = " ".join(f"{k}={v!r}" for k, v in eqn.params.items() if k != "rng")
        outs = " ".join(f"%{s}" for s in _out_slots(eqn))
        lines.append(
            f"{indent}{outs} = {eqn.prim.name}[{settings}] {_format_args(eqn.refs, eqn.consts)}"
        )
        if isinstance(eqn.prim, ControlNode):
            for name, fn in eqn.prim.subprograms.items():
                ins = " ".join(f"%{i}" for i in range(fn.n_inputs))
                lines.append(f"{indent}  {name}: {{ lambda {ins} .")
                _format_eqns(fn.eqns, indent + "    ", lines)
                lines.append(
                    f"{indent}    in ( {_format_args(fn.out_refs, fn.out_consts, ', ')} ) }}"
                )


# -- the program --------------------------------------------------------------------------

_LEAF_SPEC = tree_flatten(0)[1]

#: Held while a program's passes run (NOTE [deferred program passes]).
_SIMPLIFY_LOCK = threading.Lock()
_SPECS: dict = {}


def _tuple_spec(n: int) -> Any:
    if ("tuple", n) not in _SPECS:
        _SPECS["tuple", n] = tree_flatten(tuple(range(n)))[1]
    return _SPECS["tuple", n]


def _list_spec(n: int) -> Any:
    if ("list", n) not in _SPECS:
        _SPECS["list", n] = tree_flatten(list(range(n)))[1]
    return _SPECS["list", n]


class Program:
    """A recorded flat program: inputs, backend calls, outputs.  ``str()`` prints it.

    ``optimize=False`` keeps the recording as it was made (for reading what the
    transforms emitted); otherwise the passes above run and ``recorded`` still tells how
    many calls were recorded.
    """

    def __init__(
        self,
        eqns: list[Eqn],
        n_inputs: int,
        out_refs: list,
        out_consts: list,
        out_spec: Any,
        in_avals: list[str],
        *,
        value_dependent: bool = False,
        reason: str = "",
        optimize: bool = True,
        in_types: Sequence | None = None,
    ) -> None:
        self.recorded = len(eqns)
        # NOTE [deferred program passes]: the first call of a signature returns the values
        # computed while recording, so nothing needs the simplified equations until the
        # program is read or replayed: the passes run then (``_simplify``), once, and the
        # first call pays only for the recording.
        self._eqns: list[Eqn] | None = None
        self._out_refs: list = list(out_refs)
        self._pending: tuple | None = (eqns, in_types) if optimize else None
        if not optimize:
            self._eqns = eqns
        self.n_inputs = n_inputs
        # The recording's own copies: the traced call returned the originals to the caller.
        self.out_consts = [c.copy() if _is_mutable(c) else c for c in out_consts]
        self.out_spec = out_spec
        self.in_avals = in_avals
        self.in_shapes = None if in_types is None else [tuple(t[0]) for t in in_types]
        self.in_dtypes = None if in_types is None else [numpy.dtype(t[1]) for t in in_types]
        self.value_dependent = value_dependent
        self.reason = reason
        self._fn: Callable | None = None  # what call() runs: the replay, or the compiled tier
        self._replay: Callable | None = None
        self.tier = "replay"
        # jit's checks of the values read from outside the arguments, or None
        # (NOTE [values read from outside under jit] in ftransforms/jit_guards.py)
        self.guards: Any = None
        self.opaque: frozenset = frozenset()  # ids of those that are arrays
        # The output structure the generated function builds itself, where it can.
        n = len(out_refs)
        if out_spec == _LEAF_SPEC:
            self._form = "leaf"
        elif n and out_spec == _tuple_spec(n):
            self._form = "tuple"
        elif out_spec == _list_spec(n):
            self._form = "list"
        else:
            self._form = None

    def _simplify(self) -> None:
        """Run the passes on the recording (NOTE [deferred program passes]); once, also
        when the compiled tier's background thread asks at the same time."""
        with _SIMPLIFY_LOCK:
            if self._pending is not None:
                self._simplify_now()

    def _simplify_now(self) -> None:
        eqns, in_types = self._pending
        out_refs = self._out_refs
        eqns, out_refs = eliminate_common(eqns, out_refs)
        eqns = eliminate_dead(eqns, {r for r in out_refs if r is not None})
        if in_types is not None:
            from ftransforms import program_rewrites as rw  # late import: it imports Eqn

            eqns = rw.drop_broadcasts(eqns, in_types)
            eqns = rw.join_scatters(eqns, out_refs)
            eqns = rw.factor_scalings(eqns, out_refs, in_types)
            eqns = rw.sink_transposes(eqns, out_refs, in_types)
            eqns, out_refs = eliminate_common(eqns, list(out_refs))
            eqns = eliminate_dead(eqns, {r for r in out_refs if r is not None})
        self._eqns, self._out_refs = materialize_scalars(eqns), out_refs
        self._pending = None  # last: a reader that sees None sees both of the above

    @property
    def eqns(self) -> list[Eqn]:
        """The simplified equations (the passes run on first access)."""
        if self._pending is not None:
            self._simplify()
        return self._eqns

    @eqns.setter
    def eqns(self, value: list[Eqn]) -> None:
        if self._pending is not None:
            self._simplify()  # the outputs' slots are the simplified ones
        self._eqns = value

    @property
    def out_refs(self) -> list:
        """The slots of the outputs (``None``: the constant in ``out_consts``)."""
        if self._pending is not None:
            self._simplify()
        return self._out_refs

    @out_refs.setter
    def out_refs(self, value: list) -> None:
        if self._pending is not None:
            self._simplify()
        self._out_refs = value

    @property
    def jaxpr(self) -> Program:
        """The program itself (JAX's ``ClosedJaxpr.jaxpr``: ``make_jaxpr(f)(x).jaxpr.eqns``
        reads the equations here too)."""
        return self

    @property
    def out_avals(self) -> list:
        """The outputs' shapes and dtypes, as ``ShapedArray`` s (JAX's ``out_avals``).

        Example:
            >>> import numpy as np
            >>> import ftransforms as ft
            >>> ft.make_jaxpr(lambda x: (x.sum(), x * 2))(np.ones((2, 3))).out_avals
            [ShapedArray(float64[]), ShapedArray(float64[2,3])]
        """
        avals: dict = {}
        if self.in_shapes is not None:
            avals.update(enumerate(zip(self.in_shapes, self.in_dtypes)))
        for eqn in self.eqns:
            if type(eqn.out) is tuple:
                avals.update(zip(eqn.out, eqn.avals))
            else:
                avals[eqn.out] = eqn.avals
        return [
            ShapedArray(numpy.shape(c), numpy.result_type(c))
            if r is None
            else ShapedArray(*avals[r])
            for r, c in zip(self.out_refs, self.out_consts)
        ]

    @property
    def consts(self) -> list:
        """The arrays the equations hold as constants (JAX's ``ClosedJaxpr.consts``)."""
        return [c for eqn in self.eqns for c in eqn.consts if isinstance(c, numpy.ndarray)]

    @property
    def source(self) -> str:
        """The generated Python source that :meth:`run` executes."""
        return self._compiled().source

    def generate_with(self, eqns: list[Eqn]) -> Callable:
        """The replay's function for ``eqns`` in place of this program's equations (the
        same inputs, outputs and output structure)."""
        return generate(
            eqns,
            self.n_inputs,
            self.out_refs,
            self.out_consts,
            in_shapes=self.in_shapes,
            form=self._form or "list",
            arrays_0d=True,
            in_dtypes=self.in_dtypes,
        )

    def _compiled(self) -> Callable:
        if self._replay is None:
            self._replay = self.generate_with(self.eqns)
            if self._fn is None:
                self._fn = self._replay
        return self._replay

    def call(self, *leaves: Any) -> Any:
        """Replay on the array leaves of a call with this program's signature."""
        fn = self._fn if self._fn is not None else self._compiled()
        if self.views_inputs:
            return self._call_copying(fn, leaves)
        if self._form is not None:
            return fn(*leaves)
        return tree_unflatten(self.out_spec, fn(*leaves))

    #: The positions of the outputs that the recording saw to be views of an input
    #: (``x[1:].copy()``, ``x.T * 1``: a copy or ``* 1`` is no operation of the program):
    #: they are copied, as every output is an array no one else holds (see ``generate``).
    views_inputs: tuple = ()

    def _call_copying(self, fn: Callable, leaves: tuple) -> Any:
        out = fn(*leaves)
        if self._form == "leaf":
            return out.copy()
        out = list(out)
        for k in self.views_inputs:
            out[k] = out[k].copy()
        if self._form == "tuple":
            return tuple(out)
        return out if self._form == "list" else tree_unflatten(self.out_spec, out)

    def run(self, leaves: list) -> Any:
        """Replay on the array leaves (a list) of a call with this program's signature."""
        return self.call(*leaves)

    def __len__(self) -> int:
        return len(self.eqns)

    def __str__(self) -> str:
        lines = ["{ lambda " + " ".join(f"%{i}:{s}" for i, s in enumerate(self.in_avals)) + " ."]
        _format_eqns(self.eqns, "    ", lines)
        lines.append(f"  in ( {_format_args(self.out_refs, self.out_consts, ', ')} ) }}")
        return "\n".join(lines)
