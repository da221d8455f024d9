"""The search: Hypothesis generates, targets and shrinks; SciPy descends the slack where it is smooth.

One claim's hunt runs in rounds until its budget (seconds, fixtures, or both) is spent or a
counterexample is confirmed:

1. **Hypothesis** draws candidates from the claim's arms (:mod:`verify.hunt.domain`), rejects those
   whose hypotheses fail (``reject()``), and calls ``target(-slack)`` on the others (and
   ``target(-room)``, the distance to the hypotheses' boundary, where a class is stressed at its
   extremes), so its optimiser hill-climbs toward the smallest slack. A certified refutation fails the
   test, and Hypothesis shrinks it: the first arm, smaller integers, earlier choices, simpler floats,
   smaller seeds. Each round's number of examples is sized from the measured cost of an evaluation.
2. **SciPy** (bounded Nelder–Mead over the real parameters, on the unit cube and on a log scale where
   declared; integers, choices and the seed held) starts from the best candidates of the round: the
   slack of one seed's fixture is often a smooth function of its real parameters, where a simplex
   descends in a few dozen evaluations what random mutation would need thousands for.
3. A found counterexample is **simplified** further (rounder reals, smaller integers, earlier
   choices, small seeds; each change kept only if the fixture still refutes), then confirmed
   (:mod:`verify.hunt.confirm`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ..space import Choice, Integer, Real
from .domain import SEED_RANGE, Candidate, Domain, mix_seed
from .evaluate import REFUTED, BudgetSpent, Evaluator

_SCORE_CAP = 1e12
_WALL = 1e6  # the optimiser's value where a fixture breaks a hypothesis or is not certified


class _Refutation(Exception):
    """Fails the Hypothesis test on a certified refutation (Hypothesis then shrinks it)."""

    def __init__(self, cand: Candidate):
        super().__init__(f"refuted at {cand}")
        self.candidate = cand


class _FoundByOptimiser(Exception):
    def __init__(self, cand: Candidate):
        super().__init__(f"refuted at {cand}")
        self.candidate = cand


@dataclass
class Found:
    """A refutation as the search found it and as shrinking left it."""

    first: Candidate
    shrunk: Candidate
    phase: str                 # "hypothesis" or "scipy"
    seconds_to_first: float
    evaluations_to_first: int
    shrink_steps: int = 0
    # Every refuting candidate seen while shrinking, simplest last: fallbacks for confirmation.
    refuting: tuple = ()


# ---------------------------------------------------------------------------------------------
# Hypothesis


def hypothesis_round(ev: Evaluator, domain: Domain, *, max_examples: int, seed: int, deadline: float,
                     shrink_deadline_after: float, fixtures: float = math.inf,
                     shrink_fixtures: float = math.inf) -> Found | None:
    """One Hypothesis run: generate and target until ``max_examples``, ``deadline`` or ``fixtures``
    new evaluations; on a certified refutation, shrink it for at most ``shrink_deadline_after`` seconds
    and ``shrink_fixtures`` new evaluations."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, reject, settings, target
    from hypothesis import seed as hypothesis_seed

    state: dict = {"found": None, "shrink_until": None, "shrink_limit": None, "refuting": []}
    strategy = candidates(domain)

    @settings(max_examples=max(1, int(max_examples)), deadline=None, database=None,
              phases=[Phase.generate, Phase.target, Phase.shrink],
              suppress_health_check=list(HealthCheck), report_multiple_bugs=False, derandomize=False,
              verbosity=Verbosity.quiet, print_blob=False)
    @hypothesis_seed(seed)
    @given(strategy)
    def hunt_test(cand: Candidate) -> None:
        out = ev.known(cand)
        if out is None:
            if state["found"] is not None:
                # Shrinking: past its own budget, points not yet evaluated are skipped.
                if time.monotonic() >= state["shrink_until"] or len(ev.order) >= state["shrink_limit"]:
                    reject()
                saved = ev.deadline, ev.limit
                ev.deadline, ev.limit = state["shrink_until"], state["shrink_limit"]
                try:
                    out = ev.evaluate(cand)
                except BudgetSpent:
                    reject()
                finally:
                    ev.deadline, ev.limit = saved
            else:
                out = ev.evaluate(cand)  # raises BudgetSpent past the round's deadline
        if out.status == REFUTED:
            if state["found"] is None:
                state["found"] = (cand, time.monotonic() - ev.started, len(ev.order))
                state["shrink_until"] = time.monotonic() + shrink_deadline_after
                state["shrink_limit"] = len(ev.order) + shrink_fixtures
            state["refuting"].append(cand)
            raise _Refutation(cand)
        if not out.counted:
            reject()
        if out.slack is not None:
            target(_score(-out.slack), label="smallest conclusion slack")
        if out.room is not None:
            target(_score(-out.room), label="closeness to the hypotheses' boundary")

    shrunk = None
    with ev.bounded(deadline, fixtures):
        try:
            hunt_test()
        except _Refutation as exc:
            shrunk = exc.candidate  # Hypothesis's final replay: the smallest refutation
        except BudgetSpent:
            pass
        except Exception as exc:
            # Unsatisfiable (every fixture broke a hypothesis) and Hypothesis's other verdicts on the run
            # end the round; a refutation seen before them is kept (below).
            if not type(exc).__module__.startswith("hypothesis"):
                raise
    if state["found"] is None:
        return None
    first, t_first, n_first = state["found"]
    refuting = tuple(dict.fromkeys(state["refuting"]))
    return Found(first, shrunk or refuting[-1], "hypothesis", t_first, n_first, max(0, len(refuting) - 1), refuting)


def candidates(domain: Domain):
    """The Hypothesis strategy of a domain's candidates, drawn in shrinking order: the arm, the
    family's parameters in its declared order, then the seed."""
    from hypothesis import strategies as st

    @st.composite
    def candidate(draw) -> Candidate:
        arm = draw(st.integers(0, len(domain.arms) - 1)) if len(domain.arms) > 1 else 0
        values = tuple((k, draw(dimension(d))) for k, d in domain.arms[arm].space)
        return Candidate(arm, values, draw(st.integers(0, SEED_RANGE - 1)))

    return candidate()


def dimension(d):
    """A Hypothesis strategy for one declared dimension (log scales drawn as log10 of the value)."""
    from hypothesis import strategies as st

    if isinstance(d, Integer):
        return st.integers(d.lo, d.hi)
    if isinstance(d, Choice):
        return st.sampled_from(d.options)
    if isinstance(d, Real):
        if d.lo == d.hi:
            return st.just(d.lo)
        if d.log:
            lo, hi = math.log10(d.lo), math.log10(d.hi)
            return st.floats(lo, hi, allow_nan=False, allow_infinity=False).map(
                lambda u: min(max(10.0 ** u, d.lo), d.hi))
        return st.floats(d.lo, d.hi, allow_nan=False, allow_infinity=False)
    raise TypeError(f"unknown dimension {d!r}")


def _score(x: float) -> float:
    return float(min(max(x, -_SCORE_CAP), _SCORE_CAP))


# ---------------------------------------------------------------------------------------------
# SciPy


def optimise(ev: Evaluator, domain: Domain, starts: list[Candidate], deadline: float,
             fixtures: float = math.inf) -> Found | None:
    """Bounded Nelder–Mead on the real parameters from each start (see module docstring), until
    ``deadline`` or ``fixtures`` new evaluations. Fixtures that break a hypothesis or are not certified
    are walls (a large value), not minima."""
    with ev.bounded(deadline, fixtures):
        return _optimise(ev, domain, starts, deadline)


def _optimise(ev: Evaluator, domain: Domain, starts: list[Candidate], deadline: float) -> Found | None:
    from scipy.optimize import minimize

    try:
        for start in starts:
            names = domain.real_names(start)
            if not names or time.monotonic() >= deadline:
                continue
            z0 = domain.to_unit(start, names)

            def objective(z, start=start, names=names):
                cand = domain.from_unit(start, names, z)
                out = ev.evaluate(cand)
                if out.status == REFUTED:
                    raise _FoundByOptimiser(cand)
                if not out.counted or out.slack is None or not math.isfinite(out.slack):
                    return _WALL
                return out.slack

            simplex = [list(z0)]
            for i, zi in enumerate(z0):
                vertex = list(z0)
                vertex[i] = zi + 0.1 if zi + 0.1 <= 1.0 else zi - 0.1
                simplex.append(vertex)
            try:
                minimize(objective, z0, method="Nelder-Mead", bounds=[(0.0, 1.0)] * len(z0),
                         options={"initial_simplex": simplex, "xatol": 1e-6, "fatol": 1e-12,
                                  "maxfev": 200 * len(z0)})
            except _FoundByOptimiser as exc:
                t = time.monotonic() - ev.started
                return Found(exc.candidate, exc.candidate, "scipy", t, len(ev.order), 0, (exc.candidate,))
    except BudgetSpent:
        return None
    return None


def optimiser_starts(ev: Evaluator, domain: Domain, k: int = 3) -> list[Candidate]:
    """The ``k`` passing candidates of smallest slack with distinct fixed parts (arm, integers,
    choices, seed) and at least one real parameter to move."""
    ranked = sorted((c for c in ev.order if (o := ev.known(c)) is not None and o.status == "pass"
                     and o.slack is not None and domain.real_names(c)), key=lambda c: ev.known(c).slack)
    out, seen = [], set()
    for c in ranked:
        names = set(domain.real_names(c))
        fixed = (c.arm, c.seed, tuple((n, v) for n, v in c.values if n not in names))
        if fixed in seen:
            continue
        seen.add(fixed)
        out.append(c)
        if len(out) == k:
            break
    return out


# ---------------------------------------------------------------------------------------------
# Simplification


def simplify(ev: Evaluator, domain: Domain, cand: Candidate, deadline: float,
             fixtures: float = math.inf) -> tuple[Candidate, int]:
    """Make a refuting candidate simpler while it still refutes: earlier choices, smaller integers,
    rounder reals (1 to 6 significant digits), then a small seed, until ``deadline`` or ``fixtures``
    new evaluations. Returns it and the steps kept."""
    with ev.bounded(deadline, fixtures):
        return _simplify(ev, domain, cand, deadline)


def _simplify(ev: Evaluator, domain: Domain, cand: Candidate, deadline: float) -> tuple[Candidate, int]:
    steps = 0

    def refutes(c: Candidate) -> bool:
        return ev.evaluate(c).status == REFUTED

    try:
        changed = True
        while changed and time.monotonic() < deadline:
            changed = False
            dims = dict(domain.arms[cand.arm].space)
            for name, value in cand.values:
                for simpler in _simpler_values(dims[name], value):
                    trial = cand.with_values(**{name: simpler})
                    if trial != cand and refutes(trial):
                        cand, steps, changed = trial, steps + 1, True
                        break
            for s in (0, 1, 2):
                if s < cand.seed:
                    trial = cand.with_seed(s)
                    if refutes(trial):
                        cand, steps, changed = trial, steps + 1, True
                        break
    except BudgetSpent:
        pass
    return cand, steps


def _simpler_values(d, value) -> list:
    """Candidates simpler than ``value`` in dimension ``d``, simplest first."""
    if isinstance(d, Choice):
        return list(d.options[:d.options.index(value)]) if value in d.options else []
    if isinstance(d, Integer):
        out = []
        lo = d.lo
        while lo < value:
            out.append(lo)
            lo = (lo + value + 1) // 2 if (lo + value + 1) // 2 > lo else lo + 1
        return sorted(set(out))
    if isinstance(d, Real):
        # The numbers of fewer significant digits (1 to 6) nearest the value: the rounded one, and one
        # step below and above it (the window a counterexample lives in need not hold the rounded one).
        # Fewer digits, strictly, so that simplification always ends.
        out = []
        for digits in range(1, min(7, significant_digits(value))):
            r = float(f"{value:.{digits}g}")
            step = 10.0 ** (math.floor(math.log10(abs(value))) - digits + 1)
            near = sorted({r, float(f"{r - step:.{digits}g}"), float(f"{r + step:.{digits}g}")},
                          key=lambda v: abs(v - value))
            out += [v for v in near if d.lo <= v <= d.hi and v not in out
                    and significant_digits(v) < significant_digits(value)]
        return out
    return []


def significant_digits(x: float) -> int:
    """How many significant digits ``x`` needs (1 for 0 and for 3.0; 17 at most)."""
    return next((n for n in range(1, 18) if float(f"{x:.{n}g}") == x), 17)


def round_size(seconds: float, seconds_per_evaluation: float) -> int:
    """How many examples a Hypothesis round of ``seconds`` gets: what the time allows, so that its
    target phase (half-way through a small round) runs before the round's deadline."""
    n = seconds / max(seconds_per_evaluation, 1e-4)  # unbounded (no deadline): the cap
    return int(min(max(n, 10), 20000))


def round_seed(hunt_seed: int, claim_id: str, shard: int, round_index: int) -> int:
    return mix_seed("hunt", hunt_seed, claim_id, shard, round_index)
