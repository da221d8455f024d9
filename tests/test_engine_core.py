"""The engine's core: registry errors, evidence, verdicts, claim statuses, judgements."""

import math

import numpy as np
import pytest

from verify import Evidence, UsageError, clopper_pearson, judge_binomial, judge_trend
from verify import settings as S
from verify.claims import (
    Registry,
    adversarial,
    claim,
    expand,
    family,
    hypothesis,
    negative,
    not_checkable,
    random,
)
from verify.execute import run_task
from verify.judgements import extrapolate_limit, judge_slope
from verify.verdicts import aggregate, claim_status, exit_code


@family("test.vec")
def vec(rng, d=3):
    return {"v": rng.normal(size=d)}


@family("test.nan")
def nan_family(rng, d=3):
    return {"v": np.full(d, np.nan)}


def _register(reg, cid, check, **kw):
    kw.setdefault("kind", "lemma")
    kw.setdefault("statement", "s")
    kw.setdefault("fixtures", [random(vec), negative(vec, mutation="m")])
    claim(cid, registry=reg, **kw)(check)


def ok_check(fx):
    ev = Evidence()
    ev.le("x", -1.0 if not fx.mutated() else 1.0, 0.0)
    return ev


# -- registry ---------------------------------------------------------------------------------

def test_duplicate_id_rejected_with_both_sources():
    reg = Registry()
    _register(reg, "p.a", ok_check)
    with pytest.raises(UsageError, match="duplicate claim id 'p.a'"):
        _register(reg, "p.a", ok_check)


def test_unknown_uses_rejected():
    reg = Registry()
    _register(reg, "p.a", ok_check, uses=["p.missing"])
    with pytest.raises(UsageError, match="uses unknown claim 'p.missing'"):
        reg.validate()


def test_cycle_rejected_and_named():
    reg = Registry()
    _register(reg, "p.a", ok_check, uses=["p.b"])
    _register(reg, "p.b", ok_check, uses=["p.c"])
    _register(reg, "p.c", ok_check, uses=["p.a"])
    with pytest.raises(UsageError, match=r"cycle.*p\.a -> p\.b -> p\.c -> p\.a"):
        reg.validate()


def test_bad_declarations_rejected():
    reg = Registry()
    with pytest.raises(UsageError, match="unknown kind"):
        _register(reg, "p.a", ok_check, kind="thm")
    with pytest.raises(UsageError, match="at least one fixture"):
        _register(reg, "p.b", ok_check, fixtures=[])
    with pytest.raises(UsageError, match="unknown parameter"):
        random(vec, dd=3)
    with pytest.raises(UsageError, match="needs a reason"):
        not_checkable("p.c", kind="definition", statement="s", reason=" ", registry=reg)
    with pytest.raises(UsageError, match="statement is empty"):
        _register(reg, "p.d", ok_check, statement="")


def test_selectors():
    reg = Registry()
    for cid in ("p.thm1", "p.thm1.a", "p.lem2", "q.thm1"):
        _register(reg, cid, ok_check)
    assert [c.id for c in reg.select(["p.thm1"])] == ["p.thm1", "p.thm1.a"]
    assert [c.id for c in reg.select(["q"])] == ["q.thm1"]
    assert [c.id for c in reg.select(["*.thm1"])] == ["p.thm1", "q.thm1"]
    with pytest.raises(UsageError, match="matches no registered claim"):
        reg.select(["nope"])


def test_profiles_and_seeds_are_deterministic():
    reg = Registry()
    _register(reg, "p.a", ok_check, fixtures=[random(vec), adversarial(vec, d=5), negative(vec, mutation="m")])
    c = reg["p.a"]
    quick = expand([c], "quick", 0)
    standard = expand([c], "standard", 0)
    assert [t.key for t in quick] == ["0.0", "2.0"]  # adversarial fixtures are not in quick
    assert [t.key for t in standard] == ["0.0", "0.1", "0.2", "1.0", "2.0"]
    assert [t.seed for t in expand([c], "quick", 0)] == [t.seed for t in quick]
    assert [t.seed for t in expand([c], "quick", 1)] != [t.seed for t in quick]
    with pytest.raises(UsageError, match="unknown profile"):
        expand([c], "fast", 0)


# -- evidence ---------------------------------------------------------------------------------

def test_evidence_comparisons_and_slack():
    ev = Evidence()
    assert ev.holds is None  # a check that records nothing cannot pass
    assert ev.le("a", 1.0, 2.0)
    assert not ev.ge("b", 1.0, 2.0)
    assert ev.slack == pytest.approx(-0.5)
    assert ev.holds is False
    ev2 = Evidence()
    assert ev2.close("c", [1.0, 2.0], [1.0, 2.0 + 1e-12], rtol=1e-9)
    assert not ev2.close("d", 1.0, float("nan"))
    assert not ev2.le("e", float("inf"), 1.0)
    ev3 = Evidence()
    ev3.le("x", 0.0, 1.0)
    ev3.inconclusive("solver failed")
    assert ev3.holds is None and ev3.inconclusive_reason == "solver failed"
    d = ev2.to_dict()
    assert d["comparisons"][1]["predicted"] == "nan"  # JSON-safe


# -- verdicts and statuses --------------------------------------------------------------------

def _run(reg, cid, use_index=0):
    t = [t for t in expand([reg[cid]], "quick", 0) if t.use_index == use_index][0]
    return run_task(t, 0, "r", reg)


def test_verdicts_for_pass_refuted_vacuous_inconclusive_error():
    reg = Registry()
    never = hypothesis("never", lambda fx: (False, -1.0))
    _register(reg, "p.pass", ok_check)
    _register(reg, "p.ref", lambda fx: (lambda e: (e.le("x", 1.0, 0.0), e)[1])(Evidence()))
    _register(reg, "p.vac", ok_check, hypotheses=[never])
    _register(reg, "p.inc", lambda fx: Evidence().inconclusive("integrator error above slack"))
    _register(reg, "p.err", lambda fx: 1 / 0)
    _register(reg, "p.nan", ok_check, fixtures=[random(nan_family)])
    assert _run(reg, "p.pass")["verdict"] == S.PASS
    assert _run(reg, "p.ref")["verdict"] == S.REFUTED
    r = _run(reg, "p.vac")
    assert r["verdict"] == S.VACUOUS and "never" in r["reason"]
    assert _run(reg, "p.inc")["verdict"] == S.INCONCLUSIVE
    r = _run(reg, "p.err")
    assert r["verdict"] == S.ERROR and "ZeroDivisionError" in r["reason"] and r["traceback"]
    r = _run(reg, "p.nan")
    assert r["verdict"] == S.ERROR and "NaN or inf" in r["reason"]
    neg = _run(reg, "p.pass", use_index=1)
    assert neg["verdict"] == S.REFUTED and neg["as_expected"] and neg["expected"] == [S.REFUTED]


def _res(claim, kind, verdict, expected=None, task="0.0", mutation=None, room=None):
    if expected is None:
        expected = [S.PASS] if kind != S.NEGATIVE else ([S.REFUTED] if mutation else [S.REFUTED, S.VACUOUS])
    return {"claim": claim, "fixture_kind": kind, "verdict": verdict, "expected": expected, "mutation": mutation,
            "as_expected": verdict in expected, "task_id": task, "evidence": {"tightest_room": room}}


def test_claim_status_aggregation():
    c = {"id": "p.a", "paper": "p", "checkable": True, "uses": [], "cannot_fail": "hand-made records"}
    powered = _res("p.a", "negative", "refuted", mutation="m")
    assert claim_status(c, [_res("p.a", "random", "pass"), powered])["status"] == S.VERIFIED
    st = claim_status(c, [_res("p.a", "random", "pass"), _res("p.a", "negative", "pass", mutation="m")])
    assert st["status"] == S.CONTROL_FAILED and not st["as_expected"]
    # a mutated conclusion that comes out vacuous shows nothing about the check: not caught
    st = claim_status(c, [_res("p.a", "random", "pass"), _res("p.a", "negative", "vacuous", mutation="m")])
    assert st["status"] == S.CONTROL_FAILED
    assert claim_status(c, [_res("p.a", "random", "refuted")])["status"] == S.ST_REFUTED
    assert claim_status(c, [_res("p.a", "random", "inconclusive")])["status"] == S.ST_INCONCLUSIVE
    assert claim_status(c, [_res("p.a", "random", "vacuous"), powered])["status"] == S.ST_VACUOUS
    assert claim_status(c, [_res("p.a", "random", "pass"), _res("p.a", "adversarial", "error")])["status"] == S.ST_ERROR
    assert claim_status({"id": "p.n", "checkable": False}, [])["status"] == S.NOT_CHECKABLE
    exp = {**c, "expected": "refuted"}
    st = claim_status(exp, [_res("p.a", "random", "refuted", [S.PASS, S.REFUTED]), _res("p.a", "negative", "vacuous")])
    assert st["status"] == S.ST_REFUTED and st["as_expected"]
    st = claim_status(exp, [_res("p.a", "random", "pass", [S.PASS, S.REFUTED]), powered])
    assert st["status"] == S.VERIFIED and not st["as_expected"]  # an expected refutation that vanished is news
    slow = {**c, "expected": "inconclusive"}
    for verdict, status in (("pass", S.VERIFIED), ("inconclusive", S.ST_INCONCLUSIVE)):
        st = claim_status(slow, [_res("p.a", "random", verdict, [S.PASS, S.INCONCLUSIVE]), powered])
        assert st["status"] == status and st["as_expected"]
    st = claim_status(slow, [_res("p.a", "random", "refuted", [S.PASS, S.INCONCLUSIVE])])
    assert st["status"] == S.ST_REFUTED and not st["as_expected"]
    # a stress fixture declared able to end inconclusive does not hold back a claim the other fixtures decide;
    # undeclared, or with nothing decided, the claim is inconclusive
    stress = _res("p.a", "adversarial", "inconclusive", [S.PASS, S.INCONCLUSIVE])
    st = claim_status(c, [_res("p.a", "random", "pass"), stress, powered])
    assert st["status"] == S.VERIFIED and st["as_expected"]
    st = claim_status(c, [_res("p.a", "random", "pass"), _res("p.a", "adversarial", "inconclusive"), powered])
    assert st["status"] == S.ST_INCONCLUSIVE and not st["as_expected"]
    assert claim_status(c, [stress, powered])["status"] == S.ST_INCONCLUSIVE
    assert claim_status(c, [_res("p.a", "random", "vacuous"), stress, powered])["status"] == S.ST_VACUOUS


def test_power_only_a_refuted_mutation_guards_a_claim():
    c = {"id": "p.a", "paper": "p", "checkable": True, "uses": [], "cannot_fail": "hand-made records"}
    # only a hypothesis-breaking control, caught as vacuous: the predicate works, the check is unproven
    st = claim_status(c, [_res("p.a", "random", "pass"), _res("p.a", "negative", "vacuous")])
    assert st["status"] == S.UNGUARDED and not st["as_expected"]
    assert st["negative_controls"] == {"total": 1, "caught": 1, "powered": 0, "crashed": 0}
    # no negative control at all
    st = claim_status(c, [_res("p.a", "random", "pass")])
    assert st["status"] == S.UNGUARDED and exit_code({"p.a": st}) == 1
    st = claim_status(c, [_res("p.a", "random", "pass"), _res("p.a", "negative", "vacuous"),
                          _res("p.a", "negative", "refuted", mutation="bound halved")])
    assert st["status"] == S.VERIFIED and st["negative_controls"]["powered"] == 1


def test_tightest_room_and_loose():
    c = {"id": "p.a", "paper": "p", "checkable": True, "uses": [], "cannot_fail": "hand-made records"}
    powered = _res("p.a", "negative", "refuted", mutation="m")
    st = claim_status(c, [_res("p.a", "random", "pass", room=40.0), _res("p.a", "adversarial", "pass", room=3.0),
                          powered])
    assert st["tightest_room"] == 3.0 and not st["loose"]
    st = claim_status(c, [_res("p.a", "random", "pass", room=2500.0), powered])
    assert st["loose"] and st["status"] == S.VERIFIED and st["as_expected"]  # loose is a mark, not a failure
    st = claim_status(c, [_res("p.a", "random", "pass"), powered])
    assert st["tightest_room"] is None and not st["loose"]
    # a companion rate check that passed on the fixture where the bound has room carries the claim
    rated = _res("p.a", "random", "pass", room=2500.0)
    rated["evidence"]["rate_checked"] = True
    st = claim_status(c, [rated, powered])
    assert st["tightest_room"] == 2500.0 and not st["loose"] and st["rate_checked"]
    st = claim_status(c, [rated, _res("p.a", "adversarial", "pass", room=900.0), powered])
    assert st["loose"] and not st["rate_checked"]


def test_judge_slope_marks_its_comparison_as_a_rate_check():
    from verify import Evidence, judge_slope

    ev = Evidence()
    ev.le("error <= C eps", 1e-6, 1.0)
    assert ev.tightest_room == 1e6 and not ev.rate_checked
    x = np.array([1e-3, 1e-2, 1e-1])
    judge_slope("error vs eps", x, 2 * x, predicted=1.0, relation=">=", evidence=ev, plot=False)
    assert ev.rate_checked and ev.to_dict()["rate_checked"]
    bad = Evidence()
    judge_slope("error vs eps", x, 2 * x, predicted=2.0, relation=">=", evidence=bad, plot=False)
    assert not bad.rate_checked and bad.holds is False


def _probe(x, outcome=S.PROBE_FAILED, crashed=False):
    r = _res(x, "negative", "vacuous")
    r.update(unmet=["h"], probe=outcome, crashed=crashed)
    return r


def _ok(x, verdict="pass"):
    return [_res(x, "random", verdict), _res(x, "negative", "refuted", mutation="m"), _probe(x)]


def test_fully_verified_needs_everything_used_verified():
    claims = [{"id": x, "paper": "p", "uses": u, "fidelity": S.FAITHFUL} for x, u in (("a", ["b"]), ("b", ["c"]),
                                                                                    ("c", []))]
    ok = [r for x in "abc" for r in _ok(x)]
    st = aggregate(claims, ok)
    assert all(st[x]["fully_verified"] for x in "abc")
    st = aggregate(claims, _ok("a") + _ok("b") + _ok("c", "refuted"))
    assert st["a"]["status"] == S.VERIFIED and not st["a"]["fully_verified"]
    assert exit_code(st) == 1
    assert exit_code(aggregate(claims, ok)) == 0
    # only faithful claims, down their uses, are fully verified
    st = aggregate([{**claims[0]}, {**claims[1], "fidelity": S.PROXY}, claims[2]], ok)
    assert st["c"]["fully_verified"] and not st["b"]["fully_verified"] and not st["a"]["fully_verified"]
    assert st["b"]["status"] == S.VERIFIED and exit_code(st) == 0


def test_cannot_fail_here_and_hypotheses_shown_necessary():
    c = {"id": "p.a", "paper": "p", "checkable": True, "uses": [], "fidelity": S.FAITHFUL}
    powered = _res("p.a", "negative", "refuted", mutation="m")
    # an identity: it held on the random fixture and on the probe off its hypothesis
    st = aggregate([c], [_res("p.a", "random", "pass"), powered, _probe("p.a", S.PROBE_HELD)])["p.a"]
    assert st["status"] == S.VERIFIED and st["marks"] == [S.CANNOT_FAIL] and not st["as_expected"]
    assert not st["fully_verified"] and st["hypotheses_broken"] == ["h"] and st["hypotheses_shown_necessary"] == []
    # declared definitional, or acknowledged with a reason: as expected, still marked, still not fully verified
    for decl in ({"fidelity": S.DEFINITIONAL}, {"cannot_fail": "no hypothesis to break"}):
        st = aggregate([{**c, **decl}], [_res("p.a", "random", "pass"), powered])["p.a"]
        assert st["as_expected"] and S.CANNOT_FAIL in st["marks"] and not st["fully_verified"]
    # a probe on which the printed conclusion failed: the hypothesis is shown necessary, the mark goes
    st = aggregate([c], _ok("p.a"))["p.a"]
    assert st["marks"] == [] and st["as_expected"] and st["fully_verified"]
    assert st["hypotheses_shown_necessary"] == ["h"] and st["probes"] == {S.PROBE_FAILED: 1}
    # a crash off the hypotheses is vacuous but catches nothing
    crashed = _probe("p.a", S.PROBE_UNDEFINED, crashed=True)
    st = aggregate([c], _ok("p.a") + [crashed])["p.a"]
    assert st["status"] == S.CONTROL_FAILED and st["crashed_controls"] == 1 and not st["as_expected"]


# -- the evidence algebra: validity, precedence, quantifiers, room ------------------------------

def test_validity_failure_is_inconclusive_never_refuted():
    # lyu2021.thm3.1 on another machine: the only failing entry was the integrator's error estimate
    ev = Evidence()
    ev.accuracy("integrator error estimate (rtol/10 rerun)", 0.0513, 1e-6)
    ev.le("KKT residual", 0.01, 0.05)
    assert ev.outcome[0] == S.INCONCLUSIVE and "integrator error estimate" in ev.outcome[1]
    # a dependent conclusion that fails under an uncertified computation is not judged
    ev.le("normalised margin gap", 0.3, 0.05)
    assert ev.outcome[0] == S.INCONCLUSIVE and "1 dependent conclusion" in ev.outcome[1]


def test_independent_decisive_failure_refutes_despite_an_inconclusive_part():
    ev = Evidence()
    ev.inconclusive("solver stalled")
    ev.le("closed-form bound", 2.0, 1.0, independent=True)
    verdict, reason = ev.outcome
    assert verdict == S.REFUTED and "closed-form bound" in reason and "solver stalled" in reason
    ev2 = Evidence()
    ev2.le("closed-form bound", 0.5, 1.0, independent=True)
    ev2.inconclusive("solver stalled")
    assert ev2.outcome[0] == S.INCONCLUSIVE  # nothing failed decisively


def test_empty_quantifier_is_vacuous_not_a_pass():
    # wang2022.cor1: "for every neuron with the antecedent" over no such neuron
    ev = Evidence()
    assert ev.forall("aligned neurons with a_j > 0", [], 0.99, relation=">=")
    assert ev.outcome[0] == S.VACUOUS and ev.holds is None
    ev.ge("loss decreased", 1.0, 0.0)  # another comparison does not rescue an empty required quantifier
    assert ev.outcome[0] == S.VACUOUS
    ev2 = Evidence()
    ev2.forall("secondary", [], 1.0, required=False)
    ev2.le("main", 0.5, 1.0)
    assert ev2.outcome[0] == S.PASS
    ev3 = Evidence()
    ev3.forall("cosines", [0.999, 0.995, 0.9999], 0.99, relation=">=")
    c = ev3.comparisons[0]
    assert ev3.outcome[0] == S.PASS and c.count == 3 and c.measured == 0.995
    assert not ev3.forall("signs", [True, False, True], relation="true")
    assert ev3.outcome[0] == S.REFUTED and "1 of 3 fail" in ev3.comparisons[1].detail


def test_no_conclusion_is_inconclusive():
    ev = Evidence()
    ev.accuracy("integrator", 1e-9, 1e-6)
    assert ev.outcome[0] == S.INCONCLUSIVE and ev.holds is None


def test_room_of_passing_comparisons():
    ev = Evidence()
    ev.le("loss <= C/t", 2e-5, 0.5)            # a bound passing with 25000x room
    ev.ge("margin >= gamma/2", 0.9, 0.5)        # 1.8x
    ev.le("sign statement", -0.3, 0.0)          # no constant to be wrong: no room
    ev.close("identity", 1.0, 1.0 + 1e-12)      # identities have no room
    ev.le("residual", 1e-16, 1e-9, room=None)   # a numerical tolerance, not a constant of the claim
    rooms = [c.room for c in ev.comparisons]
    assert rooms[0] == pytest.approx(25000) and rooms[1] == pytest.approx(1.8) and rooms[2:] == [None] * 3
    assert ev.tightest_room == pytest.approx(1.8)
    d = ev.to_dict()
    assert d["tightest_room"] == pytest.approx(1.8) and d["outcome"] == S.PASS
    ev.ge("failing", 0.1, 0.5)
    assert ev.comparisons[-1].room is None


# -- judgements -------------------------------------------------------------------------------

def test_clopper_pearson_known_values():
    lo, hi = clopper_pearson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(1 - 0.025 ** (1 / 10), rel=1e-12)
    lo, hi = clopper_pearson(10, 10)
    assert hi == 1.0 and lo == pytest.approx(0.025 ** (1 / 10), rel=1e-12)
    lo, hi = clopper_pearson(5, 10)
    assert (lo, hi) == pytest.approx((0.187086, 0.812914), abs=1e-6)


def test_binomial_judgement():
    assert judge_binomial("p", 95, 100, 0.9).holds is True
    ev = judge_binomial("p", 70, 100, 0.9)  # CI upper about 0.79 < 0.9: refuted
    assert ev.holds is False
    assert judge_binomial("p", 9, 10, 0.99).holds is True  # too few trials to refute


def test_binomial_undecided_seeds_count_neither_way():
    # 11 failures out of 12 seeds, 0 undecided: refuted at p = 0.5
    assert judge_binomial("p", 1, 12, 0.5).holds is False
    # the same 1 success with 8 undecided seeds: they could flip the verdict -> inconclusive
    ev = judge_binomial("p", 1, 4, 0.5, undecided=8)
    assert ev.holds is None and "undecided" in ev.inconclusive_reason
    assert ev.quantities["p: undecided"] == 8
    # a few undecided seeds that cannot change the outcome leave it decided
    assert judge_binomial("p", 95, 98, 0.9, undecided=2).holds is True
    assert judge_binomial("p", 60, 100, 0.9, undecided=1).holds is False
    assert judge_binomial("p", 0, 0, 0.9, undecided=0).holds is None


SCALES = [10, 100, 1000, 10000]


def test_trend_examples_from_the_issue():
    assert judge_trend("x", [1, 2, 3, 4], [0.3, 0.3, 0.3, 0.3], 0.05).holds is False    # flat above tol
    assert judge_trend("x", [1, 2, 3, 4], [0.3, 0.1, 0.03, 0.01], 0.05).holds is True   # converges
    assert judge_trend("x", [1, 2, 3, 4], [0.1, 0.2, 0.3, 0.4], 0.05).holds is False    # grows
    # D8 flat at 4.9x its tolerance from s = 80 to 320
    ev = judge_trend("D8", [80, 160, 320], [0.245, 0.2451, 0.2449], 0.05)
    assert ev.holds is False and "flattened" in ev.comparisons[0].detail


def test_trend_known_answers():
    tol = 1e-3
    assert judge_trend("geom", SCALES, [1e-1, 1e-2, 1e-3, 1e-4], tol=tol).holds is True
    # geometric to zero but the horizon is short: longer horizons, with where the tail would get there
    ev = judge_trend("geom", SCALES, [1.0, 0.5, 0.25, 0.125], tol=tol)
    assert ev.holds is None and "longer horizons needed" in ev.inconclusive_reason and "near horizon" in ev.inconclusive_reason
    # 1/log t converges to 0, slowly: never refuted, asks for longer horizons
    ev = judge_trend("1/log t", SCALES, [1 / math.log(t) for t in SCALES], tol=1e-2)
    assert ev.holds is None and "longer horizons" in ev.inconclusive_reason
    assert judge_trend("1/log t", SCALES, [1 / math.log(t) for t in SCALES], tol=0.2).holds is True
    # geometric convergence to a positive limit 0.3 (10x the tolerance): refuted from the fitted limit
    ev = judge_trend("to 0.3", [1, 2, 3, 4, 5, 6], [0.3 + 0.8 * 0.5 ** k for k in range(6)], tol=0.03)
    assert ev.holds is False and ev.quantities["to 0.3: fitted limit"] == pytest.approx(0.3)
    # a transient, then convergence: inconclusive unless the transient is declared
    series = [0.01, 0.5, 0.1, 0.02, 4e-4]
    assert judge_trend("t", [1, 2, 3, 4, 5], series, tol=tol).holds is None
    assert judge_trend("t", [1, 2, 3, 4, 5], series, tol=tol, transient=1).holds is True
    # noisy geometric decay (5% jitter) still passes; noise above the allowance does not
    rng = np.random.default_rng(0)
    noisy = [10.0 ** -k * (1 + 0.05 * rng.uniform(-1, 1)) for k in range(1, 6)]
    assert judge_trend("noisy", [1, 10, 100, 1e3, 1e4], noisy, tol=2e-5).holds is True
    assert judge_trend("e", SCALES, [1e-1, 1e-2, 5e-2, 2e-4], tol=tol).holds is None
    # flattened just above the tolerance (within the margin): not refuted, not passed
    assert judge_trend("near", SCALES, [0.1, 0.0015, 0.0015, 0.0015], tol=tol).holds is None
    assert judge_trend("e", [1], [0.0], tol=1.0).holds is None


def test_trend_floor_ignores_jitter_below_it_only():
    jitter = [1e-1, 5e-4, 9e-4, 4e-4]  # a wobble far below the tolerance 1e-2 and below the floor
    assert judge_trend("e", SCALES, jitter, tol=1e-2).holds is None
    ev = judge_trend("e", SCALES, jitter, tol=1e-2, floor=1e-3)
    assert ev.holds is True and list(ev.quantities["e: raw errors"]) == jitter
    # a wobble above the floor still breaks the trend
    assert judge_trend("e", SCALES, [1e-1, 4e-3, 8e-3, 5e-3], tol=1e-2, floor=1e-3).holds is None


def test_slope_judgement():
    t = np.array([10.0, 100.0, 1000.0, 10000.0])
    assert judge_slope("L ~ 1/t", t, 3.0 / t, predicted=-1.0, relation="<=", atol=0.05).holds is True
    assert judge_slope("L ~ 1/sqrt t", t, 3.0 / np.sqrt(t), predicted=-1.0, relation="<=", atol=0.05).holds is False
    assert judge_slope("x", t[:2], t[:2], predicted=1.0).holds is None


def test_aitken_extrapolation_exact_on_geometric_series():
    v = [2 + 3 * 0.5 ** k for k in range(5)]
    assert extrapolate_limit(range(5), v) == pytest.approx(2.0, abs=1e-12)
    assert extrapolate_limit(range(3), [1.0, 2.0, 4.0]) is None
    assert math.isfinite(extrapolate_limit(range(3), [1.0, 0.5, 0.5]))


# -- errata -----------------------------------------------------------------------------------

def _erratum(**kw):
    from verify.claims import erratum

    base = dict(kind="wrong constant or typo", location="Sec. 2, eq. (3), p. 4", printed="f(x) <= x^2/4",
                reading="f as defined in eq. (1); the paper uses the same f in Lemma 2",
                second_method="closed form f(x) = x^2/2 at x = 1", summary="the constant 1/4 should be 1/2",
                amended=r"$f(x) \le x^2/2$", difference="1/4 -> 1/2")
    base.update(kw)
    return erratum(**base)


def test_erratum_declares_the_printed_and_amended_pair_once():
    reg = Registry()
    seen = []

    def check(fx):
        seen.append(fx.amended)
        ev = Evidence()
        ev.le("f(1)", 0.5, 0.5 if fx.amended else 0.25)
        return ev

    _register(reg, "p.lem3", check, erratum=_erratum(), fixtures=[random(vec), negative(vec, mutation="m")])
    printed, amended = reg["p.lem3"], reg["p.lem3.amended"]
    assert printed.expected == S.ST_REFUTED and printed.expected_reason == "the constant 1/4 should be 1/2"
    assert amended.amends == "p.lem3" and amended.statement == r"$f(x) \le x^2/2$" and amended.expected is None
    assert amended.fixtures == printed.fixtures and amended.hypotheses == printed.hypotheses
    # the amended claim runs on the very fixtures that refute the printed one
    assert [t.seed for t in expand([printed], "quick", 0)] == [t.seed for t in expand([amended], "quick", 0)]
    assert _run(reg, "p.lem3")["verdict"] == S.REFUTED and _run(reg, "p.lem3.amended")["verdict"] == S.PASS
    assert seen == [False, True]
    d = printed.describe()["erratum"]
    assert {"kind", "location", "reading", "second_method"} <= set(d) and d["amended_id"] is None
    assert reg["p.lem3"].describe()["powered_controls"] == 1


def test_erratum_declarations_are_validated():
    from verify.claims import erratum

    with pytest.raises(UsageError, match="erratum kind"):
        _erratum(kind="typo")
    with pytest.raises(UsageError, match="second_method is empty"):
        _erratum(second_method=" ")
    with pytest.raises(UsageError, match="derived statement is not printed"):
        _register(Registry(), "p.x", ok_check, erratum=_erratum(), derived="a stronger reading")
    e = erratum(kind="experiment not reproduced", location="Fig. 2", printed="GD reaches f*",
                reading="as in Sec. 4", second_method="exact oracle")
    reg = Registry()
    _register(reg, "p.fig2", ok_check, erratum=e)
    assert "p.fig2.amended" not in reg and reg["p.fig2"].expected == S.ST_REFUTED


def test_errata_markdown_groups_by_kind():
    from verify.errata import errata_markdown

    reg = Registry()
    _register(reg, "p.lem3", ok_check, erratum=_erratum())
    _register(reg, "p.lem4", ok_check, derived="a proof step reconstructed", expected="refuted",
              expected_reason="fails on the collinear fixture")
    md = errata_markdown("p", [c.describe() for c in reg])
    assert "| wrong constant or typo | 1 | 1 |" in md and "`p.lem3`" in md and "second method: (independence not declared) closed form" in md
    assert "**1 independent slips, 1 statements affected**" in md
    # a statement that inherits the slip is listed under its root, its confirmation said for what it is
    _register(reg, "p.lem5", ok_check, erratum=_erratum(location="Lemma 5", second_method="the same fit",
                                                        root="p.lem3", independence="same-method confirmation"))
    md = errata_markdown("p", [c.describe() for c in reg])
    assert "**1 independent slips, 2 statements affected**" in md and "| wrong constant or typo | 1 | 2 |" in md
    assert "  - statement affected: `p.lem5`" in md and "same-method confirmation, not a second method" in md
    assert "Derived statements that failed (not errata)" in md and "`p.lem4`" in md


def test_family_search_space_is_validated():
    from verify import choice, integer, real

    @family("test.spaced", space={"d": integer(2, 8), "margin": real(1e-4, 1.0, log=True), "loss": choice("exp", "log")})
    def spaced(rng, d=3, margin=0.1, loss="exp"):
        return {"v": rng.normal(size=d)}

    assert set(spaced.space) == {"d", "margin", "loss"} and spaced.space["d"].contains(8)
    with pytest.raises(UsageError, match="not a parameter"):
        family("test.bad", space={"n": integer(1, 2)})(lambda rng, d=1: {})
    with pytest.raises(UsageError, match="log scale needs lo > 0"):
        real(0.0, 1.0, log=True)


def _forall_by_elements(ev, name, measured, bound, relation, rtol, atol, room):
    """forall's worst element, failure count and room, one single comparison per element (the reference the
    array implementation must reproduce exactly)."""
    vals = np.asarray(measured, dtype=float).ravel()
    b = np.broadcast_to(np.asarray(bound, dtype=float), vals.shape)
    make = ev._le if relation == "<=" else ev._ge
    cs = [make(name, float(v), float(bb), rtol, atol, "", room) for v, bb in zip(vals, b)]
    i = min(range(len(cs)), key=lambda k: cs[k].slack)
    rooms = [x.room for x in cs if x.room is not None]
    return cs[i], i, sum(1 for x in cs if not x.holds), (min(rooms) if rooms and cs[i].holds else None)


def test_forall_on_arrays_equals_the_comparison_of_each_element():
    """forall compares whole arrays at once; the worst element, its slack and tolerance, the failure count
    and the room equal those of one comparison per element, bit for bit (ties, zero and negative bounds,
    non-finite values, per-element bounds, an explicit room)."""
    from verify.evidence import Evidence

    rng = np.random.default_rng(7)
    cases = []
    for _ in range(200):
        n = int(rng.integers(1, 12))
        m = rng.choice([-1.0, 0.0, 1.0, 1e-320, 2.5], size=n) * rng.random(n) ** rng.integers(0, 3)
        if rng.random() < 0.3:
            m[rng.integers(n)] = rng.choice([np.inf, -np.inf])
        b = rng.choice([0.0, -0.5, 1.0, 3.0]) if rng.random() < 0.5 else rng.normal(size=n)
        if rng.random() < 0.2:
            m = np.full(n, 0.25)  # ties: the first worst element
            b = 0.5
        cases.append((m, b))
    for m, b in cases:
        for relation in ("<=", ">="):
            for rtol, atol, room in ((1e-9, 0.0, "auto"), (0.0, 1e-3, "auto"), (1e-6, 0.0, 4.0), (0.0, 0.0, None)):
                ev = Evidence()
                ok = ev.forall("q", m, b, relation=relation, rtol=rtol, atol=atol, room=room)
                c = ev.comparisons[-1]
                ref, i, fails, r = _forall_by_elements(ev, "q", m, b, relation, rtol, atol, room)
                assert ok == ref.holds and c.holds == ref.holds
                assert (c.measured, c.predicted, c.tolerance) == (ref.measured, ref.predicted, ref.tolerance)
                assert c.slack == ref.slack or (np.isnan(c.slack) and np.isnan(ref.slack))
                assert c.room == r
                assert c.detail == f"worst of {len(m)} elements: #{i}" + (f"; {fails} fail" if fails else "")
                assert c.count == len(m)


def test_judge_slope_in_its_regime():
    from verify import judge_slope

    # O(1/t) whose fitted slope over [1e3, 1e6] is -0.59: not yet asymptotic, never refuted
    t = np.logspace(3, 6, 13)
    ev = judge_slope("loss", t, 1 / (t + 1000 * np.sqrt(t)), predicted=-1.0, atol=0.1, plot=False)
    assert ev.outcome[0] == S.INCONCLUSIVE and "not yet asymptotic" in ev.outcome[1]
    # far out, or with the tail picked by the judge from a longer series, it passes
    t = np.logspace(8, 9, 5)
    assert judge_slope("loss", t, 1 / (t + 1000 * np.sqrt(t)), predicted=-1.0, atol=0.1, plot=False).holds
    t = np.logspace(3, 12, 37)
    assert judge_slope("loss", t, 1 / (t + 1000 * np.sqrt(t)), predicted=-1.0, atol=0.1, window="auto",
                       plot=False).holds
    # a settled wrong rate is refuted
    t = np.logspace(3, 6, 13)
    assert judge_slope("loss", t, t ** -0.5, predicted=-1.0, atol=0.1, plot=False).holds is False


def test_judge_slope_toward_zero_reads_the_small_end():
    """A rate as r -> 0 (a radius, a step, an init scale): the smallest r is the asymptotic end. The mirror image of
    the O(1/t) series above: y = r^(1/2) (1 + 1000 r^(1/2)) has slope 1/2 as r -> 0 and 1 at large r."""
    from verify import judge_slope

    r = np.logspace(-12, -3, 37)
    y = r ** 0.5 * (1 + 1e3 * r ** 0.5)             # slope 1/2 as r -> 0, 1 at large r
    ev = judge_slope("err", r, y, predicted=0.5, atol=0.05, window="auto", toward="zero", plot=False)
    assert ev.holds and ev.comparisons[-1].measured == pytest.approx(0.5, abs=0.02)
    # read toward infinity, the same series' tail is the large-r end, slope near 1: refuted there
    assert judge_slope("err", r, y, predicted=0.5, atol=0.05, window="auto", plot=False).holds is False
    # a short window whose local slope still drifts toward the printed exponent as r -> 0 is not yet asymptotic
    r = np.logspace(-6, -3, 7)
    ev = judge_slope("err", r, r ** 0.5 * (1 + 1e3 * r ** 0.5), predicted=0.5, atol=0.05, toward="zero", plot=False)
    assert ev.outcome[0] == S.INCONCLUSIVE and "not yet asymptotic" in ev.outcome[1]
    with pytest.raises(ValueError):
        judge_slope("err", r, r, predicted=1.0, toward="up")

def test_a_rate_check_pins_only_at_the_printed_exponent():
    from verify import judge_slope

    x = np.logspace(0, 2, 6)
    two_sided = judge_slope("r", x, x ** 1.02, predicted=1.0, plot=False, pins=["bound"])
    assert two_sided.rate_checked and two_sided.comparisons[-1].pins == ["bound"]
    far = judge_slope("r", x, x ** 1.85, predicted=1.0, relation=">=", plot=False)
    assert far.holds and not far.rate_checked   # 1.85 against "at least 1" pins nothing
    near = judge_slope("r", x, x ** 1.05, predicted=1.0, relation=">=", plot=False)
    assert near.rate_checked


def test_loose_is_judged_per_conclusion():
    c = {"id": "p.a", "paper": "p", "checkable": True, "uses": [], "cannot_fail": "hand-made records"}
    powered = _res("p.a", "negative", "refuted", mutation="m")

    def rec(*comps):
        r = _res("p.a", "random", "pass")
        r["evidence"] = {"comparisons": [dict(role="conclusion", holds=True, count=None, **x) for x in comps]}
        return r

    # min2024.lem3's shape: two bounds with rooms 31 and 273 beside a rate check with room 2.45
    r = rec({"name": "bound A", "room": 31.0}, {"name": "bound B", "room": 273.0}, {"name": "rate", "room": 2.45})
    st = claim_status(c, [r, powered])
    assert st["loose"] and [x["name"] for x in st["loose_conclusions"]] == ["bound A", "bound B"]
    assert st["tightest_room"] == 2.45
    # a pinning rate check answers for the bound it names, not for the other
    pin = {"name": "slope", "room": None, "rate": True, "pinned": True, "pins": ["bound A"]}
    st = claim_status(c, [rec({"name": "bound A", "room": 31.0}, {"name": "bound B", "room": 273.0}, pin), powered])
    assert [x["name"] for x in st["loose_conclusions"]] == ["bound B"]
    # a rate check that passes without pinning the exponent exempts nothing
    unpinned = {**pin, "pinned": False}
    st = claim_status(c, [rec({"name": "bound A", "room": 31.0}, unpinned), powered])
    assert st["loose"]


def test_a_non_finite_conclusion_is_an_error_never_a_refutation():
    ev = Evidence()
    ev.le("0/0 vs a bound", float("nan"), 1.0)
    assert ev.outcome[0] == S.ERROR and "0/0 vs a bound" in ev.outcome[1]
    ev = Evidence()
    ev.ge("margin vs a NaN bound", 1.0, float("nan"))
    ev.forall("neurons", [1.0, float("inf")], 2.0)
    assert ev.outcome[0] == S.ERROR
    # resting on an uncertified computation, it is inconclusive like the rest
    ev = Evidence()
    ev.accuracy("integrator error", 1.0, 1e-6)
    ev.le("blew up", float("inf"), 1.0)
    assert ev.outcome[0] == S.INCONCLUSIVE
    # divergence stated as a finite-ness conclusion is a refutation as usual
    ev = Evidence()
    ev.true("the loss stays finite", bool(np.isfinite(float("inf"))))
    assert ev.outcome[0] == S.REFUTED
