"""Every public name has a docstring with an ``Example:`` that runs.

``tests/test_docs_and_demo.py`` runs the examples of each module with ``doctest.testmod``;
that reaches the functions and classes a module defines.  This file checks the other half:
that every name a user can reach through a public namespace (``ftransforms.__all__``,
``ftransforms.numpy``, its ``linalg``/``fft``, ``nn``, ``random``, ``scipy.*``,
``distributed``, ``testing``, ``errors``) has an ``Example:`` section, and runs the
examples ``testmod`` cannot find (operators that are :class:`Primitive` instances, like
``fnp.sin``, carry their docstring on the instance).
"""

from __future__ import annotations

import doctest
import importlib
import inspect
from functools import cache

import pytest

from ftransforms.public_api import NAMESPACES, public_names


def _all_names() -> list[str]:
    return [f"{ns}:{n}" for ns in NAMESPACES for n in public_names(ns)]


@cache
def _testmod_reaches() -> frozenset[int]:
    """ids of the objects whose examples ``doctest.testmod`` of their own module runs."""
    finder = doctest.DocTestFinder()
    reached = set()
    for ns in NAMESPACES:
        module = importlib.import_module(ns)
        for name in public_names(ns):
            obj = getattr(module, name)
            home = inspect.getmodule(obj)
            if home is None:
                continue
            for test in finder.find(home):
                if test.name.rsplit(".", 1)[-1] == getattr(obj, "__name__", None):
                    reached.add(id(obj))
    return frozenset(reached)


@pytest.mark.parametrize("qualname", _all_names())
def test_public_name_has_a_running_example(qualname: str) -> None:
    namespace, name = qualname.split(":")
    obj = getattr(importlib.import_module(namespace), name)
    doc = inspect.getdoc(obj) or ""
    assert "Example" in doc and ">>>" in doc, (
        f"{namespace}.{name} has no 'Example:' section with a '>>>' line in its docstring: "
        "add one that runs (it is executed by the tests)"
    )
    if id(obj) in _testmod_reaches():
        return  # tests/test_docs_and_demo.py runs it with its module
    # The names the example may use without importing them: its namespace's, as testmod
    # gives a module's examples that module's globals.
    globs = dict(vars(importlib.import_module(namespace)))
    test = doctest.DocTestParser().get_doctest(doc, globs, f"{namespace}.{name}", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    failures: list[str] = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
