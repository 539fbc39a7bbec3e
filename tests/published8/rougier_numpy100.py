# ruff: noqa  (a published program in its authors' style)
"""Rougier's "100 NumPy exercises", the answers that define functions: #75's moving
average (``np.cumsum(a, dtype=float)`` then ``ret[n:] = ret[n:] - ret[:-n]``), #76's
rolling window (``stride_tricks.as_strided`` with ``a.strides``), #78's point-to-line
distances (``v[:,[0,1]] = v[:,[1,0]]``, ``v[:,1]*=-1``, ``np.einsum``), #79's broadcast
version (``x_0, y_0 = p.T``) and #85's symmetric ndarray subclass (``.view(Symetric)``).
The exercises' data and prints are left out.

From https://github.com/rougier/numpy-100 (source/exercises100.ktx), MIT License,
Copyright (c) 2016 Nicolas P. Rougier."""

import numpy as np
from numpy.lib import stride_tricks


# 75.
# Author: Jaime Fernández del Río


def moving_average(a, n=3):
    ret = np.cumsum(a, dtype=float)
    ret[n:] = ret[n:] - ret[:-n]
    return ret[n - 1 :] / n


# 76.
# Author: Joe Kington / Erik Rigtorp
from numpy.lib import stride_tricks


def rolling(a, window):
    shape = (a.size - window + 1, window)
    strides = (a.strides[0], a.strides[0])
    return stride_tricks.as_strided(a, shape=shape, strides=strides)


# 78.
def distance_faster(P0, P1, p):
    # Author: Hemanth Pasupuleti
    # Reference: https://mathworld.wolfram.com/Point-LineDistance2-Dimensional.html

    v = P1 - P0
    v[:, [0, 1]] = v[:, [1, 0]]
    v[:, 1] *= -1
    norm = np.linalg.norm(v, axis=1)
    r = P0 - p
    d = np.abs(np.einsum("ij,ij->i", r, v)) / norm

    return d


##--------------- OR ---------------##
def distance_slower(P0, P1, p):
    T = P1 - P0
    L = (T**2).sum(axis=1)
    U = -((P0[:, 0] - p[..., 0]) * T[:, 0] + (P0[:, 1] - p[..., 1]) * T[:, 1]) / L
    U = U.reshape(len(U), 1)
    D = P0 + U * T - p
    return np.sqrt((D**2).sum(axis=1))


# 79.
# Author: Yang Wu (Broadcasting)
def distance_points_to_lines(p: np.ndarray, p_1: np.ndarray, p_2: np.ndarray) -> np.ndarray:
    x_0, y_0 = p.T  # Shape -> (n points, )
    x_1, y_1 = p_1.T  # Shape -> (n lines, )
    x_2, y_2 = p_2.T  # Shape -> (n lines, )

    # Displacement vector coordinates from p_1 -> p_2
    dx = x_2 - x_1  # Shape -> (n lines, )
    dy = y_2 - y_1  # Shape -> (n lines, )

    # The 'cross product' term
    cross_term = x_2 * y_1 - y_2 * x_1  # Shape -> (n lines, )

    # Broadcast x_0, y_0 (n points, 1) and dx, dy, cross_term (1, n lines) -> (n points, n lines)
    numerator = np.abs(
        dy[np.newaxis, :] * x_0[:, np.newaxis]
        - dx[np.newaxis, :] * y_0[:, np.newaxis]
        + cross_term[np.newaxis, :]
    )
    denominator = np.sqrt(dx**2 + dy**2)  # Shape -> (n lines, )

    # Shape (n points, n lines) / (1, n_lines) -> (n points, n lines)
    return numerator / denominator[np.newaxis, :]


# 85.
# Author: Eric O. Lebigot
# Note: only works for 2d array and value setting using indices


class Symetric(np.ndarray):
    def __setitem__(self, index, value):
        i, j = index
        super(Symetric, self).__setitem__((i, j), value)
        super(Symetric, self).__setitem__((j, i), value)


def symetric(Z):
    return np.asarray(Z + Z.T - np.diag(Z.diagonal())).view(Symetric)
