"""Tests of verify.numerics.patterns: exact enumeration, sampling, OS and spike-free predicates."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from verify.numerics.patterns import (
    cover_count,
    enumerate_patterns,
    facet_mask,
    is_multiclass_orthogonally_separable,
    is_orthogonally_separable,
    is_spike_free,
    pattern_of,
    sample_patterns,
)

C30, S30 = np.cos(np.pi / 6), np.sin(np.pi / 6)
C150, S150 = np.cos(5 * np.pi / 6), np.sin(5 * np.pi / 6)
# Named fixtures of the wang2022 spec (§3).
F1 = (np.array([[1.65, -0.47], [-0.47, 1.35]]), np.array([-1.0, 1.0]))
F2 = (np.array([[1.65, 0.47], [0.47, 1.35]]), np.array([1.0, 1.0]))
SLIDE = (np.array([[1.0, 0.0], [C30, S30]]), np.array([1.0, -1.0]))
MC3_X = np.eye(3) - 0.1 * np.ones((3, 3))
MC3_BINARY = (MC3_X, np.array([1.0, -1.0, -1.0]))
OBTUSE_SAME = (np.array([[1.0, 0.0], [C150, S150]]), np.array([1.0, 1.0]))


def as_set(D: np.ndarray) -> set[tuple[int, ...]]:
    return {tuple(int(v) for v in row) for row in D}


def lp_reference(X: np.ndarray) -> set[tuple[int, ...]]:
    """Independent oracle (spec E3): incremental LP cell search, one HiGHS LP per candidate sign vector."""
    n, d = X.shape
    nz = [i for i in range(n) if np.linalg.norm(X[i]) > 0]
    cells: list[tuple[int, ...]] = [()]
    for k in range(len(nz)):
        rows = X[nz[: k + 1]]
        grown = []
        for c in cells:
            for s in (1, -1):
                sv = np.array(c + (s,), dtype=float)
                res = linprog(np.zeros(d), A_ub=-(sv[:, None] * rows), b_ub=-np.ones(k + 1),
                              bounds=[(None, None)] * d, method="highs")
                if res.status == 0:
                    grown.append(c + (s,))
        cells = grown
    out = set()
    for c in cells:
        p = np.ones(n, dtype=int)
        for i, s in zip(nz, c):
            p[i] = int(s > 0)
        out.add(tuple(p))
    return out


def angle_reference(X: np.ndarray) -> set[tuple[int, ...]]:
    """Independent oracle for d = 2 (spec E1): critical angles phi_n +- pi/2, midpoints of the sorted list."""
    phi = np.arctan2(X[:, 1], X[:, 0])
    crit = np.sort(np.mod(np.concatenate([phi + np.pi / 2, phi - np.pi / 2]), 2 * np.pi))
    mids = (crit + np.roll(crit, -1) + np.where(np.arange(len(crit)) == len(crit) - 1, 2 * np.pi, 0)) / 2
    U = np.stack([np.cos(mids), np.sin(mids)], axis=1)
    return as_set(pattern_of(X, U))


def test_cover_count_values():
    assert cover_count(10, 3) == 92
    assert cover_count(30, 4) == 8180
    assert cover_count(40, 3) == 1562
    assert cover_count(5, 1) == 2
    assert cover_count(3, 5) == 8  # d >= n: all 2^n sign vectors


@pytest.mark.parametrize("n,d", [(3, 2), (10, 2), (40, 2), (5, 3), (12, 3), (25, 3), (40, 3), (6, 4), (12, 4)])
def test_enumeration_matches_cover_count_general_position(n, d):
    rng = np.random.default_rng(1000 * n + d)
    X = rng.standard_normal((n, d))
    ps = enumerate_patterns(X)
    assert ps.p == cover_count(n, d)
    assert ps.complete and not ps.degenerate and ps.rank == d
    assert ps.D.dtype == np.int8 and ps.D.shape == (ps.p, n)
    assert len(as_set(ps.D)) == ps.p
    # witnesses: strictly inside their cell and reproduce the pattern
    assert np.array_equal(pattern_of(X, ps.witnesses), ps.D)
    assert np.all(np.abs(ps.witnesses @ X.T) > 0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_d2_matches_angle_sort(seed):
    X = np.random.default_rng(seed).standard_normal((15, 2))
    assert as_set(enumerate_patterns(X).D) == angle_reference(X)


def test_general_position_matches_lp_reference():
    X = np.random.default_rng(7).standard_normal((7, 3))
    assert as_set(enumerate_patterns(X).D) == lp_reference(X)


def _degenerate_cases() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    base = rng.standard_normal((5, 3))
    plane = np.c_[rng.standard_normal((5, 2)), np.zeros(5)]
    return {
        "repeated_and_parallel": np.vstack([base, base[:2], -base[3:4], 2.5 * base[4:5]]),
        "zero_row": np.vstack([base, np.zeros((1, 3))]),
        "coplanar_rank2": plane,
        "concurrent_ray": np.vstack([plane, rng.standard_normal((3, 3))]),
        "integer_grid_d4": rng.integers(-1, 2, (8, 4)).astype(float),
        "d2_collinear": np.array([[1.0, 0.0], [2.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
    }


@pytest.mark.parametrize("name", list(_degenerate_cases()))
def test_degenerate_inputs_exact_and_flagged(name):
    X = _degenerate_cases()[name]
    ps = enumerate_patterns(X)
    assert ps.degenerate
    assert ps.complete
    assert as_set(ps.D) == lp_reference(X)
    assert np.array_equal(pattern_of(X, ps.witnesses), ps.D)
    assert ps.p <= cover_count(X.shape[0], ps.rank)


def test_zero_row_gets_one_and_identity_pattern_convention():
    X = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])
    ps = enumerate_patterns(X)
    assert np.all(ps.D[:, 1] == 1)
    assert ps.p == 4
    # X = I_2: four open cells, all of {0,1}^2, identity included as an open cell.
    assert as_set(enumerate_patterns(np.eye(2)).D) == {(0, 0), (0, 1), (1, 0), (1, 1)}
    # with_patterns adds the u = 0 pattern when it is not an open cell
    X3 = np.array([[1.0, 0.0], [-1.0, 0.0]])
    ps3 = enumerate_patterns(X3)
    assert (1, 1) not in as_set(ps3.D)
    assert (1, 1) in as_set(ps3.with_patterns(np.ones(2)).D)


def test_sampling_is_subset_and_incomplete():
    rng = np.random.default_rng(11)
    X = rng.standard_normal((40, 3))
    exact = as_set(enumerate_patterns(X).D)
    sampled = sample_patterns(X, 2000, rng)
    assert not sampled.complete
    assert as_set(sampled.D) <= exact
    assert sampled.p < len(exact)  # 2000 gates cannot hit 1562 cells of very unequal sizes
    assert np.array_equal(pattern_of(X, sampled.witnesses), sampled.D)


def test_max_patterns_guard():
    X = np.random.default_rng(0).standard_normal((30, 4))
    with pytest.raises(ValueError, match="max_patterns"):
        enumerate_patterns(X, max_patterns=1000)


@pytest.mark.parametrize("name", ["general", "repeated_and_parallel", "zero_row"])
def test_facet_mask_matches_lp_redundancy(name):
    """Row k is a facet of cell j iff the cone without the rows on H_k contains a point violating row k."""
    X = np.random.default_rng(9).standard_normal((6, 3)) if name == "general" else _degenerate_cases()[name]
    ps = enumerate_patterns(X)
    mask = facet_mask(X, ps)
    norms = np.linalg.norm(X, axis=1)
    for j, Dj in enumerate(ps.D):
        S = 2.0 * Dj - 1.0
        for k in range(X.shape[0]):
            if norms[k] == 0:
                assert not mask[j, k]
                continue
            cos = np.abs(X @ X[k]) / np.maximum(norms * norms[k], 1e-300)
            others = (cos < 1 - 1e-12) & (norms > 0)
            A_ub = np.vstack([-(S[others, None] * X[others]), (S[k] * X[k])[None, :]])
            b_ub = np.r_[-np.ones(others.sum()), -1.0]
            res = linprog(np.zeros(X.shape[1]), A_ub=A_ub, b_ub=b_ub, bounds=[(None, None)] * X.shape[1],
                          method="highs")
            assert mask[j, k] == (res.status == 0), (j, k)


def test_facet_mask_refuses_incomplete_sets():
    X = np.random.default_rng(0).standard_normal((8, 3))
    with pytest.raises(ValueError):
        facet_mask(X, sample_patterns(X, 50, np.random.default_rng(0)))


# ------------------------------------------------------------------ orthogonal separability


@pytest.mark.parametrize("fixture,expected", [(F1, True), (F2, True), (SLIDE, False), (MC3_BINARY, False),
                                              (OBTUSE_SAME, False)])
def test_orthogonal_separability_named(fixture, expected):
    ok, slack = is_orthogonally_separable(*fixture)
    assert ok is expected
    assert (slack >= 0) if expected else (slack < 0)


def test_orthogonal_separability_slack_values():
    X, y = F1
    _, slack = is_orthogonally_separable(X, y)
    cos12 = X[0] @ X[1] / np.linalg.norm(X[0]) / np.linalg.norm(X[1])
    assert slack == pytest.approx(-cos12, rel=1e-12)  # kappa_same = 1 (only i = j pairs)
    ok, slack = is_orthogonally_separable(np.eye(2), np.array([1.0, -1.0]))  # boundary: cross product 0
    assert ok and slack == 0.0
    ok, _ = is_orthogonally_separable(np.array([[1.0, 0.0], [0.0, 0.0]]), np.array([1.0, -1.0]))
    assert not ok  # zero row: x^T x = 0 is not > 0
    ok, slack = is_orthogonally_separable(*SLIDE)
    assert slack == pytest.approx(-C30, rel=1e-12)


def test_multiclass_orthogonal_separability_mc3():
    ok, slack = is_multiclass_orthogonally_separable(MC3_X, np.array([1, 2, 3]))
    assert ok and slack == pytest.approx(0.17 / 0.83, rel=1e-12)
    # same data, binary one-vs-rest: not OS (spec §1.10 caveat)
    assert not is_orthogonally_separable(*MC3_BINARY)[0]
    assert not is_multiclass_orthogonally_separable(MC3_X, np.array([1, 2, 2]))[0]


# ------------------------------------------------------------------ spike-free


@pytest.mark.parametrize("X,expected", [(F1[0], False), (F2[0], True), (SLIDE[0], True), (OBTUSE_SAME[0], False),
                                        (MC3_X, False), (np.eye(3), True)])
def test_spike_free_named(X, expected):
    ok, detail = is_spike_free(X)
    assert ok is expected
    assert detail["exact"]


def _circle_max_ratio(X: np.ndarray, m: int = 20001) -> float:
    """max over the unit circle of ||X^{-1} (X u)_+|| (Definition 2 for square invertible X)."""
    t = np.linspace(0, 2 * np.pi, m)
    U = np.stack([np.cos(t), np.sin(t)], axis=1)
    Z = np.linalg.solve(X, np.maximum(U @ X.T, 0).T).T
    return float(np.linalg.norm(Z, axis=1).max())


@pytest.mark.parametrize("seed", range(6))
def test_spike_free_criterion_matches_definition_d2(seed):
    X = np.random.default_rng(seed).standard_normal((2, 2))
    ok, _ = is_spike_free(X)
    ratio = _circle_max_ratio(X)
    assert ok == (ratio <= 1 + 1e-9), ratio


def test_spike_free_rank_deficient():
    X = np.random.default_rng(5).standard_normal((8, 3))  # N > d Gaussian: range condition fails
    ok, detail = is_spike_free(X)
    assert not ok and detail["exact"] and detail["range_residual"] > 1e-3
    ok, detail = is_spike_free(np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0]]))  # (Xu)_+ = X (u)_+
    assert ok and not detail["exact"]
    assert detail["max_norm"] <= 1 + 1e-9
