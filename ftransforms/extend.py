"""``autograd.extend``: :func:`primitive` and its rules, :func:`defvjp`, :func:`defjvp`,
:func:`defvjp_argnum` and :func:`defjvp_argnum`, with autograd's protocols.

A VJP maker is ``vjpmaker(ans, *args, **kwargs) -> (g -> cotangent of that argument)``;
a JVP function is ``jvpfun(g, ans, *args, **kwargs) -> tangent of the output``.  Each
call of a primitive becomes an ``ft.custom_vjp`` (or ``ft.custom_jvp`` when only JVPs are
defined; with both, the one of the innermost differentiating transform, so that reverse
mode uses the VJPs and forward mode the JVPs, as autograd) over the arguments that have
a rule; the others (functions, integers, settings)
and the keyword arguments are constants to it.  The rules are written with NumPy, so
they are differentiated again for higher orders, and ``vmap``/``jit`` see through them.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.extend import defvjp, primitive
    >>> @primitive
    ... def logsumexp(x):
    ...     max_x = np.max(x)
    ...     return max_x + np.log(np.sum(np.exp(x - max_x)))
    >>> defvjp(logsumexp, lambda ans, x: lambda g: np.full(x.shape, g) * np.exp(x - ans))
    >>> ft.grad(logsumexp)(np.zeros(2))
    array([0.5, 0.5])
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.custom import _differentiated, custom_jvp, custom_vjp
from ftransforms.interpreters.forward import DualTracer
from ftransforms.interpreters.reverse import ReverseTracer
from ftransforms.lax import stop_gradient
from ftransforms.pytree import tree_map

__all__ = [
    "def_linear",
    "defjvp",
    "defjvp_argnum",
    "defjvp_argnums",
    "defvjp",
    "defvjp_argnum",
    "defvjp_argnums",
    "notrace_primitive",
    "primitive",
]


class primitive:  # noqa: N801  (autograd's name)
    """``fun`` as an autograd primitive: differentiated by the rules that
    :func:`defvjp`/:func:`defjvp` give it, not through its body.  With no rule yet it
    computes ``fun`` as it is (differentiated through its body where that is NumPy code).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.extend import defjvp, primitive
        >>> @primitive
        ... def cube(x):
        ...     return x**3
        >>> defjvp(cube, lambda g, ans, x: 3 * x**2 * g)
        >>> float(ft.jvp(cube, (2.0,), (1.0,))[1])
        12.0
    """

    def __init__(self, fun: Callable) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vjpmakers: dict[int, Callable | None] = {}
        self.jvpfuns: dict[int, Callable | None] = {}
        self.vjp_argnum: Callable | None = None
        self.jvp_argnum: Callable | None = None

    def __repr__(self) -> str:
        return f"primitive({getattr(self.fun, '__name__', 'f')})"

    def _rules_for(self, reverse: bool | None = None) -> tuple[bool, dict]:
        """(whether the VJPs are the rules, the per-argument rules): those of ``reverse``
        mode when given, else the VJPs if there are any."""
        if reverse is None:
            reverse = bool(self.vjpmakers) or self.vjp_argnum is not None
        return reverse, (self.vjpmakers if reverse else self.jvpfuns)

    def _both(self) -> bool:
        """Whether both VJPs and JVPs were given (NOTE [autograd primitives: both rules])."""
        return bool(self.vjpmakers or self.vjp_argnum is not None) and bool(
            self.jvpfuns or self.jvp_argnum is not None
        )

    def _has_rule(self, i: int, reverse: bool | None = None) -> bool:
        reverse, rules = self._rules_for(reverse)
        every = self.vjp_argnum if reverse else self.jvp_argnum
        return every is not None or rules.get(i) is not None

    def _check_defined(self, i: int, value: Any, reverse: bool | None = None) -> None:
        """Raise where argument ``i`` is differentiated but was given no rule at all.

        NOTE [autograd primitives: None versus no rule]: autograd tells apart a rule given
        as ``None`` (that argument's derivative is zero) from an argument left out of
        ``defvjp``/``defjvp``: differentiating through the latter raises
        ``NotImplementedError("VJP of f wrt argnum 1 not defined")``, where a zero would be
        a silently wrong gradient.  An argument counts as differentiated when it is
        floating-point and a ``grad``, ``vjp``, ``jvp`` or ``jacfwd`` tracer reaches it at
        the call (``vmap`` alone does not), so constants and closed-over arrays without a
        rule stay free."""
        reverse, rules = self._rules_for(reverse)
        every = self.vjp_argnum if reverse else self.jvp_argnum
        if every is not None or i in rules or not any(_differentiated([value])):
            return
        if numpy.dtype(getattr(value, "dtype", numpy.result_type(value))).kind not in "fc":
            return  # an integer or boolean argument has no derivative to miss
        kind, define = ("VJP", "defvjp") if reverse else ("JVP", "defjvp")
        name = getattr(self.fun, "__name__", "primitive")
        raise UnsupportedOperationError(
            f"{kind} of {name} wrt argnum {i} not defined: it is differentiated here, but "
            f"{define}({name}, ...) gave rules for argnums {sorted(rules)} only; give its "
            f"rule (None where its derivative is zero) or pass it as a constant"
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (self.vjpmakers or self.jvpfuns or self.vjp_argnum or self.jvp_argnum):
            return self.fun(*args, **kwargs)
        # The array arguments go through the custom rule (those without a rule get a zero
        # derivative, as autograd's None); functions, integers and settings are constants.
        dynamic = [
            i
            for i, a in enumerate(args)
            if self._has_rule(i, True) or self._has_rule(i, False) or _inexact(a)
        ]

        def full(dyn: tuple) -> tuple:
            out = list(args)
            for i, v in zip(dynamic, dyn):
                out[i] = v
            return tuple(out)

        def call(*dyn: Any) -> Any:
            return self.fun(*full(dyn), **kwargs)

        call.__name__ = getattr(self.fun, "__name__", "primitive")
        dyn = tuple(args[i] for i in dynamic)
        both = self._both()
        reverse = _reverse_on_top(dyn) if both else self._rules_for()[0]
        for i, v in zip(dynamic, dyn):
            self._check_defined(i, v, reverse)
        body = call
        if both:  # the levels below choose their own rules again

            def body(*dyn: Any) -> Any:
                return self(*full(dyn), **kwargs)

        if reverse:
            wrapped = custom_vjp(call)

            def fwd(*dyn: Any) -> tuple:
                ans = body(*dyn)
                return ans, (ans, dyn)

            def bwd(res: tuple, g: Any) -> tuple:
                ans, dyn = res
                vals = full(dyn)
                return tuple(
                    self._vjp(i, ans, vals, kwargs)(g)
                    if self._has_rule(i, True)
                    else fnp.zeros_like(v)
                    for i, v in zip(dynamic, dyn)
                )

            wrapped.defvjp(fwd, bwd)
        else:
            wrapped = custom_jvp(call)

            @wrapped.defjvp
            def rule(primals: tuple, tangents: tuple) -> tuple:
                ans = body(*primals)
                vals = full(primals)
                total = fnp.zeros_like(ans)
                for i, t in zip(dynamic, tangents):
                    if self._has_rule(i, False):
                        total = total + self._jvp(i, t, ans, vals, kwargs)
                return ans, total

        return wrapped(*dyn)

    def _vjp(self, i: int, ans: Any, vals: tuple, kwargs: dict) -> Callable:
        if self.vjp_argnum is not None:
            return self.vjp_argnum(i, ans, vals, kwargs)
        return self.vjpmakers[i](ans, *vals, **kwargs)

    def _jvp(self, i: int, t: Any, ans: Any, vals: tuple, kwargs: dict) -> Any:
        if self.jvp_argnum is not None:
            return self.jvp_argnum(i, t, ans, vals, kwargs)
        return self.jvpfuns[i](t, ans, *vals, **kwargs)


# NOTE [autograd primitives: both rules]: autograd differentiates a primitive given both
# ``defvjp`` and ``defjvp`` with its VJPs in reverse mode and its JVPs in forward mode, at
# every level of nesting.  Here each call is wrapped for the innermost differentiating
# transform among its arguments' tracers (the highest level): a ``custom_vjp`` for a
# reverse one, a ``custom_jvp`` for a forward one, whose output is computed by calling
# the primitive again on the values one level down, so that each level below picks its
# own rule in turn (``jacfwd(jacrev(f))``: the VJPs, then the JVPs differentiate them).
# A primitive with one kind of rule keeps the single wrapping of that kind.


def _reverse_on_top(leaves: tuple) -> bool:
    """Whether the innermost differentiating transform reaching ``leaves`` is reverse
    mode (a forward one, or none, gives False; ``vmap`` levels are looked through)."""
    top, reverse = -1, False
    for x in leaves:
        while isinstance(x, Tracer):
            kind = type(x)
            if kind is DualTracer or kind is ReverseTracer:
                if x._interp.level > top:
                    top, reverse = x._interp.level, kind is ReverseTracer
                x = x.primal if kind is DualTracer else x.value
            elif hasattr(x, "val"):
                x = x.val
            else:
                break
    return reverse


def _inexact(value: Any) -> bool:
    """A value a derivative can flow into: a tracer, or a floating-point number or array."""
    if isinstance(value, Tracer):
        return True
    if isinstance(value, (float, complex, numpy.ndarray, numpy.inexact)):
        return numpy.result_type(value).kind in "fc"
    return False


def _check(where: str, fun: Any) -> None:
    if not isinstance(fun, primitive):
        raise TypeError(
            f"{where}: expected a function wrapped with ftransforms.extend.primitive, got "
            f"{fun!r}; decorate it with @primitive first"
        )


def defvjp(fun: primitive, *vjpmakers: Callable | None, argnums: Any = None) -> None:
    """Give primitive ``fun`` its VJPs: ``vjpmakers[k](ans, *args, **kwargs)`` returns
    the function ``g -> cotangent`` of argument ``argnums[k]`` (default ``k``), ``g`` the
    output's cotangent.  ``None`` for an argument that gets no derivative.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.extend import defvjp, primitive
        >>> @primitive
        ... def scale(x, c):
        ...     return c * x
        >>> defvjp(scale, lambda ans, x, c: lambda g: c * g, None)
        >>> float(ft.grad(scale)(1.0, 3.0)), float(ft.grad(scale, argnums=1)(1.0, 3.0))  # c: none
        (3.0, 0.0)
    """
    _check("defvjp", fun)
    nums = range(len(vjpmakers)) if argnums is None else argnums
    for i, maker in zip(nums, vjpmakers):
        fun.vjpmakers[i] = maker


def defjvp(fun: primitive, *jvpfuns: Callable | None, argnums: Any = None) -> None:
    """Give primitive ``fun`` its JVPs: ``jvpfuns[k](g, ans, *args, **kwargs)`` is the
    output's tangent from argument ``argnums[k]``'s (default ``k``) tangent ``g``; the
    terms of several arguments add.  ``None`` for an argument that gets no derivative.
    Used when ``fun`` has no VJP (reverse mode then transposes these).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.extend import defjvp, primitive
        >>> @primitive
        ... def mul(x, y):
        ...     return x * y
        >>> defjvp(mul, lambda g, ans, x, y: g * y, lambda g, ans, x, y: x * g)
        >>> float(ft.jvp(mul, (2.0, 3.0), (1.0, 1.0))[1])
        5.0
    """
    _check("defjvp", fun)
    nums = range(len(jvpfuns)) if argnums is None else argnums
    for i, jvpfun in zip(nums, jvpfuns):
        fun.jvpfuns[i] = jvpfun


def defvjp_argnum(fun: primitive, vjpmaker: Callable) -> None:
    """One VJP maker for every argument: ``vjpmaker(argnum, ans, args, kwargs)`` returns
    ``g -> cotangent`` of argument ``argnum``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.extend import defvjp_argnum, primitive
        >>> @primitive
        ... def add(x, y):
        ...     return x + y
        >>> defvjp_argnum(add, lambda argnum, ans, args, kwargs: lambda g: g)
        >>> ft.grad(add, argnums=(0, 1))(1.0, 2.0)
        (array(1.), array(1.))
    """
    _check("defvjp_argnum", fun)
    fun.vjp_argnum = vjpmaker


def defjvp_argnum(fun: primitive, jvpmaker: Callable) -> None:
    """One JVP for every argument: ``jvpmaker(argnum, g, ans, args, kwargs)`` is the
    output's tangent from argument ``argnum``'s tangent ``g``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.extend import defjvp_argnum, primitive
        >>> @primitive
        ... def add(x, y):
        ...     return x + y
        >>> defjvp_argnum(add, lambda argnum, g, ans, args, kwargs: g)
        >>> float(ft.jvp(add, (1.0, 2.0), (1.0, 10.0))[1])
        11.0
    """
    _check("defjvp_argnum", fun)
    fun.jvp_argnum = jvpmaker


def defvjp_argnums(fun: primitive, vjpmaker: Callable) -> None:
    """autograd's joint VJP: ``vjpmaker(argnums, ans, args, kwargs)`` returns
    ``g -> tuple of cotangents`` of the arguments ``argnums`` (here asked one argument at
    a time, ``argnums=(i,)``).

    Example:
        >>> import ftransforms as ft
        >>> from ftransforms.extend import defvjp_argnums, primitive
        >>> @primitive
        ... def mul(x, y):
        ...     return x * y
        >>> rule = lambda nums, ans, args, kw: lambda g: tuple(g * args[1 - i] for i in nums)
        >>> defvjp_argnums(mul, rule)
        >>> ft.grad(mul, argnums=(0, 1))(2.0, 3.0)
        (array(3.), array(2.))
    """
    _check("defvjp_argnums", fun)
    fun.vjp_argnum = lambda i, ans, args, kwargs: _first(vjpmaker((i,), ans, args, kwargs))


def _first(vjp: Callable) -> Callable:
    return lambda g: vjp(g)[0]


def defjvp_argnums(fun: primitive, jvpmaker: Callable) -> None:
    """autograd's joint JVP: ``jvpmaker(argnums, gs, ans, args, kwargs)`` is the output's
    tangent from the tangents ``gs`` of the arguments ``argnums`` (here asked one argument
    at a time; the terms add, the JVP being linear in them).

    Example:
        >>> import ftransforms as ft
        >>> from ftransforms.extend import defjvp_argnums, primitive
        >>> @primitive
        ... def mul(x, y):
        ...     return x * y
        >>> rule = lambda nums, gs, ans, args, kw: sum(g * args[1 - i] for i, g in zip(nums, gs))
        >>> defjvp_argnums(mul, rule)
        >>> float(ft.jvp(mul, (2.0, 3.0), (1.0, 10.0))[1])
        23.0
    """
    _check("defjvp_argnums", fun)
    fun.jvp_argnum = lambda i, g, ans, args, kwargs: jvpmaker((i,), (g,), ans, args, kwargs)


def def_linear(fun: primitive) -> None:
    """Declare primitive ``fun`` linear in each argument (autograd's ``def_linear``): its
    JVP in an argument is ``fun`` applied with that argument replaced by its tangent;
    reverse mode transposes it.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.extend import def_linear, primitive
        >>> @primitive
        ... def scaled_sum(x, y):
        ...     return np.sum(x * y)
        >>> def_linear(scaled_sum)
        >>> ft.grad(scaled_sum)(np.ones(2), np.array([2.0, 3.0]))
        array([2., 3.])
    """
    _check("def_linear", fun)

    def jvp(i: int, g: Any, ans: Any, args: tuple, kwargs: dict) -> Any:
        return fun.fun(*args[:i], g, *args[i + 1 :], **kwargs)

    fun.jvp_argnum = jvp


def _untraced(x: Any) -> Any:
    """``x`` with no derivative: its value under the ``grad``/``jvp`` levels on top (a
    ``vmap`` level below them stays, with its derivatives stopped)."""
    while type(x) in (DualTracer, ReverseTracer):
        x = x.primal if type(x) is DualTracer else x.value
    return stop_gradient(x) if isinstance(x, Tracer) else x


def notrace_primitive(fun: Callable) -> Callable:
    """autograd's ``notrace_primitive``: ``fun`` called on its arguments' values, its
    output a constant to every derivative (a sampler, an ``argmax``, a call into code
    that takes plain arrays).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.extend import notrace_primitive
        >>> rounded = notrace_primitive(np.round)
        >>> float(ft.grad(lambda x: x * rounded(x))(2.4))
        2.0
    """

    @functools.wraps(fun)
    def call(*args: Any, **kwargs: Any) -> Any:
        return fun(*tree_map(_untraced, args), **tree_map(_untraced, kwargs))

    return call
