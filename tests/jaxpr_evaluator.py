"""A NumPy evaluator of JAX jaxprs: the JAX oracle of the tests, without XLA compiles.

NOTE [the JAX oracle without XLA compiles]: JAX compiles every new primitive/shape pair
with XLA, about 0.3-3 s of CPU each, which would make the JAX comparisons of the suite
(the composition fuzz, ``tests/test_ops.py``'s ``vs_jax`` tests, the recording fuzz of
``tests/test_jit_recording.py``) take many minutes.  So JAX builds the transformed
computation (``jax.make_jaxpr`` of the JAX program: all of the differentiation and
batching is JAX's) and :class:`JaxprEvaluator` runs the resulting jaxpr with NumPy and
SciPy.  Every result is checked against the shape and dtype JAX assigned to it, so a wrong
rule fails loudly.  A primitive without a rule here raises :class:`UnknownPrimitive` and
its caller runs the program on XLA instead (``jax.jit``).

The rules follow XLA's CPU semantics where NumPy's differ (integer division truncates,
a shift past the width shifts everything out, ``cond`` runs the last branch for an index
out of range, ``while`` with a batched predicate keeps finished rows, a failed
factorisation gives NaN).  The factorisations call the LAPACK routine XLA's CPU lowering
calls (``scipy.linalg.lapack``: jaxlib binds SciPy's LAPACK), so the sign and phase
conventions of ``svd``/``eigh``/``eig``/``qr`` are XLA's.  Special functions come from
``scipy.special``, and ``igamma_grad_a``, which SciPy lacks, from mpmath.
``test_oracle_evaluator_matches_xla`` (``tests/test_fuzz_compositions.py``) checks the
evaluator against XLA on random programs, and ``test_evaluator_rules_match_xla`` on every
rule here that a random program does not reach.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg
import scipy.special

try:  # for igamma_grad_a only; without it that primitive runs on XLA
    import mpmath
except ImportError:  # pragma: no cover
    mpmath = None


def _gather(operand, indices, *, dimension_numbers, slice_sizes, mode, fill_value, **_):
    dn = dimension_numbers
    batch_shape = indices.shape[:-1]
    drop = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    keep = [d for d in range(operand.ndim) if d not in drop]
    offset_shape = tuple(slice_sizes[d] for d in keep)
    fill = "fill" in str(mode).lower()
    if fill_value is None:
        fill_value = np.nan if operand.dtype.kind in "fc" else 0
    out = np.empty(batch_shape + offset_shape, operand.dtype)
    for g in np.ndindex(batch_shape):
        start = [0] * operand.ndim
        for k, d in enumerate(dn.start_index_map):
            start[d] = int(indices[g + (k,)])
        for od, idim in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
            start[od] = g[idim]
        bounds = [operand.shape[d] - slice_sizes[d] for d in range(operand.ndim)]
        if fill and any(not 0 <= s <= b for s, b in zip(start, bounds)):
            out[g] = fill_value
            continue
        start = [min(max(s, 0), b) for s, b in zip(start, bounds)]
        window = operand[tuple(slice(s, s + n) for s, n in zip(start, slice_sizes))]
        out[g] = window.reshape(offset_shape)
    # ``out`` is (batch..., offset...); offset axis j goes to output axis offset_dims[j].
    rank = out.ndim
    nb = len(batch_shape)
    batch_iter = iter(range(nb))
    perm = [
        nb + list(dn.offset_dims).index(p) if p in dn.offset_dims else next(batch_iter)
        for p in range(rank)
    ]
    return np.transpose(out, perm)


def _scatter(operand, indices, updates, *, dimension_numbers, mode, combine, **_):
    dn = dimension_numbers
    out = np.array(operand, copy=True)
    scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
    upd = np.transpose(updates, scatter_dims + list(dn.update_window_dims))
    scatter_shape = upd.shape[: len(scatter_dims)]
    inserted = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window_sizes = iter(upd.shape[len(scatter_dims) :])
    full = tuple(1 if d in inserted else next(window_sizes) for d in range(operand.ndim))
    clip = "clip" in str(mode).lower()
    for g in np.ndindex(scatter_shape):
        start = [0] * operand.ndim
        for k, d in enumerate(dn.scatter_dims_to_operand_dims):
            start[d] = int(indices[g + (k,)])
        for od, idim in zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims):
            start[od] = g[idim]
        bounds = [operand.shape[d] - full[d] for d in range(operand.ndim)]
        if clip:
            start = [min(max(s, 0), b) for s, b in zip(start, bounds)]
        elif any(not 0 <= s <= b for s, b in zip(start, bounds)):
            continue  # out-of-bounds updates are dropped
        where = tuple(slice(s, s + n) for s, n in zip(start, full))
        out[where] = combine(out[where], upd[g].reshape(full))
    return out


def _dot_general(a, b, *, dimension_numbers, preferred_element_type=None, **_):
    (lc, rc), (lb, rb) = dimension_numbers
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    sa = [next(letters) for _ in range(a.ndim)]
    sb = [next(letters) for _ in range(b.ndim)]
    for i, j in zip(lc, rc):
        sb[j] = sa[i]
    for i, j in zip(lb, rb):
        sb[j] = sa[i]
    out = [sa[i] for i in lb]
    out += [sa[i] for i in range(a.ndim) if i not in lc and i not in lb]
    out += [sb[j] for j in range(b.ndim) if j not in rc and j not in rb]
    res = np.einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b)
    return res if preferred_element_type is None else res.astype(preferred_element_type)


def _broadcast_in_dim(x, *, shape, broadcast_dimensions, **_):
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    return np.broadcast_to(np.reshape(x, expanded), shape)


def _pad(x, value, *, padding_config):
    for axis, (lo, hi, interior) in enumerate(padding_config):
        n = x.shape[axis]
        if interior and n:
            shape = list(x.shape)
            shape[axis] = n + (n - 1) * interior
            grown = np.full(shape, value, x.dtype)
            grown[(slice(None),) * axis + (slice(None, None, interior + 1),)] = x
            x = grown
        pieces = []
        if lo > 0:
            pieces.append(np.full(x.shape[:axis] + (lo,) + x.shape[axis + 1 :], value, x.dtype))
        core = x[(slice(None),) * axis + (slice(max(-lo, 0), x.shape[axis] - max(-hi, 0)),)]
        pieces.append(core)
        if hi > 0:
            pieces.append(np.full(x.shape[:axis] + (hi,) + x.shape[axis + 1 :], value, x.dtype))
        x = np.concatenate(pieces, axis=axis)
    return x


def _iota(*, dtype, shape, dimension, **_):
    r = np.arange(shape[dimension], dtype=dtype)
    return np.broadcast_to(
        r.reshape((1,) * dimension + (-1,) + (1,) * (len(shape) - dimension - 1)), shape
    )


def _cumulative(fn):
    def rule(x, *, axis, reverse=False):
        if reverse:
            x = np.flip(x, axis)
        out = fn(x, axis=axis)
        return np.flip(out, axis) if reverse else out

    return rule


def _div(a, b):
    if np.result_type(a, b).kind in "iu":
        return np.trunc(np.true_divide(a, b)).astype(np.result_type(a, b))
    return np.true_divide(a, b)


def _dynamic_slice(x, *starts, slice_sizes):
    starts = [min(max(int(s), 0), n - k) for s, n, k in zip(starts, x.shape, slice_sizes)]
    return x[tuple(slice(s, s + k) for s, k in zip(starts, slice_sizes))]


def _dynamic_update_slice(x, update, *starts):
    out = np.array(x, copy=True)
    starts = [min(max(int(s), 0), n - k) for s, n, k in zip(starts, x.shape, update.shape)]
    out[tuple(slice(s, s + k) for s, k in zip(starts, update.shape))] = update
    return out


def _split(x, *, sizes, axis):
    points = np.cumsum([int(s) for s in sizes])[:-1]
    return tuple(np.split(x, points, axis=axis))


def _igamma_grad_a(a, x):
    """d/da of the regularised lower incomplete gamma function P(a, x), which SciPy lacks:
    mpmath differentiates P at 30 digits (about 1 ms an element).  XLA's conventions: 0 at
    x = 0, NaN outside a > 0, 0 <= x < inf."""
    if mpmath is None:
        raise UnknownPrimitive("igamma_grad_a (mpmath is not installed)")
    a, x = np.broadcast_arrays(a, x)
    out = np.full(a.shape, np.nan)
    with np.errstate(invalid="ignore"):
        inside = (a > 0) & (x >= 0) & np.isfinite(a) & np.isfinite(x)
    with mpmath.workdps(30):
        for i in zip(*np.nonzero(inside)):
            xi = mpmath.mpf(float(x[i]))
            p = lambda s, xi=xi: mpmath.gammainc(s, 0, xi, regularized=True)  # noqa: E731
            out[i] = 0.0 if xi == 0 else float(mpmath.diff(p, mpmath.mpf(float(a[i]))))
    return out


def _convert_element_type(x, *, new_dtype, **_):
    if x.dtype.kind == "c" and np.dtype(new_dtype).kind != "c":
        x = x.real  # XLA keeps the real part (NumPy too, with a ComplexWarning)
    return x.astype(new_dtype)


def _np_unary(fn):
    return lambda x, **_: fn(x)


def _np_binary(fn):
    return lambda a, b, **_: fn(a, b)


def _digamma(x):
    # XLA: NaN at the poles 0, -1, -2, ... (SciPy: -inf at 0)
    return np.where((x <= 0) & (x == np.floor(x)), np.nan, scipy.special.digamma(x))


_RULES: dict[str, Any] = {
    **{
        name: _np_unary(fn)
        for name, fn in {
            "neg": np.negative,
            "sign": np.sign,
            "floor": np.floor,
            "ceil": np.ceil,
            "is_finite": np.isfinite,
            "exp": np.exp,
            "exp2": np.exp2,
            "log": np.log,
            "log1p": np.log1p,
            "expm1": np.expm1,
            "tanh": np.tanh,
            "logistic": lambda x: 1 / (1 + np.exp(-x)),
            "sin": np.sin,
            "cos": np.cos,
            "tan": np.tan,
            "asin": np.arcsin,
            "acos": np.arccos,
            "atan": np.arctan,
            "sinh": np.sinh,
            "cosh": np.cosh,
            "asinh": np.arcsinh,
            "acosh": np.arccosh,
            "atanh": np.arctanh,
            "sqrt": np.sqrt,
            "rsqrt": lambda x: 1 / np.sqrt(x),
            "cbrt": np.cbrt,
            "abs": np.abs,
            "square": np.square,
            "not": lambda x: np.logical_not(x) if x.dtype == bool else np.invert(x),
            "copy": np.array,
            "stop_gradient": np.array,
            "copy_p": np.array,
            "real": np.real,
            "imag": np.imag,
            "conj": np.conj,
        }.items()
    },
    **{
        name: _np_binary(fn)
        for name, fn in {
            "add": np.add,
            "add_any": np.add,
            "sub": np.subtract,
            "mul": np.multiply,
            "div": _div,
            "rem": np.fmod,
            "pow": np.power,
            "max": np.maximum,
            "min": np.minimum,
            "atan2": np.arctan2,
            "eq": np.equal,
            "ne": np.not_equal,
            "lt": np.less,
            "le": np.less_equal,
            "gt": np.greater,
            "ge": np.greater_equal,
            "and": lambda a, b: np.logical_and(a, b) if a.dtype == bool else a & b,
            "or": lambda a, b: np.logical_or(a, b) if a.dtype == bool else a | b,
            "xor": lambda a, b: np.logical_xor(a, b) if a.dtype == bool else a ^ b,
        }.items()
    },
    "integer_pow": lambda x, *, y: x**y,
    "round": lambda x, **_: np.round(x),
    "convert_element_type": _convert_element_type,
    "select_n": lambda which, *cases: (
        np.where(which, cases[1], cases[0]) if which.dtype == bool else np.choose(which, cases)
    ),
    "clamp": lambda lo, x, hi: np.clip(x, lo, hi),
    "reduce_sum": lambda x, *, axes, **_: np.sum(x, axis=tuple(axes)),
    "reduce_max": lambda x, *, axes, **_: np.max(x, axis=tuple(axes)),
    "reduce_min": lambda x, *, axes, **_: np.min(x, axis=tuple(axes)),
    "reduce_prod": lambda x, *, axes, **_: np.prod(x, axis=tuple(axes)),
    "reduce_and": lambda x, *, axes, **_: np.all(x, axis=tuple(axes)),
    "reduce_or": lambda x, *, axes, **_: np.any(x, axis=tuple(axes)),
    "argmax": lambda x, *, axes, index_dtype: np.argmax(x, axis=axes[0]).astype(index_dtype),
    "argmin": lambda x, *, axes, index_dtype: np.argmin(x, axis=axes[0]).astype(index_dtype),
    "cumsum": _cumulative(np.cumsum),
    "cumprod": _cumulative(np.cumprod),
    "cummax": _cumulative(np.maximum.accumulate),
    "cummin": _cumulative(np.minimum.accumulate),
    "transpose": lambda x, *, permutation: np.transpose(x, permutation),
    "reshape": lambda x, *, new_sizes, dimensions=None, **_: np.reshape(
        x if dimensions is None else np.transpose(x, dimensions), new_sizes
    ),
    "squeeze": lambda x, *, dimensions: np.squeeze(x, axis=tuple(dimensions)),
    "expand_dims": lambda x, *, dimensions: np.expand_dims(x, tuple(dimensions)),
    "broadcast_in_dim": _broadcast_in_dim,
    "slice": lambda x, *, start_indices, limit_indices, strides: x[
        tuple(
            slice(s, e, 1 if strides is None else strides[i])
            for i, (s, e) in enumerate(zip(start_indices, limit_indices))
        )
    ],
    "rev": lambda x, *, dimensions: np.flip(x, tuple(dimensions)) if dimensions else x,
    "pad": _pad,
    "concatenate": lambda *xs, dimension: np.concatenate(xs, axis=dimension),
    "stack": lambda *xs, axis: np.stack(xs, axis=axis),
    "unstack": lambda x, *, axis: tuple(np.moveaxis(x, axis, 0)),
    "split": _split,
    "iota": _iota,
    "dot_general": _dot_general,
    "gather": _gather,
    "scatter-add": lambda o, i, u, **p: _scatter(o, i, u, combine=np.add, **p),
    "scatter_add": lambda o, i, u, **p: _scatter(o, i, u, combine=np.add, **p),
    "scatter": lambda o, i, u, **p: _scatter(o, i, u, combine=lambda old, new: new, **p),
    "dynamic_slice": _dynamic_slice,
    "dynamic_update_slice": _dynamic_update_slice,
}


# -- more XLA semantics: total order, shifts, sort, windows, convolution, FFT ---------------


def _total_order_key(x):
    """Integers that order floats as XLA's TOTALORDER comparisons do: -NaN < -inf < ... <
    -0 < +0 < ... < inf < +NaN (the IEEE bits, with the negatives' magnitude bits flipped)."""
    if x.dtype.kind != "f":
        return x
    bits = np.ascontiguousarray(x).view(np.dtype(f"i{x.dtype.itemsize}"))
    return np.where(bits < 0, bits ^ np.iinfo(bits.dtype).max, bits)


def _total_order(fn):
    return lambda a, b, **_: fn(_total_order_key(a), _total_order_key(b))


def _shift(kind):
    """XLA's shifts: an amount outside [0, bits) shifts everything out (sign fill for the
    arithmetic right shift), where C and NumPy leave it undefined."""

    def rule(x, y):
        bits = 8 * x.dtype.itemsize
        unsigned = np.dtype(f"u{x.dtype.itemsize}")
        amount = np.broadcast_to(y, np.broadcast(x, y).shape).astype(unsigned)
        out_of_range = amount >= bits
        amount = np.where(out_of_range, 0, amount).astype(x.dtype)
        if kind == "left":
            return np.where(out_of_range, 0, np.left_shift(x, amount))
        if kind == "arithmetic":
            return np.where(out_of_range, np.where(x < 0, -1, 0), np.right_shift(x, amount))
        ux = np.broadcast_to(x, amount.shape).view(unsigned) if x.dtype.kind == "i" else x
        out = np.where(out_of_range, 0, np.right_shift(ux, amount.astype(ux.dtype)))
        return out.astype(ux.dtype).view(x.dtype)

    return rule


def _complex(x, y):
    out = np.empty(np.broadcast(x, y).shape, np.result_type(x, y, np.complex64))
    out.real, out.imag = x, y  # not x + 1j * y, which makes 1j * inf nan + inf j
    return out


def _sort(*operands, dimension, num_keys, **_):
    # XLA's comparator (jax's _sort_lt_comparator): lexicographic on the first num_keys
    # operands (a complex key as (real, imag)), floats with -0 == 0 and NaN last, which is
    # NumPy's order; a stable sort keeps ties in place (XLA's unstable sort may reorder
    # ties, which only the values of the non-key operands could show).
    keys = []
    for k in operands[:num_keys]:
        keys += [k.real, k.imag] if k.dtype.kind == "c" else [k]
    keys = [np.moveaxis(k, dimension, -1) for k in keys]
    order = np.lexsort(keys[::-1], axis=-1)  # lexsort's primary key is its last
    return tuple(
        np.moveaxis(np.take_along_axis(np.moveaxis(x, dimension, -1), order, -1), -1, dimension)
        for x in operands
    )


def _top_k(x, *, k, axis=-1, **_):
    # descending in total order, ties by the lower index (a stable sort of ~key)
    order = np.argsort(~_total_order_key(np.moveaxis(x, axis, -1)), axis=-1, kind="stable")
    order = order[..., :k]
    values = np.take_along_axis(np.moveaxis(x, axis, -1), order, -1)
    return np.moveaxis(values, -1, axis), np.moveaxis(order, -1, axis)


def _bitcast_convert_type(x, *, new_dtype, **_):
    new = np.dtype(new_dtype)
    x = np.ascontiguousarray(x)
    if new.itemsize == x.dtype.itemsize:
        return x.view(new)
    if new.itemsize < x.dtype.itemsize:  # a new minor axis, in memory (little-endian) order
        return x.reshape(x.shape + (1,)).view(new)
    return x.view(new).reshape(x.shape[:-1])


def _dilate_and_pad(x, axes, dilation, padding, value):
    """``x`` with ``dilation - 1`` copies of ``value`` between neighbours along ``axes`` and
    ``padding`` (lo, hi), possibly negative, at their ends: lax.pad's semantics."""
    config = [(0, 0, 0)] * x.ndim
    for ax, d, (lo, hi) in zip(axes, dilation, padding):
        config[ax] = (lo, hi, d - 1)
    return _pad(x, np.asarray(value, x.dtype), padding_config=config)


def _windows(x, axes, sizes, strides, dilation):
    """Every window of ``x`` along ``axes``: shape x.shape (those axes now the window
    positions) + the window sizes."""
    spans = [(k - 1) * d + 1 for k, d in zip(sizes, dilation)]
    view = np.lib.stride_tricks.sliding_window_view(x, spans, axis=axes)
    index = [slice(None)] * x.ndim + [slice(None, None, d) for d in dilation]
    for ax, s in zip(axes, strides):
        index[ax] = slice(None, None, s)
    return view[tuple(index)]


def _reduce_window(fn, identity):
    def rule(x, *, window_dimensions, window_strides, padding, base_dilation, window_dilation):
        axes = tuple(range(x.ndim))
        x = _dilate_and_pad(x, axes, base_dilation, padding, identity(x.dtype))
        w = _windows(x, axes, window_dimensions, window_strides, window_dilation)
        return fn(w, axis=tuple(range(x.ndim, 2 * x.ndim)))

    return rule


def _conv_general_dilated(
    lhs,
    rhs,
    *,
    window_strides,
    padding,
    lhs_dilation,
    rhs_dilation,
    dimension_numbers,
    feature_group_count,
    batch_group_count,
    preferred_element_type=None,
    **_,
):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    x = np.transpose(lhs, lhs_spec)  # (N, C, spatial...)
    w = np.transpose(rhs, rhs_spec)  # (O, I, window...)
    spatial = tuple(range(2, x.ndim))
    x = _dilate_and_pad(x, spatial, lhs_dilation, padding, 0)
    win = _windows(x, spatial, w.shape[2:], window_strides, rhs_dilation)  # N C P.. K..
    n, c = win.shape[:2]
    o, i = w.shape[:2]
    g, b = feature_group_count, batch_group_count
    # XLA: output feature f belongs to group f // (O / groups); a feature group reads the
    # input features of its group, a batch group the input batch rows of its group.
    win = win.reshape((b, n // b, g, c // g) + win.shape[2:])
    w = w.reshape((b, g, o // (b * g), i) + w.shape[2:])
    nsp = len(spatial)
    sp = "pqrstuvw"[:nsp]
    ks = "jklmxyz"[:nsp]
    out = np.einsum(f"Bngi{sp}{ks},Bgoi{ks}->nBgo{sp}", win, w)
    out = out.reshape((n // b, o) + out.shape[4:])
    out = np.transpose(out, np.argsort(out_spec))
    return out if preferred_element_type is None else out.astype(preferred_element_type)


def _fft(x, *, fft_type, fft_lengths):
    kind = getattr(fft_type, "name", str(fft_type)).split(".")[-1].upper()
    axes = tuple(range(-len(fft_lengths), 0))
    if kind == "FFT":
        return np.fft.fftn(x, axes=axes)
    if kind == "IFFT":
        return np.fft.ifftn(x, axes=axes)
    if kind == "RFFT":
        return np.fft.rfftn(x, s=fft_lengths, axes=axes)
    if kind == "IRFFT":
        return np.fft.irfftn(x, s=fft_lengths, axes=axes)
    raise UnknownPrimitive(f"fft {fft_type}")


def _platform_index(*, platforms, **_):
    # the jaxpr runs "on the CPU": the branch listing "cpu", else the default (None)
    for i, names in enumerate(platforms):
        if names is not None and "cpu" in names:
            return np.int32(i)
    return np.int32(list(platforms).index(None))


# -- linear algebra: the LAPACK routine XLA's CPU lowering calls ------------------------


def _per_matrix(fn, a, *more):
    """``fn`` on every matrix of the batch (the leading axes of ``a`` and ``more``): a list
    of tuples of stacked results, NaN where ``fn`` reported failure (it returns None)."""
    batch = a.shape[:-2]
    results = []
    for i in np.ndindex(batch):
        results.append(fn(a[i], *(m[i] for m in more)))
    return results


def _stack(results, batch, fail_like):
    """The per-matrix results as batched arrays; ``fail_like`` holds one matrix's results
    as XLA gives them after a failure (NaN), which also fixes their shapes."""
    out = []
    for j, fail in enumerate(fail_like):
        rows = [fail if r is None else r[j] for r in results]
        stacked = np.stack(rows) if rows else np.zeros((0,) + fail.shape, fail.dtype)
        out.append(stacked.reshape(batch + fail.shape))
    return tuple(out)


def _nan_like(shape, dtype):
    return np.full(shape, np.nan, dtype)


def _lapack(name, a):
    return scipy.linalg.lapack.get_lapack_funcs(name, (a,))


def _pivots_to_permutation(pivots, permutation_size):
    perm = np.arange(permutation_size, dtype=np.int32)
    for i, j in enumerate(pivots):
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def _lu_pivots_to_permutation(pivots, *, permutation_size):
    out = np.empty(pivots.shape[:-1] + (permutation_size,), np.int32)
    for i in np.ndindex(pivots.shape[:-1]):
        out[i] = _pivots_to_permutation(pivots[i], permutation_size)
    return out


def _lu(a):
    # getrf; a singular matrix (info > 0) is a valid factorisation, as in XLA
    m, n = a.shape[-2:]
    if m == 0 or n == 0:
        raise UnknownPrimitive("lu of an empty matrix")
    getrf = _lapack("getrf", a)

    def one(x):
        lu, piv, info = getrf(x)
        if info < 0:
            return None
        piv = piv.astype(np.int32)
        return lu, piv, _pivots_to_permutation(piv, m)

    k = min(m, n)
    fail = (_nan_like((m, n), a.dtype), np.zeros(k, np.int32), np.arange(m, dtype=np.int32))
    return _stack(_per_matrix(one, a), a.shape[:-2], fail)


def _cholesky(a, **_):
    # potrf of the lower triangle; the upper keeps the input (JAX's users mask it)
    potrf = _lapack("potrf", a)
    n = a.shape[-1]

    def one(x):
        c, info = potrf(x, lower=True, clean=False)
        return None if info != 0 else (c,)

    return _stack(_per_matrix(one, a), a.shape[:-2], (_nan_like((n, n), a.dtype),))[0]


def _triangular_solve(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    if conjugate_a and not transpose_a:
        a, conjugate_a = np.conj(a), False
    trsm = scipy.linalg.blas.get_blas_funcs("trsm", (a, b))
    trans = 0 if not transpose_a else 2 if conjugate_a else 1

    def one(x, y):
        return (
            trsm(
                1.0,
                x,
                y,
                side=0 if left_side else 1,
                lower=lower,
                trans_a=trans,
                diag=unit_diagonal,
            ),
        )

    return _stack(_per_matrix(one, a, b), a.shape[:-2], (b[(0,) * (b.ndim - 2)],))[0]


def _svd(a, *, full_matrices, compute_uv, subset_by_index=None, algorithm=None):
    m, n = a.shape[-2:]
    name = getattr(algorithm, "name", "DEFAULT")
    if subset_by_index not in (None, (0, min(m, n))) or m == 0 or n == 0:
        raise UnknownPrimitive("svd of an empty matrix or a subset")
    if name in ("DEFAULT", "DIVIDE_AND_CONQUER"):
        routine = "gesdd"
    elif name == "QR":
        routine = "gesvd"
    else:
        raise UnknownPrimitive(f"svd algorithm {algorithm}")
    fn = _lapack(routine, a)
    k = min(m, n)
    real = np.empty(0, a.dtype).real.dtype

    def one(x):
        u, s, vt, info = fn(x, compute_uv=compute_uv, full_matrices=full_matrices)
        if info != 0:
            return None
        return (s, u, vt) if compute_uv else (s,)

    fail = [_nan_like((k,), real)]
    if compute_uv:
        cols = m if full_matrices else k
        rows = n if full_matrices else k
        fail += [_nan_like((m, cols), a.dtype), _nan_like((rows, n), a.dtype)]
    return _stack(_per_matrix(one, a), a.shape[:-2], fail)


def _eigh(a, *, lower, subset_by_index=None, algorithm=None, **_):
    n = a.shape[-1]
    if subset_by_index not in (None, (0, n)) or algorithm is not None or n == 0:
        raise UnknownPrimitive("eigh with a subset, an algorithm or of an empty matrix")
    fn = _lapack("heevd" if a.dtype.kind == "c" else "syevd", a)

    def one(x):
        w, v, info = fn(x, compute_v=1, lower=lower)
        return None if info != 0 else (v, w)

    real = np.empty(0, a.dtype).real.dtype
    fail = (_nan_like((n, n), a.dtype), _nan_like((n,), real))
    return _stack(_per_matrix(one, a), a.shape[:-2], fail)


def _unpack_real_eigenvectors(wi, v):
    """geev's real storage of complex eigenvectors (the pair's real and imaginary parts in
    adjacent columns) as complex columns."""
    out = v.astype(np.result_type(v.dtype, np.complex64))
    j = 0
    while j < len(wi):
        if wi[j] != 0 and j + 1 < len(wi):
            out[:, j] = v[:, j] + 1j * v[:, j + 1]
            out[:, j + 1] = v[:, j] - 1j * v[:, j + 1]
            j += 2
        else:
            j += 1
    return out


def _eig(a, *, compute_left_eigenvectors, compute_right_eigenvectors, implementation=None, **_):
    n = a.shape[-1]
    if implementation is not None and getattr(implementation, "name", "") != "LAPACK":
        raise UnknownPrimitive(f"eig implementation {implementation}")
    if n == 0:
        raise UnknownPrimitive("eig of an empty matrix")
    geev = _lapack("geev", a)
    cplx = np.result_type(a.dtype, np.complex64)

    def one(x):
        flags = {
            "compute_vl": int(compute_left_eigenvectors),
            "compute_vr": int(compute_right_eigenvectors),
        }
        if a.dtype.kind == "c":
            w, vl, vr, info = geev(x, **flags)
        else:
            wr, wi, vl, vr, info = geev(x, **flags)
            w = wr + 1j * wi
            vl, vr = _unpack_real_eigenvectors(wi, vl), _unpack_real_eigenvectors(wi, vr)
        if info != 0:
            return None
        out = [w]
        if compute_left_eigenvectors:
            out.append(vl)
        if compute_right_eigenvectors:
            out.append(vr)
        return tuple(out)

    fail = [_nan_like((n,), cplx)]
    fail += [_nan_like((n, n), cplx)] * (compute_left_eigenvectors + compute_right_eigenvectors)
    return _stack(_per_matrix(one, a), a.shape[:-2], fail)


def _qr(a, *, pivoting, full_matrices, **_):
    # JAX's _qr_lowering: geqrf, then the Householder product (orgqr/ungqr) of its
    # reflectors, R the upper triangle
    m, n = a.shape[-2:]
    if pivoting or m == 0 or n == 0:
        raise UnknownPrimitive("qr with pivoting or of an empty matrix")
    geqrf = _lapack("geqrf", a)
    orgqr = _lapack("ungqr" if a.dtype.kind == "c" else "orgqr", a)

    def one(x):
        r, tau, _, _ = geqrf(x)
        if m < n:
            q, _, _ = orgqr(r[:, :m], tau)
        elif full_matrices:
            q, _, _ = orgqr(np.pad(r, ((0, 0), (0, m - n))), tau)
        else:
            q, _, _ = orgqr(r, tau)
            r = r[:n, :n]
        return q, np.triu(r)

    k = m if full_matrices else min(m, n)
    fail = (_nan_like((m, k), a.dtype), _nan_like((k, n), a.dtype))
    return _stack(_per_matrix(one, a), a.shape[:-2], fail)


_RULES.update(
    {
        "lgamma": _np_unary(scipy.special.gammaln),
        "digamma": _np_unary(_digamma),
        "erf": _np_unary(scipy.special.erf),
        "erfc": _np_unary(scipy.special.erfc),
        "erf_inv": _np_unary(scipy.special.erfinv),
        "bessel_i0e": _np_unary(scipy.special.i0e),
        "bessel_i1e": _np_unary(scipy.special.i1e),
        "igamma": _np_binary(scipy.special.gammainc),
        "igammac": _np_binary(scipy.special.gammaincc),
        "igamma_grad_a": _np_binary(_igamma_grad_a),
        "zeta": _np_binary(scipy.special.zeta),
        "polygamma": _np_binary(scipy.special.polygamma),
        "regularized_incomplete_beta": lambda a, b, x, **_: scipy.special.betainc(a, b, x),
        "complex": _np_binary(_complex),
        "lt_to": _total_order(np.less),
        "le_to": _total_order(np.less_equal),
        "shift_left": _shift("left"),
        "shift_right_arithmetic": _shift("arithmetic"),
        "shift_right_logical": _shift("logical"),
        "sort": _sort,
        "top_k": _top_k,
        "tile": lambda x, *, reps: np.tile(x, reps),
        "bitcast_convert_type": _bitcast_convert_type,
        "empty2": lambda *, dtype, **_: np.zeros((), dtype),
        "platform_index": _platform_index,
        "reduce_window_sum": _reduce_window(np.sum, lambda dt: 0),
        "conv_general_dilated": _conv_general_dilated,
        "fft": _fft,
        "lu": _lu,
        "lu_pivots_to_permutation": _lu_pivots_to_permutation,
        "cholesky": _cholesky,
        "triangular_solve": _triangular_solve,
        "svd": _svd,
        "eigh": _eigh,
        "eig": _eig,
        "qr": _qr,
    }
)


# -- primitives that run sub-jaxprs with the evaluator: ``f(cls, ins, **params)`` -------


def _cond(cls: Any, ins: list, *, branches: Any, **_: Any) -> list:
    # XLA's Case runs the last branch for an index out of range
    i = int(ins[0])
    i = i if 0 <= i < len(branches) else len(branches) - 1
    return cls._eval(branches[i].jaxpr, branches[i].consts, ins[1:])


def _while(cls, ins, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts, **_):
    cc, bc = ins[:cond_nconsts], ins[cond_nconsts : cond_nconsts + body_nconsts]
    val = ins[cond_nconsts + body_nconsts :]
    while True:
        (pred,) = cls._eval(cond_jaxpr.jaxpr, cond_jaxpr.consts, cc + val)
        if not pred.any():
            return val
        new = cls._eval(body_jaxpr.jaxpr, body_jaxpr.consts, bc + val)
        # a batched predicate (vmap): XLA's lowering keeps the old carry on finished rows
        keep = [pred.reshape(pred.shape + (1,) * (v.ndim - pred.ndim)) for v in val]
        val = [np.where(k, n, v) for k, n, v in zip(keep, new, val)]


def _scan(cls, ins, *, jaxpr, num_consts, num_carry, length, reverse, **_):
    consts, carry = ins[:num_consts], ins[num_consts : num_consts + num_carry]
    xs = ins[num_consts + num_carry :]
    n_ys = len(jaxpr.jaxpr.outvars) - num_carry
    ys: list = [None] * length
    for t in range(length - 1, -1, -1) if reverse else range(length):
        outs = cls._eval(jaxpr.jaxpr, jaxpr.consts, consts + carry + [x[t] for x in xs])
        carry, ys[t] = outs[:num_carry], outs[num_carry:]
    if length == 0:
        return carry + [
            np.zeros((0,) + tuple(v.aval.shape), v.aval.dtype)
            for v in jaxpr.jaxpr.outvars[num_carry:]
        ]
    return carry + [np.stack([y[k] for y in ys]) for k in range(n_ys)]


def _custom_linear_solve(cls, ins, *, const_lengths, jaxprs, **_):
    # the primal value is the ``solve`` function's (JAX's _custom_linear_solve_impl)
    starts = np.cumsum([0, *const_lengths])
    solve_consts = ins[starts[2] : starts[3]]
    b = ins[starts[-1] :]
    return cls._eval(jaxprs.solve.jaxpr, jaxprs.solve.consts, list(solve_consts) + b)


_CONTROL: dict[str, Any] = {
    "cond": _cond,
    "while": _while,
    "scan": _scan,
    "custom_linear_solve": _custom_linear_solve,
}

#: Primitives that run a sub-jaxpr, and the parameter that holds it.
_CALLS = {
    "jit": "jaxpr",
    "pjit": "jaxpr",
    "closed_call": "call_jaxpr",
    "core_call": "call_jaxpr",
    "custom_jvp_call": "call_jaxpr",
    "custom_vjp_call": "call_jaxpr",
    "custom_vjp_call_jaxpr": "fun_jaxpr",
    "remat": "jaxpr",
    "checkpoint": "jaxpr",
    "remat2": "jaxpr",  # jax.checkpoint's primitive in current JAX
}


class UnknownPrimitive(NotImplementedError):
    pass


class JaxprEvaluator:
    """Evaluate a (closed) jaxpr with NumPy; every result is checked against the shape and
    dtype JAX assigned to it, so a wrong rule here fails loudly instead of silently.
    ``CONTROL`` holds the rules that run sub-jaxprs (name -> ``f(cls, ins, **params)``).

    Example: ``JaxprEvaluator.run(jax.make_jaxpr(f)(x), x)`` is ``[f(x)]`` as NumPy."""

    CONTROL: dict[str, Any] = _CONTROL

    @classmethod
    def run(cls, closed, *args):
        return cls._eval(closed.jaxpr, closed.consts, args)

    @classmethod
    def _eval(cls, jaxpr, consts, args):
        env: dict[Any, Any] = {}

        def read(v):
            return v.val if type(v).__name__ == "Literal" else env[v]

        for v, val in zip(jaxpr.constvars, consts):
            env[v] = np.asarray(val)
        for v, val in zip(jaxpr.invars, args):
            env[v] = np.asarray(val)
        for eqn in jaxpr.eqns:
            name = eqn.primitive.name
            ins = [np.asarray(read(v)) for v in eqn.invars]
            if name in cls.CONTROL:
                outs = cls.CONTROL[name](cls, ins, **eqn.params)
            elif name in _CALLS:
                sub = eqn.params[_CALLS[name]]
                if hasattr(sub, "consts"):
                    outs = cls._eval(sub.jaxpr, sub.consts, ins)
                else:
                    outs = cls._eval(sub, (), ins)
            elif name in _RULES:
                params = {k: v for k, v in eqn.params.items() if k != "accuracy"}
                with np.errstate(all="ignore"):
                    outs = _RULES[name](*ins, **params)
                if not eqn.primitive.multiple_results:
                    outs = (outs,)
            else:
                raise UnknownPrimitive(name)
            for v, out in zip(eqn.outvars, outs):
                aval = v.aval
                out = np.asarray(out).astype(aval.dtype, copy=False)
                if out.shape != tuple(aval.shape):
                    raise AssertionError(
                        f"JaxprEvaluator: {name} gave shape {out.shape}, JAX says {aval.shape}"
                    )
                if type(v).__name__ != "DropVar":
                    env[v] = out
        return [np.asarray(read(v)) for v in jaxpr.outvars]


def on_jax(fn, *args):
    """``fn(*args)`` of a JAX program, as the tests' oracle: JAX traces it (all of the
    differentiation and batching is JAX's) and :class:`JaxprEvaluator` runs the jaxpr on
    NumPy; a primitive without a rule here runs the program on XLA (``jax.jit``) instead.

    Example: ``on_jax(jax.hessian(f), x)`` is ``jax.hessian(f)(x)`` as NumPy arrays."""
    import jax  # noqa: PLC0415 - the evaluator itself needs only the jaxpr, not jax

    try:
        closed, shapes = jax.make_jaxpr(fn, return_shape=True)(*args)
        flat = JaxprEvaluator.run(closed, *jax.tree_util.tree_leaves(args))
    except UnknownPrimitive:
        return jax.tree_util.tree_map(np.asarray, jax.jit(fn)(*args))
    return jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(shapes), flat)
