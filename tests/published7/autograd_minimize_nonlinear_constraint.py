# ruff: noqa  (a published program in its authors' style)
"""HIPS autograd's ``examples/minimize_nonlinear_constraint.py``: SciPy's
``minimize(method='trust-constr')`` of a quadratic with ``jac=autograd.jacobian(f)``,
``hessp=autograd.hessian_vector_product(f)`` and a ``NonlinearConstraint`` whose Jacobian
and ``hess`` are ``autograd.jacobian`` and ``autograd.linear_combination_of_hessians`` of
a constraint built with ``np.array([...])`` of traced values.  ``import autograd`` reads
``import ftransforms as autograd`` and ``autograd.numpy`` reads ``ftransforms.numpy``; the
final ``print`` (Python 2's statement) is ``result``.

Copyright (c) 2014 by the Harvard Intelligent Probabilistic Systems Group; MIT license."""

useconstraint = True

import ftransforms as autograd
import ftransforms.numpy as np
from scipy import optimize


def function(x):
    return x[0] ** 2 + x[1] ** 2


functionjacobian = autograd.jacobian(function)
functionhvp = autograd.hessian_vector_product(function)


def constraint(x):
    return np.array([x[0] ** 2 - (x[1] - 1) ** 2])


constraintjacobian = autograd.jacobian(constraint)
constraintlcoh = autograd.linear_combination_of_hessians(constraint)

constraint = optimize.NonlinearConstraint(constraint, 2, np.inf, constraintjacobian, constraintlcoh)

startpoint = [1, 2]

bounds = optimize.Bounds([-np.inf, -np.inf], [np.inf, np.inf])

result = optimize.minimize(
    function,
    startpoint,
    method="trust-constr",
    jac=functionjacobian,
    hessp=functionhvp,
    constraints=[constraint] if useconstraint else [],
    bounds=bounds,
)
