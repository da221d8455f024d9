"""Item 1: hard-margin SVM through the origin: ``svm_origin`` against Clarabel called directly, a
parametrised cvxpy problem built once per shape (DPP, re-solved per call), and scikit-learn's SVC.

Data are symmetric (``bench_cases.symmetric_separable``), so SVC's intercept is 0 at the optimum and all
solve the same problem; every solver is judged by the same four KKT residuals
(``verify.numerics.margin.kkt_residuals``) and counts as "at equal accuracy" only when the largest is
<= 1e-9 (the harness's threshold).  Interleaved rounds (``bench_cases.interleaved``), CPU time.
Goal: svm_origin at least as fast as the fastest competitor at equal accuracy.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from bench_cases import (
    QUICK,
    CvxpySvm,
    clarabel_svm,
    interleaved,
    ratios,
    rounds,
    svc_hard_margin,
    symmetric_separable,
)

from verify.numerics.margin import KKT_RESIDUAL_NAMES, svm_origin

SIZES = [(n, d) for n in ((20, 100) if QUICK else (20, 100, 1000)) for d in (2, 20, 100)]
HAVE_SKLEARN = importlib.util.find_spec("sklearn") is not None


@pytest.mark.parametrize("n,d", SIZES)
def test_svm(benchmark, n: int, d: int) -> None:
    X, y = symmetric_separable(n, d, seed=n + d)
    dpp = CvxpySvm(n, d)
    impls = {"svm_origin": lambda: svm_origin(X, y), "clarabel_direct": lambda: clarabel_svm(X, y),
             "cvxpy_dpp": lambda: dpp(X, y)}
    if HAVE_SKLEARN:
        impls["sklearn_svc"] = lambda: svc_hard_margin(X, y)
    benchmark.group = f"1 svm n={n} d={d}"
    out = benchmark.pedantic(lambda: interleaved(impls, rounds(9, 2)), rounds=1, iterations=1)
    reference = out["result"]["svm_origin"]
    info = {}
    for k, res in out["result"].items():
        info[k] = {"cpu": float(np.median(out["cpu"][k])), "wall": float(np.median(out["wall"][k])),
                   "max_residual": max(float(res.residuals[r]) for r in KKT_RESIDUAL_NAMES),
                   "gamma_rel_diff": abs(float(res.gamma) - reference.gamma) / reference.gamma,
                   "intercept": float(res.get("intercept", 0.0))}
    benchmark.extra_info.update({"item": 1, "n": n, "d": d, "solvers": info,
                                 "ratio_to_svm_origin": ratios(out["cpu"], "svm_origin")})
    assert reference.success and info["svm_origin"]["max_residual"] <= 1e-9
