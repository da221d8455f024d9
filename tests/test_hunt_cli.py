"""``verify hunt`` as a user meets it: the planted error of the README example, replay, bad input."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLANTED = ROOT / "examples" / "hunt_planted.py"


def verify(*args, timeout=300):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "verify", "--no-builtin", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=timeout)


@pytest.fixture(autouse=True, scope="module")
def _without_partly_imported_papers():
    """The in-process CLI runs with --no-builtin; other test modules import parts of the bundled papers at
    collection (a part's claims may use claims of a module not imported), so they are set aside here."""
    from verify.claims import REGISTRY

    saved = REGISTRY.claims
    REGISTRY.claims = {k: c for k, c in saved.items() if c.paper not in ("lyu2021", "phuong2021", "wang2022", "min2024")}
    try:
        yield
    finally:
        kept = REGISTRY.claims
        REGISTRY.claims = saved
        REGISTRY.claims.update({k: c for k, c in kept.items() if k not in saved})


def main(*args) -> int:
    """The CLI in this process (cheaper than a subprocess; the planted file is loaded once)."""
    from verify.cli import main as cli_main

    return cli_main(["--no-builtin", *map(str, args)])


def test_hunt_finds_the_planted_error_that_random_fixtures_miss(tmp_path, capsys):
    # Every random fixture of the thorough profile misses the planted error.
    assert main("run", PLANTED, "--profile", "thorough", "--out", tmp_path / "run", "--quiet", "--no-report",
                "--executor", "inprocess") == 0, capsys.readouterr().out
    # Two workers for one claim: two shards, the first confirmed counterexample stops the other.
    r = verify("hunt", PLANTED, "planted.perceptron_bound", "--max-fixtures", "400", "--out", tmp_path / "hunt", "--jobs", "2")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "planted.perceptron_bound: COUNTEREXAMPLE found by" in r.stdout
    assert "confirmed: refuted with a certified computation at quick and thorough" in r.stdout
    path = tmp_path / "hunt" / "found" / "planted.perceptron_bound.json"
    found = json.loads(path.read_text())
    assert found["declaration"].startswith('adversarial(separable, label="hunted", seed=')
    assert found["hunt"]["params"]["radius"] > 1  # the planted typo shows only off normalised data
    assert found["hunt"]["size"]["n"] <= 4 and found["hunt"]["size"]["d"] <= 3
    assert (tmp_path / "hunt" / "report.html").exists()
    from verify.records import read_records
    from verify.report import report_html

    records = read_records(tmp_path / "hunt" / "records.jsonl")
    assert "hunt: slack over evaluations" in report_html(records, lazy=False)

    assert main("hunt", "--replay", path) == 1
    assert "planted.perceptron_bound on planted.separable" in capsys.readouterr().out

    # Kept as a fixture of the claim file (here a copy, its claims renamed), every later run refutes it.
    kept = tmp_path / "planted_kept.py"
    kept.write_text(PLANTED.read_text()
                    .replace('@claim("planted.', '@claim("kept.')
                    .replace("from verify import Evidence,", "from verify import Evidence, adversarial,")
                    .replace("FIXTURES = [random(separable), ", f"FIXTURES = [{found['declaration']}, random(separable), "))
    assert main("run", kept, "--profile", "standard", "--seed", "5", "--out", tmp_path / "kept", "--quiet",
                "--no-report", "--executor", "inprocess") == 1
    out = capsys.readouterr().out
    assert "UNEXPECTED kept.perceptron_bound: refuted" in out and "UNEXPECTED kept.perceptron_novikoff" not in out


def test_the_correct_statement_survives_its_hunt(tmp_path):
    from verify.claims import REGISTRY
    from verify.discovery import load_file
    from verify.hunt import hunt

    load_file(PLANTED)
    run = hunt([REGISTRY["planted.perceptron_novikoff"]], max_fixtures=60, out_dir=tmp_path, executor="inprocess",
               report=False)
    o = run.outcomes["planted.perceptron_novikoff"]
    assert run.exit_code == 0 and o["status"] == "no counterexample" and not (tmp_path / "found").exists()
    assert o["evaluations"] == 60 and o["best"]["slack"] > 0
    assert o["coverage"]["arms"][0]["parameters"]["radius"]["bins"] >= 3


@pytest.mark.parametrize("args, message", [
    (["hunt", PLANTED, "--budget", "0"], "--budget must be a positive number"),
    (["hunt", PLANTED, "--max-fixtures", "0"], "--max-fixtures must be a positive whole number"),
    (["hunt", "nosuch.claim"], "matches no registered claim"),
    (["hunt", PLANTED, "--executor", "nope"], "unknown executor"),
    (["hunt", "--replay", "missing.json"], "no such file"),
    (["hunt", "--replay", "missing.json", "planted.perceptron_bound"], "takes no selectors"),
])
def test_bad_input_exits_2_with_one_line(args, message, capsys, tmp_path):
    assert main(*args, "--out", tmp_path) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_dask_executor_hunts_on_a_cluster(tmp_path):
    distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
    from verify.claims import REGISTRY
    from verify.discovery import load_file
    from verify.hunt import hunt

    load_file(PLANTED)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        run = hunt([REGISTRY["planted.perceptron_bound"]], max_fixtures=400, out_dir=tmp_path, executor="dask",
                   scheduler=cluster.scheduler_address, stream=None, report=False)
    o = run.outcomes["planted.perceptron_bound"]
    assert run.exit_code == 1 and (tmp_path / "found" / "planted.perceptron_bound.json").exists(), {k: v for k, v in o.items() if k != "records"}
