#!/usr/bin/env bash
# Set up (scripts/setup.sh), compile the solver kernels once, lint, and run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/gapsweep warmup
.venv/bin/python -m pytest "$@"
