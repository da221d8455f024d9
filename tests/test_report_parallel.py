"""The report's plots drawn in worker processes (verify/report/parallel.py): the page is the same byte for
byte whatever the number of processes, the pool really draws them, and a pool that fails loses nothing."""

from __future__ import annotations

import concurrent.futures
import multiprocessing as mp
import os
import re

import pytest
from test_report import claim_line, result_line

from verify import settings as S
from verify.report import parallel, plots, report_html
from verify.report.plots import MAX_FIXTURES_PER_PLOT, MAX_PLOTS_PER_CLAIM

pytestmark = [pytest.mark.skipif("fork" not in mp.get_all_start_methods(),
                                 reason="the spies and failures are set up in this process and forked"),
              pytest.mark.timeout(300)]  # a pool that hangs fails its test instead of holding up the suite


def curve(name: str, k: int, *, logy: bool = False) -> dict:
    xs = [1.0, 3.0, 10.0, 30.0, 100.0]
    return {"name": name, "x": xs, "y": {"margin": [0.1 * k + x / 200 for x in xs], "bound": [0.5] * 5},
            "xlabel": r"$t$", "ylabel": "margin", "logx": True, "logy": logy, "reference": 0.5}


def records(bad: str = "") -> list[dict]:
    """Three claims with several plotted series each, of the same names (passing, refuting and control fixtures on one plot, one
    claim past the per-claim and per-plot caps), and optionally a series named ``bad``."""
    recs: list[dict] = [{"type": "run", "run_id": "r1", "profile": "quick", "seed": 0, "selectors": ["toy"]}]
    for c in range(3):
        cid = f"toy.lem{c}"
        recs.append(claim_line(cid))
        n_series = MAX_PLOTS_PER_CLAIM + 2 if c == 0 else 2
        n_fixtures = MAX_FIXTURES_PER_PLOT + 1 if c == 1 else 3
        for f in range(n_fixtures):
            names = [f"s{k}" for k in range(n_series)] + ([bad] if bad and c == 2 else [])  # alike in every claim
            verdict, kind = (S.REFUTED, S.NEGATIVE) if f == 2 else (S.PASS, S.RANDOM)
            recs.append(result_line(cid, f"{f}.0", verdict, kind=kind, seed=f,
                                    series=[curve(n, k + f + 10 * c, logy=k % 2 == 1) for k, n in enumerate(names)]))
    return recs


N_PLOTS = MAX_PLOTS_PER_CLAIM + 2 + 2  # the plots of records(): the first claim's capped


def page(jobs: int, recs: list[dict] | None = None) -> str:
    html = report_html(recs if recs is not None else records(), jobs=jobs)
    return re.sub(r"; rendered [^<]*\.</p>", "; rendered (time).</p>", html, count=1)  # the clock's, not the plots'


@pytest.fixture
def forked(monkeypatch) -> None:
    """Workers forked, whatever other threads this process runs (a test suite's: parallel._context would spawn
    them, and spawned workers do not inherit this test's monkeypatches)."""
    monkeypatch.setattr(parallel, "_context", lambda: mp.get_context("fork"))


@pytest.fixture
def drawn_here(monkeypatch) -> list[str]:
    """The series drawn in this process (a worker's drawings are counted in the worker)."""
    names: list[str] = []
    real = plots.render_series

    def spy(name, members):
        if os.getpid() == me:
            names.append(name)
        return real(name, members)

    me = os.getpid()
    monkeypatch.setattr(plots, "render_series", spy)
    return names


def test_several_processes_give_the_same_page(drawn_here, capsys):
    serial = page(1)
    n_plots = len(drawn_here)
    assert n_plots == N_PLOTS
    assert page(2) == serial
    assert len(drawn_here) == n_plots  # all drawn ahead by the workers, none again here
    assert "warning" not in capsys.readouterr().err


def test_a_pool_that_cannot_start_falls_back(monkeypatch, capsys):
    serial = page(1)

    def refuse(*args, **kwargs):
        raise OSError("no processes here")

    monkeypatch.setattr(parallel, "ProcessPoolExecutor", refuse)
    assert page(2) == serial
    err = capsys.readouterr().err
    assert err.count("warning") == 1 and "OSError: no processes here" in err


def test_a_worker_that_dies_falls_back(monkeypatch, capsys, drawn_here, forked):
    serial = page(1)
    del drawn_here[:]
    me = os.getpid()

    def die_in_a_worker(name, members):
        if os.getpid() != me:
            os._exit(3)
        return plots.draw_plot(name, members)

    monkeypatch.setattr(parallel, "draw_plot", die_in_a_worker)  # inherited by the forked workers
    assert page(2) == serial
    err = capsys.readouterr().err
    assert err.count("warning") == 1 and "BrokenProcessPool" in err
    assert len(drawn_here) == N_PLOTS  # every plot drawn here instead


def test_a_plot_that_cannot_be_drawn_fails_as_it_does_alone(monkeypatch, capsys, forked):
    real = plots.render_series

    def fragile(name, members):
        if name == "broken":
            raise ValueError("no such scale")
        return real(name, members)

    monkeypatch.setattr(plots, "render_series", fragile)
    recs = records(bad="broken")
    serial = page(1, recs)
    assert page(2, recs) == serial
    assert "warning" not in capsys.readouterr().err
    note = report_html(recs, lazy=False, jobs=2)
    assert "broken: could not draw: no such scale" in note


def test_one_process_or_one_plot_starts_no_pool(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a pool was started")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", refuse)
    monkeypatch.setattr(parallel, "ProcessPoolExecutor", refuse)
    page(1)
    one = [r for r in records() if r.get("type") != "result" or (r["claim"] == "toy.lem2" and r["task_id"] == "0.0")]
    for r in one:
        if r.get("type") == "result":
            r["evidence"]["series"] = r["evidence"]["series"][:1]
    page(4, one)
