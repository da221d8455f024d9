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
from verify.judgements import extrapolate_limit
from verify.status import aggregate, claim_status, exit_code


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
    assert ev3.holds is None
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
    assert neg["verdict"] == S.REFUTED and neg["as_expected"]


def _res(claim, kind, verdict, expected=None, task="0.0"):
    expected = expected or ([S.REFUTED, S.VACUOUS] if kind == S.NEGATIVE else [S.PASS])
    return {"claim": claim, "fixture_kind": kind, "verdict": verdict, "expected": expected,
            "as_expected": verdict in expected, "task_id": task}


def test_claim_status_aggregation():
    c = {"id": "p.a", "paper": "p", "checkable": True, "uses": []}
    assert claim_status(c, [_res("p.a", "random", "pass"), _res("p.a", "negative", "refuted")])["status"] == S.VERIFIED
    st = claim_status(c, [_res("p.a", "random", "pass"), _res("p.a", "negative", "pass")])
    assert st["status"] == S.CONTROL_FAILED and not st["as_expected"]
    assert claim_status(c, [_res("p.a", "random", "refuted")])["status"] == S.ST_REFUTED
    assert claim_status(c, [_res("p.a", "random", "inconclusive")])["status"] == S.ST_INCONCLUSIVE
    assert claim_status(c, [_res("p.a", "random", "vacuous")])["status"] == S.ST_VACUOUS
    assert claim_status(c, [_res("p.a", "random", "pass"), _res("p.a", "adversarial", "error")])["status"] == S.ST_ERROR
    assert claim_status({"id": "p.n", "checkable": False}, [])["status"] == S.NOT_CHECKABLE
    exp = {**c, "expected": "refuted"}
    st = claim_status(exp, [_res("p.a", "random", "refuted", [S.PASS, S.REFUTED]), _res("p.a", "negative", "vacuous")])
    assert st["status"] == S.ST_REFUTED and st["as_expected"]
    st = claim_status(exp, [_res("p.a", "random", "pass", [S.PASS, S.REFUTED]), _res("p.a", "negative", "vacuous")])
    assert st["status"] == S.VERIFIED and not st["as_expected"]  # an expected refutation that vanished is news
    slow = {**c, "expected": "inconclusive"}
    for verdict, status in (("pass", S.VERIFIED), ("inconclusive", S.ST_INCONCLUSIVE)):
        st = claim_status(slow, [_res("p.a", "random", verdict, [S.PASS, S.INCONCLUSIVE]),
                                 _res("p.a", "negative", "refuted")])
        assert st["status"] == status and st["as_expected"]
    st = claim_status(slow, [_res("p.a", "random", "refuted", [S.PASS, S.INCONCLUSIVE])])
    assert st["status"] == S.ST_REFUTED and not st["as_expected"]


def test_fully_verified_needs_everything_used_verified():
    claims = [{"id": "a", "paper": "p", "uses": ["b"]}, {"id": "b", "paper": "p", "uses": ["c"]},
              {"id": "c", "paper": "p", "uses": []}]
    ok = [_res(x, "random", "pass") for x in "abc"]
    st = aggregate(claims, ok)
    assert all(st[x]["fully_verified"] for x in "abc")
    st = aggregate(claims, [_res("a", "random", "pass"), _res("b", "random", "pass"), _res("c", "random", "refuted")])
    assert st["a"]["status"] == S.VERIFIED and not st["a"]["fully_verified"]
    assert exit_code(st) == 1
    assert exit_code(aggregate(claims, ok)) == 0


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


def test_trend_judgement_pass_refute_inconclusive():
    scales = [10, 100, 1000, 10000]
    assert judge_trend("e", scales, [1e-1, 1e-2, 1e-3, 1e-4], tol=1e-3).holds is True
    # flattened well above tolerance: the limit is not the claimed one
    assert judge_trend("e", scales, [0.5, 0.31, 0.300, 0.2999], tol=1e-3).holds is False
    # still shrinking but not yet within tolerance: horizon too short
    assert judge_trend("e", scales, [1.0, 0.5, 0.25, 0.125], tol=1e-3).holds is None
    # non-monotone noise beyond the allowance
    assert judge_trend("e", scales, [1e-1, 1e-2, 5e-2, 2e-4], tol=1e-3).holds is None
    assert judge_trend("e", [1], [0.0], tol=1.0).holds is None


def test_trend_floor_ignores_jitter_below_it_only():
    scales = [10, 100, 1000, 10000]
    jitter = [1e-1, 5e-4, 9e-4, 4e-4]  # a wobble far below the tolerance 1e-2 and below the floor
    assert judge_trend("e", scales, jitter, tol=1e-2).holds is None
    ev = judge_trend("e", scales, jitter, tol=1e-2, floor=1e-3)
    assert ev.holds is True and list(ev.quantities["e: raw errors"]) == jitter
    # a wobble above the floor still breaks the trend
    assert judge_trend("e", scales, [1e-1, 4e-3, 8e-3, 5e-3], tol=1e-2, floor=1e-3).holds is None


def test_aitken_extrapolation_exact_on_geometric_series():
    v = [2 + 3 * 0.5 ** k for k in range(5)]
    assert extrapolate_limit(range(5), v) == pytest.approx(2.0, abs=1e-12)
    assert extrapolate_limit(range(3), [1.0, 2.0, 4.0]) is None
    assert math.isfinite(extrapolate_limit(range(3), [1.0, 0.5, 0.5]))
