"""Published programs, round twelve (see tests/test_published_programs_round12.py)."""
