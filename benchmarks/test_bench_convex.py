"""Item 5: convex reformulation (Wang & Pilanci 2022 (14)) on Gaussian data (d = 3, random labels) with the
complete pattern set (p = cover_count(n, 3) = 92, 382, 1562 for n = 10, 20, 40).

``convex_primal`` is run as a caller would: on the ``PatternSet`` from ``enumerate_patterns``, which lets it
impose each cone through its facet rows only.  The competitor is the same program written by a skilled
cvxpy user: vectorised (one matrix constraint per sign, all n rows of every cone), solved by CLARABEL at
the same tolerances (``bench_cases.cvxpy_convex_vectorised``).  Both are judged by the same recomputed
KKT residuals and duality gap (``verify.numerics.convex``; for the competitor outside its timed call).
Wall time of the whole call (build, cvxpy compile, solve; the project's also certifies its result),
interleaved rounds.  Goal: >= 4x faster than the vectorised program.
"""

from __future__ import annotations

import numpy as np
import pytest
from bench_cases import QUICK, convex_judge, cvxpy_convex_vectorised, interleaved, ratios, rounds

from verify.numerics.convex import convex_primal
from verify.numerics.patterns import enumerate_patterns

SIZES = (10, 20) if QUICK else (10, 20, 40)
ROUNDS = {10: 5, 20: 3, 40: 2}


@pytest.mark.parametrize("n", SIZES)
def test_convex(benchmark, n: int) -> None:
    rng = np.random.default_rng(n)
    X = rng.standard_normal((n, 3))
    y = np.where(rng.standard_normal(n) > 0, 1.0, -1.0)
    patterns = enumerate_patterns(X)
    impls = {"convex_primal": lambda: convex_primal(X, y, patterns),
             "cvxpy_vectorised": lambda: cvxpy_convex_vectorised(X, y, patterns.D.astype(float))}
    benchmark.group = f"5 convex n={n} d=3 p={patterns.p}"
    out = benchmark.pedantic(lambda: interleaved(impls, rounds(ROUNDS[n], 1)), rounds=1, iterations=1)
    own, other = out["result"]["convex_primal"], out["result"]["cvxpy_vectorised"]
    judged = convex_judge(X, y, patterns.D.astype(float), other)
    benchmark.extra_info.update({
        "item": 5, "n": n, "p": int(patterns.p), "cones": own.cones,
        "wall": {k: float(np.median(v)) for k, v in out["wall"].items()},
        "cpu": {k: float(np.median(v)) for k, v in out["cpu"].items()},
        "ratio_to_convex_primal": ratios(out["wall"], "convex_primal"),
        "compile_time": float(own.compile_time), "solve_time": float(own.solve_time),
        "value": float(own.value), "value_diff": abs(float(own.value) - other["value"]),
        "max_residual": {"convex_primal": max(float(v) for v in own.residuals.values()),
                         "cvxpy_vectorised": max(float(v) for v in judged["residuals"].values())},
        "certified": {"convex_primal": bool(own.success), "cvxpy_vectorised": judged["certified"]},
    })
    assert own.success, f"convex_primal not certified: {own.residuals}, gap {own.gap}"
