"""The HTML verification report, rendered from records alone (self-contained, readable offline).

    from verify.records import merge
    from verify.report import render_report
    render_report(merge(["run1/records.jsonl", "run2/records.jsonl"]), "report.html")
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from .html import page_html
from .model import build_model
from .parallel import DrawAhead
from .plots import PlotBudget, plot_jobs

__all__ = ["render_report", "report_html"]


def report_html(records: Iterable[dict], *, title: str | None = None, lazy: bool = True, jobs: int = 1) -> str:
    """The report page for ``records`` (one file's, or several merged) as a string. ``lazy=False``
    writes every claim card as plain HTML (bigger; readable where scripts do not run). ``jobs`` processes
    draw the plots (:mod:`verify.report.parallel`); the page is the same whatever their number."""
    model = build_model(records)
    if title is None:
        title = "Verification report: " + (", ".join(model.papers) or "no claims")
    plots = [job for paper in model.papers for v in model.of_paper(paper) for job in plot_jobs(v.results)]
    with DrawAhead(plots, jobs) as draw:
        return page_html(model, title, plot_budget=PlotBudget(), lazy=lazy, draw=draw)


def render_report(records: Iterable[dict], path: str | os.PathLike, *, title: str | None = None,
                  lazy: bool = True, jobs: int = 1) -> Path:
    """Write the report for ``records`` to ``path`` (parents created) and return the path; ``jobs``
    processes draw its plots."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report_html(records, title=title, lazy=lazy, jobs=jobs), encoding="utf-8")
    return out
