# ruff: noqa  (a published program in its authors' style)
"""JAX's examples/physical_optimization.py: a basketball backboard shaped by gradient
descent (a jitted surface builder iterating over a traced array, Python branches on traced
values, chained comparisons, an early ``return`` from a loop).  Plotting left out."""

from random import uniform

import numpy as onp

import ftransforms.numpy as np
from ftransforms import device_put, grad, jit

N = 25
H_step = 0.1
H_0 = 10
g = -9.8
hoop_x, hoop_y = (10, 8)

onp.random.seed(0)
board = device_put(onp.random.rand(N))


@jit
def build_surface(board):
    ret = []
    for i, (a, b) in enumerate(zip(board, board[1:])):
        y_0 = -i * H_step + H_0
        x_0 = a + 10
        y_1 = -(i + 1) * H_step + H_0
        x_1 = b + 10
        slope = (y_1 - y_0) / (x_1 - x_0)
        intercept = y_1 - x_1 * slope
        ret.append([slope, intercept])
    return ret


@jit
def solve_t(k, l, x_0, y_0, v_x0, v_y0):  # noqa: E741 (the authors' name)
    c = y_0 - k * x_0 - l
    b = v_y0 - k * v_x0
    a = 0.5 * g
    d = (b**2) - (4 * a * c)
    sol1 = (-b - np.sqrt(d)) / (2 * a)
    sol2 = (-b + np.sqrt(d)) / (2 * a)
    y_1 = y_0 + v_y0 * sol1 + 0.5 * g * sol1**2
    y_2 = y_0 + v_y0 * sol2 + 0.5 * g * sol2**2
    return sol1, sol2, y_1, y_2


@jit
def dist_from_hoop(t, y_f, x_0, v_x0, v_y0):
    x_f = x_0 + v_x0 * t
    v_xf = v_x0
    v_yf = v_y0 + g * t
    cor = 0.81
    v_xb = -cor * v_xf
    v_yb = -cor * v_yf

    t = 0.1
    x_b = x_f + v_xb * t
    y_b = y_f + v_yb * t + 0.5 * g * t**2
    dist = np.sqrt((x_b - hoop_x) ** 2 + (y_b - hoop_y) ** 2)
    return dist


def bounce(board, x_0, y_0, v_x0, v_y0):
    lines = build_surface(board)
    for i, (k, l) in enumerate(lines):  # noqa: E741
        sol1, sol2, y_1, y_2 = solve_t(k, l, x_0, y_0, v_x0, v_y0)
        t = 0
        y_f = 0
        if sol1 > 0 and -(i + 1) * H_step + H_0 < y_1 < -i * H_step + H_0:
            t = sol1
            y_f = y_1
        elif sol2 > 0 and -(i + 1) * H_step + H_0 < y_2 < -i * H_step + H_0:
            t = sol2
            y_f = y_2
        else:
            continue

        loss = dist_from_hoop(t, y_f, x_0, v_x0, v_y0)
        return loss
    return 0.0


def train(board, steps):
    for i in range(steps):
        x0 = 0
        y0 = 5
        vx = uniform(7, 10)
        vy = uniform(7, 10)
        board_grad = grad(bounce, 0)(board, x0, y0, vx, vy)
        board += -board_grad * 0.1
    return board
