"""The runner: expands claims x fixtures x seeds into tasks, runs them on an executor, writes records.

Executors:

* ``inprocess`` — one task after another in this process (for a debugger; time limits by SIGALRM). It
  shares its process with the checks: a check that kills the process ends the run (what was recorded stays);
* ``pool`` — persistent local worker processes (the default). Each task runs under its time limit; a
  worker that hangs is killed and replaced, one that dies (a crash, the out-of-memory killer) is
  replaced, and the task gets an ``inconclusive`` or ``error`` record with the reason;
* ``dask`` — a Dask distributed cluster (``--scheduler ADDRESS``; optional extra). On the Dask worker,
  each task runs in a check process of its own exactly as on the pool, with the same time limits and
  crash isolation.

Every executor runs its checks with the BLAS thread count of the process that started the run
(:mod:`verify.threads`). Whatever executes them, records are written by this process as results arrive,
flushed one by one.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import platform
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import wait as mp_wait
from pathlib import Path

from . import threads
from .claims import REGISTRY, Claim, Registry, Task, expand
from .discovery import load_sources, loaded_sources
from .errors import UsageError
from .execute import crash_record, repro_command, run_task, timeout_record
from .progress import Progress
from .records import RecordWriter, prepare_resume, read_records, split, versions, write_summary
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


class _Timeout(BaseException):
    """The in-process time limit. Not an ``Exception``: the check's own error handling (and run_task's,
    which turns exceptions into ``error`` records) must not catch it."""


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
    return threading.current_thread() is threading.main_thread()


def _worker_main(conn, sources: list[str], n_threads: int) -> None:  # pragma: no cover - subprocess
    """A worker process: runs the (task, seed, run_id) it is sent, one at a time, and sends back the record."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threads.apply(n_threads)
    load_sources([s for s in sources if s not in loaded_sources()])
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        task, seed, run_id = msg
        try:
            rec = run_task(task, seed, run_id)
        except BaseException as exc:  # run_task catches the check's errors; this is the harness's own
            rec = crash_record(task, seed, run_id, f"worker failure: {type(exc).__name__}: {exc}")
        conn.send(rec)


def _subprocess_main() -> None:  # pragma: no cover - subprocess
    """Entry point of a worker started with :class:`_Subprocess`: ``fd sources-json threads``."""
    from multiprocessing.connection import Connection

    fd, sources, n_threads = sys.argv[1:4]
    _worker_main(Connection(int(fd)), json.loads(sources), int(n_threads))


class _Subprocess:
    """A worker started as a plain subprocess, for processes that may not fork or have multiprocessing
    children: a Dask worker is daemonic (no multiprocessing children) and multi-threaded (fork is unsafe).
    Offers the part of ``multiprocessing.Process`` the executors use; its death shows as EOF on the pipe."""

    sentinel = None

    def __init__(self, child, sources: list[str], n_threads: int):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        env.update({var: str(n_threads) for var in threads.VARIABLES})
        code = "from verify.runner import _subprocess_main; _subprocess_main()"
        self.popen = subprocess.Popen([sys.executable, "-c", code, str(child.fileno()), json.dumps(sources),
                                       str(n_threads)], pass_fds=(child.fileno(),), env=env,
                                      stdin=subprocess.DEVNULL)

    def is_alive(self) -> bool:
        return self.popen.poll() is None

    def kill(self) -> None:
        self.popen.kill()

    def join(self, timeout: float | None = None) -> None:
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            pass

    @property
    def exitcode(self) -> int | None:
        return self.popen.returncode


class _Worker:
    """One worker process and the task it runs. ``ctx`` is a multiprocessing context (the pool: a forked
    worker starts at once, with the claims already loaded), or None for a :class:`_Subprocess`."""

    def __init__(self, ctx, sources: list[str], n_threads: int):
        self.conn, child = mp.Pipe()
        if ctx is None:
            self.proc = _Subprocess(child, sources, n_threads)
        else:
            self.proc = ctx.Process(target=_worker_main, args=(child, sources, n_threads), daemon=True)
            self.proc.start()
        child.close()
        self.task: Task | None = None
        self.deadline = 0.0
        self.limit = 0.0

    def start(self, task: Task, seed: int, run_id: str, limit_s: float) -> None:
        self.task, self.limit = task, limit_s
        self.deadline = time.monotonic() + limit_s
        try:
            self.conn.send((task, seed, run_id))
        except OSError:
            pass  # it died while idle: collect() reports that for this task

    def waitables(self) -> list:
        return [self.conn] + ([self.proc.sentinel] if self.proc.sentinel is not None else [])

    def collect(self, ready: list, seed: int, run_id: str, registry: Registry) -> tuple[dict | None, bool]:
        """(record, replace): the task's record once it finished, crashed its process or ran out of time
        (then the process must be replaced), or (None, False) while it is still running."""
        task = self.task
        if self.conn in ready:
            try:
                rec = self.conn.recv()
            except (EOFError, OSError):
                return crash_record(task, seed, run_id, _death_reason(self), registry), True
            return rec, False
        if (self.proc.sentinel is not None and self.proc.sentinel in ready) or not self.proc.is_alive():
            return crash_record(task, seed, run_id, _death_reason(self), registry), True
        if time.monotonic() >= self.deadline:
            return timeout_record(task, seed, run_id, self.limit, registry), True
        return None, False

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.kill()

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=5)
        self.conn.close()


def _run_pool(tasks: Sequence[Task], seed: int, run_id: str, limit: Callable[[Task], float],
              emit: Callable[[dict], None], jobs: int, registry: Registry) -> None:
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    sources, n_threads = loaded_sources(), threads.configured()
    pending = list(reversed(tasks))  # pop() from the end keeps the given order
    workers = [_Worker(ctx, sources, n_threads) for _ in range(max(1, min(jobs, len(tasks))))]
    try:
        while pending or any(w.task is not None for w in workers):
            for i, w in enumerate(workers):
                if w.task is None and pending:
                    if not w.proc.is_alive():  # died while idle: its death is no task's verdict
                        w.kill()
                        w = workers[i] = _Worker(ctx, sources, n_threads)
                    t = pending.pop()
                    w.start(t, seed, run_id, limit(t))
            busy = [w for w in workers if w.task is not None]
            timeout = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            ready = mp_wait([x for w in busy for x in w.waitables()], timeout=timeout)
            for i, w in enumerate(workers):
                if w.task is None:
                    continue
                rec, replace = w.collect(ready, seed, run_id, registry)
                if rec is None:
                    continue
                w.task = None
                emit(rec)  # first: a record received is a record kept, whatever happens next
                if replace:
                    w.kill()
                    workers[i] = _Worker(ctx, sources, n_threads)
    finally:
        for w in workers:
            w.stop()


def _death_reason(w: _Worker) -> str:
    w.proc.join(timeout=1)
    code = w.proc.exitcode
    if code is not None and code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
        hint = " (likely out of memory)" if -code == signal.SIGKILL else ""
        return f"worker process killed by {name}{hint}"
    return f"worker process exited with code {code} while running the check"


_dask_local = threading.local()  # on a Dask worker: each worker thread's own check process


def _dask_task(task: Task, seed: int, run_id: str, sources: list[str], limit_s: float,
               n_threads: int) -> dict:  # pragma: no cover - runs on a Dask worker
    """Run one task on a Dask worker the way the pool runs it: in a check process of its own, under
    the time limit (past it the process is killed and the record says so), a crash of the process
    becoming an ``error`` record, with the thread count of the run's own process. The Dask worker
    itself stays healthy, and Dask never retries a task whose check crashed."""
    load_sources([s for s in sources if s not in loaded_sources()])
    w = getattr(_dask_local, "worker", None)
    if w is None or w.setup != (sources, n_threads) or not w.proc.is_alive():
        if w is not None:
            w.kill()
        w = _dask_local.worker = _Worker(None, sources, n_threads)
        w.setup = (sources, n_threads)
    w.start(task, seed, run_id, limit_s)
    while True:
        ready = mp_wait(w.waitables(), timeout=max(0.0, w.deadline - time.monotonic()))
        rec, replace = w.collect(ready, seed, run_id, REGISTRY)
        if rec is not None:
            break
    w.task = None
    if replace:
        w.kill()
        _dask_local.worker = None
    return rec


def _run_dask(tasks: Sequence[Task], seed: int, run_id: str, limit: Callable[[Task], float],
              emit: Callable[[dict], None], scheduler: str | None, registry: Registry) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise UsageError("the dask executor needs the optional extra: pip install 'theorem-verify[dask]'") from None
    if not scheduler:
        raise UsageError("--executor dask needs --scheduler ADDRESS (e.g. tcp://127.0.0.1:8786)")
    sources, n_threads = loaded_sources(), threads.configured()
    with Client(scheduler, timeout="30s") as client:
        futs = {client.submit(_dask_task, t, seed, run_id, sources, limit(t), n_threads, pure=False,
                              key=f"{run_id}-{t.claim_id}-{t.key}"): t
                for t in tasks}
        for fut in as_completed(list(futs)):
            t = futs[fut]
            try:
                rec = fut.result()
            except Exception as exc:  # the Dask worker itself died, or the harness failed there
                rec = crash_record(t, seed, run_id, f"dask task failed: {type(exc).__name__}: {exc}", registry)
            emit(rec)


class _DeferredInterrupts:
    """Ctrl-C stops a run at once, except inside :meth:`hold`, where it waits for the block to end: a
    record cut mid-write would leave a torn line in the middle of the file, and a result written but not
    yet counted would make the summary disagree with the records. It only stands in for Python's own
    handler, in the main thread: a process started with SIGINT ignored (nohup, a background job) keeps
    ignoring it, and an embedding program's handler is left alone."""

    def __init__(self) -> None:
        self.depth, self.pending, self.previous = 0, False, None

    def __enter__(self) -> _DeferredInterrupts:
        if _is_main_thread() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self.previous = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)

    def _handler(self, signum, frame) -> None:
        if self.depth:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextmanager
    def hold(self):
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
        if not self.depth and self.pending:
            self.pending = False
            raise KeyboardInterrupt


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
    """Run the selected claims and write DIR/records.jsonl, DIR/summary.json and DIR/report.html.

    The statuses, the summary and the report are computed from the records file as written, so they
    count exactly the results it holds, after an interrupt too (exit code 130, in the summary as well).
    """
    if executor not in EXECUTORS:
        raise UsageError(f"unknown executor {executor!r} (one of {', '.join(EXECUTORS)})")
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")
    out = Path(out_dir)
    records_path = out / "records.jsonl"
    tasks = plan(claims, profile, seed, task_filter)
    baseline_records = read_records(baseline) if baseline else None

    def same_run(records: list[dict]) -> None:
        prev_runs = [r for r in records if r.get("type") == "run"]
        if prev_runs and (prev_runs[0].get("profile"), prev_runs[0].get("seed")) != (profile, seed):
            raise UsageError(f"{records_path}: was run with profile {prev_runs[0].get('profile')!r} and seed "
                             f"{prev_runs[0].get('seed')}, not {profile!r} and {seed}; resume needs the same")

    previous: list[dict] = []
    if resume and records_path.exists():
        previous = prepare_resume(records_path, check=same_run)
        finished = {(r["claim"], r["task_id"], r["seed"]) for r in previous if r.get("type") == "result"}
        tasks = [t for t in tasks if (t.claim_id, t.key, t.seed) not in finished]

    threads.apply()
    kernels = _compile_kernels({registry[t.claim_id].paper for t in tasks}, progress)
    run_id = uuid.uuid4().hex[:12]
    run_rec = {"type": "run", "run_id": run_id, "profile": profile, "seed": seed, "jobs": jobs,
               "executor": executor, "selectors": list(selectors), "tasks": len(tasks),
               "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "versions": versions(),
               "blas": threads.describe(), "resumed": bool(previous), "host": platform.node(),
               "commit": source_commit(), "kernels": kernels}
    new_results: list[dict] = []
    bar = Progress(len(tasks), enabled=progress)

    def limit(t: Task) -> float:
        return float(timeout_s) if timeout_s else registry[t.claim_id].timeout_s

    interrupted = False
    with _DeferredInterrupts() as interrupts:

        def emit(rec: dict) -> None:
            # The run's own settings (its time limit) belong in the reproduction command.
            rec["repro"] = repro_command(registry[rec["claim"]], rec["task_id"], rec["profile"], seed, timeout_s)
            with interrupts.hold():
                writer.write(rec)
                new_results.append(rec)
            bar.update(rec)

        writer = RecordWriter(records_path, append=bool(previous))
        try:
            with interrupts.hold():
                writer.write(run_rec)
                for c in claims:
                    writer.write({"type": "claim", **c.describe(), "used_by": registry.used_by(c.id)})
            if executor == "inprocess":
                _run_inprocess(tasks, seed, run_id, limit, emit, registry)
            elif executor == "pool":
                _run_pool(tasks, seed, run_id, limit, emit, jobs, registry)
            else:
                _run_dask(tasks, seed, run_id, limit, emit, scheduler, registry)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            try:
                with interrupts.hold():
                    writer.write({"type": "end", "run_id": run_id, "interrupted": interrupted, "results":
                                  len(new_results), "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
                    writer.close()
            except KeyboardInterrupt:
                interrupted = True
            bar.close()

        # From here on an interrupt only cuts the report short: the summary is always written.
        try:
            with interrupts.hold():
                written = read_records(records_path)
                claim_dicts = [{**c.describe(), "used_by": registry.used_by(c.id)} for c in claims]
                results = split(written)[1]
                statuses = aggregate(claim_dicts, results)
                regressions: list = []
                if baseline_records is not None:
                    from .diff import diff_records

                    diff = diff_records(baseline_records, written)
                    # A regression: a verdict that got worse or a tracked quantity moved beyond its tolerance.
                    regressions = diff["regressions"] + diff["moved"]
        except KeyboardInterrupt:
            interrupted = True
        report_path = None
        if report:
            try:
                report_path = _render_safely(records_path, out / "report.html")
            except KeyboardInterrupt:
                interrupted = True
                print(f"verify: interrupted while rendering the report; render it with: verify report "
                      f"{records_path} -o {out / 'report.html'}", file=sys.stderr)
        while True:  # an interrupt while the summary is written: written again, saying so
            code = 130 if interrupted else exit_code(statuses, regressions)
            try:
                with interrupts.hold():
                    write_summary(out / "summary.json", run_rec, statuses, code,
                                  {"interrupted": interrupted, "regressions": regressions, "results": len(results)})
                break
            except KeyboardInterrupt:
                interrupted = True
    return RunOutcome(out, records_path, statuses, results, code, interrupted, regressions, report_path)



def _compile_kernels(papers: set[str], progress: bool) -> dict:
    """Compile the kernels the papers use before any check starts (workers fork with them compiled), so
    that no check pays for it against its time limit; what it took goes in the run record."""
    from .numerics.warmup import prepare

    return prepare(papers, stream=sys.stderr if progress else None).describe()


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
