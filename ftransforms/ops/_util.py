"""Helpers for writing rules (all built from primitives, so they are transformable)."""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp


def shape_of(x: Any) -> tuple[int, ...]:
    """Shape of an array, tracer or Python scalar."""
    return getattr(x, "shape", ())


def dtype_of(x: Any) -> Any:
    """dtype of an array or tracer; Python scalars give numpy's default for their type."""
    dt = getattr(x, "dtype", None)
    return dt if dt is not None else numpy.result_type(x)


def unbroadcast(g: Any, x: Any) -> Any:
    """Sum the cotangent ``g`` down to the shape (and dtype) of the input ``x``."""
    x_shape = shape_of(x)
    g_shape = g.shape
    if g_shape != x_shape:
        lead = len(g_shape) - len(x_shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(x_shape) if n == 1 and g_shape[lead + i] != 1
        )
        g = fnp.sum(g, axis=axes)
        if g.shape != x_shape:
            g = fnp.reshape(g, x_shape)
    x_dtype = dtype_of(x)
    if g.dtype != x_dtype:
        if g.dtype.kind == "c" and x_dtype.kind != "c":
            g = fnp.real(g)  # NOTE [complex derivatives] in ops/elementwise.py
        g = fnp.astype(g, x_dtype)
    return g


def like_output(t: Any, y: Any) -> Any:
    """Broadcast and cast the tangent ``t`` to the output ``y``'s shape and dtype."""
    if t.shape != y.shape:
        t = fnp.broadcast_to(t, y.shape)
    if t.dtype != y.dtype:
        t = fnp.astype(t, y.dtype)
    return t
