"""The Python front door, for notebooks: run claims and get a results object that shows itself as the
report's claim cards.

    import verify
    res = verify.check("mine.thm1")          # one claim, quick profile, in this process
    res                                      # in Jupyter: the claim's card (statement, fixtures, evidence, plots)
    res.status("mine.thm1")["status"]        # 'verified'
    res = verify.run("wang2022", profile="standard", jobs=2)

Claims declared in the notebook itself (``@claim`` in a cell) are found like any other; a selector
that names no registered claim loads the bundled papers once and tries again. Runs go through the
same runner as ``verify run`` (same verdicts, same records), by default in this process.
"""

from __future__ import annotations

import re
import shlex
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from . import settings as S
from .errors import UsageError

__all__ = ["Results", "check", "load_results", "run"]


def _claims_for(selectors: Sequence[str]) -> list:
    from .claims import REGISTRY
    from .discovery import load_package, split_selectors

    sel, from_files = split_selectors(list(selectors))
    if not sel and from_files:
        return [REGISTRY[c] for c in from_files]
    try:
        return REGISTRY.select(sel)
    except UsageError:
        if "theorems" in _loaded():
            raise
        load_package("theorems")
        REGISTRY.validate()
        return REGISTRY.select(sel)


def _loaded() -> list[str]:
    from .discovery import loaded_sources

    return loaded_sources()


def run(*selectors: str, profile: str = "quick", seed: int = 0, jobs: int = 1, executor: str = "inprocess",
        out: str | Path | None = None, timeout_s: float | None = None, task: str | None = None,
        report: bool = False) -> Results:
    """Run the claims that ``selectors`` name (ids, prefixes, globs, papers, claim files) and return
    their :class:`Results`. Records are kept in ``out`` when given (``report=True`` also writes
    ``out/report.html``), else only in the returned object."""
    from .records import read_records
    from .runner import run as run_claims

    if profile not in S.PROFILES:
        raise UsageError(f"unknown profile {profile!r} (one of {', '.join(S.PROFILES)})")
    claims = _claims_for(selectors)
    with tempfile.TemporaryDirectory(prefix="verify-") as scratch:
        out_dir = Path(out) if out is not None else Path(scratch)
        outcome = run_claims(claims, profile=profile, seed=seed, jobs=jobs, out_dir=out_dir, executor=executor,
                             task_filter=task, timeout_s=timeout_s, selectors=list(selectors), progress=False,
                             report=report and out is not None)
        records = read_records(outcome.records_path)
    return Results([_runnable_repro(r) for r in records], path=outcome.records_path if out is not None else None)


def _main_script() -> str | None:
    """The file run as ``python FILE`` (None in a notebook or an interactive interpreter, whose
    ``__main__`` is no file a shell command could load)."""
    f = getattr(sys.modules.get("__main__"), "__file__", None)
    return f if isinstance(f, str) and f.endswith(".py") and Path(f).is_file() else None


def notebook_repro(claim_id: str, task: str | None, profile: str, seed: int) -> str:
    """How to rerun a claim declared in a notebook: a call that runs in the notebook as printed, and, for a
    shell, the cell saved to a file (a command naming ``module:__main__`` would load no claim)."""
    args = [repr(claim_id)] + ([f"task={task!r}"] if task else []) + [f"profile={profile!r}", f"seed={seed}"]
    shell = shlex.join(["verify", "--no-builtin", "run", "claims.py", claim_id, *(["--task", task] if task else []),
                        "--profile", profile, "--seed", str(seed)])
    return (f"verify.check({', '.join(args)})    # in this notebook; from a shell, save the claim's cell (with its "
            f"imports) as claims.py, then: {shell}")


def _runnable_repro(rec: dict) -> dict:
    """A result of a claim declared in ``__main__`` with a reproduce line that runs as printed: the script's
    path for ``python FILE``, a ``verify.check`` call for a notebook."""
    repro = rec.get("repro")
    if rec.get("type") != "result" or not isinstance(repro, str) or "module:__main__" not in repro:
        return rec
    script = _main_script()
    if script:
        fixed = repro.replace("module:__main__", shlex.quote(script), 1)
    else:
        fixed = notebook_repro(str(rec.get("claim")), rec.get("task_id"), str(rec.get("profile") or "quick"),
                               _run_seed(repro))
    return {**rec, "repro": fixed}


def _run_seed(repro: str) -> int:
    m = re.search(r"--seed (\d+)", repro)
    return int(m.group(1)) if m else 0


def check(claim_id: str, *, profile: str = "quick", seed: int = 0, task: str | None = None,
          timeout_s: float | None = None) -> Results:
    """Run one claim (exactly that id, not its sub-claims) on its fixtures in this process."""
    if not isinstance(claim_id, str) or not claim_id:
        raise UsageError(f"check: a claim id is a non-empty string, got {claim_id!r}")
    claims = _claims_for([claim_id])
    if not any(c.id == claim_id for c in claims):
        raise UsageError(f"unknown claim {claim_id!r}")
    res = run(_exact(claim_id), profile=profile, seed=seed, task=task, timeout_s=timeout_s)
    off = [r for r in res.results(claim_id) if not r.get("as_expected", True) and r.get("repro")]
    if off:  # the command to rerun what went wrong, as it runs where this call ran
        print(f"{claim_id}: {len(off)} fixture(s) not as expected; rerun the first with:\n  {off[0]['repro']}")
    return res


def _exact(claim_id: str) -> str:
    """A glob that matches exactly this id (a plain id would also select its sub-claims)."""
    return re.sub(r"([*?\[])", r"[\1]", claim_id)


def load_results(path: str | Path = "reports/latest") -> Results:
    """The results recorded in a records file or run directory (``reports/latest`` by default)."""
    from .records import read_records

    return Results(read_records(path), path=Path(path))


@dataclass
class Results:
    """The records of one or more runs, with their claim statuses; shows itself as claim cards."""

    records: list[dict]
    path: Path | None = None
    _model: object = field(default=None, repr=False)

    @property
    def model(self):
        if self._model is None:
            from .report.model import build_model

            self._model = build_model(self.records)
        return self._model

    @property
    def statuses(self) -> dict[str, dict]:
        """Claim id -> aggregated status (as in ``summary.json``)."""
        return {cid: v.status for cid, v in self.model.claims.items()}

    @property
    def ids(self) -> list[str]:
        return list(self.model.claims)

    def status(self, claim_id: str) -> dict:
        try:
            return self.model.claims[claim_id].status
        except KeyError:
            raise UsageError(f"no result for claim {claim_id!r} in these records") from None

    def results(self, claim_id: str) -> list[dict]:
        """The fixture result records of one claim."""
        return list(self.model.claims[claim_id].results) if claim_id in self.model.claims else []

    @property
    def as_expected(self) -> bool:
        return all(st.get("as_expected", True) for st in self.statuses.values())

    def __getitem__(self, claim_id: str) -> Results:
        """The results of one claim (for its card alone)."""
        keep = [r for r in self.records if r.get("type") in ("run", "end")
                or r.get("id") == claim_id or r.get("claim") == claim_id]
        if not any(r.get("claim") == claim_id or r.get("id") == claim_id for r in keep):
            raise KeyError(claim_id)
        return Results(keep, path=self.path)

    def summary(self) -> str:
        """One line per claim: id, status, marks, tightest room, fixtures."""
        from .report.fmt import room_text
        from .verdicts import display_status

        lines = []
        for cid, v in self.model.claims.items():
            st = v.status
            marks = [m for m, on in (("loose", st.get("loose")), ("NOT AS EXPECTED", not st.get("as_expected", True)))
                     if on]
            lines.append(f"{cid}: {display_status(st)}" + (f" [{', '.join(marks)}]" if marks else "")
                         + f"; tightest room {room_text(st.get('tightest_room'))}; {fixture_counts(v)}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        where = f" from {self.path}" if self.path else ""
        return f"<Results of {len(self.model.claims)} claim(s){where}>\n{self.summary()}"

    def card_html(self, claim_id: str | None = None, *, open_: bool = True) -> str:
        """The report's card of each claim (or of one), as plain HTML with the report's scoped style."""
        from .report.html import claim_section_html
        from .report.plots import PlotBudget
        from .report.theme import scoped_css

        budget = PlotBudget()
        views = [self.model.claims[claim_id]] if claim_id else list(self.model.claims.values())
        cards = []
        for v in views:
            card = claim_section_html(v, self.model, budget)
            if open_:
                card = card.replace('<details class="claim"', '<details open class="claim"', 1)
            cards.append(card)
        return f'<div class="tv-report"><style>{scoped_css(".tv-report")}</style>{"".join(cards)}</div>'

    def _repr_html_(self) -> str:
        return self.card_html(open_=len(self.model.claims) <= 3)

    def report(self, path: str | Path, *, title: str | None = None) -> Path:
        """Write the full HTML report of these results."""
        from .report import render_report

        return render_report(self.records, path, title=title)


def fixture_counts(view) -> str:
    """``2 pass, 1 vacuous; controls 1/1 caught (1 powered)``: positive fixtures apart from controls."""
    counts: dict[str, int] = {}
    for r in view.positive:
        counts[str(r.get("verdict"))] = counts.get(str(r.get("verdict")), 0) + 1
    pos = ", ".join(f"{n} {k}" for k, n in sorted(counts.items(), key=lambda kv: S.VERDICT_RANK.get(kv[0], 9)))
    nc = view.status.get("negative_controls") or {}
    ctl = (f"controls {nc.get('caught', 0)}/{nc['total']} caught ({nc.get('powered', 0)} powered)"
           if nc.get("total") else "no negative control")
    return f"positive fixtures: {pos or 'none'}; {ctl}"


def claim_page_html(results: Results, claim_id: str) -> str:
    """A standalone page with one claim's card (for ``verify show --open``)."""
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(claim_id)}</title>"
            f"</head><body style=\"max-width:1280px;margin:0 auto;padding:12px\">{results.card_html(claim_id)}"
            "</body></html>\n")
