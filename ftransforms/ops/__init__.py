"""Primitive declarations, one module per op family: impl, JVP, VJP and batching rule of
each op in one ``defop`` call.  To add an operator, add one declaration to its family
module and expose it in ``ftransforms.numpy``; the registry test tells what is missing.

Families: ``elementwise``, ``reductions``, ``shape``, ``indexing``, ``linalg``, ``nn``
(convolution, windows and pooling; front ends in ``ftransforms.nn``), ``fft`` (one
primitive for NumPy's FFT family; front ends in ``ftransforms.numpy.fft``).
"""
