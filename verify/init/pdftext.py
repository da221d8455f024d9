"""Numbered items from text extracted from a PDF (plain text or Markdown, as in ``../shared/papers``).

A heading is a line that opens with a printed kind and number: "Theorem 4.2 (name).", "**Lemma B.14.**",
"Assumption A.9.", "Proposition 1 The non-convex problem" (no full stop, the next word capitalised), or,
inside a line, one introduced by a colon ("...used throughout: Lemma 2. For l, we have"). A line that
continues a sentence ("... follows from" / "Theorem 6.2.") is a reference, not a heading. The statement runs
to the proof, the next heading or section, or the end of its paragraph; the proof ("Proof.", "Proof of
Lemma 3.") runs to the next heading, section or proof, and its references ("by Lemma 3.1") become ``uses``.
"""

from __future__ import annotations

import re
from pathlib import Path

from .model import _KIND_WORDS, HEADING_WORDS, KINDS, NUMBER, Item, Paper, dedupe, resolve_uses, text_refs

_OPEN = r"^\s*(?:#+\s*)?(?:\*\*|\*|_)?\s*"
_HEAD = re.compile(_OPEN + rf"({HEADING_WORDS})\s+({NUMBER})(?:\*\*|\*)?(?P<rest>.*)$")
_INLINE = re.compile(rf":\s+(?:\*\*)?({_KIND_WORDS})\s+({NUMBER})(?:\*\*)?\.(?P<rest>\s.*)$")
_PROOF = re.compile(_OPEN + r"Proof\b\s*(?:(?:of|for)\s+(" + _KIND_WORDS + r")\s+(" + NUMBER + r"))?")
_MD_SECTION = re.compile(r"^#+\s*(?:\*\*)?\s*(.+?)\s*$")
_TXT_SECTION = re.compile(r"^(?:[A-Z]|\d+)(?:\.\d+)*\s+[A-Z][A-Za-z][^.]{0,70}$")
# A line ending in one of these words (or a comma) continues a sentence: what follows is a reference.
_CONTINUES = {"by", "of", "in", "from", "and", "or", "to", "see", "using", "use", "with", "that", "the", "as",
              "under", "following", "applying", "via", "for", "on", "is", "are", "thus", "then", "our", "this"}
_MAX_LINES = {".md": 8, ".txt": 14}
# An equation number printed in a statement ("... (12)" at a line's end, or \tag{12}), and a proof's
# reference to one ("from (12)", "by eq. (12)"): the proof uses the item whose statement numbers it.
_EQ_TAG = re.compile(r"(?:\\tag\{(\d+)\}|\((\d+)\)\s*(?:\$\$)?\s*$)")
_EQ_REF = re.compile(r"\b(?i:from|by|using|in|of|see|via|and|eqs?\.|equations?)\s+\((\d+)\)")


def _continues(prev: str) -> bool:
    prev = prev.rstrip()
    if not prev:
        return False
    if prev.endswith(","):
        return True
    last = re.findall(r"[A-Za-z]+$", prev)
    return bool(last) and last[0].lower() in _CONTINUES


def _unbold(s: str) -> str:
    """The text after a heading, without the heading's closing bold (an italic statement keeps its *)."""
    s = s.strip()
    return s[2:].strip() if s.startswith("**") else s


def _heading(line: str, prev: str) -> tuple[str, str, str, str] | None:
    """(printed kind, number, name, rest of the line) when the line opens an item, else None."""
    m = _HEAD.match(line)
    if m is None:
        m = _INLINE.search(line)
        if m is None:
            return None
        return m.group(1), m.group(2), "", m.group("rest").strip()
    if _continues(prev) and not m.group(0).lstrip().startswith(("**", "#")):   # bold: a heading
        return None
    kind, number, rest = m.group(1), m.group(2), m.group("rest")
    if rest.startswith((".", ":")) and not re.match(r"\.\d", rest):   # Theorem 4.2. / **Lemma 1.** / Lemma 2:
        return kind, number, "", _unbold(rest[1:])
    name_m = re.match(r"\s*(?:\*\*)?\s*\(", rest)
    if name_m:                                                        # Theorem 4.2 (Name). / (Name) text
        depth, i = 0, name_m.end() - 1
        for j in range(i, len(rest)):
            depth += {"(": 1, ")": -1}.get(rest[j], 0)
            if depth == 0:
                name = rest[i + 1:j].strip()
                after = _unbold(rest[j + 1:])
                return kind, number, name, _unbold(after[1:]) if after.startswith((".", ":")) else after
        return None
    if re.match(r"\s+[A-Z(]", rest) or not rest.strip():             # Proposition 1 The non-convex ...
        if not rest.strip() and not m.group(0).lstrip().startswith(("*", "#")):
            return None                                               # a bare "Theorem 6.2" line
        return kind, number, "", rest.strip()
    return None


def _is_section(line: str, md: bool) -> str | None:
    if md:
        m = _MD_SECTION.match(line) if line.startswith("#") else None
        return m.group(1).replace("**", "").strip() if m else None
    s = line.strip()
    return s if _TXT_SECTION.match(s) and not s.endswith((".", ",")) else None


def _refs(text: str) -> list[str]:
    return text_refs(text) + [f"eq:{n}" for n in _EQ_REF.findall(text)]


def read_text(path: str | Path, paper: str) -> Paper:
    p = Path(path)
    lines = p.read_text(encoding="utf-8", errors="replace").splitlines()
    md = p.suffix.lower() == ".md"
    max_lines = _MAX_LINES.get(p.suffix.lower(), 14)
    notes: list[str] = []
    items: list[Item] = []
    by_key: dict[str, Item] = {}
    section = ""
    current: Item | None = None       # the item whose statement is being read
    proof_of: Item | None = None      # the item whose proof is being read
    taken = 0
    prev = ""
    eq_owner: dict[str, str] = {}     # equation number -> the item whose statement prints it
    for lineno, line in enumerate(lines, 1):
        head = _heading(line, prev)
        proof = _PROOF.match(line) if head is None else None
        sec = _is_section(line, md) if head is None and proof is None else None
        if head is not None:
            printed, number, name, rest = head
            kind, prefix = KINDS[printed.lower()]
            current = Item(kind, prefix, number, printed.capitalize(), name, rest, section, line=lineno)
            items.append(current)
            by_key.setdefault(current.key, current)
            for m in _EQ_TAG.finditer(rest):
                eq_owner.setdefault(m.group(1) or m.group(2), current.key)
            proof_of, taken = None, 1
        elif proof is not None:
            target = current
            if proof.group(1):
                target = by_key.get(KINDS[proof.group(1).lower()][1] + proof.group(2))
            current, proof_of = None, target
            if proof_of is not None:
                proof_of.refs.extend(_refs(line[proof.end():]))
        elif sec is not None:
            section, current, proof_of = sec, None, None
        elif current is not None:
            blank = not line.strip()
            if blank and md and taken > 0:
                taken = -abs(taken)   # a paragraph ended: the statement goes on only with a display or list
            elif blank and current.statement.rstrip().endswith("."):
                current = None        # plain text: a blank line after a full stop ends it (one inside a
                #                       formula, "f(x) =" then a blank line, does not)
            elif not blank:
                if taken < 0 and not re.match(r"\s*(\$\$|\*|-|\(|\\\[|\d+\.)", line):
                    current = None
                elif abs(taken) >= max_lines:
                    current = None
                else:
                    current.statement = (current.statement + "\n" + line.strip()).strip()
                    taken = abs(taken) + 1
                    for m in _EQ_TAG.finditer(line):
                        eq_owner.setdefault(m.group(1) or m.group(2), current.key)
        elif proof_of is not None:
            proof_of.refs.extend(_refs(line))
        prev = line
    items = dedupe(items, notes)
    for it in items:
        it.statement = it.statement.strip() or it.title
        it.refs = [eq_owner.get(r[3:], "") if r.startswith("eq:") else r for r in it.refs]
    out = Paper(paper, str(p), items, {}, notes)
    resolve_uses(out)
    return out
