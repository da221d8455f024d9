"""The report in a real browser: headless Chromium runs the page's script, applies the filters, sorting
and openings named in the URL hash, inflates the cards it opens, and dumps the resulting DOM; a probe
script added to a copy of the page measures the layout (MathML laid out, tables inside their cards),
and a screenshot shows that nothing spills out of a card."""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from test_report import CLAIM_IDS, claim_line, result_line, sample_records

from verify import settings as S
from verify.report import render_report

pytestmark = pytest.mark.browser

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
WIDE = "toy.wide"
LONG_REASON = ("hypotheses unmet: the data are not orthogonally separable; the smallest same-label inner product "
               "is -1.79e-16 and the largest cross-label one is -1.79e-16, so the condition fails by rounding "
               "alone, which a wider margin in the generator would avoid ") * 2


def records() -> list[dict]:
    """The sample records plus a claim whose fixtures have long parameters and reasons (a wide table)."""
    wide = [claim_line(WIDE, statement=r"For every $i \in I_+$: $\sum_{j \in I_+} \mu_- x_j^\top w_+ \le "
                                       r"O\left(\frac{1}{\sqrt{n}}\right)$.")]
    for k in range(3):
        r = result_line(WIDE, f"{k}.0", S.VACUOUS, hyp_holds=False, reason=LONG_REASON, kind=S.NEGATIVE,
                        expected=[S.VACUOUS, S.REFUTED])
        r["params"] = {f"parameter_with_a_long_name_{j}": [0.125 * j] * 8 for j in range(6)}
        r["unmet"], r["probe"] = ["data separable"], S.PROBE_FAILED  # a probe: the claim can fail here
        wide.append(r)
    wide.append(result_line(WIDE, "9.0", S.PASS, comparisons=[
        {"name": "w_+^T x_- / C_{delta/2}", "relation": "<=", "measured": 1.0, "predicted": 2.0, "tolerance": 0.0,
         "holds": True, "slack": 0.5, "detail": "", "role": "conclusion", "depends": True, "count": None,
         "room": 2.0}]))
    wide.append(result_line(WIDE, "8.0", S.REFUTED, kind=S.NEGATIVE))
    return sample_records() + deep_graph() + wide


def deep_graph(depth: int = 12, width: int = 5) -> list[dict]:
    """A paper whose dependency graph is far wider than any window: ``depth`` columns of ``width`` claims
    with long ids, each using two claims of the column before."""
    out = []
    for d in range(depth):
        for k in range(width):
            uses = [f"deep.obs.sec{d - 1}.{j}.a_long_descriptive_name.amended" for j in {k, (k + 1) % width}] if d else []
            out.append(claim_line(f"deep.obs.sec{d}.{k}.a_long_descriptive_name.amended", uses=uses))
    return out


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    if CHROMIUM is None:
        pytest.skip("no chromium binary found (Debian: apt-get install chromium)")
    return render_report(records(), tmp_path_factory.mktemp("report") / "report.html")


def chromium(page: Path, fragment: str = "", *, screenshot: Path | None = None, height: int = 1600,
             width: int = 1280) -> str:
    profile = page.parent / "chromium-profile"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
           "--disable-extensions", "--hide-scrollbars", f"--user-data-dir={profile}", f"--window-size={width},{height}",
           "--virtual-time-budget=10000"]
    cmd += [f"--screenshot={screenshot}"] if screenshot else ["--dump-dom"]
    out = subprocess.run(cmd + [page.as_uri() + fragment], capture_output=True, text=True, timeout=120, check=True)
    return out.stdout


class Dom(HTMLParser):
    """Rows of the claim table (in DOM order), claim sections, the banner and the body's attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[str, bool]] = []  # (id, visible) in DOM order
        self.sections: dict[str, tuple[bool, bool]] = {}  # id -> (visible, open)
        self.banner: list[str] = []
        self.body: dict[str, str] = {}
        self.sorted: dict[str, str] = {}
        self.shown: str | None = None
        self._in_table = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "body":
            self.body = {k: v or "" for k, v in a.items()}
        elif tag == "table" and a.get("id") == "claim-table":
            self._in_table = True
        elif tag == "th" and self._in_table and a.get("aria-sort"):
            self.sorted[a["data-col"]] = a["aria-sort"]
        elif tag == "tr" and self._in_table and "data-id" in a:
            self.rows.append((a["data-id"], "hidden" not in a))
        elif tag == "details" and "claim" in (a.get("class") or "").split():
            self.sections[a["data-id"]] = ("hidden" not in a, "open" in a)
        elif tag == "span" and a.get("id") == "filter-count":
            self.shown = a.get("data-shown")
        elif tag == "li" and "data-id" in a and not self._in_table:
            self.banner.append(a["data-id"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._in_table = False

    @property
    def visible(self) -> set[str]:
        return {cid for cid, shown in self.rows if shown}


def dom(report: Path, fragment: str = "") -> Dom:
    d = Dom()
    d.feed(chromium(report, fragment))
    assert d.body.get("data-ready") == "1", "the page's script did not run to its end"
    return d


def with_probe(report: Path, name: str, script: str) -> Path:
    """A copy of the page with a probe script run after the page's own (results go on <body>)."""
    page = report.parent / name
    page.write_text(report.read_text(encoding="utf-8").replace("</body>", f"<script>{script}</script></body>"),
                    encoding="utf-8")
    return page


ALL_CLAIMS = set(CLAIM_IDS) | {WIDE} | {c["id"] for c in deep_graph()}


def test_every_claim_shown_without_filter(report):
    s = dom(report)
    assert sorted(c for c, _ in s.rows) == sorted(ALL_CLAIMS) and s.visible == ALL_CLAIMS
    assert s.shown == str(len(ALL_CLAIMS))
    assert not any(is_open for _, is_open in s.sections.values())


def test_banner_lists_unexpected_outcomes_unguarded_first(report):
    s = dom(report)
    assert s.banner[0] == "toy.lem8"  # unguarded first
    assert set(s.banner) == {"toy.lem8", "toy.lem6", "toy.lem5", "toy.lem4", "toy.lem7"}
    only = dom(report, "#unexpected=1")
    assert only.visible == set(s.banner)


def test_status_filter_counts_fully_verified_as_verified(report):
    s = dom(report, "#status=verified")
    assert s.visible == {"toy.lem1", "toy.lem2", "toy.thm3.amended", "toy.xss", "other.thm1", WIDE}
    assert s.shown == "6"
    assert {cid for cid, (shown, _) in s.sections.items() if shown} == s.visible


def test_filters_by_kind_unguarded_and_loose(report):
    assert dom(report, "#kind=definition").visible == {"toy.def1"}
    assert dom(report, "#unguarded=1").visible == {"toy.lem8"}
    assert dom(report, "#paper=toy&unexpected=1&q=lem5").visible == {"toy.lem5"}


def test_paper_and_status_filter_and_open_from_hash(report):
    s = dom(report, "#paper=toy&status=control%20failed&open=toy.thm3")
    assert s.visible == {"toy.lem6"}
    assert s.sections["toy.thm3"] == (True, True)  # opened (and shown) although filtered out
    assert [cid for cid, (_, is_open) in s.sections.items() if is_open] == ["toy.thm3"]


def test_claim_anchor_opens_its_section(report):
    s = dom(report, "#claim-toy.lem5")
    assert s.sections["toy.lem5"] == (True, True)
    assert s.visible == ALL_CLAIMS


def test_sorting_by_a_header_click_and_from_the_hash(report):
    page = with_probe(report, "sort.html", "document.querySelector('#claim-table th[data-col=\"4\"]').click();")
    d = Dom()
    d.feed(chromium(page))
    assert d.sorted == {"4": "ascending"}
    order = [cid for cid, _ in d.rows]
    assert order.index("toy.lem2") < order.index("toy.thm3") < order.index("toy.def1")  # fully verified, refuted, not checkable
    desc = dom(report, "#sort=0:desc")
    assert [cid for cid, _ in desc.rows][0] == WIDE and desc.sorted == {"0": "descending"}


MEASURE = """
(function () {
  var b = document.body;
  document.getElementById('expand-all').click();
  Array.prototype.forEach.call(document.querySelectorAll('details'), function (d) { d.open = true; });
  function done() {
    if (document.querySelector('.lazy[data-z]') || document.querySelector('.lazy:not([data-inflated])')) { setTimeout(done, 20); return; }
    var maths = Array.prototype.slice.call(document.querySelectorAll('math'));
    var flat = maths.filter(function (m) { var r = m.getBoundingClientRect(); return r.width < 1 || r.height < 1; });
    var statements = Array.prototype.slice.call(document.querySelectorAll('details.claim .statement'));
    b.setAttribute('data-math', String(maths.length));
    b.setAttribute('data-math-flat', String(flat.length));
    b.setAttribute('data-statements-with-math', String(statements.filter(function (s) { return s.querySelector('math'); }).length));
    b.setAttribute('data-statements', String(statements.length));
    var raw = document.body.innerText.match(/\\\\[A-Za-z]{2,}|[_^]\\{/g) || [];
    b.setAttribute('data-raw-tex', raw.slice(0, 5).join(' '));
    b.setAttribute('data-measured', '1');
  }
  done();
})();
"""


def test_mathml_is_present_and_laid_out_with_no_raw_tex_in_the_text(report):
    d = Dom()
    d.feed(chromium(with_probe(report, "math.html", MEASURE)))
    assert d.body.get("data-measured") == "1"
    assert int(d.body["data-math"]) > 20 and d.body["data-math-flat"] == "0"
    assert d.body["data-statements-with-math"] == d.body["data-statements"] != "0"
    assert d.body["data-raw-tex"] == ""


IMAGES = """
(function () {
  var b = document.body;
  document.getElementById('expand-all').click();
  function load() {
    if (document.querySelector('details.claim .lazy:not([data-inflated])')) { setTimeout(load, 20); return; }
    var imgs = Array.prototype.slice.call(document.querySelectorAll('details.claim figure img'));
    var ok = 0, bad = 0;
    b.setAttribute('data-images', String(imgs.length));
    imgs.forEach(function (img) {
      var probe = new Image();
      probe.onload = function () { if (probe.naturalWidth > 100 && probe.naturalHeight > 100) { ok++; } else { bad++; } finish(); };
      probe.onerror = function () { bad++; finish(); };
      probe.src = img.getAttribute('src');
    });
    function finish() {
      if (ok + bad === imgs.length) { b.setAttribute('data-images-ok', String(ok)); b.setAttribute('data-images-bad', String(bad)); }
    }
  }
  load();
})();
"""


def test_plots_are_images_the_browser_decodes(report):
    d = Dom()
    d.feed(chromium(with_probe(report, "images.html", IMAGES)))
    assert int(d.body.get("data-images", "0")) >= 2
    assert d.body.get("data-images-bad") == "0" and d.body.get("data-images-ok") == d.body["data-images"]


ISOLATE = """
(function () {
  var card = document.getElementById('claim-%s');
  card.open = true;
  function done() {
    if (card.querySelector('.lazy[data-z]') || !card.querySelector('.lazy[data-inflated]')) { setTimeout(done, 20); return; }
    Array.prototype.forEach.call(document.querySelectorAll('header, main > *'), function (e) { e.style.display = 'none'; });
    var details = document.getElementById('details');
    details.style.display = 'block';
    Array.prototype.forEach.call(details.children, function (e) { if (e !== card) { e.style.display = 'none'; } });
    window.scrollTo(0, 0);
    var c = card.getBoundingClientRect(), t = card.querySelector('table.fixtures');
    var tr = t.getBoundingClientRect(), reason = t.querySelector('td.reason').getBoundingClientRect();
    var b = document.body;
    b.setAttribute('data-card', [c.left, c.right, c.top, c.bottom].map(Math.round).join(','));
    b.setAttribute('data-table', [tr.left, tr.right, tr.top, tr.bottom].map(Math.round).join(','));
    b.setAttribute('data-reason-width', String(Math.round(reason.width)));
    b.setAttribute('data-overflow', String(t.scrollWidth - t.clientWidth));
  }
  done();
})();
"""


def test_fixture_table_fits_its_card_in_a_screenshot(report, tmp_path):
    from PIL import Image

    page = with_probe(report, "wide.html", ISOLATE % WIDE)
    d = Dom()
    d.feed(chromium(page, height=1400))
    left, right, top, bottom = map(int, d.body["data-card"].split(","))
    t_left, t_right, t_top, t_bottom = map(int, d.body["data-table"].split(","))
    assert left <= t_left and t_right <= right, (d.body["data-card"], d.body["data-table"])
    assert d.body["data-overflow"] == "0"
    assert int(d.body["data-reason-width"]) >= 200  # the reason column is not squeezed
    shot = tmp_path / "wide.png"
    chromium(page, screenshot=shot, height=1400)
    img = Image.open(shot).convert("RGB")
    background = img.getpixel((img.width - 2, 2))
    # Right of the card, along the fixture table's rows, the page is bare: nothing spills over the card.
    strip = [img.getpixel((x, y)) for x in range(right + 2, img.width - 1, 3)
             for y in range(max(t_top, 0), min(t_bottom, img.height - 1), 5)]
    assert strip and all(p == background for p in strip)


FIT = """
(function () {
  var b = document.body;
  function box(sel) { var e = document.querySelector(sel); var r = e.getBoundingClientRect(); return [r.left, r.right, e.scrollWidth - e.clientWidth]; }
  var table = document.getElementById('claim-table'), wrap = table.parentNode, section = document.getElementById('claims');
  var t = table.getBoundingClientRect(), w = wrap.getBoundingClientRect(), s = section.getBoundingClientRect();
  b.setAttribute('data-table', [t.left, t.right, w.left, w.right, wrap.scrollWidth - wrap.clientWidth, s.right].map(Math.round).join(','));
  var graphs = Array.prototype.slice.call(document.querySelectorAll('.graph'));
  var out = graphs.map(function (g) {
    var r = g.getBoundingClientRect(), svg = g.querySelector('svg'), v = svg ? svg.getBoundingClientRect() : r;
    return [r.left, r.right, v.left, v.right, g.scrollWidth - g.clientWidth].map(Math.round).join(',');
  });
  b.setAttribute('data-graphs', out.join(';'));
  var ov = document.getElementById('overview-table').parentNode;
  b.setAttribute('data-overview-overflow', String(ov.scrollWidth - ov.clientWidth));
  b.setAttribute('data-page-overflow', String(document.documentElement.scrollWidth - document.documentElement.clientWidth));
  var deep = document.querySelector('svg.depgraph[aria-label="dependency graph of deep"]');
  var before = deep.getAttribute('viewBox');
  deep.parentNode.parentNode.querySelector('button[data-zoom="in"]').click();
  b.setAttribute('data-zoomed', before + '|' + deep.getAttribute('viewBox'));
  var titles = Array.prototype.map.call(deep.querySelectorAll('a.gnode title'), function (t) { return t.textContent; });
  b.setAttribute('data-full-titles', String(titles.filter(function (t) { return t.indexOf('.a_long_descriptive_name.amended:') > 0; }).length));
  b.setAttribute('data-measured', '1');
})();
"""


@pytest.mark.parametrize("width", [1280, 1920])
def test_claims_table_and_graphs_fit_the_window(report, width):
    """Issue 32: no horizontal scrolling of the claims table, and every dependency graph inside its box, at
    1280 and 1920 px; a graph far wider than the window is scaled into its box, zooms, and names each node
    in full on hover."""
    d = Dom()
    d.feed(chromium(with_probe(report, f"fit{width}.html", FIT), width=width, height=1200))
    assert d.body.get("data-measured") == "1"
    t_left, t_right, w_left, w_right, overflow, s_right = map(int, d.body["data-table"].split(","))
    assert w_left <= t_left and t_right <= w_right <= s_right and overflow <= 0, d.body["data-table"]
    assert w_right <= width
    graphs = [tuple(map(int, g.split(","))) for g in d.body["data-graphs"].split(";")]
    assert len(graphs) == 3  # toy, other, deep
    for left, right, s_left, s_right_, over in graphs:
        assert left <= s_left and s_right_ <= right and over <= 0 and right <= width, graphs
    assert d.body["data-page-overflow"] == "0" and int(d.body["data-overview-overflow"]) <= 0
    before, after = d.body["data-zoomed"].split("|")
    assert before != after and float(after.split()[2]) < float(before.split()[2])  # zoomed in: a narrower view
    assert int(d.body["data-full-titles"]) == 60
