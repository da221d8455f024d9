"""One BLAS/OpenMP thread count for every process that runs checks.

A check's numbers can depend on how many threads a BLAS reduction is split over, so the count must be
the same whatever runs the check: the CLI, a pool worker, a Dask worker or a pytest item. It is chosen
once, from the environment of the process that starts a run (``OPENBLAS_NUM_THREADS``, else
``MKL_NUM_THREADS``, else ``OMP_NUM_THREADS``, else 1: many small problems run side by side, and one
thread per process avoids oversubscribing the cores).

Environment variables only work if they are set before a BLAS library loads, which importing ``verify``
does (:func:`init`, called first thing by the package). A library that was already loaded (numpy imported
before ``verify``; a Dask worker started with other settings) is set through threadpoolctl by
:func:`apply`, which every check runs under.
"""

from __future__ import annotations

import os

VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")
_applied: tuple[int, int] | None = None  # (pid, threads) of the last apply() in this process


def _parse(value: str | None) -> int | None:
    try:
        n = int(value) if value is not None else 0
    except ValueError:
        return None
    return n if n >= 1 else None


def configured() -> int:
    """The thread count this process's environment asks for (1 unless a variable says otherwise)."""
    for var in VARIABLES:
        n = _parse(os.environ.get(var))
        if n is not None:
            return n
    return 1


def init() -> int:
    """Set every variable to the one configured count (before numpy loads, if it has not yet)."""
    n = configured()
    for var in VARIABLES:
        os.environ[var] = str(n)
    return n


def apply(threads: int | None = None) -> int:
    """Run this process's BLAS and OpenMP libraries, loaded or still to load, on ``threads`` threads
    (default: :func:`configured`). Cheap after the first call in a process."""
    global _applied
    n = threads or configured()
    if _applied == (os.getpid(), n):
        return n
    for var in VARIABLES:
        os.environ[var] = str(n)  # for libraries loaded from now on
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=n, user_api="blas")
    threadpool_limits(limits=n, user_api="openmp")
    _applied = (os.getpid(), n)
    return n


def describe() -> list[dict]:
    """The BLAS libraries loaded in this process: library, version, kernel (architecture), threads, and
    threading layer (``disabled`` for a single-threaded build, which no setting changes)."""
    from threadpoolctl import threadpool_info

    return [{"library": i.get("internal_api"), "version": i.get("version"),
             "architecture": i.get("architecture"), "threads": i.get("num_threads"),
             "threading": i.get("threading_layer")}
            for i in threadpool_info() if i.get("user_api") == "blas"]
