"""Hypothesis predicates of Wang & Pilanci (2022), checked by the runner on every fixture.

The data predicates are those of ``verify.numerics.patterns`` (exact sign tests of the Gram matrix; the slack
reported is their cosine slack).
"""

from __future__ import annotations

import numpy as np

from verify import hypothesis
from verify.numerics.patterns import (
    is_multiclass_orthogonally_separable,
    is_orthogonally_separable,
    is_spike_free,
)


def _os(fx):
    ok, slack = is_orthogonally_separable(fx["X"], fx["y"])
    return ok, slack, "min(min same-label cosine, -max cross-label cosine)"


def _os_strict(fx):
    ok, slack = is_orthogonally_separable(fx["X"], fx["y"])
    return ok and slack > 0, slack, "OS with every cross-label cosine < 0 (slack > 0)"


def _os_multiclass(fx):
    ok, slack = is_multiclass_orthogonally_separable(fx["X"], fx["labels"])
    return ok, slack, "min(min same-class cosine, -max cross-class cosine)"


def _one_vs_rest_os(fx):
    tests = [is_orthogonally_separable(fx["X"], fx["Y"][:, k]) for k in range(fx["K"])]
    return all(ok for ok, _ in tests), min(s for _, s in tests), "min OS slack over the one-vs-rest problems"


def _spike_free(fx):
    ok, detail = is_spike_free(fx["X"])
    slack = -detail["max_offdiag"] if "max_offdiag" in detail else None
    return ok, slack, f"{detail['method']}; slack -max offdiag((X X^T)^{{-1}}) when full row rank (spec R3)"


def _feasible(fx):
    X, y = fx["X"], fx["y"]
    norms = np.linalg.norm(X, axis=1)
    if norms.min() <= 1e-12:
        return False, 0.0, "zero row"
    U = X / norms[:, None]
    C = U @ U.T
    bad = (C > 1 - 1e-12) & ~np.equal.outer(y, y)
    worst = float(np.max(np.where(~np.equal.outer(y, y), C, -1.0)))
    return not bad.any(), 1 - worst, "1 - max cosine between differently labelled rows"


def _full_rank(fx):
    X = fx["X"]
    s = np.linalg.svd(X, compute_uv=False)
    return s[-1] > 1e-9, float(s[-1]), "smallest singular value (exact enumeration needs rank min(N, d))"


def _both_classes(fx):
    y = fx["y"]
    return bool((y > 0).any() and (y < 0).any()), None, "both labels present"


orthogonally_separable = hypothesis(
    "orthogonally separable (Sec. 3.1)", _os,
    description="x_n^T x_n' > 0 if y_n = y_n', x_n^T x_n' <= 0 otherwise")
strictly_orthogonally_separable = hypothesis(
    "strictly orthogonally separable", _os_strict, description="cross-label products < 0 (no boundary ties)")
orthogonally_separable_multiclass = hypothesis(
    "orthogonally separable among multiple classes (Sec. 2)", _os_multiclass,
    description="x_n^T x_n' > 0 if same class, <= 0 otherwise")
one_vs_rest_orthogonally_separable = hypothesis(
    "every one-vs-rest problem is binary orthogonally separable", _one_vs_rest_os,
    description="amended hypothesis of Theorem 2 (spec E2); automatic for K = 2")
spike_free = hypothesis(
    "X spike-free (Definition 2)", _spike_free,
    description="for ||u|| <= 1 there is ||z|| <= 1 with (Xu)_+ = Xz; exact test offdiag((XX^T)^{-1}) <= 0 for N <= d")
feasible = hypothesis(
    "max-margin problem (13) feasible (H_feas)", _feasible,
    description="no zero row and no positively collinear pair with different labels")
full_rank = hypothesis("rank X = min(N, d) (exact pattern enumeration)", _full_rank,
                       description="rows in general position enough for vertex enumeration of P")
both_classes = hypothesis("both labels present", _both_classes)
