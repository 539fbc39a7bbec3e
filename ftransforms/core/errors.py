"""Exception types raised by ftransforms.

Each error subclasses the built-in types that torch.func and JAX raise for the same
mistake, so ``except ValueError`` / ``except TypeError`` / ``except RuntimeError`` code
written for either library keeps working.  Messages start with the call form
(``vmap(f, in_dims=(0, 0)): ...``), say what was expected and what came, and name a fix.
"""

from __future__ import annotations

import pickle


class FTransformsError(Exception):
    """Base class of every error ftransforms raises on purpose."""


class InDimsError(FTransformsError, ValueError):
    """``in_dims`` does not fit the arguments, or the batch sizes disagree."""


class OutDimsError(FTransformsError, ValueError):
    """``out_dims`` does not fit the outputs."""


class ChunkSizeError(FTransformsError, ValueError):
    """``chunk_size`` (of ``vmap``/``jacrev``) is not ``None`` or a positive int."""


class GradOutputError(FTransformsError, TypeError, RuntimeError):
    """``grad`` of something that is not a real floating-point scalar."""


class NonDifferentiableInputError(FTransformsError, TypeError, RuntimeError):
    """Differentiation with respect to an integer, boolean or non-array input."""


class ArgnumsError(FTransformsError, ValueError, RuntimeError):
    """``argnums`` out of range, duplicated or of the wrong type."""


class AuxError(FTransformsError, TypeError, RuntimeError):
    """``has_aux=True`` but the function did not return an ``(output, aux)`` pair."""


class TangentMismatchError(FTransformsError, ValueError, TypeError):
    """Tangents or cotangents whose structure, shape or dtype differ from the primals."""


class EscapedTracerError(FTransformsError, RuntimeError):
    """A tracer was used after the transform that created it had returned."""


class BatchedControlFlowError(FTransformsError, TypeError, RuntimeError):
    """``bool()`` / ``if`` / ``float()`` on a value that differs across the vmap batch."""


class ControlFlowError(FTransformsError, TypeError):
    """Misuse of ``cond``/``switch``/``while_loop``/``fori_loop``/``scan`` (``TypeError``,
    as ``jax.lax`` raises for the same mistakes)."""


class BranchOutputError(ControlFlowError):
    """The branches of ``cond``/``switch`` return different structures, shapes or dtypes."""


class CarryError(ControlFlowError):
    """A loop's body changed the carry's structure, shapes or dtypes."""


class PredicateError(ControlFlowError):
    """A predicate or branch index that is not a boolean or integer scalar."""


class ScanLengthError(ControlFlowError, ValueError):
    """``scan``'s ``xs`` disagree on their leading length, or with ``length=``."""


class TracerConversionError(FTransformsError, TypeError):
    """A tracer was converted to a concrete array or Python number, losing the transform."""


class InPlaceError(FTransformsError, TypeError, RuntimeError):
    """In-place item assignment on a tracer (tracers are immutable)."""


class ObjectArrayWarning(RuntimeWarning):
    """A large tracer was turned into a NumPy object array (``np.array([...])`` of tracers):
    NumPy then computes element by element in Python, which is slow."""


class UnsupportedOperationError(FTransformsError, NotImplementedError, TypeError):
    """A NumPy function, ufunc method or argument that has no ftransforms rule."""


class MixedBackendError(FTransformsError, TypeError):
    """NumPy and CuPy arrays (or arrays of two devices) mixed in one operation."""


class RandomnessError(FTransformsError, RuntimeError):
    """Random numbers drawn under ``vmap(randomness='error')`` or a bad ``randomness``."""


# -- ftransforms.distributed (dask) -------------------------------------------------------


class ChunksError(FTransformsError, ValueError):
    """A dask array whose chunks cannot be mapped over (several chunks on an unmapped axis,
    unknown chunk sizes)."""


class DaskArrayError(FTransformsError, TypeError, ValueError):
    """A lazy dask array where an in-memory array is needed (the single-machine
    transforms, or an argument of ``ftransforms.distributed`` that must be in memory)."""


class DistributedNestingError(FTransformsError, RuntimeError):
    """An ``ftransforms.distributed`` function called inside a transform (they are
    outermost)."""


class FunctionPicklingError(FTransformsError, TypeError, pickle.PicklingError):
    """A function given to ``ftransforms.distributed`` cannot be pickled for the workers."""


class ReduceError(FTransformsError, ValueError):
    """A ``reduce`` or ``split_every`` that ``fd.map_reduce`` does not support."""


class MissingDependencyError(FTransformsError, ImportError):
    """An optional dependency (dask for ``ftransforms.distributed``) is not installed."""
