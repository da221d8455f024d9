"""The HTML report: completeness, statuses, errata, plots, escaping, merging, offline-only content.

Records are synthetic (built below in the format of verify/records.py) so these tests need no runner;
the builders are imported by test_diff.py and test_report_browser.py.
"""

from __future__ import annotations

import base64
import gzip
import re
from html.parser import HTMLParser

import pytest

from verify import settings as S
from verify.records import RecordWriter, merge
from verify.report import render_report, report_html
from verify.report.errata import find_errata
from verify.report.graph import dependency_svg, depths
from verify.report.mathml import MATHML_TAGS, has_raw_tex, label_html, label_mathtext, text_html
from verify.report.model import build_model
from verify.report.plots import MAX_PLOTS_PER_CLAIM, PlotBudget, claim_plots
from verify.verdicts import aggregate

XSS = "<script>alert('owned')</script>"


def claim_line(cid: str, *, statement: str = r"For all $x \ge 0$, $f(x) \le \frac{1}{2}x^2$.", uses=(),
               checkable: bool = True, expected: str | None = None, amends: str | None = None,
               title: str = "", kind: str = "theorem", hypotheses=("data separable",)) -> dict:
    return {
        "type": "claim", "id": cid, "paper": cid.split(".")[0], "kind": kind, "title": title,
        "statement": statement, "checkable": checkable, "reason": None if checkable else "a definition",
        "hypotheses": [{"name": h, "description": f"the {h} condition"} for h in hypotheses],
        "uses": list(uses), "used_by": [], "fixtures": [], "negative_controls": 0, "expected": expected,
        "expected_reason": "the printed constant is off by 2" if expected else "", "amends": amends,
        "judged_by": "", "indirect_evidence": "", "timeout_s": 300.0, "source": "tests", "tags": [],
        "fidelity": "faithful",
    }


def result_line(cid: str, task_id: str, verdict: str, *, kind: str = S.RANDOM, expected=None, seed: int = 7,
                slack: float | str = 0.25, certificate: dict | None = None, quantities: dict | None = None,
                series: list | None = None, comparisons: list | None = None, reason: str | None = None,
                hyp_holds: bool = True) -> dict:
    if expected is None:
        expected = [S.REFUTED] if kind == S.NEGATIVE else [S.PASS]
    holds = {S.PASS: True, S.REFUTED: False}.get(verdict)
    evidence = None
    if verdict != S.ERROR:
        evidence = {
            "holds": holds, "slack": slack,
            "comparisons": comparisons if comparisons is not None else [
                {"name": "bound", "relation": "<=", "measured": 1.0, "predicted": 2.0, "tolerance": 2e-9,
                 "holds": holds is not False, "slack": slack, "detail": ""}],
            "quantities": quantities or {}, "certificate": certificate or {}, "series": series or [],
            "notes": [], "inconclusive_reason": "solver gap 1e-3" if verdict == S.INCONCLUSIVE else None,
        }
    return {
        "type": "result", "run_id": "r1", "claim": cid, "paper": cid.split(".")[0], "task_id": task_id,
        "family": "toy.gauss", "label": f"gauss-{task_id}", "fixture_kind": kind, "params": {"n": 4, "d": 2},
        "mutation": "constant 1/3" if kind == S.NEGATIVE else None, "seed": seed, "profile": "quick",
        "verdict": verdict, "expected": expected, "as_expected": verdict in expected,
        "hypotheses": [{"name": "data separable", "holds": hyp_holds, "slack": 0.1, "detail": "margin 0.1"}],
        "evidence": evidence, "reason": reason,
        "traceback": "Traceback ...\nZeroDivisionError: division by zero" if verdict == S.ERROR else None,
        "duration_s": 0.01, "repro": f"python -m verify run {cid} --task {task_id} --seed {seed}",
    }


def probe_line(cid: str, task_id: str = "2.0") -> dict:
    """A control breaking the hypothesis on which the printed conclusion failed (the hypothesis shown
    necessary): what keeps a verified claim from the mark "cannot fail here"."""
    r = result_line(cid, task_id, S.VACUOUS, kind=S.NEGATIVE, expected=[S.REFUTED, S.VACUOUS], hyp_holds=False)
    return {**r, "mutation": None, "unmet": ["data separable"], "probe": S.PROBE_FAILED}


def series(name: str = "margin vs t") -> dict:
    return {"name": name, "x": [1.0, 10.0, 100.0], "y": {"margin": [0.1, 0.3, "nan"], "bound": [0.5, 0.5, 0.5]},
            "xlabel": "t", "ylabel": "margin", "logx": True, "logy": False, "reference": 0.5}


def sample_records() -> list[dict]:
    """Two papers covering every status, an erratum with an amendment, a plot, and hostile text."""
    neg = dict(kind=S.NEGATIVE)
    return [
        {"type": "run", "run_id": "r1", "profile": "quick", "seed": 0, "selectors": ["toy", "other"]},
        claim_line("toy.def1", checkable=False, kind="definition", hypotheses=()),
        claim_line("toy.lem1", uses=["toy.def1"], title="Lemma 1"),
        result_line("toy.lem1", "0.0", S.PASS, quantities={"gamma": 0.5}, series=[series()]),
        result_line("toy.lem1", "1.0", S.REFUTED, **neg),
        probe_line("toy.lem1"),
        claim_line("toy.lem2"),
        result_line("toy.lem2", "0.0", S.PASS),
        result_line("toy.lem2", "1.0", S.REFUTED, **neg),
        probe_line("toy.lem2"),
        claim_line("toy.thm3", uses=["toy.lem1", "toy.lem2"], expected=S.ST_REFUTED),
        result_line("toy.thm3", "0.0", S.REFUTED, slack=-0.5, certificate={"x": [1.0, 2.0, 3.0]}),
        result_line("toy.thm3", "0.1", S.REFUTED, slack=-0.1, certificate={"x": [1.0]}),
        result_line("toy.thm3", "1.0", S.REFUTED, **neg),
        claim_line("toy.thm3.amended", amends="toy.thm3", uses=["toy.lem2"]),
        result_line("toy.thm3.amended", "0.0", S.PASS),
        result_line("toy.thm3.amended", "1.0", S.REFUTED, **neg),
        probe_line("toy.thm3.amended"),
        claim_line("toy.lem4"),
        result_line("toy.lem4", "0.0", S.INCONCLUSIVE, reason="solver gap 1e-3"),
        claim_line("toy.lem5"),
        result_line("toy.lem5", "0.0", S.ERROR, reason="ZeroDivisionError: division by zero"),
        claim_line("toy.lem6"),
        result_line("toy.lem6", "0.0", S.PASS),
        result_line("toy.lem6", "1.0", S.PASS, **neg),
        claim_line("toy.lem7"),
        result_line("toy.lem7", "0.0", S.VACUOUS, hyp_holds=False),
        result_line("toy.lem7", "1.0", S.REFUTED, **neg),
        claim_line("toy.lem8"),
        result_line("toy.lem8", "0.0", S.PASS),
        result_line("toy.lem8", "1.0", S.VACUOUS, kind=S.NEGATIVE, expected=[S.REFUTED, S.VACUOUS]),
        claim_line("toy.xss", statement=f"Text {XSS} and math $a {XSS} < b$ & \"quotes\"", title=XSS,
                   hypotheses=(XSS,)),
        result_line("toy.xss", "0.0", S.PASS, quantities={XSS: 1.0}, reason=None),
        result_line("toy.xss", "1.0", S.REFUTED, **neg),
        probe_line("toy.xss"),
        claim_line("other.thm1", uses=["toy.lem2"]),
        result_line("other.thm1", "0.0", S.PASS, series=[series("loss"), series("margin")]),
        result_line("other.thm1", "1.0", S.REFUTED, **neg),
        probe_line("other.thm1"),
        {"type": "end", "run_id": "r1", "interrupted": False},
    ]


CLAIM_IDS = ["toy.def1", "toy.lem1", "toy.lem2", "toy.thm3", "toy.thm3.amended", "toy.lem4", "toy.lem5",
             "toy.lem6", "toy.lem7", "toy.lem8", "toy.xss", "other.thm1"]


STREAM = r'<script type="application/gzip" class="z" id="z(\d+)">([^<]*)</script>'


def lazy_streams(page: str) -> dict[str, list[str]]:
    """The page's compressed streams of card bodies, by stream number, each as its list of bodies."""
    return {n: gzip.decompress(base64.b64decode(z)).decode("utf-8").split("\x00")
            for n, z in re.findall(STREAM, page)}


def inflate(page: str) -> str:
    """The page with every lazily stored card body inflated in place, as the page's script does."""
    streams = lazy_streams(page)

    def one(m: re.Match) -> str:
        return '<div class="lazy">' + streams[m.group(1)][int(m.group(2))]
    page = re.sub(r'<script type="application/gzip" class="z" id="z\d+">[^<]*</script>', "", page)
    return re.sub(r'<div class="lazy" data-z="(\d+)\.(\d+)">', one, page)


@pytest.fixture(scope="module")
def page() -> str:
    return inflate(report_html(sample_records(), title="Sample report"))


class VisibleText(HTMLParser):
    """The text a reader sees: no scripts, styles, TeX-source blocks or attribute values."""

    SKIP = {"script", "style", "pre", "title"}

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skipping: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.skipping.append(tag)

    def handle_endtag(self, tag):
        if self.skipping and self.skipping[-1] == tag:
            self.skipping.pop()

    def handle_data(self, data):
        if not self.skipping:
            self.parts.append(data)


def visible_text(page: str) -> str:
    parser = VisibleText()
    parser.feed(page)
    return " ".join(parser.parts)


def claim_rows(page: str) -> dict[str, str]:
    """Claim id -> data-status of its row in the claim table."""
    table = page.split('<table id="claim-table">', 1)[1].split("</table>", 1)[0]
    return dict(re.findall(r'<tr data-id="([^"]+)" data-paper="[^"]*" data-status="([^"]+)"', table))


def test_every_claim_has_a_row_a_section_and_a_graph_node(page):
    rows = claim_rows(page)
    assert sorted(rows) == sorted(CLAIM_IDS)
    for cid in CLAIM_IDS:
        assert f'<details class="claim" id="claim-{cid}"' in page
        assert f'data-id="{cid}"' in page.split('id="graphs"', 1)[1].split("</section>", 1)[0]


def test_statuses_come_from_aggregate():
    records = sample_records()
    claims = [r for r in records if r["type"] == "claim"]
    results = [r for r in records if r["type"] == "result"]
    expected = {cid: st for cid, st in aggregate(claims, results).items()}
    rows = claim_rows(report_html(records))
    for cid, st in expected.items():
        word = S.FULLY_VERIFIED if st["fully_verified"] else st["status"]
        assert rows[cid] == "-".join(word.split()), cid
    assert rows["toy.thm3"] == "refuted"
    assert rows["toy.lem6"] == "control-failed"
    assert rows["toy.lem7"] == "vacuous"
    assert rows["toy.lem8"] == "unguarded"  # its only control breaks a hypothesis
    assert rows["toy.lem5"] == "error"
    assert rows["toy.lem4"] == "inconclusive"
    assert rows["toy.def1"] == "not-checkable"
    assert rows["toy.lem2"] == "fully-verified"
    assert rows["toy.lem1"] == "verified"  # it uses a not-checkable definition


def test_overview_counts_per_paper(page):
    table = page.split('<table id="overview-table">', 1)[1].split("</table>", 1)[0]
    toy = table.split('<tr data-paper="toy">', 1)[1].split("</tr>", 1)[0]
    cells = dict(re.findall(r'data-status="([^"]+)">(?:<a [^>]*>)?(\d+)', toy))
    assert cells["refuted"] == "1" and cells["error"] == "1" and cells["control-failed"] == "1"
    assert cells["verified"] == "4"  # lem1, lem2, thm3.amended, xss
    assert cells["fully-verified"] == "3"  # lem1 uses a not-checkable definition
    assert cells["not-checkable"] == "1"
    assert cells["unguarded"] == "1"


def test_statement_is_escaped_everywhere(page):
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(&#x27;owned&#x27;)&lt;/script&gt;" in page
    assert page.count("<script>") == 1  # the page's own filter script
    assert "&amp; &quot;quotes&quot;" in page


def test_no_external_resources(page):
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:|//)""", page, re.I)
    assert "<link" not in page and "@import" not in page and "url(http" not in page
    assert "<iframe" not in page


def test_math_is_mathml_from_latex2mathml():
    html = text_html(r"Then $\gamma(\theta) \le \frac{1+\alpha}{4}\,\|w\|_2^2$ for $t \to \infty$.")
    assert html.startswith("Then <math>") and html.count("<math>") == 2
    assert "<mfrac>" in html and "<msubsup>" in html and "γ" in html and "∞" in html
    assert not has_raw_tex(visible_text(html))
    display = text_html(r"$$\sum_{i \in I_+} \mu_- x_i$$")
    assert '<math display="block">' in display and "<munder>" in display or "<msub>" in display
    # A formula latex2mathml cannot parse is shown as its escaped source, never dropped.
    assert "x" in text_html("$" + "{" * 5000 + "x" + "}" * 5000 + "$")


def test_mathml_output_is_rebuilt_from_a_whitelist():
    for tex in (r"$\text{<script>alert(1)</script>}$", r"$\href{javascript:alert(1)}{x}$", r"$a < b \& c$"):
        html = text_html(tex)
        assert "<script" not in html and "href" not in html and "javascript" not in html.replace("<mi>", "")
    assert "&lt;" in text_html("$a < b$") or "<mo>&lt;</mo>" in text_html("$a < b$")


def test_pseudo_tex_names_become_mathml_and_mathtext():
    for name, sub in (("w_+^T x", "<msubsup><mi>w</mi>"), ("C_{delta/2}", "<mi>δ</mi>"), ("x_- and mu_-", "<mi>μ</mi>"),
                      ("W_max^2", "<msubsup><mi>W</mi>"), ("||x_i|| <= 1", "<msub><mi>x</mi><mi>i</mi></msub>")):
        html = label_html(name)
        assert sub in html, (name, html)
        assert not has_raw_tex(visible_text(html))
    assert label_html("fixture_kind max_abs_G") == "fixture_kind max_abs_G"  # identifiers stay words
    assert label_mathtext("C_{delta/2} vs t") == r"$C_{\delta/2}$ vs t"
    assert label_mathtext("cost in $") == r"cost in \$"


def test_claim_section_shows_hypotheses_fixtures_evidence_and_dependencies(page):
    sec = page.split('id="claim-toy.lem1"', 1)[1].split('<details class="claim"', 1)[0]
    assert "data separable" in sec and "2 of 2" in sec and "0.1" in sec
    assert "gauss-0.0" in sec and "toy.gauss" in sec and "n=4, d=2" in sec
    assert "measured" in sec and "predicted" in sec and "tolerance" in sec
    assert "python -m verify run toy.lem1 --task 1.0 --seed 7" in sec
    assert "verify --no-builtin run module:tests toy.lem1 --profile quick --seed 0" in sec  # the claim's command, as the run ran it
    assert "control caught (refuted)" in sec
    assert 'href="#claim-toy.def1"' in sec  # uses
    assert 'href="#claim-toy.thm3"' in sec  # used by
    assert "data:image/svg+xml," in sec
    err = page.split('id="claim-toy.lem5"', 1)[1].split('<details class="claim"', 1)[0]
    assert "ZeroDivisionError: division by zero" in err


def test_errata_pick_smallest_counterexample_and_show_amendment(page):
    model = build_model(sample_records())
    errata = find_errata(model)
    assert [e.view.id for e in errata] == ["toy.thm3"]
    e = errata[0]
    assert e.counterexample["task_id"] == "0.1"  # certificate of 1 number beats one of 3
    assert e.refuting == 2 and e.violation == pytest.approx(0.1)
    assert [a.id for a in e.amendments] == ["toy.thm3.amended"]
    section = page.split('<section id="errata">', 1)[1].split("</section>", 1)[0]
    assert "toy.<wbr>thm3.<wbr>amended" in section and "As printed" in section and "Amended" in section
    assert "the printed constant is off by 2" in section
    assert "<b>2 of 2</b> fixtures refute" in section and "measured 1, above the bound 2" in section


def test_plots_are_svg_and_capped():
    from urllib.parse import unquote

    results = [result_line("p.c", "0.0", S.PASS, series=[series(f"s{k}") for k in range(MAX_PLOTS_PER_CLAIM + 3)])]
    plots = claim_plots(results, PlotBudget())
    drawn = [p for p in plots if p.data_uri]
    assert len(drawn) == MAX_PLOTS_PER_CLAIM
    assert "3 more series not drawn" in plots[-1].note
    assert drawn[0].data_uri.startswith("data:image/svg+xml,") and "#" not in drawn[0].data_uri
    svg = unquote(drawn[0].data_uri.split(",", 1)[1])
    assert "<svg" in svg and "reference 0.5" in svg and "<script" not in svg
    starved = claim_plots(results, PlotBudget(total=100))
    assert not any(p.data_uri for p in starved) and "budget" in starved[0].note


def test_dependency_graph_layout_by_depth():
    model = build_model(sample_records())
    toy = model.of_paper("toy")
    d = depths({v.id: list(v.claim["uses"]) for v in toy})
    assert d["toy.def1"] == 0 and d["toy.lem1"] == 1 and d["toy.thm3"] == 2
    svg = dependency_svg(model.of_paper("other"), "other", 1, model.claims)
    assert '<title>toy.lem2: fully verified (another paper)</title>' in svg
    assert "not in this report" in dependency_svg(model.of_paper("other"), "other", 1)
    assert svg.count("marker-end=") == 1  # other.thm1 <- toy.lem2, drawn as an outside node


def test_merge_of_two_partial_runs(tmp_path):
    records = sample_records()
    toy = [r for r in records if r.get("claim", r.get("id", "")).startswith("toy")]
    other = [r for r in records if r.get("claim", r.get("id", "")).startswith("other")]
    rerun = result_line("toy.lem7", "0.0", S.PASS)  # the second run fixed lem7's fixture
    probe = probe_line("toy.lem7", "2.0")  # and ran a control on which its conclusion fails
    for name, part in (("a.jsonl", [records[0], *toy]), ("b.jsonl", [records[0], *other, rerun, probe])):
        with RecordWriter(tmp_path / name) as w:
            for r in part:
                w.write(r)
    merged = merge([tmp_path / "a.jsonl", tmp_path / "b.jsonl"])
    out = render_report(merged, tmp_path / "sub" / "report.html")
    page = inflate(out.read_text(encoding="utf-8"))
    rows = claim_rows(page)
    assert sorted(rows) == sorted(CLAIM_IDS)
    assert rows["toy.lem7"] == "fully-verified"  # the later result replaced the vacuous one
    assert "Verification report: other, toy" in page


def test_result_without_claim_line_and_non_finite_values():
    records = [result_line("lone.thm9", "0.0", S.REFUTED, slack="-inf",
                           comparisons=[{"name": "x", "relation": "==", "measured": "nan", "predicted": [1.0] * 20,
                                         "tolerance": 0.0, "holds": False, "slack": "-inf", "detail": "non-finite"}])]
    page = inflate(report_html(records))
    assert claim_rows(page) == {"lone.thm9": "refuted"}
    assert "no catalogue entry" in page and "(20 entries)" in page and "-inf" in page


def test_expected_refutation_not_found_is_listed():
    records = [claim_line("p.thm", expected=S.ST_REFUTED), result_line("p.thm", "0.0", S.PASS)]
    section = report_html(records).split('<section id="errata">', 1)[1].split("</section>", 1)[0]
    assert "Errata (0)" in section and "Expected refutations not found (1)" in section
    assert 'href="#claim-p.thm"' in section


ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "main", "nav", "section", "h1", "h2", "h3", "h4",
    "p", "div", "span", "a", "table", "thead", "tbody", "tr", "th", "td", "details", "summary", "code", "pre",
    "ul", "li", "i", "b", "sub", "sup", "br", "wbr", "select", "option", "label", "input", "button", "figure",
    "figcaption", "img", "svg", "defs", "marker", "path", "rect", "text", "script", "colgroup", "col",
    "blockquote",
} | set(MATHML_TAGS)


def test_hostile_strings_in_every_field_stay_text():
    from html.parser import HTMLParser

    evil = '"><img src=x onerror=alert(1)><script>alert(2)</script>'
    cid = "evil." + evil.replace(" ", "_")
    claim = claim_line(cid, statement=f"{evil} ${evil}$ $\\text{{{evil}}}$", title=evil, hypotheses=(evil,),
                       uses=[f"other.{evil}"])
    claim["reason"], claim["judged_by"], claim["tags"] = evil, evil, [evil]
    res = result_line(cid, evil, S.REFUTED, quantities={evil: evil}, certificate={evil: [evil]},
                      series=[{**series(evil), "xlabel": evil, "y": {evil: [1, 2, 3]}}], reason=evil)
    res.update(family=evil, label=evil, params={evil: evil}, mutation=evil, repro=evil, traceback=evil)
    res["evidence"]["comparisons"][0].update(name=evil, detail=evil, relation=evil)
    res["evidence"]["notes"] = [evil]
    page = inflate(report_html([{"type": "run", "run_id": evil, "selectors": [evil]}, claim, res], title=evil))

    class Tags(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tags: list[tuple[str, list]] = []

        def handle_starttag(self, tag, attrs):
            self.tags.append((tag, attrs))

    parser = Tags()
    parser.feed(page)
    assert {t for t, _ in parser.tags} <= ALLOWED_TAGS
    assert [t for t, _ in parser.tags].count("script") == 1
    assert "<script>alert" not in inflate(page) and "<img src=x" not in inflate(page)
    assert not [(t, a) for t, attrs in parser.tags for a, _ in attrs if a.startswith("on")]
    imgs = [dict(attrs)["src"] for t, attrs in parser.tags if t == "img"]
    assert imgs and all(src.startswith("data:image/svg+xml,") for src in imgs)


def test_merged_runs_carry_a_run_column_and_full_commands():
    run1 = {"type": "run", "run_id": "aaa", "profile": "quick", "seed": 0, "executor": "pool", "host": "node-a",
            "commit": "abc123", "jobs": 2, "started": "2026-01-01T00:00:00"}
    run2 = {**run1, "run_id": "bbb", "seed": 5, "profile": "standard", "host": "node-b", "executor": "dask"}
    first = {**result_line("toy.lem2", "0.0", S.PASS, seed=11), "run_id": "aaa"}
    second = {**result_line("toy.lem2", "0.0", S.PASS, seed=12), "run_id": "bbb"}
    control = {**result_line("toy.lem2", "1.0", S.REFUTED, kind=S.NEGATIVE), "run_id": "aaa"}
    page = inflate(report_html([run1, run2, claim_line("toy.lem2"), first, second, control]))
    runs = page.split('<table id="runs">', 1)[1].split("</table>", 1)[0]
    assert "node-a" in runs and "node-b" in runs and "abc123" in runs and "dask" in runs
    sec = page.split('id="claim-toy.lem2"', 1)[1]
    fixtures = sec.split('<table class="fixtures">', 1)[1].split("</table>", 1)[0]
    assert "<th>run</th>" in fixtures and "run 1" in fixtures and "run 2" in fixtures
    assert "verify --no-builtin run module:tests toy.lem2 --profile quick --seed 0    # run 1" in sec
    assert "verify --no-builtin run module:tests toy.lem2 --profile standard --seed 5    # run 2" in sec


def test_room_roles_and_empty_quantifiers_are_visible():
    comps = [
        {"name": "integrator error", "relation": "<=", "measured": 1e-12, "predicted": 1e-8, "tolerance": 0.0,
         "holds": True, "slack": 0.9, "detail": "", "role": "validity", "depends": False, "count": None, "room": None},
        {"name": "margin gamma_KKT", "relation": ">=", "measured": 30.0, "predicted": 1.0, "tolerance": 0.0,
         "holds": True, "slack": 29.0, "detail": "", "role": "conclusion", "depends": False, "count": None,
         "room": 30.0},
        {"name": "every neuron with a_k > 0 aligned", "relation": "<=", "measured": [], "predicted": 0.1,
         "tolerance": 0.0, "holds": True, "slack": None, "detail": "empty set: nothing to check",
         "role": "conclusion", "depends": True, "count": 0, "required": True, "room": None},
    ]
    res = result_line("q.lem", "0.0", S.PASS, comparisons=comps)
    res["evidence"]["tightest_room"] = 30.0
    records = [claim_line("q.lem"), res, result_line("q.lem", "1.0", S.REFUTED, kind=S.NEGATIVE)]
    page = inflate(report_html(records))
    row = page.split('<table id="claim-table">', 1)[1].split("</tr>", 2)[1]
    assert "30×" in row and 'class="mark loose"' in row and 'data-loose="1"' in row
    sec = page.split('id="claim-q.lem"', 1)[1]
    assert '<span class="role validity">validity</span>' in sec and '<span class="role">independent</span>' in sec
    assert "empty set: vacuous" in sec
    assert "<msub><mi>γ</mi>" in sec  # gamma_KKT typeset


def test_first_line_of_a_statement_never_cuts_a_formula():
    from verify.report.html import first_line

    long = "Let the data be separable. " + "Then " + "the flow converges " * 12 + r"and $\sum_{i=1}^n a_i^2 \le C$."
    cut = first_line(long)
    assert cut.startswith("Let the data be separable. Then") and cut.endswith(" …") and len(cut) <= 165
    assert "$" not in cut  # the formula would not fit whole, so it is left out, not cut
    text = first_line(r"For every $x \in \mathbb{R}^d$ with $\|x\| \le 1$, we have $f(x) \le \frac{1}{2}$." + " more" * 80)
    assert text.count("$") % 2 == 0 and text.endswith("…")
    assert first_line("One line.\n\nSecond paragraph.") == "One line."


def test_dependency_graph_of_a_hundred_claims_routes_edges_between_nodes():
    import random as stdlib_random

    from verify.report.graph import layout

    rng = stdlib_random.Random(3)
    records = []
    for k in range(120):
        uses = sorted({f"big.c{rng.randrange(k)}" for _ in range(rng.randrange(3))}) if k > 10 else []
        records.append(claim_line(f"big.c{k}", uses=uses))
    records += [claim_line("big.alone1"), claim_line("big.alone2")]
    model = build_model(records)
    lay = layout(model.of_paper("big"), "big")
    assert {n.id for n in lay.isolated} >= {"big.alone1", "big.alone2"}
    for col in lay.columns:  # nodes and waypoints of a column never overlap
        spans = sorted((lay.nodes[n].y, lay.nodes[n].y + lay.nodes[n].h) for n in col)
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    for chain in lay.edges:  # each step of an edge goes to the next column: it passes nodes only in the gaps
        depths_along = [lay.nodes[n].depth for n in chain]
        assert all(b == a + 1 for a, b in zip(depths_along, depths_along[1:]))
    svg = dependency_svg(model.of_paper("big"), "big", 0)
    chips = svg.count('class="gnode chip"')
    assert chips == len(lay.isolated) and svg.count('class="gnode"') + chips == 122


def test_each_statement_typeset_once_outside_the_compressed_card_bodies():
    """Size: a statement's MathML is in the page itself once (the claims table's first line); its card and
    its erratum card carry theirs in the compressed bodies, and all the bodies share one stream here."""
    statement = r"Unique: $\sum_{k=1}^{n} \alpha_k \le \sqrt{\beta}$."
    records = [r if r.get("id") != "toy.thm3" or r.get("type") != "claim" else
               {**r, "statement": statement} for r in sample_records()]
    page = report_html(records)
    streams = lazy_streams(page)
    plain = re.sub(r'<script type="application/gzip" class="z" id="z\d+">[^<]*</script>', "", page)
    typeset = text_html(statement)
    assert "<math>" in typeset and plain.count(typeset) == 1
    assert 'class="statement"' not in plain and "data:image/svg+xml" not in plain
    assert list(streams) == ["0"]
    bodies = streams["0"]
    n_cards = page.count('<details class="claim"') + page.count('<details class="erratum"')
    n_markdown = page.count("<summary>show the Markdown</summary>")
    assert len(bodies) == n_cards + n_markdown == len(re.findall(r'<div class="lazy" data-z="0\.\d+">', page))
    assert sum(b.count(typeset) for b in bodies) == 2  # its claim card and its erratum card
    assert inflate(page).count(typeset) == 3


def test_plot_svg_is_minified_and_lightly_escaped():
    from urllib.parse import unquote

    from verify.report.plots import minify_svg, render_series, svg_data_uri

    r = result_line("p.c", "0.0", S.PASS, series=[series("loss")])
    raw = render_series("loss", [(r, r["evidence"]["series"][0])])
    svg = minify_svg(raw)
    assert len(svg) < 0.85 * len(raw) and "<metadata" not in svg and "<!--" not in svg and "\n" not in svg
    assert not re.search(r'="[^"]*\d\.\d{3,}', svg)  # coordinates to a hundredth of a point
    for ref in re.findall(r"url\(#([\w.-]+)\)|href=\"#([\w.-]+)\"", svg):
        assert f'id="{ref[0] or ref[1]}"' in svg  # every referenced id kept
    uri = svg_data_uri(svg)
    assert unquote(uri.split(",", 1)[1]) == svg and not re.search(r'[#"&\n]', uri)


def test_log_axis_ticks_are_plain_text_powers_of_ten():
    from verify.report.plots import render_series, text_power

    assert text_power(r"$\mathdefault{10^{-2}}$") == "10\u207b\u00b2"
    assert text_power(r"$\mathdefault{10^{13}}$") == "10\u00b9\u00b3"
    assert text_power(r"$\mathdefault{2.5\times10^{0}}$") == "2.5\u00d710\u2070"
    assert text_power("$t_{x}$") == "$t_{x}$" and text_power("") == ""
    s = {**series("loss"), "x": [1e-3, 1.0, 1e3], "y": {"loss": [1e-4, 1e-2, 1.0]}, "logy": True}
    r = result_line("p.c", "0.0", S.PASS, series=[s])
    svg = render_series("loss", [(r, s)])
    assert "mathdefault" not in svg and ">10\u207b\u00b2<" in svg and ">10\u00b3<" in svg   # both axes


def test_wide_log_axes_draw_no_minor_ticks_narrow_ones_keep_them():
    """Past MINOR_TICK_DECADES decades a log axis has no minor ticks (matplotlib left them unlabelled there);
    within one decade the minor ticks, which then carry the only labels, stay."""
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    from verify.report.plots import MINOR_TICK_DECADES, _text_log_axis

    def minor_ticks(lo, hi):
        fig = Figure()
        FigureCanvasSVG(fig)
        ax = fig.add_subplot()
        ax.plot([1, 2], [lo, hi])
        ax.set_yscale("log")
        _text_log_axis(ax.yaxis)
        ax.set_ylim(lo, hi)
        return ax.yaxis.get_minorticklocs()

    assert len(minor_ticks(1e-12, 1.0)) == 0
    assert len(minor_ticks(1.0, 10.0 ** (MINOR_TICK_DECADES + 0.5))) == 0
    narrow = minor_ticks(2.0, 8.0)
    assert sum(2.0 <= t <= 8.0 for t in narrow) >= 3


def test_errata_markdown_download_is_its_folded_copy():
    from html import unescape
    from urllib.parse import unquote

    page = report_html(sample_records())
    href = re.search(r'<a download="errata-toy.md" href="([^"]+)"', page).group(1)
    assert href.startswith("data:text/markdown;charset=utf-8,") and not re.search(r"[<>'&#\n]", href)
    folded = re.search(r"show the Markdown</summary><div class=\"lazy\"><pre>(.*?)</pre>", inflate(page), re.S)
    assert unquote(href.split(",", 1)[1]) == unescape(folded.group(1)) and "Errata summary" in folded.group(1)
