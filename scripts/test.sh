#!/usr/bin/env bash
# Set up (scripts/setup.sh), install the system packages the tests need, compile the solver
# kernels once, lint, and run the test suite. Redis (127.0.0.1:6379) and PostgreSQL
# (127.0.0.1:5432) are expected to be running (the CI machines start them); the tests that
# need them fail when CI=true and they are unreachable, and are skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# System programs the tests start: Debian's Chromium for the browser tests (Playwright drives
# it; no browser download) and redis-server for the private brokers of the fault and compose
# tests (the CI machines run one on 6379, but the binary is what the tests need)
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "note: not installed: ${missing[*]} (apt-get install them); the tests that need them skip, or fail with CI=true" >&2
  fi
fi
.venv/bin/ruff check .
# the type check of core/, study/ and gapsweep/ ([tool.mypy] in pyproject.toml; ~25 s CPU cold)
.venv/bin/python scripts/typecheck.py
.venv/bin/gapsweep warmup
.venv/bin/python -m pytest "$@"
