"""The regression diff: status and verdict changes judged by rank and expectation, moved quantities,
added and removed claims, and a readable table naming each."""

from __future__ import annotations

import copy

from test_report import claim_line, probe_line, result_line, sample_records

from verify import settings as S
from verify.diff import QUANTITY_RTOL_FLOOR, diff_records, format_diff


def pair(cid: str, *results: dict) -> list[dict]:
    """A claim line, its results and, unless given, one powered negative control (a mutated
    conclusion the check refutes), so that a passing claim is verified rather than unguarded."""
    if not any(r["fixture_kind"] == S.NEGATIVE for r in results):
        results = (*results, result_line(cid, "9.0", S.REFUTED, kind=S.NEGATIVE))
    return [claim_line(cid), *results]


def test_identical_records_give_no_changes():
    d = diff_records(sample_records(), sample_records())
    assert d == {"regressions": [], "improvements": [], "added": [], "removed": [], "moved": [], "differs": [],
                 "left_out": {}}
    assert format_diff(d) == "no changes against the baseline"


def test_verified_to_refuted_is_a_named_regression():
    old = pair("p.thm1", result_line("p.thm1", "0.0", S.PASS))
    new = pair("p.thm1", result_line("p.thm1", "0.0", S.REFUTED, slack=-0.2))
    d = diff_records(old, new)
    claim_level = [e for e in d["regressions"] if e["level"] == "claim"]
    # verified, not fully and not as expected: without a probe its conclusion cannot fail here (issue 27)
    assert claim_level == [{"level": "claim", "claim": "p.thm1", "paper": "p", "old": S.VERIFIED,
                            "new": S.ST_REFUTED, "why": "status verified -> refuted"}]
    fixture_level = [e for e in d["regressions"] if e["level"] == "fixture"]
    assert [(e["claim"], e["task_id"], e["old"], e["new"]) for e in fixture_level] == [
        ("p.thm1", "0.0", S.PASS, S.REFUTED)]
    text = format_diff(d)
    assert "REGRESSIONS (2)" in text and "p.thm1" in text and "refuted" in text
    assert "python -m verify run p.thm1 --task 0.0 --seed 7" in text
    back = diff_records(new, old)
    assert not back["regressions"] and {e["level"] for e in back["improvements"]} == {"claim", "fixture"}


def test_fixture_regression_without_status_change():
    old = pair("p.lem", result_line("p.lem", "0.0", S.PASS), result_line("p.lem", "0.1", S.PASS))
    new = pair("p.lem", result_line("p.lem", "0.0", S.PASS), result_line("p.lem", "0.1", S.VACUOUS))
    d = diff_records(old, new)
    assert [(e["level"], e["task_id"], e["new"]) for e in d["regressions"]] == [("fixture", "0.1", S.VACUOUS)]


def test_negative_control_that_stops_failing_is_a_regression():
    neg = dict(kind=S.NEGATIVE)
    old = pair("p.lem", result_line("p.lem", "0.0", S.PASS), result_line("p.lem", "1.0", S.REFUTED, **neg))
    new = pair("p.lem", result_line("p.lem", "0.0", S.PASS), result_line("p.lem", "1.0", S.PASS, **neg))
    d = diff_records(old, new)
    assert {(e["level"], e["new"]) for e in d["regressions"]} == {("claim", S.CONTROL_FAILED), ("fixture", S.PASS)}
    assert not d["improvements"]


def test_expected_refutation_lost_is_a_regression_and_found_is_an_improvement():
    def recs(verdict: str) -> list[dict]:
        return [claim_line("p.thm", expected=S.ST_REFUTED),
                result_line("p.thm", "0.0", verdict, expected=[S.REFUTED]),
                result_line("p.thm", "9.0", S.REFUTED, kind=S.NEGATIVE)]
    lost = diff_records(recs(S.REFUTED), recs(S.PASS))
    assert [e["claim"] for e in lost["regressions"] if e["level"] == "claim"] == ["p.thm"]
    assert "no longer as expected; expected refuted" in lost["regressions"][0]["why"]
    found = diff_records(recs(S.PASS), recs(S.REFUTED))
    assert [e["claim"] for e in found["improvements"] if e["level"] == "claim"] == ["p.thm"]
    assert not found["regressions"]


def test_added_and_removed_claims():
    old = pair("p.a", result_line("p.a", "0.0", S.PASS))
    new = pair("p.b", result_line("p.b", "0.0", S.INCONCLUSIVE))
    d = diff_records(old, new)
    assert d["added"] == [{"claim": "p.b", "paper": "p", "status": S.ST_INCONCLUSIVE}]
    assert d["removed"] == [{"claim": "p.a", "paper": "p", "status": S.VERIFIED}]
    assert not d["regressions"]
    text = format_diff(d)
    assert "ADDED CLAIMS (1)" in text and "REMOVED CLAIMS (1)" in text and "p.a" in text and "p.b" in text


def test_tracked_quantity_moved_beyond_tolerance():
    comps = [{"name": "c", "relation": "==", "measured": 1.0, "predicted": 2.0, "tolerance": 2e-3,
              "holds": True, "slack": 0.5, "detail": ""}]  # relative tolerance 1e-3
    old = pair("p.c", result_line("p.c", "0.0", S.PASS, quantities={"gamma": 1.0, "flag": True, "n": 4},
                                  comparisons=comps))
    within = copy.deepcopy(old)
    within[1]["evidence"]["quantities"]["gamma"] = 1.0009
    assert diff_records(old, within)["moved"] == []
    beyond = copy.deepcopy(old)
    beyond[1]["evidence"]["quantities"]["gamma"] = 1.002
    moved = diff_records(old, beyond)["moved"]
    assert [(m["claim"], m["task_id"], m["quantity"]) for m in moved] == [("p.c", "0.0", "gamma")]
    assert abs(moved[0]["change"] - 0.002) < 1e-12 and abs(moved[0]["rtol"] - 1e-3) < 1e-15
    assert "MOVED QUANTITIES (1)" in format_diff(diff_records(old, beyond))
    nan = copy.deepcopy(old)
    nan[1]["evidence"]["quantities"]["gamma"] = "nan"
    assert [m["quantity"] for m in diff_records(old, nan)["moved"]] == ["gamma"]


def test_quantity_without_comparisons_uses_the_floor_and_another_seed_is_not_compared():
    old = pair("p.q", result_line("p.q", "0.0", S.PASS, quantities={"q": 1.0}, comparisons=[]))
    new = pair("p.q", result_line("p.q", "0.0", S.PASS, quantities={"q": 1.0 + 10 * QUANTITY_RTOL_FLOOR},
                                  comparisons=[]))
    assert [m["quantity"] for m in diff_records(old, new)["moved"]] == ["q"]
    reseeded = pair("p.q", result_line("p.q", "0.0", S.REFUTED, seed=8, quantities={"q": 5.0}, comparisons=[]))
    d = diff_records(old, reseeded)
    assert d["moved"] == []
    fixture = [e for e in d["regressions"] if e["level"] == "fixture"]
    assert fixture[0]["same_seed"] is False and fixture[0]["seed"] == 8


def test_rounding_level_residuals_and_counters_are_not_regressions():
    # on another BLAS kernel: a residual at rounding level moved, a cost counter and a count of seeds
    # reaching an outcome of chaotic dynamics changed; none of them is a regression
    q_old = {"R2_closed_form_rel_error": 2.8e-16, "solver evaluations": 22732, "k=0: certified global": 2}
    q_new = {"R2_closed_form_rel_error": 1.7e-16, "solver evaluations": 22741, "k=0: certified global": 1}
    old = pair("w.prop4", result_line("w.prop4", "0.0", S.PASS, quantities=q_old))
    new = pair("w.prop4", result_line("w.prop4", "0.0", S.PASS, quantities=q_new))
    assert diff_records(old, new)["moved"] == []
    # a residual that grows past the absolute floor is still a regression
    worse = pair("w.prop4", result_line("w.prop4", "0.0", S.PASS, quantities={**q_new, "R2_closed_form_rel_error": 3e-9}))
    assert [m["quantity"] for m in diff_records(old, worse)["moved"]] == ["R2_closed_form_rel_error"]


def test_declared_precision_and_arrays():
    def rec(q, precision=None):
        r = result_line("p.t", "0.0", S.PASS, quantities=q)
        r["evidence"]["precision"] = precision or {}
        return pair("p.t", r)

    # a quantity declared at rtol 1e-3 tolerates a 5e-4 move; the default (1e-6 here) would not
    old = rec({"margin": 1.0}, {"margin": {"rtol": 1e-3, "atol": None}})
    new = rec({"margin": 1.0005}, {"margin": {"rtol": 1e-3, "atol": None}})
    assert diff_records(old, new)["moved"] == []
    assert [m["quantity"] for m in diff_records(rec({"margin": 1.0}), rec({"margin": 1.0005}))["moved"]] == ["margin"]
    # arrays of floats compare element by element; a changed length is a move
    assert diff_records(rec({"errors": [0.1, 0.01]}), rec({"errors": [0.1, 0.01 + 1e-15]}))["moved"] == []
    assert len(diff_records(rec({"errors": [0.1, 0.01]}), rec({"errors": [0.1, 0.02]}))["moved"]) == 1
    assert len(diff_records(rec({"errors": [0.1, 0.01]}), rec({"errors": [0.1]}))["moved"]) == 1


def test_a_claim_declared_reproducible_widens_only_its_untracked_floats():
    def rec(q, reproducible=None, precision=None):
        r = result_line("p.t", "0.0", S.PASS, quantities=q)
        r["evidence"]["precision"] = precision or {}
        if reproducible is not None:
            r["evidence"]["reproducible"] = reproducible
        return pair("p.t", r)

    wide = {"rtol": 1e-3, "atol": 1e-8}
    # a trajectory's endpoint 5e-4 apart: a move by default, within a declared 1e-3
    assert diff_records(rec({"d": 1.0}, wide), rec({"d": 1.0005}, wide))["moved"] == []
    assert len(diff_records(rec({"d": 1.0}, wide), rec({"d": 1.002}, wide))["moved"]) == 1
    # a residual near zero: within the declared absolute precision
    assert diff_records(rec({"r": 1e-10}, wide), rec({"r": 5e-9}, wide))["moved"] == []
    # a quantity tracked finer than the claim reproduces is compared at the claim's precision; a looser one keeps its own
    tight = {"d": {"rtol": 1e-6, "atol": None}}
    assert diff_records(rec({"d": 1.0}, wide, tight), rec({"d": 1.0005}, wide, tight))["moved"] == []
    loose = {"d": {"rtol": 1e-2, "atol": None}}
    assert diff_records(rec({"d": 1.0}, wide, loose), rec({"d": 1.005}, wide, loose))["moved"] == []
    assert len(diff_records(rec({"d": 1.0}, wide, loose), rec({"d": 1.02}, wide, loose))["moved"]) == 1
    # "verdict": floats are left to the verdict, tracked or not; a verdict change is still a regression
    assert diff_records(rec({"best": 3.29}, "verdict"), rec({"best": 3.01}, "verdict"))["moved"] == []
    assert diff_records(rec({"d": 1.0}, "verdict", tight), rec({"d": 1.1}, "verdict", tight))["moved"] == []


def test_reproducible_is_validated_at_registration():
    import pytest

    from verify import Evidence, claim, family, negative, random
    from verify.claims import Registry
    from verify.errors import UsageError

    reg = Registry()

    @family("p.fam")
    def fam(rng):
        return {}

    for bad in ("sometimes", {"rtol": 2.0}, {"digits": 3}):
        with pytest.raises(UsageError, match="reproducible"):
            claim("p.bad", kind="claim", statement="s", fixtures=[random(fam), negative(fam, mutation="m")],
                  reproducible=bad, registry=reg)(lambda fx: Evidence())
    claim("p.good", kind="claim", statement="s", fixtures=[random(fam)], reproducible={"rtol": 1e-3},
          registry=reg)(lambda fx: Evidence())
    assert reg["p.good"].describe()["reproducible"] == {"rtol": 1e-3}


def test_differing_selections_judge_claim_status_on_each_files_own_results():
    # The new run's powered control (task 2.0) is one the old run never had. Comparing only the fixtures
    # both ran must not recompute the claim's status on that subset (no "verified -> unguarded").
    head_old = {"type": "run", "run_id": "a", "profile": "quick", "seed": 0, "selectors": ["p.lem"]}
    head_new = {"type": "run", "run_id": "b", "profile": "quick", "seed": 0, "selectors": ["p.lem", "p.other"]}
    neg = dict(kind=S.NEGATIVE)
    old = [head_old, claim_line("p.lem"), result_line("p.lem", "0.0", S.PASS),
           result_line("p.lem", "1.0", S.REFUTED, **neg)]
    # task 1.0 is now a broken-hypothesis probe (caught as vacuous) and the powered control moved to 2.0
    new = [head_new, claim_line("p.lem"), result_line("p.lem", "0.0", S.PASS),
           probe_line("p.lem", "1.0"), result_line("p.lem", "2.0", S.REFUTED, **neg),
           *pair("p.other", result_line("p.other", "0.0", S.PASS))]
    d = diff_records(old, new)
    assert d["differs"] and not [e for e in d["regressions"] if e["level"] == "claim"]
