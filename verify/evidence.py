"""Evidence: what a check measured, what was predicted, by how much it holds or fails.

A check builds one :class:`Evidence` and records three kinds of entries on it::

    ev = Evidence()
    ev.accuracy("integrator error estimate", run.error, 1e-8)   # validity of the computation
    ev.close("normalised margin", measured=q, predicted=q_star, rtol=1e-9)   # the conclusion
    ev.forall("neurons with a_j > 0 aligned", cosines, 1 - 1e-6, relation=">=")   # a quantifier
    return ev

* **Validity** (:meth:`accuracy`, :meth:`valid`, :meth:`inconclusive`): the check's statement about its
  own computation (an integrator error estimate, a solver status, a duality gap, conditioning). It is
  never a conclusion: when it fails, the conclusions that depend on it are inconclusive, not refuted.
* **Conclusions** (:meth:`le`, :meth:`ge`, :meth:`close`, :meth:`true`): what the claim asserts. By
  default a conclusion depends on every validity entry of the evidence; ``independent=True`` says it
  does not (an exact or closed-form computation), so its failure refutes whatever else is inconclusive.
* **Quantifiers** (:meth:`forall`): a conclusion over a set ("every neuron with P") that records how
  many elements it checked. Over an empty set it is vacuous, never a pass.

Every passing comparison records its **room**: the factor by which the printed bound or constant could
be wrong and the comparison would still pass (``bound/measured`` for ``<=``, ``measured/bound`` for
``>=``). Identities (``close``) and yes/no conclusions have no room. How entries combine into a
fixture verdict is decided in one place, :mod:`verify.verdicts`.

Tracked quantities (:meth:`record`, :meth:`track`) are compared against a baseline at the precision
they can carry; :meth:`show` stores values that are displayed but never compared (cost counters,
outcomes of chaotic dynamics that the claim's own judgement already covers).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

CONCLUSION = "conclusion"
VALIDITY = "validity"
_AUTO = "auto"


def _num(x: Any) -> Any:
    """Plain-Python, JSON-safe copy of a number or array."""
    if isinstance(x, np.ndarray):
        return [_num(v) for v in x.tolist()] if x.ndim else _num(x.item())
    if isinstance(x, (list, tuple)):
        return [_num(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _num(v) for k, v in x.items()}
    if isinstance(x, (np.floating, float)):
        v = float(x)
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.bool_,)):
        return bool(x)
    return x


@dataclass
class Comparison:
    """One entry of the evidence: measured versus predicted.

    ``relation`` is ``"<="``, ``">="``, ``"=="`` (within tolerance) or ``"true"``. ``slack`` is
    relative: (allowed - violation) / scale, positive when it holds. ``role`` is ``"conclusion"`` or
    ``"validity"``; ``depends`` whether a conclusion rests on the evidence's validity entries;
    ``count`` how many elements a quantifier checked (None for a single comparison); ``required``
    whether an empty quantifier makes the fixture vacuous; ``room`` the factor by which the bound could
    be wrong and still pass (None where that has no meaning).
    """

    name: str
    relation: str
    measured: Any
    predicted: Any
    tolerance: float
    holds: bool
    slack: float | None
    detail: str = ""
    role: str = CONCLUSION
    depends: bool = True
    count: int | None = None
    required: bool = True
    room: float | None = None
    rate: bool = False
    pins: list | None = None
    pinned: bool = False

    @property
    def empty(self) -> bool:
        """A quantifier over an empty set: vacuously true, and so no evidence either way."""
        return self.count == 0

    def to_dict(self) -> dict:
        return _num({
            "name": self.name, "relation": self.relation, "measured": self.measured,
            "predicted": self.predicted, "tolerance": self.tolerance, "holds": self.holds,
            "slack": self.slack, "detail": self.detail, "role": self.role, "depends": self.depends,
            "count": self.count, "required": self.required, "room": self.room, "rate": self.rate,
            "pins": self.pins, "pinned": self.pinned,
        })


def _scale(bound: float, tol: float, measured: float) -> float:
    """What a slack is relative to: the bound (or tolerance); against a zero bound with no
    tolerance, the measured value itself, so the slack reads as +-1 rather than +-1e300."""
    s = max(abs(bound), tol)
    return s if s > 1e-300 else max(abs(measured), 1e-300)


def _finite(*xs: Any) -> bool:
    for x in xs:
        if type(x) is float:  # the common case, without an array round trip
            if not math.isfinite(x):
                return False
        elif not np.all(np.isfinite(np.asarray(x, dtype=float))):
            return False
    return True


def _elementwise_slack(m: np.ndarray, b: np.ndarray, rtol: float, atol: float, relation: str
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Evidence._le / Evidence._ge on whole arrays, the same floating-point operations element by element:
    (slack, holds); a non-finite element has slack -inf and does not hold."""
    fin = np.isfinite(m) & np.isfinite(b)
    with np.errstate(invalid="ignore", over="ignore"):
        tol = np.where(np.isfinite(b), atol + rtol * np.abs(b), 0.0)
        s = np.maximum(np.abs(b), tol)
        scale = np.where(s > 1e-300, s, np.maximum(np.abs(m), 1e-300))
        if relation == "<=":
            slack, holds = (b + tol - m) / scale, m <= b + tol
        else:
            slack, holds = (m - (b - tol)) / scale, m >= b - tol
    return np.where(fin, slack, -math.inf), holds & fin


def _elementwise_room(m: np.ndarray, b: np.ndarray, relation: str) -> float | None:
    """The smallest of room_le / room_ge over the elements (None where every bound is <= 0); forall uses
    it only when every element holds (so every element is finite)."""
    pos = b > 0
    if not pos.any():
        return None
    m, b = m[pos], b[pos]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if relation == "<=":
            r = np.where(m <= 0, math.inf, b / np.where(m <= 0, 1.0, m))
        else:
            r = np.where(m > 0, m / b, 0.0)
    return float(np.min(r))


def room_le(measured: float, bound: float) -> float | None:
    """How many times smaller the bound could be and ``measured <= bound`` still hold: ``bound /
    measured`` for a positive bound (infinite when measured <= 0); None for a bound <= 0 (a sign
    statement, where no constant can be off by a factor)."""
    if bound <= 0:
        return None
    return math.inf if measured <= 0 else bound / measured


def room_ge(measured: float, bound: float) -> float | None:
    """How many times larger the bound could be and ``measured >= bound`` still hold: ``measured /
    bound`` for a positive bound; None for a bound <= 0."""
    if bound <= 0:
        return None
    return measured / bound if measured > 0 else 0.0


@dataclass
class Evidence:
    """The result of one check on one fixture (see module docstring)."""

    comparisons: list[Comparison] = field(default_factory=list)
    quantities: dict[str, Any] = field(default_factory=dict)
    precision: dict[str, dict] = field(default_factory=dict)
    shown: dict[str, Any] = field(default_factory=dict)
    certificate: dict[str, Any] = field(default_factory=dict)
    series: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    # -- conclusions -------------------------------------------------------------------------
    def le(self, name: str, measured: float, bound: float, *, rtol: float = 1e-9, atol: float = 0.0,
           detail: str = "", independent: bool = False, room: Any = _AUTO) -> bool:
        """Record ``measured <= bound`` within ``atol + rtol*|bound|``. Non-finite values never hold.

        ``independent=True``: the comparison does not rest on the evidence's validity entries.
        ``room``: override the automatic room (``None`` where the bound is a numerical tolerance, not
        a constant of the claim)."""
        return self._add(self._le(name, measured, bound, rtol, atol, detail, room), independent)

    def ge(self, name: str, measured: float, bound: float, *, rtol: float = 1e-9, atol: float = 0.0,
           detail: str = "", independent: bool = False, room: Any = _AUTO) -> bool:
        """Record ``measured >= bound`` within ``atol + rtol*|bound|`` (see :meth:`le`)."""
        return self._add(self._ge(name, measured, bound, rtol, atol, detail, room), independent)

    def close(self, name: str, measured: Any, predicted: Any, *, rtol: float = 1e-9, atol: float = 0.0,
              detail: str = "", independent: bool = False) -> bool:
        """Record ``|measured - predicted| <= atol + rtol*|predicted|`` (max over entries for arrays)."""
        m = np.asarray(measured, dtype=float)
        p = np.asarray(predicted, dtype=float)
        if m.shape != p.shape and not (m.ndim == 0 or p.ndim == 0):
            c = Comparison(name, "==", measured, predicted, atol, False, -math.inf,
                           f"shape mismatch {m.shape} vs {p.shape}")
        elif not _finite(m, p):
            c = Comparison(name, "==", measured, predicted, atol, False, -math.inf, detail or "non-finite")
        else:
            scale_p = float(np.max(np.abs(p))) if p.size else 0.0
            tol = atol + rtol * scale_p
            err = float(np.max(np.abs(m - p))) if m.size else 0.0
            slack = (tol - err) / max(tol, 1e-300)
            c = Comparison(name, "==", measured, predicted, tol, err <= tol, slack,
                           detail or f"max abs error {err:.3e}")
        return self._add(c, independent)

    def true(self, name: str, condition: bool, *, detail: str = "", slack: float | None = None,
             independent: bool = False) -> bool:
        """Record a yes/no conclusion (a sign, a set equality, an ordering)."""
        ok = bool(condition)
        s = slack if slack is not None else (1.0 if ok else -1.0)
        return self._add(Comparison(name, "true", ok, True, 0.0, ok, float(s), detail), independent)

    def forall(self, name: str, measured: Any, bound: Any = None, *, relation: str = "<=",
               rtol: float = 1e-9, atol: float = 0.0, detail: str = "", required: bool = True,
               independent: bool = False, room: Any = _AUTO) -> bool:
        """Record "for every element of a set" over ``measured`` (one value per element).

        ``relation`` ``"<="`` / ``">="`` compares every element with ``bound`` (a scalar or one bound
        per element) and keeps the worst; ``"true"`` takes one boolean per element. The number of
        elements is recorded; over an empty set the quantifier is vacuous (``required=False`` for a
        secondary quantifier whose emptiness does not make the whole fixture vacuous).
        """
        vals = np.asarray(measured, dtype=bool if relation == "true" else float).ravel()
        n = int(vals.size)
        if n == 0:
            c = Comparison(name, relation, [], bound, 0.0, True, None,
                           detail or "empty set: nothing to check", count=0, required=required)
            return self._add(c, independent)
        if relation == "true":
            bad = np.flatnonzero(~vals)
            ok = bad.size == 0
            c = Comparison(name, "true", int(n - bad.size), n, 0.0, ok, 1.0 if ok else -bad.size / n,
                           detail or (f"all {n} hold" if ok else f"{bad.size} of {n} fail (first: #{bad[0]})"))
        elif relation in ("<=", ">="):
            b = np.broadcast_to(np.asarray(bound, dtype=float), vals.shape)
            # The worst element: the one with the smallest slack.
            make = self._le if relation == "<=" else self._ge
            slack, holds = _elementwise_slack(vals, b, rtol, atol, relation)
            if np.isnan(slack).any():  # no order to take the worst by: element by element, as written
                cs = [make(name, float(v), float(bb), rtol, atol, "", room) for v, bb in zip(vals, b)]
                i = min(range(n), key=lambda k: cs[k].slack)
                fails = sum(1 for x in cs if not x.holds)
                rooms = [x.room for x in cs if x.room is not None]
                all_room = min(rooms) if rooms else None
            else:
                i = int(np.argmin(slack))
                fails = int(n - np.count_nonzero(holds))
                all_room = _elementwise_room(vals, b, relation) if room == _AUTO else room
            # the worst element's comparison exactly as a single comparison of it would read
            c = make(name, float(vals[i]), float(b[i]), rtol, atol, "", room)
            c.detail = detail or (f"worst of {n} elements: #{i}" + (f"; {fails} fail" if fails else ""))
            c.room = all_room if c.holds else None
        else:
            raise ValueError(f"forall relation must be '<=', '>=' or 'true', got {relation!r}")
        c.count, c.required = n, required
        return self._add(c, independent)

    def _le(self, name, measured, bound, rtol, atol, detail, room) -> Comparison:
        tol = atol + rtol * abs(float(bound)) if _finite(bound) else 0.0
        if not _finite(measured, bound):
            return Comparison(name, "<=", measured, bound, tol, False, -math.inf, detail or "non-finite")
        m, b = float(measured), float(bound)
        slack = (b + tol - m) / _scale(b, tol, m)
        ok = m <= b + tol
        r = (room_le(m, b) if room == _AUTO else room) if ok else None
        return Comparison(name, "<=", m, b, tol, ok, slack, detail, room=r)

    def _ge(self, name, measured, bound, rtol, atol, detail, room) -> Comparison:
        tol = atol + rtol * abs(float(bound)) if _finite(bound) else 0.0
        if not _finite(measured, bound):
            return Comparison(name, ">=", measured, bound, tol, False, -math.inf, detail or "non-finite")
        m, b = float(measured), float(bound)
        slack = (m - (b - tol)) / _scale(b, tol, m)
        ok = m >= b - tol
        r = (room_ge(m, b) if room == _AUTO else room) if ok else None
        return Comparison(name, ">=", m, b, tol, ok, slack, detail, room=r)

    def _add(self, c: Comparison, independent: bool = False) -> bool:
        c.depends = not independent
        self.comparisons.append(c)
        return c.holds

    # -- validity of the computation ---------------------------------------------------------
    def accuracy(self, name: str, error: float, limit: float, *, detail: str = "") -> bool:
        """State the accuracy of the check's own computation: ``error <= limit`` (an integrator's
        error estimate, a duality gap, a residual of a solve). A failure makes the dependent
        conclusions inconclusive, never refuted."""
        ok = _finite(error, limit) and float(error) <= float(limit)
        slack = (float(limit) - float(error)) / max(abs(float(limit)), 1e-300) if _finite(error, limit) else -math.inf
        self.comparisons.append(Comparison(name, "<=", error, limit, 0.0, bool(ok), slack, detail, role=VALIDITY,
                                           depends=False))
        return bool(ok)

    def valid(self, name: str, condition: bool, *, detail: str = "") -> bool:
        """State a yes/no validity condition of the computation (a solver status, an integrator that
        reached its horizon, a well-conditioned system)."""
        ok = bool(condition)
        self.comparisons.append(Comparison(name, "true", ok, True, 0.0, ok, 1.0 if ok else -1.0, detail,
                                           role=VALIDITY, depends=False))
        return ok

    def inconclusive(self, reason: str) -> Evidence:
        """Mark the computation as not certified (a failed validity condition named by ``reason``)."""
        self.valid(reason, False)
        return self

    @property
    def validity(self) -> list[Comparison]:
        return [c for c in self.comparisons if c.role == VALIDITY]

    @property
    def conclusions(self) -> list[Comparison]:
        return [c for c in self.comparisons if c.role == CONCLUSION]

    @property
    def valid_computation(self) -> bool:
        return all(c.holds for c in self.validity)

    @property
    def inconclusive_reason(self) -> str | None:
        """The failed validity entries, joined; None when the computation is certified."""
        bad = [c for c in self.validity if not c.holds]
        if not bad:
            return None
        return "; ".join(c.name if c.relation == "true" else f"{c.name}: {_fmt(c.measured)} > {_fmt(c.predicted)}"
                         for c in bad)

    @inconclusive_reason.setter
    def inconclusive_reason(self, reason: str | None) -> None:
        """API 0.1 form (a plain attribute until 0.2): kept working for claim files written against it.
        Assigning a reason records a failed validity entry, as :meth:`inconclusive` does; assigning None
        (clearing) records nothing, since a failed validity entry is never withdrawn."""
        warnings.warn("assigning Evidence.inconclusive_reason is deprecated since verify 0.2: call "
                      "ev.inconclusive(reason) (or ev.valid(name, condition)) instead", DeprecationWarning,
                      stacklevel=2)
        if reason:
            self.valid(str(reason), False)

    # -- other content -----------------------------------------------------------------------
    def record(self, **quantities: Any) -> None:
        """Store measured quantities: shown in the report and tracked by the baseline diff at the
        claim's precision (see :meth:`track`; integers and booleans are shown, not tracked)."""
        self.quantities.update(quantities)

    def track(self, name: str, value: Any, *, rtol: float | None = None, atol: float | None = None) -> None:
        """Store a tracked quantity with its own precision: a baseline diff flags it when
        ``|new - old| > max(rtol*max(|old|, |new|), atol)``."""
        self.quantities[name] = value
        self.precision[name] = {"rtol": rtol, "atol": atol}

    def show(self, **quantities: Any) -> None:
        """Store values that are displayed but never compared with a baseline: cost counters
        (evaluations, iterations) and outcomes of chaotic dynamics that the verdict already judges."""
        self.shown.update(quantities)

    def certify(self, **items: Any) -> None:
        """Attach a certificate: a counterexample point, dual multipliers, a pattern."""
        self.certificate.update(items)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def add_series(self, name: str, x: Any, y: Any, *, xlabel: str = "", ylabel: str = "",
                   logx: bool = False, logy: bool = False, reference: Any = None) -> None:
        """A curve for the report: trajectories, trend series, alignment cosines.

        ``y`` may be one sequence or a dict of named sequences sharing ``x``; ``reference`` is an
        optional horizontal value (a prediction or an extrapolated limit) drawn as a dashed line.
        """
        ys = y if isinstance(y, dict) else {name: y}
        self.series.append(_num({
            "name": name, "x": np.asarray(x, dtype=float), "y": {k: np.asarray(v, dtype=float)
                                                               for k, v in ys.items()},
            "xlabel": xlabel, "ylabel": ylabel, "logx": logx, "logy": logy, "reference": reference,
        }))

    def merge(self, other: Evidence, prefix: str = "") -> Evidence:
        """Fold another evidence into this one (names get ``prefix``); validity entries stay validity."""
        for c in other.comparisons:
            c.name = prefix + c.name
            self.comparisons.append(c)
        self.quantities.update({prefix + k: v for k, v in other.quantities.items()})
        self.precision.update({prefix + k: v for k, v in other.precision.items()})
        self.shown.update({prefix + k: v for k, v in other.shown.items()})
        self.certificate.update({prefix + k: v for k, v in other.certificate.items()})
        self.series.extend(other.series)
        self.notes.extend(other.notes)
        return self

    # -- judgement (the rules live in verify.verdicts) ---------------------------------------
    @property
    def outcome(self) -> tuple[str, str | None]:
        """(verdict, reason) of this evidence alone, hypotheses assumed met: see :mod:`verify.verdicts`."""
        from .verdicts import judge_evidence

        return judge_evidence(self)

    @property
    def holds(self) -> bool | None:
        """True when the evidence passes, False when it refutes, None otherwise (inconclusive, or
        vacuous: an empty quantifier or no conclusion at all)."""
        from . import settings as S

        verdict = self.outcome[0]
        return True if verdict == S.PASS else False if verdict == S.REFUTED else None

    @property
    def slack(self) -> float | None:
        """The smallest relative slack over the conclusions that checked something."""
        s = [c.slack for c in self.conclusions if c.slack is not None and not c.empty]
        return min(s) if s else None

    @property
    def tightest_room(self) -> float | None:
        """The smallest room over the passing conclusions that have one."""
        r = [c.room for c in self.conclusions if c.holds and c.room is not None]
        return min(r) if r else None

    @property
    def rate_checked(self) -> bool:
        """Whether a companion rate check pinned a printed exponent here (``judge_slope`` passing two-sided,
        or one-sided within its tolerance of the printed exponent): it carries the strength a bound with
        much room lacks. A one-sided rate check far from the printed exponent pins nothing."""
        return any(c.rate and c.holds and c.pinned for c in self.conclusions)

    def to_dict(self) -> dict:
        verdict, reason = self.outcome
        return _num({
            "holds": self.holds,
            "outcome": verdict,
            "outcome_reason": reason,
            "slack": self.slack,
            "tightest_room": self.tightest_room,
            "rate_checked": self.rate_checked,
            "comparisons": [c.to_dict() for c in self.comparisons],
            "quantities": self.quantities,
            "precision": self.precision,
            "shown": self.shown,
            "certificate": self.certificate,
            "series": self.series,
            "notes": self.notes,
            "inconclusive_reason": self.inconclusive_reason,
        })


def _fmt(x: Any) -> str:
    try:
        return f"{float(x):.3g}"
    except (TypeError, ValueError):
        return str(x)


def jsonable(x: Any) -> Any:
    """JSON-safe copy of numbers, arrays and nested containers (public for claim authors)."""
    return _num(x)
