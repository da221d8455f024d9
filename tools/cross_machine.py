"""Same verdicts on another machine: run the quick catalogue under another BLAS kernel and thread count,
and require exactly the verdicts of a first run and a clean diff against the committed baseline.

    python tools/cross_machine.py [--first RECORDS] [--baseline FILE] [--out DIR] [SELECTORS...]

The first run is the one given by ``--first`` (CI hands over the test suite's own quick run), or one
made here with the machine's default kernel and one BLAS thread. The second run sets OPENBLAS_CORETYPE
(x86-64: Prescott, an SSE3 kernel every x86-64 processor runs; aarch64: ARMV8, the generic kernel) and
OPENBLAS_NUM_THREADS (2). Its run record says which kernel and thread count the run actually had: a
check that could not vary them fails on x86-64 and warns elsewhere, since a comparison of two identical
set-ups shows nothing.

Compared exactly: every (claim, task, seed) -> verdict, and every claim status. The baseline comparison
is ``verify diff BASELINE SECOND`` and its exit code: what counts as a moved quantity is decided there.
Exit 0 all the same; 1 a difference (listed); 2 bad usage or a run that did not complete.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from verify import UsageError  # noqa: E402
from verify.records import read_records, split  # noqa: E402
from verify.threads import VARIABLES  # noqa: E402
from verify.verdicts import aggregate, display_status  # noqa: E402

KERNELS = {"x86_64": "Prescott", "amd64": "Prescott", "aarch64": "ARMV8", "arm64": "ARMV8"}
SHOWN = 20


def default_kernel() -> str | None:
    return KERNELS.get(platform.machine().lower())


def run_catalogue(out: Path, selectors: list[str], jobs: int, env_extra: dict[str, str],
                  no_builtin: bool) -> Path:
    """One quick run; its exit code may be 0 or 1 (outcomes are the test suite's business), not more."""
    env = {k: v for k, v in os.environ.items() if k not in VARIABLES and k != "OPENBLAS_CORETYPE"}
    env.update(env_extra, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])))
    cmd = [sys.executable, "-m", "verify", *(["--no-builtin"] if no_builtin else []), "run", *selectors,
           "--profile", "quick", "--jobs", str(jobs), "--out", str(out), "--quiet", "--no-report"]
    shown = " ".join(f"{k}={v}" for k, v in env_extra.items())
    print(f"cross-machine: {shown + ' ' if shown else ''}verify run --profile quick --jobs {jobs} --out {out}",
          flush=True)
    r = subprocess.run(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    if r.returncode not in (0, 1):
        raise UsageError(f"the run into {out} ended with exit code {r.returncode}")
    return out / "records.jsonl"


def verdicts(records: list[dict]) -> dict[tuple, str]:
    _, results, _ = split(records)
    return {(r["claim"], str(r["task_id"]), r.get("seed")): r["verdict"] for r in results}


def statuses(records: list[dict]) -> dict[str, str]:
    claims, results, _ = split(records)
    return {cid: display_status(st) for cid, st in aggregate(claims.values(), results).items()}


def compare(first: list[dict], second: list[dict]) -> list[str]:
    """Every difference in verdicts or claim statuses between two runs, as lines; empty when identical."""
    out = []
    a, b = verdicts(first), verdicts(second)
    for key in sorted(a.keys() | b.keys(), key=str):
        if a.get(key) != b.get(key):
            claim, task, seed = key
            out.append(f"{claim} [{task}] seed {seed}: {a.get(key, 'not run')} -> {b.get(key, 'not run')}")
    sa, sb = statuses(first), statuses(second)
    for cid in sorted(sa.keys() | sb.keys()):
        if sa.get(cid) != sb.get(cid):
            out.append(f"{cid}: status {sa.get(cid, 'absent')} -> {sb.get(cid, 'absent')}")
    return out


def blas_of(records: list[dict]) -> list[dict]:
    runs = [r for r in records if r.get("type") == "run"]
    return (runs[-1].get("blas") or []) if runs else []


def check_variation(first: list[dict], second: list[dict], threads: int) -> list[str]:
    """Problems with the set-up itself: the second run must have had another kernel and thread count."""
    problems = []
    a, b = blas_of(first), blas_of(second)
    kernels_a, kernels_b = {x.get("architecture") for x in a}, {x.get("architecture") for x in b}
    print(f"cross-machine: first run BLAS {sorted(map(str, kernels_a))} x{sorted({x.get('threads') for x in a})}; "
          f"second {sorted(map(str, kernels_b))} x{sorted({x.get('threads') for x in b})}")
    # per library (name and version): a build without runtime kernel selection (e.g. an OpenBLAS that only
    # has Prescott) reports the same kernel in both runs; what matters is that some library switched
    by_lib_a = {(x.get("library"), x.get("version")): x.get("architecture") for x in a}
    by_lib_b = {(x.get("library"), x.get("version")): x.get("architecture") for x in b}
    switched = [k for k in by_lib_a.keys() & by_lib_b.keys() if by_lib_a[k] != by_lib_b[k]]
    if not b or not switched:
        problems.append(f"the BLAS kernel did not change (first {sorted(map(str, kernels_a))}, "
                        f"second {sorted(map(str, kernels_b))})")
    threaded = {x.get("threads") for x in b if x.get("threading") != "disabled"}
    if (os.cpu_count() or 1) >= threads and threaded != {threads}:
        problems.append(f"the second run's multi-threaded BLAS libraries did not have {threads} threads: {b}")
    return problems


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("selectors", nargs="*", help="what to run (default: every paper)")
    p.add_argument("--first", help="records of a first run (default: run one here)")
    p.add_argument("--baseline", default=str(ROOT / "reports" / "baseline-quick.jsonl"),
                   help="records to diff the second run against ('' to skip)")
    p.add_argument("--out", help="where the runs write (default: a temporary directory)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--kernel", default=default_kernel(), help="OPENBLAS_CORETYPE of the second run")
    p.add_argument("--threads", type=int, default=2, help="BLAS threads of the second run")
    p.add_argument("--no-builtin", action="store_true", help="do not load the bundled papers")
    args = p.parse_args(argv)
    out = Path(args.out or tempfile.mkdtemp(prefix="cross-machine-"))
    try:
        first_path = Path(args.first) if args.first else run_catalogue(
            out / "first", args.selectors, args.jobs, {}, args.no_builtin)
        extra = {"OPENBLAS_NUM_THREADS": str(args.threads)}
        if args.kernel:
            extra["OPENBLAS_CORETYPE"] = args.kernel
        second_path = run_catalogue(out / "second", args.selectors, args.jobs, extra, args.no_builtin)
        first, second = read_records(first_path), read_records(second_path)
    except UsageError as exc:
        print(f"cross-machine: error: {exc}", file=sys.stderr)
        return 2

    failed = False
    x86 = KERNELS.get(platform.machine().lower()) == "Prescott"
    for problem in check_variation(first, second, args.threads):
        strict = x86 or "kernel" not in problem  # elsewhere OpenBLAS may offer no other kernel
        print(f"cross-machine: {'error' if strict else 'warning'}: {problem}", file=sys.stderr)
        failed |= strict
    diffs = compare(first, second)
    n = len(verdicts(second))
    if diffs:
        failed = True
        print(f"cross-machine: {len(diffs)} differences between {first_path} and {second_path}:")
        for line in diffs[:SHOWN]:
            print(f"  {line}")
        if len(diffs) > SHOWN:
            print(f"  ... {len(diffs) - SHOWN} more")
    else:
        print(f"cross-machine: identical verdicts ({n} fixtures) and claim statuses in both runs")
    if args.baseline:
        r = subprocess.run([sys.executable, "-m", "verify", "diff", args.baseline, str(second_path)], cwd=ROOT,
                           env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
        print(r.stdout.rstrip() or r.stderr.rstrip())
        if r.returncode != 0:
            print(f"cross-machine: verify diff {args.baseline} {second_path} exited {r.returncode}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
