"""A claim file written against the public claim API as the README documents it at verify 0.2 (issue 32).

It must keep running unchanged: tests/test_api_compat.py runs it and checks each claim's status. Do not
update it when the API changes; add a new file for the new API instead.
"""

import numpy as np
from _api_helpers import inner  # a sibling module: the file's directory is on sys.path while it loads

from verify import (
    Evidence,
    adversarial,
    choice,
    claim,
    erratum,
    family,
    hypothesis,
    integer,
    judge_binomial,
    judge_slope,
    judge_trend,
    negative,
    not_checkable,
    random,
    real,
)


@family("api.vectors", space={"d": integer(2, 6), "scale": real(0.5, 2.0, log=True), "kind": choice("gauss", "unif")})
def vectors(rng, d=3, scale=1.0, kind="gauss"):
    """Two random vectors in R^d."""
    draw = rng.normal if kind == "gauss" else rng.uniform
    return {"u": scale * draw(size=d), "v": draw(size=d)}


@family("api.zero")
def zero(rng, d=3):
    """u = 0 (breaks the hypothesis u != 0)."""
    return {"u": np.zeros(d), "v": rng.normal(size=d)}


nonzero = hypothesis("u is nonzero", lambda fx: (bool(np.linalg.norm(fx["u"]) > 0), float(np.linalg.norm(fx["u"]))),
                     description="$u \\neq 0$")


@claim("api.cauchy_schwarz", kind="theorem", statement=r"$|\langle u, v\rangle| \le \|u\|\,\|v\|$",
       fixtures=[random(vectors), adversarial(vectors), negative(vectors, mutation="bound halved")])
def cauchy_schwarz(fx):
    u, v = fx["u"], fx["v"]
    bound = np.linalg.norm(u) * np.linalg.norm(v)
    if fx.mutated("bound halved"):
        bound = bound / 2 if abs(inner(u, v)) > bound / 2 else -1.0
    ev = Evidence()
    ev.accuracy("rounding of the inner product", 1e-15, 1e-12)
    ev.valid("finite inputs", bool(np.isfinite(u).all() and np.isfinite(v).all()))
    ev.le("|<u, v>|", abs(inner(u, v)), bound, rtol=1e-12)
    ev.forall("|u_i v_i| <= |u|_inf |v|_inf", np.abs(u * v), np.abs(u).max() * np.abs(v).max())
    ev.record(norm_u=float(np.linalg.norm(u)))
    return ev


@claim("api.orthogonal", kind="lemma", statement=r"For nonzero $u$: $\langle u, v\rangle = 0$", hypotheses=[nonzero],
       fixtures=[random(vectors), negative(zero)], expected="refuted",
       erratum=erratum(kind="false statement", location="toy note, Lemma 1", printed="<u, v> = 0",
                       reading="for all nonzero u and any v", second_method="the inner product by hand",
                       summary=r"$\langle u, v\rangle$ is not zero for generic $u, v$"))
def orthogonal(fx):
    ev = Evidence()
    ev.close("<u, v>", inner(fx["u"], fx["v"]), 0.0, atol=1e-12)
    return ev


@claim("api.rates", kind="theorem", statement=r"$2^{-k} \to 0$ at rate $k^{-1}$ or faster; a fair coin lands heads",
       fixtures=[random(vectors), negative(vectors, mutation="rate k^-2 claimed")])
def rates(fx):
    ks = np.arange(1, 12, dtype=float)
    ev = judge_trend("2^-k -> 0", ks, 2.0 ** -ks, 1e-3)
    exponent = -2.0 if fx.mutated("rate k^-2 claimed") else -1.0
    judge_slope("1/k rate", ks, 1.0 / ks, predicted=exponent, atol=0.05, evidence=ev, plot=False)
    judge_binomial("heads", 60, 100, 0.3, evidence=ev)
    ev.true("a yes/no conclusion", True)
    return ev


not_checkable("api.remark", kind="remark", statement="A remark with no numerical content.",
              reason="it states a definition, nothing to compute")
