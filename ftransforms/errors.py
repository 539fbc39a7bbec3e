"""The exception types, importable as ``ftransforms.errors`` (defined in ``core/errors.py``)."""

from ftransforms.core.errors import (
    ArgnumsError,
    AuxError,
    BatchedControlFlowError,
    ChunkSizeError,
    EscapedTracerError,
    FTransformsError,
    GradOutputError,
    InDimsError,
    InPlaceError,
    MixedBackendError,
    NonDifferentiableInputError,
    OutDimsError,
    RandomnessError,
    TangentMismatchError,
    TracerConversionError,
    UnsupportedOperationError,
)

__all__ = [
    "ArgnumsError",
    "AuxError",
    "BatchedControlFlowError",
    "ChunkSizeError",
    "EscapedTracerError",
    "FTransformsError",
    "GradOutputError",
    "InDimsError",
    "InPlaceError",
    "MixedBackendError",
    "NonDifferentiableInputError",
    "OutDimsError",
    "RandomnessError",
    "TangentMismatchError",
    "TracerConversionError",
    "UnsupportedOperationError",
]
