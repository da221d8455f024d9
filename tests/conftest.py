"""Fixtures shared by several test modules."""

import pytest


@pytest.fixture(scope="module")
def dask_scheduler():
    """A local Dask cluster (one worker process) for the executor tests; skipped without the dask extra."""
    distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None)
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()
