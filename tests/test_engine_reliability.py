"""Runs that survive faults: resume, SIGKILL, Ctrl-C, determinism across executors, Dask."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SLOW = ROOT / "tests" / "claimfiles" / "slow.py"
EXAMPLE = ROOT / "examples" / "toy_claims.py"


def _cmd(*args):
    return [sys.executable, "-m", "verify", "--no-builtin", *map(str, args)]


def _env():
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _results(path):
    out = []
    for line in Path(path).read_text().splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if rec["type"] == "result":
            out.append(rec)
    return out


def _wait_for_results(path, n, timeout=60):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if path.exists() and len(_results(path)) >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"fewer than {n} results in {path} after {timeout} s")


def test_sigkill_loses_at_most_in_flight_and_resume_completes(tmp_path):
    out = tmp_path / "run"
    total = 30  # 10 claims x (2 random + 1 negative)
    p = subprocess.Popen(_cmd("run", SLOW, "--out", out, "--profile", "quick", "--jobs", "2", "--quiet"),
                         env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    _wait_for_results(out / "records.jsonl", 8)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    done_before = _results(out / "records.jsonl")
    assert 8 <= len(done_before) < total
    r = subprocess.run(_cmd("run", SLOW, "--out", out, "--profile", "quick", "--jobs", "2", "--quiet", "--resume"),
                       env=_env(), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    after = _results(out / "records.jsonl")
    keys = [(x["claim"], x["task_id"]) for x in after]
    assert len(set(keys)) == total
    # Finished work was skipped, not redone: only the lost items (at most those in flight) are repeated.
    assert len(after) - len(done_before) == total - len(done_before)
    summary = json.loads((out / "summary.json").read_text())
    assert len(summary["claims"]) == 10 and summary["exit_code"] == 0


def test_resume_refuses_other_seed(tmp_path):
    out = tmp_path / "run"
    subprocess.run(_cmd("run", EXAMPLE, "toy.cauchy_schwarz", "--out", out, "--profile", "quick", "--quiet",
                        "--no-report"), env=_env(), check=True, capture_output=True)
    r = subprocess.run(_cmd("run", EXAMPLE, "--out", out, "--profile", "quick", "--seed", "5", "--resume"),
                       env=_env(), capture_output=True, text=True)
    assert r.returncode == 2 and "resume needs the same" in r.stderr


@pytest.mark.parametrize("executor", [["--executor", "inprocess"], ["--executor", "pool", "--jobs", "2"]],
                         ids=["inprocess", "pool"])
def test_ctrl_c_writes_summary_of_what_finished(tmp_path, executor):
    out = tmp_path / "run"
    # SIGINT at its default even when the tests run where it is ignored (nohup, a background job).
    p = subprocess.Popen(_cmd("run", SLOW, "--out", out, "--profile", "quick", "--quiet", *executor),
                         env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    _wait_for_results(out / "records.jsonl", 3)
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == 130, stdout + stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True and summary["exit_code"] == 130
    recs = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]  # every line parses
    results = [r for r in recs if r["type"] == "result"]
    assert 3 <= len(results) < 30
    # The summary counts exactly the results the file holds, each once.
    assert summary["results"] == len(results) == len({(r["claim"], r["task_id"]) for r in results})
    assert sum(sum(st["counts"].values()) for st in summary["claims"].values()) == len(results)
    assert recs[-1]["type"] == "end" and recs[-1]["interrupted"] is True and recs[-1]["results"] == len(results)
    assert (out / "report.html").exists() or "report" in stderr


def test_an_interrupt_waits_until_a_record_is_written_and_counted():
    """The runner holds Ctrl-C while it writes and counts a record: a record cut mid-write would tear a
    line in the middle of the file, one written but not counted would make the summary disagree."""
    from verify.runner import _DeferredInterrupts

    steps = []
    outer = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, even under nohup
    with _DeferredInterrupts() as interrupts:
        with pytest.raises(KeyboardInterrupt):
            with interrupts.hold():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.2)  # the signal arrives here and waits
                steps.append("written")
                steps.append("counted")
        with pytest.raises(KeyboardInterrupt):  # outside hold(), at once
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
            steps.append("never")
    assert steps == ["written", "counted"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    # A process that ignores SIGINT keeps ignoring it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with _DeferredInterrupts():
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    signal.signal(signal.SIGINT, outer)


def _verdicts(path):
    return sorted((r["claim"], r["task_id"], r["seed"], r["verdict"], json.dumps(r["evidence"], sort_keys=True))
                  for r in _results(path))


def test_same_seed_same_verdicts_and_evidence_across_executors(tmp_path):
    runs = {}
    for name, extra in {"inprocess": ["--executor", "inprocess"], "pool": ["--jobs", "2"],
                        "again": ["--jobs", "2"]}.items():
        out = tmp_path / name
        subprocess.run(_cmd("run", EXAMPLE, "--out", out, "--profile", "standard", "--seed", "7", "--quiet",
                            "--no-report", *extra), env=_env(), capture_output=True, text=True)
        runs[name] = _verdicts(out / "records.jsonl")
    assert runs["inprocess"] == runs["pool"] == runs["again"]
    assert len(runs["pool"]) > 2
    other = tmp_path / "other"
    subprocess.run(_cmd("run", EXAMPLE, "--out", other, "--profile", "standard", "--seed", "8", "--quiet",
                        "--no-report"), env=_env(), capture_output=True, text=True)
    assert [x[2] for x in _verdicts(other / "records.jsonl")] != [x[2] for x in runs["pool"]]


def test_dask_local_cluster_matches_local_run(tmp_path):
    distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", processes=True,
                                       dashboard_address=None)
    try:
        out = tmp_path / "dask"
        r = subprocess.run(_cmd("run", EXAMPLE, "--out", out, "--profile", "standard", "--seed", "3", "--quiet",
                                "--no-report", "--executor", "dask", "--scheduler", cluster.scheduler_address),
                           env=_env(), capture_output=True, text=True, timeout=180)
        assert r.returncode == 1, r.stdout + r.stderr  # the toy file holds one false claim
        local = tmp_path / "local"
        subprocess.run(_cmd("run", EXAMPLE, "--out", local, "--profile", "standard", "--seed", "3", "--quiet",
                            "--no-report"), env=_env(), capture_output=True, text=True)
        assert _verdicts(out / "records.jsonl") == _verdicts(local / "records.jsonl")
    finally:
        cluster.close()
