"""Append-only JSON-lines records, their reading, merging and the summary file.

A records file holds lines of four types:

* ``run``    — one per run: run id, profile, seed, selectors, versions, start time;
* ``claim``  — the catalogue entry of every selected claim (so a report needs nothing else);
* ``result`` — one per (claim, fixture): verdict, hypotheses, evidence, timing, reproduction command;
* ``end``    — written when a run finishes or is interrupted.

Lines are flushed as they are written, so a killed run keeps everything it finished; they are fsynced at most
once a second and on close, so a machine that loses power loses at most the last second's records (a resumed
run redoes them). An fsync per line cost 3.6 s of a 60 s quick catalogue, more than the records were worth.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from . import settings as S
from .errors import UsageError

RESULT_KEYS = ("claim", "task_id", "family", "fixture_kind", "verdict", "expected")


def versions() -> dict[str, str]:
    """Versions of the project and the numerical stack that produced a record."""
    import importlib.metadata as md

    out = {"python": platform.python_version()}
    for name in ("theorem-verify", "numpy", "scipy", "cvxpy", "clarabel", "sympy"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = "absent"
    return out


class RecordWriter:
    """Appends records to a file, one flushed line at a time, fsynced at most every ``FSYNC_EVERY_S`` seconds
    and on close."""

    FSYNC_EVERY_S = 1.0

    def __init__(self, path: str | os.PathLike, *, append: bool = False):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a" if append else "w", encoding="utf-8")
        self._synced = -float("inf")

    def write(self, rec: dict) -> None:
        self._fh.write(json.dumps(rec, sort_keys=True, allow_nan=False, default=str) + "\n")
        self._fh.flush()
        now = time.monotonic()
        if now - self._synced >= self.FSYNC_EVERY_S:
            os.fsync(self._fh.fileno())
            self._synced = now

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _records_path(path: str | os.PathLike) -> Path:
    p = Path(path)
    if not p.exists():
        raise UsageError(f"{p}: no such records file")
    if p.is_dir():
        p = p / "records.jsonl"
        if not p.exists():
            raise UsageError(f"{path}: directory holds no records.jsonl")
    return p


def _scan(p: Path) -> tuple[list[dict], int | None]:
    """(records, offset of a torn last line or None). A torn line is what a writer killed mid-write
    leaves: the file's last bytes, not ended by a newline, that do not parse as a record. Any other
    malformed line raises :class:`UsageError` naming the file and line; so does a file without any
    valid record (an empty file, or one holding only a torn line), which is no run's output."""
    data = p.read_bytes()
    out: list[dict] = []
    torn: int | None = None
    offset = 0
    lines = data.split(b"\n")
    for i, raw in enumerate(lines, 1):
        start, offset = offset, offset + len(raw) + 1
        last = i == len(lines)  # after the final newline: b"" for a complete file
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as e:
            if last:
                torn = start
                break
            raise UsageError(f"{p}:{i}: not UTF-8 text ({e.reason})") from None
        except json.JSONDecodeError as e:
            if last:
                torn = start
                break
            raise UsageError(f"{p}:{i}: malformed record ({e.msg})") from None
        _validate(rec, p, i)
        out.append(rec)
    if not out:
        what = "is empty" if not data.strip() else "holds no valid record"
        raise UsageError(f"{p}: {what}; not a records file of a run")
    return out, torn


def read_records(path: str | os.PathLike) -> list[dict]:
    """Read a records file (or a run directory's ``records.jsonl``). A torn last line (a run killed
    mid-write) is left out with a warning; any other malformed line, or no valid record at all, raises
    :class:`UsageError` naming the file."""
    p = _records_path(path)
    out, torn = _scan(p)
    if torn is not None:
        print(f"verify: warning: {p}: ignoring a torn last line (a run killed mid-write)", file=sys.stderr)
    return out


def prepare_resume(path: str | os.PathLike, check: Callable[[list[dict]], None] | None = None) -> list[dict]:
    """Read the records a run will resume and make the file safe to append to: a torn last line is cut
    off and kept in ``<file>.torn`` (otherwise the next record would be glued onto it, and the file
    would stay malformed from then on). ``check`` may refuse the records (raise) before anything changes."""
    p = _records_path(path)
    out, torn = _scan(p)
    if check is not None:
        check(out)
    data = p.read_bytes()
    if torn is not None:
        side = p.with_name(p.name + ".torn")
        with open(side, "ab") as fh:
            fh.write(data[torn:] + b"\n")
        with open(p, "r+b") as fh:
            fh.truncate(torn)
        print(f"verify: warning: {p}: cut a torn last line ({len(data) - torn} bytes, a run killed mid-write) "
              f"into {side}", file=sys.stderr)
    elif not data.endswith(b"\n"):
        with open(p, "ab") as fh:  # a complete record whose newline was not written
            fh.write(b"\n")
    return out


def _validate(rec: Any, p: Path, i: int) -> None:
    if not isinstance(rec, dict) or "type" not in rec:
        raise UsageError(f"{p}:{i}: a record must be a JSON object with a 'type'")
    t = rec["type"]
    if t == "result":
        missing = [k for k in RESULT_KEYS if k not in rec]
        if missing:
            raise UsageError(f"{p}:{i}: result record lacks {', '.join(missing)}")
        if rec["verdict"] not in S.VERDICTS:
            raise UsageError(f"{p}:{i}: unknown verdict {rec['verdict']!r}")
        if not isinstance(rec["expected"], list):
            raise UsageError(f"{p}:{i}: 'expected' must be a list of verdicts")
    elif t == "claim":
        if not isinstance(rec.get("id"), str):
            raise UsageError(f"{p}:{i}: claim record lacks a string 'id'")
    elif t not in ("run", "end"):
        raise UsageError(f"{p}:{i}: unknown record type {t!r}")


def split(records: Iterable[dict]) -> tuple[dict[str, dict], list[dict], list[dict]]:
    """(claims by id, results, run records). Later results for the same (claim, task) replace earlier
    ones, so merged or resumed files count each fixture once."""
    claims: dict[str, dict] = {}
    results: dict[tuple, dict] = {}
    runs: list[dict] = []
    for r in records:
        t = r.get("type")
        if t == "claim":
            claims[r["id"]] = r
        elif t == "result":
            results[(r["claim"], r["task_id"], r.get("seed"))] = r
        elif t == "run":
            runs.append(r)
    return claims, list(results.values()), runs


def merge(paths: Iterable[str | os.PathLike]) -> list[dict]:
    out: list[dict] = []
    for p in paths:
        out.extend(read_records(p))
    return out


def write_summary(path: str | os.PathLike, run: dict, statuses: dict[str, dict], exit_code: int,
                  extra: dict | None = None) -> dict:
    """Write summary.json whole or not at all (a temporary file renamed over it): a summary cut short
    by an interrupt would be read as a broken file."""
    from .verdicts import paper_counts

    summary = {
        "run": run, "exit_code": exit_code, "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "papers": paper_counts(statuses), "claims": statuses, **(extra or {}),
    }
    target = Path(path)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(json.dumps(summary, indent=1, sort_keys=True, default=str), encoding="utf-8")
    os.replace(tmp, target)
    return summary
