"""Loop-invariant cotangent sums hoisted out of the backward pass of an eager loop.

NOTE [hoisted loop cotangents]: under ``grad``/``vjp`` an eager ``scan`` (and an eager
``fori_loop``/``while_loop``) leaves one tape node per primitive per step.  A value made
before the loop and used at every step (a weight the body closes over, a carry that never
changes, the ``xs`` being sliced) then receives one cotangent per step, and the tape adds
them up one step at a time: for ``z_t = W @ h_t`` that is one outer product
``z_bar_t h_t^T`` of the size of ``W`` per step (per batch row under ``vmap``), and for
``x_t = xs[t]`` one zero array of the size of ``xs`` with ``x_bar_t`` written into it,
per step (quadratic in the length).

When the loop ends, :func:`end` rewrites the tape segment the loop recorded.  For each
such value ``c`` -- or a loop-invariant value made inside the loop: a short chain of unary
primitives with the same settings from a value made before it (``W.T`` made at every step
by ``vmap``'s ``matmul`` rule under ``grad(vmap(...))``, a body's own ``h @ W.T`` or
``W[0]``), whose copies are one value, so that the first step's copy can take the
cotangent of all -- it finds the nodes that use it in one of these ways, with the same
primitive, position, settings, shapes and dtypes at two or more steps:

* ``matmul`` and ``einsum`` (``c`` one factor of a contraction): the cotangent of ``c``
  from step ``t`` is the contraction of the step's output cotangent ``y_bar_t`` with the
  other factors; summed over the steps it is ONE contraction over the stacked ``y_bar``'s
  and the stacked other factors, the step axis contracted with the rest (for the LSTM's
  ``W @ h_t``: one batched product ``Z^T H``, as backpropagation through time by hand
  computes it, instead of ``T`` outer products and ``T`` additions).  With two factors it
  is one ``matmul`` (after transposes and reshapes; NumPy's ``einsum`` would spend
  ~100 us per call planning it), with more one ``einsum(..., optimize=True)``.  A factor
  that is the same value at every step is not stacked (the step axis is then summed
  in ``y_bar`` alone);
* ``add``, ``subtract`` and ``multiply`` (elementwise, broadcasting): one product over the
  stacked values and one reduction instead of one per step;
* ``getitem`` with an integer first index and full slices after it, each index of the
  leading axis taken exactly once (the loop's own slicing of ``xs``): the stacked
  ``x_bar``'s in index order are the cotangent, instead of ``T`` scatters into zeros.

Each such node is given a fresh *proxy* id in place of ``c`` and a VJP that hands its
``y_bar`` to the proxy unchanged (its other inputs get their usual cotangents: the
recurrence is untouched); one *gather* node placed before the segment's first such node
takes the proxies as outputs and ``c`` as input, and its VJP does the one contraction.
The backward walk reaches the gather node after every step's nodes, so every ``y_bar_t``
is known by then.  The gather node's JVP copies ``c``'s tangent to every proxy, so
``linearize`` (which pushes tangents forward through the tape) sees the same function.

Memory: the ``y_bar_t`` are kept until the gather node runs (about ``T`` times one step's
output cotangent, plus a stacked copy of the per-step factors while it runs), where the
step-by-step sum kept one accumulator.  A group whose stacked factors would exceed
``HOIST["chunk_bytes"]`` is split into chunks of consecutive steps, each with its own
gather node (a contraction per chunk); a group that does not fit even two steps per chunk
is left as it was.  ``HOIST["enabled"] = False`` turns the rewrite off.

Cost: the rewrite is one pass over the loop's tape segment and a few operations per
group.  Run eagerly, a group is rewritten only when it replaces at least
``HOIST["min_elements"]`` elements of step-by-step accumulation (steps x the size of the
larger of ``c`` and the step's output): for smaller ones the per-step sums cost less than
the stacking (``grad`` of a small RNN, H=8, rewritten whatever its size: 30% slower at
T=5, even at T=50, faster at T=500; the pass alone, when nothing is rewritten, is within
the few percent of timing noise here).  Into a ``jit`` recording every group is rewritten:
the replay runs fewer backend calls and pays nothing for the analysis.  On the W6 LSTM
benchmark (B=32, H=64, T=50, float32) the rewrite takes ``jit(vmap(grad))`` from 27.5 to
8.4 ms (hand-written BPTT: 6.5 ms) and eager ``vmap(grad)`` from 55 to 34 ms.

What is not rewritten (the step-by-step sum stays, the results are the same): values
made inside the loop from loop-invariant ones by anything but a chain of unary primitives,
checkpointed steps (one opaque node each), a loop run while a checkpointed function
records (no tape nodes), a ``getitem`` group whose indices repeat (``xs[0]`` read at every
step besides the loop's own slicing), and every other primitive.
The sums run in another order than step by step, so results can differ in the last bits.
"""

from __future__ import annotations

from typing import Any

from ftransforms import lax
from ftransforms.backend import namespace_of
from ftransforms.core.primitive import Primitive
from ftransforms.core.stack import current_stack
from ftransforms.core.tracer import Tracer
from ftransforms.interpreters.reverse import Node, ReverseInterpreter
from ftransforms.interpreters.tracing import TraceInterpreter
from ftransforms.ops._util import unbroadcast

__all__ = ["HOIST", "begin", "end", "sum_over_steps"]

#: ``enabled``: rewrite loop tapes (NOTE [hoisted loop cotangents]); ``chunk_bytes``: the
#: most bytes of stacked per-step factors one gather node may hold; ``min_elements``: the
#: least step-by-step accumulation (steps x elements of the larger of the shared input and
#: the step's output) worth a rewrite when it runs eagerly rather than into a ``jit``
#: recording (below it the rewrite's fixed cost exceeds the per-step work it saves).
HOIST: dict[str, Any] = {"enabled": True, "chunk_bytes": 32 << 20, "min_elements": 1 << 15}


def begin() -> tuple | None:
    """Marks of the reverse-mode tapes before a loop runs (``None``: nothing to rewrite).

    Example:
        >>> begin() is None  # no grad/vjp active
        True
    """
    if not HOIST["enabled"]:
        return None
    stack = current_stack()
    marks = [
        (interp, len(interp.tape), interp.next_id)
        for interp in stack
        if type(interp) is ReverseInterpreter and interp.recorder is None
    ]
    if not marks:
        return None
    return marks, type(stack[0]) is TraceInterpreter


def end(marks: tuple | None) -> None:
    """Rewrite what each tape recorded since :func:`begin` (NOTE [hoisted loop cotangents]).

    Example:
        >>> end(None)  # nothing was marked
    """
    if marks is None:
        return
    levels, recording = marks
    min_elements = 0 if recording else HOIST["min_elements"]
    for interp, start, first_id in levels:
        if interp.recorder is None and len(interp.tape) - start > 2:
            _hoist(interp, start, first_id, min_elements)


# -- finding the groups ---------------------------------------------------------------------

_ELEMENTWISE = ("add", "subtract", "multiply")


def _aval(x: Any) -> tuple:
    dtype = getattr(x, "dtype", None)
    return (lax.shape(x), dtype if dtype is not None else type(x))


def _other_key(x: Any) -> Any:
    """A factor that is not ``c``: its shape and dtype, or its value for a Python scalar."""
    if isinstance(x, (bool, int, float, complex)):
        return ("scalar", type(x), x)
    return _aval(x)


def _matmul_subscripts(a: Any, b: Any) -> str | None:
    """``a @ b`` as einsum subscripts, or ``None`` where its stacks broadcast."""
    sa, sb = lax.shape(a), lax.shape(b)
    ra, rb = len(sa), len(sb)
    if ra == 0 or rb == 0:
        return None
    if ra == 1 and rb == 1:
        return "k,k->"
    if rb == 1:
        batch = lax.LETTERS[: ra - 2]
        return f"{batch}nk,k->{batch}n"
    if ra == 1:
        batch = lax.LETTERS[: rb - 2]
        return f"k,{batch}km->{batch}m"
    if ra > 2 and rb > 2 and sa[:-2] != sb[:-2]:
        return None
    batch = lax.LETTERS[: max(ra, rb) - 2]
    ba = batch if ra > 2 else ""
    bb = batch if rb > 2 else ""
    return f"{ba}nk,{bb}km->{batch}nm"


def _contraction(node: Node, pos: int) -> str | None:
    """The einsum subscripts of a ``matmul``/``einsum`` node when the cotangent of input
    ``pos`` is a plain contraction of ``y_bar`` with the other inputs (no letter repeated
    in a subscript, none of input ``pos``'s letters summed in it alone)."""
    if node.prim.name == "matmul":
        return _matmul_subscripts(*node.args)
    subscripts = node.params["subscripts"]
    ins, out = subscripts.split("->")
    ins = ins.split(",")
    if any(len(set(sub)) != len(sub) for sub in ins + [out]):
        return None  # a diagonal or trace: not a plain contraction
    elsewhere = set(out).union(*(sub for j, sub in enumerate(ins) if j != pos))
    if not set(ins[pos]) <= elsewhere:
        return None
    return subscripts


def _group_key(node: Node, pos: int) -> tuple | None:
    name = node.prim.name
    args = node.args
    if name == "getitem":
        index = node.params["index"]
        if (
            pos != 0
            or len(args) != 1
            or not index
            or type(index[0]) is not int
            or not all(type(i) is slice and i == slice(None) for i in index[1:])
        ):
            return None
        return ("getitem", len(index), _aval(args[0]))
    if name in ("matmul", "einsum"):
        subscripts = _contraction(node, pos)
        if subscripts is None:
            return None
        others = tuple(_other_key(a) for j, a in enumerate(args) if j != pos)
        return ("contract", subscripts, _aval(args[pos]), others, _aval(node.y))
    if name in _ELEMENTWISE and len(args) == 2:
        if name == "multiply" and args[0] is args[1]:
            return None  # a square: one node gives both cotangents (see _multiply_vjp)
        return (name, _aval(args[pos]), _other_key(args[1 - pos]), _aval(node.y))
    return None


_NAMES = frozenset((*_ELEMENTWISE, "matmul", "einsum", "getitem"))


def _hoist(interp: ReverseInterpreter, start: int, first_id: int, min_elements: int) -> None:
    tape = interp.tape
    # A first pass over the segment, cheap: (what c is, position, primitive) -> tape
    # indices.  c is a value made before the loop, or a loop-invariant one made inside it
    # (see _invariant): id -> (key, depth), and the tape index of the node that made it.
    invariant: dict[int, tuple] = {}
    made: dict[int, int] = {}
    coarse: dict[tuple, list] = {}
    for k in range(start, len(tape)):
        node = tape[k]
        parents = node.parents
        if len(parents) == 1:
            p0 = parents[0]
            if p0 is not None and (p0 <= first_id or p0 in invariant):
                _invariant(node, k, first_id, invariant, made)
        if node.prim.name in _NAMES:
            for pos, pid in enumerate(parents):
                if pid is None:
                    continue
                if pid <= first_id:  # an input made before the loop
                    what: Any = pid
                else:
                    found = invariant.get(pid)
                    if found is None:
                        continue
                    what = found[0]
                coarse.setdefault((what, pos, node.prim.name), []).append(k)
    groups: dict[tuple, list] = {}
    settings: dict[int, Any] = {}
    for (what, pos, _), ks in coarse.items():
        if len(ks) < 2 or not _worth_it(tape, ks, pos, min_elements):
            continue
        for k in ks:
            node = tape[k]
            key = _group_key(node, pos)
            if key is None:
                continue
            pid = node.parents[pos]
            if pid > first_id:  # the settings along its chain must agree too
                chain = _chain_settings(tape, made, settings, pid, first_id)
                if chain is None:
                    continue
                key = (*key, ("settings", chain))
            groups.setdefault((what, pos, key), []).append(k)
    inserts: dict[int, list] = {}
    proxies: dict[int, dict] = {}  # tape index -> {position: proxy id}
    for (_, pos, key), ks in groups.items():
        if len(ks) < 2:
            continue
        for chunk in _chunks(tape, ks, pos, key):
            ids = tuple(range(interp.next_id + 1, interp.next_id + 1 + len(chunk)))
            interp.next_id += len(chunk)
            first = tape[chunk[0]]
            pid = first.parents[pos]  # c as the chunk's first step has it (made before it)
            gather = _Gather(key, pos, [tape[k].args for k in chunk], [tape[k] for k in chunk])
            node = Node(gather, {}, [first.args[pos]], [pid], None, ids)
            inserts.setdefault(chunk[0], []).append(node)
            for k, proxy in zip(chunk, ids):
                proxies.setdefault(k, {})[pos] = proxy
    if not inserts:
        return
    new = []
    for k in range(start, len(tape)):
        new.extend(inserts.get(k, ()))
        node = tape[k]
        deferred = proxies.get(k)
        if deferred is not None:
            parents = [deferred.get(p, pid) for p, pid in enumerate(node.parents)]
            prim = _Deferring(node.prim, frozenset(deferred))
            node = Node(prim, node.params, node.args, parents, node.y, node.out_id)
        new.append(node)
    tape[start:] = new


def _physical_size(x: Any) -> tuple[int, int]:
    """Elements and bytes of the backend array under ``x``."""
    p = lax.physical(x)
    n = getattr(p, "size", 1)
    return n, getattr(p, "nbytes", 8 * n)


#: How many unary steps from a value made before the loop a loop-invariant value may be.
_CHAIN = 4


def _invariant(node: Node, k: int, first_id: int, invariant: dict, made: dict) -> None:
    """Note ``node``'s output as loop-invariant when it is a unary primitive (``W.T`` from
    a batching rule, ``W.reshape``, ``W[0]``, ``tanh(W)``) of a value made before the loop
    or of such a value (at most :data:`_CHAIN` deep): one and the same value at every step,
    so the cotangent of any one step's copy is the cotangent of all.  The key names the
    source and the primitives; the settings along the chain must agree as well
    (:func:`_chain_settings`, computed only for the groups worth rewriting)."""
    pid = node.parents[0]
    inner, depth = (pid, 0) if pid <= first_id else invariant[pid]
    prim = node.prim
    if depth < _CHAIN and type(prim) is Primitive and not prim.effectful:
        if type(node.out_id) is int:
            invariant[node.out_id] = ((id(prim), inner), depth + 1)
            made[node.out_id] = k


def _chain_settings(tape: list, made: dict, memo: dict, pid: int, first_id: int) -> Any:
    """The settings of the unary primitives from a loop-invariant value's source (see
    :func:`_invariant`), or ``None`` when one is unhashable (an array)."""
    if pid <= first_id:
        return ()
    if pid not in memo:
        node = tape[made[pid]]
        inner = _chain_settings(tape, made, memo, node.parents[0], first_id)
        try:
            memo[pid] = None if inner is None else (*inner, _settings_key(node.params))
        except TypeError:
            memo[pid] = None
    return memo[pid]


def _settings_key(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple((k, _settings_key(v)) for k, v in sorted(value.items()))
    if isinstance(value, (tuple, list)):
        return (type(value), tuple(_settings_key(v) for v in value))
    if type(value) is slice:
        return ("slice", value.start, value.stop, value.step)
    if isinstance(value, float):
        return (float, repr(value))
    hash(value)
    return (type(value), value)


def _worth_it(tape: list, ks: list, pos: int, min_elements: int) -> bool:
    """At least ``min_elements`` of step-by-step accumulation: steps x the elements of the
    larger of the shared input and the step's output (see :data:`HOIST`)."""
    if not min_elements:
        return True
    node = tape[ks[0]]
    size = max(_physical_size(node.args[pos])[0], _physical_size(node.y)[0])
    return len(ks) * size >= min_elements


def _chunks(tape: list, ks: list, pos: int, key: tuple) -> list:
    """``ks`` in runs of consecutive steps whose stacked factors fit ``chunk_bytes``."""
    node = tape[ks[0]]
    if key[0] == "getitem":
        n = key[2][0][0]
        taken = sorted(tape[k].params["index"][0] % n for k in ks)
        return [ks] if taken == list(range(n)) else []
    per_step = _physical_size(node.y)[1] + sum(
        _physical_size(a)[1] for j, a in enumerate(node.args) if j != pos and hasattr(a, "shape")
    )
    size = HOIST["chunk_bytes"] // max(per_step, 1)
    if size < 2:
        return []
    return [ks[i : i + size] for i in range(0, len(ks), size) if len(ks[i : i + size]) > 1]


# -- the rewritten nodes ------------------------------------------------------------------


class _Deferring:
    """A step's node whose cotangent for the inputs ``positions`` is handed to their
    proxies as the node's ``y_bar`` itself; the gather node finishes it."""

    __slots__ = ("prim", "positions", "name")
    multiple_results = False
    nondiff = False

    def __init__(self, prim: Any, positions: frozenset) -> None:
        self.prim = prim
        self.positions = positions
        self.name = prim.name

    def apply_vjp(self, y_bar: Any, y: Any, args: Any, wanted: Any, params: dict) -> tuple:
        rest = [w and p not in self.positions for p, w in enumerate(wanted)]
        if any(rest):
            out = list(self.prim.apply_vjp(y_bar, y, args, rest, params))
        else:
            out = [None] * len(args)
        for p in self.positions:
            if wanted[p]:
                out[p] = y_bar
        return tuple(out)

    def apply_jvp(self, primals: Any, tangents: Any, y: Any, params: dict) -> Any:
        return self.prim.apply_jvp(primals, tangents, y, params)


class _Gather:
    """The input ``c`` copied to one proxy per step; its VJP sums the steps' cotangents
    (handed over as their nodes' ``y_bar``) with one contraction or reduction."""

    __slots__ = ("key", "pos", "args", "ys", "rows", "name")
    multiple_results = True
    nondiff = False

    def __init__(self, key: tuple, pos: int, args: list, nodes: list) -> None:
        self.key = key
        self.pos = pos
        self.args = args  # each step node's inputs
        self.ys = self.rows = None
        if key[0] == "getitem":
            n = key[2][0][0]
            self.ys = [node.y for node in nodes]
            self.rows = [node.params["index"][0] % n for node in nodes]
        self.name = f"hoisted {key[0]} cotangent"

    def apply_jvp(self, primals: Any, tangents: Any, y: Any, params: dict) -> tuple:
        return (tangents[0],) * len(self.args)

    def apply_vjp(self, y_bar: tuple, y: Any, args: Any, wanted: Any, params: dict) -> tuple:
        c = args[0]
        kind = self.key[0]
        if kind == "getitem":
            return (self._stacked_slices(y_bar, c),)
        live = [(a, b) for a, b in zip(self.args, y_bar) if b is not None]
        if not live:
            return (None,)
        ys = _stack([b for _, b in live])
        others = [None if j == self.pos else _others(live, j) for j in range(len(live[0][0]))]
        return (sum_over_steps(self.key, self.pos, others, ys, c),)

    def _stacked_slices(self, y_bar: tuple, c: Any) -> Any:
        """The cotangent of ``c`` whose row ``i`` is the ``y_bar`` of the slice ``c[i]``."""
        n = lax.shape(c)[0]
        rows: list = [None] * n
        for b, y, index in zip(y_bar, self.ys, self.rows):
            rows[index] = lax.zeros_like(y) if b is None else b
        return unbroadcast(_stack(rows), c)


def _others(live: list, j: int) -> tuple:
    """Input ``j`` of the live steps: ``(value, False)`` when it is one value at every
    step, else ``(stacked along a new leading axis, True)``."""
    first = live[0][0][j]
    if isinstance(first, (bool, int, float, complex)) or all(a[j] is first for a, _ in live):
        return first, False
    return _stack([a[j] for a, _ in live]), True


def sum_over_steps(key: tuple, pos: int, others: list, ys: Any, c: Any) -> Any:
    """The cotangent of ``c``, input ``pos`` of one node per step, summed over the steps:
    ``ys`` their output cotangents stacked along a new leading axis, ``others[j]`` input
    ``j`` as ``(value, stacked)`` (stacked the same way, or one value at every step);
    ``key`` is the group's (:func:`_group_key`, not a ``getitem``).  One contraction or
    elementwise product and one reduction (NOTE [hoisted loop cotangents]).

    Example:
        >>> import numpy as np
        >>> w, hs, zbars = np.ones((2, 3)), np.arange(6.0).reshape(2, 3), np.ones((2, 2))
        >>> key = ("contract", "nk,k->n")
        >>> sum_over_steps(key, 0, [None, (hs, True)], zbars, w).tolist()
        [[3.0, 5.0, 7.0], [3.0, 5.0, 7.0]]
    """
    kind = key[0]
    if kind == "contract":
        subscripts = key[1]
        ins, out = subscripts.split("->")
        ins = ins.split(",")
        step = next(ch for ch in lax.LETTERS if ch not in subscripts)
        operands, subs = [], []
        for j, sub in enumerate(ins):
            if j == pos:
                continue
            value, stacked = others[j]
            operands.append(value)
            subs.append(step + sub if stacked else sub)
        operands.append(ys)
        subs.append(step + out)
        if len(operands) == 2:
            res = _contract_pair(operands[0], subs[0], operands[1], subs[1], ins[pos])
        else:
            res = lax.einsum(",".join(subs) + "->" + ins[pos], *operands, optimize=True)
        return unbroadcast(res, c)
    if kind == "multiply":
        other, stacked = others[1 - pos]
        rank = lax.ndim(ys) - 1
        if stacked and lax.ndim(other) - 1 < rank:
            pad = (1,) * (rank - lax.ndim(other) + 1)
            other = lax.reshape(other, lax.shape(other)[:1] + pad + lax.shape(other)[1:])
        return unbroadcast(lax.multiply(ys, other), c)
    c_bar = unbroadcast(ys, c)
    return lax.negative(c_bar) if kind == "subtract" and pos == 1 else c_bar


def _stack(values: list) -> Any:
    """``lax.stack``, straight to the backend when no value is a tracer."""
    if any(isinstance(v, Tracer) for v in values):
        return lax.stack(values)
    return namespace_of(*values).stack(values)


def _contract_pair(a: Any, sa: str, b: Any, sb: str, target: str) -> Any:
    """``einsum(f"{sa},{sb}->{target}", a, b)`` (no letter repeated within a subscript) as
    one ``matmul``: the letters of both inputs and the target are its stack axes, those
    of both inputs only are contracted; a letter of one input only is summed first."""
    a, sa = _sum_lone(a, sa, sb + target)
    b, sb = _sum_lone(b, sb, sa + target)
    if target and target[0] in sb and target[0] not in sa:
        a, sa, b, sb = b, sb, a, sa  # the result's first letter from the left factor
    size = dict(zip(sa, lax.shape(a)))
    size.update(zip(sb, lax.shape(b)))
    batch = [ch for ch in target if ch in sa and ch in sb]
    rows = [ch for ch in target if ch in sa and ch not in sb]
    cols = [ch for ch in target if ch in sb and ch not in sa]
    inner = [ch for ch in sa if ch in sb and ch not in target]
    nb = tuple(size[ch] for ch in batch)
    left = _grouped(a, sa, batch + rows + inner, nb + (_prod(rows, size), _prod(inner, size)))
    right = _grouped(b, sb, batch + inner + cols, nb + (_prod(inner, size), _prod(cols, size)))
    res = lax.reshape(
        lax.matmul(left, right),
        nb + tuple(size[ch] for ch in rows) + tuple(size[ch] for ch in cols),
    )
    order = batch + rows + cols
    return lax.transpose(res, [order.index(ch) for ch in target])


def _sum_lone(x: Any, sx: str, others: str) -> tuple[Any, str]:
    lone = tuple(i for i, ch in enumerate(sx) if ch not in others)
    if not lone:
        return x, sx
    return lax.sum(x, axis=lone), "".join(ch for ch in sx if ch in others)


def _grouped(x: Any, sx: str, letters: list, shape: tuple) -> Any:
    return lax.reshape(lax.transpose(x, [sx.index(ch) for ch in letters]), shape)


def _prod(letters: list, size: dict) -> int:
    n = 1
    for ch in letters:
        n *= size[ch]
    return n
