"""Numerical checks for functions under ftransforms' transforms (public, like
``jax.test_util``).

* :func:`check_grads` — ``jvp`` against central finite differences in float64 and ``vjp``
  against ``jvp`` by the inner-product identity ``<J t, c> = <t, J^T c>``, up to ``order``
  (order 2 checks the derivatives of the derivative functions as well).
* :func:`check_vmap` — ``vmap(f)`` against a Python loop over the batch, stacked, with
  the loop fallback for primitives without a batching rule switched off.

Both raise :class:`AssertionError` with a message that says which check failed, where,
and by how much.  Random directions come from a seeded ``numpy.random.Generator``, so a
failure reproduces.

Example:
    >>> import numpy as np
    >>> from ftransforms.testing import check_grads, check_vmap
    >>> check_grads(lambda x: np.sin(x) * x, (np.linspace(0.1, 1.0, 4),), order=2)
    >>> _ = check_vmap(lambda x, w: x @ w, (np.ones((5, 3)), np.ones(3)), in_dims=(0, None))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ftransforms.api import jvp, vjp, vmap
from ftransforms.core.tracer import Tracer
from ftransforms.interpreters.batching import FALLBACK
from ftransforms.pytree import broadcast_prefix, tree_flatten, tree_unflatten

__all__ = ["check_grads", "check_jvp", "check_vjp", "check_vmap"]

#: Tolerance of a value computed in a dtype, against a reference (a loop, or the same
#: quantity computed another way): a few ulps after a handful of operations.
VALUE_TOL = {
    np.dtype(np.float16): {"rtol": 1e-3, "atol": 1e-3},
    np.dtype(np.float32): {"rtol": 1e-5, "atol": 1e-6},
    np.dtype(np.float64): {"rtol": 1e-10, "atol": 1e-12},
}
#: The accuracy of the float64 fourth-order central differences used as the oracle
#: (step ``EPS``) on smooth O(1) functions; the floor of the tolerance against them.
FD_TOL = {"rtol": 1e-7, "atol": 1e-8}
#: Default finite-difference step (fourth-order stencil, so the truncation error is
#: ``O(EPS**4)`` and the rounding error ``O(1e-16 / EPS)``).
EPS = 1e-3


# -- helpers ---------------------------------------------------------------------------


def _is_float(x: Any) -> bool:
    if isinstance(x, float):
        return True
    dt = getattr(x, "dtype", None)
    return dt is not None and np.dtype(dt).kind == "f"


def _value_tol(dtypes: Sequence[Any]) -> dict[str, float]:
    """The loosest value tolerance among ``dtypes`` (float dtypes only)."""
    tols = [VALUE_TOL.get(np.dtype(d), VALUE_TOL[np.dtype(np.float64)]) for d in dtypes]
    tols = tols or [VALUE_TOL[np.dtype(np.float64)]]
    return {k: max(t[k] for t in tols) for k in ("rtol", "atol")}


def _fd_tol(dtypes: Sequence[Any]) -> dict[str, float]:
    t = _value_tol(dtypes)
    return {k: max(t[k], FD_TOL[k]) for k in t}


def _pick(given: float | None, default: float) -> float:
    return default if given is None else given


def _describe(x: Any) -> str:
    return f"{type(x).__name__} shape={np.shape(x)} dtype={getattr(x, 'dtype', '?')}"


def _assert_close(
    actual: Any, expected: Any, *, rtol: float, atol: float, what: str, check_dtype: bool = True
) -> None:
    """``actual`` is a plain array equal to ``expected`` in shape, dtype and (closely) value."""
    if isinstance(actual, Tracer):
        raise AssertionError(f"{what}: a tracer escaped into the result: {actual!r}")
    if not isinstance(actual, (np.ndarray, np.generic)):
        raise AssertionError(f"{what}: expected a numpy array, got {_describe(actual)}")
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    if actual.shape != expected.shape:
        raise AssertionError(f"{what}: shape {actual.shape}, expected {expected.shape}")
    if check_dtype and actual.dtype != expected.dtype:
        raise AssertionError(f"{what}: dtype {actual.dtype}, expected {expected.dtype}")
    if actual.size == 0:
        return
    if actual.dtype.kind not in "fc" and expected.dtype.kind not in "fc":
        bad = actual != expected
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise AssertionError(
                f"{what}: {int(bad.sum())} of {actual.size} elements differ, first at index "
                f"{idx}: got {actual[idx]!r}, expected {expected[idx]!r}"
            )
        return
    wide = np.complex128 if "c" in (actual.dtype.kind, expected.dtype.kind) else np.float64
    a = actual.astype(wide)
    e = expected.astype(wide)
    same_nan = np.isnan(a) & np.isnan(e)
    same_inf = np.isinf(a) & (a == e)
    with np.errstate(invalid="ignore"):
        err = np.abs(a - e)
        ok = (err <= atol + rtol * np.abs(e)) | same_nan | same_inf
    if not ok.all():
        err = np.where(ok, 0.0, np.where(np.isnan(err), np.inf, err))
        idx = np.unravel_index(int(np.argmax(err)), err.shape)
        idx = tuple(int(i) for i in idx)
        raise AssertionError(
            f"{what}: {int((~ok).sum())} of {a.size} elements out of tolerance (rtol={rtol:g}, "
            f"atol={atol:g}); worst at index {idx}: got {a[idx]!r}, expected {e[idx]!r} (abs "
            f"error {err[idx]:.3g})"
        )


def _random_like(rng: np.random.Generator, x: Any) -> np.ndarray:
    dt = np.dtype(getattr(x, "dtype", np.float64))
    return np.asarray(rng.standard_normal(np.shape(x)), dtype=dt)


def _flat_function(f: Callable, args: Sequence[Any]):
    """``(g, xs)``: ``g(*xs)`` is ``f(*args)`` as a function of the float leaves of ``args``
    only, returning the tuple of its float output leaves (the others are held fixed or
    dropped: they carry no derivative)."""
    leaves, spec = tree_flatten(tuple(args))
    positions = [i for i, leaf in enumerate(leaves) if _is_float(leaf)]
    if not positions:
        raise ValueError("check_grads: no floating-point argument to differentiate")
    xs = [np.asarray(leaves[i]) for i in positions]

    def g(*values: Any) -> tuple:
        new = list(leaves)
        for i, v in zip(positions, values):
            new[i] = v
        out = f(*tree_unflatten(spec, new))
        return tuple(o for o in tree_flatten(out)[0] if _is_float(o))

    return g, xs


def _outputs(g: Callable, xs: Sequence[Any], where: str) -> list[np.ndarray]:
    outs = [np.asarray(o) for o in g(*xs)]
    if not outs:
        raise ValueError(f"{where}: the function has no floating-point output to check")
    return outs


def _fd_jvp(g: Callable, xs: Sequence[Any], ts: Sequence[Any], eps: float) -> list[np.ndarray]:
    """Fourth-order central differences of ``g`` along ``ts``, evaluated in float64."""
    xs64 = [np.asarray(x, dtype=np.float64) for x in xs]
    ts64 = [np.asarray(t, dtype=np.float64) for t in ts]

    def at(k: float) -> list[np.ndarray]:
        return [
            np.asarray(o, dtype=np.float64)
            for o in g(*[x + k * eps * t for x, t in zip(xs64, ts64)])
        ]

    p1, m1, p2, m2 = at(1.0), at(-1.0), at(2.0), at(-2.0)
    return [(8.0 * (a - b) - (c - d)) / (12.0 * eps) for a, b, c, d in zip(p1, m1, p2, m2)]


# -- gradients -------------------------------------------------------------------------


def check_jvp(
    f: Callable,
    args: Sequence[Any],
    *,
    eps: float | None = None,
    rtol: float | None = None,
    atol: float | None = None,
    seed: int = 0,
    err_msg: str = "JVP",
) -> None:
    """Check ``jvp(f)`` against float64 central finite differences along a random direction.

    Only the floating-point leaves of ``args`` are perturbed; only floating-point outputs
    are compared.  The tangent must keep the output's dtype.

    Example:
        >>> import numpy as np
        >>> check_jvp(np.tanh, (np.array([0.5, -1.0]),))
    """
    g, xs = _flat_function(f, args)
    rng = np.random.default_rng(seed)
    ts = [_random_like(rng, x) for x in xs]
    out, t_out = jvp(g, tuple(xs), tuple(ts))
    ref_out = _outputs(g, xs, err_msg)
    fd = _fd_jvp(g, xs, ts, EPS if eps is None else eps)
    dtypes = [x.dtype for x in xs] + [o.dtype for o in ref_out]
    tol = _fd_tol(dtypes)
    for k, (o, t, r, d) in enumerate(zip(out, t_out, ref_out, fd)):
        _assert_close(o, r, rtol=0.0, atol=0.0, what=f"{err_msg}: primal output {k}")
        if np.shape(t) != r.shape or np.asarray(t).dtype != r.dtype:
            raise AssertionError(
                f"{err_msg}: the tangent of output {k} is {_describe(t)}, but the output has "
                f"shape {r.shape} and dtype {r.dtype}"
            )
        _assert_close(
            t,
            d.astype(r.dtype) if r.dtype != np.float64 else d,
            rtol=_pick(rtol, tol["rtol"]),
            atol=_pick(atol, tol["atol"]),
            what=f"{err_msg}: tangent of output {k} vs finite differences",
            check_dtype=False,
        )


def check_vjp(
    f: Callable,
    args: Sequence[Any],
    *,
    reference: str = "jvp",
    eps: float | None = None,
    rtol: float | None = None,
    atol: float | None = None,
    seed: int = 0,
    err_msg: str = "VJP",
) -> None:
    """Check ``vjp(f)`` against ``jvp(f)`` (or finite differences, ``reference="fd"``) by
    the inner-product identity ``<J t, c> = <t, J^T c>`` for random ``t`` and ``c``.

    Cotangents must keep the inputs' shapes and dtypes.

    Example:
        >>> import numpy as np
        >>> check_vjp(lambda a, b: a @ b, (np.ones((2, 3)), np.ones(3)))
    """
    g, xs = _flat_function(f, args)
    rng = np.random.default_rng(seed)
    ts = [_random_like(rng, x) for x in xs]
    out, vjp_fn = vjp(g, *xs)
    ref_out = _outputs(g, xs, err_msg)
    cts = [_random_like(rng, o) for o in ref_out]
    for k, (o, r) in enumerate(zip(out, ref_out)):
        _assert_close(o, r, rtol=0.0, atol=0.0, what=f"{err_msg}: primal output {k}")
    x_bars = vjp_fn(tuple(cts))
    for k, (xb, x) in enumerate(zip(x_bars, xs)):
        if np.shape(xb) != x.shape or np.asarray(xb).dtype != x.dtype:
            raise AssertionError(
                f"{err_msg}: the cotangent of input {k} is {_describe(xb)}, but the input has "
                f"shape {x.shape} and dtype {x.dtype}"
            )
    dtypes = [x.dtype for x in xs] + [o.dtype for o in ref_out]
    if reference == "jvp":
        t_out = jvp(g, tuple(xs), tuple(ts))[1]
        for k, (t, r) in enumerate(zip(t_out, ref_out)):
            if np.shape(t) != r.shape or np.asarray(t).dtype != r.dtype:
                raise AssertionError(
                    f"{err_msg}: the tangent of output {k} is {_describe(t)}, but the output "
                    f"has shape {r.shape} and dtype {r.dtype}"
                )
        tol = _value_tol(dtypes)
    elif reference == "fd":
        t_out = _fd_jvp(g, xs, ts, EPS if eps is None else eps)
        tol = _fd_tol(dtypes)
    else:
        raise ValueError(f"check_vjp: reference must be 'jvp' or 'fd', got {reference!r}")
    terms_fwd = [np.asarray(t, np.float64) * np.asarray(c, np.float64) for t, c in zip(t_out, cts)]
    terms_rev = [np.asarray(t, np.float64) * np.asarray(b, np.float64) for t, b in zip(ts, x_bars)]
    ip_fwd = sum(float(np.sum(t)) for t in terms_fwd)
    ip_rev = sum(float(np.sum(t)) for t in terms_rev)
    scale = max(
        sum(float(np.sum(np.abs(t))) for t in terms_fwd),
        sum(float(np.sum(np.abs(t))) for t in terms_rev),
    )
    r, a = _pick(rtol, tol["rtol"]), _pick(atol, tol["atol"])
    if not abs(ip_fwd - ip_rev) <= a + r * scale:
        raise AssertionError(
            f"{err_msg}: the inner-product identity <J t, c> = <t, J^T c> fails: <J t, c> = "
            f"{ip_fwd!r} (J t from {reference}), <t, J^T c> = {ip_rev!r} (from vjp); "
            f"difference {abs(ip_fwd - ip_rev):.3g} > atol + rtol * {scale:.3g} (rtol={r:g}, "
            f"atol={a:g})"
        )


def check_grads(
    f: Callable,
    args: Sequence[Any] | None = None,
    order: int = 2,
    modes: Sequence[str] = ("fwd", "rev"),
    eps: float | None = None,
    rtol: float | None = None,
    atol: float | None = None,
    *,
    seed: int = 0,
) -> Callable | None:
    """Check the derivatives of ``f`` at ``args`` up to ``order`` (JAX's ``check_grads``).

    ``"fwd"``: ``jvp`` against float64 fourth-order central finite differences (step
    ``eps``); ``"rev"``: ``vjp`` against ``jvp`` (against finite differences when ``"fwd"``
    is not among ``modes``) by the inner-product identity.  With ``order=2`` the same
    checks run on ``(x, t) -> jvp(f, x, t)`` and on ``x -> vjp(f, x)[1](f(x))``.  Only
    floating-point leaves of ``args`` are differentiated.  Tolerances default to the dtype's
    (float32 ``1e-5``, float64 ``1e-7`` against finite differences, ``1e-10`` otherwise).

    Without ``args`` it returns the check as a function of them, HIPS autograd's form:
    ``check_grads(f, modes=["rev"])(x)``.

    Example:
        >>> import numpy as np
        >>> check_grads(lambda x: (x ** 3).sum(), (np.array([1.0, 2.0]),), order=2)
        >>> check_grads(lambda x: (x ** 3).sum(), modes=["rev"])(np.array([1.0, 2.0]))
    """
    if args is None:  # autograd's curried form

        def check_at(*args: Any) -> None:
            check_grads(f, args, order, modes, eps, rtol, atol, seed=seed)

        return check_at
    modes = tuple(modes)
    if not set(modes) <= {"fwd", "rev"} or not modes:
        raise ValueError(f"check_grads: modes must be a subset of ('fwd', 'rev'), got {modes}")
    if order < 1:
        raise ValueError(f"check_grads: order must be >= 1, got {order}")
    g, xs = _flat_function(f, args)
    opts = {"eps": eps, "rtol": rtol, "atol": atol, "seed": seed}

    def run(g: Callable, xs: list, order: int, label: str) -> None:
        if "fwd" in modes:
            msg = f"JVP of {label}" if label else "JVP"
            check_jvp(g, xs, err_msg=f"check_grads: {msg}", **opts)
            if order > 1:
                n = len(xs)

                def g_jvp(*xt: Any) -> tuple:
                    out, t_out = jvp(g, tuple(xt[:n]), tuple(xt[n:]))
                    return tuple(out) + tuple(t_out)

                run(g_jvp, xs + xs, order - 1, msg)
        if "rev" in modes:
            msg = f"VJP of {label}" if label else "VJP"
            reference = "jvp" if "fwd" in modes else "fd"
            check_vjp(g, xs, reference=reference, err_msg=f"check_grads: {msg}", **opts)
            if order > 1:

                def g_vjp(*x: Any) -> tuple:
                    out, vjp_fn = vjp(g, *x)
                    return tuple(vjp_fn(out))

                run(g_vjp, xs, order - 1, msg)

    run(g, xs, order, "")


# -- vmap ------------------------------------------------------------------------------


def _as_prefix(dims: Any) -> Any:
    return tuple(dims) if isinstance(dims, list) else dims


def check_vmap(
    f: Callable,
    args: Sequence[Any],
    in_dims: Any = 0,
    out_dims: Any = 0,
    *,
    randomness: str = "error",
    rtol: float | None = None,
    atol: float | None = None,
) -> Any:
    """Check ``vmap(f, in_dims, out_dims)(*args)`` against looping ``f`` over the batch and
    stacking the results, with the loop fallback switched off (every primitive ``f`` uses
    must have a batching rule).  Returns the ``vmap`` result.

    The results must match the loop's structure, shapes and dtypes; float values within
    the dtype's tolerance, all others exactly.  ``randomness`` is passed to ``vmap`` (a
    function that draws from a generator it seeds itself matches the loop with
    ``"same"``).

    Example:
        >>> import numpy as np
        >>> _ = check_vmap(np.sum, (np.ones((4, 3)),), in_dims=1)
    """
    args = tuple(args)
    leaves, spec = tree_flatten(args, none_is_leaf=True)
    dims = broadcast_prefix(_as_prefix(in_dims), args)
    sizes = set()
    norm_dims = []
    for leaf, d in zip(leaves, dims):
        if d is None or leaf is None:
            norm_dims.append(None)
            continue
        d = int(d) % np.ndim(leaf)
        norm_dims.append(d)
        sizes.add(np.shape(leaf)[d])
    if len(sizes) != 1:
        raise ValueError(f"check_vmap: the batched arguments need one batch size, got {sizes}")
    size = sizes.pop()

    saved = FALLBACK["enabled"]
    FALLBACK["enabled"] = False
    try:
        got = vmap(f, in_dims=in_dims, out_dims=out_dims, randomness=randomness)(*args)
    finally:
        FALLBACK["enabled"] = saved

    rows = []
    for b in range(size):
        sliced = [
            leaf if d is None else np.take(np.asarray(leaf), b, axis=d)
            for leaf, d in zip(leaves, norm_dims)
        ]
        rows.append(f(*tree_unflatten(spec, sliced)))
    row_leaves = [tree_flatten(r)[0] for r in rows]
    out_spec = tree_flatten(rows[0])[1]
    od = _as_prefix(out_dims)
    if isinstance(od, tuple) and not isinstance(rows[0], tuple) and len(od) == 1:
        od = od[0]
    out_dims_flat = [
        d
        for d, leaf in zip(
            broadcast_prefix(od, rows[0]), tree_flatten(rows[0], none_is_leaf=True)[0]
        )
        if leaf is not None
    ]
    expected = []
    for k, d in enumerate(out_dims_flat):
        column = [np.asarray(r[k]) for r in row_leaves]
        if d is None:
            expected.append(column[0])
        else:
            expected.append(np.stack(column, axis=int(d) % (column[0].ndim + 1)))

    got_leaves, got_spec = tree_flatten(got)
    if got_spec != out_spec:
        raise AssertionError(
            f"check_vmap: vmap's output structure {got_spec} differs from the loop's {out_spec}"
        )
    for k, (a, e) in enumerate(zip(got_leaves, expected)):
        tol = _value_tol([e.dtype] if e.dtype.kind == "f" else [])
        _assert_close(
            a,
            e,
            rtol=_pick(rtol, tol["rtol"]),
            atol=_pick(atol, tol["atol"]),
            what=f"check_vmap(in_dims={in_dims!r}, out_dims={out_dims!r}): output {k} vs the "
            f"loop-and-stack",
        )
    return got
