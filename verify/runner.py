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

No run is lost or falsified: everything that can be refused (arguments, the executor, the Dask scheduler,
the run directory) is refused before a file is opened (exit 2); one process writes a run directory at a time
(:class:`verify.records.RunLock`); the previous run there is kept aside until the new one has its first
result. Ctrl-C, SIGTERM and SIGHUP finish the record being written, then the ``end`` line and the summary,
and exit 128 + the signal; claims whose planned fixtures did not all run are then ``incomplete``
(:func:`verify.records.mark_incomplete`, applied after :func:`verify.verdicts.aggregate`). Pool workers
die with the run's process (Linux: ``PR_SET_PDEATHSIG``; elsewhere when their pipe closes, at their next
task) and leave the run's signals to it.
"""

from __future__ import annotations

import ctypes
import json
import math
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
from .claims import REGISTRY, Claim, Registry, Task, expand, fixture_identity
from .discovery import load_sources, loaded_sources
from .errors import UsageError
from .execute import crash_record, dir_name, repro_command, run_task, timeout_record
from .progress import Progress
from .records import (
    SCHEMA_VERSION,
    RecordWriter,
    RunLock,
    drop_aside,
    head_and_end,
    is_empty,
    mark_incomplete,
    prepare_resume,
    read_records,
    restore_aside,
    set_aside,
    split,
    versions,
    write_summary,
)
from .verdicts import aggregate, exit_code

EXECUTORS = ("inprocess", "pool", "dask")
# How long a run waits for a Dask scheduler before calling it unreachable (exit 2).
DASK_CONNECT_TIMEOUT_S = 20.0
# In-process, the time-limit signal repeats at this interval after the limit, so a check that catches it
# once (a retry loop with a bare ``except:``) is interrupted again.
ALARM_REPEAT_S = 0.5


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
    signal: int | None = None
    selection: dict = field(default_factory=dict)
    incomplete: list = field(default_factory=list)
    kept_previous: bool = False


# ---------------------------------------------------------------------------------------------
# Executors


class _Timeout(BaseException):
    """The in-process time limit. Not an ``Exception``: the check's own error handling (and run_task's,
    which turns exceptions into ``error`` records) must not catch it."""


_said_inprocess_limit = False


def inprocess_limit_note() -> None:
    """Say once per process what an in-process time limit cannot do."""
    global _said_inprocess_limit
    if not _said_inprocess_limit:
        _said_inprocess_limit = True
        print("verify: note: in-process, a time limit interrupts the check with a signal; a check that never "
              "returns (one that keeps catching the signal, or blocks inside native code) is this executor's "
              "limit: --executor pool stops it at its limit", file=sys.stderr)


class _Alarm:
    """SIGALRM at the limit, then every ALARM_REPEAT_S, each raising :class:`_Timeout` while armed. A check
    that swallowed one and returned anyway is still past its limit: ``fired`` says so."""

    def __init__(self) -> None:
        self.armed, self.fired = True, False

    def __call__(self, signum, frame) -> None:  # pragma: no cover - signal handler
        self.fired = True
        if self.armed:
            raise _Timeout()


def _run_inprocess(tasks: Sequence[Task], seed: int, run_id: str, limit: Callable[[Task], float],
                   emit: Callable[[dict], None], registry: Registry) -> None:
    use_alarm = hasattr(signal, "setitimer") and _is_main_thread()
    for t in _fixture_order(tasks, registry):
        alarm = _Alarm()
        if use_alarm:
            old = signal.signal(signal.SIGALRM, alarm)
            signal.setitimer(signal.ITIMER_REAL, limit(t), ALARM_REPEAT_S)
        try:
            try:
                rec = run_task(t, seed, run_id, registry)
            finally:
                alarm.armed = False
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    signal.signal(signal.SIGALRM, old)
            if alarm.fired:  # the check caught its time-limit signal and returned after its limit
                rec = timeout_record(t, seed, run_id, limit(t), registry)
                rec["reason"] += " (the check caught the time-limit signal and returned after its limit)"
        except _Timeout:
            rec = timeout_record(t, seed, run_id, limit(t), registry)
        emit(rec)


def _fixture_order(tasks: Sequence[Task], registry: Registry) -> list[Task]:
    """The tasks in the given order, but each followed at once by the later tasks on the same fixture (as the pool
    hands them to one worker): the checks' pure computations on identical inputs are then still in memory
    (verify.numerics.memo keeps a few entries) when the next claim asks. Measured: min2024.exp.fig5's two readings,
    which judge exp.fig5's GD runs, took 36.5 and 30.0 s of a standard in-process run computing those runs again
    (their fixtures' tasks came ~20 runs apart, past the memo's 16 entries). A task's record does not depend on
    the order."""
    groups: dict[tuple, list[Task]] = {}
    for t in tasks:
        groups.setdefault(_fixture_key(t, registry), []).append(t)
    return [t for group in groups.values() for t in group]


def _is_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _die_with_parent(parent_pid: int | None) -> None:  # pragma: no cover - subprocess
    """A worker must not outlive the process that started it (killed by SIGKILL, the OOM killer, a CI
    cancel), holding the records file open and burning CPU: on Linux the kernel sends it SIGKILL when its
    parent dies (``prctl(PR_SET_PDEATHSIG)``); a parent that died before that was set is caught by the
    ppid check. Elsewhere the worker ends when its pipe closes, at its next task."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if parent_pid is not None and os.getppid() != parent_pid:
        os._exit(0)


def _worker_main(conn, sources: list[str], n_threads: int,
                 parent_pid: int | None = None) -> None:  # pragma: no cover - subprocess
    """A worker process: runs the (task, seed, run_id) it is sent, one at a time, and sends back the record.
    Signals meant for the run (Ctrl-C, SIGTERM, SIGHUP to the process group) are the run's to handle: it
    stops its workers itself; one that died of them would leave an ``error`` record for its task."""
    _die_with_parent(parent_pid)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
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

    fd, sources, n_threads, parent_pid = sys.argv[1:5]
    _worker_main(Connection(int(fd)), json.loads(sources), int(n_threads), int(parent_pid))


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
                                       str(n_threads), str(os.getpid())], pass_fds=(child.fileno(),), env=env,
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
            self.proc = ctx.Process(target=_worker_main, args=(child, sources, n_threads, os.getpid()), daemon=True)
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
        # a record sent just before the process died (or after this wait returned) is still in the pipe
        if self.conn in ready or self._has_data():
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

    def _has_data(self) -> bool:
        try:
            return self.conn.poll()
        except (EOFError, OSError):
            return False

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
    # Tasks on the same fixture (an erratum's printed and amended claims, and claims with one seed key, share
    # fixtures and seeds) go to the worker that ran the first of them: the checks' pure computations on identical
    # inputs are then reused from its memory (verify.numerics.memo) instead of computed twice. Which worker runs a
    # task changes nothing else: a task's record depends on its claim, fixture and seed alone. Tasks are handled
    # by index.
    pending = list(reversed(range(len(tasks))))  # pop() from the end keeps the given order
    waiting = set(pending)  # not yet started; ``pending`` may still hold indices already taken out of turn
    keys = [_fixture_key(t, registry) for t in tasks]
    groups: dict[tuple, list[int]] = {}
    for k, key in enumerate(keys):
        groups.setdefault(key, []).append(k)
    follow: dict[int, list[int]] = {}  # per worker slot: the other tasks on the fixture it ran last

    def take(slot: int) -> Task | None:
        """The next task for the worker in ``slot``: the rest of its fixture's tasks first, then the next in
        order that no other worker has a claim on; None when only those remain (the slot waits: that worker
        runs them in a moment from memory, where a second worker would compute them again)."""
        k = next((u for u in follow.get(slot, ()) if u in waiting), None)
        if k is None:
            reserved = {u for s, f in follow.items() if s != slot for u in f}
            skipped = []
            while pending and k is None:
                u = pending.pop()
                if u in reserved:
                    skipped.append(u)
                elif u in waiting:
                    k = u
            pending.extend(reversed(skipped))
            if k is None:
                return None
        waiting.discard(k)
        follow[slot] = [u for u in groups[keys[k]] if u != k]
        return tasks[k]

    workers = [_Worker(ctx, sources, n_threads) for _ in range(max(1, min(jobs, len(tasks))))]
    try:
        while waiting or any(w.task is not None for w in workers):
            for i, w in enumerate(workers):
                if w.task is None and waiting:
                    if not w.proc.is_alive():  # died while idle: its death is no task's verdict
                        w.kill()
                        w = workers[i] = _Worker(ctx, sources, n_threads)
                    t = take(i)
                    if t is not None:
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


def _fixture_key(t: Task, registry: Registry) -> tuple:
    """Tasks with one key build the same fixture: the same seed and profile, and uses of one family, kind, mutation
    and parameters (an erratum's two claims; claims that share a seed key, whatever the order of their fixture
    lists; a pinned seed that a drawn one meets)."""
    return (t.seed, t.profile, fixture_identity(registry[t.claim_id].fixtures[t.use_index]))


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


def dask_client(scheduler: str | None):
    """A client of the Dask scheduler, or :class:`UsageError` (the extra missing, no address, or a
    scheduler that does not answer within :data:`DASK_CONNECT_TIMEOUT_S`): checked before a run opens
    any file."""
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("the dask executor needs the optional extra: pip install 'theorem-verify[dask]'") from None
    if not scheduler:
        raise UsageError("--executor dask needs --scheduler ADDRESS (e.g. tcp://127.0.0.1:8786)")
    try:
        return Client(scheduler, timeout=f"{DASK_CONNECT_TIMEOUT_S:g}s")
    except Exception as exc:  # OSError, TimeoutError, ValueError for a malformed address: all one line
        why = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise UsageError(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({why})") from None


def _run_dask(tasks: Sequence[Task], seed: int, run_id: str, limit: Callable[[Task], float],
              emit: Callable[[dict], None], client, registry: Registry) -> None:
    from distributed import as_completed

    sources, n_threads = loaded_sources(), threads.configured()
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
    """Ctrl-C, SIGTERM and SIGHUP stop a run at once, except inside :meth:`hold`, where they wait for the
    block to end: a record cut mid-write would leave a torn line in the middle of the file, and a result
    written but not yet counted would make the summary disagree with the records. Each arrives as a
    ``KeyboardInterrupt``; ``signum`` says which signal it was (the run exits 128 + signum). It only stands
    in for the default handlers, in the main thread: a process started with a signal ignored (nohup, a
    background job) keeps ignoring it, and an embedding program's handler is left alone."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

    def __init__(self) -> None:
        self.depth, self.pending, self.signum = 0, False, None
        self.previous: dict = {}

    def __enter__(self) -> _DeferredInterrupts:
        if _is_main_thread():
            for sig in self.SIGNALS:
                default = signal.default_int_handler if sig == signal.SIGINT else signal.SIG_DFL
                if signal.getsignal(sig) is default:
                    self.previous[sig] = signal.signal(sig, self._handler)
        return self

    def __exit__(self, *exc) -> None:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        self.previous = {}

    def _handler(self, signum, frame) -> None:
        if self.signum is None:
            self.signum = signum
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


def check_timeout(timeout_s: float | None) -> None:
    """``--timeout`` is a positive, finite number of seconds (or absent: each claim's own limit)."""
    if timeout_s is None:
        return
    try:
        ok = math.isfinite(float(timeout_s)) and float(timeout_s) > 0
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise UsageError(f"--timeout must be a positive finite number of seconds, got {timeout_s!r}")


def default_out(selectors: Sequence[str]) -> str:
    """Where a run writes when no ``--out`` is given: ``reports/latest`` for the whole catalogue, and
    ``reports/<selection>`` for any other selection, so a run of one paper or one claim file never
    replaces a run of everything (a long selection's name is shortened with a hash)."""
    if not selectors:
        return "reports/latest"
    return "reports/" + dir_name("_".join(Path(s).stem if s.endswith(".py") else s for s in selectors))


def selection_of(claims: Sequence[Claim], selectors: Sequence[str], task_filter: str | None,
                 planned: Sequence[Task]) -> dict:
    """What a run selected, as its run line and summary say it (and ``verify diff`` compares)."""
    return {"selectors": list(selectors), "claims": sorted(c.id for c in claims), "task": task_filter,
            "tasks": len(planned)}


def _describe_run(run: dict | None, end: dict | None, n: int) -> str:
    if run is None:
        return f"{n} results"
    sel = run.get("selection") or {}
    what = " ".join(run.get("selectors") or []) or "the whole catalogue"
    if sel.get("task"):
        what += f" --task {sel['task']}"
    state = "interrupted" if end is None or end.get("interrupted") else "finished"
    return f"profile {run.get('profile')}, seed {run.get('seed')}, selection {what}, {n} results, {state}"


def run(claims: Sequence[Claim], *, profile: str = "standard", seed: int = 0, jobs: int = 1,
        out_dir: str | os.PathLike = "reports/latest", executor: str = "pool", scheduler: str | None = None,
        resume: bool = False, task_filter: str | None = None, timeout_s: float | None = None,
        baseline: str | None = None, selectors: Sequence[str] = (), progress: bool = True,
        report: bool = True, registry: Registry = REGISTRY) -> RunOutcome:
    """Run the selected claims and write DIR/records.jsonl, DIR/summary.json and DIR/report.html.

    Everything that can be refused is refused before a file is opened (arguments, the executor, the
    Dask scheduler, the run directory and its lock; :class:`UsageError`). A previous run in DIR is kept
    aside until this one has its first result. The statuses and the summary judge exactly the selected
    claims and tasks, from the records file as written (with ``resume``, the earlier results of those
    tasks too), after an interrupt as well: then claims whose planned fixtures did not all run are
    ``incomplete`` and the exit code is 128 + the signal (130 for Ctrl-C, 143 for SIGTERM).
    """
    if executor not in EXECUTORS:
        raise UsageError(f"unknown executor {executor!r} (one of {', '.join(EXECUTORS)})")
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")
    check_timeout(timeout_s)
    out = Path(out_dir)
    planned = plan(claims, profile, seed, task_filter)
    baseline_records = read_records(baseline) if baseline else None
    client = dask_client(scheduler) if executor == "dask" else None
    try:
        lock = RunLock.acquire(out)
        try:
            return _run_locked(claims, planned, profile=profile, seed=seed, jobs=jobs, out=out, executor=executor,
                               client=client, resume=resume, task_filter=task_filter, timeout_s=timeout_s,
                               baseline_records=baseline_records, selectors=selectors, progress=progress,
                               report=report, registry=registry)
        finally:
            lock.release()
    finally:
        if client is not None:
            client.close()


def _run_locked(claims: Sequence[Claim], planned: list[Task], *, profile: str, seed: int, jobs: int, out: Path,
                executor: str, client, resume: bool, task_filter: str | None, timeout_s: float | None,
                baseline_records: list[dict] | None, selectors: Sequence[str], progress: bool, report: bool,
                registry: Registry) -> RunOutcome:
    records_path = out / "records.jsonl"
    if restore_aside(out):  # an earlier run here was killed before its first result: the one before it stays
        print(f"verify: note: {out}: a run killed before its first result left the previous run aside; "
              "restored it", file=sys.stderr)

    def same_run(records: list[dict]) -> None:
        prev_runs = [r for r in records if r.get("type") == "run"]
        if prev_runs and (prev_runs[0].get("profile"), prev_runs[0].get("seed")) != (profile, seed):
            raise UsageError(f"{records_path}: was run with profile {prev_runs[0].get('profile')!r} and seed "
                             f"{prev_runs[0].get('seed')}, not {profile!r} and {seed}; resume needs the same")

    tasks = list(planned)
    previous: list[dict] = []
    if resume and records_path.exists() and is_empty(records_path):
        print(f"verify: note: {records_path} is empty (a run killed before its first line): starting the run",
              file=sys.stderr)
    elif resume and records_path.exists():
        previous = prepare_resume(records_path, check=same_run)
        finished = {(r["claim"], r["task_id"], r["seed"]) for r in previous if r.get("type") == "result"}
        tasks = [t for t in tasks if (t.claim_id, t.key, t.seed) not in finished]

    selection = selection_of(claims, selectors, task_filter, planned)
    threads.apply()
    kernels = _compile_kernels({registry[t.claim_id].paper for t in tasks}, progress)
    run_id = uuid.uuid4().hex[:12]
    run_rec = {"type": "run", "schema": SCHEMA_VERSION, "run_id": run_id, "profile": profile, "seed": seed,
               "jobs": jobs, "executor": executor, "selectors": list(selectors), "selection": selection,
               "tasks": len(tasks), "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "versions": versions(),
               "blas": threads.describe(), "resumed": bool(previous), "host": platform.node(),
               "commit": source_commit(), "kernels": kernels}
    aside = False
    if not previous and records_path.exists():
        old_run, old_end, n_old = head_and_end(records_path)
        differs = old_run is not None and (
            (old_run.get("profile"), old_run.get("seed")) != (profile, seed)
            or (old_run.get("selection") or {}).get("claims", old_run.get("selectors")) !=
            (selection["claims"] if old_run.get("selection") else list(selectors))
            or (old_run.get("selection") or {}).get("task") != task_filter)
        if differs and n_old:
            print(f"verify: replacing the run in {out} ({_describe_run(old_run, old_end, n_old)}) with this one "
                  f"(profile {profile}, seed {seed}, selection {' '.join(selectors) or 'the whole catalogue'})",
                  file=sys.stderr)
        aside = set_aside(out)
    if executor == "inprocess" and timeout_s is not None:
        inprocess_limit_note()
    new_results: list[dict] = []
    bar = Progress(len(tasks), enabled=progress)

    def limit(t: Task) -> float:
        return float(timeout_s) if timeout_s else registry[t.claim_id].timeout_s

    interrupted = False
    with _DeferredInterrupts() as interrupts:

        def emit(rec: dict) -> None:
            nonlocal aside
            # The run's own settings (its time limit) belong in the reproduction command.
            rec["repro"] = repro_command(registry[rec["claim"]], rec["task_id"], rec["profile"], seed, timeout_s)
            with interrupts.hold():
                writer.write(rec)
                new_results.append(rec)
                if aside:  # the new run has a result: the previous one is replaced now
                    drop_aside(out)
                    aside = False
            bar.update(rec)

        writer = RecordWriter(records_path, append=bool(previous))
        try:
            with interrupts.hold():
                writer.write(run_rec)
                for c in claims:
                    writer.write({"type": "claim", **c.describe(), "used_by": registry.used_by(c.id)})
                if aside and not tasks:  # nothing to wait for: this run is complete as it is
                    drop_aside(out)
                    aside = False
            if executor == "inprocess":
                _run_inprocess(tasks, seed, run_id, limit, emit, registry)
            elif executor == "pool":
                _run_pool(tasks, seed, run_id, limit, emit, jobs, registry)
            else:
                _run_dask(tasks, seed, run_id, limit, emit, client, registry)
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
        signum = (interrupts.signum or signal.SIGINT) if interrupted else None

        if aside:  # interrupted before the first result: the previous run stays, nothing of this one is lost
            with interrupts.hold():
                restore_aside(out)
            print(f"verify: the run stopped before its first result; the previous run in {out} is kept",
                  file=sys.stderr)
            return RunOutcome(out, records_path, {}, [], 128 + signum if signum else 0, interrupted,
                              signal=signum, selection=selection, kept_previous=True)

        # From here on an interrupt only cuts the report short: the summary is always written.
        statuses: dict = {}
        results: list = []
        regressions: list = []
        incomplete: list = []
        try:
            with interrupts.hold():
                written = read_records(records_path)
                claim_dicts = [{**c.describe(), "used_by": registry.used_by(c.id)} for c in claims]
                wanted: dict[str, set] = {}
                for t in planned:
                    wanted.setdefault(t.claim_id, set()).add((t.key, t.seed))
                # Exactly the selected claims and tasks: a resumed file may hold more (a wider earlier run).
                results = [r for r in split(written)[1] if (r["task_id"], r.get("seed")) in wanted.get(r["claim"], ())]
                statuses = aggregate(claim_dicts, results)
                if interrupted:
                    incomplete = mark_incomplete(statuses, wanted, results, {c.id: list(c.uses) for c in claims})
                if baseline_records is not None:
                    from .diff import diff_records

                    diff = diff_records(baseline_records, written)
                    # A regression: a verdict that got worse or a tracked quantity moved beyond its tolerance.
                    regressions = diff["regressions"] + diff["moved"]
        except KeyboardInterrupt:
            interrupted = True
            signum = signum or interrupts.signum or signal.SIGINT
        report_path = None
        if report:
            try:
                report_path = _render_safely(records_path, out / "report.html", jobs)
            except KeyboardInterrupt:
                interrupted = True
                signum = signum or interrupts.signum or signal.SIGINT
                print(f"verify: interrupted while rendering the report; render it with: verify report "
                      f"{records_path} -o {out / 'report.html'}", file=sys.stderr)
        while True:  # an interrupt while the summary is written: written again, saying so
            code = 128 + (signum or signal.SIGINT) if interrupted else exit_code(statuses, regressions)
            try:
                with interrupts.hold():
                    write_summary(out / "summary.json", run_rec, statuses, code,
                                  {"interrupted": interrupted, "signal": signum, "regressions": regressions,
                                   "results": len(results), "selection": selection, "incomplete": incomplete})
                break
            except KeyboardInterrupt:
                interrupted = True
                signum = signum or interrupts.signum or signal.SIGINT
    return RunOutcome(out, records_path, statuses, results, code, interrupted, regressions, report_path,
                      signum, selection, incomplete)



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


def _render_safely(records_path: Path, target: Path, jobs: int = 1) -> Path | None:
    """Render the report (its plots drawn by ``jobs`` processes, the run's); a failure of the renderer must
    not lose the run, so it is reported and the records stay for ``verify report``."""
    try:
        from .report import render_report

        return render_report(read_records(records_path), target, jobs=jobs)
    except Exception as exc:
        print(f"verify: warning: the report could not be rendered ({type(exc).__name__}: {exc}); "
              f"records are in {records_path}; retry with: verify report {records_path} -o {target}",
              file=sys.stderr)
        return None
