"""The verdict algebra, in one place: evidence -> fixture verdict -> claim status -> exit code.

Every front door (the CLI, the pytest plugin, the report, the baseline diff) calls these functions;
none re-derives a verdict. The rules, in the order they are applied (the README has the same table):

Fixture verdict (one claim on one fixture)

1. the check crashed                              -> error (vacuous, labelled crashed, if a hypothesis was unmet)
2. the time limit ran out                         -> inconclusive
3. a hypothesis is unmet                          -> vacuous; the conclusion is still evaluated there (a probe,
                                                     :func:`probe_outcome`), which changes no verdict
4a. a conclusion compares a NaN or an infinity    -> error (unless it rests on a failed validity entry)
4. a conclusion fails decisively: it failed, and either it is independent of the computation's
   validity or every validity entry holds         -> refuted (whatever else is inconclusive)
5. a validity entry fails                         -> inconclusive (its dependent failures included)
6. a required quantifier ranged over an empty set -> vacuous
7. no conclusion checked anything                 -> inconclusive
8. otherwise                                      -> pass

Claim status (over its fixtures; "positive" = random and adversarial fixtures)

1. no check                                       -> not checkable;   no result -> not run
2. any fixture errored                            -> error
3. a positive fixture refuted                     -> refuted
4. a negative control not caught (a mutated conclusion must be refuted; a broken hypothesis must
   be vacuous or refuted, without crashing)       -> control failed
5. a positive fixture inconclusive, or none ran   -> inconclusive
6. every positive fixture vacuous                 -> vacuous
7. no mutated-conclusion control was refuted by the check (power not shown) -> unguarded
8. otherwise                                      -> verified; "fully verified" when it is declared faithful,
   does not carry the mark "cannot fail here", and every claim it uses is fully verified too.

Marks beside the status: "loose" when a conclusion on a printed bound or constant had more than
``settings.LOOSE_ROOM`` room on every fixture that judged it and no rate check pinned its printed
exponent (judged per conclusion); "cannot fail here" when the printed conclusion held on every fixture
of the run (positive fixtures and probes). Per claim: hypotheses shown necessary (a probe failed the
conclusion) out of those broken.

A claim's outcome is as expected when its status is ``verified`` (or its recorded expectation) and,
for an expected refutation, its negative controls were still caught; a verified claim marked "cannot fail
here" is as expected only when declared definitional or acknowledged (``cannot_fail``). Exit code: 0 when
every claim is as expected and no regression was found, else 1.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from . import settings as S

if TYPE_CHECKING:  # pragma: no cover
    from .evidence import Evidence


# ---------------------------------------------------------------------------------------------
# Evidence and fixtures


def _describe(c) -> str:
    if c.relation == "true":
        return f"{c.name}: {c.detail or 'false'}"
    return f"{c.name}: measured {_fmt(c.measured)} vs {c.relation} {_fmt(c.predicted)}"


def _fmt(x) -> str:
    try:
        return f"{float(x):.6g}"
    except (TypeError, ValueError):
        return str(x)


def _nonfinite(c) -> bool:
    """A conclusion comparing a NaN or an infinity: a broken computation, not evidence either way."""
    if c.relation == "true":
        return False
    for x in (c.measured, c.predicted):
        try:
            a = np.asarray(x, dtype=float)
        except (TypeError, ValueError):
            continue
        if a.size and not np.all(np.isfinite(a)):
            return True
    return False


def judge_evidence(ev: Evidence) -> tuple[str, str | None]:
    """(verdict, reason) of one evidence with the hypotheses met: rules 4-8 of the fixture table (rule 4a:
    a non-finite number in a conclusion)."""
    valid = ev.valid_computation
    conclusions = ev.conclusions
    broken = [c for c in conclusions if _nonfinite(c) and (valid or not c.depends)]
    if broken:
        return S.ERROR, "non-finite number in a conclusion: " + "; ".join(_describe(c) for c in broken[:3])
    decisive = [c for c in conclusions if not c.holds and not c.empty and (valid or not c.depends)]
    if decisive:
        why = "; ".join(_describe(c) for c in decisive[:3])
        if not valid:
            why += f" (independent of the uncertified computation: {ev.inconclusive_reason})"
        return S.REFUTED, why
    if not valid:
        dependent = sum(1 for c in conclusions if not c.holds and not c.empty)
        extra = f" ({dependent} dependent conclusion(s) failed and are not judged)" if dependent else ""
        return S.INCONCLUSIVE, f"computation not certified: {ev.inconclusive_reason}{extra}"
    empty = [c for c in conclusions if c.empty and c.required]
    if empty:
        return S.VACUOUS, "empty quantifier: " + ", ".join(c.name for c in empty)
    checked = [c for c in conclusions if not c.empty]
    if not checked:
        if conclusions:
            return S.VACUOUS, "every quantifier ranged over an empty set"
        return S.INCONCLUSIVE, "the check recorded no conclusion"
    return S.PASS, None


def probe_outcome(ev: Evidence) -> str:
    """What the printed conclusion did on a fixture whose hypotheses are unmet (a probe): failed there
    (the hypothesis is shown necessary), held, undefined (non-finite) or undecided."""
    verdict, _ = judge_evidence(ev)
    return {S.REFUTED: S.PROBE_FAILED, S.PASS: S.PROBE_HELD, S.ERROR: S.PROBE_UNDEFINED}.get(verdict, S.PROBE_UNDECIDED)


def fixture_verdict(hypotheses_hold: bool, evidence: Evidence | None, *, crashed: bool = False,
                    timed_out: bool = False) -> tuple[str, str | None]:
    """(verdict, reason) for one (claim, fixture): rules 1-3, then :func:`judge_evidence`."""
    if crashed:
        return (S.VACUOUS if not hypotheses_hold else S.ERROR), None
    if timed_out:
        return S.INCONCLUSIVE, None
    if not hypotheses_hold:
        return S.VACUOUS, None
    if evidence is None:
        return S.INCONCLUSIVE, "no evidence"
    return judge_evidence(evidence)


def expected_verdicts(kind: str, mutation: str | None, expect: Iterable[str] | None,
                      claim_expected: str | None) -> set[str]:
    """Verdicts that count as correct on a fixture: its own ``expect``, or by default ``pass`` on a
    positive fixture, ``refuted`` on a mutated-conclusion control and ``vacuous``/``refuted`` on a
    broken-hypothesis control; a claim expected refuted (or inconclusive, vacuous) as printed
    also accepts that verdict on its positive fixtures."""
    if expect:
        out = set(expect)
    elif kind == S.NEGATIVE:
        out = {S.REFUTED} if mutation else {S.REFUTED, S.VACUOUS}
    else:
        out = {S.PASS}
    if kind != S.NEGATIVE and claim_expected is not None:
        out.add({S.ST_REFUTED: S.REFUTED, S.ST_INCONCLUSIVE: S.INCONCLUSIVE, S.ST_VACUOUS: S.VACUOUS}[claim_expected])
    return out


# ---------------------------------------------------------------------------------------------
# Claims


_NOT_YET_ENCODED = "not yet encoded"   # verify.claims.NOT_YET_ENCODED (the engine's words live in settings and claims)


def _is_numbered(cid: str) -> bool:
    from .coverage import is_numbered

    return is_numbered(cid)


def _conclusion_rooms(passed: list[dict]) -> tuple[dict[str, float], set[str]]:
    """Per conclusion on a printed bound or constant (by name), its smallest room over the passing positive
    fixtures that judged it, and the names that a rate check pinning its printed exponent answers for
    (``pins`` not given: every bound of the same evidence)."""
    rooms: dict[str, float] = {}
    pinned: set[str] = set()
    for r in passed:
        ev = r.get("evidence") or {}
        comps = ev.get("comparisons")
        if comps is None:  # a record without its comparisons: its tightest room stands for them
            x = _num(ev.get("tightest_room"))
            if x is not None:
                key = "(tightest, rate-checked)" if ev.get("rate_checked") else "(tightest)"
                rooms[key] = min(rooms.get(key, math.inf), x)
                if ev.get("rate_checked"):
                    pinned.add(key)
            continue
        for c in comps:
            if c.get("role", "conclusion") != "conclusion" or not c.get("holds"):
                continue
            if c.get("rate"):
                if c.get("pinned"):
                    pins = c.get("pins")
                    pinned.update(pins if pins is not None else (d["name"] for d in comps if not d.get("rate")))
                continue
            x = _num(c.get("room"))
            if x is not None and c.get("count") != 0:
                rooms[c["name"]] = min(rooms.get(c["name"], math.inf), x)
    return rooms, pinned


def _num(x) -> float | None:
    if x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def _hypothesis_effects(results: list[dict]) -> tuple[list[str], list[str], dict[str, int]]:
    """Hypotheses broken on some fixture, those shown necessary (a probe there on which the printed
    conclusion failed), and the probes' outcomes counted."""
    broken: list[str] = []
    necessary: list[str] = []
    probes: Counter = Counter()
    for r in results:
        unmet = r.get("unmet") or [h["name"] for h in r.get("hypotheses") or [] if not h.get("holds", True)]
        if not unmet:
            continue
        probe = r.get("probe")
        if probe:
            probes[probe] += 1
        for h in unmet:
            if h not in broken:
                broken.append(h)
            if probe == S.PROBE_FAILED and h not in necessary:
                necessary.append(h)
    return broken, necessary, dict(probes)


def claim_status(claim: dict, results: list[dict]) -> dict:
    """Aggregate one claim's result records into its status (the claim table in the module docstring)."""
    counts = Counter(r["verdict"] for r in results)
    neg = [r for r in results if r["fixture_kind"] == S.NEGATIVE]
    pos = [r for r in results if r["fixture_kind"] != S.NEGATIVE]
    # A control whose check crashed off its hypotheses is vacuous, but it caught nothing.
    crashed = sum(1 for r in neg if r.get("crashed"))
    caught = sum(1 for r in neg if r["verdict"] in r["expected"] and not r.get("crashed"))
    powered = sum(1 for r in neg if r.get("mutation") and r["verdict"] == S.REFUTED)
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
    elif (not pos or any(r["verdict"] == S.INCONCLUSIVE and S.INCONCLUSIVE not in r["expected"] for r in pos)
          or all(r["verdict"] == S.INCONCLUSIVE for r in pos)):
        # a stress fixture declared able to end inconclusive (its expect set holds it) does not make the claim
        # inconclusive while other positive fixtures decide it; with nothing decided the claim is inconclusive
        status = S.ST_INCONCLUSIVE
    elif all(r["verdict"] in (S.VACUOUS, S.INCONCLUSIVE) for r in pos):
        status = S.ST_VACUOUS
    elif powered == 0:
        status = S.UNGUARDED
    else:
        status = S.VERIFIED
    expected = claim.get("expected")
    fidelity = claim.get("fidelity") or S.UNDECLARED
    broken, necessary, probes = _hypothesis_effects(results)
    # The printed conclusion held on every fixture of the run: positive fixtures and every probe.
    cannot_fail = status == S.VERIFIED and not probes.get(S.PROBE_FAILED)
    acknowledged = claim.get("cannot_fail") or None
    if status in (S.NOT_CHECKABLE, S.NOT_RUN):
        as_expected = True
    elif status == S.VERIFIED:
        # A claim recorded as inconclusive (a horizon beyond budget) that verifies is good news, not a
        # failure; a recorded refutation that vanishes is news to look at. A claim that cannot fail here is
        # looked at by its author: declared definitional, or acknowledged with a reason.
        as_expected = expected in (None, S.ST_INCONCLUSIVE) and (
            not cannot_fail or fidelity == S.DEFINITIONAL or bool(acknowledged))
    else:
        as_expected = expected == status
    unexpected = [r for r in results if not r.get("as_expected", True) or (
        r["fixture_kind"] == S.NEGATIVE and r.get("crashed"))]
    if expected == S.ST_REFUTED and status == S.ST_REFUTED:
        unexpected = [r for r in unexpected if r["verdict"] != S.REFUTED]
        if caught < len(neg) or any(r["verdict"] == S.ERROR for r in results):
            as_expected = False
    passed = [r for r in pos if r["verdict"] == S.PASS]
    rooms, pinned = _conclusion_rooms(passed)
    tightest = min(rooms.values()) if rooms else None
    # Loose is judged per conclusion: a bound whose smallest room exceeds LOOSE_ROOM, unless a rate check
    # pinned its printed exponent.
    loose_conclusions = [{"name": n, "room": x} for n, x in sorted(rooms.items())
                         if x > S.LOOSE_ROOM and n not in pinned]
    loose = status == S.VERIFIED and bool(loose_conclusions)
    marks = [m for m, on in ((S.LOOSE, loose), (S.CANNOT_FAIL, cannot_fail)) if on]
    erratum = claim.get("erratum") or None
    return {
        "id": claim["id"], "paper": claim.get("paper"), "status": status, "expected": expected,
        "as_expected": as_expected, "counts": dict(counts),
        "negative_controls": {"total": len(neg), "caught": caught, "powered": powered, "crashed": crashed},
        "tightest_room": tightest,
        "loose": loose, "loose_conclusions": loose_conclusions,
        "rate_checked": bool(passed) and all((r.get("evidence") or {}).get("rate_checked") for r in passed),
        "fidelity": fidelity if claim.get("checkable", True) else None,
        "fidelity_note": claim.get("fidelity_note") or None,
        "no_room": claim.get("no_room") or None,
        "marks": marks, "cannot_fail": acknowledged,
        "hypotheses_broken": broken, "hypotheses_shown_necessary": necessary, "probes": probes,
        "crashed_controls": crashed,
        "erratum": bool(erratum), "erratum_root": (erratum or {}).get("root"),
        "numbered": _is_numbered(claim["id"]), "pending": claim.get("reason") == _NOT_YET_ENCODED,
        "vacuous_fixtures": sum(1 for r in pos if r["verdict"] == S.VACUOUS),
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
        # Only faithful claims, down their uses, are fully verified; a claim that cannot fail here is not.
        if (st is None or st["status"] != S.VERIFIED or cid in seen or st.get("fidelity") != S.FAITHFUL
                or S.CANNOT_FAIL in st.get("marks", ())):
            memo[cid] = False
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
    """Per paper: how many claims have each status (``fully verified`` counted apart from
    ``verified``), verified claims by fidelity (``verified faithful``, ...), the marks ``loose`` and
    ``cannot fail here``, ``unexpected``, hypotheses shown necessary out of those broken (summed over
    claims), and errata as ``independent slips`` (an erratum without a root) and ``statements affected``
    (every statement carrying an erratum)."""
    out: dict[str, Counter] = {}
    for st in statuses.values():
        c = out.setdefault(st["paper"] or "?", Counter())
        c[st["status"]] += 1
        if st["fully_verified"]:
            c[S.FULLY_VERIFIED] += 1
        if st["status"] == S.VERIFIED:
            c[f"verified {st.get('fidelity') or S.UNDECLARED}"] += 1
        if st.get("loose"):
            c[S.LOOSE] += 1
        if S.CANNOT_FAIL in st.get("marks", ()):
            c[S.CANNOT_FAIL] += 1
        if not st.get("as_expected", True):
            c[S.UNEXPECTED] += 1
        if st.get("numbered") or st.get("pending"):  # coverage: the paper's own (numbered or pending) statements
            c["numbered statements"] += 1
            if st.get("pending"):
                c["numbered not yet encoded"] += 1
            elif st["status"] == S.NOT_CHECKABLE:
                c["numbered not checkable"] += 1
            else:
                c["numbered encoded"] += 1
                if st["status"] == S.VERIFIED:
                    c["numbered verified"] += 1
        c["hypotheses broken"] += len(st.get("hypotheses_broken") or ())
        c["hypotheses shown necessary"] += len(st.get("hypotheses_shown_necessary") or ())
        if st.get("erratum"):
            c["statements affected"] += 1
            if not st.get("erratum_root"):
                c["independent slips"] += 1
    return {p: dict(c) for p, c in sorted(out.items())}


def exit_code(statuses: dict[str, dict], regressions: list | None = None) -> int:
    """0 when every outcome is as expected (and no regression), else 1."""
    if regressions:
        return 1
    return 0 if all(st["as_expected"] for st in statuses.values()) else 1


def is_loose(room: float | None) -> bool:
    return room is not None and (math.isinf(room) or room > S.LOOSE_ROOM)
