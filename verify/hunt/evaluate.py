"""Evaluating one candidate: build the fixture, check the hypotheses, run the check, judge it.

The verdict comes from :mod:`verify.verdicts` like every other verdict; the hunt adds one rule of
its own, stricter than a run's: a refutation counts only when the computation behind it is
certified (every validity entry of the evidence holds). Hypotheses come first: a fixture that breaks
one is rejected before the check runs, and is neither a counterexample nor counted as evidence.

Evaluations are memoised by candidate, so Hypothesis replaying a point (while shrinking, or its
final reproduction) gets the same answer without running the check again, and they are bounded by
the phase that asked for them: its deadline, its number of new fixtures, or both (:meth:`Evaluator.bounded`).
A hunt bounded by fixtures alone does the same evaluations in the same order on every machine.
"""

from __future__ import annotations

import math
import signal
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from .. import settings as S
from ..claims import Claim, build_fixture
from ..evidence import Evidence
from ..verdicts import fixture_verdict
from .domain import Candidate, Domain

# What an evaluation can come to. Only REFUTED is a counterexample; only PASS feeds the targets.
PASS = S.PASS
REFUTED = S.REFUTED                  # refuted with a certified computation
UNCERTIFIED = "uncertified"          # refuted, but a validity entry failed: not a counterexample
INCONCLUSIVE = S.INCONCLUSIVE
VACUOUS = S.VACUOUS                  # an empty quantifier: nothing was checked
UNMET = "hypotheses unmet"           # rejected before the check ran
ERROR = S.ERROR                      # the fixture, a hypothesis predicate or the check crashed
TIMEOUT = "timeout"
UNCONFIRMED = "unconfirmed"          # refuted here, but confirmation did not certify it
STATUSES = (PASS, REFUTED, UNCERTIFIED, INCONCLUSIVE, VACUOUS, UNMET, ERROR, TIMEOUT, UNCONFIRMED)


@dataclass(frozen=True)
class Outcome:
    """What one candidate came to. ``slack`` is the evidence's smallest conclusion slack (negative:
    violated); ``room`` the smallest hypothesis slack (how far inside its hypotheses the fixture is)."""

    status: str
    slack: float | None = None
    room: float | None = None
    seconds: float = 0.0
    reason: str = ""

    @property
    def counted(self) -> bool:
        """A fixture that met its hypotheses and whose computation was judged (pass or refuted)."""
        return self.status in (PASS, REFUTED)


class BudgetSpent(BaseException):
    """Raised out of an evaluation when its phase's deadline has passed or its fixtures are spent. A ``BaseException``, like
    ``KeyboardInterrupt``, so that Hypothesis stops at once instead of shrinking it."""


class _CheckTimeout(BaseException):
    """Raised inside a check by the alarm; a ``BaseException`` so the check's own ``except
    Exception`` cannot swallow it."""


def _alarm(signum, frame):  # pragma: no cover - signal handler
    raise _CheckTimeout()


@dataclass
class Evaluator:
    """Memoised, timed evaluation of candidates of one claim (see module docstring)."""

    claim: Claim
    domain: Domain
    profile: str
    timeout_s: float
    memo: dict = field(default_factory=dict)
    order: list = field(default_factory=list)        # candidates in the order first evaluated
    trace: list = field(default_factory=list)        # (seconds since start, slack) of counted ones
    deadline: float = math.inf                       # new evaluations past it raise BudgetSpent
    limit: float = math.inf                          # ... and so do new ones once len(order) reaches it
    started: float = field(default_factory=time.monotonic)
    first_error: str = ""
    on_evaluate: Callable[[Candidate, Outcome], None] | None = None

    @contextmanager
    def bounded(self, deadline: float = math.inf, fixtures: float = math.inf) -> Iterator[Evaluator]:
        """Within the block, new evaluations stop (BudgetSpent) at ``deadline`` or after ``fixtures``
        more of them, whichever comes first; the bounds of the enclosing phase come back after it."""
        saved = self.deadline, self.limit
        self.deadline, self.limit = deadline, len(self.order) + fixtures
        try:
            yield self
        finally:
            self.deadline, self.limit = saved

    def known(self, cand: Candidate) -> Outcome | None:
        return self.memo.get(self.domain.key(cand))

    def evaluate(self, cand: Candidate) -> Outcome:
        key = self.domain.key(cand)
        out = self.memo.get(key)
        if out is not None:
            return out
        now = time.monotonic()
        if now >= self.deadline or len(self.order) >= self.limit:
            raise BudgetSpent()
        # A check cut by the phase's deadline is not a timeout of the claim: the budget ran out.
        cut = self.deadline - now < self.timeout_s
        limit = max(0.05, min(self.timeout_s, self.deadline - now))
        out = self._run(cand, limit)
        if out.status == TIMEOUT and cut:
            raise BudgetSpent()
        self.memo[key] = out
        self.order.append(cand)
        if out.counted and out.slack is not None:
            self.trace.append((time.monotonic() - self.started, out.slack))
        if self.on_evaluate is not None:
            self.on_evaluate(cand, out)
        return out

    def mark_unconfirmed(self, cand: Candidate, reason: str) -> None:
        old = self.memo[self.domain.key(cand)]
        self.memo[self.domain.key(cand)] = Outcome(UNCONFIRMED, old.slack, old.room, old.seconds, reason)

    def counts(self) -> dict:
        out = dict.fromkeys(STATUSES, 0)
        for o in self.memo.values():
            out[o.status] += 1
        return out

    def best(self) -> tuple[Candidate, Outcome] | None:
        """The passing candidate with the smallest slack."""
        best = None
        for c in self.order:
            o = self.memo[self.domain.key(c)]
            if o.status == PASS and o.slack is not None and (best is None or o.slack < best[1].slack):
                best = (c, o)
        return best

    # -- one evaluation ------------------------------------------------------------------------
    def _run(self, cand: Candidate, limit: float) -> Outcome:
        t0 = time.perf_counter()
        use = self.domain.use(cand)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                fx = build_fixture(use, cand.seed, self.profile)
                fx.variant = self.claim.variant
            except Exception as exc:
                return self._error(t0, f"fixture failed to build: {type(exc).__name__}: {exc}")
            room = None
            try:
                for h in self.claim.hypotheses:
                    r = h.evaluate(fx)
                    if r.slack is not None and math.isfinite(r.slack):
                        room = r.slack if room is None else min(room, r.slack)
                    if not r.holds:
                        return Outcome(UNMET, None, room, time.perf_counter() - t0, f"hypothesis unmet: {r.name}")
            except Exception as exc:
                return self._error(t0, f"hypothesis predicate crashed: {type(exc).__name__}: {exc}")
            try:
                ev = _call_with_limit(self.claim.check, fx, limit)
                if not isinstance(ev, Evidence):
                    raise TypeError(f"check returned {type(ev).__name__}, not Evidence")
            except _CheckTimeout:
                return Outcome(TIMEOUT, None, room, time.perf_counter() - t0, f"time limit of {limit:.3g} s")
            except Exception as exc:
                return self._error(t0, f"check crashed: {type(exc).__name__}: {exc}")
        seconds = time.perf_counter() - t0
        verdict, reason = fixture_verdict(True, ev)
        slack = _finite_or_none(ev.slack)
        if verdict == S.REFUTED:
            if not ev.valid_computation:
                return Outcome(UNCERTIFIED, slack, room, seconds, reason or "")
            return Outcome(REFUTED, slack, room, seconds, reason or "")
        if verdict == S.PASS:
            return Outcome(PASS, slack, room, seconds)
        return Outcome(verdict, slack, room, seconds, reason or "")

    def _error(self, t0: float, reason: str) -> Outcome:
        if not self.first_error:
            self.first_error = reason + "\n" + traceback.format_exc(limit=-3)
        return Outcome(ERROR, None, None, time.perf_counter() - t0, reason)


def _finite_or_none(x) -> float | None:
    if x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if not math.isnan(v) else None


def _call_with_limit(fn, arg, limit: float):
    """Call ``fn(arg)`` under a wall-clock limit (SIGALRM; only in the main thread, where a Dask
    worker's thread cannot have one: there the phase deadline alone bounds the hunt)."""
    if not (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()):
        return fn(arg)
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return fn(arg)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
