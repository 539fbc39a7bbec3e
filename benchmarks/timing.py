"""Wall-clock timing for the stand-alone benchmark scripts (``python -m benchmarks``
has its own interleaved harness in ``run.py``).

Example:
    >>> from benchmarks.timing import wall_times
    >>> len(wall_times(lambda: sum(range(10)), reps=3))
    3
"""

from __future__ import annotations

import time
from collections.abc import Callable


def wall_times(fn: Callable[[], object], reps: int, warm: bool = True) -> list[float]:
    """Seconds of ``reps`` calls of ``fn``, after one untimed call when ``warm``."""
    if warm:
        fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return times
