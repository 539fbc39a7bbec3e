"""griffe extension: read a Google-style ``Example:`` section as an examples section.

griffe knows ``Examples:`` (plural) and would render ``Example:`` as an admonition whose
``>>>`` lines Markdown turns into nested quotes; the project's docstrings use the
singular, so it is renamed here when griffe loads each object.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLE = re.compile(r"^(\s*)Example:[ \t]*$", re.M)


class ExampleSections(griffe.Extension):
    """Rename each docstring's ``Example:`` heading to ``Examples:``."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _EXAMPLE.sub(r"\1Examples:", obj.docstring.value)
