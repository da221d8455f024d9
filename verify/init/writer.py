"""The claim file ``verify init`` writes, and ``verify init --update`` rewrites.

Each item is one top-level ``not_checkable(..., reason=NOT_YET_ENCODED)`` call with a commented skeleton
of a check beneath it. The update mode finds those calls with :mod:`ast` (comments and encoded checks are
invisible to it, so they cannot be touched) and replaces only the pending calls' source lines.
"""

from __future__ import annotations

import ast
import difflib
import os
import re
from dataclasses import replace
from pathlib import Path

from ..claims import NOT_YET_ENCODED
from ..errors import UsageError
from .model import Item, Paper

_WIDTH = 110


def _literal(s: str) -> str:
    """A raw triple-quoted literal when the text allows one (TeX reads best unescaped), else repr."""
    if '"""' not in s and not s.endswith(("\\", '"')) and all(c >= " " or c in "\n\t" for c in s):
        return 'r"""' + s + '"""'
    return repr(s)


def render_call(paper: Paper, it: Item) -> str:
    cid = f"{paper.name}.{it.key}"
    args = [f"{cid!r}, kind={it.kind!r}, title={it.title!r},", f"statement={_literal(it.statement)},"]
    if it.uses:
        args.append(f"uses={it.uses!r},")
    tags = ([f"section: {it.section}"] if it.section else []) + ([f"label: {it.label}"] if it.label else [])
    if tags:
        args.append(f"tags={tags!r},")
    args.append("reason=NOT_YET_ENCODED)")
    return "not_checkable(\n" + "\n".join("    " + a for a in args) + "\n"


def _skeleton(paper: Paper, it: Item) -> str:
    fn = re.sub(r"\W", "_", it.key)
    fam = f"{paper.name}.{fn}"
    return f"""\
# To encode {paper.name}.{it.key}, replace the call above by a check such as this one, filled in:
# @family("{fam}.random", space={{"n": integer(2, 40), "d": integer(1, 10)}})   # the space a hunt searches
# def {fn}_random(rng, n=8, d=3):
#     \"\"\"Instances meeting the hypotheses, drawn at random.\"\"\"
#     return {{"X": rng.normal(size=(n, d))}}
#
# @family("{fam}.adversarial")
# def {fn}_adversarial(rng, n=8, d=3):
#     \"\"\"Instances at the edge of the hypotheses (nearly degenerate, extreme sizes or constants).\"\"\"
#     return {{"X": 1e-6 * rng.normal(size=(n, d))}}
#
# {fn}_hyp = hypothesis("<a hypothesis, as printed>", lambda fx: (True, 1.0))   # (holds, slack)
#
# @claim("{paper.name}.{it.key}", kind={it.kind!r}, title={it.title!r}, statement=<the statement above>,
#        hypotheses=[{fn}_hyp], uses=<the uses above>, tags=<the tags above>,   # tags: --update follows the label
#        fidelity="faithful",   # or "proxy" / "partial" with fidelity_note=..., or "definitional"
#        fixtures=[random({fn}_random), adversarial({fn}_adversarial),
#                  negative({fn}_random, mutation="wrong constant"),   # power: the check must refute it
#                  negative({fn}_adversarial)])   # breaks the hypothesis: a probe on which the conclusion
#                                                 # should fail, showing the hypothesis matters
# def check_{fn}(fx):
#     ev = Evidence()
#     measured, bound = 0.0, 1.0        # the two sides of the conclusion, computed on fx
#     if fx.mutated("wrong constant"):
#         bound *= 0.5                  # the mutated conclusion: the check must refute it
#     ev.le("<the conclusion, as printed>", measured, bound)
#     return ev
"""


def render_block(paper: Paper, it: Item) -> str:
    head = f"# --- {it.title}" + (f" · {it.section}" if it.section else "") + " "
    return head[:_WIDTH].ljust(_WIDTH, "-") + "\n" + render_call(paper, it) + _skeleton(paper, it)


def render_macros(macros: dict[str, str]) -> str:
    if not macros:
        return "MACROS: dict[str, str] = {}\n"
    body = "".join(f"    {k!r}: {_literal(v)},\n" for k, v in sorted(macros.items()))
    return "MACROS = {\n" + body + "}\n"


def render_file(paper: Paper, out: str | Path) -> str:
    source = os.path.relpath(Path(paper.source).resolve(), Path(out).resolve().parent)
    n = len(paper.items)
    header = f'''\
"""Claims of {paper.name}, registered by ``verify init`` from {Path(paper.source).name}: {n} items.

Every item is registered "not yet encoded" (``reason=NOT_YET_ENCODED``), with a commented skeleton of a
check beneath it. To encode one, replace its ``not_checkable(...)`` call by a check (its skeleton, filled
in) and run ``verify run THIS_FILE``. ``verify init --update THIS_FILE`` reads SOURCE again: it updates
the titles and statements of the items still not yet encoded, adds new items and never touches an
encoded check.
"""

from verify import NOT_YET_ENCODED, not_checkable

# For the skeletons: from verify import Evidence, adversarial, claim, family, hypothesis, integer, negative, random

SOURCE = {source!r}
PAPER = {paper.name!r}
# The preamble's macros that the statements use, as defined there (for the report's MathML).
'''
    return header + render_macros(paper.macros) + "".join("\n\n" + render_block(paper, it) for it in paper.items)


# ---------------------------------------------------------------------------------------------
# --update


def _call_name(node: ast.AST) -> str:
    f = node.func if isinstance(node, ast.Call) else None
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _first_str(node: ast.Call) -> str | None:
    if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    return None


def _is_pending(call: ast.Call) -> bool:
    for kw in call.keywords:
        if kw.arg == "reason":
            v = kw.value
            return (isinstance(v, ast.Name) and v.id == "NOT_YET_ENCODED") or (
                isinstance(v, ast.Constant) and v.value == NOT_YET_ENCODED)
    return False


def _label(call: ast.Call) -> str:
    """The LaTeX label a generated call records in its tags ("label: thm:main"), or ''."""
    for kw in call.keywords:
        if kw.arg == "tags" and isinstance(kw.value, (ast.List, ast.Tuple)):
            for e in kw.value.elts:
                if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value.startswith("label: "):
                    return e.value[len("label: "):]
    return ""


def scan(text: str, where: str) -> tuple[dict[str, tuple[int, int, str]], dict[str, str], dict[str, tuple[int, int]]]:
    """(pending calls by id -> their line span and label, every id declared -> its label or '', top-level
    assignments -> their line span)."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise UsageError(f"{where}:{exc.lineno}: syntax error: {exc.msg}") from exc
    pending: dict[str, tuple[int, int, str]] = {}
    declared: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _call_name(node) in ("claim", "not_checkable") and _first_str(node):
            declared[_first_str(node)] = _label(node)
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
                _call_name(node.value) == "not_checkable" and _first_str(node.value) and _is_pending(node.value):
            pending[_first_str(node.value)] = (node.lineno, node.end_lineno or node.lineno, _label(node.value))
    assigns = {t.id: (node.lineno, node.end_lineno or node.lineno) for node in tree.body
               if isinstance(node, (ast.Assign, ast.AnnAssign))
               for t in ([node.target] if isinstance(node, ast.AnnAssign) else node.targets) if isinstance(t, ast.Name)}
    return pending, declared, assigns


def source_of(text: str, path: Path) -> Path:
    """The paper a claim file was initialised from: its SOURCE, relative to the file."""
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SOURCE" for t in node.targets) \
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return (path.parent / node.value.value).resolve()
    raise UsageError(f"{path}: no SOURCE = '...' line (name the paper: verify init PAPER --update {path})")


def update_text(text: str, paper: Paper, where: str) -> tuple[str, list[str]]:
    """The file with its pending items refreshed from ``paper`` and its new items appended; and notes."""
    pending, declared, assigns = scan(text, where)
    lines = _lines(text)
    edits: list[tuple[int, int, str]] = []   # (first line, last line, replacement), 1-based, inclusive
    notes: list[str] = []
    by_id = {f"{paper.name}.{it.key}": it for it in paper.items}
    by_label = {it.label: it for it in paper.items if it.label}
    encoded = {cid: label for cid, label in declared.items() if cid not in pending}
    # An encoded claim is never rewritten; when the draft renumbers it (its label now carries another
    # number) or gives its number to another item, the user renames it: say so, and register neither.
    blocked: set[str] = set()
    for cid, label in sorted(encoded.items()):
        moved = by_label.get(label) if label else None
        if moved is not None and f"{paper.name}.{moved.key}" != cid:
            new_id = f"{paper.name}.{moved.key}"
            blocked.add(new_id)
            notes.append(f"{cid} (encoded) is now {moved.title} in the paper (\\label{{{label}}}): rename the "
                         f"claim to {new_id} by hand, then run --update again")
        now = by_id.get(cid)
        if label and now is not None and now.label != label:
            notes.append(f"{cid} (encoded, \\label{{{label}}}) names another item in the paper now: "
                         f"{now.title}" + (f" (\\label{{{now.label}}})" if now.label else ""))
    # Each pending call is a slot for one item: the item with its label when the label is still there (a
    # renumbered item keeps its label: nothing was recorded under its old id, so the slot takes the new
    # one), else the item with its id.
    slots: list[tuple[str, int, int, str, Item]] = []
    taken: set[str] = set()
    stale: set[str] = set()
    for cid, (a, b, label) in sorted(pending.items(), key=lambda kv: kv[1][0]):
        it = by_label.get(label) if label else None
        it = it if it is not None else by_id.get(cid)
        new_id = f"{paper.name}.{it.key}" if it is not None else None
        if new_id is None or new_id in encoded or new_id in taken or new_id in blocked:
            notes.append(f"{cid}: no longer in the paper (left as it is: delete it if the item is gone)")
            stale.add(cid)
            continue
        taken.add(new_id)
        slots.append((cid, a, b, label, it))
    added = [it for cid, it in by_id.items() if cid not in encoded and cid not in taken and cid not in blocked]
    # uses name what the file will register: a moved encoded item by its encoded id; an item whose number
    # an encoded claim still holds is left out (the id names another statement there).
    exists = set(encoded) | taken | stale | {f"{paper.name}.{it.key}" for it in added}
    alias = {f"{paper.name}.{by_label[lab].key}": cid for cid, lab in encoded.items() if lab in by_label}
    clash = {cid for cid, lab in encoded.items() if lab and cid in by_id and by_id[cid].label != lab}

    def fixed(it: Item) -> Item:
        uses = [alias.get(u, u) for u in it.uses if u not in clash or u in alias]
        return replace(it, uses=list(dict.fromkeys(u for u in uses if u in exists)))

    for cid, a, b, label, it in slots:
        new_id = f"{paper.name}.{it.key}"
        if new_id != cid:
            notes.append(f"{cid} renumbered: now {new_id} (\\label{{{label}}})")
            end = b
            while end < len(lines) and lines[end].startswith("#") and not lines[end].startswith("# --- "):
                end += 1
            if end > b:   # its skeleton's comments name the old id
                edits.append((b + 1, end, "".join(ln.replace(cid, new_id) for ln in lines[b:end])))
        if a >= 2 and lines[a - 2].startswith("# --- "):   # the heading comment generated with it
            edits.append((a - 1, b, render_block(paper, fixed(it)).split("# To encode", 1)[0]))
        else:
            edits.append((a, b, render_call(paper, fixed(it))))
    if "MACROS" in assigns:
        a, b = assigns["MACROS"]
        edits.append((a, b, render_macros(paper.macros)))
    for a, b, new in sorted(edits, reverse=True):
        lines[a - 1:b] = [new]
    new_text = "".join(lines)
    if added:
        new_text = new_text.rstrip("\n") + "\n" + "".join("\n\n" + render_block(paper, fixed(it)) for it in added)
    for cid, *_, it in slots:
        if f"{paper.name}.{it.key}" != cid and re.search(rf"""['"]{re.escape(cid)}['"]""", new_text):
            notes.append(f"{cid} is still named in the file (a uses list?): it is {paper.name}.{it.key} now")
    kept = sorted(set(encoded) & set(by_id))
    if kept:
        notes.append(f"{len(kept)} encoded item(s) left untouched: {', '.join(kept)}")
    if added:
        notes.append(f"{len(added)} new item(s): {', '.join(paper.name + '.' + it.key for it in added)}")
    return new_text, notes


def _lines(text: str) -> list[str]:
    """Lines as Python counts them (str.splitlines would also split at \\x0c, \\x85 or \\u2028 inside a
    statement extracted from a PDF, and the line numbers of :mod:`ast` would no longer match)."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def diff(old: str, new: str, name: str) -> str:
    return "".join(difflib.unified_diff(_lines(old), _lines(new), f"{name} (before)", f"{name} (after)"))
