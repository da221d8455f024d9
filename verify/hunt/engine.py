"""One claim's hunt, start to finish: search rounds, shrinking, confirmation, records.

:func:`hunt_claim` is what an executor runs (in this process, a worker process or a Dask worker). It
returns a plain dict (picklable, JSON-able): the outcome, the records to write, the coverage.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from .. import settings as S
from ..claims import REGISTRY, Claim, Registry
from ..evidence import jsonable
from .confirm import CAREFUL_PROFILE, confirm, control_records, hunted_task, run_record
from .domain import Candidate, Domain, mix_seed
from .evaluate import REFUTED, Evaluator
from .search import (
    Found,
    hypothesis_round,
    optimise,
    optimiser_starts,
    round_seed,
    round_size,
    significant_digits,
    simplify,
)

FOUND = "counterexample"
NOT_FOUND = "no counterexample"
NOTHING_TO_HUNT = "nothing to hunt"
MAX_SERIES_POINTS = 400
MAX_CONFIRMATIONS = 3   # candidates tried per refutation (the simplest first)
MAX_UNCONFIRMED = 3     # refutations that fail confirmation before the hunt of a claim stops
HYPOTHESIS_OVERHEAD_S = 0.005


@dataclass(frozen=True)
class HuntSpec:
    """What one executor task hunts: a claim (or one shard of it) under a budget."""

    claim_id: str
    budget_s: float
    profile: str = "quick"
    seed: int = 0
    shard: int = 0
    shards: int = 1
    kinds: tuple = (S.RANDOM, S.ADVERSARIAL)
    base: str = "use"
    shrink_s: float | None = None
    controls: bool = True
    optimiser: bool = True
    run_id: str = ""

    @property
    def shrink_budget(self) -> float:
        return self.shrink_s if self.shrink_s is not None else max(2.0, self.budget_s / 4)


def hunt_claim(spec: HuntSpec, registry: Registry = REGISTRY) -> dict:
    """Hunt one claim (see the package docstring); never raises for a failure of the claim's code."""
    claim = registry[spec.claim_id]
    domain = Domain.of(claim, kinds=spec.kinds, base=spec.base)
    warm_imports()
    started = time.monotonic()
    if not domain.arms:
        return {"claim": claim.id, "shard": spec.shard, "status": NOTHING_TO_HUNT, "records": [],
                "reason": f"no {' or '.join(spec.kinds)} fixture to search from", "spent_s": 0.0}
    ev = Evaluator(claim, domain, spec.profile, claim.timeout_s)
    deadline = started + spec.budget_s
    found, unconfirmed, confirmation, replay = None, [], None, None
    rounds, stopped = 0, ""
    smooth = spec.optimiser and domain.has_reals()
    # The first fixture (the fixture's own values on a fresh seed) runs under the claim's own time
    # limit, not the budget, so that even a short hunt judges one; it also times a check.
    start = domain.start(mix_seed("start", spec.seed, spec.claim_id, spec.shard))
    first = ev.evaluate(start)
    per_evaluation = first.seconds + HYPOTHESIS_OVERHEAD_S
    if first.status == REFUTED:
        found, confirmation, replay = _shrink_and_confirm(
            claim, domain, ev, Found(start, start, "its first fixture", time.monotonic() - started, 1, 0, (start,)), spec)
        if found is None:
            unconfirmed.append(confirmation)
    while found is None and deadline - time.monotonic() > min(per_evaluation, 1.0):
        # Hypothesis takes 60% of the time left when the optimiser follows, all of it otherwise.
        left = deadline - time.monotonic()
        until = time.monotonic() + (0.6 * left if smooth else left)
        t0, n0 = time.monotonic(), len(ev.order)
        hit = hypothesis_round(ev, domain, max_examples=round_size(until - t0, per_evaluation),
                               seed=round_seed(spec.seed, claim.id, spec.shard, rounds), deadline=until,
                               shrink_deadline_after=spec.shrink_budget)
        rounds += 1
        if len(ev.order) > n0 and hit is None:
            per_evaluation = (time.monotonic() - t0) / (len(ev.order) - n0)
        if hit is None and smooth and time.monotonic() < deadline:
            starts = optimiser_starts(ev, domain)
            if starts:
                hit = optimise(ev, domain, starts, time.monotonic() + 0.6 * (deadline - time.monotonic()))
        if hit is None:
            continue
        found, confirmation, replay = _shrink_and_confirm(claim, domain, ev, hit, spec)
        if found is None:
            unconfirmed.append(confirmation)
            if len(unconfirmed) >= MAX_UNCONFIRMED:
                stopped = (f"stopped: {len(unconfirmed)} refutations at profile {spec.profile} did not survive "
                           f"confirmation; the check is too coarse there: hunt with --profile {CAREFUL_PROFILE}")
                break
    spent = time.monotonic() - started
    records: list[dict] = []
    outcome = {"claim": claim.id, "paper": claim.paper, "shard": spec.shard, "spent_s": round(spent, 3),
               "rounds": rounds, "counts": ev.counts(), "evaluations": len(ev.order),
               "coverage": domain.coverage(ev.order), "arms": [a.describe() for a in domain.arms],
               "unconfirmed": unconfirmed[:5], "unconfirmed_count": len(unconfirmed), "stopped": stopped,
               "first_error": ev.first_error.strip().splitlines()[0] if ev.first_error else ""}
    series = _series(ev)
    best = ev.best()
    outcome["best"] = None if best is None else {
        "candidate": best[0].to_dict(), "slack": best[1].slack, "fixture": domain.describe_params(best[0]),
        "family": domain.arms[best[0].arm].family.name, "params": domain.params(best[0]), "seed": best[0].seed}
    if found is not None:
        cand = found.shrunk
        outcome.update(status=FOUND, found=_found_dict(domain, found, cand, ev), confirmation=confirmation)
        rec = replay
        rec.update(task_id="hunt.0", hunt={"found_by": "search", **_public(outcome)})
        _add_series(rec, series)
        records.append(rec)
    else:
        outcome["status"] = NOT_FOUND
        if best is not None:
            task, reg = hunted_task(claim, domain, best[0], spec.profile)
            rec = run_record(task, reg, spec.seed, spec.run_id, claim.timeout_s)
            rec.update(task_id="hunt.best", hunt={"found_by": None, **_public(outcome)})
            _add_series(rec, series)
            records.append(rec)
    if spec.controls and (found is not None or spec.shard == 0):  # the outcome its claim will report
        records += control_records(claim, registry, spec.profile, spec.seed, spec.run_id)
    for r in records:
        r["run_id"] = spec.run_id
    outcome["records"] = records
    return jsonable(outcome)


def warm_imports() -> None:
    """Import the search's libraries before its clock starts (a first import of Hypothesis can take
    seconds, more under pytest's assertion rewriting); a pool's parent does it once for its workers."""
    import hypothesis.strategies  # noqa: F401
    import scipy.optimize  # noqa: F401


def _shrink_and_confirm(claim: Claim, domain: Domain, ev: Evaluator, hit: Found, spec: HuntSpec):
    """Simplify the shrunk refutation, then confirm it; fall back to the less simplified refuting
    candidates (the search's own first one last) when a simpler one does not confirm."""
    until = time.monotonic() + spec.shrink_budget
    simplest, steps = simplify(ev, domain, hit.shrunk, until)
    hit.shrink_steps += steps
    tried = list(dict.fromkeys([simplest, *reversed(hit.refuting), hit.first]))[:MAX_CONFIRMATIONS + 1]
    last = None
    for cand in tried:
        ok, details, replay = confirm(claim, domain, ev, cand, profile=spec.profile, hunt_seed=spec.seed,
                                      run_id=spec.run_id)
        details["candidate"] = cand.to_dict()
        details["fixture"] = domain.describe_params(cand)
        if ok:
            hit.shrunk = cand
            return hit, details, replay
        ev.mark_unconfirmed(cand, f"refuted in the search, not confirmed: {details}")
        last = details
    return None, last, None


def _found_dict(domain: Domain, found: Found, cand: Candidate, ev: Evaluator) -> dict:
    out = ev.known(cand)
    return {"phase": found.phase, "seconds_to_first": round(found.seconds_to_first, 3),
            "evaluations_to_first": found.evaluations_to_first, "shrink_steps": found.shrink_steps,
            "first": {"candidate": found.first.to_dict(), "fixture": domain.describe_params(found.first),
                      "slack": ev.known(found.first).slack if ev.known(found.first) else None},
            "shrunk": {"candidate": cand.to_dict(), "fixture": domain.describe_params(cand),
                       "slack": out.slack if out else None, "reason": out.reason if out else ""},
            "family": domain.arms[cand.arm].family.name, "params": domain.params(cand), "seed": cand.seed,
            "size": _size(domain, cand)}


def _size(domain: Domain, cand: Candidate) -> dict:
    """The shrunk fixture's size: its integer parameters (points, dimension, width) and how many
    significant digits each searched real needs."""
    out = {}
    searched = dict(cand.values)
    for k, v in domain.params(cand).items():
        if isinstance(v, int) and not isinstance(v, bool):
            out[k] = v
        elif isinstance(v, float) and k in searched:
            out[f"{k} digits"] = significant_digits(v)
    return out


def _public(outcome: dict) -> dict:
    keep = ("status", "spent_s", "rounds", "counts", "evaluations", "coverage", "best", "found", "confirmation",
            "unconfirmed_count", "stopped")
    return {k: outcome[k] for k in keep if k in outcome}


def _series(ev: Evaluator) -> dict | None:
    if not ev.trace:
        return None
    slack = [s for _, s in ev.trace]
    best, run = [], math.inf
    for s in slack:
        run = min(run, s)
        best.append(run)
    x = list(range(1, len(slack) + 1))
    if len(x) > MAX_SERIES_POINTS:
        step = math.ceil(len(x) / MAX_SERIES_POINTS)
        keep = sorted(set(range(0, len(x), step)) | {len(x) - 1})
        x, slack, best = [x[i] for i in keep], [slack[i] for i in keep], [best[i] for i in keep]
    clip = [max(min(v, 1e6), -1e6) for v in slack]
    return {"name": "hunt: slack over evaluations", "x": x, "y": {"slack": clip, "smallest so far": best},
            "xlabel": "evaluation (fixtures meeting the hypotheses)", "ylabel": "conclusion slack",
            "logx": False, "logy": False, "reference": 0.0}


def _add_series(rec: dict, series: dict | None) -> None:
    if series is None or rec.get("evidence") is None:
        return
    rec["evidence"].setdefault("series", []).append(jsonable(series))



