"""Step 4 of ``benchmarks/gpu_check.sh``: no transform copies to the host behind the user's
back, and the summary JSON of the whole GPU check.

    python -m benchmarks.gpu_check transfers --backend cupy|strict --json OUT.json
    python -m benchmarks.gpu_check compiled --backend cupy|strict --json OUT.json
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

``compiled`` times ``ft.jit``'s two tiers on device arrays side by side with ``jax.jit``
on the same device (W1 per-sample gradients, W5's 50-op chain and its gradient): the
replay (CuPy calls), the compiled tier (one CuPy kernel per fusion group, NOTE [CuPy
kernels] in ``ftransforms/compiled/cupy_driver.py``; compiled by ``jit(f).compile()``,
its cost reported apart) and ``jax.jit``; medians of synchronized calls, the ratios
printed, the compiled results checked against the replay's.  On the stand-in (the dry
run) jax.jit runs on the CPU and the times mean nothing but that the row runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
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


def _median_seconds(fn: Callable[[], Any], sync: Callable[[], None], reps: int) -> float:
    fn()
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _max_rel_diff(a: list, b: list, to_host: Callable[[Any], np.ndarray]) -> float:
    worst = 0.0
    for x, y in zip(a, b):
        x, y = to_host(x), to_host(y)
        scale = max(float(np.max(np.abs(y), initial=0.0)), 1e-30)
        worst = max(worst, float(np.max(np.abs(x - y), initial=0.0)) / scale)
    return worst


def compiled_rows(backend: str, w1_sizes: list[int], reps: int, with_jax: bool = True) -> list:
    """One row per case: ``ft.jit`` replay, compiled tier and ``jax.jit`` on the device."""
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # leave CuPy the card
    import ftransforms as ft
    import ftransforms.numpy as fnp
    from benchmarks import cases
    from benchmarks.peers.ftransforms_peer import P3, mlp_loss
    from benchmarks.reference import w5_chain

    module, _, to_device, sync = _backend(backend)
    to_host = (lambda v: module.asnumpy(v)) if module is not None else (lambda v: v.get())
    made = cases.make_cases(["W1"], sizes_override={"W1": w1_sizes})
    made += [c for c in cases.make_cases(["W5"]) if c.mode in ("none", "grad")]
    jax_peer = None
    if with_jax:
        try:
            from benchmarks.peers import Unavailable
            from benchmarks.peers.jax_peer import JaxJitPeer

            jax_peer = JaxJitPeer()
            jax_peer.setup("cuda" if backend == "cupy" else "cpu", 1)
        except (ImportError, Unavailable) as err:
            print(f"[compiled] jax.jit unavailable: {err}", flush=True)
            jax_peer = None
    rows = []
    for case in made:
        inputs = cases.make_inputs(case)
        dev = {k: to_device(v) for k, v in inputs.items()}
        if case.workload == "W1":
            fn = ft.vmap(ft.grad(mlp_loss), in_dims=(None, 0, 0))
            args = (tuple(dev[k] for k in P3), dev["x"], dev["y"])
        elif case.mode == "none":
            fn, args = (lambda v: w5_chain(fnp, v)), (dev["x"],)
        else:
            fn, args = ft.grad(lambda v: fnp.sum(w5_chain(fnp, v))), (dev["x"],)
        row: dict[str, Any] = {"case": case.id, "label": case.label, "scale": case.scale}
        try:
            replay = ft.jit(fn, compile=False)
            t0 = time.perf_counter()
            want = replay(*args)
            sync()
            row["first_call_s"] = time.perf_counter() - t0
            row["replay_s"] = _median_seconds(lambda: replay(*args), sync, reps)
            compiled = ft.jit(fn, compile=False)
            compiled(*args)
            t0 = time.perf_counter()
            compiled.compile()
            row["compile_s"] = time.perf_counter() - t0
            (program,) = compiled.cache.values()
            row["tier"] = program.tier
            row["kernels"] = getattr(program._fn, "n_kernels", 0)
            row["compiled_s"] = _median_seconds(lambda: compiled(*args), sync, reps)
            got = compiled(*args)
            leaves = lambda t: list(t) if isinstance(t, (list, tuple)) else [t]  # noqa: E731
            row["max_rel_diff_vs_replay"] = _max_rel_diff(leaves(got), leaves(want), to_host)
            row["error"] = None
        except Exception as err:  # noqa: BLE001 - reported, the other rows go on
            row["error"] = f"{type(err).__name__}: {err}"
        if jax_peer is not None:
            try:
                run = jax_peer.build(case, jax_peer.convert(inputs))
                jsync = lambda: jax_peer.sync(out)  # noqa: E731
                t0 = time.perf_counter()
                out = run()
                jsync()
                row["jax_first_call_s"] = time.perf_counter() - t0
                row["jax_jit_s"] = _median_seconds(lambda: jax_peer.sync(run()), lambda: None, reps)
            except Exception as err:  # noqa: BLE001
                row["jax_error"] = f"{type(err).__name__}: {err}"
        rep, comp, jx = row.get("replay_s"), row.get("compiled_s"), row.get("jax_jit_s")
        row["compiled_over_replay"] = comp / rep if comp and rep else None
        row["compiled_over_jax"] = comp / jx if comp and jx else None
        row["replay_over_jax"] = rep / jx if rep and jx else None
        rows.append(row)
        per = 1e3 if case.unit == "ms" else 1e6 / case.scale  # the table's unit
        us = lambda v: f"{v * per:9.3f}" if v else "        -"  # noqa: E731
        ratio = lambda v: f"{v:5.2f}x" if v else "    -"  # noqa: E731
        print(
            f"[compiled] {case.label:<26} replay {us(rep)} compiled {us(comp)} jax.jit {us(jx)} "
            f"{case.unit}  compiled/replay {ratio(row['compiled_over_replay'])} "
            f"compiled/jax {ratio(row['compiled_over_jax'])}  compile "
            f"{row.get('compile_s', 0):.2f}s kernels {row.get('kernels', 0)} "
            f"[{row.get('tier', '')}]" + (f"  {row['error']}" if row.get("error") else ""),
            flush=True,
        )
    return rows


def run_compiled(backend: str, out: Path, w1_sizes: list[int], reps: int) -> int:
    rows = compiled_rows(backend, w1_sizes, reps)
    bad = [r["case"] for r in rows if r.get("error") or r.get("tier") != "compiled"]
    bad += [r["case"] for r in rows if (r.get("max_rel_diff_vs_replay") or 0.0) > 1e-4]
    out.write_text(json.dumps({"backend": backend, "rows": rows, "failures": bad}, indent=1))
    print(f"[compiled] rows: {len(rows)}, not compiled or wrong: {', '.join(bad) or 'none'}")
    return 1 if bad else 0


def _w1_and_w5_grad(backend: str, batch: int):
    """(label, function, device arguments) of W1 at ``batch`` and W5's gradient."""
    import ftransforms as ft
    import ftransforms.numpy as fnp
    from benchmarks import cases
    from benchmarks.peers.ftransforms_peer import P3, mlp_loss
    from benchmarks.reference import w5_chain

    _, _, to_device, _ = _backend(backend)
    out = []
    made = cases.make_cases(["W1"], sizes_override={"W1": [batch]})
    made += [c for c in cases.make_cases(["W5"]) if c.mode == "grad"]
    for case in made:
        dev = {k: to_device(v) for k, v in cases.make_inputs(case).items()}
        if case.workload == "W1":
            fn = ft.vmap(ft.grad(mlp_loss), in_dims=(None, 0, 0))
            out.append((case.label, fn, (tuple(dev[k] for k in P3), dev["x"], dev["y"])))
        else:
            fn = ft.grad(lambda v: fnp.sum(w5_chain(fnp, v)))
            out.append((case.label, fn, (dev["x"],)))
    return out


def run_profile(backend: str, batch: int, calls: int) -> int:
    """Where a call's time goes on the device: cProfile of ``calls`` calls of the replay
    and of the compiled tier (top functions by own time), then the same program captured
    once in a CUDA graph and launched (the dispatch floor that a graph tier would reach)."""
    import cProfile
    import io
    import pstats

    import ftransforms as ft

    module, _, to_device, sync = _backend(backend)
    # the first call of jit(hessian) (W3 D=64): 3.9 s on an H100 against 0.73 s eagerly
    # in another process (2026-11-27); where does it go?
    rng = np.random.default_rng(0)
    a = to_device(rng.normal(size=(64, 64)).astype(np.float32))
    v = to_device(rng.normal(size=64).astype(np.float32))
    h = ft.hessian(lambda v, a: np.sum(np.tanh(a @ v) ** 2) + np.sum(v**2) ** 2)
    for label, fn in (("eager hessian", h), ("jit(hessian)", ft.jit(h))):
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        fn(v, a)
        sync()
        prof.disable()
        text = io.StringIO()
        stats = pstats.Stats(prof, stream=text)
        stats.sort_stats("cumulative").print_stats(30)
        stats.sort_stats("tottime").print_stats(16)
        print(f"[first] W3 D=64 {label}: {(time.perf_counter() - t0) * 1e3:.1f} ms (profiled)")
        print("\n".join(text.getvalue().splitlines()[6:]), flush=True)
    if module is not None:  # the backend's own tie rule, which the compiled kernels follow
        a, b = module.asarray([-0.0, 0.0, 1.0]), module.asarray([0.0, -0.0, 1.0])
        for name in ("maximum", "minimum"):
            for x, y, order in ((a, b, "(a, b)"), (b, a, "(b, a)")):
                got = module.asnumpy(getattr(module, name)(x, y))
                print(f"[ties] {module.__name__}.{name}{order} of [-0.0, 0.0] pairs: {got}")
    for label, fn, args in _w1_and_w5_grad(backend, batch):
        for tier in ("replay", "compiled"):
            jf = ft.jit(fn, compile=False)
            want = jf(*args)
            if tier == "compiled":
                jf.compile()
            jf(*args)
            sync()
            prof = cProfile.Profile()
            t0 = time.perf_counter()
            prof.enable()
            for _ in range(calls):
                jf(*args)
            sync()
            prof.disable()
            per_call = (time.perf_counter() - t0) / calls
            text = io.StringIO()
            pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(18)
            print(f"[profile] {label} {tier}: {per_call * 1e6:.1f} us per call (profiled)")
            print("\n".join(text.getvalue().splitlines()[6:]), flush=True)
        if module is None:
            continue
        try:  # the replay captured in a CUDA graph
            jf = ft.jit(fn, compile=False)
            want = jf(*args)
            stream = module.cuda.Stream(non_blocking=True)
            with stream:
                jf(*args)
                stream.synchronize()
                stream.begin_capture()
                try:
                    got = jf(*args)
                finally:  # a refused call (CuPy 14: cuBLAS) must not leave it capturing
                    graph = stream.end_capture()
                graph.launch(stream)
                stream.synchronize()
                diff = _max_rel_diff(
                    list(got) if isinstance(got, (list, tuple)) else [got],
                    list(want) if isinstance(want, (list, tuple)) else [want],
                    module.asnumpy,
                )
                t_graph = _median_seconds(lambda: graph.launch(stream), stream.synchronize, 50)
            t_replay = _median_seconds(lambda: jf(*args), sync, 50)
            print(
                f"[graph] {label}: replay {t_replay * 1e6:.1f} us, CUDA graph launch "
                f"{t_graph * 1e6:.1f} us ({t_graph / t_replay:.2f}x), max rel diff {diff:.1e}",
                flush=True,
            )
        except Exception as err:  # noqa: BLE001 - the probe reports what capture refused
            print(f"[graph] {label}: capture failed: {type(err).__name__}: {err}", flush=True)
    return 0


def run_host_costs(backend: str, calls: int) -> int:
    """The host's cost of each kind of call a CuPy program makes (microseconds per call:
    ``calls`` calls enqueued back to back, then one synchronize; the device work of each
    is a few microseconds, so this is the dispatch cost that bounds a small-batch
    program), and the same chain of kernels launched as one CUDA graph: what a tier
    built on RawKernels or graphs could gain over ElementwiseKernels."""
    if backend != "cupy":
        print("[host] the host costs are CuPy's: nothing to measure on the stand-in")
        return 0
    import cupy

    sync = cupy.cuda.Device().synchronize
    rng = np.random.default_rng(0)
    a = cupy.asarray(rng.normal(size=(32, 256)).astype(np.float32))
    w = cupy.asarray(rng.normal(size=(256, 256)).astype(np.float32))
    ab = cupy.asarray(rng.normal(size=(32, 256, 1)).astype(np.float32))
    bb = cupy.asarray(rng.normal(size=(32, 1, 256)).astype(np.float32))
    outs = [cupy.empty_like(a) for _ in range(4)]
    ew2 = cupy.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * y + 1.0f", "ft_h2")
    ew8 = cupy.ElementwiseKernel(
        ", ".join(f"float32 x{i}" for i in range(8)),
        ", ".join(f"float32 z{i}" for i in range(4)),
        "\n".join(f"z{i} = x{2 * i} * x{2 * i + 1};" for i in range(4)),
        "ft_h8",
    )
    raw = cupy.RawKernel(
        r"""extern "C" __global__ void ft_raw(const float* x, const float* y, float* z, int n) {
            int i = blockDim.x * blockIdx.x + threadIdx.x;
            if (i < n) z[i] = x[i] * y[i] + 1.0f;
        }""",
        "ft_raw",
    )
    n = a.size
    grid, block = ((n + 255) // 256,), (256,)
    ints = np.int32(n)
    cases = {
        "ufunc multiply (32, 256)": lambda: cupy.multiply(a, a),
        "ufunc multiply, out=": lambda: cupy.multiply(a, a, out=outs[0]),
        "ElementwiseKernel 2 in, 1 out": lambda: ew2(a, a, outs[0]),
        "ElementwiseKernel 8 in, 4 out": lambda: ew8(*([a] * 8), *outs),
        "RawKernel 2 in, 1 out": lambda: raw(grid, block, (a, a, outs[0], ints)),
        "empty (32, 256)": lambda: cupy.empty((32, 256), np.float32),
        "matmul (32, 256) @ (256, 256)": lambda: cupy.matmul(a, w),
        "a @ w.T": lambda: a @ w.T,
        "dot (32, 256) . (256, 256)": lambda: cupy.dot(a, w),
        "outer product (32,256,1) * (32,1,256)": lambda: ab * bb,
        "sum(axis=0) of (32, 256)": lambda: a.sum(axis=0),
        "reshape + transpose (views)": lambda: a.reshape(32, 16, 16).transpose(0, 2, 1),
    }
    rows = {}
    for label, fn in cases.items():
        for _ in range(20):
            fn()
        sync()
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            sync()
            best = min(best, (time.perf_counter() - t0) / calls)
        rows[label] = best * 1e6
        print(f"[host] {label:40s} {best * 1e6:8.2f} us per call", flush=True)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        ew2(a, a, outs[0])
        stream.synchronize()
        stream.begin_capture()
        for _ in range(8):
            ew2(a, outs[0], outs[1])
            ew2(outs[1], a, outs[0])
        graph = stream.end_capture()
        graph.launch(stream)
        stream.synchronize()
        t_graph = _median_seconds(lambda: graph.launch(stream), stream.synchronize, 200)
        t_eager = _median_seconds(
            lambda: [(ew2(a, outs[0], outs[1]), ew2(outs[1], a, outs[0])) for _ in range(8)],
            stream.synchronize,
            200,
        )
    print(
        f"[host] 16 ElementwiseKernel calls: {t_eager * 1e6:.1f} us, as one CUDA graph "
        f"{t_graph * 1e6:.1f} us ({t_graph / t_eager:.2f}x)",
        flush=True,
    )
    return 0


def summarise(directory: Path) -> int:
    """Gather the steps' results (``parts/*.json``, from gpu_check.sh) into ``summary.json``."""
    summary: dict[str, Any] = {"steps": {}}
    status = directory / "steps.tsv"
    if status.exists():
        for line in status.read_text().splitlines():
            name, rc, seconds = line.split("\t")
            summary["steps"][name] = {"rc": int(rc), "seconds": float(seconds)}
    for path in sorted((directory / "parts").glob("*.json")):
        try:
            summary[path.stem] = json.loads(path.read_text())
        except json.JSONDecodeError as err:
            summary[path.stem] = {"unreadable": str(err)}
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
    c = sub.add_parser("compiled", help="ft.jit replay vs compiled tier vs jax.jit (W1, W5)")
    c.add_argument("--backend", choices=["cupy", "strict"], default="cupy")
    c.add_argument("--json", required=True)
    c.add_argument("--w1-sizes", default="32,256,4096", help="W1 batch sizes, comma-separated")
    c.add_argument("--reps", type=int, default=20)
    f = sub.add_parser("profile", help="where a call's time goes: cProfile, CUDA graph probe")
    f.add_argument("--backend", choices=["cupy", "strict"], default="cupy")
    f.add_argument("--batch", type=int, default=32)
    f.add_argument("--calls", type=int, default=200)
    h = sub.add_parser("host", help="the host's cost of each kind of CuPy call")
    h.add_argument("--backend", choices=["cupy", "strict"], default="cupy")
    h.add_argument("--calls", type=int, default=200)
    s = sub.add_parser("summary", help="write OUTDIR/summary.json from the steps' files")
    s.add_argument("--dir", required=True)
    args = p.parse_args(argv)
    if args.cmd == "transfers":
        return run_transfers(args.backend, Path(args.json))
    if args.cmd == "compiled":
        sizes = [int(v) for v in args.w1_sizes.split(",") if v.strip()]
        return run_compiled(args.backend, Path(args.json), sizes, args.reps)
    if args.cmd == "profile":
        return run_profile(args.backend, args.batch, args.calls)
    if args.cmd == "host":
        return run_host_costs(args.backend, args.calls)
    return summarise(Path(args.dir))


if __name__ == "__main__":
    sys.exit(main())
