"""The pytest front door: each (claim, fixture) is an item with the runner's verdict semantics."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pytest(*args):
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          timeout=300)


def test_user_claim_file_as_pytest_items():
    r = _pytest(ROOT / "examples" / "toy_claims.py", "-v")
    assert r.returncode == 1, r.stdout + r.stderr
    out = r.stdout
    assert "cauchy_schwarz[random:toy.gaussian_vectors:0.0] PASSED" in out
    assert "cauchy_schwarz[negative:toy.gaussian_vectors:1.0] PASSED" in out  # the control was caught
    assert "false_orthogonality[random:toy.gaussian_vectors:0.0] FAILED" in out
    assert "refuted (expected pass)" in out and "rerun: verify --no-builtin run" in out
    assert "1 failed, 3 passed" in out


def test_vacuous_fixture_skips_with_the_unmet_hypothesis(tmp_path):
    f = tmp_path / "vacuous_claims.py"
    f.write_text(
        "from verify import Evidence, claim, family, hypothesis, negative, random\n"
        "@family('v.f')\n"
        "def fam(rng, d=2):\n    return {'x': rng.normal(size=d)}\n"
        "never = hypothesis('an impossible hypothesis', lambda fx: False)\n"
        "@claim('v.a', kind='lemma', statement='s', hypotheses=[never], fixtures=[random(fam)])\n"
        "def a(fx):\n    ev = Evidence()\n    ev.le('x', 0.0, 1.0)\n    return ev\n")
    r = _pytest(f)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "vacuous: hypotheses unmet: an impossible hypothesis" in r.stdout and "1 skipped" in r.stdout


def test_paper_module_collected_from_theorems():
    r = _pytest(ROOT / "theorems" / "wang2022" / "definitions.py", "--verify-profile", "quick")
    assert r.returncode == 0, r.stdout + r.stderr
    assert " passed" in r.stdout


def test_any_file_named_on_the_command_line_that_declares_claims(tmp_path):
    f = tmp_path / "cauchy.py"  # neither *_claims.py nor claims_*.py
    f.write_text((ROOT / "examples" / "toy_claims.py").read_text())
    r = _pytest(f, "-v")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "cauchy_schwarz[random:toy.gaussian_vectors:0.0] PASSED" in r.stdout and "1 failed, 3 passed" in r.stdout
    plain = tmp_path / "helpers.py"  # declares nothing: pytest's own collection (no tests in it)
    plain.write_text("def f():\n    return 1\n")
    r = _pytest(plain)
    assert r.returncode == 5 and "no tests ran" in r.stdout
