#!/usr/bin/env bash
# Fetch the wheels that the GPU machine lacks (it has no network) into .whl/ at the
# repository root, for Python 3.12 on x86-64 Linux (the GPU image's Python); .whl/ is
# ignored by git and travels with the device tool's `carry: [".whl"]`.
#
#   bash benchmarks/fetch_gpu_wheels.sh          # here, where PyPI is reachable
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .whl
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
  --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl "optree>=0.11"
# optree's one requirement, typing-extensions, is on the GPU image already.
ls -l .whl
