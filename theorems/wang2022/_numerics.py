"""Numerics for Wang & Pilanci (2022) used by the claim modules.

Thin adapters over ``verify.numerics.patterns`` (exact pattern enumeration) and ``verify.numerics.convex``
(the SOCPs (14), (129) and the exact per-pattern dual certificate), in the (N, p) column layout used here,
plus the paper-specific pieces: the printed sign variant of (129), per-class SVMs (R1), network KKT
residuals, gradient descent and the idealised early-phase flow.

Conventions (spec §1): X in R^{N x d} (rows x_n), y in {+1,-1}^N, network f = (X W1)_+ w2,
patterns are 0/1 matrices ``Dmat`` of shape (N, p) (column j = diagonal of D_j), open cells only.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
from scipy.optimize import nnls

from verify.numerics import convex as _convex
from verify.numerics import patterns as _patterns

# ---------------------------------------------------------------------------------------------
# activation patterns (eq. 6)


def enumerate_patterns(X: np.ndarray) -> np.ndarray:
    """All open-cell activation patterns of X (eq. 6) as an (N, p) 0/1 float matrix (column j = diag D_j).

    Exact enumeration by ``verify.numerics.patterns.enumerate_patterns`` (spec E2/E3); raises if the
    enumeration could not certify completeness.
    """
    ps = _patterns.enumerate_patterns(np.asarray(X, dtype=float))
    if not ps.complete:
        raise ValueError("pattern enumeration not certified complete")
    return ps.D.T.astype(float)


def sampled_patterns(X: np.ndarray, n_samples: int, rng: np.random.Generator) -> np.ndarray:
    """A SUBSET of the patterns from Gaussian directions (spec E4): only an approximation of P."""
    W = rng.normal(size=(X.shape[1], n_samples))
    return np.unique((X @ W > 0).astype(int), axis=1).astype(float)


# ---------------------------------------------------------------------------------------------
# the dual constraint (16)-(17) via per-pattern NNLS certificates


def pattern_value(X: np.ndarray, lam: np.ndarray, Dj: np.ndarray, s: float) -> tuple[float, np.ndarray]:
    """v_j^s(lambda) = max_{u in C_j, ||u|| <= 1} s lambda^T D_j X u (eq. 17, one pattern, one sign).

    Equals min_{z >= 0} || s X^T D_j lambda + X^T (2D_j - I) z || (Pilanci & Ergen 2020, Lemma 4), solved
    exactly by NNLS in ``verify.numerics.convex.dual_certificate``. Returns the value and the unit argmax u.
    """
    cert = _convex.dual_certificate(lam, X, np.asarray(Dj)[None, :])
    k = 0 if s > 0 else 1
    return float(cert["values"][0, k]), cert["argmax"][k, 0]


def dual_constraint_value(X: np.ndarray, lam: np.ndarray, Dmat: np.ndarray) -> float:
    """V(lambda) = max_j max_s v_j^s(lambda) = max_{||u|| <= 1} |lambda^T (X u)_+| (eqs. 16-17; exact when
    ``Dmat`` holds every pattern)."""
    return float(_convex.dual_certificate(lam, X, Dmat.T).value)


def circle_max(X: np.ndarray, lam: np.ndarray, n_grid: int = 20001) -> float:
    """Brute force max_{||u||=1} |lambda^T (X u)_+| over a circle grid plus breakpoints (d = 2 only)."""
    phi = np.linspace(0, 2 * np.pi, n_grid)
    crit = np.arctan2(X[:, 1], X[:, 0])
    phi = np.concatenate([phi, crit + np.pi / 2, crit - np.pi / 2])
    U = np.stack([np.cos(phi), np.sin(phi)])
    return float(np.max(np.abs(lam @ np.maximum(X @ U, 0.0))))


# ---------------------------------------------------------------------------------------------
# data predicates


def orthogonal_separability_slack(X: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """min over pairs of (G_nn' if same label, -G_nn' if different), G = X X^T (Sec. 3.1).

    Orthogonally separable iff same-label products are > 0 and cross-label products <= 0. Returns
    (min(same, -cross), min same-label product, min of -cross-label products).
    """
    G = X @ X.T
    same = np.equal.outer(y, y)
    s_same = float(np.min(G[same]))
    s_cross = float(np.min(-G[~same])) if (~same).any() else np.inf
    return min(s_same, s_cross), s_same, s_cross


def is_orthogonally_separable(X: np.ndarray, y: np.ndarray, tol: float = 1e-12) -> bool:
    _, s_same, s_cross = orthogonal_separability_slack(X, y)
    return bool(s_same > tol and s_cross >= -tol)


def spike_free_margin(X: np.ndarray) -> float:
    """Exact test for full row rank X (N <= d, spec R3): spike-free iff offdiag((X X^T)^{-1}) <= 0.

    Returns -max offdiag (>= 0 iff spike-free); -inf when rank X < N (then generically not spike-free,
    see :func:`spike_free_range_residual`).
    """
    N = X.shape[0]
    G = X @ X.T
    if np.linalg.matrix_rank(G) < N:
        return -np.inf
    M = np.linalg.inv(G)
    off = M[~np.eye(N, dtype=bool)]
    return float(-np.max(off)) if off.size else np.inf


def spike_free_sampled(X: np.ndarray, rng: np.random.Generator, n: int = 20000) -> tuple[float, float]:
    """Definition 2 by sampling: (max ||X^+ (Xu)_+||, max range residual ||(I - X X^+)(Xu)_+||) over unit u.

    Sampling can only certify "not spike-free" (max > 1 or residual > 0).
    """
    U = rng.normal(size=(X.shape[1], n))
    U /= np.linalg.norm(U, axis=0)
    R = np.maximum(X @ U, 0.0)
    Xp = np.linalg.pinv(X)
    Z = Xp @ R
    resid = R - X @ Z
    return float(np.max(np.linalg.norm(Z, axis=0))), float(np.max(np.linalg.norm(resid, axis=0)))


# ---------------------------------------------------------------------------------------------
# hard-margin SVM through the origin (Lawson-Hanson least-distance programming)


def min_norm_feasible(G: np.ndarray, h: np.ndarray) -> np.ndarray:
    """argmin ||u|| s.t. G u >= h via Lawson & Hanson's LDP algorithm (an NNLS, exact).

    NNLS on E = [G^T; h^T], f = e_{d+1}; r = E a - f; u = -r[:d] / r[d]. Raises if infeasible.
    """
    d = G.shape[1]
    E = np.vstack([G.T, h[None, :]])
    f = np.zeros(d + 1)
    f[-1] = 1.0
    a, _ = nnls(E, f, maxiter=100 * E.shape[1])
    r = E @ a - f
    if abs(r[-1]) < 1e-14:
        raise ValueError("infeasible system G u >= h")
    return -r[:d] / r[-1]


def class_svm(Xc: np.ndarray) -> np.ndarray:
    """u = argmin ||u|| s.t. Xc u >= 1 (bias-free hard-margin SVM of one class; spec R1)."""
    return min_norm_feasible(Xc, np.ones(Xc.shape[0]))


def os_closed_form(X: np.ndarray, y: np.ndarray) -> dict:
    """Closed-form optimum for orthogonally separable data (spec R1).

    P* = ||u_+|| + ||u_-||, lambda*_n = y_n alpha_n / ||u_{sign y_n}||, where u_± are the per-class SVMs and
    alpha their dual weights (u_± = sum alpha_n x_n over the class).
    """
    out = {"P": 0.0, "lam": np.zeros(len(y)), "u": {}}
    for s in (1, -1):
        idx = np.where(y == s)[0]
        if idx.size == 0:
            continue
        u = class_svm(X[idx])
        alpha, _ = nnls(X[idx].T, u)
        out["u"][s] = u
        out["P"] += float(np.linalg.norm(u))
        out["lam"][idx] = s * alpha / np.linalg.norm(u)
    return out


# ---------------------------------------------------------------------------------------------
# convex program (14) and its dual (15)/(129)


def convex_primal(X: np.ndarray, y: np.ndarray, Dmat: np.ndarray) -> dict:
    """Solve (14) over the patterns ``Dmat`` (N, p) with ``verify.numerics.convex.convex_primal``.

    Returns value (inf if infeasible), U (negative blocks), U2 (positive blocks), lam (= y * margin
    multipliers), f, the recomputed primal infeasibility, status and the shared result's residuals.
    """
    r = _convex.convex_primal(X, y, np.asarray(Dmat).T)
    if r.U is None or not np.isfinite(r.value):
        return {"status": r.status, "value": np.inf}
    f = np.sum(Dmat * (X @ (r.U2 - r.U)), axis=1)
    return {"status": r.status, "value": float(r.value), "U": r.U, "U2": r.U2, "lam": np.asarray(r.lam),
            "f": f, "primal_infeasibility": float(r.residuals["primal_feasibility"]), "residuals": r.residuals}


def convex_dual(X: np.ndarray, y: np.ndarray, Dmat: np.ndarray, *, printed_signs: bool = False) -> dict:
    """Solve the finite dual (129): max y^T lambda s.t. Y lambda >= 0 and, for every pattern j,
    ||X^T D_j lambda + X^T (2D_j - I) z'_j|| <= 1, ||-X^T D_j lambda + X^T (2D_j - I) z_j|| <= 1, z, z' >= 0
    (``verify.numerics.convex.convex_dual``). ``printed_signs`` solves the paper's printed variant with
    "- X^T (2D_j - I) z" in both norms instead (equivalent, spec §1.7), built here.
    """
    if not printed_signs:
        r = _convex.convex_dual(X, y, np.asarray(Dmat).T)
        lam = None if r.lam is None else np.asarray(r.lam)
        return {"status": r.status, "value": float(r.value) if lam is not None else np.inf, "lam": lam}
    import cvxpy as cp

    N = X.shape[0]
    p = Dmat.shape[1]
    S = 2 * Dmat - 1
    lam = cp.Variable(N)
    Z = cp.Variable((N, p), nonneg=True)
    Z2 = cp.Variable((N, p), nonneg=True)
    DL = cp.multiply(Dmat, cp.reshape(lam, (N, 1), order="F") @ np.ones((1, p)))
    cons = [cp.norm(X.T @ DL - X.T @ cp.multiply(S, Z2), 2, axis=0) <= 1,
            cp.norm(-X.T @ DL - X.T @ cp.multiply(S, Z), 2, axis=0) <= 1,
            cp.multiply(y, lam) >= 0]
    prob = cp.Problem(cp.Maximize(y @ lam), cons)
    prob.solve(solver="CLARABEL", **_convex.DEFAULT_SOLVER_OPTIONS["CLARABEL"])
    if lam.value is None:
        return {"status": prob.status, "value": np.inf}
    return {"status": prob.status, "value": float(y @ lam.value), "lam": np.asarray(lam.value)}


def convex_to_network(U: np.ndarray, U2: np.ndarray, tol: float = 1e-7) -> tuple[np.ndarray, np.ndarray]:
    """Map convex blocks to a balanced network (spec §1.6): u -> (u/sqrt||u||, ±sqrt||u||)."""
    cols, w2 = [], []
    scale = max(np.max(np.linalg.norm(U, axis=0)), np.max(np.linalg.norm(U2, axis=0)))
    for M, s in ((U2, 1.0), (U, -1.0)):
        for u in M.T:
            nu = np.linalg.norm(u)
            if nu > tol * scale:
                cols.append(u / np.sqrt(nu))
                w2.append(s * np.sqrt(nu))
    return np.array(cols).T, np.array(w2)


@lru_cache(maxsize=256)
def _cached_solution(key: bytes, shape: tuple, ykey: bytes) -> dict:
    X = np.frombuffer(key).reshape(shape)
    y = np.frombuffer(ykey)
    Dmat = enumerate_patterns(X)
    sol = convex_primal(X, y, Dmat)
    sol["Dmat"] = Dmat
    return sol


def solve_convex(X: np.ndarray, y: np.ndarray) -> dict:
    """(14) over the complete pattern set, cached on the data."""
    X = np.ascontiguousarray(X, dtype=float)
    y = np.ascontiguousarray(y, dtype=float)
    return _cached_solution(X.tobytes(), X.shape, y.tobytes())


# ---------------------------------------------------------------------------------------------
# network quantities and (sub)gradient descent on the logistic loss (eqs. 3, 18-19)


def lambda_tilde(q: np.ndarray, y: np.ndarray) -> np.ndarray:
    """lambda~_n = -y_n l'(q_n) = y_n / (1 + e^{q_n}) (eq. 19), in log-domain."""
    return y * np.exp(-np.logaddexp(0.0, q))


def g_vec(X: np.ndarray, u: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """g(u, lambda) = X^T D(u) lambda with the strict pattern D(u) = diag(1(Xu > 0)) (eqs. 20-21)."""
    return X.T @ ((X @ u > 0) * lam)


def normalised_cost(X: np.ndarray, y: np.ndarray, W1: np.ndarray, w2: np.ndarray) -> float:
    """R(theta) = sum_i ||w_{1,i}|| |w_{2,i}| / q_min (spec §1.4); >= P* whenever q_min > 0."""
    q = y * (np.maximum(X @ W1, 0.0) @ w2)
    qmin = float(np.min(q))
    return float(np.sum(np.linalg.norm(W1, axis=0) * np.abs(w2)) / qmin) if qmin > 0 else np.inf


def gd_batched(X: np.ndarray, y: np.ndarray, W1: np.ndarray, w2: np.ndarray, *, steps: int,
               eta0: float, cap: float = np.inf, adaptive: bool = True, qstop: float = 600.0,
               record_every: int = 0) -> dict:
    """Sub-gradient descent on the logistic loss for a batch of networks (eqs. 18-19, 0 at kinks).

    Shapes: X (B, N, d), y (B, N), W1 (B, d, m), w2 (B, m). Step eta_k = min(eta0 / L_k, cap) when
    ``adaptive`` (spec R6: same path as gradient flow, reparametrised), else eta0. A network stops when
    its q_min exceeds ``qstop`` (log-domain loss would underflow).
    """
    W1 = W1.copy()
    w2 = w2.copy()
    B = W1.shape[0]
    active = np.ones(B, dtype=bool)
    trace = []
    for k in range(steps):
        Z = np.einsum("bnd,bdm->bnm", X, W1)
        A = Z > 0
        H = np.where(A, Z, 0.0)
        q = y * np.einsum("bnm,bm->bn", H, w2)
        lt = lambda_tilde(q, y)
        L = np.sum(np.logaddexp(0.0, -q), axis=1)
        active &= np.min(q, axis=1) < qstop
        if not active.any():
            break
        eta = np.minimum(eta0 / np.maximum(L, 1e-300), cap) if adaptive else np.full(B, eta0)
        eta = np.where(active, eta, 0.0)
        G1 = np.einsum("bnd,bnm->bdm", X, A * lt[:, :, None]) * w2[:, None, :]
        G2 = np.einsum("bnm,bn->bm", H, lt)
        W1 += eta[:, None, None] * G1
        w2 += eta[:, None] * G2
        if record_every and k % record_every == 0:
            trace.append((k, W1.copy(), w2.copy()))
    return {"W1": W1, "w2": w2, "steps": k + 1, "trace": trace}


def balanced_init(rng: np.random.Generator, B: int, d: int, m: int, r0: float) -> tuple[np.ndarray, np.ndarray]:
    """Scaled initialisation: w_{1,i} = r0 u_i (u uniform on the sphere), w_{2,i} = ±r0."""
    U = rng.normal(size=(B, d, m))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    s = rng.choice([-1.0, 1.0], size=(B, m))
    return r0 * U, r0 * s


def sphere_flow(X: np.ndarray, lam: np.ndarray, U: np.ndarray, s: np.ndarray, *, dt: float, steps: int,
                record: bool = False) -> dict:
    """Idealised early-phase direction flow (23) with lambda~ frozen at ``lam`` (exact as r0 -> 0):
    du/dt = s (g - (u^T g) u), g = X^T D(u) lam, explicit Euler + renormalisation, vectorised over the
    columns of U (d, m). Records the per-step literal alignment cos(u, s X^T D(u) lam).
    """
    U = U / np.linalg.norm(U, axis=0)
    best = np.full(U.shape[1], -np.inf)
    first_hit = {}
    cos_hist = []
    for k in range(steps):
        A = (X @ U > 0)
        G = X.T @ (A * lam[:, None])
        ng = np.linalg.norm(G, axis=0)
        c = np.where(ng > 0, s * np.sum(U * G, axis=0) / np.maximum(ng, 1e-300), -np.inf)
        best = np.maximum(best, c)
        if record:
            cos_hist.append(c)
        for delta in (1e-1, 1e-2, 1e-3, 1e-4):
            hit = (c >= 1 - delta)
            prev = first_hit.get(delta, np.full(U.shape[1], np.inf))
            first_hit[delta] = np.where(hit & ~np.isfinite(prev), k * dt, prev)
        U = U + dt * s * (G - np.sum(U * G, axis=0) * U)
        U /= np.linalg.norm(U, axis=0)
    return {"U": U, "best_cos": best, "first_hit": first_hit,
            "cos_hist": np.array(cos_hist) if record else None}


def clarke_alignment(X: np.ndarray, u: np.ndarray, lam: np.ndarray, tau: float = 1e-2) -> float:
    """Clarke-relaxed alignment: max over a in [0,1]^B of cos(u, X^T (D(u) + diag(a)) lam), B = near-boundary
    set {n : |x_n^T u| <= tau ||x_n||} (spec §3, prop6). Solved by bounded least squares on the tangent
    component: minimise ||P_perp (g0 + Xb^T diag(lam_b) a)||, then cos = (u^T g)/||g||.
    """
    from scipy.optimize import lsq_linear

    z = X @ u
    bnd = np.abs(z) <= tau * np.linalg.norm(X, axis=1)
    g0 = X.T @ (((z > 0) & ~bnd) * lam)
    if not bnd.any():
        ng = np.linalg.norm(g0)
        return float(u @ g0 / ng) if ng > 0 else -np.inf
    Bm = (X[bnd] * lam[bnd][:, None]).T
    Pp = np.eye(len(u)) - np.outer(u, u)
    res = lsq_linear(Pp @ Bm, -Pp @ g0, bounds=(0.0, 1.0))
    g = g0 + Bm @ res.x
    ng = np.linalg.norm(g)
    return float(u @ g / ng) if ng > 0 else -np.inf


# ---------------------------------------------------------------------------------------------
# KKT points of the non-convex max-margin problem (13) (App. B.2)


def nonconvex_kkt(X: np.ndarray, y: np.ndarray, W1: np.ndarray, w2: np.ndarray, lam: np.ndarray, *,
                  tau: float = 1e-7, clarke: bool = False) -> dict:
    """KKT residuals of (13) at (W1, w2, lambda), B-subdifferential (default) or Clarke version.

    Stationarity: w_{1,i} = w_{2,i} X^T D^_i lambda with (D^_i)_n = 1(x_n^T w_{1,i} > 0) off the boundary set
    B_i = {n : |x_n^T w_{1,i}| <= tau ||x_n|| ||w_{1,i}||} and (D^_i)_n in {0,1} (B) or [0,1] (Clarke) on it;
    w_2 = (X W1)_+^T lambda; complementarity lambda_n (y_n f_n - 1) = 0; Y lambda >= 0; Y f >= 1.
    Returns the four residuals by name, the chosen D^_i (N x m) and ||X^T D^_i lambda|| per neuron.
    """
    from scipy.optimize import lsq_linear

    N, m = X.shape[0], W1.shape[1]
    Z = X @ W1
    f = np.maximum(Z, 0.0) @ w2
    scale = max(1.0, float(np.max(np.abs(W1))))
    stat, Dhat = 0.0, np.zeros((N, m))
    for i in range(m):
        w = W1[:, i]
        if abs(w2[i]) <= 1e-12 * scale:
            continue
        bnd = np.abs(Z[:, i]) <= tau * np.linalg.norm(X, axis=1) * np.linalg.norm(w)
        d = ((Z[:, i] > 0) & ~bnd).astype(float)
        t = w / w2[i]
        r0 = t - X.T @ (d * lam)
        Bm = (X[bnd] * lam[bnd][:, None]).T
        if not bnd.any():
            best, choice = float(np.linalg.norm(r0)), np.zeros(0)
        elif clarke:
            sol = lsq_linear(Bm, r0, bounds=(0.0, 1.0))
            choice = sol.x
            best = float(np.linalg.norm(r0 - Bm @ choice))
        else:
            if bnd.sum() > 12:
                raise ValueError("too many boundary indices to enumerate B-subgradients")
            combos = np.array(list(itertools.product((0.0, 1.0), repeat=int(bnd.sum()))))
            res = np.linalg.norm(r0[None, :] - combos @ Bm.T, axis=1)
            k = int(np.argmin(res))
            best, choice = float(res[k]), combos[k]
        d[bnd] = choice
        Dhat[:, i] = d
        stat = max(stat, best / max(np.linalg.norm(t), 1e-300))
    w2_res = float(np.max(np.abs(w2 - np.maximum(Z, 0.0).T @ lam))) / scale
    comp = float(np.max(np.abs(lam) * np.abs(y * f - 1)))
    dual_sign = float(max(0.0, np.max(-y * lam)))
    primal = float(max(0.0, np.max(1 - y * f)))
    norms = np.linalg.norm(X.T @ (Dhat * lam[:, None]), axis=0)
    return {"stationarity": stat, "w2_stationarity": w2_res, "complementarity": comp,
            "dual_sign": dual_sign, "primal_feasibility": primal, "Dhat": Dhat, "dual_norms": norms,
            "max_residual": max(stat, w2_res, comp, dual_sign, primal)}


def restricted_kkt_points(X: np.ndarray, y: np.ndarray, Dmat: np.ndarray, rng: np.random.Generator,
                          n_tries: int, subset_size: int, tol: float = 1e-6) -> list[dict]:
    """Candidate KKT points of (13): solutions of (14) restricted to random pattern subsets, mapped to
    networks, kept when the B-KKT residuals of (13) are <= tol (spec §3 prop3 source (b))."""
    out = []
    p = Dmat.shape[1]
    for _ in range(n_tries):
        S = rng.choice(p, size=min(subset_size, p), replace=False)
        sol = convex_primal(X, y, Dmat[:, S])
        if not np.isfinite(sol["value"]) or sol["primal_infeasibility"] > 1e-7:
            continue
        W1, w2 = convex_to_network(sol["U"], sol["U2"])
        kkt = nonconvex_kkt(X, y, W1, w2, sol["lam"])
        if kkt["max_residual"] <= tol:
            out.append({"W1": W1, "w2": w2, "lam": sol["lam"], "value": sol["value"], "kkt": kkt})
    return out


def per_point_network(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The "split" candidate: one neuron per data point, u_n = x_n / ||x_n||^2 with output sign y_n,
    balanced, with multipliers lambda_n = y_n / ||x_n|| (a KKT point of (13) when x_m^T x_n <= 0, m != n;
    spec §3 thm3, MC3)."""
    nx = np.linalg.norm(X, axis=1)
    U = (X / nx[:, None] ** 2).T
    nu = np.linalg.norm(U, axis=0)
    return U / np.sqrt(nu), y * np.sqrt(nu), y / nx


def kkt_candidates(X: np.ndarray, y: np.ndarray, Dmat: np.ndarray, rng: np.random.Generator, *,
                   n_restricted: int = 6, tol: float = 1e-5, clarke: bool = False) -> list[dict]:
    """Certified KKT points of (13): the global convex optimum mapped to a network, the per-point split
    network, and restricted-pattern optima; each kept only if its KKT residuals are <= tol."""
    cands = []
    sol = convex_primal(X, y, Dmat)
    if np.isfinite(sol["value"]):
        W1, w2 = convex_to_network(sol["U"], sol["U2"], tol=1e-6)
        cands.append(("global convex optimum", W1, w2, sol["lam"]))
    W1, w2, lam = per_point_network(X, y)
    cands.append(("per-point split network", W1, w2, lam))
    p = Dmat.shape[1]
    for _ in range(n_restricted):
        S = rng.choice(p, size=max(2, p // 2), replace=False)
        r = convex_primal(X, y, Dmat[:, S])
        if np.isfinite(r["value"]) and r["primal_infeasibility"] <= 1e-7:
            W1, w2 = convex_to_network(r["U"], r["U2"], tol=1e-6)
            cands.append(("restricted-pattern optimum", W1, w2, r["lam"]))
    out = []
    for name, W1, w2, lam in cands:
        kkt = nonconvex_kkt(X, y, W1, w2, lam, tau=1e-6, clarke=clarke)
        value = float(np.sum(np.linalg.norm(W1, axis=0) * np.abs(w2)))
        out.append({"source": name, "W1": W1, "w2": w2, "lam": lam, "kkt": kkt, "value": value,
                    "certified": kkt["max_residual"] <= tol})
    return out
