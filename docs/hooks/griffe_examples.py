"""griffe extension: the project's docstrings, as mkdocstrings should read them.

* A Google-style ``Example:`` section is read as an examples section: griffe knows
  ``Examples:`` (plural) and would render ``Example:`` as an admonition whose ``>>>``
  lines Markdown turns into nested quotes.
* Sphinx roles (``:func:`~ftransforms.grad```, ``:class:`Primitive```) become code spans
  (``grad``, ``Primitive``) instead of showing their markup (``reference.strip_roles``,
  which the entries rendered by ``reference.py`` itself go through too).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

import griffe

_spec = importlib.util.spec_from_file_location(
    "docs_reference", Path(__file__).with_name("reference.py")
)
_reference = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _reference  # its dataclass looks its module up there
_spec.loader.exec_module(_reference)

_EXAMPLE = re.compile(r"^(\s*)Example:[ \t]*$", re.M)


class ExampleSections(griffe.Extension):
    """Rename each docstring's ``Example:`` heading; turn Sphinx roles into code."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            text = _EXAMPLE.sub(r"\1Examples:", obj.docstring.value)
            obj.docstring.value = _reference.strip_roles(text)
