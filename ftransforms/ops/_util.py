"""Helpers for writing rules (built from ``ftransforms.lax``, so they are transformable)."""

from __future__ import annotations

from typing import Any

from ftransforms import lax


def unbroadcast(x_bar: Any, x: Any) -> Any:
    """Sum the cotangent ``x_bar`` down to the shape (and dtype) of the input ``x``."""
    # Attribute reads first (arrays and tracers): most cotangents already match.
    x_shape = getattr(x, "shape", None)
    if type(x_shape) is not tuple:
        x_shape = lax.shape(x)
    x_dtype = getattr(x, "dtype", None)
    if x_dtype is None:
        x_dtype = lax.dtype_of(x)
    bar_shape = x_bar.shape
    if bar_shape == x_shape and x_bar.dtype == x_dtype:
        return x_bar
    if bar_shape != x_shape:
        lead = len(bar_shape) - len(x_shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(x_shape) if n == 1 and bar_shape[lead + i] != 1
        )
        x_bar = lax.sum(x_bar, axis=axes)
        if x_bar.shape != x_shape:
            x_bar = lax.reshape(x_bar, x_shape)
    if x_bar.dtype != x_dtype:
        if x_bar.dtype.kind == "c" and x_dtype.kind != "c":
            x_bar = lax.real(x_bar)  # NOTE [complex derivatives] in ops/elementwise.py
        x_bar = lax.convert(x_bar, x_dtype)
    return x_bar


def like_output(y_dot: Any, y: Any) -> Any:
    """Broadcast and cast the tangent ``y_dot`` to the output ``y``'s shape and dtype."""
    if type(y_dot) is complex:  # 1j * t of a 0-d tangent (a NumPy float64 scalar, a float
        y_dot = lax.convert(y_dot, y.dtype)  # to Python's complex.__mul__): a Python complex
    if y_dot.shape != y.shape:
        y_dot = lax.broadcast_to(y_dot, y.shape)
    if y_dot.dtype != y.dtype:
        y_dot = lax.convert(y_dot, y.dtype)
    return y_dot
