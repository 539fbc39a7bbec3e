"""Composition fuzzing: random programs under random transform stacks, against JAX.

A hypothesis strategy draws a *program* ``f(x, w)``: a few lines of NumPy-style code
(elementwise math with Python scalars mixed in, broadcasting binary ops, reductions with
random ``axis``/``keepdims``, slicing and integer-array indexing, ``@``/``einsum``,
reshapes and transposes, ``where``/``maximum``), every line shape-checked as it is drawn
and every domain safe (``log(v ** 2 + 1)``, ``sqrt(v * v + 1)``).  It then draws a stack
of up to three transforms from ``vmap`` (random ``in_dims``/``out_dims``/``chunk_size``),
``grad`` (of a sum), ``jvp``, ``vjp``, ``jacfwd``, ``jacrev`` and ``hessian``, each
differentiating ``x`` or ``w``, and compares ftransforms (the program written with
``numpy`` or with ``ftransforms.numpy``) with the same program and stack in JAX, float64.

The JAX side is evaluated without XLA compiles (NOTE [the JAX oracle without XLA
compiles] in ``tests/jaxpr_evaluator.py``): JAX builds the jaxpr of the stack and
:class:`JaxprEvaluator` runs it with NumPy, in float64.  ``FTRANSFORMS_FUZZ_ORACLE=xla``
runs the JAX stack on XLA instead, and ``test_oracle_evaluator_matches_xla`` checks the
evaluator against XLA on random programs in every run.

Sizes: ``FTRANSFORMS_FUZZ_EXAMPLES`` sets the number of examples of the fuzz test
(default 300; the evaluator cross-check runs a thirtieth of it), e.g. 5000 for a long run;
``FTRANSFORMS_HYPOTHESIS_PROFILE=explore`` makes them random instead of the fixed CI
sequence.  A failure prints the program and the
stack as code: minimise it, and add it below as a ``test_regression_*``.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import ftransforms
import ftransforms.numpy as fnp
from ftransforms import nn as fnn
from tests.jaxpr_evaluator import JaxprEvaluator, UnknownPrimitive
from tests.tolerances import assert_tree_close, tol

jax.config.update("jax_enable_x64", True)

#: Largest number of elements of any value inside a program, and of a transform's input.
MAX_SIZE = 24
#: Largest number of elements of the final result of a stack.
MAX_OUT = 400


def _examples(default: int) -> int:
    return int(os.environ.get("FTRANSFORMS_FUZZ_EXAMPLES", default))


def K(*shape: int) -> np.ndarray:
    """A deterministic float64 constant of ``shape`` with distinct, O(1) entries."""
    n = math.prod(shape)
    return (np.sin(np.arange(1, n + 1) * 1.7) * 1.3 + 0.1).reshape(shape)


# -- programs ----------------------------------------------------------------------------


@dataclass
class Program:
    """``f(x, w)``: ``lines`` of code over ``xp`` (numpy, ftransforms.numpy or jax.numpy),
    ``np`` (constant index arrays) and ``K`` (constants); the last line's value is the
    output."""

    x_shape: tuple[int, ...]
    w_shape: tuple[int, ...]
    lines: list[str] = field(default_factory=list)
    out_shape: tuple[int, ...] = ()

    def source(self) -> str:
        body = "\n".join(f"    {line}" for line in self.lines)
        return f"def f(x, w):\n{body}\n    return v{len(self.lines)}"

    def build(self, xp: Any):
        namespace = {"xp": xp, "np": np, "K": K}
        exec(self.source(), namespace)  # noqa: S102  (our own generated code)
        return namespace["f"]

    def __repr__(self) -> str:
        return f"# x: {self.x_shape}, w: {self.w_shape}\n{self.source()}"


def _shape_ok(shape: tuple[int, ...]) -> bool:
    return len(shape) <= 4 and math.prod(shape) <= MAX_SIZE


def _fmt_axis(axis: Any) -> str:
    return repr(axis)


def _unary(draw, a, shape):
    templates = [
        "xp.sin({a})",
        "xp.cos({a})",
        "xp.tanh({a})",
        "xp.arctan({a})",
        "xp.exp(xp.sin({a}))",
        "xp.log({a} ** 2 + 1)",
        "xp.sqrt({a} * {a} + 1.0)",
        "{a} ** 2",
        "{a} ** 3",
        "-{a}",
        "xp.abs({a})",
        "2.5 * {a}",
        "{a} - 0.75",
        "1.0 / (1.0 + {a} ** 2)",
        "xp.square({a})",
        "3 * xp.tanh({a}) + 1",
        "xp.expm1(xp.tanh({a}))",
        "{a} / 3",
        "xp.maximum({a}, 0.0)",
        "xp.minimum(0.5, {a})",
        "xp.clip({a}, -0.5, 0.5)",
        "xp.where({a} > 0, {a}, 0.1 * {a})",
        "xp.log1p(xp.exp(-xp.abs({a}))) + xp.maximum({a}, 0)",
        "{a}.T",
    ]
    return draw(st.sampled_from(templates)).format(a=a), shape


def _operand_shape(draw, shape):
    """A shape that broadcasts against ``shape``: a suffix of it, some axes set to 1,
    sometimes with a new leading axis."""
    k = draw(st.integers(0, len(shape)))
    suffix = list(shape[len(shape) - k :])
    for i in range(len(suffix)):
        if draw(st.booleans()) and draw(st.booleans()):
            suffix[i] = 1
    if k == len(shape) and draw(st.integers(0, 4)) == 0:
        suffix.insert(0, draw(st.integers(1, 3)))
    return tuple(suffix)


def _operand(draw, regs, shape, allow_scalar=True):
    """(code, shape) of a second operand: a register, a constant, or a Python scalar."""
    choices = ["const", "reg"] + (["scalar"] if allow_scalar else [])
    kind = draw(st.sampled_from(choices))
    if kind == "reg":
        fits = []
        for name, s in regs:
            try:
                out = np.broadcast_shapes(shape, s)
            except ValueError:
                continue
            if _shape_ok(out):
                fits.append((name, s))
        if fits:
            return draw(st.sampled_from(fits))
        kind = "const"
    if kind == "scalar":
        return repr(draw(st.sampled_from([0.5, -1.25, 2.0, 3]))), ()
    s = _operand_shape(draw, shape)
    return f"K{s!r}" if s else "K()", s


def _binary(draw, regs, a, shape):
    b, b_shape = _operand(draw, regs, shape)
    out = np.broadcast_shapes(shape, b_shape)
    if not _shape_ok(out):
        return None
    templates = [
        "{a} + {b}",
        "{b} - {a}",
        "{a} * {b}",
        "{a} / (1.0 + {b} ** 2)",
        "xp.maximum({a}, {b})",
        "xp.minimum({b}, {a})",
        "xp.where({a} > {b}, {a}, 0.5 * {b} - 1.0)",
        "xp.arctan2({a}, 1.0 + {b} ** 2)",
    ]
    if b_shape or b[0] not in "-0123456789":
        # Not on a Python scalar: NumPy's sin(0.5) is a float64 scalar that promotes a
        # float32 array, JAX's a weakly typed one that does not.
        templates.append("{a} * xp.tanh({b})")
    return draw(st.sampled_from(templates)).format(a=a, b=b), out


def _reduction(draw, a, shape):
    rank = len(shape)
    kind = draw(st.sampled_from(["sum", "mean", "max", "min", "prod", "var", "method_sum"]))
    axis_kind = draw(st.sampled_from(["none", "int", "tuple"] if rank else ["none"]))
    if axis_kind == "none":
        axis = None
        axes = tuple(range(rank))
    elif axis_kind == "int":
        axis = draw(st.integers(-rank, rank - 1))
        axes = (axis % rank,)
    else:
        axes = tuple(sorted(draw(st.sets(st.integers(0, rank - 1), min_size=1))))
        axis = axes
    keepdims = draw(st.booleans())
    if keepdims:
        out = tuple(1 if i in axes else n for i, n in enumerate(shape))
    else:
        out = tuple(n for i, n in enumerate(shape) if i not in axes)
    kd = ", keepdims=True" if keepdims else ""
    if kind == "method_sum":
        code = f"{a}.sum(axis={_fmt_axis(axis)}{kd})"
    else:
        code = f"xp.{kind}({a}, axis={_fmt_axis(axis)}{kd})"
    return code, out


def _index_entry(draw, n):
    """(code, result axes, consumed?, is_array) for one index entry on an axis of size n."""
    kind = draw(st.sampled_from(["slice", "slice", "int", "array", "array2d", "none"]))
    if kind == "none":
        return "None", None, False, False
    if kind == "int":
        i = draw(st.integers(-n, n - 1))
        return repr(i), None, True, False
    if kind in ("array", "array2d"):
        rows = 2 if kind == "array2d" else 1
        length = draw(st.integers(1, 3))
        vals = [draw(st.integers(-n, n - 1)) for _ in range(rows * length)]
        arr = np.array(vals).reshape((rows, length) if rows == 2 else (length,))
        return f"np.array({arr.tolist()!r})", arr.shape, True, True
    start = draw(st.one_of(st.none(), st.integers(-n, n - 1)))
    stop = draw(st.one_of(st.none(), st.integers(-n, n)))
    step = draw(st.sampled_from([None, None, 1, 2, -1, -2]))
    sl = slice(start, stop, step)
    size = len(range(*sl.indices(n)))
    if size == 0:
        sl = slice(None, None, step)
        size = len(range(*sl.indices(n)))
    parts = ["" if v is None else repr(v) for v in (sl.start, sl.stop)]
    code = ":".join(parts) + ("" if sl.step is None else f":{sl.step}")
    return code, (size,), True, False


def _indexing(draw, a, shape):
    rank = len(shape)
    if rank == 0:
        return None
    n_entries = draw(st.integers(1, rank))
    codes = []
    axis = 0
    for _ in range(n_entries):
        if axis >= rank:
            break
        code, _, consumed, _ = _index_entry(draw, shape[axis])
        codes.append(code)
        if consumed:
            axis += 1
    if draw(st.integers(0, 3)) == 0:
        codes.insert(draw(st.integers(0, len(codes))), "...")
    index_code = ", ".join(codes)
    # NumPy decides the shape (advanced-index placement included).
    try:
        out = eval(f"np.zeros({shape!r})[{index_code}]", {"np": np}).shape  # noqa: S307
    except IndexError:  # index arrays that do not broadcast together
        return None
    if not _shape_ok(out) or 0 in out:
        return None
    return f"{a}[{index_code}]", out


def _matmul(draw, regs, a, shape):
    rank = len(shape)
    if rank == 0:
        return None
    n = shape[-1]
    kind = draw(st.sampled_from(["right", "right_vec", "left", "einsum"]))
    if kind == "right":
        k = draw(st.integers(1, 3))
        code, out = f"{a} @ K({n}, {k})", shape[:-1] + (k,)
    elif kind == "right_vec":
        code, out = f"{a} @ K({n})", shape[:-1]
    elif kind == "left":
        if rank == 1:
            k = draw(st.integers(1, 3))
            code, out = f"xp.matmul(K({k}, {n}), {a})", (k,)
        else:
            k = draw(st.integers(1, 3))
            code, out = f"K({k}, {shape[-2]}) @ {a}", shape[:-2] + (k, n)
    else:
        return _einsum(draw, regs, a, shape)
    return (code, out) if _shape_ok(out) else None


def _einsum(draw, regs, a, shape):
    letters = "abcd"[: len(shape)]
    sizes = dict(zip(letters, shape))
    # The second operand: a register (its axes matched to ours where sizes agree) or a
    # constant over some of our letters plus fresh ones.
    b_letters = []
    use_reg = draw(st.booleans())
    b_code = None
    if use_reg:
        cands = [(nm, s) for nm, s in regs if 0 < len(s) <= 3]
        if cands:
            nm, s = draw(st.sampled_from(cands))
            fresh = iter("efgh")
            for size in s:
                match = [c for c in letters if sizes[c] == size and c not in b_letters]
                if match and draw(st.booleans()):
                    b_letters.append(draw(st.sampled_from(match)))
                else:
                    c = next(fresh)
                    sizes[c] = size
                    b_letters.append(c)
            b_code = nm
    if b_code is None:
        for c in letters:
            if draw(st.booleans()):
                b_letters.append(c)
        for c in "ef"[: draw(st.integers(0, 2))]:
            sizes[c] = draw(st.integers(1, 3))
            b_letters.append(c)
        if not b_letters:
            sizes["e"] = 2
            b_letters.append("e")
        b_letters = draw(st.permutations(b_letters))
        b_code = f"K{tuple(sizes[c] for c in b_letters)!r}"
    all_letters = sorted(set(letters) | set(b_letters))
    out_letters = draw(st.lists(st.sampled_from(all_letters), unique=True, max_size=3))
    out = tuple(sizes[c] for c in out_letters)
    if not _shape_ok(out):
        return None
    subs = f"{letters},{''.join(b_letters)}->{''.join(out_letters)}"
    return f"xp.einsum({subs!r}, {a}, {b_code})", out


def _factorizations(n, rank):
    if rank == 0:
        return [()] if n == 1 else []
    out = []
    for d in range(1, n + 1):
        if n % d == 0:
            out += [(d,) + rest for rest in _factorizations(n // d, rank - 1)]
    return out


def _reshape(draw, a, shape):
    rank = len(shape)
    kind = draw(st.sampled_from(["reshape", "transpose", "moveaxis", "expand", "squeeze"]))
    n = math.prod(shape)
    if kind == "reshape":
        options = [s for r in range(4) for s in _factorizations(n, r)]
        new = draw(st.sampled_from(options))
        if new and draw(st.booleans()):
            i = draw(st.integers(0, len(new) - 1))
            spelled = new[:i] + (-1,) + new[i + 1 :]
        else:
            spelled = new
        if draw(st.booleans()):
            return f"{a}.reshape({spelled!r})", new
        return f"xp.reshape({a}, {spelled!r})", new
    if kind == "transpose":
        if rank < 2:
            return None
        perm = tuple(draw(st.permutations(range(rank))))
        return f"xp.transpose({a}, {perm!r})", tuple(shape[p] for p in perm)
    if kind == "moveaxis":
        if rank < 2:
            return None
        src = draw(st.integers(-rank, rank - 1))
        dst = draw(st.integers(-rank, rank - 1))
        out = list(shape)
        out.insert(dst % rank, out.pop(src % rank))
        return f"xp.moveaxis({a}, {src}, {dst})", tuple(out)
    if kind == "expand":
        ax = draw(st.integers(0, rank))
        out = shape[:ax] + (1,) + shape[ax:]
        return (f"xp.expand_dims({a}, {ax})", out) if _shape_ok(out) else None
    ones = [i for i, s in enumerate(shape) if s == 1]
    if not ones:
        return None
    ax = draw(st.sampled_from(ones))
    return f"xp.squeeze({a}, axis={ax})", shape[:ax] + shape[ax + 1 :]


def _join(draw, regs, a, shape):
    rank = len(shape)
    if rank == 0:
        return None
    axis = draw(st.integers(0, rank - 1))
    kind = draw(st.sampled_from(["concatenate", "stack"]))
    if kind == "concatenate":
        out = shape[:axis] + (2 * shape[axis],) + shape[axis + 1 :]
        code = f"xp.concatenate([{a}, xp.sin({a})], axis={axis})"
    else:
        same = [nm for nm, s in regs if s == shape]
        b = draw(st.sampled_from(same))
        axis = draw(st.integers(-rank - 1, rank))
        out = list(shape)
        out.insert(axis % (rank + 1), 2)
        out = tuple(out)
        code = f"xp.stack([{a}, {b} * 0.5], axis={axis})"
    return (code, out) if _shape_ok(out) else None


def _scan(draw, a, shape):
    rank = len(shape)
    if rank == 0:
        return None
    k = draw(st.integers(-rank, rank - 1))
    templates = [
        "xp.cumsum({a}, axis={k})",
        "xp.cumprod({a}, axis={k})",
        "xp.flip({a}, axis={k})",
        "xp.sort({a}, axis={k})",
        "xp.take_along_axis({a}, xp.argsort({a}, axis={k}), axis={k})",
        "xp.linalg.norm({a}, axis={k})",
        "xp.linalg.norm({a} + 0.5)",
        "{a}[xp.argmax({a}, axis=0)]",
    ]
    code = draw(st.sampled_from(templates)).format(a=a, k=k)
    if "norm(" in code:
        out = () if "axis" not in code else shape[: k % rank] + shape[k % rank + 1 :]
    elif "argmax" in code:
        out = shape[1:] + shape[1:]
    else:
        out = shape
    return (code, out) if _shape_ok(out) else None


def _contract(draw, regs, a, shape):
    """A product of two values of the program: ``@``, ``outer`` or ``tensordot``."""
    name, b_shape = draw(st.sampled_from(regs))
    kind = draw(st.sampled_from(["matmul", "outer", "tensordot"]))
    if kind == "matmul":
        code = f"{a} @ {name}"
    elif kind == "outer":
        code = f"xp.outer({a}, {name})"
    else:
        code = f"xp.tensordot({a}, {name}, axes=1)"
    try:
        probe = {"xp": np, "np": np, a: np.zeros(shape), name: np.zeros(b_shape)}
        out = eval(code, probe).shape  # noqa: S307
    except (ValueError, IndexError):
        return None
    return (code, out) if _shape_ok(out) and 0 not in out else None


OP_KINDS = [
    "unary",
    "unary",
    "binary",
    "binary",
    "reduce",
    "index",
    "matmul",
    "shape",
    "join",
    "scan",
    "contract",
]


@st.composite
def programs(draw) -> Program:
    def shape_st(max_rank):
        return st.lists(st.integers(1, 3), min_size=0, max_size=max_rank).map(tuple)

    x_shape = draw(shape_st(3))
    w_shape = draw(shape_st(2))
    prog = Program(x_shape, w_shape)
    regs = [("x", x_shape), ("w", w_shape)]
    n_ops = draw(st.sampled_from([1, 2, 3, 4, 4, 5, 5, 6, 6, 7, 8]))  # shrinks to 1
    current = ("x", x_shape)
    while len(prog.lines) < n_ops:
        a, shape = current
        kind = draw(st.sampled_from(OP_KINDS))
        if kind == "unary":
            made = _unary(draw, a, shape)
            if made[0] == f"{a}.T" and len(shape) < 2:
                continue
            if made[0] == f"{a}.T":
                made = (made[0], shape[::-1])
        elif kind == "binary":
            made = _binary(draw, regs, a, shape)
        elif kind == "reduce":
            made = _reduction(draw, a, shape)
        elif kind == "index":
            made = _indexing(draw, a, shape)
        elif kind == "matmul":
            made = _matmul(draw, regs, a, shape)
        elif kind == "shape":
            made = _reshape(draw, a, shape)
        elif kind == "scan":
            made = _scan(draw, a, shape)
        elif kind == "contract":
            made = _contract(draw, regs, a, shape)
        else:
            made = _join(draw, regs, a, shape)
        if made is None:
            continue
        code, out = made
        name = f"v{len(prog.lines) + 1}"
        prog.lines.append(f"{name} = {code}")
        regs.append((name, out))
        # Mostly a chain; sometimes continue from an earlier value (the DAG case).
        current = (name, out) if draw(st.integers(0, 5)) else draw(st.sampled_from(regs[:-1]))
        if current[0] == "w":
            current = (name, out)
    if regs[-1][0] != f"v{len(prog.lines)}":  # pragma: no cover
        raise AssertionError("the program must end in its last line")
    prog.out_shape = regs[-1][1]
    return prog


# -- transform stacks --------------------------------------------------------------------


@dataclass(frozen=True)
class Level:
    """One transform of a stack; ``arg`` is the argument it differentiates (0: x, 1: w)."""

    kind: str
    arg: int = 0
    in_dims: tuple = (0, None)
    out_dims: int = 0
    size: int = 2
    chunk_size: int | None = None
    reduce: str = "sum"

    def __repr__(self) -> str:
        if self.kind == "vmap":
            chunk = "" if self.chunk_size is None else f", chunk_size={self.chunk_size}"
            return (
                f"vmap(in_dims={self.in_dims}, out_dims={self.out_dims}{chunk}) [batch {self.size}]"
            )
        extra = f", reduce={self.reduce}" if self.kind in ("grad", "hessian") else ""
        return f"{self.kind}(argnums={self.arg}{extra})"


def _insert(shape, dim, size):
    if dim is None:
        return shape
    d = dim % (len(shape) + 1)
    return shape[:d] + (size,) + shape[d:]


def stack_shapes(prog: Program, levels: list[Level]):
    """(outer x shape, outer w shape, output shape, largest input size) of the stack."""
    xs, ws, out = prog.x_shape, prog.w_shape, prog.out_shape
    biggest = max(math.prod(xs), math.prod(ws))
    for lv in levels:
        arg_shape = (xs, ws)[lv.arg]
        if lv.kind == "vmap":
            out = _insert(out, lv.out_dims, lv.size)
            xs = _insert(xs, lv.in_dims[0], lv.size)
            ws = _insert(ws, lv.in_dims[1], lv.size)
        elif lv.kind in ("grad", "vjp"):
            out = arg_shape
        elif lv.kind == "jvp":
            pass
        elif lv.kind in ("jacfwd", "jacrev"):
            out = out + arg_shape
        elif lv.kind == "hessian":
            out = arg_shape + arg_shape
        biggest = max(biggest, math.prod(xs), math.prod(ws))
    return xs, ws, out, biggest


@st.composite
def stacks(draw, prog: Program) -> list[Level]:
    depth = draw(st.sampled_from([1, 2, 2, 3, 3, 3]))  # weighted to deep stacks
    levels: list[Level] = []
    xs, ws, out = prog.x_shape, prog.w_shape, prog.out_shape
    for _ in range(depth):
        kind = draw(
            st.sampled_from(["vmap", "vmap", "grad", "jvp", "vjp", "jacfwd", "jacrev", "hessian"])
        )
        if kind == "vmap":
            dx = draw(st.one_of(st.none(), st.integers(-len(xs) - 1, len(xs))))
            dw = draw(st.one_of(st.none(), st.integers(-len(ws) - 1, len(ws))))
            if dx is None and dw is None:
                dx = 0
            do = draw(st.integers(-len(out) - 1, len(out)))
            size = draw(st.integers(1, 3))
            chunk = draw(st.sampled_from([None, None, None, 1, 2]))
            lv = Level("vmap", in_dims=(dx, dw), out_dims=do, size=size, chunk_size=chunk)
        else:
            reduce = draw(st.sampled_from(["sum", "sumsq"]))
            lv = Level(kind, arg=draw(st.integers(0, 1)), reduce=reduce)
        levels.append(lv)
        xs, ws, out, _ = stack_shapes(prog, levels)
    return levels


# -- running a stack ---------------------------------------------------------------------


def _with(args: tuple, i: int, value: Any) -> tuple:
    return args[:i] + (value,) + args[i + 1 :]


def wrap(lv: Level, g, T: Any, xp: Any, is_jax: bool):
    """``g(x, w)`` under the transform ``lv`` (``T``: ftransforms or jax)."""
    if lv.kind == "vmap":
        if is_jax:
            return jax.vmap(g, in_axes=lv.in_dims, out_axes=lv.out_dims)
        return T.vmap(g, in_dims=lv.in_dims, out_dims=lv.out_dims, chunk_size=lv.chunk_size)
    a = lv.arg

    def scalar(x, w):
        out = g(x, w)
        return xp.sum(out) if lv.reduce == "sum" else xp.sum(out * out)

    if lv.kind == "grad":
        return T.grad(scalar, argnums=a)
    if lv.kind == "hessian":
        return T.hessian(scalar, argnums=a)
    if lv.kind == "jacfwd":
        return T.jacfwd(g, argnums=a)
    if lv.kind == "jacrev":
        return T.jacrev(g, argnums=a)

    def pushed(x, w):
        args = (x, w)

        def inner(p):
            return g(*_with(args, a, p))

        p = args[a]
        if lv.kind == "jvp":
            return T.jvp(inner, (p,), (xp.cos(p) + 0.5,))[1]
        out, pullback = T.vjp(inner, p)
        return pullback(xp.sin(out) + 0.5)[0]

    return pushed


def compose(levels: list[Level], f, T: Any, xp: Any, is_jax: bool = False):
    for lv in levels:
        f = wrap(lv, f, T, xp, is_jax)
    return f


def inputs(prog: Program, levels: list[Level], seed: int) -> tuple[np.ndarray, np.ndarray]:
    xs, ws, _, _ = stack_shapes(prog, levels)
    rng = np.random.default_rng(seed)
    return rng.standard_normal(xs), rng.standard_normal(ws)


# -- the oracle: JAX's jaxpr, evaluated with NumPy (NOTE [the JAX oracle ...]) -----------

ORACLE = os.environ.get("FTRANSFORMS_FUZZ_ORACLE", "numpy")


def jax_oracle(prog: Program, levels: list[Level], x, w, oracle: str = ORACLE):
    """The JAX result of the stack, as a NumPy array."""
    f = compose(levels, prog.build(jnp), jax, jnp, is_jax=True)
    if oracle == "numpy":
        try:
            (out,) = JaxprEvaluator.run(jax.make_jaxpr(f)(x, w), x, w)
            return out
        except UnknownPrimitive:
            pass
    return np.asarray(jax.jit(f)(x, w))


# -- the fuzz tests ----------------------------------------------------------------------


@dataclass
class Case:
    prog: Program
    levels: list[Level]
    seed: int
    style: str  # "np" (plain numpy user code) or "fnp"

    def __repr__(self) -> str:
        stack = " o ".join(repr(lv) for lv in reversed(self.levels))
        return f"Case[{self.style}, seed={self.seed}]\n{self.prog!r}\n# stack: {stack}"


@st.composite
def cases(draw) -> Case:
    prog = draw(programs())
    levels = draw(stacks(prog))
    _, _, out, biggest = stack_shapes(prog, levels)
    # Keep Jacobians of Jacobians small: redraw the stack's shapes rather than reject.
    while biggest > 3 * MAX_SIZE or math.prod(out) > MAX_OUT:
        levels = levels[:-1]
        if not levels:
            levels = [Level("grad", arg=0)]
        _, _, out, biggest = stack_shapes(prog, levels)
    seed = draw(st.integers(0, 2**16))
    style = draw(st.sampled_from(["np", "fnp"]))
    return Case(prog, levels, seed, style)


def run_ours(case: Case, x, w):
    xp = np if case.style == "np" else fnp
    return compose(case.levels, case.prog.build(xp), ftransforms, xp)(x, w)


def check_case(case: Case, oracle: str = ORACLE) -> None:
    x, w = inputs(case.prog, case.levels, case.seed)
    expected = jax_oracle(case.prog, case.levels, x, w, oracle)
    with np.errstate(all="ignore"):
        actual = run_ours(case, x, w)
    assert_tree_close(actual, expected, **tol(np.float64), dtype=np.float64, err_msg=repr(case))
    if case.seed % 3 == 0:
        # float32 inputs: the result has JAX's dtype (float32, or float64 where a float64
        # constant joins in) and shape.  Values are compared in float64 only: a random
        # program's float32 round-off has no fixed bound.
        x32, w32 = x.astype(np.float32), w.astype(np.float32)
        f = compose(case.levels, case.prog.build(jnp), jax, jnp, is_jax=True)
        aval = jax.make_jaxpr(f)(x32, w32).out_avals[0]
        with np.errstate(all="ignore"):
            out32 = run_ours(case, x32, w32)
        assert isinstance(out32, np.ndarray), f"{case!r}\nfloat32: got {type(out32)}"
        assert (out32.dtype, out32.shape) == (aval.dtype, aval.shape), f"{case!r}\nfloat32"


FUZZ = settings(
    max_examples=_examples(300),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.slow  # 300 random stacks against JAX: the separate slow step of .ci/run
@FUZZ
@given(cases())
def test_fuzz_compositions(case: Case) -> None:
    note(repr(case))
    check_case(case)


@settings(max_examples=_examples(300) // 30, suppress_health_check=list(HealthCheck))
@given(cases())
def test_oracle_evaluator_matches_xla(case: Case) -> None:
    """The NumPy jaxpr evaluator computes what XLA computes for the same JAX stack."""
    note(repr(case))
    x, w = inputs(case.prog, case.levels, case.seed)
    ours = jax_oracle(case.prog, case.levels, x, w, "numpy")
    xla = jax_oracle(case.prog, case.levels, x, w, "xla")
    assert_tree_close(ours, xla, **tol(np.float64), err_msg=repr(case))


# -- regressions: failures the fuzzer found, minimised ------------------------------------


def test_regression_prod_higher_derivatives_are_exact():
    # Found by the fuzzer: grad o hessian o hessian of prod(x) over x of shape (2,), whose
    # third and higher derivatives vanish.  prod's derivative was y / x, whose own
    # derivatives carry round-off (about 1e-12 here, 1e-9 for x near 0.01); JAX's are 0.
    # Fixed by forming the product of the others by multiplication only (ops/reductions.py).
    x = np.array([0.01, 1.7])
    h = ftransforms.hessian(lambda v: np.sum(ftransforms.hessian(np.prod)(v)))
    np.testing.assert_array_equal(h(x), np.zeros((2, 2)))
    g = ftransforms.grad(lambda v: np.sum(h(v)))
    np.testing.assert_array_equal(g(x), np.zeros(2))
    x3 = np.array([0.02, -1.3, 0.7])
    third = ftransforms.jacfwd(ftransforms.hessian(np.prod))(x3)
    expected = np.zeros((3, 3, 3))
    for i, j, k in [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]:
        expected[i, j, k] = 1.0
    np.testing.assert_array_equal(third, expected)


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        ([1e200, 1e200, 1e-200], [1.0, 1.0, np.inf]),  # the product overflows
        ([1e-300, 1e-300, 1e300], [1.0, 1.0, 0.0]),  # the product underflows
        ([0.0, 2.0, 3.0], [6.0, 0.0, 0.0]),
        ([0.0, 2.0, 0.0], [0.0, 0.0, 0.0]),
    ],
)
def test_regression_prod_and_cumprod_gradients_at_overflow(x, expected):
    # Found while minimising the case above: through y / x, grad(prod) was [inf, inf, inf]
    # and grad(cumprod(x)[-1]) [nan, nan, inf] where JAX gives [1, 1, inf] (and [0, 0, 0]
    # for [1, 1, 0]).  The expected values are JAX's.
    x = np.array(x)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        np.testing.assert_array_equal(ftransforms.grad(np.prod)(x), expected)
        np.testing.assert_array_equal(ftransforms.grad(lambda v: fnp.cumprod(v)[-1])(x), expected)
        per_row = ftransforms.vmap(ftransforms.grad(np.prod))(np.stack([x, x[::-1]]))
    np.testing.assert_array_equal(per_row, [expected, expected[::-1]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_regression_cross_entropy_with_a_masked_logit(dtype):
    # Found by the edge-value tests (tests/test_reliability.py): a -inf logit (a masked
    # class) that is not the target made the loss NaN, 0 * -inf in the one-hot product;
    # JAX (and torch, which gathers) give the finite loss.  Fixed in nn/losses.py.
    logits = np.array([[-np.inf, 0.0, 1.0, 2.0], [0.5, -np.inf, -np.inf, 1.5]], dtype)
    target = np.array([2, 3])
    g, loss = ftransforms.grad_and_value(lambda z: fnn.cross_entropy(z, target))(logits)
    shifted = logits - logits.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    expected = -(logp[0, 2] + logp[1, 3]) / 2
    np.testing.assert_allclose(loss, expected, **tol(dtype))
    softmax = np.exp(logp)
    softmax[[0, 1], [2, 3]] -= 1
    np.testing.assert_allclose(g, softmax / 2, **tol(dtype))
    assert loss.dtype == g.dtype == dtype
    per_row = ftransforms.vmap(lambda z, t: fnn.cross_entropy(z, t))(logits, target)
    np.testing.assert_allclose(per_row, [-logp[0, 2], -logp[1, 3]], **tol(dtype))


def test_regression_oracle_reshape_with_dimensions():
    # The fuzzer's own oracle once ignored reshape's ``dimensions`` (a transpose first),
    # which JAX emits for the gradient of prod under vmap; ftransforms was right.
    x = np.array([[0.3, -1.2], [0.7, 2.0]])
    f = jax.grad(lambda v: jnp.sum(jax.vmap(jnp.prod)(v)))
    (out,) = JaxprEvaluator.run(jax.make_jaxpr(f)(x), x)
    np.testing.assert_array_equal(out, x[:, ::-1])
    np.testing.assert_array_equal(ftransforms.grad(lambda v: np.sum(np.prod(v, axis=1)))(x), out)


# -- the evaluator's rules that random programs do not reach, against XLA ------------------


def _rule_samples() -> dict[str, tuple[Any, tuple]]:
    """``{label: (jax function, arguments)}``: every rule of ``tests/jaxpr_evaluator.py``
    beyond the fuzz's programs, on inputs that reach its corners (ties and NaN for sort,
    out-of-range shifts and branch indices, complex conjugate pairs for eig, a matrix that
    is not positive definite for cholesky)."""
    from jax import lax

    rng = np.random.default_rng(7)
    m44 = rng.standard_normal((2, 4, 4))
    c44 = m44 + 1j * rng.standard_normal((2, 4, 4))
    m35, m53 = rng.standard_normal((3, 5)), rng.standard_normal((5, 3))
    spd = m44 @ m44.transpose(0, 2, 1) + 4 * np.eye(4)
    pos = rng.uniform(0.3, 4.0, (7,))
    x = np.concatenate([rng.standard_normal(5) * 2, [-2.5, -0.5, 0.0, 1.0, 2.0]])
    keys = np.array([[2.0, np.nan, -0.0, 1.0, 0.0, 2.0, -np.inf], [1, 2, 3, 4, 5, 6, 7]])
    ints = np.array([-9, -1, 0, 5, 2**40], np.int64)
    edge_a, edge_x = np.array([-1.0, 2.0]), np.array([1.0, 0.0])  # igamma_grad_a: NaN, 0
    amounts = np.array([0, 3, 63, 64, -1], np.int64)
    img = rng.standard_normal((2, 4, 5, 6))  # N, C, H, W
    kern = rng.standard_normal((6, 2, 3, 2))  # O, I, kh, kw
    tri = np.tril(m44) + 3 * np.eye(4)
    ctri = np.triu(c44) + 3 * np.eye(4)
    b42 = rng.standard_normal((2, 4, 2))
    b24 = rng.standard_normal((2, 2, 4)) + 0j

    def conv(**kw):
        return lambda a, k: lax.conv_general_dilated(a, k, **kw)

    def trisolve(a, b, **kw):
        return (lambda a, b: lax.linalg.triangular_solve(a, b, **kw)), (a, b)

    samples: dict[str, tuple[Any, tuple]] = {
        "lgamma digamma erf erfc": (
            lambda v: (lax.lgamma(v), lax.digamma(v), lax.erf(v), lax.erfc(v)),
            (x,),
        ),
        "erf_inv bessel_i0e bessel_i1e": (
            lambda v: (lax.erf_inv(jnp.tanh(v)), lax.bessel_i0e(v), lax.bessel_i1e(v)),
            (x,),
        ),
        "igamma igammac igamma_grad_a": (
            lambda a, v: (
                lax.igamma(a, v),
                lax.igammac(a, v),
                jax.vmap(jax.grad(lax.igamma))(jnp.append(a, edge_a), jnp.append(v, edge_x)),
            ),
            (pos, pos[::-1]),
        ),
        "zeta polygamma": (
            lambda q: (lax.zeta(q + 1.1, q), lax.polygamma(jnp.arange(7.0) % 3, q)),
            (pos,),
        ),
        "regularized_incomplete_beta": (
            lambda a, b: lax.betainc(a, b, jnp.linspace(0.05, 0.95, 7)),
            (pos, pos[::-1]),
        ),
        "complex": (lambda a, b: lax.complex(a, b), (np.array([1.0, np.inf]), [np.inf, 2.0])),
        "sort two keys, stable, NaN and -0": (
            lambda k, i: lax.sort((k, i, -i), dimension=1, num_keys=2),
            (np.stack([keys[0], keys[0][::-1]]), np.tile([0.0, 1, 1, 0, 1, 0, 1], (2, 1))),
        ),
        "sort complex key, argsort, top_k": (
            lambda k: (
                lax.sort(lax.complex(k, k[::-1]), dimension=0),
                jnp.argsort(k, stable=True),
                lax.top_k(k, 3),
            ),
            (np.array([1.0, 2.0, 1.0, -0.0, 0.0, 3.0, 3.0]),),
        ),
        "searchsorted (le_to, lt_to)": (
            lambda a, v: (jnp.searchsorted(a, v), jnp.searchsorted(a, v, method="compare_all")),
            (np.arange(6.0), np.array([-np.inf, 1.0, 2.5, np.nan, -0.0])),
        ),
        "shifts": (
            lambda v, s: (
                lax.shift_left(v, s),
                lax.shift_right_arithmetic(v, s),
                lax.shift_right_logical(v, s),
            ),
            (ints, amounts),
        ),
        "bitcast_convert_type tile": (
            lambda v: (
                lax.bitcast_convert_type(v, jnp.int32),
                lax.bitcast_convert_type(v, jnp.uint64),
                lax.bitcast_convert_type(lax.bitcast_convert_type(v, jnp.int32), jnp.float64),
                jnp.tile(v, (2, 3)),
            ),
            (x,),
        ),
        "reduce_window_sum": (
            lambda v: lax.reduce_window(
                v, 0.0, lax.add, (2, 3), (1, 2), ((1, 0), (2, 1)), (1, 2), (2, 1)
            ),
            (m44[0],),
        ),
        "conv_general_dilated, feature groups": (
            conv(
                window_strides=(2, 1),
                padding=((1, 2), (-1, 1)),
                lhs_dilation=(1, 2),
                rhs_dilation=(2, 1),
                feature_group_count=2,
            ),
            (img, kern),
        ),
        "conv_general_dilated, batch groups, NHWC": (
            conv(
                window_strides=(1, 1),
                padding="SAME",
                dimension_numbers=("NHWC", "HWIO", "NHWC"),
                batch_group_count=2,
            ),
            (img.transpose(0, 2, 3, 1), rng.standard_normal((3, 2, 4, 6))),
        ),
        "fft": (
            lambda v: (
                jnp.fft.fft(v),
                jnp.fft.ifft2(v),
                jnp.fft.rfft(v.real, n=6),
                jnp.fft.irfft(v, n=5),
            ),
            (c44,),
        ),
        "lu, lu_pivots_to_permutation": (
            lambda a, r, s: (
                lax.linalg.lu(a),
                lax.linalg.lu(r),
                lax.linalg.lu(s),
                lax.linalg.lu(a.at[:, :, 1].set(0.0)),
                lax.linalg.lu_pivots_to_permutation(jnp.array([2, 2, 3], jnp.int32), 5),
            ),
            (m44, m35, m53),
        ),
        "cholesky, not positive definite": (
            lambda a: (jnp.linalg.cholesky(a), jnp.linalg.cholesky(-a)),
            (spd,),
        ),
        "triangular_solve": (
            lambda a, c, b, d: (
                trisolve(a, b, left_side=True, lower=True)[0](a, b),
                trisolve(a, b, left_side=True, lower=True, transpose_a=True)[0](a, b),
                trisolve(a, b, left_side=True, lower=True, unit_diagonal=True)[0](a, b),
                lax.linalg.triangular_solve(c, d, left_side=False, lower=False),
                lax.linalg.triangular_solve(c, d, lower=False, conjugate_a=True),
                lax.linalg.triangular_solve(c, d, transpose_a=True, conjugate_a=True),
            ),
            (tri, ctri, b42, b24),
        ),
        "svd": (
            lambda a, c, r, s: (
                jnp.linalg.svd(a),
                jnp.linalg.svd(c, full_matrices=False),
                jnp.linalg.svd(r),
                jnp.linalg.svd(s, full_matrices=False),
                jnp.linalg.svd(s, compute_uv=False),
            ),
            (m44, c44, m35, m53),
        ),
        "eigh eig": (
            lambda a, c: (
                jnp.linalg.eigh(a),
                jnp.linalg.eigh(c, UPLO="U"),
                jnp.linalg.eig(a),
                jnp.linalg.eig(c),
                lax.linalg.eig(a, compute_left_eigenvectors=True),
            ),
            (spd, c44),
        ),
        "qr": (
            lambda a, c, r, s: (
                jnp.linalg.qr(a),
                jnp.linalg.qr(c, mode="complete"),
                jnp.linalg.qr(r),
                jnp.linalg.qr(s, mode="complete"),
                jnp.linalg.qr(s),
            ),
            (m44, c44, m35, m53),
        ),
        "solve (custom_linear_solve), its vjp": (
            lambda a, b: jax.vjp(jnp.linalg.solve, a, b)[1](b),
            (m44, b42),
        ),
        "scan (grad: empty2), while, cond, switch out of range": (
            lambda v: (
                jax.grad(lambda u: lax.scan(lambda c, y: (jnp.sin(c * y), c), 1.0, u)[0])(v),
                lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 1.5), (0, v)),
                lax.cond(v[0] > 0, jnp.sin, jnp.cos, v),
                lax.switch((v[0] > 0) * 7, [jnp.sin, jnp.cos, jnp.tanh], v),
                jax.vjp(lambda w: lax.cond(w[0] > 1, lambda z: 1 / z, lambda z: z, w), v)[1](v),
                jax.vmap(lambda u: lax.while_loop(lambda c: c < 3, lambda c: c + u, 0.0))(v),
                lax.platform_dependent(v, cpu=jnp.sin, default=jnp.cos),
            ),
            (pos,),
        ),
    }
    return samples


def _primitives(jaxpr, seen: set) -> set:
    for eqn in jaxpr.eqns:
        seen.add(eqn.primitive.name)
        for p in eqn.params.values():
            for sub in p if isinstance(p, tuple) else (p,):
                sub = getattr(sub, "jaxpr", sub)
                if hasattr(sub, "eqns"):
                    _primitives(sub, seen)
    return seen


#: The rules ``_rule_samples`` is for: each must occur in its jaxpr.
RULES_BEYOND_FUZZ = """lgamma digamma erf erfc erf_inv bessel_i0e bessel_i1e igamma igammac
igamma_grad_a zeta polygamma regularized_incomplete_beta complex sort top_k lt_to le_to shift_left
shift_right_arithmetic shift_right_logical bitcast_convert_type tile reduce_window_sum
conv_general_dilated fft lu lu_pivots_to_permutation cholesky triangular_solve svd eigh eig
qr custom_linear_solve scan while cond empty2 platform_index""".split()


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_evaluator_rules_match_xla():
    """Every rule beyond the fuzz's programs computes what XLA computes, to rounding."""
    samples = _rule_samples()

    def everything(args):
        return {k: f(*args[k]) for k, (f, _) in samples.items()}

    args = {k: tuple(jnp.asarray(a) for a in v) for k, (_, v) in samples.items()}
    xla = jax.jit(everything)(args)
    closed, shapes = jax.make_jaxpr(everything, return_shape=True)(args)
    assert set(RULES_BEYOND_FUZZ) <= _primitives(closed.jaxpr, set())
    flat = JaxprEvaluator.run(closed, *jax.tree_util.tree_leaves(args))
    ours = jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(shapes), flat)
    for k in samples:
        for a, b in zip(jax.tree_util.tree_leaves(ours[k]), jax.tree_util.tree_leaves(xla[k])):
            b = np.asarray(b)
            assert (a.dtype, a.shape) == (b.dtype, b.shape), k
            np.testing.assert_allclose(a, b, **tol(np.float64), err_msg=k)
