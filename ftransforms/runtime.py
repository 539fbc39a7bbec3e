"""JAX's top-level runtime names that scripts and tests call: :func:`disable_jit`,
:func:`ensure_compile_time_eval`, :func:`clear_caches`, the devices
(:func:`default_backend`, :func:`devices`, :func:`device_count`, ...) and
:data:`config` (``jax.config.update("jax_enable_x64", True)``).

ftransforms runs where the arrays are: NumPy arrays on the CPU (the default backend: new
arrays from Python values are NumPy's), CuPy arrays on their GPU.  Its dtypes are NumPy's,
which are JAX's with ``jax_enable_x64`` on (``float64``/``int64`` defaults), so that
setting reads ``True`` and setting it again is accepted; turning it off is accepted with a
warning and changes nothing (cast to ``float32`` explicitly for 32-bit work).

Example:
    >>> import ftransforms as ft
    >>> ft.config.update("jax_enable_x64", True)
    >>> ft.default_backend(), ft.device_count()
    ('cpu', 1)
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

import numpy

from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.jit import JIT_OFF, JIT_OFF_EVERYWHERE, PROGRAM_CACHES
from ftransforms.shape_eval import ShapedArray, ShapeDtypeStruct

__all__ = [
    "Device",
    "clear_caches",
    "config",
    "default_backend",
    "device_count",
    "devices",
    "disable_jit",
    "ensure_compile_time_eval",
    "local_device_count",
    "local_devices",
    "process_count",
    "process_index",
    "typeof",
]


@contextlib.contextmanager
def disable_jit(disable: bool = True) -> Iterator[None]:
    """Inside the block, functions wrapped in :func:`ftransforms.jit` run their Python
    eagerly on every call (no recording, no replay), for ``print`` and ``pdb``: JAX's
    ``jax.disable_jit``.  Per thread; ``config.update("jax_disable_jit", True)`` turns jit
    off everywhere.  NOTE [disable_jit] in ``ftransforms/jit.py``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> calls = []
        >>> f = ft.jit(lambda x: calls.append(1) or x * 2)
        >>> with ft.disable_jit():
        ...     _ = f(np.ones(2)), f(np.ones(2))
        >>> len(calls)  # the Python body ran on both calls
        2
    """
    if not disable:
        yield
        return
    JIT_OFF.depth += 1
    try:
        yield
    finally:
        JIT_OFF.depth -= 1


def typeof(x: Any) -> ShapeDtypeStruct:
    """The shape and dtype of ``x`` (an array, a tracer inside a transform, or a Python or
    NumPy scalar) as a :class:`ftransforms.ShapeDtypeStruct` that prints as JAX's
    ``jax.typeof`` does (``float32[2,3]``; a Python number is ``weak_type``, its dtype
    NumPy's: ``float64``/``int64``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> ft.typeof(np.ones((2, 3), np.float32))
        ShapedArray(float32[2,3])
        >>> print(ft.typeof(2.0))
        ~float64[]
        >>> ft.vmap(lambda row: ft.typeof(row).shape[0] * row)(np.ones((2, 3)))[0].tolist()
        [3.0, 3.0, 3.0]
    """
    if isinstance(x, (bool, int, float, complex)):
        weak = not isinstance(x, bool)  # (JAX's bool is not weakly typed)
        return ShapedArray((), numpy.result_type(type(x)), weak_type=weak)
    shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
    if shape is None or dtype is None:
        raise TypeError(
            f"typeof(x): expected an array, a tracer or a scalar, got {type(x).__name__}; "
            f"map over a pytree with ft.tree_util.tree_map(ft.typeof, tree)"
        )
    return ShapedArray(shape, dtype)


@contextlib.contextmanager
def ensure_compile_time_eval() -> Iterator[None]:
    """JAX's ``jax.ensure_compile_time_eval``: computations on constants inside the block
    give concrete values.  Here they always do (``jit`` records by running the function,
    so whatever does not depend on the arguments is a plain array already), so the block
    changes nothing; values computed from the arguments stay traced, as in JAX.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> @ft.jit
        ... def f(x):
        ...     with ft.ensure_compile_time_eval():
        ...         n = int(np.arange(4).sum())  # a concrete Python int
        ...     return x * n
        >>> f(np.ones(2)).tolist()
        [6.0, 6.0]
    """
    yield


def clear_caches() -> None:
    """Forget the recordings of every :func:`ftransforms.jit` function (their next call
    records again): JAX's ``jax.clear_caches``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> f = ft.jit(lambda x: x + 1)
        >>> _ = f(np.ones(2))
        >>> ft.clear_caches()
        >>> len(f.cache)
        0
    """
    for cache in list(PROGRAM_CACHES.values()):
        cache.clear()


class Device:
    """A device that arrays live on: the CPU (NumPy) or a CUDA GPU (CuPy), as JAX's
    device objects (``platform``, ``id``, ``device_kind``, ``process_index``); ``str`` of
    the CPU is JAX's ``"cpu:0"``, which :func:`ftransforms.device_put` and ``jit``'s
    ``device=`` accept.

    Example:
        >>> import ftransforms as ft
        >>> cpu = ft.devices()[0]
        >>> cpu.platform, cpu.id, cpu
        ('cpu', 0, CpuDevice(id=0))
    """

    def __init__(self, platform: str, id: int, device_kind: str) -> None:  # noqa: A002
        self.platform = platform
        self.id = id
        self.device_kind = device_kind
        self.process_index = 0
        self.host_id = 0

    def __repr__(self) -> str:
        return f"{'CpuDevice' if self.platform == 'cpu' else 'CudaDevice'}(id={self.id})"

    def __str__(self) -> str:
        return f"{'cpu' if self.platform == 'cpu' else 'cuda'}:{self.id}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and (other.platform, other.id) == (
            self.platform,
            self.id,
        )

    def __hash__(self) -> int:
        return hash((self.platform, self.id))


_CPU = Device("cpu", 0, "cpu")
_GPU_NAMES = ("gpu", "cuda")


def _gpus() -> list[Device]:
    try:
        import cupy  # noqa: PLC0415  (optional dependency: only where GPUs are asked for)

        count = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - no CuPy, no driver or no GPU: no GPU devices
        return []
    return [Device("gpu", i, "cuda") for i in range(count)]


def default_backend() -> str:
    """``"cpu"``: NumPy is the default backend (JAX's ``jax.default_backend``); CuPy
    arrays run on their GPU wherever they are passed.

    Example:
        >>> import ftransforms as ft
        >>> ft.default_backend()
        'cpu'
    """
    return "cpu"


def devices(backend: str | None = None) -> list[Device]:
    """The devices of ``backend`` (default: the CPU; ``"gpu"``/``"cuda"``: CuPy's GPUs):
    JAX's ``jax.devices``.  A backend with no device raises ``RuntimeError``, as in JAX.

    Example:
        >>> import ftransforms as ft
        >>> ft.devices()
        [CpuDevice(id=0)]
    """
    name = "cpu" if backend is None else str(getattr(backend, "platform", backend)).lower()
    if name == "cpu":
        return [_CPU]
    if name in _GPU_NAMES:
        found = _gpus()
        if not found:
            raise RuntimeError(
                f"devices(backend={backend!r}): no GPU was found (CuPy is not installed or "
                f"sees no CUDA device); use the CPU (backend=None)"
            )
        return found
    raise UnsupportedOperationError(
        f"devices(backend={backend!r}): expected None, 'cpu', 'gpu' or 'cuda'; ftransforms "
        f"runs on NumPy (CPU) and CuPy (GPU) arrays"
    )


def local_devices(process_index: int | None = None, backend: str | None = None) -> list[Device]:
    """:func:`devices` of this process (there is one process): ``jax.local_devices``.

    Example:
        >>> import ftransforms as ft
        >>> ft.local_devices() == ft.devices()
        True
    """
    return devices(backend)


def device_count(backend: str | None = None) -> int:
    """The number of devices of ``backend`` (1 for the CPU): ``jax.device_count``.

    Example:
        >>> import ftransforms as ft
        >>> ft.device_count()
        1
    """
    return len(devices(backend))


def local_device_count(backend: str | None = None) -> int:
    """The number of devices of ``backend`` in this process: ``jax.local_device_count``.

    Example:
        >>> import ftransforms as ft
        >>> ft.local_device_count()
        1
    """
    return len(devices(backend))


def process_index() -> int:
    """``0``: ftransforms runs in one process (``jax.process_index``).

    Example:
        >>> import ftransforms as ft
        >>> ft.process_index()
        0
    """
    return 0


def process_count() -> int:
    """``1``: ftransforms runs in one process (``jax.process_count``).

    Example:
        >>> import ftransforms as ft
        >>> ft.process_count()
        1
    """
    return 1


#: The settings of ``jax.config`` that ftransforms reads or accepts, with their values.
_DEFAULTS: dict[str, Any] = {
    "jax_enable_x64": True,
    "jax_disable_jit": False,
    "jax_platform_name": "",
    "jax_platforms": None,
    "jax_default_device": None,
    "jax_default_matmul_precision": None,
    "jax_numpy_rank_promotion": "allow",
    "jax_numpy_dtype_promotion": "standard",
    "jax_log_compiles": False,
    "jax_debug_nans": False,
    "jax_debug_infs": False,
    "jax_traceback_filtering": "auto",
    "jax_compilation_cache_dir": None,
    "jax_persistent_cache_min_compile_time_secs": 1.0,
    "jax_default_prng_impl": "threefry2x32",
    "jax_threefry_partitionable": True,
}
#: Settings whose other values would change results in JAX: a warning that they do not here.
_NO_EFFECT = {
    "jax_enable_x64": (
        False,
        "ftransforms follows NumPy's dtypes (float64 and int64 by default, as JAX with x64); "
        "cast to float32 explicitly for 32-bit work",
    ),
    "jax_debug_nans": (True, "NaNs are not checked; use np.seterr(invalid='raise')"),
    "jax_debug_infs": (True, "infinities are not checked; use np.seterr(divide='raise')"),
    "jax_numpy_rank_promotion": ("raise", "NumPy's broadcasting rules apply"),
    "jax_default_prng_impl": ("rbg", "the keys are threefry2x32 (JAX's default)"),
    "jax_threefry_partitionable": (False, "the keys use JAX's partitionable layout"),
}


class Config:
    """JAX's ``jax.config``: ``config.update(name, value)`` and ``config.<name>`` for the
    ``jax_*`` settings.  ``jax_enable_x64`` is ``True`` (NumPy's dtypes; turning it off
    warns and changes nothing), ``jax_disable_jit`` turns :func:`ftransforms.jit` off
    everywhere (see :func:`disable_jit`); the other ``jax_*`` settings are stored, with a
    warning where JAX would compute differently or where ftransforms does not know the
    setting; a name without the ``jax_`` prefix raises ``AttributeError``, as JAX's
    unknown names do.

    Example:
        >>> import ftransforms as ft
        >>> ft.config.update("jax_enable_x64", True)
        >>> ft.config.jax_enable_x64, ft.config.read("jax_disable_jit")
        (True, False)
    """

    def __init__(self) -> None:
        self.values = dict(_DEFAULTS)

    def update(self, name: str, value: Any) -> None:
        """Set the setting ``name`` to ``value`` (see the class).

        Example:
            >>> import ftransforms as ft
            >>> ft.config.update("jax_platform_name", "cpu")
        """
        if not isinstance(name, str) or not name.startswith("jax_"):
            raise AttributeError(
                f"config.update({name!r}, ...): unrecognized config option; the settings are "
                f"JAX's jax_* names, e.g. 'jax_enable_x64'"
            )
        if name not in self.values:
            warnings.warn(
                f"config.update({name!r}, {value!r}): ftransforms does not know this JAX "
                f"setting; it is stored and has no effect",
                RuntimeWarning,
                stacklevel=2,
            )
        bad = _NO_EFFECT.get(name)
        if bad is not None and value == bad[0]:
            warnings.warn(
                f"config.update({name!r}, {value!r}) has no effect in ftransforms: {bad[1]}",
                RuntimeWarning,
                stacklevel=2,
            )
            return
        self.values[name] = value
        if name == "jax_disable_jit":
            JIT_OFF_EVERYWHERE[0] = bool(value)

    def read(self, name: str) -> Any:
        """The value of the setting ``name``.

        Example:
            >>> import ftransforms as ft
            >>> ft.config.read("jax_enable_x64")
            True
        """
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(f"config.read({name!r}): unrecognized config option") from None

    @property
    def x64_enabled(self) -> bool:
        """``True``: NumPy's 64-bit dtypes are the defaults (``jax.config.x64_enabled``).

        Example:
            >>> import ftransforms as ft
            >>> ft.config.x64_enabled
            True
        """
        return True

    def __getattr__(self, name: str) -> Any:
        if name.startswith("jax_"):
            values = self.__dict__.get("values", {})
            if name in values:
                return values[name]
        raise AttributeError(f"config has no setting {name!r} (unrecognized config option)")


#: ``jax.config``'s counterpart (see :class:`Config`).
config = Config()
