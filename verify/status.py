"""From per-fixture verdicts to claim statuses, paper counts and the exit code.

One function decides each aggregate, so the CLI, the pytest plugin and the report agree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from . import settings as S


def verdict_of(hypotheses_hold: bool, holds: bool | None, crashed: bool, timed_out: bool = False) -> str:
    """The verdict for one (claim, fixture).

    Crashes are errors; time-outs and uncertified computations are inconclusive; unmet hypotheses make
    the result vacuous whatever the conclusion did; otherwise the conclusion decides.
    """
    if crashed:
        return S.ERROR
    if timed_out:
        return S.INCONCLUSIVE
    if not hypotheses_hold:
        return S.VACUOUS
    if holds is None:
        return S.INCONCLUSIVE
    return S.PASS if holds else S.REFUTED


def claim_status(claim: dict, results: list[dict]) -> dict:
    """Aggregate one claim's result records into its status.

    * not checkable: the claim has no check; not run: no result was recorded;
    * error: a check crashed on some fixture;
    * refuted: a non-negative fixture that met the hypotheses failed the conclusion;
    * control failed: a negative control did not fail (the check cannot tell);
    * inconclusive: some non-negative fixture was inconclusive;
    * vacuous: every non-negative fixture missed the hypotheses;
    * verified: every non-negative fixture that ran passed and every negative control behaved.
    """
    counts = Counter(r["verdict"] for r in results)
    neg = [r for r in results if r["fixture_kind"] == S.NEGATIVE]
    pos = [r for r in results if r["fixture_kind"] != S.NEGATIVE]
    caught = sum(1 for r in neg if r["verdict"] in r["expected"])
    if not claim.get("checkable", True):
        status = S.NOT_CHECKABLE
    elif not results:
        status = S.NOT_RUN
    elif any(r["verdict"] == S.ERROR for r in results):
        status = S.ST_ERROR
    elif any(r["verdict"] == S.REFUTED for r in pos):
        status = S.ST_REFUTED
    elif caught < len(neg):
        status = S.CONTROL_FAILED
    elif any(r["verdict"] == S.INCONCLUSIVE for r in pos):
        status = S.ST_INCONCLUSIVE
    elif pos and all(r["verdict"] == S.VACUOUS for r in pos):
        status = S.ST_VACUOUS
    elif not pos:
        status = S.ST_INCONCLUSIVE
    else:
        status = S.VERIFIED
    expected = claim.get("expected")
    if status in (S.NOT_CHECKABLE, S.NOT_RUN):
        as_expected = True
    elif status == S.VERIFIED:
        # A claim recorded as inconclusive (a horizon beyond budget) that verifies is good news, not a
        # failure; a recorded refutation that vanishes is news to look at.
        as_expected = expected in (None, S.ST_INCONCLUSIVE)
    else:
        as_expected = expected == status
    # An expected refutation must still have its negative controls caught, and the unexpected
    # per-fixture outcomes are listed so the CLI can print reproduction commands.
    unexpected = [r for r in results if not r.get("as_expected", True)]
    if expected == S.ST_REFUTED and status == S.ST_REFUTED:
        unexpected = [r for r in unexpected if r["verdict"] != S.REFUTED]
        if caught < len(neg) or any(r["verdict"] == S.ERROR for r in results):
            as_expected = False
    return {
        "id": claim["id"], "paper": claim.get("paper"), "status": status, "expected": expected,
        "as_expected": as_expected, "counts": dict(counts),
        "negative_controls": {"total": len(neg), "caught": caught},
        "unexpected": [r["task_id"] for r in unexpected if "task_id" in r],
        "fully_verified": False,
    }


def aggregate(claims: Iterable[dict], results: Iterable[dict]) -> dict[str, dict]:
    """Statuses of all claims, with ``fully_verified`` set where the claim and everything it uses,
    transitively, is verified."""
    claims = {c["id"]: c for c in claims}
    by_claim: dict[str, list[dict]] = {cid: [] for cid in claims}
    for r in results:
        by_claim.setdefault(r["claim"], []).append(r)
    out = {cid: claim_status(claims.get(cid, {"id": cid, "checkable": True}), rs) for cid, rs in by_claim.items()}
    memo: dict[str, bool] = {}

    def fully(cid: str, seen: frozenset = frozenset()) -> bool:
        if cid in memo:
            return memo[cid]
        st = out.get(cid)
        if st is None or st["status"] != S.VERIFIED or cid in seen:
            return False
        ok = all(fully(u, seen | {cid}) for u in claims.get(cid, {}).get("uses", []))
        memo[cid] = ok
        return ok

    for cid, st in out.items():
        st["fully_verified"] = fully(cid)
    return out


def display_status(st: dict) -> str:
    return S.FULLY_VERIFIED if st.get("fully_verified") else st["status"]


def paper_counts(statuses: dict[str, dict]) -> dict[str, dict[str, int]]:
    """Per paper: how many claims have each status (``fully verified`` counted apart from ``verified``)."""
    out: dict[str, Counter] = {}
    for st in statuses.values():
        out.setdefault(st["paper"] or "?", Counter())[st["status"]] += 1
        if st["fully_verified"]:
            out[st["paper"] or "?"][S.FULLY_VERIFIED] += 1
    return {p: dict(c) for p, c in sorted(out.items())}


def exit_code(statuses: dict[str, dict], regressions: list | None = None) -> int:
    """0 when every outcome is as expected (and no regression), else 1."""
    if regressions:
        return 1
    return 0 if all(st["as_expected"] for st in statuses.values()) else 1
