"""The report page: overview, errata, claim table with filters, dependency graphs, claim sections.

Everything taken from records is escaped here or in :mod:`.fmt` / :mod:`.latex`; the page loads
nothing from outside (inline CSS, inline JS, plots as data URIs).
"""

from __future__ import annotations

import time
from html import escape
from urllib.parse import urlencode

from .. import settings as S
from ..verdicts import paper_counts
from . import fmt
from .errata import errata_html, find_errata, unreproduced_html
from .graph import dependency_svg
from .latex import statement_html
from .model import ClaimView, ReportModel
from .plots import PlotBudget, claim_plots
from .theme import CSS, OVERVIEW_STATUSES, STATUS_COLOURS, slug, status_classes_css

MAX_TRACEBACK_CHARS = 6000  # the end of a traceback says where it failed
MAX_REPRO_LINES = 5


def _hash_link(paper: str | None, status: str | None) -> str:
    q = {k: v for k, v in (("paper", paper), ("status", slug(status) if status else None)) if v}
    return "#" + urlencode(q)


def header_html(model: ReportModel, title: str) -> str:
    runs = []
    for r in model.runs:
        bits = [f"{k}: {fmt.number(v)}" for k, v in r.items() if k not in ("type", "versions")]
        vers = r.get("versions")
        if isinstance(vers, dict):
            bits.append("versions: " + ", ".join(f"{k} {v}" for k, v in vers.items()))
        runs.append(f"<li>{escape('; '.join(bits))}</li>")
    ends = [f"<li>{escape(fmt.compact_json({k: v for k, v in e.items() if k != 'type'}, 400))}</li>"
            for e in model.ends]
    n_results = sum(len(v.results) for v in model.claims.values())
    return (f"<header><h1>{escape(title)}</h1>"
            f'<p class="muted">{len(model.claims)} claims, {n_results} fixture results, '
            f"{len(model.papers)} paper(s); rendered {escape(time.strftime('%Y-%m-%d %H:%M:%S %z'))}.</p>"
            f"<details><summary>Runs ({len(model.runs)}) and run ends ({len(model.ends)})</summary>"
            f"<ul class=small>{''.join(runs)}</ul><ul class=small>{''.join(ends)}</ul></details>"
            '<nav><a href="#overview">Overview</a><a href="#errata">Errata</a><a href="#claims">Claims</a>'
            '<a href="#graphs">Dependency graphs</a><a href="#details">Claim details</a></nav></header>')


def overview_html(model: ReportModel) -> str:
    statuses = {cid: v.status for cid, v in model.claims.items()}
    counts = paper_counts(statuses)
    shown = [s for s in OVERVIEW_STATUSES if s != S.NOT_RUN or any(c.get(S.NOT_RUN) for c in counts.values())]
    head = "".join(f"<th>{fmt.badge(s)}</th>" for s in shown)
    rows = []
    for paper in model.papers:
        c = counts.get(paper, {})
        views = model.of_paper(paper)
        cells = "".join(
            f'<td class="num" data-status="{escape(slug(s))}">'
            + (f'<a href="{escape(_hash_link(paper, s))}">{c.get(s, 0)}</a>' if c.get(s) else "0") + "</td>"
            for s in shown)
        off = sum(1 for v in views if v.unexpected)
        rows.append(f'<tr data-paper="{escape(paper)}"><th><a href="{escape(_hash_link(paper, None))}">'
                    f"{escape(paper)}</a></th>{cells}<td class=num>{len(views)}</td>"
                    f'<td class="num{" unexpected" if off else ""}">{off}</td></tr>')
    return (f'<section id="overview"><h2>Overview</h2><table id="overview-table"><tr><th>paper</th>{head}'
            f"<th>total</th><th>not as expected</th></tr>{''.join(rows)}</table>"
            '<p class="small muted">“verified” counts every verified claim; “fully verified” those whose '
            "dependencies are all verified too.</p></section>")


def _verdict_counts(v: ClaimView) -> str:
    counts = v.status.get("counts") or {}
    return " · ".join(f"{n} {fmt.verdict(k)}" for k, n in sorted(counts.items(), key=lambda kv: S.VERDICT_RANK.get(kv[0], 9)))


def _data_attrs(v: ClaimView) -> str:
    return (f'data-id="{escape(v.id)}" data-paper="{escape(v.paper)}" data-status="{escape(slug(v.display))}" '
            f'data-statuses="{escape(" ".join(slug(s) for s in v.status_set))}"')


def claim_table_html(model: ReportModel) -> str:
    paper_opts = "".join(f'<option value="{escape(p)}">{escape(p)}</option>' for p in model.papers)
    present = {s for v in model.claims.values() for s in v.status_set}
    status_opts = "".join(f'<option value="{escape(slug(s))}">{escape(s)}</option>'
                          for s in OVERVIEW_STATUSES if s in present)
    rows = []
    for v in model.claims.values():
        nc = v.status.get("negative_controls") or {}
        controls = f"{nc.get('caught', 0)}/{nc.get('total', 0)}" if nc.get("total") else "—"
        expected = escape(str(v.claim.get("expected") or ""))
        mark = '<span class="unexpected">✗ no</span>' if v.unexpected else '<span class="ok">✓</span>'
        rows.append(f"<tr {_data_attrs(v)}><td>{fmt.claim_link(v.id)}</td><td>{escape(v.paper)}</td>"
                    f"<td>{escape(str(v.claim.get('kind', '')))}</td><td>{escape(str(v.claim.get('title') or ''))}</td>"
                    f"<td>{fmt.badge(v.display)}</td><td>{expected}</td><td>{mark}</td>"
                    f"<td class=small>{_verdict_counts(v)}</td><td class=num>{controls}</td></tr>")
    return (
        '<section id="claims"><h2>Claims</h2><div class="filters">'
        f'<label for="filter-paper">paper</label><select id="filter-paper"><option value="">all</option>{paper_opts}</select>'
        f'<label for="filter-status">status</label><select id="filter-status"><option value="">all</option>{status_opts}</select>'
        '<label for="filter-text">id contains</label><input id="filter-text" type="search" size="18">'
        f'<span id="filter-count" data-shown="{len(model.claims)}">{len(model.claims)} of {len(model.claims)} claims shown</span>'
        '<button type="button" id="expand-all">expand shown</button><button type="button" id="collapse-all">collapse all</button>'
        '</div><table id="claim-table"><thead><tr><th>claim</th><th>paper</th><th>kind</th><th>title</th><th>status</th>'
        "<th>expected</th><th>as expected</th><th>fixture verdicts</th><th>controls caught</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></section>")


def graphs_html(model: ReportModel) -> str:
    legend = "".join(f'<span class="badge st-{escape(slug(s))}">{escape(s)}</span>' for s in STATUS_COLOURS)
    parts = ['<section id="graphs"><h2>Dependency graphs</h2>'
             f'<p class="legend small">{legend} <span class="muted">dashed: not checkable, or a claim of another paper (grey text: not in this report); '
             "arrows run from a dependency to the claim that uses it; click a node to open its claim.</span></p>"]
    for k, paper in enumerate(model.papers):
        svg = dependency_svg(model.of_paper(paper), paper, k, model.claims)
        parts.append(f'<h3 id="graph-{escape(paper)}">{escape(paper)}</h3><div class="graph">{svg}</div>')
    parts.append("</section>")
    return "".join(parts)


def _hypotheses_html(v: ClaimView) -> str:
    declared = v.claim.get("hypotheses") or []
    names = [str(h.get("name")) for h in declared if isinstance(h, dict)]
    for r in v.results:
        for h in r.get("hypotheses") or ():
            if h.get("name") not in names:
                names.append(str(h.get("name")))
    if not names:
        return "<p class=muted>No hypotheses declared.</p>"
    items = "".join(f"<li><b>{escape(str(h.get('name')))}</b>"
                    + (f": {statement_html(str(h.get('description')))}" if h.get("description") else "") + "</li>"
                    for h in declared if isinstance(h, dict))
    if not v.results:
        return f"<ul>{items}</ul>"
    head = "".join(f"<th>{escape(n)}</th>" for n in names)
    rows = []
    for r in v.results:
        got = {str(h.get("name")): h for h in r.get("hypotheses") or ()}
        cells = []
        for n in names:
            h = got.get(n)
            if h is None:
                cells.append('<td class="muted">not checked</td>')
                continue
            cells.append(f'<td title="{escape(str(h.get("detail") or ""))}">{fmt.holds_mark(h.get("holds"))} '
                         f'<span class="small">slack {fmt.esc(h.get("slack"))}</span>'
                         + (f'<div class="small muted">{escape(str(h["detail"]))}</div>' if h.get("detail") else "")
                         + "</td>")
        rows.append(f"<tr><td><code>{escape(str(r.get('task_id')))}</code> {escape(str(r.get('label') or r.get('family')))}"
                    f"</td>{''.join(cells)}</tr>")
    return (f"<ul>{items}</ul><table><tr><th>fixture</th>{head}</tr>{''.join(rows)}</table>")


def _fixtures_html(v: ClaimView) -> str:
    if not v.results:
        declared = v.claim.get("fixtures") or []
        if not declared:
            return "<p class=muted>No fixture was run.</p>"
        items = "".join(f"<li>{escape(str(u.get('label') or u.get('family')))} ({escape(str(u.get('kind')))}; "
                        f"{escape(fmt.params_text(u.get('params'), u.get('mutation')))})</li>"
                        for u in declared if isinstance(u, dict))
        return f"<p class=muted>No fixture was run in these records. Declared fixtures:</p><ul>{items}</ul>"
    rows = []
    for r in v.results:
        ok = r.get("as_expected", True)
        rows.append(
            f"<tr><td><code>{escape(str(r.get('task_id')))}</code></td><td>{escape(str(r.get('label') or ''))}</td>"
            f"<td class=mono>{escape(str(r.get('family')))}</td><td>{escape(str(r.get('fixture_kind')))}</td>"
            f"<td class=small>{escape(fmt.params_text(r.get('params'), r.get('mutation')))}</td>"
            f"<td class=num>{fmt.esc(r.get('seed'))}</td><td>{fmt.verdict(r.get('verdict'))}</td>"
            f"<td class=small>{escape(', '.join(map(str, r.get('expected') or [])))}</td>"
            f"<td>{'<span class=ok>✓</span>' if ok else '<span class=unexpected>✗ no</span>'}</td>"
            f"<td class=num>{fmt.esc((r.get('evidence') or {}).get('slack'))}</td>"
            f"<td class=num>{fmt.esc(r.get('duration_s'))}</td>"
            f"<td class=small>{escape(str(r.get('reason') or ''))}</td></tr>")
    return ("<table><tr><th>task</th><th>fixture</th><th>family</th><th>kind</th><th>params</th><th>seed</th>"
            "<th>verdict</th><th>expected</th><th>as expected</th><th>slack</th><th>time (s)</th><th>reason</th></tr>"
            f"{''.join(rows)}</table>")


def _evidence_block(r: dict) -> str:
    ev = r.get("evidence") or {}
    parts = []
    comps = ev.get("comparisons") or []
    if comps:
        rows = "".join(
            f"<tr><td>{escape(str(c.get('name')))}</td><td class=num>{fmt.esc(c.get('measured'))}</td>"
            f"<td class=mono>{escape(str(c.get('relation')))}</td><td class=num>{fmt.esc(c.get('predicted'))}</td>"
            f"<td class=num>{fmt.esc(c.get('tolerance'))}</td><td class=num>{fmt.esc(c.get('slack'))}</td>"
            f"<td>{fmt.holds_mark(c.get('holds'))}</td><td class=small>{escape(str(c.get('detail') or ''))}</td></tr>"
            for c in comps)
        parts.append("<table><tr><th>comparison</th><th>measured</th><th></th><th>predicted</th><th>tolerance</th>"
                     f"<th>slack</th><th>holds</th><th>detail</th></tr>{rows}</table>")
    elif r.get("evidence") is None:
        parts.append("<p class=muted>No evidence (the check did not return).</p>")
    if ev.get("quantities"):
        rows = "".join(f"<tr><td>{escape(str(k))}</td><td class=num>{fmt.esc(q)}</td></tr>"
                       for k, q in ev["quantities"].items())
        parts.append(f"<table class=kv><tr><th>quantity</th><th>value</th></tr>{rows}</table>")
    if ev.get("certificate"):
        parts.append(f"<div>certificate:<pre>{escape(fmt.compact_json(ev['certificate']))}</pre></div>")
    if ev.get("notes"):
        parts.append("<ul>" + "".join(f"<li>{escape(str(n))}</li>" for n in ev["notes"]) + "</ul>")
    if ev.get("inconclusive_reason"):
        parts.append(f"<p>inconclusive: {escape(str(ev['inconclusive_reason']))}</p>")
    if r.get("reason"):
        parts.append(f"<p>reason: {escape(str(r['reason']))}</p>")
    if r.get("traceback"):
        tb = str(r["traceback"])
        tb = tb if len(tb) <= MAX_TRACEBACK_CHARS else "… " + tb[-MAX_TRACEBACK_CHARS:]
        parts.append(f"<pre>{escape(tb)}</pre>")
    parts.append(f"<div class=small>reproduce: <code>{escape(str(r.get('repro') or ''))}</code></div>")
    opened = " open" if not r.get("as_expected", True) else ""
    return (f'<details class="fixture"{opened}><summary><code>{escape(str(r.get("task_id")))}</code> '
            f"{escape(str(r.get('label') or r.get('family')))} ({escape(str(r.get('fixture_kind')))}, seed "
            f"{fmt.esc(r.get('seed'))}): {fmt.verdict(r.get('verdict'))}</summary>{''.join(parts)}</details>")


def _repro_command(v: ClaimView) -> str:
    """The claim's command, then the exact command of each fixture whose outcome was not as expected."""
    lines = [f"verify run {v.id}"]
    off = [r for r in v.results if not r.get("as_expected", True) and r.get("repro")]
    lines += [f"{r['repro']}    # task {r.get('task_id')}: {r.get('verdict')}, expected "
              f"{'/'.join(map(str, r.get('expected') or []))}" for r in off[:MAX_REPRO_LINES]]
    if len(off) > MAX_REPRO_LINES:
        lines.append(f"# … {len(off) - MAX_REPRO_LINES} more in the evidence above")
    return "<pre>" + escape("\n".join(lines)) + "</pre>"


def _dependencies_html(v: ClaimView, model: ReportModel) -> str:
    def links(ids: list[str]) -> str:
        if not ids:
            return "<span class=muted>none</span>"
        return ", ".join(fmt.claim_link(c, c in model.claims)
                         + (f" {fmt.badge(model.claims[c].display)}" if c in model.claims else " (not in this report)")
                         for c in ids)
    uses = [u for u in v.claim.get("uses") or () if isinstance(u, str)]
    amends = v.claim.get("amends")
    amended_by = [a.id for a in model.claims.values() if a.claim.get("amends") == v.id]
    extra = ""
    if amends:
        extra += f"<div>amends: {links([amends])}</div>"
    if amended_by:
        extra += f"<div>amended by: {links(amended_by)}</div>"
    return f"<div>uses: {links(uses)}</div><div>used by: {links(v.used_by)}</div>{extra}"


def _kv_html(v: ClaimView) -> str:
    c, st = v.claim, v.status
    nc = st.get("negative_controls") or {}
    rows = [("status", fmt.badge(v.display) + ("" if not v.unexpected else ' <span class="unexpected">not as expected</span>'))]
    if c.get("expected"):
        rows.append(("expected", escape(str(c["expected"])) + (f" — {escape(str(c.get('expected_reason')))}"
                                                            if c.get("expected_reason") else "")))
    if not c.get("checkable", True):
        rows.append(("not checkable", escape(str(c.get("reason") or ""))))
    for key, label in (("proxy", "proxy evidence"), ("judged_by", "judged by"), ("source", "source"),
                       ("timeout_s", "time limit (s)")):
        if c.get(key):
            rows.append((label, fmt.esc(c[key])))
    if c.get("tags"):
        rows.append(("tags", escape(", ".join(map(str, c["tags"])))))
    if nc.get("total"):
        rows.append(("negative controls caught", f"{nc.get('caught', 0)} of {nc.get('total')}"))
    if st.get("counts"):
        rows.append(("fixture verdicts", _verdict_counts(v)))
    return "<table class=kv>" + "".join(f"<tr><td>{k}</td><td>{val}</td></tr>" for k, val in rows) + "</table>"


def claim_section_html(v: ClaimView, model: ReportModel, budget: PlotBudget) -> str:
    title = f" — {escape(str(v.claim['title']))}" if v.claim.get("title") else ""
    warn = ' <span class="unexpected">not as expected</span>' if v.unexpected else ""
    statement = str(v.claim.get("statement") or "")
    plots = claim_plots(v.results, budget)
    plot_html = ""
    if plots:
        figs = "".join(
            f'<figure><img alt="{escape(p.name)}" src="{p.data_uri}"><figcaption>{escape(p.name)}</figcaption></figure>'
            if p.data_uri else f'<p class="small muted">{escape(p.name)}: {escape(p.note)}</p>' for p in plots)
        plot_html = f'<h4>Plots</h4><div class="plots">{figs}</div>'
    evidence = "".join(_evidence_block(r) for r in v.results)
    return (
        f'<details class="claim" id="claim-{escape(v.id)}" {_data_attrs(v)}>'
        f'<summary><span class="cid">{escape(v.id)}</span> <span class="muted">{escape(str(v.claim.get("kind", "")))}'
        f"</span>{title} {fmt.badge(v.display)}{warn}</summary>"
        f'<div class="statement">{statement_html(statement)}</div>'
        f'<details class="small"><summary>statement source</summary><code>{escape(statement)}</code></details>'
        f"{_kv_html(v)}<h4>Dependencies</h4>{_dependencies_html(v, model)}"
        f"<h4>Hypotheses and how each was checked</h4>{_hypotheses_html(v)}"
        f"<h4>Fixtures</h4>{_fixtures_html(v)}"
        + (f"<h4>Evidence per fixture</h4>{evidence}" if evidence else "")
        + plot_html
        + (f"<h4>Reproduce</h4>{_repro_command(v)}" if v.claim.get("checkable", True) else "")
        + "</details>")


def details_html(model: ReportModel, budget: PlotBudget) -> str:
    parts = ['<section id="details"><h2>Claim details</h2>']
    for paper in model.papers:
        parts.append(f"<h3>{escape(paper)}</h3>")
        parts.extend(claim_section_html(v, model, budget) for v in model.of_paper(paper))
    parts.append("</section>")
    return "".join(parts)


SCRIPT = """
(function () {
  var rows = Array.prototype.slice.call(document.querySelectorAll('#claim-table tbody tr'));
  var secs = Array.prototype.slice.call(document.querySelectorAll('details.claim'));
  var fp = document.getElementById('filter-paper'), fs = document.getElementById('filter-status');
  var ft = document.getElementById('filter-text'), count = document.getElementById('filter-count');
  function slug(s) { return String(s).trim().split(/\\s+/).join('-'); }
  function matches(el) {
    var t = ft.value.trim().toLowerCase();
    return (!fp.value || el.getAttribute('data-paper') === fp.value) &&
      (!fs.value || el.getAttribute('data-statuses').split(' ').indexOf(fs.value) >= 0) &&
      (!t || el.getAttribute('data-id').toLowerCase().indexOf(t) >= 0);
  }
  function apply() {
    var shown = 0;
    rows.forEach(function (r) { var m = matches(r); r.hidden = !m; if (m) { shown++; } });
    secs.forEach(function (s) { s.hidden = !matches(s); });
    count.textContent = shown + ' of ' + rows.length + ' claims shown';
    count.setAttribute('data-shown', String(shown));
  }
  function openClaim(id) {
    var d = document.getElementById('claim-' + id);
    if (!d) { return; }
    d.hidden = false; d.open = true;
    if (d.scrollIntoView) { d.scrollIntoView(); }
  }
  function readHash() {
    var raw = location.hash.replace(/^#/, '');
    if (!raw) { return; }
    if (raw.indexOf('=') < 0) {
      var name = decodeURIComponent(raw);
      if (name.indexOf('claim-') === 0) { openClaim(name.slice(6)); }
      return;
    }
    var q = new URLSearchParams(raw);
    fp.value = q.get('paper') || '';
    fs.value = q.get('status') ? slug(q.get('status')) : '';
    ft.value = q.get('q') || '';
    apply();
    if (q.get('open')) { openClaim(q.get('open')); }
  }
  function writeHash() {
    var q = new URLSearchParams();
    if (fp.value) { q.set('paper', fp.value); }
    if (fs.value) { q.set('status', fs.value); }
    if (ft.value.trim()) { q.set('q', ft.value.trim()); }
    var h = q.toString();
    if (history.replaceState) { history.replaceState(null, '', h ? '#' + h : location.pathname + location.search); }
  }
  [fp, fs].forEach(function (el) { el.addEventListener('change', function () { apply(); writeHash(); }); });
  ft.addEventListener('input', function () { apply(); writeHash(); });
  document.getElementById('expand-all').addEventListener('click', function () {
    secs.forEach(function (s) { if (!s.hidden) { s.open = true; } });
  });
  document.getElementById('collapse-all').addEventListener('click', function () {
    secs.forEach(function (s) { s.open = false; });
  });
  window.addEventListener('hashchange', readHash);
  apply();
  readHash();
  document.body.setAttribute('data-ready', '1');
})();
"""


def page_html(model: ReportModel, title: str, *, plot_budget: PlotBudget | None = None) -> str:
    budget = plot_budget or PlotBudget()
    errata = find_errata(model)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}\n{status_classes_css()}</style></head><body>"
        f"{header_html(model, title)}<main>{overview_html(model)}"
        f'<section id="errata"><h2>Errata ({len(errata)})</h2>{errata_html(errata)}'
        f"{unreproduced_html(model)}</section>"
        f"{claim_table_html(model)}{graphs_html(model)}{details_html(model, budget)}</main>"
        f"<script>{SCRIPT}</script></body></html>\n")
