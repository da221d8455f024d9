"""Hunting many claims on an executor, and what a hunt leaves behind.

Each claim is one task (or, when there are more workers than claims, several *shards* of it: the
same claim hunted from different Hypothesis seeds, the first confirmed counterexample stopping the
others). Executors mirror the runner's: ``inprocess``; ``pool``, one worker process per task under a
hard time limit; ``dask``, a distributed cluster. Whatever runs them, this process writes:

* ``DIR/records.jsonl`` — a run record, the claims' catalogue lines, and ordinary result records:
  the confirmed counterexample of each claim (task ``hunt.0``, fixture label ``hunted``) or, when
  none was found, its fixture of smallest slack (task ``hunt.best``), each with a ``hunt`` field (the
  search's counts, coverage, best fixture, confirmation) and the slack-over-evaluations series in
  its evidence; then the claim's powered negative controls, so the statuses mean what they mean in
  a run (a hunt that finds nothing is worth something only if the check can fail);
* ``DIR/found/CLAIM.json`` — each counterexample: its declaration, the command that replays it
  (``DIR/best/CLAIM.json`` the same for the fixture of smallest slack of a claim without one);
* ``DIR/found.py`` — the declarations to paste into the claims' ``fixtures=[...]``;
* ``DIR/summary.json`` and ``DIR/report.html``, as a run writes them.
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import os
import shlex
import signal
import sys
import threading
import time
import traceback
import types
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from multiprocessing.connection import wait as mp_wait
from pathlib import Path
from typing import TextIO

from .. import settings as S
from ..claims import REGISTRY, Claim, Registry, adversarial
from ..discovery import load_sources, loaded_sources
from ..errors import UsageError
from ..records import RecordWriter, versions, write_summary
from ..verdicts import aggregate
from .engine import FOUND, NOT_FOUND, NOTHING_TO_HUNT, HuntSpec, hunt_claim, warm_imports

EXECUTORS = ("inprocess", "pool", "dask")
MAX_SHARDS = 8


@dataclass
class HuntRun:
    """What a hunt produced: per claim its outcome, the exit code and the files written."""

    out_dir: Path
    records_path: Path
    outcomes: dict
    exit_code: int
    interrupted: bool = False
    found_files: list = field(default_factory=list)
    report_path: Path | None = None


def hunt(claims: Sequence[Claim], *, budget_s: float | None = None, max_fixtures: int | None = None, out_dir: str | Path = "reports/hunt", profile: str = "quick",
         seed: int = 0, jobs: int = 1, executor: str = "pool", scheduler: str | None = None,
         kinds: tuple = (S.RANDOM, S.ADVERSARIAL), base: str = "use", shrink_s: float | None = None,
         controls: bool = True, selectors: Sequence[str] = (), report: bool = True,
         stream: TextIO | None = None, registry: Registry = REGISTRY) -> HuntRun:
    """Hunt counterexamples to ``claims`` (each for ``budget_s`` seconds of search, ``max_fixtures``
    fixtures evaluated by the search, or both: the first spent ends a claim's search) and write the
    files of the module docstring; ``stream`` gets a few lines per claim. Under a fixture budget alone a
    hunt is reproducible: the same seed evaluates the same fixtures in the same order. Exit code: 1 when a
    confirmed counterexample was found (or a hunt failed), else 0."""
    if budget_s is None and max_fixtures is None:
        raise UsageError("a hunt needs a budget: --budget SECONDS, --max-fixtures N, or both")
    if budget_s is not None and not budget_s > 0:
        raise UsageError(f"--budget must be a positive number of seconds, got {budget_s}")
    if max_fixtures is not None and (isinstance(max_fixtures, bool) or int(max_fixtures) != max_fixtures
                                     or max_fixtures < 1):
        raise UsageError(f"--max-fixtures must be a positive whole number, got {max_fixtures}")
    if profile not in S.PROFILES:
        raise UsageError(f"unknown profile {profile!r} (one of {', '.join(S.PROFILES)})")
    if executor not in EXECUTORS:
        raise UsageError(f"unknown executor {executor!r} (one of {', '.join(EXECUTORS)})")
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")
    if not kinds or set(kinds) - {S.RANDOM, S.ADVERSARIAL} or base not in ("use", "family"):
        raise UsageError(f"a hunt searches random and adversarial fixtures from the fixture's or the family's "
                         f"parameters, not kinds={kinds!r}, base={base!r}")
    if executor == "dask" and registry is not REGISTRY:
        raise UsageError("the dask executor hunts claims its workers can load (the registry of loaded sources)")
    checkable = [c for c in claims if c.checkable]
    if not checkable:
        raise UsageError("none of the selected claims is checkable, so none can be hunted")
    warm_imports()
    # Compiled before any search starts (workers fork with them): compilation is no evaluation's time.
    from ..numerics.warmup import prepare

    kernels = prepare({c.paper for c in checkable}, stream=stream).describe()
    out = Path(out_dir)
    run_id = uuid.uuid4().hex[:12]
    shards = 1 if executor == "inprocess" else max(1, min(MAX_SHARDS, jobs // len(checkable)))
    budget = None if budget_s is None else float(budget_s)
    fixtures = None if max_fixtures is None else int(max_fixtures)
    specs = [HuntSpec(c.id, budget, profile, seed, k, shards, tuple(kinds), base, shrink_s, controls, run_id,
                      max_fixtures=fixtures)
             for c in checkable for k in range(shards)]
    run_rec = {"type": "run", "run_id": run_id, "command": "hunt", "profile": profile, "seed": seed, "jobs": jobs,
               "executor": executor, "selectors": list(selectors), "tasks": len(specs),
               "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "versions": versions(), "resumed": False,
               "hunt": {"budget_s": budget, "max_fixtures": fixtures, "shards": shards, "kinds": list(kinds), "base": base},
               "kernels": kernels}
    writer = RecordWriter(out / "records.jsonl")
    writer.write(run_rec)
    for c in checkable:
        writer.write({"type": "claim", **c.describe(), "used_by": registry.used_by(c.id)})
    if stream is not None:
        each = " and at most ".join(([f"{budget:g} s"] if budget is not None else [])
                                    + ([f"{fixtures} fixtures"] if fixtures is not None else []))
        print(f"hunting {len(checkable)} claim(s), {each} of search each"
              + (f" ({shards} shards each)" if shards > 1 else "") + f", profile {profile}, seed {seed}",
              file=stream, flush=True)

    pending: dict[str, list[dict]] = {c.id: [] for c in checkable}
    outcomes: dict[str, dict] = {}
    results: list[dict] = []
    found_files: list[Path] = []

    def emit(o: dict) -> bool:
        """Take one shard's outcome; True when its claim is settled (found, or every shard done)."""
        cid = o["claim"]
        if cid in outcomes:
            return True
        pending[cid].append(o)
        if o.get("status") != FOUND and len(pending[cid]) < shards:
            return False
        merged = _merge(pending[cid])
        outcomes[cid] = merged
        if merged.get("status") == FOUND:
            found_files.append(_write_fixture(out / "found", merged, merged["found"], "hunt.0", registry[cid],
                                              profile, seed))
        elif merged.get("best"):
            _write_fixture(out / "best", merged, merged["best"], "hunt.best", registry[cid], profile, seed)
        for r in merged.get("records", []):
            writer.write(r)
            results.append(r)
        if stream is not None:
            print(describe(merged, registry[cid], out), file=stream, flush=True)
        return True

    interrupted = False
    try:
        if executor == "inprocess":
            for spec in specs:
                emit(_guarded(spec, registry))
        elif executor == "pool":
            _run_pool(specs, jobs, emit, registry)
        else:
            _run_dask(specs, scheduler, emit)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        writer.write({"type": "end", "run_id": run_id, "interrupted": interrupted,
                      "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "results": len(results)})
        writer.close()

    if found_files:
        _write_snippet(out / "found.py", outcomes, registry)
    # 1: a confirmed counterexample, or a hunt that failed (neither is "the budget ran out without one").
    code = 1 if any(o.get("status") in (FOUND, S.ERROR) for o in outcomes.values()) else 0
    claim_dicts = [{**c.describe(), "used_by": registry.used_by(c.id)} for c in checkable]
    statuses = aggregate(claim_dicts, results)
    summary = {cid: {k: v for k, v in o.items() if k != "records"} for cid, o in outcomes.items()}
    write_summary(out / "summary.json", run_rec, statuses, code, {"interrupted": interrupted, "hunt": summary})
    report_path = None
    if report:
        from ..runner import _render_safely

        report_path = _render_safely(out / "records.jsonl", out / "report.html", jobs)
    return HuntRun(out, out / "records.jsonl", outcomes, code, interrupted, found_files, report_path)


# ---------------------------------------------------------------------------------------------
# Executors


def _guarded(spec: HuntSpec, registry: Registry = REGISTRY) -> dict:
    """Run one hunt; a failure of the harness itself becomes an outcome, not a crash of the run."""
    try:
        return hunt_claim(spec, registry)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        return {"claim": spec.claim_id, "shard": spec.shard, "status": S.ERROR, "records": [],
                "reason": f"hunt failed: {type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}


def _child(conn, spec: HuntSpec, sources: list[str], registry: Registry | None) -> None:  # pragma: no cover
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_with_parent(os.getppid())
    if registry is None and sources and not REGISTRY.claims:
        load_sources(sources)  # a spawned worker starts empty; a forked one has the parent's registry
    conn.send(_guarded(spec, registry or REGISTRY))
    conn.close()


def _exit_with_parent(parent: int) -> None:  # pragma: no cover - subprocess
    """A worker whose parent died (killed with SIGKILL, say) exits instead of hunting on unseen."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="exit-with-parent").start()


def hard_limit(spec: HuntSpec, timeout_s: float) -> float:
    """When a hunt's process is killed: its search and shrink budgets, then room for confirmation
    (two reruns), the best fixture's record and the controls under the claim's own time limit. A
    budget of fixtures alone is bounded by each evaluation's time limit (the claim's)."""
    per_check = min(timeout_s, 600.0)
    search = math.inf if spec.budget_s is None else spec.budget_s + spec.shrink_budget
    if spec.max_fixtures is not None:
        search = min(search, (spec.max_fixtures + spec.shrink_fixtures + 1) * per_check)
    return search + 4 * per_check + 60.0


def _run_pool(specs: list[HuntSpec], jobs: int, emit, registry: Registry) -> None:
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    sources = loaded_sources()
    queue = list(specs)
    running: dict = {}  # conn -> (process, spec, deadline)
    settled: set[str] = set()
    try:
        while queue or running:
            while queue and len(running) < jobs:
                spec = queue.pop(0)
                if spec.claim_id in settled:
                    continue
                parent, child = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_child, args=(child, spec, sources, None if registry is REGISTRY else registry),
                                   daemon=True)
                proc.start()
                child.close()
                running[parent] = (proc, spec, time.monotonic() + hard_limit(spec, registry[spec.claim_id].timeout_s))
            if not running:
                break
            wait_s = max(0.0, min(d for _, _, d in running.values()) - time.monotonic())
            ready = mp_wait(list(running) + [p.sentinel for p, _, _ in running.values()], timeout=wait_s)
            for conn in list(running):
                if conn not in running:  # a sibling shard of a claim settled in this pass
                    continue
                proc, spec, deadline = running[conn]
                outcome = None
                # a shard sends its outcome and exits: when it finished after this wait returned (another
                # shard woke it), its outcome is in the pipe though the pipe was not in `ready`; read it
                # before calling the process dead (under load this lost a whole shard's evaluations)
                if conn in ready or _has_data(conn):
                    try:
                        outcome = conn.recv()
                    except (EOFError, OSError):
                        outcome = _failed(spec, f"hunt process died ({_exit(proc)})")
                elif proc.sentinel in ready or not proc.is_alive():
                    outcome = _failed(spec, f"hunt process died ({_exit(proc)})")
                elif time.monotonic() >= deadline:
                    outcome = _failed(spec, "hunt process exceeded its hard time limit")
                if outcome is None:
                    continue
                del running[conn]
                _stop(proc, conn)
                if emit(outcome):
                    settled.add(spec.claim_id)
                    for other in [c for c, (_, s, _) in running.items() if s.claim_id == spec.claim_id]:
                        _stop(running.pop(other)[0], other)
    finally:
        for conn, (proc, _, _) in running.items():
            _stop(proc, conn)


def _has_data(conn) -> bool:
    try:
        return conn.poll()
    except (EOFError, OSError):
        return False


def _stop(proc, conn) -> None:
    if proc.is_alive():
        proc.kill()
    proc.join(timeout=5)
    conn.close()


def _exit(proc) -> str:
    proc.join(timeout=1)
    code = proc.exitcode
    if code is not None and code < 0:
        return f"killed by signal {-code}"
    return f"exit code {code}"


def _failed(spec: HuntSpec, why: str) -> dict:
    return {"claim": spec.claim_id, "shard": spec.shard, "status": S.ERROR, "records": [], "reason": why}


def _dask_hunt(spec: HuntSpec, sources: list[str]) -> dict:  # pragma: no cover - remote
    if not REGISTRY.claims:
        load_sources(sources)
    return _guarded(spec)


def _run_dask(specs: list[HuntSpec], scheduler: str | None, emit) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise UsageError("the dask executor needs the optional extra: pip install 'theorem-verify[dask]'") from None
    if not scheduler:
        raise UsageError("--executor dask needs --scheduler ADDRESS (e.g. tcp://127.0.0.1:8786)")
    sources = loaded_sources()
    with Client(scheduler, timeout="30s") as client:
        futures = {client.submit(_dask_hunt, s, sources, pure=False, key=f"hunt-{s.run_id}-{s.claim_id}-{s.shard}"): s
                   for s in specs}
        for fut in as_completed(list(futures)):
            spec = futures[fut]
            if fut.cancelled():
                continue
            try:
                outcome = fut.result()
            except Exception as exc:
                outcome = _failed(spec, f"dask task failed: {type(exc).__name__}: {exc}")
            if emit(outcome):
                for other, s in futures.items():
                    if s.claim_id == spec.claim_id and not other.done():
                        other.cancel()


# ---------------------------------------------------------------------------------------------
# Merging shards, describing outcomes, the found files


def _merge(outs: list[dict]) -> dict:
    """One claim's outcome from its shards: the counterexample if one was found, else the shard of
    smallest slack, with the evaluations and coverage of all of them."""
    found = [o for o in outs if o.get("status") == FOUND]
    if found:
        main = dict(found[0])
    else:
        scored = [o for o in outs if o.get("best")]
        main = dict(min(scored, key=lambda o: o["best"]["slack"]) if scored else outs[0])
        errors = [o for o in outs if o.get("status") == S.ERROR]
        if errors and not scored:
            main = dict(errors[0])
    main["shards"] = len(outs)
    main["evaluations"] = sum(int(o.get("evaluations", 0)) for o in outs)
    counts: dict = {}
    for o in outs:
        for k, v in (o.get("counts") or {}).items():
            counts[k] = counts.get(k, 0) + v
    if counts:
        main["counts"] = counts
    covs = [o["coverage"] for o in outs if o.get("coverage")]
    if len(covs) > 1:
        main["coverage"] = _merge_coverage(covs)
    return main


def _merge_coverage(covs: list[dict]) -> dict:
    arms = []
    for i, first in enumerate(covs[0]["arms"]):
        same = [c["arms"][i] for c in covs]
        params = {}
        for k in first["parameters"]:
            ds = [a["parameters"][k] for a in same if a["parameters"][k].get("bins")]
            if not ds:
                params[k] = first["parameters"][k]
                continue
            merged = dict(ds[0])
            merged["bins"] = max(d["bins"] for d in ds)  # a lower bound on the union's bins
            if "min" in merged:
                merged["min"], merged["max"] = min(d["min"] for d in ds), max(d["max"] for d in ds)
            if isinstance(merged.get("seen"), list):
                merged["seen"] = sorted({s for d in ds for s in d["seen"]}, key=str)
                merged["bins"] = len(merged["seen"])
            params[k] = merged
        arms.append({"family": first["family"], "fixtures": sum(a["fixtures"] for a in same),
                     "seeds": sum(a["seeds"] for a in same), "parameters": params})
    return {"arms": arms}


def coverage_text(cov: dict) -> str:
    parts = []
    for arm in cov.get("arms", []):
        dims = []
        for k, d in arm["parameters"].items():
            if not d.get("of"):
                dims.append(f"{k} not reached")
            elif isinstance(d.get("seen"), list):
                dims.append(f"{k} {d['bins']}/{d['of']} options")
            else:
                scale = " log" if d.get("log") else ""
                unit = "values" if d["of"] != 10 or "log" not in d else f"{scale.strip() or 'linear'} bins"
                dims.append(f"{k} {_num(d['min'])}..{_num(d['max'])} ({d['bins']}/{d['of']} {unit})")
        params = "; ".join(dims) if dims else "no declared space: seeds only"
        parts.append(f"{arm['family']}: {arm['fixtures']} fixtures, {arm['seeds']} seeds; {params}")
    return " | ".join(parts)


def _num(x) -> str:
    return f"{x:.3g}" if isinstance(x, float) else str(x)


def describe(o: dict, claim: Claim, out_dir: Path) -> str:
    """The terminal lines for one claim's hunt."""
    cid = o["claim"]
    status = o.get("status")
    counts = o.get("counts") or {}
    if status == NOTHING_TO_HUNT:
        return f"{cid}: nothing to hunt — {o.get('reason')}"
    if status == S.ERROR:
        return f"{cid}: hunt failed — {o.get('reason')}"
    met = counts.get("pass", 0) + counts.get("refuted", 0)
    tally = (f"{o.get('evaluations', 0)} fixtures ({met} met the hypotheses and were judged; "
             f"{counts.get('hypotheses unmet', 0)} broke a hypothesis; "
             f"{counts.get('inconclusive', 0) + counts.get('uncertified', 0) + counts.get('timeout', 0)} not certified"
             + (f"; {counts.get('error')} crashed" if counts.get("error") else "") + ")")
    lines = []
    if status == FOUND:
        f = o["found"]
        conf = o.get("confirmation") or {}
        lines.append(f"{cid}: COUNTEREXAMPLE found by {f['phase']} after {f['seconds_to_first']:.1f} s "
                     f"({f['evaluations_to_first']} fixtures); {tally}")
        lines.append(f"  first:  {f['first']['fixture']}  slack {_num(f['first']['slack'])}")
        lines.append(f"  shrunk: {f['shrunk']['fixture']}  slack {_num(f['shrunk']['slack'])} "
                     f"({f['shrink_steps']} shrink steps)")
        if f["shrunk"].get("reason"):
            lines.append(f"  fails:  {f['shrunk']['reason']}"[:300])
        careful = conf.get("careful", {})
        nb = conf.get("neighbourhood", {})
        profiles = [o.get("profile") or "the hunt's profile"] + ([careful["profile"]] if careful.get("verdict") else [])
        lines.append(f"  confirmed: refuted with a certified computation at {' and '.join(profiles)}"
                     + (f"; {nb['refuted']}/{nb['tried']} neighbours refuted" if nb.get("tried") else ""))
        lines.append(f"  keep it: {o.get('declaration', '')}")
        lines.append(f"  replay:  {o.get('replay', '')}")
    else:
        best = o.get("best")
        where = f"; smallest slack {_num(best['slack'])} at {best['fixture']}" if best else ""
        lines.append(f"{cid}: no counterexample in {o.get('spent_s', 0):.1f} s: {tally}{where}")
        lines.append(f"  covered: {coverage_text(o.get('coverage') or {})}")
        if not met and counts.get("hypotheses unmet"):
            lines.append("  no fixture met the hypotheses: the space searched lies outside them (declare one that "
                         "meets them, or hunt from the claim's own fixture parameters)")
        if o.get("stopped"):
            lines.append(f"  {o['stopped']}")
        elif o.get("unconfirmed_count"):
            lines.append(f"  {o['unconfirmed_count']} refutation(s) found by the search failed confirmation "
                         "(not reported as counterexamples; see summary.json)")
    if o.get("first_error"):
        lines.append(f"  first crash: {o['first_error']}"[:300])
    return "\n".join(lines)


def family_variable(claim: Claim, family_name: str) -> str | None:
    """The Python name the claim's module gives the family (for a declaration to paste), if any."""
    fam = next((u.family for u in claim.fixtures if u.family.name == family_name), None)
    module = sys.modules.get(getattr(claim.check, "__module__", "") or "")
    if fam is None or module is None:
        return None
    names = vars(module)
    direct = next((k for k, v in names.items() if v is fam and not k.startswith("_")), None)
    if direct:
        return direct
    # A family reached through an imported module (``from fixtures import orthogonal as O``: ``O.cones``).
    return next((f"{k}.{j}" for k, v in names.items() if isinstance(v, types.ModuleType) and not k.startswith("_")
                 for j, w in vars(v).items() if w is fam and not j.startswith("_")), None)


def replay_command(path: Path) -> str:
    return f"verify hunt --replay {shlex.quote(str(path))}"


def _write_fixture(folder: Path, o: dict, f: dict, task_id: str, claim: Claim, profile: str, seed: int) -> Path:
    """Write ``folder/CLAIM.json`` for a hunted fixture (``found/``: the counterexample; ``best/``: the
    fixture of smallest slack when none was found) and point its record's reproduction command at its
    replay (the fixture is not among the claim's yet, so ``verify run --task`` cannot select it)."""
    var = family_variable(claim, f["family"])
    path = folder / f"{claim.id}.json"
    declaration = _declaration(var or f["family"], f)
    command = replay_command(path)
    if task_id == "hunt.0":
        o.update(declaration=declaration, family_variable=var, replay=command, profile=profile)
    source = str(Path(claim.source).resolve()) if claim.source.endswith(".py") else claim.source
    data = {"claim": claim.id, "source": source, "family": f["family"], "family_variable": var,
            "module": getattr(claim.check, "__module__", None), "params": f["params"], "seed": f["seed"],
            "kind": S.ADVERSARIAL, "label": "hunted", "profile": profile, "hunt_seed": seed,
            "declaration": declaration, "replay": command,
            "run_after_adding": f"verify run {claim.id} --profile standard", "hunt": f,
            "confirmation": o.get("confirmation") if task_id == "hunt.0" else None}
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True, default=str), encoding="utf-8")
    for r in o.get("records", []):
        if r.get("task_id") == task_id:
            r["repro"] = command
    return path


def _write_snippet(path: Path, outcomes: dict, registry: Registry) -> None:
    """``found.py``: every counterexample's declaration, to paste into its claim's fixtures."""
    lines = ["# Counterexamples found by `verify hunt`: add each declaration to its claim's fixtures=[...].",
             "# An adversarial fixture runs in the standard and thorough profiles; its seed is pinned, so it",
             "# rebuilds the same data whatever the run's --seed.", ""]
    for cid, o in outcomes.items():
        if o.get("status") != FOUND:
            continue
        why = " ".join(str(o["found"]["shrunk"].get("reason") or "").split())[:160]
        lines += [f"# {cid} ({registry[cid].source}): {why}", f"#   replay: {o['replay']}",
                  ("" if o.get("family_variable") else "# (name the family's variable) ") + o["declaration"], ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def _declaration(family: str, f: dict) -> str:
    args = ['label="hunted"', f"seed={f['seed']}"] + [f"{k}={v!r}" for k, v in f["params"].items()]
    return f"adversarial({family}, {', '.join(args)})"


# ---------------------------------------------------------------------------------------------
# Replay


def replay(path: str | Path, *, profile: str | None = None, builtin: bool = True, stream: TextIO | None = None) -> int:
    """Rerun a found counterexample (``DIR/found/CLAIM.json``) through the normal runner. Exit code:
    1 when it still refutes with a certified computation, 0 when it no longer does."""
    from ..discovery import load_file, load_package
    from .confirm import certified_refutation, run_record
    from .domain import HUNTED_LABEL

    stream = stream or sys.stdout
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
        cid, family_name, params, seed = data["claim"], data["family"], dict(data["params"]), int(data["seed"])
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{path}: not a found-counterexample file ({type(exc).__name__}: {exc})") from None
    source = str(data.get("source") or "")
    if source.endswith(".py"):
        load_file(source)
    elif builtin:
        load_package("theorems")
    REGISTRY.validate()
    if cid not in REGISTRY:
        raise UsageError(f"{path}: claim {cid!r} is not registered (source {source or '?'})")
    claim = REGISTRY[cid]
    fam = next((u.family for u in claim.fixtures if u.family.name == family_name), None)
    if fam is None:
        raise UsageError(f"{path}: claim {cid!r} uses no fixture family {family_name!r}")
    use = adversarial(fam, label=HUNTED_LABEL, seed=seed, **params)
    prof = profile or data.get("profile") or "quick"
    if prof not in S.PROFILES:
        raise UsageError(f"unknown profile {prof!r} (one of {', '.join(S.PROFILES)})")
    from ..claims import Task

    reg = Registry()
    reg.add(replace(claim, fixtures=claim.fixtures + (use,)))
    task = Task(cid, len(claim.fixtures), 0, seed, prof)
    rec = run_record(task, reg, int(data.get("hunt_seed") or 0), "replay", claim.timeout_s)
    ok = certified_refutation(rec)
    print(f"{cid} on {family_name} {json.dumps(params)} seed {seed} (profile {prof}): {rec['verdict']}"
          + (f" — {rec['reason']}" if rec.get("reason") else ""), file=stream)
    if rec["verdict"] == S.REFUTED and not ok:
        print("  the refutation rests on a computation that is not certified: not a counterexample", file=stream)
    return 1 if ok else 0


__all__ = ["FOUND", "NOT_FOUND", "HuntRun", "describe", "hunt", "replay"]
