"""The quick profile of every paper, run once, judged like CI judges a run, and compared with the
committed baseline (reports/baseline-quick.jsonl)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "reports" / "baseline-quick.jsonl"
PAPERS = ("lyu2021", "phuong2021", "wang2022", "min2024")


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("quick")
    args = [sys.executable, "-m", "verify", "run", "--profile", "quick", "--jobs", str(min(os.cpu_count() or 1, 4)),
            "--out", str(out), "--quiet"]
    if BASELINE.exists():
        args += ["--baseline", str(BASELINE)]
    r = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=1800,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    summary = json.loads((out / "summary.json").read_text())
    return r, records, summary, out


def test_every_outcome_as_expected(quick_run):
    r, _, summary, _ = quick_run
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-3000:]
    assert summary["exit_code"] == 0


def test_no_error_verdicts(quick_run):
    _, records, _, _ = quick_run
    errors = [(x["claim"], x["task_id"], x["reason"]) for x in records if x["type"] == "result" and x["verdict"] == "error"]
    assert errors == []


def test_every_negative_control_caught(quick_run):
    _, records, _, _ = quick_run
    missed = [(x["claim"], x["label"], x["verdict"]) for x in records
              if x["type"] == "result" and x["fixture_kind"] == "negative" and not x["as_expected"]]
    assert missed == []


def test_every_checkable_claim_ran_a_random_fixture_and_a_negative_control(quick_run):
    _, records, _, _ = quick_run
    checkable = {x["id"] for x in records if x["type"] == "claim" and x["checkable"]}
    kinds: dict[str, set] = {}
    for x in records:
        if x["type"] == "result":
            kinds.setdefault(x["claim"], set()).add(x["fixture_kind"])
    lacking = sorted(c for c in checkable if not {"random", "negative"} <= kinds.get(c, set()))
    assert lacking == []


def test_no_regression_against_baseline(quick_run):
    r, _, summary, _ = quick_run
    if not BASELINE.exists():
        pytest.skip("no committed baseline yet")
    assert summary["regressions"] == [], r.stdout[-4000:]


def test_report_written_and_self_contained(quick_run):
    *_, out = quick_run
    html = (out / "report.html").read_text()
    assert "http://" not in html.replace("http://www.w3.org", "") and 'src="https://' not in html


def test_every_paper_registered():
    r = subprocess.run([sys.executable, "-m", "verify", "list", "--json"], capture_output=True, text=True,
                       cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr
    items = json.loads(r.stdout)
    papers = {x["paper"] for x in items}
    assert set(PAPERS) <= papers
    for x in items:
        assert x["checkable"] or x["reason"], x["id"]
        if x["checkable"]:
            assert x["negative_controls"] >= 1, x["id"]


def _catalogue():
    r = subprocess.run([sys.executable, "-m", "verify", "list", "--json"], capture_output=True, text=True,
                       cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_every_checkable_claim_has_a_powered_control():
    """Power: a control that meets the hypotheses and mutates the conclusion (not only a broken hypothesis)."""
    lacking = [x["id"] for x in _catalogue() if x["checkable"] and x["powered_controls"] < 1]
    assert lacking == []


def test_every_expected_refutation_is_an_erratum_or_a_derived_statement():
    """Only printed statements are errata, each with its kind, place, reading and second method; a refuted
    statement the harness derived says so."""
    items = _catalogue()
    bare = [x["id"] for x in items if x["expected"] == "refuted" and not (x["erratum"] or x["derived"])]
    assert bare == []
    incomplete = [x["id"] for x in items if x["erratum"]
                  and not all(x["erratum"].get(k) for k in ("kind", "location", "reading", "second_method"))]
    assert incomplete == []
    both = [x["id"] for x in items if x["erratum"] and x["derived"]]
    assert both == []


def _catalogue() -> list[dict]:
    r = subprocess.run([sys.executable, "-m", "verify", "list", "--json"], capture_output=True, text=True,
                       cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr
    return [x for x in json.loads(r.stdout) if x["paper"] in PAPERS]


def test_every_checkable_claim_of_the_papers_declares_its_fidelity():
    undeclared = [x["id"] for x in _catalogue() if x["checkable"] and x["fidelity"] == "undeclared"]
    assert undeclared == []


def test_errata_declare_their_root_and_an_independent_second_method():
    items = {x["id"]: x for x in _catalogue()}
    problems = []
    for cid, x in items.items():
        e = x.get("erratum")
        if not e:
            continue
        if not e.get("independence"):
            problems.append(f"{cid}: no independence declared for its second method")
        root = e.get("root")
        if root:
            if root not in items or not items[root].get("erratum"):
                problems.append(f"{cid}: root {root!r} is not a claim carrying an erratum")
            elif items[root]["erratum"].get("root"):
                problems.append(f"{cid}: root {root!r} has a root of its own (one slip, one root)")
        elif e.get("independence") == "same-method confirmation":
            problems.append(f"{cid}: an independent slip needs a second method that is not the same method")
    assert problems == []
