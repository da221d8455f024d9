"""The public claim API is kept (issue 32, items 8 and 9): a claim file written against today's API and
one written a week before it (assigning ``Evidence.inconclusive_reason``) run unchanged; a removed name or
a changed form fails here before it fails a user's file kept for years. See CHANGELOG.md."""

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import verify
from verify import Evidence
from verify.discovery import load_file

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "tests" / "claimfiles" / "api"

# What verify exported at 0.1.0 and still must (new names may be added; none of these may go).
API_0_1 = {
    "REGISTRY", "Evidence", "Fixture", "Results", "UsageError", "adversarial", "check", "choice", "claim",
    "clopper_pearson", "erratum", "family", "hypothesis", "integer", "jsonable", "judge_binomial", "judge_slope",
    "judge_trend", "load_results", "negative", "not_checkable", "random", "real", "run", "__version__",
}


def test_every_name_of_0_1_is_still_exported():
    assert API_0_1 <= set(verify.__all__)
    assert all(hasattr(verify, n) for n in API_0_1)


def test_changelog_names_the_current_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## {verify.__version__}" in text


def test_assigning_inconclusive_reason_warns_and_makes_the_evidence_inconclusive():
    ev = Evidence()
    ev.le("x", 1.0, 2.0)
    assert ev.inconclusive_reason is None
    with pytest.warns(DeprecationWarning, match=r"ev\.inconclusive\(reason\)"):
        ev.inconclusive_reason = "the solver stopped early"
    assert ev.inconclusive_reason == "the solver stopped early" and not ev.valid_computation
    with pytest.warns(DeprecationWarning):
        ev.inconclusive_reason = None  # clearing withdraws nothing: a failed validity entry stays
    assert not ev.valid_computation
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Evidence().inconclusive("x").inconclusive_reason == "x"  # the new form does not warn


def test_claim_file_imports_its_sibling_and_leaves_sys_path_as_it_was():
    before = list(sys.path)
    ids = load_file(API / "week_old.py")
    assert ids == ["old.cauchy_schwarz", "old.solver_gave_up"]
    assert sys.path == before


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("api")
    r = subprocess.run([sys.executable, "-m", "verify", "--no-builtin", "run", str(API / "today.py"),
                        str(API / "week_old.py"), "--profile", "quick", "--jobs", "1", "--out", str(out), "--quiet"],
                       capture_output=True, text=True, cwd=out, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    # It runs: exit 0, or 1 where a verdict rule made since it was written marks a claim (a verdict change
    # listed in CHANGELOG.md, not an API break: "cannot fail here" on a check with no probe), never 2.
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stdout + r.stderr
    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    return {"summary": json.loads((out / "summary.json").read_text()),
            "results": [x for x in records if x.get("type") == "result"]}


def test_todays_claim_file_runs_with_the_outcomes_it_had(run):
    claims = run["summary"]["claims"]
    assert claims["api.cauchy_schwarz"]["status"] == "verified"
    assert claims["api.orthogonal"]["status"] == "refuted" and claims["api.orthogonal"]["as_expected"]
    for cid in ("api.cauchy_schwarz", "api.rates"):  # verified; unexpected only through the marks of the rules
        assert claims[cid]["as_expected"] or claims[cid]["marks"], claims[cid]
    assert claims["api.rates"]["status"] == "verified"
    assert claims["api.remark"]["status"] == "not checkable"
    assert not any(r["verdict"] == "error" for r in run["results"]), [r["reason"] for r in run["results"]]


def test_last_weeks_claim_file_runs_and_its_old_form_warns(run):
    claims = run["summary"]["claims"]
    assert claims["old.cauchy_schwarz"]["status"] == "verified"
    gave_up = [r for r in run["results"] if r["claim"] == "old.solver_gave_up"]
    assert gave_up and all(r["verdict"] == "inconclusive" for r in gave_up)
    assert claims["old.solver_gave_up"]["as_expected"]
    assert any("DeprecationWarning" in w and "ev.inconclusive(reason)" in w for r in gave_up for w in r["warnings"])


NOTEBOOK_CELL = '''
import numpy as np, verify
from verify import Evidence, claim, family, random

@family("nb.vec")
def vec(rng, d=3):
    return {"u": rng.normal(size=d), "v": rng.normal(size=d)}

@claim("nb.false", kind="lemma", statement=r"$u \\cdot v = 0$", fixtures=[random(vec)])
def false(fx):
    ev = Evidence()
    ev.close("u.v", fx["u"] @ fx["v"], 0.0, atol=1e-12)
    return ev

res = verify.check("nb.false")
line = res.results("nb.false")[0]["repro"]
print("REPRO", line)
again = eval(line.split("    #")[0])  # the printed line, run as printed where the claim was declared
print("AGAIN", again.status("nb.false")["status"], again.results("nb.false")[0]["task_id"])
'''


def test_a_notebook_claims_reproduce_line_runs_as_printed(tmp_path):
    """A claim declared in ``__main__`` with no file (a notebook, ``python -``): the reproduce line is a
    ``verify.check`` call that runs as printed, and says how to run it from a shell."""
    r = subprocess.run([sys.executable, "-"], input=NOTEBOOK_CELL, capture_output=True, text=True, cwd=tmp_path,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    # It runs: exit 0, or 1 where a verdict rule made since it was written marks a claim (a verdict change
    # listed in CHANGELOG.md, not an API break: "cannot fail here" on a check with no probe), never 2.
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stdout + r.stderr
    repro = next(x for x in r.stdout.splitlines() if x.startswith("REPRO "))
    assert "module:__main__" not in repro and repro.startswith("REPRO verify.check('nb.false', task='0.0'")
    assert "save the claim's cell" in repro and "verify --no-builtin run claims.py nb.false --task 0.0" in repro
    assert "AGAIN refuted 0.0" in r.stdout
    assert "rerun the first with:\n  verify.check('nb.false'" in r.stdout
