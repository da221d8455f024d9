"""Issue 32 in the report: the issue-27 fields (fidelity, marks, hypotheses shown necessary, probes, crashed
controls, errata by root and the second method's independence) rendered from hand-made records, older records
without them, plain-text mathematics typeset, one-line summaries, identities' residuals."""

from __future__ import annotations

import re

from test_report import claim_line, inflate, probe_line, result_line, visible_text

from verify import settings as S
from verify.report import fmt, report_html
from verify.report.html import claim_section_html, overview_html
from verify.report.mathml import first_line, plain_math_tex, prose_html
from verify.report.model import ClaimView, build_model
from verify.report.plots import PlotBudget

NEG = dict(kind=S.NEGATIVE)


def _erratum(summary: str, root: str | None = None, independence: str | None = None) -> dict:
    return {"kind": "false statement", "location": "Lemma 1", "printed": "||theta0||_M <= lambda0+",
            "reading": "as printed", "second_method": "exact arithmetic of mu~", "summary": summary,
            "amended": None, "difference": None, "amended_id": None, "root": root, "independence": independence}


def records() -> list[dict]:
    proxy = {**claim_line("p.proxy"), "fidelity": "proxy", "fidelity_note": "a smoothed stand-in for the loss"}
    ack = {**claim_line("p.ack"), "cannot_fail": "an identity of the construction"}
    loose = claim_line("p.loose")
    crashed = claim_line("p.crashed")
    root = {**claim_line("p.root", expected=S.ST_REFUTED),
            "erratum": _erratum("the slip: a factor 2 dropped", independence="exact arithmetic")}
    child = {**claim_line("p.child", expected=S.ST_REFUTED),
             "erratum": _erratum("inherits the factor 2", root="p.root", independence=S.SAME_METHOD)}
    room = [{"name": "C bound", "relation": "<=", "measured": 1.0, "predicted": 50.0, "tolerance": 0.0,
             "holds": True, "slack": 0.98, "detail": "", "role": "conclusion", "depends": True, "count": None,
             "room": 50.0}]
    crash = {**result_line("p.crashed", "2.0", S.VACUOUS, kind=S.NEGATIVE, expected=[S.REFUTED, S.VACUOUS],
                           hyp_holds=False), "mutation": None, "unmet": ["data separable"],
             "probe": S.PROBE_UNDEFINED, "crashed": True}
    return [
        {"type": "run", "run_id": "r1", "profile": "quick", "seed": 0},
        proxy, result_line("p.proxy", "0.0", S.PASS), result_line("p.proxy", "1.0", S.REFUTED, **NEG),
        probe_line("p.proxy"),
        claim_line("p.cannot"), result_line("p.cannot", "0.0", S.PASS),
        result_line("p.cannot", "1.0", S.REFUTED, **NEG),
        ack, result_line("p.ack", "0.0", S.PASS), result_line("p.ack", "1.0", S.REFUTED, **NEG),
        loose, result_line("p.loose", "0.0", S.PASS, comparisons=room), result_line("p.loose", "1.0", S.REFUTED, **NEG),
        probe_line("p.loose"),
        crashed, result_line("p.crashed", "0.0", S.PASS), result_line("p.crashed", "1.0", S.REFUTED, **NEG), crash,
        root, result_line("p.root", "0.0", S.REFUTED, slack=-0.5), result_line("p.root", "1.0", S.REFUTED, **NEG),
        child, result_line("p.child", "0.0", S.REFUTED, slack=-0.5), result_line("p.child", "1.0", S.REFUTED, **NEG),
    ]


def card(page: str, cid: str) -> str:
    return page.split(f'<details class="claim" id="claim-{cid}"', 1)[1].split("</details>\n", 1)[0]


def test_fidelity_marks_hypotheses_and_probes_are_shown():
    page = inflate(report_html(records()))
    model = build_model(records())
    assert model.claims["p.proxy"].fidelity == "proxy" and model.claims["p.loose"].fidelity == "faithful"
    row = page.split('<tr data-id="p.proxy"', 1)[1].split("</tr>", 1)[0]
    assert 'class="small muted fidelity" title="a smoothed stand-in for the loss">proxy<' in row
    assert "hypotheses shown necessary: 1 of 1 broken" in row
    cannot = page.split('<tr data-id="p.cannot"', 1)[1].split("</tr>", 1)[0]
    assert 'data-cannotfail="1"' in cannot and 'data-unexpected="1"' in cannot and S.CANNOT_FAIL in cannot
    banner = page.split('id="banner"', 1)[1].split("</div>", 1)[0]
    assert 'data-id="p.cannot"' in banner and "cannot fail here: the printed conclusion held on every fixture" in banner
    ack = page.split('<tr data-id="p.ack"', 1)[1].split("</tr>", 1)[0]
    assert 'data-unexpected="0"' in ack and "cannot fail here (acknowledged)" in ack
    assert "acknowledged: an identity of the construction" in card(page, "p.ack")
    loose = page.split('<tr data-id="p.loose"', 1)[1].split("</tr>", 1)[0]
    assert 'class="mark loose" title="C bound: room 50×' in loose
    assert "loose conclusions" in card(page, "p.loose")
    crashed = page.split('<tr data-id="p.crashed"', 1)[1].split("</tr>", 1)[0]
    assert "1 crashed" in crashed and "hypotheses shown necessary: 0 of 1 broken" in crashed
    c = card(page, "p.crashed")
    assert "not shown necessary" in c and "conclusion undefined off its hypotheses: 1" in c
    assert 'id="filter-cannotfail"' in page


def test_overview_counts_fidelity_marks_hypotheses_and_errata():
    model = build_model(records())
    html = overview_html(model)
    row = html.split('<tr data-paper="p">', 1)[1].split("</tr>", 1)[0]
    assert re.search(r"data-count=fidelity>[^<]*1 proxy", row)
    assert 'data-status=cannot-fail-here><a href="#paper=p&amp;cannotfail=1">' in row
    hyps = re.search(r"data-count=hypotheses[^>]*>(\d+) / (\d+)<", row).groups()
    assert hyps == ("2", "3")  # proxy and loose shown necessary; crashed broken, not shown
    assert re.search(r"data-count=errata[^>]*>1 / 2<", row)  # one independent slip, two statements


def test_errata_grouped_under_their_root_with_the_independence_of_the_second_method():
    page = inflate(report_html(records()))
    table = page.split('id="errata-table"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<tr data-claim="([^"]+)"', table)
    assert rows == ["p.root", "p.child"]
    child = table.split('<tr data-claim="p.child"', 1)[1].split("</tr>", 1)[0]
    assert 'class="inherits" data-root="p.root"' in child and "inherits the slip of" in child
    assert "same-method confirmation (not a second method)" in child
    root = table.split('<tr data-claim="p.root"', 1)[1].split("</tr>", 1)[0]
    assert ">exact arithmetic<" in root
    assert "1 independent slip(s); 2 statement(s) affected" in page
    assert "1 independent slip(s), and 1 statement(s) inheriting them" in table


def test_older_records_without_the_new_fields_render():
    """A status as an older summary.json has it (no fidelity, marks, probes): the card and overview render."""
    status = {"status": S.VERIFIED, "paper": "old", "as_expected": True, "negative_controls": {"total": 1, "caught": 1,
                                                                                              "powered": 1}}
    claim = {"id": "old.thm", "paper": "old", "kind": "theorem", "statement": "$x$", "uses": []}
    v = ClaimView(claim, [result_line("old.thm", "0.0", S.PASS)], status)
    assert v.marks == [] and v.fidelity is None and not v.cannot_fail
    html = claim_section_html(v, build_model([]), PlotBudget())
    assert "<td>fidelity</td>" not in html and S.CANNOT_FAIL not in html
    old = [{k: x for k, x in r.items() if k not in ("fidelity", "unmet", "probe")} for r in records()]
    page = report_html(old)  # claim lines without fidelity: undeclared, never faithful
    assert "undeclared" in page


CATALOGUE = [
    "with the printed mu~ the 'linear flow' moves twice as fast as the true one: the error is first order in "
    "||theta0||, not cubic",
    "lambda0+ = ||mu+|| and w(t) = -e^{-||mu-|| t/2} mubar- solves (61)",
    "||theta(t) - phi~(theta0, t)||_M <= (4m||theta0||_M^3/lambda0) exp(3 lambda0 t) for all t <= (1/lambda0) "
    "ln(sqrt(lambda0/4)/(sqrt(m)||theta0||_M))",
    "on int(C) grad G = mu+/2, not mu+: lambda0+- = ||mu+-||/2; abar_k > 0 and r theta^",
]


def test_plain_text_math_is_converted_to_tex_conservatively():
    assert plain_math_tex(CATALOGUE[0]).startswith(r"with the printed $\tilde{\mu}$ the")
    assert r"$\|\theta_{0}\|$" in plain_math_tex(CATALOGUE[0])
    assert plain_math_tex(CATALOGUE[1]) == (r"$\lambda_{0}^{+}$ = $\|\mu_{+}\|$ and w(t) = -$e^{-\|\mu_{-}\| t/2}$ "
                                             r"$\bar{\mu}_{-}$ solves (61)")
    third = plain_math_tex(CATALOGUE[2])
    assert "$$" not in third and r"$\sqrt{m}\|\theta_{0}\|_{M}$" in third  # adjacent pieces: one formula
    assert r"$\|\theta_{0}\|_{M}^{3}$" in third
    assert r"$\lambda_{0}^{\pm}$ = $\|\mu_{\pm}\|$" in plain_math_tex(CATALOGUE[3])
    assert r"$\bar{a}_{k}$" in plain_math_tex(CATALOGUE[3]) and r"r $\hat{\theta}$" in plain_math_tex(CATALOGUE[3])
    # English stays English; TeX already there is left alone.
    for text in ("a bar of chocolate, the hat^ is on", "emu, mutual, alphabet, betatron",
                 r"already $\mu_+ \le \|x\|$ typeset", "x - y = 2 and f(x) = 3", "C++, a~b, x^y"):
        assert plain_math_tex(text) == text, text
    # ASCII relations between spaces become their symbols; powers with a bracketed exponent are raised.
    assert plain_math_tex("a <= b, c != d, t -> 0, size ~ 2") == "a ≤ b, c ≠ d, t → 0, size ∼ 2"
    assert plain_math_tex("sigma^(1/2) and r^(1-kappa)") == r"$\sigma^{1/2}$ and $r^{1-\kappa}$"
    for text in CATALOGUE:
        html = prose_html(text)
        seen = visible_text(html)
        assert "||" not in seen and "mu~" not in seen and "lambda" not in seen and "<math" in html, seen


def test_summary_is_one_line_and_not_repeated_in_the_card():
    long = ("on the described data GD converges to a nonlinear classifier with 2.3x the margin of (1/2)phi(<w+, x>). "
            + "More detail follows here. " * 20)
    recs = records()
    for r in recs:
        if r.get("id") == "p.root":
            r["erratum"] = {**r["erratum"], "summary": long}
            r["expected_reason"] = long
    page = inflate(report_html(recs))
    table = page.split('id="errata-table"', 1)[1].split("</table>", 1)[0]
    cell = table.split('<tr data-claim="p.root"', 1)[1].split("</td>", 2)[1]
    assert "More detail" not in visible_text(cell) and "<math" in cell
    assert first_line(long).endswith("phi(<w+, x>).")
    kv = card(page, "p.root").split("<table class=kv>", 1)[1].split("</table>", 1)[0]
    assert visible_text(kv).count("More detail follows here") == 20  # once, in the erratum row


def test_identity_slack_reads_as_an_absolute_residual():
    c = {"name": "u.v", "relation": "==", "measured": 0.75, "predicted": 0.0, "tolerance": 1e-12,
         "holds": False, "slack": -7.5e11}
    assert fmt.residual(c) == 0.75 and "|Δ| 0.75" in fmt.slack_html(c)
    arr = {**c, "measured": [0.1, 0.2], "predicted": [0.0, 0.0], "tolerance": 1e-10, "slack": (1e-10 - 0.2) / 1e-10}
    assert abs(fmt.residual(arr) - 0.2) < 1e-9
    assert fmt.slack_html({**c, "relation": "<=", "slack": 0.25}) == "0.25"
    ev = {"slack": -7.5e11, "comparisons": [c]}
    assert "|Δ| 0.75" in fmt.evidence_slack_html(ev)
