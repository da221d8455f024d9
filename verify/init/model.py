"""What ``verify init`` reads out of a paper: its numbered items, their proofs' references, its macros."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Printed name of a theorem-like environment -> (claim kind, id prefix). The prefixes are those of the
# bundled catalogues (lyu2021.thm4.2, lyu2021.lemB.14, lyu2021.asmA.9, wang2022.def1, min2024.rmk7,
# wang2022.prop5, lyu2021.cor4.4); wang2022's two remarks are registered there as rem1/rem2 by hand.
KINDS: dict[str, tuple[str, str]] = {
    "theorem": ("theorem", "thm"), "lemma": ("lemma", "lem"), "proposition": ("proposition", "prop"),
    "corollary": ("corollary", "cor"), "claim": ("claim", "claim"), "assumption": ("assumption", "asm"),
    "definition": ("definition", "def"), "remark": ("remark", "rmk"), "observation": ("claim", "obs"),
    "example": ("example", "ex"), "experiment": ("experiment", "exp"), "conjecture": ("conjecture", "conj"),
    "condition": ("condition", "cond"), "fact": ("claim", "fact"), "hypothesis": ("assumption", "hyp"),
}

# A printed item number: 4, 4.2, B.14, A.2.3 (a letter glued to a number, A1, is rare and not taken).
NUMBER = r"(?:[A-Z]\.)?\d+(?:\.\d+)*"
_KIND_WORDS = "|".join(k.capitalize() for k in KINDS)
# Headings also come in capitals (THEOREM 2.1., the AMS and SIAM styles); a reference in prose does not.
HEADING_WORDS = _KIND_WORDS + "|" + "|".join(k.upper() for k in KINDS)
# "by Lemma 3.1", "Assumptions 3.2 and 4.1", "Lemmas 1, 2 and 5": a textual reference to numbered items.
TEXT_REF = re.compile(rf"\b({_KIND_WORDS})s?\s*~?\s*({NUMBER}(?:\s*(?:,|and|&|,\s*and)\s*{NUMBER})*)")


def kind_of(printed_name: str) -> tuple[str, str] | None:
    """(kind, prefix) for an environment's printed name ("Theorem", "Main Lemma" -> lemma), or None."""
    words = printed_name.strip().lower().split()
    for w in reversed(words):
        if w in KINDS:
            return KINDS[w]
    return None


@dataclass
class Item:
    """One numbered (or labelled) statement of a paper."""

    kind: str
    prefix: str
    number: str
    printed: str                 # the printed environment name: "Theorem", "Lemma"
    name: str = ""               # the optional name: Theorem 4.2 (Name)
    statement: str = ""
    section: str = ""
    label: str = ""              # for an unnumbered item, the \label its id derives from
    line: int = 0
    refs: list[str] = field(default_factory=list)   # raw references in its proof: item keys
    uses: list[str] = field(default_factory=list)   # the ids they resolve to

    @property
    def key(self) -> str:
        """The id without the paper: thm4.2, lemB.14, or thm.main for an unnumbered, labelled item."""
        if self.number:
            return f"{self.prefix}{self.number}"
        return f"{self.prefix}.{re.sub(r'[^A-Za-z0-9_]+', '_', self.label.split(':')[-1]).strip('_') or 'unnamed'}"

    @property
    def title(self) -> str:
        head = f"{self.printed} {self.number}".strip()
        return f"{head} ({self.name})" if self.name else head


@dataclass
class Paper:
    """A paper as read: its items in order, the preamble macros its statements use, and notes for the user."""

    name: str
    source: str
    items: list[Item]
    macros: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def text_refs(text: str) -> list[str]:
    """Item keys referred to in prose: "by Lemma 3.1 and Theorems 2, 4" -> [lem3.1, thm2, thm4]."""
    out = []
    for m in TEXT_REF.finditer(text):
        prefix = KINDS[m.group(1).lower()][1]
        out.extend(prefix + n for n in re.findall(NUMBER, m.group(2)))
    return out


def resolve_uses(paper: Paper) -> None:
    """Turn each item's raw references into ``uses`` ids: known items only, no self-reference, and no
    cycle (a proof that cites an item whose own proof cites it back: the later-found edge is dropped,
    with a note, since the registry rejects cycles)."""
    ids = {it.key: f"{paper.name}.{it.key}" for it in paper.items}
    graph: dict[str, list[str]] = {}
    for it in paper.items:
        uses: list[str] = []
        for r in dict.fromkeys(it.refs):
            if r in ids and r != it.key:
                if _reaches(graph, r, it.key):
                    paper.notes.append(f"{it.key}: its proof cites {r}, whose proof cites it back; "
                                       f"{r} left out of its uses (the registry rejects cycles)")
                    continue
                uses.append(ids[r])
                graph.setdefault(it.key, []).append(r)
        it.uses = uses


def _reaches(graph: dict[str, list[str]], start: str, goal: str) -> bool:
    seen, stack = set(), [start]
    while stack:
        k = stack.pop()
        if k == goal:
            return True
        if k not in seen:
            seen.add(k)
            stack.extend(graph.get(k, []))
    return False


def dedupe(items: list[Item], notes: list[str]) -> list[Item]:
    """One item per id: the first occurrence (a restatement in an appendix keeps the main text's)."""
    out: dict[str, Item] = {}
    for it in items:
        if it.key in out:
            first = out[it.key]
            first.refs.extend(r for r in it.refs if r not in first.refs)
            notes.append(f"{it.key}: printed again at line {it.line} (a restatement); the first, line "
                         f"{first.line}, is kept")
            continue
        out[it.key] = it
    return list(out.values())
