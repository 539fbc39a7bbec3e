"""The batching interpreter behind ``vmap``.

A :class:`BatchTracer` carries a physical value ``val`` with one extra axis, ``bdim``.
Values without a batch axis are never wrapped: they are plain lower-level values, and a
batching rule sees them with ``bdim=None`` and does no work for them.
"""

from __future__ import annotations

import operator
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy

# The module, not its rule: ``import batching_rules`` first (as tests do) imports
# ftransforms, and so this module, while batching_rules.elementwise is still loading.
import batching_rules.elementwise as _elementwise_rules
from batching_rules.fallback import loop_and_stack
from ftransforms.core.errors import (
    BatchedControlFlowError,
    InPlaceError,
    UnsupportedOperationError,
)
from ftransforms.core.mutation import Buffer
from ftransforms.core.stack import Interpreter, current_stack
from ftransforms.core.tracer import (
    READ_KEY,
    ROW_TEXT,
    Tracer,
    _storing_into_an_array,
    truncation_of,
)
from ftransforms.ops.checks import NotFiniteRows


class BatchSplit(BaseException):
    """The signal that a vmap level must split its rows (NOTE [splitting the batch] in
    ftransforms/split.py): raised where a batched value becomes a Python value and its rows
    disagree; ``rows`` holds the concrete per-row values, batch axis first.  A
    ``BaseException``, so that a user's ``except Exception`` does not swallow it."""

    def __init__(self, interp: BatchInterpreter, rows: Any) -> None:
        super().__init__(interp.name)
        self.interp = interp
        self.rows = rows
        self.site = _user_site()
        self.reason: str | None = None  # an error of some rows (NOTE [errors of some rows])
        self.waiting = False  # caught by the library itself (NOTE [a split under SciPy's ...])
        if interp.pending is None:  # kept, should f swallow it (a bare ``except:``)
            interp.pending = self


#: Packages whose frames are not the user's line that asked for a Python value.
_LIBRARY = frozenset({"ftransforms", "batching_rules", "numpy", "scipy", "contextlib"})


def _user_site() -> tuple[str, int, str]:
    """(file, line, module) of the innermost frame outside the library and NumPy."""
    frame = sys._getframe(2)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.split(".")[0] not in _LIBRARY:
            return frame.f_code.co_filename, frame.f_lineno, module
        frame = frame.f_back
    return "<unknown>", 0, ""  # pragma: no cover


#: Above 0 inside :func:`refusing_splits`: a disagreement raises BatchedControlFlowError
#: (for library code that has a batched path of its own to take instead).
_REFUSING = [0]


class refusing_splits:
    """Within this context, rows that disagree raise ``BatchedControlFlowError`` instead of
    splitting the batch: for library code that catches it and takes a batched path."""

    def __enter__(self) -> None:
        _REFUSING[0] += 1

    def __exit__(self, *exc: Any) -> None:
        _REFUSING[0] -= 1


def uniform_row(c: Any, bdim: int) -> tuple[Any, Any]:
    """``(row 0, None)`` of the concrete array ``c`` when all its rows along ``bdim`` are
    equal (bit for bit, so NaN rows agree), else ``(None, rows)`` with the batch axis first."""
    first = c[(slice(None),) * bdim + (0,)]
    if c.shape[bdim] <= 1:
        return first, None
    head = c[(slice(None),) * bdim + (slice(0, 1),)]
    same = c == head
    if bool(same.all()) and _same_zero_signs(c, head):
        return first, None
    rows = _front(c, bdim)
    if c.dtype.kind in "fc":  # NaN rows are equal when their bits are
        bits = rows.reshape(rows.shape[0], -1).copy().view(numpy.uint8)
        if bool((bits == bits[:1]).all()):
            return first, None
    return None, rows


def _same_zero_signs(c: Any, head: Any) -> bool:
    """Whether the equal rows of ``c`` also agree on the signs of their zeros (``0.0 ==
    -0.0``, but ``math.copysign``, ``math.atan2`` and ``1 / x`` of a read tell them apart)."""
    kind = c.dtype.kind
    if kind == "c":
        return _same_zero_signs(c.real, head.real) and _same_zero_signs(c.imag, head.imag)
    return kind != "f" or bool((numpy.signbit(c) == numpy.signbit(head)).all())


def _front(c: Any, bdim: int) -> Any:
    """``c`` with axis ``bdim`` first."""
    return c if bdim == 0 else c.transpose((bdim,) + tuple(i for i in range(c.ndim) if i != bdim))


#: The loop-masking machinery of ftransforms/split.py (registered there, as a rule is):
#: NOTE [splitting the batch], "while loops".
LOOP_MASKING: list = []


class SpeculationFailed(BaseException):
    """Masking a Python ``while`` loop's finished rows could not follow the function (a
    ``break``/``return`` out of the loop, a Python number that changed in it, an error while
    rows rode along): the vmap call runs again, splitting without masking."""

    def __init__(self, interp: BatchInterpreter, why: str) -> None:
        super().__init__(why)
        self.interp = interp
        if interp.pending is None:  # kept, should f swallow it (as BatchSplit)
            interp.pending = self


#: The packages whose code sees a tracer's own class: ``x.__class__`` and a failed
#: ``isinstance`` there are about the tracer, not the row's number.
_LIBRARIES = frozenset({"ftransforms", "batching_rules", "numpy", "scipy", "cupy", "cupyx"})
_OBJECT_CLASS = object.__dict__["__class__"]


#: Debuggers' packages, whose ``repr`` of a value shows the tracer (the whole batch).
_DEBUGGERS = frozenset(
    {"pdb", "bdb", "code", "traceback", "inspect", "IPython", "pydevd", "_pydevd_bundle",
     "_pydev_bundle", "debugpy", "_pytest"}
)  # fmt: skip


def _users_repr(interp: BatchInterpreter) -> bool:
    """Whether ``repr`` of a batched value is asked for by the function's own code (or a
    helper such as ``logging``'s ``%r``), which gets the row's text as the loop over the
    rows writes it (NOTE [the text of a tracer over a batch] in core/tracer.py);
    ftransforms, NumPy, SciPy and debuggers (``pdb``, ``traceback``) keep the form that
    shows the batch, as does a vmap that may not split (``split=False``)."""
    if not interp.split or _REFUSING[0] or not interp.axis_size:
        return False
    try:
        frame = sys._getframe(2)
    except ValueError:  # called from C with no Python caller
        return False
    root = frame.f_globals.get("__name__", "").partition(".")[0]
    while root == "ftransforms" and frame.f_code.co_name == "__repr__" and frame.f_back:
        frame = frame.f_back  # another transform's tracer over this batch (grad's): its
        root = frame.f_globals.get("__name__", "").partition(".")[0]  # caller's repr
    return not (root in _LIBRARIES or root in _DEBUGGERS)


class BatchTracer(Tracer):
    """A value batched along physical axis ``bdim`` (a non-negative int) of ``val``."""

    __slots__ = ()  # the layout is Tracer's (NOTE [mutation semantics])
    _payload = ("_interp", "val", "bdim")

    def __init__(self, interp: BatchInterpreter, val: Any, bdim: int) -> None:
        self._interp = interp
        self.val = val
        self.bdim = bdim

    @property
    def __class__(self) -> type:
        """``isinstance(x[0], float)`` in the function's own code: the NumPy scalar type of
        the row's value (NOTE [a row's NumPy scalars] in ftransforms/row_scalars.py)."""
        if self.val.ndim == 1 and self._interp.active:
            module = sys._getframe(1).f_globals.get("__name__", "")
            if module.partition(".")[0] not in _LIBRARIES:
                if self._interp.weak is not None and self._python_kind() is not None:
                    # a masked loop's Python number made batched: the loop's is an int or
                    # float, no NumPy scalar (NOTE [splitting the batch], "while loops")
                    raise SpeculationFailed(self._interp, "a loop's Python number's type")
                return self.val.dtype.type
        return BatchTracer

    def _python_kind(self) -> type | None:
        weak = self._interp.weak  # NOTE [splitting the batch], "while loops"
        found = weak.get(id(self)) if weak is not None else None
        return found[1] if found is not None and found[0] is self else None

    @__class__.setter
    def __class__(self, cls: type) -> None:  # a write turns a tracer into another in place
        _OBJECT_CLASS.__set__(self, cls)

    @property
    def shape(self) -> tuple[int, ...]:
        s = self.val.shape
        return s[: self.bdim] + s[self.bdim + 1 :]

    @property
    def ndim(self) -> int:
        return self.val.ndim - 1

    @property
    def dtype(self) -> Any:
        return self.val.dtype

    def _concrete(self) -> Any:
        # NOTE [splitting the batch] (ftransforms/split.py): the value of row 0 when every
        # row holds the same one; otherwise the vmap that owns this axis splits its rows.
        v = self.val
        c = v._concrete() if isinstance(v, Tracer) else v  # lower levels read (and split) first
        key = READ_KEY.key
        if key is not None:  # NOTE [the Python value a read gives] (core/tracer.py)
            READ_KEY.key = None
            c = key(c)
        interp = self._interp
        pending = interp.pending
        if pending is not None and not getattr(pending, "waiting", False):
            raise pending  # f swallowed it (a bare ``except:``): this run is dropped anyway
        if interp.loops is not None and interp.loops.records:  # rows that left a loop ride on
            return interp.loops.read(self, _front(c, self.bdim), sys._getframe(1))
        if c.shape[self.bdim] == 0:
            raise BatchedControlFlowError(
                f"{interp.name}: a batched value was read as a Python value (bool(), int(), "
                f"a data-dependent shape) on an empty batch, which has no row to read it "
                f"from; skip the call for an empty batch."
            )
        first, rows = uniform_row(c, self.bdim)
        if rows is None:
            return first
        if interp.split and not _REFUSING[0] and interp.masking and LOOP_MASKING:
            if interp.loops is None:
                interp.loops = LOOP_MASKING[0](interp)
            value = interp.loops.disagree(self, rows, sys._getframe(1))
            if value is not None:
                return value
        if not self._interp.split or _REFUSING[0]:
            raise BatchedControlFlowError(
                f"{self._interp.name}: a batched value has no single truth value (bool(), "
                f"if, while or `and`/`or` on a value that differs across the batch), and "
                f"splitting the batch is switched off (split=False).  Use "
                f"ft.cond(pred, true_fun, false_fun, *operands) for a branch and "
                f"ft.while_loop(cond_fun, body_fun, init) for a loop (each row takes its "
                f"own path), express the choice as data with fnp.where(condition, a, b), or "
                f"drop split=False so that vmap runs each group of rows on its own."
            )
        raise BatchSplit(self._interp, rows)

    def _one_row(self) -> Any:
        """Row 0 of ``val`` (a lower-level value) once every row holds the same value (the
        first row still looping, while finished rows ride along: see split.py)."""
        try:
            self._concrete()  # splits the batch when the rows differ
        except BatchSplit as signal:
            # NOTE [a split under SciPy's compiled code]: ``scipy.optimize.brentq`` (C)
            # reads the number of the function's result with PyFloat_AsDouble and goes on
            # without checking for an error: the signal would be lost (and the next call
            # fail with SystemError).  Under SciPy the split waits instead: this read gets
            # row 0's number, and the vmap call raises the signal when the function
            # returns or fails (the run is abandoned; its numbers are never used).
            module = sys._getframe(2).f_globals.get("__name__", "")
            if signal.interp is not self._interp or not module.startswith("scipy."):
                raise
            signal.waiting = True
            if self._interp.pending is None:
                self._interp.pending = signal
            return signal.rows[0]
        loops = self._interp.loops
        row = 0 if loops is None or not loops.records else loops.first_active()
        return self.val[(slice(None),) * self.bdim + (row,)]

    def __float__(self) -> float:
        if _storing_into_an_array(1):
            return self._stored_into_array(0.0)
        self._check_live("float()")
        return float(self._one_row())

    def __complex__(self) -> complex:
        if _storing_into_an_array(1):
            return self._stored_into_array(0j)
        self._check_live("complex()")
        return complex(self._one_row())

    def __int__(self) -> int:
        if _storing_into_an_array(1):
            return self._stored_into_array(0)
        self._check_live("int()")
        if self.ndim or self.dtype.kind != "f":
            return int(self._one_row())
        READ_KEY.key = truncation_of  # NOTE [the Python value a read gives] (core/tracer.py)
        try:
            return int(self._one_row())
        finally:
            READ_KEY.key = None

    def __index__(self) -> int:
        self._check_live("operator.index()")
        return operator.index(self._one_row())

    def item(self, *args: Any) -> Any:
        self._check_live(".item()")
        return self._one_row().item(*args)

    def tolist(self) -> Any:
        self._check_live(".tolist()")
        return self._one_row().tolist()

    _conversion_fix = (
        "A batched value holds one number per batch element: keep it as an array (fnp.* "
        "works on 0-d arrays), or return it from the vmapped function and convert the result."
    )

    def _physical(self) -> Any:
        v = self.val
        return v._physical() if isinstance(v, Tracer) else v

    def __str__(self) -> str:
        """``str(t)``, ``print(t)``, ``f"{t}"``, ``"%s" % t``: the row's own text, as the loop
        over the rows writes it (NumPy's ``str`` of the row: ``0.5``, ``[1. 2.]``); rows
        whose texts differ split the batch (NOTE [splitting the batch]); ``repr(t)`` in the
        function's own code too.  ``str`` of a tracer whose vmap has returned (printed to
        see what leaked) is the debugging form that shows the whole batch."""
        if not self._interp.active:
            return self.__repr__()
        value = self._concrete()
        return str(value[()] if getattr(value, "ndim", None) == 0 else value)

    def __hash__(self) -> int:
        """``hash()`` of a per-row number (a dict key ``D[np.argmax(x)]``, a set element of
        ``set(x)``): the loop's row holds a NumPy scalar there (``x[i]``, a reduction),
        which hashes as its number, so this hashes the row's number (rows that differ
        split the batch).  A row with axes is an array in the loop too: refused."""
        if self.ndim:
            return super().__hash__()
        self._check_live("hash()")
        return hash(self._concrete().item())

    def __repr__(self) -> str:
        """``repr(x[0])``, ``f"{x!r}"`` in the function's own code: the row's ``repr``, as
        the loop writes its NumPy scalar or array (``np.float64(0.5)``); elsewhere
        (ftransforms, NumPy, a debugger, a leaked tracer) the form that shows the batch
        (NOTE [the text of a tracer over a batch] in core/tracer.py)."""
        loops = self._interp.loops
        # str(n), f"{n}" of a loop's counter made batched: the loop over rows writes numbers
        # (NOTE [splitting the batch], "while loops")
        if loops is not None and loops.promoted and self._interp.active:
            raise SpeculationFailed(self._interp, "a batched value was turned into text")
        interp = self._interp
        if interp.active and (ROW_TEXT.on or _users_repr(interp)):  # NOTE [the text of a ...]
            value = self._concrete()
            return repr(value[()] if getattr(value, "ndim", None) == 0 else value)
        return (
            f"BatchTracer(level={self._interp.level}, bdim={self.bdim}, "
            f"batch_size={self._interp.axis_size}, val={self.val!r})"
        )


#: ``reachable(objects, kinds)``: the objects of ``kinds`` that functions and objects reach
#: (their closures, defaults, globals, fields), for NOTE [batched writes into captured
#: arrays]; set by ``ftransforms/host_random.py``, whose walk it is (a layer above this one).
REACHABLE: list[Callable[[tuple, tuple], list]] = [lambda objects, kinds: []]


class BatchInterpreter(Interpreter):
    """One ``vmap`` level: applies each primitive's batching rule."""

    __slots__ = (
        "axis_size", "randomness", "split", "masking", "loops", "axis", "weak", "pending",
        "draw_log", "outside", "captured",
    )  # fmt: skip

    def __init__(
        self,
        name: str,
        axis_size: int,
        randomness: str = "error",
        split: bool = True,
        masking: bool = True,
        axis: tuple | None = None,
    ) -> None:
        super().__init__(name)
        self.axis_size = axis_size
        self.randomness = randomness
        self.split = split
        self.masking = masking  # may finished rows of a Python while loop ride along
        self.loops = None  # the loops being masked (split.MaskedLoops), made on first need
        # ``(axis_name, xp)`` of ``vmap(..., axis_name=)``, else None (NOTE [collectives
        # under vmap] in ftransforms/lax.py)
        self.axis = axis
        # id -> (value, Python type) of the loop counters a masked loop made batched (split.py)
        self.weak: dict | None = None
        # a split found where it could not be raised (NOTE [a split under SciPy's compiled
        # code]), or the first signal raised (the function may swallow it: NOTE [splitting
        # the batch]): the vmap call raises it when the function returns or fails
        self.pending: BatchSplit | SpeculationFailed | None = None
        self.draw_log = None  # randomness='same': this run's draws (random._DrawLog)
        # (the function, its unbatched arguments) and, found on first need, the ids of the
        # arrays they reach (NOTE [batched writes into captured arrays])
        self.outside: tuple = (None, (), ())  # (function, wrapped arguments, their in_dims)
        self.captured: set | None = None

    # NOTE [batched writes into captured arrays]: in the loop over rows that vmap stands
    # for, an array from outside the function (reached through its closure, defaults or
    # globals, or passed with in_dims=None) is one array that every row writes in turn,
    # so a row reads what the rows before it wrote; a batch computed at once gives each
    # row the array as it was before the call (and leaves it batched).  So a write of a
    # value batched at this level (or above it) into such an array that is not batched
    # here raises InPlaceError, as torch.func raises for an in-place write of a batched
    # value into an unbatched tensor; an array made inside the function (np.zeros(n),
    # x0.copy()) takes it (each row has its own).  Unbatched writes into captured arrays
    # stay (each row writes the same values).  The reachable arrays are found once per
    # call, at the first such write (host_random's walk of a function's closure).  The
    # vmaps of jacfwd/jacrev over a basis of directions are no loop of the user's: each
    # direction is meant to see the state unwritten, so they keep the batched write.
    def before_value(self, target: Any, new: Any) -> None:
        new_interp = getattr(new, "_interp", None)
        if new_interp is None or type(new) is Buffer or new_interp.level < self.level:
            return
        if type(target) is not Buffer and target._interp.level >= self.level:
            return  # batched here already (or made by a level inside this one)
        if self.outside[0] is None:
            return  # a vmap over a basis of directions (jacfwd, jacrev), or no function yet
        if self.captured is None:
            func, wrapped, dims = self.outside
            unbatched = tuple(w for w, d in zip(wrapped, dims) if d is None)
            found = REACHABLE[0]((func, *unbatched), (Tracer,))
            self.captured = {id(t) for t in found} | {id(t) for t in unbatched}
        if id(target) in self.captured:
            raise InPlaceError(
                f"{self.name}: a value batched by this vmap is written into an array from "
                f"outside the vmapped function (its closure, a global or an in_dims=None "
                f"argument) that is not batched: in the loop over rows that vmap stands for "
                f"each row would read what the rows before it wrote there, which one "
                f"batched computation cannot give (torch.func refuses such in-place writes "
                f"too).  Make the array inside the function (np.zeros(n), a.copy()), or "
                f"return the rows' values and combine them after the vmap."
            )

    def axis_index(self) -> BatchTracer:
        """Each row's position along this level's named axis (``arange`` batched here)."""
        return BatchTracer(self, self.axis[1].arange(self.axis_size), 0)

    def _split_at_row_error(self, err: BaseException) -> None:
        """Split the batch in halves at an error of some rows (NOTE [errors of some
        rows]), or return (the caller re-raises the error)."""
        if self.axis_size < 2 or not self.split or _REFUSING[0]:
            return
        if self.loops is not None and self.loops.records:  # a masked row's data may have
            raise SpeculationFailed(self, f"a {type(err).__name__} while rows were masked")
        for interp in current_stack():
            note = getattr(interp, "note_value_read", None)
            if note is not None:  # jit's recording: which rows fail depends on the data
                note(f"a {type(err).__name__} raised for some rows of a vmap")
        rows = getattr(err, "rows", None)  # the rows that fail, where the rule knows them
        if rows is None:
            rows = numpy.arange(self.axis_size) >= self.axis_size // 2
        signal = BatchSplit(self, rows)
        signal.reason = type(err).__name__
        raise signal from err

    def process(self, prim: Any, args: tuple, params: dict) -> Any:
        if self.weak is not None:
            return self._process_weak(prim, args, params)
        rule = prim.batch
        try:  # NOTE [errors of some rows]: free until something raises
            if rule is _elementwise_rules.elementwise:
                # NOTE [elementwise under vmap]: the family rule's fast path, decided here
                # without building the value and batch-axis lists or calling the rule: a unary
                # op; two values batched on the same axis with the same rank; one batched value
                # with an unbatched one (a scalar, a bias) too short to reach its batch axis
                # when right-aligned.  The op maps over the batch axis where it is, and the
                # result is what the rule (batching_rules/elementwise.py) returns.
                n = len(args)
                if n == 1:
                    a = args[0]
                    if type(a) is BatchTracer and a._interp is self:
                        return BatchTracer(self, prim.bind(a.val, **params), a.bdim)
                elif n == 2:
                    a, b = args
                    if type(a) is BatchTracer and a._interp is self:
                        av = a.val
                        d = a.bdim
                        if type(b) is BatchTracer and b._interp is self:
                            bv = b.val
                            if d == b.bdim and av.ndim == bv.ndim:
                                return BatchTracer(self, prim.bind(av, bv, **params), d)
                        else:
                            rank = 0 if type(b) in _SCALARS else getattr(b, "ndim", None)
                            if rank is not None and rank < av.ndim - d:
                                return BatchTracer(self, prim.bind(av, b, **params), d)
                    elif type(b) is BatchTracer and b._interp is self:
                        bv = b.val
                        d = b.bdim
                        rank = 0 if type(a) in _SCALARS else getattr(a, "ndim", None)
                        if rank is not None and rank < bv.ndim - d:
                            return BatchTracer(self, prim.bind(a, bv, **params), d)
        except _ROW_ERRORS as err:  # (np.errstate(divide='raise') and a log(0) row)
            self._split_at_row_error(err)
            raise
        if len(args) == 2:  # list displays, not appends (the rules receive lists)
            a, b = args
            if type(a) is BatchTracer and a._interp is self:
                if type(b) is BatchTracer and b._interp is self:
                    vals = [a.val, b.val]
                    bdims = [a.bdim, b.bdim]
                else:
                    vals = [a.val, b]
                    bdims = [a.bdim, None]
            elif type(b) is BatchTracer and b._interp is self:
                vals = [a, b.val]
                bdims = [None, b.bdim]
            else:
                vals = [a, b]
                bdims = [None, None]
        else:
            vals = []
            bdims = []
            for a in args:
                if type(a) is BatchTracer and a._interp is self:
                    vals.append(a.val)
                    bdims.append(a.bdim)
                else:
                    vals.append(a)
                    bdims.append(None)
        if rule is None:
            rule = _fallback_rule(prim)
        try:
            out, out_bdim = rule(prim, vals, bdims, self.axis_size, **params)
        except _ROW_ERRORS as err:  # NOTE [errors of some rows]
            self._split_at_row_error(err)
            raise
        if prim.multiple_results:
            return tuple(o if d is None else BatchTracer(self, o, d) for o, d in zip(out, out_bdim))
        return out if out_bdim is None else BatchTracer(self, out, out_bdim)

    def _process_weak(self, prim: Any, args: tuple, params: dict) -> Any:
        """``process`` once a masked loop made a Python number batched (NOTE [splitting the
        batch], "while loops"): in the loop over rows it is a Python number, which NumPy
        promotes weakly (``x32 * n`` stays float32), while its batched int64/float64 array
        would widen a narrower operand; there masking gives up (the run goes on as a
        split).  A result of such a number and Python numbers is one too."""
        weak = self.weak
        kinds = [weak[id(a)][1] for a in args if weak.get(id(a), (None,))[0] is a]
        self.weak = None
        try:
            if kinds:
                for a in args:
                    d = getattr(a, "dtype", None)
                    if d is None or weak.get(id(a), (None,))[0] is a:
                        continue
                    d = numpy.dtype(d)
                    if any(
                        numpy.result_type(k(0), d) != numpy.result_type(numpy.dtype(k), d)
                        for k in kinds
                    ):
                        raise SpeculationFailed(
                            self, f"a loop's Python number met a {d} array, which it widens"
                        )
            if kinds and all(type(a) in _SCALARS or weak.get(id(a), (None,))[0] is a for a in args):
                why = _python_arithmetic_differs(prim.name, [getattr(a, "val", a) for a in args])
                if why is not None:
                    raise SpeculationFailed(self, f"a loop's Python number {why} in some rows")
            out = self.process(prim, args, params)
        finally:
            self.weak = weak
        if kinds and isinstance(out, Tracer) and not prim.multiple_results:
            if all(type(a) in _SCALARS or weak.get(id(a), (None,))[0] is a for a in args):
                weak[id(out)] = (out, complex if complex in kinds else max(kinds, key=_RANK))
        return out


_RANK = {bool: 0, int: 1, float: 2, complex: 3}.get


def _python_arithmetic_differs(name: str, values: list) -> str | None:
    """Why Python's arithmetic on these numbers (the rows' values of a loop's Python
    numbers, and Python numbers) is not NumPy's, or None (NOTE [splitting the batch],
    "while loops"; there masking gives up and the rows split).  In the loop over rows
    ``7 // n``, ``t % 0.5``, ``1 / n`` or ``0.0 ** -1`` of a row whose ``n`` is 0 raises
    ZeroDivisionError (a ``try`` takes its ``except``) where NumPy gives inf, nan or 0
    with a warning; ``(-8.0) ** 0.5`` is complex where NumPy's is nan; ``n ** 20`` is a
    Python int of any size where int64 wraps; ``t ** 400.0`` raises OverflowError where
    NumPy's is inf; ``flag + flag`` and ``~flag`` of Python bools are ints.  A value
    traced below this level cannot be looked at: a division or power gives up, a sum or
    product is let be."""
    if name in _POWER_SPELLINGS and len(values) == 1:  # NumPy's ``t ** -1`` is reciprocal(t)
        name, values = "power", [values[0], _POWER_SPELLINGS[name]]
    if name in _BOOL_ARITHMETIC and all(_dtype(v).kind == "b" for v in values):
        return f"is a bool in {name}"  # True + True is 2, ~True is -2; NumPy's bools stay bools
    if name not in _DIVIDING and name not in _GROWING:
        return None
    if any(isinstance(v, Tracer) for v in values):
        return None if name in _GROWING and name != "power" else f"meets a traced {name}"
    host = [_host(v) for v in values]
    if name in _GROWING and all(h.dtype.kind in "biu" for h in host):
        exact = getattr(numpy, name)(*(h.astype(object) for h in host))
        if any(not -(2**63) <= r < 2**63 for r in numpy.ravel(exact).tolist()):
            return f"outgrows int64 in {name}"
    if name in _DIVIDING:
        return "divides by zero" if bool((host[1] == 0).any()) else None
    if name != "power":
        return None
    base, exponent = host
    if bool(((base == 0) & (exponent.real < 0)).any()):
        return "raises zero to a negative power"
    if base.dtype.kind == "c" or exponent.dtype.kind == "c":
        return None
    if bool(((base < 0) & (exponent != numpy.floor(exponent))).any()):
        return "raises a negative number to a fractional power (a complex number)"
    with numpy.errstate(all="ignore"):
        power = numpy.power(base.astype(float), exponent)
    if bool((numpy.isinf(power) & numpy.isfinite(base)).any()):
        return "overflows a float in power"  # Python raises OverflowError
    return None


#: The ops that Python's ``/``, ``//``, ``%`` and ``divmod`` become.
_DIVIDING = frozenset({"divide", "floor_divide", "remainder", "divmod"})
#: The ops whose result for Python bools is an int, for NumPy's bools a bool.
_BOOL_ARITHMETIC = frozenset(
    {"add", "subtract", "multiply", "invert", "logical_not", "negative", "power"}
)
#: The ops NumPy's ``**`` takes for these Python exponents (``array_methods.__pow__``).
_POWER_SPELLINGS = {"reciprocal": -1, "square": 2, "sqrt": 0.5}
#: The ops whose integer results a Python int holds exactly and an int64 may not.
_GROWING = frozenset({"add", "subtract", "multiply", "power", "left_shift"})


def _dtype(v: Any) -> numpy.dtype:
    """The dtype of an array or tracer, or NumPy's for a Python number's type."""
    return v.dtype if hasattr(v, "dtype") else numpy.dtype(type(v))


def _host(v: Any) -> numpy.ndarray:
    """A NumPy copy of a concrete value (a Python number, a NumPy or CuPy array)."""
    return numpy.asarray(v.get() if hasattr(v, "get") else v)


# NOTE [errors of some rows]: ``vmap(f)(xs)`` means the loop ``[f(x) for x in xs]``, so an
# error that a batched kernel raises for the data of some rows only (``np.linalg.inv`` of
# a stack holding one singular matrix, ``cholesky`` of one matrix that is not positive
# definite, ``np.asarray_chkfinite`` or SciPy's ``check_finite`` of a batch with a NaN
# in some rows (NOTE [finiteness checks]: that rule says which rows), a value refused
# under ``np.errstate(all='raise')`` (or a RuntimeWarning made
# an error by ``warnings.simplefilter('error')``), a traced index out of
# range in some rows) belongs to those rows: a ``try: ... except LinAlgError:`` in ``f``
# must take its ``except`` branch for them and not for the whole batch.  So such an error
# splits the batch in halves (NOTE [splitting the batch] in ftransforms/split.py); each
# half runs again and splits again where the error persists, until a one-row run raises
# it into ``f``'s own ``try`` (about 2 log2(n) runs for one failing row of n).  A ``jit``
# recording around it is marked value-dependent (which rows fail depends on the data);
# inside a masked Python ``while`` loop it may come from a masked row (one step past its
# end), which a ``try`` in the loop must not see, so the call runs again without masking
# (``SpeculationFailed``); where splitting is refused the error goes up as it came.
# Costs nothing otherwise: the ``try`` around the rule (and around the elementwise fast
# path, where ``np.errstate(divide='raise')`` makes ``log`` of a zero row raise) is free
# until something raises.
_ROW_ERRORS = (
    numpy.linalg.LinAlgError, FloatingPointError, IndexError, RuntimeWarning, NotFiniteRows
)  # fmt: skip


#: Python scalars: they broadcast against any value without reaching its batch axis.
_SCALARS = frozenset({int, float, complex, bool})


# -- the loop-and-stack fallback -------------------------------------------------------

#: When False, an op without a batching rule raises instead of looping (the op database
#: tests switch it off so that no built-in op can rely on the fallback).
FALLBACK = {"enabled": True, "warned": set()}


def _fallback_rule(prim: Any):
    if not FALLBACK["enabled"]:
        raise UnsupportedOperationError(
            f"vmap: the primitive {prim.name!r} has no batching rule and the loop fallback "
            f"is switched off; register one in batching_rules/ (register_batch_rule), or "
            f"give its defop family=... or batch=..."
        )
    if prim.name not in FALLBACK["warned"]:
        FALLBACK["warned"].add(prim.name)
        warnings.warn(
            f"vmap: performance drop: {prim.name!r} has no batching rule, so it runs as a "
            f"Python loop over the batch.  Register a rule in batching_rules/ "
            f"(register_batch_rule), or give its defop family=... or batch=..., to fix this.",
            RuntimeWarning,
            stacklevel=4,
        )
    return loop_and_stack
