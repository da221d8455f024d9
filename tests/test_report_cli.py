"""The front doors a researcher meets besides the report: ``verify show``, ``verify list FILE``, global
options anywhere, the progress display, unknown mutation names, and the Python API for notebooks."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from verify import settings as S
from verify.claims import Registry, claim, family, negative, random
from verify.evidence import Evidence
from verify.progress import Progress

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "toy_claims.py"


def verify(*args, cwd=None, timeout=300):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "verify", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env, timeout=timeout)


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("toy")
    r = verify("run", EXAMPLE, "--no-builtin", "--out", out, "--profile", "quick", "--jobs", "1", "--quiet",
               "--no-report")
    assert r.returncode == 1, r.stdout + r.stderr  # toy.false_orthogonality is refuted
    return out


def test_global_options_after_the_subcommand():
    r = verify("list", EXAMPLE, "--no-builtin", "--json")
    assert r.returncode == 0, r.stderr
    assert sorted(x["id"] for x in json.loads(r.stdout)) == ["toy.cauchy_schwarz", "toy.false_orthogonality"]
    r = verify("show", "no.such.claim", EXAMPLE, "--no-builtin", "--debug")
    assert r.returncode == 2 and "Traceback" in r.stderr and "unknown claim 'no.such.claim'" in r.stderr


def test_list_of_a_file_lists_only_its_claims():
    r = verify("list", EXAMPLE)  # the bundled papers are loaded (for uses) but not listed
    assert r.returncode == 0, r.stderr
    ids = [line.split()[0] for line in r.stdout.splitlines()[:-1]]
    assert ids == ["toy.cauchy_schwarz", "toy.false_orthogonality"]
    assert r.stdout.splitlines()[-1].startswith("2 claims, 2 checkable")


def test_show_prints_statement_hypotheses_and_latest_results(toy_run):
    r = verify("show", "toy.false_orthogonality", EXAMPLE, "--no-builtin", "--records", toy_run)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert r"\langle u, v\rangle = 0" in out and "hypothesis: u is nonzero" in out
    assert "latest results, from" in out and "status: refuted: NOT AS EXPECTED" in out
    assert "0.0" in out and "refuted" in out and "rerun: verify --no-builtin run" in out
    assert "control caught (vacuous)" in out  # the zero-vector control breaks the hypothesis
    r = verify("show", "toy.cauchy_schwarz", EXAMPLE, "--no-builtin", "--records", toy_run)
    # verified; whether fully and as expected depends on the example's fidelity and probe declarations (the
    # issue-27 rules: an undeclared fidelity is never fully verified, a claim with no probe cannot fail here)
    assert re.search(r"status: (fully )?verified: (as expected|NOT AS EXPECTED); tightest room", r.stdout), r.stdout
    assert "negative controls 1/1 caught, 1 powered" in r.stdout


def test_show_without_records_says_how_to_get_them(tmp_path):
    r = verify("show", "toy.cauchy_schwarz", EXAMPLE, "--no-builtin", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "no results: reports/latest/records.jsonl does not exist" in r.stdout
    r = verify("show", "toy.cauchy_schwarz", EXAMPLE, "--no-builtin", "--records", tmp_path / "absent.jsonl")
    assert r.returncode == 2 and "no such records file" in r.stderr


def test_show_open_writes_the_card(toy_run, tmp_path):
    env_browser = {"BROWSER": "true"}  # webbrowser runs `true URL`: nothing opens during tests
    r = subprocess.run([sys.executable, "-m", "verify", "show", "toy.cauchy_schwarz", str(EXAMPLE), "--no-builtin",
                        "--records", str(toy_run), "--open"], capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT), **env_browser}, timeout=300)
    assert r.returncode == 0, r.stderr
    card = Path(r.stdout.strip().splitlines()[-1].split("card: ", 1)[1].split(" (", 1)[0])
    html = card.read_text(encoding="utf-8")
    assert "<math>" in html and 'class="tv-report"' in html and "control caught (refuted)" in html


MISSPELT = '''
from verify import Evidence, claim, family, negative, random

@family("ms.vec")
def vec(rng, d=3):
    return {"u": rng.normal(size=d)}

@claim("ms.norm", kind="lemma", statement=r"$\\|u\\| \\ge 0$",
       fixtures=[random(vec), negative(vec, mutation="bound doubled"), negative(vec, mutation="sign flippd")])
def norm(fx):
    n = float((fx["u"] ** 2).sum()) ** 0.5
    bound = 2 * n + 1 if fx.mutated("bound doubled") else 0.0
    if fx.mutated("sign flipped"):
        n = -n
    ev = Evidence()
    ev.ge("norm", n, bound)
    return ev
'''


def test_unknown_mutation_name_is_rejected_with_the_known_ones(tmp_path):
    f = tmp_path / "misspelt_claims.py"
    f.write_text(MISSPELT)
    r = verify("run", f, "--no-builtin", "--out", tmp_path / "o", "--profile", "quick", "--jobs", "1", "--quiet",
               "--no-report")
    assert r.returncode == 1, r.stdout + r.stderr
    recs = [json.loads(x) for x in (tmp_path / "o" / "records.jsonl").read_text().splitlines()]
    res = {x["mutation"]: x for x in recs if x["type"] == "result"}
    assert res["bound doubled"]["verdict"] == S.REFUTED  # a known name: the control is caught
    bad = res["sign flippd"]
    assert bad["verdict"] == S.ERROR
    assert bad["reason"] == "mutation 'sign flippd' is not one the check tests (it tested: 'bound doubled', 'sign flipped')"
    assert "UNEXPECTED ms.norm: error" in r.stdout


def test_progress_is_silent_off_a_terminal_and_counts_on_one():
    quiet = io.StringIO()
    bar = Progress(3, stream=quiet)
    for _ in range(3):
        bar.update({"claim": "a.b", "verdict": "pass", "as_expected": True})
    bar.close()
    assert quiet.getvalue() == "" and bar.done == 3

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    bar = Progress(4, stream=tty)
    bar.update({"claim": "a.b", "verdict": "refuted", "as_expected": False})
    bar.update({"claim": "a.c", "verdict": "pass", "as_expected": True})
    bar.close()
    text = tty.getvalue()
    assert "2/4" in text and "fixtures not as expected: 1" in text and "<" in text  # elapsed<remaining
    assert bar.bad == 1


def test_python_api_results_render_as_cards():
    import verify
    from verify.discovery import load_file

    load_file(EXAMPLE)
    res = verify.check("toy.cauchy_schwarz")
    st = res.status("toy.cauchy_schwarz")
    assert res.ids == ["toy.cauchy_schwarz"] and res.as_expected == (not st["marks"] or bool(st.get("cannot_fail")))
    assert res.status("toy.cauchy_schwarz")["status"] == S.VERIFIED
    html = res._repr_html_()
    assert html.startswith('<div class="tv-report"><style>') and "<math>" in html
    assert '<details open class="claim" id="claim-toy.cauchy_schwarz"' in html and "control caught" in html
    assert "body{" not in html  # the style is scoped to the card
    assert "positive fixtures: 1 pass; controls 1/1 caught (1 powered)" in repr(res)
    both = verify.run("toy")
    assert not both.as_expected and both.status("toy.false_orthogonality")["status"] == S.ST_REFUTED
    assert "<math>" in both["toy.false_orthogonality"]._repr_html_()


def test_a_notebook_cell_run_again_redefines_its_claim():
    reg = Registry()

    @family("nb.f")
    def fam(rng):
        return {"x": rng.normal()}

    def define():
        @claim("nb.c", kind="lemma", statement="s", fixtures=[random(fam), negative(fam, mutation="m")], registry=reg)
        def check(fx):
            return Evidence()
        return check

    define.__module__ = "__main__"
    reg.current_source = "__main__"
    define()
    define()  # a second run of the same cell: replaced, not a duplicate
    assert len(reg) == 1
    reg.current_source = "elsewhere.py"
    with pytest.raises(Exception, match="duplicate claim id"):
        define()
