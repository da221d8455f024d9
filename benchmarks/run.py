"""Run the benchmark suite and print one side-by-side table per item (markdown, as in RESULTS.md).

    python benchmarks/run.py                  # all items (the quick catalogue budget included)
    BENCH_PROFILES=quick,standard python benchmarks/run.py -k budget   # catalogue budgets per profile
    python benchmarks/run.py -k svm           # a subset (pytest -k expression)
    python benchmarks/run.py --quick          # smaller sizes, fewer rounds: a smoke run
    python benchmarks/run.py --json FILE      # print the tables of an earlier run's JSON, run nothing

Every implementation runs with BENCH_THREADS (default 1) BLAS / OpenMP / torch threads; the load average
at the start and end of the run is printed with the tables.  The pytest-benchmark JSON is kept
(``--save PATH``, default ``.benchmarks/latest.json``, which git ignores).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def _median(b: dict) -> float:
    return float(b["stats"]["median"])


def _fmt_t(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1.0:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _by_item(data: dict) -> dict[int, list[dict]]:
    items: dict[int, list[dict]] = defaultdict(list)
    for b in data["benchmarks"]:
        items[int(b["extra_info"].get("item", 0))].append(b)
    return items


def _best_other(ratios: dict[str, float], own: str, eligible) -> tuple[str, float]:
    """(name, ratio) of the fastest competitor among ``eligible`` (ratio = its time / the project's)."""
    others = {k: v for k, v in ratios.items() if k != own and eligible(k)}
    if not others:
        return "none", float("nan")
    k = min(others, key=others.get)
    return k, others[k]


def table_svm(bs: list[dict]) -> str:
    rows = []
    names = ["svm_origin", "clarabel_direct", "cvxpy_dpp", "sklearn_svc"]
    for b in sorted(bs, key=lambda b: (b["extra_info"]["n"], b["extra_info"]["d"])):
        e = b["extra_info"]
        sol, rat = e["solvers"], e["ratio_to_svm_origin"]
        out = [str(e["n"]), str(e["d"])]
        for k in names:
            out.append(f"{_fmt_t(sol[k]['cpu'])} / {sol[k]['max_residual']:.0e}" if k in sol else "skipped")
        name, ratio = _best_other(rat, "svm_origin", lambda k, sol=sol: sol[k]["max_residual"] <= 1e-9)
        ok = sol["svm_origin"]["max_residual"] <= 1e-9 and ratio >= 1.0
        out += [f"{ratio:.1f}x ({name})", "met" if ok else "MISSED"]
        rows.append(out)
    return ("CPU time per solve (median of interleaved rounds) / largest KKT residual; competitors count only "
            "at equal accuracy (residual <= 1e-9).\n\n"
            + _table(["n", "d", "svm_origin", "Clarabel direct", "cvxpy (DPP, built once)", "sklearn SVC",
                      "fastest other at equal accuracy / svm_origin", "goal"], rows))


TRAINING_IMPLS = ("project_gd_steps", "project_gradient_descent", "torch_batched_bmm", "torch_batched_vmap",
                  "numpy_loop", "torch_loop")


def table_training(bs: list[dict]) -> str:
    out = []
    for b in sorted(bs, key=lambda b: b["extra_info"]["shape"], reverse=True):
        e = b["extra_info"]
        per, rat = e["cpu_per_step"], e["ratio_to_gd_steps"]
        rows = []
        for impl in TRAINING_IMPLS:
            if impl not in per:
                rows.append([impl, "skipped (torch not installed)", "", "", ""])
                continue
            peak = e.get("peak_gflops")
            rows.append([impl, _fmt_t(per[impl]), f"{rat[impl]:.2f}x", f"{e['gflops'][impl]:.2f}"
                         + (f" ({100 * e['gflops'][impl] / peak:.0f}% of peak)" if peak else ""),
                         f"{e['max_rel_deviation'][impl]:.0e}"])
        name, ratio = _best_other(rat, "project_gd_steps", lambda k: not k.startswith("project"))
        head = (f"**{e['shape']}**: B = {e['seeds']} seeds, n = {e['n']}, d = {e['d']}, m = {e['m']}; "
                f"{e['steps_timed']} steps x {e['rounds']} interleaved rounds"
                + (f"; float64 matmul peak (one thread) {e['peak_gflops']:.1f} GFLOP/s" if e.get("peak_gflops") else "")
                + f". Fastest competitor: {name}, {ratio:.2f}x the time of gd_steps.\n\n")
        out.append(head + _table(["implementation", "CPU time / step (all seeds)", "time / gd_steps", "GFLOP/s",
                                  "max rel. deviation"], rows))
    return "\n\n".join(out)


def table_horizon(bs: list[dict]) -> str:
    by = {b["extra_info"]["method"]: b["extra_info"] for b in bs}
    ngd, gd = by.get("normalized_gd_staged"), by.get("constant_gd")
    if ngd is None or gd is None:
        return "(incomplete run)"
    rows = []
    for t in ngd["first_hit_steps"]:
        a = np.array(ngd["first_hit_steps"][t])
        g = np.array(gd["first_hit_steps"][t])
        ra, rg = a[a >= 0], g[g >= 0]
        med_a = f"{np.median(ra):.0f} ({len(ra)}/{len(a)})" if len(ra) else f"not reached (0/{len(a)})"
        med_g = (f"{np.median(rg):.0f} ({len(rg)}/{len(g)})" if len(rg) == len(g) else
                 f"> {gd['total_steps']} ({len(rg)}/{len(g)} reached)")
        if len(ra) == len(a) and len(rg) == len(g):
            ratio = f"{np.median(rg) / np.median(ra):.1f}x"
        elif len(ra) == len(a):
            ratio = f">= {gd['total_steps'] / np.median(ra):.0f}x (budget bound)"
        else:
            ratio = "n/a"
        rows.append([t, med_a, med_g, ratio])
    ext = np.array(gd["log10_steps_for_1e-3_by_c_over_log_k"])
    foot = (f"\n\nFinal gap after {ngd['total_steps']} normalised steps: max {max(ngd['final_gap']):.1e} over seeds; "
            f"after {gd['total_steps']} constant steps: min {min(gd['final_gap']):.2e}, median "
            f"{np.median(gd['final_gap']):.2e}. Fit gap = c / log k on the constant-step tail: 1e-3 needs about "
            f"10^{np.min(ext):.0f} .. 10^{np.max(ext):.0f} steps (median 10^{np.median(ext):.0f}).")
    return _table(["gap target", "normalised GD: median steps (seeds)", "constant-step GD", "ratio"], rows) + foot


def table_patterns(bs: list[dict]) -> str:
    cells: dict[tuple[int, int], dict[str, dict]] = defaultdict(dict)
    for b in bs:
        e = b["extra_info"]
        cells[(e["n"], e["d"])][e["method"]] = b
    rows = []
    for (n, d), row in sorted(cells.items()):
        ex, sa = row.get("enumerate_patterns"), row.get("sample_patterns")
        if not (ex and sa):
            continue
        ee, se = ex["extra_info"], sa["extra_info"]
        ratio = _median(sa) / _median(ex)
        ok = ratio >= 1.0 and ee["patterns"] == ee["cover_count"] and ee["complete_flag"]
        rows.append([str(n), str(d), str(ee["cover_count"]), f"{_fmt_t(_median(ex))} / {ee['patterns']}",
                     f"{_fmt_t(_median(sa))} / {se['patterns']} (missing {se['missing_vs_exact']})",
                     f"{ratio:.1f}x", "met" if ok else "MISSED"])
    return _table(["n", "d", "cover_count", "exact: time / patterns", "2e5 gates: time / patterns",
                   "sampling / exact time", "goal"], rows)


def table_convex(bs: list[dict]) -> str:
    rows = []
    for b in sorted(bs, key=lambda b: b["extra_info"]["n"]):
        e = b["extra_info"]
        ratio = e["ratio_to_convex_primal"]["cvxpy_vectorised"]
        cert = e["certified"]
        rows.append([str(e["n"]), str(e["p"]),
                     f"{_fmt_t(e['wall']['convex_primal'])} ({_fmt_t(e['compile_time'])} + {_fmt_t(e['solve_time'])})",
                     _fmt_t(e["wall"]["cvxpy_vectorised"]), f"{ratio:.1f}x",
                     f"{e['max_residual']['convex_primal']:.0e} / {e['max_residual']['cvxpy_vectorised']:.0e}",
                     f"{cert['convex_primal']} / {cert['cvxpy_vectorised']}", f"{e['value_diff']:.1e}",
                     "met" if ratio >= 4.0 and cert["convex_primal"] else "MISSED"])
    return _table(["n", "p", "convex_primal(PatternSet): wall (compile + solve)", "vectorised cvxpy, all rows",
                   "vectorised / convex_primal", "max residual (project / other)", "certified", "value diff",
                   "goal (>= 4x)"], rows)


def table_budgets(bs: list[dict]) -> str:
    cat = [b["extra_info"] for b in bs if b["extra_info"]["kind"] == "catalogue"]
    ovh = [b["extra_info"] for b in bs if b["extra_info"]["kind"] == "overhead"]
    parts = []
    if cat:
        rows = []
        for e in cat:
            bud = e["budget"]
            ok = e["wall"] <= bud["wall"] and e["cpu"] <= bud.get("cpu", float("inf"))
            rows.append([e["profile"], f"{e['wall']:.1f} s", f"{e['cpu']:.1f} s",
                         f"<= {bud['wall']:.0f} s wall" + (f", <= {bud['cpu']:.0f} s CPU" if "cpu" in bud else ""),
                         "met" if ok and e["exit_code"] == 0 else "MISSED",
                         " ".join(f"{x:.1f}" for x in e["loadavg"])])
        parts.append(_table(["profile (--jobs 2)", "wall", "CPU (run + workers)", "budget", "", "load after"],
                            rows))
    if ovh:
        rows = [[e["integrator"], "x".join(map(str, e["shape"])), e["unit"], _fmt_t(e["per_unit"]),
                 _fmt_t(e["bare_per_unit"]), f"{e['ratio']:.2f}x", "met" if e["ratio"] <= e["budget"] else "MISSED"]
                for e in ovh]
        parts.append(_table(["integrator", "B x m x n x d", "per", "integrator", "bare compiled loop", "ratio",
                             "budget (<= 3x)"], rows))
    return "\n\n".join(parts)


TITLES = {1: "1. Hard-margin SVM through the origin", 2: "2. Training simulation (GD, a batch of seeds)",
          3: "3. Long horizons: steps to a normalised-margin gap", 4: "4. Activation patterns",
          5: "5. Convex reformulation (14)", 6: "6. Budgets"}
TABLES = {1: table_svm, 2: table_training, 3: table_horizon, 4: table_patterns, 5: table_convex,
          6: table_budgets}


def render(data: dict) -> str:
    s = data.get("bench_settings", {})
    mi = data.get("machine_info", {})
    out = [f"Machine: {mi.get('cpu', {}).get('brand_raw', '?')}, {s.get('cpus', '?')} CPUs; threads per "
           f"implementation: {s.get('threads', '?')}; load average (1/5/15 min) at start "
           f"{tuple(round(x, 2) for x in s.get('loadavg_start', ()))}, at end "
           f"{tuple(round(x, 2) for x in s.get('loadavg_end', ()))}; run {data.get('datetime', '?')}"
           + (" (QUICK)" if s.get("quick") else "")]
    for item, bs in sorted(_by_item(data).items()):
        if item in TABLES:
            out.append(f"\n### {TITLES[item]}\n\n{TABLES[item](bs)}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-k", default=None, help="pytest -k expression selecting benchmarks")
    ap.add_argument("--quick", action="store_true", help="smaller sizes and fewer rounds (smoke run)")
    ap.add_argument("--json", default=None, help="render an existing pytest-benchmark JSON file; run nothing")
    ap.add_argument("--save", default=str(ROOT / ".benchmarks" / "latest.json"))
    ap.add_argument("--threads", type=int, default=int(os.environ.get("BENCH_THREADS", "1")))
    args = ap.parse_args(argv)
    if args.json is None:
        save = Path(args.save)
        save.parent.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, BENCH_THREADS=str(args.threads), OPENBLAS_NUM_THREADS=str(args.threads),
                   OMP_NUM_THREADS=str(args.threads), MKL_NUM_THREADS=str(args.threads))
        if args.quick:
            env["BENCH_QUICK"] = "1"
        cmd = [sys.executable, "-m", "pytest", str(ROOT / "benchmarks"), "--benchmark-enable", "-p",
               "no:cacheprovider", "-q", f"--benchmark-json={save}", "--benchmark-disable-gc",
               "--benchmark-columns=median,min,max,rounds"]
        if args.k:
            cmd += ["-k", args.k]
        proc = subprocess.run(cmd, cwd=ROOT, env=env)
        if not save.exists():
            return proc.returncode or 1
        args.json = str(save)
    print(render(json.loads(Path(args.json).read_text())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
