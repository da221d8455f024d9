# Sourced by scripts/main.sh and scripts/test.sh, with the extras to install as $1: makes sure a virtual
# environment exists with the project installed in it, then leaves its interpreter in $VENV_PY.
#
# Why a virtual environment: Debian's and Ubuntu's system Python refuses `pip install` outside one
# (externally-managed-environment), and installing into it would mix the project with the system's
# packages anyway. Settings: PYTHON (default python3, 3.11 or newer) creates it; VERIFY_VENV (default
# .venv in the repository) is where.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

extras="${1:-}"
python="${PYTHON:-python3}"
venv="${VERIFY_VENV:-.venv}"

die() {
  echo "error: $*" >&2
  exit 2
}

command -v "$python" >/dev/null 2>&1 \
  || die "$python not found: install Python 3.11 or newer (Debian/Ubuntu: apt-get install python3 python3-venv)"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  || die "$("$python" --version 2>&1) is too old: theorem-verify needs Python 3.11 or newer (set PYTHON=python3.11 or newer)"

usable() { [ -x "$venv/bin/python" ] && "$venv/bin/python" -m pip --version >/dev/null 2>&1; }

if ! usable; then
  if [ -e "$venv" ] && [ ! -f "$venv/pyvenv.cfg" ]; then
    die "$venv exists and is not a virtual environment; move it away or set VERIFY_VENV"
  fi
  if ! "$python" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    # Debian and Ubuntu ship venv/ensurepip apart from the interpreter.
    pkg="python$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')-venv"
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "installing $pkg (Python's venv module) with apt-get" >&2
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null; } \
        || die "apt-get could not install $pkg; install it (or python3-venv), then rerun"
    else
      die "$python cannot create a virtual environment (no venv/ensurepip module): install it with 'sudo apt-get install $pkg' (Debian/Ubuntu; or python3-venv), then rerun"
    fi
  fi
  if [ -e "$venv" ]; then
    echo "recreating $venv (it has no working pip)" >&2
    rm -rf "$venv"
  fi
  echo "creating a virtual environment in $venv" >&2
  "$python" -m venv "$venv" || die "'$python -m venv $venv' failed"
fi

# Install (again) only when the dependencies or the extras changed: the install is editable.
spec=".${extras:+[$extras]}"
stamp="$venv/.theorem-verify-installed-${extras:-base}"
want="$(cksum < pyproject.toml)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  # Say what is being installed, then let pip show its progress (a first install downloads a few
  # hundred MB and takes minutes): one line per package collected and a bar per download on a terminal.
  deps="$("$python" - "$extras" <<'PY'
import sys, tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
deps = list(project.get("dependencies", []))
for extra in filter(None, sys.argv[1].split(",")):
    deps += project.get("optional-dependencies", {}).get(extra, [])
print(", ".join(d.split(";")[0].strip() for d in deps))
PY
)" || deps="(see pyproject.toml)"
  echo "installing theorem-verify${extras:+[$extras]} into $venv (a first install takes a few minutes): $deps" >&2
  progress=off
  [ -t 2 ] && progress=on
  "$venv/bin/python" -m pip install --progress-bar "$progress" --disable-pip-version-check -e "$spec" 1>&2 \
    || die "pip could not install theorem-verify${extras:+[$extras]} into $venv"
  echo "installed theorem-verify${extras:+[$extras]} into $venv" >&2
  echo "$want" > "$stamp"
fi
VENV_PY="$venv/bin/python"
