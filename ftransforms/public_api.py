"""The public API: the namespaces users import and the names each one documents.

One definition for the API reference (``docs/hooks/reference.py``) and for the tests
that every public name has a running example (``tests/test_public_examples.py``) and a
reference entry (``tests/test_docs_pages.py``).  A name is public when its namespace's
``__all__`` lists it, leaving out submodules and what NumPy itself exports and documents
(``fnp.float32``, ``fnp.pi``).

Example:
    >>> from ftransforms.public_api import NAMESPACES, public_names
    >>> "ftransforms.numpy" in NAMESPACES, "vmap" in public_names("ftransforms")
    (True, True)
"""

from __future__ import annotations

import importlib
import types

__all__ = ["NAMESPACES", "public_names"]

#: The public namespaces, in the order the API reference presents them.
NAMESPACES = (
    "ftransforms",
    "ftransforms.numpy",
    "ftransforms.numpy.linalg",
    "ftransforms.numpy.fft",
    "ftransforms.nn",
    "ftransforms.nn.initializers",
    "ftransforms.random",
    "ftransforms.scipy",
    "ftransforms.scipy.special",
    "ftransforms.scipy.stats",
    "ftransforms.scipy.linalg",
    "ftransforms.scipy.signal",
    "ftransforms.scipy.integrate",
    "ftransforms.scipy.optimize",
    "ftransforms.scipy.fft",
    "ftransforms.scipy.ndimage",
    "ftransforms.scipy.interpolate",
    "ftransforms.scipy.spatial.distance",
    "ftransforms.scipy.spatial.transform",
    "ftransforms.scipy.ndimage",
    "ftransforms.scipy.interpolate",
    "ftransforms.scipy.sparse.linalg",
    "ftransforms.scipy.cluster.vq",
    "ftransforms.image",
    "ftransforms.lax",
    "ftransforms.experimental.ode",
    "ftransforms.experimental.jet",
    "ftransforms.dtypes",
    "ftransforms.custom_derivatives",
    "ftransforms.jax_lax_linalg",
    "ftransforms.distributed",
    "ftransforms.testing",
    "ftransforms.errors",
    "ftransforms.debug",
    "ftransforms.tree_util",
    "ftransforms.tree",
    "ftransforms.flatten_util",
    "ftransforms.misc",
    "ftransforms.misc.optimizers",
    "ftransforms.example_libraries",
    "ftransforms.example_libraries.optimizers",
    "ftransforms.example_libraries.stax",
    "ftransforms.extend",
)


def _reexported_from_numpy(obj: object) -> bool:
    """NumPy's own dtypes and constants (``fnp.float32``, ``fnp.pi``): NumPy documents them."""
    if isinstance(obj, (int, float, type(None))):
        return True
    return isinstance(obj, type) and obj.__module__ == "numpy"


def public_names(namespace: str) -> list[str]:
    """The sorted public names of ``namespace`` (one of :data:`NAMESPACES`).

    Example:
        >>> "sin" in public_names("ftransforms.numpy")
        True
    """
    module = importlib.import_module(namespace)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    return sorted(
        n
        for n in names
        if not isinstance(getattr(module, n), types.ModuleType)
        and not _reexported_from_numpy(getattr(module, n))
    )
