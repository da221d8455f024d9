"""An erratum's printed and amended claims run one check on the same fixtures, and a derived reading declared with
the printed claim's seed key builds them too (its fixture list in another order): a pure computation memoised
(verify.numerics.memo) in the first is reused by the others when they run in one process, which the pool
arranges (tests of the memo and of the pool's fixture affinity)."""

import os

import numpy as np

from verify import Evidence, claim, erratum, family, negative, random
from verify.numerics.memo import pure_memo


@family("shared.point")
def point(rng):
    return {"x": rng.normal(size=3)}


@pure_memo(maxsize=64)
def costly_norm(x):
    return float(np.linalg.norm(x))


FIXTURES = [random(point, seeds={"quick": 6}), negative(point, mutation="||x|| < -1")]


@claim("shared.norm", kind="lemma", statement=r"$\|x\| < 0$", fixtures=FIXTURES,
       expected="refuted",
       erratum=erratum(kind="false statement", location="test note", printed="||x|| < 0", reading="as printed",
                       second_method="the norm is nonnegative by definition", amended=r"$\|x\| > 0$",
                       summary="a norm is never negative"))
def shared_norm(fx):
    ev = Evidence()
    hits = costly_norm.cache_info()[0]
    v = costly_norm(fx["x"])
    ev.record(pid=os.getpid(), reused=costly_norm.cache_info()[0] > hits, value=v)
    if fx.mutated("||x|| < -1"):
        ev.true("||x|| < -1", v < -1)
    else:
        ev.true("||x|| > 0" if fx.amended else "||x|| < 0", v > 0 if fx.amended else v < 0)
    return ev


@claim("shared.norm.reading", kind="lemma", statement=r"$\|x\| \ge 0$", fixtures=FIXTURES[::-1],
       seed_key="shared.norm", derived="another rule read on the same draws")
def shared_norm_reading(fx):
    ev = Evidence()
    hits = costly_norm.cache_info()[0]
    v = costly_norm(fx["x"])
    ev.record(pid=os.getpid(), reused=costly_norm.cache_info()[0] > hits, value=v)
    ev.true("||x|| < -1" if fx.mutated("||x|| < -1") else "||x|| >= 0", v < -1 if fx.mutated("||x|| < -1") else v >= 0)
    return ev
