"""Inputs and competing implementations shared by the benchmark files (not a test module).

Every generator is reproducible from its seed.  The competitors are what a skilled user would write
instead of calling the project: batched PyTorch (explicit bmm gradients, or ``vmap(grad)``), a per-seed
numpy loop, Clarabel called directly, a parametrised cvxpy problem, a vectorised cvxpy program, and
scikit-learn's SVC; each is judged at the same accuracy as the project's code.  :func:`interleaved`
times them round by round, so their ratios come from one run under one load.
"""

from __future__ import annotations

import os

import numpy as np

from verify.numerics.margin import MarginResult, kkt_residuals

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
"""``BENCH_QUICK=1``: smaller sizes and fewer rounds (a smoke run of the suite, not the reported numbers)."""


def rounds(full: int, quick: int = 1) -> int:
    return quick if QUICK else full


# ----------------------------------------------------------------------------------------------------------
# 1. hard-margin SVM
# ----------------------------------------------------------------------------------------------------------

def symmetric_separable(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``X = [V; -V]``, ``y = [1; -1]`` with ``V`` Gaussian rows sign-flipped onto one side of a random
    teacher: linearly separable through the origin.  The symmetry makes the hard-margin SVM *with* an
    intercept have an optimal intercept 0 and the same ``w`` as the SVM through the origin (if ``(w, b)``
    is feasible so is ``(w, -b)``, hence ``(w, 0)``), so scikit-learn's SVC solves the same problem."""
    rng = np.random.default_rng(seed)
    teacher = rng.standard_normal(d)
    V = rng.standard_normal((n // 2, d))
    V *= np.sign(V @ teacher)[:, None]
    return np.vstack([V, -V]), np.concatenate([np.ones(n // 2), -np.ones(n // 2)])


def svc_hard_margin(X: np.ndarray, y: np.ndarray, *, C: float = 1e10, tol: float = 1e-10) -> MarginResult:
    """scikit-learn ``SVC(kernel="linear", C=1e10)`` as a hard-margin solver, judged by the same KKT
    residuals as the project's solvers (``w = coef_``, ``lam_i = |dual_coef_|`` on the support vectors).
    SVC has an intercept; on :func:`symmetric_separable` data its optimal intercept is 0 (the returned
    ``intercept`` shows how far libsvm is from it).  libsvm stops on its own dual gap, which does not reach
    KKT residuals of 1e-9 at any ``tol`` (measured 3e-8 .. 9e-4), so this column is not at equal accuracy."""
    from sklearn.svm import SVC

    clf = SVC(kernel="linear", C=C, tol=tol, shrinking=True, cache_size=500)
    clf.fit(X, y)
    w = clf.coef_.ravel().astype(np.float64)
    lam = np.zeros(X.shape[0])
    lam[clf.support_] = np.abs(clf.dual_coef_.ravel())
    res = kkt_residuals(X, y, w, lam)
    return MarginResult(w=w, gamma=1.0 / np.linalg.norm(w), multipliers=lam, residuals=res,
                        success=max(res.values()) <= 1e-9, intercept=float(clf.intercept_[0]),
                        solver="sklearn-SVC(linear, C=1e10)")


def clarabel_svm(X: np.ndarray, y: np.ndarray, *, tol: float = 1e-12) -> MarginResult:
    """The hard-margin SVM through the origin handed to Clarabel directly (no modelling layer), as a
    skilled user would: ``min 1/2 w^T w`` s.t. ``-Z w + s = -1``, ``s >= 0`` (``Z = y x``); Clarabel's
    multipliers ``z`` satisfy ``w = Z^T z``, so ``lam = z``.  Tolerances 1e-12 (as ``svm_cvxpy``)."""
    import clarabel
    import scipy.sparse as sp

    Z = y[:, None] * X
    n, d = Z.shape
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = tol
    solver = clarabel.DefaultSolver(sp.identity(d, format="csc"), np.zeros(d), sp.csc_matrix(-Z), -np.ones(n),
                                    [clarabel.NonnegativeConeT(n)], settings)
    sol = solver.solve()
    w, lam = np.array(sol.x), np.maximum(np.array(sol.z), 0.0)
    res = kkt_residuals(X, y, w, lam)
    return MarginResult(w=w, gamma=1.0 / np.linalg.norm(w), multipliers=lam, residuals=res,
                        success=max(res.values()) <= 1e-9, solver=f"clarabel ({sol.status})")


class CvxpySvm:
    """The SVM as a parametrised cvxpy problem (DPP), built once per shape and re-solved per call: the
    fast way to use cvxpy for many problems of one size (the canonicalisation is cached)."""

    def __init__(self, n: int, d: int):
        import cvxpy as cp

        self.cp = cp
        self.Z = cp.Parameter((n, d))
        self.w = cp.Variable(d)
        self.cons = [self.Z @ self.w >= 1]
        self.prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(self.w)), self.cons)

    def __call__(self, X: np.ndarray, y: np.ndarray) -> MarginResult:
        self.Z.value = y[:, None] * X
        self.prob.solve(solver=self.cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
        w = np.asarray(self.w.value, dtype=np.float64)
        lam = np.maximum(np.asarray(self.cons[0].dual_value, dtype=np.float64).ravel(), 0.0)
        res = kkt_residuals(X, y, w, lam)
        return MarginResult(w=w, gamma=1.0 / np.linalg.norm(w), multipliers=lam, residuals=res,
                            success=max(res.values()) <= 1e-9, solver="cvxpy-dpp-clarabel")


# ----------------------------------------------------------------------------------------------------------
# 2. training simulation
# ----------------------------------------------------------------------------------------------------------

def training_problem(n: int = 100, d: int = 20, m: int = 100, seeds: int = 32, scale: float = 0.1,
                     seed: int = 0) -> dict:
    """Unit-norm Gaussian data labelled by a random teacher, and ``seeds`` Gaussian inits of width ``m``."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.sign(X @ rng.standard_normal(d))
    W0 = scale * rng.standard_normal((seeds, m, d)) / np.sqrt(d)
    a0 = scale * rng.standard_normal((seeds, m)) / np.sqrt(m)
    return {"X": X, "y": y, "W0": W0, "a0": a0}


def numpy_loop(W0: np.ndarray, a0: np.ndarray, X: np.ndarray, y: np.ndarray, *, lr: float, steps: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """Per-seed numpy GD on the mean logistic loss of a ReLU net (the straightforward implementation)."""
    n = X.shape[0]
    Ws, As = [], []
    for b in range(W0.shape[0]):
        W, a = W0[b].copy(), a0[b].copy()
        for _ in range(steps):
            Z = X @ W.T  # (n, m)
            P = np.maximum(Z, 0.0)
            q = y * (P @ a)
            c = -np.exp(-np.logaddexp(0.0, q)) * y / n  # l'(q) y / n
            W = W - lr * (a[:, None] * (((Z > 0) * c[:, None]).T @ X))
            a = a - lr * (P.T @ c)
        Ws.append(W)
        As.append(a)
    return np.stack(Ws), np.stack(As)


def torch_loop(W0: np.ndarray, a0: np.ndarray, X: np.ndarray, y: np.ndarray, *, lr: float, steps: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """Per-seed PyTorch CPU (float64) GD with autograd on the mean logistic loss of a ReLU net."""
    import torch

    Xt = torch.as_tensor(X, dtype=torch.float64)
    yt = torch.as_tensor(y, dtype=torch.float64)
    Ws, As = [], []
    for b in range(W0.shape[0]):
        W = torch.tensor(W0[b], dtype=torch.float64, requires_grad=True)
        a = torch.tensor(a0[b], dtype=torch.float64, requires_grad=True)
        for _ in range(steps):
            q = yt * (torch.relu(Xt @ W.T) @ a)
            loss = torch.nn.functional.softplus(-q).mean()
            gW, ga = torch.autograd.grad(loss, (W, a))
            with torch.no_grad():
                W -= lr * gW
                a -= lr * ga
        Ws.append(W.detach().numpy().copy())
        As.append(a.detach().numpy().copy())
    return np.stack(Ws), np.stack(As)


def torch_batched_bmm(W0: np.ndarray, a0: np.ndarray, X: np.ndarray, y: np.ndarray, *, lr: float, steps: int
                      ) -> tuple[np.ndarray, np.ndarray]:
    """All seeds at once in PyTorch (float64), the gradient written out with batched matmuls (no autograd):
    what a skilled user writes for a seed sweep."""
    import torch

    n = X.shape[0]
    Xt = torch.as_tensor(X, dtype=torch.float64)
    XT = Xt.T.contiguous()
    yt = torch.as_tensor(y, dtype=torch.float64)
    W = torch.tensor(W0, dtype=torch.float64)
    a = torch.tensor(a0, dtype=torch.float64)
    with torch.no_grad():
        for _ in range(steps):
            Z = torch.matmul(W, XT)                                    # (B, m, n)
            P = torch.relu(Z)
            q = yt * torch.bmm(a.unsqueeze(1), P).squeeze(1)           # (B, n)
            c = torch.sigmoid(-q) * (yt / n)                           # -l'(q) y / n
            G = torch.where(Z > 0, c.unsqueeze(1), torch.zeros((), dtype=torch.float64))
            W -= lr * (-a.unsqueeze(2) * torch.matmul(G, Xt))
            a -= lr * (-torch.bmm(P, c.unsqueeze(2)).squeeze(2))
    return W.numpy(), a.numpy()


def torch_batched_vmap(W0: np.ndarray, a0: np.ndarray, X: np.ndarray, y: np.ndarray, *, lr: float, steps: int
                       ) -> tuple[np.ndarray, np.ndarray]:
    """All seeds at once with ``torch.func.vmap(grad(loss))`` (float64): autograd, batched."""
    import torch
    from torch.func import grad, vmap

    Xt = torch.as_tensor(X, dtype=torch.float64)
    yt = torch.as_tensor(y, dtype=torch.float64)

    def loss(W, a):
        return torch.nn.functional.softplus(-(yt * (torch.relu(Xt @ W.T) @ a))).mean()

    step = vmap(grad(loss, argnums=(0, 1)))
    W = torch.tensor(W0, dtype=torch.float64)
    a = torch.tensor(a0, dtype=torch.float64)
    for _ in range(steps):
        gW, ga = step(W, a)
        W, a = W - lr * gW, a - lr * ga
    return W.numpy(), a.numpy()


def interleaved(impls: dict, rounds: int) -> dict:
    """Time every implementation once per round, rotating the order each round (so load changes hit all
    alike); one untimed warm-up call each first (compilation, caches).  Returns ``cpu`` and ``wall``
    (seconds per round, per implementation) and ``result`` (the last result of each)."""
    import time

    names = list(impls)
    result = {k: impls[k]() for k in names}
    cpu: dict[str, list[float]] = {k: [] for k in names}
    wall: dict[str, list[float]] = {k: [] for k in names}
    for r in range(rounds):
        for k in names[r % len(names):] + names[:r % len(names)]:
            c0, w0 = time.process_time(), time.perf_counter()
            result[k] = impls[k]()
            cpu[k].append(time.process_time() - c0)
            wall[k].append(time.perf_counter() - w0)
    return {"cpu": cpu, "wall": wall, "result": result}


def ratios(times: dict[str, list[float]], reference: str) -> dict[str, float]:
    """Median over rounds of time[impl] / time[reference] within the same round."""
    ref = np.asarray(times[reference])
    return {k: float(np.median(np.asarray(v) / ref)) for k, v in times.items()}


def matmul_peak_gflops(size: int = 2000, repeats: int = 5) -> float:
    """Best float64 GFLOP/s of a ``size x size`` numpy matrix product (2 size^3 flops), in CPU time (as
    the implementations are timed: a loaded machine inflates wall time, not CPU time)."""
    import time

    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((size, size)), rng.standard_normal((size, size))
    A @ B
    rates = []
    for _ in range(repeats):
        t0 = time.process_time()
        A @ B
        rates.append(2.0 * size**3 / (time.process_time() - t0) / 1e9)
    return float(np.max(rates))


# ----------------------------------------------------------------------------------------------------------
# 3. long horizons
# ----------------------------------------------------------------------------------------------------------

def symmetric_margin_fixture(d: int = 3, n_half: int = 8, alpha: float = 0.5, m: int = 8, seeds: int = 8,
                             sigma: float = 1e-3, seed: int = 0) -> dict:
    """Symmetric separable data (Lyu et al. 2021 Asm 4.1), max norm 1, leaky ReLU, with the global max
    normalised margin ``gamma_NN* = (1 + alpha)/4 * gamma_lin`` (Lyu 2021 Thm 4.2; spec section 1.13 item 1)
    and ``seeds`` small Gaussian initialisations of scale ``sigma``."""
    from verify.numerics.margin import svm_origin

    rng = np.random.default_rng(seed)
    teacher = rng.standard_normal(d)
    teacher /= np.linalg.norm(teacher)
    V = []
    while len(V) < n_half:  # angular gap >= 0.1 to the teacher's hyperplane
        v = rng.standard_normal(d)
        v *= np.sign(v @ teacher)
        if v @ teacher >= 0.1 * np.linalg.norm(v):
            V.append(v)
    V = np.array(V)
    V /= np.max(np.linalg.norm(V, axis=1))
    X = np.vstack([V, -V])
    y = np.concatenate([np.ones(n_half), -np.ones(n_half)])
    svm = svm_origin(X, y)
    assert svm.success, svm.message
    W0 = sigma * rng.standard_normal((seeds, m, d))
    a0 = sigma * rng.standard_normal((seeds, m))
    return {"X": X, "y": y, "alpha": alpha, "W0": W0, "a0": a0, "gamma_lin": float(svm.gamma),
            "gamma_star": (1.0 + alpha) / 4.0 * float(svm.gamma)}


def first_step_below(steps: np.ndarray, gap: np.ndarray, target: float) -> np.ndarray:
    """Per column of ``gap`` (records x seeds): the first recorded step with ``gap <= target`` (-1 if none)."""
    hit = gap <= target
    first = np.where(hit.any(axis=0), np.argmax(hit, axis=0), -1)
    return np.where(first >= 0, steps[np.maximum(first, 0)], -1)


# ----------------------------------------------------------------------------------------------------------
# 5. convex reformulation
# ----------------------------------------------------------------------------------------------------------

def cvxpy_convex_vectorised(X: np.ndarray, y: np.ndarray, D: np.ndarray) -> dict:
    """The convex program (14) as a skilled cvxpy user writes it: one (d, p) variable per sign, every cone
    on all n rows as one matrix constraint, solved by CLARABEL at the project's tolerances.  Returns the
    value, the blocks and ``lam`` (y times the margin multipliers); judge them with :func:`convex_judge`
    (outside the timed call: the user's program does not certify itself)."""
    import cvxpy as cp

    from verify.numerics.convex import DEFAULT_SOLVER_OPTIONS

    d, p = X.shape[1], D.shape[0]
    U, U2 = cp.Variable((d, p)), cp.Variable((d, p))
    S = (2.0 * D - 1.0).T
    XU, XU2 = X @ U, X @ U2
    margin = cp.sum(cp.multiply(y[:, None] * D.T, XU2 - XU), axis=1) >= 1
    prob = cp.Problem(cp.Minimize(cp.sum(cp.norm(U, 2, axis=0)) + cp.sum(cp.norm(U2, 2, axis=0))),
                      [cp.multiply(S, XU) >= 0, cp.multiply(S, XU2) >= 0, margin])
    prob.solve(solver="CLARABEL", **DEFAULT_SOLVER_OPTIONS["CLARABEL"])
    return {"value": float(prob.value), "U": np.asarray(U.value), "U2": np.asarray(U2.value),
            "lam": y * np.asarray(margin.dual_value).ravel()}


def convex_judge(X: np.ndarray, y: np.ndarray, D: np.ndarray, sol: dict) -> dict:
    """The residuals and duality gap of a solution of (14), recomputed by ``verify.numerics.convex`` (the
    judge of the project's own solve), and whether they meet its ``TOLERANCES``."""
    from verify.numerics.convex import TOLERANCES, dual_certificate, duality_gap, kkt_residuals

    cert = dual_certificate(sol["lam"], X, D)
    res = kkt_residuals(X, y, D, sol["U"], sol["U2"], sol["lam"], certificate=cert.value)
    primal = float(np.sum(np.linalg.norm(sol["U"], axis=0)) + np.sum(np.linalg.norm(sol["U2"], axis=0)))
    gap = duality_gap(primal, float(y @ sol["lam"]))
    ok = gap <= TOLERANCES["gap"] and all(res[k] <= TOLERANCES[k] for k in res if k in TOLERANCES)
    return {"residuals": res, "gap": gap, "certified": bool(ok)}
