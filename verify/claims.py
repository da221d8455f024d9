"""Declaring claims, hypotheses and fixture families.

A claim file reads like the paper::

    from verify import claim, hypothesis, family, random, negative, Evidence

    @family("toy.pairs")
    def pairs(rng, n=4):
        return {"x": rng.normal(size=n)}

    nonneg = hypothesis("x >= 0 entrywise", lambda fx: (bool((fx["x"] >= 0).all()), float(fx["x"].min())))

    @claim("toy.lem1", kind="lemma", statement=r"$\\sum_i x_i^2 \\ge 0$",
           fixtures=[random(pairs, n=5), negative(pairs, mutation="wrong sign")])
    def lem1(fx):
        ev = Evidence()
        s = float((fx["x"] ** 2).sum())
        ev.ge("sum of squares", -s if fx.mutation else s, 0.0)
        return ev
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import settings as S
from .errors import UsageError

# ---------------------------------------------------------------------------------------------
# Hypotheses


@dataclass(frozen=True)
class HypothesisResult:
    """Outcome of one hypothesis predicate on one fixture. ``slack`` > 0 means met with room."""

    name: str
    holds: bool
    slack: float | None = None
    detail: str = ""

    def to_dict(self) -> dict:
        from .evidence import jsonable

        return jsonable({"name": self.name, "holds": self.holds, "slack": self.slack, "detail": self.detail})


@dataclass(frozen=True)
class Hypothesis:
    """A named predicate on a fixture: ``predicate(fx)`` returns bool, (bool, slack) or
    (bool, slack, detail), or a :class:`HypothesisResult`."""

    name: str
    predicate: Callable[[Fixture], Any]
    description: str = ""

    def evaluate(self, fx: Fixture) -> HypothesisResult:
        out = self.predicate(fx)
        if isinstance(out, HypothesisResult):
            return out
        if isinstance(out, tuple):
            holds = bool(out[0])
            slack = None if len(out) < 2 or out[1] is None else float(out[1])
            detail = str(out[2]) if len(out) > 2 else ""
            return HypothesisResult(self.name, holds, slack, detail)
        return HypothesisResult(self.name, bool(out))


def hypothesis(name: str, predicate: Callable[[Fixture], Any], *, description: str = "") -> Hypothesis:
    """Declare a named hypothesis predicate (see :class:`Hypothesis`)."""
    if not callable(predicate):
        raise UsageError(f"hypothesis {name!r}: predicate is not callable")
    return Hypothesis(name, predicate, description)


# ---------------------------------------------------------------------------------------------
# Fixtures


@dataclass(frozen=True)
class FixtureFamily:
    """A named generator: ``build(rng, **params) -> dict`` from a seed and parameters alone."""

    name: str
    build: Callable[..., dict]
    description: str = ""
    defaults: dict = field(default_factory=dict)
    space: dict = field(default_factory=dict)


def family(name: str, *, description: str = "", space: dict | None = None) -> Callable[[Callable[..., dict]], FixtureFamily]:
    """Decorator declaring a fixture family: ``@family("sym.gauss") def f(rng, d=3): ...``.

    ``space`` optionally declares the range of each parameter a counterexample hunt may vary
    (``{"d": integer(2, 8), "margin": real(1e-4, 1, log=True)}``, see :mod:`verify.space`)."""

    def wrap(fn: Callable[..., dict]) -> FixtureFamily:
        import inspect

        from .space import validate_space

        defaults = {k: p.default for k, p in inspect.signature(fn).parameters.items()
                    if p.default is not inspect.Parameter.empty}
        sp = validate_space(name, space or {}, defaults)
        return FixtureFamily(name, fn, description or (fn.__doc__ or "").strip().split("\n")[0], defaults, sp)

    return wrap


@dataclass(frozen=True)
class FixtureUse:
    """One family used by one claim: its kind, parameters, mutation and seeds per profile.

    ``expect`` is the set of verdicts that count as correct on this fixture. A negative control by
    default expects the conclusion to fail (``refuted``) or the hypotheses to be unmet (``vacuous``).
    ``seed`` pins the fixture to one seed whatever the run's seed (a counterexample kept from a hunt).
    """

    family: FixtureFamily
    kind: str
    params: dict
    mutation: str | None = None
    seeds: dict | None = None
    expect: frozenset = frozenset()
    profiles: tuple = S.PROFILES
    label: str = ""
    seed: int | None = None

    @property
    def name(self) -> str:
        return self.label or self.family.name

    @property
    def powered(self) -> bool:
        """A negative control that mutates the conclusion, which the check itself must refute (one that
        only breaks a hypothesis shows that the hypothesis predicate works, not that the check can fail)."""
        return self.kind == S.NEGATIVE and self.mutation is not None

    def n_seeds(self, profile: str) -> int:
        if profile not in self.profiles:
            return 0
        if self.seed is not None:
            return 1
        if self.seeds is not None:
            return int(self.seeds.get(profile, 0))
        return S.DEFAULT_SEEDS[profile][self.kind]

    def describe(self) -> dict:
        out = {"family": self.family.name, "label": self.name, "kind": self.kind,
               "params": _jsonable_params(self.params), "mutation": self.mutation,
               "expect": sorted(self.expect), "profiles": list(self.profiles)}
        if self.seed is not None:
            out["seed"] = self.seed
        return out


def _jsonable_params(params: dict) -> dict:
    from .evidence import jsonable

    return jsonable(params)


def _use(kind: str, fam: FixtureFamily, mutation: str | None, seeds: Any, expect: Iterable[str] | None,
         profiles: Sequence[str] | None, label: str, params: dict, seed: int | None = None) -> FixtureUse:
    if not isinstance(fam, FixtureFamily):
        raise UsageError(f"{kind} fixture: {fam!r} is not a fixture family (declare it with @family)")
    unknown = set(params) - set(fam.defaults)
    if unknown:
        raise UsageError(f"fixture family {fam.name!r}: unknown parameter(s) {sorted(unknown)}")
    if seed is not None and (seeds is not None or isinstance(seed, bool) or not isinstance(seed, int)
                             or not 0 <= seed < 2**63):
        raise UsageError(f"fixture {fam.name!r}: seed pins one seed, an integer in [0, 2**63), without seeds=")
    if isinstance(seeds, int):
        seeds = {p: seeds for p in S.PROFILES}
    if kind == S.NEGATIVE and mutation is not None and (not isinstance(mutation, str) or not mutation.strip()):
        raise UsageError(f"negative fixture {fam.name!r}: a mutation is a non-empty name, got {mutation!r}")
    if expect is None:
        from .verdicts import expected_verdicts

        expect = expected_verdicts(kind, mutation, None, None)
    bad = set(expect) - set(S.VERDICTS)
    if bad:
        raise UsageError(f"fixture {fam.name!r}: unknown expected verdict(s) {sorted(bad)}")
    if profiles is None:
        profiles = S.PROFILES if kind != S.ADVERSARIAL else ("standard", "thorough")
    bad = set(profiles) - set(S.PROFILES)
    if bad:
        raise UsageError(f"fixture {fam.name!r}: unknown profile(s) {sorted(bad)}")
    return FixtureUse(fam, kind, dict(params), mutation, seeds, frozenset(expect), tuple(profiles), label, seed)


def random(fam: FixtureFamily, *, seeds: Any = None, expect: Iterable[str] | None = None,
           profiles: Sequence[str] | None = None, label: str = "", seed: int | None = None,
           **params: Any) -> FixtureUse:
    """A random fixture: hypotheses are expected to hold and the conclusion to pass."""
    return _use(S.RANDOM, fam, None, seeds, expect, profiles, label, params, seed)


def adversarial(fam: FixtureFamily, *, seeds: Any = None, expect: Iterable[str] | None = None,
                profiles: Sequence[str] | None = None, label: str = "", seed: int | None = None,
                **params: Any) -> FixtureUse:
    """An edge case or a search toward a violation (runs in standard and thorough by default)."""
    return _use(S.ADVERSARIAL, fam, None, seeds, expect, profiles, label, params, seed)


def negative(fam: FixtureFamily, *, mutation: str | None = None, seeds: Any = None,
             expect: Iterable[str] | None = None, profiles: Sequence[str] | None = None, label: str = "",
             seed: int | None = None, **params: Any) -> FixtureUse:
    """A negative control: a broken hypothesis, or (with ``mutation``) a mutated conclusion.

    The check sees ``fx.mutation`` and must test the mutated conclusion (a wrong constant, a wrong
    direction) on a fixture that meets the hypotheses; such a control is caught only when the check
    refutes it, and only it shows the check's power. A control without a mutation breaks a hypothesis
    and is caught when the fixture is vacuous (or refuted). ``expect`` overrides either default.
    """
    return _use(S.NEGATIVE, fam, mutation, seeds, expect, profiles, label, params, seed)


class Fixture:
    """One built fixture as a check sees it: ``fx["X"]``, ``fx.params``, ``fx.seed``, ``fx.rng``,
    ``fx.mutation``, ``fx.kind``, ``fx.profile``."""

    def __init__(self, use: FixtureUse, seed: int, profile: str, data: dict):
        self.use = use
        self.family = use.family.name
        self.kind = use.kind
        self.params = {**use.family.defaults, **use.params}
        self._mutation = use.mutation
        # The mutation names the check asked about through mutated(name); None when it read the mutation
        # without naming one (mutated(), fx.mutation), which may test any name.
        self.mutations_asked: set[str | None] = set()
        self.seed = seed
        self.profile = profile
        self.data = data
        # "printed" or "amended" for the two claims of an erratum (one check serves both), else "".
        self.variant = ""
        # A generator for the check's own randomness, independent of the one that built the data.
        self.rng = np.random.default_rng([seed, 1])

    def __getitem__(self, key: str) -> Any:
        try:
            return self.data[key]
        except KeyError:
            raise KeyError(f"fixture {self.family!r} has no field {key!r} (fields: {sorted(self.data)})") from None

    def __contains__(self, key: str) -> bool:
        return key in self.data

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    @property
    def mutation(self) -> str | None:
        self.mutations_asked.add(None)
        return self._mutation

    def mutated(self, name: str | None = None) -> bool:
        """True when this is a mutated-conclusion control (named ``name`` if given)."""
        self.mutations_asked.add(name)
        return self._mutation is not None and (name is None or self._mutation == name)

    def untested_mutation(self) -> str | None:
        """Why this control's mutation was not tested, or None: the check asked ``mutated(name)`` only
        about other names (a misspelt or unknown mutation). A check that reads the mutation without a
        name, or not at all (a mutation made by the fixture's parameters), is not judged here."""
        m = self._mutation
        asked = sorted(n for n in self.mutations_asked if n is not None)
        if m is None or not asked or None in self.mutations_asked or m in self.mutations_asked:
            return None
        return f"mutation {m!r} is not one the check tests (it tested: {', '.join(map(repr, asked))})"

    @property
    def amended(self) -> bool:
        """True when the check runs for the amended claim of an erratum (see :class:`Erratum`)."""
        return self.variant == "amended"


def build_fixture(use: FixtureUse, seed: int, profile: str) -> Fixture:
    params = {**use.family.defaults, **use.params}
    rng = np.random.default_rng(seed)
    data = use.family.build(rng, **params)
    if not isinstance(data, dict):
        raise TypeError(f"fixture family {use.family.name!r} returned {type(data).__name__}, not a dict")
    _check_finite(use.family.name, data)
    return Fixture(use, seed, profile, data)


def _check_finite(name: str, data: dict) -> None:
    for k, v in data.items():
        if isinstance(v, np.ndarray) and v.dtype.kind in "fc" and not np.all(np.isfinite(v)):
            raise FloatingPointError(f"fixture family {name!r} produced NaN or inf in field {k!r}")


# ---------------------------------------------------------------------------------------------
# Errata


@dataclass(frozen=True)
class Erratum:
    """What is wrong with a printed statement, declared once beside it.

    ``kind`` is one of :data:`settings.ERRATUM_KINDS`; ``location`` where it is printed (section,
    equation, page); ``printed`` the printed words, quoted; ``reading`` the reading taken and why it is
    the natural one (the paper's own usage elsewhere when the wording is ambiguous); ``second_method``
    the computation, independent of the check, that confirms it (an analytic certificate, exact or
    interval arithmetic, another integrator or solver, a closed form); ``summary`` one line for the
    errata table. ``root`` names the claim whose erratum is the independent slip this one inherits
    (one slip, one erratum: the statements it propagates to name it as their root); ``independence`` says
    what makes ``second_method`` independent of the check (one of :data:`settings.INDEPENDENCE`), or
    :data:`settings.SAME_METHOD` for a confirmation from the same run or integrator, which is shown as
    such and never as a second method. ``amended`` is the amended statement: when given, the same declaration registers the
    amended claim beside the printed one (id ``amended_id``, default ``<id>.amended``) with the same
    hypotheses, fixtures and check (``fx.amended`` tells the check which one it runs); ``difference``
    says in one line what the amendment changes. ``amended_uses`` replaces the claims the amended
    statement uses (by default the printed one's: an amended corollary rests on amended lemmas, not on
    the refuted printed ones).
    """

    kind: str
    location: str
    printed: str
    reading: str
    second_method: str
    summary: str = ""
    amended: str = ""
    difference: str = ""
    amended_id: str = ""
    amended_title: str = ""
    amended_uses: tuple | None = None
    root: str = ""
    independence: str = ""

    def describe(self) -> dict:
        return {"kind": self.kind, "location": self.location, "printed": self.printed, "reading": self.reading,
                "second_method": self.second_method, "summary": self.summary, "amended": self.amended or None,
                "difference": self.difference or None, "amended_id": self.amended_id or None,
                "root": self.root or None, "independence": self.independence or None}


def erratum(*, kind: str, location: str, printed: str, reading: str, second_method: str, summary: str = "",
            amended: str = "", difference: str = "", amended_id: str = "", amended_title: str = "",
            amended_uses: Sequence[str] | None = None, root: str = "", independence: str = "") -> Erratum:
    """Declare an erratum (see :class:`Erratum`); every field but the amendment, ``root`` and
    ``independence`` is required."""
    if kind not in S.ERRATUM_KINDS:
        raise UsageError(f"erratum kind {kind!r} is not one of: {', '.join(S.ERRATUM_KINDS)}")
    for name, value in (("location", location), ("printed", printed), ("reading", reading),
                        ("second_method", second_method)):
        if not isinstance(value, str) or not value.strip():
            raise UsageError(f"erratum ({kind}): {name} is empty")
    if (amended_id or amended_uses is not None) and not amended:
        raise UsageError(f"erratum ({kind}): amended_id or amended_uses given without an amended statement")
    if independence and independence not in (*S.INDEPENDENCE, S.SAME_METHOD):
        raise UsageError(f"erratum ({kind}): independence {independence!r} is not one of: "
                         f"{', '.join((*S.INDEPENDENCE, S.SAME_METHOD))}")
    if root and (not isinstance(root, str) or " " in root):
        raise UsageError(f"erratum ({kind}): root must be the id of the claim whose erratum is the slip, got {root!r}")
    return Erratum(kind, location, printed, reading, second_method, summary, amended, difference, amended_id,
                   amended_title, None if amended_uses is None else tuple(amended_uses), root, independence)


# ---------------------------------------------------------------------------------------------
# Claims


@dataclass(frozen=True)
class Claim:
    """A registered item of a paper: checkable (has a check) or not (has a reason)."""

    id: str
    paper: str
    kind: str
    statement: str
    hypotheses: tuple = ()
    uses: tuple = ()
    fixtures: tuple = ()
    check: Callable[[Fixture], Any] | None = None
    reason: str | None = None
    title: str = ""
    expected: str | None = None
    expected_reason: str = ""
    amends: str | None = None
    judged_by: str = ""
    timeout_s: float = S.DEFAULT_TIMEOUT_S
    indirect_evidence: str = ""
    source: str = ""
    tags: tuple = ()
    erratum: Erratum | None = None
    derived: str = ""
    variant: str = ""
    seed_key: str = ""
    reproducible: Any = None
    fidelity: str = S.UNDECLARED
    fidelity_note: str = ""
    no_room: str = ""
    cannot_fail: str = ""

    @property
    def checkable(self) -> bool:
        return self.check is not None

    @property
    def seeds_of(self) -> str | None:
        """The claim whose fixture seeds this one draws, declared with ``seed_key`` (None: its own, or, for an
        amended claim, its printed claim's, which ``amends`` says)."""
        key = self.seed_key
        return None if not key or key == self.id or (self.variant == "amended" and key == self.amends) else key

    @property
    def negative_controls(self) -> int:
        return sum(1 for u in self.fixtures if u.kind == S.NEGATIVE)

    @property
    def powered_controls(self) -> int:
        """Negative controls that mutate the conclusion (see :attr:`FixtureUse.powered`)."""
        return sum(1 for u in self.fixtures if u.powered)

    def describe(self) -> dict:
        """The catalogue entry (what ``verify list --json`` prints and the records' claim line holds)."""
        return {
            "id": self.id, "paper": self.paper, "kind": self.kind, "title": self.title,
            "statement": self.statement, "checkable": self.checkable,
            "reason": None if self.checkable else self.reason,
            "hypotheses": [{"name": h.name, "description": h.description} for h in self.hypotheses],
            "uses": list(self.uses),
            "fixtures": [u.describe() for u in self.fixtures],
            "negative_controls": self.negative_controls, "powered_controls": self.powered_controls,
            "expected": self.expected, "expected_reason": self.expected_reason,
            "erratum": self.erratum.describe() if self.erratum else None, "derived": self.derived or None,
            "variant": self.variant or None, "seeds_of": self.seeds_of,
            "amends": self.amends, "judged_by": self.judged_by, "indirect_evidence": self.indirect_evidence,
            "fidelity": self.fidelity if self.checkable else None, "fidelity_note": self.fidelity_note or None,
            "no_room": self.no_room or None, "cannot_fail": self.cannot_fail or None,
            "timeout_s": self.timeout_s, "source": self.source, "tags": list(self.tags),
            "reproducible": self.reproducible,
        }


class Registry:
    """All claims known to this process, by id. Rejects duplicates at registration; unknown ``uses``
    and cycles at :meth:`validate`."""

    def __init__(self) -> None:
        self.claims: dict[str, Claim] = {}
        self.current_source = ""

    def add(self, c: Claim) -> Claim:
        if c.id in self.claims:
            other = self.claims[c.id]
            if other.source == c.source == "__main__":  # a notebook cell run again redefines its claim
                self.claims[c.id] = c
                return c
            raise UsageError(f"duplicate claim id {c.id!r} (declared in {other.source or '?'} and in "
                             f"{c.source or '?'})")
        self.claims[c.id] = c
        return c

    def __contains__(self, cid: str) -> bool:
        return cid in self.claims

    def __getitem__(self, cid: str) -> Claim:
        try:
            return self.claims[cid]
        except KeyError:
            raise UsageError(f"unknown claim {cid!r}") from None

    def __iter__(self):
        return iter(self.claims.values())

    def __len__(self) -> int:
        return len(self.claims)

    def papers(self) -> list[str]:
        return sorted({c.paper for c in self.claims.values()})

    def validate(self) -> None:
        for c in self.claims.values():
            for u in c.uses:
                if u not in self.claims:
                    raise UsageError(f"claim {c.id!r} ({c.source or '?'}): uses unknown claim {u!r}")
            if c.amends is not None and c.amends not in self.claims:
                raise UsageError(f"claim {c.id!r} ({c.source or '?'}): amends unknown claim {c.amends!r}")
            self._validate_seed_key(c)
        cycle = self.find_cycle()
        if cycle:
            raise UsageError("dependency cycle among claims: " + " -> ".join(cycle))

    def _validate_seed_key(self, c: Claim) -> None:
        """A seed key (besides the claim's own id and an erratum's shared one) names a claim that draws its own
        seeds, and shares at least one fixture with it: one that shares none draws nothing in common."""
        key = c.seeds_of
        if key is None:
            return
        where = f"claim {c.id!r} ({c.source or '?'}): seed_key {key!r}"
        if key not in self.claims:
            raise UsageError(f"{where} names no registered claim")
        root = self.claims[key]
        if (root.seed_key or root.id) != root.id:
            raise UsageError(f"{where} names a claim that draws the seeds of {root.seed_key!r}: name that one")
        drawn = {(u.name, fixture_identity(u)) for u in c.fixtures if u.seed is None}
        if not drawn & {(u.name, fixture_identity(u)) for u in root.fixtures if u.seed is None}:
            raise UsageError(f"{where}: the two claims share no fixture drawn from the seed key (same label, "
                             "family, kind, mutation and parameters, no pinned seed), so they draw no seed in common")

    def find_cycle(self) -> list[str] | None:
        colour: dict[str, int] = {}
        stack: list[str] = []

        def visit(cid: str) -> list[str] | None:
            colour[cid] = 1
            stack.append(cid)
            for u in self.claims[cid].uses:
                if u not in self.claims:
                    continue
                if colour.get(u) == 1:
                    return stack[stack.index(u):] + [u]
                if colour.get(u) is None:
                    found = visit(u)
                    if found:
                        return found
            stack.pop()
            colour[cid] = 2
            return None

        for cid in sorted(self.claims):
            if colour.get(cid) is None:
                found = visit(cid)
                if found:
                    return found
        return None

    def used_by(self, cid: str) -> list[str]:
        return sorted(c.id for c in self.claims.values() if cid in c.uses)

    def select(self, selectors: Sequence[str]) -> list[Claim]:
        """Claims matching any selector: an exact id, a glob (``lyu2021.thm4.*``), a paper name or an
        id prefix (``lyu2021.thm4.2`` also selects ``lyu2021.thm4.2.upper_bound``)."""
        if not selectors:
            return list(self.claims.values())
        out: dict[str, Claim] = {}
        for sel in selectors:
            hits = [c for c in self.claims.values()
                    if c.id == sel or c.paper == sel or c.id.startswith(sel + ".")
                    or fnmatch.fnmatchcase(c.id, sel)]
            if not hits:
                raise UsageError(f"selector {sel!r} matches no registered claim "
                                 f"(papers: {', '.join(self.papers()) or 'none'})")
            for c in hits:
                out[c.id] = c
        return [c for c in self.claims.values() if c.id in out]


REGISTRY = Registry()


def _paper_of(cid: str) -> str:
    return cid.split(".", 1)[0]


def _validate_common(cid: str, kind: str, statement: str) -> None:
    if not isinstance(cid, str) or not cid or " " in cid:
        raise UsageError(f"claim id {cid!r} is not a non-empty string without spaces")
    if kind not in S.CLAIM_KINDS:
        raise UsageError(f"claim {cid!r}: unknown kind {kind!r} (one of {', '.join(S.CLAIM_KINDS)})")
    if not isinstance(statement, str) or not statement.strip():
        raise UsageError(f"claim {cid!r}: statement is empty")


def claim(cid: str, *, kind: str, statement: str, hypotheses: Sequence[Hypothesis] = (),
          uses: Sequence[str] = (), fixtures: Sequence[FixtureUse] = (), paper: str | None = None,
          title: str = "", expected: str | None = None, expected_reason: str = "",
          amends: str | None = None, judged_by: str = "", timeout_s: float = S.DEFAULT_TIMEOUT_S,
          tags: Sequence[str] = (), erratum: Erratum | None = None, derived: str = "",
          reproducible: Any = None, fidelity: str | None = None, fidelity_note: str = "", no_room: str = "",
          cannot_fail: str = "", seed_key: str | None = None, registry: Registry | None = None) -> Callable:
    """Decorator registering a checkable claim; the decorated function is its check.

    ``expected`` records a known outcome other than verified (``"refuted"`` for a printed statement
    that fails, ``"inconclusive"``), with ``expected_reason``. ``erratum`` (see :func:`erratum`) says
    what is wrong with a printed statement expected refuted, and registers its amended claim beside it;
    ``derived`` marks a statement the harness derived (a reconstructed proof step, a stronger reading)
    rather than one the paper prints: its failure is a finding about the derivation, never an erratum.
    ``amends`` names the printed claim an amended claim replaces. ``judged_by`` says how a limit or
    probability is judged (trend over horizons, confidence interval over seeds) and, for a claim over
    a class, which extremes of the class its fixtures cover.

    ``reproducible`` says how far the check's recorded floats reproduce on another machine, where
    long trajectories turn rounding differences between BLAS kernels into visible changes: ``{"rtol":
    r, "atol": a}`` (the baseline compares untracked floats at that precision, measured by
    ``tools/cross_machine.py``), or ``"verdict"`` for outcomes of chaotic dynamics (a search's best
    point, which seed converged where), compared through the verdict alone. Default: every float
    compares at the precision of the fixture's comparisons (see ``verify.diff``).

    ``fidelity`` says how much of the printed statement the check checks: ``"faithful"`` (the printed
    statement, its quantifiers, domain and constants), ``"proxy"`` (a stand-in quantity or event),
    ``"partial"`` (some parts, a special case or part of the printed domain) or ``"definitional"`` (holds by
    construction); ``fidelity_note`` says which stand-in or which part (required for proxy and partial).
    Optional: a claim that does not say shows as "undeclared", and only faithful claims, down their
    ``uses``, are "fully verified". ``no_room`` says why the conclusions carry no room (an identity, a
    yes/no conclusion, a limit) where no comparison is against a printed bound or constant.
    ``cannot_fail`` acknowledges, with the reason, that the run is not expected to show the printed
    conclusion failing anywhere (no probe off the hypotheses fails it): the claim keeps the mark "cannot
    fail here" and is not fully verified, but the mark is then as expected. An erratum with
    ``expected="verified"`` records an imprecision or a proof gap on a statement that holds numerically.

    ``seed_key`` names another claim whose fixture seeds this one draws: claims that read the same experiment by
    different rules (a derived reading beside the printed claim) then build every fixture they declare alike
    (same family, kind, mutation and parameters) from the same seeds, so they judge the same runs, and a run
    memoised in the check (:func:`verify.numerics.memo.pure_memo`) is computed once per worker. It must name a
    claim that draws its own seeds (not an amended claim, nor one with a seed key of its own) and share at least
    one fixture with it (checked by :meth:`Registry.validate`). An erratum's two claims share their seeds anyway.
    """
    _validate_common(cid, kind, statement)
    if seed_key is not None and (not isinstance(seed_key, str) or not seed_key or " " in seed_key):
        raise UsageError(f"claim {cid!r}: seed_key {seed_key!r} is not a claim id")
    fidelity = _validate_fidelity(cid, fidelity, fidelity_note)
    for name, value in (("no_room", no_room), ("cannot_fail", cannot_fail)):
        if not isinstance(value, str):
            raise UsageError(f"claim {cid!r}: {name} is a reason (a string), got {value!r}")
    if reproducible is not None and reproducible != "verdict":
        ok = isinstance(reproducible, dict) and set(reproducible) <= {"rtol", "atol"} and all(
            isinstance(v, (int, float)) and 0 <= v < 1 for v in reproducible.values())
        if not ok:
            raise UsageError(f"claim {cid!r}: reproducible must be 'verdict' or a dict with rtol and/or atol in [0, 1)")
    for h in hypotheses:
        if not isinstance(h, Hypothesis):
            raise UsageError(f"claim {cid!r}: hypothesis {h!r} is not declared with hypothesis()")
    for u in fixtures:
        if not isinstance(u, FixtureUse):
            raise UsageError(f"claim {cid!r}: fixture {u!r} is not declared with random/adversarial/negative")
    if not fixtures:
        raise UsageError(f"claim {cid!r}: a checkable claim needs at least one fixture")
    if expected is not None and expected not in (S.ST_REFUTED, S.ST_INCONCLUSIVE, S.ST_VACUOUS, S.VERIFIED):
        raise UsageError(f"claim {cid!r}: expected must be 'refuted', 'inconclusive', 'vacuous' or 'verified'")
    if expected == S.VERIFIED and erratum is None:
        raise UsageError(f"claim {cid!r}: expected='verified' is for a claim whose erratum leaves it true "
                         "(an imprecision or a proof gap); a claim without an erratum is expected verified anyway")
    if erratum is not None and not isinstance(erratum, Erratum):
        raise UsageError(f"claim {cid!r}: erratum must be declared with erratum(...)")
    if erratum is not None and derived:
        raise UsageError(f"claim {cid!r}: a derived statement is not printed, so it cannot carry an erratum")
    if erratum is not None and expected is None:
        expected = S.ST_REFUTED
    reg = registry if registry is not None else REGISTRY

    def wrap(fn: Callable[[Fixture], Any]) -> Callable[[Fixture], Any]:
        if not callable(fn):
            raise UsageError(f"claim {cid!r}: check is not callable")
        source = reg.current_source or fn.__module__
        common = dict(paper=paper or _paper_of(cid), kind=kind, hypotheses=tuple(hypotheses), uses=tuple(uses),
                      fixtures=tuple(fixtures), check=fn, judged_by=judged_by, timeout_s=float(timeout_s),
                      source=source, tags=tuple(tags), reproducible=reproducible, fidelity=fidelity,
                      fidelity_note=fidelity_note, no_room=no_room, cannot_fail=cannot_fail)
        reg.add(Claim(id=cid, statement=statement, title=title, expected=None if expected == S.VERIFIED else expected,
                      expected_reason=expected_reason or (erratum.summary if erratum else ""), amends=amends,
                      erratum=erratum, derived=derived, variant="printed" if erratum and erratum.amended else "",
                      seed_key=seed_key or cid, **common))
        if erratum is not None and erratum.amended:
            if erratum.amended_uses is not None:
                common["uses"] = erratum.amended_uses
            reg.add(Claim(id=erratum.amended_id or f"{cid}.amended", statement=erratum.amended,
                          title=erratum.amended_title or (f"{title} (amended)" if title else "amended"),
                          amends=cid, variant="amended", seed_key=seed_key or cid, **common))
        return fn

    return wrap


# The reason of an item registered but not yet encoded (``verify init`` writes it): it is work to do, not a
# finding that the item cannot be checked, and coverage counts it apart (``verify.coverage``).
NOT_YET_ENCODED = "not yet encoded"


def declare_amended(cid: str, *, fidelity: str | None = None, fidelity_note: str = "", no_room: str = "",
                    cannot_fail: str = "", registry: Registry | None = None) -> Claim:
    """Declare the fidelity fields of the amended claim ``cid`` that an erratum registered, where they differ
    from the printed claim's (``erratum(amended=...)`` gives the amended claim the printed one's): an
    amendment that holds by construction is ``definitional`` although its printed claim was faithful. A field
    not given keeps the printed claim's value; values are validated as :func:`claim` validates them."""
    import dataclasses

    reg = registry if registry is not None else REGISTRY
    c = reg[cid]
    if c.variant != "amended":
        raise UsageError(f"claim {cid!r} is not an amended claim registered by an erratum")
    if fidelity is not None:
        c = dataclasses.replace(c, fidelity=_validate_fidelity(cid, fidelity, fidelity_note), fidelity_note=fidelity_note)
    c = dataclasses.replace(c, no_room=no_room or c.no_room, cannot_fail=cannot_fail or c.cannot_fail)
    reg.claims[cid] = c
    return c


def not_checkable(cid: str, *, kind: str, statement: str, reason: str, uses: Sequence[str] = (),
                  paper: str | None = None, title: str = "", indirect_evidence: str = "",
                  hypotheses: Sequence[Hypothesis] = (), tags: Sequence[str] = (),
                  registry: Registry | None = None, proxy: str | None = None) -> Claim:
    """Register an item that cannot be checked numerically, with the reason (and the indirect evidence
    other claims give for it, if any). ``proxy`` is the old name of ``indirect_evidence`` (deprecated:
    it clashed with the ``proxy`` fidelity)."""
    _validate_common(cid, kind, statement)
    if proxy is not None:
        warnings.warn("not_checkable(proxy=...) is deprecated: use indirect_evidence=...", DeprecationWarning,
                      stacklevel=2)
        indirect_evidence = indirect_evidence or proxy
    if not reason or not reason.strip():
        raise UsageError(f"claim {cid!r}: a not-checkable item needs a reason")
    reg = registry if registry is not None else REGISTRY
    return reg.add(Claim(id=cid, paper=paper or _paper_of(cid), kind=kind, statement=statement,
                         hypotheses=tuple(hypotheses), uses=tuple(uses), reason=reason, title=title,
                         indirect_evidence=indirect_evidence, source=reg.current_source, tags=tuple(tags)))


def _validate_fidelity(cid: str, fidelity: str | None, note: str) -> str:
    if fidelity is None:
        if note:
            raise UsageError(f"claim {cid!r}: fidelity_note given without a fidelity")
        return S.UNDECLARED
    if fidelity not in S.FIDELITIES:
        raise UsageError(f"claim {cid!r}: fidelity {fidelity!r} is not one of: {', '.join(S.FIDELITIES)}")
    if fidelity in (S.PROXY, S.PARTIAL) and not (isinstance(note, str) and note.strip()):
        raise UsageError(f"claim {cid!r}: a {fidelity} check says which "
                         f"{'stand-in' if fidelity == S.PROXY else 'part'} it checks (fidelity_note)")
    return fidelity


# ---------------------------------------------------------------------------------------------
# Tasks: one (claim, fixture use, seed index)


@dataclass(frozen=True)
class Task:
    claim_id: str
    use_index: int
    seed_index: int
    seed: int
    profile: str

    @property
    def key(self) -> str:
        return f"{self.use_index}.{self.seed_index}"


def fixture_identity(use: FixtureUse) -> str:
    """What a fixture built from ``use`` depends on besides its seed and profile: two uses with one identity
    build the same fixture from one seed, whatever their labels or places in their claims' fixture lists."""
    return json.dumps([use.family.name, use.kind, use.mutation, _jsonable_params(use.params)], sort_keys=True,
                      default=str)


def derive_seed(global_seed: int, claim_id: str, use: FixtureUse, seed_index: int) -> int:
    """A 63-bit seed from the run seed, the claim, the fixture and the seed index alone."""
    payload = json.dumps([global_seed, claim_id, use.name, use.kind, use.mutation,
                          _jsonable_params(use.params), seed_index], sort_keys=True, default=str)
    return int.from_bytes(hashlib.sha256(payload.encode()).digest()[:8], "little") >> 1


def expand(claims: Iterable[Claim], profile: str, global_seed: int) -> list[Task]:
    if profile not in S.PROFILES:
        raise UsageError(f"unknown profile {profile!r} (one of {', '.join(S.PROFILES)})")
    tasks = []
    for c in claims:
        if not c.checkable:
            continue
        for ui, use in enumerate(c.fixtures):
            for si in range(use.n_seeds(profile)):
                # The two claims of an erratum share their fixtures: the amended statement runs on the
                # very instances that refute the printed one.
                seed = use.seed if use.seed is not None else derive_seed(global_seed, c.seed_key or c.id, use, si)
                tasks.append(Task(c.id, ui, si, seed, profile))
    return tasks
