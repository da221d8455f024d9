"""Append-only JSON-lines records, their reading, merging and the summary file.

A records file holds lines of four types:

* ``run``    — one per run: run id, profile, seed, selectors, versions, start time;
* ``claim``  — the catalogue entry of every selected claim (so a report needs nothing else);
* ``result`` — one per (claim, fixture): verdict, hypotheses, evidence, timing, reproduction command;
* ``end``    — written when a run finishes or is interrupted.

The ``run`` line carries the records schema version (:data:`SCHEMA_VERSION`). A file of a version this
code does not read is refused (exit 2, both versions named); a file whose run lines carry no version was
written before versions existed and has the layout of version 1, which is read.

A run directory has one writer at a time: :class:`RunLock` holds an exclusive ``flock`` on
``DIR/.lock`` for the whole run (the kernel drops it when the process dies, however it dies), and a
second run into the same directory stops at once naming the holder. A new run sets the previous one's
files aside in ``DIR/.previous-run`` and deletes them only once it has written its first result; a run
that ends (or is killed) before that gets the previous run back.

Lines are flushed as they are written, so a killed run keeps everything it finished; they are fsynced at most
once a second and on close, so a machine that loses power loses at most the last second's records (a resumed
run redoes them). An fsync per line cost 3.6 s of a 60 s quick catalogue, more than the records were worth.
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import shutil
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from . import settings as S
from .errors import UsageError

# The records layout: 2 added the version itself and the run line's ``selection``; 1 is every file before.
SCHEMA_VERSION = 2
READABLE_SCHEMAS = (1, 2)
RUN_FILES = ("records.jsonl", "summary.json", "report.html")
ASIDE = ".previous-run"
LOCK = ".lock"

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
    elif t == "run":
        version = rec.get("schema", 1)
        if version not in READABLE_SCHEMAS:
            raise UsageError(f"{p}:{i}: records schema version {version!r}; this verify reads versions "
                             f"{', '.join(map(str, READABLE_SCHEMAS))} (it writes {SCHEMA_VERSION})")
    elif t == "claim":
        if not isinstance(rec.get("id"), str):
            raise UsageError(f"{p}:{i}: claim record lacks a string 'id'")
    elif t != "end":
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


def is_empty(path: str | os.PathLike) -> bool:
    """Whether a records file exists but holds nothing (a run killed before its first line)."""
    p = Path(path)
    try:
        return p.is_file() and not p.read_bytes().strip()
    except OSError:
        return False


def head_and_end(path: str | os.PathLike) -> tuple[dict | None, dict | None, int]:
    """(first run line, last end line, number of result lines) of a records file, without judging it;
    None where missing or unreadable. For saying what a new run replaces."""
    run = end = None
    n = 0
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if '"type": "result"' in line:  # counted, not parsed: a standard run has thousands
                    n += 1
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue
                t = rec.get("type") if isinstance(rec, dict) else None
                if t == "run" and run is None:
                    run = rec
                elif t == "end":
                    end = rec
    except OSError:
        pass
    return run, end, n


class RunLock:
    """The exclusive right to write one run directory, for as long as the process holds it."""

    def __init__(self, out: Path, fh: Any):
        self.out, self._fh = out, fh

    @classmethod
    def acquire(cls, out: str | os.PathLike, what: str = "run") -> RunLock:
        """Create ``out`` and lock it, or raise :class:`UsageError`: ``out`` is a file or cannot be
        created or written, or another process holds it (named: pid, host, start)."""
        out = Path(out)
        if out.exists() and not out.is_dir():
            raise UsageError(f"--out {out}: is a file, not a directory")
        try:
            out.mkdir(parents=True, exist_ok=True)
            fh = open(out / LOCK, "a+", encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"--out {out}: cannot write there ({exc.strerror or exc})") from None
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.seek(0)
            try:
                holder = json.loads(fh.read() or "{}")
            except json.JSONDecodeError:
                holder = {}
            fh.close()
            raise UsageError(f"--out {out}: another run is writing there (pid {holder.get('pid', '?')} on host "
                             f"{holder.get('host', '?')}, {holder.get('what', 'run')} started "
                             f"{holder.get('started', '?')}); wait for it or choose another --out") from None
        fh.seek(0)
        fh.truncate()
        fh.write(json.dumps({"pid": os.getpid(), "host": platform.node(), "what": what,
                             "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}) + "\n")
        fh.flush()
        return cls(out, fh)

    def release(self) -> None:
        if not self._fh.closed:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()


def set_aside(out: Path) -> bool:
    """Move the previous run's files into ``out/.previous-run`` (kept until the new run's first
    result). True when there was anything to move."""
    present = [n for n in RUN_FILES if (out / n).exists()]
    if not present:
        return False
    aside = out / ASIDE
    if aside.exists():
        shutil.rmtree(aside)
    aside.mkdir()
    for n in present:
        os.replace(out / n, aside / n)
    return True


def drop_aside(out: Path) -> None:
    """The new run has its first result: the previous run's files go."""
    shutil.rmtree(out / ASIDE, ignore_errors=True)


def restore_aside(out: Path) -> bool:
    """Put a previous run set aside back, replacing what a newer run wrote before its first result
    (nothing of value: its header, claim lines and end line). True when something was restored."""
    aside = out / ASIDE
    if not (aside / "records.jsonl").exists():
        return False
    for n in RUN_FILES:
        if (out / n).exists():
            os.remove(out / n)
        if (aside / n).exists():
            os.replace(aside / n, out / n)
    shutil.rmtree(aside, ignore_errors=True)
    return True


def mark_incomplete(statuses: dict[str, dict], planned: dict[str, set], results: Iterable[dict],
                    uses: dict[str, list] | None = None) -> list[str]:
    """After an interrupted run: a claim whose planned fixtures did not all run gets the status
    ``incomplete`` (never verified, unguarded or refuted on part of its fixtures), with how many ran.
    ``planned`` maps claim id -> {(task key, seed)}. Returns the ids so marked."""
    ran: dict[str, set] = {}
    for r in results:
        ran.setdefault(r["claim"], set()).add((r["task_id"], r.get("seed")))
    marked = []
    for cid, keys in planned.items():
        done = len(keys & ran.get(cid, set()))
        if cid in statuses and done < len(keys):
            statuses[cid].update(status=S.INCOMPLETE, as_expected=True, fully_verified=False, loose=False,
                                 incomplete={"ran": done, "planned": len(keys)})
            marked.append(cid)
    # "fully verified" needs everything a claim uses, transitively, verified: an incomplete use withdraws it.
    changed = bool(marked)
    while changed:
        changed = False
        for cid, st in statuses.items():
            if st.get("fully_verified") and any(not statuses.get(u, {}).get("fully_verified")
                                                for u in (uses or {}).get(cid, ())):
                st["fully_verified"] = False
                changed = True
    return marked
