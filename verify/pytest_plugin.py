"""pytest plugin: ``pytest theorems/`` collects each (claim, fixture) as a test item.

A thin adapter over :func:`verify.execute.run_task`: the verdict is the runner's, never recomputed.
A verdict outside the fixture's expected set fails (a refutation, an error, a negative control that did
not fail); a vacuous fixture is skipped with the unmet hypotheses; an inconclusive one is skipped
with ``inconclusive:`` and the reason. The evidence is attached with ``record_property``.

Collected files: modules inside a directory named ``theorems``, files named ``*_claims.py`` or
``claims_*.py`` found while collecting a directory, and any ``.py`` file named on the command line that
declares claims (``@claim(`` or ``not_checkable(``). Options: ``--verify-profile`` (default quick),
``--verify-seed`` (default 0).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from . import settings as S


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("verify", "theorem verification")
    group.addoption("--verify-profile", default="quick", choices=S.PROFILES,
                    help="profile for collected claims (default quick)")
    group.addoption("--verify-seed", type=int, default=0, help="run seed for collected claims")


def _is_claim_file(path: Path) -> bool:
    if path.suffix != ".py" or path.name.startswith("test_") or path.name == "conftest.py":
        return False
    return "theorems" in path.parts[:-1] or path.name.endswith("_claims.py") or path.name.startswith("claims_")


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    # Files named on the command line go through pytest_pycollect_makemodule instead.
    if _is_claim_file(file_path) and not parent.session.isinitpath(file_path):
        return ClaimFile.from_parent(parent, path=file_path)
    return None


_DECLARES = re.compile(r"^\s*(@claim\(|(\w+\s*=\s*)?not_checkable\()", re.M)


def _declares_claims(path: Path) -> bool:
    """Whether a file declares claims: a ``@claim(`` decorator or a ``not_checkable(`` call at the start
    of a line (read, not imported)."""
    if path.suffix != ".py" or path.name.startswith("test_") or path.name == "conftest.py":
        return False
    try:
        return bool(_DECLARES.search(path.read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return False


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector):
    """Keep pytest from importing a claim file as a test module (it would register its claims twice);
    a file named on the command line is a claim file whatever its name, when it declares claims."""
    if _is_claim_file(module_path) or (parent.session.isinitpath(module_path) and _declares_claims(module_path)):
        return ClaimFile.from_parent(parent, path=module_path)
    return None


def _module_name(path: Path) -> str | None:
    """Dotted module name when the file sits in the ``theorems`` package, else None (a user file)."""
    parts = list(path.with_suffix("").parts)
    if "theorems" not in parts:
        return None
    i = len(parts) - 1 - parts[::-1].index("theorems")
    mod = parts[i:]
    if mod[-1] == "__init__":
        mod = mod[:-1]
    return ".".join(mod)


class ClaimFile(pytest.File):
    def collect(self):
        from .claims import REGISTRY, expand
        from .discovery import load_file, load_package

        mod = _module_name(self.path)
        if mod is not None:
            load_package("theorems")
            claims = [c for c in REGISTRY if c.source == mod or c.check and c.check.__module__ == mod]
        else:
            claims = [REGISTRY[c] for c in load_file(self.path)]
        profile = self.config.getoption("--verify-profile")
        seed = self.config.getoption("--verify-seed")
        for t in expand(claims, profile, seed):
            c = REGISTRY[t.claim_id]
            use = c.fixtures[t.use_index]
            name = f"{c.id}[{use.kind}:{use.name}:{t.key}]"
            yield ClaimItem.from_parent(self, name=name, task=t, seed=seed)


class ClaimItem(pytest.Item):
    def __init__(self, *, task, seed: int, **kw):
        super().__init__(**kw)
        self.task = task
        self.run_seed = seed
        self.record: dict | None = None

    def runtest(self) -> None:
        from .execute import run_task

        rec = run_task(self.task, self.run_seed, "pytest")
        self.record = rec
        self.user_properties.append(("verdict", rec["verdict"]))
        self.user_properties.append(("expected", ",".join(rec["expected"])))
        self.user_properties.append(("evidence", json.dumps(rec["evidence"], default=str)[:20000]))
        self.user_properties.append(("repro", rec["repro"]))
        if rec["as_expected"]:
            if rec["verdict"] == S.VACUOUS and rec["fixture_kind"] != S.NEGATIVE:
                pytest.skip(f"vacuous: {rec['reason']}")
            if rec["verdict"] == S.INCONCLUSIVE:
                pytest.skip(f"inconclusive (expected): {rec['reason']}")
            return
        if rec["verdict"] == S.VACUOUS:
            pytest.skip(f"vacuous: {rec['reason']}")
        if rec["verdict"] == S.INCONCLUSIVE:
            pytest.skip(f"inconclusive: {rec['reason']}")
        raise ClaimFailure(rec)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ClaimFailure):
            rec = excinfo.value.record
            lines = [f"{rec['claim']} on {rec['fixture_kind']} fixture {rec['label']} [{rec['task_id']}]: "
                     f"{rec['verdict']} (expected {'/'.join(rec['expected'])})"]
            if rec["fixture_kind"] == S.NEGATIVE and rec["verdict"] == S.PASS:
                lines.append("negative control NOT caught: the check cannot tell this fixture apart")
            if rec.get("reason"):
                lines.append(f"reason: {rec['reason']}")
            if rec.get("traceback"):
                lines.append(rec["traceback"])
            lines.append(f"rerun: {rec['repro']}")
            return "\n".join(lines)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, self.name


class ClaimFailure(Exception):
    def __init__(self, record: dict):
        super().__init__(record["claim"])
        self.record = record
