"""Implicit differentiation: :func:`custom_root` and :func:`custom_linear_solve` (JAX's
``jax.lax.custom_root`` and ``jax.lax.custom_linear_solve``).

NOTE [implicit differentiation]: the user's ``solve`` runs once and is never
differentiated.  The derivatives come from the equation instead: with ``x*`` the solution
and ``L`` the inverse of the equation's linearization at ``x*`` (one call of
``solve``/``tangent_solve``, linear in its argument), the result is ``x* + L(r(x*))``,
where the residual ``r`` (``b - matvec(x)``, or ``-f(x)``) carries every derivative of
``b`` and of the values ``matvec``/``f`` close over.  ``r(x*)`` is zero, so the value is
``x*`` (``L`` is never evaluated on it: ``zero=True``, so a solver need not cope with a
zero right-hand side), and its derivative is the implicit function theorem's
``-J⁻¹ ∂r``.  ``L`` is a primitive (:class:`_Inverse`) whose JVP is ``L`` on the tangent
and whose VJP is the transposed solve (``transpose_solve``, or ``tangent_solve`` on the
transposed linearization), so reverse mode never walks through the solver's steps.
Each further derivative level on the stack (``hessian``, ``jacfwd(jacrev)``) adds one
refinement step ``x += L(r(x))``, which makes one more order of derivatives exact.

Closures.  The solver, the linearization and the transposed solve run with the
derivative levels that were on the stack at the call turned into pass-throughs
(``_with_constants`` swaps each level's class for one whose ``process`` binds on its
tracers' values), so what ``f``/``matvec`` close over acts as a constant there, while the
solver may still differentiate ``f`` in ``x`` (Newton's method calls ``grad(f)``).
Levels that have returned are revived for it (:class:`_Revived` pushes them back onto
the stack in their old order, so that levels the solver opens go above them): the
backward pass of a ``grad`` runs after its level, and any ``vmap`` inside it, returned.
Under ``vmap``, ``L`` receives as extra arguments the ``axis_index`` tracer of every
enclosing ``vmap`` that batches the closure (found by one call of ``matvec``/``f`` on a
plain zero), as the collectives do (NOTE [collectives under vmap] in
``ftransforms/lax.py``): its batching rule knows from them which level runs it and
rebuilds that level's tracers around the solver.  Under ``jit`` a differentiated solve
runs eagerly (the trace is marked value-dependent).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ftransforms.numpy as fnp
from ftransforms.api import jvp as _jvp
from ftransforms.api import vjp as _vjp
from ftransforms.api import vmap as _vmap
from ftransforms.control import has_derivative
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.primitive import Primitive
from ftransforms.core.stack import current_stack, pushed
from ftransforms.interpreters.batching import BatchInterpreter, BatchTracer
from ftransforms.interpreters.forward import DualTracer, ForwardInterpreter
from ftransforms.interpreters.reverse import ReverseInterpreter, ReverseTracer
from ftransforms.interpreters.tracing import TraceInterpreter, TraceTracer
from ftransforms.lax import dtype_of, ensure_bdim, move_bdim_to_front, xp_of
from ftransforms.lax import shape as lax_shape
from ftransforms.numpy.helpers import array_like
from ftransforms.pytree import tree_flatten, tree_map, tree_unflatten

__all__ = ["custom_linear_solve", "custom_root"]


def _sg(tree: Any) -> Any:
    return tree_map(fnp.stop_gradient, tree)


def _add(a: Any, b: Any) -> Any:
    return tree_map(lambda x, y: x + y, a, b)


def _derivative_depth() -> int:
    """The number of derivative levels (``jvp``, ``vjp``/``grad``) on the stack."""
    return sum(isinstance(i, (ForwardInterpreter, ReverseInterpreter)) for i in current_stack())


class _ForwardAsConstants(ForwardInterpreter):
    """A ``jvp`` level whose tracers act as their primal values (no tangent work)."""

    __slots__ = ()

    def process(self, prim: Any, args: tuple, params: dict) -> Any:
        vals = [a.primal if type(a) is DualTracer and a._interp is self else a for a in args]
        return prim.bind(*vals, **params)


class _ReverseAsConstants(ReverseInterpreter):
    """A ``vjp`` level whose tracers act as their values (nothing recorded)."""

    __slots__ = ()

    def process(self, prim: Any, args: tuple, params: dict) -> Any:
        vals = [a.value if type(a) is ReverseTracer and a._interp is self else a for a in args]
        return prim.bind(*vals, **params)


_AS_CONSTANTS = {ForwardInterpreter: _ForwardAsConstants, ReverseInterpreter: _ReverseAsConstants}


def _outer_levels() -> list:
    """The derivative levels on the stack now: what a solver must see as constants."""
    return [i for i in current_stack() if type(i) in _AS_CONSTANTS]


class _Revived:
    """Finished ``levels`` pushed back onto the stack, in their old order, for a while
    (new levels opened meanwhile go above them); their old level numbers come back after."""

    def __init__(self, levels: list) -> None:
        dead = [i for i in levels if not i.active]
        self.levels = sorted(dead, key=lambda i: i.level)
        self.pushes = [pushed(i) for i in self.levels]

    def __enter__(self) -> None:
        self.old = [i.level for i in self.levels]
        for p in self.pushes:
            p.__enter__()

    def __exit__(self, *exc: Any) -> None:
        for p in reversed(self.pushes):
            p.__exit__(*exc)
        for i, level in zip(self.levels, self.old):
            i.level = level


def _with_constants(levels: list, fn: Callable) -> Callable:
    """``fn`` run with the derivative ``levels`` as constants: what ``f``/``matvec`` close
    over carries no derivative there (finished levels are revived for it)."""

    def run(*args: Any) -> Any:
        swap = [i for i in levels if type(i) in _AS_CONSTANTS]
        with _Revived(swap):
            for i in swap:
                i.__class__ = _AS_CONSTANTS[type(i)]
            try:
                return fn(*args)
            finally:
                for i in swap:
                    i.__class__ = i.__class__.__mro__[1]

    return run


class _Inverse:
    """A linear map ``L`` given by a solver (NOTE [implicit differentiation]): ``body(r)``
    evaluates it on values without derivatives, ``transpose()`` is its transpose.  With
    ``zero``, its value is taken to be zero (it is applied to a residual that is zero at
    the solution: the solver is never called on it, only its derivatives are computed)."""

    def __init__(self, name, body, tbody, avals, interps, markers, levels, zero=False) -> None:
        self.name = name
        self.levels = levels  # the derivative levels the solver sees as constants
        self.body = body
        self.tbody = tbody
        self.avals = avals  # ((in_spec, [(shape, dtype)]), (out_spec, [(shape, dtype)]))
        self.interps = interps  # the enclosing vmap levels, whose markers ride along
        self.markers = markers
        self.zero = zero
        self.n_in = avals[0][0].num_leaves
        self.prim = Primitive(
            name, self._impl, jvp=self._jvp, vjp=self._vjp, batch=self._batch, multiple_results=True
        )

    def exact(self) -> _Inverse:
        if not self.zero:
            return self
        return _Inverse(
            self.name, self.body, self.tbody, self.avals, self.interps, self.markers, self.levels
        )

    def transpose(self) -> _Inverse:
        return _Inverse(
            self.name + "_T",
            self.tbody,
            self.body,
            self.avals[::-1],
            self.interps,
            self.markers,
            self.levels,
        )

    def _zeros(self, like: list) -> list:
        xp = xp_of(*like)
        return [xp.zeros(shape, dtype) for shape, dtype in self.avals[1][1]]

    def apply(self, r: Any) -> Any:
        leaves = tree_flatten(r)[0]
        out_spec = self.avals[1][0]
        if not any(has_derivative(x) for x in leaves):
            if self.zero:
                return tree_unflatten(out_spec, self._zeros(leaves))
            return _with_constants(self.levels, self.body)(r)
        return tree_unflatten(out_spec, self.prim.bind(*leaves, *self.markers))

    def _impl(self, xp: Any, *args: Any) -> tuple:
        if self.zero:
            return tuple(self._zeros(list(args[: self.n_in])))
        r = tree_unflatten(self.avals[0][0], list(args[: self.n_in]))
        out = _with_constants(self.levels, self.body)(r)
        # Reached under ``jit`` only through a trace that is run eagerly (see the NOTE).
        return tuple(o.val if type(o) is TraceTracer else o for o in tree_flatten(out)[0])

    def _jvp(self, tangents, y, *args):
        if all(d is None for d in tangents[: self.n_in]):
            return (None,) * len(y)
        t = [fnp.zeros_like(a) if d is None else d for d, a in zip(tangents, args[: self.n_in])]
        out = self.exact().apply(tree_unflatten(self.avals[0][0], t))
        return tuple(tree_flatten(out)[0])

    def _vjp(self, y_bar, y, *args, wanted):
        if all(b is None for b in y_bar):
            return (None,) * len(args)
        ct = [fnp.zeros_like(v) if b is None else b for b, v in zip(y_bar, y)]
        out = self.exact().transpose().apply(tree_unflatten(self.avals[1][0], ct))
        return tuple(tree_flatten(out)[0]) + (None,) * len(self.markers)

    def _batch(self, prim, vals, bdims, axis_size):
        n = self.n_in
        front = [ensure_bdim(v, d, axis_size) for v, d in zip(vals[:n], bdims[:n])]
        hits = [k for k, d in enumerate(bdims[n:]) if d is not None]
        if hits:  # this vmap may batch the closure: run the solver at its level
            (k,) = hits
            interp = self.interps[k]

            def at_level(fn):
                def run(r_front):
                    with _Revived([interp]):  # a backward pass after the vmap returned
                        out = fn(tree_map(lambda a: BatchTracer(interp, a, 0), r_front))
                        return tree_map(lambda o: _front_of(o, interp, axis_size), out)

                return run

            body, tbody = at_level(self.body), at_level(self.tbody)
            interps = self.interps[:k] + self.interps[k + 1 :]
            markers = list(vals[n : n + k]) + list(vals[n + k + 1 :])
        else:  # the closure does not vary along this axis
            body, tbody = _vmap(self.body), _vmap(self.tbody)
            interps, markers = self.interps, list(vals[n:])
        avals = tuple(
            (spec, [((axis_size, *shape), dtype) for shape, dtype in avs])
            for spec, avs in self.avals
        )
        child = _Inverse(
            self.name + "_batched", body, tbody, avals, interps, markers, self.levels, self.zero
        )
        out = tree_flatten(child.apply(tree_unflatten(self.avals[0][0], front)))[0]
        return tuple(out), (0,) * len(out)


def _avals(tree: Any) -> tuple:
    leaves, spec = tree_flatten(tree)
    return spec, [(tuple(lax_shape(x)), dtype_of(x)) for x in leaves]


def _front_of(o: Any, interp: BatchInterpreter, axis_size: int) -> Any:
    if type(o) is BatchTracer and o._interp is interp:
        return move_bdim_to_front(o.val, o.bdim)
    return ensure_bdim(o, None, axis_size)


def _closure_vmaps(fn: Callable, like: Any, *seen: Any) -> tuple[list, list]:
    """The enclosing vmap levels that batch what ``fn`` closes over (the batch levels of
    ``fn`` on a plain zero, and of the values ``seen``), and their markers (NOTE
    [implicit differentiation])."""
    zeros = tree_map(lambda a: xp_of(a).zeros(lax_shape(a), dtype_of(a)), like)
    found = []
    for leaf in tree_flatten((fn(zeros), seen))[0]:
        while isinstance(leaf, (BatchTracer, DualTracer, ReverseTracer)):
            if type(leaf) is BatchTracer:
                if leaf._interp not in found:
                    found.append(leaf._interp)
                leaf = leaf.val
            else:
                leaf = leaf.primal if type(leaf) is DualTracer else leaf.value
    interps = [i for i in current_stack() if i in found]
    return interps, [_marker(i) for i in interps]


def _marker(interp: BatchInterpreter) -> BatchTracer:
    return BatchTracer(interp, fnp.arange(interp.axis_size), 0)


def _note_eager(what: str) -> None:
    for interp in current_stack():
        if isinstance(interp, TraceInterpreter):
            interp.note_value_read(f"{what}'s implicit derivative")


def _implicit(name, x_star, residual, closure, body, tbody, in_like, depth):
    """``x*`` refined ``depth`` times by ``x += L(residual(x))`` (the NOTE)."""
    _note_eager(name)
    # the residual at the solution too: a linearization in x need not see the batched
    # values the residual closes over (t**2 - x[0] has the derivative 2 t)
    interps, markers = _closure_vmaps(closure, x_star, residual(x_star))
    levels = _outer_levels()
    avals = (_avals(in_like), _avals(x_star))
    op = _Inverse(name, body, tbody, avals, interps, markers, levels, True)
    x = x_star
    for _ in range(depth):
        x = _add(x, op.apply(residual(x)))
    # the value stays exactly the solver's; only the derivatives change
    return _add(x, _sg(tree_map(lambda a, b: a - b, x_star, x)))


def custom_linear_solve(
    matvec: Callable,
    b: Any,
    solve: Callable,
    transpose_solve: Callable | None = None,
    symmetric: bool = False,
    has_aux: bool = False,
) -> Any:
    """``x`` with ``matvec(x) = b``, found by ``solve(matvec, b)`` and differentiated
    implicitly (``jax.lax.custom_linear_solve``): the derivative in ``b`` and in the
    values ``matvec`` closes over is ``A⁻¹ (db - dA x)``, computed with ``solve`` (forward)
    and ``transpose_solve(vecmat, x_bar)`` (reverse; ``symmetric=True`` reuses ``solve``),
    never by differentiating the solver's steps (NOTE [implicit differentiation]).
    ``b`` and ``x`` may be pytrees; with ``has_aux``, ``solve`` returns ``(x, aux)`` and
    so does this function (``aux`` carries no derivative).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> A = np.array([[2.0, 1.0], [1.0, 3.0]])
        >>> def f(b):
        ...     x = ft.custom_linear_solve(lambda v: A @ v, b,
        ...                                solve=lambda mv, r: np.linalg.solve(A, r),
        ...                                symmetric=True)
        ...     return x.sum()
        >>> np.round(ft.grad(f)(np.ones(2)), 6)  # A⁻ᵀ 1
        array([0.4, 0.2])
    """
    where = f"custom_linear_solve({getattr(matvec, '__name__', 'matvec')})"
    if symmetric:
        transpose_solve = solve
    matvec = _array_outputs(matvec)

    def first(out: Any) -> Any:
        return out[0] if has_aux else out

    out = _with_constants(_outer_levels(), solve)(matvec, _sg(b))
    x_star, aux = out if has_aux else (out, None)
    x_star = _sg(x_star)
    if has_aux:
        aux = _sg(aux)
    depth = _derivative_depth()
    if depth == 0 or not any(has_derivative(v) for v in _leaves_seen(b, matvec, x_star)):
        return (x_star, aux) if has_aux else x_star

    def vecmat(u: Any) -> Any:
        return _vjp(matvec, tree_map(fnp.zeros_like, x_star))[1](u)[0]

    def tbody(u: Any) -> Any:
        if transpose_solve is None:
            raise UnsupportedOperationError(
                f"{where}: reverse-mode differentiation needs transpose_solve (or "
                f"symmetric=True when matvec is symmetric); pass "
                f"transpose_solve=lambda vecmat, x_bar: ..."
            )
        return first(transpose_solve(vecmat, u))

    x = _implicit(
        "custom_linear_solve",
        x_star,
        lambda x: tree_map(lambda bi, ai: bi - ai, b, matvec(x)),
        matvec,
        lambda r: first(solve(matvec, r)),
        tbody,
        b,
        depth,
    )
    return (x, aux) if has_aux else x


def _array_outputs(fn: Callable) -> Callable:
    """``fn`` with each output leaf that is a NumPy object array of tracers (what
    ``np.array([t0, t1])`` gives in user code) made one traced array: as an object array
    its derivative would be invisible here, a silent zero."""

    def wrapped(*args: Any) -> Any:
        return tree_map(array_like, fn(*args))

    wrapped.__name__ = getattr(fn, "__name__", "f")
    return wrapped


def _leaves_seen(b: Any, fn: Callable, x: Any) -> list:
    """The leaves of ``b`` and of ``fn(x)`` (which shows what ``fn`` closes over)."""
    return tree_flatten(b)[0] + tree_flatten(fn(x))[0]


def custom_root(
    f: Callable,
    initial_guess: Any,
    solve: Callable,
    tangent_solve: Callable,
    has_aux: bool = False,
) -> Any:
    """A root ``x`` of ``f`` (``f(x) = 0``), found by ``solve(f, initial_guess)`` and
    differentiated implicitly (``jax.lax.custom_root``): the derivative in the values
    ``f`` closes over is ``-J⁻¹ ∂f``, with ``J`` the Jacobian of ``f`` in ``x`` at the root,
    applied by ``tangent_solve(g, y)`` (solve the linear ``g(z) = y``; ``lambda g, y: y /
    g(1.0)`` for a scalar), never by differentiating the solver's steps (NOTE [implicit
    differentiation]).  ``initial_guess`` gets no derivative.  With ``has_aux``, ``solve``
    returns ``(x, aux)`` and so does this function.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> def newton(f, x):
        ...     for _ in range(30):
        ...         x = x - f(x) / ft.grad(f)(x)
        ...     return x
        >>> def sqrt(a):  # the root of x**2 - a
        ...     return ft.custom_root(lambda x: x ** 2 - a, 1.0, newton,
        ...                           lambda g, y: y / g(1.0))
        >>> round(float(ft.grad(sqrt)(4.0)), 6)  # 1 / (2 sqrt(4))
        0.25
    """

    def first(out: Any) -> Any:
        return out[0] if has_aux else out

    f = _array_outputs(f)
    out = _with_constants(_outer_levels(), solve)(f, _sg(initial_guess))
    x_star, aux = out if has_aux else (out, None)
    x_star = _sg(tree_map(fnp.asarray, x_star))
    if has_aux:
        aux = _sg(aux)
    depth = _derivative_depth()
    if depth == 0 or not any(has_derivative(v) for v in tree_flatten(f(x_star))[0]):
        return (x_star, aux) if has_aux else x_star

    def g(v: Any) -> Any:  # the linearization of f at the root
        return _jvp(f, (x_star,), (v,))[1]

    def g_t(u: Any) -> Any:  # its transpose
        return _vjp(f, x_star)[1](u)[0]

    x = _implicit(
        "custom_root",
        x_star,
        lambda x: tree_map(lambda v: -v, f(x)),
        lambda v: _jvp(f, (x_star,), (v,))[1],
        lambda r: tangent_solve(g, r),
        lambda u: tangent_solve(g_t, u),
        x_star,
        depth,
    )
    return (x, aux) if has_aux else x
