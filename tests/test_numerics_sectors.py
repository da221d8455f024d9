"""Tests of verify.numerics.sectors' fast objective for searches of G on the sphere."""

import numpy as np
import pytest

from verify.numerics.sectors import potential, sphere_objective


def _data(seed=0, n=9, d=5):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)), rng.standard_normal(n), rng


@pytest.mark.parametrize("layout", ["C", "F", "int", "strided"])
def test_sphere_objective_is_the_checked_objective_bit_for_bit(layout):
    X, c, rng = _data()
    X = {"C": X, "F": np.asfortranarray(X), "int": np.round(4 * X).astype(int), "strided": X[::-1]}[layout]
    neg_G = sphere_objective(X, c)
    for scale in (1e-150, 1e-3, 1.0, 1e3, 1e150):
        for z in scale * rng.standard_normal((200, X.shape[1])):
            assert neg_G(z) == -float(potential(X, c, z / np.linalg.norm(z)))
    u, _, _ = np.linalg.svd(rng.standard_normal((X.shape[1], 2)), full_matrices=True)
    B = u[:, 2:]                                   # a strided column block, as g_free_maxima's kink basis
    neg_G_B = sphere_objective(X, c, B)
    for z in rng.standard_normal((200, B.shape[1])):
        assert neg_G_B(z) == -float(potential(X, c, B @ z / np.linalg.norm(B @ z)))
    with np.errstate(invalid="ignore", divide="ignore"):       # z = 0: nan, as the checked form gives
        assert np.isnan(neg_G(np.zeros(X.shape[1]))) and np.isnan(-float(potential(X, c, np.zeros(X.shape[1]) / 0.0)))
    assert isinstance(neg_G(np.ones(X.shape[1])), float)


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_sphere_objective_is_the_checked_objective_on_many_shapes(layout):
    """The objective against potential, bit for bit, on many shapes in C, F and strided layouts."""
    rng = np.random.default_rng(7)
    for _ in range(400):
        n, d = int(rng.integers(1, 30)), int(rng.integers(1, 9))
        X, c = rng.standard_normal((n, d)) * 10.0 ** rng.integers(-3, 4), rng.standard_normal(n)
        X = {"C": X, "F": np.asfortranarray(X), "strided": X[::-1]}[layout]
        neg_G = sphere_objective(X, c)
        for z in rng.standard_normal((5, d)):
            assert neg_G(z) == -float(potential(X, c, z / np.linalg.norm(z)))


def test_sphere_objective_refuses_what_potential_refuses():
    X, c, _ = _data()
    z = np.ones(X.shape[1])
    for bad_X, bad_c in ((X, c[:-1]), (X[0], c)):
        with pytest.raises(ValueError):
            potential(bad_X, bad_c, z)
        with pytest.raises(ValueError):
            sphere_objective(bad_X, bad_c)
    with pytest.raises(ValueError):
        potential(X, c, np.ones((3, 2)) @ np.ones(2))        # a basis with the wrong number of rows
    with pytest.raises(ValueError):
        sphere_objective(X, c, np.ones((3, 2)))
