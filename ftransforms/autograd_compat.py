"""HIPS autograd's names for what ftransforms' transforms compute, with autograd's calling
conventions: an ``argnum`` (an int, or a tuple for several arguments at once) and
functions of the same arguments as ``fun``.

``elementwise_grad``, ``hessian_tensor_product`` (alias ``hessian_vector_product``) and
``make_hvp`` as in ``autograd``, and ``flatten`` as in ``autograd.misc`` (also
``ft.misc.flatten``).  Each is built from ``vjp``/``jvp``/``grad``, so it composes with
``vmap``, ``jit`` and further derivatives.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> ft.elementwise_grad(np.sin)(np.array([0.0, np.pi]))
    array([ 1., -1.])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import optree

import ftransforms.numpy as fnp
from ftransforms.api import grad, jvp, vjp
from ftransforms.arguments import fname
from ftransforms.errors import ArgnumsError, GradOutputError, TangentMismatchError
from ftransforms.pytree import NAMESPACE, tree_flatten, tree_map, tree_unflatten

__all__ = [
    "elementwise_grad",
    "flatten",
    "hessian_tensor_product",
    "hessian_vector_product",
    "make_hvp",
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
