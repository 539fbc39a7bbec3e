"""Every workload's NumPy-family peer (hand-written NumPy, ftransforms, ftransforms.jit and
the naive loop) on the strict CuPy stand-in (``ftransforms.strict_backend``), at tiny sizes:
a peer that makes a host array next to the device inputs (``np.zeros(h)`` as an initial
carry, ``np.eye`` as cotangents, ``np.stack`` of device results) fails here as it fails on
a GPU with ``--device cuda``, and each result still passes the suite's own accuracy check
against the float64 reference."""

from __future__ import annotations

import pytest

pytest.importorskip("sklearn", reason="W1 uses scikit-learn's bundled digits data")

from benchmarks import cases, reference  # the repository root is on sys.path (conftest)
from benchmarks.peers import load
from benchmarks.worker import max_rel_error
from ftransforms.strict_backend import StrictArray

TINY = {"W1": [4], "W2": [4], "W3": [4], "W4": [2], "W6": [3]}
CASES = cases.make_cases(list(cases.WORKLOADS), quick=True, sizes_override=TINY)
PEERS = ["numpy", "ftransforms", "ftransforms.jit", "loop"]


@pytest.mark.parametrize("peer_name", PEERS)
def test_every_workload_runs_on_the_strict_stand_in(peer_name):
    peer = load(peer_name)
    peer.setup("strict", 1)
    ran = []
    for case in CASES:
        host = cases.make_inputs(case)
        inputs = peer.convert(host)
        assert all(type(v) is StrictArray for v in inputs.values())
        fn = peer.build(case, inputs)
        if isinstance(fn, str):  # the loop has no W5 rows without a batch
            continue
        fn()  # the first call (ftransforms.jit records here)
        out = fn()  # and the next one (ftransforms.jit replays)
        assert all(type(v) is StrictArray for v in out), f"{case.id}: a result left the device"
        ref = reference.compute(case, cases.as_float64(host))
        err, note = max_rel_error(peer.to_numpy(out), ref)
        assert err <= case.tol, f"{peer_name} {case.id}: {err:.2e} {note}"
        ran.append(case.workload)
    assert {"W1", "W2", "W3", "W4", "W6"} <= set(ran)


def test_the_compiled_peer_compiles_device_programs_on_the_strict_stand_in():
    """``--device cuda`` with ``ftransforms.compiled``: what jit recorded is compiled to
    (stand-in) CuPy kernels, and the compiled calls still pass the accuracy check."""
    peer = load("ftransforms.compiled")
    peer.setup("strict", 1)
    tiers = set()
    for case in [c for c in CASES if c.workload in ("W1", "W5", "W6")]:
        host = cases.make_inputs(case)
        fn = peer.build(case, peer.convert(host))
        fn()
        tiers |= set(peer.after_first()["tier"].split(", "))
        out = fn()
        assert all(type(v) is StrictArray for v in out), f"{case.id}: a result left the device"
        err, note = max_rel_error(
            peer.to_numpy(out), reference.compute(case, cases.as_float64(host))
        )
        assert err <= case.tol, f"compiled {case.id}: {err:.2e} {note}"
    assert "compiled" in tiers, tiers
