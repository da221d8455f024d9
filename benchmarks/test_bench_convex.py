"""Item 5: convex reformulation (Wang & Pilanci 2022 (14)), vectorised ``convex_primal`` vs the per-pattern
loop ``convex_primal_loop``, on Gaussian data (d = 3, random labels) with the complete pattern set
(p = cover_count(n, 3) = 92, 382, 1562 for n = 10, 20, 40).

``convex_primal`` is run as a caller would: on the ``PatternSet`` from ``enumerate_patterns``, which lets it
impose each cone through its facet rows only; ``convex_primal_allrows`` is the same function on the bare
0/1 matrix (all n rows per cone, the same program as the loop).  Reported: wall time of the whole call
(build, cvxpy compile, CLARABEL solve and the recomputed certificate), and cvxpy's compile and solve times.
Goal: >= 4x faster than the loop."""

from __future__ import annotations

import numpy as np
import pytest
from bench_cases import QUICK, rounds

from verify.numerics.convex import convex_primal, convex_primal_loop
from verify.numerics.patterns import enumerate_patterns

SIZES = (10, 20) if QUICK else (10, 20, 40)
ROUNDS = {10: 5, 20: 3, 40: 2}


@pytest.mark.parametrize("method", ["convex_primal", "convex_primal_allrows", "convex_primal_loop"])
@pytest.mark.parametrize("n", SIZES)
def test_convex(benchmark, method: str, n: int) -> None:
    rng = np.random.default_rng(n)
    X = rng.standard_normal((n, 3))
    y = np.where(rng.standard_normal(n) > 0, 1.0, -1.0)
    patterns = enumerate_patterns(X)
    D = patterns.D
    fn, arg = {"convex_primal": (convex_primal, patterns), "convex_primal_allrows": (convex_primal, D),
               "convex_primal_loop": (convex_primal_loop, D)}[method]
    benchmark.group = f"5 convex n={n} d=3 p={D.shape[0]}"
    results = []

    def run():
        results.append(fn(X, y, arg))
        return results[-1]

    res = benchmark.pedantic(run, rounds=rounds(ROUNDS[n], 1), iterations=1)
    benchmark.extra_info.update({
        "item": 5, "method": method, "n": n, "p": int(D.shape[0]),
        "compile_time": float(np.median([r.compile_time for r in results])),
        "solve_time": float(np.median([r.solve_time for r in results])),
        "value": float(res.value), "success": bool(res.success), "gap": float(res.gap),
        "max_residual": max(float(v) for v in res.residuals.values()), "cones": res.get("cones", "all rows"),
    })
    assert res.success, f"{method} not certified: {res.residuals}, gap {res.gap}"
