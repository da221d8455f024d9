"""The runner: expands claims x fixtures x seeds into tasks, runs them on an executor, writes records.

Executors:

* ``inprocess`` — one task after another in this process (for debugging; time limits by SIGALRM);
* ``pool`` — persistent local worker processes (the default). Each task runs under its time limit; a
  worker that hangs is killed and replaced, one that dies (a crash, the out-of-memory killer) is
  replaced, and the task gets an ``inconclusive`` or ``error`` record with the reason;
* ``dask`` — a Dask distributed cluster (``--scheduler ADDRESS``; optional extra).

Whatever executes them, records are written by this process as results arrive, flushed one by one.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import platform
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import wait as mp_wait
from pathlib import Path

from .claims import REGISTRY, Claim, Registry, Task, expand
from .discovery import load_sources, loaded_sources
from .errors import UsageError
from .execute import crash_record, run_task, timeout_record
from .progress import Progress
from .records import RecordWriter, read_records, split, versions, write_summary
from .verdicts import aggregate, exit_code

EXECUTORS = ("inprocess", "pool", "dask")


@dataclass
class RunOutcome:
    """What a run produced: paths, statuses by claim id, results, the exit code and regressions."""

    out_dir: Path
    records_path: Path
    statuses: dict
    results: list
    exit_code: int
    interrupted: bool = False
    regressions: list = field(default_factory=list)
    report_path: Path | None = None


# ---------------------------------------------------------------------------------------------
# Executors


class _Timeout(Exception):
    pass


def _alarm(signum, frame):  # pragma: no cover - signal handler
    raise _Timeout()


def _run_inprocess(tasks: Sequence[Task], seed: int, run_id: str, limit: Callable[[Task], float],
                   emit: Callable[[dict], None], registry: Registry) -> None:
    use_alarm = hasattr(signal, "setitimer") and _is_main_thread()
    for t in tasks:
        if use_alarm:
            old = signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, limit(t))
        try:
            rec = run_task(t, seed, run_id, registry)
        except _Timeout:
            rec = timeout_record(t, seed, run_id, limit(t), registry)
        finally:
            if use_alarm:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, old)
        emit(rec)


def _is_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _worker_main(conn, sources: list[str], seed: int, run_id: str) -> None:  # pragma: no cover - subprocess
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sources and not REGISTRY.claims:
        load_sources(sources)
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        try:
            rec = run_task(task, seed, run_id)
        except BaseException as exc:  # run_task catches the check's errors; this is the harness's own
            rec = crash_record(task, seed, run_id, f"worker failure: {type(exc).__name__}: {exc}")
        conn.send(rec)


class _Worker:
    def __init__(self, ctx, sources: list[str], seed: int, run_id: str):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, sources, seed, run_id), daemon=True)
        self.proc.start()
        child.close()
        self.task: Task | None = None
        self.deadline = 0.0

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=5)
        self.conn.close()


def _run_pool(tasks: Sequence[Task], seed: int, run_id: str, limit: Callable[[Task], float],
              emit: Callable[[dict], None], jobs: int, registry: Registry) -> None:
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    sources = loaded_sources()
    pending = list(reversed(tasks))  # pop() from the end keeps the given order
    workers = [_Worker(ctx, sources, seed, run_id) for _ in range(max(1, min(jobs, len(tasks))))]
    try:
        while pending or any(w.task is not None for w in workers):
            for w in workers:
                if w.task is None and pending:
                    w.task = pending.pop()
                    w.deadline = time.monotonic() + limit(w.task)
                    w.conn.send(w.task)
            busy = [w for w in workers if w.task is not None]
            timeout = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            ready = mp_wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=timeout)
            for i, w in enumerate(workers):
                if w.task is None:
                    continue
                replace = False
                if w.conn in ready:
                    try:
                        rec = w.conn.recv()
                    except (EOFError, OSError):
                        rec = crash_record(w.task, seed, run_id, _death_reason(w), registry)
                        replace = True
                    emit(rec)
                    w.task = None
                elif w.proc.sentinel in ready or not w.proc.is_alive():
                    emit(crash_record(w.task, seed, run_id, _death_reason(w), registry))
                    w.task, replace = None, True
                elif time.monotonic() >= w.deadline:
                    emit(timeout_record(w.task, seed, run_id, limit(w.task), registry))
                    w.task, replace = None, True
                if replace:
                    w.kill()
                    workers[i] = _Worker(ctx, sources, seed, run_id)
    finally:
        for w in workers:
            try:
                w.conn.send(None)
            except (OSError, BrokenPipeError):
                pass
            w.kill()


def _death_reason(w: _Worker) -> str:
    w.proc.join(timeout=1)
    code = w.proc.exitcode
    if code is not None and code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
        hint = " (likely out of memory)" if -code == signal.SIGKILL else ""
        return f"worker process killed by {name}{hint}"
    return f"worker process exited with code {code} while running the check"


def _dask_task(task: Task, seed: int, run_id: str, sources: list[str]) -> dict:  # pragma: no cover - remote
    if not REGISTRY.claims:
        load_sources(sources)
    return run_task(task, seed, run_id)


def _run_dask(tasks: Sequence[Task], seed: int, run_id: str, limit: Callable[[Task], float],
              emit: Callable[[dict], None], scheduler: str | None, registry: Registry) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise UsageError("the dask executor needs the optional extra: pip install 'theorem-verify[dask]'") from None
    if not scheduler:
        raise UsageError("--executor dask needs --scheduler ADDRESS (e.g. tcp://127.0.0.1:8786)")
    sources = loaded_sources()
    with Client(scheduler, timeout="30s") as client:
        futs = {client.submit(_dask_task, t, seed, run_id, sources, pure=False, key=f"{run_id}-{t.claim_id}-{t.key}"): t
                for t in tasks}
        start = time.monotonic()
        budget = max(limit(t) for t in tasks) if tasks else 0.0
        done = set()
        try:
            for fut in as_completed(list(futs), timeout=budget * max(1, len(tasks)) + 60):
                t = futs[fut]
                done.add(fut)
                try:
                    emit(fut.result())
                except Exception as exc:
                    emit(crash_record(t, seed, run_id, f"dask task failed: {type(exc).__name__}: {exc}", registry))
        except TimeoutError:
            pass
        for fut, t in futs.items():
            if fut not in done:
                fut.cancel()
                emit(timeout_record(t, seed, run_id, time.monotonic() - start, registry))


# ---------------------------------------------------------------------------------------------
# The run


def plan(claims: Iterable[Claim], profile: str, seed: int, task_filter: str | None = None) -> list[Task]:
    tasks = expand(claims, profile, seed)
    if task_filter is not None:
        tasks = [t for t in tasks if t.key == task_filter]
        if not tasks:
            raise UsageError(f"--task {task_filter!r} matches no fixture of the selected claims in profile {profile!r}")
    return tasks


def run(claims: Sequence[Claim], *, profile: str = "standard", seed: int = 0, jobs: int = 1,
        out_dir: str | os.PathLike = "reports/latest", executor: str = "pool", scheduler: str | None = None,
        resume: bool = False, task_filter: str | None = None, timeout_s: float | None = None,
        baseline: str | None = None, selectors: Sequence[str] = (), progress: bool = True,
        report: bool = True, registry: Registry = REGISTRY) -> RunOutcome:
    """Run the selected claims and write DIR/records.jsonl, DIR/summary.json and DIR/report.html."""
    if executor not in EXECUTORS:
        raise UsageError(f"unknown executor {executor!r} (one of {', '.join(EXECUTORS)})")
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")
    out = Path(out_dir)
    records_path = out / "records.jsonl"
    tasks = plan(claims, profile, seed, task_filter)
    baseline_records = read_records(baseline) if baseline else None

    previous: list[dict] = []
    if resume and records_path.exists():
        previous = read_records(records_path)
        prev_runs = [r for r in previous if r.get("type") == "run"]
        if prev_runs and (prev_runs[0].get("profile"), prev_runs[0].get("seed")) != (profile, seed):
            raise UsageError(f"{records_path}: was run with profile {prev_runs[0].get('profile')!r} and seed "
                             f"{prev_runs[0].get('seed')}, not {profile!r} and {seed}; resume needs the same")
        finished = {(r["claim"], r["task_id"], r["seed"]) for r in previous if r.get("type") == "result"}
        tasks = [t for t in tasks if (t.claim_id, t.key, t.seed) not in finished]

    run_id = uuid.uuid4().hex[:12]
    run_rec = {"type": "run", "run_id": run_id, "profile": profile, "seed": seed, "jobs": jobs,
               "executor": executor, "selectors": list(selectors), "tasks": len(tasks),
               "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "versions": versions(),
               "resumed": bool(previous), "host": platform.node(), "commit": source_commit()}
    writer = RecordWriter(records_path, append=bool(previous))
    writer.write(run_rec)
    for c in claims:
        writer.write({"type": "claim", **c.describe(), "used_by": registry.used_by(c.id)})

    new_results: list[dict] = []
    bar = Progress(len(tasks), enabled=progress)

    def emit(rec: dict) -> None:
        writer.write(rec)
        new_results.append(rec)
        bar.update(rec)

    def limit(t: Task) -> float:
        return float(timeout_s) if timeout_s else registry[t.claim_id].timeout_s

    interrupted = False
    try:
        if executor == "inprocess":
            _run_inprocess(tasks, seed, run_id, limit, emit, registry)
        elif executor == "pool":
            _run_pool(tasks, seed, run_id, limit, emit, jobs, registry)
        else:
            _run_dask(tasks, seed, run_id, limit, emit, scheduler, registry)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        writer.write({"type": "end", "run_id": run_id, "interrupted": interrupted,
                      "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "results": len(new_results)})
        writer.close()
        bar.close()

    claim_dicts = [{**c.describe(), "used_by": registry.used_by(c.id)} for c in claims]
    prev_results = split(previous)[1] if previous else []
    results = prev_results + new_results
    statuses = aggregate(claim_dicts, results)
    regressions: list = []
    if baseline_records is not None:
        from .diff import diff_records

        diff = diff_records(baseline_records, read_records(records_path))
        # A regression is a verdict that got worse or a tracked quantity that moved beyond its tolerance.
        regressions = diff["regressions"] + diff["moved"]
    code = exit_code(statuses, regressions)
    write_summary(out / "summary.json", run_rec, statuses, code,
                  {"interrupted": interrupted, "regressions": regressions})
    report_path = None
    if report:
        report_path = _render_safely(records_path, out / "report.html")
    return RunOutcome(out, records_path, statuses, results, code, interrupted, regressions, report_path)



def source_commit() -> str | None:
    """The git commit of the project's source (with ``+dirty`` when it has local changes), for the run
    record; None outside a git checkout."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("+dirty" if dirty else "")


def _render_safely(records_path: Path, target: Path) -> Path | None:
    """Render the report; a failure of the renderer must not lose the run, so it is reported and the
    records stay for ``verify report``."""
    try:
        from .report import render_report

        return render_report(read_records(records_path), target)
    except Exception as exc:
        print(f"verify: warning: the report could not be rendered ({type(exc).__name__}: {exc}); "
              f"records are in {records_path}; retry with: verify report {records_path} -o {target}",
              file=sys.stderr)
        return None
