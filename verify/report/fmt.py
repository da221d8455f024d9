"""Escaped, length-capped text for values taken from records (numbers, lists, dicts, verdicts)."""

from __future__ import annotations

import json
import math
from html import escape

from .. import settings as S
from .graph import anchor
from .theme import slug

MAX_LIST_ITEMS = 6
MAX_JSON_CHARS = 4000


def data_uri(text: str, mime: str, *, also: str = "") -> str:
    """A data URI for ``text`` that may stand in a double-quoted HTML attribute as it is: only what a URL
    or such an attribute cannot carry is percent-encoded (``%``, ``#``, ``"``, ``&``, tabs and line
    breaks, and the characters in ``also``), a third fewer bytes than encoding every reserved character,
    and it compresses better."""
    text = text.replace("%", "%25")
    for ch in '#"&\n\r\t' + also:
        text = text.replace(ch, f"%{ord(ch):02X}")
    return f"data:{mime},{text}"


def number(x: object) -> str:
    """A short plain-text rendering of a record value (not escaped)."""
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        return f"{x:.6g}" if math.isfinite(x) else str(x)
    if isinstance(x, list):
        head = ", ".join(number(v) for v in x[:MAX_LIST_ITEMS])
        more = f", … ({len(x)} entries)" if len(x) > MAX_LIST_ITEMS else ""
        return f"[{head}{more}]"
    if isinstance(x, dict):
        return compact_json(x, 200)
    return str(x)


def compact_json(x: object, limit: int = MAX_JSON_CHARS) -> str:
    text = json.dumps(x, sort_keys=True, default=str)
    return text if len(text) <= limit else text[:limit] + f" … ({len(text)} characters)"


def esc(x: object) -> str:
    """``number(x)``, escaped for HTML text or attribute values."""
    return escape(number(x))


def slack_value(x: object) -> float | None:
    """A slack from a record as a float (``"-inf"`` and friends included), None when absent."""
    if x is None or isinstance(x, bool):
        return None
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def holds_mark(holds: object) -> str:
    if holds is True:
        return '<span class="ok">✓</span>'
    if holds is False:
        return '<span class="bad">✗</span>'
    return '<span class="muted">?</span>'


def badge(status: str) -> str:
    return f'<span class="badge st-{escape(slug(status))}">{escape(status)}</span>'


def verdict(v: object) -> str:
    return f'<span class="v-{escape(slug(str(v)))}">{escape(str(v))}</span>'


def outcome(result: dict) -> str:
    """A fixture's verdict in words and colour: a negative control says whether it was caught, so a
    caught control (good) never reads like a refutation (bad)."""
    v = str(result.get("verdict"))
    if result.get("fixture_kind") == S.NEGATIVE:
        if result.get("as_expected", True):
            return f'<span class="v-caught" title="the negative control was caught">control caught ({escape(v)})</span>'
        return f'<span class="v-missed" title="the check could not tell this control apart">control NOT caught ({escape(v)})</span>'
    return verdict(v)


def seconds(x: object) -> str:
    """A duration to three significant figures."""
    v = slack_value(x)
    return "—" if v is None else f"{v:.3g}"


def room_text(x: object) -> str:
    """A room factor for display: ``12.5x``, ``inf``, or an em dash where there is none."""
    r = slack_value(x)
    if r is None:
        return "—"
    if math.isinf(r):
        return "∞"
    return f"{r:.3g}×"


def mark(kind: str, text: str, title: str = "") -> str:
    t = f' title="{escape(title)}"' if title else ""
    return f'<span class="mark {escape(kind)}"{t}>{escape(text)}</span>'


def claim_link(cid: str, known: bool = True) -> str:
    if not known:
        return f'<span class="mono" title="not in this report">{escape(cid)}</span>'
    # A break opportunity after each dot: long ids wrap at their parts, not mid-word.
    return f'<a class="mono" href="{escape(anchor(cid))}">{escape(cid).replace(".", ".<wbr>")}</a>'


def params_text(params: object, mutation: object = None) -> str:
    text = ", ".join(f"{k}={number(v)}" for k, v in params.items()) if isinstance(params, dict) else number(params)
    if mutation:
        text += f"; mutation: {mutation}"
    return text


def residual(c: dict) -> float | None:
    """An identity's (``==``) absolute residual ``|measured - predicted|``: from the values when both are
    numbers, else from its slack, which is relative to the tolerance (``(tol - err) / tol``) and so reads
    as a huge negative number beside a tiny tolerance."""
    if c.get("relation") != "==":
        return None
    m, p = slack_value(c.get("measured")), slack_value(c.get("predicted"))
    if m is not None and p is not None and not isinstance(c.get("measured"), list):
        return abs(m - p)
    s, tol = slack_value(c.get("slack")), slack_value(c.get("tolerance"))
    if s is None or tol is None or not math.isfinite(s):
        return None
    return max(0.0, tol - s * max(tol, 1e-300))


def slack_html(c: dict) -> str:
    """A comparison's slack for display; an identity shows its absolute residual instead."""
    r = residual(c)
    if r is None:
        return esc(c.get("slack"))
    return (f'<span title="absolute residual |measured − predicted| (tolerance {esc(c.get("tolerance"))}); the '
            f'slack relative to the tolerance is {esc(c.get("slack"))}">|Δ| {r:.3g}</span>')


def evidence_slack_html(ev: dict) -> str:
    """A fixture's slack: that of its tightest comparison, as :func:`slack_html` shows it."""
    s = slack_value(ev.get("slack"))
    comps = [c for c in ev.get("comparisons") or () if isinstance(c, dict)]
    tight = next((c for c in comps if s is not None and slack_value(c.get("slack")) == s), None)
    return slack_html(tight) if tight else esc(ev.get("slack"))
