# ruff: noqa  (a published program in its authors' style)
"""The one-dimensional finite-element method as in introductory FEM notes: linear elements
for ``-(k u')' = f`` on ``[0, 1]``, the global stiffness matrix assembled element by
element with ``K[i:i+2, i:i+2] += ke`` and the load vector with ``F[i:i+2] += fe``, the
Dirichlet conditions imposed by overwriting rows (``K[0, :] = 0; K[0, 0] = 1``), and an
Euler-Bernoulli beam assembled with ``np.ix_`` on its degrees of freedom; compliance of a
bar with element-wise stiffnesses (the quantity topology optimisation differentiates)."""

import numpy as np


def assemble_poisson(k, f, L=1.0):
    ne = len(k)
    h = L / ne
    K = np.zeros((ne + 1, ne + 1))
    F = np.zeros(ne + 1)
    for e in range(ne):
        ke = k[e] / h * np.array([[1.0, -1.0], [-1.0, 1.0]])
        fe = f[e] * h / 2 * np.ones(2)
        K[e : e + 2, e : e + 2] += ke
        F[e : e + 2] += fe
    return K, F


def solve_poisson(k, f, u_left=0.0, u_right=0.0):
    K, F = assemble_poisson(k, f)
    n = K.shape[0]
    # Dirichlet rows
    K[0, :] = 0.0
    K[0, 0] = 1.0
    F[0] = u_left
    K[-1, :] = 0.0
    K[-1, -1] = 1.0
    F[-1] = u_right
    return np.linalg.solve(K, F)


def bar_compliance(E, P=1.0):
    # cantilever bar fixed at x=0 with end load P: reduce by deleting the fixed dof
    ne = len(E)
    K = np.zeros((ne + 1, ne + 1))
    for e in range(ne):
        dofs = [e, e + 1]
        K[np.ix_(dofs, dofs)] += E[e] * ne * np.array([[1, -1], [-1, 1]])
    F = np.zeros(ne + 1)
    F[-1] = P
    free = np.arange(1, ne + 1)
    u = np.zeros(ne + 1)
    u[free] = np.linalg.solve(K[np.ix_(free, free)], F[free])
    return F @ u


def beam_element(EI, le):
    return (
        EI
        / le**3
        * np.array(
            [
                [12, 6 * le, -12, 6 * le],
                [6 * le, 4 * le**2, -6 * le, 2 * le**2],
                [-12, -6 * le, 12, -6 * le],
                [6 * le, 2 * le**2, -6 * le, 4 * le**2],
            ]
        )
    )


def cantilever_beam(EI, q, L=1.0):
    ne = len(EI)
    le = L / ne
    ndof = 2 * (ne + 1)
    K = np.zeros((ndof, ndof))
    F = np.zeros(ndof)
    for e in range(ne):
        idx = np.array([2 * e, 2 * e + 1, 2 * e + 2, 2 * e + 3])
        K[np.ix_(idx, idx)] += beam_element(EI[e], le)
        # consistent load of a uniform distributed load
        F[idx] += q * le / 12 * np.array([6, le, 6, -le])
    fixed = [0, 1]
    free = np.setdiff1d(np.arange(ndof), fixed)
    d = np.zeros(ndof)
    d[free] = np.linalg.solve(K[free][:, free], F[free])
    return d


def stiffness_by_penalty(k, f, penalty=1e10):
    # the penalty method for u(0) = u(1) = 0
    K, F = assemble_poisson(k, f)
    K[0, 0] += penalty
    K[-1, -1] += penalty
    return np.linalg.solve(K, F)


def spring_network(k, elements, n_nodes, load_node, ground=1e-2):
    # a chain of springs on grounded nodes: each element adds its 2x2 block by np.ix_
    K = np.diag([ground] * n_nodes)
    for (a, b), ke in zip(elements, k):
        K[np.ix_([a, b], [a, b])] += ke * np.array([[1.0, -1.0], [-1.0, 1.0]])
    F = np.zeros(n_nodes)
    F[load_node] = 1.0
    u = np.linalg.solve(K, F)
    return u @ F  # compliance
