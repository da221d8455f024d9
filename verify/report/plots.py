"""Plots of evidence series as SVG data URIs (matplotlib's SVG canvas, no pyplot state).

Series of the same name from several fixtures of one claim are drawn on one axes, so a plot shows
whether the trend holds across seeds. Colours say the verdict of the fixture a line comes from
(passing fixtures in blues and greens, refuting ones in reds, caught negative controls in greys and
browns, undecided ones in yellows), the legend sits outside the data, reference lines (a prediction,
a tolerance, an extrapolated limit) are labelled, and names are typeset with matplotlib's mathtext.
The images are SVG with their text kept as text: sharp at any zoom, and a fifth of a PNG's bytes once
the card that holds them is compressed. The number of plots per claim, of lines per plot and the
(compressed) bytes of all plots in one report are capped.
"""

from __future__ import annotations

import gzip
import io
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from .. import settings as S
from .fmt import data_uri
from .mathml import label_mathtext

MAX_PLOTS_PER_CLAIM = 4
MAX_FIXTURES_PER_PLOT = 6
MAX_LINES_PER_PLOT = 12
PLOT_BYTES_BUDGET = 1_500_000  # compressed bytes of SVG
MIN_PLOT_BYTES = 4_000  # below this much budget, do not even draw
MAX_PLOTS_PER_REPORT = 400  # drawing costs ~0.1-0.3 s a plot
_DPI = 96
REFERENCE_LABELS = ("tolerance", "bound", "limit", "reference", "threshold")
_SIZE = (8.6, 3.5)  # inches: ~830 x 340 px, the axes on the left two thirds, the legend beside them

# Line colours by the kind of outcome of the fixture the line comes from.
VERDICT_PALETTES = {
    "pass": ["#1f5fa8", "#2e9e4f", "#17a2b8", "#6a3fb5", "#0b3d91", "#5aa02c"],
    "refuted": ["#d62728", "#e8590c", "#a61e4d", "#ff8787"],
    "control": ["#6c6c6c", "#8d6e63", "#343a40", "#a1887f"],
    "other": ["#c9a100", "#b58900", "#e0b000"],
}


def verdict_group(result: dict) -> str:
    """Which palette a fixture's lines take: a refutation on a negative control is a caught control."""
    v = result.get("verdict")
    if result.get("fixture_kind") == S.NEGATIVE:
        return "control"
    if v == S.PASS:
        return "pass"
    if v == S.REFUTED:
        return "refuted"
    return "other"


def short_outcome(result: dict) -> str:
    """The outcome in a legend: ``pass``, ``refuted``, ``control caught``, ``control NOT caught``."""
    if result.get("fixture_kind") == S.NEGATIVE:
        return "control caught" if result.get("as_expected", True) else "control NOT caught"
    return str(result.get("verdict"))


@dataclass
class Plot:
    """One rendered plot: ``data_uri`` is None when it was left out (``note`` says why)."""

    name: str
    data_uri: str | None
    note: str = ""


class PlotBudget:
    """The (compressed) bytes of SVG, and the number of plots, still allowed in one report."""

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


GROUP_ORDER = ("refuted", "pass", "control", "other")


def _series_groups(results: list[dict]) -> dict[str, list[tuple[dict, dict]]]:
    """Series name -> [(result, series)], taking fixtures of each outcome in turn (refuting, passing,
    controls, undecided), so a plot capped at a few fixtures still shows every kind of outcome."""
    groups: dict[str, dict[str, list[tuple[dict, dict]]]] = {}
    for r in results:
        for s in (r.get("evidence") or {}).get("series") or ():
            if isinstance(s, dict) and s.get("x") is not None and isinstance(s.get("y"), dict):
                by = groups.setdefault(str(s.get("name", "series")), {g: [] for g in GROUP_ORDER})
                by[verdict_group(r)].append((r, s))
    out: dict[str, list[tuple[dict, dict]]] = {}
    for name, by in groups.items():
        queues = [list(by[g]) for g in GROUP_ORDER]
        merged: list[tuple[dict, dict]] = []
        while any(queues):
            for q in queues:
                if q:
                    merged.append(q.pop(0))
        out[name] = merged
    return out


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


_SUPERSCRIPTS = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")
_MATH_POWER = re.compile(r"^\$\\mathdefault\{(?:([0-9.]+)\\times)?10\^\{(-?\d+)\}\}\$$")


def text_power(label: str) -> str:
    """A log axis's tick label ``$\\mathdefault{10^{-2}}$`` (or ``2\\times10^{-2}``) as plain text ``10⁻²``
    (``2×10⁻²``); any other label unchanged. Typeset by mathtext, the ticks were ~1400 of a standard report's
    ~2000 mathtext parses (each a cache miss: the parser's cache is per figure), a third of its drawing time."""
    m = _MATH_POWER.match(label)
    if not m:
        return label
    coef, power = m.groups()
    text = "10" + power.translate(_SUPERSCRIPTS)
    return f"{coef}\u00d7{text}" if coef else text


MINOR_TICK_DECADES = 3
"""A log axis spanning more decades than this draws no minor ticks: matplotlib draws them unlabelled there, and
making them was ~30% of a standard report's drawing (6852 tick objects for 132 plots)."""


def _text_log_axis(axis) -> None:
    """Log-axis tick labels as plain text (:func:`text_power`), with matplotlib's own choice of ticks (no minor
    ticks past MINOR_TICK_DECADES decades)."""
    from matplotlib.ticker import LogFormatterSciNotation, LogLocator

    class TextLogFormatter(LogFormatterSciNotation):
        def __call__(self, x, pos=None):
            return text_power(super().__call__(x, pos))

    class WideLogMinorLocator(LogLocator):
        def tick_values(self, vmin, vmax):
            lo, hi = sorted((vmin, vmax))
            if lo > 0 and math.isfinite(hi) and math.log10(hi / lo) > MINOR_TICK_DECADES:
                return np.array([])
            return super().tick_values(vmin, vmax)

    minor = axis.get_minor_formatter()
    axis.set_major_formatter(TextLogFormatter(10))
    axis.set_minor_formatter(TextLogFormatter(10, labelOnlyBase=getattr(minor, "labelOnlyBase", False)))
    axis.set_minor_locator(WideLogMinorLocator(10, subs="auto"))


def render_series(name: str, members: list[tuple[dict, dict]]) -> str:
    """One SVG: every (fixture, label) line of the series ``name``, with labelled reference lines."""
    import matplotlib
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    several = len(members) > 1
    n_lines = min(MAX_LINES_PER_PLOT, sum(len(s["y"]) for _, s in members))
    # Room for the legend beside the axes: two text lines per entry when several fixtures share a plot.
    height = max(_SIZE[1], 0.55 + n_lines * (0.34 if several else 0.2))
    fig = Figure(figsize=(_SIZE[0], height), dpi=_DPI)
    FigureCanvasSVG(fig)
    ax = fig.add_subplot()
    first = members[0][1]
    logx, logy = bool(first.get("logx")), bool(first.get("logy"))
    lines = 0
    refs: set[float] = set()
    positive_x = positive_y = False
    used = {g: 0 for g in VERDICT_PALETTES}
    styles = ["-", "--", "-.", ":"]
    drawn_refs: set = set()
    ref_labels: set[str] = set()
    per_fixture = max(1, MAX_LINES_PER_PLOT // len(members))  # every fixture drawn gets its lines
    for r, s in members:
        x = as_float_array(s["x"])
        group = verdict_group(r)
        fixture = f"[{r.get('task_id')}] {short_outcome(r)}"
        for k, (label, ys) in enumerate(s["y"].items()):
            if lines >= MAX_LINES_PER_PLOT or k >= per_fixture:
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
            if str(label).lower().startswith(REFERENCE_LABELS):
                # A tolerance or bound drawn as a series: one black dashed line per distinct curve.
                key = (str(label), tuple(np.round(np.nan_to_num(yv), 12)))
                if key not in drawn_refs:
                    drawn_refs.add(key)
                    ax.plot(xs, yv, lw=1.3, color="#000000", ls=(0, (6, 3)), alpha=0.8,
                            label=label_mathtext(_short(str(label), 40)) if str(label) not in ref_labels else None)
                    ref_labels.add(str(label))
                    lines += 1
                continue
            palette = VERDICT_PALETTES[group]
            colour = palette[used[group] % len(palette)]
            used[group] += 1
            text = label_mathtext(_short(str(label), 36))
            if several:
                text += f"\n{fixture}"
            elif group != "pass":
                text += f" ({short_outcome(r)})"
            ax.plot(xs, yv, marker="o" if n < 30 else None, ms=3, lw=1.6, color=colour,
                    ls=styles[k % len(styles)], label=text)
            lines += 1
        ref = s.get("reference")
        for v in as_float_array(ref) if ref is not None else ():
            if math.isfinite(v):
                refs.add(float(v))
    for k, v in enumerate(sorted(refs)[:4]):
        ax.axhline(v, ls=(0, (6, 3)), lw=1.2, color="#000000", alpha=0.75,
                   label="reference (prediction / limit)" if k == 0 else None)
        ax.annotate(f"reference {v:.4g}", xy=(1.0, v), xycoords=("axes fraction", "data"), xytext=(-4, 3),
                    textcoords="offset points", ha="right", va="bottom", fontsize=8, color="#000000",
                    bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8})
    if logx and positive_x:
        ax.set_xscale("log", nonpositive="mask")
        _text_log_axis(ax.xaxis)
    if logy and positive_y:
        ax.set_yscale("log", nonpositive="mask")
        _text_log_axis(ax.yaxis)
    ax.set_title(label_mathtext(_short(name, 90)), fontsize=10, loc="left")
    ax.set_xlabel(label_mathtext(_short(str(first.get("xlabel") or ""), 60)), fontsize=9)
    ax.set_ylabel(label_mathtext(_short(str(first.get("ylabel") or ""), 40)), fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, alpha=0.3)
    # Fixed margins (a layout engine would draw the figure twice): the axes take the left two thirds.
    fig.subplots_adjust(left=0.09, right=0.67, bottom=0.5 / height, top=1 - 0.32 / height)
    if lines + bool(refs) > 1 or several:
        fig.legend(loc="upper left", bbox_to_anchor=(0.685, 1 - 0.3 / height), fontsize=7.5, frameon=False,
                   handlelength=2.4)
    buf = io.StringIO()
    # Text as text (the browser's fonts), and ids that depend on the content alone (reproducible pages).
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "verify"}):
        fig.savefig(buf, format="svg", dpi=_DPI, metadata={"Date": None, "Creator": None})
    return buf.getvalue()


_SVG_CRUFT = re.compile(r"<\?xml.*?\?>|<!DOCTYPE.*?>|<metadata>.*?</metadata>|<!--.*?-->", re.S)
_SVG_TAG = re.compile(r"<[^>]+>")
_SVG_ATTR = re.compile(r'( [\w:.-]+)="([^"]*)"')
_LONG_DECIMAL = re.compile(r"-?\d+\.\d{3,}")
_SVG_REF = re.compile(r"#([\w.-]+)")


def _two_decimals(m: re.Match) -> str:
    text = f"{float(m.group(0)):.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def minify_svg(svg: str) -> str:
    """Matplotlib's SVG without what is never seen: the XML prolog, metadata, comments, indentation,
    ids nothing refers to, and coordinates beyond a hundredth of a point (a thousandth of the figure's
    pixel at the finest). Text content is left as it is."""
    svg = _SVG_CRUFT.sub("", svg)
    used = set(_SVG_REF.findall(" ".join(v for tag in _SVG_TAG.findall(svg)
                                         for k, v in _SVG_ATTR.findall(tag) if k.strip() != "id")))

    def attr(m: re.Match) -> str:
        name, value = m.group(1), m.group(2)
        if name == " id" and value not in used:
            return ""
        if name in (" d", " points", " transform", " x", " y", " width", " height", " viewBox", " style",
                    " x1", " x2", " y1", " y2", " cx", " cy", " r"):
            value = _LONG_DECIMAL.sub(_two_decimals, " ".join(value.split()))
        return f'{name}="{value}"'

    svg = _SVG_TAG.sub(lambda t: _SVG_ATTR.sub(attr, t.group(0)), svg)
    return re.sub(r">\s+<", "><", svg).strip()


def svg_data_uri(svg: str) -> str:
    return data_uri(svg, "image/svg+xml")


Members = list[tuple[dict, dict]]
"""The (fixture result, series) pairs drawn on one plot."""


def draw_plot(name: str, members: Members) -> tuple[str, int]:
    """The plot of the series ``name`` as minified SVG, and its compressed size (what the budget counts)."""
    svg = minify_svg(render_series(name, members))
    return svg, len(gzip.compress(svg.encode("utf-8"), compresslevel=6))


Draw = Callable[[str, Members], tuple[str, int]]
"""What draws a plot for :func:`claim_plots`: :func:`draw_plot`, or drawings made ahead (in
:class:`verify.report.parallel.DrawAhead`) that must give the same result."""


def _series_plan(groups: dict[str, Members], max_plots: int) -> Iterator[tuple[str, Members | None]]:
    """The series of one claim in the order plotted: (name, the fixtures drawn) for the first ``max_plots``,
    (name, None) for the series past the claim's cap."""
    for k, (name, members) in enumerate(groups.items()):
        yield name, members[:MAX_FIXTURES_PER_PLOT] if k < max_plots else None


def plot_jobs(results: list[dict], *, max_plots: int = MAX_PLOTS_PER_CLAIM) -> list[tuple[str, Members]]:
    """The (series name, fixtures drawn) of every plot :func:`claim_plots` draws for one claim's ``results``
    while the report's budget lasts, in its order: the plots a report may draw ahead."""
    return [(name, members) for name, members in _series_plan(_series_groups(results), max_plots)
            if members is not None]


def claim_plots(results: list[dict], budget: PlotBudget, *, max_plots: int = MAX_PLOTS_PER_CLAIM,
                draw: Draw = draw_plot) -> list[Plot]:
    """The plots of one claim's evidence series, at most ``max_plots``, within ``budget`` (taken plot by
    plot, in order)."""
    out: list[Plot] = []
    groups = _series_groups(results)
    for name, members in _series_plan(groups, max_plots):
        if budget.spent:
            out.append(Plot(name, None, "left out: the report's plot size budget is spent"))
            continue
        if members is None:
            out.append(Plot(name, None, f"{len(groups) - max_plots} more series not drawn "
                                        f"(at most {max_plots} plots per claim)"))
            break
        try:
            svg, size = draw(name, members)
        except (ValueError, TypeError, OverflowError, RuntimeError) as e:
            out.append(Plot(name, None, f"could not draw: {e}"))
            continue
        if not budget.take(size):
            out.append(Plot(name, None, "left out: the report's plot size budget is spent"))
            continue
        out.append(Plot(name, svg_data_uri(svg)))
    return out
