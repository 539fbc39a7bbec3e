"""HIPS autograd's names for what ftransforms' transforms compute, with autograd's calling
conventions: an ``argnum`` (an int, or a tuple for several arguments at once) and
functions of the same arguments as ``fun``.

``elementwise_grad``, ``hessian_tensor_product`` (alias ``hessian_vector_product``),
``linear_combination_of_hessians``,
``make_hvp``, ``make_vjp``, ``make_jvp``, ``deriv``, ``tensor_jacobian_product`` (alias
``vector_jacobian_product``), ``grad_and_aux``, ``holomorphic_grad``, ``grad_named``,
``multigrad_dict`` and ``make_ggnvp`` as in ``autograd``, and ``flatten`` as in
``autograd.misc`` (also ``ft.misc.flatten``).  Each is built from ``vjp``/``jvp``/
``grad``, so it composes with ``vmap``, ``jit`` and further derivatives.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> ft.elementwise_grad(np.sin)(np.array([0.0, np.pi]))
    array([ 1., -1.])
"""

from __future__ import annotations

import inspect
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import optree

import ftransforms.numpy as fnp
from ftransforms.api import grad as scalar_grad
from ftransforms.api import grad_and_value, jacobian, jvp, vjp
from ftransforms.arguments import fname
from ftransforms.errors import ArgnumsError, GradOutputError, TangentMismatchError
from ftransforms.pytree import NAMESPACE, tree_flatten, tree_map, tree_unflatten

__all__ = [
    "deriv",
    "elementwise_grad",
    "flatten",
    "grad",
    "grad_and_aux",
    "grad_named",
    "hessian_tensor_product",
    "hessian_vector_product",
    "holomorphic_grad",
    "linear_combination_of_hessians",
    "make_ggnvp",
    "make_hvp",
    "make_jvp",
    "make_vjp",
    "multigrad_dict",
    "tensor_jacobian_product",
    "value_and_grad",
    "vector_jacobian_product",
]

Argnum = int | tuple[int, ...] | list[int]


def _check_argnum(where: str, argnum: Any, nargs: int) -> None:
    nums = argnum if isinstance(argnum, (tuple, list)) else (argnum,)
    if not isinstance(argnum, (int, tuple, list)) or not all(type(i) is int for i in nums):
        raise ArgnumsError(
            f"{where}: argnum must be an int or a tuple of ints, got {argnum!r}; pass the "
            f"position of the argument to differentiate, e.g. argnum=0"
        )
    bad = [i for i in nums if not -nargs <= i < nargs]
    if bad:
        raise ArgnumsError(
            f"{where}: argnum={argnum!r} is out of range for {nargs} positional "
            f"argument(s); pass a position below {nargs}"
        )


def _unary(fun: Callable, argnum: Argnum, args: tuple, kwargs: dict) -> tuple[Callable, Any]:
    """``(unary_f, x)``: ``fun`` as a function of the differentiated argument(s) alone
    (a tuple of them for a tuple ``argnum``), and their values in ``args``."""
    nums = tuple(argnum) if isinstance(argnum, (tuple, list)) else None

    def unary_f(x: Any) -> Any:
        new = list(args)
        if nums is None:
            new[argnum] = x
        else:
            for i, xi in zip(nums, x):
                new[i] = xi
        return fun(*new, **kwargs)

    unary_f.__name__ = fname(fun)  # the errors of grad/vjp/jvp name the user's function
    x = args[argnum] if nums is None else tuple(args[i] for i in nums)
    return unary_f, x


def _like(where: str, what: str, v: Any, x: Any) -> Any:
    """``v`` as a tangent of ``x``: array-likes made arrays and cast to ``x``'s dtypes, as
    autograd's ``tensordot`` would take them; a structure or shape that differs raises."""
    leaves, spec = tree_flatten(x)
    try:
        pieces = spec.flatten_up_to(v)
    except ValueError:
        raise TangentMismatchError(
            f"{where}: {what} has structure {tree_flatten(v)[1]} but the argument has "
            f"{spec}; pass one array per array of the argument"
        ) from None
    out = []
    for leaf, piece in zip(leaves, pieces):
        piece = fnp.asarray(piece)
        if fnp.shape(piece) != fnp.shape(leaf):
            raise TangentMismatchError(
                f"{where}: {what} has shape {fnp.shape(piece)} but the argument has shape "
                f"{fnp.shape(leaf)}; pass {what} shaped like the argument"
            )
        dtype = fnp.result_type(leaf)
        out.append(piece if fnp.result_type(piece) == dtype else piece.astype(dtype))
    return tree_unflatten(spec, out)


# NOTE [autograd's size-one outputs]: autograd's ``grad`` differentiates any real output
# with one element (a shape-``(1,)`` or ``(1, 1)`` array: a GP's predictive mean at one
# point), seeding the reverse pass with ones of that shape and returning the value as it
# came; JAX's and torch.func's rule (``ft.grad``) asks for a scalar.  Programs that import
# ``grad``/``value_and_grad`` from ``autograd`` get autograd's rule from this module: the
# one element is reshaped to a scalar for ``ft.grad`` (whose checks of dtypes, structures
# and inputs apply) and the value is given back in its own shape.  A complex output is
# differentiated through its real part, as autograd seeds its reverse pass with ``1 + 0j``
# and projects onto real inputs: ``grad(f)`` is ``grad(real(f))`` (for a holomorphic ``f``
# that is ``f'(z)``, autograd's ``holomorphic_grad``); the value stays complex.
# autograd builds ``make_hvp``, ``hessian_tensor_product``, ``make_ggnvp``, ``grad_named``,
# ``multigrad_dict`` and ``holomorphic_grad`` on its ``grad``: here they use this one.


def _size_one_as_scalar(where: str, fun: Callable, shapes: list) -> Callable:
    """``fun`` as ``(what ft.grad differentiates, the value)``: an array output of one
    element reshaped to a scalar (its shape kept in ``shapes``), a complex one's real part
    differentiated; an array of another size raises; any other output is left to
    ``ft.grad`` (NOTE [autograd's size-one outputs])."""

    def scalar_f(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        out = value = fun(*args, **kwargs)
        if hasattr(out, "shape") and fnp.ndim(out) > 0:
            if fnp.size(out) != 1:
                raise GradOutputError(
                    f"{where}: the output must be a scalar or an array of one element, "
                    f"got shape {fnp.shape(out)}; reduce it with .sum(), or use "
                    f"elementwise_grad or jacobian"
                )
            shapes.append(fnp.shape(out))
            out = fnp.reshape(out, ())
        if isinstance(out, complex) or (hasattr(out, "dtype") and fnp.iscomplexobj(out)):
            out = fnp.real(out)
        return out, value

    scalar_f.__name__ = fname(fun)  # the errors of ft.grad name the user's function
    return scalar_f


def value_and_grad(fun: Callable, argnum: Argnum = 0) -> Callable:
    """autograd's ``value_and_grad``: ``(value, gradient)`` of ``fun`` in argument
    ``argnum`` (an int, or a tuple for a tuple of gradients), for a real output with one
    element of any shape, given back in its shape (NOTE [autograd's size-one outputs]).
    An output of another size raises ``GradOutputError`` (a ``TypeError``, as autograd).

    Example:
        >>> import numpy as np
        >>> from ftransforms.autograd_compat import value_and_grad
        >>> value_and_grad(lambda x: x[:1] * x[1:])(np.array([2.0, 3.0]))
        (array([6.]), array([3., 2.]))
    """

    def gradfun(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        where = f"value_and_grad({fname(fun)}, argnum={argnum!r})"
        _check_argnum(where, argnum, len(args))
        shapes: list = []
        nums = tuple(argnum) if isinstance(argnum, list) else argnum
        scalar_f = _size_one_as_scalar(where, fun, shapes)
        g, (_, value) = grad_and_value(scalar_f, argnums=nums, has_aux=True)(*args, **kwargs)
        return value, g

    gradfun.__name__ = f"value_and_grad_of_{fname(fun)}"
    return gradfun


def grad(fun: Callable, argnum: Argnum = 0) -> Callable:
    """autograd's ``grad``: the gradient of ``fun`` in argument ``argnum`` (an int, or a
    tuple for a tuple of gradients) for a real output with one element of any shape
    (NOTE [autograd's size-one outputs]); ``ft.grad`` asks for a scalar, as JAX does.

    Example:
        >>> import numpy as np
        >>> from ftransforms.autograd_compat import grad
        >>> grad(lambda x: np.sin(x) * 2.0)(np.array([[0.0]]))
        array([[2.]])
    """

    def gradfun(*args: Any, **kwargs: Any) -> Any:
        return value_and_grad(fun, argnum)(*args, **kwargs)[1]

    gradfun.__name__ = f"grad_of_{fname(fun)}"
    return gradfun


def elementwise_grad(fun: Callable, argnum: Argnum = 0) -> Callable:
    """The gradient of the sum of ``fun``'s outputs with respect to argument ``argnum``:
    the vector-Jacobian product with ones, one reverse pass.  For a function that works
    elementwise that is the diagonal of its Jacobian (``f'(x)`` at every element); for any
    other it is the Jacobian's column sums.  A tuple ``argnum`` gives a tuple of
    gradients.  Complex outputs raise ``GradOutputError`` (a ``TypeError``, as autograd).

    Example:
        >>> import numpy as np
        >>> from ftransforms import elementwise_grad
        >>> elementwise_grad(np.tanh)(np.array([0.0, 1.0]))
        array([1.        , 0.41997434])
        >>> elementwise_grad(lambda x, y: x * y, argnum=(0, 1))(np.ones(2), np.arange(2.0))
        (array([0., 1.]), array([1., 1.]))
    """

    def gradfun(*args: Any, **kwargs: Any) -> Any:
        where = f"elementwise_grad({fname(fun)}, argnum={argnum!r})"
        _check_argnum(where, argnum, len(args))
        unary_f, x = _unary(fun, argnum, args, kwargs)
        ans, vjp_fn = vjp(unary_f, x)
        for leaf in tree_flatten(ans)[0]:
            if fnp.iscomplexobj(leaf):
                raise GradOutputError(
                    f"{where}: the output must be real, got dtype {fnp.result_type(leaf)}; "
                    f"differentiate its real part (np.real) or use ft.vjp with a "
                    f"cotangent of your choice"
                )
        return vjp_fn(tree_map(fnp.ones_like, ans))[0]

    gradfun.__name__ = f"elementwise_grad_of_{fname(fun)}"
    return gradfun


def hessian_tensor_product(fun: Callable, argnum: Argnum = 0) -> Callable:
    """The function ``(*args, tensor, **kwargs) -> H @ tensor``: the Hessian of the
    scalar ``fun`` with respect to argument ``argnum`` at ``args``, applied to ``tensor``
    (shaped like that argument; a tuple of them for a tuple ``argnum``).  Computed
    forward-over-reverse (``jvp`` of ``grad``), without forming the Hessian.

    Example:
        >>> import numpy as np
        >>> from ftransforms import hessian_tensor_product
        >>> f = lambda x: np.sum(x**3)  # Hessian diag(6 x)
        >>> hessian_tensor_product(f)(np.array([1.0, 2.0]), np.array([1.0, 1.0]))
        array([ 6., 12.])
    """

    def hvp(*args: Any, **kwargs: Any) -> Any:
        where = f"hessian_tensor_product({fname(fun)}, argnum={argnum!r})"
        if not args:
            raise TypeError(
                f"{where}: expected the arguments of {fname(fun)} followed by the tensor, "
                f"got no positional argument; call it as hvp(*args, tensor)"
            )
        args, tensor = args[:-1], args[-1]
        _check_argnum(where, argnum, len(args))
        unary_f, x = _unary(fun, argnum, args, kwargs)
        return jvp(grad(unary_f), (x,), (_like(where, "the tensor", tensor, x),))[1]

    hvp.__name__ = f"hessian_tensor_product_of_{fname(fun)}"
    return hvp


#: autograd's other name for :func:`hessian_tensor_product`.
hessian_vector_product = hessian_tensor_product


def linear_combination_of_hessians(fun: Callable, argnum: int = 0) -> Callable:
    """The function ``(*args, v, **kwargs) -> sum_k v[k] * hessian(fun_k)``: the Hessians
    of the outputs of the vector-valued ``fun`` with respect to argument ``argnum``,
    weighted by ``v`` (shaped like the output), as SciPy's ``NonlinearConstraint(...,
    hess=...)`` takes them (autograd's ``minimize_nonlinear_constraint.py``).  Computed as
    the Hessian of ``v . fun``, without the Hessian of each output.

    Example:
        >>> import numpy as np
        >>> from ftransforms import linear_combination_of_hessians
        >>> # the outputs' Hessians are [[2, 0], [0, 0]] and [[0, 1], [1, 0]]
        >>> f = lambda x: np.array([x[0] ** 2, x[0] * x[1]])
        >>> linear_combination_of_hessians(f)(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
        array([[6., 4.],
               [4., 0.]])
    """

    def combination(*args: Any, **kwargs: Any) -> Any:
        where = f"linear_combination_of_hessians({fname(fun)}, argnum={argnum!r})"
        if not args:
            raise TypeError(
                f"{where}: expected the arguments of {fname(fun)} followed by the weights "
                f"v, got no positional argument; call it as f(*args, v)"
            )
        args, v = args[:-1], args[-1]
        _check_argnum(where, argnum, len(args))
        unary_f, x = _unary(fun, argnum, args, kwargs)

        weights = fnp.asarray(v)

        def weighted(x: Any) -> Any:
            out = fnp.asarray(unary_f(x))  # (np.array([...]) of traced values included)
            if fnp.shape(weights) != fnp.shape(out):
                raise TangentMismatchError(
                    f"{where}: v has shape {fnp.shape(weights)} but {fname(fun)} returns "
                    f"shape {fnp.shape(out)}; pass one weight per output"
                )
            return fnp.tensordot(weights, out, axes=fnp.ndim(out))

        return jacobian(scalar_grad(weighted))(x)

    combination.__name__ = f"linear_combination_of_hessians_of_{fname(fun)}"
    return combination


def make_hvp(fun: Callable, argnum: Argnum = 0) -> Callable:
    """The function ``(*args, **kwargs) -> (hvp, gradient)`` (autograd's order): the
    gradient of the scalar ``fun`` with respect to argument ``argnum`` at ``args``, and
    ``hvp(v)``, the Hessian there applied to ``v`` (shaped like the gradient), which
    reuses the recorded gradient computation for every ``v``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import make_hvp
        >>> hvp, g = make_hvp(lambda x: np.sum(x**3))(np.array([1.0, 2.0]))
        >>> g, hvp(np.array([1.0, 0.0])), hvp(np.array([0.0, 1.0]))
        (array([ 3., 12.]), array([6., 0.]), array([ 0., 12.]))
    """

    def make(*args: Any, **kwargs: Any) -> tuple[Callable, Any]:
        where = f"make_hvp({fname(fun)}, argnum={argnum!r})"
        _check_argnum(where, argnum, len(args))
        unary_f, x = _unary(fun, argnum, args, kwargs)
        g, vjp_fn = vjp(grad(unary_f), x)

        def hvp(v: Any) -> Any:
            return vjp_fn(_like(f"{where} hvp(v)", "v", v, g))[0]

        return hvp, g

    make.__name__ = f"make_hvp_of_{fname(fun)}"
    return make


def make_vjp(fun: Callable, argnum: Argnum = 0) -> Callable:
    """The function ``(*args, **kwargs) -> (vjp, ans)`` (autograd's order): ``fun``'s
    value ``ans`` at ``args`` and ``vjp(g)``, the cotangent of argument ``argnum`` (a
    tuple of them for a tuple ``argnum``) for an output cotangent ``g``; one forward pass
    serves every ``g``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import make_vjp
        >>> vjp, ans = make_vjp(lambda x: x**2)(np.array([1.0, 2.0]))
        >>> ans, vjp(np.ones(2))
        (array([1., 4.]), array([2., 4.]))
    """

    def make(*args: Any, **kwargs: Any) -> tuple[Callable, Any]:
        where = f"make_vjp({fname(fun)}, argnum={argnum!r})"
        _check_argnum(where, argnum, len(args))
        unary_f, x = _unary(fun, argnum, args, kwargs)
        ans, vjp_fn = vjp(unary_f, x)

        def vjp_of(g: Any) -> Any:
            return vjp_fn(_like(f"{where} vjp(g)", "g", g, ans))[0]

        return vjp_of, ans

    make.__name__ = f"make_vjp_of_{fname(fun)}"
    return make


def make_jvp(fun: Callable, argnum: Argnum = 0) -> Callable:
    """The function ``(*args, **kwargs) -> jvp``, with ``jvp(v) -> (ans, tangent)``
    (autograd's): ``fun``'s value at ``args`` and its derivative along ``v`` (shaped like
    argument ``argnum``), by forward mode.

    Example:
        >>> import numpy as np
        >>> from ftransforms import make_jvp
        >>> make_jvp(lambda x: x**2)(np.array([1.0, 2.0]))(np.array([1.0, 0.0]))
        (array([1., 4.]), array([2., 0.]))
    """

    def make(*args: Any, **kwargs: Any) -> Callable:
        where = f"make_jvp({fname(fun)}, argnum={argnum!r})"
        _check_argnum(where, argnum, len(args))
        unary_f, x = _unary(fun, argnum, args, kwargs)

        def jvp_of(v: Any) -> tuple[Any, Any]:
            return jvp(unary_f, (x,), (_like(f"{where} jvp(v)", "v", v, x),))

        return jvp_of

    make.__name__ = f"make_jvp_of_{fname(fun)}"
    return make


def deriv(fun: Callable, argnum: Argnum = 0) -> Callable:
    """The derivative of ``fun`` along ones in argument ``argnum``: for a scalar argument
    ``f'(x)``, for an array the sum of the Jacobian's columns (one forward pass; for an
    elementwise function the derivative at every element).

    Example:
        >>> import numpy as np
        >>> from ftransforms import deriv
        >>> deriv(np.sin)(np.array([0.0, np.pi]))
        array([ 1., -1.])
    """

    def derivative(*args: Any, **kwargs: Any) -> Any:
        where = f"deriv({fname(fun)}, argnum={argnum!r})"
        _check_argnum(where, argnum, len(args))
        unary_f, x = _unary(fun, argnum, args, kwargs)
        ones = tree_map(lambda v: fnp.ones_like(fnp.asarray(v, dtype=float)), x)
        return jvp(unary_f, (x,), (_like(where, "ones", ones, x),))[1]

    derivative.__name__ = f"deriv_of_{fname(fun)}"
    return derivative


def tensor_jacobian_product(fun: Callable, argnum: Argnum = 0) -> Callable:
    """The function ``(*args, tensor, **kwargs) -> tensor · J``: the Jacobian of ``fun``
    in argument ``argnum`` left-multiplied by ``tensor``, whose axes contract the leading
    axes of ``fun``'s output (``tensordot(tensor, fun(...), tensor.ndim)``; a
    vector-Jacobian product when ``tensor`` is shaped like the output).

    Example:
        >>> import numpy as np
        >>> from ftransforms import tensor_jacobian_product
        >>> tjp = tensor_jacobian_product(lambda x: np.outer(x, x))
        >>> tjp(np.array([1.0, 2.0]), np.array([1.0, 0.0]))  # rows: (x0 x0, x0 x1)
        array([[2., 0.],
               [2., 1.]])
    """

    def vector_dot_fun(*args: Any, **kwargs: Any) -> Any:
        args, tensor = args[:-1], args[-1]
        return fnp.tensordot(tensor, fun(*args, **kwargs), axes=fnp.ndim(tensor))

    def tjp(*args: Any, **kwargs: Any) -> Any:
        where = f"tensor_jacobian_product({fname(fun)}, argnum={argnum!r})"
        if not args:
            raise TypeError(
                f"{where}: expected the arguments of {fname(fun)} followed by the tensor, "
                f"got no positional argument; call it as tjp(*args, tensor)"
            )
        _check_argnum(where, argnum, len(args) - 1)
        nums = argnum % (len(args) - 1) if isinstance(argnum, int) else argnum
        return jacobian(vector_dot_fun, argnums=nums)(*args, **kwargs)

    tjp.__name__ = f"tensor_jacobian_product_of_{fname(fun)}"
    return tjp


#: autograd's other name for :func:`tensor_jacobian_product`.
vector_jacobian_product = tensor_jacobian_product


def grad_and_aux(fun: Callable, argnum: Argnum = 0) -> Callable:
    """For ``fun`` returning ``(output, aux)``: ``(gradient of output, aux)``, the
    gradient being autograd's vector-Jacobian product with ones of the output's shape
    (``grad(fun, argnum, has_aux=True)`` for a real scalar; the summed output's gradient,
    as :func:`elementwise_grad`, for an array; the real part's for a complex one).

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad_and_aux
        >>> grad_and_aux(lambda x: (x**2, x + 1))(3.0)
        (array(6.), array(4.))
    """

    def gradfun(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        where = f"grad_and_aux({fname(fun)}, argnum={argnum!r})"
        _check_argnum(where, argnum, len(args))
        nums = tuple(argnum) if isinstance(argnum, list) else argnum

        def summed(*a: Any, **k: Any) -> tuple[Any, Any]:
            ans, aux = fun(*a, **k)  # autograd's seed, ones like ans: its real parts' sum
            return sum(fnp.sum(fnp.real(leaf)) for leaf in tree_flatten(ans)[0]), aux

        summed.__name__ = fname(fun)
        return scalar_grad(summed, argnums=nums, has_aux=True)(*args, **kwargs)

    gradfun.__name__ = f"grad_and_aux_of_{fname(fun)}"
    return gradfun


def holomorphic_grad(fun: Callable, argnum: Argnum = 0) -> Callable:
    """The complex derivative ``f'(z)`` of a holomorphic ``fun`` in argument ``argnum``:
    the gradient of its real part (autograd's definition; for a holomorphic function
    that is ``f'(z)`` in JAX's convention for complex inputs, which ftransforms uses).

    Example:
        >>> import numpy as np
        >>> from ftransforms import holomorphic_grad
        >>> complex(holomorphic_grad(lambda z: z**2)(1.0 + 2.0j))  # 2 z
        (2+4j)
    """

    def gradfun(*args: Any, **kwargs: Any) -> Any:
        where = f"holomorphic_grad({fname(fun)}, argnum={argnum!r})"
        _check_argnum(where, argnum, len(args))
        return grad(lambda *a, **k: fnp.real(fun(*a, **k)), argnum)(*args, **kwargs)

    gradfun.__name__ = f"holomorphic_grad_of_{fname(fun)}"
    return gradfun


def grad_named(fun: Callable, argname: str) -> Callable:
    """The gradient of ``fun`` with respect to its parameter named ``argname`` (passed
    positionally; not ``*args`` or ``**kwargs``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad_named
        >>> float(grad_named(lambda x, scale: scale * x**2, "scale")(3.0, 2.0))
        9.0
    """
    names = [
        p.name
        for p in inspect.signature(fun).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    if argname not in names:
        raise ArgnumsError(
            f"grad_named({fname(fun)}, {argname!r}): {fname(fun)} has no positional "
            f"parameter {argname!r} (it has {', '.join(names) or 'none'}); pass one of those"
        )
    return grad(fun, names.index(argname))


def multigrad_dict(fun: Callable) -> Callable:
    """autograd's ``multigrad_dict``: a function of ``fun``'s arguments returning the
    gradients with respect to every one of them (defaults included), as an ordered dict
    from parameter name to gradient (``*args``/``**kwargs`` by their names, as lists and
    dicts).

    Example:
        >>> import numpy as np
        >>> from ftransforms import multigrad_dict
        >>> g = multigrad_dict(lambda x, y=2.0: x * y)(3.0)
        >>> {k: float(v) for k, v in g.items()}
        {'x': 2.0, 'y': 3.0}
    """
    sig = inspect.signature(fun)
    params = sig.parameters
    var_pos = [n for n, p in params.items() if p.kind is p.VAR_POSITIONAL]
    var_kwd = [n for n, p in params.items() if p.kind is p.VAR_KEYWORD]
    named = [n for n in params if n not in var_pos + var_kwd]

    def gradfun(*args: Any, **kwargs: Any) -> OrderedDict:
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        if var_pos:
            arguments[var_pos[0]] = list(arguments.get(var_pos[0], ()))
        if var_kwd:
            arguments[var_kwd[0]] = dict(arguments.get(var_kwd[0], {}))

        def by_name(values: dict) -> Any:
            extra = tuple(values[var_pos[0]]) if var_pos else ()
            extra_kw = dict(values[var_kwd[0]]) if var_kwd else {}
            positional = [n for n in named if params[n].kind is not params[n].KEYWORD_ONLY]
            keyword = {n: values[n] for n in named if params[n].kind is params[n].KEYWORD_ONLY}
            return fun(*(values[n] for n in positional), *extra, **keyword, **extra_kw)

        grads = grad(by_name)(arguments)
        return OrderedDict((name, grads[name]) for name in arguments)

    return gradfun


def make_ggnvp(f: Callable, g: Callable | None = None, f_argnum: Argnum = 0) -> Callable:
    """The function ``(*args, **kwargs) -> ggnvp`` with ``ggnvp(v) = Jᵀ H J v``: the
    generalized Gauss-Newton matrix of ``g ∘ f`` at ``args`` applied to ``v``, ``J`` the
    Jacobian of ``f`` in argument ``f_argnum`` and ``H`` the Hessian of the scalar ``g``
    at ``f``'s output (by default ``g(y) = ½ Σ y²`` over the last axis, so ``H = I``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import make_ggnvp
        >>> A = np.array([[1.0, 2.0], [0.0, 3.0]])
        >>> make_ggnvp(lambda w: A @ w)(np.zeros(2))(np.array([1.0, 0.0]))  # AᵀA e0
        array([1., 2.])
    """
    if g is None:

        def g(y: Any) -> Any:
            return 0.5 * fnp.sum(y**2, axis=-1)

    def make(*args: Any, **kwargs: Any) -> Callable:
        where = f"make_ggnvp({fname(f)}, f_argnum={f_argnum!r})"
        _check_argnum(where, f_argnum, len(args))
        unary_f, x = _unary(f, f_argnum, args, kwargs)
        f_x, f_vjp = vjp(unary_f, x)
        g_hvp, _ = make_hvp(g)(f_x)

        def ggnvp(v: Any) -> Any:
            f_jv = jvp(unary_f, (x,), (_like(f"{where} ggnvp(v)", "v", v, x),))[1]
            return f_vjp(g_hvp(f_jv))[0]

        return ggnvp

    make.__name__ = f"make_ggnvp_of_{fname(f)}"
    return make


def flatten(value: Any) -> tuple[Any, Callable[[Any], Any]]:
    """``(flat, unflatten)`` as ``autograd.misc.flatten``: the leaves of nested tuples,
    lists and dicts (keys sorted; any other object is a leaf) raveled and concatenated
    into one 1-d array, with NumPy's dtype promotion (an empty value gives an empty
    float64 array); ``unflatten(flat)`` rebuilds the nesting with array leaves of the
    original shapes and ``flat``'s dtype.  Both are differentiable.

    Example:
        >>> import numpy as np
        >>> from ftransforms.misc import flatten
        >>> flat, unflatten = flatten({"w": np.ones((2, 2)), "b": [0.5]})
        >>> flat
        array([0.5, 1. , 1. , 1. , 1. ])
        >>> unflatten(flat * 2)["w"]
        array([[2., 2.],
               [2., 2.]])
    """
    # autograd's containers are exactly tuple, list and dict: a namedtuple, None or a
    # registered class is one leaf.
    leaves, spec = optree.tree_flatten(
        value, lambda v: type(v) not in (tuple, list, dict), none_is_leaf=True, namespace=NAMESPACE
    )
    shapes = [fnp.shape(leaf) for leaf in leaves]
    sizes = [fnp.size(leaf) for leaf in leaves]
    pieces = [fnp.ravel(leaf) for leaf in leaves]
    flat = fnp.concatenate(pieces) if pieces else fnp.array([])
    n = sum(sizes)

    def unflatten(vector: Any) -> Any:
        if fnp.shape(vector) != (n,):
            raise ValueError(
                f"flatten's unflatten(vector): expected a 1-d array of shape ({n},), got "
                f"shape {fnp.shape(vector)}; pass an array shaped like the flat array "
                f"flatten returned"
            )
        parts, start = [], 0
        for shape, size in zip(shapes, sizes):
            parts.append(fnp.reshape(vector[start : start + size], shape))
            start += size
        return tree_unflatten(spec, parts)

    return flat, unflatten
