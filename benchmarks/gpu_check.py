"""Step 4 of ``benchmarks/gpu_check.sh``: no transform copies to the host behind the user's
back, and the summary JSON of the whole GPU check.

    python -m benchmarks.gpu_check transfers --backend cupy|strict --json OUT.json
    python -m benchmarks.gpu_check summary --dir OUTDIR

``transfers`` runs every transform (grad, vjp, jvp, vmap, vmap(grad), jacrev, jacfwd,
hessian, linearize, jit, scan, checkpoint) on device arrays and counts device-to-host
transfers two ways:

* the Python-visible ways out of the device, patched for the run: ``ndarray.get``,
  ``cupy.asnumpy``, and the conversions to Python numbers (``float()``, ``int()``,
  ``bool()``, ``.item()``, ``.tolist()``), each of which copies to the host;
* on real CUDA, when torch is importable, also CUPTI's record of every ``Memcpy DtoH``
  in the process (``torch.profiler``: it sees CuPy's copies too, whatever issued them).

Straight-line transforms must make none.  ``while_loop`` and ``cond`` decide on the host
and read their predicate, one copy per decision: they are reported with that expectation.
With ``--backend strict`` (the CPU stand-in, ``ftransforms.strict_backend``) the same
program runs as a dry run of the script: ``StrictArray.get`` and its conversions are the
ways out.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

#: The methods through which an array leaves the device (each one copies to the host).
_WAYS_OUT = (
    "get",
    "__float__",
    "__int__",
    "__bool__",
    "__complex__",
    "__index__",
    "item",
    "tolist",
)


def _backend(name: str) -> tuple[Any, type, Callable[[np.ndarray], Any], Callable[[], None]]:
    """(module holding ``asnumpy``/None, the array class, host->device, synchronise)."""
    if name == "cupy":
        import cupy

        return cupy, cupy.ndarray, cupy.asarray, lambda: cupy.cuda.Device().synchronize()
    from ftransforms import strict_backend

    return None, strict_backend.StrictArray, strict_backend.asarray, lambda: None


@contextmanager
def counting_transfers(array_type: type, module: Any):
    """Count the calls of every way out of the device while the block runs."""
    counts: dict[str, int] = {}
    saved: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, attr: str) -> None:
        original = getattr(owner, attr, None)
        if original is None:
            return

        def counted(*args: Any, **kwargs: Any) -> Any:
            counts[attr] = counts.get(attr, 0) + 1
            return original(*args, **kwargs)

        try:
            setattr(owner, attr, counted)
        except (TypeError, AttributeError):  # an extension type that refuses: not counted
            counts.setdefault(f"uncounted:{attr}", 0)
            return
        saved.append((owner, attr, original))

    for attr in _WAYS_OUT:
        if attr in vars(array_type) or any(attr in vars(b) for b in array_type.__mro__[1:-1]):
            patch(array_type, attr)
    if module is not None:
        patch(module, "asnumpy")
    try:
        yield counts
    finally:
        for owner, attr, original in reversed(saved):
            setattr(owner, attr, original)


@contextmanager
def cupti_memcpy_counter(enabled: bool):
    """CUPTI's count of ``Memcpy DtoH`` in this process (torch.profiler), or None."""
    result: dict[str, Any] = {"dtoh": None}
    if not enabled:
        yield result
        return
    try:
        from torch.profiler import ProfilerActivity, profile
    except ImportError:
        yield result
        return
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        yield result
    names = [e.name for e in prof.events()]
    result["dtoh"] = sum(1 for n in names if "DtoH" in n or "Device -> Pageable" in n)
    result["htod"] = sum(1 for n in names if "HtoD" in n)


def programs(xp_asarray: Callable[[np.ndarray], Any]) -> list[tuple[str, Callable[[], Any], int]]:
    """(name, thunk, expected host copies) for every transform on device inputs; the first
    row copies on purpose, so that a counter that sees nothing fails the check."""
    import ftransforms as ft
    import ftransforms.numpy as fnp

    rng = np.random.default_rng(0)
    w = xp_asarray(rng.standard_normal((16, 8)).astype(np.float32))
    x = xp_asarray(rng.standard_normal((32, 8)).astype(np.float32))
    y = xp_asarray(rng.standard_normal(32).astype(np.float32))
    v = xp_asarray(rng.standard_normal(8).astype(np.float32))

    def loss(w, x, y):
        h = fnp.tanh(w @ x)
        return (fnp.sum(h) - y) ** 2

    def total(w):
        return fnp.sum(ft.vmap(loss, in_dims=(None, 0, 0))(w, x, y))

    def f(u):
        return fnp.sin(u) * fnp.exp(-(u**2))

    jitted = ft.jit(ft.vmap(ft.grad(loss), in_dims=(None, 0, 0)))

    def scan_loss(u):
        def step(c, xt):
            c = fnp.tanh(c * 0.9 + xt)
            return c, fnp.sum(c)

        c, ys = ft.scan(step, u, x)
        return fnp.sum(ys) + fnp.sum(c)

    zero = xp_asarray(np.asarray(0, dtype=np.int32))

    def while_loss(u):
        return ft.while_loop(lambda c: c[1] < 5, lambda c: (c[0] * 1.1, c[1] + 1), (u, zero))[0]

    def cond_fn(u):
        return ft.cond(fnp.sum(u) > 0, fnp.sin, fnp.cos, u)

    return [
        ("self-check: one explicit .get()", lambda: w.get(), 1),
        ("grad", lambda: ft.grad(total)(w), 0),
        ("vjp", lambda: ft.vjp(f, v)[1](v), 0),
        ("jvp", lambda: ft.jvp(f, (v,), (v,)), 0),
        ("vmap(grad) per-sample", lambda: ft.vmap(ft.grad(loss), in_dims=(None, 0, 0))(w, x, y), 0),
        ("jacrev", lambda: ft.jacrev(f)(v), 0),
        ("jacfwd", lambda: ft.jacfwd(f)(v), 0),
        ("hessian", lambda: ft.hessian(lambda u: fnp.sum(f(u) ** 2))(v), 0),
        ("linearize", lambda: ft.linearize(f, v)[1](v), 0),
        ("jit(vmap(grad)) first call", lambda: jitted(w, x, y), 0),
        ("jit(vmap(grad)) replay", lambda: jitted(w, x, y), 0),
        ("grad(scan)", lambda: ft.grad(scan_loss)(v), 0),
        ("grad(checkpoint)", lambda: ft.grad(ft.checkpoint(lambda u: fnp.sum(f(u))))(v), 0),
        # Host decisions: one predicate read per iteration / branch, by design.
        ("while_loop (5 iterations + exit)", lambda: while_loss(v), 6),
        ("cond (one predicate)", lambda: cond_fn(v), 1),
    ]


def run_transfers(backend: str, out: Path) -> int:
    module, array_type, to_device, sync = _backend(backend)
    rows = []
    failures = 0
    for name, thunk, expected in programs(to_device):
        sync()
        with cupti_memcpy_counter(backend == "cupy") as cupti:
            with counting_transfers(array_type, module) as counts:
                t0 = time.perf_counter()
                try:
                    thunk()
                    error = None
                except Exception as err:  # noqa: BLE001 - reported, the check goes on
                    error = f"{type(err).__name__}: {err}"
                sync()
                seconds = time.perf_counter() - t0
        python_level = sum(n for k, n in counts.items() if not k.startswith("uncounted"))
        exact = name.startswith("self-check")  # the counters must see the planted copy
        ok = error is None and (python_level == expected if exact else python_level <= expected)
        if cupti.get("dtoh") is not None:
            ok = ok and (cupti["dtoh"] >= 1 if exact else cupti["dtoh"] <= expected)
        failures += not ok
        rows.append(
            {
                "program": name,
                "expected_max": expected,
                "python_level_copies": python_level,
                "by_way": counts,
                "cupti_dtoh": cupti.get("dtoh"),
                "cupti_htod": cupti.get("htod"),
                "seconds": seconds,
                "error": error,
                "ok": ok,
            }
        )
        mark = "ok " if ok else "BAD"
        print(
            f"[transfers] {mark} {name:<34} copies={python_level} cupti={cupti.get('dtoh')} "
            f"expected<={expected}" + (f"  {error}" if error else ""),
            flush=True,
        )
    out.write_text(json.dumps({"backend": backend, "rows": rows, "failures": failures}, indent=1))
    return 1 if failures else 0


def summarise(directory: Path) -> int:
    """Gather the steps' results (written by gpu_check.sh) into ``summary.json``."""
    summary: dict[str, Any] = {"steps": {}}
    status = directory / "steps.tsv"
    if status.exists():
        for line in status.read_text().splitlines():
            name, rc, seconds = line.split("\t")
            summary["steps"][name] = {"rc": int(rc), "seconds": float(seconds)}
    for name in ("device", "transfers", "bench_gpu", "bench_cpu"):
        path = directory / f"{name}.json"
        if path.exists():
            try:
                summary[name] = json.loads(path.read_text())
            except json.JSONDecodeError as err:
                summary[name] = {"unreadable": str(err)}
    (directory / "summary.json").write_text(json.dumps(summary, indent=1))
    bad = [k for k, s in summary["steps"].items() if s["rc"] != 0]
    print(f"[gpu_check] steps: {len(summary['steps'])}, failed: {', '.join(bad) or 'none'}")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.gpu_check")
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("transfers", help="count device-to-host copies under every transform")
    t.add_argument("--backend", choices=["cupy", "strict"], default="cupy")
    t.add_argument("--json", required=True)
    s = sub.add_parser("summary", help="write OUTDIR/summary.json from the steps' files")
    s.add_argument("--dir", required=True)
    args = p.parse_args(argv)
    if args.cmd == "transfers":
        return run_transfers(args.backend, Path(args.json))
    return summarise(Path(args.dir))


if __name__ == "__main__":
    sys.exit(main())
