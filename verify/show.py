"""``verify show ID``: a claim as declared (statement, hypotheses, fixtures) and its latest results from
a records file (by default the newest run under ``reports/`` that holds the claim, else ``reports/latest``;
the directory read is named), in plain text; ``--open`` opens its report card, plots
included, in a browser."""

from __future__ import annotations

import json
import tempfile
import textwrap
import webbrowser
from pathlib import Path

from . import settings as S
from .claims import Claim, Registry
from .errors import UsageError

DEFAULT_RECORDS = "reports/latest"
MAX_REASON = 300


def _fmt(x: object) -> str:
    if x is None:
        return "—"
    if isinstance(x, float):
        return f"{x:.4g}"
    if isinstance(x, list):
        head = ", ".join(_fmt(v) for v in x[:4])
        return f"[{head}{', …' if len(x) > 4 else ''}]"
    return str(x)


def printable(text: str) -> str:
    """``text`` with control characters other than newlines shown as escapes (``\\x1b``): a records file
    is data, and its strings must not move the cursor, recolour or retitle the reader's terminal."""
    return "".join(ch if ch == "\n" or (ch.isprintable() and ch not in "\x85\u2028\u2029") else
                   ch.encode("unicode_escape").decode("ascii") for ch in text)


def declaration_text(c: Claim, registry: Registry) -> list[str]:
    d = c.describe()
    out = [f"{c.id} ({c.kind}, {c.paper})" + (f" — {c.title}" if c.title else ""),
           textwrap.indent(c.statement.strip(), "  ")]
    if not c.checkable:
        out.append(f"not checkable: {c.reason}")
    for h in d["hypotheses"]:
        out.append(f"hypothesis: {h['name']}" + (f" — {h['description']}" if h["description"] else ""))
    if c.uses:
        out.append("uses: " + ", ".join(c.uses))
    used_by = registry.used_by(c.id)
    if used_by:
        out.append("used by: " + ", ".join(used_by))
    for i, f in enumerate(d["fixtures"]):
        mut = f" mutation={f['mutation']!r}" if f["mutation"] else ""
        out.append(f"fixture {i}: {f['kind']:11s} {f['label']} {json.dumps(f['params'])}{mut} "
                   f"profiles={','.join(f['profiles'])}")
    if c.expected:
        out.append(f"expected: {c.expected} — {c.expected_reason}")
    if c.erratum:
        e = c.erratum
        out.append(f"erratum: {e.kind} at {e.location}" + (f" — {e.summary}" if e.summary else ""))
    if c.derived:
        out.append(f"derived by the harness: {c.derived}")
    if c.amends:
        out.append(f"amends: {c.amends}")
    if c.seeds_of:
        out.append(f"fixture seeds: those of {c.seeds_of} (the same runs where the fixtures are declared alike)")
    if c.judged_by:
        out.append(f"judged by: {c.judged_by}")
    return out


def newest_records_with(needle: str, reports: str | Path = "reports") -> Path | None:
    """The newest ``reports/*/records.jsonl`` (``reports/latest`` among them; reruns and hunts not) whose text
    holds ``needle`` (``"claim": "ID"`` or ``"paper": "P"``, as records are written): a run of one paper writes
    to ``reports/PAPER``, so "the latest results" of a claim may be there rather than in ``reports/latest``."""
    root = Path(reports)
    if not root.is_dir():
        return None
    found = [p for p in root.glob("*/records.jsonl") if p.parent.name not in ("rerun", "hunt")]
    for p in sorted(found, key=lambda p: p.stat().st_mtime, reverse=True):
        try:
            if needle.encode("utf-8") in p.read_bytes():
                return p
        except OSError:
            continue
    return None


def _records_path(path: str | None, claim_id: str = "") -> Path | None:
    if path is None:
        newest = newest_records_with(f'"claim": {json.dumps(claim_id)}') if claim_id else None
        path_ = newest or Path(DEFAULT_RECORDS) / "records.jsonl"
        return path_ if path_.exists() else None
    p = Path(path)
    if p.is_dir():
        p = p / "records.jsonl"
    if not p.exists():
        raise UsageError(f"{path}: no such records file")
    return p


def results_text(c: Claim, records: list[dict], where: Path) -> list[str]:
    """The claim's latest results in these records: its status, then one line per fixture."""
    from .records import split
    from .report.fmt import room_text
    from .verdicts import aggregate, display_status

    claims, results, runs = split(records)
    mine = [r for r in results if r["claim"] == c.id]
    if not mine:
        return [f"no result for {c.id} in {where} (run it: verify run {c.id})"]
    run_ids = list(dict.fromkeys(r.get("run_id") for r in mine))
    out = [f"latest results, from {where}:"]
    for rid in run_ids:
        run = next((r for r in runs if r.get("run_id") == rid), {})
        if not run and not rid and len(runs) == 1:  # a hunt's fixtures carry no run id: the file's one run line
            run = runs[0]
        bits = [f"{k} {run[k]}" for k in ("command", "profile", "seed", "executor", "host", "commit", "started")
                if run.get(k)]
        out.append(f"  run {rid or run.get('run_id') or '(no run id)'}: " + ", ".join(bits))
    claims.setdefault(c.id, c.describe())
    st = aggregate(claims.values(), results)[c.id]  # over every claim: "fully verified" needs its uses
    nc = st["negative_controls"]
    expect = "" if not st["expected"] else f" (expected {st['expected']})"
    ok = "as expected" if st["as_expected"] else "NOT AS EXPECTED"
    out.append(f"status: {display_status(st)}{expect}: {ok}; tightest room {room_text(st['tightest_room'])}"
               + (" (loose)" if st["loose"] else "")
               + f"; negative controls {nc['caught']}/{nc['total']} caught, {nc['powered']} powered")
    for r in sorted(mine, key=lambda r: str(r.get("task_id"))):
        ev = r.get("evidence") or {}
        verdict = r["verdict"]
        if r["fixture_kind"] == S.NEGATIVE:
            verdict = ("control caught" if r.get("as_expected", True) else "control NOT caught") + f" ({verdict})"
        mark = "" if r.get("as_expected", True) else "  <- not as expected"
        out.append(f"  {r['task_id']:6s} {r.get('label')} ({r['fixture_kind']}, seed {r.get('seed')}): {verdict}; "
                   f"slack {_fmt(ev.get('slack'))}, room {room_text(ev.get('tightest_room'))}, "
                   f"{_fmt(r.get('duration_s'))} s{mark}")
        if r.get("reason"):
            out.append(f"         {str(r['reason'])[:MAX_REASON]}")
        for comp in () if r.get("reason") else ev.get("comparisons") or ():
            if comp.get("holds") is False:
                role = "validity" if comp.get("role") == "validity" else "fails"
                out.append(f"         {role}: {comp.get('name')}: measured {_fmt(comp.get('measured'))} "
                           f"{comp.get('relation')} {_fmt(comp.get('predicted'))}")
        if isinstance(r.get("hunt"), dict):
            out += hunt_lines(r["hunt"])
        if not r.get("as_expected", True) and r.get("repro"):
            out.append(f"         rerun: {r['repro']}")
    return out


def hunt_lines(h: dict) -> list[str]:
    """How ``verify hunt`` found (or did not find) a counterexample, from a hunt record's ``hunt`` field."""
    out = [f"         hunt: {h.get('status')}, {h.get('evaluations')} evaluation(s) in {_fmt(h.get('spent_s'))} s"
           + (f", stopped: {h['stopped']}" if h.get("stopped") else "")]
    f = h.get("found")
    if isinstance(f, dict):
        first, shrunk = f.get("first") or {}, f.get("shrunk") or {}
        out.append(f"         found by {h.get('found_by') or '?'} ({f.get('phase') or '?'} phase) after "
                   f"{f.get('evaluations_to_first')} evaluation(s), {_fmt(f.get('seconds_to_first'))} s: "
                   f"{first.get('fixture')} (slack {_fmt(first.get('slack'))})")
        out.append(f"         shrunk in {f.get('shrink_steps')} step(s) to {shrunk.get('fixture')} "
                   f"(slack {_fmt(shrunk.get('slack'))}): {shrunk.get('reason') or ''}")
    c = h.get("confirmation")
    if isinstance(c, dict):
        parts = [f"{k} {(c.get(k) or {}).get('verdict')}" for k in ("replay", "careful") if isinstance(c.get(k), dict)]
        nb = c.get("neighbourhood") or {}
        if nb:
            parts.append(f"{nb.get('refuted')} of {nb.get('tried')} neighbours refuted")
        out.append(f"         confirmed: {'yes' if c.get('confirmed') else 'no'} ({', '.join(parts)})")
    return out


def show_claim(c: Claim, registry: Registry, records_path: str | None = None, *, open_browser: bool = False) -> str:
    """The text ``verify show`` prints; with ``open_browser``, the claim's card is opened too."""
    from .records import read_records

    lines = declaration_text(c, registry)
    lines.append("")
    path = _records_path(records_path, c.id)
    records: list[dict] = []
    if path is None:
        lines.append(f"no results: no records under reports/ hold {c.id} (run: verify run {c.id}; "
                     "or name a records file with --records)")
    else:
        records = read_records(path)
        lines += results_text(c, records, path)
    if open_browser:
        from .api import Results, claim_page_html

        mine = [r for r in records if r.get("type") in ("run", "end") or r.get("claim") == c.id or r.get("id") == c.id]
        if not any(r.get("id") == c.id for r in mine):
            mine.append({"type": "claim", **c.describe(), "used_by": registry.used_by(c.id)})
        page = Path(tempfile.mkdtemp(prefix="verify-show-")) / f"{c.id}.html"
        page.write_text(claim_page_html(Results(mine), c.id), encoding="utf-8")
        opened = webbrowser.open(page.as_uri())
        lines.append(f"card: {page}" + ("" if opened else " (no browser found: open it yourself)"))
    return printable("\n".join(lines)) + "\n"
