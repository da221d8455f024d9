"""Append-only JSON-lines records, their reading, merging and the summary file.

A records file holds lines of four types:

* ``run``    — one per run: run id, profile, seed, selectors, versions, start time;
* ``claim``  — the catalogue entry of every selected claim (so a report needs nothing else);
* ``result`` — one per (claim, fixture): verdict, hypotheses, evidence, timing, reproduction command;
* ``end``    — written when a run finishes or is interrupted.

Lines are flushed and fsynced as they are written, so a killed run keeps everything it finished.
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Iterable
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
    """Appends records to a file, one flushed and fsynced line at a time."""

    def __init__(self, path: str | os.PathLike, *, append: bool = False):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a" if append else "w", encoding="utf-8")

    def write(self, rec: dict) -> None:
        self._fh.write(json.dumps(rec, sort_keys=True, allow_nan=False, default=str) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def read_records(path: str | os.PathLike, *, strict: bool = True) -> list[dict]:
    """Read a records file. A malformed line raises :class:`UsageError` naming the file and line,
    except a truncated last line (a run killed mid-write), which is skipped."""
    p = Path(path)
    if not p.exists():
        raise UsageError(f"{p}: no such records file")
    if p.is_dir():
        p = p / "records.jsonl"
        if not p.exists():
            raise UsageError(f"{path}: directory holds no records.jsonl")
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as e:
        raise UsageError(f"{p}: not a UTF-8 text records file ({e.reason})") from None
    out = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            if i == len(lines) and not strict:
                break
            if i == len(lines):
                break  # a truncated final line is what a killed writer leaves behind
            raise UsageError(f"{p}:{i}: malformed record ({e.msg})") from None
        _validate(rec, p, i)
        out.append(rec)
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
    from .verdicts import paper_counts

    summary = {
        "run": run, "exit_code": exit_code, "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "papers": paper_counts(statuses), "claims": statuses, **(extra or {}),
    }
    Path(path).write_text(json.dumps(summary, indent=1, sort_keys=True, default=str), encoding="utf-8")
    return summary
