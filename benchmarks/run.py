"""Side-by-side benchmarks of ftransforms against torch.func, JAX (eager and jit), HIPS
autograd, hand-written NumPy and the naive loop.  See benchmarks/README.md.

    python -m benchmarks [--workloads W1,W3] [--peers numpy,ftransforms] [--quick]
                         [--reps N] [--passes N] [--json out.json] [--device cpu|cuda]
                         [--threads N]

This process generates the float32 inputs and the float64 hand-written references once,
then runs each (peer, workload) pair in its own subprocess (``benchmarks.worker``) and
prints one table.  It imports neither torch, nor JAX, nor autograd.

NOTE [interleaved passes]: on a shared machine the load drifts over minutes, so one
pass per peer would compare peers measured at different times.  Every (workload, peer)
pair runs ``--passes`` times (2 by default), interleaved (A B A B: pass 1 of every peer,
then pass 2 of every peer); a row reports the median of its pass medians and the spread
between passes ((max - min) / median), and the ratios come from those medians.  Thread
settings are left at their defaults unless ``--threads`` is given.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import cases as cases_mod
from benchmarks import peers as peers_mod
from benchmarks import reference

ROOT = Path(__file__).resolve().parent.parent  # the directory that holds benchmarks/


# -- setup -----------------------------------------------------------------------------------


def numpy_threads() -> int:
    """The thread count of NumPy's BLAS (threadpoolctl, shipped with scikit-learn), else
    the CPU count."""
    try:
        from threadpoolctl import threadpool_info

        for info in threadpool_info():
            if info.get("user_api") == "blas":
                return int(info["num_threads"])
    except Exception:  # noqa: BLE001 - threadpoolctl missing or confused: fall back
        pass
    return os.cpu_count() or 1


def gpu_present() -> tuple[bool, str]:
    """Whether this machine has an NVIDIA GPU, without importing any GPU library."""
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
            gpus = [ln for ln in out.stdout.splitlines() if ln.startswith("GPU")]
            if gpus:
                return True, gpus[0]
        except (OSError, subprocess.SubprocessError):
            pass
    if Path("/dev/nvidia0").exists():
        return True, "/dev/nvidia0"
    return False, "no nvidia-smi and no /dev/nvidia0"


def prepare(run_dir: Path, cases: list, seed: int) -> float:
    """Write cases.json, the float32 inputs and the float64 references; returns the seconds
    the references took."""
    (run_dir / "inputs").mkdir()
    (run_dir / "ref").mkdir()
    (run_dir / "cases.json").write_text(json.dumps([c.to_json() for c in cases]))
    spent = 0.0
    for case in cases:
        inputs = cases_mod.make_inputs(case, seed)
        np.savez(run_dir / "inputs" / f"{case.id}.npz", **inputs)
        t0 = time.perf_counter()
        ref = reference.compute(case, cases_mod.as_float64(inputs))
        spent += time.perf_counter() - t0
        for k, leaf in enumerate(ref):
            np.save(run_dir / "ref" / f"{case.id}_{k}.npy", leaf)
        del ref
    return spent


def worker_env(args: argparse.Namespace) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + env.get("PYTHONPATH", "").split(os.pathsep))
    env["PYTHONPATH"] = env["PYTHONPATH"].rstrip(os.pathsep)
    if args.threads_given:
        n = str(args.threads)
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = n
        if args.threads == 1:
            env["XLA_FLAGS"] = (
                env.get("XLA_FLAGS", "")
                + " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
            ).strip()
    if args.device == "cpu":
        env.setdefault("JAX_PLATFORMS", "cpu")
        env.setdefault("CUDA_VISIBLE_DEVICES", "")
    return env


def run_worker(args, peer: str, workload: str, run_dir: Path, env: dict) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.worker", "--peer", peer, "--workload", workload]
    cmd += ["--dir", str(run_dir), "--reps", str(args.reps), "--device", args.device]
    cmd += ["--threads", str(args.threads)]
    base = {"peer": peer, "workload": workload, "rows": []}
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=args.timeout
        )
    except subprocess.TimeoutExpired:
        return {**base, "error": f"timed out after {args.timeout} s (--timeout)"}
    if args.verbose and proc.stderr.strip():
        print(proc.stderr, file=sys.stderr)
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    try:
        return json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
        return {**base, "error": f"worker exited with {proc.returncode}: {tail[:300]}"}


# -- the table -------------------------------------------------------------------------------


def combine_passes(passes: list[list[dict]]) -> list[dict]:
    """One result per (peer, workload): its rows carry the median of the passes' medians,
    every pass median (``pass_medians_s``) and the spread between passes."""
    combined = []
    for results in zip(*passes):
        first = dict(results[0])
        by_case: dict[str, list[dict]] = {}
        for res in results:
            for row in res.get("rows", []):
                by_case.setdefault(row["case"], []).append(row)
        rows = []
        for row in first.get("rows", []):
            row = dict(row)
            timed = [r["median_s"] for r in by_case.get(row["case"], []) if "median_s" in r]
            if "median_s" in row and timed:
                if row["median_s"]:
                    row["iqr"] = (row["q3_s"] - row["q1_s"]) / row["median_s"]
                med = float(np.median(timed))
                row["median_s"] = med
                row["pass_medians_s"] = timed
                row["spread"] = (max(timed) - min(timed)) / med if med else None
                row["compile_pass_s"] = [r.get("compile_s") for r in by_case[row["case"]]]
                statuses = [r.get("status") for r in by_case[row["case"]]]
                bad = [s for s in statuses if s in ("FAIL", "ERROR")]
                if bad:
                    row["status"] = bad[0]
            rows.append(row)
        first["rows"] = rows
        errors = [res.get("error") for res in results if res.get("error")]
        if errors:
            first["error"] = errors[0]
        combined.append(first)
    return combined


def fmt_time(seconds: float | None, unit: str = "ms") -> str:
    if seconds is None:
        return "-"
    if unit == "us/op":
        return f"{seconds * 1e6:.2f} us/op"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1.0:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def fmt_ratio(r: float | None) -> str:
    if r is None:
        return "-"
    return f"{r:.2f}x" if r < 100 else f"{r:.0f}x"


def build_rows(cases: list, results: list[dict]) -> list[dict]:
    """Flat rows in table order, each with the case's display fields and the ratios."""
    by_key = {(r["case"], r["peer"]): r for res in results for r in res.get("rows", [])}
    order = list(peers_mod.PEERS)
    rows = []
    for case in cases:
        base = by_key.get((case.id, "numpy"), {}).get("median_s")
        torch_t = by_key.get((case.id, "torch.func"), {}).get("median_s")
        jit_t = by_key.get((case.id, "jax.jit"), {}).get("median_s")
        if by_key.get((case.id, "numpy"), {}).get("status") != "ok":
            base = None
        if by_key.get((case.id, "torch.func"), {}).get("status") != "ok":
            torch_t = None
        if by_key.get((case.id, "jax.jit"), {}).get("status") != "ok":
            jit_t = None
        for peer in order:
            r = by_key.get((case.id, peer))
            if r is None:
                continue
            row = {
                "workload": case.workload,
                "label": case.label,
                "unit": case.unit,
                "scale": case.scale,
                "tol": case.tol,
                **r,
            }
            if "median_s" in r:
                row["per_unit_s"] = r["median_s"] / case.scale
                row["vs_numpy"] = r["median_s"] / base if base else None
                row["vs_torch_func"] = r["median_s"] / torch_t if torch_t else None
                row["vs_jax_jit"] = r["median_s"] / jit_t if jit_t else None
            rows.append(row)
    return rows


def render(rows: list[dict], header: list[str], notes: list[str], legend: list[str] = ()) -> str:
    cols = [
        "case",
        "peer",
        "first call",
        "median",
        "IQR",
        "spread",
        "x numpy",
        "x torch.func",
        "x jax.jit",
        "max rel err",
        "status",
    ]
    table = []
    for r in rows:
        if r["status"] == "n/a":
            continue
        timed = "median_s" in r
        iqr = r.get("iqr")
        table.append(
            [
                r["label"],
                r["peer"],
                fmt_time(r.get("first_s")),
                fmt_time(r.get("per_unit_s"), r["unit"]) if timed else "-",
                f"{100 * iqr:.0f}%" if iqr is not None else "-",
                f"{100 * r['spread']:.0f}%" if r.get("spread") is not None else "-",
                fmt_ratio(r.get("vs_numpy")),
                fmt_ratio(r.get("vs_torch_func")),
                fmt_ratio(r.get("vs_jax_jit")),
                f"{r['max_rel_err']:.1e}" if "max_rel_err" in r else "-",
                r["status"],
            ]
        )
    widths = [max([len(c)] + [len(t[i]) for t in table]) for i, c in enumerate(cols)]
    left = {0, 1, 10}

    def line(cells):
        return "  ".join(
            c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))
        ).rstrip()

    out = list(header) + ["", line(cols), line(["-" * w for w in widths])]
    prev_w, prev_label = None, None
    for r, t in zip([r for r in rows if r["status"] != "n/a"], table):
        if r["workload"] != prev_w:
            if prev_w is not None:
                out.append("")
            out.append(f"{r['workload']}: {cases_mod.WORKLOADS[r['workload']]}")
            prev_w = r["workload"]
        if r["label"] == prev_label:
            t = [""] + t[1:]
        prev_label = r["label"]
        out.append(line(t))
    if legend:
        out += ["", "peers:"] + [f"  {n}" for n in legend]
    if notes:
        out += ["", "notes:"] + [f"  - {n}" for n in notes]
    return "\n".join(out)


def compiled_tier_table(cases: list, rows: list[dict]) -> list[str]:
    """The compiled tier's cost per case: compile time in each pass (pass 1 cold, later
    passes from the disk cache), its steady state against the replay (``ftransforms.jit``)
    and ``jax.jit``, and the break-even call count (compile / time saved per call)."""
    by = {(r["case"], r["peer"]): r for r in rows}
    out = []
    for case in cases:
        c = by.get((case.id, "ftransforms.compiled"))
        if c is None or "median_s" not in c:
            continue
        rep = by.get((case.id, "ftransforms.jit"), {}).get("median_s")
        jax_first = by.get((case.id, "jax.jit"), {}).get("first_s")
        passes = [s for s in c.get("compile_pass_s", []) if s is not None]
        cold, disk = (passes[0], passes[1:]) if passes else (None, [])
        saved = rep - c["median_s"] if rep else None

        def calls(s):
            if s is None or not saved or saved <= 0:
                return "never" if saved is not None and saved <= 0 else "-"
            return f"{s / saved:.0f}"

        out.append(
            [
                case.label,
                fmt_time(cold),
                fmt_time(float(np.median(disk))) if disk else "-",
                fmt_ratio(c["median_s"] / rep) if rep else "-",
                fmt_ratio(c.get("vs_jax_jit")),
                calls(cold),
                calls(float(np.median(disk)) if disk else None),
                fmt_ratio(c["first_s"] / jax_first) if jax_first else "-",
                c.get("tier", ""),
            ]
        )
    if not out:
        return []
    cols = [
        "compiled tier",
        "compile cold",
        "from disk",
        "x replay",
        "x jax.jit",
        "break-even cold",
        "break-even disk",
        "first x jax.jit",
        "tier",
    ]
    widths = [max([len(h)] + [len(r[i]) for r in out]) for i, h in enumerate(cols)]
    fmt = lambda cells: "  ".join(  # noqa: E731
        c.ljust(w) if i in (0, 8) else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))
    ).rstrip()
    return [
        "",
        fmt(cols),
        fmt(["-" * w for w in widths]),
        *map(fmt, out),
        "",
        "  break-even: calls after which compiling has paid for itself against the replay "
        "(compile time / time saved per call); from disk: later passes, fresh processes",
    ]


# -- main ------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="ftransforms side by side with torch.func, JAX, autograd and NumPy.",
    )
    p.add_argument("--workloads", default="W1,W2,W3,W4,W5,W6", help="comma list (W1,...,W6)")
    p.add_argument("--peers", default=",".join(peers_mod.PEERS), help="comma list (default: all)")
    p.add_argument("--quick", action="store_true", help="small sizes, few reps (CI smoke)")
    p.add_argument("--reps", type=int, default=None, help="timed repetitions (20; quick: 5)")
    p.add_argument("--passes", type=int, default=2, help="interleaved passes per row (2; quick: 1)")
    p.add_argument("--json", metavar="PATH", help="also write every row and the setup as JSON")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--threads", type=int, default=None, help="threads for every peer")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--sizes",
        default=None,
        help="override the sizes, e.g. 'W1=32,4096;W3=256' (W1 batch, W2/W3 D, W4 tasks, W6 T)",
    )
    p.add_argument("--timeout", type=float, default=3600, help="seconds per worker (3600)")
    p.add_argument("--keep", metavar="DIR", help="keep inputs and references in DIR")
    p.add_argument("-v", "--verbose", action="store_true", help="show the workers' stderr")
    args = p.parse_args(argv)
    args.workloads = [w.strip().upper() for w in args.workloads.split(",") if w.strip()]
    for w in args.workloads:
        if w not in cases_mod.WORKLOADS:
            p.error(f"unknown workload {w!r}; choose from {', '.join(cases_mod.WORKLOADS)}")
    try:
        args.peers = [peers_mod.canonical(n) for n in args.peers.split(",") if n.strip()]
    except ValueError as e:
        p.error(str(e))
    args.peers = [n for n in peers_mod.PEERS if n in args.peers]  # table order, no repeats
    if args.reps is None:
        args.reps = 5 if args.quick else 20
    if args.reps < 1:
        p.error("--reps must be at least 1")
    if args.quick and "--passes" not in " ".join(argv or sys.argv[1:]):
        args.passes = 1
    if args.passes < 1:
        p.error("--passes must be at least 1")
    args.threads_given = args.threads is not None
    try:
        args.sizes = cases_mod.parse_sizes(args.sizes)
    except ValueError as e:
        p.error(str(e))
    if args.threads is None:
        args.threads = numpy_threads()
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    notes: list[str] = []
    if args.device == "cuda":
        present, what = gpu_present()
        if not present:
            print(
                f"NOTE: --device cuda: no CUDA GPU on this machine ({what}); nothing was run.  "
                f"Run without --device for the CPU suite, or on a machine with an NVIDIA GPU "
                f"and cupy-cuda12x / a CUDA torch / jax[cuda12] installed."
            )
            return 0
        notes.append(
            f"--device cuda ({what}): numpy = hand-written CuPy, ftransforms/loop on CuPy "
            f"arrays, torch on CUDA tensors, JAX on its GPU backend; references still float64 "
            f"NumPy on the CPU"
        )
    cases = cases_mod.make_cases(args.workloads, args.quick, args.device, args.sizes)

    tmp = None
    if args.keep:
        run_dir = Path(args.keep)
        if run_dir.exists():
            shutil.rmtree(run_dir)
        run_dir.mkdir(parents=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="ftransforms-bench-")
        run_dir = Path(tmp.name)
    try:
        print(f"[bench] {len(cases)} cases: inputs and float64 references...", file=sys.stderr)
        ref_s = prepare(run_dir, cases, args.seed)
        env = worker_env(args)
        # a fresh compiled-tier cache: pass 1 compiles cold, later passes load from disk
        env["FTRANSFORMS_CACHE_DIR"] = str(run_dir / "ftransforms-cache")
        passes, versions = [], {}
        t_all = time.perf_counter()
        for k in range(args.passes):  # NOTE [interleaved passes]
            results = []
            for w in args.workloads:
                for peer in args.peers:
                    t0 = time.perf_counter()
                    res = run_worker(args, peer, w, run_dir, env)
                    results.append(res)
                    if res.get("version"):
                        versions[peer] = res["version"]
                    state = res.get("skipped") or res.get("error") or "done"
                    print(
                        f"[bench] pass {k + 1}/{args.passes} {w} {peer:<12} {state} "
                        f"({time.perf_counter() - t0:.1f} s)",
                        file=sys.stderr,
                    )
            passes.append(results)
        results = combine_passes(passes)
        wall = time.perf_counter() - t_all
    finally:
        if tmp is not None:
            tmp.cleanup()

    skipped = {}
    for res in results:
        if res.get("skipped"):
            skipped.setdefault(res["peer"], res["skipped"])
        if res.get("error"):
            notes.append(f"{res['peer']} {res['workload']}: ERROR {res['error']}")
    for peer, why in skipped.items():
        notes.append(f"{peer}: skipped, {why}")
    rows = build_rows(cases, results)
    seen = set()
    for r in rows:
        if r["status"] == "n/a" and (r["peer"], r["note"]) not in seen:
            seen.add((r["peer"], r["note"]))
            notes.append(f"{r['peer']}: no row for some {r['workload']} cases ({r['note']})")
        if r["status"] in ("FAIL", "ERROR"):
            notes.append(f"{r['status']} {r['label']} / {r['peer']}: {r['note']}")
    compiled_lines = compiled_tier_table(cases, rows)
    if args.device == "cuda" and all(res.get("skipped") for res in results):
        notes.append("no peer could use the GPU: install cupy-cuda12x, a CUDA torch, jax[cuda12]")

    header = [
        f"ftransforms benchmarks: float32, device {args.device}, threads: {args.threads} "
        f"({'--threads' if args.threads_given else 'numpy BLAS'}; torch.set_num_threads), "
        f"median of {args.reps} reps after one untimed first call, in each of {args.passes} "
        f"interleaved passes (median: of the pass medians; spread: (max - min) / median "
        f"between passes; IQR: within the first pass)"
        f"{' (--quick)' if args.quick else ''}",
        f"machine: {platform.machine()} {platform.processor() or ''} {os.cpu_count()} cpus, "
        f"{platform.system()} {platform.release()}, Python {platform.python_version()}",
        "peers: "
        + "; ".join(
            [f"{p} = {versions.get(p, 'n/a')}" for p in args.peers if p not in skipped]
            + [f"{p} skipped" for p in skipped]
        ),
        "x numpy / x torch.func / x jax.jit = this row's median time / that peer's "
        "(above 1: slower); "
        "max rel err = max|got - ref| / max|ref| vs the float64 hand-written reference, "
        f"FAIL above {cases_mod.DEFAULT_TOL:.0e}",
    ]
    shown = [p for p in args.peers if p not in skipped]
    width = max((len(p) for p in shown), default=0)
    legend = [f"{p:<{width}}  {peers_mod.DESCRIPTIONS[p]}" for p in shown]
    print(render(rows, header, notes, legend))
    if compiled_lines:
        print("\n".join(compiled_lines))
    print(
        f"\n(references {ref_s:.1f} s; workers {wall:.1f} s)",
        file=sys.stderr,
    )
    if args.json:
        meta = {
            "device": args.device,
            "threads": args.threads,
            "reps": args.reps,
            "passes": args.passes,
            "quick": args.quick,
            "seed": args.seed,
            "python": platform.python_version(),
            "numpy": np.__version__,
            "machine": platform.platform(),
            "cpus": os.cpu_count(),
            "versions": versions,
            "skipped": skipped,
            "workloads": {w: cases_mod.WORKLOADS[w] for w in args.workloads},
            "tolerance": cases_mod.DEFAULT_TOL,
        }
        Path(args.json).write_text(
            json.dumps({"meta": meta, "rows": rows, "notes": notes}, indent=1) + "\n"
        )
    bad = [r for r in rows if r["status"] in ("FAIL", "ERROR")] or [
        res for res in results if res.get("error")
    ]
    return 1 if bad else 0
