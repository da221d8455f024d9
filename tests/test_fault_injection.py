"""Issue 28, case by case: a hostile but fair user's faults, each on a tiny claim file, and what must come of
them (no run lost or falsified, clean shutdown, exit 2 for bad input). Runs that must be caught mid-way wait
at a gate (a file the test creates) and announce themselves by a file: no test waits a guessed time."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "claimfiles" / "hostile.py"
sys.path.insert(0, str(ROOT / "tests" / "claimfiles"))
from hostile import LONG_ID  # noqa: E402


def _env(gate: Path | None = None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if gate is not None:
        env["VERIFY_TEST_GATE"] = str(gate)
    return env


def _cmd(*args) -> list[str]:
    return [sys.executable, "-m", "verify", "--no-builtin", *map(str, args)]


def verify(*args, gate=None, cwd=None, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run(_cmd(*args), env=_env(gate), capture_output=True, text=True, cwd=cwd, timeout=timeout)


def run(out, *selectors, extra=(), gate=None, timeout=120):
    return verify("run", HOSTILE, *selectors, "--out", out, "--profile", "quick", "--quiet", "--no-report",
                  *extra, gate=gate, timeout=timeout)


def start(out, *selectors, extra=(), gate=None) -> subprocess.Popen:
    return subprocess.Popen(_cmd("run", HOSTILE, *selectors, "--out", out, "--profile", "quick", "--quiet",
                                 "--no-report", *extra), env=_env(gate), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def lines(path) -> list[dict]:
    return [json.loads(x) for x in Path(path).read_text().splitlines() if x.strip()]


def results(path) -> list[dict]:
    return [r for r in lines(path) if r["type"] == "result"]


def wait_for(cond, what, proc=None, timeout=60.0) -> None:
    """Until ``cond()`` (a file appeared, a process ended); fails if ``proc`` exits first."""
    t0 = time.monotonic()
    while not cond():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the run ended before {what}: {proc.communicate()}")
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"no {what} after {timeout} s")
        time.sleep(0.01)


def started(gate: Path) -> list[int]:
    return [int(p.name.split("-")[1]) for p in gate.glob("started-*")]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(x) for x in (task / "children").read_text().split()]
    return out


def one_line_error(r, *words) -> None:
    err = r.stderr.strip().splitlines()
    assert r.returncode == 2, r.stdout + r.stderr
    assert len(err) == 1 and err[0].startswith("verify: error:") and "Traceback" not in r.stderr, r.stderr
    for w in words:
        assert w in err[0], err[0]


@pytest.fixture
def gate(tmp_path) -> Path:
    g = tmp_path / "gate"
    g.mkdir()
    return g


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """A finished run of two claims (one expected refuted), in process: the run later cases must keep."""
    out = tmp_path_factory.mktemp("finished") / "run"
    r = run(out, "hostile.fast", "hostile.wrong", extra=["--executor", "inprocess"])
    assert r.returncode == 0, r.stdout + r.stderr
    return out


def copy_run(src: Path, dst: Path) -> Path:
    dst.mkdir()
    for name in ("records.jsonl", "summary.json"):
        (dst / name).write_bytes((src / name).read_bytes())
    return dst


# ---- case 1: a usage error, an unreachable scheduler or a new run killed early never loses the previous run

def test_1_usage_errors_keep_the_previous_run(finished, tmp_path):
    out = copy_run(finished, tmp_path / "run")
    before = {n: (out / n).read_bytes() for n in ("records.jsonl", "summary.json")}
    one_line_error(run(out, extra=["--executor", "dask"]), "--scheduler")
    code = ("import sys, verify.runner as r; r.DASK_CONNECT_TIMEOUT_S = 1; from verify.cli import main; "
            "sys.exit(main(sys.argv[1:]))")
    r = subprocess.run([sys.executable, "-c", code, "--no-builtin", "run", str(HOSTILE), "--out", str(out),
                        "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9", "--quiet"],
                       env=_env(), capture_output=True, text=True, timeout=120)
    one_line_error(r, "tcp://127.0.0.1:9", "cannot reach")
    assert {n: (out / n).read_bytes() for n in before} == before


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_1_a_new_run_replaces_the_previous_only_at_its_first_result(finished, tmp_path, gate, sig):
    out = copy_run(finished, tmp_path / "run")
    old = (out / "records.jsonl").read_bytes()
    p = start(out, "hostile.gated", extra=["--task", "1.0", "--executor", "inprocess"], gate=gate)
    wait_for(lambda: started(gate), "gated check", p)
    assert (out / ".previous-run" / "records.jsonl").read_bytes() == old  # kept aside, not deleted
    p.send_signal(sig)
    p.communicate(timeout=60)
    if sig == signal.SIGTERM:  # the run itself puts the previous one back
        assert p.returncode == 128 + sig
        assert (out / "records.jsonl").read_bytes() == old and not (out / ".previous-run").exists()
    else:  # killed outright: the next run into the directory puts it back first
        r = run(out, "hostile.fast", "hostile.wrong", extra=["--executor", "inprocess", "--resume"])
        assert r.returncode == 0 and "restored" in r.stderr, r.stdout + r.stderr
        assert len(results(out / "records.jsonl")) == len(results(finished / "records.jsonl"))
        assert (out / "records.jsonl").read_bytes().startswith(old)


# ---- case 2: one writer per run directory

def test_2_a_second_run_into_a_directory_in_use_exits_2_at_once(tmp_path, gate):
    out = tmp_path / "run"
    a = start(out, "hostile.gated", extra=["--executor", "pool", "--jobs", "1"], gate=gate)
    wait_for(lambda: started(gate), "gated check", a)
    b = run(out, "hostile.fast", extra=["--executor", "inprocess"])
    one_line_error(b, "another run is writing there", f"pid {a.pid}", "started")
    (gate / "open").touch()
    a.communicate(timeout=120)
    assert a.returncode == 0
    assert len(results(out / "records.jsonl")) == 3
    assert json.loads((out / "summary.json").read_text())["exit_code"] == 0
    assert verify("diff", out, out).returncode == 0


# ---- case 3: a resume with a narrower selection judges what it selected

def test_3_resume_with_a_narrower_selection_judges_only_it(finished, tmp_path):
    out = copy_run(finished, tmp_path / "run")
    r = run(out, "hostile.fast", extra=["--executor", "inprocess", "--resume", "--timeout", "30"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stderr.count("never returns") == 1, r.stderr  # case 8: what an in-process limit cannot do, once
    assert "UNEXPECTED" not in r.stdout and "?:" not in r.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert list(summary["claims"]) == ["hostile.fast"] and summary["exit_code"] == 0
    assert summary["selection"]["claims"] == ["hostile.fast"] and summary["results"] == 3
    assert "selection: " in r.stdout


# ---- case 4 (and 10: incomplete): SIGTERM, SIGHUP and SIGKILL of the main process alone

@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
@pytest.mark.parametrize("executor", ["pool", "inprocess"])
def test_4_a_signal_ends_the_run_cleanly(tmp_path, gate, sig, executor):
    if executor == "inprocess" and sig == signal.SIGHUP:
        pytest.skip("one in-process signal is enough")
    if signal.getsignal(sig) == signal.SIG_IGN:
        # started under nohup (SIGHUP) or as a background job: the run inherits the ignored signal and, by
        # design, keeps ignoring it (see verify.runner._DeferredInterrupts)
        pytest.skip(f"{signal.Signals(sig).name} is ignored in this process, so the run ignores it too")
    out = tmp_path / "run"
    p = start(out, "hostile.gated", extra=["--executor", executor, "--jobs", "2"], gate=gate)
    wait_for(lambda: started(gate) and (out / "records.jsonl").exists()
             and len(results(out / "records.jsonl")) >= (2 if executor == "pool" else 1), "two results", p)
    workers = children(p.pid) if executor == "pool" else []
    p.send_signal(sig)
    stdout, _ = p.communicate(timeout=60)
    assert p.returncode == 128 + sig
    recs = lines(out / "records.jsonl")
    assert recs[-1]["type"] == "end" and recs[-1]["interrupted"] is True
    summary = json.loads((out / "summary.json").read_text())
    assert summary["exit_code"] == 128 + sig and summary["signal"] == sig
    st = summary["claims"]["hostile.gated"]
    assert st["status"] == "incomplete" and st["incomplete"]["planned"] == 3, st
    assert "INCOMPLETE hostile.gated" in stdout
    assert all(r["verdict"] != "error" for r in results(out / "records.jsonl"))  # no worker died of the signal
    for w in workers:
        wait_for(lambda w=w: not alive(w), f"worker {w} gone")


def test_4_workers_die_with_the_main_process(tmp_path, gate):
    out = tmp_path / "run"
    p = start(out, "hostile.gated", extra=["--executor", "pool", "--jobs", "2"], gate=gate)
    wait_for(lambda: started(gate), "gated check", p)
    workers = children(p.pid)
    assert workers and started(gate)[0] in workers
    os.kill(p.pid, signal.SIGKILL)  # the main pid alone, as the OOM killer or a CI cancel does
    p.communicate(timeout=60)
    for w in workers:
        wait_for(lambda w=w: not alive(w), f"worker {w} gone", timeout=20)
    r = run(out, "hostile.gated", extra=["--executor", "pool", "--jobs", "2", "--resume"])
    assert r.returncode == 0, r.stdout + r.stderr  # the lock died with its holder; resume completes


# ---- case 6: the diff counts what is lost, and says when the runs differ

def diff(old, new, capsys) -> subprocess.CompletedProcess:
    """``verify diff`` in this process (it loads no claim file): as a finished command."""
    from verify.cli import main

    capsys.readouterr()
    code = main(["diff", str(old), str(new)])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["verify", "diff"], code, out, err)


def _write(path: Path, recs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def test_6_diff_reports_lost_results_and_differing_runs(finished, tmp_path, capsys):
    recs = lines(finished / "records.jsonl")
    base = _write(tmp_path / "base.jsonl", recs)
    one_lost = _write(tmp_path / "one.jsonl", [r for r in recs if not (r.get("claim") == "hostile.fast"
                                                                        and r.get("task_id") == "0.1")])
    d = diff(base, one_lost, capsys)
    assert d.returncode == 1 and "lost" in d.stdout, d.stdout
    no_wrong = _write(tmp_path / "nowrong.jsonl", [r for r in recs if r.get("claim") != "hostile.wrong"])
    d = diff(base, no_wrong, capsys)
    assert d.returncode == 1 and "REGRESSIONS" in d.stdout, d.stdout
    assert "hostile.wrong  claim" in d.stdout and "not run" in d.stdout  # refuted -> not run: a regression
    only_run = _write(tmp_path / "onlyrun.jsonl", recs[:1])
    d = diff(base, only_run, capsys)
    assert d.returncode == 1 and "REGRESSIONS" in d.stdout
    other = _write(tmp_path / "v9.jsonl", [{**r, "schema": 9} if r["type"] == "run" else r for r in recs])
    one_line_error(diff(base, other, capsys), "version 9", "2")
    std = _write(tmp_path / "std.jsonl", [{**r, "profile": "standard"} if r["type"] == "run" else r
                                          for r in recs if r.get("task_id") != "0.1"])
    d = diff(base, std, capsys)
    assert d.stdout.startswith("THE RUNS DIFFER: profile quick (old) vs standard (new)"), d.stdout
    assert d.returncode == 0 and "only in the old records: 1 fixtures" in d.stdout
    table = [x for x in diff(base, no_wrong, capsys).stdout.splitlines() if not x.startswith("    verify")]
    assert max(map(len, table)) <= 100


# ---- cases 5, 7 and 8: a NaN, a value JSON cannot store, SystemExit, a swallowed time limit, on every executor

@pytest.mark.parametrize("executor", ["inprocess", "pool", "dask"])
def test_5_7_8_the_same_verdicts_on_every_executor(tmp_path, executor, request):
    """Case 5: a NaN in a conclusion is an error; case 7: a value JSON cannot store is the same error
    everywhere, naming the field; case 8: SystemExit in a check is its error, and a check that swallows
    its time-limit signal is inconclusive (in process too)."""
    extra = ["--executor", executor]
    if executor == "dask":
        extra += ["--scheduler", request.getfixturevalue("dask_scheduler")]
    r = run(tmp_path / "run", "hostile.unjson", "hostile.sysexit", "hostile.nan", "hostile.swallow", extra=extra)
    assert r.returncode == 1, r.stdout + r.stderr
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["exit_code"] == 1
    res = {x["claim"]: x for x in results(tmp_path / "run" / "records.jsonl")}
    assert res["hostile.nan"]["verdict"] == "error" and "ratio" in res["hostile.nan"]["reason"]
    assert res["hostile.unjson"]["verdict"] == "error"
    assert res["hostile.unjson"]["reason"].startswith("evidence.quantities.handle holds a value JSON cannot store")
    assert res["hostile.sysexit"]["verdict"] == "error"
    assert res["hostile.sysexit"]["reason"] == "check crashed: SystemExit: 3"
    assert res["hostile.swallow"]["verdict"] == "inconclusive"
    assert res["hostile.swallow"]["reason"].startswith("time limit of 0.3 s exceeded")


# ---- case 9: filesystem and argument errors are exit 2 with one line

@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
def test_9_timeout_must_be_positive_and_finite(tmp_path, value, capsys):
    from verify.cli import main

    with pytest.raises(SystemExit) as exc:  # refused by the parser, before any claim file is loaded
        main(["--no-builtin", "run", str(HOSTILE), "--out", str(tmp_path / "run"), "--timeout", value])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "argument --timeout: must be a positive finite number" in err
    assert not (tmp_path / "run").exists()
    from verify.errors import UsageError
    from verify.runner import run as run_claims

    with pytest.raises(UsageError, match="--timeout must be a positive finite number"):
        run_claims([], out_dir=tmp_path / "run", timeout_s=float(value))
    assert not (tmp_path / "run").exists()


def test_9_out_that_is_a_file_or_cannot_be_made(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    one_line_error(run(f, "hostile.fast"), str(f), "is a file")
    one_line_error(run(f / "sub", "hostile.fast"), str(f / "sub"), "cannot write there")
    assert f.read_text() == "x"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_9_unwritable_out(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o500)
    one_line_error(run(ro / "run", "hostile.fast"), "cannot write there")


def test_9_a_long_claim_id_reruns_as_printed(tmp_path):
    r = run(tmp_path / "run", LONG_ID, extra=["--executor", "inprocess"])
    assert r.returncode == 0, r.stdout + r.stderr
    res = results(tmp_path / "run" / "records.jsonl")[0]
    repro = res["repro"].split()
    assert repro[0] == "verify"
    rerun = subprocess.run([sys.executable, "-m", "verify", *repro[1:], "--quiet", "--no-report"], env=_env(),
                           capture_output=True, text=True, cwd=tmp_path, timeout=120)
    # One positive fixture alone is unguarded (exit 1): the command ran, nothing failed on its path.
    assert rerun.returncode == 1 and "1 fixture run" in rerun.stdout, rerun.stdout + rerun.stderr
    (made,) = (tmp_path / "reports" / "rerun").iterdir()
    assert len(made.name) <= 80


# ---- case 10: the smaller items

def test_10_show_escapes_control_characters(finished, tmp_path):
    recs = lines(finished / "records.jsonl")
    for r in recs:
        if r.get("claim") == "hostile.fast":
            r["reason"] = "evil \x1b]0;pwned\x07 \x1b[31mred"
    path = _write(tmp_path / "evil.jsonl", recs)
    r = verify("show", "hostile.fast", HOSTILE, "--records", path)
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout and "\\x1b[31mred" in r.stdout
    assert str(path) in r.stdout  # it names what it read


def test_10_errata_names_what_it_read_and_says_when_it_has_nothing(finished, tmp_path):
    r = verify("errata", "hostile", HOSTILE, "--records", finished)
    assert r.returncode == 0 and str(finished.resolve()) in r.stderr and "no result" not in r.stderr, r.stderr
    empty = _write(tmp_path / "other.jsonl", [x for x in lines(finished / "records.jsonl") if x["type"] != "result"])
    r = verify("errata", "hostile", HOSTILE, "--records", empty)
    assert r.returncode == 0 and "hold no result for hostile" in r.stderr, r.stderr


@pytest.mark.parametrize("args", [["list", HOSTILE, "--json"], ["diff", "RUN", "RUN"]])
def test_10_a_closed_pipe_ends_quietly(finished, args):
    args = [finished / "records.jsonl" if a == "RUN" else a for a in args]
    p = subprocess.Popen(_cmd(*args), env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # the reader is gone before anything is written (``| head`` that has had enough)
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 0 and "Traceback" not in err and "BrokenPipe" not in err, err


# ---- issue 32, item 1: a selection's run has its own directory; replacing another run says so

def test_32_a_selection_writes_its_own_directory_and_replacing_says_so(finished, tmp_path):
    r = verify("run", HOSTILE, "hostile.fast", "--profile", "quick", "--quiet", "--no-report", "--executor",
               "inprocess", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "reports" / "hostile_hostile.fast" / "records.jsonl").exists()
    assert not (tmp_path / "reports" / "latest").exists()
    # ``verify show`` and ``verify errata`` find that run (the newest under reports/ holding it) and name it.
    r = verify("show", "hostile.fast", HOSTILE, cwd=tmp_path)
    assert "latest results, from reports/hostile_hostile.fast/records.jsonl" in r.stdout, r.stdout + r.stderr
    out = copy_run(finished, tmp_path / "run")
    r = run(out, "hostile.fast", extra=["--executor", "inprocess"])
    assert r.returncode == 0 and r.stderr.count("verify: replacing the run in") == 1, r.stderr
