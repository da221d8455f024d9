"""A claim file written from the README alone: one true claim and one false one.

Run it with ``verify run examples/toy_claims.py``: the true claim is verified, the false one is
refuted and the command exits 1 with a reproduction command.
"""

import numpy as np

from verify import Evidence, claim, family, hypothesis, negative, random


@family("toy.gaussian_vectors")
def gaussian_vectors(rng, n=5, d=3):
    """Two Gaussian vectors in R^d."""
    return {"u": rng.normal(size=d), "v": rng.normal(size=d)}


@family("toy.zero_vector")
def zero_vector(rng, d=3):
    """A zero vector u beside a Gaussian v (breaks the hypothesis u != 0)."""
    return {"u": np.zeros(d), "v": rng.normal(size=d)}


nonzero = hypothesis("u is nonzero", lambda fx: (bool(np.linalg.norm(fx["u"]) > 0), float(np.linalg.norm(fx["u"]))))


@claim("toy.cauchy_schwarz", kind="theorem",
       statement=r"$|\langle u, v\rangle| \le \|u\|\,\|v\|$",
       fixtures=[random(gaussian_vectors), negative(gaussian_vectors, mutation="bound halved")],
       fidelity="faithful",
       cannot_fail="Cauchy-Schwarz holds for every pair of vectors: there is no hypothesis whose failure could "
                   "make it fail, so only the halved-bound control shows that the check can fail")
def cauchy_schwarz(fx):
    u, v = fx["u"], fx["v"]
    bound = np.linalg.norm(u) * np.linalg.norm(v)
    if fx.mutated("bound halved"):
        bound = bound / 2 if abs(u @ v) > bound / 2 else -1.0
    ev = Evidence()
    ev.le("|<u, v>|", abs(u @ v), bound, rtol=1e-12)
    return ev


@claim("toy.false_orthogonality", kind="lemma",
       statement=r"For nonzero $u$: $\langle u, v\rangle = 0$",
       hypotheses=[nonzero],
       fixtures=[random(gaussian_vectors), negative(zero_vector)])
def false_orthogonality(fx):
    ev = Evidence()
    ev.close("<u, v>", fx["u"] @ fx["v"], 0.0, atol=1e-12)
    return ev
