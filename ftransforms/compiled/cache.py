"""The on-disk cache of compiled programs: generated kernel modules, written once under a
name that hashes their source and the versions that compiled them, so that numba's own
cache (``cache=True``, keyed by the module file, numba's version and the CPU) finds them
again in a later process.

The directory is ``$FTRANSFORMS_CACHE_DIR``, else ``$XDG_CACHE_HOME/ftransforms``, else
``~/.cache/ftransforms`` (a ``compiled`` folder in it); a private temporary folder when
that cannot be written (then nothing outlives the process).

Example:
    >>> mod = load_module("def k0(a0):\\n    return a0\\n")
    >>> mod.k0(3)
    3
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import platform
import sys
import tempfile
from pathlib import Path
from types import ModuleType

__all__ = ["cache_dir", "load_module"]

_DIR: Path | None = None


def cache_dir() -> Path:
    """The folder compiled programs are kept in (created on first use)."""
    global _DIR
    if _DIR is None:
        root = os.environ.get("FTRANSFORMS_CACHE_DIR")
        if not root:
            base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
            root = os.path.join(base, "ftransforms")
        path = Path(root) / "compiled"
        try:
            path.mkdir(parents=True, exist_ok=True)
            probe = path / f".probe{os.getpid()}"
            probe.write_text("")
            probe.unlink()
        except OSError:
            path = Path(tempfile.mkdtemp(prefix="ftransforms-compiled-"))
        _DIR = path
    return _DIR


def _versions() -> str:
    import numpy

    try:
        import numba  # the compiled tier's optional dependency; only present with it

        nb = numba.__version__
    except ImportError:
        nb = "-"
    return f"{sys.version}|{numpy.__version__}|{nb}|{platform.machine()}"


def load_module(source: str) -> ModuleType:
    """Import ``source`` from the cache folder, writing it there first if it is new (under
    a content hash, atomically, never rewritten: its timestamp is part of numba's key)."""
    key = hashlib.sha256((_versions() + "\n" + source).encode()).hexdigest()[:32]
    name = f"ft_{key}"
    path = cache_dir() / f"{name}.py"
    if not path.exists():
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(source)
        os.replace(tmp, path)
    modname = f"ftransforms_compiled_{key}"
    if modname in sys.modules:
        return sys.modules[modname]
    spec = importlib.util.spec_from_file_location(modname, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module  # numba's cache finds a function's module by name
    spec.loader.exec_module(module)
    return module
