"""The README's two commands stay true: each creates and uses a virtual environment (Debian's system
Python refuses `pip install` outside one), says what to install when it cannot, and CI runs the
README's test command."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _commands():
    text = (ROOT / "README.md").read_text()
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", quick)


def test_readme_has_two_commands():
    assert _commands() == ["bash scripts/main.sh", "bash scripts/test.sh"]
    main = (ROOT / "scripts" / "main.sh").read_text()
    assert '_venv.sh" ""' in main and '"$VENV_PY" -m verify run --profile standard --out reports/latest' in main
    test = (ROOT / "scripts" / "test.sh").read_text()
    assert '_venv.sh" "test,dask"' in test and '"$VENV_PY" -m pytest' in test


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert _commands()[1] in ci


def _script(tmp_path, fail_on, **env):
    """scripts/test.sh with PYTHON a python3 that fails whenever an argument contains ``fail_on``, and
    not root (so nothing is installed with apt-get)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "python3"
    shim.write_text(f'#!/bin/sh\nfor a in "$@"; do case "$a" in *"{fail_on}"*) exit 1;; esac; done\n'
                    f'exec "{sys.executable}" "$@"\n')
    (bin_dir / "id").write_text("#!/bin/sh\necho 1000\n")
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHON": str(shim),
           "VERIFY_VENV": str(tmp_path / "venv"), **env}
    return subprocess.run(["bash", str(ROOT / "scripts" / "test.sh")], capture_output=True, text=True, env=env,
                          timeout=60)


def test_missing_venv_module_names_the_package_to_install(tmp_path):
    r = _script(tmp_path, "ensurepip")
    err = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(err) == 1, r.stdout + r.stderr
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert f"apt-get install python{version}-venv" in err[0] and "cannot create a virtual environment" in err[0]
    assert not (tmp_path / "venv").exists()


def test_too_old_python_is_refused(tmp_path):
    r = _script(tmp_path, "version_info")
    assert r.returncode == 2 and "needs Python 3.11 or newer" in r.stderr, r.stderr


def test_a_directory_that_is_no_virtual_environment_is_left_alone(tmp_path):
    (tmp_path / "venv").mkdir()
    (tmp_path / "venv" / "keep.txt").write_text("mine")
    r = _script(tmp_path, "no-such-argument")
    assert r.returncode == 2 and "is not a virtual environment" in r.stderr, r.stderr
    assert (tmp_path / "venv" / "keep.txt").read_text() == "mine"
