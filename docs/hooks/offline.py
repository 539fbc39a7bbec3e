"""mkdocs hook: nothing on a built page is fetched from the network.

mkdocs-jupyter's notebook template carries a MathJax loader whose address is empty
(``<script src="">``, which would request the page itself) and a module script that
imports mermaid from a CDN when a notebook holds a mermaid diagram (none of ours do).
Both are removed from every page; ``docs/check_site.py`` then checks that no page
references an external script, style sheet, font or image.
"""

from __future__ import annotations

import re
from typing import Any

_EMPTY_SCRIPT = re.compile(r'<script src="">\s*</script>')
_NOT_END = r"(?:(?!</script>).)*"
_CDN_MODULE = re.compile(rf'<script type="module">{_NOT_END}?https?://{_NOT_END}</script>', re.S)


def on_post_page(output: str, page: Any, config: Any) -> str:
    """Strip the empty MathJax loader and CDN module scripts from a built page."""
    output = _EMPTY_SCRIPT.sub("", output)
    return _CDN_MODULE.sub("", output)
