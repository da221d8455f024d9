"""Numbered items from a LaTeX source, parsed with pylatexenc's LatexWalker.

Honoured: ``\\input``/``\\include`` (expanded first, relative to the including file), amsthm's
``\\newtheorem{env}[shared]{Name}[within]`` and ``\\newtheorem*``, amsmath's ``\\numberwithin``, thmtools'
``\\declaretheorem[name=, sibling=/sharenumber=/numberlike=, numberwithin=/parent=/within=, numbered=no]``,
``\\section``/``\\subsection``/``\\chapter`` (starred ones do not count), ``\\appendix`` and the appendices
environment (sections lettered from there: A.1), ``\\label`` and the reference macros of LaTeX, amsmath,
hyperref and cleveref (``\\ref``, ``\\eqref``, ``\\autoref``, ``\\cref``/``\\Cref`` with lists of labels).

Numbers are those LaTeX prints: a shared counter counts across the environments that share it; a counter
within a section restarts there and prints as section.number. An unnumbered item (``\\newtheorem*``, or a
starred environment such as ``theorem*``) is registered only when it carries a ``\\label``, under an id made
from the label (``thm.main`` for ``\\label{thm:main}``); without one it has no name a reader could cite, so
it is listed in the notes and left out. ``uses`` are the items a proof cites: labels inside an item (its own
and its equations') resolve to it, and "by Lemma 3.1" in prose resolves by number. A proof belongs to the
item its optional argument names ("Proof of Theorem~\\ref{thm:main}"), else to the item just before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from .model import Item, Paper, dedupe, kind_of, resolve_uses, text_refs

_REF_MACROS = ("ref", "eqref", "autoref", "cref", "Cref", "cpageref", "Cpageref", "nameref", "labelcref", "crefrange",
               "Crefrange", "vref", "Vref", "prettyref")
# A macro of the preamble that wraps one of them (\newcommand{\pref}[1]{\prettyref{#1}}) is a reference too.
_WRAPS_REF = re.compile(r"\\(?:" + "|".join(_REF_MACROS) + r")\*?\s*\{#1\}")


def _ref_pattern(macros: dict[str, str]) -> re.Pattern:
    names = list(_REF_MACROS) + [k[1:] for k, body in macros.items() if _WRAPS_REF.search(body)]
    return re.compile(r"\\(?:" + "|".join(map(re.escape, sorted(names, key=len, reverse=True))) +
                      r")\*?\s*\{([^}]*)\}")


_LABEL = re.compile(r"\\label\s*\{([^}]*)\}")
_INPUT = re.compile(r"\\(?:input|include)\s*(?:\{([^}]*)\}|([^\s{}\\]+))")
_DEF = re.compile(r"\\(?:g|e|x)?def\s*(\\[A-Za-z]+)\s*((?:#\d)*)\s*\{")
_SECTIONS = ("chapter", "section", "subsection", "subsubsection")


def _strip_comments(text: str) -> str:
    return "\n".join(re.sub(r"(?<!\\)%.*$", "", line) for line in text.splitlines())


def expand_inputs(path: Path, depth: int = 0, root: Path | None = None) -> str:
    """The source with every ``\\input``/``\\include`` replaced by the file it names, comments removed.
    A name is looked up as LaTeX does, from the main file's folder, then from the including file's."""
    root = root or path.parent
    if depth > 20:
        raise UsageError(f"{path}: \\input nested more than 20 deep (a file that inputs itself?)")
    text = _strip_comments(path.read_text(encoding="utf-8", errors="replace"))

    def sub(m: re.Match) -> str:
        name = (m.group(1) or m.group(2)).strip()
        for folder in dict.fromkeys((root, path.parent)):
            for cand in (folder / name, folder / (name + ".tex")):
                if cand.is_file():
                    return expand_inputs(cand, depth + 1, root)
        raise UsageError(f"{path}: \\input{{{name}}}: no such file (looked in {root})")

    return _INPUT.sub(sub, text)


@dataclass
class _Env:
    printed: str
    counter: str | None       # None: unnumbered


def _arg(node, i: int) -> str:
    """The text of a macro's i-th argument without its braces or brackets ('' when absent)."""
    args = node.nodeargd.argnlist if node.nodeargd else []
    a = args[i] if i < len(args) else None
    if a is None:
        return ""
    s = a.latex_verbatim().strip()
    return s[1:-1].strip() if s[:1] in "{[" else s


def _context(envs: dict[str, _Env]):
    from pylatexenc.latexwalker import get_default_latex_context_db
    from pylatexenc.macrospec import EnvironmentSpec, MacroSpec

    db = get_default_latex_context_db()
    macros = [MacroSpec("newtheorem", "*{[{["), MacroSpec("declaretheorem", "[{"), MacroSpec("numberwithin", "[{{"),
              MacroSpec("newcommand", "*{[[{"), MacroSpec("renewcommand", "*{[[{"),
              MacroSpec("providecommand", "*{[[{"), MacroSpec("DeclareMathOperator", "*{{"),
              MacroSpec("label", "{"), MacroSpec("appendix", "")]
    macros += [MacroSpec(s, "*[{") for s in _SECTIONS]
    environments = [EnvironmentSpec(e + star, "[") for e in envs for star in ("", "*")]
    environments.append(EnvironmentSpec("proof", "["))
    environments += [EnvironmentSpec("restatable", "[{{"), EnvironmentSpec("restatable*", "[{{")]
    db.add_context_category("verify-init", prepend=True, macros=macros, environments=environments)
    return db


def _parse(text: str, envs: dict[str, _Env]):
    from pylatexenc.latexwalker import LatexWalker

    w = LatexWalker(text, latex_context=_context(envs), tolerant_parsing=True)
    return w, w.get_latex_nodes()[0]


def _children(node) -> list:
    return list(getattr(node, "nodelist", None) or [])


def _walk(nodes):
    """Every node in document order, depth first."""
    for n in nodes:
        yield n
        yield from _walk(_children(n))


def _kv(opts: str) -> dict[str, str]:
    out = {}
    for part in opts.split(","):
        k, _, v = part.partition("=")
        if k.strip():
            out[k.strip()] = v.strip().strip("{}")
    return out


def _declarations(nodes) -> tuple[dict[str, _Env], dict[str, str | None], dict[str, str]]:
    """Theorem environments, their counters' parent sectioning unit, and the macros defined."""
    from pylatexenc.latexwalker import LatexMacroNode

    envs: dict[str, _Env] = {}
    within: dict[str, str | None] = {}
    macros: dict[str, str] = {}
    for n in _walk(nodes):
        if not isinstance(n, LatexMacroNode):
            continue
        m = n.macroname
        if m == "newtheorem":
            env, shared, printed, parent = _arg(n, 1), _arg(n, 2), _arg(n, 3), _arg(n, 4)
            if _arg(n, 0) == "*":
                envs[env] = _Env(printed, None)
                continue
            counter = shared or env
            envs[env] = _Env(printed, counter)
            if not shared:
                within[env] = parent or None
        elif m == "declaretheorem":
            o, env = _kv(_arg(n, 0)), _arg(n, 1)
            printed = o.get("name") or o.get("title") or env.capitalize()
            if o.get("numbered", "yes") == "no":
                envs[env] = _Env(printed, None)
                continue
            shared = o.get("sibling") or o.get("sharenumber") or o.get("numberlike") or o.get("sharecounter")
            envs[env] = _Env(printed, shared or env)
            if not shared:
                within[env] = o.get("numberwithin") or o.get("parent") or o.get("within") or None
        elif m == "numberwithin":
            within[_arg(n, 1)] = _arg(n, 2)
        elif m in ("newcommand", "renewcommand", "providecommand", "DeclareMathOperator"):
            name = _arg(n, 1)
            body = _arg(n, 4) if m != "DeclareMathOperator" else r"\operatorname{" + _arg(n, 2) + "}"
            if name.startswith("\\"):
                macros[name] = body
    return envs, within, macros


def _defs(text: str) -> dict[str, str]:
    """``\\def\\name{body}`` (not a macro pylatexenc parses with arguments): found by hand, braces balanced."""
    out = {}
    for m in _DEF.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0) if text[i - 1] != "\\" else 0
            i += 1
        out[m.group(1)] = text[m.end():i - 1]
    return out


def read_latex(path: str | Path, paper: str) -> Paper:
    from pylatexenc.latexwalker import LatexEnvironmentNode, LatexMacroNode

    p = Path(path)
    text = expand_inputs(p)
    _, nodes = _parse(text, {})
    envs, within, macros = _declarations(nodes)
    macros.update(_defs(text))
    if not envs:
        raise UsageError(f"{path}: no theorem environment declared (\\newtheorem or \\declaretheorem)")
    walker, nodes = _parse(text, envs)
    notes: list[str] = []
    items: list[Item] = []
    sec = dict.fromkeys(_SECTIONS, 0)
    counters: dict[str, int] = {}
    appendix = False
    section_title = ""
    label_key: dict[str, Item] = {}
    proofs: list[tuple[str, Item | None, str]] = []   # (optional argument, item before it, body)
    last: Item | None = None
    restated: dict[str, Item] = {}   # thmtools restatable: macro name -> its item
    shown: dict[str, str] = {}       # counter -> the number it printed last (for counters within it)
    ref = _ref_pattern(macros)

    def sec_number(unit: str) -> str:
        parts = []
        for s in _SECTIONS[:_SECTIONS.index(unit) + 1]:
            if s == "chapter" and not sec["chapter"]:
                continue
            v = sec[s]
            top = s == ("chapter" if sec["chapter"] else "section")
            parts.append(chr(64 + v) if appendix and top and 0 < v <= 26 else str(v))
        return ".".join(parts)

    def line_of(pos: int) -> int:   # in the source with its \input files expanded
        return walker.pos_to_lineno_colno(pos)[0] if pos is not None else 0

    def opening(n) -> str:
        """Where an environment is, for a note: its first words (line numbers would count the expanded text)."""
        words = " ".join(n.latex_verbatim().split())
        return words[:60] + ("..." if len(words) > 60 else "")

    def visit(nodelist) -> None:
        nonlocal appendix, section_title, last
        for n in nodelist:
            if isinstance(n, LatexMacroNode):
                if n.macroname in _SECTIONS and _arg(n, 0) != "*":
                    unit = n.macroname
                    sec[unit] += 1
                    for lower in _SECTIONS[_SECTIONS.index(unit) + 1:]:
                        sec[lower] = 0
                    for c, parent in within.items():
                        if parent in _SECTIONS[_SECTIONS.index(unit):]:
                            counters[c] = 0
                    section_title = f"{sec_number(unit)} {_arg(n, 2)}".strip()
                elif n.macroname == "appendix":
                    appendix = True
                    sec["chapter" if sec["chapter"] else "section"] = 0
                elif n.macroname in restated:   # \mainthm*: a restatement; the proof that follows is its
                    last = restated[n.macroname]
                continue
            if not isinstance(n, LatexEnvironmentNode):
                visit(_children(n))
                continue
            name = n.environmentname
            env = envs.get(name)
            if env is None and name.endswith("*") and name[:-1] in envs:
                env = _Env(envs[name[:-1]].printed, None)   # thmtools' (and many classes') starred variant
            if name in ("restatable", "restatable*") and _arg(n, 1) in envs:
                # thmtools: \begin{restatable}[Name]{theorem}{macro} is the theorem; \macro* restates it later
                # (same number, no new item)
                inner = envs[_arg(n, 1)]
                env = _Env(inner.printed, None if name.endswith("*") else inner.counter)
            if env is not None:
                it = _item(n, env)
                if it is not None:
                    last = it
                    if name.startswith("restatable"):
                        restated[_arg(n, 2)] = it
                visit(_children(n))
            elif name == "proof":
                kids = _children(n)
                body = text[kids[0].pos:kids[-1].pos + kids[-1].len] if kids else ""
                proofs.append((_arg(n, 0), last, body))
                visit(_children(n))
            else:
                if name == "appendices":
                    appendix = True
                    sec["chapter" if sec["chapter"] else "section"] = 0
                visit(_children(n))

    def _item(n, env: _Env) -> Item | None:
        kp = kind_of(env.printed)
        if kp is None:
            notes.append(f"{opening(n)!r}: environment {n.environmentname} ({env.printed}) is not a "
                         f"kind of statement verify knows; left out")
            return None
        kids = _children(n)
        body = text[kids[0].pos:kids[-1].pos + kids[-1].len] if kids else ""
        labels = _LABEL.findall(body)
        number = ""
        if env.counter is not None:
            c = env.counter
            counters[c] = counters.get(c, 0) + 1
            for d, parent in within.items():   # \newtheorem{cor}{Corollary}[theorem]: restarts with theorem
                if parent == c:
                    counters[d] = 0
            parent = within.get(c)
            number = (f"{sec_number(parent)}.{counters[c]}" if parent in _SECTIONS
                      else f"{shown[parent]}.{counters[c]}" if parent in shown else str(counters[c]))
            shown[c] = number
        elif not labels:
            notes.append(f"{opening(n)!r}: unnumbered {env.printed} without a \\label; not registered "
                         f"(give it a \\label to register it)")
            return None
        statement = _LABEL.sub("", body).strip()
        it = Item(kp[0], kp[1], number, env.printed, _arg(n, 0), statement, section_title,
                  label=labels[0] if labels else "", line=line_of(n.pos))
        items.append(it)
        for lab in labels:
            label_key[lab] = it
        return it

    visit(nodes)
    by_key = {it.key: it for it in items}
    for opt, before, body in proofs:
        target = before
        named = [label_key[lab] for lab in _ref_labels(ref, opt) if lab in label_key]
        named += [by_key[k] for k in text_refs(ref.sub("", opt)) if k in by_key]
        if named:
            target = named[0]
        if target is None:
            continue
        target.refs.extend(label_key[lab].key for lab in _ref_labels(ref, body) if lab in label_key)
        target.refs.extend(text_refs(ref.sub("", body)))
    items = dedupe(items, notes)
    used = {k: v for k, v in macros.items()
            if any(re.search(re.escape(k) + r"(?![A-Za-z])", it.statement) for it in items)}
    out = Paper(paper, str(p), items, used, notes)
    resolve_uses(out)
    return out


def _ref_labels(ref: re.Pattern, text: str) -> list[str]:
    return [lab.strip() for m in ref.finditer(text) for lab in m.group(1).split(",") if lab.strip()]
