"""Evidence: what a check measured, what was predicted, by how much it holds or fails.

A check builds one :class:`Evidence` and records comparisons on it::

    ev = Evidence()
    ev.close("normalised margin", measured=q, predicted=q_star, rtol=1e-9)
    ev.le("loss at t1", measured=L, bound=C / t1)
    return ev

The evidence holds when every comparison holds. Its slack is the smallest relative slack over the
comparisons: positive means how far from failing, negative how far past failing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np


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
    """One measured-versus-predicted comparison.

    ``relation`` is one of ``"<="``, ``">="``, ``"=="`` (within tolerance) or ``"true"``.
    ``slack`` is relative: (allowed - violation) / scale, positive when it holds.
    """

    name: str
    relation: str
    measured: Any
    predicted: Any
    tolerance: float
    holds: bool
    slack: float
    detail: str = ""

    def to_dict(self) -> dict:
        return _num({
            "name": self.name, "relation": self.relation, "measured": self.measured,
            "predicted": self.predicted, "tolerance": self.tolerance, "holds": self.holds,
            "slack": self.slack, "detail": self.detail,
        })


def _scale(bound: float, tol: float, measured: float) -> float:
    """What a slack is relative to: the bound (or tolerance); against a zero bound with no
    tolerance, the measured value itself, so the slack reads as +-1 rather than +-1e300."""
    s = max(abs(bound), tol)
    return s if s > 1e-300 else max(abs(measured), 1e-300)


def _finite(*xs: float) -> bool:
    return all(np.all(np.isfinite(np.asarray(x, dtype=float))) for x in xs)


@dataclass
class Evidence:
    """The result of one check on one fixture (see module docstring)."""

    comparisons: list[Comparison] = field(default_factory=list)
    quantities: dict[str, Any] = field(default_factory=dict)
    certificate: dict[str, Any] = field(default_factory=dict)
    series: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    inconclusive_reason: str | None = None

    # -- comparisons -------------------------------------------------------------------------
    def le(self, name: str, measured: float, bound: float, *, rtol: float = 1e-9, atol: float = 0.0,
           detail: str = "") -> bool:
        """Record ``measured <= bound`` within ``atol + rtol*|bound|``. Non-finite values never hold."""
        tol = atol + rtol * abs(float(bound)) if _finite(bound) else 0.0
        if not _finite(measured, bound):
            return self._add(Comparison(name, "<=", measured, bound, tol, False, -math.inf, detail or "non-finite"))
        m, b = float(measured), float(bound)
        slack = (b + tol - m) / _scale(b, tol, m)
        return self._add(Comparison(name, "<=", m, b, tol, m <= b + tol, slack, detail))

    def ge(self, name: str, measured: float, bound: float, *, rtol: float = 1e-9, atol: float = 0.0,
           detail: str = "") -> bool:
        """Record ``measured >= bound`` within ``atol + rtol*|bound|``."""
        tol = atol + rtol * abs(float(bound)) if _finite(bound) else 0.0
        if not _finite(measured, bound):
            return self._add(Comparison(name, ">=", measured, bound, tol, False, -math.inf, detail or "non-finite"))
        m, b = float(measured), float(bound)
        slack = (m - (b - tol)) / _scale(b, tol, m)
        return self._add(Comparison(name, ">=", m, b, tol, m >= b - tol, slack, detail))

    def close(self, name: str, measured: Any, predicted: Any, *, rtol: float = 1e-9, atol: float = 0.0,
              detail: str = "") -> bool:
        """Record ``|measured - predicted| <= atol + rtol*|predicted|`` (max over entries for arrays)."""
        m = np.asarray(measured, dtype=float)
        p = np.asarray(predicted, dtype=float)
        if m.shape != p.shape and not (m.ndim == 0 or p.ndim == 0):
            return self._add(Comparison(name, "==", measured, predicted, atol, False, -math.inf,
                                        f"shape mismatch {m.shape} vs {p.shape}"))
        if not _finite(m, p):
            return self._add(Comparison(name, "==", measured, predicted, atol, False, -math.inf,
                                        detail or "non-finite"))
        scale_p = float(np.max(np.abs(p))) if p.size else 0.0
        tol = atol + rtol * scale_p
        err = float(np.max(np.abs(m - p))) if m.size else 0.0
        slack = (tol - err) / max(tol, 1e-300)
        det = detail or f"max abs error {err:.3e}"
        return self._add(Comparison(name, "==", measured, predicted, tol, err <= tol, slack, det))

    def true(self, name: str, condition: bool, *, detail: str = "", slack: float | None = None) -> bool:
        """Record a yes/no conclusion (a sign, a set equality, an ordering)."""
        ok = bool(condition)
        s = slack if slack is not None else (1.0 if ok else -1.0)
        return self._add(Comparison(name, "true", ok, True, 0.0, ok, float(s), detail))

    def _add(self, c: Comparison) -> bool:
        self.comparisons.append(c)
        return c.holds

    # -- other content -----------------------------------------------------------------------
    def inconclusive(self, reason: str) -> Evidence:
        """Mark the evidence inconclusive (a solver or integrator did not certify its answer)."""
        self.inconclusive_reason = reason if self.inconclusive_reason is None else (
            f"{self.inconclusive_reason}; {reason}")
        return self

    def record(self, **quantities: Any) -> None:
        """Store extra measured quantities (shown in the report, tracked by the baseline diff)."""
        self.quantities.update(quantities)

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
        """Fold another evidence into this one (comparison names get ``prefix``)."""
        for c in other.comparisons:
            c.name = prefix + c.name
            self.comparisons.append(c)
        self.quantities.update({prefix + k: v for k, v in other.quantities.items()})
        self.certificate.update({prefix + k: v for k, v in other.certificate.items()})
        self.series.extend(other.series)
        self.notes.extend(other.notes)
        if other.inconclusive_reason:
            self.inconclusive(prefix + other.inconclusive_reason)
        return self

    # -- judgement ---------------------------------------------------------------------------
    @property
    def holds(self) -> bool | None:
        """True/False when every comparison holds / one fails; None when inconclusive or empty.

        A refutation outranks an inconclusive mark only when a failing comparison is on record and
        the check did not flag its own computation as untrustworthy: solver failure is never a refutation.
        """
        if self.inconclusive_reason is not None:
            return None
        if not self.comparisons:
            return None
        return all(c.holds for c in self.comparisons)

    @property
    def slack(self) -> float | None:
        if not self.comparisons:
            return None
        return min(c.slack for c in self.comparisons)

    def to_dict(self) -> dict:
        return _num({
            "holds": self.holds,
            "slack": self.slack,
            "comparisons": [c.to_dict() for c in self.comparisons],
            "quantities": self.quantities,
            "certificate": self.certificate,
            "series": self.series,
            "notes": self.notes,
            "inconclusive_reason": self.inconclusive_reason,
        })


def jsonable(x: Any) -> Any:
    """JSON-safe copy of numbers, arrays and nested containers (public for claim authors)."""
    return _num(x)
