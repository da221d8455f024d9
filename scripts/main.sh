#!/usr/bin/env bash
# The README's main command: verify every paper (standard profile) and write reports/latest/report.html,
# in a virtual environment it creates when needed (scripts/_venv.sh). Extra arguments go to `verify run`.
source "$(dirname "$0")/_venv.sh" ""
exec "$VENV_PY" -m verify run --profile standard --out reports/latest "$@"
