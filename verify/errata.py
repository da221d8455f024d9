"""A paper-level errata summary a reviewer can paste into a review (``verify errata PAPER``).

Per paper: how many statements were registered and checked, how many hold, how many are wrong as
printed and of which kind (one line each, with the location, the reading and the second method), and
apart from them the statements the harness derived that failed (findings about a derivation, never
errata). Counts come from a records file when one is given, from the declarations otherwise.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from . import settings as S


def _line(text: str) -> str:
    return " ".join(str(text).split())


def errata_markdown(paper: str, claims: Iterable[dict], statuses: dict[str, dict] | None = None) -> str:
    """Markdown summary of one paper. ``claims`` are catalogue entries (``Claim.describe()`` or the
    records' claim lines); ``statuses`` (from :func:`verify.verdicts.aggregate`) give the outcomes."""
    items = [c for c in claims if c.get("paper") == paper]
    statuses = statuses or {}
    checkable = [c for c in items if c.get("checkable")]
    errata = [c for c in items if c.get("erratum")]
    derived = [c for c in items if c.get("derived") and c.get("expected") == S.ST_REFUTED]
    out = [f"# Errata summary: `{paper}`", ""]
    counts = Counter(statuses[c["id"]]["status"] for c in checkable if c["id"] in statuses)
    if statuses:
        hold = counts[S.VERIFIED]
        printed_ids = {c["id"] for c in errata}
        wrong = sum(1 for c in errata if statuses.get(c["id"], {}).get("status") == S.ST_REFUTED)
        refuted_not_errata = sum(1 for c in checkable if c["id"] not in printed_ids
                                 and statuses.get(c["id"], {}).get("status") == S.ST_REFUTED)
        rest = [statuses[c["id"]] for c in checkable if c["id"] in statuses
                and statuses[c["id"]]["status"] not in (S.VERIFIED, S.ST_REFUTED)]
        by_design = sum(1 for st in rest if st["as_expected"])
        undecided = len(rest) - by_design
        out.append(f"{len(items)} statements registered, {len(checkable)} checked numerically: **{hold} hold**, "
                   f"**{wrong} wrong as printed**"
                   + (f", {refuted_not_errata} derived statements refuted" if refuted_not_errata else "")
                   + (f", {by_design} vacuous or inconclusive as recorded" if by_design else "")
                   + (f", {undecided} undecided, unguarded or otherwise unexpected" if undecided else "")
                   + f"; {len(items) - len(checkable)} not checkable (with reasons).")
    else:
        out.append(f"{len(items)} statements registered, {len(checkable)} checkable, {len(errata)} errata declared "
                   "(no run given: outcomes not shown; pass `--records` for them).")
    out.append("")
    ids = {c["id"] for c in errata}
    children: dict[str, list[dict]] = {}
    roots = []
    for c in errata:
        root = c["erratum"].get("root")
        if root and root in ids and root != c["id"]:
            children.setdefault(root, []).append(c)
        else:
            roots.append(c)
    by_kind: dict[str, list[dict]] = {}
    for c in roots:
        by_kind.setdefault(c["erratum"]["kind"], []).append(c)
    if errata:
        out.append(f"**{len(roots)} independent slips, {len(errata)} statements affected** (one slip, one erratum: "
                   "a statement that inherits a slip is listed under its root).")
        out.append("")
        out += ["| kind | independent slips | statements affected |", "|---|---|---|"]
        out += [f"| {k} | {len(by_kind[k])} | {sum(1 + len(children.get(c['id'], [])) for c in by_kind[k])} |"
                for k in S.ERRATUM_KINDS if k in by_kind]
        out.append("")

    def state_of(cid: str) -> str:
        st = statuses.get(cid, {}).get("status")
        return "" if st is None else (" (confirmed by this run)" if st == S.ST_REFUTED else f" (**{st}** in this run)")

    def second_method(e: dict) -> str:
        ind = e.get("independence")
        if ind == S.SAME_METHOD:
            return f"same-method confirmation, not a second method: {_line(e['second_method'])}"
        return (f"({ind}) " if ind else "(independence not declared) ") + _line(e["second_method"])

    for kind in S.ERRATUM_KINDS:
        for c in by_kind.get(kind, []):
            e = c["erratum"]
            out.append(f"- **{kind}** — `{c['id']}`{state_of(c['id'])}, {_line(e['location'])}: "
                       f"{_line(e.get('summary') or c.get('expected_reason') or '')}")
            out.append(f"  - printed: {_line(e['printed'])}")
            out.append(f"  - reading: {_line(e['reading'])}")
            if e.get("amended"):
                amended = e.get("amended_id") or f"{c['id']}.amended"
                ast = statuses.get(amended, {}).get("status")
                out.append(f"  - amended (`{amended}`{', ' + ast if ast else ''}): {_line(e.get('difference') or e['amended'])}")
            out.append(f"  - second method: {second_method(e)}")
            for d in children.get(c["id"], []):
                de = d["erratum"]
                out.append(f"  - statement affected: `{d['id']}`{state_of(d['id'])} ({de['kind']}), "
                           f"{_line(de['location'])}: {_line(de.get('summary') or d.get('expected_reason') or '')}; "
                           f"confirmation: {second_method(de)}")
    if not errata:
        out.append("No erratum declared.")
    if derived:
        out += ["", "## Derived statements that failed (not errata)", "",
                "Statements the harness derived (a reconstructed proof step, a stronger reading); their failure "
                "is a finding about the derivation, not about the paper.", ""]
        for c in derived:
            out.append(f"- `{c['id']}`: {_line(c['derived'])} — {_line(c.get('expected_reason') or '')}")
    return "\n".join(out).rstrip() + "\n"
