"""The compiled kernels (numba) against the numpy paths they replace: same iteration, same bookkeeping.

Every public integrator and network function is run twice on small cases, once compiled and once with
``verify.numerics._jit.ENABLED`` switched off (the path taken without numba or with ``VERIFY_JIT=0``).
Integer results (steps, snapshot steps, pattern changes, event sequences) must be equal; floating-point
results equal to rounding (only the order of additions in the small products differs).  The adaptive
integrators may take a different step where rounding flips an acceptance test, so their right-hand-side
counts are compared within a few steps and their states to the integration tolerance.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from verify.numerics import _jit, flow, nets

pytestmark = pytest.mark.skipif(not _jit.ENABLED, reason="numba not available: only the numpy path exists")


def _both(fn, monkeypatch):
    """(compiled result, numpy result) of fn()."""
    compiled = fn()
    with monkeypatch.context() as mp:
        mp.setattr(_jit, "ENABLED", False)
        reference = fn()
    return compiled, reference


def _same(a, b, rtol, path="result", atol=1e-14):
    """Structure, shapes, dtypes and integers equal; floats equal to ``rtol`` of each array's scale (and
    ``atol``: balance drifts and error estimates are themselves rounding-sized)."""
    if isinstance(a, dict):
        assert set(a) == set(b), path
        for k in a:
            _same(a[k], b[k], rtol, f"{path}[{k!r}]", atol)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (u, v) in enumerate(zip(a, b)):
            _same(u, v, rtol, f"{path}[{i}]", atol)
    elif isinstance(a, (np.ndarray, np.generic, float, int)) and not isinstance(a, bool):
        x, y = np.asarray(a), np.asarray(b)
        assert x.shape == y.shape and x.dtype == y.dtype, (path, x.shape, y.shape, x.dtype, y.dtype)
        if x.dtype.kind == "f":
            assert np.array_equal(np.isnan(x), np.isnan(y)) and np.array_equal(np.isinf(x), np.isinf(y)), path
            fin = np.isfinite(x)
            scale = np.max(np.abs(y[fin]), initial=0.0)
            assert np.max(np.abs(x[fin] - y[fin]), initial=0.0) <= rtol * scale + atol, path
        else:
            assert np.array_equal(x, y), path
    else:
        assert a == b, path


def _same_flow(c, r, rtol):
    """Two integrate_flow / simulate_log_scale results: the same events in the same order, step counts
    within 2%, everything else to ``rtol``."""
    nc, nr = np.atleast_1d(c.pop("nsteps")), np.atleast_1d(r.pop("nsteps"))
    assert np.all(np.abs(nc - nr) <= 0.02 * nr), (nc, nr)
    ev_c, ev_r = c.pop("events"), r.pop("events")
    if ev_c and isinstance(ev_c[0], list):
        ev_c, ev_r = sum(ev_c, []), sum(ev_r, [])
    assert [e[1:] for e in ev_c] == [e[1:] for e in ev_r]
    np.testing.assert_allclose([e[0] for e in ev_c], [e[0] for e in ev_r], rtol=rtol, atol=rtol)
    for h in (c["history"], r["history"]):  # the balance drift measures the integration error itself
        if "balance_drift" in h:
            assert np.max(h.pop("balance_drift")) <= 1e-9
    _same(c, r, rtol, atol=1e-12)


def _problem(B=3, m=4, n=7, d=3, seed=0, scale=0.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.sign(X @ rng.normal(size=d))
    shape = (m,) if B is None else (B, m)
    return scale * rng.normal(size=(*shape, d)), scale * rng.normal(size=shape), X, y


LOSSES = [("logistic", "mean"), ("exponential", "sum"), (nets.scaled_loss("logistic", 2.0), "sum")]


@pytest.mark.parametrize("alpha", [0.0, 0.25])
@pytest.mark.parametrize("loss,reduction", LOSSES)
def test_gd_steps(alpha, loss, reduction, monkeypatch):
    W, a, X, y = _problem()
    c, r = _both(lambda: flow.gd_steps(W, a, X, y, lr=0.05, steps=200, alpha=alpha, loss=loss,
                                       reduction=reduction), monkeypatch)
    _same(c, r, 1e-12)


def test_gd_steps_large_net_uses_blas_and_agrees(monkeypatch):
    W, a, X, y = _problem(B=2, m=40, n=30, d=5)  # m n d above the BLAS threshold
    c, r = _both(lambda: flow.gd_steps(W, a, X, y, lr=0.1, steps=30), monkeypatch)
    _same(c, r, 1e-12)


@pytest.mark.parametrize("alpha", [0.0, 0.25])
@pytest.mark.parametrize("loss,reduction", LOSSES)
def test_gradient_descent_with_stops_and_history(alpha, loss, reduction, monkeypatch):
    W, a, X, y = _problem()
    c, r = _both(lambda: dict(flow.gradient_descent(W, a, X, y, lr=0.02, steps=1500, alpha=alpha, loss=loss,
                                                    reduction=reduction, stop_margin=0.05, record_every=7)),
                 monkeypatch)
    _same(c, r, 1e-10)
    assert c["history"]["pattern_changes"][-1].sum() > 0


def test_gradient_descent_grows_its_history_buffer(monkeypatch):
    W, a, X, y = _problem(B=None)
    c, r = _both(lambda: dict(flow.gradient_descent(W, a, X, y, lr=0.01, steps=2500, record_every=1)),
                 monkeypatch)
    assert len(c["history"]["step"]) == 2501
    _same(c, r, 1e-10)


@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("loss,reduction", LOSSES)
def test_normalized_gradient_descent(batched, loss, reduction, monkeypatch):
    W, a, X, y = _problem(B=3 if batched else None)
    c, r = _both(lambda: dict(flow.normalized_gradient_descent(
        W, a, X, y, lr=0.05, alpha=0.1, loss=loss, reduction=reduction, margin_horizons=[0.2, 1.0, 3.0],
        max_steps=3000, record_every=3)), monkeypatch)
    _same(c, r, 1e-10)
    assert np.all(np.asarray(c["snapshots"][-1]["step"]) > 0)


def test_normalized_gradient_descent_with_margin_scaled_steps(monkeypatch):
    """step_margin_ref: steps lr * min(1, q_ref / q_min) in both paths; above q_ref the margin then grows about
    linearly in the step count, so the last horizon takes more steps than with the fixed step."""
    W, a, X, y = _problem(B=3)
    run = lambda ref: dict(flow.normalized_gradient_descent(  # noqa: E731
        W, a, X, y, lr=0.05, alpha=0.1, margin_horizons=[1.0, 3.0, 9.0], max_steps=20000, record_every=50,
        step_margin_ref=ref))
    c, r = _both(lambda: run(2.0), monkeypatch)
    _same(c, r, 1e-10)
    fixed = run(None)
    scaled = np.asarray(c["snapshots"][-1]["step"])
    assert np.all(scaled > 0)
    assert np.array_equal(np.asarray(c["snapshots"][0]["step"]), np.asarray(fixed["snapshots"][0]["step"]))
    assert np.all(scaled > np.asarray(fixed["snapshots"][-1]["step"]))
    with pytest.raises(Exception, match="step_margin_ref"):
        run(-1.0)


def test_normalized_gradient_descent_without_diagnostics(monkeypatch):
    """diagnostics=False: the activation-change counts and log flow times are NaN (history and snapshots) in
    both paths; every other value is bit for bit that of the run with them (here with margin-scaled steps, a
    history row every step and more rows than the compiled loop's first buffer, so it returns and resumes)."""
    W, a, X, y = _problem(B=3)
    run = lambda diag: dict(flow.normalized_gradient_descent(  # noqa: E731
        W, a, X, y, lr=0.05, alpha=0.1, margin_horizons=[1.0, 3.0, 9.0], max_steps=3000, record_every=1,
        step_margin_ref=2.0, diagnostics=diag))
    c, r = _both(lambda: run(False), monkeypatch)
    _same(c, r, 1e-10)
    full = run(True)
    assert len(full["history"]["step"]) > 1024
    skipped = ("pattern_changes", "log_flow_time")
    for key, v in full["history"].items():
        if key in skipped:
            assert np.all(np.isnan(c["history"][key])) and not np.any(np.isnan(v)), key
        else:
            assert np.array_equal(v, c["history"][key]), key
    for s_full, s_off in zip(full["snapshots"], c["snapshots"]):
        assert np.all(np.isnan(s_off["log_flow_time"]))
        for key, v in s_full.items():
            if key != "log_flow_time":
                assert np.array_equal(v, s_off[key], equal_nan=True), key
    assert np.array_equal(full["W"], c["W"]) and np.array_equal(full["a"], c["a"])


def _bits(x):
    """Every array of a flow result as bytes (NaN as one NaN: a NaN's sign bit is not part of the result)."""
    if isinstance(x, dict):
        return {k: _bits(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_bits(v) for v in x]
    if isinstance(x, (np.ndarray, np.generic, float)) and not isinstance(x, bool):
        v = np.asarray(x)
        if v.dtype.kind == "f":
            v = np.where(np.isnan(v), np.nan, v)
        return (v.dtype.str, v.shape, v.tobytes())
    return x


@pytest.mark.parametrize("case", range(7))
def test_ngd_batch_is_each_element_alone_bit_for_bit(case):
    """The compiled normalised GD keeps the running elements side by side and drops each from the lanes at the
    step it stops: every element's results (state, snapshots, history) are the bits of that element run alone.
    Elements stop at different steps (a saddle never starts, a fast one stops first, a NaN one never reaches
    a horizon), with margin-scaled steps, a kink value, history rows every step past the first buffer (the
    kernel returns and resumes) and without diagnostics; case 6 is a net past BLAS_WORK (products in BLAS).
    The same run with the step one ulp larger differs: the comparison sees a single rounding."""
    m, n, d = ((2, 10, 2), (3, 7, 3), (1, 4, 2), (4, 12, 5), (2, 10, 2), (3, 8, 3), (40, 30, 5))[case]
    W, a, X, y = _problem(B=9, m=m, n=n, d=d, seed=case, scale=0.5)
    W[1], a[1] = 0.0, 0.0      # a saddle: no gradient, never reaches a horizon
    a[2] *= 1e3
    if case == 4:
        W[5, 0, 0] = np.nan
    kw = dict(alpha=(0.5, 0.0, 0.25, 0.1, 0.5, 0.0, 0.2)[case], loss=LOSSES[case % 3][0],
              reduction=LOSSES[case % 3][1], lr=0.05, margin_horizons=[0.5, 4.0, 30.0],
              max_steps=3000 if case < 6 else 300, record_every=(None, 1)[case % 2], at_kink=(None, 0.3)[case % 2],
              step_margin_ref=(None, 20.0, 5.0)[case % 3], diagnostics=case not in (2, 5))
    batch = dict(flow.normalized_gradient_descent(W, a, X, y, **kw))
    steps = np.asarray(batch["snapshots"][-1]["step"] if case < 6 else batch["snapshots"][0]["step"])
    assert steps[1] == -1 and len(set(steps[steps > 0].tolist())) >= 2    # elements stopped at different steps
    if case % 2:
        assert len(batch["history"]["step"]) > 1024
    for b in (0, 1, 2, 5, 8):
        alone = dict(flow.normalized_gradient_descent(W[b:b + 1], a[b:b + 1], X, y, **kw))
        for key in ("W", "a", "nsteps"):
            assert _bits(batch[key][b]) == _bits(alone[key][0]), (b, key)
        for s_batch, s_alone in zip(batch["snapshots"], alone["snapshots"]):
            for key, v in s_batch.items():
                assert _bits(v if key == "Q" else v[b]) == _bits(s_alone[key] if key == "Q" else s_alone[key][0])
        # history rows at the same steps (alone, the run ends with a row at the element's stop; in the batch
        # the others run on): the same values
        common, r_batch, r_alone = np.intersect1d(batch["history"]["step"], alone["history"]["step"],
                                                  return_indices=True)
        assert len(common) >= len(alone["history"]["step"]) - 1
        for key, v in batch["history"].items():
            if key != "step":
                assert _bits(v[r_batch, b]) == _bits(alone["history"][key][r_alone, 0]), (b, key)
    off = dict(flow.normalized_gradient_descent(W, a, X, y, **{**kw, "lr": np.nextafter(0.05, 1.0)}))
    assert _bits(off["W"][0]) != _bits(batch["W"][0])


def test_gd_log_time_matches_the_numpy_loop(monkeypatch):
    W, a, X, y = _problem(B=None)
    s = np.array([0.001, 0.5, 0.2, 2.0, 4.0])  # an already-passed checkpoint returns the current iterate
    c, r = _both(lambda: flow.gd_log_time(W, a, X, y, h=0.002, log_times=s, at_kink=0.0, reduction="sum"),
                 monkeypatch)
    _same(c, r, 1e-12)
    np.testing.assert_array_equal(c[0][1], c[0][2])


@pytest.mark.parametrize("alpha", [0.0, 0.2])
def test_integrate_flow(alpha, monkeypatch):
    W, a, X, y = _problem(B=None, m=4, n=8)
    c, r = _both(lambda: dict(flow.integrate_flow(W, a, X, y, alpha=alpha, t_end=20.0)), monkeypatch)
    _same_flow(c, r, 1e-8)


def test_integrate_flow_in_log_time_batched(monkeypatch):
    W, a, X, y = _problem(B=2)
    c, r = _both(lambda: dict(flow.integrate_flow(W, a, X, y, t_end=1e6, log_time=True, loss="exponential",
                                                  reduction="sum", error_estimate=False)), monkeypatch)
    _same_flow(c, r, 1e-8)


@pytest.mark.parametrize("alpha", [0.0, 0.3])
def test_integrate_flow_sliding(alpha, monkeypatch):
    X = np.array([[1.0, 0.0], [0.5, np.sqrt(3) / 2]])
    y = np.array([1.0, -1.0])
    c, r = _both(lambda: dict(flow.integrate_flow(np.array([[0.3, -0.05]]), np.array([0.3]), X, y, alpha=alpha,
                                                  t_end=30.0)), monkeypatch)
    assert c["sliding"]
    _same_flow(c, r, 1e-8)


def test_integrate_flow_shared_planes(monkeypatch):
    rng = np.random.default_rng(3)
    V = rng.normal(size=(4, 2))
    X, y = np.vstack([V, -V]), np.concatenate([np.ones(4), -np.ones(4)])
    W, a = 0.2 * rng.normal(size=(3, 2)), 0.2 * rng.normal(size=3)
    c, r = _both(lambda: dict(flow.integrate_flow(W, a, X, y, t_end=15.0)), monkeypatch)
    _same_flow(c, r, 1e-8)


def test_simulate_log_scale(monkeypatch):
    rng = np.random.default_rng(3)
    U, s, rho0 = rng.normal(size=(4, 3)), np.array([1.0, -1.0, 1.0, -1.0]), np.full(4, -50.0)
    X = rng.normal(size=(6, 3))
    y = np.sign(X @ rng.normal(size=3))
    c, r = _both(lambda: dict(flow.simulate_log_scale(U, rho0, s, X, y, t_end=10.0, error_estimate=True)),
                 monkeypatch)
    _same_flow(c, r, 1e-7)


def test_user_loss_takes_the_numpy_path():
    W, a, X, y = _problem(B=None)
    user = nets.Loss("user logistic", nets.LOGISTIC.value, nets.LOGISTIC.neg_derivative, nets.LOGISTIC.log_value,
                     nets.LOGISTIC.log_neg_derivative)
    assert nets.kernel_loss(user) is None and nets.kernel_loss("logistic") is not None
    W1, a1 = flow.gd_steps(W, a, X, y, lr=0.1, steps=20, loss=user)
    W2, a2 = flow.gd_steps(W, a, X, y, lr=0.1, steps=20)
    np.testing.assert_allclose(W1, W2, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a1, a2, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("loss,reduction", LOSSES)
def test_network_functions(batched, normalized, loss, reduction, monkeypatch):
    W, a, X, y = _problem(B=3 if batched else None)
    W[..., 0, :] = 0.0  # exact kinks: phi'(0) = at_kink
    for kink in (None, 0.0):
        c, r = _both(lambda k=kink: nets.gradient(W, a, X, y, 0.2, loss, normalized, k, reduction=reduction),
                     monkeypatch)
        _same(c, r, 1e-13)
    c, r = _both(lambda: (nets.margins(W, a, X, y, 0.2), nets.forward(W, a, X), nets.normalized_margin(W, a, X, y)),
                 monkeypatch)
    _same(c, r, 1e-13)
    q = nets.margins(W, a, X, y)
    c, r = _both(lambda: nets.log_loss(q, loss, reduction=reduction), monkeypatch)
    _same(c, r, 1e-13)
    assert type(c) is type(r)


def test_empty_nets_and_data_take_the_numpy_path(monkeypatch):
    X, y = np.eye(3), np.array([1.0, -1.0, 1.0])
    c, r = _both(lambda: (nets.forward(np.zeros((0, 3)), np.zeros(0), X),
                          nets.gradient(np.zeros((2, 0, 3)), np.zeros((2, 0)), X, y)), monkeypatch)
    _same(c, r, 0.0)
    with pytest.raises(ValueError):
        nets.log_loss(np.zeros(0))


def test_log_scaled_loss_is_compiled_and_shifts_time(monkeypatch):
    W, a, X, y = _problem(B=None)
    shifted = nets.log_scaled_loss("logistic", 3.0)
    assert nets.kernel_loss(shifted)[1].tolist() == [3.0]
    q = nets.margins(W, a, X, y)
    np.testing.assert_allclose(nets.log_loss(q, shifted), 3.0 + nets.log_loss(q), rtol=1e-14)
    c, r = _both(lambda: dict(flow.integrate_flow(W, a, X, y, loss=shifted, t_end=20.0 * np.exp(-3.0))),
                 monkeypatch)
    _same_flow(c, r, 1e-8)
    plain = flow.integrate_flow(W, a, X, y, t_end=20.0, t_eval=[20.0])
    np.testing.assert_allclose(c["W"], plain.W, rtol=1e-7, atol=1e-9)


def test_verify_jit_0_switches_the_kernels_off():
    import os
    import subprocess
    import sys

    code = ("from verify.numerics import _jit, flow; import numpy as np; assert not _jit.ENABLED; "
            "W, a = flow.gd_steps(np.ones((2, 2)), np.ones(2), np.eye(2), np.array([1.0, -1.0]), lr=0.1, steps=3); "
            "assert np.all(np.isfinite(W))")
    r = subprocess.run([sys.executable, "-c", code], env={**os.environ, "VERIFY_JIT": "0"}, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr


def test_kernel_cache_is_keyed_by_the_kernel_sources():
    """numba checks a cached kernel against its own file only; a kernel of _ode.py inlines functions of
    _kernels.py, so the cache folder is named by a hash of the kernel modules: an edit to _kernels.py moves
    every kernel to a fresh folder instead of loading machine code compiled from the old source."""
    from verify.numerics import _jit

    if not _jit.ENABLED:
        pytest.skip("numba disabled")
    import numba.core.config as cfg

    assert cfg.CACHE_DIR.endswith(f"numba-{_jit.fingerprint()}")
    assert len(_jit.fingerprint()) == 16


def test_log_terms_is_log_value_and_log_neg_derivative_bit_for_bit() -> None:
    """The fused loss terms the normalised step uses are the two separate functions' results, bit for bit,
    at the branch points (0, 30, the exp underflow at -746), in every sign and with offsets, for each kind."""
    from verify.numerics import _kernels

    tiny = np.finfo(float).tiny
    qs = [0.0, -0.0, tiny, -tiny, 5e-324, 1e-300, 0.3, -0.3, 29.999999999999996, 30.0, 30.000000000000004, 100.0,
          708.0, 744.0, 745.1, 745.2, 745.9, 746.0, 746.0000000000001, 800.0, 1e6, -1.0, -40.0, -745.5, -800.0,
          np.inf, -np.inf, np.nan]
    qs += list(np.random.default_rng(0).normal(scale=400.0, size=400))
    for kind in (0, 1, 2):
        for offsets in (np.empty(0), np.array([-3.25, 1e-3])):
            for q in qs:
                v, u = _kernels.log_terms(kind, offsets, float(q))
                v0 = _kernels.log_value(kind, offsets, float(q))
                u0 = _kernels.log_neg_derivative(kind, offsets, float(q))
                assert np.array_equal(np.array([v, u]), np.array([v0, u0]), equal_nan=True), (kind, offsets, q)
                assert np.signbit(v) == np.signbit(v0) and np.signbit(u) == np.signbit(u0), (kind, offsets, q)
    # the skipped calls: np.exp is exactly 0 below EXP_ZERO
    assert np.exp(np.nextafter(_kernels.EXP_ZERO, -np.inf)) == 0.0 and np.exp(-1e4) == 0.0


@pytest.mark.parametrize("alpha", [0.0, 0.1])
def test_region_field_with_several_sliding_planes(alpha, monkeypatch):
    """The field of a region where neurons slide on two and three planes at once (the compiled field solves
    those projections with the region's pseudo-inverses, _ode.sliding_pinv) against the numpy field (one
    np.linalg.lstsq per neuron): velocities and Filippov weights equal to rounding."""
    rng = np.random.default_rng(5)
    m, d, n = 4, 6, 9
    X, y = rng.normal(size=(n, d)), np.where(rng.random(n) < 0.5, 1.0, -1.0)
    W, a = rng.normal(size=(m, d)), rng.normal(size=m)
    model = flow._Model(X, y, m, d, alpha, nets.get_loss("logistic"), "mean")
    T = np.where(W @ model.E.T > 0, 1, -1)
    C = np.zeros(T.shape, dtype=bool)
    C[0, [1, 4]] = True
    C[2, [0, 3, 5]] = True
    C[3, 2] = True
    theta = np.concatenate([W.ravel(), a])
    fast = flow._RegionFlow(model, T, C)
    assert fast.compiled is not None and fast.compiled[9][fast.compiled[6][1]:fast.compiled[6][2]].any()
    dV, dr, lam = fast.parts(theta)
    with monkeypatch.context() as mp:
        mp.setattr(_jit, "ENABLED", False)
        model_np = flow._Model(X, y, m, d, alpha, nets.get_loss("logistic"), "mean")
        dV_np, dr_np, lam_np = flow._RegionFlow(model_np, T, C).parts(theta)
    assert sorted(lam) == sorted(lam_np) == [(0, 1), (0, 4), (2, 0), (2, 3), (2, 5), (3, 2)]
    np.testing.assert_allclose(dV, dV_np, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dr, dr_np, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose([lam[k] for k in sorted(lam)], [lam_np[k] for k in sorted(lam)], rtol=1e-10)
    # the sliding neurons' velocities are tangent to their planes (the projection is applied)
    for k, planes in [(0, [1, 4]), (2, [0, 3, 5])]:
        assert np.max(np.abs(model.E[planes] @ dV[k])) <= 1e-12 * np.linalg.norm(dV[k])


def _jit_decorator(node) -> str | None:
    for dec in node.decorator_list:
        name = dec.id if isinstance(dec, ast.Name) else dec.attr if isinstance(dec, ast.Attribute) else None
        if name in ("jit", "jit_callee", "jit_inline"):
            return name
    return None


def test_kernels_without_a_python_entry_are_called_from_compiled_kernels_only():
    # a jit_callee has no CPython wrapper: numba crashes the process (a segmentation fault, no exception) on a call
    # from Python, so in its own module its name is used only in the bodies of compiled functions, and no other
    # module reaches it (``_ode.name``, ``from ._ode import name``)
    root = Path(__file__).resolve().parents[1]
    files = [p for d in ("verify", "theorems", "fixtures", "tests", "tools", "benchmarks", "examples", "scripts")
             for p in (root / d).rglob("*.py")]
    trees = {p: ast.parse(p.read_text(), str(p)) for p in files}
    callees = {p.stem: {n.name for n in ast.walk(t) if isinstance(n, ast.FunctionDef)
                        and _jit_decorator(n) == "jit_callee"} for p, t in trees.items()}
    callees = {mod: names for mod, names in callees.items() if names}
    assert {"brent_event", "velocity"} <= callees["_ode"] and {"gradient_call", "lane_get"} <= callees["_kernels"]

    bad = []

    def visit(node, compiled: bool, own: set, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            inside = compiled
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                inside = isinstance(child, ast.FunctionDef) and _jit_decorator(child) is not None
            hit = None
            if isinstance(child, ast.Name) and child.id in own and not compiled:
                hit = child.id
            elif (isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name)
                  and child.attr in callees.get(child.value.id, ())):
                hit = f"{child.value.id}.{child.attr}"
            elif isinstance(child, ast.ImportFrom) and (child.module or "").split(".")[-1] in callees:
                names = callees[(child.module or "").split(".")[-1]]
                hit = ", ".join(a.name for a in child.names if a.name in names) or None
            if hit:
                bad.append(f"{where}:{child.lineno} {hit}")
            visit(child, inside, own, where)

    for p, t in trees.items():
        visit(t, False, callees.get(p.stem, set()), str(p.relative_to(root)))
    assert not bad, "kernels declared with jit_callee used outside compiled code (declare them with jit): " + \
        ", ".join(bad)
