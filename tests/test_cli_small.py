"""Issue 32, item 7: the small defects of the command line (plurals, counts, the help of --jobs, hunting
everything, "did you mean", rerun commands that run where the venv is not active)."""

import io
import os
import subprocess
import sys
from pathlib import Path

import verify.cli as cli
from verify import settings as S

ROOT = Path(__file__).resolve().parents[1]
TODAY = ROOT / "tests" / "claimfiles" / "api" / "today.py"


def test_summary_line_counts_each_claim_once_and_says_which_unexpected():
    counts = {S.VERIFIED: 2, S.FULLY_VERIFIED: 1, S.ST_REFUTED: 1, S.UNEXPECTED: 1, S.CANNOT_FAIL: 1,
              "verified faithful": 1, "hypotheses broken": 3}
    assert cli.paper_line(counts) == ("2 verified (1 fully; 1 faithful), 1 refuted; 1 cannot fail here; "
                                      "hypotheses shown necessary 0 of 3 broken; 1 claim not as expected")
    assert cli.plural(1, "claim") == "1 claim" and cli.plural(2, "claim") == "2 claims"


def test_rerun_commands_name_the_script_when_verify_is_not_on_path(tmp_path, monkeypatch):
    script = tmp_path / ".venv" / "bin" / "verify"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(script), "run"])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert cli.runnable("verify run x --task 0.0") == ".venv/bin/verify run x --task 0.0"
    monkeypatch.setenv("PATH", f"{script.parent}:/usr/bin")  # the venv active: plain verify
    assert cli.runnable("verify run x") == "verify run x"
    monkeypatch.setattr(sys, "argv", ["-m", "run"])  # python -m verify: the records' form
    assert cli.runnable("verify run x") == "verify run x"


def test_jobs_help_gives_its_default(capsys):
    for sub in ("run", "hunt"):
        try:
            cli.main([sub, "--help"])
        except SystemExit:
            pass
        out = " ".join(capsys.readouterr().out.split())
        assert f"default: the number of CPUs, {os.cpu_count() or 1} here" in out


def test_hunt_without_selector_says_what_it_would_do_and_wants_all():
    r = subprocess.run([sys.executable, "-m", "verify", "--no-builtin", "hunt", "--budget", "30"], input="",
                       capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "hunts every checkable claim: 0 claims at 30 s each" in r.stderr and "--all" in r.stderr


def test_hunt_without_selector_asks_on_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("n\n"))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    assert cli.main(["--no-builtin", "hunt", "--budget", "60"]) == 2
    err = capsys.readouterr().err
    assert "at 60 s each" in err and "not hunting" in err


def test_a_mistyped_claim_id_gets_a_suggestion(capsys):
    assert cli.main(["--no-builtin", "run", str(TODAY), "api.cauchy_schwartz", "--profile", "quick"]) == 2
    err = capsys.readouterr().err
    assert "matches no registered claim" in err and "did you mean api.cauchy_schwarz" in err


def test_show_says_how_a_hunt_found_its_counterexample():
    from verify.show import hunt_lines

    h = {"status": "counterexample", "evaluations": 32, "spent_s": 1.1, "found_by": "search",
         "found": {"phase": "hypothesis", "evaluations_to_first": 16, "seconds_to_first": 0.9, "shrink_steps": 7,
                   "first": {"fixture": "fam(n=9, seed=3)", "slack": -0.26},
                   "shrunk": {"fixture": "fam(n=2, seed=0)", "slack": -2.3, "reason": "mistakes 1 > 0.3"}},
         "confirmation": {"confirmed": True, "replay": {"verdict": "refuted"}, "careful": {"verdict": "refuted"},
                          "neighbourhood": {"refuted": 4, "tried": 4}}}
    text = "\n".join(hunt_lines(h))
    assert "found by search (hypothesis phase) after 16 evaluation(s)" in text and "fam(n=9, seed=3)" in text
    assert "shrunk in 7 step(s) to fam(n=2, seed=0)" in text
    assert "confirmed: yes (replay refuted, careful refuted, 4 of 4 neighbours refuted)" in text
