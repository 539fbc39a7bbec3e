"""``gaussian_kde`` of ``ftransforms.scipy.stats``: a weighted Gaussian kernel density
estimate with ``scipy.stats.gaussian_kde``'s constructor, attributes and methods (and
``jax.scipy.stats.gaussian_kde``'s ``resample(key, shape)``).

The estimate is ``sum_i w_i N(x; data_i, H)`` with ``H = factor**2 * cov_w(data)`` (the
weighted sample covariance, ``numpy.cov(..., aweights=w)``) and ``factor`` Scott's
``neff ** (-1 / (d + 4))``, Silverman's ``(neff (d + 2) / 4) ** (-1 / (d + 4))``, a given
number or a function of the estimate; ``neff = 1 / sum(w**2)``.  Everything is computed
with ``fnp`` operations when the estimate is made, so the densities are differentiable in
the points, the data, the weights and a traced bandwidth, and the estimate is a pytree
(``vmap``/``jit`` take it as an argument, as JAX's).

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.stats import gaussian_kde
    >>> kde = gaussian_kde(np.array([-1.0, 0.0, 1.0]), bw_method=1.0)
    >>> round(float(kde(0.0)[0]), 6)
    0.294295
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms import random_keys
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.numpy.helpers import dtype_of
from ftransforms.numpy.ufuncs import float_input
from ftransforms.pytree import register_pytree_node
from ftransforms.random_keys import is_key
from ftransforms.scipy import special as fsp

__all__ = ["gaussian_kde"]


class gaussian_kde:  # noqa: N801  (SciPy's name)
    """The Gaussian kernel density estimate of ``dataset`` (``(d, n)``: ``n`` points in
    ``d`` dimensions; a 1-d array is ``d = 1``), with optional ``weights``, as
    ``scipy.stats.gaussian_kde``: ``bw_method`` is ``'scott'`` (``None``),
    ``'silverman'``, a number (the ``factor``) or a function of the estimate returning it.
    Attributes ``dataset``, ``d``, ``n``, ``weights``, ``neff``, ``factor``,
    ``covariance``, ``inv_cov``; methods ``evaluate``/``__call__``/``pdf``, ``logpdf``,
    ``integrate_gaussian``, ``integrate_box_1d``, ``integrate_box`` (1-d),
    ``integrate_kde``, ``resample``, ``set_bandwidth``, ``marginal``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> data = np.array([0.0, 1.0, 3.0])
        >>> g = ft.grad(lambda x: gaussian_kde(data).logpdf(x)[0])
        >>> round(float(g(0.5)), 6)
        0.105851
    """

    def __init__(self, dataset: Any, bw_method: Any = None, weights: Any = None) -> None:
        where = "gaussian_kde"
        data = fnp.asarray(dataset)
        if dtype_of(data).kind == "c":
            raise UnsupportedOperationError(f"{where}: complex data are not supported")
        data = float_input(data, None)
        if fnp.ndim(data) < 2:
            data = fnp.reshape(data, (1, -1))
        if fnp.ndim(data) != 2:
            raise ValueError(f"{where}: dataset must be (d, n) or 1-d, got shape {fnp.shape(data)}")
        d, n = fnp.shape(data)
        if d * n <= 1:
            raise ValueError(f"{where}: dataset must have more than one element")
        if d > n:
            raise ValueError(
                f"{where}: the number of dimensions ({d}) exceeds the number of samples "
                f"({n}); pass the dataset as (d, n), transposing it if it is (n, d)"
            )
        self.dataset = data
        if weights is None:
            w = fnp.full((n,), 1.0 / n, dtype=dtype_of(data))
        else:
            w = float_input(fnp.asarray(weights), None)
            if fnp.ndim(w) != 1:
                raise ValueError(f"{where}: weights must be 1-d, got shape {fnp.shape(w)}")
            if fnp.shape(w)[0] != n:
                raise ValueError(
                    f"{where}: weights must have one entry per sample ({n}), got {fnp.shape(w)[0]}"
                )
            w = w / fnp.sum(w)
        self.weights = w
        self.neff = 1.0 / fnp.sum(w * w)
        self.set_bandwidth(bw_method)

    @property
    def d(self) -> int:
        return fnp.shape(self.dataset)[0]

    @property
    def n(self) -> int:
        return fnp.shape(self.dataset)[1]

    def scotts_factor(self) -> Any:
        """Scott's factor, ``neff ** (-1 / (d + 4))``.

        Example:
            >>> import numpy as np
            >>> round(float(gaussian_kde(np.arange(16.0)).scotts_factor()), 6)
            0.574349
        """
        return self.neff ** (-1.0 / (self.d + 4))

    def silverman_factor(self) -> Any:
        """Silverman's factor, ``(neff (d + 2) / 4) ** (-1 / (d + 4))``.

        Example:
            >>> import numpy as np
            >>> round(float(gaussian_kde(np.arange(16.0)).silverman_factor()), 6)
            0.608364
        """
        return (self.neff * (self.d + 2) / 4.0) ** (-1.0 / (self.d + 4))

    covariance_factor = scotts_factor

    def set_bandwidth(self, bw_method: Any = None) -> None:
        """Choose the bandwidth factor (as the constructor's ``bw_method``) and recompute
        the kernel covariance.

        Example:
            >>> import numpy as np
            >>> kde = gaussian_kde(np.arange(4.0))
            >>> kde.set_bandwidth(0.5)
            >>> float(kde.factor)
            0.5
        """
        if bw_method is None or (isinstance(bw_method, str) and bw_method == "scott"):
            self.covariance_factor = self.scotts_factor
        elif isinstance(bw_method, str) and bw_method == "silverman":
            self.covariance_factor = self.silverman_factor
        elif callable(bw_method):
            self._bw_method = bw_method
            self.covariance_factor = lambda: self._bw_method(self)
        elif not isinstance(bw_method, str) and fnp.ndim(fnp.asarray(bw_method)) == 0:
            self._bw_method = bw_method
            self.covariance_factor = lambda: self._bw_method
        else:
            raise ValueError(
                f"gaussian_kde: bw_method must be 'scott', 'silverman', a scalar or a "
                f"callable, got {bw_method!r}"
            )
        self._compute_covariance()

    def _compute_covariance(self) -> None:
        self.factor = self.covariance_factor()
        data_cov = fnp.atleast_2d(
            fnp.cov(self.dataset, rowvar=True, bias=False, aweights=self.weights)
        )
        self._data_covariance = data_cov
        self.covariance = data_cov * self.factor**2
        self.inv_cov = fnp.linalg.inv(data_cov) / self.factor**2
        self._cho = fnp.linalg.cholesky(self.covariance)
        self.log_det = 2.0 * fnp.sum(fnp.log(fnp.diagonal(self._cho)))

    def _points(self, points: Any, where: str) -> Any:
        x = fnp.asarray(points)
        if dtype_of(x).kind == "c":
            raise UnsupportedOperationError(
                f"gaussian_kde.{where}: complex points are not supported"
            )
        x = fnp.atleast_2d(float_input(x, None))
        dims, m = fnp.shape(x)[0], fnp.shape(x)[-1]
        if fnp.ndim(x) != 2:
            raise ValueError(f"gaussian_kde.{where}: points must be (d, m), got {fnp.shape(x)}")
        if dims != self.d:
            if dims == 1 and m == self.d:  # one point, as a row
                return fnp.reshape(x, (self.d, 1))
            raise ValueError(
                f"gaussian_kde.{where}: points have dimension {dims}, the dataset has "
                f"dimension {self.d}"
            )
        return x

    def _log_kernels(self, x: Any) -> Any:
        """``log N(x_j; data_i, H)``, shape ``(n, m)``."""
        diff = self.dataset[:, :, None] - x[:, None, :]  # (d, n, m)
        d, n, m = fnp.shape(diff)
        z = fnp.linalg.solve(self._cho, fnp.reshape(diff, (d, n * m)))
        energy = 0.5 * fnp.reshape(fnp.sum(z * z, axis=0), (n, m))
        return -energy - 0.5 * self.log_det - 0.5 * d * math.log(2.0 * math.pi)

    def evaluate(self, points: Any) -> Any:
        """The estimated density at ``points`` (``(d, m)``, or ``m`` values when
        ``d = 1``); shape ``(m,)``.

        Example:
            >>> import numpy as np
            >>> kde = gaussian_kde(np.array([-1.0, 1.0]), bw_method=1.0)
            >>> np.round(kde.evaluate(np.array([-1.0, 0.0])), 6).tolist()
            [0.192936, 0.219696]
        """
        x = self._points(points, "evaluate")
        return fnp.sum(self.weights[:, None] * fnp.exp(self._log_kernels(x)), axis=0)

    __call__ = evaluate

    def pdf(self, x: Any) -> Any:
        """The estimated density at ``x`` (``evaluate``).

        Example:
            >>> import numpy as np
            >>> kde = gaussian_kde(np.array([-1.0, 1.0]), bw_method=1.0)
            >>> np.round(kde.pdf(0.0), 6).tolist()
            [0.219696]
        """
        return self.evaluate(x)

    def logpdf(self, x: Any) -> Any:
        """The log of the estimated density at ``x``, computed in log space.

        Example:
            >>> import numpy as np
            >>> kde = gaussian_kde(np.array([-1.0, 1.0]), bw_method=1.0)
            >>> np.round(kde.logpdf(40.0), 3).tolist()  # where pdf underflows
            [-382.209]
        """
        x = self._points(x, "logpdf")
        return fsp.logsumexp(self._log_kernels(x) + fnp.log(self.weights)[:, None], axis=0)

    def integrate_gaussian(self, mean: Any, cov: Any) -> Any:
        """The integral of the density times the Gaussian ``N(mean, cov)``.

        Example:
            >>> import numpy as np
            >>> kde = gaussian_kde(np.array([-1.0, 1.0]), bw_method=1.0)
            >>> round(float(kde.integrate_gaussian(np.zeros(1), np.eye(1))), 6)
            0.19497
        """
        mean = fnp.reshape(float_input(fnp.atleast_1d(fnp.asarray(mean)), None), (-1,))
        cov = fnp.atleast_2d(float_input(fnp.asarray(cov), None))
        if fnp.shape(mean) != (self.d,) or fnp.shape(cov) != (self.d, self.d):
            raise ValueError(
                f"gaussian_kde.integrate_gaussian: mean must be ({self.d},) and cov "
                f"({self.d}, {self.d}), got {fnp.shape(mean)} and {fnp.shape(cov)}"
            )
        return self._convolve(self.covariance + cov, self.dataset, self.weights, mean[:, None])[0]

    def integrate_box_1d(self, low: Any, high: Any) -> Any:
        """The probability mass between ``low`` and ``high`` (1-d estimates only).

        Example:
            >>> import numpy as np
            >>> kde = gaussian_kde(np.array([-1.0, 1.0]))
            >>> round(float(kde.integrate_box_1d(-np.inf, 0.0)), 6)
            0.5
        """
        if self.d != 1:
            raise ValueError(
                f"gaussian_kde.integrate_box_1d: only for 1-d estimates, this one has d={self.d}"
            )
        if fnp.ndim(low) != 0 or fnp.ndim(high) != 0:
            raise ValueError("gaussian_kde.integrate_box_1d: low and high must be scalars")
        sigma = fnp.sqrt(self.covariance[0, 0])
        lo = (low - self.dataset[0]) / sigma
        hi = (high - self.dataset[0]) / sigma
        return fnp.sum(self.weights * (fsp.ndtr(hi) - fsp.ndtr(lo)))

    def integrate_box(
        self, low_bounds: Any, high_bounds: Any, maxpts: Any = None, *, rng: Any = None
    ) -> Any:
        """The probability mass of a box: 1-d estimates only (``integrate_box_1d``);
        SciPy's multivariate form integrates numerically and is not supported (nor is
        it in JAX).

        Example:
            >>> import numpy as np
            >>> kde = gaussian_kde(np.array([-1.0, 1.0]))
            >>> round(float(kde.integrate_box(0.0, np.inf)), 6)
            0.5
        """
        if self.d != 1:
            raise UnsupportedOperationError(
                f"gaussian_kde.integrate_box: only 1-d estimates (d={self.d} here) are "
                "supported; integrate the marginals with integrate_box_1d, or use SciPy's "
                "gaussian_kde outside the transforms"
            )
        low = fnp.reshape(fnp.asarray(low_bounds), ())
        high = fnp.reshape(fnp.asarray(high_bounds), ())
        return self.integrate_box_1d(low, high)

    def integrate_kde(self, other: gaussian_kde) -> Any:
        """The integral of the product of this estimate and ``other``.

        Example:
            >>> import numpy as np
            >>> kde = gaussian_kde(np.array([-1.0, 1.0]), bw_method=1.0)
            >>> round(float(kde.integrate_kde(kde)), 6)
            0.160228
        """
        if other.d != self.d:
            raise ValueError(
                f"gaussian_kde.integrate_kde: the estimates have dimensions {self.d} and {other.d}"
            )
        total = self.covariance + other.covariance
        return fnp.sum(
            self._convolve(total, self.dataset, self.weights, other.dataset) * other.weights
        )

    @staticmethod
    def _convolve(total_cov: Any, data: Any, weights: Any, at: Any) -> Any:
        """``sum_i weights_i N(at_j; data_i, total_cov)`` for each column ``j`` of ``at``."""
        chol = fnp.linalg.cholesky(total_cov)
        d = fnp.shape(data)[0]
        diff = data[:, :, None] - at[:, None, :]
        n, m = fnp.shape(diff)[1:]
        z = fnp.linalg.solve(chol, fnp.reshape(diff, (d, n * m)))
        energy = 0.5 * fnp.reshape(fnp.sum(z * z, axis=0), (n, m))
        norm = (2.0 * math.pi) ** (d / 2.0) * fnp.prod(fnp.diagonal(chol))
        return fnp.sum(weights[:, None] * fnp.exp(-energy), axis=0) / norm

    def resample(self, size: Any = None, seed: Any = None, *, shape: Any = None) -> Any:
        """Draws from the estimate, shape ``(d, size)``.  SciPy's form
        ``resample(size=None, seed=None)`` (``size`` defaults to ``int(neff)``; ``seed``
        an int, ``Generator`` or ``RandomState``) draws the same numbers as SciPy for the
        same seed; JAX's form ``resample(key, shape=())`` (an ``ft.random`` key first)
        gives shape ``(d,) + shape`` as JAX does.  Differentiable in the data and the
        bandwidth (the normal draws are scaled by the covariance's factor).

        Example:
            >>> import numpy as np
            >>> kde = gaussian_kde(np.array([-1.0, 1.0]))
            >>> kde.resample(5, seed=0).shape
            (1, 5)
        """
        if is_key(size):
            return self._resample_key(size, () if shape is None else shape)
        if shape is not None:
            raise TypeError(
                "gaussian_kde.resample: shape= goes with a key first (JAX's "
                "resample(key, shape)); SciPy's form is resample(size, seed)"
            )
        n_draw = int(numpy.asarray(self.neff)) if size is None else int(size)
        state = seed
        if not isinstance(state, (numpy.random.Generator, numpy.random.RandomState)):
            state = (
                numpy.random.mtrand._rand
                if state is None
                else numpy.random.RandomState(state)
                if isinstance(state, (int, numpy.integer))
                else state
            )
        d = self.d
        # numpy's multivariate_normal: standard normals times sqrt(s) * vh of svd(cov)
        z = state.standard_normal((n_draw, d))
        _, s, vh = fnp.linalg.svd(self.covariance)
        eps = fnp.matmul(z, fnp.sqrt(s)[:, None] * vh)
        w = numpy.asarray(self.weights, dtype=float)
        idx = state.choice(self.n, size=n_draw, p=w)
        return self.dataset[:, idx] + fnp.transpose(eps)

    def _resample_key(self, key: Any, shape: Any) -> Any:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        ind_key, eps_key = random_keys.split(key)
        ind = random_keys.choice(ind_key, self.n, shape=shape, p=self.weights)
        zeros = fnp.zeros(self.d, dtype=dtype_of(self.covariance))
        eps = random_keys.multivariate_normal(eps_key, zeros, self.covariance, shape=shape)
        eps = fnp.moveaxis(eps.astype(dtype_of(self.dataset)), -1, 0)
        return self.dataset[:, ind] + eps

    def marginal(self, dimensions: Any) -> gaussian_kde:
        """The estimate of the variables ``dimensions`` (indices, negative allowed), with
        the same bandwidth.

        Example:
            >>> import numpy as np
            >>> kde = gaussian_kde(np.array([[0.0, 1.0, 3.0], [1.0, 0.0, 2.0]]))
            >>> kde.marginal(1).d
            1
        """
        dims = numpy.atleast_1d(dimensions)
        if dims.dtype.kind not in "iu":
            raise ValueError("gaussian_kde.marginal: dimensions must be integers")
        if numpy.any(dims >= self.d) or numpy.any(dims < -self.d):
            raise ValueError(
                f"gaussian_kde.marginal: dimensions {dims.tolist()} out of range for d={self.d}"
            )
        dims = numpy.unique(dims % self.d)
        return gaussian_kde(self.dataset[dims], bw_method=self.factor, weights=self.weights)


def _flatten(kde: gaussian_kde) -> tuple[tuple, Any]:
    return (kde.dataset, kde.weights, kde.factor), None


def _unflatten(aux: Any, children: tuple) -> gaussian_kde:
    dataset, weights, factor = children
    kde = object.__new__(gaussian_kde)
    kde.dataset, kde.weights = dataset, weights
    if all(hasattr(c, "dtype") or isinstance(c, (int, float)) for c in children):
        kde.neff = 1.0 / fnp.sum(weights * weights)
        kde.set_bandwidth(factor)
    else:  # placeholders (a tree's structure only): nothing to compute
        kde.factor = factor
    return kde


register_pytree_node(gaussian_kde, _flatten, _unflatten)
