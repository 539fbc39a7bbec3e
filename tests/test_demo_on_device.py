"""``python -m ftransforms.demo --device cuda`` without a GPU: the demo's GPU path runs on
the strict CuPy stand-in (``ftransforms.strict_backend``), given CuPy's interoperability for
the length of the test, so that a host array the demo makes next to the device arrays
(``np.eye`` as cotangents or tangents, say) fails here as it fails on the GPU.

The stand-in alone is stricter than CuPy: a NumPy function or ufunc on a StrictArray raises,
where CuPy (NEP 13/18) runs it on the device.  The demo's model is plain NumPy run on
device arrays (``np.tanh(x @ w.T + b)`` on untransformed ones too), so the test gives
StrictArray that dispatch, and keeps CuPy's refusal of a ``numpy.ndarray`` among the
arguments."""

from __future__ import annotations

from typing import Any

import numpy
import pytest

from ftransforms import strict_backend
from ftransforms.strict_backend import StrictArray


def _check_devices(name: str, args: Any) -> bool:
    """True when every array among ``args`` is a StrictArray; False when some other array
    type (a tracer) should answer; TypeError on a host array, as CuPy raises."""
    stack, ok = [args], True
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif type(v) is numpy.ndarray:
            raise TypeError(f"{name}: a numpy.ndarray mixed with device arrays (CuPy refuses)")
        elif not (
            type(v) is StrictArray
            or v is None
            or isinstance(
                v, (numpy.generic, int, float, complex, bool, str, slice, type, numpy.dtype)
            )
        ):
            ok = ok and not hasattr(v, "__array_ufunc__")
    return ok


def _namespace_of(func: Any) -> Any:
    ns = strict_backend.xp
    for part in func.__module__.split(".")[1:]:  # numpy.linalg.norm -> xp.linalg.norm
        ns = getattr(ns, part)
    return ns


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    if not _check_devices(f"numpy.{ufunc.__name__}", (inputs, kwargs)):
        return NotImplemented
    fn = getattr(strict_backend.xp, ufunc.__name__)
    return fn(*inputs, **kwargs) if method == "__call__" else getattr(fn, method)(*inputs, **kwargs)


def _array_function(self, func, types, args, kwargs):
    if any(t is not StrictArray for t in types):
        return NotImplemented
    _check_devices(f"numpy.{func.__name__}", (args, kwargs))
    return getattr(_namespace_of(func), func.__name__)(*args, **kwargs)


@pytest.fixture
def cupy_like_strict_gpu(monkeypatch):
    """The demo's ``--device cuda`` gets the stand-in; StrictArray dispatches as CuPy."""
    from ftransforms import demo

    monkeypatch.setattr(StrictArray, "__array_ufunc__", _array_ufunc)
    monkeypatch.setattr(StrictArray, "__array_function__", _array_function)
    monkeypatch.setattr(
        demo, "_device", lambda name: (strict_backend.xp, lambda: None) if name == "cuda" else 1 / 0
    )
    return demo


def test_demo_gpu_path_keeps_every_array_on_the_device(cupy_like_strict_gpu, capsys):
    pytest.importorskip("sklearn", reason="the demo's data ships with scikit-learn")
    demo = cupy_like_strict_gpu
    code = demo.main(["--device", "cuda", "--batch", "8", "--tasks", "2", "--repeat", "1"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "CuPy on the GPU" in out and "all results match the naive loop" in out


def test_the_stand_in_refuses_a_host_array_as_cupy_does(cupy_like_strict_gpu):
    """The check has teeth: the demo's former ``np.eye`` cotangents fail here."""
    from ftransforms import vjp
    from ftransforms.errors import MixedBackendError

    demo = cupy_like_strict_gpu
    params = [
        (strict_backend.asarray(w), strict_backend.asarray(b))
        for w, b in demo.init_mlp(numpy.random.default_rng(0), [4, 3], numpy.float32)
    ]
    x = strict_backend.asarray(numpy.ones(4, numpy.float32))
    out, vjp_fn = vjp(lambda v: demo.mlp(params, v), x)
    assert type(numpy.tanh(x)) is StrictArray  # NumPy on device arrays stays there
    with pytest.raises(MixedBackendError, match="cannot mix"):
        vjp_fn(numpy.eye(out.size, dtype=numpy.float32)[0])
    with pytest.raises(TypeError, match="CuPy refuses"):
        numpy.add(x, numpy.ones(4, numpy.float32))
