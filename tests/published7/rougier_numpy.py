# ruff: noqa  (a published program in its authors' style)
"""Nicolas Rougier's "From Python to Numpy" (2017), ``code/game-of-life-numpy.py`` and
``code/gray-scott.py``: the Game of Life's ``update`` on module globals ``Z, M`` (the
neighbour count from eight slices, ``Z[...] = 0``, then ``Z[1:-1, 1:-1][birth | survive] =
1``: a boolean-mask write through a slice view, and the activity trace ``M[M>0.25] = 0.25;
M *= 0.995; M[Z==1] = 1``), and the Gray-Scott reaction-diffusion ``update``: its fields are
views of a structured array (``U, V = Z['U'], Z['V']``, ``u, v = U[1:-1, 1:-1], ...``)
advanced in place (``u += ...``, which writes ``U``).  The animation and plotting lines are
left out; the Gray-Scott set-up that the original runs at import is ``setup``.

Copyright 2017 Nicolas P. Rougier; BSD 2-Clause license."""

import numpy as np


def update(*args):
    global Z, M

    N = (
        Z[0:-2, 0:-2]
        + Z[0:-2, 1:-1]
        + Z[0:-2, 2:]
        + Z[1:-1, 0:-2]
        + Z[1:-1, 2:]
        + Z[2:, 0:-2]
        + Z[2:, 1:-1]
        + Z[2:, 2:]
    )
    birth = (N == 3) & (Z[1:-1, 1:-1] == 0)
    survive = ((N == 2) | (N == 3)) & (Z[1:-1, 1:-1] == 1)
    Z[...] = 0
    Z[1:-1, 1:-1][birth | survive] = 1

    # Show past activities
    M[M > 0.25] = 0.25
    M *= 0.995
    M[Z == 1] = 1


# Parameters from http://www.aliensaint.com/uo/java/rd/
# -----------------------------------------------------
n = 256
Du, Dv, F, k = 0.16, 0.08, 0.035, 0.065  # Bacteria 1


def setup(size, r=20):
    global n, Z_gs, U, V, u, v
    n = size
    Z_gs = np.zeros((n + 2, n + 2), [("U", np.double), ("V", np.double)])
    U, V = Z_gs["U"], Z_gs["V"]
    u, v = U[1:-1, 1:-1], V[1:-1, 1:-1]

    u[...] = 1.0
    U[n // 2 - r : n // 2 + r, n // 2 - r : n // 2 + r] = 0.50
    V[n // 2 - r : n // 2 + r, n // 2 - r : n // 2 + r] = 0.25
    u += 0.05 * np.random.uniform(-1, +1, (n, n))
    v += 0.05 * np.random.uniform(-1, +1, (n, n))


def update_gray_scott(frame):
    global U, V, u, v, im

    for i in range(10):
        Lu = U[0:-2, 1:-1] + U[1:-1, 0:-2] - 4 * U[1:-1, 1:-1] + U[1:-1, 2:] + U[2:, 1:-1]
        Lv = V[0:-2, 1:-1] + V[1:-1, 0:-2] - 4 * V[1:-1, 1:-1] + V[1:-1, 2:] + V[2:, 1:-1]
        uvv = u * v * v
        u += Du * Lu - uvv + F * (1 - u)
        v += Dv * Lv + uvv - (F + k) * v
