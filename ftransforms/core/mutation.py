"""NumPy's mutation semantics for traced arrays: aliases, views and buffers.

NOTE [mutation semantics]: inside a transformed function a traced array behaves as a NumPy
array does when it is written into (``h += 1``, ``x[i] = v``, ``np.exp(x, out=x)``):

* **The tracer object is the array.**  Every tracer class shares one slot layout (declared
  once on :class:`~ftransforms.core.tracer.Tracer`; each class names the slots it uses in
  ``_payload``), so a write computes the new value out of place, with the ordinary
  primitives, and then :func:`become` turns the written object into that value in place
  (``obj.__class__ = type(new)`` and its payload slots copied).  Every alias (the same
  Python object) sees the new value (``s += v`` on a 0-d tracer that stands for a NumPy
  scalar rebinds instead: NOTE [0-d values are NumPy scalars] in numpy/inplace.py); the
  new value may belong to any interpreter (a grad tracer written with a batched value
  becomes batched).  No backend array is ever written
  in place, so what a tape, a recording or the caller holds keeps its value: reverse mode
  differentiates with respect to the original inputs (their ids are read when they are
  wrapped), ``jit``'s recorder sees a mutated object move on to a new slot, and the
  caller's arrays are never modified (the transforms also give the function shallow
  copies, :func:`detached`, of the tracers it receives).  An argument the caller made
  read-only (``flags.writeable = False``, ``np.broadcast_to``, ``np.frombuffer``) is
  read-only inside, traced or a buffer, so a write into it raises NumPy's ValueError
  (numpy/result_layout.py's ``laid_out_arguments``, :func:`mutable`; ``jit`` keys it apart).
* **Views** (torch's functionalization is the model): a view made by basic indexing,
  ``.T``/``transpose``/``swapaxes``/``moveaxis``/``rollaxis``/``matrix_transpose``,
  ``reshape``/``ravel`` of a contiguous array, ``squeeze``/``expand_dims``/``atleast_*d``,
  ``flip``/``fliplr``/``flipud``, the pieces of ``split``/``array_split``/``h``-``v``-
  ``dsplit``/``unstack``, ``rot90``, ``trim_zeros``, ``x.view()``, ``.real``/``.imag``,
  an ``einsum`` that only
  rearranges one operand (``'ii->i'``, ``'ij->ji'``), ``np.nditer``'s elements
  (numpy/element_iterator.py), or ``diagonal``/``diag``, ``broadcast_to``,
  ``sliding_window_view`` and a real array's ``.imag`` (read-only, as in NumPy) keeps
  ``_base = (parent, forward, inverse, contiguous)``, and its parent keeps weak references
  to its live views (``_views``).  A write through a view is scattered into its parent
  (``inverse``: an ``.at[].set``), up to the root; a write to an array then regenerates
  its live views from it (``forward``), eagerly, at write time.  torch checks a storage
  generation lazily when a view is read; here every operation reads its operands' payload
  slots directly in ``bind`` and the interpreters, so a check there would cost every
  operation, while eager regeneration costs only writes (and a view's registration).
* **Buffers made inside the function** (``np.zeros(n)``, ``np.array([...])`` of numbers,
  ``np.copy(a)``): NumPy has no hook on ``ndarray.__setitem__``, so while a transform is
  active on some thread (a process-wide count under a lock: outside transforms nothing is
  patched and nothing costs) NumPy's creation functions are wrapped (not ``asarray``:
  library code converts its inputs with it), and a call made from user code (not NumPy,
  SciPy, ftransforms or another installed library, decided once per calling code object;
  and calling that function by name, not C code calling back into NumPy) on a thread with
  an active transform returns a :class:`Buffer`: a tracer of a pseudo-interpreter above
  every level, holding a plain array.  An operation
  on a buffer unwraps it (one dispatch) and computes as NumPy does; a write of a traced
  value makes it that traced value (``become``), which is how writing a batched value
  into an unbatched buffer makes it batched.  The NumPy arrays a transformed function
  receives untransformed (``grad``'s other arguments, ``vmap``'s ``in_dims=None``) are
  buffers too, so ``u = u0.copy(); u[1:-1] = ...`` works on them.  Arguments that share
  memory in the caller (``f(x, x)``, ``f(u[1:-1], u)``) are views of each other inside:
  NOTE [aliased arguments] in ftransforms/aliased_arguments.py.
  ``np.asarray(t)``/``np.asanyarray(t)`` called by user code return the traced array or
  buffer itself, as NumPy does (called by library code: its value, read-only), and
  ``np.array(t)``/``np.asarray(t, copy=True)`` a traced copy in NumPy's layout.  Buffers
  never leave the transform: the outermost boundary turns them back into plain arrays
  (``from_object_arrays``), and one kept in a global raises the escaped-tracer error.
  Other threads see NumPy's own functions' behaviour.
* **What records values keeps them**: a reverse-mode tape (and a checkpointed block)
  stores a new object for a tracer of an enclosing transform it records as a constant, so
  a later write into that tracer (say, inside the inner function) does not reach the tape;
  a checkpointed block is told (``adopt``) of a tracer written inside it, whose new id may
  be one of its outputs.  Under ``jit``'s structured control flow a body that writes runs
  eagerly (the recorder's ``before_write``): a write into a value from outside the body
  would not be in the body's sub-program.
* **Plain arrays only the function holds** (``np.r_[...]``, ``init.copy()`` of a global,
  ``init * 2``: made by other NumPy functions, methods and operators, which cannot be
  hooked) take ``a[i] = t`` too: NOTE [traced writes into private NumPy arrays] in
  core/private_arrays.py.
* **Where the exact semantics cannot be kept**, an error says so: a traced value written
  into a plain NumPy array that something outside the function may see (a global, an
  alias, a view) or into ``out=`` a plain array, raises
  :class:`~ftransforms.errors.InPlaceError` naming the array and the fix; so does a value
  batched by a ``vmap`` written into an unbatched array from outside its function (NOTE
  [batched writes into captured arrays] in interpreters/batching.py), and an in-place
  operator whose result NumPy would not cast back (``int += float``).  Known gaps: a
  reshape of an array that NumPy lays out non-contiguously for its own reasons (a
  reduction's result over a transposed input; elementwise results follow NOTE [layout of
  elementwise results]) is a view here and a copy in NumPy; ``isinstance(buffer,
  numpy.ndarray)`` is false, and C code that demands a true ``ndarray`` (typed Cython
  arguments) needs ``np.asarray``.
"""

from __future__ import annotations

import dis
import itertools
import math
import sys
import threading
import weakref
from typing import Any

import numpy

from ftransforms.core.errors import InPlaceError
from ftransforms.core.primitive import OBJECT_ARRAY_CONVERTER
from ftransforms.core.stack import OUTERMOST_HOOKS, READ_ONLY_NOTE, Interpreter, current_stack
from ftransforms.core.tracer import LAID_OUT_OBJECTS, Tracer, ValTracer, escaped_error

#: The level of the buffers' pseudo-interpreter: above every transform, so that ``bind``
#: hands an operation holding a buffer to it first, and it unwraps the buffer.
BUFFER_LEVEL = 1 << 30


class BufferInterpreter(Interpreter):
    """The pseudo-interpreter of the buffers made during one outermost transform call."""

    __slots__ = ()

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.level = BUFFER_LEVEL
        self.active = True

    def process(self, prim: Any, args: tuple, params: dict) -> Any:
        if len(args) == 2:
            a, b = args
            vals = (a.val if type(a) is Buffer else a, b.val if type(b) is Buffer else b)
        else:
            vals = [a.val if type(a) is Buffer else a for a in args]
        out = prim.bind(*vals, **params)
        if type(out) is numpy.ndarray and out.base is not None:
            # a NumPy view of a buffer's array (np.transpose(buf)): read-only, since the
            # buffer's array is never written (a tape may hold it)
            for a, v in zip(args, vals):
                if type(a) is Buffer and (out.base is v or out.base is v.base):
                    out = out.view()
                    out.flags.writeable = False
                    return out
        if type(out) is numpy.ndarray and out.dtype.kind not in "OV":
            # a new array computed from a buffer (``np.zeros(n) + 1``, ``buf[mask]``) is
            # one NumPy lets the user write into too (``y[idx] += v`` writes into it)
            return new_buffer(self, out)
        return out


class Buffer(ValTracer):
    """A plain array made inside a transformed function, which may be written into."""

    __slots__ = ()
    _payload = ("_interp", "val")
    _plain_after_scope = True  # NOTE [buffers after their transform] (core/tracer.py)

    def __init__(self, interp: BufferInterpreter, val: Any) -> None:
        self._interp = interp
        self.val = val

    def _value(self, use: str) -> Any:
        self._check_live(use)
        return self.val

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        v = self._value("numpy.asarray()")
        if dtype is not None and numpy.dtype(dtype) != v.dtype:
            return v.astype(dtype)
        if copy:
            return v.copy()
        v = v.view()
        v.flags.writeable = False  # the buffer's array is never written in place
        return v

    def __float__(self) -> float:
        return float(self._value("float()"))

    def __complex__(self) -> complex:
        return complex(self._value("complex()"))

    def __int__(self) -> int:
        return int(self._value("int()"))

    def __index__(self) -> int:
        return self._value("int()").__index__()

    def __bool__(self) -> bool:
        return bool(self._value("bool()"))

    def item(self, *args: Any) -> Any:
        return self._value(".item()").item(*args)

    def tolist(self) -> Any:
        return self._value(".tolist()").tolist()

    def __repr__(self) -> str:
        return repr(self.val)

    def __str__(self) -> str:
        return str(self.val)

    def __format__(self, spec: str) -> str:
        return format(self.val if self.val.ndim else self.val[()], spec)


def new_buffer(scope: BufferInterpreter, out: numpy.ndarray) -> Any:
    """A buffer holding the plain array ``out``.  One NumPy lays out in Fortran order
    (``np.zeros(s, order="F")``, a caller's Fortran-ordered argument) is the axes-reversing
    view of a buffer of ``out.T`` (NOTE [memory layout]), so its layout, strides included,
    survives a traced write, which makes the buffer a tracer."""
    if out.ndim > 1 and FORTRAN_VIEW and out.flags.f_contiguous and not out.flags.c_contiguous:
        return FORTRAN_VIEW[0](Buffer(scope, out.T))
    buf = Buffer(scope, out)
    if out.ndim > 1 and not out.flags.c_contiguous:
        NOT_IN_C_ORDER.add(id(buf))  # NOTE [layout of elementwise results]
    return buf


#: The ids of the tracers that may be laid out in memory other than in C order (a view
#: through a permutation or of such a view, a buffer that NumPy laid out so, an array of
#: :data:`ROOT_LAYOUTS`): NOTE [layout of elementwise results] in numpy/result_layout.py.
#: An id leaves when its object dies (a weak reference's callback) or when no transform is
#: active (then the set is cleared); one that stays (a buffer's) only costs the exact check.
NOT_IN_C_ORDER: set = set()

#: NOTE [layout of elementwise results]: the traced arrays that are no views and that NumPy
#: lays out other than in C order (an elementwise result of a transposed array, an argument
#: the caller laid out in Fortran order), by id: ``(weak reference, the order of its axes
#: in memory, outermost first, whether its elements fill one block)``.
ROOT_LAYOUTS: dict = {}


def set_root_layout(
    t: Tracer, order: tuple, dense: bool = True, strides: tuple | None = None
) -> None:
    """Record that NumPy lays the traced array ``t`` (no view, a new object) out with its
    axes in memory in ``order`` (NOTE [layout of elementwise results]); ``strides``: its
    byte strides where its elements do not fill one block (an argument ``x[:, ::2]``)."""
    key = id(t)
    ref = _KeyedRef(t, _forget_layout)
    ref.key = key
    ROOT_LAYOUTS[key] = (ref, tuple(order), dense, strides)
    if list(order) != sorted(order):  # (C order but not dense: elementwise results of it
        NOT_IN_C_ORDER.add(key)  # are C-ordered; its views, reshapes, flags know it)


class _KeyedRef(weakref.ref):
    """A weak reference that knows its :data:`ROOT_LAYOUTS` key."""

    __slots__ = ("key",)


def _forget_layout(ref: _KeyedRef) -> None:
    """The object of ``ref`` died: its id may be another object's next."""
    entry = ROOT_LAYOUTS.get(ref.key)
    if entry is not None and entry[0] is ref:
        del ROOT_LAYOUTS[ref.key]
    NOT_IN_C_ORDER.discard(ref.key)


def root_layout(t: Tracer) -> tuple[tuple, bool] | None:
    """The ``(order, dense)`` recorded for ``t`` by :func:`set_root_layout`, or None."""
    entry = ROOT_LAYOUTS.get(id(t))
    if entry is None or entry[0]() is not t or len(entry[1]) != len(t.shape):
        return None
    return entry[1], entry[2]


def forget_root_layout(t: Tracer) -> None:
    """``t`` was reshaped in place (``t.shape = s``, ``t.resize(n)``): C order again."""
    ROOT_LAYOUTS.pop(id(t), None)


#: numpy/inplace.py's ``fortran_view``: the axes-reversing view of a buffer (set there).
FORTRAN_VIEW: list = []


# -- become, views ---------------------------------------------------------------------


def become(target: Tracer, new: Any) -> None:
    """Turn ``target`` into ``new`` in place (its class and payload): every alias of
    ``target`` sees ``new``.  A plain ``new`` makes ``target`` a :class:`Buffer`."""
    if new is target:
        return
    if not isinstance(new, Tracer):
        new = Buffer(buffer_scope(), numpy.asarray(new) if type(new) is not numpy.ndarray else new)
    old = type(target)
    cls = type(new)
    fields = payload(cls)
    if old is not cls:
        for name in payload(old):
            if name not in fields and hasattr(target, name):
                delattr(target, name)
        target.__class__ = cls
    for name in fields:
        if hasattr(new, name):
            setattr(target, name, getattr(new, name))
    adopt = getattr(target._interp, "adopt", None)
    if adopt is not None:  # a checkpointed block being recorded
        adopt(target)


def clone(t: Tracer) -> Tracer:
    """A new tracer object with ``t``'s value (a copy: writing into one leaves the other)."""
    cls = type(t)
    out = cls.__new__(cls)
    for name in payload(cls):
        if hasattr(t, name):
            setattr(out, name, getattr(t, name))
    return out


_SLOT = type(Tracer.val)
_VIEW_SLOTS = frozenset(("_base", "_views", "__weakref__"))


def payload(cls: type) -> tuple[str, ...]:
    """The attributes that make a tracer of class ``cls`` its value: its ``_payload``, or
    for a tracer class outside the uniform layout (eval_shape's, jet's, ...) every slot
    that its classes declare (the view links excepted)."""
    own = getattr(cls, "_payload", None)
    if own is not None:
        return own
    names = cls.__dict__.get("_derived_payload")
    if names is None:
        seen: dict[str, None] = {}
        for k in reversed(cls.__mro__):
            for name in k.__dict__.get("__slots__", ()):
                # a slot that a property of the class shadows is not its payload
                if name not in _VIEW_SLOTS and isinstance(getattr(cls, name, None), _SLOT):
                    seen[name] = None
        names = tuple(seen)
        cls._derived_payload = names
    return names


def detached(x: Any) -> Any:
    """What a transform passes its function for an argument ``x``: a clone of a tracer (so
    that writes inside stay inside), the plain array of a buffer, anything else as is."""
    if type(x) is Buffer:
        return x.val
    if isinstance(x, Tracer):
        return clone(x)
    return x


def views_one_of(v: Any, arrays: Any) -> bool:
    """Whether the backend array ``v`` is (a view of) one of the backend arrays ``arrays``
    (the caller's arguments): a transform's result that is must be copied, since the
    caller's arrays are never written through a transform (NOTE [mutation semantics])."""
    if isinstance(v, Tracer) or not hasattr(v, "base"):
        return False
    root = v
    while getattr(root, "base", None) is not None and hasattr(root.base, "shape"):
        root = root.base
    for leaf in arrays:
        if isinstance(leaf, Tracer):
            continue
        while getattr(leaf, "base", None) is not None and hasattr(leaf.base, "shape"):
            leaf = leaf.base
        if leaf is root:
            return True
    return False


def snapshot(t: Any) -> Any:
    """What :func:`written` compares: a tracer's class and payload objects (None for
    anything else)."""
    if not isinstance(t, Tracer):
        return None
    return (t.__class__, *(getattr(t, s, None) for s in t._payload))


def written(t: Any, before: Any) -> bool:
    """Whether the tracer ``t`` was written into (it became another value, :func:`become`)
    since ``before = snapshot(t)``."""
    return before is not None and any(a is not b for a, b in zip(snapshot(t), before))


def mutable(x: Any) -> Any:
    """An argument passed to a transformed function untransformed (``grad``'s other
    arguments, ``vmap``'s ``in_dims=None``): a NumPy array as a buffer, which the function
    may write into (``x.copy()`` included) without touching the caller's array; a tracer
    as a new object (:func:`detached`)."""
    if type(x) is numpy.ndarray:
        if x.dtype.kind not in "OV" and _LOCAL.scope is not None:
            buf = new_buffer(_LOCAL.scope, x)
            if not x.flags.writeable:  # read-only as the caller's array (np.broadcast_to,
                buf.flags.writeable = False  # frombuffer): a write raises NumPy's ValueError
            return buf
        return x
    if isinstance(x, Tracer):
        return detached(x)
    return x


def make_view(
    parent: Tracer, result: Any, forward: Any, inverse: Any, reshaped: bool = False
) -> Any:
    """Register ``result = forward(parent)`` as a view of ``parent``: a write into it is
    written back with ``inverse(parent, new_view_value)``; a write into ``parent`` makes
    it ``forward(parent)`` again.  ``reshaped``: a reshape of ``parent`` (still contiguous,
    so NumPy's reshape of it is a view too)."""
    if result is parent:
        if inverse is not read_only:
            return result  # the same object: writes are shared already
        result = clone(parent)  # broadcast_to(a, a.shape): a read-only view all the same
    if not isinstance(result, Tracer):
        if _LOCAL.scope is None:  # a view of a buffer kept past its transform: its values
            if type(result) is numpy.ndarray:  # (NOTE [buffers after their transform]),
                result = result.view()  # read-only as that buffer is
                result.flags.writeable = False
            return result
        result = Buffer(buffer_scope(), result)
    elif _slot(result, "_base") is not None or _slot(result, "_views"):
        result = clone(result)  # an existing object (a recorder's folded chain)
    result._base = (parent, forward, inverse, reshaped)
    if hasattr(forward, "layout") or id(parent) in NOT_IN_C_ORDER:
        ref = _KeyedRef(result, _forget_layout)  # NOTE [layout of elementwise results]
        ref.key = id(result)
        NOT_IN_C_ORDER.add(ref.key)
    else:
        ref = weakref.ref(result)
    views = _slot(parent, "_views")
    if views is None:
        parent._views = [ref]
    else:
        if len(views) > 16:
            views[:] = [r for r in views if r() is not None]
        views.append(ref)
    return result


def _slot(t: Any, name: str) -> Any:
    try:
        return getattr(t, name)
    except AttributeError:
        return None


def assign(target: Tracer, new: Any) -> None:
    """A write: ``target`` (and its aliases, its base and every view of that base) now
    holds ``new`` (of ``target``'s shape and dtype)."""
    check_write(target, new=new)
    base = _slot(target, "_base")
    if base is not None:
        if through_overlap(base):  # NOTE [writes through overlapping views]
            found = overlap_positions(target)
            if found is not None and numpy.unique(found[1]).size == found[1].size:
                root, positions = found
                assign(root, FLAT_WRITE[0](root, positions.ravel(), new))
                return
        parent, _forward, inverse, _ = base
        assign(parent, inverse(parent, new))
        if _slot(target, "_base") is base and _still_a_view(parent, target):
            return  # regenerated from its base by the parent's refresh
        become(target, new)
        return
    if type(new) is numpy.ndarray:
        new = _in_place_layout(target, new)
    become(target, new)
    refresh(target)


def _in_place_layout(target: Tracer, new: numpy.ndarray) -> numpy.ndarray:
    """The plain value ``new`` that a write gives the array ``target`` (no view), laid out
    as NumPy keeps it: a write changes values, not memory, so the array keeps its strides
    (a buffer's own, else C order: NOTE [memory layout]) and stays writeable, where
    ``new`` may be a broadcast (``x.fill(0.5)``, ``np.copyto(x, row)``: zero strides,
    read-only) or a read-only view of another buffer.  Costs a flag test where ``new``
    is laid out so already."""
    old = target.val if type(target) is Buffer else None
    if type(old) is numpy.ndarray:
        if new.flags.writeable and new.strides == old.strides:
            return new
        fresh = numpy.empty_like(old, dtype=new.dtype)
    elif new.flags.writeable and new.flags.c_contiguous:
        return new
    else:
        fresh = numpy.empty(new.shape, dtype=new.dtype)
    fresh[...] = new
    return fresh


#: numpy/inplace.py's ``flat_written(root, positions, values)``: ``root`` with its elements
#: at the flat ``positions`` set to ``values``, the last of repeated ones winning (set there;
#: NOTE [writes through overlapping views]).
FLAT_WRITE: list = []


def through_overlap(base: tuple) -> bool:
    """Whether a view with ``base`` is, or is a view of, one whose elements overlap (its
    ``inverse`` says ``overlapping``: rolling windows)."""
    while base is not None:
        if getattr(base[2], "overlapping", False):
            return True
        base = _slot(base[0], "_base")
    return False


def overlap_positions(target: Tracer) -> tuple | None:
    """NOTE [writes through overlapping views]: NumPy writes a view whose elements share
    memory (``sliding_window_view(x, 3, writeable=True)``, ``as_strided`` windows) element
    by element in C order: a place shared by several elements takes the last value written
    there, and they all see it.  Scattered through such a view's ``inverse``, the elements
    that share a written place but were not written would carry their old values back over
    it, so a write into such a view or a view of one goes straight into the root of its
    views at the places its elements occupy there (their byte offsets, NOTE [byte strides
    of views]): ``x[index] = v`` (numpy/inplace.py's ``setitem``) and ``x op= v`` scatter
    the elements they write, the last of repeated places winning; any other write only
    where ``target``'s places do not repeat (else the view's ``inverse`` refuses it).
    Returns ``(root, the flat position in root of each element of target)``, or None
    where those places are not known."""
    root = root_of(target)
    if not FLAT_WRITE or numpy.dtype(target.dtype) != numpy.dtype(root.dtype):
        return None
    offsets = element_offsets(target)
    if offsets is None:
        return None
    held = root_offsets(root).ravel()
    order = numpy.argsort(held, kind="stable")
    at = numpy.minimum(numpy.searchsorted(held[order], offsets.ravel()), held.size - 1)
    positions = order[at]
    if not numpy.array_equal(held[positions], offsets.ravel()):
        return None  # a place the root does not hold
    return root, positions.reshape(offsets.shape)


def _still_a_view(parent: Tracer, view: Tracer) -> bool:
    views = _slot(parent, "_views")
    return bool(views) and any(r() is view for r in views)


def refresh(t: Tracer) -> None:
    """Regenerate the live views of ``t`` (and theirs) from its current value."""
    views = _slot(t, "_views")
    if not views:
        return
    alive = []
    for r in views:
        v = r()
        if v is None:
            continue
        alive.append(r)
        become(v, v._base[1](t))
        refresh(v)
    t._views = alive


class TrialWrite(Exception):  # noqa: N818 - a signal, caught by the trial run
    """A write during a trial run of a ``cond`` branch that was not taken: the trial stops
    there, so that the untaken branch changes nothing (ftransforms/control.py)."""


class trial_run:  # noqa: N801 - used as ``with trial_run():``
    """While active on this thread, a write into a traced array raises :class:`TrialWrite`."""

    __slots__ = ("before",)

    def __enter__(self) -> None:
        self.before = _LOCAL.trial
        _LOCAL.trial = True

    def __exit__(self, *exc: Any) -> None:
        _LOCAL.trial = self.before


class watch_writes:  # noqa: N801 - used as ``with watch_writes() as log:``
    """While active on this thread, the first write into each array object that is not a
    view is logged: ``log[id(obj)] = (obj, a clone of its value before the write)``.

    A batched ``cond`` runs every branch on all rows and a batched ``while_loop`` its body
    on finished rows too; a write such a branch or body makes into an array from outside
    it (a closure) must reach only the rows that take it: the caller puts the value back
    with :func:`restore` and writes ``where(rows, new, old)`` (ftransforms/control.py).
    """

    __slots__ = ("before", "log")

    def __enter__(self) -> dict:
        self.before = _LOCAL.writes
        self.log: dict = {}
        _LOCAL.writes = self.log
        return self.log

    def __exit__(self, *exc: Any) -> None:
        _LOCAL.writes = self.before


def restore(target: Tracer, before: Tracer) -> None:
    """Give ``target`` (not a view) its value ``before`` back, its live views with it."""
    become(target, before)
    refresh(target)


def check_write(target: Tracer, logged: bool = True, new: Any = None) -> None:
    """Raise if ``target`` may not be written now (see NOTE [mutation semantics]), or not
    with the tracer ``new``.  ``logged=False``: a change that :class:`watch_writes` cannot
    merge by rows (a new shape), left out of its log."""
    if _LOCAL.trial:
        raise TrialWrite
    log = _LOCAL.writes
    if logged and log is not None and id(target) not in log and _slot(target, "_base") is None:
        log[id(target)] = (target, clone(target))
    if not target._interp.active:  # a buffer too: it reads as its array, but a write into
        raise escaped_error(target, "a write into it")  # it could not turn it into one
    for interp in current_stack():
        interp.before_write(target)
        if new is not None:
            interp.before_value(target, new)


# -- buffers: the creation functions while a transform is active ------------------------


class _Local(threading.local):
    def __init__(self) -> None:
        self.scope: BufferInterpreter | None = None
        self.trial = False
        self.writes: dict | None = None  # see watch_writes
        self.locked: list = []  # see keep_unwritten
        self.unlocked = 0  # how many arrays the last outermost call locked


_LOCAL = _Local()
_LOCK = threading.Lock()
#: How many threads have an active transform (wrappers installed for good, like
#: ``scipy/own_names.py``'s, read it before anything else).
ACTIVE_THREADS = [0]
_USER_CODE: dict[Any, bool] = {}


def live_buffer_scope() -> BufferInterpreter | None:
    """The current thread's buffer pseudo-interpreter, or None outside the transforms."""
    return _LOCAL.scope


def buffer_scope() -> BufferInterpreter:
    """The current thread's buffer pseudo-interpreter (one per outermost transform call)."""
    scope = _LOCAL.scope
    if scope is None:  # pragma: no cover  (only called while a transform is active)
        raise InPlaceError("a buffer was made with no transform active")
    return scope


_MERGED: list = [None, []]  # (the key it was made for, the entries of PATCHED_WHILE_ACTIVE
# merged by namespace)


def _patches() -> list:
    """PATCHED_WHILE_ACTIVE with the entries of one namespace merged (in order, so a later
    entry's names win as when applied one by one): one ``update`` per namespace each way,
    about 1.4 us less per outermost call than one per entry.  Made again where an entry
    was added (modules imported later add theirs; an entry's dicts are complete when it is
    appended)."""
    key = len(PATCHED_WHILE_ACTIVE)
    if _MERGED[0] != key:
        groups: dict[int, list] = {}
        for entry in PATCHED_WHILE_ACTIVE:
            groups.setdefault(id(entry[0]), []).append(entry)
        merged = []
        for entries in groups.values():
            if len(entries) == 1:  # its own dicts (an update() may tell them apart by
                merged.append(entries[0])  # identity, as whole_lines' does)
                continue
            wrappers, originals = {}, {}
            for _, w, o in entries:
                wrappers.update(w)
                originals.update(o)
            merged.append((entries[0][0], wrappers, originals))
        _MERGED[:] = [key, merged]
    return _MERGED[1]


def _entered(interp: Interpreter) -> None:
    _LOCAL.scope = BufferInterpreter(interp.name)
    with _LOCK:
        ACTIVE_THREADS[0] += 1
        if ACTIVE_THREADS[0] == 1:
            for namespace, wrappers, _ in _patches():  # a dict update each
                namespace.update(wrappers)


#: Plain arrays up to this size the reverse tape copies; larger ones it keeps read-only
#: until the outermost transform returns (NOTE [constants the tape keeps]).
COPY_BYTES = 1 << 16


def keep_unwritten(a: numpy.ndarray) -> numpy.ndarray:
    """NOTE [constants the tape keeps] for a plain array over :data:`COPY_BYTES`: make
    ``a`` and the writeable NumPy arrays it views read-only until the outermost
    transform returns (a copy would double a memory-bound ``grad`` of ``X @ w`` with a
    closed-over ``X``); a write into it in between raises (the outermost transform
    turns NumPy's "read-only" ``ValueError`` into an ``InPlaceError`` naming the fix),
    where torch raises too.  Returns ``a``; outside a transform, a copy of it."""
    if _LOCAL.scope is None:
        return a.copy(order="K")
    locked = _LOCAL.locked
    v = a
    while type(v) is numpy.ndarray and v.flags.writeable:
        v.flags.writeable = False
        locked.append(v)
        v = v.base
    return a


def read_only_note() -> str | None:
    """Why a write raised "read-only" in the outermost call that just ended, or None."""
    if not _LOCAL.unlocked:
        return None
    return (
        "the function wrote in place into a NumPy array (over 64 KiB) that an earlier "
        "operation read for the derivative; ftransforms keeps such arrays read-only while "
        "the transform runs, so the derivative uses the value the operation read "
        "(NOTE [constants the tape keeps]); fix: write into a copy (b = b.copy() before "
        "the write) or compute the new value out of place"
    )


def _unlock(locked: list) -> None:
    """Make the arrays :func:`keep_unwritten` locked writeable again, each after the
    arrays it views (NumPy refuses a writeable view of a read-only base)."""
    pending = {id(a): a for a in locked}
    locked.clear()

    def unlock(a: numpy.ndarray) -> None:
        base = a.base
        if id(base) in pending:
            unlock(pending.pop(id(base)))
        a.flags.writeable = True

    while pending:
        unlock(pending.popitem()[1])


def _exited() -> None:
    locked = _LOCAL.locked
    _LOCAL.unlocked = len(locked)
    if locked:
        _unlock(locked)
    scope = _LOCAL.scope
    if scope is None:
        return
    scope.active = False
    _LOCAL.scope = None
    with _LOCK:
        ACTIVE_THREADS[0] -= 1
        if ACTIVE_THREADS[0] == 0:
            for namespace, _, originals in _MERGED[1]:  # (what _entered applied)
                namespace.update(originals)
            NOT_IN_C_ORDER.clear()
            ROOT_LAYOUTS.clear()


OUTERMOST_HOOKS.append((_entered, _exited))
READ_ONLY_NOTE[0] = read_only_note

#: Top-level packages whose calls never make buffers (their code is not the user's).
_LIBRARY_ROOTS = frozenset({"numpy", "scipy", "ftransforms", "batching_rules", "dask", "cupy"})


_CALLEES: dict[tuple, Any] = {}
_LOAD_NAMES = frozenset(
    {"LOAD_ATTR", "LOAD_METHOD", "LOAD_GLOBAL", "LOAD_NAME", "LOAD_FAST", "LOAD_DEREF"}
)


def _callee(code: Any, lasti: int) -> Any:
    """The name the call at ``lasti`` in ``code`` was made through (``zeros`` for
    ``np.zeros(3)``), or None: the last name loaded at the call expression's start."""
    key = (code, lasti)
    if key in _CALLEES:
        return _CALLEES[key]
    name = None
    instructions = list(dis.get_instructions(code))
    call = next((i for i in instructions if i.offset == lasti), None)
    start = getattr(call, "positions", None)
    if start is not None and start.lineno is not None:
        for ins in instructions:
            if ins.offset >= lasti:
                break
            pos = ins.positions
            if (
                ins.opname in _LOAD_NAMES
                and pos is not None
                and (pos.lineno, pos.col_offset) == (start.lineno, start.col_offset)
            ):
                name = ins.argval
    _CALLEES[key] = name
    return name


#: ``_callee`` for the NumPy layer (NOTE [shuffling a traced array] in numpy/inplace.py).
callee_name = _callee


def _from_user_code(depth: int, name: str) -> bool:
    """Whether ``numpy.<name>`` was called by user code: the calling frame is not from a
    library, and is calling ``name`` itself (not a C function, such as NumPy's random
    generators, that calls NumPy's Python functions with no frame of its own)."""
    frame = sys._getframe(depth + 1)
    if not frame_is_user_code(frame):
        return False
    callee = _callee(frame.f_code, frame.f_lasti)
    return callee is None or callee == name


def frame_is_user_code(frame: Any) -> bool:
    """Whether ``frame`` runs the user's code: not NumPy's, SciPy's, this library's, an
    installed package's or the standard library's (cached per code object)."""
    code = frame.f_code
    known = _USER_CODE.get(code)
    if known is None:
        module = frame.f_globals.get("__name__", "") or ""
        filename = code.co_filename
        known = module.split(".")[0] not in _LIBRARY_ROOTS and not (
            "site-packages" in filename
            or "dist-packages" in filename
            or filename.startswith(sys.base_prefix + "/lib/")
            or filename.startswith("<frozen")
        )
        _USER_CODE[code] = known
    return known


#: :func:`_from_user_code` for the NumPy layer (a wrapper asks about its own caller).
called_from_user_code = _from_user_code


def user_array(out: Any, name: str) -> Any:
    """``out``, made by ``ftransforms.numpy.<name>`` (a creation function), as a buffer
    when user code called it while a transform is active: ``fnp.zeros(n)`` may be filled
    with traced values, as ``np.zeros(n)`` may."""
    scope = _LOCAL.scope
    if (
        scope is not None
        and type(out) is numpy.ndarray
        and out.dtype.kind not in "OV"
        and _from_user_code(2, name)
    ):
        return new_buffer(scope, out)
    return out


#: The generated wrappers' common end: a new plain array made by user code inside a
#: transform is a Buffer (mutable, tracked).
_BUFFER_RESULT = """
    out = original(*args, **kwargs)
    scope = local.scope
    if scope is not None and type(out) is ndarray and out.dtype.kind != "V":
        if out.dtype.kind != "O" and from_user_code(1, name):
            return new_buffer(scope, out)
        if library_creations:
            typed = library_creations[0](out)
            if typed is not out:
                return new_buffer(scope, typed)
    return out
"""

_WRAPPER_SOURCE = "\ndef wrapper(*args, **kwargs):" + _BUFFER_RESULT

#: ``[hook]``: ``hook(out)`` is what ``numpy.array``/``asarray``/``asanyarray`` return
#: when NumPy made the object array ``out``, and what ``numpy.array(..., ndmin=...)``
#: returns for its array ``out`` (the caller's frame is two levels up), set by
#: ``ftransforms.numpy`` (NOTE [numpy.polynomial's dtypes on tracers] in
#: numpy/polynomial_series.py); empty, such results are returned as NumPy made them.
LIBRARY_OBJECT_ARRAYS: list = []

#: ``[hook]``: ``hook(out)`` is the plain typed array to hold (as a buffer, which takes
#: traced writes) in place of the array ``out`` that ``numpy.zeros``/``empty``/... made
#: for library code two frames up, or ``out`` itself; set by ``ftransforms.numpy`` (NOTE
#: [numpy.polynomial's dtypes on tracers]); empty, such arrays are returned as NumPy made
#: them.
LIBRARY_OBJECT_CREATIONS: list = []

#: ``numpy.full``/``numpy.full_like`` of a traced fill value, registered by
#: ``ftransforms.numpy`` (the layer above core that computes them).
TRACED_FILL: dict[str, Any] = {}

_FULL_SOURCE = (
    """
def wrapper(*args, **kwargs):
    fill = args[1] if len(args) > 1 else kwargs.get("fill_value")
    if (
        isinstance(fill, Tracer)
        and type(fill) is not Buffer
        and len(args) <= 3
        and set(kwargs) <= {"shape", "fill_value", "dtype", "order"}
        and kwargs.get("order", "K") in ("C", "K", "A")
        and name in traced_fill
    ):
        # a new traced array, whoever calls: NumPy's own full copies the fill value into
        # a plain array it made (scikit-learn's ConstantKernel in a transformed function)
        kwargs.pop("order", None)
        return traced_fill[name](*args, **kwargs).copy()"""
    + _BUFFER_RESULT
)


_ASARRAY_SOURCE = """
def wrapper(a, *args, **kwargs):
    if (
        isinstance(a, Tracer)
        and kwargs.get("order") == "F"
        and len(args) < 2
        and set(kwargs) <= {"dtype", "copy", "order"}
        and from_user_code(1, name)
    ):
        return in_fortran_order(a, args[0] if args else kwargs.get("dtype"), kwargs.get("copy"))
    if (
        type(a) in (list, tuple)
        and (args or "dtype" in kwargs)
        and casts_to(args[0] if args else kwargs["dtype"])
        and from_user_code(1, name)
    ):
        # np.asarray([t, 1.0], dtype=float): as np.array's wrapper (one traced array)
        converted = convert_array_like(a)
        if converted is not a:
            return converted.astype(args[0] if args else kwargs["dtype"])
    if (
        isinstance(a, Tracer)
        and len(args) < 2
        and kwargs.get("copy") is not True
        and kwargs.get("order", "K") in ("K", "A", "C", None)
        and from_user_code(1, name)
    ):
        dtype = args[0] if args else kwargs.get("dtype")
        if same_dtype(a, dtype):
            return a
        if kwargs.get("copy") is None and casts_to(dtype):
            return a.astype(dtype)  # a new array, as NumPy's cast makes
    if (
        isinstance(a, Tracer)
        and len(args) < 2
        and kwargs.get("copy") is True
        and kwargs.get("order", "K") in ("K", "A", None)
        and from_user_code(1, name)
    ):
        # np.asarray(t, copy=True): a copy of the traced array (scikit-learn's softmax)
        dtype = args[0] if args else kwargs.get("dtype")
        if same_dtype(a, dtype):
            return a.copy("K")
        if casts_to(dtype):
            return a.astype(dtype)
    out = original(a, *args, **kwargs)
    if type(out) is ndarray and out.dtype.kind == "O":
        if (
            type(a) in (list, tuple)
            and listed_numbers(a, args, kwargs)
            and from_user_code(1, name)
        ):
            # np.asarray([t, 1.0]): the loop's numeric array (NOTE [lists holding tracers
            # into numpy.array])
            return convert_array_like(a)
        if library_objects:
            return library_objects[0](out)
    return out
"""

_ARRAY_SOURCE = """
def wrapper(*args, **kwargs):
    if (
        args
        and isinstance(args[0], Tracer)
        and kwargs.get("order") == "F"
        and len(args) < 3
        and set(kwargs) <= {"dtype", "copy", "order"}
        and from_user_code(1, name)
    ):
        dtype = args[1] if len(args) == 2 else kwargs.get("dtype")
        return in_fortran_order(args[0], dtype, kwargs.get("copy", True))
    if (
        args
        and type(args[0]) in (list, tuple)
        and (len(args) == 2 or "dtype" in kwargs)
        and set(kwargs) <= {"dtype", "copy", "order"}
        and casts_to(args[1] if len(args) == 2 else kwargs["dtype"])
        and from_user_code(1, name)
    ):
        # np.array([t, 1.0], dtype=float): a numeric array is asked for, so a list
        # holding tracers becomes one traced array of that dtype (NOTE [array-likes
        # holding tracers]); without dtype= NumPy's object array stays
        converted = convert_array_like(args[0])
        if converted is not args[0]:
            return converted.astype(args[1] if len(args) == 2 else kwargs["dtype"])
    if (
        args
        and isinstance(args[0], Tracer)
        and len(args) == 2 - ("dtype" in kwargs)
        and set(kwargs) <= {"dtype", "copy", "order"}
        and kwargs.get("copy", True) is True
        and kwargs.get("order", "K") in ("K", "A", "C", None)
        and casts_to(args[1] if len(args) == 2 else kwargs["dtype"])
        and from_user_code(1, name)
    ):
        # np.array(t, dtype=float): a cast copy of the traced array, as in NumPy
        return args[0].astype(args[1] if len(args) == 2 else kwargs["dtype"])
    if (
        len(args) == 1
        and isinstance(args[0], Tracer)
        and kwargs.get("dtype") is None
        and set(kwargs) <= {"dtype", "copy", "order"}
        and kwargs.get("copy", True) is True
        and kwargs.get("order", "K") in ("K", "A", None)
        and from_user_code(1, name)
    ):
        # np.array(t): a copy of the traced array in NumPy's layout (not an object array
        # of its elements), as np.copy(t) makes it
        return args[0].copy("K")
    if (
        args
        and isinstance(args[0], Tracer)
        and len(args) <= 2
        and set(kwargs) <= {"dtype", "copy", "order"}
        and kwargs.get("copy", True) is not True
        and kwargs.get("order", "K") in ("K", "A", "C", None)
        and from_user_code(1, name)
    ):
        # np.array(t, copy=False) / copy=None: t itself where no copy is needed (a write
        # into the result reaches t), as NumPy returns its argument
        dtype = args[1] if len(args) == 2 else kwargs.get("dtype")
        if same_dtype(args[0], dtype):
            return args[0]
        if casts_to(dtype):
            if kwargs.get("copy") is False:
                raise ValueError("Unable to avoid copy while creating an array as requested.")
            return args[0].astype(dtype)
    out = original(*args, **kwargs)
    if type(out) is ndarray and out.dtype.kind == "O":
        if (
            args
            and type(args[0]) in (list, tuple)
            and listed_numbers(args[0], args[1:], kwargs)
            and from_user_code(1, name)
        ):
            # np.array([t, 1.0]): the loop's numeric array (NOTE [lists holding tracers
            # into numpy.array])
            return convert_array_like(args[0])
        if library_objects:
            return library_objects[0](out)
    elif "ndmin" in kwargs and library_objects:
        out = library_objects[0](out)""" + _BUFFER_RESULT.replace(
    "out = original(*args, **kwargs)", "", 1
)


_CONTIGUOUS_SOURCE = """
def wrapper(a, dtype=None, **kwargs):
    if isinstance(a, Tracer) and not kwargs and from_user_code(1, name):
        if same_dtype(a, dtype):
            # NumPy returns a itself where it is C-contiguous (a view records whether it
            # is: _base[3]), else a copy
            out = a if contiguous(a) else a.copy()
            return out.reshape(1) if out.ndim == 0 else out
        if casts_to(dtype):
            out = a.astype(dtype)
            return out.reshape(1) if out.ndim == 0 else out
    return original(a, dtype, **kwargs)
"""


_FORTRAN_SOURCE = """
def wrapper(a, dtype=None, **kwargs):
    if isinstance(a, Tracer) and not kwargs and from_user_code(1, name):
        if same_dtype(a, dtype):
            # NumPy returns a itself where it is Fortran-contiguous, else a copy
            out = a if fortran(a) else a.copy("F")
            return out.reshape(1) if out.ndim == 0 else out
        if casts_to(dtype):
            out = a.astype(dtype)
            return out.reshape(1) if out.ndim == 0 else out
    return original(a, dtype, **kwargs)
"""


# NOTE [memory layout]: a traced array holds no memory, but NumPy code reads its layout:
# ``a.T`` of a C-contiguous ``a`` is Fortran-contiguous, so ``np.asfortranarray(a.T)``,
# ``a.T.ravel('F')`` and ``a.T.reshape(n, order='F')`` are views of ``a`` (a write through
# them reaches it) and ``a.T.ravel('K')`` reads ``a``'s elements in ``a``'s order (values
# differ from C order).  So :func:`layout` derives, from the view records alone, the order
# of an array's axes in memory and whether its elements fill one block: an array that is no
# view is C-ordered; a view whose ``forward`` carries a ``layout`` rule (the axis
# permutations of numpy/inplace.py, a basic index of such a view, a Fortran-order reshape)
# maps its parent's layout; any other view is C-ordered where it is contiguous
# (``_base[3]``) and else keeps its parent's order.  A copy NumPy lays out in Fortran order
# (``np.copy(a.T)``, ``a.copy('F')``, ``np.array(a, order='F')``), and a buffer of a plain
# array in Fortran order (``np.zeros(s, order='F')``, an untransformed Fortran-ordered
# argument: :func:`new_buffer`), is the axes-reversing view of a hidden C-ordered array
# (numpy/inplace.py's ``fortran_view``; its ``base`` is None all the same), as are the
# ``*_like`` of such an array.  ``flags``, ``asfortranarray``, ``require``, ``.base``, the
# ``order=`` of ``ravel``/``reshape``/``flatten``/``*_like`` read the layout (``strides``:
# NOTE [byte strides of views]).
def layout(a: Tracer) -> tuple[Any, bool]:
    """NumPy's memory layout of the traced array ``a`` (NOTE [memory layout]): the order of
    its axes in memory, outermost first, and whether its elements fill one block."""
    base = _slot(a, "_base")
    if base is None:
        if type(a) is Buffer and not a.val.flags.c_contiguous:  # np.zeros(s, order="F")
            v = a.val
            order = tuple(sorted(range(v.ndim), key=lambda k: -abs(v.strides[k])))
            return order, bool(v.flags.f_contiguous)
        if ROOT_LAYOUTS and id(a) in ROOT_LAYOUTS:
            found = root_layout(a)  # NOTE [layout of elementwise results]
            if found is not None:
                return found
        return tuple(range(len(a.shape))), True
    rule = getattr(base[1], "layout", None)
    if rule is not None:
        return rule(layout(base[0]))
    n = len(a.shape)
    if base[3]:
        return tuple(range(n)), True
    parent = base[0]
    if len(parent.shape) == n:  # a flip, a slice, .real: the parent's order
        return layout(parent)[0], False
    return tuple(range(n)), False


def _orders(a: Tracer) -> tuple[bool, bool]:
    """Whether ``a`` is C- and whether it is Fortran-contiguous, as NumPy's flags say."""
    shape = a.shape
    order, dense = layout(a)
    if not dense or order is None:
        return False, False
    long = [ax for ax in order if shape[ax] != 1]  # axes of length 1 have no stride to keep
    return long == sorted(long), long == sorted(long, reverse=True)


def _in_fortran_order(a: Tracer, dtype: Any, copy: Any) -> Any:
    """``np.array(a, order='F')`` / ``np.asarray(a, order='F')`` of a traced array called
    by user code: ``a`` itself where it is Fortran-contiguous and no copy is asked for,
    else a copy laid out in Fortran order (NOTE [memory layout])."""
    if not _same_dtype(a, dtype):
        if copy is False:
            raise ValueError("Unable to avoid copy while creating an array as requested.")
        return a.astype(dtype).copy("F")
    if copy is not True and f_contiguous(a):
        return a
    if copy is False:
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    return a.copy("F")


def f_contiguous(a: Tracer) -> bool:
    """Whether NumPy lays the traced array ``a`` out in Fortran order (``a.T`` of a
    C-contiguous ``a``, a 1-d array)."""
    return _orders(a)[1]


def c_contiguous(a: Tracer) -> bool:
    """Whether NumPy lays the traced array ``a`` out in C order (``a.T.T`` included)."""
    base = _slot(a, "_base")
    if base is None:
        if ROOT_LAYOUTS and id(a) in ROOT_LAYOUTS and root_layout(a) is not None:
            return _orders(a)[0]
        return type(a) is not Buffer or bool(a.val.flags.c_contiguous)
    if base[3]:
        return True
    if not hasattr(base[1], "layout"):
        return False
    return _orders(a)[0]


# NOTE [byte strides of views]: ``t.strides`` and whether a reshape of a view that is not
# contiguous is a view (NumPy's rule: one that needs no copy, ``a[::2].reshape(-1, 1)``,
# ``a[:2].T.reshape(4, 2)``) come from the byte offsets of the view's elements in its root's
# memory: :func:`element_offsets` runs the ``forward`` of each view in the chain, from the
# root down, on a plain integer array of the root's offsets (C order, or a buffer's own
# strides), so an index, transpose, flip, broadcast, diagonal or strided window maps them
# as it maps the values.  A ``forward`` that computes values does not keep them evenly
# spaced: then the strides are unknown (C order is reported, reshapes copy).  Only a read of
# ``strides`` and a reshape of a view that is not contiguous pay for it, O(the root's size):
# above ``MAX_OFFSET_ELEMENTS`` elements in the root (``eval_shape`` of a 20000 x 20000
# stand-in, large batches) the strides are unknown too, rather than an index array as large
# as the data.
MAX_OFFSET_ELEMENTS = 1 << 20


def element_offsets(a: Tracer) -> Any:
    """The byte offsets of the traced array ``a``'s elements in the memory of the array at
    the root of its views (NOTE [byte strides of views]), a plain integer array; or None."""
    chain = []
    t = a
    while (base := _slot(t, "_base")) is not None:
        chain.append((base[1], t))
        t = base[0]
    if math.prod(t.shape) > MAX_OFFSET_ELEMENTS:
        return None
    entry = ROOT_LAYOUTS.get(id(t)) if ROOT_LAYOUTS else None
    if entry is not None and not entry[2] and entry[3] is None and root_layout(t) is not None:
        return None  # elements apart, by strides not known
    offsets = root_offsets(t)
    for forward, view in reversed(chain):
        shift = getattr(forward, "byte_offset", None)  # .real/.imag of a complex array
        try:
            offsets = offsets + shift if shift is not None else forward(offsets)
        except Exception:  # noqa: BLE001 - a forward that does not take integers
            return None
        if type(offsets) is not numpy.ndarray or offsets.shape != tuple(view.shape):
            return None
    return offsets


def root_offsets(t: Tracer) -> Any:
    """The byte offsets of the elements of ``t``, an array that is no view: C order, or a
    buffer's own layout (NOTE [byte strides of views]); read-only, kept for reuse (so that
    a column's offsets, a view of them, cost the column's size, not the array's)."""
    shape = tuple(t.shape)
    itemsize = numpy.dtype(t.dtype).itemsize
    strides = t.val.strides if type(t) is Buffer else None
    found = root_layout(t) if ROOT_LAYOUTS and id(t) in ROOT_LAYOUTS else None
    if found is not None and ROOT_LAYOUTS[id(t)][3] is not None:
        strides = ROOT_LAYOUTS[id(t)][3]  # an argument's own (NOTE [layout of elementwise
    elif found is not None:  # results]); else dense in that order
        strides = [0] * len(shape)
        step = itemsize
        for k in reversed(found[0]):
            strides[k] = step
            step *= shape[k]
        strides = tuple(strides)
    key = (shape, itemsize, strides)
    offsets = _ROOT_OFFSETS.get(key)
    if offsets is not None:
        return offsets
    if strides is not None:
        offsets = numpy.zeros(shape, dtype=numpy.intp)
        for k, (n, s) in enumerate(zip(shape, strides)):
            step = numpy.arange(n, dtype=numpy.intp) * s
            offsets = offsets + step.reshape((n,) + (1,) * (len(shape) - k - 1))
    else:
        offsets = numpy.arange(int(numpy.prod(shape)), dtype=numpy.intp).reshape(shape)
        offsets = offsets * itemsize
    offsets.flags.writeable = False
    if len(_ROOT_OFFSETS) >= 32:
        _ROOT_OFFSETS.clear()
    _ROOT_OFFSETS[key] = offsets
    return offsets


#: (shape, itemsize, a buffer's strides or None) -> :func:`root_offsets`' array.
_ROOT_OFFSETS: dict = {}


def root_of(t: Tracer) -> Tracer:
    """The array at the root of the views ``t`` belongs to (``t`` if it is no view)."""
    while (base := _slot(t, "_base")) is not None:
        t = base[0]
    return t


def _objects_laid_out(t: Tracer) -> Any:
    """For NumPy's own ``as_strided`` of a view ``t`` whose strides are not C order's: an
    object array of 0-d views of the root's elements, in the root's memory order, viewed
    with ``t``'s offset and strides (NOTE [byte strides of views]); so NumPy's strides
    reach the elements its memory holds there.  None where C order is right."""
    strides = strides_of(t)
    if strides is None or strides == c_strides(t):
        return None
    root = root_of(t)
    itemsize = numpy.dtype(t.dtype).itemsize
    where = root_offsets(root) // itemsize
    low = int(where.min()) if where.size else 0
    memory = numpy.empty(int(where.max()) - low + 1 if where.size else 0, dtype=object)
    for index in numpy.ndindex(*root.shape):
        memory[where[index] - low] = root[(*index, Ellipsis)]
    start = int(element_offsets(t).flat[0]) // itemsize - low
    step = _OBJECT_ITEMSIZE // itemsize
    object_strides = tuple(s * step for s in strides)
    return _AS_STRIDED(memory[start:], tuple(t.shape), object_strides)


def c_strides(t: Any) -> tuple[int, ...]:
    out, step = [], numpy.dtype(t.dtype).itemsize
    for n in reversed(t.shape):
        out.append(step)
        step *= n
    return tuple(reversed(out))


_AS_STRIDED = numpy.lib.stride_tricks.as_strided
_OBJECT_ITEMSIZE = numpy.dtype(object).itemsize
LAID_OUT_OBJECTS.append(_objects_laid_out)


def strides_of(a: Tracer) -> tuple[int, ...] | None:
    """NumPy's byte strides of the traced array ``a`` (NOTE [byte strides of views]), or
    None where they are not known."""
    offsets = element_offsets(a)
    if offsets is None or offsets.size == 0:
        return None
    n = offsets.ndim
    strides: list = [None] * n
    expected = offsets.flat[0]
    for k, length in enumerate(offsets.shape):
        if length > 1:
            step = offsets[(0,) * k + (1,) + (0,) * (n - k - 1)] - offsets.flat[0]
            strides[k] = int(step)
            grid = numpy.arange(length, dtype=numpy.intp) * step
            expected = expected + grid.reshape((length,) + (1,) * (n - k - 1))
    if not numpy.array_equal(offsets, numpy.broadcast_to(expected, offsets.shape)):
        return None
    step = numpy.dtype(a.dtype).itemsize
    for k in reversed(range(n)):  # an axis of length 1 takes the C stride it would have
        if strides[k] is None:
            strides[k] = step
        step = abs(strides[k]) * max(offsets.shape[k], 1)
    return tuple(strides)


def reshapes_in_place(a: Tracer, shape: tuple, order: str = "C") -> bool:
    """Whether NumPy reshapes the traced array ``a`` to ``shape`` (the result's, no -1)
    without a copy, by its strides (NOTE [byte strides of views]); False where they are
    not known."""
    if [n for n in a.shape if n != 1] == [n for n in shape if n != 1]:
        return True  # only axes of length 1 come or go: never a copy
    strides = strides_of(a)
    if strides is None:
        return False
    fake = numpy.lib.stride_tricks.as_strided(
        numpy.zeros(1, dtype=a.dtype), tuple(a.shape), strides
    )  # never read: a reshape that needs no copy only computes new strides
    try:
        numpy.reshape(fake, shape, order=order, copy=False)
    except ValueError:
        return False
    except TypeError:  # NumPy < 2.1 has no copy=: set the shape of a view in place
        view = (fake.T if order == "F" else fake).view()
        try:
            view.shape = tuple(shape)[::-1] if order == "F" else tuple(shape)
        except AttributeError:
            return False
    return True


_ARANGE_SOURCE = (
    """
def wrapper(*args, **kwargs):
    args, kwargs = numbers_of(args, kwargs)"""
    + _BUFFER_RESULT
)


def numbers_of(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """``args`` and ``kwargs`` with each traced 0-d value a Python number (``.item()``):
    ``numpy.arange(n)`` of ``n = np.array(3)`` counts to 3 as ``arange(3)`` does (NumPy
    would make an object array of a tracer); the read follows NOTE [number conversions]
    (under ``vmap`` rows that disagree split the batch, under ``jit`` the recording reads
    data, a float that ``grad`` differentiates refuses)."""
    if any(isinstance(a, Tracer) for a in args):
        args = tuple(a.item() if isinstance(a, Tracer) else a for a in args)
    if kwargs and any(isinstance(a, Tracer) for a in kwargs.values()):
        kwargs = {k: a.item() if isinstance(a, Tracer) else a for k, a in kwargs.items()}
    return args, kwargs


_FROMITER_SOURCE = (
    """
def wrapper(iterable, dtype, count=-1, **kwargs):
    if not kwargs and casts_to(dtype) and from_user_code(1, name):
        # the elements read first (count of them), so that traced ones (a generator over
        # a traced array's rows) make one traced array of that dtype, as np.array does
        items = list(iterable if count < 0 else islice(iterable, count))
        if count > len(items):
            raise ValueError(f"iterator too short: Expected {count} but iterator had only "
                             f"{len(items)} items.")
        converted = convert_array_like(items)
        if converted is not items:
            return converted.astype(dtype)
        iterable = items
    args = (iterable, dtype, count)"""
    + _BUFFER_RESULT
)

_REQUIRE_SOURCE = """
def wrapper(a, dtype=None, requirements=None, **kwargs):
    if isinstance(a, Tracer) and not kwargs and from_user_code(1, name):
        if same_dtype(a, dtype) or casts_to(dtype):
            return required(a, dtype, requirements)
    return original(a, dtype, requirements, **kwargs)
"""

#: ``numpy.require``'s flag names, each to its letter.
_REQUIRE_FLAGS = {
    **{k: k for k in "CFAWOE"},
    "C_CONTIGUOUS": "C",
    "CONTIGUOUS": "C",
    "F_CONTIGUOUS": "F",
    "FORTRAN": "F",
    "ALIGNED": "A",
    "WRITEABLE": "W",
    "OWNDATA": "O",
    "ENSUREARRAY": "E",
}


def read_only(p: Any, v: Any) -> Any:
    """The ``inverse`` of a read-only view (``diagonal``, ``broadcast_to``)."""
    raise ValueError("assignment destination is read-only")  # NumPy's words


def _required(a: Tracer, dtype: Any, requirements: Any) -> Any:
    """``numpy.require(a, dtype, requirements)`` of a traced array called by user code: ``a``
    itself where it meets them, as NumPy returns it (a write into the result reaches
    ``a``), else a copy (``astype`` when the dtype differs)."""
    if isinstance(requirements, str):
        requirements = [requirements]
    flags = {_REQUIRE_FLAGS[r.upper()] for r in requirements or ()}
    if flags >= {"C", "F"}:
        raise ValueError('Cannot specify both "C" and "F" order')  # NumPy's words
    if not _same_dtype(a, dtype):
        return a.astype(dtype)
    base = _slot(a, "_base")
    if base is not None and (
        "O" in flags
        or ("C" in flags and not c_contiguous(a))
        or ("W" in flags and base[2] is read_only)
    ):
        return a.copy()
    if "F" in flags and not f_contiguous(a):
        return a.copy()
    return a


def _same_dtype(a: Any, dtype: Any) -> bool:
    try:
        return dtype is None or numpy.dtype(dtype) == a.dtype
    except TypeError:
        return False


def _casts_to(dtype: Any) -> bool:
    """Whether ``dtype`` names a dtype a traced array can be cast to (not object; strings
    are: ``t.astype(str)`` is a traced array of the elements' text)."""
    try:
        return dtype is not None and numpy.dtype(dtype).kind not in "OVM"
    except TypeError:
        return False


def _convert_array_like(value: Any) -> Any:
    """The NumPy layer's conversion of a list holding tracers into one traced array
    (``OBJECT_ARRAY_CONVERTER``); ``value`` itself when it holds none."""
    return OBJECT_ARRAY_CONVERTER[0](value) if OBJECT_ARRAY_CONVERTER else value


# NOTE [lists holding tracers into numpy.array]
# ---------------------------------------------
# ``np.array([x[0] ** 2, 1.0])`` in the loop over the rows is a float64 array.  NumPy
# hands such a list to no protocol, so on tracers it made an object array of 0-d tracers:
# its dtype (``a.dtype.kind == "f"`` answered False: a silent difference) and NumPy's
# named ufuncs (``np.sin(a)`` calls ``.sin()`` on the Python float 1.0: TypeError) were
# not the loop's.  So while a transform is active, ``numpy.array``/``asarray``/
# ``asanyarray`` called by user code, with no ``dtype=``, on a (nested) list or tuple that
# holds a tracer and otherwise only numbers, strings and numeric or string NumPy scalars
# and arrays, give one traced array of NumPy's dtype for the same data (``array_like``,
# NOTE [array-likes holding tracers]): ``np.array([x[0], "label"])`` is the loop's
# ``<U32`` array, each number as its text (the loop's ``a[0]`` is ``'0.3'``, not a number),
# as ``t.astype(str)`` makes it; ``dtype=str``/``"U5"`` cast so.  ``dtype=object``, lists
# holding anything else (None, Python ints past int64) and library code (SciPy's
# ``np.asarray(x)``) keep NumPy's object array.  NumPy converts first and only an object
# result is looked at, so a list of numbers costs one dtype test (the object array made
# on the way warns no ``ObjectArrayWarning``: ``_listed`` in core/tracer.py).
_INT64 = (-(2**63), 2**63 - 1)


def _numeric_list(value: Any) -> bool:
    """Whether ``value``, a (nested) list or tuple, holds a tracer and otherwise only what
    NumPy makes a numeric or string array of (numbers, strings, such NumPy scalars and
    arrays): the lists that ``numpy.array`` without ``dtype=`` gives a number or string
    dtype in the loop over the rows (NOTE [lists holding tracers into numpy.array])."""
    found = False
    stack = [value]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is list or t is tuple:
            stack.extend(v)
        elif isinstance(v, Tracer):
            found = True
        elif t is float or t is bool or t is complex or t is str or t is bytes:
            continue
        elif t is int:
            if not _INT64[0] <= v <= _INT64[1]:
                return False  # NumPy makes an object array of a Python int past int64
        elif not (isinstance(v, (numpy.generic, numpy.ndarray)) and v.dtype.kind in "biufcSU"):
            return False
    return found


def listed_numbers(value: Any, args: tuple, kwargs: dict) -> bool:
    """Whether ``numpy.array(value, *args, **kwargs)`` (or ``asarray``) asks for the
    numeric array of a list holding tracers: no ``dtype=`` or other setting that the
    traced array would not honour, and :func:`_numeric_list` (NOTE [lists holding tracers
    into numpy.array])."""
    return (
        not args
        and kwargs.get("dtype") is None
        and set(kwargs) <= {"dtype", "copy", "order"}
        and kwargs.get("copy", True) in (True, None)
        and kwargs.get("order", "K") in ("K", "A", "C", None)
        and _numeric_list(value)
    )


def _creation(name: str, source: str = _WRAPPER_SOURCE) -> Any:
    """The wrapper of ``numpy.<name>``.  Its globals name a NumPy module, so that the frame
    checks that look for NumPy's own code (``Tracer.__array__``'s) see through it.
    ``numpy.asarray``/``asanyarray``/``ascontiguousarray``/``asfortranarray`` called by
    user code on a traced array (a buffer included) return that array itself where NumPy
    does, so that a write into the result reaches it; called by library code they convert
    as before."""
    namespace = {
        "Tracer": Tracer,
        "same_dtype": _same_dtype,
        "casts_to": _casts_to,
        "required": _required,
        "numbers_of": numbers_of,
        "__name__": "numpy._ftransforms_buffers",
        "original": getattr(numpy, name),
        "local": _LOCAL,
        "ndarray": numpy.ndarray,
        "from_user_code": _from_user_code,
        "name": name,
        "Buffer": Buffer,
        "new_buffer": new_buffer,
        "convert_array_like": _convert_array_like,
        "islice": itertools.islice,
        "listed_numbers": listed_numbers,
        "fortran": f_contiguous,
        "contiguous": c_contiguous,
        "in_fortran_order": _in_fortran_order,
        "traced_fill": TRACED_FILL,
        "library_objects": LIBRARY_OBJECT_ARRAYS,
        "library_creations": LIBRARY_OBJECT_CREATIONS,
    }
    exec(compile(source, __file__, "exec"), namespace)  # noqa: S102 - fixed source
    wrapper = namespace["wrapper"]
    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__wrapped__ = namespace["original"]
    wrapper.__doc__ = namespace["original"].__doc__
    return wrapper


_NUMPY = vars(numpy)

#: NumPy's functions that make a new array, wrapped while a transform is active.
_WRAPPERS = {
    name: _creation(name)
    for name in (
        "zeros",
        "ones",
        "empty",
        "zeros_like",
        "ones_like",
        "empty_like",
        "copy",
        "eye",
        "identity",
        "linspace",
        "logspace",
        "geomspace",
        "tri",
        "indices",
    )
}
_WRAPPERS["fromiter"] = _creation("fromiter", _FROMITER_SOURCE)
_WRAPPERS["array"] = _creation("array", _ARRAY_SOURCE)
_WRAPPERS.update({name: _creation(name, _FULL_SOURCE) for name in ("full", "full_like")})
_WRAPPERS.update({name: _creation(name, _ASARRAY_SOURCE) for name in ("asarray", "asanyarray")})
_WRAPPERS["ascontiguousarray"] = _creation("ascontiguousarray", _CONTIGUOUS_SOURCE)
_WRAPPERS["asfortranarray"] = _creation("asfortranarray", _FORTRAN_SOURCE)
_WRAPPERS["arange"] = _creation("arange", _ARANGE_SOURCE)
_WRAPPERS["require"] = _creation("require", _REQUIRE_SOURCE)

_ORIGINALS = {name: wrapper.__wrapped__ for name, wrapper in _WRAPPERS.items()}

#: ``(namespace, wrappers, originals)``: module namespaces whose functions are replaced by
#: ``wrappers`` while a transform is active on some thread (NumPy's creation functions
#: here; ftransforms/random.py adds NumPy's global random functions).
PATCHED_WHILE_ACTIVE: list[tuple[dict, dict, dict]] = [(_NUMPY, _WRAPPERS, _ORIGINALS)]
