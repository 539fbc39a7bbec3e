# ruff: noqa  (a published program in its authors' style)
"""Planar n-link arm: forward kinematics as a chain of homogeneous transforms built from
np.array([[c, -s, x], [s, c, y], [0, 0, 1]]) of the joint angles, and inverse kinematics by
damped Newton steps with np.linalg.pinv / np.linalg.lstsq (robotics course notebooks)."""

import numpy as np


def rot2(theta):
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def transform(theta, length):
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s, length * c], [s, c, length * s], [0.0, 0.0, 1.0]])


def forward_kinematics(q, lengths):
    T = np.eye(3)
    points = [T[:2, 2]]
    for i in range(len(q)):
        T = T @ transform(q[i], lengths[i])
        points.append(T[:2, 2])
    return np.array(points)


def fk_cumsum(q, lengths):
    # the vectorised form: absolute angles by np.cumsum
    a = np.cumsum(q)
    return np.array([np.sum(lengths * np.cos(a)), np.sum(lengths * np.sin(a))])


def fk_rotations(q, lengths):
    R = np.eye(2)
    p = np.zeros(2)
    for i in range(len(q)):
        R = R @ rot2(q[i])
        p = p + R @ np.array([lengths[i], 0.0])
    return p


def jacobian(q, lengths):
    a = np.cumsum(q)
    J = np.zeros((2, len(q)))
    for i in range(len(q)):
        J[0, i] = -np.sum(lengths[i:] * np.sin(a[i:]))
        J[1, i] = np.sum(lengths[i:] * np.cos(a[i:]))
    return J


def ik_pinv(target, q0, lengths, iters=8):
    q = q0.copy()
    for _ in range(iters):
        err = target - fk_cumsum(q, lengths)
        q += np.linalg.pinv(jacobian(q, lengths)) @ err
    return q


def ik_lstsq(target, q0, lengths, iters=8, damping=1e-3):
    q = np.array(q0, dtype=float)
    n = len(q)
    for _ in range(iters):
        err = target - fk_cumsum(q, lengths)
        J = jacobian(q, lengths)
        A = np.vstack([J, np.sqrt(damping) * np.eye(n)])
        b = np.concatenate([err, np.zeros(n)])
        dq, *_ = np.linalg.lstsq(A, b, rcond=None)
        q = q + dq
    return q
