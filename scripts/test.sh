#!/usr/bin/env bash
# The README's test command: the whole test suite, in a virtual environment it creates when needed
# (scripts/_venv.sh), with the test and dask extras. Extra arguments go to pytest.
source "$(dirname "$0")/_venv.sh" "test,dask"
exec "$VENV_PY" -m pytest "$@"
