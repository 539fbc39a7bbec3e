"""The coverage command runs and says every primitive has every rule and an entry."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_coverage_table_is_complete():
    out = subprocess.run(
        [sys.executable, "-m", "ftransforms.coverage"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    total = next(line for line in out.splitlines() if line.startswith("total")).split()[1:]
    registered, impl, derivative, batching, entry, _xfails = (int(v) for v in total)
    assert registered > 100
    assert registered == impl == derivative == batching == entry, out
    assert "raising 'no rule'" in out
