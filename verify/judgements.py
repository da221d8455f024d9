"""Reusable judgements for asymptotic and probabilistic claims.

* :func:`judge_trend` — a limit (t -> infinity, init scale -> 0) judged from a series of horizons or
  scales: the error must shrink along the series and the last (or extrapolated) error must meet the
  tolerance. Refuted only when the series has flattened above ten times the tolerance.
* :func:`judge_binomial` — a probability judged over seeds with an exact Clopper–Pearson interval:
  refuted only when the whole interval lies below the claimed probability.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

from .evidence import Evidence


def clopper_pearson(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact two-sided binomial confidence interval for a success probability.

    lower = Beta^{-1}(a/2; k, n-k+1), upper = Beta^{-1}(1-a/2; k+1, n-k), a = 1 - confidence.
    """
    if trials <= 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials and trials > 0, got {successes}/{trials}")
    a = 1.0 - confidence
    lo = 0.0 if successes == 0 else float(stats.beta.ppf(a / 2, successes, trials - successes + 1))
    hi = 1.0 if successes == trials else float(stats.beta.ppf(1 - a / 2, successes + 1, trials - successes))
    return lo, hi


def judge_binomial(name: str, successes: int, trials: int, p_claimed: float, *,
                   confidence: float = 0.95, relation: str = ">=", evidence: Evidence | None = None) -> Evidence:
    """Judge ``P(event) >= p_claimed`` (or ``<=``) from ``successes`` out of ``trials``.

    Holds unless the Clopper–Pearson interval lies entirely on the wrong side of ``p_claimed``.
    The slack is the distance from the interval's far end to the claimed value.
    """
    ev = evidence if evidence is not None else Evidence()
    lo, hi = clopper_pearson(successes, trials, confidence)
    ev.record(**{f"{name}: successes": successes, f"{name}: trials": trials,
                 f"{name}: rate": successes / trials, f"{name}: CI low": lo, f"{name}: CI high": hi})
    if relation == ">=":
        ev.ge(f"{name}: CI upper bound vs claimed probability", hi, p_claimed, rtol=0.0,
              detail=f"{successes}/{trials}, {confidence:.0%} CI [{lo:.4f}, {hi:.4f}]")
    elif relation == "<=":
        ev.le(f"{name}: CI lower bound vs claimed probability", lo, p_claimed, rtol=0.0,
              detail=f"{successes}/{trials}, {confidence:.0%} CI [{lo:.4f}, {hi:.4f}]")
    else:
        raise ValueError(f"relation must be '>=' or '<=', got {relation!r}")
    return ev


def extrapolate_limit(scales: Sequence[float], values: Sequence[float]) -> float | None:
    """Aitken's delta-squared extrapolation from the last three values of a series.

    For a geometrically convergent series v_k = L + c r^k it returns L exactly; for slower series it
    is an estimate. Returns None when the last differences do not shrink (no convergent trend).
    """
    v = np.asarray(values, dtype=float)
    if v.size < 3 or not np.all(np.isfinite(v[-3:])):
        return None
    v0, v1, v2 = v[-3:]
    d1, d2 = v1 - v0, v2 - v1
    denom = d2 - d1
    if d1 == 0 or abs(d2) >= abs(d1) or denom == 0:
        return float(v2) if d2 == 0 else None
    return float(v2 - d2 * d2 / denom)


def judge_trend(name: str, scales: Sequence[float], errors: Sequence[float], tol: float, *,
                noise: float = 0.10, flat: float = 0.10, floor: float = 0.0, scale_label: str = "horizon",
                evidence: Evidence | None = None, plot: bool = True) -> Evidence:
    """Judge a limit claim from errors measured along a series of horizons or scales.

    ``errors[k] >= 0`` is the distance from the claimed limit at ``scales[k]``, ordered toward the
    limit. Pass iff the errors are non-increasing (each may exceed the previous by ``noise``
    relative) and the last error is at most ``tol``. Refuted iff the last error exceeds ``10 tol``
    and the series has flattened (the last two errors within ``flat`` relative). Otherwise the
    horizon was too short to decide: inconclusive.

    ``floor`` (at most a tenth of ``tol`` is sensible) is the error level below which fluctuations are
    numerical jitter, not a failure of the trend: the series is judged on max(error, floor), and the raw
    errors are recorded beside it.
    """
    ev = evidence if evidence is not None else Evidence()
    e = np.abs(np.asarray(errors, dtype=float))
    if floor > 0:
        ev.record(**{f"{name}: raw errors": e.copy()})
        e = np.maximum(e, floor)
    s = np.asarray(scales, dtype=float)
    if e.size < 2 or e.size != s.size:
        return ev.inconclusive(f"{name}: need at least two horizons with one error each")
    if not np.all(np.isfinite(e)):
        return ev.inconclusive(f"{name}: non-finite error along the series")
    monotone = bool(np.all(e[1:] <= e[:-1] * (1 + noise) + 1e-300))
    last = float(e[-1])
    limit = extrapolate_limit(s, e)
    ev.record(**{f"{name}: errors": e, f"{name}: {scale_label}s": s, f"{name}: last error": last,
                 f"{name}: extrapolated error": limit})
    if plot:
        ev.add_series(f"{name} along the {scale_label}s", s, {"error": e, "tolerance": np.full(e.size, tol)},
                      xlabel=scale_label, ylabel="error", logx=True, logy=bool(np.all(e > 0)))
    flattened = abs(e[-1] - e[-2]) <= flat * max(abs(e[-2]), 1e-300)
    if monotone and last <= tol:
        ev.true(f"{name}: errors shrink along the series", True, detail=f"errors {np.array2string(e, precision=3)}")
        ev.le(f"{name}: error at the last {scale_label}", last, tol, rtol=0.0)
    elif last > 10 * tol and flattened:
        ev.true(f"{name}: errors shrink along the series", monotone,
                detail=f"errors {np.array2string(e, precision=3)}")
        ev.le(f"{name}: error at the last {scale_label} (series flattened)", last, tol, rtol=0.0)
    else:
        why = "not monotone" if not monotone else f"last error {last:.3e} above tolerance {tol:.3e} but still shrinking"
        ev.inconclusive(f"{name}: {why}; longer horizons needed")
    return ev
