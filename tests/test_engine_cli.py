"""The command line as a user meets it: exit codes, reproduction commands, list --json, bad input."""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "toy_claims.py"
FAULTS = ROOT / "tests" / "claimfiles" / "faults.py"


def verify(*args, cwd=None, timeout=300, builtin=False):
    """Run the CLI; engine tests load only the files they name (``--no-builtin``)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    flags = [] if builtin else ["--no-builtin"]
    return subprocess.run([sys.executable, "-m", "verify", *flags, *map(str, args)], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env, timeout=timeout)


def test_true_and_false_claim_file(tmp_path):
    r = verify("run", EXAMPLE, "--out", tmp_path / "out", "--profile", "quick", "--jobs", "1", "--quiet")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "UNEXPECTED toy.false_orthogonality: refuted" in r.stdout
    assert "toy.cauchy_schwarz" not in r.stdout.split("UNEXPECTED")[1]
    rerun = [line.split("rerun: ", 1)[1] for line in r.stdout.splitlines() if "rerun: " in line]
    assert len(rerun) == 1
    for name in ("records.jsonl", "summary.json"):
        assert (tmp_path / "out" / name).exists()
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["exit_code"] == 1
    assert summary["claims"]["toy.cauchy_schwarz"]["status"] == "verified"
    assert summary["claims"]["toy.false_orthogonality"]["status"] == "refuted"
    # The printed reproduction command, run as printed, reruns exactly that claim on exactly that fixture,
    # into a directory of its own: the run it reproduces stays as it was.
    before = (tmp_path / "out" / "records.jsonl").read_text()
    argv = shlex.split(rerun[0])
    assert argv[:2] == ["verify", "--no-builtin"] and str(EXAMPLE) in argv
    for flag, value in (("--profile", "quick"), ("--seed", "0"), ("--executor", "pool"), ("--jobs", "1"),
                        ("--out", "reports/rerun/toy.false_orthogonality-0.0"), ("--task", "0.0")):
        assert argv[argv.index(flag) + 1] == value, rerun[0]
    r2 = subprocess.run([sys.executable, "-m", "verify", *argv[1:]], capture_output=True, text=True,
                        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert r2.returncode == 1, r2.stdout + r2.stderr
    recs = [json.loads(x) for x in (tmp_path / "reports/rerun/toy.false_orthogonality-0.0/records.jsonl")
            .read_text().splitlines()]
    results = [x for x in recs if x["type"] == "result"]
    assert len(results) == 1 and results[0]["claim"] == "toy.false_orthogonality"
    assert results[0]["verdict"] == "refuted" and results[0]["repro"] == rerun[0]
    assert (tmp_path / "out" / "records.jsonl").read_text() == before


def test_rerun_command_carries_the_time_limit_and_module_source(tmp_path):
    """A time limit given to the run decides verdicts, so its rerun command repeats it; a claim from a
    module named on the command line is rerun from that module."""
    (tmp_path / "mymod_claims_src.py").write_text(EXAMPLE.read_text())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    r = subprocess.run([sys.executable, "-m", "verify", "--no-builtin", "run", "module:mymod_claims_src",
                        "--timeout", "7.5", "--profile", "quick", "--out", tmp_path / "o", "--quiet",
                        "--no-report"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    rerun = [line.split("rerun: ", 1)[1] for line in r.stdout.splitlines() if "rerun: " in line]
    assert len(rerun) == 1
    argv = shlex.split(rerun[0])
    assert argv[:4] == ["verify", "--no-builtin", "run", "module:mymod_claims_src"]
    assert argv[argv.index("--timeout") + 1] == "7.5"
    r2 = subprocess.run([sys.executable, "-m", "verify", *argv[1:]], capture_output=True, text=True,
                        cwd=tmp_path, env=env, timeout=300)
    assert r2.returncode == 1, r2.stdout + r2.stderr
    assert "UNEXPECTED toy.false_orthogonality: refuted" in r2.stdout


def test_only_true_claim_exits_zero(tmp_path):
    r = verify("run", EXAMPLE, "toy.cauchy_schwarz", "--out", tmp_path, "--profile", "quick", "--quiet")
    assert r.returncode == 0, r.stdout + r.stderr


def test_list_json_keys():
    r = verify("list", "--json", EXAMPLE)
    assert r.returncode == 0, r.stderr
    items = json.loads(r.stdout)
    by_id = {x["id"]: x for x in items}
    toy = by_id["toy.cauchy_schwarz"]
    for key in ("id", "paper", "kind", "checkable", "reason", "fixtures", "negative_controls"):
        assert key in toy
    assert toy["checkable"] is True and toy["reason"] is None and toy["negative_controls"] == 1
    assert {f["kind"] for f in toy["fixtures"]} <= {"random", "adversarial", "negative"}
    assert all("family" in f for f in toy["fixtures"])


@pytest.mark.parametrize("content, message", [
    ("def broken(:\n    pass\n", "syntax error"),
    ("from verify import claim, not_checkable\n"
     "not_checkable('u.a', kind='lemma', statement='s', reason='r')\n"
     "not_checkable('u.a', kind='lemma', statement='s', reason='r')\n", "duplicate claim id 'u.a'"),
    ("from verify import not_checkable\n"
     "not_checkable('u.b', kind='lemma', statement='s', reason='r', uses=['u.nowhere'])\n", "uses unknown claim 'u.nowhere'"),
    ("from verify import not_checkable\n"
     "not_checkable('u.c', kind='lemma', statement='s', reason='r', uses=['u.d'])\n"
     "not_checkable('u.d', kind='lemma', statement='s', reason='r', uses=['u.c'])\n", "dependency cycle"),
    ("raise RuntimeError('boom at import')\n", "RuntimeError while loading"),
])
def test_bad_claim_files_one_line_exit_2(tmp_path, content, message):
    f = tmp_path / "user_file.py"
    f.write_text(content)
    r = verify("run", f, "--out", tmp_path / "o", "--quiet")
    assert r.returncode == 2, r.stdout + r.stderr
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and message in err[0] and "Traceback" not in r.stderr
    if "syntax" in message:
        assert "user_file.py:1" in err[0]


def test_debug_shows_traceback(tmp_path):
    f = tmp_path / "user_file.py"
    f.write_text("raise RuntimeError('boom at import')\n")
    r = verify("--debug", "run", f, "--out", tmp_path / "o")
    assert r.returncode == 2 and "Traceback" in r.stderr


@pytest.mark.parametrize("args, message", [
    (["run", "no.such.claim"], "matches no registered claim"),
    (["run", "--profile", "fast"], "unknown profile 'fast'"),
    (["run", "--executor", "cloud", str(EXAMPLE)], "unknown executor 'cloud'"),
    (["show", "no.such.claim"], "unknown claim 'no.such.claim'"),
    (["list", "--paper", "nobody2099", str(EXAMPLE)], "no such paper"),
    (["run", "missing_file.py"], "no such claim file"),
    (["report", "records.jsonl", "-o", "r.html", "--jobs", "0"], "--jobs must be at least 1, got 0"),
])
def test_bad_arguments_exit_2(tmp_path, args, message):
    r = verify(*args, "--out", tmp_path / "o") if args[0] == "run" else verify(*args)
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr


def test_malformed_records_and_baseline(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "run"}\nnot json at all\n{"type": "end"}\n')
    r = verify("report", bad, "-o", tmp_path / "r.html")
    assert r.returncode == 2 and "bad.jsonl:2: malformed record" in r.stderr
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text('{"type": "result", "claim": "x"}\n{"type": "end"}\n')
    r = verify("diff", wrong, wrong)
    assert r.returncode == 2 and "wrong.jsonl:1: result record lacks" in r.stderr
    r = verify("run", EXAMPLE, "--baseline", tmp_path / "absent.jsonl", "--out", tmp_path / "o", "--quiet")
    assert r.returncode == 2 and "no such records file" in r.stderr


def test_show_prints_claim():
    r = verify("show", "toy.false_orthogonality", EXAMPLE)
    assert r.returncode == 0
    assert "hypothesis: u is nonzero" in r.stdout and "negative" in r.stdout


def test_faults_are_contained(tmp_path):
    r = verify("run", FAULTS, "--out", tmp_path, "--profile", "quick", "--jobs", "2", "--quiet", "--no-report")
    assert r.returncode == 1
    recs = [json.loads(x) for x in (tmp_path / "records.jsonl").read_text().splitlines()]
    res = {(x["claim"], x["task_id"]): x for x in recs if x["type"] == "result"}
    assert len(res) == 10  # every task got a record; the run went on
    assert res[("faults.fine", "0.0")]["verdict"] == "pass"
    assert res[("faults.hang", "0.0")]["verdict"] == "inconclusive"
    assert "time limit" in res[("faults.hang", "0.0")]["reason"]
    assert res[("faults.dies", "0.0")]["verdict"] == "error"
    assert "exited with code 3" in res[("faults.dies", "0.0")]["reason"]
    assert res[("faults.oom", "0.0")]["verdict"] == "error" and "MemoryError" in res[("faults.oom", "0.0")]["reason"]
    assert res[("faults.raises", "0.0")]["verdict"] == "error"
    assert "LinAlgError" in res[("faults.raises", "0.0")]["reason"]


def test_claim_with_only_a_hypothesis_breaking_control_is_unguarded(tmp_path):
    f = ROOT / "tests" / "claimfiles" / "unguarded.py"
    r = verify("run", f, "--out", tmp_path, "--profile", "quick", "--jobs", "1", "--quiet")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "UNEXPECTED unguarded.always: unguarded" in r.stdout
    summary = json.loads((tmp_path / "summary.json").read_text())
    st = summary["claims"]["unguarded.always"]
    assert st["status"] == "unguarded" and st["negative_controls"] == {"total": 1, "caught": 1, "powered": 0, "crashed": 0}
    r = verify("list", "--json", f)
    assert [x["powered_controls"] for x in json.loads(r.stdout)] == [0]


def test_an_identity_with_every_control_is_marked_cannot_fail_here(tmp_path):
    f = ROOT / "tests" / "claimfiles" / "identity_only.py"
    r = verify("run", f, "--out", tmp_path, "--profile", "quick", "--jobs", "1", "--quiet")
    assert r.returncode == 1, r.stdout + r.stderr
    st = json.loads((tmp_path / "summary.json").read_text())["claims"]["identity.square"]
    assert st["status"] == "verified" and st["marks"] == ["cannot fail here"]
    assert not st["fully_verified"] and not st["as_expected"] and st["fidelity"] == "undeclared"
    assert st["hypotheses_broken"] == ["scale is 1"] and st["hypotheses_shown_necessary"] == []
    assert st["probes"] == {"conclusion held": 1} and st["negative_controls"]["powered"] == 1
    r = verify("list", "--json", f)
    assert [x["fidelity"] for x in json.loads(r.stdout)] == ["undeclared"]
