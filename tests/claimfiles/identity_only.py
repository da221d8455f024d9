"""A user's claim file whose only check is an identity: it passes on a random fixture, a broken-hypothesis
control and a mutated-constant control all behave, and yet the printed conclusion held on every input of the
run. The engine marks it "cannot fail here": not fully verified, and not as expected (fidelity undeclared)."""

import numpy as np

from verify import Evidence, claim, family, hypothesis, negative, random


@family("identity.vectors")
def vectors(rng, d=3, scale=1.0):
    return {"u": scale * rng.normal(size=d)}


unit_scale = hypothesis("scale is 1", lambda fx: fx.params["scale"] == 1.0)


@claim("identity.square", kind="lemma", statement=r"$\|u\|^2 = \sum_i u_i^2$", hypotheses=[unit_scale],
       fixtures=[random(vectors), negative(vectors, scale=3.0), negative(vectors, mutation="twice the sum")])
def square(fx):
    ev = Evidence()
    u = fx["u"]
    rhs = float((u * u).sum()) * (2.0 if fx.mutated("twice the sum") else 1.0)
    ev.close("||u||^2 vs sum of squares", float(np.linalg.norm(u)) ** 2, rhs, rtol=1e-12)
    return ev
