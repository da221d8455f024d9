"""Status colours, CSS-safe status slugs and the stylesheet of the report (one place for the look)."""

from __future__ import annotations

import re

from .. import settings as S

# (fill, text colour) per display status; not checkable / not run are drawn pale with a dashed edge.
STATUS_COLOURS: dict[str, tuple[str, str]] = {
    S.FULLY_VERIFIED: ("#1b7f3a", "#ffffff"),
    S.VERIFIED: ("#9bd8a9", "#0b2e14"),
    S.ST_REFUTED: ("#d64545", "#ffffff"),
    S.ST_INCONCLUSIVE: ("#f2c14e", "#3d2c00"),
    S.ST_ERROR: ("#7b3fa0", "#ffffff"),
    S.ST_VACUOUS: ("#b8c4d6", "#1c2635"),
    S.CONTROL_FAILED: ("#f08c2e", "#2e1700"),
    S.UNGUARDED: ("#e0701b", "#ffffff"),
    S.NOT_CHECKABLE: ("#ffffff", "#444444"),
    S.NOT_RUN: ("#eeeeee", "#666666"),
}
VERDICT_COLOURS: dict[str, str] = {
    S.PASS: "#1b7f3a", S.REFUTED: "#c62828", S.VACUOUS: "#5a6b85", S.INCONCLUSIVE: "#a87900",
    S.ERROR: "#7b3fa0",
    # A negative control's outcome: caught is what the harness wants (good), not caught is alarming.
    "caught": "#1b7f3a", "missed": "#c62828",
}
# Order of the unexpected outcomes in the banner: a claim whose power is not shown comes first.
BANNER_ORDER = (S.UNGUARDED, S.CONTROL_FAILED, S.ST_ERROR, S.ST_REFUTED, S.ST_INCONCLUSIVE, S.ST_VACUOUS,
                S.VERIFIED, S.NOT_RUN, S.NOT_CHECKABLE)
# Order of the overview columns and of the status filter.
OVERVIEW_STATUSES = (
    S.VERIFIED, S.FULLY_VERIFIED, S.ST_REFUTED, S.ST_INCONCLUSIVE, S.ST_VACUOUS, S.CONTROL_FAILED,
    S.UNGUARDED, S.ST_ERROR, S.NOT_CHECKABLE, S.NOT_RUN,
)


def slug(word: str) -> str:
    """``"control failed"`` -> ``"control-failed"``: a status word usable in class names and URL hashes."""
    return "-".join(word.split())


def status_classes_css() -> str:
    rules = []
    for status, (fill, text) in STATUS_COLOURS.items():
        border = "#888" if fill in ("#ffffff", "#eeeeee") else fill
        rules.append(f".st-{slug(status)}{{background:{fill};color:{text};border-color:{border}}}")
    for verdict, colour in VERDICT_COLOURS.items():
        rules.append(f".v-{slug(verdict)}{{color:{colour};font-weight:600}}")
    return "\n".join(rules)


def scoped_css(scope: str) -> str:
    """The report's style with every rule limited to ``scope`` (a card shown inside a notebook must not
    restyle the notebook)."""
    rules = []
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", CSS + "\n" + status_classes_css()):
        scoped = []
        for sel in selectors.split(","):
            sel = sel.strip()
            scoped.append(scope if sel == "body" else f"{scope} {sel}")
        rules.append(",".join(scoped) + "{" + body.strip() + "}")
    return "\n".join(rules)


CSS = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;color:#1d1d1f;
 background:#fafafa}
header,main{max-width:1600px;margin:0 auto;padding:0 18px}
header{padding-top:14px}
h1{font-size:22px;margin:6px 0}
h2{font-size:18px;border-bottom:2px solid #ddd;padding-bottom:3px;margin-top:30px}
h3{font-size:15px;margin:18px 0 6px}
h4{font-size:13px;margin:14px 0 4px;color:#333}
nav a{margin-right:14px}
a{color:#0b57b0}
table{border-collapse:collapse;margin:6px 0;background:#fff}
th,td{border:1px solid #d8d8d8;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f0f0f2;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
code,pre,.mono{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px}
pre{background:#f4f4f6;border:1px solid #e0e0e0;padding:6px 8px;overflow-x:auto;white-space:pre-wrap;
 word-break:break-word;max-height:360px}
math{font-family:"Latin Modern Math","STIX Two Math","Cambria Math",math;font-size:1.05em}
math[display=block]{margin:6px 0}
code.tex{color:#8a3b00}
.badge{display:inline-block;padding:0 7px;border-radius:9px;border:1px solid;font-size:12px;white-space:nowrap}
.mark{display:inline-block;padding:0 6px;border-radius:3px;font-size:11px;white-space:nowrap;border:1px solid}
.mark.loose{background:#fff4d6;border-color:#c99a00;color:#6b5000}
.mark.cannot-fail{background:#eef0f5;border-color:#5a6b85;color:#26324a;white-space:normal}
.mark.unexpected{background:#fde8e8;border-color:#c62828;color:#8e0000;font-weight:700}
.unexpected{color:#b00020;font-weight:700}
.muted{color:#6b6b6b}
.small{font-size:12px}
.ok{color:#1b7f3a;font-weight:700}
.bad{color:#c62828;font-weight:700}
[hidden]{display:none!important}
/* Sections below the first screen are laid out when they come near it (MathML layout is not free). */
#errata,#claims,#graphs,#details{content-visibility:auto;contain-intrinsic-size:auto 1200px}
details.claim{content-visibility:auto;contain-intrinsic-size:auto 36px}
.banner{border:2px solid #c62828;background:#fff5f5;border-radius:8px;padding:8px 14px;margin:12px 0}
.banner.good{border-color:#1b7f3a;background:#f3fbf5}
.banner h2{margin:0 0 6px;border:0;font-size:17px;color:#8e0000}
.banner.good h2{color:#1b5e20}
.banner ul{margin:4px 0;padding-left:20px}
.banner li{margin:2px 0}
.filters{display:flex;gap:10px 16px;align-items:center;flex-wrap:wrap;margin:8px 0}
.filters label{font-weight:600}
.filters .check{font-weight:400}
#overview-table{width:100%;table-layout:fixed}
#overview-table th,#overview-table td{overflow-wrap:anywhere}
#overview-table th:first-child{width:9%}
#overview-table th,#overview-table td{padding:3px 5px}
#overview-table tr:first-child th{font-size:12px;font-weight:600}
#overview-table th .badge,#overview-table th .mark{font-size:11px;padding:0 4px;white-space:normal}
#claim-table{width:100%;table-layout:fixed}
#claim-table td{overflow-wrap:anywhere}
#claim-table th{overflow-wrap:break-word}
#claim-table .badge{white-space:normal}
#claim-table col.c-id{width:15%}
#claim-table col.c-paper{width:6.5%}
#claim-table col.c-kind{width:6.5%}
#claim-table col.c-stmt{width:28%}
#claim-table col.c-status{width:9%}
#claim-table col.c-marks{width:8%}
#claim-table col.c-room{width:6%}
#claim-table col.c-pos{width:10%}
#claim-table col.c-neg{width:11%}
#claim-table th[data-sort]{cursor:pointer;user-select:none}
#claim-table th[data-sort]::after{content:" \\2195";color:#aaa;font-weight:400}
#claim-table th[aria-sort=ascending]::after{content:" \\25B2";color:#333}
#claim-table th[aria-sort=descending]::after{content:" \\25BC";color:#333}
details.claim{background:#fff;border:1px solid #d8d8d8;border-radius:6px;margin:8px 0;padding:4px 12px}
details.claim>summary{cursor:pointer;padding:4px 0}
details.claim>summary .cid{font-family:"DejaVu Sans Mono",Menlo,monospace;font-weight:700}
.scroll{overflow-x:auto;max-width:100%}
table.fixtures{width:100%;table-layout:fixed}
table.fixtures td{overflow-wrap:anywhere}
table.fixtures td.reason{font-size:12px}
table.evidence{width:100%}
table.evidence td{overflow-wrap:anywhere}
details.fixture{margin:4px 0 4px 8px}
details.fixture>summary{cursor:pointer}
.statement{background:#fdfdf6;border-left:4px solid #c9c37a;padding:6px 10px;margin:6px 0}
.role{font-size:11px;padding:0 4px;border-radius:3px;border:1px solid #999;white-space:nowrap}
.role.validity{background:#eef3fb;border-color:#6d8fc7}
.graph{overflow-x:hidden;overflow-y:auto;max-height:900px;background:#fff;border:1px solid #d8d8d8;border-radius:6px;
 padding:6px}
.graph svg.depgraph{display:block;touch-action:none}
.graph-tools button{margin-right:6px}
.graph svg a:hover rect{stroke:#000;stroke-width:2}
.isolated{margin-top:8px;display:flex;flex-wrap:wrap;gap:4px}
.isolated>div{flex-basis:100%}
.chip{font:11px "DejaVu Sans Mono",Menlo,monospace;padding:1px 6px;border:1px solid #555;border-radius:4px;
 text-decoration:none}
.legend span{margin-right:8px}
.plots{display:flex;flex-direction:column;gap:8px}
.plots figure{margin:0;background:#fff;border:1px solid #e0e0e0;padding:4px;max-width:100%}
.plots img{max-width:100%;height:auto}
.plots figcaption{font-size:12px;color:#555}
table.errata{width:100%}
table.errata td{overflow-wrap:anywhere}
tr.kind-row th{background:#fbeaea;color:#6d0000}
tr.inherits td:first-child{padding-left:22px}
details.erratum{background:#fff;border:1px solid #e3b5b5;border-left:5px solid #c62828;border-radius:6px;
 padding:4px 12px;margin:8px 0}
details.erratum>summary{cursor:pointer;padding:3px 0}
.sidebyside{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.sidebyside>div{min-width:0}
.amended{border-left:4px solid #1b7f3a;padding-left:8px}
.kv td:first-child{font-weight:600;white-space:nowrap}
blockquote{margin:4px 0;padding:2px 10px;border-left:3px solid #bbb;color:#333}
"""
