"""JAX's ``jax.example_libraries``: :mod:`ftransforms.example_libraries.optimizers`, the
``(init_fun, update_fun, get_params)`` optimizers that JAX's example programs
(``kernel_lsq.py``, ``advi.py``, ``mnist_classifier.py``) and tutorials import as ``from
jax.example_libraries import optimizers``, and :mod:`ftransforms.example_libraries.stax`,
the ``(init_fun, apply_fun)`` layers of ``mnist_classifier.py``, ``mnist_vae.py`` and
``differentially_private_sgd.py``.

Example:
    >>> from ftransforms.example_libraries import optimizers
    >>> opt_init, opt_update, get_params = optimizers.sgd(0.1)
    >>> callable(opt_update)
    True
"""

from ftransforms.example_libraries import optimizers, stax

__all__ = ["optimizers", "stax"]
