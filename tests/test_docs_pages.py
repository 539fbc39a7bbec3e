"""The documentation site's pages are true, and its API reference is complete.

* Every ```python block of every page under ``docs/`` (and of ``README.md``) runs: a
  page's blocks run in order in one namespace, in a temporary directory, so a page reads
  as one session.  A block preceded by a marker comment runs differently:

  ``<!-- docs-test: strict-backend -->``
      a CuPy block; ``import cupy as cp`` is given ``ftransforms.strict_backend`` (the
      strict CuPy stand-in, which refuses every implicit conversion to NumPy) as ``cp``,
      so the block checks that nothing goes through NumPy without a GPU.
  ``<!-- docs-test: fragment: <reason> -->``
      a fragment of a library file, shown in place: not run on its own (the reason says
      what runs it instead), but compiled, so it stays valid Python.

* The reference (``docs/hooks/reference.py``) lists every public name: the same names as
  ``tests/test_public_examples.py``'s ``NAMESPACES``/``public_names`` define, each on one
  generated page, as a mkdocstrings entry or one rendered from the live object.  The
  built site is checked by ``docs/check_site.py`` (a ``.ci/run`` step after
  ``mkdocs build --strict``).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "notebooks" not in p.relative_to(DOCS).parts)

_BLOCK = re.compile(
    r"^(?:<!-- docs-test: (?P<marker>[^>]*?) -->\n)?```python\n(?P<code>.*?)^```", re.S | re.M
)


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def blocks(path: Path) -> list[tuple[int, str | None, str]]:
    """(line number, marker, code) of each ```python block of a Markdown file."""
    text = path.read_text()
    out = []
    for m in _BLOCK.finditer(text):
        line = text.count("\n", 0, m.start("code")) + 1
        out.append((line, m.group("marker"), m.group("code")))
    return out


def _strict_cupy(code: str) -> str:
    assert "import cupy as cp" in code, "a strict-backend block imports cupy as cp"
    return code.replace("import cupy as cp", "import ftransforms.strict_backend as cp")


def _page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("page", [*PAGES, ROOT / "README.md"], ids=_page_id)
def test_page_code_blocks_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a block that writes a file writes it here
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    for line, marker, code in blocks(page):
        if marker and marker.startswith("fragment:"):
            continue  # compiled by test_fragment_compiles
        if marker == "strict-backend":
            code = _strict_cupy(code)
        elif marker:
            raise AssertionError(f"{_page_id(page)}:{line}: unknown marker {marker!r}")
        # pad so that a traceback names the line in the Markdown file
        exec(compile("\n" * (line - 1) + code, str(page), "exec"), namespace)


_FRAGMENTS = [
    (page, line, code)
    for page in [*PAGES, ROOT / "README.md"]
    for line, marker, code in blocks(page)
    if marker and marker.startswith("fragment:")
]


@pytest.mark.parametrize(
    "page, line, code", _FRAGMENTS, ids=[f"{_page_id(p)}:{n}" for p, n, _ in _FRAGMENTS]
)
def test_fragment_compiles(page, line, code):
    """A block marked ``fragment:`` is part of a library file (what runs it is named in the
    marker): it must still be valid Python."""
    compile("\n" * (line - 1) + code, str(page), "exec")


def test_markers_are_known_and_fragments_say_what_runs_them():
    for page in PAGES:
        for line, marker, _ in blocks(page):
            if marker is None or marker == "strict-backend":
                continue
            assert marker.startswith("fragment:") and len(marker[9:].strip()) > 10, (
                f"{_page_id(page)}:{line}: marker {marker!r} (use 'strict-backend' or "
                "'fragment: <what runs it>')"
            )


def test_every_guide_has_code_that_runs():
    """Each guide shows code, and that code is executed by the test above."""
    for page in (DOCS / "guides").glob("*.md"):
        runnable = [b for b in blocks(page) if not (b[1] or "").startswith("fragment:")]
        assert runnable, f"{_page_id(page)} has no python block that the tests run"


def test_every_page_is_in_the_navigation():
    nav = (ROOT / "mkdocs.yml").read_text()
    for page in PAGES:
        rel = page.relative_to(DOCS).as_posix()
        assert rel in nav, f"{rel} is not in mkdocs.yml's nav"


# ---------------------------------------------------------------------------------------
# the API reference


@pytest.fixture(scope="module")
def reference():
    return _load("docs_reference_hook", DOCS / "hooks" / "reference.py")


@pytest.fixture(scope="module")
def public():
    import ftransforms.public_api as public_api  # late import: a fixture, like the hook's

    return public_api


def test_every_public_name_is_on_exactly_one_reference_page(reference, public):
    listed = [entry for page in reference.pages() for entry in page.entries()]
    assert len(listed) == len(set(listed)), "a name is listed twice"
    expected = {(ns, n) for ns in public.NAMESPACES for n in public.public_names(ns)}
    missing = expected - set(listed)
    assert not missing, f"public names missing from the reference: {sorted(missing)}"
    extra = set(listed) - expected
    assert not extra, f"names in the reference that are not public: {sorted(extra)}"


def test_every_listed_name_is_rendered_on_its_page(reference):
    """Each entry becomes either a mkdocstrings block or an entry with the name's id."""
    for page in reference.pages():
        text = reference.render(page)
        for ns, name in page.entries():
            ident = f"{ns}.{name}"
            assert f"::: {ident}\n" in text or f"{{ #{ident} " in text, (
                f"{ident} is listed on {page.path} but not rendered there"
            )


def test_operators_show_their_own_docstring(reference):
    """``fnp.sin`` is a Primitive instance: its entry carries ``prim.doc``, not the
    class's docstring, and says which NumPy ufunc it answers."""
    import ftransforms.numpy as fnp

    page = next(p for p in reference.pages() if p.path == "reference/numpy/ufuncs.md")
    text = reference.render(page)
    entry = text.split("{ #ftransforms.numpy.sin ", 1)[1].split("\n## ", 1)[0]
    assert reference.doc_to_markdown(fnp.sin.__doc__) in entry
    assert "numpy.sin" in entry and "sin(x, /)" in entry


def test_doc_to_markdown_fences_examples_once(reference):
    doc = "Add.\n\nExample:\n    >>> 1 + 1\n    2\n\n    Then:\n\n    >>> 2 + 2\n    4\n"
    md = reference.doc_to_markdown(doc)
    assert md.count("```pycon") == 2 and md.count("```") == 4
    assert "**Example**" in md and "    >>>" not in md


@pytest.mark.parametrize("path", ["docs/hooks/reference.py", "docs/check_site.py"])
def test_docs_tooling_examples(path):
    """The examples in the site's own tooling run (they are not in the package, so the
    package's doctest sweep does not reach them)."""
    import doctest

    pytest.importorskip("matplotlib")
    module = _load(f"docs_tool_{Path(path).stem}", ROOT / path)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0
