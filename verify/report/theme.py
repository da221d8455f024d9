"""Status colours, CSS-safe status slugs and the stylesheet of the report (one place for the look)."""

from __future__ import annotations

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
    S.PASS: "#1b7f3a", S.REFUTED: "#d64545", S.VACUOUS: "#5a6b85", S.INCONCLUSIVE: "#a87900",
    S.ERROR: "#7b3fa0",
}
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
        rules.append(f".v-{verdict}{{color:{colour};font-weight:600}}")
    return "\n".join(rules)


CSS = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;color:#1d1d1f;
 background:#fafafa}
header,main{max-width:1200px;margin:0 auto;padding:0 18px}
header{padding-top:14px}
h1{font-size:22px;margin:6px 0}
h2{font-size:18px;border-bottom:2px solid #ddd;padding-bottom:3px;margin-top:30px}
h3{font-size:15px;margin:18px 0 6px}
h4{font-size:13px;margin:12px 0 4px;color:#333}
nav a{margin-right:14px}
a{color:#0b57b0}
table{border-collapse:collapse;margin:6px 0;background:#fff}
th,td{border:1px solid #d8d8d8;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f0f0f2;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums}
code,pre,.mono{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px}
pre{background:#f4f4f6;border:1px solid #e0e0e0;padding:6px 8px;overflow-x:auto;white-space:pre-wrap;
 word-break:break-word;max-height:360px}
.badge{display:inline-block;padding:0 7px;border-radius:9px;border:1px solid;font-size:12px;white-space:nowrap}
.unexpected{color:#b00020;font-weight:700}
.muted{color:#777}
.small{font-size:12px}
.ok{color:#1b7f3a;font-weight:700}
.bad{color:#d64545;font-weight:700}
[hidden]{display:none!important}
.filters{display:flex;gap:14px;align-items:center;flex-wrap:wrap;margin:8px 0}
.filters label{font-weight:600}
details.claim{background:#fff;border:1px solid #d8d8d8;border-radius:6px;margin:8px 0;padding:4px 10px}
details.claim>summary{cursor:pointer;padding:4px 0}
details.claim>summary .cid{font-family:"DejaVu Sans Mono",Menlo,monospace;font-weight:700}
details.claim table{display:block;overflow-x:auto;max-width:100%}
details.fixture{margin:4px 0 4px 8px}
details.fixture>summary{cursor:pointer}
.statement{background:#fdfdf6;border-left:4px solid #c9c37a;padding:6px 10px;margin:6px 0}
.math{font-family:"Latin Modern Math","STIX Two Math","Cambria Math","DejaVu Serif",serif;font-size:15px}
.math i{font-style:italic}
.math .up{font-style:normal}
.math.display{display:block;text-align:center;margin:6px 0}
.frac{display:inline-flex;flex-direction:column;vertical-align:middle;text-align:center;font-size:90%;
 margin:0 2px}
.frac>span{padding:0 2px}
.frac>.den{border-top:1px solid currentColor}
.ovl{text-decoration:overline}
.cmd{color:#8a3b00}
.graph{overflow-x:auto;background:#fff;border:1px solid #d8d8d8;border-radius:6px;padding:6px}
.graph svg a:hover rect{stroke:#000;stroke-width:2}
.legend span{margin-right:8px}
.plots{display:flex;flex-wrap:wrap;gap:8px}
.plots figure{margin:0;background:#fff;border:1px solid #e0e0e0;padding:4px}
.plots figcaption{font-size:12px;color:#555}
.erratum{background:#fff;border:1px solid #e3b5b5;border-left:5px solid #d64545;border-radius:6px;
 padding:6px 12px;margin:10px 0}
.sidebyside{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.sidebyside>div{min-width:0}
.amended{border-left:4px solid #1b7f3a;padding-left:8px}
.kv td:first-child{font-weight:600;white-space:nowrap}
"""
