"""Every error a user must get (DESIGN.md, "Errors users must get").

Each mistake raises one specific type from ``ftransforms.core.errors`` (which also
subclasses the built-in type torch.func / JAX raise for it), the message starts with the
call form (``vmap(f, in_dims=(0, 0)): ...``), says what was wrong and names the fix, and
afterwards the interpreter stack is empty and the next call gives the right answer.
"""

from __future__ import annotations

import functools
import types
import warnings

import numpy as np
import pytest

import ftransforms.numpy as fnp
from ftransforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp, vmap
from ftransforms.backend import _NAMESPACES, register_backend
from ftransforms.core import errors as E
from ftransforms.core.stack import current_stack

# -- helpers -----------------------------------------------------------------------------

W = np.array([0.5, -1.0, 2.0])
XS = np.arange(12.0).reshape(4, 3) / 10
X3 = np.linspace(0.1, 0.6, 6).reshape(3, 2)


def _loss(w, x):
    return np.tanh(x @ w).sum()


def check_recovered() -> None:
    """The stack is empty and transforms (nested too) give the right answers again."""
    assert current_stack() == ()
    t = np.tanh(XS @ W)
    per_sample = vmap(grad(_loss), in_dims=(None, 0))(W, XS)
    np.testing.assert_allclose(per_sample, (1 - t**2)[:, None] * XS, rtol=1e-12)
    out, tangent = jvp(np.sin, (XS,), (np.ones_like(XS),))
    np.testing.assert_allclose(out, np.sin(XS), rtol=1e-12)
    np.testing.assert_allclose(tangent, np.cos(XS), rtol=1e-12)
    assert current_stack() == ()


def raises(exc_type, start, fn, *args, also=(), contains=(), **kwargs) -> str:
    """Call ``fn``; it must raise exactly ``exc_type`` (an instance of every type in
    ``also`` too) with a message that starts with ``start`` and contains ``contains``."""
    with pytest.raises(exc_type) as info:
        fn(*args, **kwargs)
    err = info.value
    assert type(err) is exc_type, f"{type(err).__name__}: {err}"
    assert isinstance(err, E.FTransformsError)
    for base in also:
        assert isinstance(err, base), (base, type(err).__mro__)
    msg = str(err)
    assert msg.startswith(start), f"expected start {start!r}, got:\n{msg}"
    for part in (contains,) if isinstance(contains, str) else contains:
        assert part in msg, f"expected {part!r} in:\n{msg}"
    check_recovered()
    return msg


@pytest.fixture(autouse=True)
def _clean_stack():
    assert current_stack() == ()
    yield
    assert current_stack() == ()


def f(x, y):
    return x * y


def g(d):
    return d["a"] * d["b"]


def s(x):
    return np.sin(x).sum()


def sq(x):
    return x * x


# -- vmap: in_dims -----------------------------------------------------------------------


def test_mismatched_batch_sizes_name_both_args_and_sizes():
    msg = raises(
        E.InDimsError,
        "vmap(f, in_dims=(0, 0)): ",
        vmap(f, in_dims=(0, 0)),
        np.ones((3, 2)),
        np.ones((4, 2)),
        also=(ValueError,),
        contains=("different sizes", "x has 3", "y has 4", "in_dim None"),
    )
    assert "batch axes" in msg


def test_mismatched_batch_sizes_in_a_pytree_and_on_other_axes():
    raises(
        E.InDimsError,
        "vmap(g, in_dims=0): ",
        vmap(g),
        {"a": np.ones(3), "b": np.ones(5)},
        contains=("d['a'] has 3", "d['b'] has 5"),
    )
    raises(
        E.InDimsError,
        "vmap(f, in_dims=(1, 0)): ",
        vmap(f, in_dims=(1, 0)),
        np.ones((2, 3)),
        np.ones((2, 3)),
        contains=("x has 3", "y has 2"),
    )


def test_in_dims_problems_are_value_errors():
    with pytest.raises(ValueError):
        vmap(f, in_dims=(0, 0))(np.ones(3), np.ones(4))
    with pytest.raises(ValueError):
        vmap(f, in_dims="0")(np.ones(3), np.ones(3))
    with pytest.raises(ValueError):
        vmap(f, in_dims=(0,))(np.ones(3), np.ones(3))
    check_recovered()


@pytest.mark.parametrize(
    "in_dims, got",
    [
        ("0", "got str"),
        (0.0, "got float"),
        ([0.0, 0], "got 0.0 for x"),
        (True, "got True for x"),
        ((0, False), "got False for y"),
        ((0, "1"), "got '1' for y"),
        ((0, 1.5), "got 1.5 for y"),
    ],
)
def test_in_dims_of_the_wrong_type(in_dims, got):
    call = f"vmap(f, in_dims={in_dims!r}): "
    raises(
        E.InDimsError,
        call,
        vmap(f, in_dims=in_dims),
        np.ones((3, 2)),
        np.ones((3, 2)),
        also=(ValueError,),
        contains=(got, "int", "None"),
    )


@pytest.mark.parametrize(
    "in_dims, contains",
    [
        ((2, 0), ("in_dim=2 is out of range for x of shape (3, 2)", "[-2, 2)")),
        ((-3, 0), ("in_dim=-3 is out of range for x of shape (3, 2)", "[-2, 2)")),
        ((0, 5), ("in_dim=5 is out of range for y of shape (3, 2)",)),
    ],
)
def test_in_dims_out_of_range(in_dims, contains):
    raises(
        E.InDimsError,
        f"vmap(f, in_dims={in_dims!r}): ",
        vmap(f, in_dims=in_dims),
        np.ones((3, 2)),
        np.ones((3, 2)),
        also=(ValueError,),
        contains=contains,
    )


def test_in_dim_on_a_0d_array():
    raises(
        E.InDimsError,
        "vmap(f, in_dims=(0, 0)): ",
        vmap(f, in_dims=(0, 0)),
        np.ones(3),
        np.array(2.0),
        contains=("y is 0-d", "in_dim None"),
    )


@pytest.mark.parametrize("in_dims", [(0,), (0, 0, 0), [None]])
def test_in_dims_tuple_of_the_wrong_length(in_dims):
    raises(
        E.InDimsError,
        f"vmap(f, in_dims={in_dims!r}): ",
        vmap(f, in_dims=in_dims),
        np.ones(3),
        np.ones(3),
        also=(ValueError,),
        contains=(f"in_dims has {len(in_dims)} entries", "2 positional argument(s)"),
    )


def test_in_dims_structure_does_not_match_a_pytree_argument():
    arg = {"a": np.ones(3), "b": np.ones(3)}
    raises(
        E.InDimsError,
        "vmap(g, in_dims=({'a': 0, 'c': 0},)): ",
        vmap(g, in_dims=({"a": 0, "c": 0},)),
        arg,
        also=(ValueError,),
        contains=("does not match the structure", "{'a': *, 'c': *}", "{'a': *, 'b': *}"),
    )

    def h(pair):
        return pair[0] + pair[1]

    raises(
        E.InDimsError,
        "vmap(h, in_dims=((0, 0, 0),)): ",
        vmap(h, in_dims=((0, 0, 0),)),
        (np.ones(3), np.ones(3)),
        contains=("(*, *, *)", "(*, *)"),
    )
    # A matching pytree in_dims works.
    out = vmap(g, in_dims=({"a": 0, "b": None},))({"a": np.arange(3.0), "b": np.ones(2)})
    np.testing.assert_array_equal(out, np.arange(3.0)[:, None] * np.ones(2))


@pytest.mark.parametrize("value, kind", [(3.0, "float"), (2, "int"), (True, "bool")])
def test_in_dim_on_a_python_scalar(value, kind):
    for in_dims in [(0, 0), 0]:
        raises(
            E.InDimsError,
            f"vmap(f, in_dims={in_dims!r}): ",
            vmap(f, in_dims=in_dims),
            np.ones(3),
            value,
            also=(ValueError,),
            contains=(f"y is a {kind}", "no axis 0", "in_dim None"),
        )
    # The fix named in the message works.
    np.testing.assert_array_equal(vmap(f, in_dims=(0, None))(np.ones(3), value), np.ones(3) * value)


def test_in_dim_on_a_none_argument():
    raises(
        E.InDimsError,
        "vmap(f, in_dims=(0, 0)): ",
        vmap(f, in_dims=(0, 0)),
        np.ones(3),
        None,
        also=(ValueError,),
        contains=("y is None", "no axis 0", "in_dim None"),
    )
    raises(
        E.InDimsError,
        "vmap(g, in_dims=({'a': 0, 'b': 1},)): ",
        vmap(g, in_dims=({"a": 0, "b": 1},)),
        {"a": np.ones(3), "b": None},
        contains="d['b'] is None",
    )

    # A broadcast in_dim (not given for the None itself) is fine: None is an empty subtree.
    def h(x, y):
        assert y is None
        return x * 2

    np.testing.assert_array_equal(vmap(h)(np.arange(3.0), None), np.arange(3.0) * 2)
    np.testing.assert_array_equal(vmap(h, in_dims=(0, None))(np.arange(3.0), None), [0, 2, 4])


@pytest.mark.parametrize("in_dims", [None, (None, None)])
def test_all_in_dims_none(in_dims):
    raises(
        E.InDimsError,
        f"vmap(f, in_dims={in_dims!r}): ",
        vmap(f, in_dims=in_dims),
        np.ones(3),
        np.ones(3),
        also=(ValueError,),
        contains=("no argument is batched", "int in_dim"),
    )


# -- vmap: out_dims, randomness, chunk_size ---------------------------------------------


@pytest.mark.parametrize("out_dims, rng", [(2, "[-2, 2)"), (-3, "[-2, 2)"), ((5,), "[-2, 2)")])
def test_out_dims_out_of_range(out_dims, rng):
    raises(
        E.OutDimsError,
        "vmap(sq, in_dims=0): ",
        vmap(sq, out_dims=out_dims),
        np.ones((3, 2)),
        also=(ValueError,),
        contains=("out of range", "rank 1", rng),
    )


def test_out_dims_of_the_wrong_structure():
    raises(
        E.OutDimsError,
        "vmap(sq, in_dims=0): ",
        vmap(sq, out_dims=(0, 0)),
        np.ones(3),
        also=(ValueError,),
        contains=("out_dims=(0, 0) does not match", "(*, *)", "returned *"),
    )

    def pair(x):
        return x, 2 * x

    raises(
        E.OutDimsError,
        "vmap(pair, in_dims=0): ",
        vmap(pair, out_dims=(0, 0, 0)),
        np.ones(3),
        contains=("(*, *, *)", "returned (*, *)"),
    )

    def dct(x):
        return {"b": x}

    raises(E.OutDimsError, "vmap(dct, in_dims=0): ", vmap(dct, out_dims={"a": 0}), np.ones(3))
    raises(
        E.OutDimsError,
        "vmap(sq, in_dims=0): ",
        vmap(sq, out_dims="0"),
        np.ones(3),
        contains="every out_dims entry must be an int or None, got '0'",
    )


def test_out_dims_none_for_a_batched_output():
    raises(
        E.OutDimsError,
        "vmap(sq, in_dims=0): ",
        vmap(sq, out_dims=None),
        np.ones(3),
        also=(ValueError,),
        contains=("out_dims is None", "varies across the batch", "int out_dim"),
    )

    # None for an output that does not depend on the batch is fine.
    def const(x):
        return x * 2, np.arange(2.0)

    a, b = vmap(const, out_dims=(0, None))(np.arange(3.0))
    np.testing.assert_array_equal(a, [0, 2, 4])
    np.testing.assert_array_equal(b, [0, 1])


@pytest.mark.parametrize("randomness", ["bogus", "Error", None, 1])
def test_invalid_randomness(randomness):
    raises(
        E.RandomnessError,
        f"vmap(sq, randomness={randomness!r}): ",
        vmap,
        sq,
        randomness=randomness,
        also=(RuntimeError,),
        contains=("'error'", "'different'", "'same'", f"got {randomness!r}"),
    )
    raises(
        E.RandomnessError,
        f"jacfwd(sq, randomness={randomness!r}): ",
        jacfwd,
        sq,
        randomness=randomness,
    )
    for ok in ("error", "different", "same"):
        np.testing.assert_array_equal(vmap(sq, randomness=ok)(np.arange(3.0)), [0, 1, 4])


@pytest.mark.parametrize("chunk_size", [0, -1, 2.5, "2", True])
def test_invalid_chunk_size(chunk_size):
    raises(
        E.ChunkSizeError,
        f"vmap(sq, chunk_size={chunk_size!r}): ",
        vmap,
        sq,
        chunk_size=chunk_size,
        also=(ValueError,),
        contains=("positive int", f"got {chunk_size!r}"),
    )
    raises(
        E.ChunkSizeError,
        f"jacrev(sq, chunk_size={chunk_size!r}): ",
        jacrev,
        sq,
        chunk_size=chunk_size,
    )


def test_numpy_integer_dims_are_accepted():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(vmap(sq, in_dims=np.int64(1))(x), (x * x).T)
    np.testing.assert_array_equal(vmap(sq, in_dims=(np.int32(-1),), out_dims=np.int64(1))(x), x * x)


def test_valid_chunk_size_gives_the_same_answer():
    x = np.arange(7.0)
    for chunk in (1, 2, 3, np.int64(4), 7, 100):
        np.testing.assert_array_equal(vmap(sq, chunk_size=chunk)(x), x * x)
        np.testing.assert_array_equal(jacrev(sq, chunk_size=chunk)(x), np.diag(2 * x))


# -- grad: outputs -----------------------------------------------------------------------


def test_grad_of_a_non_scalar_output():
    raises(
        E.GradOutputError,
        "grad(sq): ",
        grad(sq),
        np.ones(3),
        also=(TypeError, RuntimeError),
        contains=("real scalar", "shape (3,)", ".sum()", "jacrev"),
    )
    raises(E.GradOutputError, "grad(sq): ", grad_and_value(sq), np.ones((2, 2)))
    # The named fix works.
    np.testing.assert_array_equal(grad(lambda x: sq(x).sum())(np.arange(3.0)), [0, 2, 4])


def test_grad_of_a_complex_output():
    def c(x):
        return (x * 1j).sum()

    raises(
        E.GradOutputError,
        "grad(c): ",
        grad(c),
        np.ones(3),
        contains=("complex", "real scalar", ".real", "abs("),
    )


@pytest.mark.parametrize(
    "out_fn, dtype",
    [(lambda x: (x > 0).sum(), "int64"), (lambda x: (x > 0).any(), "bool"), (lambda x: 3, "int")],
)
def test_grad_of_an_integer_or_bool_output(out_fn, dtype):
    def h(x):
        return out_fn(x)

    raises(
        E.GradOutputError,
        "grad(h): ",
        grad(h),
        np.ones(3),
        also=(TypeError,),
        contains=(f"dtype {dtype}", "floating-point"),
    )


@pytest.mark.parametrize(
    "out_fn, got",
    [
        (lambda x: (x.sum(), x.sum()), "the pytree (*, *)"),
        (lambda x: (x.sum(),), "the pytree (*,)"),
        (lambda x: {"loss": x.sum()}, "the pytree {'loss': *}"),
        (lambda x: [x.sum()], "the pytree [*]"),
        (lambda x: None, "got None"),
    ],
)
def test_grad_of_a_pytree_output(out_fn, got):
    def h(x):
        return out_fn(x)

    raises(
        E.GradOutputError,
        "grad(h): ",
        grad(h),
        np.ones(3),
        contains=(got, "one scalar", "jacrev"),
    )
    raises(E.GradOutputError, "grad(h): ", grad_and_value(h), np.ones(3))


# -- differentiating with respect to integers, argnums -----------------------------------


@pytest.mark.parametrize(
    "value, kind",
    [
        (3, "(int)"),
        (True, "(bool)"),
        (np.arange(3), "(dtype int64)"),
        (np.ones(3, dtype=bool), "(dtype bool)"),
        (np.ones(3, dtype=np.uint8), "(dtype uint8)"),
        (np.int32(2), "(dtype int32)"),
    ],
)
def test_grad_wrt_integer_or_bool_inputs(value, kind):
    def h(x):
        return (x * 2.0).sum()

    for transform in (grad, grad_and_value, jacrev, jacfwd):
        name = "grad" if transform is grad_and_value else transform.__name__
        raises(
            E.NonDifferentiableInputError,
            f"{name}(h): ",
            transform(h),
            value,
            also=(TypeError, RuntimeError),
            contains=(f"x is an integer/bool input {kind}", "float", "argnums"),
        )


def test_grad_wrt_an_integer_leaf_of_a_pytree_or_a_later_argnum():
    def gsum(d):
        return g(d).sum()

    raises(
        E.NonDifferentiableInputError,
        "grad(gsum): ",
        grad(gsum),
        {"a": np.ones(()), "b": np.arange(3)},
        contains="d['b'] is an integer/bool input",
    )
    raises(
        E.NonDifferentiableInputError,
        "grad(f): ",
        grad(f, argnums=(0, 1)),
        np.ones(()),
        2,
        contains="y is an integer/bool input",
    )
    # An integer argument that is not differentiated is fine.
    assert grad(f)(np.float64(2.0), 3) == 3.0


@pytest.mark.parametrize(
    "argnums, contains",
    [
        (2, "argnums=2 is out of range"),
        (-3, "argnums=-3 is out of range"),
        ((0, 2), "argnums=(0, 2) is out of range"),
        ((0, 0), "duplicates"),
        ((1, -1), "duplicates"),
        (1.0, "must be an int or a non-empty tuple of ints, got 1.0"),
        ("0", "got '0'"),
        ([0, 1], "got [0, 1]"),
        ((), "got ()"),
        ((0, 1.0), "got (0, 1.0)"),
        (True, "got True"),
    ],
)
def test_bad_argnums(argnums, contains):
    for transform, name in (
        (grad, "grad"),
        (grad_and_value, "grad"),
        (jacrev, "jacrev"),
        (jacfwd, "jacfwd"),
    ):
        raises(
            E.ArgnumsError,
            f"{name}(f): ",
            transform(f, argnums=argnums),
            np.ones(()),
            np.ones(()),
            also=(ValueError, RuntimeError),
            contains=contains,
        )


# -- has_aux ----------------------------------------------------------------------------


def _aux_callers():
    x = np.arange(1.0, 4.0)
    return {
        "grad": lambda fn: grad(fn, has_aux=True)(x),
        "grad_and_value": lambda fn: grad_and_value(fn, has_aux=True)(x),
        "vjp": lambda fn: vjp(fn, x, has_aux=True),
        "jvp": lambda fn: jvp(fn, (x,), (x,), has_aux=True),
        "jacrev": lambda fn: jacrev(fn, has_aux=True)(x),
        "jacfwd": lambda fn: jacfwd(fn, has_aux=True)(x),
    }


@pytest.mark.parametrize("caller", list(_aux_callers()))
@pytest.mark.parametrize(
    "ret, got",
    [
        (lambda y: y, "got a single array of shape ()"),
        (lambda y: (y, y, y), "got a tuple of length 3"),
        (lambda y: [y, y], "got list"),
        (lambda y: None, "got NoneType"),
    ],
)
def test_has_aux_with_a_non_pair_return(caller, ret, got):
    def h(x):
        return ret((x * x).sum())

    name = "grad" if caller == "grad_and_value" else caller
    raises(
        E.AuxError,
        f"{name}(h): ",
        _aux_callers()[caller],
        h,
        also=(TypeError, RuntimeError),
        contains=("has_aux=True", "(output, aux)", got),
    )

    def ok(x):
        return (x * x).sum(), {"n": 2}

    result = _aux_callers()[caller](ok)
    aux = result[1][1] if caller == "grad_and_value" else result[-1]
    assert aux == {"n": 2}


# -- escaped tracers ----------------------------------------------------------------------

_LEAKED: list = []


def keep(x):
    _LEAKED.append(x)
    return x * 2


def _leak_from(transform_name):
    _LEAKED.clear()
    x = np.arange(1.0, 4.0)
    if transform_name == "vmap":
        vmap(keep)(np.stack([x, x]))
        return _LEAKED[0], "vmap(keep, in_dims=0): "
    if transform_name == "grad":
        grad(lambda v: keep(v).sum())(x)
        return _LEAKED[0], "grad(<lambda>): "
    if transform_name == "jvp":
        jvp(keep, (x,), (x,))
        return _LEAKED[0], "jvp(keep): "
    if transform_name == "vjp":
        vjp(keep, x)
        return _LEAKED[0], "vjp(keep): "
    raise AssertionError(transform_name)


@pytest.mark.parametrize("transform_name", ["vmap", "grad", "jvp", "vjp"])
@pytest.mark.parametrize(
    "use, how",
    [
        (lambda t: t + 1, "by add"),
        (lambda t: np.sin(t), "by sin"),
        (lambda t: fnp.sum(t), "by reduce_sum"),
        (lambda t: t[0], "by "),
        (lambda t: bool(t[0] > 0), "by "),
        (lambda t: bool(t), "bool()"),
        (lambda t: float(t), "float()"),
        (lambda t: np.asarray(t), "numpy.asarray()"),
        (lambda t: vmap(lambda y: y + t)(np.ones((2, 3))), "by add"),
        (lambda t: grad(lambda y: (y * t).sum())(np.ones(3)), "by multiply"),
    ],
)
def test_escaped_tracer(transform_name, use, how):
    leaked, call = _leak_from(transform_name)
    raises(
        E.EscapedTracerError,
        call,
        use,
        leaked,
        also=(RuntimeError,),
        contains=("escaped tracer", how, "Return the value"),
    )
    _LEAKED.clear()


@pytest.mark.parametrize("outer", ["vmap", "grad", "jvp", "vjp", "jacrev"])
def test_returning_an_inner_transforms_tracer(outer):
    def leak_inner(x):
        inner = []

        def h(y):
            inner.append(y)
            return (y * y).sum()

        grad(h)(x)
        return inner[0]

    x = np.arange(1.0, 4.0)
    calls = {
        "vmap": lambda: vmap(leak_inner)(np.ones((2, 3))),
        "grad": lambda: grad(leak_inner)(x),
        "jvp": lambda: jvp(leak_inner, (x,), (x,)),
        "vjp": lambda: vjp(leak_inner, x),
        "jacrev": lambda: jacrev(leak_inner)(x),
    }
    start = "vmap(leak_inner, in_dims=0): " if outer == "vmap" else f"{outer}(leak_inner): "
    raises(
        E.EscapedTracerError,
        start,
        calls[outer],
        contains=("returned a tracer of grad(h)", "escaped tracer"),
    )


def test_escaped_tracer_in_aux():
    def h(x):
        inner = []
        jvp(lambda y: inner.append(y) or y, (x,), (x,))
        return x.sum(), inner[0]

    raises(E.EscapedTracerError, "grad(h): ", grad(h, has_aux=True), np.ones(3))


# -- control flow and conversions ---------------------------------------------------------


def relu_if(x):
    if x > 0:
        return x
    return 0.0 * x


def test_if_on_a_batched_value_under_vmap_with_split_off():
    # By default vmap splits the batch (tests/test_vmap_split*.py); split=False keeps the
    # error that JAX and torch.func raise.
    raises(
        E.BatchedControlFlowError,
        "vmap(relu_if, in_dims=0): ",
        vmap(relu_if, split=False),
        np.array([-1.0, 2.0]),
        also=(TypeError, RuntimeError),
        contains=("no single truth value", "fnp.where"),
    )

    def loop(x):
        while x < 10:
            x = x * 2
        return x

    raises(
        E.BatchedControlFlowError,
        "vmap(loop, in_dims=0): ",
        vmap(loop, split=False),
        np.array([1.0, 20.0]),
    )

    def both(x):
        return (x > 0) and (x < 5)

    raises(
        E.BatchedControlFlowError,
        "vmap(both, in_dims=0): ",
        vmap(both, split=False),
        np.array([1.0, -1.0]),
    )
    raises(
        E.BatchedControlFlowError,
        "vmap(<lambda>, in_dims=0): ",
        vmap(lambda x: grad(relu_if)(x), split=False),
        np.array([-1.0, 2.0]),
    )

    def pick(k):
        return [10.0, 20.0, 30.0][k]  # a batched int used as a Python index

    raises(
        E.BatchedControlFlowError, "vmap(pick, in_dims=0): ", vmap(pick, split=False), np.arange(3)
    )

    # The fix named in the message works.
    def relu_where(x):
        return fnp.where(x > 0, x, 0.0 * x)

    np.testing.assert_array_equal(vmap(relu_where)(np.array([-1.0, 2.0])), [0.0, 2.0])
    # and the default splits: the per-example loop's results
    with pytest.warns(E.PerformanceWarning):
        np.testing.assert_array_equal(vmap(relu_if)(np.array([-1.0, 2.0])), [-0.0, 2.0])
    np.testing.assert_array_equal(vmap(pick)(np.arange(3)), [10.0, 20.0, 30.0])


def test_control_flow_that_is_fine():
    # Under grad / jvp / vjp / jacrev values are concrete (eager): `if` takes the branch.
    for x, slope in ((np.float64(-1.5), 0.0), (np.float64(2.0), 1.0)):
        assert grad(relu_if)(x) == slope
        assert jvp(relu_if, (x,), (np.float64(1.0),))[1] == slope
        assert vjp(relu_if, x)[1](np.float64(1.0))[0] == slope
        assert jacrev(relu_if)(x) == slope
        assert jacfwd(relu_if)(x) == slope

    # Under vmap: `if` on a shape or on an unbatched value works.
    def by_shape(x, w):
        if x.shape[0] > 1 and w.sum() > 0:
            return x * 2
        return x

    np.testing.assert_array_equal(
        vmap(by_shape, in_dims=(0, None))(np.ones((3, 2)), np.ones(2)), 2 * np.ones((3, 2))
    )


@pytest.mark.parametrize(
    "conv, what",
    [
        (float, "float()"),
        (complex, "complex()"),
        (lambda t: t.item(), ".item()"),
        (lambda t: t.tolist(), ".tolist()"),
    ],
)
def test_converting_a_tracer_to_a_python_number(conv, what):
    def h(x):
        return x * conv(x.sum())

    x = np.arange(1.0, 4.0)
    # Under vmap each row's number is a Python value (the batch splits where rows differ).
    xs = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", E.PerformanceWarning)
        np.testing.assert_array_equal(vmap(h)(xs), np.stack([h(r) for r in xs]))
    for call, start in (
        (lambda: grad(lambda v: h(v).sum())(x), "grad(<lambda>): "),
        (lambda: jvp(h, (x,), (x,)), "jvp(h): "),
    ):
        raises(
            E.TracerConversionError,
            start,
            call,
            also=(TypeError,),
            contains=(what, "as an array"),
        )


def test_int_of_a_floating_tracer_truncates_under_grad_and_jvp():
    # NumPy truncates; int(x) is piecewise constant, so its zero derivative is exact
    # (NOTE [number conversions]).  float() of the same value keeps its error (above).
    def h(x):
        return x * int(x.sum())

    x = np.array([0.75, 1.5])
    np.testing.assert_array_equal(h(x), x * 2)
    np.testing.assert_array_equal(grad(lambda v: h(v).sum())(x), [2.0, 2.0])
    out, t = jvp(h, (x,), (np.array([1.0, -1.0]),))
    np.testing.assert_array_equal(out, x * 2)
    np.testing.assert_array_equal(t, [2.0, -2.0])


def test_float_of_stop_gradient_is_the_named_fix_under_grad():
    def h(x):
        return (x * float(fnp.stop_gradient(x.sum()))).sum()

    np.testing.assert_array_equal(grad(h)(np.arange(3.0)), [3.0, 3.0, 3.0])


@pytest.mark.parametrize(
    "conv",
    [
        lambda t: np.asarray([t, t], dtype=np.float32),
        lambda t: np.array([t, t], dtype=np.float32),
    ],
)
def test_numpy_conversion_of_a_tracer_to_a_numeric_array(conv):
    # np.asarray(t) (of t's own dtype: t itself; of another: its cast) / np.array([t, t])
    # (an object array of tracers, tests/test_object_arrays.py) work; a list holding
    # tracers with a numeric dtype= is one traced array of that dtype (a
    # TracerConversionError before round 4), as fnp.array([...], dtype=...) makes.
    def h(x):
        return conv(x)

    out = vmap(h)(np.arange(6.0).reshape(2, 3))
    want = vmap(lambda x: fnp.array([x, x], dtype=np.float32))(np.arange(6.0).reshape(2, 3))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(grad(lambda v: h(v).sum())(np.ones(3)), np.full(3, 2.0))
    np.testing.assert_array_equal(
        vmap(lambda x: fnp.array([x, x], dtype=np.float32))(np.arange(3.0)),
        np.array([[0, 0], [1, 1], [2, 2]], dtype=np.float32),
    )


# -- in-place writes ---------------------------------------------------------------------


def test_item_assignment_on_a_tracer_writes_it():
    # NumPy's mutation semantics (NOTE [mutation semantics]); the caller's array is never
    # modified.
    def h(x):
        x[0] = 1.0
        return x

    x = np.arange(3.0)
    np.testing.assert_array_equal(vmap(h)(np.ones((2, 3))), [[1.0, 1.0, 1.0]] * 2)
    np.testing.assert_array_equal(grad(lambda v: h(v).sum())(x), [0.0, 1.0, 1.0])
    np.testing.assert_array_equal(jvp(h, (x,), (x,))[1], [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(vjp(h, x)[0], [1.0, 1.0, 2.0])
    np.testing.assert_array_equal(x, [0.0, 1.0, 2.0])


def test_augmented_assignment_of_a_tracer_into_a_numpy_array_from_outside():
    acc = np.zeros(3)

    def h(x):
        acc_ = acc  # a NumPy array the function did not make
        acc_ += x
        return acc_

    msg = raises(
        E.InPlaceError,
        "vmap(h, in_dims=0): ",
        vmap(h),
        np.ones((2, 3)),
        contains=("numpy.add(..., out=...)", "np.zeros"),
    )
    assert "caller's data" in msg
    np.testing.assert_array_equal(acc, 0.0)


def test_ufunc_with_out():
    def h(x):
        buf = np.empty(3)
        return np.sin(x, out=buf)

    np.testing.assert_allclose(vmap(h)(np.ones((2, 3))), np.sin(np.ones((2, 3))))
    outside = np.ones(3)
    raises(
        E.InPlaceError,
        "grad(<lambda>): ",
        grad(lambda x: np.add(x, np.ones(3), out=outside).sum()),
        np.ones(3),
        contains=("numpy.add(..., out=...)", "returned value"),
    )
    np.testing.assert_array_equal(outside, 1.0)


def test_ufunc_with_an_unsupported_keyword():
    raises(
        E.UnsupportedOperationError,
        "vmap(<lambda>, in_dims=0): ",
        vmap(lambda x: np.sin(x, where=np.ones(3, dtype=bool))),
        np.ones((2, 3)),
        also=(NotImplementedError, TypeError),
        contains=("numpy.sin", "where= without out="),
    )
    # ufunc.reduce with axis/keepdims is supported.
    out = grad(lambda x: np.add.reduce(x * x, axis=0, keepdims=True).sum())(np.arange(3.0))
    np.testing.assert_array_equal(out, [0.0, 2.0, 4.0])


# -- numpy functions without a rule ------------------------------------------------------


@pytest.mark.parametrize(
    "fn, name",
    [
        (np.packbits, "numpy.packbits"),
        (np.unpackbits, "numpy.unpackbits"),
    ],
)
def test_numpy_function_without_a_rule(fn, name):
    def h(x):
        return fn(x)

    x = np.arange(1.0, 5.0).reshape(2, 2)
    for call, start in (
        (lambda: vmap(h)(np.stack([x, x])), "vmap(h, in_dims=0): "),
        (lambda: grad(lambda v: h(v).sum())(x), "grad(<lambda>): "),
        (lambda: jvp(h, (x,), (x,)), "jvp(h): "),
    ):
        raises(
            E.UnsupportedOperationError,
            start,
            call,
            also=(NotImplementedError, TypeError),
            contains=(f"{name} has no ftransforms rule", "defop"),
        )


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: np.multiply.at(x, 0, 2.0),
        lambda x: np.add.at(x, [0, 0], x[1] * 1.0),
        lambda x: np.subtract.at(x, 1, x[0] * 1.0),
    ],
)
def test_ufunc_at_writes_in_place(fn):
    def h(x):
        fn(x)
        return x

    x = np.arange(1.0, 5.0).reshape(2, 2)
    xs = np.stack([x, 2 * x])
    np.testing.assert_allclose(vmap(h)(xs), [h(r.copy()) for r in xs])


_OUTSIDE = np.ones((2, 2))


def test_ufunc_at_without_a_counterpart_names_the_fix():
    # (np.hypot.at of a traced array is applied once per occurrence: round 8's probes;
    # a traced value into an array from outside the function is what cannot be kept)
    def h(x):
        np.hypot.at(_OUTSIDE, 0, x[0])
        return x

    x = np.arange(1.0, 5.0).reshape(2, 2)
    for call, start in (
        (lambda: vmap(h)(np.stack([x, x])), "vmap(h, in_dims=0): "),
        (lambda: grad(lambda v: h(v).sum())(x), "grad(<lambda>): "),
        (lambda: jvp(h, (x,), (x,)), "jvp(h): "),
    ):
        raises(
            E.InPlaceError,
            start,
            call,
            also=(TypeError, RuntimeError),
            contains=("numpy.hypot.at", "fnp.where"),
        )


# -- jvp tangents, vjp cotangents --------------------------------------------------------


@pytest.mark.parametrize(
    "tangents, contains",
    [
        ((np.ones(4),), "the tangent of x has shape (4,) but the primal has shape (3,)"),
        ((np.ones((3, 1)),), "has shape (3, 1)"),
        ((np.ones(3, dtype=np.float32),), "dtype float32 but the primal has dtype float64"),
        ((np.ones(3, dtype=int),), "dtype int64"),
        ((np.ones(3), np.ones(3)), "tangents have structure (*, *) but primals have (*,)"),
        (((np.ones(3),),), "((*,),)"),
        ((), "tangents have structure ()"),
    ],
)
def test_jvp_tangents_that_differ_from_the_primals(tangents, contains):
    raises(
        E.TangentMismatchError,
        "jvp(sq): ",
        jvp,
        sq,
        (np.ones(3),),
        tangents,
        also=(ValueError, TypeError),
        contains=contains,
    )


def test_jvp_primals_not_a_tuple():
    raises(
        E.TangentMismatchError,
        "jvp(sq): ",
        jvp,
        sq,
        np.ones(3),
        np.ones(3),
        contains=("tuples", "jvp(f, (x,), (t,))"),
    )


def test_jvp_pytree_tangent_mismatch():
    primal = {"a": np.ones(2), "b": np.ones(3)}
    raises(
        E.TangentMismatchError,
        "jvp(g): ",
        jvp,
        g,
        (primal,),
        ({"a": np.ones(2), "c": np.ones(3)},),
        contains=("({'a': *, 'c': *},)", "({'a': *, 'b': *},)"),
    )
    raises(
        E.TangentMismatchError,
        "jvp(g): ",
        jvp,
        g,
        (primal,),
        ({"a": np.ones(2), "b": np.ones(2)},),
        contains="the tangent of d['b'] has shape (2,)",
    )


def _vjp_of(fn, *primals):
    out, vjp_fn = vjp(fn, *primals)
    return out, vjp_fn


@pytest.mark.parametrize(
    "cotangent, contains",
    [
        (np.ones(3), "cotangent 0 has shape (3,) but the output has shape (2, 3)"),
        (np.ones((3, 2)), "has shape (3, 2)"),
        (np.ones((2, 3), dtype=np.float32), "dtype float32 but the output has dtype float64"),
        (np.ones((2, 3), dtype=int), "dtype int64"),
        ((np.ones((2, 3)),), "structure (*,) differs from the output's *"),
        ([np.ones((2, 3))], "structure [*]"),
        ({"a": np.ones((2, 3))}, "structure {'a': *}"),
    ],
)
def test_vjp_fn_with_a_wrong_cotangent(cotangent, contains):
    x = np.linspace(0.1, 0.6, 6).reshape(2, 3)
    out, vjp_fn = _vjp_of(sq, x)
    raises(
        E.TangentMismatchError,
        "vjp(sq) vjp_fn: ",
        vjp_fn,
        cotangent,
        also=(ValueError, TypeError),
        contains=contains,
    )
    # vjp_fn still works after the error.
    np.testing.assert_allclose(vjp_fn(np.ones((2, 3)))[0], 2 * x, rtol=1e-15)


def test_vjp_fn_pytree_cotangent_mismatch():
    def two(x):
        return {"s": np.sin(x), "c": np.cos(x)}

    x = np.arange(3.0)
    _, vjp_fn = vjp(two, x)
    raises(
        E.TangentMismatchError,
        "vjp(two) vjp_fn: ",
        vjp_fn,
        {"s": np.ones(3)},
        contains=("{'s': *}", "{'c': *, 's': *}"),
    )
    raises(
        E.TangentMismatchError,
        "vjp(two) vjp_fn: ",
        vjp_fn,
        {"s": np.ones(3), "c": np.ones(2)},
        contains="has shape (2,)",
    )
    got = vjp_fn({"s": np.ones(3), "c": np.ones(3)})[0]
    np.testing.assert_allclose(got, np.cos(x) - np.sin(x), rtol=1e-15)


def test_linearize_jvp_fn_with_wrong_tangents():
    x = np.arange(3.0)
    _, jvp_fn = linearize(sq, x)
    raises(
        E.TangentMismatchError,
        "linearize(sq) jvp_fn: ",
        jvp_fn,
        np.ones(2),
        contains="tangent 0 has shape (2,) but the primal has shape (3,)",
    )
    raises(
        E.TangentMismatchError,
        "linearize(sq) jvp_fn: ",
        jvp_fn,
        np.ones(3),
        np.ones(3),
        contains="tangents have structure (*, *) but primals have (*,)",
    )
    np.testing.assert_array_equal(jvp_fn(np.ones(3)), 2 * x)


def test_vjp_fn_called_twice_gives_the_same_result():
    def h(x, w):
        return np.tanh(x @ w)

    x, w = np.arange(6.0).reshape(2, 3) / 5, np.array([0.3, -0.2, 0.1])
    _, vjp_fn = vjp(h, x, w)
    ct = np.array([1.0, -2.0])
    first = vjp_fn(ct)
    second = vjp_fn(ct)
    third = vjp_fn(2 * ct)
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(first, third):
        np.testing.assert_allclose(2 * a, b, rtol=1e-14)
    d = (1 - np.tanh(x @ w) ** 2) * ct
    np.testing.assert_allclose(first[0], d[:, None] * w, rtol=1e-14)
    np.testing.assert_allclose(first[1], d @ x, rtol=1e-14)


def test_vjp_fn_after_the_input_was_mutated_in_place():
    x0 = np.linspace(0.1, 1.0, 4)
    x = x0.copy()

    def h(v):
        return np.sin(v) * v

    out, vjp_fn = vjp(h, x)
    _, jvp_fn = linearize(h, x)
    x[:] = 100.0  # the user reuses their buffer
    x *= 3.0
    expected = np.cos(x0) * x0 + np.sin(x0)
    np.testing.assert_allclose(out, np.sin(x0) * x0, rtol=1e-15)
    np.testing.assert_allclose(vjp_fn(np.ones(4))[0], expected, rtol=1e-15)
    np.testing.assert_allclose(jvp_fn(np.ones(4)), expected, rtol=1e-15)


# -- mixing array backends ---------------------------------------------------------------


class FakeArray(np.ndarray):
    """A numpy-backed array of a second, fake backend ("fakexp")."""


def _to_fake(value):
    if type(value) is np.ndarray:
        return value.view(FakeArray)
    if isinstance(value, (tuple, list)):
        return type(value)(_to_fake(v) for v in value)
    return value


def _fake_namespace() -> types.ModuleType:
    mod = types.ModuleType("fakexp")

    def __getattr__(name):  # noqa: N807  (module-level __getattr__)
        obj = getattr(np, name)
        if not callable(obj) or isinstance(obj, type):
            return obj

        @functools.wraps(obj)
        def wrapper(*args, **kwargs):
            return _to_fake(obj(*args, **kwargs))

        return wrapper

    mod.__getattr__ = __getattr__
    return mod


@pytest.fixture
def fake_backend():
    register_backend(FakeArray, _fake_namespace())
    try:
        yield lambda a: np.asarray(a, dtype=float).view(FakeArray)
    finally:
        _NAMESPACES.pop(FakeArray, None)


def test_mixing_numpy_with_another_backend(fake_backend):
    a = np.arange(3.0)
    b = fake_backend([1.0, 2.0, 3.0])
    for call, start in (
        (lambda: grad(lambda x, y: (x * y).sum())(a, b), "grad(<lambda>): multiply: "),
        (lambda: grad(lambda x: (x * b).sum())(a), "grad(<lambda>): multiply: "),
        (lambda: vmap(f)(a, b), "vmap(f, in_dims=0): multiply: "),
        (lambda: jvp(f, (a, b), (a, b)), "jvp(f): multiply: "),
        (lambda: fnp.add(a, b), "add: "),
    ):
        raises(
            E.MixedBackendError,
            start,
            call,
            also=(TypeError,),
            contains=("cannot mix", "numpy", "fakexp", "fakexp.asarray(x)", "numpy.asarray(x)"),
        )


def test_one_other_backend_alone_works(fake_backend):
    b = fake_backend([0.0, 1.0, 2.0])
    out = vmap(sq)(b)
    assert type(out) is FakeArray
    np.testing.assert_array_equal(out, [0.0, 1.0, 4.0])
    g_out = grad(lambda x: (x * x).sum())(b)
    assert type(g_out) is FakeArray
    np.testing.assert_array_equal(g_out, [0.0, 2.0, 4.0])


# -- exceptions from user code -----------------------------------------------------------


class UserError(Exception):
    pass


def _nested_calls(fn):
    x = np.arange(1.0, 4.0)
    xs = np.ones((2, 3))

    def inner(v):
        return jvp(fn, (v,), (v,))[1].sum()

    return {
        "vmap(grad(jvp))": lambda: vmap(grad(inner))(xs),
        "jacrev(vmap)": lambda: jacrev(vmap(fn))(xs),
        "jacfwd(grad)": lambda: jacfwd(grad(lambda v: fn(v).sum()))(x),
        "hessian": lambda: hessian(lambda v: fn(v).sum())(x),
        "vmap chunked": lambda: vmap(grad(inner), chunk_size=1)(xs),
        "vjp(vmap)": lambda: vjp(vmap(fn), xs),
        "linearize(grad)": lambda: linearize(grad(lambda v: fn(v).sum()), x),
    }


@pytest.mark.parametrize("composition", list(_nested_calls(sq)))
@pytest.mark.parametrize("exc_type", [UserError, KeyboardInterrupt, ValueError])
def test_user_exception_deep_inside_nested_transforms(composition, exc_type):
    instance = exc_type("raised by the user's function")
    depth = []

    def bad(v):
        depth.append(len(current_stack()))
        raise instance

    with pytest.raises(exc_type) as info:
        _nested_calls(bad)[composition]()
    assert info.value is instance
    assert str(info.value) == "raised by the user's function"
    assert info.value.__cause__ is None
    assert depth and depth[0] >= 2  # it really was raised inside nested transforms
    check_recovered()


def test_exception_caught_inside_a_transform_leaves_the_outer_one_intact():
    def h(x):
        try:
            grad(lambda v: v)(x * np.ones(2))  # a GradOutputError inside vmap
        except E.GradOutputError:
            pass
        assert len(current_stack()) == 1
        try:
            jvp(lambda v: (_ for _ in ()).throw(UserError("x")), (x,), (x,))
        except UserError:
            pass
        assert len(current_stack()) == 1
        return grad(lambda v: v * v)(x) + x

    np.testing.assert_array_equal(vmap(h)(np.arange(3.0)), [0.0, 3.0, 6.0])
    check_recovered()


def test_scipy_conversion_error_names_only_counterparts_that_exist():
    # A compiled SciPy routine with no ftransforms counterpart: the error says so (SciPy's
    # Python functions without one, such as scipy.optimize.rosen, run instead:
    # tests/test_scipy_python_functions.py).
    scipy_ndimage = pytest.importorskip("scipy.ndimage")
    with pytest.raises(E.TracerConversionError) as info:
        grad(lambda x: scipy_ndimage.geometric_transform(x, lambda c: (c[0] * 0.9,)).sum())(
            np.arange(5.0)
        )
    assert "scipy.ndimage.geometric_transform" in str(info.value)
    assert "ftransforms.scipy.ndimage" not in str(info.value)
    assert "no counterpart" in str(info.value)
