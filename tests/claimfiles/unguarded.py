"""A claim whose check always passes, with only a hypothesis-breaking negative control: the control is
caught (vacuous), which shows the predicate works, not that the check can fail. The claim is unguarded."""

import numpy as np

from verify import Evidence, claim, family, hypothesis, negative, random


@family("unguarded.vectors")
def vectors(rng, d=3):
    return {"u": rng.normal(size=d)}


@family("unguarded.zero")
def zero(rng, d=3):
    return {"u": np.zeros(d)}


nonzero = hypothesis("u is nonzero", lambda fx: bool(np.linalg.norm(fx["u"]) > 0))


@claim("unguarded.always", kind="lemma", statement=r"$\|u\| \ge 0$", hypotheses=[nonzero],
       fixtures=[random(vectors), negative(zero)])
def always(fx):
    ev = Evidence()
    ev.ge("||u||", float(np.linalg.norm(fx["u"])), 0.0)
    return ev
