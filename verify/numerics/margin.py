"""Max-margin (hard-margin SVM) problems through the origin and their KKT residuals.

Conventions: ``X`` is ``(n, d)`` with one point per row, ``y`` a float array in ``{+1, -1}^n``,
``Z = y[:, None] * X`` the signed points.

Problems solved here:

* hard-margin SVM through the origin (Lyu et al. 2021 Def. 3.3, Wang et al. 2022 ``svm_class``,
  Phuong & Lampert 2021 eqs. (6), (7))::

      min_w 1/2 ||w||^2   s.t.   y_i <w, x_i> >= 1,  i = 1..n;

  its dual is ``min_{lam >= 0} 1/2 ||Z^T lam||^2 - 1^T lam`` with ``w = Z^T lam``, and the geometric
  margin is ``gamma = 1/||w||``;
* the KKT-margin-direction residual of a two-layer (leaky) ReLU network (Lyu et al. 2021 Def. B.8).

``svm_origin`` solves the primal as a least-distance program (Lawson & Hanson 1974, ch. 23): with
``E = [Z^T; 1^T]`` and ``f = e_{d+1}``, the NNLS problem ``min_{u >= 0} ||E u - f||`` has residual
``r = E u - f``; the constraints are infeasible iff ``r = 0`` (then ``u`` is a Farkas certificate
``Z^T u = 0, 1^T u = 1``), otherwise ``w = -r[:d] / r[d]`` and ``lam = u / (1 - 1^T u)``.  The support
found this way is then polished: ``w`` is recomputed as the least-squares solution of the equalities
``Z_S w = 1`` on the support ``S`` and ``lam_S`` from ``Z_S^T lam_S = w``; success is decided from the
recomputed KKT residuals, never from a solver status.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import sparse
from scipy.linalg import solve_triangular
from scipy.optimize import linprog, nnls

__all__ = [
    "MarginResult",
    "TwoLayerKKTResult",
    "kkt_residuals",
    "linear_separability",
    "svm_class",
    "svm_cvxpy",
    "svm_origin",
    "two_layer_kkt_residual",
]

KKT_RESIDUAL_NAMES = ("primal_feasibility", "dual_feasibility", "complementarity", "stationarity")


class _OrderedResult(dict):
    """Dict with attribute access that prints its keys in a fixed order (like scipy's OptimizeResult)."""

    _ORDER: tuple[str, ...] = ()

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError as exc:
            raise AttributeError(name) from exc

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value

    def __delattr__(self, name: str) -> None:
        del self[name]

    def __dir__(self) -> list[str]:
        return list(self.keys())

    def _ordered_keys(self) -> list[str]:
        return [k for k in self._ORDER if k in self] + sorted(k for k in self if k not in self._ORDER)

    def __repr__(self) -> str:
        keys = self._ordered_keys()
        if not keys:
            return f"{type(self).__name__}()"
        width = max(map(len, keys)) + 1
        lines = []
        for k in keys:
            body = repr(self[k]).replace("\n", "\n" + " " * (width + 2))
            lines.append(f"{k.rjust(width)}: {body}")
        return "\n".join(lines)

    __str__ = __repr__


class MarginResult(_OrderedResult):
    """Result of a hard-margin SVM solve (dict with attribute access, fixed print order).

    Attributes
    ----------
    w : ndarray (d,)
        The min-norm solution of ``min 1/2||w||^2 s.t. y_i <w, x_i> >= 1`` (NaN if infeasible).
    direction : ndarray (d,)
        ``w / ||w||`` (NaN if infeasible).
    gamma : float
        Geometric margin ``1 / ||w|| = max_{||u||=1} min_i y_i <u, x_i>`` (0.0 if not separable).
    multipliers : ndarray (n,)
        Dual multipliers ``lam >= 0`` with ``w = sum_i lam_i y_i x_i``; if not separable, a Farkas
        certificate ``lam >= 0, 1^T lam = 1, sum_i lam_i y_i x_i = 0``.
    support : ndarray of int
        Indices with ``lam_i > tol * max(lam)``.
    residuals : dict
        The four KKT residuals of :func:`kkt_residuals`, recomputed from ``w`` and ``multipliers``
        (plus ``farkas`` when not separable).
    success : bool
        All four residuals are <= ``kkt_tol`` (decided from the residuals, not from a solver).
    message : str
    solver : str
    """

    _ORDER = (
        "success",
        "message",
        "solver",
        "gamma",
        "w",
        "direction",
        "multipliers",
        "support",
        "residuals",
    )


class TwoLayerKKTResult(_OrderedResult):
    """Result of :func:`two_layer_kkt_residual` (dict with attribute access, fixed print order); the
    fields are listed in that function's docstring."""

    _ORDER = (
        "success",
        "message",
        "r_kkt",
        "residual_l1",
        "theta_l1",
        "qmin",
        "complementarity",
        "multipliers",
        "mu",
        "active",
        "ambiguous",
        "W_normalised",
        "a_normalised",
    )


# --------------------------------------------------------------------------------------------------
# input checking


def _as_data(X: Any, y: Any | None) -> tuple[np.ndarray, np.ndarray]:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array (n, d); got shape {X.shape}")
    n = X.shape[0]
    if n == 0:
        raise ValueError("X has no rows")
    if y is None:
        y = np.ones(n)
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    if y.shape[0] != n:
        raise ValueError(f"y has {y.shape[0]} entries but X has {n} rows")
    if not np.all(np.abs(y) == 1.0):
        raise ValueError("y must take values in {+1, -1}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains non-finite values")
    return X, y


# --------------------------------------------------------------------------------------------------
# KKT residuals


def kkt_residuals(X: Any, y: Any, w: Any, lam: Any) -> dict[str, float]:
    """The four KKT residuals of the hard-margin SVM ``min 1/2||w||^2 s.t. y_i <w, x_i> >= 1``.

    With margins ``m_i = y_i <w, x_i>``:

    * ``primal_feasibility = max_i max(0, 1 - m_i)`` (already relative: the constraint level is 1);
    * ``dual_feasibility = max_i max(0, -lam_i) / max(1e-300, max_i |lam_i|)``;
    * ``complementarity = max_i |lam_i (m_i - 1)| / max(1e-300, max_i |lam_i|)``, i.e. the largest
      constraint slack among the points weighted by their relative multiplier;
    * ``stationarity = ||w - sum_i lam_i y_i x_i|| / max(1e-300, ||w||)``.

    All four are scale-free.  ``lam = 0`` gives zero dual residuals and stationarity 1 (if w != 0).
    """
    X, y = _as_data(X, y)
    w = np.asarray(w, dtype=np.float64).reshape(-1)
    lam = np.asarray(lam, dtype=np.float64).reshape(-1)
    if w.shape[0] != X.shape[1]:
        raise ValueError(f"w has {w.shape[0]} entries but X has {X.shape[1]} columns")
    if lam.shape[0] != X.shape[0]:
        raise ValueError(f"lam has {lam.shape[0]} entries but X has {X.shape[0]} rows")
    Z = y[:, None] * X
    m = Z @ w
    lam_scale = max(1e-300, float(np.max(np.abs(lam))))
    return {
        "primal_feasibility": float(np.max(np.maximum(0.0, 1.0 - m))) + 0.0,
        "dual_feasibility": float(np.max(np.maximum(0.0, -lam))) / lam_scale + 0.0,
        "complementarity": float(np.max(np.abs(lam * (m - 1.0)))) / lam_scale,
        "stationarity": float(np.linalg.norm(w - Z.T @ lam)) / max(1e-300, float(np.linalg.norm(w))),
    }


# --------------------------------------------------------------------------------------------------
# hard-margin SVM through the origin


def _polish(Z: np.ndarray, support: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact KKT solve on a candidate support ``S``: ``w = argmin ||w|| s.t. Z_S w = 1``, ``lam_S >= 0``
    with ``Z_S^T lam_S = w``.

    Full row rank (the generic case): one QR factorisation ``Z_S^T = Q R`` gives ``lam_S = R^{-1} R^{-T} 1``
    and ``w = Q R^{-T} 1``.  Otherwise (degenerate supports, more than d support points) least squares
    for ``w`` and NNLS for ``lam_S`` (the multipliers are then not unique)."""
    n, d = Z.shape
    ZS = Z[support]
    k = len(support)
    lam = np.zeros(n)
    if k <= d:
        Q, R = np.linalg.qr(ZS.T)
        diag = np.abs(np.diag(R))
        if k > 0 and diag.min() > 1e-10 * diag.max():
            v = solve_triangular(R, np.ones(k), trans="T")
            w = Q @ v
            lam_S = solve_triangular(R, v)
            if np.all(lam_S >= 0):
                lam[support] = lam_S
                return w, lam
    w = np.linalg.lstsq(ZS, np.ones(k), rcond=None)[0]
    lam[support] = nnls(ZS.T, w)[0]
    return w, lam


def _least_distance_nnls(Zs: np.ndarray) -> tuple[np.ndarray, float, float]:
    """NNLS form of the least-distance program ``min ||w|| s.t. Zs w >= 1`` (Lawson & Hanson ch. 23),
    solved on a growing working set of points.

    Returns ``u >= 0`` (length n, zero off the working set), ``1^T u`` and the distance
    ``||Zs^T u|| / 1^T u`` of the point ``Zs^T u / 1^T u`` of conv{z_i} from the origin.  The working set
    starts with the ``2 (d + 1)`` points least aligned with the mean signed point and grows by the most
    violated constraints (at most ``2 (d + 1)`` per round) until the subset solution is feasible for all
    points, so the result is the solution on the full data; a subset whose hull contains the origin is a
    valid certificate for the full data.  Small problems (``n <= 10 (d + 1)``) are solved in one go.
    """
    n, d = Zs.shape
    f = np.zeros(d + 1)
    f[d] = 1.0
    batch = 2 * (d + 1)
    # measured (n = 1000): the working set pays off for n >~ 10 (d + 1) (d = 20: 1 ms vs 11 ms for the full
    # NNLS) and costs extra rounds when most points are candidates (d = 100: ~60 ms vs ~20-30 ms)
    if n <= 5 * batch:
        work = np.arange(n)
    else:
        scores = Zs @ Zs.mean(axis=0) / np.maximum(np.linalg.norm(Zs, axis=1), 1e-300)
        work = np.sort(np.argpartition(scores, batch)[:batch])
    u = np.zeros(n)
    while True:
        E = np.vstack([Zs[work].T, np.ones((1, len(work)))])
        u_work = nnls(E, f, maxiter=max(50 * len(work), 1000))[0]
        total = float(np.sum(u_work))
        point = Zs[work].T @ u_work
        hull_distance = float(np.linalg.norm(point)) / max(total, 1e-300)
        u[:] = 0.0
        u[work] = u_work
        if len(work) == n or total == 0.0 or hull_distance <= 0.0 or total >= 1.0:
            return u, total, hull_distance
        margins = Zs @ (point / (1.0 - total))
        margins[work] = np.inf
        violated = np.flatnonzero(margins < 1.0 - 1e-10)
        if violated.size == 0:
            return u, total, hull_distance
        if violated.size > batch:
            violated = violated[np.argpartition(margins[violated], batch)[:batch]]
        work = np.union1d(work, violated)


def _kkt_max(res: dict[str, float]) -> float:
    return max(res[k] for k in KKT_RESIDUAL_NAMES)


def svm_origin(
    X: Any,
    y: Any,
    *,
    tol: float = 1e-12,
    kkt_tol: float = 1e-9,
    max_polish: int = 5,
) -> MarginResult:
    """Hard-margin SVM through the origin: ``min 1/2||w||^2 s.t. y_i <w, x_i> >= 1``.

    Least-distance programming via NNLS (see the module docstring), then a polishing step that
    solves the KKT system exactly on the detected support; the support is enlarged by violated
    constraints and shrunk by negative multipliers for up to ``max_polish`` rounds.

    Parameters
    ----------
    X : (n, d) array
    y : (n,) array in {+1, -1}
    tol : float
        Relative threshold for support membership: ``lam_i > tol * max(lam)``; and the data are
        declared not separable when the distance of conv{y_i x_i} from the origin, relative to
        ``max_i ||x_i||`` (i.e. the relative margin ``gamma / max_i ||x_i||``), is ``<= tol``.
    kkt_tol : float
        ``success`` iff every KKT residual of :func:`kkt_residuals` is ``<= kkt_tol``.
    max_polish : int
        Maximum number of support-correction rounds.

    Returns
    -------
    MarginResult
        Limitation: the residuals cannot be evaluated in float64 below ~``eps ||w|| max_i ||x_i||``
        = ``eps / (relative margin)``, so for relative margins ``gamma / max_i ||x_i||`` below ~1e-7 the
        stationarity residual exceeds 1e-9 and ``success`` is False even when ``w`` is accurate
        (measured: z = (+-1, 1e-7) gives stationarity 1.6e-9 with gamma exact); the message says so.
        Not separable data give ``success=False``, ``gamma=0.0``, ``w`` NaN and a Farkas certificate in
        ``multipliers`` (its residual ``||sum_i lam_i y_i x_i|| / max_i ||x_i||`` in
        ``residuals['farkas']``); never an exception.
    """
    X, y = _as_data(X, y)
    n, d = X.shape
    Z = y[:, None] * X
    row_norms = np.linalg.norm(Z, axis=1)
    scale = float(np.max(row_norms))
    if scale == 0.0:
        return _not_separable(Z, np.full(n, 1.0 / n), scale, "all points are zero: not separable", "nnls-ldp")
    Zs = Z / scale
    u, total, hull_distance = _least_distance_nnls(Zs)
    if total == 0.0 or hull_distance <= tol:
        lam = u / total if total > 0 else np.full(n, 1.0 / n)
        return _not_separable(Z, lam, scale, "data are not linearly separable through the origin", "nnls-ldp")

    denom = max(1.0 - total, 1e-300)
    lam = u / denom / scale**2
    w = Z.T @ lam
    best = (w, lam, kkt_residuals(X, y, w, lam))
    support = np.flatnonzero(u > tol * np.max(u))
    for _ in range(max_polish):
        w_p, lam_p = _polish(Z, support)
        res = kkt_residuals(X, y, w_p, lam_p)
        if _kkt_max(res) < _kkt_max(best[2]):
            best = (w_p, lam_p, res)
        if _kkt_max(res) <= kkt_tol:
            break
        margins = Z @ w_p
        keep = lam_p[support] > tol * max(float(np.max(lam_p)), 1e-300)
        violated = np.flatnonzero(margins < 1.0 - kkt_tol)
        new_support = np.union1d(support[keep], violated)
        if np.array_equal(new_support, support):
            break
        support = new_support
    w, lam, res = best
    lam = np.maximum(lam, 0.0)
    res = kkt_residuals(X, y, w, lam)
    success = _kkt_max(res) <= kkt_tol
    norm_w = float(np.linalg.norm(w))
    lam_max = float(np.max(lam))
    # rounding floor of the residuals: evaluating Z^T lam and Z w in float64 costs ~ eps ||w|| max_i ||x_i||
    floor = np.finfo(np.float64).eps * norm_w * scale
    message = (
        "optimal: KKT residuals within kkt_tol"
        if success
        else f"KKT residuals not within kkt_tol={kkt_tol:g}: max residual {_kkt_max(res):.3e} "
        f"(float64 rounding floor ~{floor:.1e}, relative margin {1.0 / (norm_w * scale):.1e})"
    )
    return MarginResult(
        w=w,
        direction=w / norm_w,
        gamma=1.0 / norm_w,
        multipliers=lam,
        support=np.flatnonzero(lam > tol * lam_max) if lam_max > 0 else np.array([], dtype=int),
        residuals=res,
        success=bool(success),
        message=message,
        solver="nnls-ldp+polish",
    )


def _not_separable(Z: np.ndarray, lam: np.ndarray, scale: float, message: str, solver: str) -> MarginResult:
    d = Z.shape[1]
    farkas = float(np.linalg.norm(Z.T @ lam)) / max(scale, 1e-300)
    residuals = {k: float("nan") for k in KKT_RESIDUAL_NAMES}
    residuals["farkas"] = farkas
    lam_max = float(np.max(lam)) if lam.size else 0.0
    return MarginResult(
        w=np.full(d, np.nan),
        direction=np.full(d, np.nan),
        gamma=0.0,
        multipliers=lam,
        support=np.flatnonzero(lam > 1e-12 * lam_max) if lam_max > 0 else np.array([], dtype=int),
        residuals=residuals,
        success=False,
        message=message + f" (Farkas certificate residual {farkas:.3e})",
        solver=solver,
    )


def svm_class(Xc: Any, *, tol: float = 1e-12, kkt_tol: float = 1e-9) -> MarginResult:
    """One-sided max-margin problem ``min 1/2||u||^2 s.t. Xc u >= 1`` (Phuong & Lampert 2021 eqs. (6), (7);
    Lyu et al. 2021 App. H problem (Q)): :func:`svm_origin` with all labels +1."""
    Xc = np.asarray(Xc, dtype=np.float64)
    return svm_origin(Xc, np.ones(Xc.shape[0] if Xc.ndim == 2 else 0), tol=tol, kkt_tol=kkt_tol)


def svm_cvxpy(X: Any, y: Any, *, kkt_tol: float = 1e-9, tol: float = 1e-8) -> MarginResult:
    """The hard-margin SVM through the origin via cvxpy + CLARABEL (independent second method).

    ``multipliers`` are the constraint duals of ``min 1/2||w||^2`` (cvxpy's duals for this objective
    are exactly lam with ``w = Z^T lam``; with ``sum_squares`` alone they would be 2 lam).  ``success`` is
    decided from the recomputed residuals.  ``tol`` is the relative support threshold
    ``lam_i > tol * max(lam)``, looser than :func:`svm_origin`'s because an interior-point method leaves
    small positive multipliers on inactive constraints.  Infeasible (not separable) data or a solver
    failure give ``success=False``, ``gamma=0.0`` and NaN ``w``.
    """
    import cvxpy as cp

    X, y = _as_data(X, y)
    n, d = X.shape
    Z = y[:, None] * X
    w_var = cp.Variable(d)
    cons = [Z @ w_var >= 1]
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w_var)), cons)
    try:
        prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
        status = prob.status
    except cp.error.SolverError as exc:
        status = f"solver error: {exc}"
    if w_var.value is None or cons[0].dual_value is None:
        reason = (
            "data are not linearly separable through the origin"
            if "infeasible" in status
            else "cvxpy returned no solution"
        )
        return MarginResult(
            w=np.full(d, np.nan),
            direction=np.full(d, np.nan),
            gamma=0.0,
            multipliers=np.full(n, np.nan),
            support=np.array([], dtype=int),
            residuals={k: float("nan") for k in KKT_RESIDUAL_NAMES},
            success=False,
            message=f"{reason} (cvxpy status {status})",
            solver="cvxpy-clarabel",
        )
    w = np.asarray(w_var.value, dtype=np.float64)
    lam = np.asarray(cons[0].dual_value, dtype=np.float64).reshape(-1)
    res = kkt_residuals(X, y, w, lam)
    success = _kkt_max(res) <= kkt_tol
    norm_w = float(np.linalg.norm(w))
    lam_max = float(np.max(lam))
    return MarginResult(
        w=w,
        direction=w / norm_w,
        gamma=1.0 / norm_w,
        multipliers=lam,
        support=np.flatnonzero(lam > tol * lam_max) if lam_max > 0 else np.array([], dtype=int),
        residuals=res,
        success=bool(success),
        message=f"cvxpy status {prob.status}; max KKT residual {_kkt_max(res):.3e}",
        solver="cvxpy-clarabel",
    )


def linear_separability(X: Any, y: Any, *, tol: float = 1e-12) -> tuple[bool, float]:
    """Is ``{(x_i, y_i)}`` strictly linearly separable through the origin, and with which margin?

    Returns ``(separable, gamma)`` with ``gamma = max_{||u||=1} min_i y_i <u, x_i>`` (0.0 if not
    separable).  Both answers come with a certificate checked here:

    * :func:`svm_origin` succeeds (KKT residuals <= 1e-9, so ``w`` separates strictly) -> separable;
    * :func:`svm_origin` returns a Farkas certificate (``lam >= 0``, ``1^T lam = 1``,
      ``||sum_i lam_i y_i x_i|| <= tol max_i ||x_i||``: the origin lies in conv{y_i x_i}) -> not separable.

    Otherwise (KKT not certified) the LP (HiGHS) ``max t s.t. y_i <w, x_i> >= t, -1 <= w <= 1, t <= 1``
    on the data scaled to ``max_i ||x_i|| = 1`` decides separability from its recomputed ``min_i y_i <w, x_i>``,
    and the margin is taken from :func:`svm_cvxpy`; if that is not certified either, ``RuntimeError``.
    """
    X, y = _as_data(X, y)
    svm = svm_origin(X, y, tol=tol)
    if svm.success:
        return True, float(svm.gamma)
    if "farkas" in svm.residuals and svm.residuals["farkas"] <= tol:
        return False, 0.0
    n, d = X.shape
    Z = y[:, None] * X
    Zs = Z / float(np.max(np.linalg.norm(Z, axis=1)))
    c = np.zeros(d + 1)
    c[d] = -1.0
    lp = linprog(
        c,
        A_ub=np.hstack([-Zs, np.ones((n, 1))]),
        b_ub=np.zeros(n),
        bounds=[(-1.0, 1.0)] * d + [(None, 1.0)],
        method="highs",
    )
    if lp.status != 0:
        raise RuntimeError(
            f"linear_separability: svm_origin not certified ({svm.message}); HiGHS failed: {lp.message}"
        )
    if float(np.min(Zs @ lp.x[:d])) <= 0.0:
        return False, 0.0
    second = svm_cvxpy(X, y, kkt_tol=1e-7)
    if not second.success:
        raise RuntimeError(
            f"linear_separability: separable by LP, but neither svm_origin ({svm.message}) nor svm_cvxpy "
            f"({second.message}) certified the max margin"
        )
    return True, float(second.gamma)


# --------------------------------------------------------------------------------------------------
# two-layer (leaky) ReLU network: KKT-margin-direction residual (Lyu et al. 2021 Def. B.8)


def _phi(z: np.ndarray, alpha: float) -> np.ndarray:
    return np.maximum(z, alpha * z)


def two_layer_kkt_residual(
    W: Any,
    a: Any,
    X: Any,
    y: Any,
    *,
    alpha: float = 0.0,
    tau_act: float = 1e-6,
    tau_kink: float = 1e-9,
) -> TwoLayerKKTResult:
    """KKT residual of ``theta = (W, a)`` for ``min 1/2||theta||^2 s.t. q_i(theta) >= 1`` (Lyu et al. 2021
    Def. B.8, spec section 3.0 ``kkt_lp``), with ``f(x) = sum_k a_k phi(<w_k, x>)``,
    ``phi(z) = max(z, alpha z)`` and ``q_i = y_i f(x_i)``.

    Steps: normalise ``theta~ = theta / sqrt(q_min)`` (q is 2-homogeneous, so ``q_min(theta~) = 1``);
    active set ``A = {i : q_i(theta~) <= 1 + tau_act}``; ambiguous (kink) pairs
    ``Z = {(k, i), i in A : |<w_k, x_i>| <= tau_kink ||w_k|| ||x_i||}`` where the Clarke derivative of phi is
    the interval ``[alpha, 1]``; the bilinear term ``lam_i h_ki`` is replaced by ``mu_ki`` with
    ``alpha lam_i <= mu_ki <= lam_i`` (an exact reformulation).  Stationarity equations::

        w_k = a_k ( sum_{i in A, (k,i) not in Z} lam_i y_i phi'(<w_k, x_i>) x_i + sum_{(k,i) in Z} mu_ki y_i x_i )
        a_k = sum_{i in A} lam_i y_i phi(<w_k, x_i>)

    The l1 norm of their residual is minimised over ``lam >= 0`` and ``mu`` by ``scipy.optimize.linprog``
    (HiGHS); the residual is then recomputed from the returned multipliers.
    ``r_kkt = residual_l1 / ||theta~||_1``.  ``complementarity = max_{i in A} lam_i (q_i - 1) / max(lam)``
    (nonzero only through ``tau_act``).  ``q_min <= 0`` gives ``r_kkt = inf`` (no normalisation exists).

    Notes
    -----
    The kink test is scale-free (``||x_i||`` included; the Lyu spec writes ``tau_kink ||w_k||`` for data of
    norm <= 1).  Only kink pairs with ``i`` in ``A`` enter (the others carry no multiplier).
    ``r_kkt`` jumps when the active set changes: at an approximate KKT point (GD iterates) choose ``tau_act``
    above the spread of the near-minimal margins, otherwise points that should be active are left out
    (measured: a 1e-4 perturbation of an exact KKT point gives r_kkt 0.93 with tau_act = 1e-6 and
    5.7e-4 with tau_act >= 1e-3).

    Returns
    -------
    TwoLayerKKTResult
        ``r_kkt``, ``residual_l1``, ``theta_l1``, ``qmin`` (before normalisation), ``complementarity``,
        ``multipliers`` (length n, zero off ``active``), ``mu`` (one per row of ``ambiguous``, pairs
        ``(k, i)``), ``active``, ``ambiguous``, ``W_normalised``, ``a_normalised``; ``success`` means the LP
        was solved (``r_kkt`` is a measurement to be compared with a tolerance by the caller).
    """
    X, y = _as_data(X, y)
    W = np.atleast_2d(np.asarray(W, dtype=np.float64))
    a = np.asarray(a, dtype=np.float64).reshape(-1)
    n, d = X.shape
    m = W.shape[0]
    if W.shape[1] != d:
        raise ValueError(f"W has {W.shape[1]} columns but X has {d}")
    if a.shape[0] != m:
        raise ValueError(f"a has {a.shape[0]} entries but W has {m} rows")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1]; got {alpha}")

    q = y * (_phi(X @ W.T, alpha) @ a)
    qmin = float(np.min(q))
    if not qmin > 0.0:
        return TwoLayerKKTResult(
            success=False,
            message=f"q_min = {qmin:.3e} <= 0: theta cannot be normalised to margin 1",
            r_kkt=float("inf"),
            residual_l1=float("inf"),
            theta_l1=float(np.sum(np.abs(W)) + np.sum(np.abs(a))),
            qmin=qmin,
            complementarity=float("nan"),
            multipliers=np.zeros(n),
            mu=np.zeros(0),
            active=np.array([], dtype=int),
            ambiguous=np.zeros((0, 2), dtype=int),
            W_normalised=W,
            a_normalised=a,
        )
    s = 1.0 / np.sqrt(qmin)
    Wt, at = W * s, a * s
    Pre = X @ Wt.T  # (n, m) pre-activations <w_k, x_i>
    qt = y * (_phi(Pre, alpha) @ at)
    active = np.flatnonzero(qt <= 1.0 + tau_act)
    kink_level = tau_kink * np.linalg.norm(X, axis=1)[:, None] * np.linalg.norm(Wt, axis=1)[None, :]
    kink = np.abs(Pre) <= kink_level  # (n, m)
    amb = [(k, i) for i in active for k in range(m) if kink[i, k]]
    n_a, n_z = len(active), len(amb)
    n_eq = m * (d + 1)

    # equation rows: for neuron k, rows k*(d+1) + [0..d-1] are the w_k equations, row k*(d+1)+d the a_k one
    Xa, ya = X[active], y[active]
    dphi = np.where(Pre[active] > 0, 1.0, alpha) * ~kink[active]  # (n_a, m); kink pairs go to mu
    w_rows = (at[:, None] * (ya[:, None] * dphi).T)[:, None, :] * Xa.T[None, :, :]  # (m, d, n_a)
    a_rows = (ya[:, None] * _phi(Pre[active], alpha)).T[:, None, :]  # (m, 1, n_a)
    A_lam = np.concatenate([w_rows, a_rows], axis=1).reshape(n_eq, n_a)
    A_mu = np.zeros((n_eq, n_z))
    for col, (k, i) in enumerate(amb):
        A_mu[k * (d + 1) : k * (d + 1) + d, col] = at[k] * y[i] * X[i]
    b = np.concatenate([Wt, at[:, None]], axis=1).reshape(n_eq)

    # variables: lam (n_a) >= 0, mu (n_z) boxed by lam, s_plus, s_minus (n_eq each) >= 0
    n_var = n_a + n_z + 2 * n_eq
    c = np.concatenate([np.zeros(n_a + n_z), np.ones(2 * n_eq)])
    eye = sparse.identity(n_eq, format="csr")
    A_eq = sparse.hstack([sparse.csr_matrix(A_lam), sparse.csr_matrix(A_mu), eye, -eye], format="csr")
    pos = {i: col for col, i in enumerate(active)}
    rows, cols, vals = [], [], []
    for col, (_k, i) in enumerate(amb):
        # alpha lam_i - mu_ki <= 0 and mu_ki - lam_i <= 0
        rows += [2 * col, 2 * col, 2 * col + 1, 2 * col + 1]
        cols += [n_a + col, pos[i], n_a + col, pos[i]]
        vals += [-1.0, alpha, 1.0, -1.0]
    A_ub = sparse.csr_matrix((vals, (rows, cols)), shape=(2 * n_z, n_var))
    bounds = [(0.0, None)] * n_a + [(None, None)] * n_z + [(0.0, None)] * (2 * n_eq)
    lp = linprog(
        c,
        A_ub=A_ub if n_z else None,
        b_ub=np.zeros(2 * n_z) if n_z else None,
        A_eq=A_eq,
        b_eq=b,
        bounds=bounds,
        method="highs",
    )
    theta_l1 = float(np.sum(np.abs(Wt)) + np.sum(np.abs(at)))
    if lp.status != 0 or lp.x is None:
        lam_a = np.zeros(n_a)
        mu = np.zeros(n_z)
        lp_msg = f"HiGHS status {lp.status}: {lp.message}"
    else:
        lam_a = np.maximum(lp.x[:n_a], 0.0)
        mu = lp.x[n_a : n_a + n_z]
        # project mu into its box [alpha lam_i, lam_i] before recomputing the residual
        for col, (_k, i) in enumerate(amb):
            li = lam_a[pos[i]]
            mu[col] = min(max(mu[col], alpha * li), li)
        lp_msg = "HiGHS optimal"
    residual_l1 = float(np.sum(np.abs(A_lam @ lam_a + A_mu @ mu - b)))
    lam = np.zeros(n)
    lam[active] = lam_a
    lam_max = float(np.max(lam_a)) if n_a else 0.0
    compl = float(np.max(lam_a * (qt[active] - 1.0))) / lam_max if lam_max > 0 else 0.0
    r_kkt = residual_l1 / theta_l1 if theta_l1 > 0 else float("inf")
    return TwoLayerKKTResult(
        success=lp.status == 0,
        message=lp_msg,
        r_kkt=r_kkt,
        residual_l1=residual_l1,
        theta_l1=theta_l1,
        qmin=qmin,
        complementarity=compl,
        multipliers=lam,
        mu=mu,
        active=active,
        ambiguous=np.array(amb, dtype=int).reshape(-1, 2),
        W_normalised=Wt,
        a_normalised=at,
    )
