"""A claim file written a week before verify 0.2 (issue 32, item 9): it assigns
``Evidence.inconclusive_reason``, a plain attribute then, a read-only property for a while after; it
must run again, with a DeprecationWarning naming ``Evidence.inconclusive``.

Do not update it: it stands for a user's file kept for years.
"""

import numpy as np
from _api_helpers import inner

from verify import Evidence, claim, family, negative, random


@family("old.vectors")
def vectors(rng, d=3):
    """Two Gaussian vectors."""
    return {"u": rng.normal(size=d), "v": rng.normal(size=d)}


@claim("old.cauchy_schwarz", kind="theorem", statement=r"$|\langle u, v\rangle| \le \|u\|\,\|v\|$",
       fixtures=[random(vectors), negative(vectors, mutation="bound halved")])
def cauchy_schwarz(fx):
    u, v = fx["u"], fx["v"]
    bound = np.linalg.norm(u) * np.linalg.norm(v)
    if fx.mutated("bound halved"):
        bound = bound / 2 if abs(inner(u, v)) > bound / 2 else -1.0
    ev = Evidence()
    ev.le("|<u, v>|", abs(inner(u, v)), bound, rtol=1e-12)
    return ev


@claim("old.solver_gave_up", kind="lemma", statement=r"$\|u\| \ge 0$", fixtures=[random(vectors)],
       expected="inconclusive")
def solver_gave_up(fx):
    ev = Evidence()
    ev.ge("|u|", float(np.linalg.norm(fx["u"])), 0.0)
    ev.inconclusive_reason = "the solver stopped before its tolerance"  # the old form
    return ev
