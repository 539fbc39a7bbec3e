"""The op database's entry type, namespaces, sample helpers and registry (:data:`OPS`).

The format is described at the top of ``tests/op_db.py``, which imports every family
module (``tests/op_db_*.py``); each of those builds :class:`OpEntry` objects with
:func:`add`, which appends them to the one list :data:`OPS`.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
import scipy.special as ssp

import ftransforms.numpy as fnp
import ftransforms.scipy.special as fsp
from ftransforms.core.primitive import REGISTRY

jax.config.update("jax_enable_x64", True)  # also done by conftest.py; the oracle needs it

FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


# -- the three namespaces ------------------------------------------------------------------


class Namespace:
    """A module with a few names replaced (indexing and index updates have no common
    spelling across fnp, numpy and jax.numpy)."""

    def __init__(self, label: str, module: Any, **overrides: Any) -> None:
        self._label = label
        self._module = module
        self.__dict__.update(overrides)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)

    def __repr__(self) -> str:
        return self._label


def _np_index_add(x, index, v):
    out = np.array(x, copy=True)
    np.add.at(out, index, v)
    return out


def _np_index_set(x, index, v):
    out = np.array(x, copy=True)
    out[index] = v
    return out


FNP = Namespace(
    "fnp",
    fnp,
    getitem=fnp.getitem,
    index_add=lambda x, index, v: fnp.IndexUpdateHelper(x)[index].add(v),
    index_set=lambda x, index, v: fnp.IndexUpdateHelper(x)[index].set(v),
    stop_gradient=fnp.stop_gradient,
    special=fsp,
)
NP = Namespace(
    "np",
    np,
    getitem=operator.getitem,
    index_add=_np_index_add,
    index_set=_np_index_set,
    stop_gradient=lambda x: x,
    special=ssp,
)
JNP = Namespace(
    "jnp",
    jnp,
    getitem=operator.getitem,
    index_add=lambda x, index, v: x.at[index].add(v),
    index_set=lambda x, index, v: x.at[index].set(v),
    stop_gradient=jax.lax.stop_gradient,
    special=jsp,
)


# -- samples ----------------------------------------------------------------------------


@dataclass
class Sample:
    """One call: ``fn(m, *args, **kwargs)``.

    ``grads``: whether derivative tests apply (a floating-point operand and output);
    ``fd_eps``: a finite-difference step other than the default (only for linear maps);
    ``jax``: compare compositions of transforms with JAX on this sample too (always on an
    entry's first sample; JAX's compile time makes every sample too slow);
    ``xfail``: test name -> reason, for a strict expected failure of this sample only.
    """

    name: str
    args: tuple
    kwargs: dict = field(default_factory=dict)
    grads: bool = True
    fd_eps: float | None = None
    jax: bool = False
    xfail: dict[str, str] = field(default_factory=dict)


def S(
    name: str,
    *args: Any,
    _grads: bool = True,
    _fd_eps: float | None = None,
    _jax: bool = False,
    _xfail: dict | None = None,
    **kwargs: Any,
) -> Sample:  # noqa: N802
    """Shorthand for :class:`Sample` (options start with an underscore)."""
    return Sample(name, args, kwargs, grads=_grads, fd_eps=_fd_eps, jax=_jax, xfail=_xfail or {})


class Draw:
    """Random operands of one float ``dtype`` from a seeded generator."""

    def __init__(self, rng: np.random.Generator, dtype: Any) -> None:
        self.rng = rng
        self.dtype = np.dtype(dtype)

    def _f(self, a: Any) -> np.ndarray:
        return np.asarray(a, dtype=self.dtype)

    def u(self, shape: tuple, lo: float = -2.0, hi: float = 2.0) -> np.ndarray:
        """Uniform in ``[lo, hi)``."""
        return self._f(self.rng.uniform(lo, hi, shape))

    def away(self, shape: tuple, lo: float = 0.5, hi: float = 2.0) -> np.ndarray:
        """Magnitude in ``[lo, hi)``, random sign (away from 0)."""
        sign = np.where(self.rng.random(shape) < 0.5, -1.0, 1.0)
        return self._f(sign * self.rng.uniform(lo, hi, shape))

    def distinct(self, shape: tuple, step: float = 0.3) -> np.ndarray:
        """Values at least ``0.8 * step`` apart (no ties for max/min/argmax/sort)."""
        n = int(np.prod(shape))
        base = (self.rng.permutation(n) - n / 2) * step
        return self._f((base + self.rng.uniform(0, 0.2 * step, n)).reshape(shape))

    def nonint(self, shape: tuple, scale: float = 1.0) -> np.ndarray:
        """``scale * (k + f)`` with ``f`` at least 0.1 away from 0, 0.5 and 1 (floor, round)."""
        k = self.rng.integers(-3, 3, shape)
        f = self.rng.uniform(0.1, 0.4, shape) + np.where(self.rng.random(shape) < 0.5, 0.5, 0)
        return self._f(scale * (k + f))

    def ints(self, hi: int, shape: tuple, lo: int = 0) -> np.ndarray:
        return np.asarray(self.rng.integers(lo, hi, shape), dtype=np.intp)

    def bools(self, shape: tuple) -> np.ndarray:
        return np.asarray(self.rng.random(shape) < 0.5)

    def complex(self, shape: tuple) -> np.ndarray:
        """Complex numbers of the dtype's precision (complex64 for float32)."""
        return np.asarray(self.u(shape) + 1j * self.u(shape))

    def other_float(self) -> np.dtype:
        return np.dtype(np.float64 if self.dtype == np.float32 else np.float32)


# -- entries -------------------------------------------------------------------------------


@dataclass(frozen=True)
class OpEntry:
    """One entry of the op database (the format is described in ``tests/op_db.py``)."""

    name: str
    fn: Callable[..., Any]
    sampler: Callable[[Draw], list[Sample]]
    prims: tuple[str, ...] = ()
    funcs: tuple[str, ...] = ()
    dtypes: tuple = FLOATS
    nondiff: bool = False
    fd: bool = True
    diff_operands: tuple[int, ...] | None = None
    ref: str = "numpy"
    via_numpy: bool = True
    numpy_lone_tracer: tuple | None = None
    jax_compositions: bool = True
    randomness: str = "error"
    value_dependent: str = ""
    tol: dict = field(default_factory=dict)
    xfail: dict = field(default_factory=dict)

    @property
    def grads(self) -> bool:
        """Derivative tests apply (the entry is not ``nondiff``)."""
        return not self.nondiff

    def differentiates(self, j: int) -> bool:
        """Whether the derivative tests vary operand ``j`` (its position among the
        sample's array arguments; integer operands are never varied)."""
        return self.diff_operands is None or j in self.diff_operands

    def xfail_reason(self, test: str, sample: Sample | None = None) -> str | None:
        """The strict-xfail reason of sweep ``test`` (a test function's name) on
        ``sample``: the sample's, else the entry's; the key ``"all"`` marks every sweep."""
        for table in ((sample.xfail,) if sample is not None else ()) + (self.xfail,):
            reason = table.get(test) or table.get("all")
            if reason:
                return reason
        return None

    def samples(self, dtype: Any, seed: int) -> list[Sample]:
        return self.sampler(Draw(np.random.default_rng(seed), dtype))

    def call(self, m: Namespace, args: tuple, kwargs: dict) -> Any:
        return self.fn(m, *args, **kwargs)


#: The registry: every family module appends to this one list through :func:`add`.
OPS: list[OpEntry] = []


def public_function(path: str) -> Any:
    """The public function ``path`` names (``"sum"``, ``"linalg.norm"``, ``"fft.rfft"``,
    ``"special.erf"``), or ``None``."""
    obj: Any = FNP
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj if callable(obj) else None


def _as_tuple(v: Any) -> tuple:
    return () if v is None else (v,) if isinstance(v, str) else tuple(v)


def add(
    name: str,
    fn: Callable,
    sampler: Callable,
    prims: tuple | str | None = None,
    funcs: tuple | str | None = None,
    **opts: Any,
) -> OpEntry:
    """Append an :class:`OpEntry` to :data:`OPS` and return it.

    ``prims`` defaults to ``(name,)`` when ``name`` is a primitive, ``funcs`` to
    ``(name,)`` when it is a public function (see :func:`public_function`).
    """
    if prims is None:
        prims = (name,) if name in REGISTRY else ()
    if funcs is None:
        funcs = (name,) if public_function(name) is not None else ()
    op = OpEntry(name, fn, sampler, _as_tuple(prims), _as_tuple(funcs), **opts)
    OPS.append(op)
    return op


def call(name: str) -> Callable:
    """``fn(m, *args, **kwargs) = m.<name>(*args, **kwargs)``."""

    def fn(m, *args, **kwargs):
        return getattr(m, name)(*args, **kwargs)

    fn.__name__ = name
    return fn


def method(name: str, fnp_fn: Callable) -> Callable:
    """``fn(m, x, ...) = x.<name>(...)``: the array method (a tracer's under transforms).

    A plain ``numpy.ndarray`` has NumPy's method, so with :data:`FNP` and a plain array
    the call goes to ``fnp_fn`` instead (the forward test then still runs fnp's code).
    """

    def fn(m, x, *args, **kwargs):
        if m is FNP and isinstance(x, np.ndarray):
            return fnp_fn(x, *args, **kwargs)
        return getattr(x, name)(*args, **kwargs)

    fn.__name__ = f"method_{name}"
    return fn


def shape_name(*shapes: tuple) -> str:
    return "_".join("x".join(map(str, s)) if s else "scalar" for s in shapes)


# -- elementwise: unary ---------------------------------------------------------------

# -- sampler helpers shared by the families ------------------------------------------------

UNARY_SHAPES = [(), (4,), (2, 1, 3), (0, 2)]


def unary(draw_name: str, **draw_kw: Any) -> Callable:
    def sampler(d: Draw) -> list[Sample]:
        return [S(shape_name(s), getattr(d, draw_name)(s, **draw_kw)) for s in UNARY_SHAPES]

    return sampler


BINARY_SHAPES = [((), ()), ((3,), ()), ((), (2, 3)), ((2, 1), (1, 3)), ((0, 3), (3,))]


def binary(
    x_draw: str = "u",
    y_draw: str = "u",
    x_kw: dict | None = None,
    y_kw: dict | None = None,
    scalars: tuple = (),
) -> Callable:
    """Samples over ``BINARY_SHAPES`` plus ``scalars``: (name, x, y) with ``None`` for a
    drawn operand and a Python number for a static one."""

    def sampler(d: Draw) -> list[Sample]:
        out = [
            S(
                shape_name(sx, sy),
                getattr(d, x_draw)(sx, **(x_kw or {})),
                getattr(d, y_draw)(sy, **(y_kw or {})),
            )
            for sx, sy in BINARY_SHAPES
        ]
        for name, x, y in scalars:
            x = getattr(d, x_draw)((3,), **(x_kw or {})) if x is None else x
            y = getattr(d, y_draw)((3,), **(y_kw or {})) if y is None else y
            out.append(S(name, x, y))
        return out

    return sampler


def no_ties(sampler: Callable, gap: float = 0.05) -> Callable:
    """Re-draw until every pair of broadcast operands differs by at least ``gap``."""

    def wrapped(d: Draw) -> list[Sample]:
        for _ in range(1000):
            samples = sampler(d)
            if all(min_gap(s.args) >= gap for s in samples):
                return samples
        raise RuntimeError("could not draw operands without ties")

    return wrapped


def min_gap(args: tuple) -> float:
    arrays = [np.asarray(a, np.float64) for a in args if a is not None]
    if len(arrays) < 2:
        return np.inf
    best = np.inf
    for i in range(len(arrays)):
        for j in range(i + 1, len(arrays)):
            diff = np.abs(arrays[i] - arrays[j])
            if diff.size:
                best = min(best, float(diff.min()))
    return best


def special(name: str) -> Callable:
    """``fn(m, ...) = m.special.<name>(...)`` (``scipy.special`` / ``jax.scipy.special``)."""

    def fn(m, *args, **kwargs):
        return getattr(m.special, name)(*args, **kwargs)

    fn.__name__ = f"special_{name}"
    return fn
