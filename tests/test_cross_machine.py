"""tools/cross_machine.py, the CI step that reruns the quick catalogue under another BLAS kernel and
thread count: it compares verdicts and statuses exactly, checks that the set-up really varied, and
relies on `verify diff` for the baseline."""

import importlib.util
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "cross_machine.py"
EXAMPLE = ROOT / "examples" / "toy_claims.py"

spec = importlib.util.spec_from_file_location("cross_machine", TOOL)
cm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cm)


def _result(claim, task, verdict, kind="random", expected=("pass",)):
    return {"type": "result", "claim": claim, "task_id": task, "seed": 7, "family": "f", "fixture_kind": kind,
            "verdict": verdict, "expected": list(expected), "as_expected": verdict in expected}


CLAIMS = [{"type": "claim", "id": c, "paper": "p", "checkable": True, "uses": []} for c in ("p.a", "p.b")]


def test_compare_identical_runs():
    recs = CLAIMS + [_result("p.a", "0.0", "pass"), _result("p.b", "0.0", "pass")]
    assert cm.compare(recs, list(recs)) == []


def test_compare_lists_verdict_status_and_missing_fixture():
    first = CLAIMS + [_result("p.a", "0.0", "pass"), _result("p.b", "0.0", "pass"), _result("p.b", "1.0", "pass")]
    second = CLAIMS + [_result("p.a", "0.0", "inconclusive"), _result("p.b", "0.0", "pass")]
    diffs = cm.compare(first, second)
    assert "p.a [0.0] seed 7: pass -> inconclusive" in diffs
    assert "p.b [1.0] seed 7: pass -> not run" in diffs
    assert "p.a: status unguarded -> inconclusive" in diffs  # no powered control in these records
    assert len(diffs) == 3


def test_check_variation_refuses_an_unvaried_setup():
    run = {"type": "run", "blas": [{"architecture": "Haswell", "threads": 1}]}
    assert any("kernel did not change" in p for p in cm.check_variation([run], [run], 1))
    other = {"type": "run", "blas": [{"architecture": "Katmai", "threads": 1}]}
    assert cm.check_variation([run], [other], 1) == []
    two = {"type": "run", "blas": [{"architecture": "Katmai", "threads": 2, "threading": "pthreads"},
                                   {"architecture": "Prescott", "threads": 1, "threading": "disabled"}]}
    assert cm.check_variation([run], [two], 2) == [] or (os.cpu_count() or 1) < 2
    assert any("did not have 2 threads" in p for p in cm.check_variation([run], [other], 2)) or (os.cpu_count() or 1) < 2
    # a library built for one kernel only (an old OpenBLAS that reports Prescott) stays put: compared per library
    a = {"type": "run", "blas": [{"library": "openblas", "version": "0.3.30", "architecture": "SkylakeX", "threads": 1},
                                 {"library": "openblas", "version": "0.3.15", "architecture": "Prescott", "threads": 1}]}
    b = {"type": "run", "blas": [{"library": "openblas", "version": "0.3.30", "architecture": "Prescott", "threads": 1},
                                 {"library": "openblas", "version": "0.3.15", "architecture": "Prescott", "threads": 1}]}
    assert cm.check_variation([a], [b], 1) == []
    assert any("kernel did not change" in p for p in cm.check_variation([a], [a], 1))


def _tool(*args, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS")}
    return subprocess.run([sys.executable, str(TOOL), "--no-builtin", str(EXAMPLE), "--out", str(tmp_path / "o"),
                           *map(str, args)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"), reason="kernel names are x86-64's")
def test_toy_claims_same_everywhere_then_a_baseline_regression(tmp_path):
    r = _tool("--baseline", "", tmp_path=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "identical verdicts" in r.stdout
    first = tmp_path / "o" / "first" / "records.jsonl"
    second = [json.loads(x) for x in (tmp_path / "o" / "second" / "records.jsonl").read_text().splitlines()]
    threaded = {b["threads"] for b in second[0]["blas"] if b["threading"] != "disabled"}
    assert threaded == ({2} if (os.cpu_count() or 1) >= 2 else {1})

    # The first run as baseline: a clean diff. A baseline in which the false claim passed: a regression.
    r = _tool("--first", first, "--baseline", first, tmp_path=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    baseline = tmp_path / "baseline.jsonl"
    lines = [json.loads(x) for x in first.read_text().splitlines()]
    for x in lines:
        if x["type"] == "result" and x["claim"] == "toy.false_orthogonality" and x["verdict"] == "refuted":
            x.update(verdict="pass", as_expected=True)
    baseline.write_text("".join(json.dumps(x) + "\n" for x in lines))
    r = _tool("--first", first, "--baseline", baseline, tmp_path=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "identical verdicts" in r.stdout and "exited 1" in r.stderr
