"""Errata: every claim refuted as printed, its smallest counterexample and the amended claim beside it.

The counterexample shown is the refuting fixture (hypotheses met, conclusion failed, not a negative
control) whose certificate is smallest (fewest numbers; a fixture without certificate comes after),
ties broken by the largest violation (the most negative slack).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from .. import settings as S
from . import fmt
from .latex import statement_html
from .model import ClaimView, ReportModel, is_refuting


@dataclass
class Erratum:
    view: ClaimView
    counterexample: dict | None
    refuting: int
    violation: float | None
    failing: list[dict] = field(default_factory=list)
    amendments: list[ClaimView] = field(default_factory=list)


def count_numbers(x: object) -> int:
    """How many numbers a JSON value holds (the size of a certificate)."""
    if isinstance(x, dict):
        return sum(count_numbers(v) for v in x.values())
    if isinstance(x, list):
        return sum(count_numbers(v) for v in x)
    return 1 if isinstance(x, (int, float)) and not isinstance(x, bool) else 0


def violation(result: dict) -> float | None:
    """How far past failing the evidence is: minus its slack (None without evidence)."""
    slack = fmt.slack_value((result.get("evidence") or {}).get("slack"))
    return None if slack is None else -slack


def counterexample_key(result: dict) -> tuple:
    cert = (result.get("evidence") or {}).get("certificate") or {}
    size = count_numbers(cert) if cert else float("inf")
    v = violation(result)
    return (size, -(v if v is not None else float("-inf")), str(result.get("task_id")))


def find_errata(model: ReportModel) -> list[Erratum]:
    """One erratum per claim whose aggregated status is refuted, in catalogue order."""
    out = []
    for v in model.claims.values():
        if v.status["status"] != S.ST_REFUTED:
            continue
        refuting = [r for r in v.results if is_refuting(r)]
        best = min(refuting, key=counterexample_key) if refuting else None
        failing = [c for c in ((best or {}).get("evidence") or {}).get("comparisons") or () if c.get("holds") is False]
        amendments = [a for a in model.claims.values() if a.claim.get("amends") == v.id]
        out.append(Erratum(v, best, len(refuting), violation(best) if best else None, failing, amendments))
    return out


def _claim_column(v: ClaimView, heading: str) -> str:
    expected = ""
    if v.claim.get("expected"):
        expected = f'<div class="small">expected: {escape(str(v.claim["expected"]))}'
        if v.claim.get("expected_reason"):
            expected += f" — {escape(str(v.claim['expected_reason']))}"
        expected += "</div>"
    warn = ' <span class="unexpected">not as expected</span>' if v.unexpected else ""
    return (f"<h4>{escape(heading)}: {fmt.claim_link(v.id)} {fmt.badge(v.display)}{warn}</h4>"
            f'<div class="statement">{statement_html(v.claim.get("statement", ""))}</div>{expected}')


def _counterexample_html(e: Erratum) -> str:
    r = e.counterexample
    if r is None:
        return "<p>No refuting fixture recorded.</p>"
    ev = r.get("evidence") or {}
    rows = "".join(
        f"<tr><td>{escape(str(c.get('name')))}</td><td>{fmt.esc(c.get('measured'))} {escape(str(c.get('relation')))} "
        f"{fmt.esc(c.get('predicted'))}</td><td>{fmt.esc(c.get('tolerance'))}</td>"
        f"<td class=num>{fmt.esc(c.get('slack'))}</td><td>{escape(str(c.get('detail') or ''))}</td></tr>"
        for c in e.failing)
    table = (f"<table><tr><th>failing comparison</th><th>measured vs predicted</th><th>tolerance</th>"
             f"<th>slack</th><th>detail</th></tr>{rows}</table>") if rows else ""
    cert = ev.get("certificate") or {}
    cert_html = (f"<div>certificate ({count_numbers(cert)} numbers):"
                 f"<pre>{escape(fmt.compact_json(cert))}</pre></div>") if cert else "<div>no certificate attached</div>"
    return (f"<p>Smallest counterexample of {e.refuting} refuting fixture(s): task "
            f"<code>{escape(str(r.get('task_id')))}</code>, {escape(str(r.get('label') or r.get('family')))} "
            f"({escape(str(r.get('fixture_kind')))}; {escape(fmt.params_text(r.get('params'), r.get('mutation')))}; "
            f"seed {fmt.esc(r.get('seed'))}); violation {fmt.esc(e.violation)} (minus the evidence's relative "
            f"slack; the failing comparisons give measured against predicted).</p>{table}{cert_html}"
            f"<div class=small>reproduce: <code>{escape(str(r.get('repro') or ''))}</code></div>")


def errata_html(errata: list[Erratum]) -> str:
    if not errata:
        return "<p>No claim is refuted as printed in these records.</p>"
    parts = []
    for e in errata:
        printed = _claim_column(e.view, "As printed")
        if e.amendments:
            amended = "".join(f'<div class="amended">{_claim_column(a, "Amended")}</div>' for a in e.amendments)
        else:
            amended = "<h4>Amended</h4><p class=muted>No amended claim is registered.</p>"
        parts.append(f'<div class="erratum" data-claim="{escape(e.view.id)}">'
                     f'<div class="sidebyside"><div>{printed}</div><div>{amended}</div></div>'
                     f"{_counterexample_html(e)}</div>")
    return "".join(parts)


def unreproduced_html(model: ReportModel) -> str:
    """Claims expected to be refuted as printed whose refutation these records did not find."""
    missing = [v for v in model.claims.values()
               if v.claim.get("expected") == S.ST_REFUTED and v.status["status"] != S.ST_REFUTED]
    if not missing:
        return ""
    items = "".join(f"<li>{fmt.claim_link(v.id)} {fmt.badge(v.display)}"
                    + (f" — {escape(str(v.claim.get('expected_reason')))}" if v.claim.get("expected_reason") else "")
                    + "</li>" for v in missing)
    return (f'<h3>Expected refutations not found ({len(missing)})</h3><ul class="unreproduced">{items}</ul>')
