"""Regression diff between two sets of records (a baseline and a new run).

A change is judged by rank (``settings.STATUS_RANK`` for claims, ``settings.VERDICT_RANK`` for
fixtures) and by whether the outcome is still the expected one: a negative control that stops
failing, or an expected refutation that is no longer found, is a regression even though its rank
improved. Verdicts and claim statuses compare exactly.

Tracked quantities (``evidence.quantities``) of the same fixture (same claim, task and seed) compare at
the precision they can carry, not to the last bit: a quantity declared with ``Evidence.track`` at its
own ``rtol``/``atol``, any other float at the loosest relative tolerance of the fixture's comparisons
(never below 1e-6) and an absolute floor of 1e-12 (a residual at 1e-16 is "below 1e-12", not a number to
match). Integers and booleans (counts of evaluations, iterations, seeds that reached an outcome) are
shown, never compared: cost counters are not regressions, and outcomes of chaotic dynamics are judged
through the claim's verdict. Values stored with ``Evidence.show`` are never compared. A claim declared
``reproducible={"rtol": r, "atol": a}`` (long trajectories, measured across BLAS kernels) compares all
its floats at no finer precision than that; ``reproducible="verdict"`` leaves them to the verdict.

Which fixtures are compared (one rule): when the two files' run headers agree on profile, seed and
selection (the selected claims and ``--task``), the new run should have everything the old one had, so every
(claim, task, seed) of the old file that the new one lacks is **lost** (a regression), and a claim that had
results and now has none ("refuted -> not run" included) is a regression. When they differ, the diff says
so first, compares only the (claim, task) pairs both files ran, and counts what each side left out. A
file without a selection in its run line (records schema 1) selected the claims it has claim lines for.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterable

from . import settings as S
from .records import split
from .verdicts import aggregate, display_status

# Smallest relative tolerance for a tracked quantity: below this, reruns on another machine or
# solver version differ by rounding alone.
QUANTITY_RTOL_FLOOR = 1e-6
# Absolute precision of a tracked float: two values this close are the same number for a baseline.
QUANTITY_ATOL = 1e-12


def _statuses(records: list[dict]) -> tuple[dict[str, dict], list[dict]]:
    """(statuses by claim id, results); a result without a claim line still counts, under its paper."""
    claims, results, _ = split(records)
    claims = dict(claims)
    for r in results:
        claims.setdefault(r["claim"], {"id": r["claim"], "paper": r.get("paper"), "checkable": True})
    return aggregate(claims.values(), results), results


def run_header(records: list[dict]) -> dict:
    """Profile, seed and selection of a records file (its run lines; for a resumed file, the union of
    the selections its runs had)."""
    runs = [r for r in records if r.get("type") == "run"]
    claims: set[str] = set()
    tasks: set = set()
    for r in runs:
        sel = r.get("selection")
        if sel is None:
            claims |= {c["id"] for c in records if c.get("type") == "claim"}
            tasks.add(None)
        else:
            claims |= set(sel.get("claims") or ())
            tasks.add(sel.get("task"))
    if not runs:  # bare result lists (tests, hand-made files): the claims they have lines for
        claims = {c["id"] for c in records if c.get("type") == "claim"}
        tasks.add(None)
    first = runs[0] if runs else {}
    return {"profile": first.get("profile"), "seed": first.get("seed"), "claims": claims,
            "task": sorted(tasks, key=str)[0] if len(tasks) == 1 else sorted(map(str, tasks)),
            "selectors": first.get("selectors")}


def header_differences(a: dict, b: dict) -> list[str]:
    """What differs between two run headers (:func:`run_header`), one phrase each; [] when they agree."""
    out = []
    for k in ("profile", "seed"):
        if a[k] != b[k]:
            out.append(f"{k} {a[k]} (old) vs {b[k]} (new)")
    if a["claims"] != b["claims"]:
        out.append(f"selection {len(a['claims'])} claims (old) vs {len(b['claims'])} claims (new), "
                   f"{len(a['claims'] & b['claims'])} in both")
    if a["task"] != b["task"]:
        out.append(f"--task {a['task']} (old) vs {b['task']} (new)")
    return out


def _judge(old_rank: int, new_rank: int, old_ok: bool, new_ok: bool) -> str | None:
    """``"worse"``, ``"better"`` or None, from ranks and whether each outcome was the expected one."""
    if old_ok and not new_ok:
        return "worse"
    if new_ok and not old_ok:
        return "better"
    if new_rank > old_rank:
        return "worse"
    if new_rank < old_rank:
        return "better"
    return None


def _pair_results(old: list[dict], new: list[dict]) -> list[tuple[dict, dict, bool]]:
    """(old, new, same_seed) for each fixture present in both: first by (claim, task, seed), then the
    left-overs by (claim, task) in order (a rerun with another seed)."""
    def key(r: dict) -> tuple:
        return (r["claim"], str(r["task_id"]), r.get("seed"))

    new_by = {key(r): r for r in new}
    pairs, left_old = [], []
    for r in old:
        if key(r) in new_by:
            pairs.append((r, new_by.pop(key(r)), True))
        else:
            left_old.append(r)
    rest: dict[tuple, list[dict]] = {}
    for r in new_by.values():
        rest.setdefault((r["claim"], str(r["task_id"])), []).append(r)
    for r in left_old:
        cands = rest.get((r["claim"], str(r["task_id"])))
        if cands:
            pairs.append((r, cands.pop(0), False))
    return pairs


def _number(x: object) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float, str)):
        return None
    try:
        return float(x)
    except ValueError:
        return None


def _floats(x: object) -> list[float] | None:
    """The floats of a tracked value (a float or a nested list of floats); None for integers,
    booleans, strings that are not numbers, and mixed values (shown, not compared)."""
    if isinstance(x, list):
        out: list[float] = []
        for v in x:
            f = _floats(v)
            if f is None:
                return None
            out.extend(f)
        return out
    if isinstance(x, float) or (isinstance(x, str) and x in ("nan", "inf", "-inf")):
        return [float(x)]
    return None


def quantity_rtol(result: dict) -> float:
    """Relative tolerance of a fixture's tracked quantities: the loosest relative tolerance among its
    comparisons (tolerance / |predicted|), never below :data:`QUANTITY_RTOL_FLOOR`."""
    rtol = QUANTITY_RTOL_FLOOR
    for c in (result.get("evidence") or {}).get("comparisons") or ():
        tol, pred = _number(c.get("tolerance")), _number(c.get("predicted"))
        if tol is not None and pred is not None and math.isfinite(tol) and math.isfinite(pred) and pred != 0:
            rtol = max(rtol, tol / abs(pred))
    return rtol


def _same(a: float, b: float, rtol: float, atol: float) -> tuple[bool, float, float]:
    """(equal at this precision, change, tolerance)."""
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
        same = (math.isnan(a) and math.isnan(b)) or a == b
        return same, (0.0 if same else math.inf), 0.0
    tol = max(rtol * max(abs(a), abs(b)), atol)
    return abs(b - a) <= tol, b - a, tol


def _moved(old: dict, new: dict) -> list[dict]:
    eo, en = old.get("evidence") or {}, new.get("evidence") or {}
    qo, qn = eo.get("quantities") or {}, en.get("quantities") or {}
    declared = {**(eo.get("precision") or {}), **(en.get("precision") or {})}
    rtol_default = max(quantity_rtol(old), quantity_rtol(new))
    atol_default = QUANTITY_ATOL
    repro = [e.get("reproducible") for e in (eo, en) if e.get("reproducible") is not None]
    verdict_only = "verdict" in repro      # outcomes of chaotic dynamics: judged through the verdict alone
    floor_rtol = max([r.get("rtol") or 0.0 for r in repro if isinstance(r, dict)], default=0.0)
    floor_atol = max([r.get("atol") or 0.0 for r in repro if isinstance(r, dict)], default=0.0)
    rtol_default, atol_default = max(rtol_default, floor_rtol), max(atol_default, floor_atol)
    out = []
    for name in sorted(set(qo) & set(qn)):
        a, b = _floats(qo[name]), _floats(qn[name])
        if a is None or b is None or verdict_only:
            continue
        prec = declared.get(name) or {}
        # a claim's declared reproducibility bounds every precision, its tracked quantities' too
        rtol = max(prec["rtol"], floor_rtol) if prec.get("rtol") is not None else rtol_default
        atol = max(prec["atol"], floor_atol) if prec.get("atol") is not None else atol_default
        if len(a) != len(b):
            out.append({"claim": new["claim"], "task_id": new["task_id"], "seed": new.get("seed"), "quantity": name,
                        "old": qo[name], "new": qn[name], "change": math.inf, "tolerance": 0.0, "rtol": rtol,
                        "repro": new.get("repro"), "why": f"length {len(a)} -> {len(b)}"})
            continue
        worst = None
        for x, y in zip(a, b):
            same, change, tol = _same(x, y, rtol, atol)
            if not same and (worst is None or abs(change) - tol > abs(worst[0]) - worst[1]):
                worst = (change, tol)
        if worst is not None:
            out.append({"claim": new["claim"], "task_id": new["task_id"], "seed": new.get("seed"),
                        "quantity": name, "old": qo[name], "new": qn[name], "change": worst[0],
                        "tolerance": worst[1], "rtol": rtol, "repro": new.get("repro")})
    return out


def diff_records(old: Iterable[dict], new: Iterable[dict]) -> dict:
    """Compare a baseline's records with a new run's.

    Returns a dict with

    * ``regressions`` / ``improvements``: claim status changes (``level="claim"``) and per-fixture
      verdict changes (``level="fixture"``) that got worse / better;
    * ``added`` / ``removed``: claims only in the new / old records;
    * ``moved``: tracked quantities of the same fixture that moved beyond tolerance.

    Claim-level entries hold ``claim, paper, old, new`` (display status words); fixture-level ones
    also ``task_id, seed, same_seed, repro``. Each entry has ``why``.
    """
    old, new = list(old), list(new)
    ha, hb = run_header(old), run_header(new)
    differs = header_differences(ha, hb)
    out: dict = {"regressions": [], "improvements": [], "added": [], "removed": [], "moved": [],
                 "differs": differs, "left_out": {}}
    all_old, all_new = _statuses(old)[0], _statuses(new)[0]
    if differs:
        # Only what both ran: the (claim, task) pairs of both files, counted apart from what each left out.
        def pairs(records: list[dict]) -> set:
            return {(r["claim"], str(r["task_id"])) for r in records if r.get("type") == "result"}

        both = pairs(old) & pairs(new)
        for side, records in (("old", old), ("new", new)):
            only = pairs(records) - both
            out["left_out"][side] = {"fixtures": len(only), "claims": len({c for c, _ in only})}
        keep_claims = {c for c, _ in both}

        def restrict(records: list[dict]) -> list[dict]:
            return [r for r in records if (r.get("type") == "result" and (r["claim"], str(r["task_id"])) in both)
                    or (r.get("type") == "claim" and r["id"] in keep_claims) or r.get("type") not in ("result", "claim")]

        old, new = restrict(old), restrict(new)
    old_res = _statuses(old)[1]
    new_res = _statuses(new)[1]
    ran_old = {r["claim"] for r in old_res}
    # A claim's status is judged on everything its file holds for it: the status of a subset of its fixtures
    # (a control that only one side ran left out) would report changes no run made. With differing headers,
    # only the claims both ran are compared at this level.
    if differs:
        old_st = {c: st for c, st in all_old.items() if c in keep_claims}
        new_st = {c: st for c, st in all_new.items() if c in keep_claims}
    else:
        old_st, new_st = all_old, all_new
    # Claims in one file only, named (with differing headers too: then they are what a side left out).
    for cid in all_new:
        if cid not in all_old:
            out["added"].append({"claim": cid, "paper": all_new[cid]["paper"], "status": display_status(all_new[cid])})
    for cid in all_old:
        if cid not in all_new:
            out["removed"].append({"claim": cid, "paper": all_old[cid]["paper"], "status": display_status(all_old[cid])})
    for cid in old_st:
        a = old_st[cid]
        b = new_st.get(cid, {**a, "status": S.NOT_RUN, "fully_verified": False, "as_expected": False})
        wa, wb = display_status(a), display_status(b)
        if wb == S.NOT_RUN and cid in ran_old:
            # It had results and now has none: lost, whatever its rank says ("refuted -> not run").
            out["regressions"].append({"level": "claim", "claim": cid, "paper": a["paper"], "old": wa, "new": wb,
                                       "why": f"status {wa} -> {wb}: its results are lost"})
            continue
        if cid not in new_st:
            continue
        change = _judge(S.STATUS_RANK[wa], S.STATUS_RANK[wb], a["as_expected"], b["as_expected"])
        if change is None:
            continue
        why = f"status {wa} -> {wb}"
        if a["as_expected"] != b["as_expected"]:
            why += f" ({'now' if b['as_expected'] else 'no longer'} as expected"
            why += f"; expected {b['expected']})" if b.get("expected") else ")"
        entry = {"level": "claim", "claim": cid, "paper": b["paper"], "old": wa, "new": wb, "why": why}
        out["regressions" if change == "worse" else "improvements"].append(entry)
    paired = _pair_results(old_res, new_res)
    for r_old, r_new, same_seed in paired:
        va, vb = r_old["verdict"], r_new["verdict"]
        worst = len(S.VERDICTS)
        change = _judge(S.VERDICT_RANK.get(va, worst), S.VERDICT_RANK.get(vb, worst),
                        r_old.get("as_expected", True), r_new.get("as_expected", True))
        if change is not None:
            why = f"verdict {va} -> {vb} on {r_new.get('fixture_kind')} fixture {r_new.get('label') or r_new.get('family')}"
            if r_old.get("as_expected", True) != r_new.get("as_expected", True):
                why += f" (expected {'/'.join(r_new.get('expected') or [])})"
            entry = {"level": "fixture", "claim": r_new["claim"], "paper": r_new.get("paper"),
                     "task_id": r_new["task_id"], "seed": r_new.get("seed"), "same_seed": same_seed,
                     "old": va, "new": vb, "why": why, "repro": r_new.get("repro")}
            out["regressions" if change == "worse" else "improvements"].append(entry)
        if same_seed:
            out["moved"].extend(_moved(r_old, r_new))
    if not differs:
        found = {id(r) for r, _, _ in paired}
        for r in old_res:
            if id(r) not in found:
                out["regressions"].append({
                    "level": "fixture", "claim": r["claim"], "paper": r.get("paper"), "task_id": r["task_id"],
                    "seed": r.get("seed"), "same_seed": True, "old": r["verdict"], "new": "lost",
                    "why": f"lost: {r.get('fixture_kind')} fixture {r.get('label') or r.get('family')} not in the "
                           "new records",
                    "repro": r.get("repro")})
    return out


# The widest line a diff prints: tables wrap their cells to fit.
WIDTH = 100


def _wrap_table(rows: list[list[str]], header: list[str], caps: list[int]) -> list[str]:
    """A plain-text table at most :data:`WIDTH` columns wide: each column at most its cap (the last takes
    what is left), cells wrapped onto continuation lines."""
    cols = list(zip(header, *rows))
    widths = [min(max(len(str(x)) for x in col), cap) for col, cap in zip(cols, caps)]
    widths[-1] = max(12, min(max(len(str(x)) for x in cols[-1]), WIDTH - 2 - sum(widths[:-1]) - 2 * (len(widths) - 1)))

    def render(cells: list) -> list[str]:
        parts = [textwrap.wrap(str(c), w, break_long_words=True, break_on_hyphens=False) or [""]
                 for c, w in zip(cells, widths)]
        return ["  " + "  ".join((p[i] if i < len(p) else "").ljust(w) for p, w in zip(parts, widths)).rstrip()
                for i in range(max(map(len, parts)))]

    out = render(header) + ["  " + "  ".join("-" * w for w in widths)]
    for r in rows:
        out += render(r)
    return out


def format_diff(diff: dict) -> str:
    """A readable plain-text table of a :func:`diff_records` result, naming every claim and fixture."""
    def num(x: object) -> str:
        v = _number(x)
        return f"{v:.6g}" if v is not None else str(x)

    lines: list[str] = []
    if diff.get("differs"):
        lines += textwrap.wrap("THE RUNS DIFFER: " + "; ".join(diff["differs"]) + ". Only the fixtures both ran "
                               "are compared.", WIDTH)
        for side in ("old", "new"):
            lo = (diff.get("left_out") or {}).get(side) or {}
            if lo.get("fixtures"):
                lines.append(f"  only in the {side} records: {lo['fixtures']} fixtures of {lo['claims']} claims "
                             "(not compared)")
        lines.append("")
    for key, title in (("regressions", "REGRESSIONS"), ("improvements", "IMPROVEMENTS")):
        entries = diff.get(key) or []
        if not entries:
            continue
        lines.append(f"{title} ({len(entries)})")
        rows = [[e["claim"], "claim" if e["level"] == "claim" else f"fixture {e['task_id']}", e["old"], e["new"],
                 e["why"]] for e in entries]
        lines += _wrap_table(rows, ["claim", "where", "old", "new", "why"], [34, 12, 14, 14, 0])
        repros = [e for e in entries if e.get("repro") and key == "regressions"]
        for e in repros:  # the command on a line of its own, whole, to be copied
            lines += [f"  reproduce {e['claim']} {e['task_id']}:", f"    {e['repro']}"]
        lines.append("")
    moved = diff.get("moved") or []
    if moved:
        lines.append(f"MOVED QUANTITIES ({len(moved)})")
        rows = [[m["claim"], str(m["task_id"]), m["quantity"], num(m["old"]), num(m["new"]), num(m["change"]),
                 num(m["tolerance"])] for m in moved]
        lines += _wrap_table(rows, ["claim", "task", "quantity", "old", "new", "change", "tolerance"],
                             [28, 6, 18, 10, 10, 9, 9])
        lines.append("")
    for key, title in (("added", "ADDED CLAIMS"), ("removed", "REMOVED CLAIMS")):
        entries = diff.get(key) or []
        if entries:
            lines.append(f"{title} ({len(entries)})")
            lines += _wrap_table([[e["claim"], str(e["paper"]), e["status"]] for e in entries],
                                 ["claim", "paper", "status"], [60, 14, 0])
            lines.append("")
    if not any(diff.get(k) for k in ("regressions", "improvements", "moved", "added", "removed")):
        return "\n".join(lines + ["no changes in the fixtures both ran" if diff.get("differs")
                                   else "no changes against the baseline"])
    return "\n".join(lines).rstrip() + "\n"
