"""Experiment behind the item-5 suggestion in RESULTS.md: keep only the facet rows of each pattern's cone.

For a complete open-cell pattern set in general position, row i bounds the cell of pattern D_j (is a facet of
the cone {u : S_j X u >= 0}) iff D_j with bit i flipped is also a pattern (the neighbouring cell).  Dropping
the other rows leaves every cone unchanged, so the program (14) and its optimum are unchanged.  This builds
that reduced program next to ``convex_primal`` and prints sizes, times, values and the KKT residuals of the
reduced solution recomputed against the FULL constraint set.

    python benchmarks/experiment_facet_rows.py [n]      # default n = 40, d = 3
"""

from __future__ import annotations

import sys
import time

import cvxpy as cp
import numpy as np
from threadpoolctl import threadpool_limits

from verify.numerics.convex import DEFAULT_SOLVER_OPTIONS, convex_primal, kkt_residuals
from verify.numerics.patterns import enumerate_patterns


def facet_mask(D: np.ndarray) -> np.ndarray:
    """(p, n) bool: D_j with bit i flipped is also a row of D."""
    Di = D.astype(np.int8)
    keys = {row.tobytes() for row in Di}
    mask = np.zeros(Di.shape, dtype=bool)
    for j, row in enumerate(Di):
        for i in range(Di.shape[1]):
            flipped = row.copy()
            flipped[i] ^= 1
            mask[j, i] = flipped.tobytes() in keys
    return mask


def main(n: int = 40) -> None:
    threadpool_limits(1)
    rng = np.random.default_rng(n)
    X = rng.standard_normal((n, 3))
    y = np.where(rng.standard_normal(n) > 0, 1.0, -1.0)
    D = enumerate_patterns(X).D.astype(np.float64)
    p = D.shape[0]
    mask = facet_mask(D)
    print(f"n={n} p={p}: cone rows per block {p * n} -> {int(mask.sum())} ({mask.sum() / p:.2f} per pattern)")
    St, keep = (2.0 * D - 1.0).T, mask.T
    U, U2 = cp.Variable((3, p)), cp.Variable((3, p))
    margin = cp.sum(cp.multiply(y[:, None] * D.T, X @ (U2 - U)), axis=1) >= 1
    cons = [cp.multiply(St, X @ U)[keep] >= 0, cp.multiply(St, X @ U2)[keep] >= 0, margin]
    prob = cp.Problem(cp.Minimize(cp.sum(cp.norm(U, 2, axis=0)) + cp.sum(cp.norm(U2, 2, axis=0))), cons)
    t0 = time.perf_counter()
    prob.solve(solver="CLARABEL", **DEFAULT_SOLVER_OPTIONS["CLARABEL"])
    wall = time.perf_counter() - t0
    lam = y * np.asarray(margin.dual_value).ravel()
    res = kkt_residuals(X, y, D, U.value, U2.value, lam)
    print(f"facet rows: wall {wall:.2f} s, solve {prob.solver_stats.solve_time:.2f} s, value {prob.value:.10g}, "
          f"residuals (full constraints) {', '.join(f'{k} {v:.1e}' for k, v in res.items())}")
    t0 = time.perf_counter()
    full = convex_primal(X, y, D)
    print(f"convex_primal: wall {time.perf_counter() - t0:.2f} s, compile {full.compile_time:.2f} s, solve "
          f"{full.solve_time:.2f} s, value {full.value:.10g}, success {full.success}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
