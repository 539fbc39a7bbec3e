"""``ftransforms.distributed`` (imported as ``fd``): the transforms over dask arrays, from a
notebook to a cluster.

Each dask task runs the ordinary single-machine transform on one block, so the same graph
runs on dask's threads, on a ``distributed`` cluster of processes or machines, or on
``dask_cuda`` with one GPU per worker (blocks of CuPy arrays stay on their GPU)::

    fd.vmap(func, in_dims=0, *, chunk_size=None)          # -> pytree of lazy dask arrays
    fd.map_reduce(func, in_dims=0, *, reduce="sum", chunk_size=None, split_every=None)
    fd.jacrev(func, argnums=0, *, rows_per_task)          # -> lazy (M, *x.shape) array
    fd.hessian(func, argnums=0, *, rows_per_task)         # -> lazy (N, N) array
    fd.compute(tree, **dask_kw)    fd.persist(tree)        # one dask pass for a pytree

Needs the ``distributed`` extra (``pip install 'ftransforms[distributed]'``); importing this
module works without it, and the first call says what to install.  The fd functions are
outermost: call them outside every transform and put transforms inside them.

Example:
    >>> import dask.array as da, numpy as np
    >>> import ftransforms as ft
    >>> import ftransforms.distributed as fd
    >>> x = da.from_array(np.arange(8.0).reshape(4, 2), chunks=(2, 2))
    >>> g = fd.vmap(ft.grad(lambda r: (r ** 2).sum()))(x)
    >>> fd.compute(g, scheduler="sync")
    array([[ 0.,  2.],
           [ 4.,  6.],
           [ 8., 10.],
           [12., 14.]])
"""

from ftransforms.distributed._api import compute, hessian, jacrev, map_reduce, persist, vmap

__all__ = ["compute", "hessian", "jacrev", "map_reduce", "persist", "vmap"]
