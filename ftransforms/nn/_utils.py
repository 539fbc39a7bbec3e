"""Argument normalisation shared by the layers."""

from __future__ import annotations

from typing import Any

import numpy


def pair(v: Any, name: str, where: str) -> tuple[int, int]:
    """An int or a pair of ints -> a pair of Python ints."""
    if isinstance(v, (int, numpy.integer)) and not isinstance(v, bool):
        return int(v), int(v)
    try:
        a, b = v
        return _int(a, name, where), _int(b, name, where)
    except (TypeError, ValueError):
        raise TypeError(f"{where}: {name} must be an int or a pair of ints, got {v!r}") from None


def _int(v: Any, name: str, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, numpy.integer)):
        raise TypeError(f"{where}: {name} must be an int or a pair of ints, got {v!r}")
    return int(v)


def positive_pair(v: Any, name: str, where: str) -> tuple[int, int]:
    p = pair(v, name, where)
    if min(p) < 1:
        raise ValueError(f"{where}: {name} must be positive, got {v!r}")
    return p


def padding_pairs(padding: Any, where: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """``int | (ph, pw) | ((top, bottom), (left, right))`` -> the last form."""
    if (
        isinstance(padding, (tuple, list))
        and len(padding) == 2
        and all(isinstance(p, (tuple, list)) for p in padding)
    ):
        (pt, pb), (pl, pr) = padding
        out = (
            (_int(pt, "padding", where), _int(pb, "padding", where)),
            (_int(pl, "padding", where), _int(pr, "padding", where)),
        )
    else:
        ph, pw = pair(padding, "padding", where)
        out = ((ph, ph), (pw, pw))
    if min(min(p) for p in out) < 0:
        raise ValueError(f"{where}: padding must be non-negative, got {padding!r}")
    return out


def out_size(n: int, k: int, s: int, d: int, lo: int, hi: int) -> int:
    return (n + lo + hi - d * (k - 1) - 1) // s + 1
