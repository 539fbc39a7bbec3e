"""Check the built site (run after ``mkdocs build --strict``; ``.ci/run`` does).

``python docs/check_site.py [SITE_DIR]`` fails (exit 1, naming each problem) unless:

1. every notebook's page holds its plots: as many ``<img src="data:image/png;base64,...">``
   as the notebook has stored PNG outputs, each decoding to a PNG image that is not one
   colour (read with matplotlib);
2. every public name has an entry in the API reference: an element whose id is
   ``<namespace>.<name>`` on one of the reference pages (the names are those of
   ``docs/hooks/reference.py``, which ``tests/test_docs_pages.py`` ties to the public
   API's definition);
3. no page fetches anything from the network: no external ``src=``, style sheet, font,
   ``import("http...")`` or CSS ``url(http...)``;
4. ``objects.inv`` (the mkdocstrings inventory) was written;
5. where a Chromium binary is on the PATH (``chromium``, ``chromium-browser``,
   ``google-chrome``): a headless browser loads each notebook page and every one of its
   PNG images is decoded with a non-zero size (otherwise this check says it did not run).
"""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "hooks"))
sys.path.insert(0, str(ROOT))

_IMG = re.compile(r'<img\b[^>]*\bsrc="data:image/png;base64,([A-Za-z0-9+/=\s]+)"')
_EXTERNAL = re.compile(
    r'\bsrc\s*=\s*["\']?(?:https?:)?//'
    r'|<link\b[^>]*\bhref\s*=\s*["\']?(?:https?:)?//'
    r'|\bimport\s*\(\s*["\'](?:https?:)?//'
    r'|\burl\(\s*["\']?(?:https?:)?//'
    r'|@import\s+["\']?(?:url\()?["\']?(?:https?:)?//',
    re.I,
)


def png_outputs(notebook: Path) -> int:
    """The number of stored ``image/png`` outputs of a notebook.

    Example:
        >>> png_outputs(ROOT / "notebooks" / "maml_sine.ipynb") > 0
        True
    """
    nb = json.loads(notebook.read_text())
    return sum(
        "image/png" in out.get("data", {})
        for cell in nb["cells"]
        if cell["cell_type"] == "code"
        for out in cell.get("outputs", [])
    )


def check_image(data: str) -> str | None:
    """``None`` if ``data`` (base64) is a PNG image with more than one colour, else why not.

    Example:
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import matplotlib.pyplot as plt
        >>> fig = plt.figure(figsize=(1, 1)); _ = plt.plot([0, 1]); buf = io.BytesIO()
        >>> fig.savefig(buf, format="png"); plt.close(fig)
        >>> check_image(base64.b64encode(buf.getvalue()).decode()) is None
        True
    """
    import matplotlib.image as mpimg  # late import: only this check needs matplotlib
    import numpy as np

    raw = base64.b64decode(re.sub(r"\s", "", data))
    if not raw.startswith(b"\x89PNG\r\n\x1a\n"):
        return "not a PNG"
    try:
        pixels = mpimg.imread(io.BytesIO(raw), format="png")
    except Exception as e:  # a truncated or corrupt PNG: report it, do not stop the check
        return f"does not decode ({type(e).__name__}: {e})"
    if pixels.ndim < 2 or min(pixels.shape[:2]) < 10:
        return f"implausible size {pixels.shape}"
    flat = pixels.reshape(-1, pixels.shape[-1]) if pixels.ndim == 3 else pixels.reshape(-1, 1)
    if np.all(flat == flat[0]):
        return "blank (one colour)"
    return None


def check_notebooks(site: Path) -> list[str]:
    problems = []
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if not notebooks:
        problems.append("no notebooks found under notebooks/")
    for nb in notebooks:
        page = site / "notebooks" / nb.stem / "index.html"
        if not page.exists():
            problems.append(f"{nb.name}: no built page {page.relative_to(site)}")
            continue
        images = _IMG.findall(page.read_text())
        want = png_outputs(nb)
        if len(images) != want:
            problems.append(
                f"{nb.name}: the page holds {len(images)} PNG images, the notebook {want}"
            )
        for k, data in enumerate(images):
            why = check_image(data)
            if why:
                problems.append(f"{nb.name}: image {k + 1}: {why}")
    return problems


def check_reference(site: Path) -> list[str]:
    import reference  # docs/hooks/reference.py

    ids: set[str] = set()
    for html in (site / "reference").rglob("*.html"):
        ids |= set(re.findall(r'\bid="([^"]+)"', html.read_text()))
    missing = [
        f"{ns}.{name}"
        for page in reference.pages()
        for ns, name in page.entries()
        if f"{ns}.{name}" not in ids
    ]
    from ftransforms.public_api import NAMESPACES, public_names

    expected = {(ns, n) for ns in NAMESPACES for n in public_names(ns)}
    listed = {e for page in reference.pages() for e in page.entries()}
    unlisted = sorted(expected - listed)
    return [f"public name without a reference entry: {m}" for m in missing] + [
        f"public name on no reference page: {ns}.{n}" for ns, n in unlisted
    ]


def check_offline(site: Path) -> list[str]:
    problems = []
    for path in sorted([*site.rglob("*.html"), *site.rglob("*.css")]):
        for m in _EXTERNAL.finditer(path.read_text(errors="replace")):
            snippet = path.read_text(errors="replace")[m.start() : m.start() + 80]
            problems.append(f"{path.relative_to(site)} fetches from the network: {snippet!r}")
    return problems


_PROBE = """<script>
window.addEventListener("load", () => {
  const imgs = [...document.images].filter((i) => i.src.startsWith("data:image/png"));
  document.body.setAttribute("data-probe", JSON.stringify(
    imgs.map((i) => [i.complete, i.naturalWidth, i.naturalHeight])));
});
</script>"""


def browser() -> str | None:
    """The path of a Chromium binary, or ``None``."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    return None


def check_in_browser(site: Path, binary: str) -> list[str]:
    """Load each notebook page in headless Chromium (a copy with a probe script, next to
    the page so that its assets resolve) and check every PNG image decoded."""
    problems = []
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        page = site / "notebooks" / nb.stem / "index.html"
        if not page.exists():
            continue  # reported by check_notebooks
        with tempfile.NamedTemporaryFile(
            "w", suffix=".html", dir=page.parent, delete=False
        ) as probe:
            probe.write(page.read_text().replace("</body>", _PROBE + "</body>"))
        try:
            dom = subprocess.run(
                [
                    binary,
                    "--headless=new",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--virtual-time-budget=10000",
                    "--dump-dom",
                    Path(probe.name).as_uri(),
                ],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            ).stdout
        finally:
            Path(probe.name).unlink()
        m = re.search(r'data-probe="([^"]*)"', dom)
        if not m:
            problems.append(f"{nb.name}: the browser did not finish loading the page")
            continue
        images = json.loads(m.group(1).replace("&quot;", '"'))
        if len(images) != png_outputs(nb):
            problems.append(f"{nb.name}: the browser shows {len(images)} PNG images")
        for k, (complete, width, height) in enumerate(images):
            if not (complete and width > 0 and height > 0):
                problems.append(f"{nb.name}: image {k + 1} did not decode in the browser")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Run every check on the built site; print the problems; 0 when there are none."""
    args = sys.argv[1:] if argv is None else argv
    site = Path(args[0]) if args else ROOT / "site"
    if not (site / "index.html").exists():
        print(f"check_site: no built site at {site} (run mkdocs build --strict first)")
        return 1
    problems = check_notebooks(site) + check_reference(site) + check_offline(site)
    if not (site / "objects.inv").exists():
        problems.append("objects.inv was not written")
    binary = browser()
    if binary:
        problems += check_in_browser(site, binary)
        print(f"check_site: notebook pages loaded in {Path(binary).name}")
    else:
        print("check_site: no Chromium on the PATH: the in-browser image check did not run")
    for p in problems:
        print(f"check_site: {p}")
    pages = len(list(site.rglob("index.html")))
    n_images = sum(png_outputs(nb) for nb in (ROOT / "notebooks").glob("*.ipynb"))
    print(
        f"check_site: {pages} pages, {n_images} notebook images checked, {len(problems)} problem(s)"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
