"""Arguments that alias each other: the same array passed twice, or views of one array.

NOTE [aliased arguments]: NumPy code may be called with arguments that share memory
(``axpy(2.0, v, v)``, ``relax(u[1:-1], u)``, ``add_into(a[1:], a[:-1])``), and a write
into one is then seen through the others.  A transform wraps each argument leaf in its own
tracer (or buffer), so :func:`alias_plan` reads from the caller's leaves which of them
share memory, and :func:`link` makes the wrapped leaves views of each other (NOTE
[mutation semantics] in core/mutation.py): where one leaf holds the elements of the
others it is their base (each other leaf its identity view, for the same array, or a
gather of the elements it holds), else the base is a hidden array of the union of their
elements, built from their values.  Until a write every wrapped leaf keeps its own value
and its own derivative (``grad(f, argnums=(0, 1))(x, x)`` gives each argument's, as JAX
does); a write into one reaches the others, as in NumPy: the written leaf's new value
(whole) is the others' too.  So the derivatives of the leaves add up to the derivative of
the NumPy program with respect to the memory they share; how that total splits between
them after a write follows the leaf written (``b[0] = 5`` through an undifferentiated
alias ``b`` of ``a`` leaves ``a``'s other elements with ``b``'s constants).

Under ``vmap`` a relation must be the same in every row (one array passed twice with one
in_dim; ``X`` and ``X[:, 1:]`` with in_dim 0); rows never see each other's writes (the
caller's arrays are not written).  Where the leaves that share memory see it differently
per row (one array with in_dims 0 and None, or 0 and 1) or with other dtypes
(``x.view(np.int64)``), they are made views of a hidden base that refuses writes: a write
into one raises InPlaceError naming them, as NumPy's result would depend on an aliasing
the transform cannot keep; reading them is fine.

The plan is computed from the caller's leaves alone: ``jit`` keys its recordings by it
(``plan.key``: the same arrays passed aliased and not aliased are two signatures) and
``vmap`` carries it into the reruns of a split batch, whose leaves are copies.  Where
nothing aliases the cost is one pass over the leaves reading each array's ``.base``;
only leaves with one root compare their elements.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> def axpy(a, x, y):
    ...     y += a * x
    ...     return y + x
    >>> v = np.ones(2)
    >>> ft.vmap(axpy, in_dims=(None, 0, 0))(2.0, v[None], v[None])  # x is y: 3 + 3
    array([[6., 6.]])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import InPlaceError
from ftransforms.core.mutation import Buffer, buffer_scope, clone, make_view
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import dtype_of, shape
from ftransforms.numpy.inplace import updated

__all__ = ["AliasPlan", "alias_plan", "link"]

_NDARRAY = numpy.ndarray


class AliasPlan:
    """Which argument leaves alias which: ``links`` are ``(leaf, base, kind, data)`` with
    kind ``"same"`` (the same array), ``"gather"`` (``data``: the element positions in the
    base, the leaf's and the base's shapes) or ``"shared"`` (writes refused; ``data``: the
    leaves of that component); ``key`` is hashable."""

    __slots__ = ("key", "links")

    def __init__(self, links: list) -> None:
        self.links = links
        self.key = tuple((m, c, kind, _hashable(kind, data)) for m, c, kind, data in links)


def _hashable(kind: str, data: Any) -> Any:
    if kind == "gather":
        return data[0].tobytes(), data[1], data[2]
    if kind == "union":
        return data[0], tuple((m, idx.tobytes(), s) for m, idx, s in data[1])
    return data


def alias_plan(originals: Sequence, dims: Sequence | None = None) -> AliasPlan | None:
    """The aliasing of the caller's argument leaves ``originals`` (``dims``: ``vmap``'s
    in_dim of each, None for the other transforms), or None where no two share memory."""
    n = len(originals)
    if n < 2:
        return None
    if n == 2:  # the common case, nothing shared, in a few tests
        a, b = originals
        if a is not b and _owner(a) and _owner(b):
            return None
    else:
        seen = set()
        for o in originals:
            if not _owner(o) or id(o) in seen:
                break
            seen.add(id(o))
        else:
            return None
    roots: dict = {}
    clash = False
    for k, o in enumerate(originals):
        root = _root(o)
        if root is None:
            continue
        group = roots.get(id(root))
        if group is None:
            roots[id(root)] = [k]
        else:
            group.append(k)
            clash = True
    if not clash:
        return None
    links: list = []
    for group in roots.values():
        if len(group) > 1:
            links.extend(_group_links(group, originals, dims))
    return AliasPlan(links) if links else None


def link(
    plan: AliasPlan | None, wrapped: list, where: str, names: Callable[[], Sequence[str]]
) -> list:
    """``wrapped`` (what the function receives for each leaf) with the leaves that alias
    in the caller made views of each other as ``plan`` says; ``names()`` names the leaves
    for the error a refused write raises."""
    if plan is None:
        return wrapped
    out = list(wrapped)
    hidden: dict = {}
    for m, c, kind, data in plan.links:
        wm, wc = out[m], out[c]
        if not (isinstance(wm, Tracer) and isinstance(wc, Tracer)):
            continue
        if wm is wc and kind in ("same", "gather"):
            continue
        if getattr(wm, "_base", None) is not None:
            continue  # linked already (grad's arguments, linked once more by replace_args)
        if kind == "same":
            out[m] = make_view(wc, wm, _same, _written, True)
        elif kind == "gather":
            idx, m_shape, c_shape = data
            out[m] = make_view(wc, wm, *_gather(idx, m_shape, c_shape), False)
        elif kind == "union":
            _link_union(out, data)
        else:
            base = hidden.get(c)
            if base is None:
                base = hidden[c] = clone(wc)
            out[m] = make_view(base, wm, _hidden, _refusal(where, names, m, data), True)
    return out


# -- the plan ----------------------------------------------------------------------------


def _owner(o: Any) -> bool:
    """Whether ``o`` views no other array (or is no array): it shares memory only with
    itself."""
    if type(o) is _NDARRAY:
        return o.base is None
    return getattr(o, "_base", None) is None


def _root(o: Any) -> Any:
    """The array whose memory ``o`` views (itself when it owns it), or None for a leaf
    that is no array."""
    if type(o) is numpy.ndarray:
        while isinstance(o.base, numpy.ndarray):
            o = o.base
        return o
    if isinstance(o, Tracer):
        base = getattr(o, "_base", None)
        while base is not None and base[1] is not _hidden:
            o = base[0]
            base = getattr(o, "_base", None)
        return o
    return None


def _group_links(group: list, originals: Sequence, dims: Sequence | None) -> list:
    first = originals[group[0]]
    if all(originals[k] is first for k in group) and (
        dims is None or len({_dim(first, dims[k]) for k in group}) == 1
    ):
        return [(k, group[0], "same", None) for k in group[1:]]
    if all(type(originals[k]) is _NDARRAY for k in group) and not _any_shared(group, originals):
        return []  # views of one array that share no element (X[:, :3] and X[:, 3:])
    ids = {
        k: _ids(originals[k], None if dims is None else _dim(originals[k], dims[k])) for k in group
    }
    dtypes = {k: dtype_of(originals[k]) for k in group}
    # components of leaves that overlap (in some row)
    parent = {k: k for k in group}

    def find(k: int) -> int:
        while parent[k] != k:
            k = parent[k]
        return k

    for i, a in enumerate(group):
        for b in group[i + 1 :]:
            if _overlap(ids[a], ids[b], dtypes[a] == dtypes[b], originals[a], originals[b]):
                parent[find(b)] = find(a)
    components: dict = {}
    for k in group:
        components.setdefault(find(k), []).append(k)
    links: list = []
    for comp in components.values():
        if len(comp) < 2:
            continue
        found = None
        for c in comp:
            rel = [_relation(ids[c], ids[m]) if dtypes[c] == dtypes[m] else None for m in comp]
            if all(r is not None for m, r in zip(comp, rel) if m != c):
                found = c, rel
                break
        if found is None:
            union = _union(comp, ids) if len({dtypes[m] for m in comp}) == 1 else None
            if union is not None:  # overlapping slices, none holding the others
                links.append((comp[0], comp[0], "union", union))
            else:
                links.extend((m, comp[0], "shared", tuple(comp)) for m in comp)
            continue
        c, rel = found
        for m, r in zip(comp, rel):
            if m != c:
                links.append((m, c, "same", None) if r == "same" else (m, c, "gather", r))
    return links


def _union(comp: list, ids: dict) -> Any:
    """For leaves that overlap with none holding the others (``x[1:]`` and ``x[:-1]``): the
    union of their elements as ``(size, ((leaf, positions in the union, its shape), ...))``
    where every row lays them out alike, else None."""
    if len({ids[m][1] for m in comp}) != 1:
        return None
    batched = ids[comp[0]][1]
    flat = {
        m: ids[m][0].reshape(ids[m][0].shape[0], -1) if batched else ids[m][0].reshape(1, -1)
        for m in comp
    }
    if len({f.shape[0] for f in flat.values()}) != 1 or flat[comp[0]].shape[0] == 0:
        return None
    members = numpy.unique(numpy.concatenate([flat[m][0] for m in comp]))
    table = numpy.empty((flat[comp[0]].shape[0], members.size), dtype=numpy.int64)
    placed = []
    for m in comp:
        idx = numpy.searchsorted(members, flat[m][0])
        table[:, idx] = flat[m]
        placed.append((m, idx))
    for m, idx in placed:  # every row: the same positions hold the same elements...
        if not numpy.array_equal(table[:, idx], flat[m]):
            return None
    rows = numpy.sort(table, axis=1)  # ... and other positions other elements
    if rows.shape[1] > 1 and not (rows[:, 1:] != rows[:, :-1]).all():
        return None
    shapes = {m: ids[m][0].shape[1:] if batched else ids[m][0].shape for m in comp}
    return members.size, tuple((m, idx, tuple(shapes[m])) for m, idx in placed)


def _any_shared(group: list, originals: Sequence) -> bool:
    """Whether two of these NumPy arrays share memory (NumPy's exact test, bounded; where
    it gives up, as if they did)."""
    for i, a in enumerate(group):
        for b in group[i + 1 :]:
            try:
                if numpy.shares_memory(originals[a], originals[b], max_work=1000):
                    return True
            except numpy.exceptions.TooHardError:
                return True
    return False


def _dim(o: Any, d: Any) -> Any:
    return None if d is None else int(d) % len(shape(o))


def _ids(o: Any, d: Any) -> tuple[numpy.ndarray, bool]:
    """``(ids, batched)``: where each element of ``o`` lies in its root's memory, with the
    batch axis ``d`` first (``batched``) or for the whole array (``d`` None)."""
    if type(o) is numpy.ndarray:
        root = _root(o)
        start = o.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        ids = numpy.full(o.shape, start, dtype=numpy.int64)
        for axis, (n, stride) in enumerate(zip(o.shape, o.strides)):
            steps = numpy.arange(n, dtype=numpy.int64) * stride
            ids = ids + steps.reshape((n,) + (1,) * (o.ndim - axis - 1))
    else:  # a tracer: its chain of views run on the element numbers of its root
        chain = []
        while getattr(o, "_base", None) is not None and o._base[1] is not _hidden:
            chain.append(o._base[1])
            o = o._base[0]
        ids = numpy.arange(int(numpy.prod(shape(o))), dtype=numpy.int64).reshape(shape(o))
        for forward in reversed(chain):
            ids = numpy.asarray(forward(ids))
        ids = ids.real.astype(numpy.int64) if ids.dtype.kind == "c" else ids.astype(numpy.int64)
    if d is None:
        return ids, False
    return numpy.moveaxis(ids, d, 0), True


def _overlap(a: tuple, b: tuple, same_dtype: bool, oa: Any, ob: Any) -> bool:
    """Whether leaves with ids ``a`` and ``b`` share an element in some row."""
    if not same_dtype:  # elements of other sizes: any shared memory counts
        if type(oa) is numpy.ndarray and type(ob) is numpy.ndarray:
            return bool(numpy.may_share_memory(oa, ob))
        return True
    (ia, batched_a), (ib, batched_b) = a, b
    if batched_a and batched_b:  # per row: the row number joins the element id
        n = ia.shape[0]
        span = int(max(ia.max(initial=0), ib.max(initial=0))) + 1
        rows = numpy.arange(n, dtype=numpy.int64)
        ka = (ia.reshape(n, -1) + rows[:, None] * span).ravel()
        kb = (ib.reshape(n, -1) + rows[:, None] * span).ravel()
        return bool(numpy.isin(ka, kb).any())
    return bool(numpy.isin(ia.ravel(), ib.ravel()).any())


def _relation(c: tuple, m: tuple) -> Any:
    """How the leaf with ids ``m`` views the one with ids ``c`` in every row: ``"same"``,
    ``(positions, m's shape, c's shape)`` (a gather of ``c``'s elements) or None."""
    (ic, batched_c), (im, batched_m) = c, m
    if batched_c != batched_m:
        return None
    if batched_c:
        n = ic.shape[0]
        if n == 0 or im.shape[0] != n:
            return None
        fc, fm = ic.reshape(n, -1), im.reshape(n, -1)
        c_shape, m_shape = ic.shape[1:], im.shape[1:]
        row_c, row_m = fc[0], fm[0]
    else:
        fc, fm = ic.reshape(1, -1), im.reshape(1, -1)
        c_shape, m_shape = ic.shape, im.shape
        row_c, row_m = fc[0], fm[0]
    order = numpy.argsort(row_c, kind="stable")
    ordered = row_c[order]
    pos = numpy.minimum(numpy.searchsorted(ordered, row_m), max(ordered.size - 1, 0))
    if ordered.size == 0 or not numpy.array_equal(ordered[pos], row_m):
        return None
    idx = order[pos]
    if not numpy.array_equal(fc[:, idx], fm):  # the same positions in every row
        return None
    if m_shape == c_shape and numpy.array_equal(idx, numpy.arange(idx.size)):
        return "same"
    return idx, tuple(m_shape), tuple(c_shape)


# -- the views ---------------------------------------------------------------------------


def _same(p: Any) -> Any:
    return p


def _hidden(p: Any) -> Any:
    """The view link to the hidden base of leaves whose writes are refused: a nested
    transform takes each such leaf as its own root (their relation is not known)."""
    return p


def _written(p: Any, v: Any) -> Any:
    return v


def _gather(idx: numpy.ndarray, m_shape: tuple, c_shape: tuple) -> tuple:
    def forward(p: Any) -> Any:
        return fnp.reshape(fnp.take(fnp.ravel(p), idx), m_shape)

    def inverse(p: Any, v: Any) -> Any:
        return fnp.reshape(updated(fnp.ravel(p), idx, fnp.ravel(v)), c_shape)

    return forward, inverse


def _link_union(out: list, data: tuple) -> None:
    """Make the leaves of a union (:func:`_union`) views of a hidden array of its elements,
    built from their values."""
    size, members = data
    if not all(isinstance(out[m], Tracer) for m, _, _ in members):
        return
    whole: Any = fnp.zeros(size, dtype_of(out[members[0][0]]))
    for m, idx, _ in members:
        whole = updated(whole, idx, fnp.ravel(out[m]))
    if not isinstance(whole, Tracer):
        whole = Buffer(buffer_scope(), whole)
    for m, idx, m_shape in members:
        if getattr(out[m], "_base", None) is None:
            out[m] = make_view(whole, out[m], *_gather(idx, m_shape, (size,)), False)


def _refusal(where: str, names: Callable[[], Sequence[str]], m: int, comp: tuple) -> Any:
    def refuse(p: Any, v: Any) -> Any:
        listed = names()
        others = ", ".join(listed[k] for k in comp if k != m)
        raise InPlaceError(
            f"{where}: the function writes into {listed[m]}, which shares memory with "
            f"{others} in the caller, and the rows or the dtypes see that memory differently "
            f"(one array passed with in_dims 0 and None, or 0 and 1; or a view of another "
            f"dtype): NumPy's result would depend on that aliasing, which this transform "
            f"cannot keep.  Pass a copy (x.copy()) of one of them, or pass the array once."
        )

    return refuse
