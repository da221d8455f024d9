"""Reusable judgements for asymptotic and probabilistic claims.

* :func:`judge_trend` — a limit (t -> infinity, init scale -> 0) judged from a series of horizons or
  scales. It passes when the error has come within tolerance without growing; it refutes a tail that
  has flattened, grown, or converges to a limit clearly above the tolerance; it asks for longer
  horizons only while the tail still shrinks.
* :func:`judge_binomial` — a probability judged over seeds with an exact Clopper–Pearson interval:
  refuted only when the whole interval lies on the wrong side of the claimed probability. Seeds
  whose outcome could not be decided are neither successes nor failures.
* :func:`judge_slope` — a rate (an exponent) fitted on a log-log scale, compared with the printed one.
"""

from __future__ import annotations

import math
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


def judge_binomial(name: str, successes: int, trials: int, p_claimed: float, *, undecided: int = 0,
                   confidence: float = 0.95, relation: str = ">=", evidence: Evidence | None = None,
                   covariate: tuple[Sequence[bool], Sequence[bool]] | None = None,
                   covariate_name: str = "covariate") -> Evidence:
    """Judge ``P(event) >= p_claimed`` (or ``<=``) from ``successes`` out of ``trials`` decided seeds.

    ``undecided`` seeds (the run could not tell success from failure) are reported and counted
    neither way: the interval is computed twice, once with all of them as successes and once as
    failures. The claim holds or is refuted only when both agree; when the undecided seeds could
    flip the verdict there are too many of them and the judgement is inconclusive. The slack is the
    distance from the interval's far end to the claimed value.

    ``covariate`` = (values on the decided seeds, values on the undecided seeds) of a recorded yes/no
    covariate (e.g. the proof's event). When the undecided seeds differ from the decided ones on it
    (Fisher's exact test at 5%), censoring is informative: the rate among decided seeds is biased and is
    shown as such, and only the two-way completion's interval may be quoted.
    """
    if relation not in (">=", "<="):
        raise ValueError(f"relation must be '>=' or '<=', got {relation!r}")
    if undecided < 0 or trials < 0:
        raise ValueError(f"need trials >= 0 and undecided >= 0, got {trials} and {undecided}")
    ev = evidence if evidence is not None else Evidence()
    total = trials + undecided
    ev.record(**{f"{name}: successes": successes, f"{name}: trials": trials, f"{name}: undecided": undecided})
    if total == 0:
        return ev.inconclusive(f"{name}: no seed ran")
    # The two extreme completions of the undecided seeds.
    lo_w, hi_w = clopper_pearson(successes, total, confidence)               # undecided all failures
    lo_b, hi_b = clopper_pearson(successes + undecided, total, confidence)   # undecided all successes
    informative = False
    if covariate is not None:
        dec, und = (np.asarray(v, dtype=bool).ravel() for v in covariate)
        if dec.size != trials or und.size != undecided:
            raise ValueError(f"{name}: covariate has {dec.size} decided and {und.size} undecided values for "
                             f"{trials} decided and {undecided} undecided seeds")
        if dec.size and und.size:
            table = [[int(dec.sum()), int(dec.size - dec.sum())], [int(und.sum()), int(und.size - und.sum())]]
            p_value = float(stats.fisher_exact(table)[1])
            informative = p_value < 0.05
            ev.show(**{f"{name}: {covariate_name} share among decided": float(dec.mean()),
                       f"{name}: {covariate_name} share among undecided": float(und.mean()),
                       f"{name}: censoring test p-value": p_value})
            if informative:
                ev.note(f"{name}: the undecided seeds differ from the decided ones on {covariate_name} "
                        f"({und.mean():.2f} vs {dec.mean():.2f}, Fisher p = {p_value:.2g}): the rate among decided "
                        "seeds is biased; quote only the two-way completion's interval")
    rate = successes / trials if trials else float("nan")
    if informative:
        ev.show(**{f"{name}: rate among decided (biased: informative censoring)": rate})
    else:
        ev.record(**{f"{name}: rate among decided": rate})
    ev.record(**{f"{name}: CI low": lo_w, f"{name}: CI high": hi_b})
    detail = (f"{successes}/{trials} decided" + (f", {undecided} undecided" if undecided else "")
              + f", {confidence:.0%} CI [{lo_w:.4f}, {hi_b:.4f}]")
    if relation == ">=":
        holds_worst, holds_best = hi_w >= p_claimed, hi_b >= p_claimed
        measured = hi_w if holds_worst else hi_b
        if holds_worst == holds_best:
            ev.ge(f"{name}: CI upper bound vs claimed probability", measured, p_claimed, rtol=0.0,
                  detail=detail, room=None)
    else:
        holds_worst, holds_best = lo_b <= p_claimed, lo_w <= p_claimed
        measured = lo_b if holds_worst else lo_w
        if holds_worst == holds_best:
            ev.le(f"{name}: CI lower bound vs claimed probability", measured, p_claimed, rtol=0.0,
                  detail=detail, room=None)
    if holds_worst != holds_best:
        ev.inconclusive(f"{name}: {undecided} undecided seed(s) could flip the verdict ({detail})")
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


def _toward_limit(scales: np.ndarray) -> np.ndarray:
    """Coordinates that grow toward the limit: log of the scales when they are positive and strictly
    monotone (horizons that grow, init scales that shrink), else the index."""
    if np.all(scales > 0) and scales.size >= 2:
        ls = np.log(scales)
        d = np.diff(ls)
        if np.all(d > 0):
            return ls
        if np.all(d < 0):
            return -ls
    return np.arange(scales.size, dtype=float)


def _tail_slope(x: np.ndarray, e: np.ndarray, k: int = 3) -> float:
    """Least-squares slope of log(error) against x over the last k points."""
    xs, ys = x[-k:], np.log(np.maximum(e[-k:], 1e-300))
    if xs.size < 2 or np.ptp(xs) == 0:
        return 0.0
    return float(np.polyfit(xs, ys, 1)[0])


def judge_trend(name: str, scales: Sequence[float], errors: Sequence[float], tol: float, *,
                noise: float = 0.10, flat: float = 0.05, margin: float = 2.0, transient: int = 0,
                floor: float = 0.0, scale_label: str = "horizon", evidence: Evidence | None = None,
                plot: bool = True) -> Evidence:
    """Judge a limit claim from errors measured along a series of horizons or scales.

    ``errors[k] >= 0`` is the distance from the claimed limit at ``scales[k]``, ordered toward the
    limit; the first ``transient`` points are a declared transient and are only recorded. On the rest:

    * **pass** — the last error is within ``tol`` and no error exceeds the one before by more than
      ``noise`` (relative);
    * **refuted** — the last error exceeds ``margin * tol`` and the tail has flattened (the log-log
      slope of the last three errors against the scale is within ``flat`` of zero), or grown (slope
      above ``flat``), or converges geometrically to a limit above ``margin * tol`` (Aitken's
      extrapolation on the last two triples agrees within its own spread);
    * **inconclusive** — otherwise: the tail still shrinks (longer horizons needed, with the horizon
      at which the tail's rate would reach ``tol``), or it sits between ``tol`` and ``margin * tol``.

    ``floor`` (at most a tenth of ``tol`` is sensible) is the error level below which fluctuations are
    numerical jitter: the series is judged on max(error, floor), and the raw errors are recorded.
    The tolerance is the harness's, not a constant of the paper, so the comparisons have no room.
    """
    ev = evidence if evidence is not None else Evidence()
    raw = np.abs(np.asarray(errors, dtype=float))
    s_all = np.asarray(scales, dtype=float)
    if raw.size != s_all.size:
        return ev.inconclusive(f"{name}: {raw.size} errors for {s_all.size} {scale_label}s")
    e_all = np.maximum(raw, floor) if floor > 0 else raw
    # Precision for the baseline, derived from the judgement's own tolerance: errors a hundredth of the
    # tolerance apart cannot change how the series is judged (the verdict itself is compared exactly);
    # the extrapolated limit and the tail slope are fits, compared at a tenth of the tolerance and 0.01.
    res = tol / 100
    if floor > 0:
        ev.track(f"{name}: raw errors", raw.copy(), rtol=1e-6, atol=res)
    if not np.all(np.isfinite(e_all)):
        return ev.inconclusive(f"{name}: non-finite error along the series")
    e, s = e_all[transient:], s_all[transient:]
    if e.size < 2:
        return ev.inconclusive(f"{name}: need at least two {scale_label}s after the transient of {transient}")
    x = _toward_limit(s_all)[transient:]
    last = float(e[-1])
    monotone = bool(np.all(e[1:] <= e[:-1] * (1 + noise) + 1e-300))
    slope = _tail_slope(x, e)
    limit = extrapolate_limit(s, e)
    prev = extrapolate_limit(s[:-1], e[:-1]) if e.size >= 4 else None
    spread = abs(limit - prev) if limit is not None and prev is not None else None
    ev.track(f"{name}: errors", e_all, rtol=1e-6, atol=res)
    ev.record(**{f"{name}: {scale_label}s": s_all})
    ev.track(f"{name}: last error", last, rtol=1e-6, atol=res)
    ev.track(f"{name}: tail log-log slope", slope, rtol=1e-6, atol=0.01)
    ev.track(f"{name}: fitted limit", limit, rtol=1e-6, atol=tol / 10)
    ev.track(f"{name}: fitted limit spread", spread, rtol=1e-6, atol=tol / 10)
    if plot:
        ev.add_series(f"{name} along the {scale_label}s", s_all, {"error": e_all, "tolerance": np.full(e_all.size, tol)},
                      xlabel=scale_label, ylabel="error", logx=bool(np.all(s_all > 0)), logy=bool(np.all(e_all > 0)))
    shown = np.array2string(e, precision=3)
    if last <= tol:
        if monotone:
            ev.true(f"{name}: errors do not grow along the series", True, detail=f"errors {shown}")
            ev.le(f"{name}: error at the last {scale_label}", last, tol, rtol=0.0, room=None)
        else:
            ev.inconclusive(f"{name}: within tolerance at the last {scale_label} but not monotone ({shown})")
        return ev
    clearly_above = last > margin * tol
    converges_above = (limit is not None and spread is not None and slope < -flat
                       and limit - 2 * spread > margin * tol)
    if clearly_above and (abs(slope) <= flat or slope > flat or converges_above):
        why = ("the tail grows" if slope > flat else "the tail has flattened" if abs(slope) <= flat
               else f"the tail converges to {limit:.3g} (+- {spread:.2g})")
        ev.true(f"{name}: the tail approaches the claimed limit", False,
                detail=f"{why}: log-log slope {slope:.3f}, errors {shown}")
        ev.le(f"{name}: error at the last {scale_label}", last, tol, rtol=0.0, room=None)
        return ev
    if not clearly_above and slope >= -flat:
        ev.inconclusive(f"{name}: last error {last:.3e} between the tolerance {tol:.3e} and {margin:g}x it, "
                        f"and not shrinking (slope {slope:.3f})")
        return ev
    # Still shrinking: where would the tail's rate reach the tolerance?
    need = (math.log(tol) - math.log(last)) / slope if slope < 0 else math.inf
    where = ""
    if math.isfinite(need) and np.all(s_all > 0) and not np.array_equal(x, np.arange(s_all.size, dtype=float)):
        factor = math.exp(need)
        target = s[-1] * factor if x[-1] > x[0] and s[-1] > s[0] else s[-1] / factor
        where = f"; at the tail's rate (slope {slope:.2f}) it would reach it near {scale_label} {target:.3g}"
    ev.inconclusive(f"{name}: last error {last:.3e} above tolerance {tol:.3e} but still shrinking{where}; "
                    "longer horizons needed")
    return ev


MAX_SPANS = 10.0   # judge_slope: how many fitted windows (in log x) a drifting local slope may still need


def _local_slopes(lx: np.ndarray, ly: np.ndarray) -> np.ndarray:
    """Slopes between consecutive points on the log-log scale."""
    return np.diff(ly) / np.diff(lx)


def _fit(lx: np.ndarray, ly: np.ndarray) -> tuple[float, float, np.ndarray]:
    """Least-squares slope, its standard error and the fitted values of ``ly = slope * lx + c``."""
    A = np.vstack([lx, np.ones_like(lx)]).T
    coef, *_ = np.linalg.lstsq(A, ly, rcond=None)
    dof = lx.size - 2
    resid = ly - A @ coef
    se = (float(math.sqrt(float(resid @ resid) / dof / float(((lx - lx.mean()) ** 2).sum())))
          if dof > 0 else float("nan"))
    return float(coef[0]), se, A @ coef


def _drift(lx: np.ndarray, ly: np.ndarray) -> tuple[float, float]:
    """How much the local slope changes across the window, and the uncertainty of that change.

    A quadratic fit ``ly = a + b u + c u^2`` (``u`` centred log x) has local slope ``b + 2 c u``, so the
    slope drifts by ``2 c (u_max - u_min)`` over the window; its standard error comes from the fit's
    residuals (zero for three points, where the quadratic interpolates)."""
    u = lx - lx.mean()
    A = np.vstack([u * u, u, np.ones_like(u)]).T
    coef, *_ = np.linalg.lstsq(A, ly, rcond=None)
    span = float(u.max() - u.min())
    dof = u.size - 3
    se_c = 0.0
    if dof > 0:
        resid = ly - A @ coef
        cov = float(resid @ resid) / dof * np.linalg.pinv(A.T @ A)
        se_c = float(math.sqrt(max(cov[0, 0], 0.0)))
    return 2 * float(coef[0]) * span, 2 * se_c * span


def _settled(lx: np.ndarray, ly: np.ndarray, atol: float) -> bool:
    """Local slopes have settled when their drift across the window is within twice its uncertainty, or
    within a tenth of the comparison's tolerance."""
    drift, se = _drift(lx, ly)
    return abs(drift) <= max(2 * se, atol / 10)


def judge_slope(name: str, x: Sequence[float], y: Sequence[float], *, predicted: float, relation: str = "==",
                atol: float = 0.1, evidence: Evidence | None = None, xlabel: str = "x", ylabel: str = "y",
                plot: bool = True, pins: Sequence[str] | None = None, window: str = "all",
                toward: str = "infinity") -> Evidence:
    """Fit ``log y = slope * log x + c`` and compare the slope with the printed exponent.

    ``relation`` ``"=="`` (within ``atol``), ``"<="`` or ``">="`` (a rate at least as fast as printed).
    The fit's standard error is recorded; a fit on fewer than three points or on non-positive values
    is inconclusive.

    **Regime.** A rate is an asymptotic statement, so a failing fit refutes only when the local slopes
    (between consecutive points) have settled over the window: their drift is within twice the fit's
    standard error (or a tenth of ``atol``). When they still drift toward the printed exponent the window is
    *not yet asymptotic*: inconclusive, with the drift and the horizon at which the local slope, drifting
    on as it does, would reach the tolerance, provided that horizon lies within ``MAX_SPANS`` windows (in
    log x) of the last point; a drift too slow to close the gap by then does not save the fit. ``window="auto"`` fits the longest tail of the series whose
    local slopes have settled (at least three points), so a longer series can carry its own transient.
    ``toward`` names the limit the rate is about: ``"infinity"`` (x -> infinity: the largest x is the asymptotic
    end) or ``"zero"`` (x -> 0, e.g. a radius, a step or an init scale: the smallest x is). The regime rule, the
    tail of ``window="auto"`` and "first"/"last" follow it; the slope is always d log y / d log x.

    **Pinning.** A passing two-sided check, or a one-sided check that lies within ``atol`` of the printed
    exponent, *pins* that exponent; ``pins`` names the bound comparisons of the same evidence whose
    looseness it answers for (None: every bound of this evidence). A one-sided check far from the printed
    exponent (1.85 against "at least 1") pins nothing: it is shown, and exempts no bound from "loose".
    """
    ev = evidence if evidence is not None else Evidence()
    if relation not in ("==", "<=", ">="):
        raise ValueError(f"relation must be '==', '<=' or '>=', got {relation!r}")
    if window not in ("all", "auto"):
        raise ValueError(f"window must be 'all' or 'auto', got {window!r}")
    if toward not in ("infinity", "zero"):
        raise ValueError(f"toward must be 'infinity' or 'zero', got {toward!r}")
    # work in u = sgn log x, so that the asymptotic end is always the last point; slopes in u are sgn times
    # the slopes in log x and are turned back before anything is compared or shown
    sgn = 1.0 if toward == "infinity" else -1.0
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xs.size != ys.size or xs.size < 3:
        return ev.inconclusive(f"{name}: need at least three points for a slope, got {xs.size}")
    if not (np.all(xs > 0) and np.all(ys > 0) and np.all(np.isfinite(ys)) and np.all(np.isfinite(xs))):
        return ev.inconclusive(f"{name}: a log-log slope needs positive finite values")
    order = np.argsort(sgn * xs, kind="stable")
    xs, ys = xs[order], ys[order]
    lx, ly = sgn * np.log(xs), np.log(ys)
    start = 0
    if window == "auto":
        for k in range(0, xs.size - 2):
            if _settled(lx[k:], ly[k:], atol):
                start = k
                break
        else:
            start = xs.size - 3
    fx, fy = lx[start:], ly[start:]
    slope, se, fitted = _fit(fx, fy)
    local = _local_slopes(fx, fy)
    drift, drift_se = _drift(fx, fy)
    slope, local, drift = sgn * slope, sgn * np.asarray(local), sgn * drift
    settled = _settled(fx, fy, atol)
    # the local slope at the window's two ends, as the quadratic fit has it (robust to noise between points)
    first, last = (slope - drift / 2, slope + drift / 2)
    # The slope is compared at a tenth of its tolerance; its standard error describes the fit and is shown.
    ev.track(f"{name}: fitted slope", slope, rtol=1e-6, atol=atol / 10)
    ev.show(**{f"{name}: slope standard error": se, f"{name}: local slopes": local,
               f"{name}: local-slope drift": drift, f"{name}: local-slope drift uncertainty": drift_se})
    if start:
        ev.record(**{f"{name}: fitted window starts at {xlabel or 'x'}": float(xs[start])})
    detail = (f"fitted {slope:.3f} +- {se:.2g} over {fx.size} points"
              + (f" (the tail from {xs[start]:.3g})" if start else "")
              + f"; local slope drifts {drift:+.3f} +- {drift_se:.2g} across it")
    if relation == "==":
        fails = abs(slope - predicted) > atol
        toward = abs(last - predicted) < abs(first - predicted)
    elif relation == "<=":
        fails = slope > predicted + atol
        toward = last < first
    else:
        fails = slope < predicted - atol
        toward = last > first
    # Where would the local slope reach the tolerance, drifting on at its rate per unit of log x? A drift that
    # would need more than MAX_SPANS windows' worth of log x to close the gap is too slow to save the fit.
    span = max(float(fx[-1] - fx[0]), 1e-300)
    gap = (abs(last - predicted) - atol) if relation == "==" else (
        (last - (predicted + atol)) if relation == "<=" else ((predicted - atol) - last))
    need = gap / abs(drift / span) if drift != 0 else math.inf
    if fails and not settled and toward and need <= MAX_SPANS * span:
        where = f"; near {xlabel or 'x'} {xs[-1] * math.exp(sgn * min(need, 700.0)):.3g} at the drift's rate"
        ev.show(**{f"{name}: not yet asymptotic": True})
        ev.inconclusive(f"{name}: not yet asymptotic: fitted slope {slope:.3f} vs {relation} {predicted:g}, the local "
                        f"slope still drifts toward it ({first:.3f} -> {last:.3f} across the window, drift "
                        f"{drift:+.3f} +- {drift_se:.2g}){where}")
        if plot:
            ev.add_series(f"{name} (log-log)", np.exp(sgn * fx), {ylabel or "y": np.exp(fy)}, xlabel=xlabel,
                          ylabel=ylabel, logx=True, logy=True)
        return ev
    if relation == "==":
        ev.close(f"{name}: log-log slope", slope, predicted, rtol=0.0, atol=atol, detail=detail)
        pinned = ev.comparisons[-1].holds
    elif relation == "<=":
        ev.le(f"{name}: log-log slope", slope, predicted, rtol=0.0, atol=atol, detail=detail, room=None)
        pinned = ev.comparisons[-1].holds and abs(slope - predicted) <= atol
    else:
        ev.ge(f"{name}: log-log slope", slope, predicted, rtol=0.0, atol=atol, detail=detail, room=None)
        pinned = ev.comparisons[-1].holds and abs(slope - predicted) <= atol
    c = ev.comparisons[-1]
    c.rate, c.pinned, c.pins = True, bool(pinned), (list(pins) if pins is not None else None)
    if plot:
        ev.add_series(f"{name} (log-log)", np.exp(sgn * fx), {ylabel or "y": np.exp(fy), f"fit, slope {slope:.2f}": np.exp(fitted)},
                      xlabel=xlabel, ylabel=ylabel, logx=True, logy=True)
    return ev
