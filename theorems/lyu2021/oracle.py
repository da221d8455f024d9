"""Exact global max-margin certificates in d = 2 (Lyu et al. 2021, Thm 4.2): the cell SOCP of
:mod:`verify.numerics.global_margin` solved together with its dual, so that the dual certifies the
structure of *every* global maximiser, not only of the one the solver returned.

With u = a w for a balanced neuron, a phi(<w, x>) = h <u, x> (h = 1 where <w, x> > 0, alpha elsewhere) and
||theta||^2 = 2 sum ||u||. Neurons of one activation cell R (an arc of the arrangement {w : <w, x_i> = 0})
and one output sign s merge, so over all widths

    v* = min sum_j ||u_j||   s.t.  y_i sum_j h_ji <u_j, x_i> >= 1     (multiplier lam_i >= 0)
                                   s_j sigma_ji <u_j, x_i> >= 0       (multiplier nu_ji >= 0)

with j = (R, s), and gamma* = 1/(2 v*). Stationarity of the Lagrangian reads ``g_j in d||u_j||`` with

    g_j = sum_i lam_i y_i h_ji x_i + sum_i nu_ji s_j sigma_ji x_i :

||g_j|| <= 1 for every block, and u_j != 0 forces u_j = ||u_j|| g_j. By strong duality this holds for
*every* primal optimum with any one dual optimum, so a block with ||g_j|| < 1 is empty in every global
maximiser, and a block with ||g_j|| = 1 can only hold neurons along g_j.
"""

from __future__ import annotations

from dataclasses import dataclass

import cvxpy as cp
import numpy as np

from verify.numerics.global_margin import arrangement_cells_2d


@dataclass(frozen=True)
class DualCertificate:
    """Primal-dual solution of the cell SOCP on data scaled to max ||x_i|| = 1.

    ``gamma`` = 1/(2 v*) in the original scale; ``blocks`` = (cell direction, sign) per block j;
    ``U`` the primal blocks; ``lam``, ``nu`` the multipliers; ``g`` the stationarity vectors g_j; the four
    KKT residuals by name (``primal``, ``dual``, ``gap``, ``stationarity``: max_j ||u_j - ||u_j|| g_j|| / v*), all relative; ``status``.
    """

    gamma: float
    cells: np.ndarray
    signs: np.ndarray
    U: np.ndarray
    lam: np.ndarray
    nu: np.ndarray
    g: np.ndarray
    primal: float
    dual: float
    gap: float
    stationarity: float
    status: str
    scale: float


def margin_socp_dual_2d(X: np.ndarray, y: np.ndarray, alpha: float, signs: tuple = (1.0, -1.0),
                        extra_cut_directions: np.ndarray | None = None, tight: bool = False) -> DualCertificate:
    """Solve the cell SOCP (module docstring) with CLARABEL and return its dual certificate, every residual
    recomputed from the returned values. ``extra_cut_directions`` refines the arrangement by the lines
    orthogonal to the given vectors (the optimum does not change: a finer partition merges back). ``tight``:
    CLARABEL's gap and feasibility tolerances at 1e-11 (default 1e-8), for a sharper certificate."""
    if X.shape[1] != 2:
        raise ValueError("the exact cell SOCP is implemented for d = 2")
    scale = float(np.max(np.linalg.norm(X, axis=1)))
    Xs = X / scale
    cut = Xs if extra_cut_directions is None else np.vstack([Xs, extra_cut_directions])
    cells = arrangement_cells_2d(cut)
    S = np.sign(Xs @ cells.T)                          # (n, R): sigma_{R,i}
    if np.any(S == 0):
        raise ValueError("a cell midpoint is orthogonal to a data point")
    Hc = np.where(S > 0, 1.0, alpha)
    R, ns = cells.shape[0], len(signs)
    sg = np.tile(np.asarray(signs, dtype=float), R)    # block j = ns r + k: cell r, sign signs[k]
    cell_of = np.repeat(np.arange(R), ns)
    Scol = S[:, cell_of] * sg[None, :]
    Hcol = Hc[:, cell_of]
    U = cp.Variable((ns * R, 2))
    P = Xs @ U.T
    c_sign = cp.multiply(Scol, P) >= 0
    c_marg = cp.multiply(y, cp.sum(cp.multiply(Hcol, P), axis=1)) >= 1
    prob = cp.Problem(cp.Minimize(cp.sum(cp.norm(U, axis=1))), [c_sign, c_marg])
    opts = dict(tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11, max_iter=400) if tight else {}
    prob.solve(solver=cp.CLARABEL, **opts)
    if U.value is None or c_marg.dual_value is None:
        nan = float("nan")
        return DualCertificate(nan, cells, sg, np.zeros((0, 2)), np.zeros(0), np.zeros((0, 0)), np.zeros((0, 2)),
                               nan, nan, nan, nan, str(prob.status), scale)
    Uv = np.asarray(U.value)
    lam = np.asarray(c_marg.dual_value, dtype=float)
    nu = np.asarray(c_sign.dual_value, dtype=float)
    # g_j = sum_i lam_i y_i h_ji x_i + sum_i nu_ij s_j sigma_ji x_i
    g = (Hcol * (lam * y)[:, None]).T @ Xs + (nu * Scol).T @ Xs
    norms = np.linalg.norm(Uv, axis=1)
    vp = float(norms.sum())
    Pv = Xs @ Uv.T
    primal = max(float(np.max(np.maximum(1 - y * np.sum(Hcol * Pv, axis=1), 0))),
                 float(np.max(np.maximum(-Scol * Pv, 0))) / max(vp, 1e-300))
    dual = max(float(np.max(np.maximum(-lam, 0))) / max(lam.max(), 1e-300),
               float(np.max(np.maximum(-nu, 0))) / max(lam.max(), 1e-300),
               float(np.max(np.linalg.norm(g, axis=1))) - 1.0)
    gap = abs(vp - float(lam.sum())) / vp
    # ||u_j - ||u_j|| g_j|| relative to the objective (blocks of solver-noise size carry no direction)
    stat = float(np.max(np.linalg.norm(Uv - norms[:, None] * g, axis=1))) / vp
    return DualCertificate(scale / (2 * vp), cells, sg, Uv, lam, nu, g, primal, max(dual, 0.0), gap, stat,
                           str(prob.status), scale)


def linear_structure(cert: DualCertificate, w_star: np.ndarray, tau: float = 1e-6) -> dict:
    """What the dual says about every global maximiser (module docstring).

    Blocks with ||g_j|| <= 1 - tau are empty in every optimum. For the others ("open" blocks) it returns
    the sine of the angle between g_j and w*, and whether the block is one of the two blocks of the
    linear solution: (cell containing w*, s = +1) or (cell containing -w*, s = -1); in both, u = a w is a
    positive multiple of w*. Also the smallest certified gap 1 - ||g_j|| over the closed blocks.
    """
    gn = np.linalg.norm(cert.g, axis=1)
    open_ = gn > 1 - tau
    cell_dirs = cert.cells[np.repeat(np.arange(len(cert.cells)), len(cert.signs) // len(cert.cells))]
    wdir = cert.signs[:, None] * cell_dirs                       # direction of w for a neuron of block j (up to scale)
    sines = np.abs(cert.g[:, 0] * w_star[1] - cert.g[:, 1] * w_star[0]) / np.maximum(gn, 1e-300)
    along = cert.g @ w_star > 0
    # a neuron of block j with u = c g_j (c > 0) has w = s u/|a| along s g_j: it must lie in the block's cell
    in_cell = np.array([float(np.sign(cert.signs[j]) * (cell_dirs[j] @ cert.g[j])) > 0 for j in range(len(gn))])
    linear_block = np.array([(along[j] and ((cert.signs[j] > 0 and cell_dirs[j] @ w_star > 0)
                                            or (cert.signs[j] < 0 and cell_dirs[j] @ w_star < 0)))
                             for j in range(len(gn))])
    closed_gap = float(np.min(1 - gn[~open_])) if (~open_).any() else float("inf")
    return {"open": np.flatnonzero(open_), "sines": sines[open_], "linear_block": linear_block[open_],
            "in_cell": in_cell[open_], "closed_gap": closed_gap, "wdir": wdir[open_], "g_norms": gn}


def two_block_lp(X: np.ndarray, y: np.ndarray, alpha: float, w_star: np.ndarray) -> tuple[np.ndarray, float]:
    """The SOCP restricted to the two blocks of the linear solution, u_1 = c_1 w* (s = +1, w along w*) and
    u_2 = c_2 w* (s = -1, w along -w*): f = c_1 phi(<w*, x>) - c_2 phi(-<w*, x>). An LP in (c_1, c_2) >= 0:
    min c_1 + c_2 s.t. y_i (c_1 phi(z_i) - c_2 phi(-z_i)) >= 1, z_i = <w*, x_i>. Solved in closed form
    from its two tightest constraints (symmetric data: c_1 + alpha c_2 >= 1/g, alpha c_1 + c_2 >= 1/g with
    g = gamma_lin, unique optimum c_1 = c_2 = 1/((1+alpha) g) for alpha < 1); returns (c, residual of
    the optimality conditions recomputed by an LP solve)."""
    from scipy.optimize import linprog

    z = X @ w_star
    phi = np.maximum
    A = -(y[:, None] * np.stack([phi(z, alpha * z), -phi(-z, -alpha * z)], axis=1))
    res = linprog([1.0, 1.0], A_ub=A, b_ub=-np.ones(len(y)), bounds=[(0, None), (0, None)], method="highs")
    if res.x is None:
        return np.array([np.nan, np.nan]), float("inf")
    # uniqueness: perturb the objective both ways; a unique optimum does not move
    moved = 0.0
    for e in ((1.0, 1.0 + 1e-6), (1.0 + 1e-6, 1.0)):
        r2 = linprog(list(e), A_ub=A, b_ub=-np.ones(len(y)), bounds=[(0, None), (0, None)], method="highs")
        moved = max(moved, float(np.max(np.abs(r2.x - res.x))) / float(np.max(np.abs(res.x))))
    return np.asarray(res.x), moved
