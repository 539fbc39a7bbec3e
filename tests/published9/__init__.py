"""Round nine's published programs, one module per program, each with its authors' import
lines (``jax`` replaced by ``ftransforms``; see ``tests/test_published_programs_9.py``)."""
