"""The errata section: one table first (claim, kind, one line, evidence strength, second method), grouped
by kind so a reader tells false theorems from typos at a glance; then one collapsed card per erratum
with the printed and amended statements side by side and the smallest counterexample in plain words;
the paper-level Markdown summary (``verify errata PAPER``) to download; and, apart, the derived
statements that failed (findings about the derivation, not about the paper).

The counterexample shown is the refuting fixture (hypotheses met, conclusion failed, not a negative
control) whose certificate is smallest (fewest numbers; a fixture without certificate comes after),
ties broken by the largest violation (the most negative slack).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape

from .. import settings as S
from ..errata import errata_markdown
from . import fmt
from .mathml import first_line, label_html, plain_math_tex, prose_html, text_html
from .model import ClaimView, ReportModel, is_refuting

NO_ERRATUM = "refuted, no erratum recorded"


@dataclass
class Erratum:
    view: ClaimView
    counterexample: dict | None
    refuting: int
    violation: float | None
    failing: list[dict] = field(default_factory=list)
    amendments: list[ClaimView] = field(default_factory=list)
    positive: int = 0

    @property
    def record(self) -> dict | None:
        """The erratum declared beside the printed claim (kind, location, reading, ...), if any."""
        e = self.view.claim.get("erratum")
        return e if isinstance(e, dict) else None

    @property
    def root(self) -> str | None:
        """The claim whose erratum is the independent slip this one inherits (None for a root)."""
        r = (self.record or {}).get("root")
        return str(r) if r else None

    @property
    def kind(self) -> str:
        if self.view.claim.get("derived"):
            return "derived"
        return str((self.record or {}).get("kind") or NO_ERRATUM)


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
    """One entry per claim refuted in these records, or declared with an erratum, in catalogue order."""
    out = []
    for v in model.claims.values():
        if v.status["status"] != S.ST_REFUTED and not v.claim.get("erratum"):
            continue
        refuting = [r for r in v.results if is_refuting(r)]
        best = min(refuting, key=counterexample_key) if refuting else None
        failing = [c for c in ((best or {}).get("evidence") or {}).get("comparisons") or ()
                   if c.get("holds") is False and c.get("role", "conclusion") == "conclusion"]
        amendments = [a for a in model.claims.values() if a.claim.get("amends") == v.id]
        out.append(Erratum(v, best, len(refuting), violation(best) if best else None, failing, amendments,
                           len(v.positive)))
    return out


def _num(x: object) -> float | None:
    if isinstance(x, bool):
        return None
    try:
        f = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def failure_words(c: dict) -> str:
    """One failing comparison in plain words (HTML): measured against the printed bound, and the ratio."""
    name = label_html(c.get("name"))
    m, p, rel = c.get("measured"), c.get("predicted"), c.get("relation")
    mf, pf = _num(m), _num(p)
    count = f" (over {c['count']} elements)" if isinstance(c.get("count"), int) else ""
    if rel == "<=":
        ratio = f": {mf / pf:.3g} times the bound" if mf is not None and pf and pf > 0 and mf > 0 else ""
        return f"{name}: measured {fmt.esc(m)}, above the bound {fmt.esc(p)}{ratio}{count}"
    if rel == ">=":
        ratio = f": {mf / pf:.3g} of the bound" if mf is not None and pf and pf > 0 else ""
        return f"{name}: measured {fmt.esc(m)}, below the bound {fmt.esc(p)}{ratio}{count}"
    if rel == "==":
        off = f", off by {abs(mf - pf):.3g}" if mf is not None and pf is not None else ""
        return (f"{name}: measured {fmt.esc(m)} where {fmt.esc(p)} is predicted{off} "
                f"(tolerance {fmt.esc(c.get('tolerance'))}){count}")
    detail = f" ({prose_html(c['detail'])})" if c.get("detail") else ""
    return f"{name} is false{detail}{count}"


def strength_html(e: Erratum) -> str:
    """How strong the evidence is: how many fixtures refute, the worst violation in plain words."""
    if e.counterexample is None:
        st = e.view.status["status"]
        return f'<span class="bad">not refuted in these records</span> (status {escape(st)})'
    parts = [f"<b>{e.refuting} of {e.positive}</b> fixtures refute"]
    if e.failing:
        parts.append("worst: " + failure_words(e.failing[0]))
    return "; ".join(parts)


def independence_html(rec: dict) -> str:
    """What makes the second method independent; a same-method confirmation is said to be one, never
    shown as a second method."""
    ind = rec.get("independence")
    if not ind:
        return ""
    if ind == S.SAME_METHOD:
        return ('<span class="bad" title="a confirmation from the same run or integrator: not an independent '
                'second method">same-method confirmation (not a second method)</span>')
    return f'<span class="ok">{escape(str(ind))}</span>'


def _second_method(e: Erratum) -> str:
    rec = e.record or {}
    if e.kind == "derived":
        return '<span class="muted">derived by the harness (not printed)</span>'
    ind = independence_html(rec)
    if e.root and not rec.get("second_method"):
        return f'<span class="muted">inherited from {escape(e.root)}</span>'
    if rec.get("second_method"):
        if rec.get("independence") == S.SAME_METHOD:
            return f"{ind}: {text_html(first_line(plain_math_tex(rec['second_method'])))}"
        return f"{ind or '<span class=ok>recorded</span>'}: {text_html(first_line(plain_math_tex(rec['second_method'])))}"
    return '<span class="bad">none recorded</span>'


def _amended_cell(e: Erratum) -> str:
    if not e.amendments:
        return '<span class="muted">none registered</span>'
    return ", ".join(f"{fmt.claim_link(a.id)} {fmt.badge(a.display)}" for a in e.amendments)


def _one_line(e: Erratum) -> str:
    rec = e.record or {}
    text = rec.get("summary") or e.view.claim.get("expected_reason") or e.view.claim.get("derived") or ""
    # One line: its first sentence (or 160 characters, never inside a formula); the whole text is in the card.
    return text_html(first_line(plain_math_tex(text))) if text else '<span class="muted">no summary given</span>'


def by_root(errata: list[Erratum]) -> tuple[list[Erratum], dict[str, list[Erratum]]]:
    """The independent slips (errata without a root, or whose root is not in these records) and, per root,
    the statements that inherit its slip."""
    ids = {e.view.id for e in errata}
    children: dict[str, list[Erratum]] = {}
    roots = []
    for e in errata:
        if e.root and e.root in ids and e.root != e.view.id:
            children.setdefault(e.root, []).append(e)
        else:
            roots.append(e)
    return roots, children


def _erratum_row(e: Erratum, child: bool = False) -> str:
    warn = " " + fmt.mark("unexpected", "not as expected") if e.view.unexpected else ""
    inherits = (f'<div class="small muted">↳ inherits the slip of {fmt.claim_link(e.root)} '
                f"({escape(e.kind)})</div>" if child and e.root else "")
    cls = ' class="inherits"' if child else ""
    return (f'<tr data-claim="{escape(e.view.id)}"{cls}'
            + (f' data-root="{escape(e.root)}"' if child and e.root else "")
            + f"><td>{fmt.claim_link(e.view.id)} {fmt.badge(e.view.display)}{warn}{inherits}</td>"
            f"<td>{_one_line(e)}</td><td class=small>{strength_html(e)}</td>"
            f"<td class=small>{_second_method(e)}</td><td class=small>{_amended_cell(e)}</td></tr>")


def errata_table_html(errata: list[Erratum]) -> str:
    order = [*S.ERRATUM_KINDS, NO_ERRATUM]
    roots, children = by_root(errata)
    groups = {k: [e for e in roots if e.kind == k] for k in order}
    rows = []
    for kind in order:
        if not groups[kind]:
            continue
        n_inherit = sum(len(children.get(e.view.id, ())) for e in groups[kind])
        more = f", and {n_inherit} statement(s) inheriting them" if n_inherit else ""
        rows.append(f'<tr class="kind-row"><th colspan="5">{escape(kind)} ({len(groups[kind])} independent '
                    f"slip(s){more})</th></tr>")
        for e in groups[kind]:
            rows.append(_erratum_row(e))
            rows.extend(_erratum_row(c, child=True) for c in children.get(e.view.id, ()))
    return ('<table class="errata" id="errata-table"><colgroup><col style="width:17%"><col style="width:25%">'
            '<col style="width:28%"><col style="width:18%"><col style="width:12%"></colgroup>'
            "<thead><tr><th>claim</th><th>what is wrong (one line)</th><th>evidence strength</th>"
            f"<th>second method</th><th>amended claim</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")


def _statement_column(v: ClaimView, heading: str) -> str:
    warn = " " + fmt.mark("unexpected", "not as expected") if v.unexpected else ""
    return (f"<h4>{escape(heading)}: {fmt.claim_link(v.id)} {fmt.badge(v.display)}{warn}</h4>"
            f'<div class="statement">{text_html(v.claim.get("statement", ""))}</div>')


def _counterexample_html(e: Erratum) -> str:
    r = e.counterexample
    if r is None:
        return "<p>No refuting fixture in these records.</p>"
    ev = r.get("evidence") or {}
    items = "".join(f"<li>{failure_words(c)}</li>" for c in e.failing)
    cert = ev.get("certificate") or {}
    cert_html = (f"<details><summary>certificate ({count_numbers(cert)} numbers)</summary>"
                 f"<pre>{escape(fmt.compact_json(cert))}</pre></details>") if cert else "<div>no certificate attached</div>"
    return (f"<p>Smallest counterexample of {e.refuting} refuting fixture(s): "
            f"{escape(str(r.get('label') or r.get('family')))} "
            f"({escape(str(r.get('fixture_kind')))}; {escape(fmt.params_text(r.get('params'), r.get('mutation')))}; "
            f"seed {fmt.esc(r.get('seed'))}, task <code>{escape(str(r.get('task_id')))}</code>). "
            f"What fails there:</p><ul>{items or '<li>(no failing conclusion recorded)</li>'}</ul>{cert_html}"
            f"<div class=small>reproduce: <code>{escape(str(r.get('repro') or ''))}</code></div>")


def _record_html(e: Erratum) -> str:
    rec = e.record
    if not rec:
        return ""
    rows = [("kind", escape(str(rec.get("kind")))), ("what is wrong", prose_html(rec.get("summary"))),
            ("where printed", prose_html(rec.get("location"))),
            ("printed", f"<blockquote>{prose_html(rec.get('printed'))}</blockquote>"),
            ("reading taken", prose_html(rec.get("reading"))),
            ("second method", prose_html(rec.get("second_method"))
             + (f" <span class=small>({independence_html(rec)})</span>" if rec.get("independence") else ""))]
    if e.root:
        rows.insert(1, ("root", f"inherits the slip of {fmt.claim_link(e.root)}"))
    if rec.get("difference"):
        rows.append(("what the amendment changes", prose_html(rec["difference"])))
    return "<table class=kv>" + "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in rows) + "</table>"


def errata_cards_html(errata: list[Erratum], store=None) -> str:
    """One folded card per erratum; with a :class:`~.html.LazyStore`, its body is stored compressed and
    inflated when the card is opened."""
    parts = []
    for e in errata:
        if e.amendments:
            amended = "".join(f'<div class="amended">{_statement_column(a, "Amended")}</div>' for a in e.amendments)
        else:
            amended = "<h4>Amended</h4><p class=muted>No amended claim is registered.</p>"
        body = (f'<div class="sidebyside"><div>{_statement_column(e.view, "As printed")}</div>'
                f"<div>{amended}</div></div>{_record_html(e)}{_counterexample_html(e)}")
        parts.append(
            f'<details class="erratum" data-claim="{escape(e.view.id)}"><summary>{fmt.claim_link(e.view.id)} '
            f"{fmt.badge(e.view.display)} <span class=muted>{escape(e.kind)}</span> — {_one_line(e)}</summary>"
            + (store.add(body) if store is not None else body) + "</details>")
    return "".join(parts)


def markdown_html(model: ReportModel, store=None) -> str:
    """Each paper's errata summary as ``verify errata PAPER`` prints it: a download and a folded copy
    (stored compressed with a :class:`~.html.LazyStore`)."""
    statuses = {cid: v.status for cid, v in model.claims.items()}
    parts = []
    for paper in model.papers:
        views = model.of_paper(paper)
        claims = [v.claim for v in views]
        if not any(c.get("erratum") or c.get("derived") for c in claims) and \
                not any(v.status["status"] == S.ST_REFUTED for v in views):
            continue
        md = errata_markdown(paper, claims, statuses)
        href = fmt.data_uri(md, "text/markdown;charset=utf-8", also="<>'")  # text of records: no markup
        pre = f"<pre>{escape(md)}</pre>"
        parts.append(f'<li><a download="errata-{escape(paper)}.md" href="{href}">'
                     f"errata-{escape(paper)}.md</a>"
                     f' <details class="small"><summary>show the Markdown</summary>'
                     f"{store.add(pre) if store is not None else pre}</details></li>")
    if not parts:
        return ""
    return ("<h3>Summaries for a review</h3><p class=small>The same text as <code>verify errata PAPER</code>, "
            f"with this report's outcomes, ready to paste into a review:</p><ul>{''.join(parts)}</ul>")


def derived_html(model: ReportModel) -> str:
    """Derived statements (the harness's own, not the paper's) that failed: findings about a derivation."""
    failed = [v for v in model.claims.values() if v.claim.get("derived") and v.status["status"] == S.ST_REFUTED]
    if not failed:
        return ""
    rows = "".join(f"<tr><td>{fmt.claim_link(v.id)} {fmt.badge(v.display)}</td><td>{prose_html(v.claim.get('derived'))}</td>"
                   f"<td class=small>{prose_html(v.claim.get('expected_reason') or '')}</td></tr>" for v in failed)
    return (f'<h3 id="derived">Findings about the derivation ({len(failed)})</h3><p class=small>Statements the '
            "harness derived (a reconstructed proof step, a stronger reading) that failed. They are not errata of "
            "the paper.</p><table class=errata><thead><tr><th>claim</th><th>what was derived</th><th>why it fails"
            f"</th></tr></thead><tbody>{rows}</tbody></table>")


def unreproduced_html(model: ReportModel) -> str:
    """Claims expected to be refuted as printed whose refutation these records did not find."""
    missing = [v for v in model.claims.values()
               if v.claim.get("expected") == S.ST_REFUTED and v.status["status"] != S.ST_REFUTED]
    if not missing:
        return ""
    items = "".join(f"<li>{fmt.claim_link(v.id)} {fmt.badge(v.display)}"
                    + (f" — {prose_html(v.claim.get('expected_reason'))}" if v.claim.get("expected_reason") else "")
                    + "</li>" for v in missing)
    return f'<h3>Expected refutations not found ({len(missing)})</h3><ul class="unreproduced">{items}</ul>'


def errata_section_html(model: ReportModel, *, store=None) -> str:
    errata = [e for e in find_errata(model) if e.kind != "derived"]
    roots, children = by_root(errata)
    ordered = [x for e in roots for x in (e, *children.get(e.view.id, ()))]  # each root, then what inherits it
    body = (f'<p class="small">{len(roots)} independent slip(s); {len(errata)} statement(s) affected. A statement '
            "that inherits a slip is listed under its root.</p>"
            + errata_table_html(errata) + markdown_html(model, store) + "<h3>Each erratum</h3>"
            + errata_cards_html(ordered, store)
            if errata else "<p>No claim is refuted as printed in these records.</p>")
    return (f'<section id="errata"><h2>Errata ({len(errata)})</h2>{body}{derived_html(model)}'
            f"{unreproduced_html(model)}</section>")
