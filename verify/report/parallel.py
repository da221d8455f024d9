"""A report's plots drawn ahead in worker processes while the page around them is assembled.

Drawing (matplotlib) is most of a report's time, and each plot depends on its own series alone, so the
plots a report may draw are handed to a pool of processes at the start, in page order, and
:func:`verify.report.plots.claim_plots` takes each one from there when it gets to it. What is drawn is
decided as before, one claim after another: the caps (:func:`verify.report.plots.plot_jobs`) are those of
``claim_plots`` itself, and the report's byte budget is still spent in page order in the main process
(a plot drawn ahead that the budget then leaves out is wasted work, nothing else). The page is the same
byte for byte. A plot that fails to draw in a worker is drawn again in the main process, where it fails
as it always did; a pool that fails (a worker killed, a process that cannot be started) leaves the rest
of the plots to the main process, with one warning.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from types import TracebackType

from .plots import Members, draw_plot

_JOBS: list[tuple[str, Members]] = []  # in a worker: the plots of the report, by index


def _start_worker(jobs: list[tuple[str, Members]], parent_pid: int) -> None:  # pragma: no cover - subprocess
    """A worker's setup: the plots come with the fork (or, spawned, once per worker), so a task is an index.
    Ctrl-C is the main process's to handle (it stops the pool); the worker dies with it and draws with the
    BLAS thread count of a run."""
    global _JOBS
    from .. import threads
    from ..runner import _die_with_parent

    _die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in (signal.SIGTERM, signal.SIGHUP):  # a run's deferred-interrupt handlers are not the worker's
        signal.signal(sig, signal.SIG_DFL)
    threads.apply()
    _JOBS = jobs


def _draw_job(index: int) -> tuple[str, int] | None:  # pragma: no cover - subprocess
    """Plot ``index``, or None when it cannot be drawn: the main process draws it again and reports the
    failure exactly as when it draws alone."""
    try:
        return draw_plot(*_JOBS[index])
    except Exception:
        return None


def _key(name: str, members: Members) -> tuple:
    """The identity of one plot: its series name and the very (fixture, series) objects drawn. The drawings
    keep those objects alive, so no other plot can come to have the same key."""
    return name, tuple((id(r), id(s)) for r, s in members)


def _context():
    """Fork (the workers start at once, with the plots and matplotlib loaded), unless this process runs other
    threads (a Dask client's): a fork copies the locks they hold, never released in the child."""
    fork = "fork" in mp.get_all_start_methods() and threading.active_count() == 1
    return mp.get_context("fork" if fork else "spawn")


class DrawAhead:
    """Draws ``plots`` (from :func:`verify.report.plots.plot_jobs`) in ``jobs`` worker processes, started at
    once; called as ``claim_plots``'s ``draw``, it gives the drawing made ahead, or draws in this process a
    plot it does not have. With ``jobs`` 1 or a single plot there is no pool: everything is drawn in this
    process, when asked for. Use it as a context manager: leaving it stops the pool (the plots not yet
    started are dropped)."""

    def __init__(self, plots: list[tuple[str, Members]], jobs: int) -> None:
        self._ahead: dict[tuple, tuple[Members, Future]] = {}
        self._pool: ProcessPoolExecutor | None = None
        workers = min(jobs, len(plots))
        if workers < 2:
            return
        # Imported before the fork, so the workers share it (and the font list) instead of each loading it.
        import matplotlib.backends.backend_svg  # noqa: F401
        import matplotlib.figure  # noqa: F401

        try:
            self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=_context(),
                                             initializer=_start_worker, initargs=(plots, os.getpid()))
            for i, (name, members) in enumerate(plots):
                self._ahead[_key(name, members)] = (members, self._pool.submit(_draw_job, i))
        except Exception as exc:
            self._fail(exc)

    def __call__(self, name: str, members: Members) -> tuple[str, int]:
        entry = self._ahead.pop(_key(name, members), None)
        if entry is not None:
            try:
                drawn = entry[1].result()
            except Exception as exc:  # the pool's failure, not the plot's: _draw_job catches those
                self._fail(exc)
            else:
                if drawn is not None:
                    return drawn
        return draw_plot(name, members)

    def _fail(self, exc: Exception) -> None:
        print(f"verify: warning: drawing the report's plots in worker processes failed ({type(exc).__name__}: "
              f"{exc}); drawing them in this process", file=sys.stderr)
        self._ahead.clear()
        self.close()

    def close(self) -> None:
        """Stop the pool: plots being drawn are finished, the others dropped."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> DrawAhead:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
