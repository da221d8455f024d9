"""The hunt engine on toy claims: the space, the search, the trust rules it keeps, the files it writes.

Every toy is a claim whose answer is known: a refutation hidden in a window too narrow for random
draws, one that exists only where the computation is not certified, one only where a hypothesis
fails, one that a coarse profile shows and a careful one does not, one that only some seeds show.
Budgets are a few seconds; nothing here loads the papers.
"""

import json
import math

import numpy as np
import pytest

from verify import Evidence, hypothesis, real
from verify.claims import Registry, adversarial, claim, erratum, expand, family, negative, random
from verify.errors import UsageError
from verify.hunt import HuntSpec, hunt, hunt_claim, replay
from verify.hunt.domain import Candidate, Domain
from verify.hunt.search import _simpler_values
from verify.records import read_records, split
from verify.space import choice, integer

WINDOW_CENTRE = 0.61372


def toys() -> Registry:
    reg = Registry()

    @family("toy.x", space={"x": real(0.0, 1.0)})
    def xs(rng, x=0.1):
        return {"x": x, "noise": rng.normal()}

    @claim("toy.narrow", kind="lemma", statement="1e4 (x - c)^2 >= 1e-6 (fails within 1e-5 of c)",
           fixtures=[random(xs), negative(xs, mutation="bound raised")], registry=reg)
    def narrow(fx):
        ev = Evidence()
        ev.ge("1e4 (x - c)^2", 1e4 * (fx["x"] - WINDOW_CENTRE) ** 2, 1e6 if fx.mutated() else 1e-6, rtol=0)
        return ev

    @claim("toy.uncertified", kind="lemma", statement="x <= 0.9 (fails only where the solver fails)",
           fixtures=[random(xs)], registry=reg)
    def uncertified(fx):
        ev = Evidence()
        ev.valid("solver converged", fx["x"] < 0.9)
        ev.le("x", fx["x"], 0.9, rtol=0)
        return ev

    small = hypothesis("x < 0.5", lambda fx: (fx["x"] < 0.5, 0.5 - fx["x"]))

    @claim("toy.guarded", kind="lemma", statement="x < 0.5 => x <= 0.5", hypotheses=[small],
           fixtures=[random(xs)], registry=reg)
    def guarded(fx):
        ev = Evidence()
        ev.le("x", fx["x"], 0.5, rtol=0)
        return ev

    @claim("toy.coarse", kind="lemma", statement="x <= 1 (the quick profile's approximation overshoots by 0.2)",
           fixtures=[random(xs)], registry=reg)
    def coarse(fx):
        ev = Evidence()
        ev.le("x", fx["x"] + (0.2 if fx.profile == "quick" else 0.0), 1.0, rtol=0)
        return ev

    @family("toy.gauss")
    def gauss(rng, d=3):
        return {"u": rng.normal(size=d)}

    @claim("toy.seeded", kind="lemma", statement="u_0 <= 1.8 (fails for about 4% of the seeds)",
           fixtures=[random(gauss), negative(gauss, mutation="bound lowered")], registry=reg)
    def seeded(fx):
        ev = Evidence()
        ev.le("u_0", fx["u"][0], -10.0 if fx.mutated() else 1.8, rtol=0)
        return ev

    @claim("toy.typo", kind="lemma", statement="x <= 1/2", fixtures=[random(xs)], registry=reg,
           erratum=erratum(kind="wrong constant or typo", location="eq. (1)", printed="x <= 1/2",
                           reading="as printed", second_method="closed form: sup x = 1",
                           amended="x <= 1", difference="1/2 -> 1"))
    def typo(fx):
        ev = Evidence()
        ev.le("x", fx["x"], 1.0 if fx.amended else 0.5, rtol=0)
        return ev

    return reg


@pytest.fixture(scope="module")
def reg():
    return toys()


def test_domain_candidates_declarations_and_coordinates():
    reg = Registry()

    @family("t.f", space={"n": integer(2, 9), "eps": real(1e-4, 1.0, log=True), "loss": choice("exp", "logistic")})
    def f(rng, n=4, eps=0.1, loss="exp", scale=2.0):
        return {"v": rng.normal(size=n) * scale}

    @claim("t.c", kind="lemma", statement="s", fixtures=[random(f, scale=3.0), random(f, scale=3.0, label="again"),
                                                         adversarial(f), negative(f, mutation="m")], registry=reg)
    def c(fx):
        return Evidence()

    dom = Domain.of(reg["t.c"])
    assert [a.use_index for a in dom.arms] == [0, 2]  # same family and kept parameters: one arm; no control
    assert len(Domain.of(reg["t.c"], base="family").arms) == 1
    cand = Candidate(0, (("n", 3), ("eps", 0.01), ("loss", "logistic")), 77)
    assert dom.params(cand) == {"n": 3, "eps": 0.01, "loss": "logistic", "scale": 3.0}
    use = dom.use(cand)
    assert (use.kind, use.label, use.seed, use.params) == ("adversarial", "hunted", 77,
                                                           {"n": 3, "eps": 0.01, "loss": "logistic", "scale": 3.0})
    assert dom.declaration(cand, "f") == 'adversarial(f, label="hunted", seed=77, n=3, eps=0.01, loss=\'logistic\', scale=3.0)'
    names = dom.real_names(cand)
    assert names == ["eps"]
    z = dom.to_unit(cand, names)
    assert z == pytest.approx([0.5])  # 0.01 is half-way between 1e-4 and 1 on a log scale
    assert dom.params(dom.from_unit(cand, names, z))["eps"] == pytest.approx(0.01)
    cov = dom.coverage([cand, cand.with_values(n=9, eps=1.0)])
    p = cov["arms"][0]["parameters"]
    assert p["n"]["bins"] == 2 and p["n"]["of"] == 8 and p["eps"]["bins"] == 2 and p["loss"]["of"] == 2
    assert dom.start(5).values == (("n", 4), ("eps", 0.1), ("loss", "exp"))


def test_simpler_values_move_toward_the_simplest():
    assert _simpler_values(integer(2, 40), 20)[0] == 2 and max(_simpler_values(integer(2, 40), 20)) < 20
    assert _simpler_values(choice("a", "b", "c"), "c") == ["a", "b"]
    rounder = _simpler_values(real(0.0, 10.0), 3.14159265)
    assert rounder[0] == 3.0 and {3.1, 3.14, 3.142} <= set(rounder) and 3.14159265 not in rounder
    assert 0.61372 in _simpler_values(real(0.0, 1.0), 0.613714)  # the 5-digit number next to the rounded one


def test_pinned_seed_fixture_ignores_the_run_seed():
    reg = Registry()

    @family("t.g")
    def g(rng, d=2):
        return {"u": rng.normal(size=d)}

    @claim("t.pinned", kind="lemma", statement="s", fixtures=[adversarial(g, seed=1234, label="hunted")], registry=reg)
    def pinned(fx):
        return Evidence()

    use = reg["t.pinned"].fixtures[0]
    assert use.n_seeds("standard") == 1 and use.n_seeds("quick") == 0 and use.describe()["seed"] == 1234
    assert [t.seed for t in expand([reg["t.pinned"]], "standard", 0)] == [1234]
    assert [t.seed for t in expand([reg["t.pinned"]], "thorough", 99)] == [1234]
    with pytest.raises(UsageError, match="seed pins one seed"):
        random(g, seed=1, seeds=3)
    with pytest.raises(UsageError, match="seed pins one seed"):
        random(g, seed=-1)


def test_narrow_window_found_by_the_optimiser_and_confirmed(reg):
    out = hunt_claim(HuntSpec("toy.narrow", 6.0, controls=True), reg)
    assert out["status"] == "counterexample", out.get("counts")
    found = out["found"]
    x = found["params"]["x"]
    assert abs(x - WINDOW_CENTRE) < 1e-5
    assert found["size"]["x digits"] <= 5  # simplified: 0.61372 itself
    conf = out["confirmation"]
    assert conf["confirmed"] and conf["replay"]["verdict"] == "refuted" and conf["replay"]["certified"]
    assert conf["careful"]["profile"] == "thorough" and conf["careful"]["verdict"] == "refuted"
    hunted = [r for r in out["records"] if r["task_id"] == "hunt.0"][0]
    assert hunted["verdict"] == "refuted" and hunted["label"] == "hunted" and hunted["hunt"]["found_by"] == "search"
    assert any(s["name"] == "hunt: slack over evaluations" for s in hunted["evidence"]["series"])
    assert any(r["fixture_kind"] == "negative" and r["verdict"] == "refuted" for r in out["records"])


@pytest.mark.parametrize("cid, tally", [("toy.uncertified", "inconclusive"), ("toy.guarded", "hypotheses unmet")])
def test_uncertified_computations_and_broken_hypotheses_are_not_counterexamples(reg, cid, tally):
    out = hunt_claim(HuntSpec(cid, 1.5, controls=False), reg)
    assert out["status"] == "no counterexample"
    assert out["counts"][tally] > 0 and out["counts"]["refuted"] == 0
    assert out["best"]["slack"] >= 0 and out["coverage"]["arms"][0]["parameters"]["x"]["bins"] >= 5
    best = [r for r in out["records"] if r["task_id"] == "hunt.best"][0]
    assert best["verdict"] == "pass"


def test_refutations_a_careful_rerun_does_not_confirm_are_never_reported(reg):
    out = hunt_claim(HuntSpec("toy.coarse", 5.0, controls=False), reg)
    assert out["status"] == "no counterexample"
    assert out["unconfirmed_count"] == 3 and "--profile thorough" in out["stopped"]
    first = out["unconfirmed"][0]
    assert first["replay"]["verdict"] == "refuted" and first["careful"]["verdict"] == "pass"
    assert not any(r["verdict"] == "refuted" for r in out["records"])


def test_family_without_space_is_hunted_over_its_seeds(reg):
    out = hunt_claim(HuntSpec("toy.seeded", 5.0, controls=False), reg)
    assert out["status"] == "counterexample"
    f = out["found"]
    assert f["params"] == {"d": 3} and f["shrunk"]["slack"] < 0  # the family default kept: every parameter
    assert out["coverage"]["arms"][0]["parameters"] == {} and out["coverage"]["arms"][0]["seeds"] >= 2


def test_hunt_writes_records_found_files_and_replays(reg, tmp_path):
    run = hunt([reg["toy.seeded"], reg["toy.guarded"]], budget_s=1.5, out_dir=tmp_path, executor="inprocess",
               stream=None, report=False, registry=reg)
    assert run.exit_code == 1 and run.outcomes["toy.seeded"]["status"] == "counterexample"
    recs = read_records(tmp_path / "records.jsonl")
    claims, results, runs = split(recs)
    assert runs[0]["command"] == "hunt" and set(claims) == {"toy.seeded", "toy.guarded"}
    hunted = {r["claim"]: r for r in results if r["task_id"].startswith("hunt.")}
    assert hunted["toy.seeded"]["verdict"] == "refuted" and hunted["toy.guarded"]["verdict"] == "pass"
    found = json.loads((tmp_path / "found" / "toy.seeded.json").read_text())
    assert found["declaration"].startswith('adversarial(toy.gauss, label="hunted", seed=')  # no module variable
    assert hunted["toy.seeded"]["repro"] == found["replay"] == f"verify hunt --replay {tmp_path / 'found' / 'toy.seeded.json'}"
    assert "# (name the family's variable) adversarial(toy.gauss" in (tmp_path / "found.py").read_text()
    assert (tmp_path / "best" / "toy.guarded.json").exists()
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["exit_code"] == 1 and summary["hunt"]["toy.seeded"]["status"] == "counterexample"
    assert summary["claims"]["toy.seeded"]["status"] == "refuted"
    # The replay rebuilds the pinned fixture in a fresh registry lookup and refutes again.
    import verify.hunt.driver as driver

    saved = driver.REGISTRY
    driver.REGISTRY = reg
    try:
        assert replay(tmp_path / "found" / "toy.seeded.json", builtin=False, stream=open("/dev/null", "w")) == 1
        assert replay(tmp_path / "best" / "toy.guarded.json", builtin=False, stream=open("/dev/null", "w")) == 0
    finally:
        driver.REGISTRY = saved


def test_pool_shards_one_claim_over_the_workers(reg, tmp_path):
    run = hunt([reg["toy.guarded"]], budget_s=1.0, out_dir=tmp_path, executor="pool", jobs=2, stream=None,
               report=False, registry=reg)
    o = run.outcomes["toy.guarded"]
    assert run.exit_code == 0 and o["status"] == "no counterexample" and o["shards"] == 2
    assert o["evaluations"] == sum(o["counts"].values())


def test_bad_input_is_a_usage_error(reg, tmp_path):
    with pytest.raises(UsageError, match="--budget"):
        hunt([reg["toy.seeded"]], budget_s=0, out_dir=tmp_path, stream=None, registry=reg)
    with pytest.raises(UsageError, match="profile"):
        hunt([reg["toy.seeded"]], budget_s=1, profile="fast", out_dir=tmp_path, stream=None, registry=reg)
    with pytest.raises(UsageError, match="not a found-counterexample file"):
        (tmp_path / "bad.json").write_text("{}")
        replay(tmp_path / "bad.json")


def test_score_and_slack_edge_cases():
    from verify.hunt.search import _score

    assert _score(-math.inf) == -1e12 and _score(3.0) == 3.0
    assert np.isfinite(_score(math.inf))


def test_declarations_name_the_family_as_the_claim_module_does(monkeypatch):
    import sys
    import types

    from verify.hunt.driver import family_variable

    fixtures_module = types.ModuleType("t_fixtures")
    claims_module = types.ModuleType("t_claims")
    monkeypatch.setitem(sys.modules, "t_claims", claims_module)
    reg = Registry()

    @family("t.cones")
    def cones(rng, d=2):
        return {"u": rng.normal(size=d)}

    fixtures_module.cones = cones
    claims_module.F = fixtures_module

    def check(fx):
        return Evidence()

    check.__module__ = "t_claims"
    claim("t.c", kind="lemma", statement="s", fixtures=[random(cones)], registry=reg)(check)
    assert family_variable(reg["t.c"], "t.cones") == "F.cones"
    claims_module.cones = cones
    assert family_variable(reg["t.c"], "t.cones") == "cones"
    assert family_variable(reg["t.c"], "t.other") is None


def test_an_erratum_is_rediscovered_with_its_second_method_recorded_and_its_amendment_holds(reg):
    out = hunt_claim(HuntSpec("toy.typo", 5.0, controls=False), reg)
    assert out["status"] == "counterexample"
    assert out["confirmation"]["second_method"] == "closed form: sup x = 1"
    assert out["found"]["params"]["x"] > 0.5 and out["found"]["size"]["x digits"] == 1  # shrunk to 0.6 or so
    hunted = [r for r in out["records"] if r["task_id"] == "hunt.0"][0]
    assert hunted["as_expected"]  # the printed claim is expected refuted
    assert hunt_claim(HuntSpec("toy.typo.amended", 1.0, controls=False), reg)["status"] == "no counterexample"
