"""Every executor runs a check the same way: the same BLAS thread count and kernel settings, the same
time limits, the same crash isolation, hence the same verdicts (inprocess, pool, Dask, pytest)."""

import json
import os
import platform
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLAS = ROOT / "tests" / "claimfiles" / "blas.py"
FAULTS = ROOT / "tests" / "claimfiles" / "faults.py"
THREAD_VARS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")


def _env(**extra):
    """The test's environment without any thread setting (the harness must choose), plus ``extra``.
    The BLAS kernel is left as the environment has it (the suite may run under any OPENBLAS_CORETYPE)."""
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARS}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def _run(claim_file, out, *args, env=None, timeout=240, selectors=()):
    r = subprocess.run([sys.executable, "-m", "verify", "--no-builtin", "run", str(claim_file), *selectors,
                        "--out", str(out),
                        "--profile", "quick", "--quiet", "--no-report", *map(str, args)],
                       env=env or _env(), capture_output=True, text=True, timeout=timeout)
    recs = [json.loads(x) for x in (Path(out) / "records.jsonl").read_text().splitlines()]
    return r, recs


def _quantities(recs):
    (res,) = [x for x in recs if x["type"] == "result" and x["fixture_kind"] != "negative"]
    assert res["verdict"] == "pass", res
    return res["evidence"]["quantities"]


EXECUTORS = {"inprocess": ["--executor", "inprocess"], "pool": ["--executor", "pool", "--jobs", "2"],
             "dask": ["--executor", "dask"]}


def _executor_args(name, request):
    args = list(EXECUTORS[name])
    if name == "dask":
        args += ["--scheduler", request.getfixturevalue("dask_scheduler")]
    return args


@pytest.mark.parametrize("executor", list(EXECUTORS))
def test_one_blas_thread_inside_a_task_on_every_executor(tmp_path, executor, request):
    """Without any setting in the environment a check runs on one BLAS thread, in every library loaded
    (numpy's and SciPy's), whichever process runs it; the run record says what the run used."""
    r, recs = _run(BLAS, tmp_path, *_executor_args(executor, request))
    assert r.returncode == 0, r.stdout + r.stderr
    q = _quantities(recs)
    assert q["threads"] == [1] and q["libraries"] >= 1, q
    run = recs[0]
    assert run["type"] == "run" and run["blas"] and {b["threads"] for b in run["blas"]} == {1}


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="OpenBLAS caps its threads at the number of cores")
@pytest.mark.parametrize("executor", list(EXECUTORS))
def test_the_runs_thread_count_reaches_every_executor(tmp_path, executor, request):
    """A thread count set where the run starts is the count inside every task, a Dask worker's own
    setting notwithstanding (Dask starts its workers with one thread)."""
    r, recs = _run(BLAS, tmp_path, *_executor_args(executor, request), env=_env(OPENBLAS_NUM_THREADS="2"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert _quantities(recs)["threads"] == [2]


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="Prescott is an x86-64 kernel")
def test_blas_kernel_chosen_by_the_environment_reaches_the_workers(tmp_path):
    """OPENBLAS_CORETYPE is left to the environment (the cross-machine CI step relies on it)."""
    r, recs = _run(BLAS, tmp_path, "--jobs", "1", env=_env(OPENBLAS_CORETYPE="Prescott"))
    assert r.returncode == 0, r.stdout + r.stderr
    # This OpenBLAS reports its Prescott kernel (SSE3, runs on every x86-64) by the generic name Katmai.
    assert _quantities(recs)["architectures"] in (["Prescott"], ["Katmai"])


def test_one_blas_thread_in_the_pytest_plugin(tmp_path):
    f = tmp_path / "blas_claims.py"
    f.write_text(BLAS.read_text())
    xml = tmp_path / "junit.xml"
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(f), f"--junitxml={xml}"],
                       env=_env(), capture_output=True, text=True, cwd=tmp_path, timeout=240)
    assert r.returncode == 0, r.stdout + r.stderr
    props = [json.loads(p.get("value")) for p in ET.parse(xml).iter("property") if p.get("name") == "evidence"]
    assert {tuple(e["quantities"]["threads"]) for e in props} == {(1,)}


# The fault-injection suite: a check that hangs past its time limit, kills its process, runs out of
# memory, raises, or passes; each on a random fixture and a negative control.
FAULT_VERDICTS = {
    "faults.fine": ("pass", "refuted"), "faults.hang": ("inconclusive", "inconclusive"),
    "faults.dies": ("error", "error"), "faults.oom": ("error", "error"), "faults.raises": ("error", "error"),
}


def _fault_run(tmp_path, args):
    r, recs = _run(FAULTS, tmp_path, *args, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr  # the faults are unexpected outcomes
    res = {(x["claim"], x["task_id"]): x for x in recs if x["type"] == "result"}
    assert len(res) == 10 and len([x for x in recs if x["type"] == "result"]) == 10
    assert json.loads((tmp_path / "summary.json").read_text())["results"] == 10
    return res


@pytest.mark.parametrize("executor", ["pool", "dask"])
def test_fault_suite_same_verdicts_and_reasons(tmp_path, executor, request):
    res = _fault_run(tmp_path, _executor_args(executor, request))
    got = {cid: (res[(cid, "0.0")]["verdict"], res[(cid, "1.0")]["verdict"]) for cid in FAULT_VERDICTS}
    assert got == FAULT_VERDICTS
    assert res[("faults.hang", "0.0")]["reason"] == "time limit of 1 s exceeded"
    assert res[("faults.dies", "0.0")]["reason"] == "worker process exited with code 3 while running the check"
    assert "MemoryError" in res[("faults.oom", "0.0")]["reason"]
    assert "LinAlgError" in res[("faults.raises", "0.0")]["reason"]


def test_fault_suite_inprocess_same_verdicts_where_a_process_can_survive(tmp_path):
    """In-process (the debugging executor) shares its process with the checks: a time limit (SIGALRM),
    MemoryError and exceptions give the pool's verdicts; a check that kills the process ends the run."""
    survivable = [c for c in FAULT_VERDICTS if c != "faults.dies"]
    r, recs = _run(FAULTS, tmp_path, "--executor", "inprocess", selectors=survivable, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    res = {(x["claim"], x["task_id"]): x for x in recs if x["type"] == "result"}
    got = {cid: (res[(cid, "0.0")]["verdict"], res[(cid, "1.0")]["verdict"]) for cid in survivable}
    assert got == {c: FAULT_VERDICTS[c] for c in survivable}
    assert res[("faults.hang", "0.0")]["reason"] == "time limit of 1 s exceeded"
