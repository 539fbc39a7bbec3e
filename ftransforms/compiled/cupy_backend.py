"""The CUDA backend of the compiled tier: a segment's nests (``lowering.py``) as CuPy
kernels (NOTE [CuPy kernels] in ``cupy_driver.py`` says how a program runs them).

:func:`segment_kernels` prints a segment as :class:`KernelSpec` objects: per nest, one
``cupy.ElementwiseKernel`` that writes the values read outside the nest (every
intermediate in a register), and one ``cupy.ReductionKernel`` per sum/max/min, whose
mapping recomputes what it reduces in a ``__device__`` function of its preamble.  Each
kernel reads arrays through views (:func:`realize`: the namespace's own
``reshape``/``transpose``/``broadcast_to``), which CuPy broadcasts to the nest's shape.
Operands are cast to the dtype NumPy computes in and literals carry it (``2.0f``), so
float32 stays float32; maxima/minima propagate NaN; infinities are bit patterns.  The
sources are checked and evaluated on the strict stand-in
(``ftransforms/strict_backend_kernels.py``).

Example:
    >>> import numpy as np
    >>> from ftransforms import make_program
    >>> from ftransforms.compiled.lowering import plan
    >>> prog = make_program(lambda x: np.sin(x) * 2.0 + x)(np.ones(3, np.float32))
    >>> (seg,) = plan(prog.eqns, prog.n_inputs, prog.out_refs, [((3,), np.float32)])
    >>> ins, outs, op, name = kernel_specs(seg)[0]
    >>> print(ins, "|", outs)
    float32 a0 | float32 a1
    >>> print(op)
    float v0 = (float)(sin(a0));
    float v1 = (float)(v0 * 2.0f);
    float v2 = (float)(v1 + a0);
    a1 = v2;
"""

from __future__ import annotations

import re
from typing import Any

import numpy

from ftransforms.compiled.lowering import Nest, Op, Segment, View

__all__ = ["KernelSpec", "kernel_specs", "realize", "segment_kernels"]

_CTYPE = {
    numpy.dtype("float32"): "float",
    numpy.dtype("float64"): "double",
    numpy.dtype(bool): "bool",
}

_BINARY = {
    "add": "{0} + {1}",
    "subtract": "{0} - {1}",
    "multiply": "{0} * {1}",
    "divide": "{0} / {1}",
    # CuPy's ufuncs: NaN from either side, else CUDA's max/min (fmax/fmin), which put +0
    # above -0 whichever side it is on (cupy.maximum(-0.0, 0.0) is 0.0 both ways, seen on
    # an H100 with CuPy 14.2; NumPy's loops give the second operand on a tie)
    "maximum": "(({0} != {0}) ? {0} : (({1} != {1}) ? {1} : max({0}, {1})))",
    "minimum": "(({0} != {0}) ? {0} : (({1} != {1}) ? {1} : min({0}, {1})))",
    "equal": "{0} == {1}",
    "not_equal": "{0} != {1}",
    "less": "{0} < {1}",
    "less_equal": "{0} <= {1}",
    "greater": "{0} > {1}",
    "greater_equal": "{0} >= {1}",
}
_UNARY = {"negative": "-{0}", "square": "{0} * {0}", "abs": "fabs({0})"}


#: NumPy's names of the math functions -> CUDA's (the others are the same).
_FUNCTIONS = {
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arcsinh": "asinh",
    "arctanh": "atanh",
}

#: Bit patterns of +inf and NaN (CUDA's reinterpreting intrinsics: no header needed).
_SPECIAL = {
    ("inf", "float"): "__int_as_float(0x7f800000)",
    ("nan", "float"): "__int_as_float(0x7fc00000)",
    ("inf", "double"): "__longlong_as_double(0x7ff0000000000000LL)",
    ("nan", "double"): "__longlong_as_double(0x7ff8000000000000LL)",
}


def _literal(value: Any, dtype: numpy.dtype) -> str:
    """A C literal of ``dtype`` (negative ones parenthesized: ``x - (-1.0f)``)."""
    if dtype == numpy.dtype(bool):
        return "true" if value else "false"
    ctype = _CTYPE[dtype]
    value = float(value)
    if value != value or value in (float("inf"), float("-inf")):
        text = _SPECIAL["nan" if value != value else "inf", ctype]
        return f"(-{text})" if value < 0 else text
    text = repr(value) + ("f" if ctype == "float" else "")
    return f"({text})" if text.startswith("-") else text


def _operand(seg: Segment, a: tuple, compute: numpy.dtype, names: dict) -> str:
    if a[0] == "const":
        return _literal(a[1], compute)
    slot = a[1] if a[0] == "local" else names[id(a[1])]
    expr = f"v{slot}" if a[0] == "local" else slot
    dtype = seg.avals[a[1] if a[0] == "local" else a[1].base][1]
    return expr if dtype == compute else f"(({_CTYPE[compute]}){expr})"


def _arg_dtypes(seg: Segment, op: Op) -> list:
    """The dtype each operand of ``op`` is read in: its computation dtype, except a
    select's condition (bool) and a conversion to bool (the source's own dtype)."""
    own = [
        seg.avals[a[1] if a[0] == "local" else a[1].base][1] if a[0] != "const" else None
        for a in op.args
    ]
    if op.name == "select":
        return [numpy.dtype(bool), op.compute, op.compute]
    if op.name == "convert" and op.dtype == numpy.dtype(bool):
        return [own[0] or numpy.dtype("float64")]
    return [op.compute] * len(op.args)


def _expression(op: Op, args: list) -> str:
    name = op.name
    if name in _BINARY:
        return _BINARY[name].format(*args)
    if name in _UNARY:
        return _UNARY[name].format(*args)
    if name == "power":
        if op.args[1][0] == "const" and op.args[1][1] == 2:
            return f"{args[0]} * {args[0]}"
        return f"pow({args[0]}, {args[1]})"
    if name == "reciprocal":
        return f"{_literal(1, op.compute)} / {args[0]}"
    if name == "select":
        return f"({args[0]} ? {args[1]} : {args[2]})"
    if name == "convert":
        return f"{args[0]} != 0" if op.dtype == numpy.dtype(bool) else args[0]
    return f"{_FUNCTIONS.get(name, name)}({args[0]})"


def _views(ops: list) -> list[View]:
    """The distinct array operands of ``ops``, in order of first use."""
    seen: dict[tuple, View] = {}
    for op in ops:
        for a in op.args:
            if a[0] == "array":
                seen.setdefault((a[1].base, a[1].shape, a[1].axes), a[1])
    return list(seen.values())


def _needed(nest: Nest, targets: set) -> list[Op]:
    """The elementwise ops of ``nest`` that the values ``targets`` depend on, in order."""
    need, out = set(targets), []
    for op in reversed(nest.ops):
        if op.kind == "ew" and op.out in need:
            out.append(op)
            need.update(a[1] for a in op.args if a[0] == "local")
    return out[::-1]


def _params(seg: Segment, views: list[View], ops: list[Op]) -> tuple[list[str], dict]:
    """The parameter declarations of ``views`` and the names their operands read."""
    names, params = {}, []
    for k, v in enumerate(views):
        same = v.axes == tuple(range(len(v.shape))) and v.shape == seg.avals[v.base][0]
        name = f"a{v.base}" if same else f"a{v.base}_{k}"
        for a_view in [x for op in ops for x in op.args if x[0] == "array"]:
            if (a_view[1].base, a_view[1].shape, a_view[1].axes) == (v.base, v.shape, v.axes):
                names[id(a_view[1])] = name
        params.append((seg.avals[v.base][1], name))
    return params, names


def _statements(seg: Segment, ops: list[Op], names: dict) -> list[str]:
    lines = []
    for op in ops:
        args = [_operand(seg, a, d, names) for a, d in zip(op.args, _arg_dtypes(seg, op))]
        ctype = _CTYPE[op.dtype]
        lines.append(f"{ctype} v{op.out} = ({ctype})({_expression(op, args)});")
    return lines


class KernelSpec:
    """One CuPy kernel of a segment: an ``ElementwiseKernel`` (``kind == "elementwise"``:
    ``operation``) or a ``ReductionKernel`` (``"reduction"``: ``map_expr``,
    ``reduce_expr``, ``post_map_expr``, ``identity``, ``reduce_type``, ``preamble``,
    ``axis``, ``keepdims``); ``views`` are the arrays it reads (in parameter order, each
    seen over the nest's ``shape``), ``outs`` the slots it writes."""

    def __init__(self, kind: str, name: str, in_params: str, out_params: str, **kw: Any) -> None:
        self.kind, self.name = kind, name
        self.in_params, self.out_params = in_params, out_params
        self.operation = kw.get("operation", "")
        self.map_expr = kw.get("map_expr", "")
        self.reduce_expr = kw.get("reduce_expr", "")
        self.post_map_expr = kw.get("post_map_expr", "")
        self.identity = kw.get("identity", "")
        self.reduce_type = kw.get("reduce_type", "")
        self.preamble = kw.get("preamble", "")
        self.axis, self.keepdims = kw.get("axis", ()), kw.get("keepdims", False)
        self.views: list[View] = kw["views"]
        self.outs: list[int] = kw["outs"]
        self.shape: tuple = kw["shape"]
        self.nest: Nest | None = kw.get("nest")

    def key(self) -> tuple:
        """What the compiled kernel depends on (the process-wide cache's key)."""
        return (
            self.kind,
            self.name,
            self.in_params,
            self.out_params,
            self.operation,
            self.map_expr,
            self.reduce_expr,
            self.post_map_expr,
            self.identity,
            self.reduce_type,
            self.preamble,
        )

    def make(self, xp: Any) -> Any:
        """The kernel object of the array namespace ``xp`` (``cupy`` or the stand-in)."""
        if self.kind == "elementwise":
            return xp.ElementwiseKernel(self.in_params, self.out_params, self.operation, self.name)
        return xp.ReductionKernel(
            self.in_params,
            self.out_params,
            self.map_expr,
            self.reduce_expr,
            self.post_map_expr,
            self.identity,
            self.name,
            reduce_type=self.reduce_type,
            preamble=self.preamble,
        )


_REDUCE = {
    "reduce_sum": "a + b",
    # NaN wins, from either side (CuPy combines partial results in any order)
    "reduce_max": "(a > b || a != a) ? a : b",
    "reduce_min": "(a < b || a != a) ? a : b",
}


def _identity(name: str, dtype: numpy.dtype) -> str:
    if name == "reduce_sum":
        return "-0.0f" if dtype == numpy.dtype("float32") else "-0.0"  # -0.0 + x is x
    inf = _SPECIAL["inf", _CTYPE[dtype]]
    return f"-{inf}" if name == "reduce_max" else inf


def segment_kernels(seg: Segment) -> list[KernelSpec]:
    """The kernels of ``seg``, nest by nest: one ElementwiseKernel writing the nest's
    stored values (if any), then one ReductionKernel per reduction, whose mapping
    recomputes the values it reduces (a ``__device__`` function in its preamble).
    ``ValueError`` for a kernel that would read no array, or reduce over no axis (the
    segment then stays CuPy calls)."""
    specs: list[KernelSpec] = []
    for nest in (i for i in seg.items if isinstance(i, Nest) and i.ops):
        stores = sorted(nest.stores & {op.out for op in nest.ops if op.kind == "ew"})
        if stores:
            ops = _needed(nest, set(stores))
            views = _views(ops)
            params, names = _params(seg, views, ops)
            lines = _statements(seg, ops, names) + [f"a{s} = v{s};" for s in stores]
            out_params = ", ".join(f"{seg.avals[s][1].name} a{s}" for s in stores)
            if not views:
                raise ValueError("cupy_backend: an elementwise kernel that reads no array")
            specs.append(
                KernelSpec(
                    "elementwise",
                    "ft_fused",
                    ", ".join(f"{d.name} {n}" for d, n in params),
                    out_params,
                    operation="\n".join(lines),
                    views=views,
                    outs=stores,
                    shape=nest.shape,
                    nest=nest,
                )
            )
        for op in (o for o in nest.ops if o.kind == "reduce"):
            src = op.args[0]
            ops = _needed(nest, {src[1]}) if src[0] == "local" else []
            views = _views(ops + [op])
            if not views or not op.axis:
                raise ValueError("cupy_backend: a reduction over no axis or of no array")
            params, names = _params(seg, views, ops + [op])
            rtype = _CTYPE[op.dtype]
            value = _operand(seg, src, op.dtype, names)
            preamble = ""
            if ops:
                fn = "ft_map"
                args = ", ".join(f"{_CTYPE[d]} {n}" for d, n in params)
                body = "".join(f"    {x}\n" for x in _statements(seg, ops, names))
                preamble = (
                    f"__device__ inline {rtype} {fn}({args}) {{\n{body}    return {value};\n}}\n"
                )
                value = f"{fn}({', '.join(n for _, n in params)})"
            specs.append(
                KernelSpec(
                    "reduction",
                    "ft_reduce",
                    ", ".join(f"{d.name} {n}" for d, n in params),
                    f"{op.dtype.name} a{op.out}",
                    map_expr=value,
                    reduce_expr=_REDUCE[op.name],
                    post_map_expr=f"a{op.out} = a",
                    identity=_identity(op.name, op.dtype),
                    reduce_type=rtype,
                    preamble=preamble,
                    axis=op.axis,
                    keepdims=op.keepdims,
                    views=views,
                    outs=[op.out],
                    shape=nest.shape,
                    nest=nest,
                )
            )
    for spec in specs:
        _canonical(spec)
    return specs


_SLOT_NAME = re.compile(r"\b([av])(\d+)(_\d+)?\b")
_SOURCE_FIELDS = ("in_params", "out_params", "preamble", "operation", "map_expr", "post_map_expr")


def _canonical(spec: KernelSpec) -> None:
    """Number ``spec``'s identifiers (``a12``, ``a12_3``, ``v40``) in order of first
    appearance, as the numba backend does: the same kernel over other slots (the steps of
    a loop unrolled by ``jit(grad(...))``) then has the same source and key, and is made,
    and compiled by NVRTC, once per process."""
    names: dict[str, str] = {}
    count = {"a": 0, "v": 0}

    def rename(m: re.Match) -> str:
        new = names.get(m.group(0))
        if new is None:
            kind = m.group(1)
            new = names[m.group(0)] = f"{kind}{count[kind]}"
            count[kind] += 1
        return new

    for field in _SOURCE_FIELDS:
        setattr(spec, field, _SLOT_NAME.sub(rename, getattr(spec, field)))


def kernel_specs(seg: Segment) -> list[tuple[str, str, str, str]]:
    """``(in_params, out_params, operation, name)`` of each nest's ElementwiseKernel;
    ``ValueError`` for a segment with reductions (see :func:`segment_kernels`)."""
    if any(op.kind != "ew" for n in seg.items if isinstance(n, Nest) for op in n.ops):
        raise ValueError("cupy_backend: a reduction: use segment_kernels")
    return [(k.in_params, k.out_params, k.operation, k.name) for k in segment_kernels(seg)]


def realize(xp: Any, base: Any, view: View) -> Any:
    """``base`` seen through ``view`` (an array of ``view.shape``), by the namespace's
    ``reshape``/``transpose``/``broadcast_to`` (views, no copies where the layout allows)."""
    return apply_view_plan(xp, base, view_plan(tuple(base.shape), view))


def view_plan(base_shape: tuple, view: View) -> tuple:
    """The steps of :func:`realize` for a base of ``base_shape``, the ones that change
    nothing left out (worked out once per kernel argument, not on every call)."""
    kept = [b for b, a in enumerate(view.axes) if a is not None]
    kept_shape = tuple(base_shape[b] for b in kept)
    order = tuple(sorted(range(len(kept)), key=lambda i: view.axes[kept[i]]))
    shape = [1] * len(view.shape)
    for t, i in zip(sorted(view.axes[b] for b in kept), order):
        shape[t] = kept_shape[i]
    steps: list = []
    if kept_shape != tuple(base_shape):
        steps.append(("reshape", kept_shape))
    if order != tuple(range(len(order))):
        steps.append(("transpose", order))
    if tuple(shape) != tuple(kept_shape[i] for i in order):
        steps.append(("reshape", tuple(shape)))
    if tuple(shape) != view.shape:
        steps.append(("broadcast_to", view.shape))
    return tuple(steps)


def apply_view_plan(xp: Any, arr: Any, plan: tuple) -> Any:
    for how, arg in plan:
        arr = getattr(xp, how)(arr, arg)
    return arr
