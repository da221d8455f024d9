"""``verify init``: numbered items read from LaTeX (several theorem styles) and from PDF text, the claim
file it writes (which runs with exit 0), the update mode, and the coverage counts."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.claims import NOT_YET_ENCODED, Registry, claim, not_checkable, random
from verify.coverage import coverage, coverage_line, is_numbered
from verify.init import read_paper
from verify.init.pdftext import read_text
from verify.init.writer import update_text

ROOT = Path(__file__).resolve().parents[1]
needs_latex = pytest.mark.skipif(__import__("importlib.util").util.find_spec("pylatexenc") is None,
                                 reason="pylatexenc (a dependency in pyproject.toml) is not installed")


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def verify(*args, cwd) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "verify", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


def recorded_coverage(run_dir: Path) -> tuple[int, int, int]:
    """(encoded, registered, not yet encoded) of paper draft, from a run's records, as a report reads them."""
    from verify.records import read_records, split
    from verify.verdicts import aggregate

    claims, results, _ = split(read_records(run_dir / "records.jsonl"))
    row = coverage(claims.values(), aggregate(claims.values(), results))["draft"]
    assert row["verified"] == row["encoded"]
    return row["encoded"], row["registered"], row["not_yet_encoded"]


def by_key(paper):
    return {it.key: it for it in paper.items}


# ---------------------------------------------------------------------------------------------
# LaTeX sources written for the tests

AMSTHM = r"""
\documentclass{article}
\usepackage{amsthm,amsmath,cleveref}
\newtheorem{theorem}{Theorem}[section]
\newtheorem{lemma}[theorem]{Lemma}
\newtheorem{corollary}[theorem]{Corollary}
\newtheorem{assumption}{Assumption}
\newtheorem{definition}{Definition}
\newtheorem*{remark}{Remark}
\newcommand{\R}{\mathbb{R}}
\newcommand{\norm}[1]{\lVert #1\rVert}
\DeclareMathOperator{\sgn}{sgn}
\def\eps{\varepsilon}
\begin{document}
\section{Setting}
\begin{assumption}[Separable]\label{asm:sep} There is $w\in\R^d$ with $y_i\langle w,x_i\rangle\ge 1$. \end{assumption}
\begin{definition}\label{def:margin} The margin of $w$ is $\min_i y_i \langle w, x_i\rangle / \norm{w}$. \end{definition}
\section{Results}
\begin{lemma}\label{lem:bound} For all $x$, $\norm{x}\ge 0$ and
\begin{equation}\label{eq:key} \sgn(x)\, x = |x|. \end{equation}
\end{lemma}
\begin{proof} Immediate from \cref{def:margin}. \end{proof}
\begin{theorem}[Main result]\label{thm:main} Under \cref{asm:sep}, for every $\eps>0$ the margin converges. \end{theorem}
\begin{remark} An unnumbered remark, with no label. \end{remark}
\begin{remark}\label{rem:labelled} An unnumbered remark with a label. \end{remark}
\input{later}
\appendix
\section{Proofs}
\begin{lemma}\label{lem:aux} An auxiliary lemma. \end{lemma}
\begin{proof}[Proof of \cref{thm:main}] By \Cref{lem:bound,lem:aux}, \eqref{eq:key} and Assumption~1. \end{proof}
\begin{corollary} A corollary. \end{corollary}
\begin{proof} From \cref{thm:main}. \end{proof}
\end{document}
"""

LATER = r"""
\begin{corollary}\label{cor:next} Follows. \end{corollary}
% \begin{theorem} commented out: not an item \end{theorem}
\begin{definition} A second definition. \end{definition}
"""


@pytest.fixture
def amsthm(tmp_path):
    write(tmp_path / "later.tex", LATER)
    return write(tmp_path / "draft.tex", AMSTHM)


@needs_latex
def test_latex_numbers_as_latex_prints_them(amsthm):
    paper = read_paper(amsthm)
    assert paper.name == "draft"
    # theorem counter within sections, shared by lemma and corollary; assumption and definition on their own;
    # after \appendix the section is lettered; \input's items come in place.
    assert [it.key for it in paper.items] == ["asm1", "def1", "lem2.1", "thm2.2", "rmk.labelled", "cor2.3",
                                              "def2", "lemA.1", "corA.2"]
    items = by_key(paper)
    assert items["thm2.2"].title == "Theorem 2.2 (Main result)"
    assert items["asm1"].title == "Assumption 1 (Separable)"
    assert items["thm2.2"].kind == "theorem" and items["asm1"].kind == "assumption"
    assert items["lemA.1"].section == "A Proofs" and items["lem2.1"].section == "2 Results"
    assert items["rmk.labelled"].number == "" and items["rmk.labelled"].kind == "remark"
    assert any("unnumbered Remark without a \\label" in n for n in paper.notes)


@needs_latex
def test_latex_statement_as_written_and_macros_listed(amsthm):
    paper = read_paper(amsthm)
    lem = by_key(paper)["lem2.1"]
    assert lem.statement.startswith(r"For all $x$, $\norm{x}\ge 0$ and")
    assert r"\sgn(x)" in lem.statement and r"\label" not in lem.statement
    assert paper.macros == {r"\R": r"\mathbb{R}", r"\norm": r"\lVert #1\rVert", r"\sgn": r"\operatorname{sgn}",
                            r"\eps": r"\varepsilon"}


@needs_latex
def test_latex_uses_from_the_proofs_references(amsthm):
    items = by_key(read_paper(amsthm))
    # the proof in the appendix names its theorem; \Cref lists, \eqref to an equation inside lem2.1, prose.
    assert items["thm2.2"].uses == ["draft.lem2.1", "draft.lemA.1", "draft.asm1"]
    assert items["lem2.1"].uses == ["draft.def1"]
    assert items["corA.2"].uses == ["draft.thm2.2"]
    assert items["lemA.1"].uses == [] and items["cor2.3"].uses == []


@needs_latex
def test_latex_thmtools_and_numberwithin(tmp_path):
    src = write(tmp_path / "tools.tex", r"""
    \documentclass{article}
    \usepackage{amsmath,thmtools,cleveref}
    \declaretheorem[name=Theorem]{theorem}
    \declaretheorem[name=Lemma, sibling=theorem]{lemma}
    \declaretheorem[name=Proposition, numberwithin=subsection]{prop}
    \declaretheorem[name=Claim, numbered=no]{claim}
    \newtheorem{obs}{Observation}
    \numberwithin{obs}{section}
    \begin{document}
    \section{One}
    \begin{theorem}\label{t1} A. \end{theorem}
    \begin{lemma} B. \end{lemma}
    \subsection{Sub}
    \begin{prop} C. \end{prop}
    \begin{prop} D. \end{prop}
    \begin{obs} E. \end{obs}
    \begin{theorem*}[Folklore]\label{thm:folk} Unnumbered, starred, labelled. \end{theorem*}
    \begin{claim}\label{cl:x} Unnumbered by declaration. \end{claim}
    \begin{proof} By Lemma 2 and \cref{t1}. \end{proof}
    \section*{Unnumbered section}
    \section{Two}
    \begin{theorem} F. \end{theorem}
    \begin{obs} G. \end{obs}
    \end{document}
    """)
    paper = read_paper(src)
    assert [it.key for it in paper.items] == ["thm1", "lem2", "prop1.1.1", "prop1.1.2", "obs1.1", "thm.folk",
                                              "claim.x", "thm3", "obs2.1"]
    items = by_key(paper)
    assert items["thm.folk"].title == "Theorem (Folklore)" and items["obs1.1"].kind == "claim"
    assert sorted(items["claim.x"].uses) == ["tools.lem2", "tools.thm1"]


@needs_latex
def test_latex_separate_counters_and_cycles(tmp_path):
    src = write(tmp_path / "sep.tex", r"""
    \newtheorem{theorem}{Theorem}
    \newtheorem{lemma}{Lemma}
    \begin{document}
    \begin{lemma}\label{a} A. \end{lemma}
    \begin{proof} By \ref{b}. \end{proof}
    \begin{theorem}\label{t} T. \end{theorem}
    \begin{lemma}\label{b} B. \end{lemma}
    \begin{proof} By \ref{a}. \end{proof}
    \end{document}
    """)
    paper = read_paper(src)
    assert [it.key for it in paper.items] == ["lem1", "thm1", "lem2"]
    # lem1 cites lem2 and lem2 cites lem1: the registry rejects cycles, so the second edge is dropped, noted
    assert by_key(paper)["lem1"].uses == ["sep.lem2"] and by_key(paper)["lem2"].uses == []
    assert any("cites lem1" in n for n in paper.notes)


@needs_latex
def test_latex_errors_are_usage_errors(tmp_path):
    from verify.errors import UsageError

    with pytest.raises(UsageError, match="no such file"):
        read_paper(write(tmp_path / "a.tex", r"\newtheorem{t}{Theorem}\input{missing}"))
    with pytest.raises(UsageError, match="no theorem environment"):
        read_paper(write(tmp_path / "b.tex", r"\section{x} text"))


# ---------------------------------------------------------------------------------------------
# Text extracted from a PDF

PDF_TEXT = """\
1 Introduction
As shown by Theorem 4.2 below, the margin is maximised. We use the result of
Theorem 3.1. This is a reference, not an item.
3 Setting
Theorem 3.1 (Lyu and Li 2020). For homogeneous networks, the margin increases.
Assumption 3.2 (Separable). There exists w with y_i <w, x_i> >= 1.
4 Main results
Theorem 4.2. Under Assumption 3.2, the limit is a max-margin direction.
Lemma 4.3 is used below; it is stated in the appendix.
Proposition 5 The problem is equivalent to a convex program.
A Proofs
Lemma A.1. An auxiliary bound holds:
x <= y. (7)
Proof. By Theorem 3.1 and Lemmas 4.3, A.1.
Proof of Theorem 4.2. From (7) and Assumption 3.2.
Lemma 4.3. A lemma printed after its first citation.
B More proofs
LEMMA B.1. A heading in capitals.
Corollary B.2: A heading with a colon.
"""


def test_pdf_text_headings_and_references(tmp_path):
    paper = read_text(write(tmp_path / "paper.txt", PDF_TEXT), "pap")
    assert [it.key for it in paper.items] == ["thm3.1", "asm3.2", "thm4.2", "prop5", "lemA.1", "lem4.3", "lemB.1",
                                              "corB.2"]
    items = by_key(paper)
    assert items["lemB.1"].title == "Lemma B.1" and items["corB.2"].statement == "A heading with a colon."
    assert items["thm3.1"].title == "Theorem 3.1 (Lyu and Li 2020)"
    assert items["thm4.2"].statement.startswith("Under Assumption 3.2, the limit is a max-margin direction.")
    assert items["thm4.2"].section == "4 Main results"
    assert items["thm4.2"].uses == ["pap.asm3.2", "pap.lemA.1"]   # lemA.1 through its equation (7)
    assert items["lemA.1"].uses == ["pap.thm3.1", "pap.lem4.3"]


def test_pdf_markdown_bold_headings_and_restatements(tmp_path):
    paper = read_text(write(tmp_path / "paper.md", """\
    # 2 Results
    **Definition 1** (Sector). *The sector of signs.*

    **Lemma 1.** *A lemma.*

    By Lemma 1, the rest follows, as suggested by

    **Lemma 2.** A second lemma, after a sentence that runs on.

    The following will be used: Lemma 3. For l, we have a bound.

    # B Appendix
    **Lemma 1.** *A lemma (restated).*
    """), "md")
    assert [it.key for it in paper.items] == ["def1", "lem1", "lem2", "lem3"]
    assert by_key(paper)["def1"].title == "Definition 1 (Sector)"
    assert by_key(paper)["lem1"].statement == "*A lemma.*"
    assert any("restatement" in n for n in paper.notes)


# ---------------------------------------------------------------------------------------------
# The claim file: runs, updates, counts


@needs_latex
def test_init_writes_a_file_that_runs_and_update_keeps_encoded_checks(amsthm, tmp_path):
    out = tmp_path / "claims" / "draft_claims.py"
    out.parent.mkdir()
    r = verify("init", amsthm, "-o", out, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "9 items of draft registered, 0 of 9 encoded" in r.stdout
    text = out.read_text()
    assert text.count("    reason=NOT_YET_ENCODED)") == 9 and "SOURCE = '../draft.tex'" in text
    assert "# @claim(\"draft.thm2.2\"" in text and 'mutation="wrong constant"' in text
    r = verify("init", amsthm, "-o", out, cwd=tmp_path)
    assert r.returncode == 2 and "--update" in r.stderr

    run = verify("--no-builtin", "run", out, "--profile", "quick", "--jobs", "1", "--executor", "inprocess",
                 "--quiet", "--out", tmp_path / "run", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "draft: 9 not checkable" in run.stdout
    assert "coverage: 0 of 9 statements of the paper encoded (9 not yet encoded" in run.stdout
    overview = (tmp_path / "run" / "report.html").read_text().split('id="overview"', 1)[1].split("</section>", 1)[0]
    assert "0 of 9" in overview and "Not yet encoded (9)" in overview
    assert recorded_coverage(tmp_path / "run") == (0, 9, 9)   # encoded, registered, not yet encoded

    # Encode lem2.1: replace its pending call by a check (what a user does with the skeleton).
    start = text.index("not_checkable(\n    'draft.lem2.1'")
    end = text.index("reason=NOT_YET_ENCODED)", start) + len("reason=NOT_YET_ENCODED)")
    encoded = textwrap.dedent('''\
        from verify import Evidence, claim, family, negative, random


        @family("draft.vectors")
        def vectors(rng, d=3):
            return {"x": rng.normal(size=d)}


        @claim("draft.lem2.1", kind="lemma", statement="norm is nonnegative", uses=["draft.def1"],
               fixtures=[random(vectors), negative(vectors, mutation="negated")], fidelity="faithful",
               cannot_fail="a norm is nonnegative on every input: no hypothesis to break")
        def check_lem(fx):
            ev = Evidence()
            n = float((fx["x"] ** 2).sum()) ** 0.5
            ev.ge("||x|| >= 0", -n - 1 if fx.mutated("negated") else n, 0.0)
            return ev''')
    out.write_text(text[:start] + encoded + text[end:])
    run = verify("--no-builtin", "run", out, "--profile", "quick", "--jobs", "1", "--executor", "inprocess",
                 "--quiet", "--out", tmp_path / "run2", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 verified" in run.stdout and "8 not checkable" in run.stdout
    overview = (tmp_path / "run2" / "report.html").read_text().split('id="overview"', 1)[1].split("</section>", 1)[0]
    assert "1 of 9" in overview and "Not yet encoded (8)" in overview
    assert recorded_coverage(tmp_path / "run2") == (1, 9, 8)

    # The draft changes: a statement, a name, a new lemma (which renumbers the theorem), and lem2.1's text.
    src = amsthm.read_text()
    src = src.replace("An auxiliary lemma.", "An auxiliary lemma, sharpened.")
    src = src.replace("For all $x$", "For every $x$")
    src = src.replace(r"\begin{theorem}[Main result]", r"\begin{lemma} New. \end{lemma}" "\n"
                      r"\begin{theorem}[Main result, restated]")
    amsthm.write_text(src)
    before = out.read_text()
    r = verify("init", "--update", out, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    after = out.read_text()
    assert encoded in after                                  # the encoded check is untouched
    assert "For every $x$" not in after                      # ...even though its statement changed
    assert "An auxiliary lemma, sharpened." in after         # a pending statement is refreshed
    assert "Theorem 2.3 (Main result, restated)" in after    # renumbered: its label follows it
    assert "-    statement=r\"\"\"An auxiliary lemma.\"\"\"," in r.stdout    # the diff is printed
    assert "draft.thm2.2 renumbered: now draft.thm2.3 (\\label{thm:main})" in r.stdout
    assert "'draft.thm2.2'" not in after and "@claim(\"draft.thm2.3\"" in after   # its skeleton follows
    assert after.count("'draft.lem2.2'") == 1 and before.count("'draft.lem2.2'") == 0   # the new lemma
    r = verify("init", "--update", out, cwd=tmp_path)
    assert "no change" in r.stdout and out.read_text() == after
    run = verify("--no-builtin", "run", out, "--profile", "quick", "--jobs", "1", "--executor", "inprocess",
                 "--no-report", "--quiet", "--out", tmp_path / "run3", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr


def test_update_text_touches_only_pending_calls(tmp_path):
    paper = read_text(write(tmp_path / "p.txt", "Theorem 1. New text.\nLemma 2. Added.\n"), "p")
    old = textwrap.dedent('''\
        from verify import NOT_YET_ENCODED, not_checkable
        MACROS: dict[str, str] = {}

        # --- Theorem 1 ---
        not_checkable(
            'p.thm1', kind='theorem', title='Theorem 1',
            statement=r"""Old text.""",
            reason=NOT_YET_ENCODED)
        # a comment the user wrote
        not_checkable("p.def1", kind="definition", statement="kept", reason="a real reason")
        ''')
    new, notes = update_text(old, paper, "p.py")
    assert 'statement=r"""New text."""' in new and "Old text" not in new
    assert '# a comment the user wrote\nnot_checkable("p.def1", kind="definition", statement="kept", ' \
           'reason="a real reason")' in new
    assert "'p.lem2', kind='lemma'" in new
    assert not any("p.def1" in n for n in notes)   # not pending: neither rewritten nor reported as gone
    assert any("p.lem2" in n for n in notes)
    compile(new, "p.py", "exec")


def test_pdf_text_file_runs_with_exit_0(tmp_path):
    write(tmp_path / "paper.txt", PDF_TEXT)
    r = verify("init", "paper.txt", "-o", "paper_claims.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = verify("--no-builtin", "list", "paper_claims.py", cwd=tmp_path)
    assert r.returncode == 0 and "8 claims, 0 checkable" in r.stdout
    assert verify("init", "paper.pdf", "-o", "x.py", cwd=tmp_path).returncode == 2
    r = verify("init", "paper.txt", "-o", "missing/x.py", cwd=tmp_path)
    assert r.returncode == 2 and "no such folder" in r.stderr
    r = verify("init", "paper.txt", "-o", "x.txt", cwd=tmp_path)
    assert r.returncode == 2 and "ends in .py" in r.stderr


def test_coverage_counts_pending_apart_from_not_checkable():
    reg = Registry()
    not_checkable("p.thm1", kind="theorem", statement="s", reason=NOT_YET_ENCODED, registry=reg)
    not_checkable("p.def1", kind="definition", statement="s", reason="a definition", registry=reg)
    not_checkable("p.thm1.a", kind="claim", statement="s", reason=NOT_YET_ENCODED, registry=reg)
    from verify.claims import family

    fam = family("p.f")(lambda rng: {})
    claim("p.lem2", kind="lemma", statement="s", fixtures=[random(fam)], registry=reg)(lambda fx: None)
    claim("q.lem1", kind="lemma", statement="s", fixtures=[random(fam)], registry=reg)(lambda fx: None)
    cov = coverage(reg, {"p.lem2": {"status": "verified"}, "q.lem1": {"status": "refuted"}})
    assert cov["p"] == {"registered": 4, "not_yet_encoded": 2, "not_checkable": 1, "encoded": 1, "verified": 1,
                        "pending": ["p.thm1", "p.thm1.a"], "reasons": {"a definition": 1}}
    assert cov["q"]["verified"] == 0
    numbered = coverage([c.describe() for c in reg], numbered_only=True)
    assert numbered["p"]["registered"] == 3 and numbered["p"]["verified"] is None
    assert coverage_line("p", numbered["p"]) == "p: 1 of 3 encoded (1 not yet encoded, 1 not checkable)"
    assert is_numbered("lyu2021.lemB.14") and not is_numbered("lyu2021.lem5.2.amended")
    assert not is_numbered("min2024.claim.zeta") and not is_numbered("min2024.thm1.a")


def test_update_never_renames_an_encoded_claim_but_says_so():
    from verify.init.model import Item, Paper

    old = textwrap.dedent('''\
        from verify import Evidence, claim, family, random
        MACROS: dict[str, str] = {}


        @claim("p.lem1", kind="lemma", statement="encoded", tags=["label: lem:a"], fixtures=[])
        def check(fx):
            return Evidence()
        ''')
    # A lemma is inserted before the encoded one: \\label{lem:a} is now Lemma 2, and Lemma 1 is the new one.
    paper = Paper("p", "p.tex", [Item("lemma", "lem", "1", "Lemma", statement="inserted", label="lem:new"),
                                 Item("lemma", "lem", "2", "Lemma", statement="encoded", label="lem:a"),
                                 Item("theorem", "thm", "3", "Theorem", statement="new theorem")])
    new, notes = update_text(old, paper, "p.py")
    assert new.startswith(old)                                        # the encoded claim is untouched
    assert "'p.lem2'" not in new and "'p.lem1'" not in new            # neither registered twice nor taken
    assert "'p.thm3'" in new
    assert "p.lem1 (encoded) is now Lemma 2 in the paper (\\label{lem:a}): rename the claim to p.lem2 by hand, " \
           "then run --update again" in notes
    assert "p.lem1 (encoded, \\label{lem:a}) names another item in the paper now: Lemma 1 (\\label{lem:new})" in notes


@needs_latex
def test_latex_restatable_and_nested_inputs_from_the_main_folder(tmp_path):
    (tmp_path / "sections").mkdir()
    write(tmp_path / "sections" / "main_result.tex", r"""
    \begin{restatable}[Convergence]{theorem}{mainthm}\label{thm:conv}
    The flow converges.
    \end{restatable}
    \input{sections/lemmas}
    """)
    write(tmp_path / "sections" / "lemmas.tex", r"""
    \begin{lemma}\label{lem:one} One. \end{lemma}
    """)
    src = write(tmp_path / "paper.tex", r"""
    \usepackage{thmtools}
    \newtheorem{theorem}{Theorem}
    \newtheorem{lemma}[theorem]{Lemma}
    \begin{document}
    \section{Results}
    \input{sections/main_result}
    \appendix
    \section{Proofs}
    \mainthm*
    \begin{proof} By \cref{lem:one}. \end{proof}
    \end{document}
    """)
    paper = read_paper(src, "pap")
    assert [it.key for it in paper.items] == ["thm1", "lem2"]
    thm = by_key(paper)["thm1"]
    assert thm.title == "Theorem 1 (Convergence)" and thm.statement == "The flow converges."
    assert thm.uses == ["pap.lem2"]   # the proof after the restatement is the theorem's


@given(st.text(), st.text())
@settings(max_examples=200, deadline=None)
def test_statements_round_trip_through_the_file_and_its_update(old, new):
    """Any text a reader extracts (control characters, \\u2028, quotes, backslashes) is written as a literal
    that reads back as itself, and --update finds and replaces it by line."""
    import ast

    from verify.init.model import Item, Paper
    from verify.init.writer import render_file

    paper = Paper("p", "p.txt", [Item("lemma", "lem", "1", "Lemma", statement=old),
                                 Item("theorem", "thm", "2", "Theorem", statement="fixed")])
    text = render_file(paper, "p.py")
    paper.items[0].statement = new
    updated, _ = update_text(text, paper, "p.py")
    calls = [n.value for n in ast.parse(updated).body if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)]
    got = {c.args[0].value: next(k.value.value for k in c.keywords if k.arg == "statement") for c in calls}
    assert got == {"p.lem1": new, "p.thm2": "fixed"}


@needs_latex
def test_latex_counter_within_a_theorem_chapters_and_wrapped_references(tmp_path):
    src = write(tmp_path / "thesis.tex", r"""
    \documentclass{report}
    \usepackage{amsthm,prettyref}
    \newtheorem{theorem}{Theorem}[section]
    \newtheorem{corollary}{Corollary}[theorem]
    \newtheorem{lemma}[theorem]{Lemma}
    \newcommand{\pref}[1]{\prettyref{#1}}
    \begin{document}
    \chapter{One}
    \section{A}
    \begin{lemma}\label{lem:x} X. \end{lemma}
    \begin{theorem}\label{thm:y} Y. \end{theorem}
    \begin{corollary} Z. \end{corollary}
    \begin{corollary} W. \end{corollary}
    \begin{proof} By \pref{thm:y} and \prettyref{lem:x}. \end{proof}
    \begin{theorem} V. \end{theorem}
    \begin{corollary} U. \end{corollary}
    \chapter{Two}
    \section{B}
    \begin{theorem} T. \end{theorem}
    \end{document}
    """)
    paper = read_paper(src)
    assert [it.key for it in paper.items] == ["lem1.1.1", "thm1.1.2", "cor1.1.2.1", "cor1.1.2.2", "thm1.1.3",
                                              "cor1.1.3.1", "thm2.1.1"]
    assert by_key(paper)["cor1.1.2.2"].uses == ["thesis.thm1.1.2", "thesis.lem1.1.1"]
