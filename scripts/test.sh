#!/usr/bin/env bash
# Set up (scripts/setup.sh), install the system packages the tests need, compile the solver
# kernels once, lint, and run the test suite. Redis (127.0.0.1:6379) and PostgreSQL
# (127.0.0.1:5432) are expected to be running (the CI machines start them); the tests that
# need them fail when CI=true and they are unreachable, and are skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Debian's Chromium for the browser tests (Playwright drives it; no browser download)
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "note: chromium is not installed (apt-get install chromium); the browser tests will skip" >&2
  fi
fi
.venv/bin/ruff check .
.venv/bin/gapsweep warmup
.venv/bin/python -m pytest "$@"
