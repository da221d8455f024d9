"""The report in a real browser: headless Chromium runs the page's script, applies the filters and
openings named in the URL hash, and dumps the resulting DOM."""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from test_report import CLAIM_IDS, sample_records

from verify.report import render_report

pytestmark = pytest.mark.browser

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


class DomSummary(HTMLParser):
    """The claim-table rows, claim sections and filter count of a dumped DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[str, bool] = {}  # id -> visible
        self.sections: dict[str, tuple[bool, bool]] = {}  # id -> (visible, open)
        self.shown: str | None = None
        self.ready = False
        self._in_table = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "body":
            self.ready = a.get("data-ready") == "1"
        elif tag == "table" and a.get("id") == "claim-table":
            self._in_table = True
        elif tag == "tr" and self._in_table and "data-id" in a:
            self.rows[a["data-id"]] = "hidden" not in a
        elif tag == "details" and "claim" in (a.get("class") or "").split():
            self.sections[a["data-id"]] = ("hidden" not in a, "open" in a)
        elif tag == "span" and a.get("id") == "filter-count":
            self.shown = a.get("data-shown")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._in_table = False


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    if CHROMIUM is None:
        pytest.skip("no chromium binary found (Debian: apt-get install chromium)")
    return render_report(sample_records(), tmp_path_factory.mktemp("report") / "report.html")


def dom(report: Path, fragment: str = "") -> DomSummary:
    profile = report.parent / "chromium-profile"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
           "--disable-extensions", f"--user-data-dir={profile}", "--dump-dom", report.as_uri() + fragment]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=True).stdout
    summary = DomSummary()
    summary.feed(out)
    assert summary.ready, "the page's script did not run to its end"
    return summary


def visible(summary: DomSummary) -> set[str]:
    return {cid for cid, shown in summary.rows.items() if shown}


def test_every_claim_shown_without_filter(report):
    s = dom(report)
    assert sorted(s.rows) == sorted(CLAIM_IDS) and visible(s) == set(CLAIM_IDS)
    assert s.shown == str(len(CLAIM_IDS))
    assert not any(is_open for _, is_open in s.sections.values())


def test_status_filter_counts_fully_verified_as_verified(report):
    s = dom(report, "#status=verified")
    assert visible(s) == {"toy.lem1", "toy.lem2", "toy.thm3.amended", "toy.xss", "other.thm1"}
    assert s.shown == "5"
    assert {cid for cid, (shown, _) in s.sections.items() if shown} == visible(s)


def test_paper_and_status_filter_and_open_from_hash(report):
    s = dom(report, "#paper=toy&status=control%20failed&open=toy.thm3")
    assert visible(s) == {"toy.lem6"}
    assert s.sections["toy.thm3"] == (True, True)  # opened (and shown) although filtered out
    assert [cid for cid, (_, is_open) in s.sections.items() if is_open] == ["toy.thm3"]


def test_claim_anchor_opens_its_section(report):
    s = dom(report, "#claim-toy.lem5")
    assert s.sections["toy.lem5"] == (True, True)
    assert visible(s) == set(CLAIM_IDS)
