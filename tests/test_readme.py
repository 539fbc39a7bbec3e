"""The "Running existing NumPy code" guide (docs/guides/numpy-code.md, moved there from
the README) is true: every row of its idiom table has a code block (after an
``<!-- idiom: <id> -->`` marker) that runs and checks
the row's claim, and its list of refused NumPy functions is what
``python -m ftransforms.coverage`` lists as having no rule.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ftransforms.coverage import numpy_dispatch_coverage

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "guides" / "numpy-code.md"
HEADING = "# Running existing NumPy code"


def _section() -> str:
    """The guide from its title to its first second-level section."""
    text = GUIDE.read_text()
    start = text.index(HEADING)
    end = text.find("\n## ", start + len(HEADING))
    return text[start : end if end != -1 else len(text)]


def _table_after(marker: str, section: str) -> list[list[str]]:
    """The rows (cells stripped) of the first Markdown table after ``marker``."""
    rest = section[section.index(marker) :]
    rows = []
    started = False
    for line in rest.splitlines():
        if line.startswith("|"):
            started = True
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not set("".join(cells)) <= set("-: "):
                rows.append(cells)
        elif started:
            break
    return rows[1:]  # without the header


def _row_ids() -> list[str]:
    return [row[0].strip("`") for row in _table_after("<!-- idioms -->", _section())]


def _blocks() -> dict[str, str]:
    found = re.findall(r"<!-- idiom: (\S+) -->\n```python\n(.*?)```", _section(), re.S)
    return dict(found)


def test_every_row_has_exactly_one_code_block():
    ids, blocks = _row_ids(), _blocks()
    assert ids, "the idiom table was not found after <!-- idioms -->"
    assert len(ids) == len(set(ids)), f"duplicate row ids: {ids}"
    assert sorted(blocks) == sorted(ids), (
        f"rows without a block: {sorted(set(ids) - set(blocks))}; "
        f"blocks without a row: {sorted(set(blocks) - set(ids))}"
    )


@pytest.mark.parametrize("row", _row_ids())
def test_row_claim_holds(row, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a block that would write a file writes nothing here
    code = _blocks()[row]
    exec(compile(code, f"numpy-code.md[{row}]", "exec"), {"__name__": f"readme_{row}"})


def test_refused_functions_are_the_ones_without_a_rule():
    """The second table lists exactly the NumPy functions the coverage command reports as
    "without a rule" (each row's first cell names one or more, in backticks)."""
    section = _section()
    rows = _table_after("NumPy functions that stay refused", section)
    named = set()
    for row in rows:
        # only the first cell's names, before any parenthesis (which mentions related
        # functions that do have a rule)
        first = row[0].split("(")[0]
        named |= {n.replace("linalg.", "numpy.linalg.") for n in re.findall(r"`([\w.]+)`", first)}
    named = {n if n.startswith("numpy.") else f"numpy.{n}" for n in named}
    _, missing = numpy_dispatch_coverage()
    assert named == set(missing), (
        f"in the guide but with a rule: {sorted(named - set(missing))}; "
        f"without a rule but not in the guide: {sorted(set(missing) - named)}"
    )
