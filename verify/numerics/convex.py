"""Convex reformulation of two-layer ReLU max-margin training (Wang & Pilanci 2022, (14)) and its dual (129).

Conventions: ``X`` is ``(n, d)`` (rows are points), ``y`` in {+1, -1}^n, ``D`` is a ``(p, n)`` 0/1 pattern
matrix (``PatternSet.D``), ``S = 2 D - 1``. Primal (14), with u'_j = ``U2[:, j]`` the positive-output and
u_j = ``U[:, j]`` the negative-output neurons::

    P* = min sum_j ||u_j|| + ||u'_j||
         s.t. y_n sum_j D_jn x_n^T (u'_j - u_j) >= 1,   S_jn x_n^T u_j >= 0,   S_jn x_n^T u'_j >= 0.

Dual (129) (sign-corrected, spec §1.7)::

    D* = max y^T lam  s.t. ||X^T D_j lam + X^T S_j z'_j|| <= 1,  ||-X^T D_j lam + X^T S_j z_j|| <= 1,
                          z_j, z'_j >= 0,  y_n lam_n >= 0.

Both are built vectorised over patterns (no Python loop of constraints) with the data as cvxpy constants.
A DPP version (parameters X, S, y D reused per shape) was measured and dropped: cvxpy 1.9 canonicalises an
elementwise product parameter * variable of size n p very slowly (n = 20, d = 3, p = 382: 58 s first
compile vs 0.03 s for the constant build), so rebuilding per fixture is faster.
Every result is judged from residuals recomputed from the returned values, never from the solver status.
"""

from __future__ import annotations

import math
import time
import warnings
from typing import Any

import cvxpy as cp
import numpy as np
import scipy.sparse as sp
from scipy.optimize import nnls

from .patterns import PatternSet, facet_mask

__all__ = [
    "TOLERANCES",
    "ConvexResult",
    "DualCertificate",
    "convex_dual",
    "convex_primal",
    "convex_primal_loop",
    "dual_certificate",
    "duality_gap",
    "kkt_residuals",
]

DEFAULT_SOLVER = "CLARABEL"
# Tighter than CLARABEL's defaults (1e-8): block directions are only determined to about the square root of
# the value accuracy, and stationarity / complementarity are judged from them (measured on 24 random
# fixtures, n <= 15, d <= 3: stationarity up to 4e-3 with defaults, 1.2e-6 with these).
DEFAULT_SOLVER_OPTIONS = {"CLARABEL": {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10,
                                       "tol_ktratio": 1e-8}}

# Success thresholds (spec wang2022 §3 tolerance policy), applied to recomputed residuals.
TOLERANCES = {
    "gap": 1e-6,                  # |P - y^T lam| / max(1, |P|)
    "primal_feasibility": 1e-7,   # margin and cone violations
    "dual_feasibility": 1e-6,     # max(V(lam) - 1, max(-y * lam)), positive part
    "complementarity": 1e-6,      # max_n |lam_n| |y_n f_n - 1| / max(1, P)
    "stationarity": 1e-5,         # max_j ||u_j|| * distance of u_j/||u_j|| to its KKT set, / max(1, P)
}

# "optimal_inaccurate" is accepted only because success is decided by the recomputed residuals.
_STATUS_OK = ("optimal", "optimal_inaccurate")


class _AttrDict(dict):
    """A dict with attribute access that prints its keys in insertion order (scipy OptimizeResult style).

    Keys that are names of dict methods (``values``, ``items``, ...) are rejected: attribute access
    would return the method instead of the value."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        clash = sorted(set(self) & set(dir(dict)))
        if clash:
            raise ValueError(f"result keys {clash} would be hidden by dict methods; rename them")

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError as exc:
            raise AttributeError(name) from exc

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value

    def __repr__(self) -> str:
        def short(v: Any) -> str:
            if isinstance(v, np.ndarray):
                return f"array(shape={v.shape})" if v.size > 6 else np.array2string(v, precision=6)
            if isinstance(v, float):
                return f"{v:.9g}"
            return repr(v)
        width = max((len(k) for k in self), default=0)
        return "\n".join(f"{k.rjust(width)}: {short(v)}" for k, v in self.items())

    def __dir__(self) -> list[str]:
        return list(self.keys())


class ConvexResult(_AttrDict):
    """Result of ``convex_primal`` / ``convex_dual``.

    Keys: value (the program's optimal value as returned), U, U2 ((d, p) negative / positive blocks), lam (n,),
    gap (relative), residuals (dict: primal_feasibility, dual_feasibility, complementarity, stationarity),
    certificate (V(lam), exact per pattern), dual_check (the ``DualCertificate``), success (from residuals
    and ``TOLERANCES``), status, solver, solve_time, compile_time, problem ("primal", "dual", "primal-loop"),
    cones ("all rows", or "facet rows" when a complete ``PatternSet`` was passed), patterns_complete (the
    ``PatternSet``'s flag, None for a bare array: V(lam) is over the given patterns only, so it certifies
    dual feasibility of (15) only when they are complete).
    """


class DualCertificate(_AttrDict):
    """Result of ``dual_certificate``.

    Keys: value V(lam); pattern_values (p, 2), column 0 for s = +1 (max lam^T D_j X u), column 1 for s = -1
    (max -lam^T D_j X u); pattern, sign: where the max is attained; u (d,) the unit argmax (zeros if V = 0);
    argmax (2, p, d) the unit argmax per sign and pattern.
    """


def _check_inputs(X: np.ndarray, y: np.ndarray | None, D: np.ndarray) -> tuple[np.ndarray, np.ndarray | None,
                                                                               np.ndarray]:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be (n, d), got shape {X.shape}")
    D = np.atleast_2d(np.asarray(D))
    if D.shape[1] != X.shape[0]:
        raise ValueError(f"D must be (p, n) with n = {X.shape[0]}, got shape {D.shape}")
    if not np.all((D == 0) | (D == 1)):
        raise ValueError("D must be a 0/1 matrix")
    D = D.astype(np.float64)
    if y is not None:
        y = np.asarray(y, dtype=np.float64).ravel()
        if y.shape[0] != X.shape[0] or not np.all(np.abs(y) == 1):
            raise ValueError("y must be a +-1 vector with one entry per row of X")
    return X, y, D


# ---------------------------------------------------------------------------------------------------------
# Exact per-pattern dual oracle (spec §1.7)
# ---------------------------------------------------------------------------------------------------------

def _compiled_nnls() -> Any:
    """scipy's compiled NNLS solver behind ``nnls`` (``(A, b, maxiter) -> (x, rnorm, info)``), or None.

    ``dual_certificate`` solves ~10^5 small NNLS problems per catalogue, and nnls's per-call argument checks
    (a C-ordered, finite copy of A and b) cost several times the solve; calling the solver behind them lets the
    checks be done once per certificate. The name is private to scipy, so it is used only when it is there and
    returns what ``nnls`` returns on a probe (else ``nnls`` itself is called)."""
    try:
        from scipy.optimize._slsqplib import nnls as solver

        A, b = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), np.array([2.0, 1.0, -1.0])
        x, rnorm, info = solver(A, b, 3 * A.shape[1])
        want_x, want_rnorm = nnls(A, b)
        return solver if np.array_equal(x, want_x) and rnorm == want_rnorm and info != 3 else None
    except Exception:        # missing, renamed or with another signature: nnls itself
        return None


_NNLS_SOLVER = _compiled_nnls()


def _nnls_checked_once(A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
    """``nnls(A, b)`` bit for bit for A C-contiguous float64 and b a float64 vector, both finite (checked by the
    caller): nnls's own steps after its checks (tests/test_numerics_convex holds the two equal)."""
    if _NNLS_SOLVER is None:
        return nnls(A, b)
    x, rnorm, info = _NNLS_SOLVER(A, b, 3 * A.shape[1])
    if info == 3:
        raise RuntimeError("Maximum number of iterations reached.")
    return x, rnorm


def dual_certificate(lam: np.ndarray, X: np.ndarray, D: np.ndarray) -> DualCertificate:
    """V(lam) = max_j max_s max_{u in C_j, ||u|| <= 1} s lam^T D_j X u, exactly, with the argmax.

    Per pattern j and sign s (conic duality, Pilanci & Ergen 2020 Lemma 4; wang2022 spec §1.7)::

        v_j^s = max_{||u|| <= 1, S_j X u >= 0} s lam^T D_j X u = min_{z >= 0} || s X^T D_j lam + X^T S_j z ||,

    solved by NNLS (A = X^T S_j, b = -s X^T D_j lam). With r = s c + A z* the argmax is u* = r / ||r||
    (NNLS optimality gives S_j X r >= 0 and c^T r = ||r||^2). With a complete pattern set,
    V(lam) = max_{||u|| <= 1} |lam^T (X u)_+| and (16) <=> (17) <=> V(lam) <= 1.
    """
    X, _, D = _check_inputs(X, None, D)
    lam = np.asarray(lam, dtype=np.float64).ravel()
    p, d = D.shape[0], X.shape[1]
    values = np.zeros((p, 2))
    argmax = np.zeros((2, p, d))
    C = X.T @ (D * lam).T  # (d, p): X^T D_j lam
    if p and not (np.isfinite(X).all() and np.isfinite(C).all()):
        raise ValueError("array must not contain infs or NaNs")   # what nnls raises, checked once for all
    # Every array below is, value for value, what the plain loop (A = X^T (2 D_j - 1), c = s X^T D_j lam,
    # nnls(A, -c)) builds, made with fewer calls: s c is exact for s = +-1, and A's C-ordered copy for nnls is
    # the product of C-ordered operands (tests/test_numerics_convex holds the two loops equal).
    S = 2.0 * D - 1.0
    XT, XT_c = X.T, np.ascontiguousarray(X.T)
    C_pos = np.ascontiguousarray(C.T)       # row j: X^T D_j lam
    C_neg = -C_pos
    for j in range(p):
        A, A_c = XT * S[j], XT_c * S[j]      # A as the plain loop has it (F-ordered: its A @ z), A_c for nnls
        for k, (c, b) in enumerate(((C_pos[j], C_neg[j]), (C_neg[j], C_pos[j]))):
            z, _ = _nnls_checked_once(A_c, b)
            r = c + A @ z
            nr = math.sqrt(r.dot(r))         # np.linalg.norm(r) for a real vector, without its dispatch
            values[j, k] = nr
            if nr > 0:
                argmax[k, j] = r / nr
    if p == 0:
        return DualCertificate(value=0.0, pattern_values=values, pattern=-1, sign=0, u=np.zeros(d), argmax=argmax)
    j, k = np.unravel_index(int(np.argmax(values)), values.shape)
    return DualCertificate(value=float(values[j, k]), pattern_values=values, pattern=int(j), sign=(1, -1)[k],
                           u=argmax[k, j].copy(), argmax=argmax)


def duality_gap(primal_value: float, dual_value: float) -> float:
    """Relative duality gap |P - D| / max(1, |P|)."""
    if not (math.isfinite(primal_value) and math.isfinite(dual_value)):
        return math.inf
    return abs(primal_value - dual_value) / max(1.0, abs(primal_value))


def _stationarity(X: np.ndarray, D: np.ndarray, lam: np.ndarray, B: np.ndarray, s: float) -> float:
    """max_j min_{z >= 0, z = 0 off the active rows} || b_j - ||b_j|| (s X^T D_j lam + X^T S_j z) ||.

    Convex KKT of (14) (spec §1.8): s X^T D_j lam + X^T S_j z_j in the subdifferential of ||b_j||, with
    z_j >= 0 and z_j o S_j X b_j = 0. For b_j != 0 this fixes b_j / ||b_j||; the residual is weighted by
    ||b_j|| so that negligible blocks, whose directions an interior-point solver leaves undetermined, do
    not dominate (zero blocks only need ||s c_j + A_j z|| <= 1, which is V(lam) <= 1, checked separately).
    """
    norms = np.linalg.norm(B, axis=0)
    worst = 0.0
    row_norms = np.maximum(np.linalg.norm(X, axis=1), 1e-300)
    for j in np.flatnonzero(norms > 0):
        u = B[:, j] / norms[j]
        S = 2.0 * D[j] - 1.0
        active = np.abs(S * (X @ u)) <= 1e-6 * row_norms
        target = u - s * (X.T @ (D[j] * lam))
        if np.any(active):
            _, res = nnls((X.T * S)[:, active], target)
        else:
            res = float(np.linalg.norm(target))
        worst = max(worst, float(res) * float(norms[j]))
    return worst


def kkt_residuals(X: np.ndarray, y: np.ndarray, D: np.ndarray, U: np.ndarray, U2: np.ndarray,
                  lam: np.ndarray, certificate: float | None = None) -> dict[str, float]:
    """The four named KKT residuals of (14) recomputed from (U, U2, lam); see ``TOLERANCES``."""
    X, y, D = _check_inputs(X, y, D)
    S = 2.0 * D - 1.0
    XU, XU2 = X @ U, X @ U2  # (n, p)
    f = np.sum(D.T * (XU2 - XU), axis=1)
    margin = y * f
    cone = max(float(np.max(-S.T * XU, initial=0.0)), float(np.max(-S.T * XU2, initial=0.0)))
    primal = max(float(np.max(1.0 - margin, initial=0.0)), cone, 0.0)
    if certificate is None:
        certificate = dual_certificate(lam, X, D).value
    dual = max(certificate - 1.0, float(np.max(-y * lam, initial=0.0)), 0.0)
    total = float(np.sum(np.linalg.norm(U, axis=0)) + np.sum(np.linalg.norm(U2, axis=0)))
    comp = float(np.max(np.abs(lam) * np.abs(margin - 1.0), initial=0.0)) / max(1.0, total)
    stat = max(_stationarity(X, D, lam, U2, 1.0), _stationarity(X, D, lam, U, -1.0)) / max(1.0, total)
    return {"primal_feasibility": primal, "dual_feasibility": dual, "complementarity": comp,
            "stationarity": stat}


def _options(solver: str, solver_options: dict | None) -> dict:
    if solver_options is not None:
        return dict(solver_options)
    return dict(DEFAULT_SOLVER_OPTIONS.get(solver, {}))


def _solve(prob: cp.Problem, solver: str, solver_options: dict | None) -> float:
    """Solve and return the wall time. cvxpy's "may be inaccurate" warning is silenced: the status is kept
    in the result and success is decided from recomputed residuals."""
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Solution may be inaccurate")
        prob.solve(solver=solver, **_options(solver, solver_options))
    return time.perf_counter() - t0


def _judge(res: dict[str, float], gap: float, status: str) -> bool:
    if status not in _STATUS_OK:
        return False
    return gap <= TOLERANCES["gap"] and all(res[k] <= TOLERANCES[k] for k in res)


# ---------------------------------------------------------------------------------------------------------
# Primal (14)
# ---------------------------------------------------------------------------------------------------------

def _cone_rows(expr: cp.Expression, St: np.ndarray, mask: np.ndarray | None) -> cp.Constraint:
    """S o expr >= 0 on all (n, p) entries, or only on the facet entries ``mask`` (n, p)."""
    if mask is None:
        return cp.multiply(St, expr) >= 0
    idx = np.flatnonzero(mask.ravel(order="F"))
    return cp.multiply(St.ravel(order="F")[idx], cp.vec(expr, order="F")[idx]) >= 0


def _build_primal(X: np.ndarray, y: np.ndarray, D: np.ndarray, mask: np.ndarray | None) -> dict[str, Any]:
    d = X.shape[1]
    p = D.shape[0]
    U = cp.Variable((d, p), name="U")
    U2 = cp.Variable((d, p), name="U2")
    St = (2.0 * D - 1.0).T  # (n, p)
    margin = cp.sum(cp.multiply(y[:, None] * D.T, X @ (U2 - U)), axis=1) >= 1
    cons = [_cone_rows(X @ U, St, mask), _cone_rows(X @ U2, St, mask), margin]
    obj = cp.Minimize(cp.sum(cp.norm(U, 2, axis=0)) + cp.sum(cp.norm(U2, 2, axis=0)))
    return {"prob": cp.Problem(obj, cons), "U": U, "U2": U2, "margin": margin}


def _resolve_patterns(X: np.ndarray, D: np.ndarray | PatternSet) -> tuple[np.ndarray, np.ndarray | None]:
    """The (p, n) pattern matrix and, for a complete ``PatternSet``, the (n, p) facet mask of the cones."""
    if isinstance(D, PatternSet):
        mask = facet_mask(X, D).T if (D.complete and D.method == "exact-rays") else None
        return D.D, mask
    return np.asarray(D), None


def _finish(kind: str, X: np.ndarray, y: np.ndarray, D: np.ndarray, prob: cp.Problem, U: np.ndarray | None,
            U2: np.ndarray | None, lam: np.ndarray | None, value: float, solver: str, wall: float
            ) -> ConvexResult:
    stats = prob.solver_stats
    solve_time = float(stats.solve_time) if stats is not None and stats.solve_time is not None else math.nan
    compile_time = float(getattr(prob, "compilation_time", None) or max(wall - solve_time, 0.0))
    status = str(prob.status)
    if U is None or U2 is None or lam is None or status not in ("optimal", "optimal_inaccurate"):
        nan = math.nan
        return ConvexResult(value=value, U=U, U2=U2, lam=lam, gap=math.inf,
                            residuals={k: nan for k in ("primal_feasibility", "dual_feasibility",
                                                        "complementarity", "stationarity")},
                            certificate=math.nan, dual_check=None, success=False, status=status,
                            solver=solver, solve_time=solve_time, compile_time=compile_time, problem=kind)
    cert = dual_certificate(lam, X, D)
    res = kkt_residuals(X, y, D, U, U2, lam, certificate=cert.value)
    primal_value = float(np.sum(np.linalg.norm(U, axis=0)) + np.sum(np.linalg.norm(U2, axis=0)))
    gap = duality_gap(primal_value, float(y @ lam))
    return ConvexResult(value=value, U=U, U2=U2, lam=lam, gap=gap, residuals=res, certificate=cert.value,
                        dual_check=cert, success=_judge(res, gap, status), status=status, solver=solver,
                        solve_time=solve_time, compile_time=compile_time, problem=kind)


def convex_primal(X: np.ndarray, y: np.ndarray, D: np.ndarray | PatternSet, *, solver: str = DEFAULT_SOLVER,
                  solver_options: dict | None = None) -> ConvexResult:
    """Solve the convex program (14) over the patterns ``D`` (vectorised over patterns).

    ``D`` is a (p, n) 0/1 array, or a ``PatternSet``: when that set is the complete open-cell enumeration,
    each cone C_j is imposed through its facet rows only (``patterns.facet_mask``; the same cone, about
    3x faster at n = 40, d = 3). ``lam = y * mu`` with ``mu >= 0`` the multipliers of the margin
    constraints (dual variable of (15)). Residuals are always recomputed on all n rows of every cone.
    ``value`` is the optimal objective sum_j ||u_j|| + ||u'_j|| (``inf`` if infeasible).
    """
    D_in = D
    Dm, mask = _resolve_patterns(np.asarray(X, dtype=np.float64), D)
    X, y, D = _check_inputs(X, y, Dm)
    c = _build_primal(X, y, D, mask)
    wall = _solve(c["prob"], solver, solver_options)
    ok = c["U"].value is not None and c["margin"].dual_value is not None
    U = np.array(c["U"].value) if ok else None
    U2 = np.array(c["U2"].value) if ok else None
    lam = y * np.asarray(c["margin"].dual_value).ravel() if ok else None
    value = float(c["prob"].value) if c["prob"].value is not None else math.nan
    result = _finish("primal", X, y, D, c["prob"], U, U2, lam, value, solver, wall)
    result["cones"] = "all rows" if mask is None else "facet rows"
    result["patterns_complete"] = D_in.complete if isinstance(D_in, PatternSet) else None
    return result


def convex_primal_loop(X: np.ndarray, y: np.ndarray, D: np.ndarray | PatternSet, *, solver: str = DEFAULT_SOLVER
                       ) -> ConvexResult:
    """The same program (14) built with a Python loop of per-pattern constraints and no parameters.

    Kept only as the baseline for benchmarking the vectorised ``convex_primal``; results must agree.
    """
    X, y, D = _check_inputs(X, y, D.D if isinstance(D, PatternSet) else D)
    n, d = X.shape
    p = D.shape[0]
    U = cp.Variable((d, p))
    U2 = cp.Variable((d, p))
    cons = []
    f = 0
    obj = 0
    for j in range(p):
        Sj = 2.0 * D[j] - 1.0
        cons.append(cp.multiply(Sj, X @ U[:, j]) >= 0)
        cons.append(cp.multiply(Sj, X @ U2[:, j]) >= 0)
        f = f + cp.multiply(D[j], X @ (U2[:, j] - U[:, j]))
        obj = obj + cp.norm(U[:, j], 2) + cp.norm(U2[:, j], 2)
    margin = cp.multiply(y, f) >= 1
    prob = cp.Problem(cp.Minimize(obj), cons + [margin])
    wall = _solve(prob, solver, None)
    ok = U.value is not None and margin.dual_value is not None
    lam = y * np.asarray(margin.dual_value).ravel() if ok else None
    value = float(prob.value) if prob.value is not None else math.nan
    return _finish("primal-loop", X, y, D, prob, np.array(U.value) if ok else None,
                   np.array(U2.value) if ok else None, lam, value, solver, wall)


# ---------------------------------------------------------------------------------------------------------
# Dual (129)
# ---------------------------------------------------------------------------------------------------------

def _build_dual(X: np.ndarray, y: np.ndarray, D: np.ndarray, mask: np.ndarray | None) -> dict[str, Any]:
    n = X.shape[0]
    p = D.shape[0]
    St = (2.0 * D - 1.0).T
    lam = cp.Variable(n, name="lam")
    if mask is None:
        Z = cp.Variable((n, p), nonneg=True, name="Z")
        Z2 = cp.Variable((n, p), nonneg=True, name="Z2")
        SZ, SZ2 = cp.multiply(St, Z), cp.multiply(St, Z2)
    else:  # multipliers only on facet rows: the same cones, fewer variables
        idx = np.flatnonzero(mask.ravel(order="F"))
        K = sp.csr_matrix((St.ravel(order="F")[idx], (idx, np.arange(idx.size))), shape=(n * p, idx.size))
        Z = cp.Variable(idx.size, nonneg=True, name="Z")
        Z2 = cp.Variable(idx.size, nonneg=True, name="Z2")
        SZ, SZ2 = cp.reshape(K @ Z, (n, p), order="F"), cp.reshape(K @ Z2, (n, p), order="F")
    lam_cols = cp.reshape(lam, (n, 1), order="F") @ np.ones((1, p))
    XDlam = X.T @ cp.multiply(D.T, lam_cols)  # (d, p): column j is X^T D_j lam
    soc_pos = cp.SOC(np.ones(p), XDlam + X.T @ SZ2, axis=0)
    soc_neg = cp.SOC(np.ones(p), -XDlam + X.T @ SZ, axis=0)
    cons = [soc_pos, soc_neg, cp.multiply(y, lam) >= 0]
    return {"prob": cp.Problem(cp.Maximize(y @ lam), cons), "lam": lam, "soc_pos": soc_pos,
            "soc_neg": soc_neg}


def convex_dual(X: np.ndarray, y: np.ndarray, D: np.ndarray | PatternSet, *, solver: str = DEFAULT_SOLVER,
                solver_options: dict | None = None) -> ConvexResult:
    """Solve the dual SOCP (129) over the patterns ``D`` (vectorised over patterns).

    ``value = y^T lam``. The primal blocks are read off the multipliers of the two cone constraints
    (U2[:, j] from the j-th ``||X^T D_j lam + X^T S_j z'_j|| <= 1``, U[:, j] from the other), so the result
    carries a full primal-dual pair and its residuals.
    """
    D_in = D
    Dm, mask = _resolve_patterns(np.asarray(X, dtype=np.float64), D)
    X, y, D = _check_inputs(X, y, Dm)
    c = _build_dual(X, y, D, mask)
    wall = _solve(c["prob"], solver, solver_options)
    ok = c["lam"].value is not None and c["soc_pos"].dual_value is not None
    lam = np.array(c["lam"].value) if ok else None
    U2 = -np.array(c["soc_pos"].dual_value[1]) if ok else None
    U = -np.array(c["soc_neg"].dual_value[1]) if ok else None
    value = float(c["prob"].value) if c["prob"].value is not None else math.nan
    result = _finish("dual", X, y, D, c["prob"], U, U2, lam, value, solver, wall)
    result["cones"] = "all rows" if mask is None else "facet rows"
    result["patterns_complete"] = D_in.complete if isinstance(D_in, PatternSet) else None
    return result
