"""Exception types raised by ftransforms.

Each error subclasses the built-in types that torch.func and JAX raise for the same
mistake, so ``except ValueError`` / ``except TypeError`` / ``except RuntimeError`` code
written for either library keeps working.  Messages start with the call form
(``vmap(f, in_dims=(0, 0)): ...``), say what was expected and what came, and name a fix.
"""

from __future__ import annotations

import pickle

import numpy


class FTransformsError(Exception):
    """Base class of every error ftransforms raises on purpose.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.vmap(np.add)(np.ones(2), np.ones(3))  # batch sizes 2 and 3
        ... except ft.errors.FTransformsError as e:
        ...     print(type(e).__name__, isinstance(e, ValueError))
        InDimsError True
    """


class InDimsError(FTransformsError, ValueError, TypeError):
    """``in_dims`` does not fit the arguments, or the batch sizes disagree (a ValueError,
    and a TypeError too: JAX raises that for an entry that is not an int or None).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.vmap(np.sin, in_dims=1)(np.ones(3))
        ... except ft.errors.InDimsError as e:
        ...     print(f"{type(e).__name__}: {e}")
        InDimsError: vmap(sin, in_dims=1): in_dim=1 is out of range for x of shape (3,) ...
    """


class OutDimsError(FTransformsError, ValueError, IndexError, TypeError):
    """``out_dims`` does not fit the outputs (a ValueError; an out-of-range ``out_dim`` is
    an ``IndexError`` in torch.func, and an entry that is not an int or None a TypeError in
    JAX: this is all three).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.vmap(np.sum, out_dims=1)(np.ones((2, 3)))  # the output is 0-d
        ... except ft.errors.OutDimsError as e:
        ...     print(f"{type(e).__name__}: {e}")
        OutDimsError: vmap(sum, in_dims=0): out_dim=1 is out of range ...
    """


class ChunkSizeError(FTransformsError, ValueError):
    """``chunk_size`` (of ``vmap``/``jacrev``) is not ``None`` or a positive int.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.vmap(np.sin, chunk_size=0)(np.zeros(3))
        ... except ft.errors.ChunkSizeError as e:
        ...     print(f"{type(e).__name__}: {e}")
        ChunkSizeError: vmap(sin, chunk_size=0): chunk_size must be None or a positive int, ...
    """


class GradOutputError(FTransformsError, TypeError, RuntimeError):
    """``grad`` of something that is not a real floating-point scalar.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.grad(np.sin)(np.ones(3))  # a vector output
        ... except ft.errors.GradOutputError as e:
        ...     print(f"{type(e).__name__}: {e}")
        GradOutputError: grad(sin): the output must be a real scalar, got shape (3,); ...
    """


class NonDifferentiableInputError(FTransformsError, TypeError, RuntimeError):
    """Differentiation with respect to an integer, boolean or non-array input.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.grad(lambda n: n * 2.0)(3)  # an int input
        ... except ft.errors.NonDifferentiableInputError as e:
        ...     print(f"{type(e).__name__}: {e}")
        NonDifferentiableInputError: grad(<lambda>): grad requires real- or complex-valued ...
    """


class ArgnumsError(FTransformsError, ValueError, TypeError, RuntimeError):
    """``argnums`` out of range, duplicated or of the wrong type (or an argument that
    ``jit``'s ``static_argnums`` makes static and that is not hashable).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.grad(np.multiply, argnums=2)(1.0, 2.0)
        ... except ft.errors.ArgnumsError as e:
        ...     print(f"{type(e).__name__}: {e}")
        ArgnumsError: grad(multiply): argnums=2 is out of range: ...
    """


class AuxError(FTransformsError, TypeError, RuntimeError):
    """``has_aux=True`` but the function did not return an ``(output, aux)`` pair.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.grad(lambda x: x**2, has_aux=True)(1.0)
        ... except ft.errors.AuxError as e:
        ...     print(f"{type(e).__name__}: {e}")
        AuxError: grad(<lambda>): has_aux=True requires the function to return a pair ...
    """


class TangentMismatchError(FTransformsError, ValueError, TypeError, RuntimeError):
    """Tangents or cotangents whose structure, shape or dtype differ from the primals.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.jvp(np.sin, (np.zeros(3),), (np.zeros(2),))
        ... except ft.errors.TangentMismatchError as e:
        ...     print(f"{type(e).__name__}: {e}")
        TangentMismatchError: jvp(sin): the tangent of x has shape (2,) but the primal ...
    """


class EscapedTracerError(FTransformsError, RuntimeError, TypeError):
    """A tracer was used after the transform that created it had returned (torch.func
    raises ``RuntimeError`` for an escaped vmap tensor, JAX ``UnexpectedTracerError``, a
    ``TypeError``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> leaked = []
        >>> _ = ft.grad(lambda x: leaked.append(x) or 2 * x)(1.0)  # keeps a tracer
        >>> try:
        ...     leaked[0] + 1.0
        ... except ft.errors.EscapedTracerError as e:
        ...     print(f"{type(e).__name__}: {e}")
        EscapedTracerError: grad(<lambda>): one of its tracers was used (by add) after ...
    """


class BatchedControlFlowError(FTransformsError, TypeError, RuntimeError):
    """``bool()`` / ``if`` / ``float()`` on a value that differs across the vmap batch, under
    ``vmap(..., split=False)`` (by default the batch splits into groups of rows instead).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> def absolute(x):
        ...     return x if x > 0 else -x  # one Python value per row
        >>> try:
        ...     ft.vmap(absolute, split=False)(np.array([1.0, -1.0]))
        ... except ft.errors.BatchedControlFlowError as e:
        ...     print(f"{type(e).__name__}: {e}")
        BatchedControlFlowError: vmap(absolute, in_dims=0): a batched value has no single ...
    """


class UnboundAxisNameError(FTransformsError, NameError):
    """A collective (``ft.lax.psum``, ...) names an axis that no enclosing ``vmap`` has
    (``NameError``, as JAX raises).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.vmap(lambda x: ft.lax.psum(x, "j"), axis_name="i")(np.ones(2))
        ... except ft.errors.UnboundAxisNameError as e:
        ...     print(f"{type(e).__name__}: {e}")
        UnboundAxisNameError: psum(x, 'j'): no enclosing vmap has axis_name='j' ...
    """


class ControlFlowError(FTransformsError, TypeError):
    """Misuse of ``cond``/``switch``/``while_loop``/``fori_loop``/``scan`` (``TypeError``,
    as ``jax.lax`` raises for the same mistakes).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.fori_loop(0, 3, lambda i, c: c.astype(np.float32), np.zeros(2))
        ... except ft.errors.ControlFlowError as e:
        ...     print(type(e).__name__, isinstance(e, TypeError))
        CarryError True
    """


class BranchOutputError(ControlFlowError):
    """The branches of ``cond``/``switch`` return different structures, shapes or dtypes.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.cond(True, lambda x: x, lambda x: x[:1], np.ones(2))
        ... except ft.errors.BranchOutputError as e:
        ...     print(f"{type(e).__name__}: {e}")
        BranchOutputError: cond(pred, true_fun, false_fun, *operands): true_fun's output and ...
    """


class CarryError(ControlFlowError):
    """A loop's body changed the carry's structure, shapes or dtypes.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.fori_loop(0, 3, lambda i, c: c.astype(np.float32), np.zeros(2))
        ... except ft.errors.CarryError as e:
        ...     print(f"{type(e).__name__}: {e}")
        CarryError: fori_loop(lower, upper, body_fun, init_val): the carry and body_fun's output ...
    """


class BranchesError(ControlFlowError, ValueError):
    """``switch`` given no branches, or a branch that is not callable (``ValueError`` too, as
    ``jax.lax.switch`` raises for an empty sequence).

    Example:
        >>> import ftransforms as ft
        >>> try:
        ...     ft.switch(0, [], 1.0)
        ... except ft.errors.BranchesError as e:
        ...     print(f"{type(e).__name__}: {e}")
        BranchesError: switch(index, branches, *operands): branches must be a non-empty ...
    """


class PredicateError(ControlFlowError):
    """A predicate or branch index that is not a boolean or integer scalar.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.cond(np.array([True, False]), lambda: 1.0, lambda: 0.0)
        ... except ft.errors.PredicateError as e:
        ...     print(f"{type(e).__name__}: {e}")
        PredicateError: cond(pred, true_fun, false_fun, *operands): the predicate must be ...
    """


class ScanLengthError(ControlFlowError, ValueError):
    """``scan``'s ``xs`` disagree on their leading length, or with ``length=``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.scan(lambda c, x: (c, x), 0.0, (np.zeros(3), np.zeros(4)))
        ... except ft.errors.ScanLengthError as e:
        ...     print(f"{type(e).__name__}: {e}")
        ScanLengthError: scan(f, init, xs, ...): the leaves of xs ... got [3, 4]; ...
    """


class TracerConversionError(FTransformsError, TypeError, RuntimeError):
    """A tracer was converted to a concrete array or Python number, losing the transform
    (JAX raises ``ConcretizationTypeError``, a ``TypeError``; torch.func's vmap raises
    ``RuntimeError`` for ``.item()`` / ``float()``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.grad(lambda x: float(x) ** 2)(1.0)
        ... except ft.errors.TracerConversionError as e:
        ...     print(f"{type(e).__name__}: {e}")
        TracerConversionError: grad(<lambda>): float() on a tracer would drop what the transform ...
    """


class InPlaceError(FTransformsError, TypeError, RuntimeError):
    """A write that cannot keep NumPy's mutation semantics: a traced value written into a
    NumPy array from outside the transformed function (``out=`` one included), an in-place
    operator whose result NumPy would not cast back, a ``ufunc.at`` with no counterpart.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> log = np.zeros(3)  # from outside: writing into it would change the caller's data
        >>> def f(x):
        ...     np.exp(x, out=log)
        ...     return x.sum()
        >>> try:
        ...     ft.vmap(f)(np.ones((2, 3)))
        ... except ft.errors.InPlaceError as e:
        ...     print(f"{type(e).__name__}: {e}")
        InPlaceError: vmap(f, in_dims=0): numpy.exp(..., out=...): out= is a NumPy array ...
    """


class ModuleStateError(FTransformsError, ValueError, RuntimeError):
    """Arrays that do not fit a model object: ``functional_call`` with ``strict=True`` and
    missing or unexpected names, tied names given different values, a name in two of the
    dicts; ``stack_module_state`` of models of different classes or shapes.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> class Linear:
        ...     def __init__(self):
        ...         self.W, self.b = np.ones((2, 3)), np.zeros(2)
        ...     def __call__(self, x):
        ...         return self.W @ x + self.b
        >>> try:
        ...     ft.functional_call(Linear(), {"W": np.zeros((2, 3))}, np.ones(3), strict=True)
        ... except ft.errors.ModuleStateError as e:
        ...     print(f"{type(e).__name__}: {e}")
        ModuleStateError: functional_call(Linear): strict=True needs exactly the model's ...
    """


class PerformanceWarning(RuntimeWarning):
    """Code runs correctly but on a slow path; the message names the code and the fast
    alternative.  Shown once per function or source line.  Two sources: a tracer computed
    on element by element as a NumPy object array (:class:`ObjectArrayWarning`), and a
    ``vmap`` that split its batch because rows disagree on a Python value (``if``,
    ``while``, ``int()``, a data-dependent shape), so that the function runs once per
    group of rows.  Silence it as any warning.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     g = ft.grad(lambda x: np.asarray(x).sum())(np.ones(100))  # 100 > 64 elements
        >>> g[:2].tolist(), issubclass(caught[0].category, ft.errors.PerformanceWarning)
        ([1.0, 1.0], True)
    """


class ObjectArrayWarning(PerformanceWarning):
    """A large tracer was turned into a NumPy object array (``np.array([...])`` of tracers):
    NumPy then computes element by element in Python, which is slow.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     _ = ft.vmap(lambda x: np.asarray(x).sum())(np.ones((2, 100)))  # 100 > 64 elements
        >>> [w.category.__name__ for w in caught]
        ['ObjectArrayWarning']
    """


class ArgumentWriteWarning(UserWarning):
    """A ``jit``-compiled function wrote into one of its arguments in place (``w -= lr *
    g``, ``p["W"][...] = ...``): called without ``jit`` it modifies the caller's array, but
    under ``jit``, as under ``jax.jit``, the caller's arrays are never modified, so an
    optimizer step written to update its arguments does nothing there.  An assignment
    into a dict or list argument (``state["t"] += 1``, ``hist.append(loss)``) is told too:
    the function gets copies of its containers (NOTE [assignments into argument containers
    under jit]).  Shown once per jitted function, at its first recording that writes;
    return the new values instead (``p = step(p, g)``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import warnings
        >>> def sgd(w, g):
        ...     w -= 0.1 * g
        ...     return (w**2).sum()
        >>> w = np.ones(2)
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     _ = ft.jit(sgd)(w, np.ones(2))
        >>> w.tolist(), [c.category.__name__ for c in caught]
        ([1.0, 1.0], ['ArgumentWriteWarning'])
    """


class UnsupportedOperationError(FTransformsError, NotImplementedError, TypeError):
    """A NumPy function, ufunc method or argument that has no ftransforms rule.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.vmap(lambda x: np.unpackbits(x))(np.ones((2, 3), np.uint8))
        ... except ft.errors.UnsupportedOperationError as e:
        ...     print(f"{type(e).__name__}: {e}")
        UnsupportedOperationError: vmap(<lambda>, in_dims=0): numpy.unpackbits has no ...
    """


class UFuncTypeError(FTransformsError, TypeError, ValueError):
    """A ufunc call on tracers that NumPy refuses too: ``casting=`` forbids a cast to the
    loop's or the ``out=`` buffer's dtype, no loop fits ``dtype=``/``signature=``, an unknown
    ``casting``/``order`` name, or an ``out=`` tuple of the wrong length.  NumPy raises its
    ``UFuncTypeError`` (a ``TypeError``) or a ``ValueError`` there; this is both.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.vmap(lambda x: np.add(x, 1, dtype=np.int64))(np.ones((2, 3)))
        ... except ft.errors.UFuncTypeError as e:
        ...     print(f"{type(e).__name__}: {e}")
        UFuncTypeError: vmap(<lambda>, in_dims=0): numpy.add(..., dtype=...): cannot cast ...
    """


def _numpy_output_casting_error() -> type:
    """NumPy's exception class for a ufunc result that ``same_kind`` casting cannot write
    into its output (``numpy._core._exceptions._UFuncOutputCastingError``: private, so
    found by having NumPy raise it on empty arrays)."""
    out = numpy.zeros(0, dtype=numpy.int64)
    try:
        numpy.add(out, numpy.zeros(0), out=out)
    except TypeError as err:
        return type(err)
    return TypeError  # pragma: no cover  (a NumPy that casts float to int in place)


class OutputCastingError(InPlaceError, UFuncTypeError, _numpy_output_casting_error()):
    """An in-place operation whose result NumPy would not cast back to the written array's
    dtype (``int_array += 0.5``, ``np.add(i, 0.5, out=i)``): InPlaceError and
    UFuncTypeError, and NumPy's own exception class there (``except TypeError`` and
    ``except np._core._exceptions.UFuncTypeError`` in the user's code catch it as they
    catch NumPy's).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> def f(x):
        ...     count = np.arange(3)
        ...     count += x  # float into int: NumPy refuses too
        ...     return count
        >>> try:
        ...     ft.vmap(f)(np.ones((2, 3)))
        ... except TypeError as e:
        ...     print(type(e).__name__)
        OutputCastingError
    """

    def __init__(self, message: str) -> None:
        Exception.__init__(self, message)  # (NumPy's class takes the ufunc and dtypes)

    def __str__(self) -> str:
        return Exception.__str__(self)


class CallbackError(FTransformsError, ValueError):
    """A ``pure_callback`` returned other shapes or dtypes than it declared, or was
    differentiated without a custom rule.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> out = ft.ShapeDtypeStruct((), np.float64)
        >>> try:
        ...     ft.grad(lambda x: ft.pure_callback(np.sin, out, x))(1.0)
        ... except ft.errors.CallbackError as e:
        ...     print(f"{type(e).__name__}: {e}")
        CallbackError: pure_callback(sin, ...): a pure callback has no derivative rule ...
    """


class LinearityError(FTransformsError, TypeError, NotImplementedError):
    """``linear_transpose`` was given a function that is not linear in its inputs.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.linear_transpose(np.sin, 1.0)
        ... except ft.errors.LinearityError as e:
        ...     print(f"{type(e).__name__}: {e}")
        LinearityError: linear_transpose(sin, *primals): sin is not linear ...
    """


class MixedBackendError(FTransformsError, TypeError):
    """NumPy and CuPy arrays (or arrays of two devices) mixed in one operation.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> from ftransforms import strict_backend  # a stand-in for CuPy
        >>> try:
        ...     fnp.add(np.ones(2), strict_backend.asarray(np.ones(2)))
        ... except ft.errors.MixedBackendError as e:
        ...     print(f"{type(e).__name__}: {e}")
        MixedBackendError: add: cannot mix numpy and strictnumpy arrays ...
    """


class RandomnessError(FTransformsError, RuntimeError):
    """Random numbers drawn under ``vmap(randomness='error')`` or a bad ``randomness``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.random import normal
        >>> rng = np.random.default_rng(0)  # vmap's default is randomness='error'
        >>> try:
        ...     ft.vmap(lambda x: x + normal(rng))(np.zeros(2))
        ... except ft.errors.RandomnessError as e:
        ...     print(f"{type(e).__name__}: {e}")
        RandomnessError: vmap(<lambda>, in_dims=0): random.normal(rng, loc, scale, size) draws ...
    """


class PRNGKeyError(FTransformsError, TypeError, ValueError):
    """A JAX-style random function got something that is not a single key (a ``uint32``
    array of shape ``(2,)``), a bad seed, shape or dtype (NOTE [random keys] in
    ``ftransforms/random_keys.py``).  JAX raises ``TypeError`` or ``ValueError`` here.

    Example:
        >>> import ftransforms as ft
        >>> keys = ft.random.split(ft.random.key(0), 3)
        >>> try:
        ...     ft.random.normal(keys, (2,))
        ... except ft.errors.PRNGKeyError as e:
        ...     print(f"{type(e).__name__}: {e}")
        PRNGKeyError: random.normal: expected a single key, ... got uint32 of shape (3, 2); map ...
    """


# -- ftransforms.distributed (dask) -------------------------------------------------------


class ChunksError(FTransformsError, ValueError):
    """A dask array whose chunks cannot be mapped over (several chunks on an unmapped axis,
    unknown chunk sizes).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import dask.array as da
        >>> import ftransforms.distributed as fd
        >>> try:
        ...     fd.vmap(np.sum)(da.ones((4, 4), chunks=2))  # 2 chunks on axis 1
        ... except ft.errors.ChunksError as e:
        ...     print(f"{type(e).__name__}: {e}")
        ChunksError: fd.vmap(sum, in_dims=0): a is mapped over axis 0 but has 2 chunks on axis 1...
    """


class DaskArrayError(FTransformsError, TypeError, ValueError):
    """A lazy dask array where an in-memory array is needed (the single-machine
    transforms, or an argument of ``ftransforms.distributed`` that must be in memory).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import dask.array as da
        >>> try:
        ...     ft.vmap(np.sin)(da.ones(3, chunks=2))
        ... except ft.errors.DaskArrayError as e:
        ...     print(f"{type(e).__name__}: {e}")
        DaskArrayError: vmap(sin, in_dims=0): x is a lazy dask array, ...
    """


class DistributedNestingError(FTransformsError, RuntimeError):
    """An ``ftransforms.distributed`` function called inside a transform (they are
    outermost).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.distributed as fd
        >>> try:
        ...     ft.grad(lambda x: fd.vmap(np.sin)(x).sum())(np.zeros(3))
        ... except ft.errors.DistributedNestingError as e:
        ...     print(f"{type(e).__name__}: {e}")
        DistributedNestingError: fd.vmap(sin, in_dims=0): called inside grad(<lambda>), ...
    """


class FunctionPicklingError(FTransformsError, TypeError, pickle.PicklingError):
    """A function given to ``ftransforms.distributed`` cannot be pickled for the workers.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import threading
        >>> import dask.array as da
        >>> import ftransforms.distributed as fd
        >>> lock = threading.Lock()  # closed over: locks cannot be pickled
        >>> try:
        ...     fd.vmap(lambda x: (lock, x)[1])(da.ones(4, chunks=2))
        ... except ft.errors.FunctionPicklingError as e:
        ...     print(f"{type(e).__name__}: {e}")
        FunctionPicklingError: fd.vmap(<lambda>, in_dims=0): the function '<lambda>' cannot be ...
    """


class ReduceError(FTransformsError, ValueError):
    """A ``reduce`` or ``split_every`` that ``fd.map_reduce`` does not support.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.distributed as fd
        >>> try:
        ...     fd.map_reduce(np.sin, reduce="max")
        ... except ft.errors.ReduceError as e:
        ...     print(f"{type(e).__name__}: {e}")
        ReduceError: fd.map_reduce(sin, reduce='max'): reduce must be 'sum' or 'mean'; ...
    """


class MissingDependencyError(FTransformsError, ImportError):
    """An optional dependency (dask for ``ftransforms.distributed``) is not installed.

    Example:
        >>> import sys
        >>> from unittest import mock
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.distributed as fd
        >>> try:  # as if dask were not installed
        ...     with mock.patch.dict(sys.modules, {"dask": None, "cloudpickle": None}):
        ...         fd.compute({"x": np.ones(2)})
        ... except ft.errors.MissingDependencyError as e:
        ...     print(type(e).__name__, isinstance(e, ImportError))
        MissingDependencyError True
    """


class SplitOutputError(FTransformsError, ValueError):
    """Rows of a ``vmap`` batch took different Python paths (the batch was split) and the
    paths returned outputs of different structures or shapes, which ``numpy.stack`` of the
    per-row results could not join either.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import warnings
        >>> def f(x):
        ...     return x if x > 0 else (x, x)  # one array, or a pair
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     try:
        ...         ft.vmap(f)(np.array([1.0, -1.0]))
        ...     except ft.errors.SplitOutputError as e:
        ...         print(f"{type(e).__name__}: {e}")
        SplitOutputError: vmap(f, in_dims=0): the rows took different Python paths and ...
    """


class DimensionNumbersError(FTransformsError, TypeError, ValueError):
    """A ``lax.gather``/``scatter``/convolution whose dimension numbers, slice sizes or
    operand shapes do not fit together (JAX raises ``TypeError`` for the same mistakes).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import lax
        >>> dn = lax.GatherDimensionNumbers((1,), (), (0,))
        >>> try:
        ...     lax.gather(np.arange(5.0), np.array([[1]]), dn, (7,))
        ... except ft.errors.DimensionNumbersError as e:
        ...     print(f"{type(e).__name__}: {e}")
        DimensionNumbersError: lax.gather(operand, start_indices, dimension_numbers, ...
    """


class NotAnArrayError(FTransformsError, TypeError, ValueError):
    """An input or output of a transform is neither an array, a Python number nor a pytree
    of them (a string, an arbitrary object, a generator).  JAX raises ``TypeError`` there,
    torch.func ``ValueError`` ("must only return Tensors"); this is both.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> try:
        ...     ft.vmap(lambda x: "done")(np.ones(3))
        ... except ft.errors.NotAnArrayError as e:
        ...     print(f"{type(e).__name__}: {e}")
        NotAnArrayError: vmap(<lambda>, in_dims=0): every output must be an array or a ...
    """


class DtypeMismatchError(FTransformsError, TypeError):
    """A ``jax.lax``-style operation given arrays of different dtypes: ``lax`` does not
    promote (JAX raises ``TypeError`` for the same call); a Python scalar is accepted.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import lax
        >>> try:
        ...     lax.sub(np.ones(2, np.int32), np.ones(2))
        ... except ft.errors.DtypeMismatchError as e:
        ...     print(f"{type(e).__name__}: {e}")
        DtypeMismatchError: lax.sub requires arrays of the same dtype, got int32 and float64; ...
    """
