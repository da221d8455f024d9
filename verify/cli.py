"""The ``verify`` command line.

Exit codes: 0 every outcome as expected; 1 a claim refuted, erroring or inconclusive against its
recorded expectation, a negative control that failed to fail, or a regression against a baseline;
2 bad usage or bad input (one line naming what is wrong; ``--debug`` for the traceback); 130 interrupted
by Ctrl-C, 143 by SIGTERM, 129 by SIGHUP (128 + the signal; the records, summary and report of what
finished are written). A closed standard output (``| head``) ends the command quietly with exit 0.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import traceback
from pathlib import Path

from . import settings as S
from .errors import UsageError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own usage errors: one line, exit 2
        self.print_usage(sys.stderr)
        sys.stderr.write(f"verify: error: {message}\n")
        sys.exit(2)


def _positive_seconds(text: str) -> float:
    """``--timeout``: a positive finite number of seconds (0, negative, nan and inf are refused)."""
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive finite number of seconds, got {text!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="verify", description="Check the theorems of deep-learning papers on concrete instances.")
    # Global options are accepted before or after the subcommand: each subcommand repeats them with a
    # suppressed default, so an option given before it is not reset.
    common = argparse.ArgumentParser(add_help=False)
    for parser, default in ((p, False), (common, argparse.SUPPRESS)):
        parser.add_argument("--debug", action="store_true", default=default, help="show tracebacks for bad input")
        parser.add_argument("--no-builtin", action="store_true", default=default,
                            help="do not load the bundled papers (the theorems package); only the files named")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=_Parser)

    ls = sub.add_parser("list", parents=[common], help="list registered claims (only a file's, when files are named)")
    ls.add_argument("sources", nargs="*", help="claim files (.py) or module:NAME: list only their claims")
    ls.add_argument("--paper", help="only this paper")
    ls.add_argument("--json", action="store_true", help="a JSON array, one object per claim")

    r = sub.add_parser("run", parents=[common], help="run claims and write records, summary and report")
    r.add_argument("selectors", nargs="*",
                   help="claim ids, globs (lyu2021.thm4.*), papers, or claim files (.py); none = everything")
    r.add_argument("--profile", default="standard", help="quick | standard | thorough (default standard)")
    r.add_argument("--out", help="output directory (default reports/latest for the whole catalogue, "
                                 "reports/<selection> for any other selection)")
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help=f"local worker processes (default: the number of CPUs, {os.cpu_count() or 1} here)")
    r.add_argument("--seed", type=int, default=0, help="run seed; the same seed gives the same fixtures")
    r.add_argument("--baseline", help="records file to compare against; exit 1 on a regression")
    r.add_argument("--executor", default="pool", help="inprocess | pool | dask")
    r.add_argument("--scheduler", help="Dask scheduler address for --executor dask")
    r.add_argument("--resume", action="store_true", help="skip the tasks already finished in --out")
    r.add_argument("--task", help="only the fixture with this task key (as printed in reproduction commands)")
    r.add_argument("--timeout", type=_positive_seconds, help="time limit per (claim, fixture) in seconds")
    r.add_argument("--no-report", action="store_true", help="skip the HTML report")
    r.add_argument("--quiet", action="store_true", help="no progress display")

    sh = sub.add_parser("show", parents=[common], help="show one claim: statement, hypotheses, latest results")
    sh.add_argument("id")
    sh.add_argument("sources", nargs="*", help="extra claim files to load")
    sh.add_argument("--records", help="records file or run directory with the results to show "
                                      "(default: the newest run under reports/ that holds the claim)")
    sh.add_argument("--open", action="store_true", help="open the claim's card, with its plots, in a browser")

    rp = sub.add_parser("report", parents=[common], help="render an HTML report from records files (merged)")
    rp.add_argument("records", nargs="+")
    rp.add_argument("-o", "--output", required=True)
    rp.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help=f"processes drawing the plots (default: the number of CPUs, {os.cpu_count() or 1} here); "
                         "the report is the same whatever their number")

    d = sub.add_parser("diff", parents=[common], help="compare two records files; exit 1 on a regression")
    d.add_argument("old")
    d.add_argument("new")

    _hunt_parser(sub, common)

    from .init import add_parser as _init_parser  # verify init: a claim file from a paper's numbered items
    _init_parser(sub, common)

    e = sub.add_parser("errata", parents=[common], help="a paper's errata summary in Markdown (for a review)")
    e.add_argument("paper")
    e.add_argument("sources", nargs="*", help="extra claim files to load")
    e.add_argument("--records", help="records file or run directory whose outcomes to include "
                                      "(default: the newest run under reports/ that holds the paper)")
    return p


def _load(extra: list[str], builtin: bool = True) -> tuple[list[str], list[str]]:
    from .claims import REGISTRY
    from .discovery import load_package, split_selectors

    if builtin:
        load_package("theorems")
    selectors, from_files = split_selectors(extra)
    REGISTRY.validate()
    return selectors, from_files


def cmd_list(args: argparse.Namespace) -> int:
    from .claims import REGISTRY

    selectors, from_files = _load(args.sources, not args.no_builtin)
    # Files named: their claims only (the bundled papers are loaded for their uses, not listed).
    claims = REGISTRY.select(selectors) if selectors else list(REGISTRY)
    if from_files:
        named = set(from_files) | ({c.id for c in claims} if selectors else set())
        claims = [c for c in REGISTRY if c.id in named]
    if args.paper is not None:
        claims = [c for c in claims if c.paper == args.paper]
        if not claims:
            raise UsageError(f"--paper {args.paper!r}: no such paper (papers: {', '.join(REGISTRY.papers())})")
    if args.json:
        print(json.dumps([c.describe() for c in claims], indent=1))
        return 0
    for c in claims:
        mark = (f"{len(c.fixtures)} fixtures, {c.negative_controls} negative ({c.powered_controls} powered)"
                if c.checkable else "not checkable")
        extra = f"  erratum: {c.erratum.kind}" if c.erratum else ("  derived" if c.derived else "")
        print(f"{c.id:40s} {c.kind:12s} {mark}{extra}")
    from .coverage import coverage, coverage_line

    for paper, row in coverage(claims, numbered_only=True).items():
        pending = f"; not yet encoded: {', '.join(row['pending'])}" if row["pending"] else ""
        print(coverage_line(paper, row).replace(" encoded (", " numbered statements encoded (", 1) + pending)
    checkable = [c for c in claims if c.checkable]
    print(f"{plural(len(claims), 'claim')}, {len(checkable)} checkable, "
          f"{sum(1 for c in checkable if not c.powered_controls)} without a powered negative control")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from .claims import REGISTRY
    from .runner import default_out, run

    if args.profile not in S.PROFILES:
        raise UsageError(f"unknown profile {args.profile!r} (one of {', '.join(S.PROFILES)})")
    selectors, from_files = _load(args.selectors, not args.no_builtin)
    # Selectors choose among everything loaded; files named alone run their own claims.
    claims = REGISTRY.select(selectors) if selectors or not from_files else [REGISTRY[c] for c in from_files]
    out = args.out if args.out is not None else default_out(args.selectors)
    outcome = run(claims, profile=args.profile, seed=args.seed, jobs=args.jobs, out_dir=out,
                  executor=args.executor, scheduler=args.scheduler, resume=args.resume, task_filter=args.task,
                  timeout_s=args.timeout, baseline=args.baseline, selectors=args.selectors,
                  progress=not args.quiet, report=not args.no_report)
    if outcome.kept_previous:
        return outcome.exit_code
    _print_summary(outcome)
    if outcome.interrupted:
        print(f"interrupted: the records and report of what finished are in {outcome.out_dir}", file=sys.stderr)
    return outcome.exit_code


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def verify_command() -> str:
    """How to call this program again as the user did: ``verify`` when that is on PATH, else the path of
    the script that runs now (``.venv/bin/verify`` while the virtual environment is not active)."""
    argv0 = sys.argv[0] if sys.argv else ""
    if Path(argv0).name != "verify":  # python -m verify, a test harness: the records' own form
        return "verify"
    here = Path(argv0).resolve()
    on_path = shutil.which("verify")
    if on_path and Path(on_path).resolve() == here:
        return "verify"
    try:
        return str(here.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(here)


def runnable(command: str) -> str:
    """A printed ``verify ...`` command with the program as this shell can call it."""
    cmd = verify_command()
    return cmd + command[len("verify"):] if command.startswith("verify ") and cmd != "verify" else command


def paper_line(counts: dict) -> str:
    """One paper's counts in words: statuses (fully verified among the verified, not beside them), verified
    claims by fidelity, the marks, hypotheses shown necessary, errata by slip, and unexpected claims."""
    statuses = [k for k in S.STATUSES if k != S.FULLY_VERIFIED and counts.get(k)]
    parts = []
    for k in statuses:
        n = counts[k]
        if k == S.VERIFIED:
            fid = ", ".join(f"{counts[f'verified {f}']} {f}" for f in (*S.FIDELITIES, S.UNDECLARED)
                            if counts.get(f"verified {f}"))
            parts.append(f"{n} verified ({counts.get(S.FULLY_VERIFIED, 0)} fully; {fid})")
        else:
            parts.append(f"{n} {k}")
    out = ", ".join(parts)
    marks = [f"{counts[k]} {k}" for k in (S.LOOSE, S.CANNOT_FAIL) if counts.get(k)]
    if counts.get("hypotheses broken"):
        marks.append(f"hypotheses shown necessary {counts.get('hypotheses shown necessary', 0)} of "
                     f"{counts['hypotheses broken']} broken")
    if counts.get("statements affected"):
        marks.append(f"errata: {counts.get('independent slips', 0)} independent slips, "
                     f"{counts['statements affected']} statements affected")
    if counts.get("numbered statements"):
        marks.append(f"coverage: {counts.get('numbered encoded', 0)} of {counts['numbered statements']} statements "
                     f"of the paper encoded ({counts.get('numbered not yet encoded', 0)} not yet encoded, "
                     f"{counts.get('numbered not checkable', 0)} not checkable; "
                     f"{counts.get('numbered verified', 0)} verified)")
    if counts.get(S.UNEXPECTED):
        marks.append(f"{plural(counts[S.UNEXPECTED], 'claim')} not as expected")
    return out + "".join(f"; {m}" for m in marks)


def _print_summary(outcome) -> None:
    from .verdicts import display_status, paper_counts

    for paper, counts in paper_counts(outcome.statuses).items():
        print(f"{paper}: {paper_line(counts)}")
    by_claim: dict[str, list[dict]] = {}
    for r in outcome.results:
        by_claim.setdefault(r["claim"], []).append(r)
    for cid, st in outcome.statuses.items():
        if st["as_expected"]:
            continue
        expected = f" (expected {st['expected']})" if st["expected"] else ""
        print(f"UNEXPECTED {cid}: {display_status(st)}{expected}")
        for r in by_claim.get(cid, []):
            if not r["as_expected"]:
                why = f" — {r['reason']}" if r.get("reason") else ""
                print(f"  {r['fixture_kind']} fixture {r['label']} [{r['task_id']}]: {r['verdict']}"
                      f" (expected {'/'.join(r['expected'])}){why}"[:400])
                print(f"    rerun: {runnable(r['repro'])}")
    for reg in outcome.regressions:
        print(f"REGRESSION {reg}")
    for cid in outcome.incomplete:
        inc = outcome.statuses[cid].get("incomplete") or {}
        print(f"INCOMPLETE {cid}: {inc.get('ran')} of {inc.get('planned')} fixtures ran before the interrupt")
    n_bad = sum(1 for st in outcome.statuses.values() if not st["as_expected"])
    sel = outcome.selection
    what = " ".join(sel.get("selectors") or []) or "the whole catalogue"
    if sel.get("task"):
        what += f" --task {sel['task']}"
    print(f"selection: {what} ({plural(len(sel.get('claims') or []), 'claim')}, "
          f"{plural(sel.get('tasks') or 0, 'fixture')} planned)")
    print(f"{plural(len(outcome.results), 'fixture')} run; {plural(len(outcome.statuses), 'claim')}; "
          f"{plural(n_bad, 'claim')} not as expected; "
          f"records: {outcome.records_path}" + (f"; report: {outcome.report_path}" if outcome.report_path else ""))


def cmd_show(args: argparse.Namespace) -> int:
    from .claims import REGISTRY
    from .show import show_claim

    _load(args.sources, not args.no_builtin)
    print(show_claim(REGISTRY[args.id], REGISTRY, args.records, open_browser=args.open), end="")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from .records import merge

    if args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {args.jobs}")
    records = merge(args.records)
    from .report import render_report

    path = render_report(records, args.output, jobs=args.jobs)
    print(f"report: {path}")
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    from .records import read_records

    old, new = read_records(args.old), read_records(args.new)
    from .diff import diff_records, format_diff

    d = diff_records(old, new)
    print(format_diff(d))
    return 1 if d["regressions"] or d["moved"] else 0


def cmd_errata(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .claims import REGISTRY
    from .errata import errata_markdown

    _load(args.sources, not args.no_builtin)
    if args.paper not in REGISTRY.papers():
        raise UsageError(f"no such paper {args.paper!r} (papers: {', '.join(REGISTRY.papers())})")
    statuses = None
    from .show import newest_records_with

    newest = newest_records_with(f'"paper": {json.dumps(args.paper)}')
    path = args.records or (str(newest) if newest else
                            "reports/latest" if Path("reports/latest/records.jsonl").exists() else None)
    if path:
        from .records import read_records, split
        from .verdicts import aggregate

        claims, results, _ = split(read_records(path))
        mine = [r for r in results if r.get("paper") == args.paper or claims.get(r["claim"], {}).get("paper") == args.paper]
        # Say whose results these are, and plainly when they hold none of this paper's.
        print(f"verify: results read from {Path(path).resolve()}"
              + ("" if mine else f": they hold no result for {args.paper} (run it: verify run {args.paper})"),
              file=sys.stderr)
        statuses = aggregate(claims.values(), mine) if mine else None
    else:
        print(f"verify: no records under reports/ hold {args.paper}: outcomes not shown", file=sys.stderr)
    claims = [c.describe() for c in REGISTRY if c.paper == args.paper]
    print(errata_markdown(args.paper, claims, statuses), end="")
    return 0


def _hunt_parser(sub, common: argparse.ArgumentParser) -> None:
    h = sub.add_parser("hunt", parents=[common], help="search each claim's fixture space for a counterexample, shrink and confirm it")
    h.add_argument("selectors", nargs="*",
                   help="claim ids, globs, papers, or claim files (.py); none = everything")
    h.add_argument("--budget", type=float, help="seconds of search per claim (default 60 unless --max-fixtures)")
    h.add_argument("--max-fixtures", type=int, metavar="N",
                   help="fixtures the search evaluates per claim; alone (no --budget) the hunt of a seed is "
                        "reproducible fixture for fixture on any machine")
    h.add_argument("--out", default="reports/hunt", help="output directory (default reports/hunt)")
    h.add_argument("--profile", help="profile the fixtures are checked at (default quick; confirmation reruns "
                                      "at thorough; with --replay, the profile recorded in the file)")
    h.add_argument("--seed", type=int, default=0, help="hunt seed; the same seed replays the same search")
    h.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help=f"local worker processes (default: the number of CPUs, {os.cpu_count() or 1} here; more "
                        "workers than claims hunt each claim from several seeds)")
    h.add_argument("--executor", default="pool", help="inprocess | pool | dask")
    h.add_argument("--scheduler", help="Dask scheduler address for --executor dask")
    h.add_argument("--random-only", action="store_true",
                   help="search only the families the claim uses as random fixtures (not its adversarial ones)")
    h.add_argument("--replay", metavar="FILE", help="rerun a found counterexample (DIR/found/CLAIM.json); "
                                                   "exit 1 while it still refutes")
    h.add_argument("--no-report", action="store_true", help="skip the HTML report")
    h.add_argument("--quiet", action="store_true", help="print only the summary line")
    h.add_argument("--all", action="store_true", help="with no selector: hunt every checkable claim without asking")


def _confirm_hunt_all(claims: list, budget: float) -> None:
    """``verify hunt`` with no selector hunts everything: say how much that is and ask (or want --all)."""
    n = sum(1 for c in claims if c.checkable)
    total = n * budget
    what = (f"verify hunt with no selector hunts every checkable claim: {plural(n, 'claim')} at {budget:g} s "
            f"each, up to {total / 3600:.1f} h of search in all ({total:.0f} s; fewer with more --jobs)")
    if not sys.stdin.isatty():
        raise UsageError(what + ". Name claims, a paper or a file, or pass --all to hunt them all")
    print(what + ".", file=sys.stderr)
    if input("Hunt them all? [y/N] ").strip().lower() not in ("y", "yes"):
        raise UsageError("not hunting: name claims, a paper or a file (or pass --all)")


def cmd_hunt(args: argparse.Namespace) -> int:
    """``verify hunt``: exit 1 when a confirmed counterexample is found, 0 when every budget ran out
    without one, 2 on bad input."""
    from .claims import REGISTRY
    from .hunt import hunt, replay

    if args.replay:
        if args.selectors:
            raise UsageError("--replay FILE takes no selectors (the file names its claim)")
        return replay(args.replay, profile=args.profile, builtin=not args.no_builtin)
    selectors, from_files = _load(args.selectors, not args.no_builtin)
    claims = REGISTRY.select(selectors) if selectors or not from_files else [REGISTRY[c] for c in from_files]
    if not args.selectors and not args.all:
        _confirm_hunt_all(claims, args.budget)
    kinds = (S.RANDOM,) if args.random_only else (S.RANDOM, S.ADVERSARIAL)
    budget = 60.0 if args.budget is None and args.max_fixtures is None else args.budget
    outcome = hunt(claims, budget_s=budget, max_fixtures=args.max_fixtures, out_dir=args.out, profile=args.profile or "quick", seed=args.seed,
                   jobs=args.jobs, executor=args.executor, scheduler=args.scheduler, kinds=kinds,
                   selectors=args.selectors, report=not args.no_report, stream=None if args.quiet else sys.stdout)
    found = [cid for cid, o in outcome.outcomes.items() if o.get("status") == "counterexample"]
    print(f"{len(outcome.outcomes)} claim(s) hunted; {len(found)} counterexample(s)"
          + (f": {', '.join(found)}" if found else "") + f"; records: {outcome.records_path}"
          + (f"; report: {outcome.report_path}" if outcome.report_path else ""))
    if outcome.interrupted:
        print(f"interrupted: the records of what finished are in {outcome.out_dir}", file=sys.stderr)
        return 130
    return outcome.exit_code


def _cmd_init(args: argparse.Namespace) -> int:
    from .init import command

    return command(args)


def _did_you_mean(message: str) -> str:
    """For a selector that matches no registered claim: the closest registered ids, if any are close."""
    import difflib

    from .claims import REGISTRY

    m = re.search(r"'([^']+)'[^']*matches no registered claim", message)
    if not m:
        return ""
    close = difflib.get_close_matches(m.group(1), [c.id for c in REGISTRY], n=3, cutoff=0.75)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    handlers = {"list": cmd_list, "run": cmd_run, "show": cmd_show, "report": cmd_report, "diff": cmd_diff,
                "errata": cmd_errata, "hunt": cmd_hunt, "init": _cmd_init}
    try:
        code = handlers[args.cmd](args)
        sys.stdout.flush()  # inside the try: a reader gone before the last buffered lines is a closed pipe too
        return code
    except BrokenPipeError:
        # The reader went away (``| head``): what it wanted it has; end quietly. Python flushes stdout at
        # exit, which would raise again, so stdout goes to /dev/null first.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except UsageError as exc:
        if args.debug:
            traceback.print_exc()
        print(f"verify: error: {exc}{_did_you_mean(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("verify: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
