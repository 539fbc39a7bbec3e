"""The notebooks in notebooks/ execute without errors (small settings), and the committed
copies carry their outputs.

Each notebook is copied into a temporary directory and executed there by nbclient with the
``python3`` kernel, ``FTRANSFORMS_NOTEBOOK_SMALL=1`` (every notebook reads it in its first
code cell and shrinks its sizes and steps) and ``MPLBACKEND=Agg``; the committed notebooks
are never rewritten.  Needs the ``test`` extra's nbclient, nbformat, ipykernel, matplotlib.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"
EXPECTED = [
    "ensembling.ipynb",
    "jacobians_hessians.ipynb",
    "maml_sine.ipynb",
    "per_sample_gradients.ipynb",
    "recurrent_and_control_flow.ipynb",
    "scaling_out.ipynb",
]
CELL_TIMEOUT_S = 600


def _notebooks() -> list[Path]:
    return sorted(NOTEBOOK_DIR.glob("*.ipynb"))


def test_the_notebooks_are_there():
    assert sorted(p.name for p in _notebooks()) == EXPECTED


@pytest.mark.parametrize("path", _notebooks(), ids=lambda p: p.stem)
def test_committed_notebook_is_executed_and_documented(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    first = nb.cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("# "), (
        f"{path.name}: must open with a markdown cell saying what it shows and why"
    )
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "cupy" in text.lower(), f"{path.name}: must say how to run it on a GPU with CuPy"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert "FTRANSFORMS_NOTEBOOK_SMALL" in code[0].source, (
        f"{path.name}: the first code cell must read FTRANSFORMS_NOTEBOOK_SMALL"
    )
    for i, cell in enumerate(code):
        assert cell.execution_count is not None, f"{path.name}: code cell {i} was not executed"
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, f"{path.name}: code cell {i} has a committed error output"
    images = [o for c in code for o in c.outputs if "image/png" in o.get("data", {})]
    assert images, f"{path.name}: the committed copy has no plots"


@pytest.mark.slow  # six kernels, ~9 s each: the separate slow step of .ci/run
@pytest.mark.parametrize("path", _notebooks(), ids=lambda p: p.stem)
def test_notebook_executes_small(path, tmp_path, monkeypatch):
    copy = tmp_path / path.name
    shutil.copy(path, copy)
    monkeypatch.setenv("FTRANSFORMS_NOTEBOOK_SMALL", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # the kernel imports this checkout and runs on this interpreter (the kernelspec's
    # "python" is looked up on PATH)
    for var, first in [("PYTHONPATH", ROOT), ("PATH", Path(sys.executable).parent)]:
        rest = [p for p in os.environ.get(var, "").split(os.pathsep) if p]
        monkeypatch.setenv(var, os.pathsep.join([str(first), *rest]))
    nb = nbformat.read(copy, as_version=4)
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError (with the traceback) on any cell error
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not [o for o in cell.outputs if o.output_type == "error"]
