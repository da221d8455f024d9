"""The report page: banner of unexpected outcomes, overview, errata, the claims table (sortable,
filterable), dependency graphs and one collapsed card per claim.

Everything taken from records is escaped here or in :mod:`.fmt` / :mod:`.mathml`; the page loads
nothing from outside (inline CSS, inline JS, math as MathML, plots as SVG data URIs). The body of each
claim card and erratum card is stored gzipped, many cards to a stream, and inflated by the page's script
when the card is opened (:class:`LazyStore`); ``lazy=False`` writes it as plain HTML.
"""

from __future__ import annotations

import base64
import gzip
import shlex
import time
from html import escape
from urllib.parse import urlencode

from .. import settings as S
from ..verdicts import paper_counts
from . import fmt
from .errata import errata_section_html
from .graph import anchor, dependency_svg
from .mathml import first_line, label_html, prose_html, text_html
from .model import ClaimView, ReportModel
from .plots import Draw, PlotBudget, claim_plots, draw_plot
from .script import SCRIPT
from .theme import BANNER_ORDER, CSS, OVERVIEW_STATUSES, STATUS_COLOURS, slug, status_classes_css

MAX_TRACEBACK_CHARS = 6000  # the end of a traceback says where it failed
MAX_REPRO_LINES = 5
RUN_FIELDS = ("host", "profile", "seed", "executor", "jobs", "commit", "started", "tasks", "selectors")


def _hash_link(**q: str | None) -> str:
    return "#" + urlencode({k: v for k, v in q.items() if v})


# --- header, banner, overview -----------------------------------------------------------------------


def runs_html(model: ReportModel) -> str:
    if not model.runs:
        return "<p class=muted>No run line in these records.</p>"
    head = "".join(f"<th>{k}</th>" for k in RUN_FIELDS)
    rows = []
    for n, r in enumerate(model.runs, 1):
        cells = "".join(f"<td>{fmt.esc(r.get(k))}</td>" for k in RUN_FIELDS)
        vers = r.get("versions")
        tip = ", ".join(f"{k} {v}" for k, v in vers.items()) if isinstance(vers, dict) else ""
        rows.append(f'<tr title="{escape(tip)}"><th>run {n}</th><td class=mono>{fmt.esc(r.get("run_id"))}</td>{cells}</tr>')
    ends = "".join(f"<li>{escape(fmt.compact_json({k: v for k, v in e.items() if k != 'type'}, 400))}</li>"
                   for e in model.ends)
    return (f'<div class="scroll"><table id="runs"><tr><th></th><th>run id</th>{head}</tr>{"".join(rows)}</table></div>'
            f"<ul class=small>{ends}</ul>")


def header_html(model: ReportModel, title: str) -> str:
    n_results = sum(len(v.results) for v in model.claims.values())
    return (f"<header><h1>{escape(title)}</h1>"
            f'<p class="muted">{len(model.claims)} claims, {n_results} fixture results, '
            f"{len(model.papers)} paper(s), {len(model.runs)} run(s); rendered "
            f"{escape(time.strftime('%Y-%m-%d %H:%M:%S %z'))}.</p>"
            f"<details><summary>Runs ({len(model.runs)}): host, seed, profile, executor, commit</summary>"
            f"{runs_html(model)}</details>"
            '<nav><a href="#overview">Overview</a><a href="#errata">Errata</a><a href="#claims">Claims</a>'
            '<a href="#graphs">Dependency graphs</a><a href="#details">Claim details</a></nav></header>')


def _why_unexpected(v: ClaimView) -> str:
    st = v.status["status"]
    nc = v.status.get("negative_controls") or {}
    if st == S.UNGUARDED:
        return (f"no negative control that the check refutes ({nc.get('total', 0)} control(s), "
                f"{nc.get('powered', 0)} powered): its power is not shown")
    off = [r for r in v.results if not r.get("as_expected", True)]
    if not off and st == S.VERIFIED and v.cannot_fail:
        return ("cannot fail here: the printed conclusion held on every fixture and every probe of this run, so "
                "the pass shows nothing; add a control that breaks a hypothesis and on which the conclusion fails, "
                "or declare fidelity=\"definitional\" or cannot_fail=\"reason\"")
    if off:
        r = off[0]
        more = f" (and {len(off) - 1} more)" if len(off) > 1 else ""
        reason = f": {r['reason']}" if r.get("reason") else ""
        return escape(f"{r.get('fixture_kind')} fixture {r.get('label')} [{r.get('task_id')}] gave "
                      f"{r.get('verdict')}, expected {'/'.join(map(str, r.get('expected') or []))}{reason}"[:300]) + more
    if v.claim.get("expected"):
        return escape(f"recorded expectation: {v.claim['expected']}")
    return ""


def banner_html(model: ReportModel) -> str:
    off = [v for v in model.claims.values() if v.unexpected]
    if not off:
        return ('<div class="banner good" id="banner"><h2>Every outcome as expected</h2><p class=small>'
                "Every claim is verified or has its recorded expectation (a printed statement refuted, with its "
                "erratum).</p></div>")
    rank = {s: i for i, s in enumerate(BANNER_ORDER)}
    off.sort(key=lambda v: rank.get(v.status["status"], len(rank)))
    items = "".join(f'<li data-id="{escape(v.id)}"><a href="{escape(anchor(v.id))}">{escape(v.id)}</a> '
                    f"{fmt.badge(v.display)}"
                    + (f" <span class=small>(expected {escape(str(v.claim['expected']))})</span>"
                       if v.claim.get("expected") else "")
                    + f" <span class=small>{_why_unexpected(v)}</span></li>" for v in off)
    return (f'<div class="banner" id="banner" role="alert"><h2>{len(off)} outcome(s) not as expected</h2>'
            f'<p class=small><a href="{escape(_hash_link(unexpected="1"))}">Show only these in the claims table</a>. '
            "Unguarded claims come first: a pass means nothing until a control shows the check can fail.</p>"
            f"<ul>{items}</ul></div>")


def overview_html(model: ReportModel) -> str:
    statuses = {cid: v.status for cid, v in model.claims.items()}
    counts = paper_counts(statuses)
    # A status no paper has gets no column (the table must fit a 1280 px window); verified ones always do.
    shown = [s for s in OVERVIEW_STATUSES
             if s in (S.VERIFIED, S.FULLY_VERIFIED) or any(c.get(s) for c in counts.values())]
    head = "".join(f"<th>{fmt.badge(s)}</th>" for s in shown)
    rows = []
    for paper in model.papers:
        c = counts.get(paper, {})
        views = model.of_paper(paper)
        cells = "".join(
            f'<td class="num" data-status="{escape(slug(s))}">'
            + (f'<a href="{escape(_hash_link(paper=paper, status=slug(s)))}">{c.get(s, 0)}</a>' if c.get(s) else "0")
            + "</td>" for s in shown)
        loose = c.get(S.LOOSE, 0)
        off = c.get(S.UNEXPECTED, 0)
        loose_cell = f'<a href="{escape(_hash_link(paper=paper, loose="1"))}">{loose}</a>' if loose else "0"
        off_cell = (f'<a class="unexpected" href="{escape(_hash_link(paper=paper, unexpected="1"))}">{off}</a>'
                    if off else "0")
        cf = c.get(S.CANNOT_FAIL, 0)
        cf_cell = f'<a href="{escape(_hash_link(paper=paper, cannotfail="1"))}">{cf}</a>' if cf else "0"
        rows.append(f'<tr data-paper="{escape(paper)}"><th><a href="{escape(_hash_link(paper=paper))}">'
                    f"{escape(paper)}</a></th>{cells}<td class=num data-status=loose>{loose_cell}</td>"
                    f"<td class=num data-status=cannot-fail-here>{cf_cell}</td>"
                    f"<td class=small data-count=fidelity>{_fidelity_counts(c)}</td>"
                    f'<td class=num data-count=hypotheses title="hypotheses shown necessary (a control breaking it on '
                    f'which the printed conclusion failed) of those broken by some control, summed over claims">'
                    f"{c.get('hypotheses shown necessary', 0)} / {c.get('hypotheses broken', 0)}</td>"
                    f'<td class=num data-count=errata title="independent slips (errata without a root) / statements '
                    f'affected (every statement carrying an erratum)">{c.get("independent slips", 0)} / '
                    f"{c.get('statements affected', 0)}</td>"
                    f'<td class=num data-count=coverage title="the paper’s own statements: numbered, or registered by verify init; '
                    f'encoded (checkable) of registered; not yet encoded; not checkable; verified">{c.get("numbered encoded", 0)} of '
                    f'{c.get("numbered statements", 0)}<br><span class="small muted">{c.get("numbered not yet encoded", 0)} '
                    f'pending · {c.get("numbered not checkable", 0)} not checkable · {c.get("numbered verified", 0)} '
                    f"verified</span></td>"
                    f"<td class=num>{len(views)}</td><td class=num data-status=unexpected>{off_cell}</td></tr>")
    pending = sorted(cid for cid, st in statuses.items() if st.get("pending"))
    pending_html = (f'<p class="small">Not yet encoded ({len(pending)}): '
                    + ", ".join(fmt.claim_link(cid) for cid in pending) + "</p>") if pending else ""
    return (f'<section id="overview"><h2>Overview</h2><div class="scroll"><table id="overview-table"><tr><th>paper</th>'
            f"{head}<th>{fmt.mark('loose', 'loose')}</th><th>{fmt.mark('cannot-fail', S.CANNOT_FAIL)}</th>"
            "<th>verified, by fidelity</th><th>hypotheses shown necessary / broken</th>"
            "<th>errata: slips / statements</th><th>coverage: statements of the paper encoded</th><th>total</th>"
            "<th>not as expected</th></tr>"
            f"{''.join(rows)}</table></div>{pending_html}"
            '<p class="small muted">“verified” counts every verified claim; “fully verified” those declared '
            f"faithful, without the mark “cannot fail here”, whose dependencies are all fully verified too; “loose”: verified claims with a conclusion on a printed bound or "
            f"constant that had more than {S.LOOSE_ROOM:g}× room on every fixture that judged it and no rate check "
            "pinning its exponent (a constant wrong by that factor would pass too); “cannot fail here”: the printed "
            "conclusion held on every fixture and every probe of the run; “unguarded”: no negative "
            "control that the check refutes. Errata: independent slips (errata with no root) / statements affected. "
            "Fidelity: faithful (the printed statement), proxy (a stand-in), partial "
            "(a part or special case), definitional (holds by construction), undeclared. Only faithful claims can be "
            "fully verified.</p></section>")


FIDELITIES = ("faithful", "proxy", "partial", "definitional", "undeclared")


def _fidelity_counts(c: dict) -> str:
    """``3 faithful · 1 proxy``: the verified claims of a paper by fidelity (empty for older records)."""
    parts = [f"{c[f'verified {f}']} {f}" for f in FIDELITIES if c.get(f"verified {f}")]
    return " · ".join(parts) or '<span class="muted">—</span>'


# --- the claims table -------------------------------------------------------------------------------


def _fixture_summary(v: ClaimView) -> tuple[str, str]:
    """(positive fixtures, negative controls) in words for the table."""
    pos = v.positive
    counts: dict[str, int] = {}
    for r in pos:
        counts[str(r.get("verdict"))] = counts.get(str(r.get("verdict")), 0) + 1
    order = sorted(counts.items(), key=lambda kv: S.VERDICT_RANK.get(kv[0], 9))
    positive = " · ".join(f"{n} {fmt.verdict(k)}" for k, n in order) or '<span class="muted">—</span>'
    nc = v.status.get("negative_controls") or {}
    if not nc.get("total"):
        controls = '<span class="bad">none</span>' if v.claim.get("checkable", True) and v.results else "—"
    else:
        caught, total, powered = nc.get("caught", 0), nc.get("total", 0), nc.get("powered", 0)
        cls = "v-caught" if caught == total else "v-missed"
        controls = (f'<span class="{cls}">{caught}/{total} caught</span>'
                    f'<span class="small muted">; {powered} powered</span>')
        crashed = v.status.get("crashed_controls") or nc.get("crashed") or 0
        if crashed:
            controls += (f' <span class="bad" title="a control whose check crashed off its hypotheses caught '
                         f'nothing">{crashed} crashed</span>')
    broken = v.status.get("hypotheses_broken")
    if broken:
        shown = v.status.get("hypotheses_shown_necessary") or []
        probes = v.status.get("probes") or {}
        tip = "; ".join(f"{k}: {n}" for k, n in probes.items()) if isinstance(probes, dict) else ""
        controls += (f'<div class="small" title="probes (controls breaking a hypothesis): {escape(tip)}">'
                     f"hypotheses shown necessary: {len(shown)} of {len(broken)} broken</div>")
    return positive, controls


def _loose_title(v: ClaimView) -> str:
    loose = [c for c in v.status.get("loose_conclusions") or () if isinstance(c, dict)]
    which = ("; ".join(f"{c.get('name')}: room {fmt.room_text(c.get('room'))}" for c in loose[:6])
             if loose else f"tightest room {fmt.room_text(v.tightest_room)}")
    return f"{which}: more than {S.LOOSE_ROOM:g}x, a constant wrong by that factor would pass too"


def _marks(v: ClaimView) -> str:
    out = []
    if v.loose:
        out.append(fmt.mark("loose", "loose", _loose_title(v)))
    if v.cannot_fail:
        why = v.status.get("cannot_fail")
        out.append(fmt.mark("cannot-fail", S.CANNOT_FAIL + (" (acknowledged)" if why else ""),
                            f"acknowledged: {why}" if why else "the printed conclusion held on every fixture and "
                            "every probe of this run: the pass shows nothing"))
    if v.unexpected:
        out.append(fmt.mark("unexpected", "not as expected"))
    if v.status.get("vacuous_fixtures"):
        out.append(f'<span class="small muted" title="positive fixtures whose hypotheses were unmet or whose '
                   f'quantifier was empty">{v.status["vacuous_fixtures"]} vacuous</span>')
    return " ".join(out)


def _fidelity_line(v: ClaimView) -> str:
    """The claim's fidelity under its status (nothing for older records, which do not say)."""
    if not v.fidelity:
        return ""
    note = v.status.get("fidelity_note")
    tip = f' title="{escape(str(note))}"' if note else ""
    return f'<div class="small muted fidelity"{tip}>{escape(v.fidelity)}</div>'


def _data_attrs(v: ClaimView) -> str:
    return (f'data-id="{escape(v.id)}" data-paper="{escape(v.paper)}" data-status="{escape(slug(v.display))}" '
            f'data-statuses="{escape(" ".join(slug(s) for s in v.status_set))}" '
            f'data-kind="{escape(str(v.claim.get("kind", "")))}" data-loose="{int(v.loose)}" '
            f'data-unguarded="{int(v.status["status"] == S.UNGUARDED)}" data-unexpected="{int(v.unexpected)}" '
            f'data-cannotfail="{int(v.cannot_fail)}" data-fidelity="{escape(v.fidelity or "")}"')


def claim_table_html(model: ReportModel) -> str:
    views = list(model.claims.values())
    paper_opts = "".join(f'<option value="{escape(p)}">{escape(p)}</option>' for p in model.papers)
    present = {s for v in views for s in v.status_set}
    status_opts = "".join(f'<option value="{escape(slug(s))}">{escape(s)}</option>'
                          for s in OVERVIEW_STATUSES if s in present)
    kinds = sorted({str(v.claim.get("kind", "")) for v in views})
    kind_opts = "".join(f'<option value="{escape(k)}">{escape(k)}</option>' for k in kinds)
    rank = {s: i for i, s in enumerate(S.STATUSES)}
    rows = []
    for i, v in enumerate(views):
        positive, controls = _fixture_summary(v)
        room = v.tightest_room
        room_key = "" if room is None else ("1e308" if room == float("inf") else f"{room:.6g}")
        statement = str(v.claim.get("statement") or "")
        title = f'<div class="small muted">{label_html(v.claim["title"])}</div>' if v.claim.get("title") else ""
        rows.append(
            f'<tr {_data_attrs(v)} data-order="{i}"><td data-value="{i}">{fmt.claim_link(v.id)}</td>'
            f"<td>{escape(v.paper)}</td><td>{escape(str(v.claim.get('kind', '')))}</td>"
            f'<td class="stmt">{text_html(first_line(statement))}{title}</td>'
            f'<td data-value="{rank.get(v.display, 99)}">{fmt.badge(v.display)}{_fidelity_line(v)}</td>'
            f'<td data-value="{int(v.unexpected) * 4 + int(v.cannot_fail) * 2 + int(v.loose)}">{_marks(v)}</td>'
            f'<td class="num" data-value="{room_key}">{fmt.room_text(room)}</td>'
            f"<td class=small>{positive}</td><td class=small>{controls}</td></tr>")
    n = len(views)
    return (
        '<section id="claims"><h2>Claims</h2><div class="filters">'
        f'<label for="filter-paper">paper</label><select id="filter-paper"><option value="">all</option>{paper_opts}</select>'
        f'<label for="filter-status">status</label><select id="filter-status"><option value="">all</option>{status_opts}</select>'
        f'<label for="filter-kind">kind</label><select id="filter-kind"><option value="">all</option>{kind_opts}</select>'
        '<label class="check"><input type="checkbox" id="filter-unexpected"> not as expected</label>'
        '<label class="check"><input type="checkbox" id="filter-unguarded"> unguarded</label>'
        '<label class="check"><input type="checkbox" id="filter-loose"> loose</label>'
        f'<label class="check"><input type="checkbox" id="filter-cannotfail"> {S.CANNOT_FAIL}</label>'
        '<label for="filter-text">contains</label><input id="filter-text" type="search" size="18" '
        'placeholder="id or statement">'
        f'<span id="filter-count" data-shown="{n}">{n} of {n} claims shown</span>'
        '<button type="button" id="expand-all">expand shown</button><button type="button" id="collapse-all">collapse all</button>'
        # A fixed layout with these widths: the table is as wide as its section at any window width and its
        # cells wrap (long ids at their dots, statements between words) instead of widening it.
        '</div><div class="scroll"><table id="claim-table"><colgroup><col class="c-id"><col class="c-paper">'
        '<col class="c-kind"><col class="c-stmt"><col class="c-status"><col class="c-marks"><col class="c-room">'
        '<col class="c-pos"><col class="c-neg"></colgroup><thead><tr>'
        '<th data-sort="num" data-col="0">claim</th><th data-sort="text" data-col="1">paper</th>'
        '<th data-sort="text" data-col="2">kind</th><th data-sort="text" data-col="3">statement (first line)</th>'
        '<th data-sort="num" data-col="4">status</th><th data-sort="num" data-col="5">marks</th>'
        '<th data-sort="num" data-col="6" class="num" title="the factor by which the tightest passing bound could be '
        'wrong and still pass (the tightest room of its passing comparisons)">room</th><th>positive fixtures</th><th>negative controls</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div></section>")


def graphs_html(model: ReportModel) -> str:
    legend = "".join(f'<span class="badge st-{escape(slug(s))}">{escape(s)}</span>' for s in STATUS_COLOURS)
    parts = ['<section id="graphs"><h2>Dependency graphs</h2>'
             f'<p class="legend small">{legend} <span class="muted">Columns by dependency depth; arrows run from '
             "a dependency to the claim that uses it; dashed: not checkable, or a claim of another paper (grey "
             "text: not in this report). Click a node to open its claim; hover for its full id. Each graph fits "
             "its box: zoom with the buttons (or ctrl + wheel), drag to pan.</span></p>"]
    for k, paper in enumerate(model.papers):
        svg = dependency_svg(model.of_paper(paper), paper, k, model.claims)
        parts.append(f'<details class="graph-paper" open><summary><h3 id="graph-{escape(paper)}" '
                     f'style="display:inline">{escape(paper)}</h3></summary>'
                     '<div class="graph-tools small"><button type="button" data-zoom="in">zoom in</button>'
                     '<button type="button" data-zoom="out">zoom out</button><button type="button" data-zoom="fit">'
                     f'fit</button></div><div class="graph">{svg}</div></details>')
    parts.append("</section>")
    return "".join(parts)


# --- one claim --------------------------------------------------------------------------------------


def _hypotheses_html(v: ClaimView, model: ReportModel) -> str:
    """Each hypothesis once: its description, on how many fixtures it held, its smallest slack, and the
    fixtures where it was unmet (with the predicate's detail)."""
    declared = [h for h in v.claim.get("hypotheses") or [] if isinstance(h, dict)]
    names = [str(h.get("name")) for h in declared]
    described = {str(h.get("name")): h.get("description") for h in declared}
    checks: dict[str, list[tuple[dict, dict]]] = {n: [] for n in names}
    for r in v.results:
        for h in r.get("hypotheses") or ():
            checks.setdefault(str(h.get("name")), []).append((r, h))
    if not checks:
        return "<p class=muted>No hypotheses declared.</p>"
    rows = []
    for name, got in checks.items():
        desc = f'<div class="small">{text_html(described[name])}</div>' if described.get(name) else ""
        if not got:
            rows.append(f"<tr><td>{label_html(name)}{desc}</td><td colspan=3 class=muted>not checked on any "
                        "fixture in these records</td></tr>")
            continue
        held = [(r, h) for r, h in got if h.get("holds")]
        slacks = [(fmt.slack_value(h.get("slack")), r) for r, h in held]
        slacks = [(x, r) for x, r in slacks if x is not None]
        smallest = min(slacks, key=lambda t: t[0]) if slacks else None
        low = (f"{fmt.number(smallest[0])} <span class='small muted'>({escape(str(smallest[1].get('label')))} "
               f"[{escape(str(smallest[1].get('task_id')))}])</span>") if smallest else "—"
        unmet = [(r, h) for r, h in got if not h.get("holds")]
        where = "; ".join(
            f"{escape(model.run_label(r) + ' ' if model.run_label(r) else '')}{escape(str(r.get('label')))} "
            f"[{escape(str(r.get('task_id')))}, {escape(str(r.get('fixture_kind')))}]"
            + (f": {label_html(h.get('detail'))}" if h.get("detail") else "") for r, h in unmet[:8])
        if len(unmet) > 8:
            where += f"; … {len(unmet) - 8} more"
        rows.append(f"<tr><td>{label_html(name)}{desc}</td><td class=num>{len(held)} of {len(got)}</td>"
                    f"<td class=num>{low}</td><td class=small>{where or '<span class=muted>—</span>'}</td></tr>")
    return ('<table class="hyps"><colgroup><col style="width:38%"><col style="width:10%"><col style="width:20%">'
            "<col></colgroup><thead><tr><th>hypothesis (checked on every fixture before the check runs)</th>"
            "<th>held on</th><th>smallest slack</th><th>unmet on (expected for a control that breaks it)</th></tr>"
            f"</thead><tbody>{''.join(rows)}</tbody></table>")


def _fixtures_html(v: ClaimView, model: ReportModel) -> str:
    several_runs = len(model.run_numbers) > 1
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
        ev = r.get("evidence") or {}
        run = f"<td class=small>{escape(model.run_label(r))}</td>" if several_runs else ""
        rows.append(
            f"<tr>{run}<td><code>{escape(str(r.get('task_id')))}</code></td>"
            f"<td>{escape(str(r.get('label') or ''))}<div class=small><span class=mono>{escape(str(r.get('family')))}"
            f"</span> · {escape(str(r.get('fixture_kind')))} · {escape(fmt.params_text(r.get('params'), r.get('mutation')))}"
            f" · seed {fmt.esc(r.get('seed'))}</div></td>"
            f"<td>{fmt.outcome(r)}<div class=small>expected {escape('/'.join(map(str, r.get('expected') or [])))}"
            f"</div></td><td>{'<span class=ok>✓</span>' if ok else '<span class=unexpected>✗ no</span>'}</td>"
            f"<td class=num>{fmt.evidence_slack_html(ev)}</td><td class=num>{fmt.room_text(ev.get('tightest_room'))}</td>"
            f"<td class=num>{fmt.seconds(r.get('duration_s'))}</td>"
            f'<td class="reason">{label_html(r.get("reason") or "")}</td></tr>')
    run_col = '<col style="width:6%">' if several_runs else ""
    run_head = "<th>run</th>" if several_runs else ""
    return (f'<table class="fixtures">{run_col}<col style="width:6%"><col style="width:24%"><col style="width:15%">'
            '<col style="width:6%"><col style="width:8%"><col style="width:7%"><col style="width:7%"><col>'
            f"<thead><tr>{run_head}<th>task</th><th>fixture</th><th>outcome</th><th>as expected</th><th>slack</th>"
            f"<th>room</th><th>time (s)</th><th>reason</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")


def _count_cell(c: dict) -> str:
    n = c.get("count")
    if n is None:
        return ""
    if n == 0:
        return ('<span class="bad">empty set: vacuous</span>' if c.get("required", True)
                else '<span class="muted">empty set (not required)</span>')
    return f"for all {n}"


def _evidence_block(r: dict, run: str) -> str:
    ev = r.get("evidence") or {}
    parts = []
    comps = ev.get("comparisons") or []
    if comps:
        counted = any(c.get("count") is not None for c in comps)
        detailed = any(c.get("detail") for c in comps)
        rows = []
        for c in comps:
            role = str(c.get("role") or "conclusion")
            tag = ('<span class="role validity">validity</span> ' if role == "validity" else
                   '<span class="role">independent</span> ' if c.get("depends") is False else "")
            rows.append(
                f"<tr><td>{tag}{label_html(c.get('name'))}</td><td class=num>{fmt.esc(c.get('measured'))}</td>"
                f"<td>{escape(str(c.get('relation')))}</td><td class=num>{fmt.esc(c.get('predicted'))}</td>"
                f"<td class=num>{fmt.esc(c.get('tolerance'))}</td><td class=num>{fmt.slack_html(c)}</td>"
                f"<td class=num>{fmt.room_text(c.get('room'))}</td><td>{fmt.holds_mark(c.get('holds'))}</td>"
                + (f"<td>{_count_cell(c)}</td>" if counted else "")
                + (f"<td>{label_html(c.get('detail') or '')}</td>" if detailed else "") + "</tr>")
        parts.append('<table class="evidence"><thead><tr><th>comparison</th><th>measured</th><th></th>'
                     "<th>predicted</th><th>tolerance</th><th title='relative to the tolerance; for an identity (==) "
                     "the absolute residual |Δ|'>slack</th><th>room</th><th>holds</th>"
                     + ("<th>quantifier</th>" if counted else "") + ("<th>detail</th>" if detailed else "")
                     + f"</tr></thead><tbody>{''.join(rows)}</tbody></table>")
    elif r.get("evidence") is None:
        parts.append("<p class=muted>No evidence (the check did not return).</p>")
    for key, title in (("quantities", "tracked quantity"), ("shown", "shown (not compared)")):
        if ev.get(key):
            rows = "".join(f"<tr><td>{label_html(k)}</td><td class=num>{fmt.esc(q)}</td></tr>" for k, q in ev[key].items())
            parts.append(f'<div class="scroll"><table class=kv><tr><th>{title}</th><th>value</th></tr>{rows}</table></div>')
    if ev.get("certificate"):
        parts.append(f"<div>certificate:<pre>{escape(fmt.compact_json(ev['certificate']))}</pre></div>")
    if ev.get("notes"):
        parts.append("<ul>" + "".join(f"<li>{label_html(n)}</li>" for n in ev["notes"]) + "</ul>")
    if ev.get("outcome_reason"):
        parts.append(f"<p>outcome of the evidence: {escape(str(ev.get('outcome')))} — {label_html(ev['outcome_reason'])}</p>")
    elif ev.get("inconclusive_reason"):
        parts.append(f"<p>inconclusive: {label_html(ev['inconclusive_reason'])}</p>")
    if r.get("reason"):
        parts.append(f"<p>reason: {label_html(r['reason'])}</p>")
    if r.get("warnings"):
        parts.append("<div class=small>numerical warnings: " + escape("; ".join(map(str, r["warnings"]))) + "</div>")
    if r.get("traceback"):
        tb = str(r["traceback"])
        tb = tb if len(tb) <= MAX_TRACEBACK_CHARS else "… " + tb[-MAX_TRACEBACK_CHARS:]
        parts.append(f"<pre>{escape(tb)}</pre>")
    parts.append(f"<div class=small>reproduce: <code>{escape(str(r.get('repro') or ''))}</code></div>")
    opened = " open" if not r.get("as_expected", True) else ""
    return (f'<details class="fixture"{opened}><summary>{escape(run)}<code>{escape(str(r.get("task_id")))}</code> '
            f"{escape(str(r.get('label') or r.get('family')))} ({escape(str(r.get('fixture_kind')))}, seed "
            f"{fmt.esc(r.get('seed'))}): {fmt.outcome(r)}</summary>{''.join(parts)}</details>")


def claim_command(v: ClaimView, run: dict | None) -> str:
    """The command that reruns the claim as that run did: its file, profile and seed."""
    source = str(v.claim.get("source") or "")
    if source == "__main__":  # declared in a notebook: no shell command can load it as it is
        from ..api import notebook_repro

        return notebook_repro(v.id, None, str((run or {}).get("profile") or "quick"), int((run or {}).get("seed") or 0))
    parts = ["verify", "run"]
    if source.endswith(".py"):
        parts = ["verify", "--no-builtin", "run", source]
    elif source and source.split(".")[0] != "theorems":
        parts = ["verify", "--no-builtin", "run", f"module:{source}"]
    parts.append(v.id)
    if run:
        for flag in ("profile", "seed"):
            if run.get(flag) is not None:
                parts += [f"--{flag}", str(run[flag])]
    return shlex.join(parts)


def _repro_html(v: ClaimView, model: ReportModel) -> str:
    """The claim's command per run, then the exact command of each fixture not as expected."""
    run_ids = list(dict.fromkeys(str(r.get("run_id")) for r in v.results))
    lines = []
    for rid in run_ids or [None]:
        run = next((r for r in model.runs if str(r.get("run_id")) == rid), None)
        label = model.run_label({"run_id": rid})
        lines.append(claim_command(v, run) + (f"    # {label}" if label else ""))
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
    rows = [("status", fmt.badge(v.display) + (" " + _marks(v) if _marks(v) else ""))]
    if v.fidelity:
        note = st.get("fidelity_note")
        rows.append(("fidelity", escape(v.fidelity) + (f" — {text_html(note)}" if note else "")
                     + ('' if v.fidelity == "faithful" else ' <span class="small muted">(only faithful claims can be '
                        "fully verified)</span>")))
    if v.cannot_fail:
        why = st.get("cannot_fail")
        rows.append((S.CANNOT_FAIL, f"acknowledged: {text_html(why)}" if why else
                     "the printed conclusion held on every fixture and every probe of this run: no fixture here "
                     "could have shown it false"))
    loose = [x for x in st.get("loose_conclusions") or () if isinstance(x, dict)]
    if loose:
        rows.append(("loose conclusions", "; ".join(f"{label_html(x.get('name'))}: room {fmt.room_text(x.get('room'))}"
                                                    for x in loose)))
    if st.get("no_room"):
        rows.append(("no room", text_html(st["no_room"])))
    reason = c.get("expected_reason")
    summary = (c.get("erratum") or {}).get("summary") if isinstance(c.get("erratum"), dict) else None
    if reason and summary and _same_sentence(str(reason), str(summary)):
        reason = None  # said once, in the erratum row
    if c.get("expected"):
        rows.append(("expected", escape(str(c["expected"])) + (f" — {prose_html(reason)}" if reason else "")))
    if not c.get("checkable", True):
        rows.append(("not checkable", text_html(c.get("reason") or "")))
    if c.get("derived"):
        rows.append(("derived by the harness", text_html(c["derived"])))
    if c.get("seeds_of"):
        rows.append(("fixture seeds", f"those of {escape(str(c['seeds_of']))} (the same runs where the fixtures "
                                      "are declared alike)"))
    if st["status"] in (S.VERIFIED, S.UNGUARDED) or v.tightest_room is not None:
        rows.append(("tightest room", fmt.room_text(v.tightest_room)
                     + ' <span class="small muted">(the factor by which the tightest passing bound could be wrong '
                     "and still pass; identities and yes/no conclusions have none)</span>"))
    if c.get("erratum"):
        e = c["erratum"]
        rows.append(("erratum", f"{escape(str(e.get('kind')))} — {prose_html(e.get('summary') or '')} "
                                f'<a href="#errata">(see errata)</a>'))
    for key, label in (("indirect_evidence", "indirect evidence"), ("judged_by", "judged by"), ("source", "source"),
                       ("timeout_s", "time limit (s)")):
        if c.get(key):
            rows.append((label, label_html(fmt.number(c[key]))))
    if c.get("tags"):
        rows.append(("tags", escape(", ".join(map(str, c["tags"])))))
    if nc.get("total"):
        crashed = st.get("crashed_controls") or nc.get("crashed") or 0
        rows.append(("negative controls", f"{nc.get('caught', 0)} of {nc.get('total')} caught; "
                                          f"{nc.get('powered', 0)} powered (a mutated conclusion the check refuted)"
                     + (f'; <span class="bad">{crashed} crashed</span> (a crash off the hypotheses catches nothing)'
                        if crashed else "")))
    broken = [str(h) for h in st.get("hypotheses_broken") or ()]
    if broken:
        shown = {str(h) for h in st.get("hypotheses_shown_necessary") or ()}
        rows.append(("hypotheses broken by a control", ", ".join(
            label_html(h) + (' <span class="ok" title="a probe on which the printed conclusion failed">shown necessary'
                             "</span>" if h in shown else ' <span class="muted">not shown necessary</span>')
            for h in broken)))
    probes = st.get("probes")
    if isinstance(probes, dict) and probes:
        rows.append(("probes", escape("; ".join(f"{k}: {n}" for k, n in probes.items()))
                     + ' <span class="small muted">(the printed conclusion evaluated where a hypothesis is unmet)</span>'))
    return "<table class=kv>" + "".join(f"<tr><td>{k}</td><td>{val}</td></tr>" for k, val in rows) + "</table>"


def _same_sentence(a: str, b: str) -> bool:
    """Whether two texts say the same (one contains the other, spacing and case aside)."""
    na, nb = " ".join(a.lower().split()).rstrip("."), " ".join(b.lower().split()).rstrip(".")
    return bool(na and nb) and (na in nb or nb in na)


def plots_html(v: ClaimView, budget: PlotBudget, draw: Draw = draw_plot) -> str:
    plots = claim_plots(v.results, budget, draw=draw)
    if not plots:
        return ""
    figs = "".join(
        f'<figure><img alt="{escape(p.name)}" loading="lazy" decoding="async" src="{p.data_uri}">'
        f"<figcaption>{label_html(p.name)}</figcaption></figure>"
        if p.data_uri else f'<p class="small muted">{label_html(p.name)}: {escape(p.note)}</p>' for p in plots)
    return f'<h4>Plots</h4><div class="plots">{figs}</div>'


LAZY_CHUNK_CHARS = 1_500_000  # characters of card bodies compressed in one stream


class LazyStore:
    """The bodies of folded cards, compressed together into a few gzip streams written once at the end
    of the page. Deflate finds in one card what the cards before it already said (the same table
    headings, fixture families, plot frames), so a stream of many cards takes under half the bytes of
    the same cards compressed one by one; the page's script inflates a stream the first time a card in
    it is opened and puts only that card's body into the page. A body is referred to as
    ``data-z="STREAM.INDEX"``; a stream holds its bodies separated by NUL characters (none is left in a
    body: the HTML parser would drop it anyway)."""

    def __init__(self, chunk_chars: int = LAZY_CHUNK_CHARS) -> None:
        self.chunk_chars = chunk_chars
        self.chunks: list[list[str]] = [[]]
        self._size = 0

    def add(self, inner: str) -> str:
        """A placeholder for ``inner``, inflated in its place when the card around it is opened."""
        if self._size >= self.chunk_chars:
            self.chunks.append([])
            self._size = 0
        body = inner.replace("\x00", "\ufffd")
        ref = f"{len(self.chunks) - 1}.{len(self.chunks[-1])}"
        self.chunks[-1].append(body)
        self._size += len(body)
        return f'<div class="lazy" data-z="{ref}"><p class="small muted">opening…</p></div>'

    def html(self) -> str:
        """The streams, base64 in inert script elements (``id="z0"``, ``"z1"``, …)."""
        out = []
        for n, bodies in enumerate(self.chunks):
            if bodies:
                z = gzip.compress("\x00".join(bodies).encode("utf-8"), compresslevel=9, mtime=0)
                out.append(f'<script type="application/gzip" class="z" id="z{n}">'
                           f'{base64.b64encode(z).decode("ascii")}</script>')
        return "".join(out)


def _statement_html(v: ClaimView) -> str:
    return f'<div class="statement">{text_html(str(v.claim.get("statement") or ""))}</div>'


def claim_section_html(v: ClaimView, model: ReportModel, budget: PlotBudget, *,
                       store: LazyStore | None = None, draw: Draw = draw_plot) -> str:
    """One claim's card. With a ``store``, its body (statement, hypotheses, fixtures, evidence, plots)
    goes into the store, compressed, and is inflated by the page's script when the card is opened;
    without, the card is plain HTML (for a notebook, where scripts may not run). Folded, the card shows
    its summary line either way. ``draw`` draws its plots (:func:`verify.report.plots.claim_plots`)."""
    title = f" — {label_html(v.claim['title'])}" if v.claim.get("title") else ""
    statement = str(v.claim.get("statement") or "")
    evidence = "".join(_evidence_block(r, (model.run_label(r) + " ").lstrip()) for r in v.results)
    body = (_statement_html(v)
            + f'<details class="small"><summary>TeX source</summary><pre>{escape(statement)}</pre></details>'
            f"{_kv_html(v)}<h4>Dependencies</h4>{_dependencies_html(v, model)}"
            f"<h4>Hypotheses and how each was checked</h4>{_hypotheses_html(v, model)}"
            f"<h4>Fixtures</h4>{_fixtures_html(v, model)}"
            + (f"<h4>Evidence per fixture</h4>{evidence}" if evidence else "") + plots_html(v, budget, draw))
    return (
        f'<details class="claim" id="claim-{escape(v.id)}" {_data_attrs(v)}>'
        f'<summary><span class="cid">{escape(v.id)}</span> <span class="muted">{escape(str(v.claim.get("kind", "")))}'
        f"</span>{title} {fmt.badge(v.display)} {_marks(v)}</summary>"
        + (store.add(body) if store is not None else body)
        + (f"<h4>Reproduce</h4>{_repro_html(v, model)}" if v.claim.get("checkable", True) else "")
        + "</details>")


def details_html(model: ReportModel, budget: PlotBudget, *, store: LazyStore | None = None,
                 draw: Draw = draw_plot) -> str:
    parts = ['<section id="details"><h2>Claim details</h2>']
    for paper in model.papers:
        parts.append(f"<h3>{escape(paper)}</h3>")
        parts.extend(claim_section_html(v, model, budget, store=store, draw=draw) for v in model.of_paper(paper))
    parts.append("</section>")
    return "".join(parts)


def page_html(model: ReportModel, title: str, *, plot_budget: PlotBudget | None = None, lazy: bool = True,
              draw: Draw = draw_plot) -> str:
    budget = plot_budget or PlotBudget()
    store = LazyStore() if lazy else None
    main = (f"{banner_html(model)}{overview_html(model)}{errata_section_html(model, store=store)}"
            f"{claim_table_html(model)}{graphs_html(model)}{details_html(model, budget, store=store, draw=draw)}")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}\n{status_classes_css()}</style></head><body>"
        f"{header_html(model, title)}<main>{main}</main>{store.html() if store else ''}"
        f"<script>{SCRIPT}</script></body></html>\n")
