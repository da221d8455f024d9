"""Item 4: activation patterns, exact enumeration vs 2 * 10^5 Gaussian gates, on Gaussian data (general
position, so the number of open cells is exactly ``cover_count(n, d)``).
Goal: exact faster than sampling, and complete (``p == cover_count``)."""

from __future__ import annotations

import numpy as np
import pytest
from bench_cases import rounds

from verify.numerics.patterns import cover_count, enumerate_patterns, sample_patterns

GATES = 200_000


@pytest.mark.parametrize("method", ["enumerate_patterns", "sample_patterns"])
@pytest.mark.parametrize("n,d", [(40, 3), (30, 4)])
def test_patterns(benchmark, method: str, n: int, d: int) -> None:
    X = np.random.default_rng(n * d).standard_normal((n, d))
    if method == "enumerate_patterns":
        fn, args = enumerate_patterns, (X,)
    else:
        fn, args = (lambda X: sample_patterns(X, GATES, np.random.default_rng(1))), (X,)
    benchmark.group = f"4 patterns n={n} d={d}"
    ps = benchmark.pedantic(fn, args=args, rounds=rounds(7, 2), iterations=1, warmup_rounds=1)
    exact = enumerate_patterns(X)
    found = {tuple(row) for row in ps.D}
    missing = len({tuple(row) for row in exact.D} - found)
    benchmark.extra_info.update({"item": 4, "method": method, "n": n, "d": d, "patterns": ps.p,
                                 "cover_count": cover_count(n, d), "complete_flag": bool(ps.complete),
                                 "missing_vs_exact": missing})
    assert exact.p == cover_count(n, d) and exact.complete
    assert found <= {tuple(row) for row in exact.D}, "a sampled pattern is not an open-cell pattern"
