"""The GPU evidence script's Python half (``benchmarks/gpu_check.py``) on the strict CuPy
stand-in: the same program that the GPU machine runs, so that a real run does not fail on a
typo, and proof that its transfer counter sees a copy when there is one."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks import cases, gpu_check


def test_transfer_check_passes_on_the_strict_stand_in(tmp_path):
    out = tmp_path / "transfers.json"
    assert gpu_check.run_transfers("strict", out) == 0
    rows = {r["program"]: r for r in json.loads(out.read_text())["rows"]}
    assert rows["self-check: one explicit .get()"]["python_level_copies"] == 1
    assert rows["while_loop (5 iterations + exit)"]["python_level_copies"] == 6
    straight = [r for r in rows.values() if r["expected_max"] == 0]
    assert len(straight) >= 12
    assert all(r["python_level_copies"] == 0 and r["error"] is None for r in straight)


def test_transfer_counter_sees_a_hidden_copy():
    import ftransforms as ft
    import ftransforms.numpy as fnp
    from ftransforms import strict_backend

    x = strict_backend.asarray(np.arange(3.0))
    scale = strict_backend.asarray(np.full(3, 2.0))

    def leaky(w):  # reads a device value back to the host inside the transform
        return fnp.sum(w) * float(fnp.sum(scale))

    with gpu_check.counting_transfers(strict_backend.StrictArray, None) as counts:
        g = ft.grad(leaky)(x)
    assert counts == {"__float__": 1}
    np.testing.assert_allclose(g.get(), np.full(3, 6.0))


def test_compiled_tier_row_runs_on_the_strict_stand_in(tmp_path):
    out = tmp_path / "compiled.json"
    assert gpu_check.run_compiled("strict", out, [8], reps=1) == 0
    rows = {r["case"]: r for r in json.loads(out.read_text())["rows"]}
    assert set(rows) == {"W1-B8", "W5-none", "W5-grad"}
    for r in rows.values():
        assert r["error"] is None and r["tier"] == "compiled" and r["kernels"] >= 1
        assert r["max_rel_diff_vs_replay"] < 1e-5 and r["compiled_over_replay"] > 0
        assert r["jax_jit_s"] > 0 and r["compiled_over_jax"] > 0


def test_summary_gathers_the_steps(tmp_path):
    (tmp_path / "steps.tsv").write_text("tests\t0\t1.5\ndemo\t1\t2.0\n")
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "device.json").write_text(json.dumps({"numpy": "2"}))
    assert gpu_check.summarise(tmp_path) == 1  # a failed step fails the summary
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["steps"]["demo"] == {"rc": 1, "seconds": 2.0}
    assert summary["device"] == {"numpy": "2"}


def test_sizes_option_parses_and_refuses_bad_input():
    assert cases.parse_sizes("W1=32,4096;W3=256") == {"W1": [32, 4096], "W3": [256]}
    made = cases.make_cases(["W1"], sizes_override=cases.parse_sizes("W1=8"))
    assert [c.size for c in made] == [8]
    with pytest.raises(ValueError, match="W9"):
        cases.parse_sizes("W9=1")
    with pytest.raises(ValueError, match="NAME=INT"):
        cases.parse_sizes("W1=a")
