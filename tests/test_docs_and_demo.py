"""The README's tour (and the jit guide's example after it), every docstring example, and the
demo command all run and are right."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import numpy as np
import pytest

import ftransforms

ROOT = Path(__file__).resolve().parents[1]


def _modules():
    for info in pkgutil.walk_packages(ftransforms.__path__, "ftransforms."):
        if info.name != "ftransforms.demo":
            yield info.name


@pytest.mark.parametrize("name", sorted(_modules()))
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False
    )
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"


def test_readme_tour_runs_and_matches_loops():
    readme = (ROOT / "README.md").read_text()
    tour = readme.split("## A tour", 1)[1]
    code = re.search(r"```python\n(.*?)```", tour, re.S).group(1)
    env: dict = {}
    exec(compile(code, "README.md", "exec"), env)
    loss, params, x, y = env["loss"], env["params"], env["x"], env["y"]
    per_example = env["per_example"]
    for i in (0, 7, 31):
        g = ftransforms.grad(loss)(params, x[i], y[i])
        np.testing.assert_allclose(per_example[0][i], g[0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(per_example[1][i], g[1], rtol=1e-5, atol=1e-6)
    assert per_example[0].dtype == np.float32


def test_readme_jit_example_runs_after_the_tour(capsys):
    """The jit guide's example, run on the README tour's model, replays what the tour's
    eager ``vmap(grad(loss))`` computed."""
    readme = (ROOT / "README.md").read_text()
    tour = re.search(r"```python\n(.*?)```", readme.split("## A tour", 1)[1], re.S).group(1)
    guide = (ROOT / "docs" / "guides" / "jit.md").read_text()
    (jit_block,) = [
        b for b in re.findall(r"```python\n(.*?)```", guide, re.S) if "step = jit(" in b
    ]
    env: dict = {}
    for name, code in (("README.md", tour), ("docs/guides/jit.md", jit_block)):
        exec(compile(code, name, "exec"), env)
    assert "matmul" in capsys.readouterr().out  # the printed program
    replayed = env["step"](env["params"], env["x"], env["y"])
    assert len(env["step"].cache) == 1
    for got, want in zip(replayed, env["per_example"]):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "<!-- test-command" in readme and "test-command" in ci
    block = readme.split("<!-- test-command", 1)[1]
    command = re.search(r"```bash\n(.*?)\n```", block, re.S).group(1)
    assert "pytest" in command


def test_demo_prints_a_table_and_agrees_with_the_loops(capsys):
    pytest.importorskip("sklearn", reason="the demo's data ships with scikit-learn")
    from ftransforms import demo

    code = demo.main(["--batch", "16", "--tasks", "3", "--repeat", "1", "--dtype", "float64"])
    out = capsys.readouterr().out
    assert code == 0, out
    for row in ("per-sample gradients", "Jacobian", "Hessian", "MAML"):
        assert row in out
    assert "+ jit" in out  # every task also replayed under jit, checked against the loop
    assert "all results match the naive loop" in out


def test_demo_saves_its_figures(tmp_path, capsys):
    pytest.importorskip("sklearn", reason="the demo's data ships with scikit-learn")
    pytest.importorskip("matplotlib", reason="figures need matplotlib (the [demo] extra)")
    from ftransforms import demo

    code = demo.main(
        ["--batch", "8", "--tasks", "2", "--repeat", "1", "--save-figures", str(tmp_path)]
    )
    assert code == 0
    for name in ("demo_results.png", "demo_speedups.png"):
        path = tmp_path / name
        assert path.exists() and path.stat().st_size > 10_000, name


def test_demo_on_cuda_without_a_gpu_says_what_is_missing(capsys):
    import importlib.util

    from ftransforms import demo

    if importlib.util.find_spec("cupy") is not None:
        pytest.skip("cupy is installed here: the message for a missing cupy cannot be shown")
    with pytest.raises(SystemExit, match="needs CuPy"):
        demo.main(["--device", "cuda"])


def _marked_readme_blocks() -> list[tuple[str, str]]:
    """The blocks marked ``<!-- readme-test: name -->`` in the README and the docs pages."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    text = "\n".join(p.read_text() for p in pages)
    return re.findall(r"<!-- readme-test: ([\w-]+) -->\n```python\n(.*?)```", text, re.S)


@pytest.mark.parametrize(
    "name, code", _marked_readme_blocks(), ids=[n for n, _ in _marked_readme_blocks()]
)
def test_marked_readme_blocks_run_standalone(name, code):
    """Each block after a ``<!-- readme-test: name -->`` marker (README or docs/) runs on
    its own, in a fresh namespace (its asserts are the claims the section makes)."""
    exec(compile(code, f"marked block {name}", "exec"), {"__name__": f"readme_{name}"})


def test_readme_has_marked_blocks():
    assert {"control-flow"} <= {n for n, _ in _marked_readme_blocks()}
