"""Plots of evidence series as base64 PNG data URIs (matplotlib's Agg canvas, no pyplot state).

Series of the same name from several fixtures of one claim are drawn on one axes, so a plot shows
whether the trend holds across seeds. The number of plots per claim, of lines per plot and the bytes
of the whole report are capped so a full report stays small.
"""

from __future__ import annotations

import base64
import io
import math
from dataclasses import dataclass

import numpy as np

from .. import settings as S

MAX_PLOTS_PER_CLAIM = 4
MAX_FIXTURES_PER_PLOT = 6
MAX_LINES_PER_PLOT = 12
PLOT_BYTES_BUDGET = 20_000_000
MIN_PLOT_BYTES = 4_000  # below this much budget, do not even draw
MAX_PLOTS_PER_REPORT = 400  # drawing costs ~0.1-0.3 s a plot
_DPI = 80


@dataclass
class Plot:
    """One rendered plot: ``data_uri`` is None when it was left out (``note`` says why)."""

    name: str
    data_uri: str | None
    note: str = ""


class PlotBudget:
    """The bytes of PNG, and the number of plots, still allowed in one report."""

    def __init__(self, total: int = PLOT_BYTES_BUDGET, *, max_plots: int = MAX_PLOTS_PER_REPORT):
        self.left = total
        self.plots_left = max_plots

    @property
    def spent(self) -> bool:
        return self.left < MIN_PLOT_BYTES or self.plots_left <= 0

    def take(self, n: int) -> bool:
        if n > self.left or self.plots_left <= 0:
            return False
        self.left -= n
        self.plots_left -= 1
        return True


def as_float_array(values: object) -> np.ndarray:
    """Series values from JSON (numbers, ``"nan"``, ``"inf"``, nested lists) as a flat float array."""
    def one(v: object) -> float:
        try:
            return float(v)  # float("nan"), float("inf") parse the JSON-safe spellings
        except (TypeError, ValueError):
            return math.nan

    if not isinstance(values, list):
        values = [values]
    return np.array([one(v) for v in np.ravel(np.array(values, dtype=object))], dtype=float)


def _series_groups(results: list[dict]) -> dict[str, list[tuple[dict, dict]]]:
    """Series name -> [(result, series)], non-pass results first so failures are always drawn."""
    ordered = sorted(results, key=lambda r: r.get("verdict") == S.PASS)
    groups: dict[str, list[tuple[dict, dict]]] = {}
    for r in ordered:
        for s in (r.get("evidence") or {}).get("series") or ():
            if isinstance(s, dict) and s.get("x") is not None and isinstance(s.get("y"), dict):
                groups.setdefault(str(s.get("name", "series")), []).append((r, s))
    return groups


def render_series(name: str, members: list[tuple[dict, dict]]) -> bytes:
    """One PNG: every (fixture, label) line of the series ``name``, with dashed reference lines."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.0, 3.1), dpi=_DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    first = members[0][1]
    logx, logy = bool(first.get("logx")), bool(first.get("logy"))
    lines = 0
    refs: set[float] = set()
    positive_x = positive_y = False
    for r, s in members:
        x = as_float_array(s["x"])
        for label, ys in s["y"].items():
            if lines >= MAX_LINES_PER_PLOT:
                break
            y = as_float_array(ys)
            n = min(len(x), len(y))
            xs, yv = x[:n].copy(), y[:n].copy()
            if logx:
                xs[xs <= 0] = np.nan
            if logy:
                yv[yv <= 0] = np.nan
            positive_x |= bool(np.any(np.isfinite(xs) & (xs > 0)))
            positive_y |= bool(np.any(np.isfinite(yv) & (yv > 0)))
            tag = f"{r.get('task_id')} {r.get('verdict')}"
            ax.plot(xs, yv, marker="." if n < 40 else None, lw=1.2,
                    label=f"{label} [{tag}]" if len(members) > 1 or len(s["y"]) > 1 else label)
            lines += 1
        ref = s.get("reference")
        for v in as_float_array(ref) if ref is not None else ():
            if math.isfinite(v):
                refs.add(float(v))
    for v in sorted(refs)[:4]:
        ax.axhline(v, ls="--", lw=1, color="#555")
    if logx and positive_x:
        ax.set_xscale("log", nonpositive="mask")
    if logy and positive_y:
        ax.set_yscale("log", nonpositive="mask")
    ax.set_title(name[:70], fontsize=9)
    ax.set_xlabel(str(first.get("xlabel") or "")[:60], fontsize=8)
    ax.set_ylabel(str(first.get("ylabel") or "")[:60], fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(True, alpha=0.3)
    if lines > 1:
        ax.legend(fontsize=6, loc="best")
    fig.subplots_adjust(left=0.15, right=0.97, bottom=0.16, top=0.9)  # tight_layout costs twice the draw
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=_DPI)
    return buf.getvalue()


def claim_plots(results: list[dict], budget: PlotBudget, *, max_plots: int = MAX_PLOTS_PER_CLAIM) -> list[Plot]:
    """The plots of one claim's evidence series, at most ``max_plots``, within ``budget``."""
    out: list[Plot] = []
    groups = _series_groups(results)
    for k, (name, members) in enumerate(groups.items()):
        if budget.spent:
            out.append(Plot(name, None, "left out: the report's plot size budget is spent"))
            continue
        if k >= max_plots:
            out.append(Plot(name, None, f"{len(groups) - max_plots} more series not drawn "
                                        f"(at most {max_plots} plots per claim)"))
            break
        try:
            png = render_series(name, members[:MAX_FIXTURES_PER_PLOT])
        except (ValueError, TypeError, OverflowError) as e:
            out.append(Plot(name, None, f"could not draw: {e}"))
            continue
        data = base64.b64encode(png).decode("ascii")
        if not budget.take(len(data)):
            out.append(Plot(name, None, "left out: the report's plot size budget is spent"))
            continue
        out.append(Plot(name, "data:image/png;base64," + data))
    return out
