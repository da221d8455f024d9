"""Benchmark settings: one BLAS / OpenMP / torch thread for every implementation (``BENCH_THREADS``).

The machine is shared (2 cores, other jobs running), so every implementation is pinned to the same thread
count and the run records the load average before and after.  Environment variables alone are not enough
(numpy may be imported before this file by the ``verify`` pytest plugin), so the limit is also applied with
threadpoolctl.  Run:  ``python benchmarks/run.py``  or
``python -m pytest benchmarks --benchmark-enable -p no:cacheprovider``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

THREADS = int(os.environ.get("BENCH_THREADS", "1"))
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, str(THREADS))

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pytest  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

_LIMITS = threadpool_limits(THREADS)
_LOAD_START = os.getloadavg()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config) -> None:
    # pyproject's addopts carries --benchmark-skip (benchmarks stay out of the unit-test run); an explicit
    # --benchmark-enable on the command line of a benchmark run wins over it
    if getattr(config.option, "benchmark_enable", False):
        config.option.benchmark_skip = False
    try:
        import torch

        torch.set_num_threads(THREADS)
    except ImportError:
        pass


def pytest_benchmark_update_json(config, benchmarks, output_json) -> None:
    output_json["bench_settings"] = {
        "threads": THREADS,
        "loadavg_start": _LOAD_START,
        "loadavg_end": os.getloadavg(),
        "cpus": os.cpu_count(),
        "quick": os.environ.get("BENCH_QUICK", ""),
    }
