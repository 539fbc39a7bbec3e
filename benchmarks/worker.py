"""One peer, one workload, in its own process: time every case and check it.

    python -m benchmarks.worker --peer NAME --workload W1 --dir RUN_DIR [--reps N]
           [--device cpu|cuda] [--threads N]

``RUN_DIR`` is written by ``benchmarks.run``: ``cases.json``, ``inputs/<case>.npz`` and the
float64 references ``ref/<case>_<k>.npy`` (memory-mapped here, never recomputed).  Prints
one JSON object on stdout; anything the libraries print goes to stderr.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.cases import Case

_CHUNK = 1 << 20  # elements per block when comparing large leaves


def max_rel_error(got: list, ref: list) -> tuple[float, str]:
    """max over leaves of ``max|got - ref| / max|ref|`` (float64), and a note on mismatch."""
    if len(got) != len(ref):
        return float("inf"), f"{len(got)} output leaves, expected {len(ref)}"
    worst = 0.0
    for k, (g, r) in enumerate(zip(got, ref)):
        g = np.asarray(g)
        if g.shape != r.shape:
            return float("inf"), f"leaf {k} has shape {g.shape}, expected {r.shape}"
        g2, r2 = g.reshape(-1), r.reshape(-1)
        diff = scale = 0.0
        for s in range(0, max(g2.size, 1), _CHUNK):
            rb = np.asarray(r2[s : s + _CHUNK], dtype=np.float64)
            gb = g2[s : s + _CHUNK].astype(np.float64)
            if rb.size:
                if not np.all(np.isfinite(gb)):
                    return float("inf"), f"leaf {k} has non-finite values"
                diff = max(diff, float(np.max(np.abs(gb - rb))))
                scale = max(scale, float(np.max(np.abs(rb))))
        worst = max(worst, diff / scale if scale > 0 else diff)
    return worst, ""


def time_case(peer: Any, case: Case, inputs: dict, ref: list, reps: int) -> dict:
    row: dict[str, Any] = {"case": case.id, "peer": peer.name}
    try:
        fn = peer.build(case, peer.convert(inputs))
    except Exception as e:  # noqa: BLE001 - reported in the table, not fatal
        return {**row, "status": "ERROR", "note": _error(e)}
    if isinstance(fn, str):
        return {**row, "status": "n/a", "note": fn}
    extra: dict = {}
    try:
        t0 = time.perf_counter()
        out = fn()
        peer.sync(out)
        first = time.perf_counter() - t0
        err, note = max_rel_error(peer.to_numpy(out), ref)
        out = None
        after_first = getattr(peer, "after_first", None)  # the compiled tier: compile now
        extra = after_first() if after_first is not None else {}
        if extra:
            out = fn()  # the compiled program's result is checked too
            peer.sync(out)
            err2, note2 = max_rel_error(peer.to_numpy(out), ref)
            if err2 > err:
                err, note = err2, note2
            out = None
        gc.collect()
        times = []
        for _ in range(reps):
            out = None
            t0 = time.perf_counter()
            out = fn()
            peer.sync(out)
            times.append(time.perf_counter() - t0)
        out = None
    except Exception as e:  # noqa: BLE001
        return {**row, "status": "ERROR", "note": _error(e)}
    status = "ok" if err <= case.tol else "FAIL"
    if status == "FAIL" and not note:
        note = f"max relative error {err:.2e} > {case.tol:.0e}"
    return {
        **row,
        "status": status,
        "note": note,
        "first_s": first,
        "median_s": float(np.median(times)),
        "min_s": float(np.min(times)),
        "q1_s": float(np.percentile(times, 25)),
        "q3_s": float(np.percentile(times, 75)),
        "reps": reps,
        "max_rel_err": err,
        **extra,
    }


def _error(e: BaseException) -> str:
    tb = traceback.extract_tb(e.__traceback__)
    where = f" at {Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else ""
    print(traceback.format_exc(), file=sys.stderr)
    return f"{type(e).__name__}: {e}{where}".replace("\n", " ")[:300]


def run(args: argparse.Namespace) -> dict:
    from benchmarks import peers

    run_dir = Path(args.dir)
    cases = [Case.from_json(d) for d in json.loads((run_dir / "cases.json").read_text())]
    cases = [c for c in cases if c.workload == args.workload]
    result: dict[str, Any] = {"peer": args.peer, "workload": args.workload, "rows": []}
    try:
        peer = peers.load(args.peer)
        peer.setup(args.device, args.threads)
    except ImportError as e:
        return {**result, "skipped": f"not installed ({e})"}
    except peers.Unavailable as e:
        return {**result, "skipped": str(e)}
    result["version"] = peer.version
    for case in cases:
        with np.load(run_dir / "inputs" / f"{case.id}.npz") as f:
            inputs = {k: f[k] for k in f.files}
        ref, k = [], 0
        while (path := run_dir / "ref" / f"{case.id}_{k}.npy").exists():
            ref.append(np.load(path, mmap_mode="r"))
            k += 1
        result["rows"].append(time_case(peer, case, inputs, ref, args.reps))
        del ref, inputs
        gc.collect()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.worker")
    parser.add_argument("--peer", required=True)
    parser.add_argument("--workload", required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)

    # Keep stdout for our JSON: whatever the libraries print (even from C) goes to stderr.
    sys.stdout.flush()
    json_fd = os.dup(1)
    os.dup2(2, 1)
    try:
        result = run(args)
    except Exception as e:  # noqa: BLE001 - the main process reports it
        result = {"peer": args.peer, "workload": args.workload, "rows": [], "error": _error(e)}
    sys.stdout.flush()
    with os.fdopen(json_fd, "w") as out:
        json.dump(result, out)
        out.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
