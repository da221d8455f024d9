"""Running one (claim, fixture) task into one result record. Every executor calls :func:`run_task`."""

from __future__ import annotations

import re
import shlex
import time
import traceback
import warnings
from pathlib import Path
from typing import Any

from . import settings as S
from . import threads
from .claims import REGISTRY, Claim, Registry, Task, build_fixture
from .evidence import Evidence, jsonable
from .verdicts import expected_verdicts, fixture_verdict, probe_outcome


def repro_command(claim: Claim, task_key: str, profile: str, global_seed: int,
                  timeout_s: float | None = None) -> str:
    """The one command that reruns exactly this claim on exactly this fixture, with every setting that
    decides its verdict. It writes to a directory of its own, so a rerun never replaces a run's records
    (the default ``reports/latest`` among them). It runs on the pool, with one worker: the same time
    limit and crash isolation as the run it reproduces."""
    parts = ["verify"]
    src = claim.source or ""
    if src.endswith(".py"):
        parts += ["--no-builtin", "run", src]
    elif src and src.split(".")[0] != "theorems":
        parts += ["--no-builtin", "run", f"module:{src}"]
    else:
        parts.append("run")
    out = "reports/rerun/" + re.sub(r"[^A-Za-z0-9._-]", "_", f"{claim.id}-{task_key}")
    parts += [claim.id, "--task", task_key, "--profile", profile, "--seed", str(global_seed),
              "--executor", "pool", "--jobs", "1", "--out", out]
    if timeout_s:
        parts += ["--timeout", f"{timeout_s:g}"]
    return " ".join(shlex.quote(p) for p in parts)


def base_record(task: Task, claim: Claim, global_seed: int, run_id: str) -> dict:
    use = claim.fixtures[task.use_index]
    return {
        "type": "result", "run_id": run_id, "claim": claim.id, "paper": claim.paper, "task_id": task.key,
        "family": use.family.name, "label": use.name, "fixture_kind": use.kind,
        "params": jsonable({**use.family.defaults, **use.params}), "mutation": use.mutation, "seed": task.seed,
        "profile": task.profile, "expected": sorted(expected_verdicts(use.kind, use.mutation, use.expect,
                                                                      claim.expected)),
        "repro": repro_command(claim, task.key, task.profile, global_seed), "hypotheses": [], "evidence": None,
        "reason": None, "traceback": None, "duration_s": 0.0,
    }


def finish(rec: dict, verdict: str, reason: str | None = None) -> dict:
    rec["verdict"] = verdict
    rec["as_expected"] = verdict in rec["expected"]
    if reason is not None:
        rec["reason"] = reason
    return rec


def run_task(task: Task, global_seed: int, run_id: str = "", registry: Registry = REGISTRY) -> dict:
    """Build the fixture, check the hypotheses, run the check and decide the verdict.

    Never raises for a failure of the claim's own code: a crash becomes an ``error`` record with its
    traceback; a failure while building the fixture (including NaN or inf in it) too. Numerical
    warnings raised meanwhile are kept in the record (the first few distinct ones), not printed.
    Every check runs with the configured BLAS thread count, whichever process runs it.
    """
    threads.apply()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")  # once per location: a warning in a loop is recorded once
        rec = _run_task(task, global_seed, run_id, registry)
    seen: list[str] = []
    for w in caught:
        msg = f"{w.category.__name__}: {w.message} ({Path(w.filename).name}:{w.lineno})"
        if msg not in seen:
            seen.append(msg)
    rec["warnings"] = seen[:5]
    return rec


def _run_task(task: Task, global_seed: int, run_id: str, registry: Registry) -> dict:
    claim = registry[task.claim_id]
    rec = base_record(task, claim, global_seed, run_id)
    use = claim.fixtures[task.use_index]
    t0 = time.perf_counter()
    try:
        fx = build_fixture(use, task.seed, task.profile)
        fx.variant = claim.variant
    except Exception as exc:
        rec["duration_s"] = time.perf_counter() - t0
        rec["traceback"] = traceback.format_exc()
        return finish(rec, S.ERROR, f"fixture {use.family.name!r} failed to build: {type(exc).__name__}: {exc}")

    hyp_results = []
    try:
        for h in claim.hypotheses:
            hyp_results.append(h.evaluate(fx))
    except Exception as exc:
        rec["duration_s"] = time.perf_counter() - t0
        rec["hypotheses"] = [h.to_dict() for h in hyp_results]
        rec["traceback"] = traceback.format_exc()
        return finish(rec, S.ERROR, f"hypothesis predicate crashed: {type(exc).__name__}: {exc}")
    rec["hypotheses"] = [h.to_dict() for h in hyp_results]
    hyp_ok = all(h.holds for h in hyp_results)

    crashed = False
    ev: Any = None
    try:
        ev = claim.check(fx)
        if not isinstance(ev, Evidence):
            raise TypeError(f"check of {claim.id!r} returned {type(ev).__name__}, not Evidence")
    except Exception as exc:
        crashed = True
        rec["traceback"] = traceback.format_exc()
        rec["reason"] = f"check crashed: {type(exc).__name__}: {exc}"
    rec["duration_s"] = time.perf_counter() - t0

    unmet = [h.name for h in hyp_results if not h.holds]
    if unmet:
        rec["unmet"] = unmet
    if crashed and not hyp_ok:
        # The conclusion need not make sense off its hypotheses; the verdict is decided by them. The crash is
        # labelled: it is never a caught control, and the probe learned nothing.
        rec["reason"] = "hypotheses unmet: " + ", ".join(unmet) + f" (the check then crashed: {rec['reason']})"
        rec["crashed"] = True
        rec["probe"] = S.PROBE_UNDEFINED
        return finish(rec, S.VACUOUS)
    if crashed:
        return finish(rec, S.ERROR)
    rec["evidence"] = ev.to_dict()
    if claim.reproducible is not None:
        rec["evidence"]["reproducible"] = claim.reproducible
    untested = fx.untested_mutation() if hyp_ok else None
    if untested:  # a control that cannot fail is a mistake in the claim, not a verdict on it
        return finish(rec, S.ERROR, untested)
    verdict, reason = fixture_verdict(hyp_ok, ev)
    if not hyp_ok:
        # A probe: the printed conclusion evaluated where a hypothesis is unmet. The verdict stays vacuous;
        # what the conclusion did there says whether the hypothesis is shown necessary.
        rec["probe"] = probe_outcome(ev)
        reason = "hypotheses unmet: " + ", ".join(unmet) + f"; probe: {rec['probe']}"
    return finish(rec, verdict, reason)


def timeout_record(task: Task, global_seed: int, run_id: str, limit: float, registry: Registry = REGISTRY) -> dict:
    claim = registry[task.claim_id]
    rec = base_record(task, claim, global_seed, run_id)
    rec["duration_s"] = limit
    return finish(rec, S.INCONCLUSIVE, f"time limit of {limit:g} s exceeded")


def crash_record(task: Task, global_seed: int, run_id: str, why: str, registry: Registry = REGISTRY) -> dict:
    claim = registry[task.claim_id]
    rec = base_record(task, claim, global_seed, run_id)
    return finish(rec, S.ERROR, why)
