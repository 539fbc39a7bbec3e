"""The CPU backend of the compiled tier: each segment of a plan (``lowering.py``) as one
numba ``nopython`` function of explicit loops, compiled ahead of its first use against
fixed signatures and cached on disk (``cache.py``).

A kernel takes the arrays it reads (any layout, read-only allowed: 0-d ones as scalars)
and the arrays it writes (C-contiguous, allocated by the caller: numba returning a new
array costs more than NumPy's ``empty``), and returns nothing.  Every operand is cast to
the dtype NumPy computes the operation in, so float32 stays float32 (numba would widen
``float32 * 1.5`` to float64), and the functions are compiled with
``error_model="numpy"`` (division by zero gives inf/nan, as NumPy).

Example:
    >>> import numpy as np
    >>> from ftransforms import make_program
    >>> from ftransforms.compiled.lowering import plan
    >>> prog = make_program(lambda x: np.sin(x) * 2.0 + x)(np.ones(3, np.float32))
    >>> seg = plan(prog.eqns, prog.n_inputs, prog.out_refs, [((3,), np.float32)])[0]
    >>> print(kernel_source(seg, "k0"))
    def k0(a0, a1):
        c0 = np.float32(2.0)
        for i0 in range(3):
            v0 = np.float32(np.sin(a0[i0]))
            v1 = np.float32(v0 * c0)
            v2 = np.float32(v1 + a0[i0])
            a1[i0] = v2
"""

from __future__ import annotations

import re
from typing import Any

import numpy

from ftransforms.compiled.cache import load_module
from ftransforms.compiled.lowering import Nest, Op, Segment, View

__all__ = ["kernel_signature", "kernel_source"]

_CAST = {
    numpy.dtype("float32"): "np.float32",
    numpy.dtype("float64"): "np.float64",
    numpy.dtype(bool): "np.bool_",
}

_BINARY = {
    "add": "{0} + {1}",
    "subtract": "{0} - {1}",
    "multiply": "{0} * {1}",
    "divide": "{0} / {1}",
    # NumPy's: a NaN operand wins, and on a tie the second operand (x86-64's max/min
    # instructions), so that np.maximum(-0.0, 0.0) is 0.0
    "maximum": "({0} if ({0} > {1} or {0} != {0}) else {1})",
    "minimum": "({0} if ({0} < {1} or {0} != {0}) else {1})",
    "equal": "{0} == {1}",
    "not_equal": "{0} != {1}",
    "less": "{0} < {1}",
    "less_equal": "{0} <= {1}",
    "greater": "{0} > {1}",
    "greater_equal": "{0} >= {1}",
}

_UNARY = {
    "negative": "-{0}",
    "square": "{0} * {0}",
    "abs": "np.abs({0})",
}


class _Writer:
    """The source of one kernel."""

    def __init__(self, seg: Segment, name: str) -> None:
        self.seg = seg
        self.name = name
        self.consts: dict[tuple, str] = {}
        self.head: list[str] = []
        self.body: list[str] = []
        self.tmp = 0

    def const(self, value: Any, dtype: numpy.dtype) -> str:
        if isinstance(value, numpy.generic):
            value = value.item()
        key = (repr(value), type(value).__name__, dtype.str)
        name = self.consts.get(key)
        if name is None:
            name = self.consts[key] = f"c{len(self.consts)}"
            text = repr(value)
            if text in ("inf", "-inf", "nan"):  # not Python literals: NumPy's names
                text = text.replace("inf", "np.inf").replace("nan", "np.nan")
            self.head.append(f"    {name} = {_CAST[dtype]}({text})")
        return name

    def dtype_of(self, a: tuple) -> numpy.dtype | None:
        if a[0] == "local":
            return self.seg.avals[a[1]][1]
        if a[0] == "array":
            return self.seg.avals[a[1].base][1]
        return None

    def read(self, a: tuple, nest: Nest, compute: numpy.dtype, depth: dict) -> tuple[str, int]:
        """(expression of operand ``a`` cast to ``compute``, its loop depth)."""
        if a[0] == "const":
            return self.const(a[1], compute), 0
        if a[0] == "local":
            expr, d = f"v{a[1]}", depth[a[1]]
        else:
            expr, d = self.load(a[1], nest)
            if d < len(nest.shape) and "[" in expr:
                # a load that the inner loops do not change: once, outside them
                key = (expr, d)
                name = self.hoisted.get(key)
                if name is None:
                    name = self.hoisted[key] = f"l{len(self.hoisted)}"
                    self.pre[d].append(f"{name} = {expr}")
                expr = name
        if self.dtype_of(a) != compute:
            expr = f"{_CAST[compute]}({expr})"
        return expr, d

    def load(self, v: View, nest: Nest, at: list | None = None) -> tuple[str, int]:
        """(expression reading ``v`` at the nest's loop indices, or at the view indices
        ``at``, and its loop depth)."""
        n, m = len(nest.shape), len(v.shape)
        if not self.seg.avals[v.base][0] and v.base in self.seg.inputs:
            return f"a{v.base}", 0  # a 0-d input: passed as a scalar
        idx, d = [], 0
        for b, a in enumerate(v.axes):
            start, step = v.starts[b], v.steps[b]
            if a is None or v.shape[a] == 1:
                idx.append(str(start))
                continue
            k = a + n - m
            i = f"i{k}" if at is None else at[a]
            i = i if step == 1 else f"{step} * {i}"
            idx.append(i if start == 0 else f"{start} + {i}")
            d = max(d, k + 1) if at is None else n
        return f"a{v.base}[{_index(idx)}]", d

    def pad(self, op: Op, nest: Nest) -> str:
        """``getitem_transpose``: the operand where the static index covers, else 0."""
        at, cond = [], []
        for k, (start, stop, kept) in enumerate(op.axis):
            if kept:
                at.append(f"i{k}" if start == 0 else f"i{k} - {start}")
            if (start, stop) != (0, nest.shape[k]):
                cond.append(f"{start} <= i{k} < {stop}" if kept else f"i{k} == {start}")
        expr, _ = self.load(op.args[0][1], nest, at)
        if not cond:
            return expr
        return f"({expr} if {' and '.join(cond)} else {self.const(0.0, op.dtype)})"

    def nest(self, nest: Nest) -> None:
        n = len(nest.shape)
        pre: list[list[str]] = [[] for _ in range(n + 1)]
        post: list[list[str]] = [[] for _ in range(n + 1)]
        before: list[str] = []
        after: list[str] = []
        depth: dict[int, int] = {}
        loops = [f"i{k}" for k in range(n)]
        self.pre, self.hoisted = pre, {}
        for op in nest.ops:
            if op.kind == "reduce":
                self.reduce(op, nest, depth, pre, post, before, after, loops)
                continue
            if op.name == "pad":
                d, expr = n, self.pad(op, nest)
            else:
                args = [self.read(a, nest, op.compute, depth) for a in op.args]
                d = max([x[1] for x in args], default=0)
                expr = _expression(op, [x[0] for x in args], self, args)
            depth[op.out] = d
            pre[d].append(f"v{op.out} = {_CAST[op.dtype]}({expr})")
        for s in sorted(nest.stores):
            if s in depth:
                pre[n].append(f"a{s}[{_index(loops)}] = v{s}")
        lines = [f"    {x}" for x in before]

        def emit(k: int, indent: str) -> None:
            lines.extend(indent + x for x in pre[k])
            if k < n:
                lines.append(f"{indent}for i{k} in range({nest.shape[k]}):")
                emit(k + 1, indent + "    ")
                lines.extend(indent + x for x in post[k])

        emit(0, "    ")
        lines.extend(f"    {x}" for x in after)
        self.body.extend(lines)

    def reduce(self, op: Op, nest: Nest, depth, pre, post, before, after, loops) -> None:
        n = len(nest.shape)
        acc_dtype = numpy.dtype("float64") if op.name == "reduce_sum" else op.dtype
        expr, _ = self.read(op.args[0], nest, op.dtype, depth)
        if acc_dtype != op.dtype:
            expr = f"{_CAST[acc_dtype]}({expr})"
        init = {
            "reduce_sum": "0.0",
            "reduce_max": "-np.inf",
            "reduce_min": "np.inf",
        }[op.name]
        kept = [k for k in range(n) if k not in op.axis]
        out_idx = [f"i{k}" if k in kept else "0" for k in range(n)]
        if not op.keepdims:
            out_idx = [f"i{k}" for k in kept]
        trailing = op.axis == tuple(range(n - len(op.axis), n))
        r = f"r{op.out}"
        if trailing:
            k0 = n - len(op.axis)
            pre[k0].append(f"{r} = {_CAST[acc_dtype]}({init})")
            pre[n].append(_update(op.name, r, expr))
            post_k = post[k0] if k0 < n else pre[n]
            post_k.append(f"a{op.out}[{_index(out_idx)}] = {_CAST[op.dtype]}({r})")
            return
        shape = tuple(op.shape)
        before.append(f"{r} = np.full({shape!r}, {init}, dtype={_CAST[acc_dtype]})")
        pre[n].append(_update(op.name, f"{r}[{_index(out_idx)}]", expr))
        self.tmp += 1
        o, f = f"o{self.tmp}", f"f{self.tmp}"
        after.append(f"{o} = a{op.out}.reshape(-1)")
        after.append(f"{f} = {r}.reshape(-1)")
        after.append(f"for j in range({o}.size):")
        after.append(f"    {o}[j] = {_CAST[op.dtype]}({f}[j])")

    def source(self) -> str:
        seg = self.seg
        for s in seg.internal:
            shape, dtype = seg.avals[s]
            self.body.append(f"    a{s} = np.empty({tuple(shape)!r}, dtype={_CAST[dtype]})")
        for item in seg.items:
            if isinstance(item, Nest):
                if item.ops:
                    self.nest(item)
            else:
                _, out, src, shape = item
                self.body.append(f"    a{out} = a{src}.reshape({tuple(shape)!r})")
        # internal arrays are allocated before the nests that write them
        allocs = [x for x in self.body if " = np.empty(" in x]
        rest = [x for x in self.body if " = np.empty(" not in x]
        in_block = {s for b, _, _ in seg.blocks for s in b}
        params = [f"a{s}" for s in seg.inputs]
        params += [f"a{s}" for s in seg.outputs if s not in in_block]
        params += [f"b{k}" for k in range(len(seg.blocks))]
        views = []
        for k, (b, axis, _) in enumerate(seg.blocks):
            # every access indexes the block itself (one C-contiguous array: the loops
            # vectorise with fewer overlap checks than for one view per output)
            for j, s in enumerate(b):
                indexed = [_stacked_access(x, s, k, j, axis) for x in rest]
                if not any(re.search(rf"\ba{s}\b", x) for x in indexed):
                    rest = indexed
                elif not axis:
                    views.append(f"    a{s} = b{k}[{j}]")  # used other than indexed
                else:
                    raise ValueError(f"a{s} is used other than indexed")
        lines = [f"def {self.name}({', '.join(params)}):", *self.head, *views, *allocs, *rest]
        if len(lines) == 1 + len(self.head):
            lines.append("    pass")
        return "\n".join(lines)


def _stacked_access(line: str, s: int, k: int, j: int, axis: int) -> str:
    """``line`` with every ``a{s}[i, ...]`` written ``b{k}[...]`` with ``j`` at ``axis``."""

    def index(m: re.Match) -> str:
        idx = m.group(1).split(", ")
        return f"b{k}[{', '.join(idx[:axis] + [str(j)] + idx[axis:])}]"

    return re.sub(rf"\ba{s}\[([^\]]*)\]", index, line)


def _update(name: str, r: str, expr: str) -> str:
    if name == "reduce_sum":
        return f"{r} += {expr}"
    cmp = ">" if name == "reduce_max" else "<"
    # NaN propagates: once the accumulator holds NaN no comparison replaces it
    return f"{r} = {expr} if ({expr} {cmp} {r} or {expr} != {expr}) else {r}"


def _index(idx: list) -> str:
    if not idx:
        return "()"
    return ", ".join(idx)


def _expression(op: Op, args: list, w: _Writer, read: list) -> str:
    name = op.name
    if name in _BINARY:
        return _BINARY[name].format(*args)
    if name in _UNARY:
        return _UNARY[name].format(*args)
    if name == "power":
        c = op.args[1]
        if c[0] == "const" and c[1] == 2:
            return f"{args[0]} * {args[0]}"
        return f"{args[0]} ** {args[1]}"
    if name == "reciprocal":
        return f"{w.const(1, op.compute)} / {args[0]}"
    if name == "select":
        cond = args[0]
        if w.dtype_of(op.args[0]) is None:
            cond = repr(bool(op.args[0][1]))
        return f"({args[1]} if {cond} else {args[2]})"
    if name == "convert":
        if op.dtype == numpy.dtype(bool):
            return f"{args[0]} != 0"
        return args[0]
    return f"np.{name}({args[0]})"


def kernel_source(seg: Segment, name: str) -> str:
    """The Python source of the numba kernel ``name`` for ``seg``, its variables numbered
    in order of appearance (so that the same loops over other slots read the same: the
    steps of an unrolled loop share one kernel)."""
    text = _Writer(seg, name).source()
    numbers: dict[str, str] = {}

    def rename(m: re.Match) -> str:
        key = m.group(0)
        if key not in numbers:
            numbers[key] = f"{m.group(1)}{sum(k[0] == m.group(1) for k in numbers)}"
        return numbers[key]

    head, rest = text.split("(", 1)
    return head + "(" + re.sub(r"\b([avrl])(\d+)\b", rename, rest)


def kernel_signature(seg: Segment) -> Any:
    """The numba signature of ``seg``'s kernel: read-only arrays in (C-contiguous where
    ``seg.contiguous`` says so, else any layout, possibly unaligned; scalars for 0-d),
    C-contiguous arrays out, nothing returned."""
    from numba import types  # imported only when a program is compiled (optional extra)

    ts = []
    scalar = {
        numpy.dtype("float32"): types.float32,
        numpy.dtype("float64"): types.float64,
        numpy.dtype(bool): types.boolean,
    }
    for s in seg.inputs:
        shape, dtype = seg.avals[s]
        if not shape:
            ts.append(scalar[dtype])
        elif s in seg.contiguous:
            ts.append(types.Array(scalar[dtype], len(shape), "C", readonly=True))
        else:
            ts.append(types.Array(scalar[dtype], len(shape), "A", readonly=True, aligned=False))
    in_block = {s for b, _, _ in seg.blocks for s in b}
    for s in seg.outputs:
        if s not in in_block:
            shape, dtype = seg.avals[s]
            ts.append(types.Array(scalar[dtype], len(shape), "C"))
    for b, _, _ in seg.blocks:  # the outputs allocated together, stacked on an axis
        shape, dtype = seg.avals[b[0]]
        ts.append(types.Array(scalar[dtype], len(shape) + 1, "C"))
    return types.none(*ts)


def compile_segments(segments: list, max_kernels: int) -> list:
    """One compiled kernel per segment (``None`` past ``max_kernels`` distinct ones):
    their source as one module in the disk cache (``cache.py``), each compiled by numba
    against its signature (or loaded from numba's cache of that module)."""
    import numba  # the optional compiler, imported when a program is first compiled

    unique: dict[tuple, str] = {}  # (source, signature) -> kernel name
    which, defs = [], []
    for seg in segments:
        text, sig = kernel_source(seg, "KERNEL"), kernel_signature(seg)
        name = unique.get((text, str(sig)))
        if name is None and len(unique) >= max_kernels:
            which.append(None)  # over the budget: this segment stays NumPy calls
            continue
        if name is None:
            name = unique[text, str(sig)] = f"k{len(unique)}"
            defs.append(text.replace("def KERNEL(", f"def {name}(", 1))
        which.append((name, sig))
    module = load_module("import numpy as np\n\n\n" + "\n\n\n".join(defs) + "\n")
    compiled: dict[str, Any] = {}
    for name, sig in filter(None, which):
        if name not in compiled:
            compiled[name] = numba.njit(
                sig, cache=True, error_model="numpy", nogil=True, boundscheck=False
            )(getattr(module, name))
    return [None if w is None else compiled[w[0]] for w in which]
