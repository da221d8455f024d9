"""Inputs and baseline implementations shared by the benchmark files (not a test module).

Every generator is reproducible from its seed.  Baselines written here (the per-seed PyTorch and numpy
training loops, the scikit-learn SVC wrapper) exist only to be compared against the project's numerics.
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
    ``intercept`` shows how far libsvm is from it)."""
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


def matmul_peak_gflops(size: int = 2000, repeats: int = 5) -> float:
    """Median float64 GFLOP/s of a ``size x size`` numpy matrix product (2 size^3 flops)."""
    import time

    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((size, size)), rng.standard_normal((size, size))
    A @ B
    rates = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        A @ B
        rates.append(2.0 * size**3 / (time.perf_counter() - t0) / 1e9)
    return float(np.median(rates))


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
