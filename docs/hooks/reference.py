"""mkdocs hook: the API reference pages, generated at build time from the live modules.

Every public name (the definition of ``tests/test_public_examples.py``: a namespace's
``__all__``, or its names without a leading underscore, less submodules and NumPy's own
dtypes and constants) gets one entry whose HTML id is ``<namespace>.<name>``.  Functions
and classes are rendered by mkdocstrings (signature with type hints, docstring, its
``Example:``); objects that static analysis cannot see, the operators that are
``Primitive`` instances (``fnp.sin``, ``ftransforms.scipy.special.erf``) and other
instances (``ftransforms.scipy.stats.norm``, ``fnp.r_``), are rendered here from their
live ``__doc__``.  The page list is also put into the navigation.

``python docs/hooks/reference.py`` prints the pages' paths and entry counts.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ftransforms.public_api import public_names

#: The top-level namespace's names, grouped by the module that defines them.
TOP_GROUPS = {
    "ftransforms.api": "Transforms",
    "ftransforms.control": "Control flow",
    "ftransforms.checkpoint": "Memory: checkpoint",
    "ftransforms.jit": "jit",
    "ftransforms.custom": "Custom derivatives",
    "ftransforms.pytree": "Pytrees",
    "ftransforms.core.primitive": "Primitives",
    "ftransforms.linear_transpose": "Transforms",
    "ftransforms.scans": "Control flow",
    "ftransforms.custom_batching": "Custom batching",
    "ftransforms.callbacks": "Callbacks",
    "ftransforms.shape_eval": "Shapes and dtypes",
    "ftransforms.implicit": "Implicit differentiation",
    "ftransforms.jet": "Taylor mode",
    "ftransforms.tree_util": "Pytrees",
    "ftransforms.autograd_compat": "autograd's names",
    "ftransforms.sync": "Devices",
    "ftransforms.naming": "Debugging",
    "ftransforms.runtime": "Devices",
}

#: One line per chapter of ``ftransforms.numpy``, in the reference's order.
CHAPTERS = {
    "ufuncs": "Elementwise operators (ufuncs), casting, rounding, complex parts, clip",
    "creation": "Array creation: array/asarray, zeros/ones/full(_like), eye",
    "ranges": "Ranges and grids: arange, linspace, logspace, meshgrid",
    "manipulation": "Shape manipulation: reshape, transpose, broadcast, concatenate, stack",
    "rearranging": "Rearranging: split, flip, roll, tile, repeat, pad, block, insert, delete",
    "indexing": "Indexing: x[i], x.at[i], take, where, nonzero, index builders",
    "index_tricks": "Index tricks: r_, c_, s_, ix_",
    "reductions": "Reductions: sum/prod/max/min/mean/var/std, nan*, cumulative, diff",
    "statistics": "Statistics: median, quantile, cov, histogram",
    "logic": "Logic: allclose, isclose, array_equal, isreal",
    "mathematical": "Mathematical functions: hypot, logaddexp, copysign, sinc, nan_to_num",
    "sorting": "Sorting and searching: sort, argsort, partition, searchsorted",
    "sets": "Set routines: unique, union1d, isin",
    "products": "Products: matmul, dot, einsum, tensordot, kron, cross, trace",
    "matrices": "Matrices: diag, tril/triu, vander",
    "signal": "Signal processing: convolve, interp, gradient, unwrap",
    "polynomials": "Polynomials: polyval, polyfit, polymul, roots",
    "functional": "Functional programming: apply_along_axis, apply_over_axes, piecewise",
    "dtypes": "Data types: result_type, can_cast",
    "helpers": "Helpers: shape, ndim, size, put, place, fill_diagonal",
}

#: Pages of the other namespaces: (path, title, namespace).
NAMESPACE_PAGES = [
    ("reference/numpy/linalg.md", "ftransforms.numpy.linalg", "ftransforms.numpy.linalg"),
    ("reference/numpy/fft.md", "ftransforms.numpy.fft", "ftransforms.numpy.fft"),
    ("reference/nn.md", "ftransforms.nn", "ftransforms.nn"),
    (
        "reference/nn_initializers.md",
        "ftransforms.nn.initializers",
        "ftransforms.nn.initializers",
    ),
    ("reference/random.md", "ftransforms.random", "ftransforms.random"),
    ("reference/scipy/special.md", "ftransforms.scipy.special", "ftransforms.scipy.special"),
    ("reference/scipy/stats.md", "ftransforms.scipy.stats", "ftransforms.scipy.stats"),
    ("reference/scipy/linalg.md", "ftransforms.scipy.linalg", "ftransforms.scipy.linalg"),
    ("reference/scipy/signal.md", "ftransforms.scipy.signal", "ftransforms.scipy.signal"),
    ("reference/scipy/integrate.md", "ftransforms.scipy.integrate", "ftransforms.scipy.integrate"),
    ("reference/scipy/optimize.md", "ftransforms.scipy.optimize", "ftransforms.scipy.optimize"),
    ("reference/scipy/fft.md", "ftransforms.scipy.fft", "ftransforms.scipy.fft"),
    ("reference/scipy/ndimage.md", "ftransforms.scipy.ndimage", "ftransforms.scipy.ndimage"),
    (
        "reference/scipy/sparse_linalg.md",
        "ftransforms.scipy.sparse.linalg",
        "ftransforms.scipy.sparse.linalg",
    ),
    (
        "reference/scipy/interpolate.md",
        "ftransforms.scipy.interpolate",
        "ftransforms.scipy.interpolate",
    ),
    (
        "reference/scipy/spatial_distance.md",
        "ftransforms.scipy.spatial.distance",
        "ftransforms.scipy.spatial.distance",
    ),
    (
        "reference/scipy/spatial_transform.md",
        "ftransforms.scipy.spatial.transform",
        "ftransforms.scipy.spatial.transform",
    ),
    (
        "reference/scipy/cluster_vq.md",
        "ftransforms.scipy.cluster.vq",
        "ftransforms.scipy.cluster.vq",
    ),
    ("reference/image.md", "ftransforms.image (jax.image)", "ftransforms.image"),
    ("reference/lax.md", "ftransforms.lax (jax.lax)", "ftransforms.lax"),
    (
        "reference/experimental_ode.md",
        "ftransforms.experimental.ode (jax.experimental.ode)",
        "ftransforms.experimental.ode",
    ),
    (
        "reference/experimental_jet.md",
        "ftransforms.experimental.jet (jax.experimental.jet)",
        "ftransforms.experimental.jet",
    ),
    ("reference/dtypes.md", "ftransforms.dtypes (jax.dtypes)", "ftransforms.dtypes"),
    (
        "reference/custom_derivatives.md",
        "ftransforms.custom_derivatives (jax.custom_derivatives)",
        "ftransforms.custom_derivatives",
    ),
    (
        "reference/lax_linalg.md",
        "ftransforms.lax.linalg (jax.lax.linalg)",
        "ftransforms.jax_lax_linalg",
    ),
    ("reference/distributed.md", "ftransforms.distributed", "ftransforms.distributed"),
    ("reference/testing.md", "ftransforms.testing", "ftransforms.testing"),
    ("reference/errors.md", "ftransforms.errors", "ftransforms.errors"),
    ("reference/debug.md", "ftransforms.debug", "ftransforms.debug"),
    ("reference/tree_util.md", "ftransforms.tree_util", "ftransforms.tree_util"),
    ("reference/tree.md", "ftransforms.tree", "ftransforms.tree"),
    ("reference/flatten_util.md", "ftransforms.flatten_util", "ftransforms.flatten_util"),
    ("reference/misc.md", "ftransforms.misc (autograd.misc)", "ftransforms.misc"),
    (
        "reference/misc_optimizers.md",
        "ftransforms.misc.optimizers (autograd.misc.optimizers)",
        "ftransforms.misc.optimizers",
    ),
    ("reference/extend.md", "ftransforms.extend (autograd.extend)", "ftransforms.extend"),
    (
        "reference/example_libraries_optimizers.md",
        "ftransforms.example_libraries.optimizers (jax.example_libraries.optimizers)",
        "ftransforms.example_libraries.optimizers",
    ),
    (
        "reference/example_libraries_stax.md",
        "ftransforms.example_libraries.stax (jax.example_libraries.stax)",
        "ftransforms.example_libraries.stax",
    ),
]


@dataclass
class Page:
    """One generated page: its path under docs/, title, and entries (namespace, name)."""

    path: str
    title: str
    intro: str = ""
    groups: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)

    def entries(self) -> Iterator[tuple[str, str]]:
        for _, entries in self.groups:
            yield from entries


def _fnp_chapter(name: str) -> str:
    """The chapter module of ``ftransforms.numpy`` that a top-level name belongs to."""
    fnp = importlib.import_module("ftransforms.numpy")
    obj = getattr(fnp, name)
    home = getattr(obj, "__module__", None) or ""
    if home.startswith("ftransforms.numpy."):
        chapter = home.rsplit(".", 1)[1]
        if chapter in CHAPTERS:
            return chapter
    for chapter in CHAPTERS:
        module = importlib.import_module(f"ftransforms.numpy.{chapter}")
        if name in getattr(module, "__all__", ()):
            return chapter
    raise LookupError(f"ftransforms.numpy.{name}: no chapter module lists it in __all__")


def pages() -> list[Page]:
    """Every generated reference page, with the public names it documents.

    Example:
        >>> ps = pages()
        >>> ps[1].path, ps[1].groups[0][1][0]
        ('reference/ftransforms.md', ('ftransforms', 'grad'))
    """
    out = [Page("reference/index.md", "API reference")]
    top = importlib.import_module("ftransforms")
    groups: dict[str, list[tuple[str, str]]] = {title: [] for title in TOP_GROUPS.values()}
    for name in public_names("ftransforms"):
        home = getattr(getattr(top, name), "__module__", "")
        groups.setdefault(TOP_GROUPS.get(home, "Other"), []).append(("ftransforms", name))
    out.append(
        Page(
            "reference/ftransforms.md",
            "ftransforms",
            "The transforms and everything around them (`import ftransforms as ft`).",
            [(t, e) for t, e in groups.items() if e],
        )
    )
    chapters: dict[str, list[tuple[str, str]]] = {c: [] for c in CHAPTERS}
    for name in public_names("ftransforms.numpy"):
        chapters[_fnp_chapter(name)].append(("ftransforms.numpy", name))
    out.append(Page("reference/numpy/index.md", "ftransforms.numpy"))
    for chapter, entries in chapters.items():
        if entries:
            title = CHAPTERS[chapter].split(":")[0]
            out.append(
                Page(
                    f"reference/numpy/{chapter}.md",
                    f"fnp: {title}",
                    CHAPTERS[chapter] + " (in `ftransforms.numpy`, imported as `fnp`).",
                    [("", entries)],
                )
            )
    for path, title, namespace in NAMESPACE_PAGES:
        entries = [(namespace, n) for n in public_names(namespace)]
        out.append(Page(path, title, "", [("", entries)]))
    return out


# ---------------------------------------------------------------------------------------
# rendering


@functools.cache
def _griffe_package() -> Any:
    import griffe  # late import: installed with the docs extra, only the build needs it

    return griffe.load("ftransforms", search_paths=["."], resolve_aliases=True)


def _static_kind(ident: str, obj: Any) -> bool:
    """Whether mkdocstrings renders ``ident``: a function or class that griffe's static
    analysis finds under that path (``fnp.amax = max`` or a ``Primitive`` it does not)."""
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        return False
    try:
        found = _griffe_package()[ident.split(".", 1)[1]]
        target = found.final_target if found.is_alias else found
    except Exception:  # griffe raises KeyError or AliasResolutionError for what it misses
        return False
    return target.kind.value in ("function", "class")


_ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|exc|obj|py:\w+):`(~?)([^`]+)`")


def strip_roles(text: str) -> str:
    """Sphinx cross-reference roles as inline code (``~`` keeps only the last name).

    Example:
        >>> strip_roles("Like :func:`~ftransforms.api.grad` or :class:`fnp.Primitive`.")
        'Like ``grad`` or ``fnp.Primitive``.'
    """

    def code(m: re.Match) -> str:
        name = m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2)
        return f"``{name}``"

    return _ROLE.sub(code, text)


def doc_to_markdown(doc: str | None) -> str:
    r"""A Google- or NumPy-style docstring as Markdown: section titles in bold, their bodies
    dedented, and each run of ``>>>`` lines (with its expected output) as a code block.

    Example:
        >>> md = doc_to_markdown("Twice.\n\nExample:\n    >>> 2 * 2\n    4\n")
        >>> md.splitlines()[:4], md.count("```")
        (['Twice.', '', '**Example**', ''], 2)
    """
    if not doc:
        return "*(no docstring)*"
    lines = strip_roles(inspect.cleandoc(doc)).splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if re.fullmatch(r"[A-Z][\w ]*:", line) and nxt.startswith((" ", "\t")):
            body = []
            i += 1
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith((" ", "\t"))):
                body.append(lines[i])
                i += 1
            out += ["", f"**{line[:-1]}**", ""]
            out += _code_runs(textwrap.dedent("\n".join(body)).strip("\n").splitlines())
            continue
        if re.fullmatch(r"[A-Z][\w ]*", line) and re.fullmatch(r"-{3,}", nxt.strip()):
            out += ["", f"**{line}**", ""]
            i += 2
            continue
        out.append(line)
        i += 1
    text = "\n".join(_code_runs(out)).strip("\n")
    return re.sub(r"\n{3,}", "\n\n", text)


def _code_runs(lines: list[str]) -> list[str]:
    """Wrap each run of doctest lines (``>>>`` to the next blank line) in a pycon fence;
    lines already inside a fence are left alone."""
    out: list[str] = []
    in_fence = False
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith("```"):
            in_fence = not in_fence
        elif not in_fence and lines[i].lstrip().startswith(">>>"):
            indent = len(lines[i]) - len(lines[i].lstrip())
            run = []
            while i < len(lines) and lines[i].strip():
                run.append(lines[i][indent:])
                i += 1
            out += ["```pycon", *run, "```"]
            continue
        out.append(lines[i])
        i += 1
    return out


def _signature_line(name: str, obj: Any) -> str | None:
    ufunc = getattr(obj, "ufunc", None)
    nin = getattr(ufunc, "nin", None)
    if isinstance(nin, int):
        args = ["x"] if nin == 1 else [f"x{k + 1}" for k in range(nin)]
        return f"{name}({', '.join(args)}, /)"
    if callable(obj) and not type(obj).__name__ == "Primitive":
        try:
            sig = inspect.signature(obj)
        except (TypeError, ValueError):
            return None
        return f"{name}({_format_parameters(sig)})" + (
            ""
            if sig.return_annotation is sig.empty
            else f" -> {_annotation(sig.return_annotation)}"
        )
    return None


def _annotation(ann: Any) -> str:
    return ann if isinstance(ann, str) else inspect.formatannotation(ann)


def _format_parameters(sig: inspect.Signature) -> str:
    """Parameters with their annotations unquoted (the modules use postponed annotations)."""
    out, kw_marked, pos_only = [], False, False
    for p in sig.parameters.values():
        if p.kind is p.POSITIONAL_ONLY:
            pos_only = True
        elif pos_only:
            out.append("/")
            pos_only = False
        if p.kind is p.KEYWORD_ONLY and not kw_marked:
            out.append("*")
            kw_marked = True
        text = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name
        if p.kind is p.VAR_POSITIONAL:
            kw_marked = True
        if p.annotation is not p.empty:
            text += f": {_annotation(p.annotation)}"
        if p.default is not p.empty:
            text += (" = " if p.annotation is not p.empty else "=") + repr(p.default)
        out.append(text)
    if pos_only:
        out.append("/")
    return ", ".join(out)


def _kind(obj: Any) -> str:
    cls = type(obj)
    if inspect.isroutine(obj) or inspect.isclass(obj):
        home = getattr(obj, "__module__", None)
        return f"{'class' if inspect.isclass(obj) else 'function'} (`{home}.{obj.__qualname__}`)"
    if cls.__name__ == "Primitive":
        ufunc = getattr(obj, "ufunc", None)
        extra = f"; answers `{ufunc.__class__.__module__}.{ufunc.__name__}`" if ufunc else ""
        if ufunc is not None and cls.__module__ and ufunc.__class__.__module__ == "numpy":
            extra = f"; answers the NumPy ufunc `numpy.{ufunc.__name__}` on tracers"
        return f"operator (a `Primitive` instance{extra})"
    return f"instance of `{cls.__module__}.{cls.__qualname__}`"


def render_instance(namespace: str, name: str, obj: Any, level: int) -> str:
    """An entry for an object mkdocstrings cannot see: heading with the id
    ``namespace.name``, its kind, a signature where one is known, and its docstring."""
    ident = f"{namespace}.{name}"
    heading = f'{"#" * level} `{ident}` {{ #{ident} data-toc-label="{name}" }}'
    parts = [heading, "", f"*{_kind(obj)}*", ""]
    sig = _signature_line(name, obj)
    if sig:
        parts += ["```python", sig, "```", ""]
    parts += [doc_to_markdown(obj.__doc__), ""]
    methods = [
        (m, getattr(obj, m))
        for m in dir(type(obj))
        if not m.startswith("_") and callable(getattr(obj, m, None))
    ]
    if methods and not (inspect.isroutine(obj) or type(obj).__name__ == "Primitive"):
        parts += ["**Methods**", ""]
        for m, fn in methods:
            try:
                sig = f"({_format_parameters(inspect.signature(fn))})"
            except (TypeError, ValueError):
                sig = "(...)"
            first = (inspect.getdoc(fn) or "").strip().split("\n\n")[0].replace("\n", " ")
            parts.append(f"- `{name}.{m}{sig}`" + (f": {first}" if first else ""))
        parts.append("")
    return "\n".join(parts)


def render(page: Page) -> str:
    """The Markdown source of one generated page.

    Example:
        >>> "ftransforms.vmap" in render(pages()[1])
        True
    """
    if page.path == "reference/index.md":
        return _render_index()
    if page.path == "reference/numpy/index.md":
        return _render_numpy_index()
    parts = [f"# {page.title}", ""]
    if page.intro:
        parts += [page.intro, ""]
    for title, entries in page.groups:
        level = 2
        if title:
            parts += [f"## {title}", ""]
            level = 3
        for namespace, name in entries:
            obj = getattr(importlib.import_module(namespace), name)
            if _static_kind(f"{namespace}.{name}", obj):
                parts += [
                    f"::: {namespace}.{name}",
                    "    options:",
                    f"      heading_level: {level}",
                    "",
                ]
            else:
                parts += [render_instance(namespace, name, obj, level), ""]
    return "\n".join(parts)


def _render_index() -> str:
    rows = ["| page | names |", "|---|---|"]
    for page in pages()[1:]:
        if page.path.endswith("index.md"):
            continue
        link = page.path.removeprefix("reference/")
        rows.append(f"| [{page.title}]({link}) | {sum(1 for _ in page.entries())} |")
    return "\n".join(
        [
            "# API reference",
            "",
            "Every public name of ftransforms, with its signature, type hints, docstring and",
            "example, generated from the installed code at build time by",
            "`docs/hooks/reference.py` (`tests/test_docs_pages.py` checks that no public name",
            "is missing). Operators such as `fnp.sin` are `Primitive` instances; their entry",
            "shows the operator's own documentation.",
            "",
            *rows,
            "",
            "`ftransforms.scipy` itself only holds its submodules. NumPy's own dtypes and",
            "constants that `ftransforms.numpy` re-exports (`fnp.float32`, `fnp.pi`) are",
            "documented by NumPy.",
            "",
        ]
    )


def _render_numpy_index() -> str:
    rows = ["| chapter | names |", "|---|---|"]
    for page in pages():
        if page.path.startswith("reference/numpy/") and not page.path.endswith("index.md"):
            link = page.path.removeprefix("reference/numpy/")
            rows.append(f"| [{page.title}]({link}) | {sum(1 for _ in page.entries())} |")
    return "\n".join(
        [
            "# ftransforms.numpy",
            "",
            "`import ftransforms.numpy as fnp`: NumPy's API on arrays and tracers, one page",
            "per chapter of NumPy's reference. Each function is also what `numpy.<name>`",
            "calls on a tracer.",
            "",
            "::: ftransforms.numpy",
            "    options:",
            "      show_root_heading: false",
            "      members: false",
            "",
            *rows,
            "",
        ]
    )


# ---------------------------------------------------------------------------------------
# mkdocs events


def on_config(config: Any) -> Any:
    """Put the generated pages into the navigation, in place of ``reference/index.md``."""
    reference: list[Any] = []
    numpy_pages: list[Any] = []
    for page in pages():
        if page.path.startswith("reference/numpy/"):
            numpy_pages.append({page.title: page.path})
        elif page.path != "reference/index.md":
            if page.path == "reference/nn.md":  # after the numpy chapters
                reference.append({"ftransforms.numpy": numpy_pages})
            reference.append({page.title: page.path})
    reference.insert(0, "reference/index.md")
    for i, item in enumerate(config["nav"] or []):
        if isinstance(item, dict) and list(item.values()) == ["reference/index.md"]:
            config["nav"][i] = {list(item)[0]: reference}
    return config


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages."""
    from mkdocs.structure.files import File  # late import: only mkdocs loads this hook

    for page in pages():
        files.append(File.generated(config, page.path, content=render(page)))
    return files


if __name__ == "__main__":
    for p in pages():
        print(f"{p.path}: {sum(1 for _ in p.entries())} names")
