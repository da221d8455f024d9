"""claim(seed_key=...): claims that read one experiment by different rules draw the same fixture seeds, build the
same fixtures, and a memoised run computed for the first is served to the second; the declaration is validated."""

import numpy as np
import pytest

from verify import Evidence, UsageError
from verify.claims import Registry, build_fixture, claim, erratum, expand, family, negative, random
from verify.execute import run_task
from verify.numerics.memo import pure_memo
from verify.show import declaration_text


@family("test.seedkey_point")
def seedkey_point(rng, d=4):
    return {"x": rng.normal(size=d)}


@pure_memo(maxsize=8)
def _costly_run(x):
    return np.cumsum(np.abs(x))


def _check(relation):
    def check(fx):
        ev = Evidence()
        hits = _costly_run.cache_info()[0]
        run = _costly_run(fx["x"])
        ev.record(served=_costly_run.cache_info()[0] > hits, last=float(run[-1]))
        ev.true("mutated: the run ends below 0" if fx.mutated("below 0") else relation, bool(run[-1] >= 0)
                if not fx.mutated("below 0") else bool(run[-1] < 0))
        return ev
    return check


def _two_readings(reg, **kw):
    """A printed experiment and a derived reading of it; the reading lists its fixtures in another order and
    adds one of its own."""
    shared = [random(seedkey_point, seeds={"quick": 3}), negative(seedkey_point, mutation="below 0")]
    claim("p.exp", kind="experiment", statement="s", fixtures=shared, registry=reg)(_check("the run ends >= 0"))
    claim("p.exp.reading", kind="experiment", statement="s", derived="another rule",
          fixtures=[shared[1], random(seedkey_point, d=2), shared[0]], registry=reg, **kw)(_check("a reading"))


def test_one_seed_key_builds_the_same_fixtures_and_the_memo_serves_the_second():
    reg = Registry()
    _two_readings(reg, seed_key="p.exp")
    reg.validate()
    assert reg["p.exp.reading"].describe()["seeds_of"] == "p.exp" and reg["p.exp"].describe()["seeds_of"] is None
    assert "fixture seeds: those of p.exp" in "\n".join(declaration_text(reg["p.exp.reading"], reg))
    printed, reading = (expand([reg[c]], "quick", 0) for c in ("p.exp", "p.exp.reading"))
    uses = {c: reg[c].fixtures for c in ("p.exp", "p.exp.reading")}
    by_use = {(id(uses["p.exp"][t.use_index]), t.seed_index): t for t in printed}
    shared = [t for t in reading if (id(uses["p.exp.reading"][t.use_index]), t.seed_index) in by_use]
    assert len(shared) == 4  # 3 random seeds and the control; the reading's own fixture (d=2) is not shared
    _costly_run.cache_clear()
    for t in shared:
        p = by_use[(id(uses["p.exp.reading"][t.use_index]), t.seed_index)]
        assert t.seed == p.seed and t.use_index != p.use_index  # the same seed whatever the place in the list
        fp, fr = build_fixture(uses["p.exp"][p.use_index], p.seed, "quick"), build_fixture(
            uses["p.exp.reading"][t.use_index], t.seed, "quick")
        np.testing.assert_array_equal(fp["x"], fr["x"])
        rp, rr = run_task(p, 0, registry=reg), run_task(t, 0, registry=reg)
        qp, qr = rp["evidence"]["quantities"], rr["evidence"]["quantities"]
        assert (qp["served"], qr["served"]) == (False, True) and qp["last"] == qr["last"]
    assert _costly_run.cache_info()[:2] == (4, 4)


def test_without_a_seed_key_the_readings_draw_other_seeds():
    reg = Registry()
    _two_readings(reg)
    seeds = {c: {t.seed for t in expand([reg[c]], "quick", 0)} for c in ("p.exp", "p.exp.reading")}
    assert not seeds["p.exp"] & seeds["p.exp.reading"]


def test_seed_key_declarations_are_validated():
    with pytest.raises(UsageError, match="is not a claim id"):
        _two_readings(Registry(), seed_key="")
    reg = Registry()
    _two_readings(reg, seed_key="p.missing")
    with pytest.raises(UsageError, match="names no registered claim"):
        reg.validate()
    reg = Registry()  # a key that names a claim drawing another claim's seeds (an amended claim) is refused
    claim("p.exp", kind="experiment", statement="s", fixtures=[random(seedkey_point)], registry=reg,
          erratum=erratum(kind="false statement", location="x", printed="p", reading="r", second_method="m",
                          amended="a", summary="s"))(_check("c"))
    claim("p.exp.reading", kind="experiment", statement="s", fixtures=[random(seedkey_point)], registry=reg,
          seed_key="p.exp.amended")(_check("c"))
    with pytest.raises(UsageError, match="draws the seeds of 'p.exp': name that one"):
        reg.validate()
    reg = Registry()  # no fixture in common (other parameters): the key would draw nothing in common
    claim("p.exp", kind="experiment", statement="s", fixtures=[random(seedkey_point)], registry=reg)(_check("c"))
    claim("p.exp.reading", kind="experiment", statement="s", fixtures=[random(seedkey_point, d=2)], registry=reg,
          seed_key="p.exp")(_check("c"))
    with pytest.raises(UsageError, match="share no fixture"):
        reg.validate()


def test_an_erratum_with_a_seed_key_gives_it_to_its_amended_claim():
    reg = Registry()
    claim("p.exp", kind="experiment", statement="s", fixtures=[random(seedkey_point)], registry=reg)(_check("c"))
    claim("p.exp.strict", kind="experiment", statement="s", fixtures=[random(seedkey_point)], registry=reg,
          seed_key="p.exp", erratum=erratum(kind="false statement", location="x", printed="p", reading="r",
                                            second_method="m", amended="a", summary="s"))(_check("c"))
    reg.validate()
    seeds = [expand([reg[c]], "quick", 0)[0].seed for c in ("p.exp", "p.exp.strict", "p.exp.strict.amended")]
    assert len(set(seeds)) == 1
    assert reg["p.exp.strict.amended"].seeds_of == "p.exp"  # the key, not its printed claim (amends says that)


def test_the_catalogues_readings_draw_the_seeds_of_the_experiment_they_read():
    """The readings declared in the catalogue (exp.fig5.typical and .kept_sign, exp.mnist.os.relu, thmF.9, thm6.2)
    draw, on every fixture they declare like the claim they name, that claim's seeds in every profile."""
    from verify.claims import REGISTRY, fixture_identity
    from verify.discovery import load_package

    load_package()
    readings = {c.id: c.seed_key for c in REGISTRY if c.checkable and c.seed_key not in ("", c.id)
                and c.variant != "amended"}
    assert {"min2024.exp.fig5.typical": "min2024.exp.fig5", "min2024.exp.fig5.kept_sign": "min2024.exp.fig5",
            "phuong2021.exp.mnist.os.relu": "phuong2021.exp.mnist.os", "lyu2021.thmF.9": "lyu2021.lemF.8",
            "lyu2021.thm6.2": "lyu2021.thmA.7"}.items() <= readings.items()
    def seeds(cid, profile):
        c = REGISTRY[cid]
        return {(c.fixtures[t.use_index].name, fixture_identity(c.fixtures[t.use_index]), t.seed_index): t.seed
                for t in expand([c], profile, 0)}

    for cid, key in readings.items():
        for profile in ("quick", "standard", "thorough"):
            mine, theirs = seeds(cid, profile), seeds(key, profile)
            common = set(mine) & set(theirs)
            assert common and all(mine[k] == theirs[k] for k in common), (cid, profile)
