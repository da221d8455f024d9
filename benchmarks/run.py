"""Run the benchmark suite and print one side-by-side table per item (markdown, as in RESULTS.md).

    python benchmarks/run.py                  # all items (about 10-15 minutes on the shared 2-core machine)
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


def table_svm(bs: list[dict]) -> str:
    cells: dict[tuple[int, int], dict[str, dict]] = defaultdict(dict)
    for b in bs:
        e = b["extra_info"]
        cells[(e["n"], e["d"])][e["solver"]] = b
    solvers = ["svm_origin", "sklearn_svc", "cvxpy_clarabel"]
    rows = []
    for (n, d), row in sorted(cells.items()):
        out = [str(n), str(d)]
        for s in solvers:
            b = row.get(s)
            out.append(f"{_fmt_t(_median(b))} / {b['extra_info']['max_residual']:.0e}" if b else "skipped")
        own = row.get("svm_origin")
        others = [_median(row[s]) for s in solvers[1:] if s in row]
        ratio = min(others) / _median(own) if own and others else float("nan")
        ok = own and ratio >= 1.0 and own["extra_info"]["max_residual"] <= 1e-9
        out += [f"{ratio:.1f}x", "met" if ok else "MISSED"]
        rows.append(out)
    return _table(["n", "d", "svm_origin (median / max KKT res.)", "sklearn SVC", "cvxpy+CLARABEL",
                   "best other / svm_origin", "goal"], rows)


def table_training(bs: list[dict]) -> str:
    by = {b["extra_info"]["impl"]: b for b in bs}
    torch_step = by["torch_loop"]["extra_info"]["seconds_per_step"] if "torch_loop" in by else float("nan")
    rows = []
    for impl in ("project_gradient_descent", "project_gd_steps", "torch_loop", "numpy_loop"):
        if impl not in by:
            rows.append([impl, "skipped"] + [""] * 6)
            continue
        e = by[impl]["extra_info"]
        rows.append([impl, _fmt_t(e["seconds_per_step"]), f"{e['extrapolated_seconds_1e4']:.0f} s",
                     f"{e['gflops']:.2f}", f"{100 * e['gflops'] / e['peak_gflops']:.1f}%",
                     f"{torch_step / e['seconds_per_step']:.2f}x", f"{e['max_rel_deviation']:.0e}"])
    any_e = bs[0]["extra_info"]
    head = (f"Timed {any_e['steps_timed']} steps per round (median of rounds), extrapolated to 10^4 steps; "
            f"measured float64 matmul peak (2000 x 2000, same thread count): {any_e['peak_gflops']:.1f} GFLOP/s.\n\n")
    return head + _table(["implementation", "time / step (32 seeds)", "10^4 steps", "GFLOP/s", "of peak",
                          "speed-up vs torch loop", "max rel. deviation"], rows)


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
    cells: dict[int, dict[str, dict]] = defaultdict(dict)
    for b in bs:
        cells[b["extra_info"]["n"]][b["extra_info"]["method"]] = b
    rows = []
    for n, row in sorted(cells.items()):
        v, lp = row.get("convex_primal"), row.get("convex_primal_loop")
        if not (v and lp):
            continue
        out = [str(n), str(v["extra_info"]["p"])]
        for b in (v, row.get("convex_primal_allrows"), lp):
            e = b["extra_info"] if b else None
            out.append(f"{_fmt_t(_median(b))} ({_fmt_t(e['compile_time'])} + {_fmt_t(e['solve_time'])})"
                       if b else "not run")
        ratio = _median(lp) / _median(v)
        ve, le = v["extra_info"], lp["extra_info"]
        out += [f"{ratio:.1f}x", f"{le['compile_time'] / ve['compile_time']:.1f}x",
                f"{le['solve_time'] / ve['solve_time']:.2f}x", f"{abs(ve['value'] - le['value']):.1e}",
                "met" if ratio >= 4.0 else "MISSED"]
        rows.append(out)
    return _table(["n", "p", "convex_primal(PatternSet): wall (compile + solve)", "convex_primal(0/1 array), all rows", "loop", "loop / convex_primal (wall)",
                   "compile ratio", "solve ratio", "value diff (abs)", "goal (>= 4x)"], rows)


TITLES = {1: "1. Hard-margin SVM through the origin", 2: "2. Training simulation (32 seeds, n=100, d=20, m=100)",
          3: "3. Long horizons: steps to a normalised-margin gap", 4: "4. Activation patterns",
          5: "5. Convex reformulation (14)"}
TABLES = {1: table_svm, 2: table_training, 3: table_horizon, 4: table_patterns, 5: table_convex}


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
