"""Round eight's published programs, one module per program, each with its authors' import
lines (``jax``/``autograd`` replaced by ``ftransforms``; see
``tests/test_published_programs_8.py``)."""
