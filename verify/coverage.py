"""Coverage of a paper as a number: how many of its statements are registered, encoded, verified.

A pure function over claims (objects or their ``describe()`` dicts, as records hold them) and, optionally,
their statuses (``verify.verdicts.aggregate``): the summary line, ``verify list``, the README table and the
report's overview can all print the same counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from . import settings as S
from .claims import NOT_YET_ENCODED

# A printed, numbered statement's id: kind prefix + number (thm4.2, lemB.14, asmA.9, def1, rmk7, rem1);
# variants (.amended), parts (thm1.a), informal items (i1) and harness-named claims (claim.zeta) are not.
_NUMBERED = re.compile(r"^(thm|lem|cor|prop|def|asm|rmk|rem|claim|obs|ex|exp|conj|cond|fact|hyp)"
                       r"(?:[A-Z]\.)?\d+(?:\.\d+)*$")


def is_numbered(cid: str) -> bool:
    """Whether a claim id names a numbered statement of its paper (``lyu2021.thm4.2``, not ``.amended``)."""
    local = cid.split(".", 1)[1] if "." in cid else cid
    return bool(_NUMBERED.match(local))


def _fields(c: Any) -> tuple[str, str, bool, str | None]:
    if isinstance(c, Mapping):
        return c["id"], c["paper"], bool(c["checkable"]), c.get("reason")
    return c.id, c.paper, c.checkable, c.reason


def coverage(claims: Iterable[Any], statuses: Mapping[str, Mapping] | None = None, *,
             numbered_only: bool = False) -> dict[str, dict]:
    """Per paper (sorted): ``registered``; ``not_yet_encoded`` with ``pending`` (their ids, in order);
    ``not_checkable`` (a real reason) with ``reasons`` (reason -> count); ``encoded`` (checkable); and,
    when statuses are given, ``verified`` (verified or fully verified). ``registered`` = not yet encoded +
    not checkable + encoded. ``numbered_only`` counts only numbered statements (see :func:`is_numbered`)."""
    out: dict[str, dict] = {}
    for c in claims:
        cid, paper, checkable, reason = _fields(c)
        if numbered_only and not is_numbered(cid):
            continue
        row = out.setdefault(paper, {"registered": 0, "not_yet_encoded": 0, "not_checkable": 0, "encoded": 0,
                                     "verified": None if statuses is None else 0, "pending": [], "reasons": {}})
        row["registered"] += 1
        if checkable:
            row["encoded"] += 1
            st = (statuses or {}).get(cid)
            if statuses is not None and st is not None and st.get("status") in (S.VERIFIED, S.FULLY_VERIFIED):
                row["verified"] += 1
        elif reason == NOT_YET_ENCODED:
            row["not_yet_encoded"] += 1
            row["pending"].append(cid)
        else:
            row["not_checkable"] += 1
            row["reasons"][reason or ""] = row["reasons"].get(reason or "", 0) + 1
    return dict(sorted(out.items()))


def coverage_line(paper: str, row: Mapping) -> str:
    """One line: ``mypaper: 1 of 12 encoded (11 not yet encoded, 0 not checkable; 1 verified)``."""
    tail = "" if row.get("verified") is None else f"; {row['verified']} verified"
    return (f"{paper}: {row['encoded']} of {row['registered']} encoded ({row['not_yet_encoded']} not yet "
            f"encoded, {row['not_checkable']} not checkable{tail})")
