"""``python -m benchmarks``: see benchmarks/README.md and ``python -m benchmarks --help``."""

from benchmarks.run import main

raise SystemExit(main())
