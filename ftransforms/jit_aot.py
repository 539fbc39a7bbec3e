"""``jit(f).trace(*args)``, ``jit(f).lower(*args)``, ``.compile()``,
``jit(f).eval_shape(*args)`` and ``jit(f).clear_cache()``: ``jax.jit``'s ahead-of-time
steps over ``jit``'s recordings.

NOTE [jit's ahead-of-time API]: ``jax.jit(f).lower(x).compile()`` traces ``f`` for the
arguments' types and compiles it, and the ``Compiled`` it returns takes arguments of
those types only (the static ones left out: they are part of it).  Here ``lower`` records
``f`` at once when the arguments are arrays (it runs ``f``, as the first call of
``jit(f)`` does: JAX runs the Python while tracing too), or, for
:class:`~ftransforms.ShapeDtypeStruct` arguments, computes the output's types with
:func:`~ftransforms.eval_shape` and leaves the recording to the first call; ``compile``
returns a :class:`Compiled` that checks its arguments against the lowered types and
calls ``jit(f)``, which replays the recording.  ``trace`` is ``lower``'s first half: a
:class:`Traced` holds the recording (``.jaxpr``, what ``make_jaxpr`` shows) and
``.lower()`` gives the :class:`Lowered`.  The text of a program is its recorded
NumPy code (``jit(f)``'s recording where ``lower`` made it).  Nothing here runs on a
call of ``jit(f)`` itself.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> step = ft.jit(lambda x, n: np.tanh(x) * n, static_argnums=1)
    >>> compiled = step.lower(np.zeros(3), 2).compile()
    >>> compiled(np.ones(3)).round(3).tolist()
    [1.523, 1.523, 1.523]
    >>> compiled.out_info
    ShapeDtypeStruct(shape=(3,), dtype=float64)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ftransforms.backend import is_array
from ftransforms.errors import UnsupportedOperationError
from ftransforms.pytree import tree_flatten, tree_map
from ftransforms.shape_eval import ShapeDtypeStruct, eval_shape

__all__ = ["Compiled", "Lowered", "Traced"]


def _info(leaf: Any) -> Any:
    """An array leaf's :class:`ShapeDtypeStruct`; any other leaf as it is."""
    if isinstance(leaf, ShapeDtypeStruct) or is_array(leaf):
        return ShapeDtypeStruct(tuple(leaf.shape), leaf.dtype)
    return leaf


def _concrete(tree: Any) -> bool:
    return not any(isinstance(v, ShapeDtypeStruct) for v in tree_flatten(tree)[0])


class Lowered:
    """What ``jit(f).lower(*args, **kwargs)`` returns (``jax.stages.Lowered``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> lowered = ft.jit(lambda x: x * 2.0).lower(ft.ShapeDtypeStruct((2,), np.float32))
        >>> lowered.out_info
        ShapeDtypeStruct(shape=(2,), dtype=float32)
        >>> lowered.compile()(np.ones(2, np.float32)).tolist()
        [2.0, 2.0]
    """

    def __init__(
        self,
        jitted: Callable,
        name: str,
        args: tuple,
        kwargs: dict,
        static: tuple,
        program: Any = None,
    ) -> None:
        self._jitted = jitted
        self._name = name
        self._call = (args, kwargs)
        self._static = static  # ({position: value}, {name: value})
        self._program = program
        self._out_info: Any = None
        dyn_args = tuple(a for j, a in enumerate(args) if j not in static[0])
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static[1]}
        #: The types of the arguments the compiled program takes (the static ones left out).
        self.args_info = tree_map(_info, (dyn_args, dyn_kwargs))

    @property
    def out_info(self) -> Any:
        """The output's pytree of :class:`~ftransforms.ShapeDtypeStruct`."""
        if self._out_info is None:
            args, kwargs = self._call
            self._out_info = eval_shape(self._jitted, *args, **kwargs)
        return self._out_info

    def compile(self) -> Compiled:
        """The :class:`Compiled` program, which takes arguments of the lowered types."""
        return Compiled(self)

    def as_text(self) -> str:
        """The recorded program (``jit``'s NumPy code for these argument types)."""
        program = self._program
        if program is not None and program.value_dependent:
            return f"jit({self._name}): these argument types run eagerly ({program.reason})"
        if program is not None:
            return str(program)
        return (
            f"jit({self._name}): recorded at the first call (lowered for "
            f"{self.args_info!r}, with no data to run on)"
        )

    def cost_analysis(self) -> None:
        """``None``: a recording has no compiler's cost model (JAX may return ``None`` too)."""
        return None


class Traced:
    """What ``jit(f).trace(*args, **kwargs)`` returns (``jax.stages.Traced``): the
    recording of ``f`` for these arguments, before lowering.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> traced = ft.jit(lambda x: np.sin(x) * 2.0).trace(np.zeros(3))
        >>> [e.primitive.name for e in traced.jaxpr.eqns], traced.out_info.shape
        (['sin', 'multiply'], (3,))
        >>> traced.lower().compile()(np.zeros(3)).tolist()
        [0.0, 0.0, 0.0]
    """

    def __init__(self, lowered: Lowered) -> None:
        self._lowered = lowered
        self.args_info = lowered.args_info
        self.fun_name = lowered._name

    @property
    def jaxpr(self) -> Any:
        """The recorded program (a :class:`~ftransforms.program.Program`, as
        ``make_jaxpr`` returns), recorded for arrays; ``ShapeDtypeStruct`` arguments
        have no data to record with."""
        if self._lowered._program is None:
            raise UnsupportedOperationError(
                f"jit({self.fun_name}).trace(...).jaxpr: nothing was recorded for these "
                f"arguments ({self.args_info!r}): jit records by running the function, so "
                f"trace it with arrays (out_info and lower() work with ShapeDtypeStruct)"
            )
        return self._lowered._program

    @property
    def out_info(self) -> Any:
        """The output's pytree of :class:`~ftransforms.ShapeDtypeStruct`."""
        return self._lowered.out_info

    def lower(self) -> Lowered:
        """The :class:`Lowered` program (``jax.stages.Traced.lower``)."""
        return self._lowered


class Compiled:
    """What ``jit(f).lower(*args).compile()`` returns (``jax.stages.Compiled``): called
    with arguments of the lowered types, static arguments left out.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> compiled = ft.jit(lambda x: x.sum()).lower(np.ones(3)).compile()
        >>> float(compiled(np.arange(3.0)))
        3.0
    """

    def __init__(self, lowered: Lowered) -> None:
        self._lowered = lowered
        self.args_info = lowered.args_info

    @property
    def out_info(self) -> Any:
        return self._lowered.out_info

    def as_text(self) -> str:
        return self._lowered.as_text()

    def cost_analysis(self) -> None:
        return None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        low = self._lowered
        where = f"jit({low._name}).lower(...).compile()"
        leaves, spec = tree_flatten((args, kwargs))
        expected, expected_spec = tree_flatten(self.args_info)
        if spec != expected_spec:
            raise UnsupportedOperationError(
                f"{where}: called with arguments of the structure {spec}, but it was "
                f"lowered for {expected_spec} (static arguments left out); call it with "
                f"arguments like those given to lower, or call jit({low._name}) itself, "
                f"which records each new signature"
            )
        for k, (got, want) in enumerate(zip(leaves, expected)):
            if isinstance(want, ShapeDtypeStruct):
                now = _info(got) if is_array(got) else None
                if now is None or now.shape != want.shape or now.dtype != want.dtype:
                    raise UnsupportedOperationError(
                        f"{where}: argument leaf {k} is {_describe(got)}, but it was lowered "
                        f"for {want.dtype}{list(want.shape)}; pass an array of that type, "
                        f"or call jit({low._name}) itself, which records each new signature"
                    )
        positions, names = low._static
        full = list(args)
        for j in sorted(positions):
            full.insert(j, positions[j])
        return low._jitted(*full, **kwargs, **names)


def _describe(leaf: Any) -> str:
    if is_array(leaf):
        return f"{leaf.dtype}{list(leaf.shape)}"
    return f"a {type(leaf).__name__}"


def lower(
    jitted: Callable, cache: Any, name: str, argnums: tuple, argnames: tuple
) -> Callable[..., Lowered]:
    """``jit(f).lower``: records ``f`` for these arguments now when they are arrays."""

    def lower_call(*args: Any, **kwargs: Any) -> Lowered:
        n = len(args)
        positions = {j % n: args[j % n] for j in argnums if -n <= j < n}
        names = {k: v for k, v in kwargs.items() if k in argnames}
        program = None
        if _concrete((args, kwargs)):
            before = {id(p) for p in cache.values()}
            jitted(*args, **kwargs)  # the recording (the first call of this signature)
            new = [p for p in cache.values() if id(p) not in before]
            if not new:  # recorded before: the program of these argument types
                arrays = [a for a in tree_flatten((args, kwargs))[0] if is_array(a)]
                shapes = [tuple(a.shape) for a in arrays]
                dtypes = [a.dtype for a in arrays]
                new = [
                    p
                    for p in cache.values()
                    if getattr(p, "in_shapes", None) == shapes and p.in_dtypes == dtypes
                ]
            program = new[0] if len(new) == 1 else None
        return Lowered(jitted, name, args, kwargs, (positions, names), program)

    return lower_call


def trace(lower_call: Callable[..., Lowered]) -> Callable[..., Traced]:
    """``jit(f).trace``, over ``jit(f).lower`` (``lower_call``): the recording is made now."""

    def trace_call(*args: Any, **kwargs: Any) -> Traced:
        return Traced(lower_call(*args, **kwargs))

    return trace_call
