"""Item 1: hard-margin SVM through the origin: svm_origin vs scikit-learn SVC vs a fresh cvxpy problem.

Data are symmetric (``bench_cases.symmetric_separable``), so SVC's intercept is 0 at the optimum and all
three solve the same problem; every solver is judged by the same four KKT residuals
(``verify.numerics.margin.kkt_residuals``).  Goal: svm_origin at least as fast as the best, residuals <= 1e-9.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from bench_cases import QUICK, rounds, svc_hard_margin, symmetric_separable

from verify.numerics.margin import KKT_RESIDUAL_NAMES, svm_cvxpy, svm_origin

SIZES = [(n, d) for n in ((20, 100) if QUICK else (20, 100, 1000)) for d in (2, 20, 100)]
HAVE_SKLEARN = importlib.util.find_spec("sklearn") is not None
SOLVERS = {
    "svm_origin": (svm_origin, 20),
    "sklearn_svc": (svc_hard_margin, 7),
    "cvxpy_clarabel": (svm_cvxpy, 5),
}


@pytest.mark.parametrize("solver", list(SOLVERS))
@pytest.mark.parametrize("n,d", SIZES)
def test_svm(benchmark, solver: str, n: int, d: int) -> None:
    if solver == "sklearn_svc" and not HAVE_SKLEARN:
        pytest.skip("scikit-learn not installed (optional bench extra: pip install scikit-learn)")
    X, y = symmetric_separable(n, d, seed=n + d)
    fn, n_rounds = SOLVERS[solver]
    benchmark.group = f"1 svm n={n} d={d}"
    res = benchmark.pedantic(fn, args=(X, y), rounds=rounds(n_rounds, 2), iterations=1, warmup_rounds=1)
    reference = svm_origin(X, y)
    benchmark.extra_info.update({
        "item": 1, "n": n, "d": d, "solver": solver,
        **{k: float(res.residuals[k]) for k in KKT_RESIDUAL_NAMES},
        "max_residual": max(float(res.residuals[k]) for k in KKT_RESIDUAL_NAMES),
        "gamma_rel_diff": abs(float(res.gamma) - reference.gamma) / reference.gamma,
        "intercept": float(res.get("intercept", 0.0)),
    })
    assert np.isfinite(res.gamma) and res.gamma > 0
