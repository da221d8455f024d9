"""Running one (claim, fixture) task into one result record. Every executor calls :func:`run_task`."""

from __future__ import annotations

import hashlib
import json
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
    out = "reports/rerun/" + dir_name(f"{claim.id}-{task_key}")
    parts += [claim.id, "--task", task_key, "--profile", profile, "--seed", str(global_seed),
              "--executor", "pool", "--jobs", "1", "--out", out]
    if timeout_s:
        parts += ["--timeout", f"{timeout_s:g}"]
    return " ".join(shlex.quote(p) for p in parts)


# Longest run directory name: a file name is at most 255 bytes on common file systems, and a path of several
# such names also has a limit (4096); a long claim id keeps its head and a hash of the whole.
MAX_DIR_NAME = 80


def dir_name(text: str) -> str:
    """A file-system-safe directory name for ``text`` (a claim id, a selection): characters other than
    letters, digits and ``._-`` become ``_``; a name longer than :data:`MAX_DIR_NAME` keeps its head and
    a hash of the whole, so two long ids that share a head still get two directories."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", text).lstrip(".") or "_"
    if len(name) > MAX_DIR_NAME:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
        name = name[:MAX_DIR_NAME - 13].rstrip("._-") + "-" + digest
    return name


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


# What a check (or its fixture or hypotheses) may raise that is its own failure: ``SystemExit`` too (a
# check calling ``sys.exit`` must not end the run in-process while the pool records an error); never
# KeyboardInterrupt (Ctrl-C keeps its meaning) nor the in-process time limit.
CHECK_ERRORS = (Exception, SystemExit)


class _Unserialisable(Exception):
    pass


def as_json(value: Any, where: str) -> Any:
    """``value`` after a round trip through JSON, in the process that ran the check: every executor then
    hands the runner the same plain data (the pool and Dask pickle it, the in-process executor would
    otherwise keep live objects), and a value JSON cannot store is the same ``error`` on each, naming
    the field that holds it."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:
        try:
            path, bad = _first_unserialisable(value, where)
        except RecursionError:
            path, bad = where, _OK
        if bad is _OK:  # a reference cycle, not one bad leaf
            raise _Unserialisable(f"{where} cannot be stored as JSON ({type(exc).__name__}: {exc})") from None
        # The type, not the repr: a repr often holds a memory address, and records must not differ by run.
        raise _Unserialisable(f"{path} holds a value JSON cannot store (a {type(bad).__qualname__}); "
                              "record plain numbers, strings, lists or dicts") from None


def _first_unserialisable(x: Any, path: str) -> tuple[str, Any]:
    if isinstance(x, dict):
        for k, v in x.items():
            if not isinstance(k, str):
                return f"{path}[{k!r}] (key)", k
            p, bad = _first_unserialisable(v, f"{path}.{k}")
            if bad is not _OK:
                return p, bad
        return path, _OK
    if isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            p, bad = _first_unserialisable(v, f"{path}[{i}]")
            if bad is not _OK:
                return p, bad
        return path, _OK
    try:
        json.dumps(x, allow_nan=False)
    except (TypeError, ValueError):
        return path, x
    return path, _OK


_OK = object()


def _run_task(task: Task, global_seed: int, run_id: str, registry: Registry) -> dict:
    claim = registry[task.claim_id]
    rec = base_record(task, claim, global_seed, run_id)
    use = claim.fixtures[task.use_index]
    t0 = time.perf_counter()
    try:
        fx = build_fixture(use, task.seed, task.profile)
        fx.variant = claim.variant
    except CHECK_ERRORS as exc:
        rec["duration_s"] = time.perf_counter() - t0
        rec["traceback"] = traceback.format_exc()
        return finish(rec, S.ERROR, f"fixture {use.family.name!r} failed to build: {type(exc).__name__}: {exc}")

    hyp_results = []
    try:
        for h in claim.hypotheses:
            hyp_results.append(h.evaluate(fx))
    except CHECK_ERRORS as exc:
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
    except CHECK_ERRORS as exc:
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
    try:
        rec["evidence"] = as_json(ev.to_dict(), "evidence")
    except _Unserialisable as exc:
        rec["evidence"] = None
        return finish(rec, S.ERROR, str(exc))
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
