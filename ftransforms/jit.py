"""``jit``: record a (transformed) function's backend calls once per input signature and
replay them as a flat program, with no tracers and no rules.

Example:
    >>> import numpy as np
    >>> from ftransforms import grad, jit, vmap
    >>> f = jit(vmap(grad(lambda x: np.sum(np.tanh(x) ** 2))))
    >>> f(np.zeros((4, 3))).shape
    (4, 3)
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy

from ftransforms.backend import is_array
from ftransforms.core.stack import pushed
from ftransforms.core.tracer import Tracer
from ftransforms.interpreters.tracing import TraceInterpreter, TraceTracer
from ftransforms.program import Program
from ftransforms.pytree import tree_flatten, tree_unflatten

__all__ = ["Program", "jit", "make_program"]


def _signature(leaves: list) -> tuple:
    sig = []
    for leaf in leaves:
        if is_array(leaf):
            sig.append((type(leaf), leaf.shape, leaf.dtype.str))
        elif isinstance(leaf, Tracer):
            raise TypeError(
                "jit: got a tracer of an enclosing transform; put jit outermost, e.g. "
                "jit(vmap(grad(f))), not vmap(jit(...))"
            )
        else:
            try:
                hash(leaf)
            except TypeError:
                raise TypeError(
                    f"jit: argument leaves must be arrays or hashable Python values, got "
                    f"{type(leaf).__name__}"
                ) from None
            sig.append(("static", type(leaf), leaf))
    return tuple(sig)


def _trace(func: Callable, args: tuple, kwargs: dict, optimize: bool = True) -> tuple[Program, Any]:
    leaves, spec = tree_flatten(args)
    interp = TraceInterpreter(f"jit({getattr(func, '__name__', 'f')})")
    with pushed(interp):
        wrapped = [interp.new_input(v) if is_array(v) else v for v in leaves]
        n_inputs = interp.n_slots
        out = func(*tree_unflatten(spec, wrapped), **kwargs)
        out_leaves, out_spec = tree_flatten(out)
        refs, consts, values = [], [], []
        for leaf in out_leaves:
            if type(leaf) is TraceTracer and leaf._interp is interp:
                refs.append(leaf.ref)
                consts.append(None)
                values.append(leaf.val)
            else:
                if isinstance(leaf, Tracer):
                    raise TypeError(f"jit: the function returned a foreign tracer {leaf!r}")
                refs.append(None)
                consts.append(leaf)
                values.append(leaf)
    # Inputs that are not arrays are baked in: renumber array inputs to slots 0..n-1.
    in_avals = [f"{v.dtype}{list(v.shape)}" for v in leaves if is_array(v)]
    program = Program(
        interp.program,
        n_inputs,
        refs,
        consts,
        out_spec,
        in_avals,
        value_dependent=interp.value_dependent,
        reason=interp.reason,
        optimize=optimize,
    )
    values = [numpy.asarray(v) if isinstance(v, numpy.generic) else v for v in values]
    return program, tree_unflatten(out_spec, values)


def make_program(func: Callable, *, optimize: bool = True) -> Callable[..., Program]:
    """``make_program(f)(*args)``: the program ``jit`` would replay for ``f`` at these
    arguments (like ``jax.make_jaxpr``), for reading what a transformed function computes.
    ``optimize=False`` shows every backend call as recorded, before dead and repeated
    calls are removed; ``program.source`` is the generated Python.

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad
        >>> print(make_program(grad(lambda x: np.sin(x).sum()), optimize=False)(np.zeros(2)))
        { lambda %0:float64[2] .
            %1 = sin[] %0
            %2 = reduce_sum[axis=(0,) keepdims=False] %1
            %3 = cos[] %0
          in ( %3 ) }
    """

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Program:
        return _trace(func, args, kwargs, optimize)[0]

    return wrapped


def jit(func: Callable, *, max_cached: int = 32) -> Callable:
    """Compile ``func`` (usually a transformed function) into a replayed flat program.

    The first call for an input signature (tree structure, array types, shapes, dtypes,
    and the values of non-array arguments) runs ``func`` eagerly while recording; later
    calls with that signature replay the recording.  A trace that read a traced value
    (Python control flow on data, boolean masks, random draws; see NOTE
    [value-dependent traces]) is not replayed: that signature keeps running eagerly, with
    a warning the first time.  Keyword arguments must be hashable and are part of the
    signature.
    """
    cache: OrderedDict = OrderedDict()

    @functools.wraps(func)
    def compiled(*args: Any, **kwargs: Any) -> Any:
        leaves, spec = tree_flatten(args)
        key = (spec, _signature(leaves), tuple(sorted(kwargs.items())))
        program = cache.get(key)
        if program is None:
            program, result = _trace(func, args, kwargs)
            cache[key] = program
            if len(cache) > max_cached:
                cache.popitem(last=False)
            if program.value_dependent:
                warnings.warn(
                    f"jit({getattr(func, '__name__', 'f')}): the trace depends on data "
                    f"({program.reason}), so this input signature runs eagerly",
                    RuntimeWarning,
                    stacklevel=2,
                )
            return result
        if program.value_dependent:
            return func(*args, **kwargs)
        return program.run([v for v in leaves if is_array(v)])

    compiled.cache = cache  # type: ignore[attr-defined]
    return compiled
