"""Records survive anything: a line torn by a crash never corrupts the file, a file with no record is
an error, and summary.json counts exactly what the records file holds."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "toy_claims.py"


def verify(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "verify", "--no-builtin", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd or ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)


def _lines(path):
    return [json.loads(x) for x in Path(path).read_text().splitlines()]  # every line must parse


def _results(path):
    return [x for x in _lines(path) if x["type"] == "result"]


@pytest.fixture
def finished_run(tmp_path):
    out = tmp_path / "run"
    r = verify("run", EXAMPLE, "--out", out, "--profile", "quick", "--jobs", "1", "--quiet", "--no-report")
    assert r.returncode == 1, r.stdout + r.stderr  # the toy file holds one false claim
    return out


def test_resume_cuts_a_torn_last_line_before_appending(finished_run):
    out = finished_run
    path = out / "records.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    assert json.loads(lines[-1])["type"] == "end" and json.loads(lines[-2])["type"] == "result"
    total = len(_results(path))
    # A run killed while writing its last result: the end record never came, the result is cut in half.
    torn = lines[-2][: len(lines[-2]) // 2]
    path.write_bytes(b"".join(lines[:-2]) + torn)
    damaged = path.read_bytes()
    r = verify("run", EXAMPLE, "--out", out, "--profile", "quick", "--seed", "5", "--quiet", "--resume")
    assert r.returncode == 2 and "resume needs the same" in r.stderr  # refused: nothing changes
    assert path.read_bytes() == damaged and not (out / "records.jsonl.torn").exists()

    r = verify("run", EXAMPLE, "--out", out, "--profile", "quick", "--jobs", "1", "--quiet", "--resume")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "torn last line" in r.stderr and "records.jsonl.torn" in r.stderr
    assert (out / "records.jsonl.torn").read_bytes() == torn + b"\n"  # kept aside, not lost
    results = _results(path)  # every line of the resumed file parses
    assert len(results) == total and len({(x["claim"], x["task_id"]) for x in results}) == total
    assert json.loads((out / "summary.json").read_text())["results"] == total
    # The file stays usable: a second resume finds nothing to do, the report renders.
    r = verify("run", EXAMPLE, "--out", out, "--profile", "quick", "--quiet", "--resume", "--no-report")
    assert r.returncode == 1 and "torn" not in r.stderr
    r = verify("report", out, "-o", out / "again.html")
    assert r.returncode == 0, r.stderr


def test_diff_and_report_read_a_torn_last_line_with_a_warning(finished_run, tmp_path):
    path = finished_run / "records.jsonl"
    cut = tmp_path / "cut.jsonl"
    data = path.read_bytes()
    cut.write_bytes(data[:-20])  # inside the end record
    r = verify("report", cut, "-o", tmp_path / "r.html")
    assert r.returncode == 0, r.stderr
    assert "cut.jsonl: ignoring a torn last line" in r.stderr
    r = verify("diff", path, cut)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("content, message", [
    (b"{not json", "holds no valid record"),
    (b"{not json\n", ":1: malformed record"),
    (b"", "is empty"),
    (b"\n\n", "is empty"),
    (b'{"type": "run"}\n{not json\n{"type": "end"}\n', ":2: malformed record"),
])
def test_a_file_without_valid_records_is_an_error_everywhere(tmp_path, content, message):
    bad = tmp_path / "bad"
    bad.write_bytes(content)
    for args in (["diff", bad, bad], ["report", bad, "-o", tmp_path / "x.html"]):
        r = verify(*args)
        err = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(err) == 1, r.stdout + r.stderr
        assert str(bad) in err[0] and message in err[0], err
    assert not (tmp_path / "x.html").exists()
    out = tmp_path / "run"
    out.mkdir()
    (out / "records.jsonl").write_bytes(content)
    r = verify("run", EXAMPLE, "--out", out, "--profile", "quick", "--quiet", "--resume", "--no-report")
    err = r.stderr.strip().splitlines()
    if message == "is empty":  # a run killed before its first line: resuming it starts the run (issue 28)
        assert r.returncode in (0, 1) and "starting the run" in err[0], r.stderr
        assert b'"type": "result"' in (out / "records.jsonl").read_bytes()
        return
    assert r.returncode == 2 and len(err) == 1 and "records.jsonl" in err[0] and message in err[0], r.stderr
    assert (out / "records.jsonl").read_bytes() == content  # an error changes nothing


def test_a_complete_last_record_without_its_newline_is_kept(finished_run):
    path = finished_run / "records.jsonl"
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    total = len(_results(path))
    r = verify("run", EXAMPLE, "--out", finished_run, "--profile", "quick", "--quiet", "--resume", "--no-report")
    assert r.returncode == 1 and "torn" not in r.stderr, r.stderr
    assert len(_results(path)) == total


def test_record_writer_flushes_every_line_and_fsyncs_at_most_once_a_second(tmp_path, monkeypatch):
    """Every line is readable as soon as it is written (a killed run keeps it); fsync runs on the first line,
    then at most once per FSYNC_EVERY_S, and on close."""
    from verify import records

    synced = []
    monkeypatch.setattr(records.os, "fsync", lambda fd: synced.append(fd))
    path = tmp_path / "r.jsonl"
    w = records.RecordWriter(path)
    for i in range(50):
        w.write({"type": "result", "i": i})
        assert path.read_text().count("\n") == i + 1
    assert len(synced) == 1
    w._synced -= w.FSYNC_EVERY_S
    w.write({"type": "result", "i": 50})
    assert len(synced) == 2
    w.close()
    assert len(synced) == 3 and os.path.getsize(path) > 0
