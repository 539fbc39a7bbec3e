"""SciPy's ``ndimage`` boundary modes as ``numpy.pad`` modes (shared by the filters of
``ftransforms.scipy.ndimage``).

Example:
    >>> from ftransforms.scipy.ndimage_modes import pad_mode
    >>> pad_mode("reflect", "uniform_filter(input)")
    'symmetric'
"""

from __future__ import annotations

__all__ = ["PAD", "pad_mode"]

#: SciPy's boundary modes as ``numpy.pad`` modes.
PAD = {
    "reflect": "symmetric",
    "grid-mirror": "symmetric",
    "mirror": "reflect",
    "nearest": "edge",
    "wrap": "wrap",
    "grid-wrap": "wrap",
    "constant": "constant",
    "grid-constant": "constant",
}


def pad_mode(mode: str, where: str) -> str:
    """The ``numpy.pad`` mode for SciPy's ``mode`` (ValueError naming the call form for an
    unknown one).

    Example:
        >>> pad_mode("nearest", "median_filter(input)")
        'edge'
    """
    if mode not in PAD:
        raise ValueError(f"{where}: mode must be one of {sorted(PAD)}, got {mode!r}")
    return PAD[mode]
