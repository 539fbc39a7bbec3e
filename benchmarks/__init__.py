"""Side-by-side benchmarks of ftransforms (``python -m benchmarks``; see README.md here)."""
