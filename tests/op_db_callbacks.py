"""Op-database entries of the callback primitives (``ftransforms/callbacks.py``):
``pure_callback`` (SciPy's ``sin`` on the host, its derivative given by ``custom_jvp``
through a second callback, as users wrap SciPy) and ``debug_callback``."""

from __future__ import annotations

import jax
import numpy as np

import ftransforms as ft
from tests.op_db_base import FNP, NP, Draw, S, Sample, add


def _callback_sin(api):
    """``sin`` and ``cos`` as host callbacks, each the other's derivative (any order)."""

    def call(fn, x):
        out = api.ShapeDtypeStruct(tuple(x.shape), x.dtype)
        return api.pure_callback(
            lambda v: np.asarray(fn(v), dtype=v.dtype), out, x, vmap_method="expand_dims"
        )

    @api.custom_jvp
    def sin(x):
        return call(np.sin, x)

    @api.custom_jvp
    def cos(x):
        return call(np.cos, x)

    @sin.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return sin(x), cos(x) * t

    @cos.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return cos(x), -sin(x) * t

    return sin


_SIN = {FNP: _callback_sin(ft), "jax": _callback_sin(jax)}


def _pure_callback_sin(m, x):
    if m is NP:
        return np.sin(x)
    return _SIN[FNP if m is FNP else "jax"](x)


def _noop(*args):
    return None


def _debug_callback_double(m, x):
    if m is FNP:
        ft.debug.callback(_noop, x)
    elif m is not NP:
        jax.debug.callback(_noop, x)
    return x * 2.0


def _samples(d: Draw) -> list[Sample]:
    return [S("scalar", d.u(())), S("3", d.u((3,))), S("2x3", d.u((2, 3)))]


add("pure_callback", _pure_callback_sin, _samples, via_numpy=False)
add(
    "debug_callback",
    _debug_callback_double,
    _samples,
    prims=("debug_callback", "multiply"),
    via_numpy=False,
)


def _chkfinite_double(m, x):
    if m is FNP or m is NP:
        return m.asarray_chkfinite(x) * 2.0
    return x * 2.0  # jax.numpy has no asarray_chkfinite (and no data checks)


add(
    "asarray_chkfinite",
    _chkfinite_double,
    _samples,
    prims=("check_finite", "multiply"),
    funcs=("asarray_chkfinite",),
)


def _io_callback_sin(m, x):
    """``sin`` through ``io_callback`` (run for its effect and its result; no derivative)."""
    if m is NP:
        return np.sin(x)
    if m is FNP:
        from ftransforms.experimental import io_callback

        out = ft.ShapeDtypeStruct(tuple(x.shape), x.dtype)
    else:
        from jax.experimental import io_callback

        out = jax.ShapeDtypeStruct(tuple(x.shape), x.dtype)
    return io_callback(lambda v: np.asarray(np.sin(v), dtype=v.dtype), out, x)


def _io_samples(d: Draw) -> list[Sample]:
    """No derivative tests: ``grad``/``jvp`` through an io_callback raise CallbackError,
    as JAX's (tests/test_jax_users_round14.py checks that)."""
    return [S(s.name, *s.args, _grads=False) for s in _samples(d)]


add(
    "io_callback",
    _io_callback_sin,
    _io_samples,
    via_numpy=False,
    value_dependent="an io_callback runs at every call: jit runs the function eagerly",
)
