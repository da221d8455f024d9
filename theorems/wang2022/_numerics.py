"""Paper-specific numerics for Wang & Pilanci (2022); everything generic comes from ``verify.numerics``.

Shared primitives used by the claim modules directly: ``patterns`` (exact / sampled activation patterns,
orthogonal separability, spike-freeness), ``convex`` (the SOCPs (14), (129) and the exact per-pattern dual
certificate V(lambda)), ``margin.svm_class`` (per-class SVMs, R1), ``nets`` and ``flow`` (logistic loss,
gradients, gradient descent). What is left here has no shared counterpart: the printed sign variant of (129),
the closed form for orthogonally separable data, the convex-to-network map, the non-convex KKT residuals of
(13), the idealised early-phase flow (23) and brute-force d = 2 oracles.

Conventions (spec §1, shared layout): X in R^{N x d} (rows x_n), y in {+1,-1}^N, patterns are 0/1 matrices
``D`` of shape (p, N) (row j = diagonal of D_j, ``PatternSet.D``), open cells only. A network here is
``W1`` (d, m), ``w2`` (m,) with f = (X W1)_+ w2, i.e. ``verify.numerics.nets``'s (W, a) = (W1.T, w2).
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import cvxpy as cp
import numpy as np
from scipy.optimize import lsq_linear

from verify.numerics import _jit, _kernels, convex
from verify.numerics.flow import normalized_gradient_descent
from verify.numerics.margin import svm_class
from verify.numerics.patterns import enumerate_patterns

# ---------------------------------------------------------------------------------------------
# activation patterns (eq. 6) and brute-force oracles


def complete_patterns(X: np.ndarray) -> np.ndarray:
    """All open-cell activation patterns of X (eq. 6) as a (p, N) 0/1 float matrix (row j = diag D_j).

    ``verify.numerics.patterns.enumerate_patterns`` (spec E2/E3); raises unless it certified completeness,
    since V(lambda) over the result is used as an exact dual-feasibility certificate.
    """
    ps = enumerate_patterns(X)
    if not ps.complete:
        raise ValueError("pattern enumeration not certified complete")
    return ps.D.astype(float)


def circle_max(X: np.ndarray, lam: np.ndarray, n_grid: int = 20001) -> float:
    """Brute force max_{||u||=1} |lambda^T (X u)_+| over a circle grid plus breakpoints (d = 2 only)."""
    phi = np.linspace(0, 2 * np.pi, n_grid)
    crit = np.arctan2(X[:, 1], X[:, 0])
    phi = np.concatenate([phi, crit + np.pi / 2, crit - np.pi / 2])
    U = np.stack([np.cos(phi), np.sin(phi)])
    return float(np.max(np.abs(lam @ np.maximum(X @ U, 0.0))))


def sup_alignment(X: np.ndarray, lam: np.ndarray, s: float, D: np.ndarray | None = None) -> dict:
    """sup over unit u of cos(u, s X^T D(u) lambda), D(u) = diag(1(Xu > 0)) (Sec. 2), without a trajectory.

    On the open cell of pattern D_j the direction g_j = X^T D_j lambda is fixed, so the supremum over the cell
    is max over its closure C_j of s g_j^T u / ||g_j|| = v_j^s(lambda) / ||g_j|| (the per-pattern NNLS value of
    ``convex.dual_certificate``, exact); a unit u on a face has the pattern of an adjacent cell whose closure
    contains it, and dead patterns (g_j = 0) have no angle. Returns the supremum (-inf when every pattern is
    dead or has v_j^s = 0), the pattern attaining it and ``matched``: whether some u has s lambda^T (Xu)_+ > 0
    (sign-matched neurons (9) exist).
    """
    D = complete_patterns(X) if D is None else D
    cert = convex.dual_certificate(lam, X, D)
    col = 0 if s > 0 else 1
    v = cert["pattern_values"][:, col]
    g = np.linalg.norm(X.T @ (D * lam).T, axis=0)
    cos = np.where((g > 1e-12) & (v > 0), v / np.maximum(g, 1e-300), -np.inf)
    j = int(np.argmax(cos))
    return {"sup": float(cos[j]), "pattern": D[j], "matched": bool(v.max() > 1e-12)}


def grid_alignment(X: np.ndarray, lam: np.ndarray, s: float, n_grid: int = 200001) -> float:
    """Brute-force sup of cos(u, s X^T D(u) lambda) over a circle grid (d = 2): the second method for
    ``sup_alignment`` (the supremum is approached, not attained, at a hyperplane, so the grid value is slightly
    below it)."""
    phi = np.linspace(0, 2 * np.pi, n_grid, endpoint=False)
    U = np.stack([np.cos(phi), np.sin(phi)])
    G = X.T @ ((X @ U > 0) * lam[:, None])
    ng = np.linalg.norm(G, axis=0)
    cos = np.where(ng > 1e-12, s * np.sum(U * G, axis=0) / np.maximum(ng, 1e-300), -np.inf)
    return float(cos.max())


def spike_free_sampled(X: np.ndarray, rng: np.random.Generator, n: int = 20000) -> tuple[float, float]:
    """Definition 2 by sampling: (max ||X^+ (Xu)_+||, max range residual ||(I - X X^+)(Xu)_+||) over unit u.

    An independent check of ``patterns.is_spike_free``: sampling can only certify "not spike-free"
    (max > 1 or residual > 0).
    """
    U = rng.normal(size=(X.shape[1], n))
    U /= np.linalg.norm(U, axis=0)
    R = np.maximum(X @ U, 0.0)
    Xp = np.linalg.pinv(X)
    Z = Xp @ R
    resid = R - X @ Z
    return float(np.max(np.linalg.norm(Z, axis=0))), float(np.max(np.linalg.norm(resid, axis=0)))


# ---------------------------------------------------------------------------------------------
# convex program (14), its dual (15)/(129) and the OS closed form


def os_closed_form(X: np.ndarray, y: np.ndarray) -> dict:
    """Closed-form optimum for orthogonally separable data (spec R1).

    P* = ||u_+|| + ||u_-||, lambda*_n = y_n alpha_n / ||u_{sign y_n}||, where u_± are the per-class SVMs
    (``margin.svm_class``) and alpha their dual weights (u_± = sum alpha_n x_n over the class).
    """
    out = {"P": 0.0, "lam": np.zeros(len(y)), "u": {}}
    for s in (1, -1):
        idx = np.where(y == s)[0]
        if idx.size == 0:
            continue
        svm = svm_class(X[idx])
        if not np.all(np.isfinite(svm.w)):
            raise ValueError(f"class {s} is not separable from the origin: {svm.message}")
        out["u"][s] = svm.w
        out["P"] += float(np.linalg.norm(svm.w))
        out["lam"][idx] = s * svm.multipliers / np.linalg.norm(svm.w)
    return out


def convex_dual_printed(X: np.ndarray, y: np.ndarray, D: np.ndarray) -> dict:
    """The dual (129) as printed: "- X^T (2D_j - I) z" in both norms (``convex.convex_dual`` solves the
    sign-corrected form; the two are equivalent, spec §1.7). ``D`` is (p, N). Returns status, value, lam.
    """
    N = X.shape[0]
    p = D.shape[0]
    St = (2 * D - 1).T
    lam = cp.Variable(N)
    Z = cp.Variable((N, p), nonneg=True)
    Z2 = cp.Variable((N, p), nonneg=True)
    DL = cp.multiply(D.T, cp.reshape(lam, (N, 1), order="F") @ np.ones((1, p)))
    cons = [cp.norm(X.T @ DL - X.T @ cp.multiply(St, Z2), 2, axis=0) <= 1,
            cp.norm(-X.T @ DL - X.T @ cp.multiply(St, Z), 2, axis=0) <= 1,
            cp.multiply(y, lam) >= 0]
    prob = cp.Problem(cp.Maximize(y @ lam), cons)
    prob.solve(solver="CLARABEL", **convex.DEFAULT_SOLVER_OPTIONS["CLARABEL"])
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


def solved(r: convex.ConvexResult) -> bool:
    """The SOCP returned blocks and multipliers with a finite value (infeasible or failed solves do not)."""
    return r["U"] is not None and r["lam"] is not None and bool(np.isfinite(r["value"]))


@lru_cache(maxsize=256)
def _cached_solution(key: bytes, shape: tuple, ykey: bytes) -> convex.ConvexResult:
    X = np.frombuffer(key).reshape(shape)
    y = np.frombuffer(ykey)
    D = complete_patterns(X)
    sol = convex.convex_primal(X, y, D)
    sol["D"] = D
    return sol


def solve_convex(X: np.ndarray, y: np.ndarray) -> convex.ConvexResult:
    """(14) over the complete pattern set (``convex.convex_primal``), cached on the data; the patterns used
    are in ``sol["D"]`` (p, N)."""
    X = np.ascontiguousarray(X, dtype=float)
    y = np.ascontiguousarray(y, dtype=float)
    return _cached_solution(X.tobytes(), X.shape, y.tobytes())


# ---------------------------------------------------------------------------------------------
# network quantities and the idealised early-phase flow (eqs. 18-23)


def normalised_cost(X: np.ndarray, y: np.ndarray, W1: np.ndarray, w2: np.ndarray) -> float:
    """R(theta) = sum_i ||w_{1,i}|| |w_{2,i}| / q_min (spec §1.4); >= P* whenever q_min > 0."""
    q = y * (np.maximum(X @ W1, 0.0) @ w2)
    qmin = float(np.min(q))
    return float(np.sum(np.linalg.norm(W1, axis=0) * np.abs(w2)) / qmin) if qmin > 0 else np.inf


def gd_to_margin(X: np.ndarray, y: np.ndarray, W1: np.ndarray, w2: np.ndarray, *, eta0: float, q_stop: float,
                 steps: int) -> tuple[np.ndarray, np.ndarray]:
    """GD with eta_k = eta0 / L_k (spec R6: the gradient-flow path, reparametrised; sub-gradient 0 at kinks,
    eqs. 18-19) for a batch of networks W1 (B, d, m), w2 (B, m), each frozen once q_min >= ``q_stop``:
    ``flow.normalized_gradient_descent`` in its (W, a) = (W1^T, w2) convention."""
    r = normalized_gradient_descent(np.swapaxes(W1, 1, 2), w2, X, y, lr=eta0, margin_horizons=[q_stop],
                                    max_steps=steps, record_every=steps, at_kink=0.0, reduction="sum")
    return np.swapaxes(r.W, 1, 2), r.a


def balanced_init(rng: np.random.Generator, B: int, d: int, m: int, r0: float) -> tuple[np.ndarray, np.ndarray]:
    """Scaled initialisation: w_{1,i} = r0 u_i (u uniform on the sphere), w_{2,i} = ±r0."""
    U = rng.normal(size=(B, d, m))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    s = rng.choice([-1.0, 1.0], size=(B, m))
    return r0 * U, r0 * s


_HIT_DELTAS = (1e-1, 1e-2, 1e-3, 1e-4)


@_jit.jit
def _sphere_flow_kernel(X, lam, U, s, dt, steps, record, deltas, best, first_hit, cos_hist):
    """sphere_flow's loop, one column (neuron) at a time: the columns do not interact. U, best, first_hit and
    cos_hist are updated in place."""
    N, d = X.shape
    g = np.empty(d)
    for j in range(U.shape[1]):
        for k in range(steps):
            _kernels.active_field(X, lam, U, j, g)
            ng = 0.0
            ug = 0.0
            for i in range(d):
                ng += g[i] * g[i]
                ug += U[i, j] * g[i]
            ng = np.sqrt(ng)
            c = s[j] * ug / max(ng, 1e-300) if ng > 0 else -np.inf
            best[j] = max(best[j], c)
            if record:
                cos_hist[k, j] = c
            for t in range(deltas.size):
                if c >= 1 - deltas[t] and not np.isfinite(first_hit[t, j]):
                    first_hit[t, j] = k * dt
            nu = 0.0
            for i in range(d):
                U[i, j] = U[i, j] + dt * s[j] * (g[i] - ug * U[i, j])
                nu += U[i, j] * U[i, j]
            nu = np.sqrt(nu)
            for i in range(d):
                U[i, j] /= nu


def sphere_flow(X: np.ndarray, lam: np.ndarray, U: np.ndarray, s: np.ndarray, *, dt: float, steps: int,
                record: bool = False) -> dict:
    """Idealised early-phase direction flow (23) with lambda~ frozen at ``lam`` (exact as r0 -> 0):
    du/dt = s (g - (u^T g) u), g = X^T D(u) lam, explicit Euler + renormalisation, vectorised over the
    columns of U (d, m). Records the per-step literal alignment cos(u, s X^T D(u) lam). The compiled loop
    (numba) and the numpy loop below compute the same iteration (sums in another order).
    """
    U = U / np.linalg.norm(U, axis=0)
    if _jit.ENABLED:
        m = U.shape[1]
        U = _jit.carray(U)
        best = np.full(m, -np.inf)
        first = np.full((len(_HIT_DELTAS), m), np.inf)
        hist = np.empty((steps if record else 0, m))
        _sphere_flow_kernel(_jit.carray(X), _jit.carray(lam), U, _jit.carray(s), float(dt), int(steps), bool(record),
                            np.array(_HIT_DELTAS), best, first, hist)
        return {"U": U, "best_cos": best, "first_hit": dict(zip(_HIT_DELTAS, first)),
                "cos_hist": hist if record else None}
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
        for delta in _HIT_DELTAS:
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


def per_point_network(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The "split" candidate: one neuron per data point, u_n = x_n / ||x_n||^2 with output sign y_n,
    balanced, with multipliers lambda_n = y_n / ||x_n|| (a KKT point of (13) when x_m^T x_n <= 0, m != n;
    spec §3 thm3, MC3)."""
    nx = np.linalg.norm(X, axis=1)
    U = (X / nx[:, None] ** 2).T
    nu = np.linalg.norm(U, axis=0)
    return U / np.sqrt(nu), y * np.sqrt(nu), y / nx


GLOBAL_SOURCE = "global convex optimum"


def raw_kkt_candidates(X: np.ndarray, y: np.ndarray, D: np.ndarray, rng: np.random.Generator, *,
                       n_restricted: int = 6) -> list[tuple]:
    """Candidate KKT points of (13) as (source, W1, w2, lambda): the global convex optimum over the (p, N) patterns
    ``D`` mapped to a network (source ``GLOBAL_SOURCE``), the per-point split network, the restricted optima over
    the patterns that gradient flow reaches (``flow_kkt_candidates``) and over random halves of the patterns.
    Certify them with ``certify_kkt``."""
    cands = []
    sol = convex.convex_primal(X, y, D)
    if solved(sol):
        W1, w2 = convex_to_network(sol["U"], sol["U2"], tol=1e-6)
        cands.append((GLOBAL_SOURCE, W1, w2, sol["lam"]))
    W1, w2, lam = per_point_network(X, y)
    cands.append(("per-point split network", W1, w2, lam))
    cands += flow_kkt_candidates(X, y, rng)
    p = D.shape[0]
    for _ in range(n_restricted):
        S = rng.choice(p, size=max(2, p // 2), replace=False)
        r = convex.convex_primal(X, y, D[S])
        if solved(r) and r["residuals"]["primal_feasibility"] <= 1e-7:
            W1, w2 = convex_to_network(r["U"], r["U2"], tol=1e-6)
            cands.append(("restricted-pattern optimum", W1, w2, r["lam"]))
    return cands


def certify_kkt(X: np.ndarray, y: np.ndarray, cands: list[tuple], *, tol: float = 1e-5,
                clarke: bool = False) -> list[dict]:
    """The candidates with their non-convex KKT residuals (``nonconvex_kkt``, B or Clarke), value and
    ``certified`` (max residual <= tol)."""
    out = []
    for name, W1, w2, lam in cands:
        kkt = nonconvex_kkt(X, y, W1, w2, lam, tau=1e-6, clarke=clarke)
        value = float(np.sum(np.linalg.norm(W1, axis=0) * np.abs(w2)))
        out.append({"source": name, "W1": W1, "w2": w2, "lam": lam, "kkt": kkt, "value": value,
                    "certified": kkt["max_residual"] <= tol})
    return out


def flow_kkt_candidates(X: np.ndarray, y: np.ndarray, rng: np.random.Generator, *, seeds: int = 4, m: int = 6,
                        q_stop: float = 40.0) -> list[tuple]:
    """KKT points of (13) suggested by gradient flow: GD with eta_k = 0.02 / L_k (spec R6) from small balanced
    initialisations to q_min = ``q_stop``; for every separated run, (14) restricted to the activation patterns of its
    significant neurons, mapped to a network (``convex_to_network``). Returns (source, W1, w2, lambda) tuples to be
    certified by their KKT residuals (``certify_kkt``)."""
    W1, w2 = balanced_init(rng, seeds, X.shape[1], m, 1e-4)
    W1, w2 = gd_to_margin(X, y, W1, w2, eta0=0.02, q_stop=q_stop, steps=4000)
    out = []
    for b in range(seeds):
        q = y * (np.maximum(X @ W1[b], 0.0) @ w2[b])
        if q.min() <= 0:
            continue
        size = np.linalg.norm(W1[b], axis=0) * np.abs(w2[b])
        sig = size >= 1e-3 * size.max()
        pats = np.unique((W1[b][:, sig].T @ X.T > 0).astype(float), axis=0)
        r = convex.convex_primal(X, y, pats)
        if solved(r) and r["residuals"]["primal_feasibility"] <= 1e-7:
            Wn, wn = convex_to_network(r["U"], r["U2"], tol=1e-6)
            out.append(("gradient-flow patterns, restricted optimum", Wn, wn, r["lam"]))
    return out


# ---------------------------------------------------------------------------------------------
# the flow's own limit points and their multipliers (Theorem 3 on gradient-flow endpoints)

FLOW_HORIZONS = (640.0, 2560.0, 10240.0, 40960.0)
NEGLIGIBLE = 1e-3   # neurons below this fraction of the largest ||w_1i|| |w_2i| vanish in the normalised limit


def flow_multipliers(X: np.ndarray, y: np.ndarray, W1: np.ndarray, w2: np.ndarray) -> dict:
    """The normalised network theta / sqrt(q_min) and the multipliers the flow itself gives it (lambda~, eq. 19).

    -grad L = sum_n lambda~_n grad f_n with lambda~_n = -y_n l'(q_n); at a limit point of the flow the KKT multipliers
    of (13) are lambda = c lambda~ for the scalar c that makes theta_bar = sum_n lambda_n grad f_n(theta_bar) hold (Lyu &
    Li); c is its least-squares value. lambda~ is taken relative to its largest entry (log domain: it underflows).
    Neurons below ``NEGLIGIBLE`` of the largest are dropped first: they vanish in the normalised limit.
    """
    size = np.linalg.norm(W1, axis=0) * np.abs(w2)
    keep = size > NEGLIGIBLE * size.max()
    W1, w2 = W1[:, keep], w2[keep]
    q = y * (np.maximum(X @ W1, 0.0) @ w2)
    qmin = float(q.min())
    if not qmin > 0:
        return {"separated": False, "q_min": qmin}
    Wb, ab = W1 / np.sqrt(qmin), w2 / np.sqrt(qmin)
    lam0 = y * np.exp(np.logaddexp(0.0, qmin) - np.logaddexp(0.0, q))
    Z = X @ Wb
    gW = (X.T @ ((Z > 0) * lam0[:, None])) * ab[None, :]
    ga = np.maximum(Z, 0.0).T @ lam0
    th, g = np.concatenate([Wb.ravel(), ab]), np.concatenate([gW.ravel(), ga])
    lam = float(th @ g / (g @ g)) * lam0
    return {"separated": True, "q_min": qmin, "W1": Wb, "w2": ab, "lam": lam, "dropped": int((~keep).sum()),
            "value": float(np.sum(np.linalg.norm(Wb, axis=0) * np.abs(ab)))}


@lru_cache(maxsize=64)
def _flow_endpoints(key: bytes, shape: tuple, ykey: bytes, wkey: bytes, wshape: tuple, akey: bytes,
                    horizons: tuple) -> list[dict]:
    X = np.frombuffer(key).reshape(shape)
    y = np.frombuffer(ykey)
    W1 = np.frombuffer(wkey).reshape(wshape)
    w2 = np.frombuffer(akey)
    r = normalized_gradient_descent(W1.T[None], w2[None], X, y, lr=0.05, margin_horizons=list(horizons),
                                    max_steps=400_000, record_every=400_000, at_kink=0.0, reduction="sum",
                                    step_margin_ref=10.0)
    out = []
    for s in r.snapshots:
        if s["step"][0] < 0:
            out.append({"Q": s["Q"], "reached": False})
            continue
        out.append({"Q": s["Q"], "reached": True, "step": int(s["step"][0]),
                    **flow_multipliers(X, y, s["W"][0].T, s["a"][0])})
    return out


def flow_endpoints(X: np.ndarray, y: np.ndarray, W1: np.ndarray, w2: np.ndarray,
                   horizons: tuple = FLOW_HORIZONS) -> list[dict]:
    """Gradient flow from (W1, w2) as GD with eta_k = 0.05 / L_k (the flow's path, reparametrised; sub-gradient 0 at
    kinks, eqs. 18-19; step 0.05 min(1, 10 / q_min) at large margins), snapshots at q_min >= each horizon, each with
    ``flow_multipliers``. Cached on the inputs (hypotheses and check share it)."""
    c = [np.ascontiguousarray(a, dtype=float) for a in (X, y, W1, w2)]
    return _flow_endpoints(c[0].tobytes(), c[0].shape, c[1].tobytes(), c[2].tobytes(), c[2].shape, c[3].tobytes(),
                           tuple(horizons))
