"""Escaped, length-capped text for values taken from records (numbers, lists, dicts, verdicts)."""

from __future__ import annotations

import json
import math
from html import escape

from .graph import anchor
from .theme import slug

MAX_LIST_ITEMS = 6
MAX_JSON_CHARS = 4000


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
        return '<span class="ok" title="holds">✓</span>'
    if holds is False:
        return '<span class="bad" title="fails">✗</span>'
    return '<span class="muted" title="undecided">?</span>'


def badge(status: str) -> str:
    return f'<span class="badge st-{escape(slug(status))}">{escape(status)}</span>'


def verdict(v: object) -> str:
    return f'<span class="v-{escape(slug(str(v)))}">{escape(str(v))}</span>'


def claim_link(cid: str, known: bool = True) -> str:
    if not known:
        return f'<span class="mono" title="not in this report">{escape(cid)}</span>'
    return f'<a class="mono" href="{escape(anchor(cid))}">{escape(cid)}</a>'


def params_text(params: object, mutation: object = None) -> str:
    text = ", ".join(f"{k}={number(v)}" for k, v in params.items()) if isinstance(params, dict) else number(params)
    if mutation:
        text += f"; mutation: {mutation}"
    return text
