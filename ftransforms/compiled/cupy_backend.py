"""The CUDA backend of the compiled tier: each nest of a segment (``lowering.py``) as one
``cupy.ElementwiseKernel``, whose operands CuPy broadcasts to the nest's shape.

:func:`kernel_specs` prints a segment as the ``(in_params, out_params, operation,
name)`` of its kernels and :func:`compile_segments` builds them behind the interface of
``numba_backend.compile_segments`` (one callable per segment taking the arrays it reads
and the arrays it writes).  Views are applied with the array namespace's own
``reshape``/``transpose``/``broadcast_to`` (:func:`realize`) before a kernel reads them.
Only elementwise nests lower here (``plan(..., reductions=False)``): reductions stay CuPy
calls.  The sources are checked on the strict stand-in (``ftransforms/strict_backend.py``)
in the tests; nothing dispatches them yet (CuPy programs keep the replay).

Example:
    >>> import numpy as np
    >>> from ftransforms import make_program
    >>> from ftransforms.compiled.lowering import plan
    >>> prog = make_program(lambda x: np.sin(x) * 2.0 + x)(np.ones(3, np.float32))
    >>> (seg,) = plan(prog.eqns, prog.n_inputs, prog.out_refs, [((3,), np.float32)])
    >>> ins, outs, op, name = kernel_specs(seg)[0]
    >>> print(ins, "|", outs)
    float32 a0 | float32 a3
    >>> print(op)
    float v1 = (float)(sin(a0));
    float v2 = (float)(v1 * 2.0f);
    float v3 = (float)(v2 + a0);
    a3 = v3;
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from ftransforms.compiled.lowering import Nest, Op, Segment, View

__all__ = ["compile_segments", "kernel_specs", "realize"]

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
    "maximum": "(({0} >= {1} || {0} != {0}) ? {0} : {1})",
    "minimum": "(({0} <= {1} || {0} != {0}) ? {0} : {1})",
    "equal": "{0} == {1}",
    "not_equal": "{0} != {1}",
    "less": "{0} < {1}",
    "less_equal": "{0} <= {1}",
    "greater": "{0} > {1}",
    "greater_equal": "{0} >= {1}",
}
_UNARY = {"negative": "-{0}", "square": "{0} * {0}", "abs": "fabs({0})"}


def _literal(value: Any, dtype: numpy.dtype) -> str:
    if dtype == numpy.dtype(bool):
        return "true" if value else "false"
    text = repr(float(value))
    if text in ("inf", "-inf", "nan"):
        text = {"inf": "CUDART_INF", "-inf": "-CUDART_INF", "nan": "CUDART_NAN"}[text]
        return f"(({_CTYPE[dtype]}){text})"
    return text + ("f" if dtype == numpy.dtype("float32") else "")


def _operand(seg: Segment, a: tuple, compute: numpy.dtype, names: dict) -> str:
    if a[0] == "const":
        return _literal(a[1], compute)
    slot = a[1] if a[0] == "local" else names[id(a[1])]
    expr = f"v{slot}" if a[0] == "local" else slot
    dtype = seg.avals[a[1] if a[0] == "local" else a[1].base][1]
    return expr if dtype == compute else f"(({_CTYPE[compute]}){expr})"


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
    return f"{name}({args[0]})"


def _views(nest: Nest) -> list[View]:
    """The distinct array operands of a nest, in order of first use."""
    seen: dict[tuple, View] = {}
    for op in nest.ops:
        for a in op.args:
            if a[0] == "array":
                seen.setdefault((a[1].base, a[1].shape, a[1].axes), a[1])
    return list(seen.values())


def kernel_specs(seg: Segment) -> list[tuple[str, str, str, str]]:
    """``(in_params, out_params, operation, name)`` of each nest's ElementwiseKernel;
    ``ValueError`` for a nest this backend does not lower (a reduction)."""
    specs = []
    for j, nest in enumerate(i for i in seg.items if isinstance(i, Nest) and i.ops):
        if any(op.kind != "ew" for op in nest.ops):
            raise ValueError(
                "cupy_backend: reductions are left to CuPy (plan with reductions=False)"
            )
        views = _views(nest)
        names = {}
        params = []
        for k, v in enumerate(views):
            same = v.axes == tuple(range(len(v.shape))) and v.shape == seg.avals[v.base][0]
            name = f"a{v.base}" if same else f"a{v.base}_{k}"
            for a_view in [x for op in nest.ops for x in op.args if x[0] == "array"]:
                if (a_view[1].base, a_view[1].shape, a_view[1].axes) == (v.base, v.shape, v.axes):
                    names[id(a_view[1])] = name
            params.append(f"{seg.avals[v.base][1].name} {name}")
        lines = []
        for op in nest.ops:
            args = [_operand(seg, a, op.compute, names) for a in op.args]
            ctype = _CTYPE[op.dtype]
            lines.append(f"{ctype} v{op.out} = ({ctype})({_expression(op, args)});")
        outs = sorted(nest.stores & {op.out for op in nest.ops})
        lines += [f"a{s} = v{s};" for s in outs]
        out_params = ", ".join(f"{seg.avals[s][1].name} a{s}" for s in outs)
        specs.append((", ".join(params), out_params, "\n".join(lines), f"ft_fused_{j}"))
    return specs


def realize(xp: Any, base: Any, view: View) -> Any:
    """``base`` seen through ``view`` (an array of ``view.shape``), by the namespace's
    ``reshape``/``transpose``/``broadcast_to`` (views, no copies where the layout allows)."""
    kept = [b for b, a in enumerate(view.axes) if a is not None]
    arr = xp.reshape(base, tuple(base.shape[b] for b in kept))
    order = sorted(range(len(kept)), key=lambda i: view.axes[kept[i]])
    arr = xp.transpose(arr, tuple(order))
    targets = sorted(view.axes[b] for b in kept)
    shape = [1] * len(view.shape)
    for t, d in zip(targets, arr.shape):
        shape[t] = d
    return xp.broadcast_to(xp.reshape(arr, tuple(shape)), view.shape)


def compile_segments(segments: list, max_kernels: int) -> list[Callable | None]:
    """One callable per segment (``None`` past ``max_kernels`` kernels), running its
    nests' ElementwiseKernels in order on CuPy arrays."""
    import cupy  # the CUDA backend's optional dependency, only on a GPU machine

    built = []
    count = 0
    for seg in segments:
        specs = kernel_specs(seg)
        count += len(specs)
        if count > max_kernels:
            built.append(None)
            continue
        kernels = [cupy.ElementwiseKernel(i, o, op, name) for i, o, op, name in specs]
        built.append(_runner(seg, kernels))
    return built


def _runner(seg: Segment, kernels: list) -> Callable:
    nests = [i for i in seg.items if isinstance(i, Nest) and i.ops]

    def run(*arrays: Any) -> None:
        import cupy  # see compile_segments

        env = dict(zip(seg.inputs + seg.outputs, arrays))
        for s in seg.internal:
            env[s] = cupy.empty(seg.avals[s][0], seg.avals[s][1])
        for nest, kernel in zip(nests, kernels):
            ins = [realize(cupy, env[v.base], v) for v in _views(nest)]
            outs = [env[s] for s in sorted(nest.stores & {op.out for op in nest.ops})]
            kernel(*ins, *outs)

    return run
