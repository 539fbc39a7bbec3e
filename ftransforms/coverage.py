"""Operator coverage: ``python -m ftransforms.coverage``.

Prints, per op family, how many primitives are registered, how many have each rule
(implementation, forward and reverse derivative or a declared absence of one, batching
rule), how many the op database covers and how many of its samples are expected
failures; then how many NumPy functions that dispatch through ``__array_function__`` have
a rule, and which do not.  The op database lives in the test suite (``tests/op_db.py``),
so run this from a source checkout to see that column.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections import defaultdict

import numpy

import ftransforms.nn  # noqa: F401  (every family registered)
import ftransforms.ops
import ftransforms.scipy.special  # noqa: F401
from ftransforms.core.mutation import PATCHED_WHILE_ACTIVE
from ftransforms.core.primitive import REGISTRY, Primitive
from ftransforms.numpy import protocol


def _families() -> dict[str, str]:
    """primitive name -> family (the module that declares it)."""
    family = {}
    modules = [f"ftransforms.ops.{m.name}" for m in pkgutil.iter_modules(ftransforms.ops.__path__)]
    for name in modules + ["ftransforms.random"]:
        module = importlib.import_module(name)
        label = name.rsplit(".", 1)[-1]
        for value in vars(module).values():
            if isinstance(value, Primitive):
                family.setdefault(value.name, label)
    return family


def _op_database() -> tuple[set[str], dict[str, int]] | None:
    try:
        from tests import op_db  # noqa: PLC0415  late import: only in a source checkout
    except ImportError:
        return None
    covered: set[str] = set()
    xfails: dict[str, int] = defaultdict(int)
    for op in op_db.OPS:
        covered.update(op.prims)
        n = len(op.xfail) + sum(len(s.xfail) for s in op.samples(numpy.float64, 0))
        for prim in op.prims:
            xfails[prim] += n
    return covered, xfails


def _has_derivative(p: Primitive) -> bool:
    return (
        p.nondiff
        or p.transpose is not None
        or (p.jvp_rules is not None and p.vjp_rules is not None)
    )


def numpy_dispatch_coverage() -> tuple[list[str], list[str]]:
    """(handled, unhandled) NumPy functions that dispatch on ``__array_function__``."""
    handled, missing = [], []
    # (NumPy's functions that a transform answers by a patch of NumPy's namespace while it
    # runs, array2string & co., count as handled: core/mutation.py's PATCHED_WHILE_ACTIVE)
    patched = {id(fn) for _, _, originals in PATCHED_WHILE_ACTIVE for fn in originals.values()}
    for module, prefix in (
        (numpy, "numpy"),
        (numpy.linalg, "numpy.linalg"),
        (numpy.fft, "numpy.fft"),
    ):
        for name in sorted(dir(module)):
            fn = getattr(module, name)
            if not (callable(fn) and hasattr(fn, "_implementation")):
                continue
            ours = fn in protocol.FUNCTIONS or id(fn) in patched
            (handled if ours else missing).append(f"{prefix}.{name}")
    return handled, missing


def table() -> str:
    family = _families()
    db = _op_database()
    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for name, p in REGISTRY.items():
        row = rows[family.get(name, "other")]
        row["registered"] += 1
        row["impl"] += callable(p.impl)
        row["derivative"] += _has_derivative(p)
        row["batching rule"] += p.batch is not None
        if db is not None:
            row["op db entry"] += name in db[0]
            row["xfail samples"] += db[1].get(name, 0)
    cols = ["registered", "impl", "derivative", "batching rule"]
    cols += ["op db entry", "xfail samples"] if db is not None else []
    lines = [f"{'family':<14}" + "".join(f"{c:>15}" for c in cols)]
    total: dict[str, int] = defaultdict(int)
    for fam in sorted(rows):
        lines.append(f"{fam:<14}" + "".join(f"{rows[fam][c]:>15}" for c in cols))
        for c in cols:
            total[c] += rows[fam][c]
    lines.append(f"{'total':<14}" + "".join(f"{total[c]:>15}" for c in cols))
    if db is None:
        lines.append("(op database column: run from a source checkout, where tests/ is importable)")
    handled, missing = numpy_dispatch_coverage()
    lines.append("")
    lines.append(
        f"NumPy functions dispatching through __array_function__: {len(handled) + len(missing)}; "
        f"with a rule: {len(handled)}; raising 'no rule': {len(missing)}"
    )
    lines.append("without a rule: " + ", ".join(m.replace("numpy.", "np.") for m in missing))
    return "\n".join(lines)


def main() -> int:

    sys.path.insert(0, ".")
    print(table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
