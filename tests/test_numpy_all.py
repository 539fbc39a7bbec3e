"""``ftransforms.numpy.__all__``: the explicit list of public names stays in step with the
chapters it re-exports, and ``from ftransforms.numpy import *`` gives exactly those."""

from __future__ import annotations

import ast
import importlib
import inspect
from collections import Counter

import numpy as np

import ftransforms.numpy as fnp


def _chapters() -> list[str]:
    """The modules ``ftransforms/numpy/__init__.py`` star-imports, read from its source."""
    tree = ast.parse(inspect.getsource(fnp))
    return [
        node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and [a.name for a in node.names] == ["*"]
    ]


def test_all_is_the_chapters_exports_plus_the_submodules():
    chapters = _chapters()
    assert "ftransforms.numpy.reductions" in chapters and len(chapters) >= 20
    expected = {"fft", "linalg"}
    for name in chapters:
        expected |= set(importlib.import_module(name).__all__)
    duplicated = [n for n, k in Counter(fnp.__all__).items() if k > 1]
    assert not duplicated, f"listed twice in ftransforms.numpy.__all__: {duplicated}"
    missing = sorted(expected - set(fnp.__all__))
    extra = sorted(set(fnp.__all__) - expected)
    assert not missing, f"exported by a chapter but not in ftransforms.numpy.__all__: {missing}"
    assert not extra, f"in ftransforms.numpy.__all__ but exported by no chapter: {extra}"


def test_star_import_gives_exactly_all():
    namespace: dict = {}
    exec("from ftransforms.numpy import *", namespace)
    names = set(namespace) - {"__builtins__"}
    assert names == set(fnp.__all__)
    assert "annotations" not in names  # ``from __future__ import annotations`` is not public
    assert not {"reductions", "dispatch", "protocol", "array_methods"} & names
    # NumPy's dtypes and constants stay re-exported, and the functions are ours
    assert namespace["float32"] is np.float32 and namespace["pi"] == np.pi
    assert namespace["sum"] is fnp.sum and namespace["linalg"] is fnp.linalg
