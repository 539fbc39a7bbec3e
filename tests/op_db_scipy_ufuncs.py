"""Op-database entries for the remaining ``scipy.special`` ufuncs (NOTE [the remaining
SciPy ufuncs] in ftransforms/ops/scipy_ufuncs.py): a few of them, as
``ftransforms.scipy.special.<name>`` (made on first use for each SciPy ufunc) and, through
the NumPy protocol, ``scipy.special.<name>(tracer)``.  SciPy itself is the forward
reference (JAX has none of them); every rule of the derivative table is checked against
finite differences in ``tests/test_scipy_remaining_ufuncs.py``.  Format:
``tests/op_db.py``."""

from __future__ import annotations

from tests.op_db_base import FNP, NP, S, add


def scipy_special(name: str, fixed: tuple[int, ...] = ()):
    def fn(m, *args):
        assert m is FNP or m is NP, "no jax.scipy.special counterpart"
        if m is FNP:  # the orders SciPy takes as parameters, held fixed
            args = tuple(m.stop_gradient(a) if i in fixed else a for i, a in enumerate(args))
        return getattr(m.special, name)(*args)

    fn.__name__ = f"scipy_special_{name}"
    return fn


def _two(lo1, hi1, lo2, hi2, *, ints=False, grads=True):
    def sampler(d):
        first = (lambda shape: d.ints(4, shape, lo=0)) if ints else (lambda s: d.u(s, lo1, hi1))
        return [
            S("4", first((4,)), d.u((4,), lo2, hi2), _grads=grads),
            S("2x1_1x3", first((2, 1)), d.u((1, 3), lo2, hi2), _grads=grads),
        ]

    return sampler


_NO_JAX = {"jax_compositions": False, "via_numpy": True}
add(
    "scipy_special_stdtr",
    scipy_special("stdtr", fixed=(0,)),
    _two(1.0, 6.0, -2.0, 2.0),
    prims=("scipy_ufunc", "stop_gradient"),
    diff_operands=(1,),
    **_NO_JAX,
)
add(
    "scipy_special_eval_legendre",
    scipy_special("eval_legendre"),
    _two(0, 0, -0.9, 0.9, ints=True),
    prims=("scipy_ufunc",),
    **_NO_JAX,
)
add(
    "scipy_special_ellipkinc",
    scipy_special("ellipkinc"),
    _two(0.1, 1.2, 0.1, 0.8),
    prims=("scipy_ufunc",),
    **_NO_JAX,
)
add(  # four outputs (derivatives in u only, tests/test_scipy_users_round14.py): values here
    "scipy_special_ellipj",
    scipy_special("ellipj"),
    _two(-2.0, 2.0, 0.1, 0.9, grads=False),
    prims=("scipy_ufunc_multi",),
    **_NO_JAX,
)
