"""The report's view of a set of records: claims in catalogue order, their results and statuses.

Statuses come from :func:`verify.status.aggregate` alone; this module only groups and orders.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .. import settings as S
from ..records import split
from ..verdicts import aggregate, display_status


@dataclass
class ClaimView:
    """One claim as the report shows it."""

    claim: dict
    results: list[dict]
    status: dict
    used_by: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.claim["id"]

    @property
    def paper(self) -> str:
        return self.claim.get("paper") or self.status.get("paper") or "?"

    @property
    def display(self) -> str:
        """The status word shown: ``fully verified`` where it applies, else the aggregated status."""
        return display_status(self.status)

    @property
    def status_set(self) -> list[str]:
        """Every status this claim counts under (a fully verified claim is also verified)."""
        words = [self.display]
        if self.status.get("fully_verified") and self.status["status"] not in words:
            words.append(self.status["status"])
        return words

    @property
    def unexpected(self) -> bool:
        return not self.status.get("as_expected", True)

    @property
    def loose(self) -> bool:
        return bool(self.status.get("loose"))

    @property
    def marks(self) -> list[str]:
        """The status's marks (``loose``, ``cannot fail here``); older records have only ``loose``."""
        marks = [str(m) for m in self.status.get("marks") or () if isinstance(m, str)]
        if self.loose and S.LOOSE not in marks:
            marks.insert(0, S.LOOSE)
        return marks

    @property
    def cannot_fail(self) -> bool:
        return S.CANNOT_FAIL in self.marks

    @property
    def fidelity(self) -> str | None:
        """faithful / proxy / partial / definitional / undeclared; None when the records do not say (older
        records) or the claim is not checkable."""
        f = self.status.get("fidelity")
        return str(f) if f else None

    @property
    def tightest_room(self) -> float | None:
        return room_value(self.status.get("tightest_room"))

    @property
    def positive(self) -> list[dict]:
        return [r for r in self.results if r.get("fixture_kind") != S.NEGATIVE]

    @property
    def controls(self) -> list[dict]:
        return [r for r in self.results if r.get("fixture_kind") == S.NEGATIVE]


@dataclass
class ReportModel:
    claims: dict[str, ClaimView]
    papers: list[str]
    runs: list[dict]
    ends: list[dict]

    def of_paper(self, paper: str) -> list[ClaimView]:
        return [v for v in self.claims.values() if v.paper == paper]

    @property
    def run_numbers(self) -> dict[str, int]:
        """Run id -> its number in this report (1, 2, ...), in the order the run lines came."""
        out: dict[str, int] = {}
        for r in self.runs:
            rid = str(r.get("run_id"))
            if rid not in out:
                out[rid] = len(out) + 1
        return out

    def run_label(self, result: dict) -> str:
        """``run 2`` for a result of the second run in this report; empty when there is only one run."""
        numbers = self.run_numbers
        if len(numbers) < 2:
            return ""
        n = numbers.get(str(result.get("run_id")))
        return f"run {n}" if n else "run ?"

    def run_of(self, result: dict) -> dict | None:
        rid = result.get("run_id")
        return next((r for r in self.runs if r.get("run_id") == rid), None)


def room_value(x: object) -> float | None:
    """A room from a record (``"inf"`` included) as a float; None when absent."""
    if x is None or isinstance(x, bool):
        return None
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def task_order(task_id: object) -> tuple:
    """Sort key for task ids such as ``"3.10"`` (numeric parts compared as numbers)."""
    parts = []
    for p in str(task_id).split("."):
        parts.append((0, int(p), "") if p.isdigit() else (1, 0, p))
    return tuple(parts)


def build_model(records: Iterable[dict]) -> ReportModel:
    """Group records (possibly merged from several files) into a :class:`ReportModel`.

    A result whose claim has no ``claim`` line still appears, under a stub claim built from the
    result's own fields, so nothing measured is dropped from the report.
    """
    records = list(records)
    claims, results, runs = split(records)
    ends = [r for r in records if r.get("type") == "end"]
    claims = dict(claims)
    for r in results:
        if r["claim"] not in claims:
            claims[r["claim"]] = {"id": r["claim"], "paper": r.get("paper") or r["claim"].split(".")[0],
                                  "kind": "?", "statement": "(no catalogue entry in these records)",
                                  "checkable": True, "uses": [], "hypotheses": [], "fixtures": []}
    statuses = aggregate(claims.values(), results)
    by_claim: dict[str, list[dict]] = {cid: [] for cid in claims}
    for r in results:
        by_claim[r["claim"]].append(r)
    used_by: dict[str, set[str]] = {cid: set(c.get("used_by") or ()) for cid, c in claims.items()}
    for cid, c in claims.items():
        for u in c.get("uses") or ():
            used_by.setdefault(u, set()).add(cid)
    views = {
        cid: ClaimView(c, sorted(by_claim[cid], key=lambda r: (task_order(r.get("task_id")), r.get("seed") or 0)),
                       statuses[cid], sorted(used_by.get(cid, ())))
        for cid, c in claims.items()
    }
    papers: list[str] = []
    for v in views.values():
        if v.paper not in papers:
            papers.append(v.paper)
    return ReportModel(views, sorted(papers), runs, ends)


def is_refuting(result: dict) -> bool:
    """A refuted verdict on a fixture that is not a negative control: a counterexample to the claim."""
    return result.get("verdict") == S.REFUTED and result.get("fixture_kind") != S.NEGATIVE
