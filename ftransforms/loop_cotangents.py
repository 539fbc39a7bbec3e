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
such value ``c`` it finds the nodes that use it in one of these ways, with the same
primitive, position, settings, shapes and dtypes at two or more steps:

* ``matmul`` and ``einsum`` (``c`` one factor of a contraction): the cotangent of ``c``
  from step ``t`` is the contraction of the step's output cotangent ``y_bar_t`` with the
  other factors; summed over the steps it is ONE contraction over the stacked ``y_bar``'s
  and the stacked other factors, the step axis contracted with the rest (for the LSTM's
  ``W @ h_t``: one batched product ``Z^T H``, as backpropagation through time by hand
  computes it, instead of ``T`` outer products and ``T`` additions);
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

What is not rewritten (the step-by-step sum stays, the results are the same): values
computed inside the loop from loop-invariant ones (``grad`` outside ``vmap`` sees the
batching rule's ``W.T`` made at every step), checkpointed steps (one opaque node each), a
loop run while a checkpointed function records (no tape nodes), and every other primitive.
The sums run in another order than step by step, so results can differ in the last bits.
"""

from __future__ import annotations

from typing import Any

from ftransforms import lax
from ftransforms.core.index_spec import ARRAY
from ftransforms.core.stack import current_stack
from ftransforms.interpreters.reverse import Node, ReverseInterpreter
from ftransforms.ops._util import unbroadcast

__all__ = ["HOIST", "begin", "end"]

#: ``enabled``: rewrite loop tapes (NOTE [hoisted loop cotangents]); ``chunk_bytes``: the
#: most bytes of stacked per-step factors one gather node may hold.
HOIST: dict[str, Any] = {"enabled": True, "chunk_bytes": 32 << 20}


def begin() -> list | None:
    """Marks of the reverse-mode tapes before a loop runs (``None``: nothing to rewrite).

    Example:
        >>> begin() is None  # no grad/vjp active
        True
    """
    if not HOIST["enabled"]:
        return None
    marks = [
        (interp, len(interp.tape), interp.next_id)
        for interp in current_stack()
        if type(interp) is ReverseInterpreter and interp.recorder is None
    ]
    return marks or None


def end(marks: list | None) -> None:
    """Rewrite what each tape recorded since :func:`begin` (NOTE [hoisted loop cotangents]).

    Example:
        >>> end(None)  # nothing was marked
    """
    if marks is None:
        return
    for interp, start, first_id in marks:
        if interp.recorder is None and len(interp.tape) - start > 2:
            _hoist(interp, start, first_id)


# -- finding the groups ---------------------------------------------------------------------

_ELEMENTWISE = ("add", "subtract", "multiply")


def _aval(x: Any) -> tuple:
    return (lax.shape(x), str(lax.dtype_of(x)))


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
    in that input, none summed in it alone)."""
    if node.prim.name == "matmul":
        return _matmul_subscripts(*node.args)
    subscripts = node.params["subscripts"]
    ins, out = subscripts.split("->")
    ins = ins.split(",")
    mine = ins[pos]
    if len(set(mine)) != len(mine):
        return None
    elsewhere = set(out).union(*(s for j, s in enumerate(ins) if j != pos))
    if not set(mine) <= elsewhere:
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
            or ARRAY in index
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


def _hoist(interp: ReverseInterpreter, start: int, first_id: int) -> None:
    tape = interp.tape
    groups: dict[tuple, list] = {}
    for k in range(start, len(tape)):
        node = tape[k]
        name = node.prim.name
        if name not in _ELEMENTWISE and name not in ("matmul", "einsum", "getitem"):
            continue
        for pos, pid in enumerate(node.parents):
            if pid is None or pid > first_id:
                continue  # not an input of this level, or made inside the loop
            key = _group_key(node, pos)
            if key is not None:
                groups.setdefault((pid, pos, key), []).append(k)
    inserts: dict[int, list] = {}
    proxies: dict[int, dict] = {}  # tape index -> {position: proxy id}
    for (pid, pos, key), ks in groups.items():
        if len(ks) < 2:
            continue
        for chunk in _chunks(tape, ks, pos, key):
            ids = tuple(range(interp.next_id + 1, interp.next_id + 1 + len(chunk)))
            interp.next_id += len(chunk)
            first = tape[chunk[0]]
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


def _nbytes(x: Any) -> int:
    p = lax.physical(x)
    n = getattr(p, "nbytes", None)
    return int(n) if n is not None else 16


def _chunks(tape: list, ks: list, pos: int, key: tuple) -> list:
    """``ks`` in runs of consecutive steps whose stacked factors fit ``chunk_bytes``."""
    if key[0] == "getitem":
        n = key[2][0][0] if key[2][0] else 0
        taken = sorted(tape[k].params["index"][0] % n for k in ks) if n else []
        return [ks] if taken == list(range(n)) else []
    node = tape[ks[0]]
    per_step = _nbytes(node.y) + sum(
        _nbytes(a) for j, a in enumerate(node.args) if j != pos and hasattr(a, "shape")
    )
    size = max(1, HOIST["chunk_bytes"] // max(per_step, 1))
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
        ys = lax.stack([b for _, b in live])
        if kind == "contract":
            return (self._contract(live, ys, c),)
        if kind == "multiply":
            other = self._others(live, 1 - self.pos, lax.ndim(ys) - 1)
            return (unbroadcast(lax.multiply(ys, other), c),)
        c_bar = unbroadcast(ys, c)
        return (lax.negative(c_bar) if kind == "subtract" and self.pos == 1 else c_bar,)

    def _others(self, live: list, j: int, rank: int | None = None) -> Any:
        """Input ``j`` of the live steps: the value itself when it is one value at every
        step, else stacked along a new leading axis (padded with size-1 axes up to
        ``rank`` after it, to line up with the stacked outputs)."""
        first = live[0][0][j]
        if isinstance(first, (bool, int, float, complex)) or all(a[j] is first for a, _ in live):
            return first
        stacked = lax.stack([a[j] for a, _ in live])
        if rank is not None and lax.ndim(stacked) - 1 < rank:
            pad = (1,) * (rank - lax.ndim(stacked) + 1)
            stacked = lax.reshape(stacked, lax.shape(stacked)[:1] + pad + lax.shape(stacked)[1:])
        return stacked

    def _contract(self, live: list, ys: Any, c: Any) -> Any:
        subscripts = self.key[1]
        ins, out = subscripts.split("->")
        ins = ins.split(",")
        step = next(ch for ch in lax.LETTERS if ch not in subscripts)
        operands, subs = [], []
        for j, s in enumerate(ins):
            if j == self.pos:
                continue
            value = self._others(live, j)
            operands.append(value)
            subs.append(s if value is live[0][0][j] else step + s)
        operands.append(ys)
        subs.append(step + out)
        res = lax.einsum(",".join(subs) + "->" + ins[self.pos], *operands, optimize=True)
        return unbroadcast(res, c)

    def _stacked_slices(self, y_bar: tuple, c: Any) -> Any:
        """The cotangent of ``c`` whose row ``i`` is the ``y_bar`` of the slice ``c[i]``."""
        n = lax.shape(c)[0]
        rows: list = [None] * n
        for b, y, index in zip(y_bar, self.ys, self.rows):
            rows[index] = lax.zeros_like(y) if b is None else b
        return unbroadcast(lax.stack(rows), c)
