"""Hypothesis predicates of Lyu et al. (2021): the assumptions and standing conditions, evaluated on
every fixture (spec §3.1). Each returns (holds, slack, detail)."""

from __future__ import annotations

import numpy as np

from verify import hypothesis
from verify.numerics.margin import svm_origin

from .common import asm41_residual, mu_pm, svm_plus


def _separable(fx):
    r = svm_origin(fx["X"], fx["y"])
    g = float(r.gamma) if r.success else 0.0
    return bool(r.success and g > 0), g, f"gamma_lin = {g:.6g}, SVM {r.message}"


def _symmetric(fx):
    res = asm41_residual(fx["X"], fx["y"])
    return res <= 1e-14, -res, f"max |x_i + x_(i+n/2)| + label mismatch = {res:.3g}"


def _asm45(fx):
    mu = fx["y"] @ fx["X"] / len(fx["y"])
    s = float(np.min(np.abs(fx["X"] @ mu)) / np.linalg.norm(mu))
    return s >= 1e-9, s, f"min_i |<mu, x_i>|/||mu|| = {s:.3g}"


def _width2(fx):
    return fx["m"] >= 2, float(fx["m"] - 2), f"m = {fx['m']}"


def _norm_le1(fx):
    s = float(np.max(np.linalg.norm(fx["X"], axis=1)))
    return s <= 1 + 1e-12, 1 - s, f"max ||x_i|| = {s:.6g}"


def _a2(fx):
    X, y, alpha = fx["X"], fx["y"], fx["alpha"]
    n = len(y)
    Z = y[:, None] * X
    mu = y @ X / n
    s = float(np.min(Z @ mu - (1 - alpha) / (n * alpha) * np.maximum(-(Z @ Z.T), 0).sum(axis=1)))
    return s > 0, s, f"Asm A.2 slack {s:.3g}"


def _a3(fx):
    mp, mm = mu_pm(fx["X"], fx["y"], fx["alpha"])
    s = float(np.linalg.norm(mp) - np.linalg.norm(mm))
    return s > 0, s, f"||mu+|| - ||mu-|| = {s:.3g}"


def _os(fx):
    X, y = fx["X"], fx["y"]
    Gm = X @ X.T
    same = y[:, None] == y[None, :]
    s1 = float(np.min(Gm[same])) if same.any() else np.inf
    s2 = float(np.min(-Gm[~same])) if (~same).any() else np.inf
    return s1 > 0 and s2 >= 0, min(s1, s2), f"min same-label <x_i,x_j> = {s1:.3g}, min -<x_i,x_j> across = {s2:.3g}"


def _wplus_is_wstar(fx):
    wp, _ = svm_plus(fx["X"], fx["y"], fx["alpha"])
    e = float(np.linalg.norm(wp - fx["w_star"]))
    return e <= 1e-8, -e, f"||w+ - w*|| = {e:.3g}"


separable = hypothesis("linearly separable (Asm 3.2)", _separable,
                       description="exists w with y_i <w, x_i> >= 1; certified by the SVM's KKT residuals")
symmetric = hypothesis("symmetric data (Asm 4.1)", _symmetric,
                       description="n even, x_(i+n/2) = -x_i, y_i = 1, y_(i+n/2) = -1")
asm45 = hypothesis("<mu, x_i> != 0 (Asm 4.5)", _asm45, description="min_i |<mu, x_i>| >= 1e-9 ||mu||")
width2 = hypothesis("width m >= 2", _width2)
unit_data = hypothesis("||x_i|| <= 1 (standing convention)", _norm_le1)
asmA2 = hypothesis("Asm A.2", _a2, description="<mu, y_i x_i> > ((1-alpha)/(n alpha)) sum_j max(-<y_i x_i, y_j x_j>, 0)")
asmA3 = hypothesis("Asm A.3", _a3, description="||mu+|| > ||mu-||")
orth_sep = hypothesis("orthogonally separable (Def H.1)", _os)
wplus_wstar = hypothesis("w+ = w* (hinted data, App. A.2)", _wplus_is_wstar)


def holds(h, fx) -> bool:
    """Evaluate a hypothesis inside a check (to skip expensive work on vacuous fixtures)."""
    return h.evaluate(fx).holds
