"""The README's two commands stay true: CI runs the README's test command."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _commands():
    text = (ROOT / "README.md").read_text()
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", quick)


def test_readme_has_two_commands():
    cmds = _commands()
    assert len(cmds) == 2
    assert "verify run" in cmds[0] and "pip install" in cmds[0]
    assert "pytest" in cmds[1] and "pip install" in cmds[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert _commands()[1] in ci
