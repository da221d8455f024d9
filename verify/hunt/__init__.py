"""Hunting counterexamples: search the fixtures that meet a claim's hypotheses for one that breaks it.

A claim is only as strong as the fixtures someone thought of. A hunt searches the space its fixture
families declare (``@family(name, space={...})``, :mod:`verify.space`; a family without one is
searched over its seeds) for the fixture that drives the check's smallest conclusion slack below
zero, with the hypotheses as constraints:

* :mod:`~verify.hunt.domain` — the searched space: arms (the claim's families), candidates, coverage;
* :mod:`~verify.hunt.evaluate` — one candidate: hypotheses first, then the check, judged by
  :mod:`verify.verdicts`; a refutation counts only on a certified computation;
* :mod:`~verify.hunt.search` — Hypothesis (generation, ``target()``, shrinking) and SciPy
  (Nelder–Mead on the real parameters), then simplification;
* :mod:`~verify.hunt.confirm` — a counterexample is reported only once the normal runner refutes it
  again, at the hunt's profile and at ``thorough``, with certified computations;
* :mod:`~verify.hunt.engine` — one claim's hunt; :mod:`~verify.hunt.driver` — many claims on the
  executors, the records, the found fixtures and their replay.

``verify hunt SELECTORS --budget SECONDS --out DIR`` is the front door (README: "Hunting
counterexamples").
"""

from .driver import HuntRun, hunt, replay
from .engine import HuntSpec, hunt_claim

__all__ = ["HuntRun", "HuntSpec", "hunt", "hunt_claim", "replay"]
