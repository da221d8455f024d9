"""Confirming a counterexample before it is reported, and the result records a hunt writes.

A candidate the search found refuting is a **confirmed counterexample** only when both of these hold:

1. *replay*: the hunted fixture, declared exactly as the claim would keep it
   (``adversarial(family, label="hunted", seed=..., **params)``), rerun through the normal runner
   (``run_task`` under the claim's time limit, in a fresh fixture build) at the hunt's profile is
   ``refuted``, and every validity entry of its evidence holds (the computation is certified);
2. *careful rerun*: the same fixture at the ``thorough`` profile, where checks take their longest
   horizons, most restarts and finest steps, is ``refuted`` with a certified computation too
   (skipped when the hunt itself ran at ``thorough``).

Recorded beside, for the referee, without deciding anything: the erratum's second method when the
claim declares one (a printed statement's independent confirmation), the certificate the check
attached, and a *neighbourhood* test: the fixture with each real parameter moved by 0.1% of its
range both ways, on the same seed — a counterexample refuted on all of them is not a knife-edge
accident of rounding; one that is not may still be genuine (degenerate data often is the
counterexample), and says so.
"""

from __future__ import annotations

import dataclasses
import time

from .. import settings as S
from ..claims import Claim, Registry, Task, expand
from .domain import Candidate, Domain
from .evaluate import REFUTED, BudgetSpent, Evaluator

CAREFUL_PROFILE = "thorough"
NEIGHBOUR_STEP = 1e-3


def hunted_task(claim: Claim, domain: Domain, cand: Candidate, profile: str) -> tuple[Task, Registry]:
    """The candidate as a task of a private registry holding the claim with the hunted fixture added."""
    use = domain.use(cand)
    reg = Registry()
    reg.add(dataclasses.replace(claim, fixtures=claim.fixtures + (use,)))
    return Task(claim.id, len(claim.fixtures), 0, cand.seed, profile), reg


def run_record(task: Task, registry: Registry, hunt_seed: int, run_id: str, limit: float) -> dict:
    """One task through the normal runner path (``run_task`` under a time limit)."""
    from ..runner import _run_inprocess

    out: list[dict] = []
    _run_inprocess([task], hunt_seed, run_id, lambda t: limit, out.append, registry)
    return out[0]


def certified_refutation(rec: dict) -> bool:
    ev = rec.get("evidence") or {}
    return rec.get("verdict") == S.REFUTED and ev.get("inconclusive_reason") is None


def confirm(claim: Claim, domain: Domain, ev: Evaluator, cand: Candidate, *, profile: str, hunt_seed: int,
            run_id: str) -> tuple[bool, dict, dict]:
    """(confirmed, details, the replay's result record) for a refuting candidate (module docstring)."""
    limit = claim.timeout_s
    task, reg = hunted_task(claim, domain, cand, profile)
    replay = run_record(task, reg, hunt_seed, run_id, limit)
    details: dict = {"replay": _summary(replay)}
    ok = certified_refutation(replay)
    if ok and profile != CAREFUL_PROFILE:
        careful_task, careful_reg = hunted_task(claim, domain, cand, CAREFUL_PROFILE)
        careful = run_record(careful_task, careful_reg, hunt_seed, run_id, limit)
        details["careful"] = {"profile": CAREFUL_PROFILE, **_summary(careful)}
        ok = certified_refutation(careful)
    elif ok:
        details["careful"] = {"profile": CAREFUL_PROFILE, "note": "the hunt ran at this profile: the replay is it"}
    if claim.erratum is not None:
        details["second_method"] = claim.erratum.second_method
    cert = (replay.get("evidence") or {}).get("certificate") or {}
    if cert:
        details["certificate"] = sorted(cert)
    if ok:
        details["neighbourhood"] = neighbourhood(ev, domain, cand)
    details["confirmed"] = ok
    return ok, details, replay


def _summary(rec: dict) -> dict:
    ev = rec.get("evidence") or {}
    return {"verdict": rec.get("verdict"), "slack": ev.get("slack"), "reason": rec.get("reason"),
            "certified": ev.get("inconclusive_reason") is None if ev else False,
            "seconds": round(float(rec.get("duration_s") or 0.0), 3)}


def neighbourhood(ev: Evaluator, domain: Domain, cand: Candidate, seconds: float = 30.0) -> dict:
    """Refuted neighbours among the candidate moved by 0.1% of each real parameter's range both ways."""
    names = domain.real_names(cand)
    if not names:
        return {"note": "no real parameter to move"}
    z = domain.to_unit(cand, names)
    tried = refuted = 0
    with ev.bounded(time.monotonic() + seconds):
        try:
            for i in range(len(names)):
                for step in (-NEIGHBOUR_STEP, NEIGHBOUR_STEP):
                    zi = list(z)
                    zi[i] = min(max(zi[i] + step, 0.0), 1.0)
                    if zi[i] == z[i]:
                        continue
                    out = ev.evaluate(domain.from_unit(cand, names, zi))
                    tried += 1
                    refuted += out.status == REFUTED
        except BudgetSpent:
            pass
    return {"tried": tried, "refuted": refuted, "step": NEIGHBOUR_STEP}


def control_records(claim: Claim, registry: Registry, profile: str, hunt_seed: int, run_id: str) -> list[dict]:
    """The claim's powered negative controls (mutated conclusions), one seed each, through the normal
    runner: a hunt that finds nothing is worth something only if the check can fail."""
    from ..runner import _run_inprocess

    tasks = [t for t in expand([claim], profile, hunt_seed)
             if t.seed_index == 0 and claim.fixtures[t.use_index].powered]
    out: list[dict] = []
    _run_inprocess(tasks, hunt_seed, run_id, lambda t: claim.timeout_s, out.append, registry)
    return out
