"""``ftransforms.distributed`` on a LocalCluster: per-task overhead, throughput against the
block size, and the speed-up of worker processes over one-process ``ft.vmap``.

    python -m benchmarks.distributed [--workers 2] [--reps 3] [--quick] [--json PATH]

Workload (the DP-SGD step): the sum over a dataset of clipped per-example gradients of a
small MLP (float32, 32 -> 64 -> 10, softmax cross-entropy), ``fd.map_reduce`` over blocks
of the data, against the same blocks run one after the other in this process with
``ft.vmap`` (the single-machine way to do it without holding every per-example gradient).
The data is persisted on the workers before timing (and is in this process's memory for
the baseline): both sides time the computation, not the data's creation.  Everything is
single-threaded: the workers (``threads_per_worker=1``; dask's nanny sets the BLAS thread
variables to 1) and this process (``threadpoolctl``), so the ceiling of N workers is N.

Per-task overhead: ``fd.vmap`` of a trivial function over 400 one-row blocks against one
400-row block, on dask's synchronous scheduler, its thread pool, and the cluster:
``(T(400 blocks) - T(1 block)) / 399``.  Also the driver's graph-building time per block.

Results are checked (``max rel err`` against the baseline); timings are medians of
``--reps`` runs and are never asserted on.  Other jobs on the machine inflate them: the
load average is printed with the results.  On Linux with ``sched_autogroup_enabled`` the
kernel shares the CPUs fairly between *sessions*, not processes: while other sessions keep
the cores busy, this benchmark's session (driver, scheduler and workers together) gets the
same share whatever its number of processes, so the wall-clock speed-up cannot exceed about
1x; the CPU-time efficiency (useful CPU / all CPU) is then the figure to read, and
``2 x CPU eff.`` what an otherwise idle 2-core machine would give.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import ftransforms as ft
import ftransforms.distributed as fd

IN, HIDDEN, OUT = 32, 64, 10


def init_params(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "w1": (rng.standard_normal((IN, HIDDEN)) / np.sqrt(IN)).astype(np.float32),
        "b1": np.zeros(HIDDEN, np.float32),
        "w2": (rng.standard_normal((HIDDEN, OUT)) / np.sqrt(HIDDEN)).astype(np.float32),
        "b2": np.zeros(OUT, np.float32),
    }


def make_block(start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``start:stop`` of the synthetic dataset (the same rows whatever the blocks)."""
    rng = np.random.default_rng(start)
    x = rng.standard_normal((stop - start, IN)).astype(np.float32)
    y = (np.abs(x[:, :OUT]).argmax(1)).astype(np.int64)
    return x, np.eye(OUT, dtype=np.float32)[y]


_META_X = np.empty((0, 0), np.float32)


def _x_block(block_info=None):
    (start, stop), _ = block_info[None]["array-location"]
    return make_block(start, stop)[0]


def _y_block(block_info=None):
    (start, stop), _ = block_info[None]["array-location"]
    return make_block(start, stop)[1]


def loss(params: dict, x: np.ndarray, y: np.ndarray) -> Any:
    h = np.tanh(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    logits = logits - logits.max()
    return -(y * (logits - np.log(np.exp(logits).sum()))).sum()


def clipped_grad(params: dict, x: np.ndarray, y: np.ndarray) -> dict:
    g = ft.grad(loss)(params, x, y)
    norm = np.sqrt(sum((v * v).sum() for v in g.values()))
    scale = np.minimum(np.float32(1.0), np.float32(1.0) / (norm + np.float32(1e-6)))
    return {k: v * scale for k, v in g.items()}


def _median_time(fn: Callable[[], Any], reps: int) -> tuple[float, Any]:
    out = fn()  # warm: imports on the workers, first recording, caches
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def _cpu(client: Any = None) -> float:
    """CPU seconds used so far by this process (all its threads: the LocalCluster's
    scheduler runs here) and, with a client, by every worker process."""
    return sum(_cpu_split(client))


def _cpu_split(client: Any = None) -> tuple[float, float]:
    """(this process's CPU seconds, the workers' CPU seconds) so far."""
    workers = sum(client.run(time.process_time).values()) if client is not None else 0.0
    return time.process_time(), workers


def _idle_cpu_rate(client: Any, seconds: float = 2.0) -> float:
    """CPU seconds per second that the cluster (scheduler, workers, this process) burns
    doing nothing: heartbeats, memory monitors, event loops."""
    c0 = _cpu(client)
    time.sleep(seconds)
    return (_cpu(client) - c0) / seconds


def _timed(
    fn: Callable[[], Any], reps: int, client: Any = None, idle: float = 0.0
) -> tuple[float, float, Any]:
    """Median wall time and median CPU time (this process + the workers, less the idle
    rate times the wall time) of ``fn``."""
    out = fn()  # warm
    walls, cpus, drivers = [], [], []
    for _ in range(reps):
        d0, w0 = _cpu_split(client)
        t0 = time.perf_counter()
        out = fn()
        walls.append(time.perf_counter() - t0)
        d1, w1 = _cpu_split(client)
        cpus.append(d1 - d0 + w1 - w0 - idle * walls[-1])
        drivers.append(d1 - d0)
    _timed.driver_cpu = statistics.median(drivers)  # type: ignore[attr-defined]
    return statistics.median(walls), statistics.median(cpus), out


def _rel_err(got: dict, want: dict) -> float:
    return max(
        float(np.abs(np.asarray(got[k]) - want[k]).max() / (np.abs(want[k]).max() or 1.0))
        for k in want
    )


def overhead(client: Any, reps: int, n: int = 400) -> list[dict]:
    x = np.random.default_rng(0).standard_normal((n, 4))

    def double(r):
        return r * 2.0

    rows = []
    for label, kw in (
        ("sync (in-process)", {"scheduler": "sync"}),
        ("threads (1 process)", {"scheduler": "threads"}),
        ("LocalCluster", {}),
    ):
        t_many, got = _median_time(lambda: fd.compute(fd.vmap(double, chunk_size=1)(x), **kw), reps)
        t_one, _ = _median_time(lambda: fd.compute(fd.vmap(double)(x), **kw), reps)
        assert np.array_equal(got, x * 2.0)
        rows.append(
            {
                "scheduler": label,
                "blocks": n,
                "t_many_s": t_many,
                "t_one_s": t_one,
                "per_task_ms": 1e3 * (t_many - t_one) / (n - 1),
            }
        )
    t_build, _ = _median_time(lambda: fd.vmap(double, chunk_size=1)(x), reps)
    t_build1, _ = _median_time(lambda: fd.vmap(double)(x), reps)
    rows.append(
        {
            "scheduler": "graph building (driver)",
            "blocks": n,
            "t_many_s": t_build,
            "t_one_s": t_build1,
            "per_task_ms": 1e3 * (t_build - t_build1) / (n - 1),
        }
    )
    return rows


def scaling(client: Any, da: Any, n: int, chunks: list[int], reps: int) -> list[dict]:
    params = init_params()
    idle = _idle_cpu_rate(client)
    rows = []
    for c in chunks:
        bounds = [(s, min(s + c, n)) for s in range(0, n, c)]
        blocks = [make_block(s, e) for s, e in bounds]

        def baseline():
            f = ft.vmap(clipped_grad, in_dims=(None, 0, 0))
            total = None
            for x, y in blocks:
                g = {k: v.sum(0) for k, v in f(params, x, y).items()}
                total = g if total is None else {k: total[k] + g[k] for k in g}
            return total

        rc = (tuple(e - s for s, e in bounds),)
        X = da.map_blocks(_x_block, chunks=rc + ((IN,),), dtype=np.float32, meta=_META_X)
        Y = da.map_blocks(_y_block, chunks=rc + ((OUT,),), dtype=np.float32, meta=_META_X)
        X, Y = fd.persist((X, Y))  # made on the workers and kept there
        from distributed import wait  # noqa: PLC0415  (only with distributed installed)

        wait([X, Y])
        step = fd.map_reduce(clipped_grad, in_dims=(None, 0, 0))
        # Interleaved, one run of each per repetition, so that both see the same load; the
        # speed-up is the median of the paired ratios.
        base_runs, fd_runs, ratios, drivers = [], [], [], []
        for _ in range(reps):
            t_b, c_b, want = _timed(baseline, 1)
            t_f, c_f, got = _timed(lambda: fd.compute(step(params, X, Y)), 1, client, idle)
            base_runs.append((t_b, c_b))
            fd_runs.append((t_f, c_f))
            ratios.append(t_b / t_f)
            drivers.append(_timed.driver_cpu)  # type: ignore[attr-defined]
        t_base = statistics.median(r[0] for r in base_runs)
        cpu_base = statistics.median(r[1] for r in base_runs)
        t_fd = statistics.median(r[0] for r in fd_runs)
        cpu_fd = statistics.median(r[1] for r in fd_runs)
        rows.append(
            {
                "chunk": c,
                "blocks": len(bounds),
                "ft_vmap_1proc_s": t_base,
                "fd_cluster_s": t_fd,
                "ft_vmap_examples_per_s": n / t_base,
                "fd_examples_per_s": n / t_fd,
                "speedup": statistics.median(ratios),
                "speedups": ratios,
                "cpu_1proc_s": cpu_base,
                "cpu_fd_s": cpu_fd,
                "cpu_efficiency": cpu_base / cpu_fd,
                "idle_cpu_per_s": idle,
                "driver_cpu_per_step_s": statistics.median(drivers),
                "max_rel_err": _rel_err(got, want),
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    p.add_argument("--json", help="also write the rows as JSON here")
    p.add_argument("--chunks", help="block sizes, e.g. 4096,16384 (default: a sweep)")
    p.add_argument("--no-overhead", action="store_true", help="skip the per-task overhead")
    args = p.parse_args(argv)

    import dask.array as da  # noqa: PLC0415  (the [distributed] extra)
    from distributed import Client, LocalCluster  # noqa: PLC0415
    from threadpoolctl import threadpool_limits  # noqa: PLC0415

    n = 8192 if args.quick else 131072
    chunks = [256, 2048] if args.quick else [256, 1024, 4096, 16384]
    if args.chunks:
        chunks = [int(c) for c in args.chunks.split(",")]
    n_over = 50 if args.quick else 400
    limits = threadpool_limits(1)
    cluster = LocalCluster(
        n_workers=args.workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    )
    try:
        with Client(cluster) as client:
            over = [] if args.no_overhead else overhead(client, args.reps, n_over)
            scale = scaling(client, da, n, chunks, args.reps)
    finally:
        cluster.close()
        limits.restore_original_limits()
    load = os.getloadavg()
    print(
        f"# ftransforms.distributed, {args.workers} worker processes x 1 thread, "
        f"{os.cpu_count()} CPUs, {platform.processor() or platform.machine()}; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print(f"\nper-task overhead (fd.vmap of r * 2 over {n_over} one-row blocks):")
    print(f"{'scheduler':<26}{'T(n blocks)':>14}{'T(1 block)':>12}{'per task':>12}")
    for r in over:
        print(
            f"{r['scheduler']:<26}{r['t_many_s']:>13.3f}s{r['t_one_s']:>11.4f}s"
            f"{r['per_task_ms']:>10.3f}ms"
        )
    print(f"\nDP-SGD step: sum of clipped per-example MLP gradients over {n} examples (float32)")
    print(
        f"{'chunk':>7}{'blocks':>7}{'ft.vmap 1 proc':>15}{f'fd {args.workers} workers':>14}"
        f"{'ex/s 1 proc':>12}{'ex/s fd':>9}{'speed-up':>9}{'effic.':>7}"
        f"{'CPU 1 proc':>11}{'CPU fd':>8}{'CPU eff.':>9}{'rel err':>9}"
    )
    for r in scale:
        print(
            f"{r['chunk']:>7}{r['blocks']:>7}{r['ft_vmap_1proc_s']:>14.3f}s"
            f"{r['fd_cluster_s']:>13.3f}s{r['ft_vmap_examples_per_s']:>12.0f}"
            f"{r['fd_examples_per_s']:>9.0f}{r['speedup']:>8.2f}x"
            f"{r['speedup'] / args.workers:>7.0%}{r['cpu_1proc_s']:>10.2f}s"
            f"{r['cpu_fd_s']:>7.2f}s{r['cpu_efficiency']:>9.0%}{r['max_rel_err']:>9.1e}"
        )
    print(
        f"\nspeed-up: median over repetitions of (wall time of one process / wall time of fd), "
        f"the two run alternately; effic. = "
        f"speed-up / {args.workers}, against the ceiling of {args.workers} processes.  CPU: "
        f"CPU seconds used (fd: driver + scheduler + workers, less their idle rate of "
        f"{scale[0]['idle_cpu_per_s']:.3f} CPU s/s); CPU eff. = CPU 1 proc / CPU "
        f"fd, the share of fd's CPU that is useful work, which bounds the speed-up an idle "
        f"machine would give: about {args.workers} x CPU eff."
    )
    print(
        "driver + scheduler CPU per step (s): "
        + ", ".join(f"chunk {r['chunk']}: {r['driver_cpu_per_step_s']:.3f}" for r in scale)
    )
    bad = [r for r in scale if r["max_rel_err"] > 1e-4]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {"overhead": over, "scaling": scale, "workers": args.workers, "load": load},
                f,
                indent=1,
            )
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
