"""The benchmark suite (``python -m benchmarks``) runs, its rows pass their accuracy check,
and its hand-written NumPy references (hand-derived per-sample backprop, Jacobian, Hessian
and second-order MAML meta-gradient) agree with JAX and ftransforms in float64.

Timings are never asserted on.  Needs neither torch nor autograd.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn", reason="W1 uses scikit-learn's bundled digits data")

from benchmarks import cases, reference  # the repository root is on sys.path (conftest)
from benchmarks.worker import max_rel_error

ROOT = Path(__file__).resolve().parents[1]

ALL = ["W1", "W2", "W3", "W4", "W5", "W6"]
QUICK_CASES = cases.make_cases(ALL, quick=True)


def _run(
    args: list[str], env: dict | None = None, timeout: float = 240
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def test_quick_suite_has_no_failing_rows(tmp_path):
    out = tmp_path / "bench.json"
    proc = _run(
        ["-m", "benchmarks", "--quick", "--workloads", ",".join(ALL)]
        + ["--peers", "ftransforms,numpy", "--json", str(out)]
    )
    table = proc.stdout
    assert proc.returncode == 0, f"{table}\n{proc.stderr[-3000:]}"
    rows = [ln for ln in table.splitlines() if ln.rstrip().endswith(("ok", "FAIL", "ERROR"))]
    assert rows, table
    assert not [ln for ln in rows if not ln.rstrip().endswith("ok")], table
    notes = table.split("\nnotes:", 1)[1] if "\nnotes:" in table else ""
    assert "FAIL" not in notes and "ERROR" not in notes, table

    result = json.loads(out.read_text())
    got = {(r["case"], r["peer"]): r for r in result["rows"]}
    for case in QUICK_CASES:
        for peer in ("numpy", "ftransforms"):
            row = got[(case.id, peer)]
            assert row["status"] == "ok", row
            assert row["max_rel_err"] <= case.tol
            assert row["median_s"] > 0 and row["first_s"] > 0 and row["reps"] >= 1
        assert got[(case.id, "numpy")]["vs_numpy"] == pytest.approx(1.0)


def test_missing_peer_is_skipped_and_main_process_imports_no_peer(tmp_path):
    fake = tmp_path / "fake" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('simulated: no torch here')\n")
    check = (
        "import sys; from benchmarks.run import main; "
        "rc = main(['--quick', '--workloads', 'W5', '--peers', 'numpy,torch.func']); "
        "heavy = sorted({'torch', 'jax', 'autograd'} & set(sys.modules)); "
        "print('HEAVY', heavy); sys.exit(rc)"
    )
    path = os.pathsep.join([str(fake.parent), str(ROOT), os.environ.get("PYTHONPATH", "")])
    proc = _run(["-c", check], env={"PYTHONPATH": path.rstrip(os.pathsep)})
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert "HEAVY []" in proc.stdout
    assert "torch.func: skipped, not installed" in proc.stdout
    assert "simulated: no torch here" in proc.stdout


def test_device_cuda_without_gpu_prints_a_note(capsys):
    from benchmarks import run

    if run.gpu_present()[0]:
        pytest.skip("this machine has a GPU")
    assert run.main(["--device", "cuda", "--quick", "--workloads", "W5"]) == 0
    assert "no CUDA GPU" in capsys.readouterr().out


def test_max_rel_error():
    ref = [np.array([1.0, -2.0]), np.zeros(3)]
    assert max_rel_error([np.array([1.0, -2.0]), np.zeros(3)], ref)[0] == 0
    assert max_rel_error([np.array([1.0, -1.98]), np.zeros(3)], ref)[0] == pytest.approx(0.01)
    assert max_rel_error([np.ones(2)], ref)[0] == float("inf")
    err, note = max_rel_error([np.ones(3), np.zeros(3)], ref)
    assert err == float("inf") and "shape" in note
    assert max_rel_error([np.array([np.nan, 0.0]), np.zeros(3)], ref)[0] == float("inf")


# -- the hand-written references against JAX and ftransforms, in float64 ------------------


def _peer_result(peer_cls, case):
    peer = peer_cls()
    peer.setup("cpu", 1)
    inputs = cases.as_float64(cases.make_inputs(case))
    fn = peer.build(case, peer.convert(inputs))
    if isinstance(fn, str):
        pytest.skip(fn)
    out = peer.to_numpy(fn())
    assert all(np.asarray(o).dtype == np.float64 for o in out)
    return out, reference.compute(case, inputs)


@pytest.mark.parametrize("case", QUICK_CASES, ids=[c.id for c in QUICK_CASES])
def test_reference_matches_jax(case):
    pytest.importorskip("jax")
    import jax

    if not jax.config.read("jax_enable_x64"):
        pytest.skip("needs JAX in float64 (tests/conftest.py enables it)")
    from benchmarks.peers.jax_peer import JaxJitPeer

    got, ref = _peer_result(JaxJitPeer, case)  # jit: compiles faster than eager runs
    assert max_rel_error(got, ref)[0] < 1e-10


@pytest.mark.parametrize("case", QUICK_CASES, ids=[c.id for c in QUICK_CASES])
def test_reference_matches_ftransforms(case):
    from benchmarks.peers.ftransforms_peer import FtransformsPeer, LoopPeer

    for peer in (FtransformsPeer, LoopPeer):
        if peer is LoopPeer and case.workload == "W5" and case.mode in ("none", "grad"):
            continue
        got, ref = _peer_result(peer, case)
        assert max_rel_error(got, ref)[0] < 1e-10, peer.name


def test_maml_second_order_term_is_significant():
    """The check against JAX would not notice a wrong Hessian-vector product if the
    second-order term were negligible: it is not (first-order MAML is far off)."""
    case = next(c for c in QUICK_CASES if c.workload == "W4")
    inp = cases.as_float64(cases.make_inputs(case))
    lr = case.extra["lr"]
    full = reference.w4_meta_grad(inp, lr)
    p = {k: inp[k] for k in cases.param_names(3)}
    gs = reference._w4_grads(reference._w4_forward(p, inp["xs"], inp["ys"]))
    fast = {k: p[k] - lr * gs[k] for k in p}
    gq = reference._w4_grads(reference._w4_forward(fast, inp["xq"], inp["yq"]))
    first_order = [gq[k].mean(axis=0) for k in cases.param_names(3)]
    assert max_rel_error(first_order, full)[0] > 1e-3
