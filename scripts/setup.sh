#!/usr/bin/env bash
# Create .venv (if missing) and install gapsweep with its test tools and the production web
# server (gunicorn: docker-compose.yml's web service, run by its test) into it. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test,server]'
