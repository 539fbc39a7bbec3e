"""The strict CuPy stand-in's user kernels: a checker and interpreter of the CUDA C subset
that ``ftransforms/compiled/cupy_backend.py`` generates, evaluated with NumPy.

The stand-in (``ftransforms/strict_backend.py``) has no CUDA compiler, so its
``ElementwiseKernel``/``ReductionKernel`` parse their source here and run it over whole
arrays (one NumPy operation per C operation: the same values as one thread per element).
The checks are stricter than a compiler's, to catch what would silently round
differently on a GPU: every name declared before use and declared once; no implicit
conversion between ``float``, ``double`` and ``bool`` (arithmetic, comparisons,
assignments and function arguments need operands of one type; integer literals adapt),
so a float32 kernel that touches a ``double`` fails; only CUDA's math functions (``asin``,
not ``arcsin``); ``--``/``++`` are refused (``- -1.0f`` is not ``--1.0f``); every output
written.  ``KernelSourceError`` names what is wrong.

Example:
    >>> import numpy as np
    >>> k = Elementwise("float32 x", "float32 y", "float t = (float)(x * 2.0f);\\ny = t;")
    >>> k.run([np.arange(3, dtype=np.float32)])[0]
    array([0., 2., 4.], dtype=float32)
"""

from __future__ import annotations

import re
from typing import Any

import numpy

__all__ = ["Elementwise", "KernelSourceError", "Reduction", "parse_params"]


class KernelSourceError(ValueError):
    """Generated kernel source the stand-in (and a CUDA compiler) would not accept."""


#: C type -> NumPy dtype; ``int`` is only the type of integer literals.
CTYPES = {
    "float": numpy.dtype("float32"),
    "double": numpy.dtype("float64"),
    "bool": numpy.dtype(bool),
}
#: CuPy parameter type names (NumPy dtype names) -> C type.
PARAM_TYPES = {"float32": "float", "float64": "double", "bool": "bool"}

#: CUDA math functions (their C++ overloads keep float in float) -> NumPy.
MATH = {
    "sin": numpy.sin,
    "cos": numpy.cos,
    "tan": numpy.tan,
    "tanh": numpy.tanh,
    "exp": numpy.exp,
    "log": numpy.log,
    "sqrt": numpy.sqrt,
    "sinh": numpy.sinh,
    "cosh": numpy.cosh,
    "asin": numpy.arcsin,
    "acos": numpy.arccos,
    "atan": numpy.arctan,
    "asinh": numpy.arcsinh,
    "atanh": numpy.arctanh,
    "expm1": numpy.expm1,
    "log1p": numpy.log1p,
    "log2": numpy.log2,
    "log10": numpy.log10,
    "exp2": numpy.exp2,
    "fabs": numpy.abs,
    "floor": numpy.floor,
    "ceil": numpy.ceil,
    "trunc": numpy.trunc,
}

_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<hex>0[xX][0-9a-fA-F]+(?:ULL|LL|UL|U|L)?)"
    r"|(?P<float>(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?f?|\d+[eE][+-]?\d+f?)"
    r"|(?P<int>\d+)"
    r"|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<op>\|\||&&|==|!=|<=|>=|--|\+\+|[-+*/<>?:(),;{}=!])"
    r")"
)


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise KernelSourceError(f"kernel source: cannot read {text[pos : pos + 20]!r}")
        kind = m.lastgroup
        value = m.group(kind)
        if kind == "op" and value in ("--", "++"):
            raise KernelSourceError(
                f"kernel source: {value!r} in {text!r} (a decrement/increment, or a sign "
                f"next to a negative literal: parenthesize the literal)"
            )
        out.append((kind, value))
        pos = m.end()
    return out


class _Parser:
    """Recursive descent over the tokens: expressions to nested tuples."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    def peek(self, k: int = 0) -> tuple[str, str] | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        tok = self.peek()
        if tok is None or (value is not None and tok[1] != value):
            raise KernelSourceError(
                f"kernel source: expected {value or 'more'} at token {self.i} of {self.text!r}"
            )
        self.i += 1
        return tok

    def at(self, value: str) -> bool:
        tok = self.peek()
        return tok is not None and tok[1] == value

    def done(self) -> bool:
        return self.i >= len(self.toks)

    # expressions, by precedence
    def expr(self) -> tuple:
        cond = self.binary(0)
        if self.at("?"):
            self.take("?")
            a = self.expr()
            self.take(":")
            b = self.expr()
            return ("?", cond, a, b)
        return cond

    _LEVELS = (("||",), ("&&",), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-"), ("*", "/"))

    def binary(self, level: int) -> tuple:
        if level == len(self._LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() is not None and self.peek()[1] in self._LEVELS[level]:
            op = self.take()[1]
            left = ("bin", op, left, self.binary(level + 1))
        return left

    def unary(self) -> tuple:
        tok = self.peek()
        if tok is not None and tok[1] in ("-", "!"):
            self.take()
            return ("un", tok[1], self.unary())
        if (
            tok is not None
            and tok[1] == "("
            and self.peek(1) is not None
            and self.peek(1)[1] in CTYPES
            and self.peek(2) is not None
            and self.peek(2)[1] == ")"
        ):
            self.take("(")
            ctype = self.take()[1]
            self.take(")")
            return ("cast", ctype, self.unary())
        return self.primary()

    def primary(self) -> tuple:
        kind, value = self.take()
        if value == "(":
            e = self.expr()
            self.take(")")
            return e
        if kind == "float":
            if value.endswith("f"):
                return ("lit", numpy.float32(value[:-1]), "float")
            return ("lit", numpy.float64(value), "double")
        if kind in ("int", "hex"):
            return ("lit", int(value.rstrip("ULul"), 0), "int")
        if kind == "name":
            if value in ("true", "false"):
                return ("lit", numpy.bool_(value == "true"), "bool")
            if self.at("("):
                self.take("(")
                args = []
                while not self.at(")"):
                    args.append(self.expr())
                    if not self.at(")"):
                        self.take(",")
                self.take(")")
                return ("call", value, args)
            return ("var", value)
        raise KernelSourceError(f"kernel source: unexpected {value!r} in {self.text!r}")

    # statements
    def statements(self, until: str | None = None, last_semicolon: bool = True) -> list[tuple]:
        """Statements; ``last_semicolon=False``: the last may lack its ``;`` (CuPy's
        ``post_map_expr`` is an assignment expression)."""
        out = []
        while not self.done() and not (until and self.at(until)):
            tok = self.peek()
            if tok[1] in CTYPES and self.peek(1) is not None and self.peek(1)[0] == "name":
                ctype = self.take()[1]
                name = self.take()[1]
                self.take("=")
                out.append(("decl", ctype, name, self.expr()))
            elif tok[1] == "return":
                self.take()
                out.append(("return", self.expr()))
            else:
                kind, name = self.take()
                if kind != "name":
                    raise KernelSourceError(f"kernel source: a statement starts with {name!r}")
                self.take("=")
                out.append(("set", name, self.expr()))
            if last_semicolon or not self.done():
                self.take(";")
        return out


def parse_params(text: str) -> list[tuple[numpy.dtype, str]]:
    """``"float32 a0, bool a1"`` -> ``[(float32, "a0"), (bool, "a1")]``."""
    out = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        words = part.split()
        if len(words) != 2 or words[0] not in PARAM_TYPES or not words[1].isidentifier():
            raise KernelSourceError(
                f"kernel parameters: {part!r} is not 'float32|float64|bool name'"
            )
        out.append((numpy.dtype(words[0]), words[1]))
    names = [n for _, n in out]
    if len(set(names)) != len(names):
        raise KernelSourceError(f"kernel parameters: a name repeats in {text!r}")
    return out


def _ctype(dtype: numpy.dtype) -> str:
    return PARAM_TYPES[dtype.name]


class _Function:
    __slots__ = ("ret", "params", "body")

    def __init__(self, ret: str, params: list, body: list) -> None:
        self.ret, self.params, self.body = ret, params, body


def _preamble(text: str) -> dict[str, _Function]:
    """``__device__ [inline] T name(T p, ...) { ...; return e; }`` definitions."""
    p = _Parser(text)
    functions: dict[str, _Function] = {}
    while not p.done():
        p.take("__device__")
        if p.at("inline"):
            p.take()
        ret = p.take()[1]
        if ret not in CTYPES:
            raise KernelSourceError(f"kernel preamble: unknown return type {ret!r}")
        name = p.take()[1]
        p.take("(")
        params = []
        while not p.at(")"):
            ctype, pname = p.take()[1], p.take()[1]
            if ctype not in CTYPES:
                raise KernelSourceError(f"kernel preamble: unknown parameter type {ctype!r}")
            params.append((ctype, pname))
            if not p.at(")"):
                p.take(",")
        p.take(")")
        p.take("{")
        body = p.statements(until="}")
        p.take("}")
        if not body or body[-1][0] != "return":
            raise KernelSourceError(f"kernel preamble: {name} does not end with a return")
        if name in functions or name in MATH:
            raise KernelSourceError(f"kernel preamble: {name} defined twice")
        functions[name] = _Function(ret, params, body)
    return functions


class _Scope:
    """Evaluation of statements and expressions over arrays, with the type checks."""

    def __init__(self, functions: dict, values: dict, types: dict, writable: set) -> None:
        self.functions = functions
        self.values = values  # name -> value (array or scalar)
        self.types = types  # name -> C type
        self.writable = writable  # output parameters
        self.written: set = set()

    def run(self, body: list) -> Any:
        for st in body:
            if st[0] == "decl":
                _, ctype, name, e = st
                if name in self.types:
                    raise KernelSourceError(f"kernel source: {name} declared twice")
                v, t = self.eval(e)
                self.assign_check(name, ctype, t)
                self.values[name], self.types[name] = _as(v, ctype), ctype
            elif st[0] == "set":
                _, name, e = st
                if name not in self.writable:
                    raise KernelSourceError(f"kernel source: {name} is not an output")
                v, t = self.eval(e)
                self.assign_check(name, self.types[name], t)
                self.values[name] = _as(v, self.types[name])
                self.written.add(name)
            else:
                return self.eval(st[1])
        return None

    @staticmethod
    def assign_check(name: str, ctype: str, t: str) -> None:
        if t != ctype and not (t == "int" and ctype != "bool"):
            raise KernelSourceError(
                f"kernel source: {name} ({ctype}) is assigned a {t}: convert explicitly"
            )

    def eval(self, e: tuple) -> tuple[Any, str]:
        kind = e[0]
        if kind == "lit":
            return e[1], e[2]
        if kind == "var":
            if e[1] not in self.types:
                raise KernelSourceError(f"kernel source: {e[1]} is not declared")
            return self.values[e[1]], self.types[e[1]]
        if kind == "cast":
            v, t = self.eval(e[2])
            return _as(v, e[1]), e[1]
        if kind == "un":
            v, t = self.eval(e[2])
            if e[1] == "!":
                _need(t == "bool", f"'!' of a {t}")
                return numpy.logical_not(v), "bool"
            _need(t != "bool", "'-' of a bool")
            return -v, t
        if kind == "?":
            c, tc = self.eval(e[1])
            _need(tc == "bool", f"a condition of type {tc}")
            (a, ta), (b, tb) = self.eval(e[2]), self.eval(e[3])
            t = _common(ta, tb, "?:")
            return _as(numpy.where(c, a, b), t), t
        if kind == "bin":
            op = e[1]
            (a, ta), (b, tb) = self.eval(e[2]), self.eval(e[3])
            if op in ("||", "&&"):
                _need(ta == tb == "bool", f"{op} of {ta} and {tb}")
                return (numpy.logical_or if op == "||" else numpy.logical_and)(a, b), "bool"
            if op in ("==", "!="):
                _common(ta, tb, op)
            else:
                _need("bool" not in (ta, tb), f"{op} of a bool")
            t = _common(ta, tb, op)
            with numpy.errstate(all="ignore"):
                v = _BINOPS[op](a, b)
            return v, ("bool" if op in _COMPARISONS else t)
        # a call
        name, args = e[1], [self.eval(a) for a in e[2]]
        if name in MATH:
            _need(len(args) == 1, f"{name} takes one argument")
            v, t = args[0]
            _need(t in ("float", "double"), f"{name} of a {t}")
            with numpy.errstate(all="ignore"):
                return MATH[name](_as(v, t)), t
        if name in ("max", "min"):  # CUDA's float overloads: fmax/fmin, +0 above -0
            _need(len(args) == 2, f"{name} takes two arguments")
            t = _common(args[0][1], args[1][1], name)
            _need(t in ("float", "double"), f"{name} of a {t} (the kernels use it on floats)")
            a, b = _as(args[0][0], t), _as(args[1][0], t)
            tie = numpy.signbit(a) == (name == "max")  # a is the -0 of max / the +0 of min
            with numpy.errstate(all="ignore"):
                v = (numpy.fmax if name == "max" else numpy.fmin)(a, b)
                return numpy.where((a == b) & tie, b, numpy.where(a == b, a, v))[()], t
        if name == "pow":
            _need(len(args) == 2, "pow takes two arguments")
            t = _common(args[0][1], args[1][1], "pow")
            with numpy.errstate(all="ignore"):
                return numpy.power(_as(args[0][0], t), _as(args[1][0], t)), t
        if name in ("__int_as_float", "__longlong_as_double"):
            _need(len(args) == 1 and args[0][1] == "int", f"{name} takes an integer literal")
            if name == "__int_as_float":
                return numpy.array(args[0][0], numpy.uint32).view(numpy.float32)[()], "float"
            return numpy.array(args[0][0], numpy.uint64).view(numpy.float64)[()], "double"
        fn = self.functions.get(name)
        if fn is None:
            raise KernelSourceError(f"kernel source: unknown function {name}")
        _need(len(args) == len(fn.params), f"{name} takes {len(fn.params)} arguments")
        values, types = {}, {}
        for (v, t), (ptype, pname) in zip(args, fn.params):
            self.assign_check(f"{name}'s {pname}", ptype, t)
            values[pname], types[pname] = _as(v, ptype), ptype
        v, t = _Scope(self.functions, values, types, set()).run(fn.body)
        self.assign_check(f"{name}'s result", fn.ret, t)
        return _as(v, fn.ret), fn.ret


_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
_BINOPS = {
    "+": numpy.add,
    "-": numpy.subtract,
    "*": numpy.multiply,
    "/": numpy.true_divide,
    "==": numpy.equal,
    "!=": numpy.not_equal,
    "<": numpy.less,
    "<=": numpy.less_equal,
    ">": numpy.greater,
    ">=": numpy.greater_equal,
}


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise KernelSourceError(f"kernel source: {what}")


def _common(a: str, b: str, op: str) -> str:
    """The type of a binary operation: the same type on both sides (integer literals
    adapt); float with double is refused (an implicit promotion)."""
    if a == b:
        return a
    if a == "int" and b != "bool":
        return b
    if b == "int" and a != "bool":
        return a
    raise KernelSourceError(f"kernel source: {op} of {a} and {b} (an implicit conversion)")


def _as(value: Any, ctype: str) -> Any:
    if ctype == "int":
        return value
    out = numpy.asarray(value).astype(CTYPES[ctype], copy=False)
    return out[()] if out.ndim == 0 else out


class Elementwise:
    """An ElementwiseKernel's source, checked: :meth:`run` on the broadcast inputs gives
    its outputs (NumPy arrays of the broadcast shape)."""

    def __init__(self, in_params: str, out_params: str, operation: str, preamble: str = "") -> None:
        self.ins, self.outs = parse_params(in_params), parse_params(out_params)
        if {n for _, n in self.ins} & {n for _, n in self.outs}:
            raise KernelSourceError("kernel parameters: an input and an output share a name")
        self.functions = _preamble(preamble)
        self.body = _Parser(operation).statements()
        if any(st[0] == "return" for st in self.body):
            raise KernelSourceError("kernel source: return in an elementwise operation")
        # evaluated once on 0-d values: the types check and every output must be written
        self.run([numpy.zeros((), d) for d, _ in self.ins], ())

    def run(self, arrays: list, shape: tuple | None = None) -> list:
        if len(arrays) != len(self.ins):
            raise KernelSourceError(f"kernel: {len(self.ins)} inputs, {len(arrays)} given")
        if shape is None:
            shape = numpy.broadcast_shapes(*(numpy.shape(a) for a in arrays))
        values = {n: numpy.broadcast_to(a, shape) for a, (_, n) in zip(arrays, self.ins)}
        types = {n: _ctype(d) for d, n in self.ins + self.outs}
        scope = _Scope(self.functions, values, types, {n for _, n in self.outs})
        scope.run(self.body)
        missing = [n for _, n in self.outs if n not in scope.written]
        if missing:
            raise KernelSourceError(f"kernel source: output {', '.join(missing)} never written")
        return [numpy.broadcast_to(values[n], shape).astype(d) for d, n in self.outs]


class Reduction:
    """A ReductionKernel's source, checked: :meth:`run` maps the broadcast inputs, reduces
    over ``axis`` in order (``a`` the accumulator, ``b`` the next value, both of
    ``reduce_type``), and maps the result to the one output."""

    def __init__(
        self,
        in_params: str,
        out_params: str,
        map_expr: str,
        reduce_expr: str,
        post_map_expr: str,
        identity: str,
        reduce_type: str,
        preamble: str = "",
    ) -> None:
        self.ins, self.outs = parse_params(in_params), parse_params(out_params)
        if len(self.outs) != 1:
            raise KernelSourceError("reduction kernel: exactly one output")
        if reduce_type not in CTYPES:
            raise KernelSourceError(f"reduction kernel: unknown reduce_type {reduce_type!r}")
        self.rtype = reduce_type
        self.functions = _preamble(preamble)
        self.map = _Parser(map_expr).expr()
        self.reduce = _Parser(reduce_expr).expr()
        self.post = _Parser(post_map_expr).statements(last_semicolon=False)
        self.identity = _Parser(identity).expr()
        for text, tree in ((map_expr, self.map), (reduce_expr, self.reduce)):
            if not isinstance(tree, tuple):
                raise KernelSourceError(f"reduction kernel: {text!r} is not an expression")
        self.run([numpy.zeros((1,), d) for d, _ in self.ins], (0,), False)  # types checked

    def _scope(self, values: dict, types: dict, writable: set = frozenset()) -> _Scope:
        return _Scope(self.functions, values, types, set(writable))

    def run(self, arrays: list, axis: tuple, keepdims: bool) -> numpy.ndarray:
        if len(arrays) != len(self.ins):
            raise KernelSourceError(f"kernel: {len(self.ins)} inputs, {len(arrays)} given")
        shape = numpy.broadcast_shapes(*(numpy.shape(a) for a in arrays))
        axis = tuple(sorted({a % len(shape) for a in axis})) if shape else ()
        values = {n: numpy.broadcast_to(a, shape) for a, (_, n) in zip(arrays, self.ins)}
        types = {n: _ctype(d) for d, n in self.ins}
        mapped, t = self._scope(values, types).eval(self.map)
        _Scope.assign_check("the mapped value", self.rtype, t)
        mapped = numpy.broadcast_to(_as(mapped, self.rtype), shape)
        kept = [k for k in range(len(shape)) if k not in axis]
        moved = numpy.transpose(mapped, kept + list(axis))
        kept_shape = tuple(shape[k] for k in kept)
        flat = moved.reshape(kept_shape + (-1,))
        ident, ti = self._scope({}, {}).eval(self.identity)
        _Scope.assign_check("the identity", self.rtype, ti)
        acc = numpy.full(kept_shape, ident, CTYPES[self.rtype])
        for k in range(flat.shape[-1]):
            v, tr = self._scope(
                {"a": acc, "b": flat[..., k]}, {"a": self.rtype, "b": self.rtype}
            ).eval(self.reduce)
            _Scope.assign_check("the reduction", self.rtype, tr)
            acc = numpy.asarray(_as(v, self.rtype)).reshape(kept_shape)
        (dtype, name) = self.outs[0]
        scope = self._scope({"a": acc}, {"a": self.rtype, name: _ctype(dtype)}, {name})
        scope.run(self.post)
        if name not in scope.written:
            raise KernelSourceError(f"reduction kernel: output {name} never written")
        out = numpy.broadcast_to(scope.values[name], kept_shape).astype(dtype)
        if keepdims:
            out = out.reshape(tuple(1 if k in axis else d for k, d in enumerate(shape)))
        return out
