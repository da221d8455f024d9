"""Recall and false alarms of ``verify hunt`` on the paper catalogue (issue 19, item 4).

Recall: take the printed claims the harness refutes (those declaring an erratum), forget their
hand-made fixtures (adversarial ones, and the parameters their random fixtures were given: only the
families they use as random fixtures, at the families' defaults, with the families' declared spaces),
and hunt each for ``--budget`` seconds. A claim is rediscovered when the hunt reports a *confirmed*
counterexample; it is the erratum when the amended claim passes (or is vacuous) on that counterexample,
which the table's last column says (a refuted amended claim points at a check defect instead).

False alarms: hunt the same way the claims that should hold (the amended forms of the errata, and a
sample of the theorems the baseline verifies). Any confirmed counterexample there is a false alarm
(it must be 0); refutations the search found but confirmation rejected are counted apart (they point
at checks whose quick profile is too coarse, not at the mathematics).

    python3 benchmarks/hunt_recall.py --budget 300 --jobs 2 --out benchmarks/hunt_recall

writes ``OUT/records.jsonl`` etc. (one hunt per set), ``OUT/results.json`` and ``OUT/table.md`` (the
table for the README). ``--require-space`` (the default) hunts only families that declare a space; on
a catalogue without declared spaces, ``--seeds-only`` hunts the random families over their seeds, as
a dry run of the machinery. A printed claim without an erratum but expected refuted (the catalogue
before errata were declared) is used when no erratum is declared at all, and the table says so.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def recall_set(registry) -> tuple[list, str]:
    """The printed claims refuted with an erratum; without any declared, those expected refuted. A claim whose
    erratum is an imprecision it survives (declared ``expected="verified"``, stored as no expected outcome) holds:
    it is a false-alarm target."""
    printed = [c for c in registry if c.checkable and c.erratum is not None and c.variant != "amended"
               and c.expected is not None]
    if printed:
        return printed, "claims declaring an erratum (not those that hold with it)"
    fallback = [c for c in registry if c.checkable and c.expected == "refuted" and not c.derived]
    return fallback, "claims expected refuted (no erratum declared in this catalogue)"


def true_set(registry, baseline: str | None, sample: int, seed: int) -> tuple[list, str]:
    """Amended claims, printed claims that hold with an erratum (an imprecision, ``expected="verified"``), plus
    ``sample`` theorems verified in ``baseline`` (claims of kind theorem first)."""
    import random as pyrandom

    amended = [c for c in registry if c.checkable and c.amends is not None]
    held = [c for c in registry if c.checkable and c.erratum is not None and c.variant != "amended"
            and c.expected is None]
    verified: list = []
    if baseline:
        from verify.records import read_records, split
        from verify.verdicts import aggregate

        claims, results, _ = split(read_records(baseline))
        statuses = aggregate(claims.values(), results)
        ids = {cid for cid, st in statuses.items() if st["status"] == "verified" and st["as_expected"]}
        pool = [c for c in registry if c.id in ids and c.amends is None and c.expected is None]
        pool.sort(key=lambda c: (c.kind != "theorem", c.id))
        theorems = [c for c in pool if c.kind == "theorem"]
        rest = [c for c in pool if c.kind != "theorem"]
        rng = pyrandom.Random(seed)
        verified = rng.sample(theorems, min(sample, len(theorems)))
        if len(verified) < sample:
            verified += rng.sample(rest, min(sample - len(verified), len(rest)))
    return amended + held + verified, (f"{len(amended)} amended claims + {len(held)} printed claims that hold with "
                                       f"an erratum + {len(verified)} verified claims from the baseline")


def huntable(claim, require_space: bool) -> bool:
    """A claim with at least one random family (with a declared space when ``require_space``)."""
    fams = [u.family for u in claim.fixtures if u.kind == "random"]
    return bool(fams) and (not require_space or any(f.space for f in fams))


def run_set(name: str, claims: list, args) -> dict:
    from verify.hunt import hunt

    out = Path(args.out) / name
    t0 = time.monotonic()
    run = hunt(claims, budget_s=args.budget, out_dir=out, profile=args.profile, seed=args.seed, jobs=args.jobs,
               executor=args.executor, kinds=("random",), base="family", report=False,
               stream=sys.stdout if not args.quiet else None)
    wall = time.monotonic() - t0
    rows = []
    for c in claims:
        o = run.outcomes.get(c.id, {})
        f = o.get("found") or {}
        rows.append({"claim": c.id, "status": o.get("status"), "seconds_to_first": f.get("seconds_to_first"),
                     "evaluations_to_first": f.get("evaluations_to_first"), "evaluations": o.get("evaluations"),
                     "shrunk": (f.get("shrunk") or {}).get("fixture"), "unconfirmed": o.get("unconfirmed_count", 0),
                     "best_slack": (o.get("best") or {}).get("slack"), "reason": o.get("reason"),
                     "inconclusive": (o.get("counts") or {}).get("inconclusive", 0)})
    return {"set": name, "wall_s": round(wall, 1), "rows": rows}


def amended_on_found(claim, registry, out: Path, profile: str, seed: int) -> str | None:
    """The verdict of the claim's amended form on the printed claim's shrunk counterexample: ``pass`` or
    ``vacuous`` (the amendment excludes it) says the hunt found the erratum; ``refuted`` says it found
    something the amended claim fails too (a check defect, or a finding against the amended form)."""
    import json as _json
    from dataclasses import replace

    from verify.claims import Registry, Task, adversarial
    from verify.hunt.confirm import run_record

    amended = next((c for c in registry if c.amends == claim.id), None)
    path = out / "recall" / "found" / f"{claim.id}.json"
    if amended is None or not path.exists():
        return None
    data = _json.loads(path.read_text(encoding="utf-8"))
    fam = next((u.family for u in amended.fixtures if u.family.name == data["family"]), None)
    if fam is None:
        return None
    use = adversarial(fam, label="hunted", seed=int(data["seed"]), **dict(data["params"]))
    reg = Registry()
    reg.add(replace(amended, fixtures=amended.fixtures + (use,)))
    rec = run_record(Task(amended.id, len(amended.fixtures), 0, int(data["seed"]), profile), reg, seed,
                     "recall-amended", amended.timeout_s)
    return rec["verdict"]


def table(recall: dict | None, false: dict | None, args, recall_note: str, true_note: str, skipped: dict) -> str:
    lines = [f"Hunt budget {args.budget:g} s per claim, profile {args.profile}, seed {args.seed}, {args.jobs} worker(s), "
             f"random families only, at the families' defaults"
             + (", declared spaces required" if not args.seeds_only else ", seeds only (dry run)") + ".", ""]
    if recall:
        found = [r for r in recall["rows"] if r["status"] == "counterexample"]
        erratum = [r for r in found if r.get("amended_on_it") in ("pass", "vacuous")]
        lines += [f"**Recall**: {len(found)} of {len(recall['rows'])} rediscovered, {len(erratum)} of them the erratum "
                  f"(the amended claim passes or is vacuous on the shrunk counterexample) ({recall_note}; "
                  f"{len(skipped['recall'])} not huntable: {', '.join(skipped['recall']) or 'none'}); "
                  f"wall {recall['wall_s']:g} s.", "",
                  "| claim | outcome | time to first (s) | fixtures to first | shrunk counterexample | amended on it |",
                  "|---|---|---|---|---|---|"]
        for r in recall["rows"]:
            lines.append(f"| `{r['claim']}` | {r['status']} | {_n(r['seconds_to_first'])} | {_n(r['evaluations_to_first'])} "
                         f"| {r['shrunk'] or ''} | {r.get('amended_on_it') or ''} |")
        lines.append("")
    if false:
        alarms = [r for r in false["rows"] if r["status"] == "counterexample"]
        unconf = sum(int(r["unconfirmed"] or 0) for r in false["rows"])
        lines += [f"**False alarms**: {len(alarms)} confirmed refutations of {len(false['rows'])} claims that hold "
                  f"({true_note}); {unconf} search refutations rejected by confirmation; wall {false['wall_s']:g} s.", "",
                  "| claim | outcome | fixtures | inconclusive | smallest slack | rejected by confirmation |",
                  "|---|---|---|---|---|---|"]
        for r in false["rows"]:
            lines.append(f"| `{r['claim']}` | {r['status']} | {_n(r['evaluations'])} | {_n(r.get('inconclusive'))} "
                         f"| {_n(r['best_slack'])} | {r['unconfirmed']} |")
    return "\n".join(lines) + "\n"


def retable(out: Path) -> int:
    """OUT/table.md again from a finished run (the inconclusive counts from each set's summary.json where the
    rows lack them: runs before that column)."""
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    for key, folder in (("recall", "recall"), ("false_alarms", "false-alarms")):
        part = results.get(key)
        summary = out / folder / "summary.json"
        if part and summary.exists():
            hunts = json.loads(summary.read_text(encoding="utf-8")).get("hunt") or {}
            for row in part["rows"]:
                if "inconclusive" not in row:
                    row["inconclusive"] = ((hunts.get(row["claim"]) or {}).get("counts") or {}).get("inconclusive")
    args = argparse.Namespace(**results["args"])
    md = table(results.get("recall"), results.get("false_alarms"), args, results["recall_note"], results["true_note"],
               results["skipped"])
    (out / "table.md").write_text(md, encoding="utf-8")
    print(md)
    return 0


def _n(x) -> str:
    if x is None:
        return ""
    return f"{x:.3g}" if isinstance(x, float) else str(x)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--budget", type=float, default=300.0, help="seconds of search per claim (default 300)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--executor", default="pool")
    p.add_argument("--profile", default="quick")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="benchmarks/hunt_recall")
    p.add_argument("--baseline", default=str(ROOT / "reports" / "baseline-quick.jsonl"),
                   help="records whose verified claims feed the false-alarm set")
    p.add_argument("--sample", type=int, default=10, help="verified claims added to the false-alarm set")
    p.add_argument("--seeds-only", action="store_true",
                   help="hunt random families without a declared space too (over their seeds): a dry run")
    p.add_argument("--only", choices=("recall", "false-alarms"), help="run one of the two sets")
    p.add_argument("--claims", nargs="*", help="restrict to these claim ids")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--list", action="store_true", help="print the two sets of claims (huntable or not) and stop")
    p.add_argument("--retable", action="store_true",
                   help="rewrite OUT/table.md from OUT/results.json (and each set's summary.json) without hunting")
    args = p.parse_args(argv)
    if args.retable:
        return retable(Path(args.out))

    from verify.claims import REGISTRY
    from verify.discovery import load_package

    load_package("theorems")
    REGISTRY.validate()
    require_space = not args.seeds_only
    recall_claims, recall_note = recall_set(REGISTRY)
    true_claims, true_note = true_set(REGISTRY, args.baseline if Path(args.baseline).exists() else None,
                                      args.sample, args.seed)
    if args.claims:
        recall_claims = [c for c in recall_claims if c.id in args.claims]
        true_claims = [c for c in true_claims if c.id in args.claims]
    if args.list:
        for name, note, cs in (("recall", recall_note, recall_claims), ("false alarms", true_note, true_claims)):
            print(f"{name} ({note}): {len(cs)}")
            for c in cs:
                print(f"  {c.id}" + ("" if huntable(c, require_space) else "  (not huntable)"))
        return 0
    skipped = {"recall": [c.id for c in recall_claims if not huntable(c, require_space)],
               "false": [c.id for c in true_claims if not huntable(c, require_space)]}
    recall_claims = [c for c in recall_claims if huntable(c, require_space)]
    true_claims = [c for c in true_claims if huntable(c, require_space)]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results: dict = {"args": vars(args), "recall_note": recall_note, "true_note": true_note, "skipped": skipped}
    recall = false = None
    if args.only != "false-alarms" and recall_claims:
        recall = results["recall"] = run_set("recall", recall_claims, args)
        for row, c in zip(recall["rows"], recall_claims):
            if row["status"] == "counterexample":
                row["amended_on_it"] = amended_on_found(c, REGISTRY, out, args.profile, args.seed)
    if args.only != "recall" and true_claims:
        false = results["false_alarms"] = run_set("false-alarms", true_claims, args)
    (out / "results.json").write_text(json.dumps(results, indent=1, default=str), encoding="utf-8")
    md = table(recall, false, args, recall_note, true_note, skipped)
    (out / "table.md").write_text(md, encoding="utf-8")
    print(md)
    alarms = sum(1 for r in (false or {}).get("rows", []) if r["status"] == "counterexample")
    return 1 if alarms else 0


if __name__ == "__main__":
    sys.exit(main())
