"""Fast unit tests of the Lyu et al. (2021) helpers, fixtures and oracles (closed forms, known answers)."""

from __future__ import annotations

import numpy as np
import pytest

import fixtures.lyu2021 as F
import theorems.lyu2021  # noqa: F401  (registers the claims)
from theorems.lyu2021.common import (
    G_grad,
    G_value,
    asm41_residual,
    bbar,
    embed,
    good_embedding,
    lambda0,
    linear_net,
    mu_tilde,
    norm_M,
    svm,
)
from theorems.lyu2021.dynamics import (
    flow_margin_horizons,
    flow_ode,
    gd_until_margin,
    ngd_horizons,
    shifted_logistic,
)
from verify import REGISTRY
from verify.numerics.global_margin import global_margin_oracle
from verify.numerics.nets import forward, gradient, normalized_margin


def _sym(seed=0, **kw):
    return F.sym_gauss.build(np.random.default_rng(seed), **{**F.sym_gauss.defaults, **kw})


def test_all_87_items_registered():
    ids = {c.id for c in REGISTRY if c.paper == "lyu2021"}
    from theorems.lyu2021.catalogue import ITEMS
    assert len(ITEMS) == 87          # the spec's 86 items of §3 plus exp.J (Table 1 / Figure 4, spec §4.4)
    assert {"lyu2021." + k for k in ITEMS} <= ids
    # Other test modules import parts of other papers; validate the whole catalogue, loaded completely.
    from verify.discovery import load_package

    load_package("theorems")
    REGISTRY.validate()


def test_symmetric_fixture_meets_assumptions():
    fx = _sym(3)
    assert asm41_residual(fx["X"], fx["y"]) == 0.0
    assert np.max(np.linalg.norm(fx["X"], axis=1)) == pytest.approx(1.0)
    w, g = svm(fx["X"], fx["y"])
    assert g > 0 and np.min(fx["y"] * (fx["X"] @ w)) == pytest.approx(g, rel=1e-12)


def test_G_is_linear_on_symmetric_data_with_corrected_mu_tilde():
    fx = _sym(1, d=4)
    X, y, al = fx["X"], fx["y"], 0.3
    w = np.random.default_rng(2).normal(size=(7, 4))
    assert np.allclose(G_value(w, X, y, al), w @ mu_tilde(X, y, al), rtol=1e-13, atol=1e-15)
    assert np.allclose(G_grad(w[0], X, y, al), mu_tilde(X, y, al), rtol=1e-13)
    assert lambda0(X, y, al, literal=True) == pytest.approx(2 * lambda0(X, y, al), rel=1e-14)


def test_embedding_preserves_function_and_norm():
    fx = _sym(4)
    rng = np.random.default_rng(5)
    W2, a2 = rng.normal(size=(2, 3)), np.array([0.7, -1.3])
    b = np.array([0.3, -0.2, 0.9, -1.1, 0.0])
    W, a = embed(b, W2, a2)
    assert np.allclose(forward(W, a, fx["X"], 0.5), forward(W2, a2, fx["X"], 0.5), rtol=1e-13)
    with pytest.raises(ValueError):
        embed(np.array([1.0, 2.0]), W2, a2)


def test_linear_net_attains_the_thm42_bound():
    fx = _sym(6)
    w, g = svm(fx["X"], fx["y"])
    W, a = linear_net(w, 3)
    assert normalized_margin(W, a, fx["X"], fx["y"], 0.5) == pytest.approx(0.375 * g, rel=1e-13)


def test_oracle_matches_bound_on_symmetric_2d_data_and_exceeds_it_otherwise():
    fx = _sym(7, d=2)
    _, g = svm(fx["X"], fx["y"])
    assert global_margin_oracle(fx["X"], fx["y"], 0.5).gamma == pytest.approx(0.375 * g, rel=1e-6)
    fa = F.gen_allpos_sv.build(np.random.default_rng(0), **F.gen_allpos_sv.defaults)
    _, ga = svm(fa["X"], fa["y"])
    assert global_margin_oracle(fa["X"], fa["y"], 0.5).gamma > 0.375 * ga * 1.01


def test_fig1left_beta_root_and_kkt_margin():
    X, y, beta = F.fig1left_data(0.5, scaled=False)
    assert beta == pytest.approx(0.441594, abs=1e-6)
    assert F.fig1left_data(0.0)[2] == pytest.approx(np.pi / 4)


def test_bbar_good_embedding_probability_m2():
    rng = np.random.default_rng(0)
    W, a = rng.normal(size=(20000, 2, 3)), rng.normal(size=(20000, 2))
    p = good_embedding(bbar(W, a, np.array([1.0, 0, 0]))).mean()
    assert abs(p - 0.5) < 0.02
    assert norm_M(W[0], a[0]) == pytest.approx(max(np.linalg.norm(W[0], axis=1).max(), np.abs(a[0]).max()))


def test_hinted_fixture_certifies_assumptions():
    fx = F.hinted.build(np.random.default_rng(3), gap=0.7, n0=4)
    assert fx["a2_slack"] > 0 and fx["a3_slack"] > 0
    assert np.linalg.norm(fx["w_plus"] - fx["w_star"]) < 1e-8
    assert fx["K"] > 2 * fx["eps"] / (1 - fx["alpha"])


def test_gd_and_flow_preserve_balance_and_reach_margin():
    fx = _sym(8)
    rng = np.random.default_rng(1)
    W = 0.1 * rng.normal(size=(1, 2, 3))
    a = np.array([[np.linalg.norm(W[0, 0]), -np.linalg.norm(W[0, 1])]])
    W2, a2, steps = gd_until_margin(W, a, fx["X"], fx["y"], 0.5, eta=0.1, q_target=1.0)
    assert steps[0] < 200_000 and np.min(fx["y"] * forward(W2[0], a2[0], fx["X"], 0.5)) >= 1.0
    Ws, As = flow_ode(W[0], a[0], fx["X"], fx["y"], 0.5, [0.0, 5.0], rtol=1e-11, atol=1e-14)
    bal = np.sum(Ws ** 2, 2) - As ** 2
    assert np.max(np.abs(bal[1] - bal[0])) < 1e-10


def test_gradient_matches_finite_differences_off_kinks():
    fx = _sym(9)
    rng = np.random.default_rng(2)
    W, a = rng.normal(size=(3, 3)), rng.normal(size=3)
    gW, ga = gradient(W, a, fx["X"], fx["y"], 0.5)
    from verify.numerics.nets import loss_value, margins
    h = 1e-6
    E = np.zeros_like(W)
    E[1, 2] = h
    fd = (loss_value(margins(W + E, a, fx["X"], fx["y"], 0.5)) - loss_value(margins(W - E, a, fx["X"], fx["y"], 0.5))) / (2 * h)
    assert fd == pytest.approx(gW[1, 2], rel=1e-6)


def _ngd_reference(W, a, X, y, alpha, H, eta, q_ref):
    """A plain loop of normalised GD with steps eta * min(1, q_ref / q_min) and snapshots at margin horizons."""
    from verify.numerics.nets import gradient, margins

    W, a = np.array(W, dtype=float), np.array(a, dtype=float)
    steps = np.full((len(H), len(W)), -1)
    SW = np.full((len(H),) + W.shape, np.nan)
    for b in range(len(W)):
        k, j = 0, 0
        while j < len(H):
            q = margins(W[b], a[b], X, y, alpha).min()
            while j < len(H) and q >= H[j]:
                steps[j, b], SW[j, b] = k, W[b]
                j += 1
            gW, ga = gradient(W[b], a[b], X, y, alpha, normalized=True)
            step = eta * min(1.0, q_ref / q)
            W[b], a[b] = W[b] - step * gW, a[b] - step * ga
            k += 1
    return steps, SW


@pytest.mark.parametrize("q_ref", [None, 3.0])
def test_ngd_horizons_matches_a_plain_loop(q_ref):
    """ngd_horizons (the shared normalized_gradient_descent, with step_margin_ref when q_ref is given) == a plain
    per-seed loop of the same steps."""
    fx = _sym(4)
    rng = np.random.default_rng(5)
    W, a = rng.normal(size=(3, 2, 3)), rng.normal(size=(3, 2))
    W, a, _ = gd_until_margin(W, a, fx["X"], fx["y"], 0.5, eta=0.1, q_target=1.0)
    H = [2.0, 4.0, 8.0]
    r1 = ngd_horizons(W, a, fx["X"], fx["y"], 0.5, H, eta=1e-2, q_ref=q_ref)
    steps, SW = _ngd_reference(W, a, fx["X"], fx["y"], 0.5, H, 1e-2, np.inf if q_ref is None else q_ref)
    assert r1.reached.all() and np.array_equal(r1.steps, steps)
    assert np.allclose(r1.W, SW, rtol=1e-9, atol=1e-12)


def test_ngd_continued_from_a_snapshot_is_the_uninterrupted_run():
    """thm5.5 and thm5.6 extend a fixed-step normalised-GD run to further horizons from its last snapshot: that must
    be the same iteration as running to the further horizon at once (same steps, same iterates)."""
    fx = _sym(6)
    rng = np.random.default_rng(7)
    W, a = rng.normal(size=(3, 2, 3)), rng.normal(size=(3, 2))
    W, a, _ = gd_until_margin(W, a, fx["X"], fx["y"], 0.5, eta=0.1, q_target=1.0)
    whole = ngd_horizons(W, a, fx["X"], fx["y"], 0.5, [4.0, 16.0], eta=1e-2)
    first = ngd_horizons(W, a, fx["X"], fx["y"], 0.5, [4.0], eta=1e-2)
    more = ngd_horizons(first.W[-1], first.a[-1], fx["X"], fx["y"], 0.5, [16.0], eta=1e-2)
    assert whole.reached.all() and more.reached.all()
    assert np.array_equal(whole.steps[-1], first.steps[-1] + more.steps[-1])
    assert np.allclose(whole.W[-1], more.W[-1], rtol=1e-12, atol=1e-14)
    assert np.allclose(whole.a[-1], more.a[-1], rtol=1e-12, atol=1e-14)


def test_extend_runs_continues_only_the_masked_seeds():
    """cor4.4 continues only its still-undecided seeds: the others stay unreached at the added horizons, and the
    continued ones match continuing every seed."""
    from theorems.lyu2021.sec4 import extend_runs

    fx = _sym(8)
    rng = np.random.default_rng(9)
    W, a = rng.normal(size=(4, 2, 3)), rng.normal(size=(4, 2))
    W, a, _ = gd_until_margin(W, a, fx["X"], fx["y"], 0.5, eta=0.1, q_target=1.0)
    run = ngd_horizons(W, a, fx["X"], fx["y"], 0.5, [2.0, 4.0], eta=1e-2, q_ref=400)
    mask = np.array([True, False, True, False])
    (part,) = extend_runs(fx, [run], [8.0], only=mask)
    (every,) = extend_runs(fx, [run], [8.0])
    assert np.array_equal(part.reached[-1], mask) and every.reached[-1].all()
    assert np.allclose(part.W[-1][mask], every.W[-1][mask], rtol=1e-12, atol=1e-14)
    assert np.all(np.isnan(part.W[-1][~mask]))


def test_shifted_logistic_is_a_log_domain_multiple():
    q = np.array([-3.0, 0.0, 40.0, 900.0])
    from verify.numerics.nets import LOGISTIC
    lf = shifted_logistic(800.0)
    assert np.allclose(lf.log_value(q) - LOGISTIC.log_value(q), 800.0, rtol=0, atol=1e-12)
    assert np.allclose(lf.log_neg_derivative(q) - LOGISTIC.log_neg_derivative(q), 800.0, rtol=0, atol=1e-12)


def test_flow_margin_horizons_reaches_horizons_on_symmetric_data():
    """The accurate late-phase flow passes each horizon in order, with growing norm and a small error estimate."""
    fx = _sym(6)
    rng = np.random.default_rng(7)
    W, a = 0.5 * rng.normal(size=(1, 2, 3)), 0.5 * rng.normal(size=(1, 2))
    W, a, _ = gd_until_margin(W, a, fx["X"], fx["y"], 0.5, eta=0.1, q_target=3.0)
    run = flow_margin_horizons(W[0], a[0], fx["X"], fx["y"], 0.5, [20.0, 200.0], dq=150.0, records=150)
    assert np.all(run.q >= [20.0, 200.0]) and np.all(run.q <= [20.0 + 3.0, 200.0 + 3.0])
    nrm = np.sqrt(np.sum(run.W ** 2, axis=(1, 2)) + np.sum(run.a ** 2, axis=1))
    assert nrm[1] > nrm[0] and run.error < 1e-6 and run.segments == 2


def test_he_inits_keeps_the_single_draw_as_seed_zero():
    """exp.fig2.middle batches its inits: the first is the draw a one-init check takes (W, then a) from the same
    generator, so a pinned hunted fixture keeps its init in the batch."""
    from theorems.lyu2021.experiments import he_inits

    m, d = 8, 3
    r1 = np.random.default_rng(739)
    W1 = 1e-3 * r1.normal(size=(1, m, d)) * np.sqrt(2 / d)
    a1 = 1e-3 * r1.normal(size=(1, m)) * np.sqrt(2 / m)
    W, a = he_inits(np.random.default_rng(739), 5, m, d)
    assert W.shape == (5, m, d) and a.shape == (5, m)
    assert np.array_equal(W[:1], W1) and np.array_equal(a[:1], a1)
    assert not np.allclose(W[1], W[0])


def test_margin_outcomes_certified_failure_rules():
    """A ratio within 5% of 1 succeeds; above 1.05 / (1 - ln n / Q) fails (the smoothed margin only grows); below
    0.95 it fails only once settled (1%); otherwise, or with one horizon reached, undecided."""
    from theorems.lyu2021.experiments import margin_outcomes

    H = np.array([100.0, 400.0])
    R = np.array([[1.01, 2.30, 0.50, 0.40, 1.08, 1.06, np.nan],
                  [1.00, 2.35, 0.50, 0.45, 1.08, 1.06, 1.00]])
    # 1.06 at Q = 400, n = 61: 1.06 (1 - ln 61 / 400) = 1.049 <= 1.05, not certified; 1.08 is
    assert margin_outcomes(R, H, n=61).tolist() == [1, 0, 0, -1, 0, -1, -1]
    # 1.08 at Q = 10: 1.08 (1 - ln 61 / 10) < 1.05, so not certified
    assert margin_outcomes(R[:, 4:5], np.array([5.0, 10.0]), n=61).tolist() == [-1]


def test_seed_outcomes_fail_above():
    """sec6.seed_outcomes: a seed settled at a distance below ``fail_above`` is undecided, not a failure."""
    from types import SimpleNamespace

    from theorems.lyu2021.sec6 import seed_outcomes

    run = SimpleNamespace(reached=np.ones((3, 3), bool))
    fd = np.array([[0.004, 0.05, 0.30], [0.002, 0.05, 0.31], [0.001, 0.05, 0.31]])
    assert seed_outcomes(run, fd).tolist() == [1, 0, 0]
    assert seed_outcomes(run, fd, fail_above=0.1).tolist() == [1, -1, 0]


def test_printed_a9_fails_on_the_a10_limit_net_and_the_mirror_holds():
    """Thm A.10's limit -(1/2)phi(-<w-, x>) is a net with a <= 0 and margin exactly gamma-/2 on S- (printed A.9
    holds for no data set); the mirrored A.9 (a_k >= 0) holds on the label-flipped hinted data (sup alpha gamma-/2)."""
    from theorems.lyu2021.sec6 import a9_sup, a10_limit_net, hinted_flipped, support_minus

    fx = hinted_flipped.build(np.random.default_rng(0), **hinted_flipped.defaults)
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    S, wm, gm = support_minus(X, y, al)
    W, a = a10_limit_net(wm)
    assert a[0] < 0 and float(normalized_margin(W, a, X[S], y[S], al)) == pytest.approx(gm / 2, rel=1e-12)
    g_neg, st_neg, *_ = a9_sup(X, y, al, (-1.0,))
    g_pos, st_pos, *_ = a9_sup(X, y, al, (1.0,))
    assert st_neg == st_pos == "optimal"
    assert g_neg >= gm / 2 * (1 - 1e-9) and g_pos == pytest.approx(al * gm / 2, rel=1e-6)


def test_boundary_deviation_tells_a_plane_from_a_v():
    """exp.fig2.middle's linearity test: a one-neuron leaky-ReLU net has a plane through 0 as its boundary (deviation
    at rounding level); two neurons whose boundary is x1 = -0.88 |x2| (a V) are far from any plane."""
    from theorems.lyu2021.experiments import boundary_deviation

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.uniform(-1, 1, 60), rng.uniform(-1, 1, 60), np.full(60, 0.05)])
    u = np.array([1.0, 0.0, 0.0])
    lin = boundary_deviation(np.array([[1.0, 0.3, 0.0]]), np.array([1.0]), X, u, 0.5, np.random.default_rng(1))
    # f = relu(x1 + 0.88 x2) + relu(x1 - 0.88 x2) is positive exactly where x1 > -0.88 |x2|: the boundary bends at x2 = 0
    W = np.array([[1.0, 0.88, 0.0], [1.0, -0.88, 0.0]])
    vee = boundary_deviation(W, np.array([1.0, 1.0]), X, u, 0.0, np.random.default_rng(1))
    assert lin < 1e-9 and vee > 0.2


def test_lambda0_statements_are_judged_with_max_G_and_carry_a_rooted_imprecision():
    """lemD.2, lem5.2, lem5.4 and lemE.8 read lambda0 as max |G| on the sphere (proof of Lemma E.8, l. 4508): each is
    expected verified with an imprecision rooted in the mu~ display's erratum, no amended variant, and the display's
    value as a mutated control; lambda0 = max |G| = ((1+alpha)/4)||mu|| on symmetric data."""
    from theorems.lyu2021.common import LAMBDA_MU_DISPLAY, MU_TILDE_ID

    for key in ("lemD.2", "lem5.2", "lem5.4", "lemE.8"):
        c = REGISTRY[f"lyu2021.{key}"]
        assert c.expected is None and c.erratum.kind == "imprecision" and c.erratum.root == MU_TILDE_ID
        assert "l. 4508" in c.erratum.reading and not c.erratum.amended
        assert f"lyu2021.{key}.amended" not in REGISTRY.claims
        assert any(u.mutation == LAMBDA_MU_DISPLAY for u in c.fixtures)
    fx = _sym(3, d=4)
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    P = np.random.default_rng(0).normal(size=(20000, 4))
    P /= np.linalg.norm(P, axis=1, keepdims=True)
    mubar = fx["mu"] / np.linalg.norm(fx["mu"])
    assert float(np.max(np.abs(G_value(P, X, y, al)))) <= lambda0(X, y, al) * (1 + 1e-12)
    assert float(G_value(mubar[None], X, y, al)[0]) == pytest.approx(lambda0(X, y, al), rel=1e-12)
    assert lambda0(X, y, al, literal=True) == pytest.approx(2 * lambda0(X, y, al), rel=1e-12)


def test_thm56_probe_target_is_not_a_local_max_and_the_global_one_is_declared():
    """thm5.6's hypothesis 'thetabar* is a local-max-margin direction' fails on the kkt_target family (the margin rises
    along (w*, -e w*, 1, -e)) and holds (by Thm 4.2) on sym.gauss."""
    from theorems.lyu2021.sec5 import local_max_target

    kkt = F.sym_gauss_kkt_target.build(np.random.default_rng(0), **F.sym_gauss_kkt_target.defaults)
    # the predicate reads only data fields, so the built data dicts stand in for fixtures
    assert local_max_target.evaluate(kkt).holds is False
    assert local_max_target.evaluate(_sym(0)).holds is True


def test_zero_start_is_a_rest_point_of_the_flow():
    """thm3.1's probe theta0 = 0: every gradient vanishes, the flow stays at 0 and L stays ln 2."""
    fx = _sym(1, m=3)
    W0, a0 = np.zeros((3, fx["X"].shape[1])), np.zeros(3)
    Ws, As = flow_ode(W0, a0, fx["X"], fx["y"], fx["alpha"], [1.0, 1000.0])
    assert np.all(Ws == 0) and np.all(As == 0)


def test_cone_statements_take_lambda0_plus_as_defined_and_the_closed_form_bound_holds():
    """lemG.5 and lemG.8 are false with lambda0+ := ||mu+|| as App. G defines it (l. 7584) and hold with ||mu+||/2:
    expected refuted, a statement affected by the cone display's root erratum, with an amended claim (the halved
    value) whose mutated control is the defined value. lemG.7 holds with lambda0+ as defined once phi~ is the flow of
    L~ (as defined): an imprecision, expected verified, the displayed ODE as its control. cone_G_max (lemG.8's
    closed form) bounds G from above on the sphere, equals ||mu+||/2 = G(mubar+) on A.2 data (so max G = ||mu+||/2
    there), and bounds -G by ||mu-||/2 likewise."""
    from theorems.lyu2021.appendix_g import cone_G_max, g4_start
    from theorems.lyu2021.common import CONE_DISPLAY, GRAD_G_CONE_ID, mu_pm

    for key in ("lemG.5", "lemG.8"):
        c = REGISTRY[f"lyu2021.{key}"]
        assert c.erratum.kind == "wrong constant or typo" and c.erratum.root == GRAD_G_CONE_ID and c.erratum.amended
        assert f"lyu2021.{key}.amended" in REGISTRY.claims
        assert any(u.mutation == CONE_DISPLAY for u in c.fixtures)
    assert REGISTRY["lyu2021.lemG.8"].erratum.independence == "closed form"
    c = REGISTRY["lyu2021.lemG.7"]
    assert c.expected in (None, "verified") and c.erratum.kind == "imprecision" and c.erratum.root == GRAD_G_CONE_ID
    assert "lyu2021.lemG.7.amended" not in REGISTRY.claims
    assert any(u.mutation == CONE_DISPLAY for u in c.fixtures)
    fx = g4_start.build(np.random.default_rng(2), **g4_start.defaults)
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    mp, mm = mu_pm(X, y, al)
    P = np.random.default_rng(0).normal(size=(20000, X.shape[1]))
    P /= np.linalg.norm(P, axis=1, keepdims=True)
    g = G_value(P, X, y, al)
    assert float(np.max(g)) <= cone_G_max(X, y, al) * (1 + 1e-12)
    assert float(np.max(-g)) <= cone_G_max(X, y, al, sign=-1.0) * (1 + 1e-12)
    assert cone_G_max(X, y, al) == pytest.approx(float(np.linalg.norm(mp)) / 2, rel=1e-12)
    assert cone_G_max(X, y, al, sign=-1.0) == pytest.approx(float(np.linalg.norm(mm)) / 2, rel=1e-12)
    assert float(G_value((mp / np.linalg.norm(mp))[None], X, y, al)[0]) == pytest.approx(np.linalg.norm(mp) / 2, rel=1e-12)
    # on data without A.2 the bound still holds (it may exceed ||mu+||/2)
    Z = np.random.default_rng(1).normal(size=(9, 3))
    yz = np.where(np.arange(9) % 2 == 0, 1.0, -1.0)
    P3 = np.random.default_rng(2).normal(size=(20000, 3))
    P3 /= np.linalg.norm(P3, axis=1, keepdims=True)
    assert float(np.max(G_value(P3, Z, yz, 0.3))) <= cone_G_max(Z, yz, 0.3) * (1 + 1e-12)


def test_margin_certificate_of_thm43():
    """thm4.3's failure certificate: the smoothed normalised margin l^-1(nL)/||theta||^2 (batched; against the
    formula written out, and below the normalised margin) above C gamma_lin. On symmetric data it never fires (Thm 4.2), not even
    at the linear maximiser; on gen.allpos_sv data the one-sided net (1/2)phi(<w*, x>) has a larger margin and is
    certified, and a certified seed fails although its distance would call it a success."""
    from theorems.lyu2021.dynamics import HorizonRun
    from theorems.lyu2021.sec4 import classify, margin_certified, smoothed_normalized_margin
    from verify.numerics.nets import log_loss, margins

    def run_of(Ws, As):
        W, a = np.stack(Ws)[None], np.stack(As)[None]
        return HorizonRun(np.array([1.0]), W, a, np.ones((1, len(Ws)), bool), np.zeros((1, len(Ws)), int))

    rng = np.random.default_rng(3)
    fx = _sym(4)
    X, y, al = fx["X"], fx["y"], 0.5
    w, g = svm(X, y)
    Wl, al_ = linear_net(w, 3)
    W, a = Wl + 0.05 * rng.normal(size=(5, 3, 3)), al_ + 0.05 * rng.normal(size=(5, 3))
    for s in (3.0, 30.0, 300.0):        # nL from about 1 down to ~e^-100
        g_b = smoothed_normalized_margin(s * W, s * a, X, y, al)
        with np.errstate(over="ignore", divide="ignore"):
            # the formula directly, in extended precision (e^-1000 does not underflow there)
            lnl = [np.longdouble(log_loss(margins(s * W[k], s * a[k], X, y, al))) for k in range(5)]
            g_s = [float(-np.log(np.expm1(len(y) * np.exp(v)))) / (np.sum((s * W[k]) ** 2) + np.sum((s * a[k]) ** 2))
                   for k, v in enumerate(lnl)]
        fin = np.isfinite(g_b)       # -inf where nL overflows in double precision: the true value is negative there
        assert np.allclose(g_b[fin], np.array(g_s)[fin], rtol=1e-12, atol=0) and np.all(np.array(g_s)[~fin] < 0)
        assert np.all(g_b <= normalized_margin(s * W, s * a, X, y, al))
    for s in (1.0, 1e2, 1e4, 1e6):      # the linear maximiser at growing scale: gamma~ -> C gamma_lin from below
        Ws = [s * Wl] + [s * (Wl + 1e-3 * rng.normal(size=Wl.shape)) for _ in range(3)]
        As = [s * al_] + [s * (al_ + 1e-3 * rng.normal(size=3)) for _ in range(3)]
        assert not margin_certified(run_of(Ws, As), X, y, al, (1 + al) / 4 * g).any()
    fa = F.gen_allpos_sv.build(np.random.default_rng(0), **F.gen_allpos_sv.defaults)
    Xa, ya = fa["X"], fa["y"]
    wa, ga = svm(Xa, ya)
    one_sided = (np.stack([wa, 0 * wa]) / np.sqrt(2), np.array([1.0, 0.0]) / np.sqrt(2))   # (1/2)phi(<w*, x>)
    lin = linear_net(wa, 2)
    cert = margin_certified(run_of([1e4 * one_sided[0], 1e4 * lin[0]], [1e4 * one_sided[1], 1e4 * lin[1]]),
                            Xa, ya, al, (1 + al) / 4 * ga)
    assert cert.tolist() == [True, False]
    fd = np.array([[0.02, 0.02], [0.01, 0.01]])          # both within tol = 3e-2 and shrinking
    reached = np.ones((2, 2), bool)
    assert classify(fd, fd + 1, reached, 3e-2).tolist() == [1, 1]
    assert classify(fd, fd + 1, reached, 3e-2, certified=np.array([True, False])).tolist() == [0, 1]


def test_linear_target_is_no_kkt_direction_when_the_support_vectors_share_a_label():
    """thm4.3's probe: on gen.allpos_sv data whose linear support vectors all carry one label, no KKT-margin direction
    computes c<w*, x>; never on symmetric data (the support vectors come in pairs of both labels). Another method on
    one representation: the KKT residual LP of Def B.8 at theta_lin (and a good embedding of it) is far from 0 there,
    and 0 on symmetric data."""
    from theorems.lyu2021.sec4 import linear_target_not_kkt
    from verify.numerics.margin import two_layer_kkt_residual

    b = np.array([0.8, -0.5, 0.3])
    seen = 0
    for seed in range(8):
        fa = F.gen_allpos_sv.build(np.random.default_rng(seed), **F.gen_allpos_sv.defaults)
        fs = _sym(seed)
        for fx, expect in ((fa, None), (fs, False)):
            X, y = fx["X"], fx["y"]
            w, g = svm(X, y)
            wit = linear_target_not_kkt(X, y, w, g)
            if expect is False:
                assert wit is None
            seen += wit is not None
            for W, a in (linear_net(w, 2), embed(b, *linear_net(w, 2))):
                r = two_layer_kkt_residual(W, a, X, y, alpha=0.5, tau_act=1e-6, tau_kink=1e-9).r_kkt
                assert (r > 0.05) if wit is not None else (expect is not False or r < 1e-9)
    assert seen >= 6


def test_thm43_probe_records_whether_the_kkt_witness_is_present():
    """gen.allpos_sv does not guarantee that every linear support vector carries one label: at rng seeds 9 and 10 a
    support vector of each label. thm4.3 records which path decides its probe (linear_sv_one_label) and, without the
    witness, notes that the probe is judged by simulation; with it, the nearest opposite-label point's margin ratio
    is recorded and exceeds 1."""
    from theorems.lyu2021.sec4 import WITNESS_ABSENT, _kkt_witness
    from verify import Evidence

    for seed, present in ((0, True), (9, False), (10, False)):
        fa = F.gen_allpos_sv.build(np.random.default_rng(seed), **F.gen_allpos_sv.defaults)
        X, y = fa["X"], fa["y"]
        w, g = svm(X, y)
        ev = Evidence()
        wit = _kkt_witness(X, y, w, g, ev)
        assert ev.quantities["linear_sv_one_label"] is present
        assert (WITNESS_ABSENT in ev.notes) is not present
        assert (wit is not None) is present
        if present:
            assert wit["opposite_label_margin_ratio"] > 1
        else:       # a support vector (margin gamma_lin) of each label
            sv = y * (X @ w) <= g * (1 + 1e-6)
            assert set(y[sv].tolist()) == {-1.0, 1.0}


def test_extend_runs_continues_only_the_masked_seeds_of_each_run():
    """thm4.3 continues a seed certified in one run (one init scale) only in the others: extend_runs takes one mask
    per run. Masked-out seeds stay unreached (NaN) at the new horizon; the masked ones equal the same continuation
    run on them alone, bit for bit."""
    from theorems.lyu2021.sec4 import extend_runs

    fx = _sym(1)
    X, y, al = fx["X"], fx["y"], 0.5
    w, _ = svm(X, y)
    Wl, al_ = linear_net(w, 2)
    rng = np.random.default_rng(5)
    runs = [ngd_horizons(Wl + 0.1 * rng.normal(size=(4, 2, 3)), al_ + 0.1 * rng.normal(size=(4, 2)), X, y, al,
                         [1.0, 2.0]) for _ in range(2)]
    masks = [np.array([True, False, True, False]), np.array([False, False, False, True])]
    out = extend_runs({"X": X, "y": y, "alpha": al}, runs, [4.0], only=masks)
    for run, ext, mask in zip(runs, out, masks):
        assert np.array_equal(ext.reached[-1], mask & run.reached[-1]) and mask.sum() == ext.reached[-1].sum()
        assert np.all(np.isnan(ext.W[-1][~mask]))
        alone = ngd_horizons(run.W[-1][mask], run.a[-1][mask], X, y, al, [4.0])
        assert np.array_equal(ext.W[-1][mask], alone.W[-1]) and np.array_equal(ext.steps[-1][mask], alone.steps[-1])
    with pytest.raises(ValueError):            # one mask per run, no fewer
        extend_runs({"X": X, "y": y, "alpha": al}, runs, [4.0], only=masks[:1])


def test_cor44_probe_off_asm41_stops_undecided_once_thm42s_value_is_beaten():
    """cor4.4 off Asm 4.1 (sym.broken): seeds whose smoothed normalised margin exceeds (1+alpha)/4 gamma_lin show
    that Thm 4.2's value is not the optimum there, so the probe stops undecided before judging any seed against it
    (no horizon record); on symmetric data that stop never happens and the seeds are judged."""
    import verify

    res = verify.check("lyu2021.cor4.4", task="5.0")
    (rec,) = [r for r in res.results("lyu2021.cor4.4") if r["task_id"] == "5.0"]
    q = rec["evidence"]["quantities"]
    assert rec["verdict"] == "vacuous" and rec["probe"] == "undecided"
    assert q["seeds_above_thm42_margin"] > 0 and q["max_smoothed_margin_ratio"] > 1
    assert "last_horizon" not in q and "not the global optimum" in rec["evidence"]["outcome_reason"]
    res = verify.check("lyu2021.cor4.4", task="0.0")
    (sym,) = [r for r in res.results("lyu2021.cor4.4") if r["task_id"] == "0.0"]
    assert sym["verdict"] == "pass" and "seeds_above_thm42_margin" not in sym["evidence"]["quantities"]
    assert "last_horizon" in sym["evidence"]["quantities"]
