"""Oracles for the published-program tests (``tests/test_published_programs*.py``): a
program written with ``np`` run again under ``jax.numpy``, finite differences in float64,
Python loops for ``vmap``, and the checks built from them.

:func:`jaxify` rebinds a function's module globals: ``np`` becomes ``jax.numpy``, the SciPy
names of :data:`_JAX_NAMES` the module uses become ``jax.scipy``'s, and the module's ``p_``
helper programs are rebound the same way, so a program calling a helper runs wholly on JAX.
"""

from __future__ import annotations

import types

import jax
import jax.numpy as jnp
import jax.scipy.signal
import jax.scipy.special as jsp_special
import jax.scipy.stats as jsp_stats
import numpy as np

import ftransforms as ft
from tests.tolerances import assert_tree_close, fd_tol, tol

TOL = tol(np.float64)
FD_TOL = fd_tol(np.float64)

#: Module-level names rebound to JAX's counterparts (when the module defines them).
_JAX_NAMES = {
    "np": jnp,
    "expit": jsp_special.expit,
    "gammaln": jsp_special.gammaln,
    "logsumexp": jsp_special.logsumexp,
    "norm": jsp_stats.norm,
    "convolve2d": jax.scipy.signal.convolve2d,
}

#: id of a test module's globals -> their JAX copy (built on the first jaxify call).
_JAX_GLOBALS: dict[int, dict] = {}


def _jax_globals(module_globals: dict) -> dict:
    rebound = _JAX_GLOBALS.get(id(module_globals))
    if rebound is None:
        rebound = dict(module_globals)
        rebound.update({k: v for k, v in _JAX_NAMES.items() if k in module_globals})
        for name, value in module_globals.items():
            if isinstance(value, types.FunctionType) and name.startswith("p_"):
                rebound[name] = types.FunctionType(
                    value.__code__, rebound, name, value.__defaults__, value.__closure__
                )
        _JAX_GLOBALS[id(module_globals)] = rebound
    return rebound


def jaxify(fn):
    """``fn``'s code run with its module's globals rebound to JAX (see the module doc)."""
    rebound = _jax_globals(fn.__globals__)
    if fn.__name__.startswith("p_") and fn.__name__ in rebound:
        jax_fn = rebound[fn.__name__]
    else:
        jax_fn = types.FunctionType(
            fn.__code__, rebound, fn.__name__, fn.__defaults__, fn.__closure__
        )

    def on_jax_arrays(*args):
        # X.dot(W) with X a NumPy array would call NumPy's own dot: JAX code has jax arrays
        as_jax = jax.tree_util.tree_map(
            lambda v: jnp.asarray(v) if isinstance(v, np.ndarray) else v, args
        )
        return jax_fn(*as_jax)

    return on_jax_arrays


def jax_call(f, *args):
    """``jax.jit(f)(*args)``, compiled without XLA's expensive passes: the oracles are small
    programs run once, and one compile of each is cheaper than JAX's op-by-op dispatch."""
    compiled = (
        jax.jit(f)
        .lower(*args)
        .compile(
            compiler_options={
                "xla_backend_optimization_level": 0,
                "xla_llvm_disable_expensive_passes": True,
            }
        )
    )
    return compiled(*args)


def fd_jacobian(f, args, argnum=0, eps=1e-3):
    """4th-order central differences in float64 of ``f`` in ``args[argnum]``: an array of
    shape ``f(...).shape + args[argnum].shape``."""
    x = np.asarray(args[argnum], dtype=np.float64)

    def at(v):
        call = list(args)
        call[argnum] = v
        return np.asarray(f(*call), dtype=np.float64)

    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        e = e.reshape(x.shape)
        cols.append((-at(x + 2 * e) + 8 * at(x + e) - 8 * at(x - e) + at(x - 2 * e)) / (12 * eps))
    out = np.stack(cols, axis=-1)
    return out.reshape(out.shape[:-1] + x.shape)


def close(actual, expected, tolerance=TOL, msg=""):
    expected = jax.tree_util.tree_map(np.asarray, expected)
    assert_tree_close(actual, expected, err_msg=msg, **tolerance)


def check_grad(f, args, argnums=0, tolerance=TOL):
    got = ft.grad(f, argnums=argnums)(*args)
    want = jax_call(jax.grad(jaxify(f), argnums=argnums), *args)
    close(got, want, tolerance, "grad")
    return got


def check_value(f, args, tolerance=TOL):
    got = f(*args)
    close(got, jax_call(jaxify(f), *args), tolerance, "value against jax.numpy")


def check_fd_grad(f, args, argnums=0, tolerance=FD_TOL):
    got = ft.grad(f, argnums=argnums)(*args)
    close(got, fd_jacobian(f, args, argnums), tolerance, "grad vs finite differences")
    return got


def check_hessian(f, args, argnums=0):
    """``hessian(f)`` against finite differences of ``grad(f)`` (each test checks that
    gradient against JAX: one JAX compile per program keeps this file fast)."""
    got = ft.hessian(f, argnums=argnums)(*args)
    want = fd_jacobian(ft.grad(f, argnums=argnums), args, argnums)
    close(got, want, FD_TOL, "hessian")
    n = int(np.prod(np.shape(args[argnums])))
    close(got.reshape(n, n), got.reshape(n, n).T, msg="hessian symmetry")
    return got


def check_jacfwd(f, args, argnums=0, tolerance=TOL):
    """``jacfwd(f)`` against finite differences (per output and argument) and ``jacrev``."""
    got = ft.jacfwd(f, argnums=argnums)(*args)
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    out = f(*args)
    n_out = len(out) if isinstance(out, tuple) else None
    for i in range(n_out or 1):
        f_i = (lambda *a, i=i: f(*a)[i]) if n_out else f
        got_i = got[i] if n_out else got
        for k, j in enumerate(nums):
            got_ij = got_i[k] if isinstance(argnums, tuple) else got_i
            close(got_ij, fd_jacobian(f_i, args, j), FD_TOL, f"jacfwd output {i} arg {j}")
    close(ft.jacrev(f, argnums=argnums)(*args), got, tolerance, "jacrev")
    return got


def check_vmap(f, args, in_dims, tolerance=TOL):
    """``vmap(f)`` against a Python loop over the mapped arguments."""
    got = ft.vmap(f, in_dims=in_dims)(*args)
    sizes = {
        jax.tree_util.tree_leaves(a)[0].shape[d] for a, d in zip(args, in_dims) if d is not None
    }
    (n,) = sizes
    rows = []
    for i in range(n):
        call = [
            a if d is None else jax.tree_util.tree_map(lambda v, i=i: v[i], a)
            for a, d in zip(args, in_dims)
        ]
        rows.append(f(*call))
    want = jax.tree_util.tree_map(lambda *r: np.stack([np.asarray(v) for v in r]), *rows)
    close(got, want, tolerance, "vmap")
    return got


def check_jit(fn, args, new_args, replayed=True, tolerance=TOL):
    """``jit(fn)`` records on ``args`` and, on ``new_args`` (same shapes, new values),
    replays a program that agrees with the eager call."""
    compiled = ft.jit(fn)
    close(compiled(*args), fn(*args), tolerance, "jit (recording call)")
    close(compiled(*new_args), fn(*new_args), tolerance, "jit (replay)")
    if replayed:
        (program,) = compiled.cache.values()
        assert not program.value_dependent, program.reason


def check_row_function(f, batch, *, jit_vmap=True, grad_jit=False):
    """A function of one row (a writer into arrays it makes, say) under the transforms:
    vmap against the loop over ``batch``'s rows, ``jit(vmap)`` (``jit_vmap``), jit on new
    inputs, jacfwd/jacrev, ``grad(jit)`` (``grad_jit``) and vmap(grad) against central
    differences (PerformanceWarning of a split batch ignored)."""
    import warnings  # late import: only the probe files' callers need it

    x = batch[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        check_vmap(f, (batch.copy(),), (0,))
        if jit_vmap:
            close(ft.jit(ft.vmap(f))(batch.copy()), np.stack([f(r.copy()) for r in batch]))
        check_jit(f, (x.copy(),), (x + 0.25,), replayed=False)
    jac = fd_jacobian(f, (x.copy(),))
    close(ft.jacfwd(f)(x.copy()), jac, fd_tol(np.float64))
    close(ft.jacrev(f)(x.copy()), jac, fd_tol(np.float64))
    w = np.linspace(0.5, 1.5, np.size(f(x.copy())))

    def loss(v):
        return np.sum(np.ravel(f(v)) * w)

    if grad_jit:
        close(ft.grad(ft.jit(loss))(x.copy()), fd_jacobian(loss, (x.copy(),)), fd_tol(np.float64))
    rows = np.stack([fd_jacobian(loss, (r.copy(),)) for r in batch])
    close(ft.vmap(ft.grad(loss))(batch.copy()), rows, fd_tol(np.float64))


def perturb(tree, rng, scale=0.1):
    """New float inputs of the same shapes (integer labels and indices stay)."""

    def move(v):
        if np.asarray(v).dtype.kind != "f":
            return v
        return v + scale * rng.standard_normal(np.shape(v))

    # the tree's own structure, dict key order included (jax.tree_util sorts the keys, and
    # a dict in another order is another jit signature: the function sees the order)
    return ft.tree_map(move, tree)
