"""Primitives: one object per operator, with its implementation and transformation rules.

``Primitive.bind(*args, **params)`` is the single entry point of every operation.  With no
tracer among ``args`` it calls the backend implementation; otherwise it hands the call to
the interpreter of the highest level among the tracers (see NOTE [levels and dispatch] in
``core/stack.py``).  Interpreters unwrap their own tracers, apply the primitive's rule, and
re-bind primitives on the unwrapped values, so every rule is itself transformable.

Rule signatures (arrays positionally, settings by keyword):

* ``impl(xp, *args, **params)`` — the computation, through the array namespace ``xp``.
* ``jvp`` — a tuple with one entry per positional input, ``rule(x_dot, y, *args,
  **params) -> y_dot`` (``None`` for an input with no derivative, e.g. indices), or one
  callable ``rule(tangents, y, *args, **params) -> y_dot`` where absent tangents are
  ``None`` (symbolic zeros).
* ``vjp`` — the same shapes: ``rule(y_bar, y, *args, **params) -> x_bar`` per input, or
  one callable ``rule(y_bar, y, *args, wanted, **params)`` returning a tuple of ``x_bar``
  (``None`` for zero; ``wanted[i]`` says whether input ``i`` needs one).
* ``transpose`` — for ops linear in their first argument (the others being static
  indices): ``rule(y_bar, x, *rest, **params) -> x_bar``.  Both modes come from it: the
  JVP is the op applied to the tangent.
* ``batch`` — ``rule(prim, args, x_bdims, axis_size, **params) -> (out, out_bdim)``;
  ``x_bdims`` holds ``None`` for unbatched inputs, and family rules re-bind ``prim`` on the
  rearranged values.  Built-in primitives do not name their batching rule: the package
  ``batching_rules`` registers it from its side (:func:`register_batch_rule` for one
  primitive, :func:`register_family_batch_rule` for every primitive declared with
  ``family=...``), so the declarations never import the batching layer.  A primitive
  declared after its family rule was registered gets that rule at once.

Rules are written with :mod:`ftransforms.lax`, whose functions find the primitives by
name in :data:`prims` (filled here by :func:`defop`): that is how the layer below the
declarations can call them without importing them (NOTE [layers] in ``ftransforms/lax.py``).
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from ftransforms.backend import namespace_of
from ftransforms.core.errors import (
    EscapedTracerError,
    MixedBackendError,
    UnsupportedOperationError,
)
from ftransforms.core.stack import current_stack
from ftransforms.core.tracer import TRACER_TYPES, Tracer, escaped_error

#: Argument types that need no backend lookup: the fast path of ``bind`` (NumPy).
_PLAIN_TYPES = frozenset(
    {numpy.ndarray, float, int, bool, numpy.float64, numpy.float32, numpy.int64, numpy.bool_}
)

#: ``[convert]``: the NumPy layer's function that turns a NumPy object array or a list or
#: tuple holding tracers (``np.array([t, 1.0])``, ``fnp.sin([t, 2.0])``) into a traced
#: array, and returns anything else as it is (NOTE [array-likes holding tracers]).
#: ``bind``'s general path applies it, so that such a value is never taken for a constant
#: (a silent zero derivative, an unbatched value).
OBJECT_ARRAY_CONVERTER: list[Callable[[Any], Any]] = []
_OBJECT = numpy.dtype(object)

#: Every primitive, by name.  The registry test walks it.
REGISTRY: dict[str, Primitive] = {}

#: The same primitives as attributes (``prims.add``): what ``ftransforms.lax`` binds.
prims = types.SimpleNamespace()

#: Primitives called for their effect (``ft.debug.callback``/``ft.debug.print``, the
#: ``check_finite`` of ``ops/checks.py``): every ``jit`` replay runs them, so they are
#: never dropped as dead nor shared with an equal call (NOTE [callbacks] in
#: ``ftransforms/callbacks.py``); ``ftransforms.program`` re-exports it.
EFFECT_PRIMITIVES: set = set()

#: Family batching rules registered by ``batching_rules`` (family name -> rule).
FAMILY_BATCH_RULES: dict[str, Callable] = {}


def _after_scope(a: Any) -> Any:
    """An operand whose transform has returned, as what it stands for when that is a
    plain array (NOTE [buffers after their transform])."""
    if isinstance(a, Tracer) and a._plain_after_scope and not a._interp.active:
        return a.val
    return a


#: The ufunc methods and attributes a primitive implementing a NumPy ufunc passes on
#: (NOTE [ufunc methods of ftransforms.numpy's ufuncs], below the class).
_UFUNC_METHODS = frozenset(
    {
        "reduce",
        "accumulate",
        "outer",
        "reduceat",
        "at",
        "nin",
        "nout",
        "nargs",
        "ntypes",
        "types",
        "identity",
        "signature",
    }
)


def _ufunc_at(ufunc: Any) -> Callable[..., Any]:
    """``ufunc.at`` with ``jax.numpy``'s ``inplace=False`` (a new array, ``a`` untouched)."""

    def at(a: Any, indices: Any, b: Any = None, /, *, inplace: bool = True) -> Any:
        if not inplace:
            a = numpy.copy(a)  # a tracer dispatches to ftransforms.numpy.copy
        if b is None:
            ufunc.at(a, indices)
        else:
            ufunc.at(a, indices, b)
        return None if inplace else a

    at.__name__ = "at"
    at.__doc__ = f"``numpy.{ufunc.__name__}.at`` (``inplace=False``: return a new array)."
    return at


class Primitive:
    """An operator with an implementation and rules for every transform.

    Example:
        >>> import numpy as np
        >>> from ftransforms.ops.elementwise import sin_p
        >>> float(sin_p.bind(np.float64(0.0)))
        0.0
    """

    __slots__ = (
        "name",
        "impl",
        "jvp_rules",
        "jvp_joint",
        "vjp_joint",
        "vjp_rules",
        "transpose",
        "batch",
        "nondiff",
        "nondiff_when",
        "multiple_results",
        "doc",
        "effectful",
        "family",
        "ufunc",
    )

    def __init__(self, name: str, impl: Callable[..., Any], **rules: Any) -> None:
        self.name = name
        self.impl = impl
        self.jvp_rules = rules.get("jvp")
        # ``jvp_joint(primals, tangents, **params) -> (out, out_dot)``: a rule of a
        # multiple-result primitive that computes the outputs itself, used by forward mode
        # instead of ``impl`` + ``jvp`` (a ``custom_jvp`` function, whose rule gives its
        # primal output: NOTE [custom_jvp calls only its rule under differentiation]).
        self.jvp_joint = rules.get("jvp_joint")
        # ``vjp_joint(args, wanted, **params) -> (out, pullback)``: the same for reverse
        # mode; the tape keeps ``pullback`` as the node's parameter of that name, which the
        # ``vjp`` (and ``jvp``) rules then receive.
        self.vjp_joint = rules.get("vjp_joint")
        self.vjp_rules = rules.get("vjp")
        self.transpose = rules.get("transpose")
        self.batch = rules.get("batch")
        self.nondiff = bool(rules.get("nondiff", False))
        self.nondiff_when = rules.get("nondiff_when")
        self.multiple_results = bool(rules.get("multiple_results", False))
        self.doc = rules.get("doc") or f"The ``{name}`` primitive."
        # An op whose output is not a function of its inputs (a random draw): ``jit``
        # never replays a recording that contains one.
        self.effectful = bool(rules.get("effectful", False))
        # The op family ("elementwise", "reduction", ...): whose batching rule applies.
        self.family = rules.get("family")
        # The NumPy ufunc this primitive implements (``numpy.sin`` for ``sin``), if any:
        # ``ftransforms.numpy`` exposes and dispatches such primitives from this field.
        self.ufunc = rules.get("ufunc")

    def __repr__(self) -> str:
        return f"<primitive {self.name}>"

    def bind(self, *args: Any, **params: Any) -> Any:
        """Apply the primitive: evaluate, or dispatch to the top interpreter among ``args``."""
        # NOTE [bind fast paths]: one and two arguments (nearly every call) are decided
        # here with set lookups on the arguments' types: NumPy arrays and scalars go to the
        # implementation, a tracer (with plain values beside it) straight to its
        # interpreter.  Everything else (three or more arguments, other array types, object
        # arrays, escaped tracers) takes the general path below, which decides the same
        # way.  Arities are spelled out: CPython calls a Python function much faster with
        # positional arguments than through ``*args, **params`` unpacking.
        n = len(args)
        if n == 1:
            a = args[0]
            t = type(a)
            if t in _PLAIN_TYPES:
                if not params:
                    return self.impl(numpy, a)
                if t is not numpy.ndarray or a.dtype is not _OBJECT:
                    return self.impl(numpy, a, **params)
            elif t in TRACER_TYPES:
                interp = a._interp
                if interp.active:
                    return interp.process(self, args, params)
        elif n == 2:
            a, b = args
            ta = type(a)
            tb = type(b)
            if ta in _PLAIN_TYPES:
                if tb in _PLAIN_TYPES:
                    if not params:
                        return self.impl(numpy, a, b)
                elif tb in TRACER_TYPES and (ta is not numpy.ndarray or a.dtype is not _OBJECT):
                    interp = b._interp
                    if interp.active:
                        return interp.process(self, args, params)
            elif ta in TRACER_TYPES:
                if tb in TRACER_TYPES:
                    ia = a._interp
                    ib = b._interp
                    if ia.active and ib.active:
                        return (ia if ia.level >= ib.level else ib).process(self, args, params)
                elif tb in _PLAIN_TYPES and (tb is not numpy.ndarray or b.dtype is not _OBJECT):
                    interp = a._interp
                    if interp.active:
                        return interp.process(self, args, params)
        return self._bind_general(args, params)

    def _bind_general(self, args: tuple, params: dict) -> Any:  # noqa: C901
        """``bind`` for any arguments (see NOTE [bind fast paths])."""
        top = None
        plain = True  # only numpy arrays and Python/NumPy scalars so far
        objects = False  # an object array, list or tuple among them (np.array([t, 1.0]))
        for a in args:
            t = type(a)
            if t in _PLAIN_TYPES:
                if t is numpy.ndarray and a.dtype is _OBJECT:
                    objects = True
                continue
            if t is list or t is tuple:
                objects = True
            if isinstance(a, Tracer):
                interp = a._interp
                if not interp.active:
                    if a._plain_after_scope:  # NOTE [buffers after their transform]
                        return self.bind(*[_after_scope(b) for b in args], **params)
                    raise _escaped(a, self)
                if top is None or interp.level > top.level:
                    top = interp
            else:
                plain = False
                if t.__module__.startswith("scipy.sparse"):  # NOTE [SciPy sparse operands]
                    raise _sparse_operand(self, a)
                if isinstance(a, numpy.matrix):  # NOTE [NumPy matrix operands]
                    objects = objects or None  # (None: a matrix, see below)
        if objects is None and top is not None:  # a tracer's values are never matrices
            return self.bind(
                *[numpy.asarray(b) if isinstance(b, numpy.matrix) else b for b in args], **params
            )
        if objects and OBJECT_ARRAY_CONVERTER:
            converted = [OBJECT_ARRAY_CONVERTER[0](b) for b in args]
            if top is not None:  # NOTE [an object array of numbers meets a tracer]
                converted = [_numeric_if_numbers(c) for c in converted]
            if any(c is not b for c, b in zip(converted, args)):
                return self.bind(*converted, **params)
            if any(type(b) is list or type(b) is tuple for b in args):
                # lists of numbers: arrays on the backend of the other arguments
                try:
                    xp = namespace_of(
                        *[b._physical() if isinstance(b, Tracer) else b for b in args]
                    )
                except MixedBackendError as err:
                    raise _mixed_backends(self, err) from None
                return self.bind(
                    *[xp.asarray(b) if type(b) is list or type(b) is tuple else b for b in args],
                    **params,
                )
        if top is None:
            if plain:
                return self.impl(numpy, *args, **params)
            try:
                xp = namespace_of(*args)
            except MixedBackendError as err:
                raise _mixed_backends(self, err) from None
            return self.impl(xp, *args, **params)
        return top.process(self, args, params)

    __call__ = bind

    # -- rules, applied by the interpreters ------------------------------------------------

    def is_nondiff(self, params: dict) -> bool:
        """True when the output carries no derivative (comparisons, casts to int, ...)."""
        return self.nondiff or (self.nondiff_when is not None and self.nondiff_when(**params))

    def apply_jvp(self, primals: Sequence, tangents: Sequence, y: Any, params: dict) -> Any:
        """The output tangent, or ``None`` when it is a symbolic zero."""
        if self.transpose is not None:
            t = tangents[0]
            return None if t is None else self.bind(t, *primals[1:], **params)
        rules = self.jvp_rules
        if callable(rules):
            return rules(tangents, y, *primals, **params)
        out = None
        for rule, t in zip(rules, tangents):
            if t is None or rule is None:
                continue
            contribution = rule(t, y, *primals, **params)
            if contribution is None:
                continue
            out = contribution if out is None else _add(out, contribution)
        return out

    def apply_vjp(self, y_bar: Any, y: Any, args: Sequence, wanted: Sequence[bool], params: dict):
        """Cotangents for the inputs flagged in ``wanted`` (``None`` = symbolic zero)."""
        if self.transpose is not None:
            return (self.transpose(y_bar, *args, **params),)
        rules = self.vjp_rules
        if callable(rules):
            return rules(y_bar, y, *args, wanted=wanted, **params)
        if not params:  # one and two inputs without star-unpacking
            n = len(args)
            if n == 1:
                rule = rules[0]
                return (rule(y_bar, y, args[0]) if wanted[0] and rule is not None else None,)
            if n == 2:
                r1, r2 = rules
                x1, x2 = args
                return (
                    r1(y_bar, y, x1, x2) if wanted[0] and r1 is not None else None,
                    r2(y_bar, y, x1, x2) if wanted[1] and r2 is not None else None,
                )
        return tuple(
            rule(y_bar, y, *args, **params) if want and rule is not None else None
            for rule, want in zip(rules, wanted)
        )


# NOTE [floating-point warnings of derivatives]: NumPy warns (``divide by zero``) where the
# user's code computes an inf or nan, under the user's ``np.errstate``.  The derivative
# rules compute numbers the user never wrote: ``0.5 / sqrt(x)`` at ``x == 0`` for the
# gradient of ``sqrt``, ``1 / x`` for ``log`` under a ``with np.errstate(all='ignore')``
# that ended with the forward pass, ``inf * 0`` in ``jacfwd``'s zero tangents.  JAX and
# torch compute those inf/nan silently, and so do the derivatives here: JVP rules
# (``ForwardInterpreter.process``), backward passes and ``linearize``'s forward walk
# (``ReverseInterpreter.backward``/``forward``) run under NumPy's error handling
# ``all='ignore'`` (an ``np.errstate`` inside a custom rule still applies inside it).
# Warnings of the forward computation are NumPy's, as before, and a derivative's warning
# no longer splits a ``vmap`` batch (``jacfwd``: NOTE [warnings of some rows]).  The
# setting is NumPy's context variable, set and reset directly: about 0.2 us per JVP rule
# and per backward pass (``numpy.errstate`` costs 1.7 us); NumPy 1 has no such variable
# and takes ``numpy.seterr``.  ``jit``'s recording does not take this setting for one
# made inside the function (``TracingInterpreter._errstate_changed``): the derivative
# operations are recorded as plain ones, so the replay and the compiled tier run them
# as any other (under the caller's error handling: a replay may warn where the recording
# call did not, as every call did before).
_EXTOBJ = getattr(getattr(numpy, "_core", None), "umath", None)
_EXTOBJ = getattr(_EXTOBJ, "_extobj_contextvar", None)
if _EXTOBJ is not None:
    with numpy.errstate(all="ignore"):
        _QUIET = _EXTOBJ.get()
    #: The error handling the derivatives run under, as NumPy's context variable holds it
    #: (``jit``'s recording tells it from a setting made inside the function by identity).
    QUIET_ERRSTATE: Any = _QUIET

    def quiet_derivatives() -> Any:
        """Enter NOTE [floating-point warnings of derivatives]; returns the token for
        :func:`end_quiet_derivatives`."""
        return _EXTOBJ.set(_QUIET)

    def end_quiet_derivatives(token: Any) -> None:
        """Restore the error handling :func:`quiet_derivatives` replaced."""
        _EXTOBJ.reset(token)

else:  # NumPy 1
    QUIET_ERRSTATE = None

    def quiet_derivatives() -> Any:
        """Enter NOTE [floating-point warnings of derivatives]; returns the token for
        :func:`end_quiet_derivatives`."""
        return numpy.seterr(all="ignore")

    def end_quiet_derivatives(token: Any) -> None:
        """Restore the error handling :func:`quiet_derivatives` replaced."""
        numpy.seterr(**token)


class _PrimitiveDoc:
    """``Primitive.__doc__``: the class docstring on the class, ``prim.doc`` on an instance.

    ``help(fnp.sin)``, ``inspect.getdoc`` and the API reference then show what the
    operator computes instead of what a primitive is.
    """

    def __init__(self, class_doc: str) -> None:
        self.class_doc = class_doc

    def __get__(self, obj: Primitive | None, owner: type | None = None) -> str:
        return self.class_doc if obj is None else obj.doc


Primitive.__doc__ = _PrimitiveDoc(Primitive.__doc__)  # type: ignore[assignment]


def _add(a: Any, b: Any) -> Any:
    return REGISTRY["add"].bind(a, b)


def _escaped(tracer: Tracer, prim: Primitive) -> EscapedTracerError:
    return escaped_error(tracer, f"by {prim.name}")


def _sparse_operand(prim: Primitive, matrix: Any) -> UnsupportedOperationError:
    """A ``scipy.sparse`` matrix given to an array operation: NumPy would make it a 0-d
    object array, and the result an array of matrices (NOTE [SciPy sparse operands] in
    ``ftransforms/numpy/sparse_operands.py`` says what works)."""
    stack = current_stack()
    where = f"{stack[-1].name}: " if stack else ""
    return UnsupportedOperationError(
        f"{where}{prim.name}: a scipy.sparse {type(matrix).__name__} is not an array "
        f"operand here; multiply with it by L @ u (or L.dot(u)), or convert it with "
        f"L.toarray()"
    )


def _mixed_backends(prim: Primitive, err: MixedBackendError) -> MixedBackendError:
    stack = current_stack()
    where = f"{stack[-1].name}: " if stack else ""
    return MixedBackendError(f"{where}{prim.name}: {err}")


# NOTE [ufunc methods of ftransforms.numpy's ufuncs]: ``fnp.add`` is the ``add`` primitive;
# code written for NumPy (and jax.numpy) also calls its ufunc methods, ``np.add.reduce(x)``,
# ``np.maximum.accumulate(x)``, ``np.subtract.outer(a, b)``, ``np.add.at(a, i, v)``.  A
# primitive that implements a NumPy ufunc hands those to the ufunc itself, which computes
# plain arrays and dispatches traced ones through ``__array_ufunc__`` (numpy/protocol.py),
# as under ``import numpy as np``.  They are class properties (a primitive without a ufunc
# has none of them: AttributeError), so ``bind`` and every other attribute cost nothing more.
def _ufunc_attribute(name: str) -> property:
    def get(self: Primitive) -> Any:
        ufunc = self.ufunc
        if ufunc is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute {name!r}")
        return _ufunc_at(ufunc) if name == "at" else getattr(ufunc, name)

    return property(get, doc=f"The NumPy ufunc's ``{name}`` (for a primitive that has one).")


for _name in sorted(_UFUNC_METHODS):
    setattr(Primitive, _name, _ufunc_attribute(_name))


def defop(
    name: str,
    impl: Callable[..., Any],
    *,
    jvp: Sequence[Callable | None] | Callable | None = None,
    vjp: Sequence[Callable | None] | Callable | None = None,
    transpose: Callable | None = None,
    batch: Callable | None = None,
    family: str | None = None,
    ufunc: Any = None,
    nondiff: bool = False,
    nondiff_when: Callable[..., bool] | None = None,
    multiple_results: bool = False,
    doc: str | None = None,
    effectful: bool = False,
) -> Primitive:
    """Declare a primitive with all of its rules, validated here, at import.

    ``family="elementwise"`` (or ``"reduction"``, ``"scan"``, ...) gives it that family's
    batching rule; ``batch=`` names an op-specific rule instead.  Declaring a name again
    (re-running a notebook cell) replaces the old primitive, with a warning.

    Example:
        >>> cube_p = defop(
        ...     "doc_cube",
        ...     impl=lambda xp, x: x * x * x,
        ...     jvp=(lambda x_dot, y, x: x_dot * 3 * x * x,),
        ...     vjp=(lambda y_bar, y, x: y_bar * 3 * x * x,),
        ...     family="elementwise",
        ... )
        >>> float(cube_p(2.0))
        8.0
    """
    if name in REGISTRY:
        warnings.warn(
            f"defop({name!r}): a primitive of that name was already declared; the new "
            f"declaration replaces it (functions that hold the old one keep using it).",
            RuntimeWarning,
            stacklevel=2,
        )
    if not callable(impl):
        raise TypeError(f"defop({name!r}): impl must be callable, got {impl!r}")
    if not nondiff:
        if transpose is None and (jvp is None or vjp is None):
            raise TypeError(
                f"defop({name!r}): a differentiable primitive needs jvp= and vjp= rules, or "
                f"transpose= when it is linear in its first argument; pass nondiff=True if "
                f"its output has no derivative."
            )
        if transpose is not None and (jvp is not None or vjp is not None):
            raise TypeError(f"defop({name!r}): give either transpose= or jvp=/vjp=, not both")
        for label, rules in (("jvp", jvp), ("vjp", vjp)):
            if rules is not None and not callable(rules):
                if not all(r is None or callable(r) for r in rules):
                    raise TypeError(f"defop({name!r}): every {label} rule must be callable")
        if multiple_results and not (callable(jvp) and callable(vjp)):
            raise TypeError(
                f"defop({name!r}): a multiple-result primitive takes one jvp and one vjp "
                f"callable over all inputs"
            )
    if batch is not None and not callable(batch):
        raise TypeError(f"defop({name!r}): batch must be a batching rule function")
    if batch is None and family is not None:
        batch = FAMILY_BATCH_RULES.get(family)
    prim = Primitive(
        name,
        impl,
        jvp=jvp,
        vjp=vjp,
        transpose=transpose,
        batch=batch,
        family=family,
        ufunc=ufunc,
        nondiff=nondiff,
        nondiff_when=nondiff_when,
        multiple_results=multiple_results,
        doc=doc,
        effectful=effectful,
    )
    REGISTRY[name] = prim
    setattr(prims, name, prim)
    return prim


def register_batch_rule(prim: Primitive, rule: Callable) -> None:
    """Make ``rule`` the batching rule of ``prim`` (called by ``batching_rules``)."""
    if not callable(rule):
        raise TypeError(f"register_batch_rule({prim.name}): the rule must be callable")
    prim.batch = rule


def register_family_batch_rule(family: str, rule: Callable) -> None:
    """Make ``rule`` the batching rule of every primitive of ``family`` that has none,
    now and when one is declared later."""
    FAMILY_BATCH_RULES[family] = rule
    for prim in REGISTRY.values():
        if prim.family == family and prim.batch is None:
            prim.batch = rule


# NOTE [an object array of numbers meets a tracer]: NumPy code that computes on object
# arrays of tracers (np.polynomial's series once a coefficient is traced) makes object
# arrays of plain numbers beside them (``c2 = c2[:-1] / scl`` of a float divisor), and an
# operation of such an array with a tracer would make a traced array of dtype object,
# which no transform can differentiate or batch (a Python float where a cotangent should
# be, an object array returned by vmap).  So, where a tracer is among the operands, an
# object array that holds only numbers computes as NumPy's array of those numbers.
_NUMBER_TYPES = (bool, int, float, complex, numpy.number, numpy.bool_)


def _numeric_if_numbers(b: Any) -> Any:
    if type(b) is not numpy.ndarray or b.dtype is not _OBJECT or not b.size:
        return b
    items = b.ravel().tolist()
    if not all(isinstance(v, _NUMBER_TYPES) for v in items):
        return b
    try:
        return numpy.array(items).reshape(b.shape)
    except (OverflowError, ValueError):  # a Python int past int64: NumPy's object array
        return b
