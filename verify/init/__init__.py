"""``verify init``: a claim file that registers every numbered statement of a paper, not yet encoded.

``verify init PAPER -o FILE.py`` reads a LaTeX source (``.tex``: theorem environments, their counters,
labels and references, with :mod:`verify.init.latex`) or text extracted from a PDF (``.txt``, ``.md``:
heading patterns, with :mod:`verify.init.pdftext`) and writes the file; ``verify init --update FILE.py``
reads the paper again and refreshes the items still not yet encoded (:mod:`verify.init.writer`).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..errors import UsageError
from .model import Item, Paper

__all__ = ["Item", "Paper", "add_parser", "command", "read_paper"]


def paper_name(path: str | Path) -> str:
    """The id prefix a paper gets by default: its file name up to the first character other than a
    letter, digit or underscore (lyu2021-full.txt -> lyu2021), lower-cased."""
    m = re.match(r"[A-Za-z0-9_]+", Path(path).name)
    if not m:
        raise UsageError(f"{path}: cannot name the paper from its file name (give --name)")
    return m.group(0).lower()


def read_paper(path: str | Path, name: str | None = None) -> Paper:
    """Read a paper's numbered items: LaTeX for ``.tex``, extracted text for ``.txt``/``.md``."""
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"{path}: no such paper file")
    name = name or paper_name(p)
    if not re.fullmatch(r"[A-Za-z0-9_]+", name):
        raise UsageError(f"--name {name!r}: a paper name is letters, digits and underscores")
    suffix = p.suffix.lower()
    if suffix == ".tex":
        try:
            import pylatexenc  # noqa: F401  (a dependency; say what to install rather than fail on import)
        except ImportError as exc:
            raise UsageError("reading LaTeX needs pylatexenc (a dependency of this project): "
                             "python -m pip install pylatexenc") from exc
        from .latex import read_latex

        return read_latex(p, name)
    if suffix in (".txt", ".md"):
        from .pdftext import read_text

        return read_text(p, name)
    raise UsageError(f"{path}: unknown paper format {suffix or '(none)'!r} (.tex, or text from a PDF: .txt, .md)")


def add_parser(sub, common: argparse.ArgumentParser) -> None:
    i = sub.add_parser("init", parents=[common], help="write a claim file registering every numbered statement "
                                                       "of a paper (.tex, or text from a PDF), not yet encoded")
    i.add_argument("paper", nargs="?", help="the paper: LaTeX source (.tex) or text extracted from a PDF "
                                            "(.txt, .md); with --update, default the file's SOURCE")
    i.add_argument("-o", "--output", help="the claim file to write (.py)")
    i.add_argument("--update", metavar="FILE", help="refresh FILE: titles and statements of the items not yet "
                                                     "encoded, new items added, encoded checks untouched; "
                                                     "prints the diff")
    i.add_argument("--name", help="the paper's id prefix (default: the file name up to its first - or .)")
    i.add_argument("--force", action="store_true", help="overwrite an existing --output file")


def command(args: argparse.Namespace) -> int:
    from . import writer

    if args.update:
        if args.output:
            raise UsageError("--update FILE rewrites FILE in place: no -o")
        target = Path(args.update)
        if not target.is_file():
            raise UsageError(f"{target}: no such claim file")
        old = target.read_text(encoding="utf-8")
        source = Path(args.paper) if args.paper else writer.source_of(old, target)
        name = args.name or _declared_name(old) or None
        paper = read_paper(source, name)
        new, notes = writer.update_text(old, paper, str(target))
        d = writer.diff(old, new, str(target))
        sys.stdout.write(d or f"{target}: no change\n")
        if new != old:
            target.write_text(new, encoding="utf-8")
        for n in paper.notes + notes:
            print(f"note: {n}")
        return 0
    if not args.paper or not args.output:
        raise UsageError("verify init PAPER -o FILE.py (or verify init --update FILE.py)")
    out = Path(args.output)
    if out.suffix != ".py":
        raise UsageError(f"-o {out}: a claim file ends in .py")
    if not out.parent.is_dir():
        raise UsageError(f"-o {out}: no such folder {out.parent}")
    if out.exists() and not args.force:
        raise UsageError(f"{out} exists: refresh it with verify init --update {out} (or overwrite with --force)")
    paper = read_paper(args.paper, args.name)
    if not paper.items:
        raise UsageError(f"{args.paper}: no numbered statement found")
    out.write_text(writer.render_file(paper, out), encoding="utf-8")
    kinds: dict[str, int] = {}
    for it in paper.items:
        kinds[it.kind] = kinds.get(it.kind, 0) + 1
    for n in paper.notes:
        print(f"note: {n}")
    print(f"{out}: {len(paper.items)} items of {paper.name} registered, 0 of {len(paper.items)} encoded ("
          + ", ".join(f"{v} {k}" for k, v in sorted(kinds.items())) + ")")
    return 0


def _declared_name(text: str) -> str | None:
    m = re.search(r"^PAPER = ['\"]([A-Za-z0-9_]+)['\"]", text, re.M)
    return m.group(1) if m else None
