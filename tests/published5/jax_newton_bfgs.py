# ruff: noqa  (a published program in its authors' style)
"""JAX's examples/newton_method.py and examples/bfgs_method.py: Newton's method and a
Hessian-updating BFGS with a Wolfe line search, ``jax.grad``/``jax.hessian`` called on
concrete points in Python ``while`` loops, ``x_0 += ...`` on the iterate."""

import ftransforms as jax


def is_float(x):
    return isinstance(x, (float, int))


ini = [1.0, -1.0, 1.0, -1.0]


def g(x):
    return (
        (-13 + x[0] + ((5 - x[1]) * x[1] - 2) * x[1]) ** 2
        + (-29 + x[0] + ((x[1] + 1) * x[1] - 14) * x[1]) ** 2
        + (-13 + x[2] + ((5 - x[3]) * x[3] - 2) * x[3]) ** 2
        + (-29 + x[2] + ((x[3] + 1) * x[3] - 14) * x[3]) ** 2
    )


def wolfe(fun, res0, x_0, dk, c1=0.3, c2=0.5, alphas=0.0, alphae=2.0, eps=1e-3):
    """Step size finder."""
    assert c1 > 0
    assert c1 < 1
    assert c2 > 0
    assert c2 < 1
    assert c1 < c2
    assert alphas >= 0
    assert alphas < alphae
    assert eps > 0
    alpha = 1
    f0 = fun(x_0)
    while alphas < alphae:
        x = x_0 + (alpha * dk)[0]
        f1 = fun(x)
        if f1 <= f0 + c1 * alpha * res0.dot(dk.T):
            res1 = jax.grad(fun)(x)
            if res1.dot(dk.T) >= c2 * res0.dot(dk.T):
                break
            else:
                alphas = alpha
                alpha = 0.5 * (alphas + alphae)
        else:
            alphae = alpha
            alpha = 0.5 * (alphas + alphae)
        if jax.numpy.abs(alphas - alphae) < eps:
            break
    return alpha


def newton(fun, x_0, verbose=False, epsilon=1e-6, k=0):
    assert all(list(map(is_float, x_0)))
    x_0 = jax.numpy.array(x_0)
    while 1:
        gradient = jax.grad(fun)(x_0)
        hessian = jax.hessian(fun)(x_0)
        dk = -jax.numpy.linalg.inv(hessian).dot(gradient.T).reshape(1, -1)
        if verbose:
            print("{}\t{}\t{}".format(x_0, fun(x_0), k))
        if jax.numpy.linalg.norm(dk) >= epsilon:
            alpha = wolfe(fun, gradient, x_0, dk)
            x_0 += alpha * dk[0]
            k += 1
        else:
            break
    return x_0


def bfgs(fun, x_0, verbose=False, epsilon=1e-6, k=0):
    """Hessian-based BFGS Method."""
    assert all(list(map(is_float, x_0)))
    x_0 = jax.numpy.array(x_0)
    while 1:
        gradient = jax.grad(fun)(x_0)
        hessian = jax.hessian(fun)(x_0)
        dk = -jax.numpy.linalg.inv(hessian).dot(gradient.T).reshape(1, -1)
        if verbose:
            print("{}\t{}\t{}".format(x_0, fun(x_0), k))
        if jax.numpy.linalg.norm(dk) >= epsilon:
            alpha = wolfe(fun, gradient, x_0, dk)
            delta = alpha * dk  # sk
            x_0 += delta[0]
            yk = jax.grad(fun)(x_0) - gradient
            hess_delta = hessian.dot(delta.T)
            if yk.all != 0:
                hessian += (yk.T).dot(yk) / delta.dot(yk.T) - (hess_delta).dot(
                    hess_delta.T
                ) / delta.dot(hess_delta)
            k += 1
        else:
            break
    return x_0
