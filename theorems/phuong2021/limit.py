"""Theorem 1 (limit of W/||W||_F and a/||a||), Corollary 1 (limit function) and the checkable claims
inside their proofs (P1-P4, P6-P9). Limits are judged by trends along log-time horizons
s = log(1 + t) in {10, 20, 40, 80, 160, 320}."""

from __future__ import annotations

import numpy as np
from scipy.optimize import nnls

from fixtures import phuong2021 as ph
from verify import Evidence, adversarial, claim, judge_trend, negative, not_checkable, random
from verify.numerics.nets import activation as relu
from verify.numerics.sectors import class_sum_directions, sphere_samples

from ._dynamics import gradient_flow, groups, limit_distance, loss_value, net
from ._geometry import class_geometry, early_weights, extremal_sectors, qp_validity
from .hypotheses import (
    balanced_init,
    cross_entropy,
    near_zero_init,
    orthogonally_separable,
    support_span,
)

THM1_HYPOTHESES = [orthogonally_separable, support_span, balanced_init, near_zero_init, cross_entropy]
HORIZONS = np.array([10.0, 20.0, 40.0, 80.0, 160.0, 320.0])
D8_TOL = 0.05        # spec §3.9 T1.2 (spot check 0.020 at s = 320)
D9_TOL = 5e-3        # spec §3.9 T1.4 (spot check 2.1e-4)
FIT_TOL = 0.05       # Corollary 1: relative residual of the (u, z) fit at s = 320 (spec C1.2/C1.3 scale)


N_INITS = {"quick": 2, "standard": 3, "thorough": 5}
"""Initialisations per fixture for Theorem 1: the fixture's own, then draws of the same law (same p, lambda)."""
CLASS_SUMS = "limit directions are the class sums s_+- (Lemma 2's early-phase directions)"


def _not_os(ev: Evidence) -> Evidence:
    ev.true("data orthogonally separable (w_+- and the limit defined; flow not simulated otherwise)", False)
    return ev


def limit_run(fx, horizons=HORIZONS, extra=40, a0=None, W0=None):
    """Log-time GF to max(horizons) from (a0, W0) (default: the fixture's init); checkpoints: a geometric
    grid plus the horizons."""
    grid = np.unique(np.concatenate([[0.0], np.geomspace(0.05, horizons[-1], extra), horizons]))
    a0 = fx["a0"] if a0 is None else a0
    W0 = fx["W0"] if W0 is None else W0
    return gradient_flow(fx["X"], fx["y"], a0, W0, grid, loss=fx.get("loss", "ce"))


def initialisations(fx, n: int) -> list:
    """The fixture's (a0, W0), then n - 1 more near-zero balanced initialisations of the same width and
    scale drawn with the check's own generator (Section 2: w_j = lambda_j v_j/||v_j||, a_j = +-lambda_j)."""
    p, d = np.shape(fx["W0"])
    return [(fx["a0"], fx["W0"])] + [ph.balanced_init(fx.rng, p, d, float(fx["lam"])) for _ in range(n - 1)]


def _at(tr, s):
    return int(np.argmin(np.abs(tr.s - s)))


def gamma_star(w_pos, w_neg):
    """[derived X9/X10] the maximal normalised margin 1/(2(||w_+|| + ||w_-||))."""
    return 1.0 / (2.0 * (np.linalg.norm(w_pos) + np.linalg.norm(w_neg)))


THM1_EXTREMES = (
    "extremes covered (standard profile): width p = 1 (the minimum; one group empty) and p = 30; init scale "
    "lambda = 1e-6 and 1e-3 (the largest the harness's near-zero reading admits); margins 3x unequal; data at "
    "the boundary of the OS class (os.span_cones, gap 1e-3: a cross-class cosine of -1e-3, same-class cosines "
    "down to 0.36), nearly collinear classes (half-angle 0.02: support cones almost degenerate, so the span "
    "hypothesis is barely met) and d = 2 (the smallest dimension; data in a half-space, so some "
    "initialisations are dead: the proof's exceptional event, excluded and counted)")


# Across BLAS kernels and thread counts (tools/cross_machine.py, OpenBLAS SkylakeX/Zen x1 vs Prescott x2) the
# largest change measured in this check's floats: D8/D9 and X8/X9 along long log-time GD: 0.019 relative.
@claim("phuong2021.thm1", reproducible={"rtol": 0.1, "atol": 1e-6}, kind="theorem", title="Theorem 1 (convergence to the two max-margin neurons)",
       fidelity="faithful",
       statement=r"Two-layer width-$p$ ReLU net, gradient flow, cross-entropy, near-zero balanced init, orthogonally "
                 r"separable data whose positive and negative support examples each span $\mathbb R^d$: for almost "
                 r"all such data and with probability $1-2^{-p}$ over the init, "
                 r"$\|W(t)/\|W(t)\|_F-(uw_+^\top+zw_-^\top)\|_F\to0$ (8) and "
                 r"$\|a(t)/\|a(t)\|-(u\|w_+\|-z\|w_-\|)\|\to0$ (9) for some $u,z\in\mathbb R^p_{\ge0}$, $u_iz_i=0$.",
       hypotheses=THM1_HYPOTHESES,
       uses=["phuong2021.lem1", "phuong2021.lem2", "phuong2021.lem3", "phuong2021.lemA.3", "phuong2021.lemA.4",
             "phuong2021.lemB.1", "phuong2021.thm1.p1", "phuong2021.thm1.p2", "phuong2021.thm1.p3",
             "phuong2021.thm1.p4", "phuong2021.thm1.p5", "phuong2021.thm1.p6", "phuong2021.thm1.p7",
             "phuong2021.thm1.p8"],
       fixtures=[random(ph.span_net),
                 random(ph.span_net, d=3, n_pos=8, n_neg=8, p=6, label="span_net d=3", profiles=("standard", "thorough")),
                 adversarial(ph.span_net, p=1, label="width 1 (one group empty)"),
                 adversarial(ph.span_net, lam=1e-6, p=30, label="p = 30, lambda = 1e-6"),
                 adversarial(ph.span_net, lam=1e-3, label="lambda = 1e-3 (largest near-zero init)"),
                 adversarial(ph.span_net, margin_pos=3.0, label="unequal margins"),
                 adversarial(ph.span_cones_net, gap=1e-3, half_angle=0.6, label="OS boundary (gap 1e-3)"),
                 adversarial(ph.span_cones_net, half_angle=0.02, label="nearly collinear classes"),
                 adversarial(ph.span_cones_net, d=2, p=4, label="d = 2 (dead inits possible)"),
                 negative(ph.span_net, mutation=CLASS_SUMS),
                 negative(ph.span_net, loss="poly", label="polynomially tailed loss (outside the class)"),
                 negative(ph.obtuse, theta2_deg=130.0)],
       judged_by="trend in log-time, per initialisation (the fixture's own plus draws of the same law: 2 in quick, 3 "
                 "in standard, 5 in thorough; the spread of D8 and D9 at s = 320 is recorded): D8 (distance in (8), "
                 f"minimised over u, z) and D9 (eq. (9) at the same u, z) must shrink along s in {HORIZONS.tolist()} "
                 f"to <= {D8_TOL} and <= {D9_TOL}; a tail flat or growing above twice the tolerance refutes. An "
                 "initialisation whose neurons all end in J_0 is the proof's exceptional event (probability <= 2^-p, "
                 "judged by phuong2021.thm1.prob) and is excluded and counted; exact structure after the early phase "
                 "(groups frozen); [derived X8, X9] ratio ||W_J+||^2/||W_J-||^2 -> ||w_+||/||w_-|| and margin gap -> 0 "
                 "(Richardson limit from s = 160, 320 at the 1/log t rate), normalised margin <= gamma* at every "
                 "checkpoint. " + THM1_EXTREMES, timeout_s=300)
def thm1(fx):
    if not cross_entropy.evaluate(fx).holds:
        # outside the theorem's class of losses: the hypotheses decide (the check's power on such a loss is
        # shown by tests/test_theorems_phuong2021.py, where it refutes a polynomially tailed loss)
        return Evidence().inconclusive("loss outside Theorem 1's class (not simulated)")
    return thm1_check(fx, derived=True)


def _limit_directions(fx, X, y, ev):
    cg = class_geometry(X, y)
    qp_validity(ev, cg)
    if fx.mutated(CLASS_SUMS):
        return class_sum_directions(X, early_weights(y))
    return cg.w_pos, cg.w_neg


def thm1_check(fx, derived: bool = True, n_init: int | None = None, trajectories: list | None = None,
               horizons: np.ndarray = HORIZONS) -> Evidence:
    """Theorem 1's limit by D8/D9 trends over several initialisations; with ``derived`` also the sharper
    [derived] X8/X9 predictions on the first one (default horizons only). A mutated fixture tests the mutated
    limit on one init. ``trajectories``, if given, receives the successful runs (for a caller's second
    method); ``horizons`` are the log-times of the trend."""
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    if not orthogonally_separable.evaluate(fx).holds:
        return _not_os(ev)
    wp, wn = _limit_directions(fx, X, y, ev)
    sp, sn = extremal_sectors(X, y)
    if n_init is None:
        n_init = 1 if fx.mutated() else N_INITS.get(fx.profile, 2)
    last8, last9, excluded = [], [], 0
    for k, (a0, W0) in enumerate(initialisations(fx, n_init)):
        tag = f"init {k}: " if n_init > 1 else ""
        tr = limit_run(fx, horizons=horizons, a0=a0, W0=W0)
        if not ev.valid(f"{tag}integrator reached s = {horizons[-1]:g}", tr.success, detail=tr.message):
            continue
        if trajectories is not None:
            trajectories.append(tr)
        g_late = [groups(tr.a[i], tr.W[i], X, sp, sn) for i in range(len(tr.s)) if tr.s[i] >= 2.0]
        Jp, Jn = g_late[-1]["J+"], g_late[-1]["J-"]
        if Jp.size + Jn.size == 0:
            excluded += 1                   # every neuron dead: the exceptional event of the proof
            continue
        idx = [_at(tr, s) for s in horizons]
        D8, D9 = [], []
        for i in idx:
            d8, d9, u, z = limit_distance(tr.a[i], tr.W[i], wp, wn)
            D8.append(d8)
            D9.append(d9)
        judge_trend(f"{tag}D8: ||W/||W||_F - (u w_+^T + z w_-^T)||_F (8)", horizons, D8, D8_TOL, evidence=ev,
                    scale_label="log-time s", plot=k == 0)
        judge_trend(f"{tag}D9: ||a/||a|| - (u||w_+|| - z||w_-||)|| (9)", horizons, D9, D9_TOL, evidence=ev,
                    scale_label="log-time s", plot=k == 0)
        ev.true(f"{tag}u, z >= 0 with disjoint supports",
                bool(np.all(u >= 0) and np.all(z >= 0) and np.all(u * z == 0)))
        ev.true(f"{tag}after s = 2 every neuron is in J_0, J_+ or J_- and the groups never change",
                all(g["other"].size == 0 for g in g_late)
                and all(np.array_equal(g["J+"], g_late[0]["J+"]) and np.array_equal(g["J-"], g_late[0]["J-"])
                        for g in g_late))
        last8.append(D8[-1])
        last9.append(D9[-1])
        if k == 0:
            ev.record(J_plus=len(Jp), J_minus=len(Jn), J0=len(g_late[-1]["J0"]), D8=D8, D9=D9,
                      D8_times_sqrt_s=(np.array(D8) * np.sqrt(horizons)).tolist())
            if derived and not fx.mutated() and len(Jp) and len(Jn) and np.array_equal(horizons, HORIZONS):
                _derived_x8_x9(ev, tr, X, y, wp, wn, Jp, Jn, idx)
            sv = np.linalg.svd(tr.W[idx[-1]], compute_uv=False)
            if sv.size >= 3:
                ev.record(sigma3_over_sigma1=float(sv[2] / sv[0]))
    ev.forall("initialisations outside the exceptional event (some neuron in J_+ or J_-)", [True] * len(last8),
              relation="true", detail=f"{len(last8)} judged, {excluded} excluded (all neurons in J_0)")
    ev.record(lam=float(fx["lam"]), initialisations=n_init, excluded_initialisations=excluded)
    if last8:
        ev.record(D8_at_last_per_init=last8, D9_at_last_per_init=last9,
                  D8_at_last_spread=[float(min(last8)), float(np.median(last8)), float(max(last8))],
                  D9_at_last_spread=[float(min(last9)), float(np.median(last9)), float(max(last9))])
    return ev


def _derived_x8_x9(ev, tr, X, y, wp, wn, Jp, Jn, idx):
    """[derived X8, X9] ratio of the group norms and the normalised margin gap, Richardson-extrapolated."""
    R_pred = float(np.linalg.norm(wp) / np.linalg.norm(wn))
    rel = np.array([float(np.sum(tr.W[k][Jp] ** 2) / np.sum(tr.W[k][Jn] ** 2)) / R_pred - 1 for k in idx])
    gs = gamma_star(wp, wn)
    marg = np.array([np.min(y * net(tr.a[k], tr.W[k], X)) / (np.sum(tr.a[k] ** 2) + np.sum(tr.W[k] ** 2))
                     for k in range(len(tr.s))])
    gap = np.array([(gs - marg[k]) / gs for k in idx])
    # Both errors decay like C/log t = C/s ([derived X7]: ||W_J+-||^2 = ||w_+-||(log t + log log t + C_+-)),
    # so their limits are estimated by Richardson extrapolation from s = 160 and 320: e_inf = 2 e(320) - e(160).
    # The tolerances are the harness's resolution of a limit that should be 0 (no room).
    # Below 1e-6 (the integrator's resolution of these ratios, far below the tolerances) the errors are jitter.
    for name, e, tol in (("[derived X8] R/(||w_+||/||w_-||) - 1, R = ||W_J+||^2/||W_J-||^2", rel, 2e-3),
                         ("[derived X9] (gamma* - gamma)/gamma*", gap, 1e-2)):
        f = np.maximum(np.abs(e), 1e-6)
        ev.true(f"{name}: |error| shrinks along the horizons (floor 1e-6)",
                bool(np.all(f[1:] <= f[:-1] * 1.1)), detail=np.array2string(e, precision=4))
        ev.le(f"{name}: Richardson limit |2 e(320) - e(160)| (rate 1/log t)", abs(2 * e[-1] - e[-2]), tol,
              rtol=0.0, detail=f"e(320) = {e[-1]:.3e}", room=None)
    ev.le("[derived X9] max_t normalised margin / gamma* (<= 1 at all times)", float(marg.max() / gs), 1.0,
          rtol=1e-9)
    ev.record(X8_errors=rel, X9_gaps=gap)
    ev.add_series("normalised margin", tr.s[1:], {"gamma(t)/gamma*": marg[1:] / gs}, xlabel="s = log(1+t)",
                  logx=True, reference=1.0)


# Across BLAS kernels and thread counts (tools/cross_machine.py, OpenBLAS SkylakeX/Zen x1 vs Prescott x2) the
# largest change measured in this check's floats: the (u, z) fit along long log-time GD: 0.043 relative.
@claim("phuong2021.cor1", reproducible={"rtol": 0.2, "atol": 1e-6}, kind="corollary", title="Corollary 1 (limit function)",
       fidelity="faithful",
       no_room="a limit (residual of the fit -> 0), judged as a trend",
       statement=r"Under the conditions of Theorem 1 there are constants $u,z\ge0$ with "
                 r"$f_{\theta(t)}(x)/\|\theta(t)\|^2\to u\rho(w_+^\top x)-z\rho(w_-^\top x)$ (10).",
       hypotheses=THM1_HYPOTHESES, uses=["phuong2021.thm1", "phuong2021.lemA.4", "phuong2021.cor1.p9"],
       fixtures=[random(ph.span_net), adversarial(ph.span_net, p=30, lam=1e-6, label="p = 30"),
                 adversarial(ph.span_cones_net, gap=1e-3, half_angle=0.6, label="OS boundary (gap 1e-3)"),
                 adversarial(ph.span_net, margin_pos=3.0, label="unequal margins"),
                 negative(ph.span_net, mutation="limit u rho(w_+^T x) + z rho(w_-^T x) (wrong sign)"),
                 negative(ph.obtuse, theta2_deg=130.0)],
       judged_by=f"trend in log-time of the relative residual of the best nonnegative (u, z) fit of f/||theta||^2 on "
                 f"[rho(w_+^T x), -rho(w_-^T x)] over 200 random unit x plus the data directions (tolerance {FIT_TOL} "
                 "at s = 320); [derived X11] u = z = gamma* reported. Extremes as for Theorem 1: p = 30, the OS "
                 "boundary (gap 1e-3) and 3x unequal margins")
def cor1(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    if not orthogonally_separable.evaluate(fx).holds:
        return _not_os(ev)
    cg = class_geometry(X, y)
    qp_validity(ev, cg)
    wp, wn = cg.w_pos, cg.w_neg
    tr = limit_run(fx)
    if not tr.success:
        return ev.inconclusive(f"integrator: {tr.message}")
    Xt = np.vstack([sphere_samples(fx.rng, 200, X.shape[1]), X / np.linalg.norm(X, axis=1, keepdims=True)])
    sgn = 1.0 if fx.mutated() else -1.0
    Phi = np.column_stack([relu(Xt @ wp), sgn * relu(Xt @ wn)])
    gs = gamma_star(wp, wn)
    res, fits, d10 = [], [], []
    for s in HORIZONS:
        k = _at(tr, s)
        F = net(tr.a[k], tr.W[k], Xt) / (np.sum(tr.a[k] ** 2) + np.sum(tr.W[k] ** 2))
        coef, rn = nnls(Phi, F)
        res.append(rn / np.linalg.norm(F))
        fits.append(coef)
        d10.append(float(np.max(np.abs(F - gs * (relu(Xt @ wp) - relu(Xt @ wn)))) / gs))
    judge_trend("relative residual of the (u, z) fit of f/||theta||^2 (10)", HORIZONS, res, FIT_TOL, evidence=ev,
                scale_label="log-time s")
    ev.true("fitted u, z >= 0", bool(np.all(fits[-1] >= 0)))
    ev.record(u_fit=float(fits[-1][0]), z_fit=float(fits[-1][1]), gamma_star=gs, D10=d10,
              u_over_gamma_star=float(fits[-1][0] / gs), z_over_gamma_star=float(fits[-1][1] / gs))
    return ev


@claim("phuong2021.cor1.p9", kind="claim", title="Proof of Corollary 1: identity (69)",
       fidelity="definitional",
       fidelity_note="eq. (69) is an algebraic identity of balanced networks (2-homogeneity)",
       no_room="an identity at rounding level",
       statement=r"For balanced $\theta$: $2f_\theta(x)/\|\theta\|^2 = (a/\|a\|)^\top\rho(Wx/\|W\|_F)$ (69).",
       hypotheses=[balanced_init], uses=["phuong2021.lemA.4"],
       fixtures=[random(ph.span_net), random(ph.cones_net, lam=1.0), adversarial(ph.boundary_net),
                 negative(ph.unbalanced), negative(ph.span_net, mutation="factor 2 dropped")],
       judged_by="exact identity to 1e-12 (relative rounding; no room) on 200 random x")
def cor1_p9(fx):
    ev = Evidence()
    a, W = fx["a0"], fx["W0"]
    Xt = sphere_samples(fx.rng, 200, W.shape[1]) * 3.0
    lhs = (1.0 if fx.mutated() else 2.0) * net(a, W, Xt) / (np.sum(a**2) + np.sum(W**2))
    rhs = relu(Xt @ (W / np.linalg.norm(W)).T) @ (a / np.linalg.norm(a))
    err = float(np.max(np.abs(lhs - rhs)) / max(float(np.max(np.abs(rhs))), 1e-300))
    ev.le("max |2 f/||theta||^2 - (a/||a||)^T rho(W x/||W||_F)| / max |rhs|", err, 1e-12, rtol=0.0, room=None)
    return ev


# ------------------------------------------------------------------------------------------------
# Proof of Theorem 1


def _linear_subnet_flow(X, y, a0, W0, grid):
    """GF of the two-layer LINEAR net f = sum_j a_j w_j^T x on (X, y) in log-time (P1, eqs. (15), (16)):
    the flow with the identity activation (leaky slope alpha = 1)."""
    tr = gradient_flow(X, y, a0, W0, grid, alpha=1.0, rtol=1e-11, atol=1e-12 * float(np.min(np.abs(a0))))
    return tr.a, tr.W, tr.success


@claim("phuong2021.thm1.p1", kind="claim", title="Proof of Theorem 1: linear-subnetwork reduction (15), (16)",
       cannot_fail="a step of Theorem 1's proof in its setting (OS, span, near-zero balanced init): off it the "
                   "groups J_+, J_- are undefined (the extremal sectors of Lemma 2 need OS data), so no probe is"
                   " possible; the control driving J_+ by all examples is refuted",
       fidelity="faithful",
       no_room="an identity of two flows (co-simulation), at integrator resolution",
       statement=r"For $t\ge T$ the $J_+$ block evolves as gradient flow of a two-layer linear network on the positive "
                 r"examples only ($f(x_i)=\sum_{j\in J_+}a_jw_j^\top x_i$, $\dot w_k = a_k\sum_{i\in P}r_ix_i$), the "
                 r"$J_-$ block likewise on the negatives, and $J_0$ is constant.",
       hypotheses=THM1_HYPOTHESES, uses=["phuong2021.lem3", "phuong2021.lemA.3"],
       fixtures=[random(ph.span_net), adversarial(ph.span_net, p=30, lam=1e-6, label="p = 30"),
                 negative(ph.span_net, mutation="J_+ block driven by all examples")],
       judged_by="co-simulation from theta(T) (s = 2) to s = 60: max relative difference of the J_+ and J_- blocks "
                 "between the full ReLU flow and the reduced linear flows <= 1e-6")
def thm1_p1(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    if not orthogonally_separable.evaluate(fx).holds:
        return _not_os(ev)
    aT, WT, g = _state_at_T(fx)
    if aT is None:
        return ev.inconclusive("integrator: the flow to s = 2 did not finish")
    ev.true("at s = 2 every neuron is in J_0, J_+ or J_-", g["other"].size == 0)
    grid = np.concatenate([[2.0], np.geomspace(2.5, 60.0, 30)])
    full = gradient_flow(X, y, aT, WT, grid)
    if not ev.valid("integrator (full ReLU flow) reached s = 60", full.success, detail=full.message):
        return ev
    per_neuron = []
    for J, cls in ((g["J+"], 1.0), (g["J-"], -1.0)):
        if J.size == 0:
            continue
        rows = (y == cls) if not fx.mutated() else np.ones_like(y, dtype=bool)
        a_lin, W_lin, ok = _linear_subnet_flow(X[rows], y[rows], aT[J], WT[J], grid)
        if not ev.valid(f"integrator (linear flow of the class {cls:+.0f} block) reached s = 60", ok):
            return ev
        scale = np.linalg.norm(full.W[:, J], axis=(1, 2))[:, None]
        per_neuron += list(np.max(np.linalg.norm(full.W[:, J] - W_lin, axis=2) / scale, axis=0))
        f_full = net(full.a[-1], full.W[-1], X[y == cls])
        f_lin = X[y == cls] @ (full.W[-1][J].T @ full.a[-1][J])
        ev.close(f"(15): f(x_i) = sum_(j in J) a_j w_j^T x_i on class {cls:+.0f} at s = 60", f_full, f_lin, rtol=1e-12)
    J0 = g["J0"]
    if J0.size:
        ev.close("J_0 constant", full.W[-1][J0], WT[J0], rtol=0.0, atol=0.0)
    # [derived X5] within a group (shared activation pattern) C_jk = w_j^T w_k - a_j a_k is conserved
    drift = 0.0
    for J in (g["J+"], g["J-"]):
        if J.size >= 2:
            C = np.einsum("tjd,tkd->tjk", full.W[:, J], full.W[:, J]) - np.einsum("tj,tk->tjk", full.a[:, J],
                                                                                  full.a[:, J])
            scale = np.sum(full.W[:, J] ** 2, axis=(1, 2)) + np.sum(full.a[:, J] ** 2, axis=1)
            drift = max(drift, float(np.max(np.abs(C - C[0]) / scale[:, None, None])))
    # Both are residuals that vanish in exact arithmetic; the bounds are the integrators' resolution (no room).
    ev.le("[derived X5] max_t,j,k |C_jk(t) - C_jk(T)| / ||theta_J||^2 within J_+ and J_-", drift, 1e-8, rtol=0.0,
          room=None)
    ev.forall("every neuron of J_+ and J_-: max_t ||w_j(ReLU flow) - w_j(linear flow)|| / ||W_J||", per_neuron,
              1e-6, relation="<=", rtol=0.0, room=None)
    return ev


def _state_at_T(fx, s_T: float = 2.0):
    """(a, W, groups) at log-time s_T = 2 (after the early phase), or (None, None, None) if the flow failed."""
    X, y = fx["X"], fx["y"]
    sp, sn = extremal_sectors(X, y)
    tr0 = gradient_flow(X, y, fx["a0"], fx["W0"], np.array([0.0, 1.0, s_T]))
    if not tr0.success:
        return None, None, None
    aT, WT = tr0.a[-1], tr0.W[-1]
    return aT, WT, groups(aT, WT, X, sp, sn)


J_T_CLASS_SUMS = "(17), (18) with the class sums s_+- in place of w_+-"


# Across BLAS kernels and thread counts (tools/cross_machine.py, OpenBLAS SkylakeX/Zen x1 vs Prescott x2) the
# largest change measured in this check's floats: block distances along long log-time GD: 0.0094 relative.
@claim("phuong2021.thm1.p2", reproducible={"rtol": 0.1, "atol": 1e-6}, kind="claim", title="Proof of Theorem 1: (17), (18) (cited from Ji & Telgarsky)",
       cannot_fail="a step of Theorem 1's proof (Ji & Telgarsky's alignment of linear networks) in its setting; "
                   "off it the blocks are undefined; the class-sum control is refuted",
       fidelity="faithful",
       no_room="a limit, judged as a trend",
       statement=r"Each linear subnetwork of (15), (16) aligns with its class's max-margin vector: "
                 r"$\|W_+(t)/\|W_+(t)\|_F-\bar uw_+^\top\|_F\to0$ (17) and "
                 r"$\|W_-(t)/\|W_-(t)\|_F-\bar zw_-^\top\|_F\to0$ (18) with $\bar u,\bar z\ge0$.",
       hypotheses=THM1_HYPOTHESES, uses=["phuong2021.thm1.p1"],
       fixtures=[random(ph.span_net), adversarial(ph.span_net, p=30, lam=1e-6, label="p = 30"),
                 adversarial(ph.span_cones_net, gap=1e-3, half_angle=0.6, label="OS boundary (gap 1e-3)"),
                 negative(ph.span_net, mutation=J_T_CLASS_SUMS)],
       judged_by="the linear-subnetwork flows of phuong2021.thm1.p1 (identity activation, the J_+ block on the "
                 "positives only, the J_- block on the negatives only) run from theta(T) (s = 2) to s = 320; per "
                 "block, the distance min_(u >= 0) ||W_J/||W_J||_F - u w^T||_F judged as a trend over s in "
                 f"{HORIZONS.tolist()} with tolerance {D8_TOL} (a tail flat or growing above twice it refutes); an "
                 "empty block is not judged, two empty blocks make the fixture vacuous")
def thm1_p2(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    if not orthogonally_separable.evaluate(fx).holds:
        return _not_os(ev)
    if fx.mutated():
        wp, wn = class_sum_directions(X, early_weights(y))
    else:
        cg = class_geometry(X, y)
        qp_validity(ev, cg)
        wp, wn = cg.w_pos, cg.w_neg
    aT, WT, g = _state_at_T(fx)
    if aT is None:
        return ev.inconclusive("integrator: the flow to s = 2 did not finish")
    grid = np.unique(np.concatenate([[2.0], np.geomspace(2.5, HORIZONS[-1], 30), HORIZONS]))
    judged = []
    for J, cls, w, eq in ((g["J+"], 1.0, wp, "(17)"), (g["J-"], -1.0, wn, "(18)")):
        if J.size == 0:
            continue
        rows = y == cls
        tr = gradient_flow(X[rows], y[rows], aT[J], WT[J], grid, alpha=1.0, rtol=1e-11,
                           atol=1e-12 * float(np.min(np.abs(aT[J]))))
        if not ev.valid(f"integrator (linear flow of the class {cls:+.0f} block) reached s = {HORIZONS[-1]:g}",
                        tr.success, detail=tr.message):
            continue
        errs = [limit_distance(tr.a[_at(tr, s)], tr.W[_at(tr, s)], w, w)[0] for s in HORIZONS]
        judge_trend(f"{eq}: min_(u >= 0) ||W_J/||W_J||_F - u w^T||_F, class {cls:+.0f} block ({J.size} neurons)",
                    HORIZONS, errs, D8_TOL, evidence=ev, scale_label="log-time s", plot=not judged)
        judged.append(J.size)
        ev.record(**{f"class {cls:+.0f} block: distances": errs})
    ev.forall("blocks J_+, J_- with at least one neuron", [True] * len(judged), relation="true",
              detail=f"block sizes {judged}")
    return ev


# Across BLAS kernels and thread counts (tools/cross_machine.py, OpenBLAS SkylakeX/Zen x1 vs Prescott x2) the
# largest change measured in this check's floats: C along log-time GD: 1.8e-4 relative.
@claim("phuong2021.thm1.p3", reproducible={"rtol": 1e-3, "atol": 1e-6}, kind="claim", title="Proof of Theorem 1: (19)-(21) loss, smoothed margin and norm growth",
       cannot_fail="a step of Theorem 1's proof in its setting; off it the blocks are undefined; the control "
                   "nu_+ = 2 ||w_+|| is refuted",
       fidelity="faithful",
       statement=r"$\ell^+(\theta(t))\to0$; $\tilde\gamma(t)=g(\log1/\ell^+)/(2\|W_+\|_F^2)$ is non-decreasing and "
                 r"converges; $\|W_+(t)\|_F^2/\log t\to\nu_+\in(0,\infty)$.",
       hypotheses=THM1_HYPOTHESES, uses=["phuong2021.thm1.p1"],
       fixtures=[random(ph.span_net), adversarial(ph.span_net, margin_pos=2.0, label="||w_+|| = 2x"),
                 negative(ph.span_net, mutation="nu_+ = 2 ||w_+|| (constant C(t) drifts)")],
       judged_by="l^+ decreasing along 40 checkpoints; gamma~ non-decreasing once l^+ < log 2 (rel. 1e-9); [derived X7] "
                 "C(s) = ||W_J+||^2/||w_+|| - log t - log log t stabilises: |C(320) - C(160)| <= 0.1")
def thm1_p3(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    if not orthogonally_separable.evaluate(fx).holds:
        return _not_os(ev)
    cg = class_geometry(X, y)
    qp_validity(ev, cg)
    sp, sn = extremal_sectors(X, y)
    tr = limit_run(fx)
    if not ev.valid(f"integrator reached s = {HORIZONS[-1]:g}", tr.success, detail=tr.message):
        return ev
    P = y > 0
    g = groups(tr.a[-1], tr.W[-1], X, sp, sn)
    Jp = g["J+"]
    ev.forall("neurons of the block J_+ (the subject of (19)-(21))", [True] * Jp.size, relation="true")
    if Jp.size == 0:
        return ev
    lp = np.array([loss_value(tr.a[k], tr.W[k], X[P], y[P]) for k in range(len(tr.s))])
    ev.le("l^+ non-increasing: max relative increase between checkpoints", float(np.max(np.diff(lp) / lp[:-1])), 0.0,
          atol=1e-9)
    # l^+ -> 0: by s = 320 (t = e^320) the loss is of order 1/t; 1e-100 is a level the limit must pass, not a
    # constant of the claim (no room)
    ev.le("l^+ at s = 320", float(lp[-1]), 1e-100, rtol=0.0, room=None)
    nW = np.array([np.sum(tr.W[k][Jp] ** 2) for k in range(len(tr.s))])
    late = lp < np.log(2)
    gt = -np.log(np.expm1(lp[late])) / (2 * nW[late])
    ev.ge("gamma~ non-decreasing once l^+ < log 2: min relative step", float(np.min(np.diff(gt) / np.abs(gt[:-1]))),
          0.0, atol=1e-9)
    nu = np.linalg.norm(cg.w_pos) * (2.0 if fx.mutated() else 1.0)
    t = tr.t
    C = {s: float(nW[_at(tr, s)] / nu - np.log(t[_at(tr, s)]) - np.log(np.log(t[_at(tr, s)]))) for s in HORIZONS}
    ev.le("[derived X7] |C(320) - C(160)|", abs(C[320.0] - C[160.0]), 0.1, rtol=0.0)
    ev.record(C=list(C.values()), ratio_norm_over_log_t=float(nW[-1] / (nu * np.log(t[-1]))))
    ev.add_series("||W_J+||^2 / ||w_+|| - log t - log log t", HORIZONS, {"C(s)": list(C.values())},
                  xlabel="s = log(1+t)", logx=True)
    return ev


# Across BLAS kernels and thread counts (tools/cross_machine.py, OpenBLAS SkylakeX/Zen x1 vs Prescott x2) the
# largest change measured in this check's floats: norm growth along long log-time GD: 0.0019 relative.
@claim("phuong2021.thm1.p4", reproducible={"rtol": 0.1, "atol": 1e-6}, kind="claim", title="Proof of Theorem 1: (22) total norm growth",
       cannot_fail="a step of Theorem 1's proof in its setting; the control with a wrong nu is refuted",
       fidelity="partial",
       fidelity_note="with the derived nu_+- = ||w_+-||: the check tests ||W||_F^2 / log t -> ||w_+|| + ||w_-||,"
                     " a sharper statement than the printed existence of nu_+- in (0, inf)",
       no_room="a limit, judged as a trend",
       statement=r"$\|W(t)\|_F^2/\log t\to\nu_++\nu_-$.",
       hypotheses=THM1_HYPOTHESES, uses=["phuong2021.thm1.p3"],
       fixtures=[random(ph.span_net), adversarial(ph.span_net, margin_pos=2.0, label="||w_+|| = 2x"),
                 negative(ph.span_net, mutation="limit nu_+ + nu_- replaced by (nu_+ + nu_-)/3")],
       judged_by="[derived nu_+- = ||w_+-||] ||W||_F^2/((||w_+|| + ||w_-||) log t) along the horizons: the distance to 1 "
                 "must shrink to <= 0.1 at s = 320 (the log log t / log t correction)")
def thm1_p4(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    if not orthogonally_separable.evaluate(fx).holds:
        return _not_os(ev)
    cg = class_geometry(X, y)
    qp_validity(ev, cg)
    sp, sn = extremal_sectors(X, y)
    tr = limit_run(fx)
    if not ev.valid(f"integrator reached s = {HORIZONS[-1]:g}", tr.success, detail=tr.message):
        return ev
    g = groups(tr.a[-1], tr.W[-1], X, sp, sn)
    ev.forall("neurons of J_+ and J_- (nu_+ + nu_- > 0)", [True] * (g["J+"].size + g["J-"].size), relation="true")
    if g["J+"].size + g["J-"].size == 0:
        return ev
    nu = (np.linalg.norm(cg.w_pos) if g["J+"].size else 0.0) + (np.linalg.norm(cg.w_neg) if g["J-"].size else 0.0)
    if fx.mutated():
        nu /= 3
    err = [abs(np.sum(tr.W[_at(tr, s)] ** 2) / (nu * np.log(tr.t[_at(tr, s)])) - 1) for s in HORIZONS]
    judge_trend("| ||W||_F^2 / ((nu_+ + nu_-) log t) - 1 |", HORIZONS, err, 0.1, evidence=ev, scale_label="log-time s")
    return ev


not_checkable(
    "phuong2021.thm1.p6", kind="claim", title="Proof of Theorem 1: (23)-(25)",
    statement=r"$W_0/\|W\|_F\to0$; $W_\pm/\|W\|_F\to\sqrt{\nu_\pm/(\nu_++\nu_-)}(\bar uw_+^\top,\bar zw_-^\top)$.",
    reason="asymptotic step of the proof; its content is exactly the D8 trend of phuong2021.thm1 (rows of J_0 enter "
           "D8 with their full norm) and the ratio check X8 there", indirect_evidence="phuong2021.thm1",
    uses=["phuong2021.thm1.p3", "phuong2021.thm1.p4"])


@claim("phuong2021.thm1.p7", kind="claim", title="Proof of Theorem 1: signs of the limit coefficients",
       cannot_fail="a step of Theorem 1's proof in its setting (signs of the limit coefficients); off it the "
                   "groups are undefined; the control is refuted",
       fidelity="faithful",
       no_room="yes/no signs",
       statement=r"$\bar u_j\ge0$ for $j\in J_+$ and $\bar z_j\ge0$ for $j\in J_-$ (the limit is not $-w_\pm$).",
       hypotheses=THM1_HYPOTHESES, uses=["phuong2021.lemB.1"],
       fixtures=[random(ph.span_net), random(ph.span_net, d=3, n_pos=8, n_neg=8, label="span_net d=3", profiles=("standard", "thorough")),
                 adversarial(ph.span_net, p=30, lam=1e-6, label="p = 30"),
                 negative(ph.span_net, mutation="J_- neurons compared with w_+")],
       judged_by="exact sign test at s = 40: w_j^T w_+ > 0 for j in J_+ and w_j^T w_- > 0 for j in J_-")
def thm1_p7(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    if not orthogonally_separable.evaluate(fx).holds:
        return _not_os(ev)
    cg = class_geometry(X, y)
    qp_validity(ev, cg)
    sp, sn = extremal_sectors(X, y)
    tr = limit_run(fx, horizons=np.array([10.0, 40.0]), extra=10)
    if not ev.valid("integrator reached s = 40", tr.success, detail=tr.message):
        return ev
    W = tr.W[-1]
    g = groups(tr.a[-1], W, X, sp, sn)
    wn = cg.w_pos if fx.mutated() else cg.w_neg
    vals = np.concatenate([W[g["J+"]] @ cg.w_pos, W[g["J-"]] @ wn])
    ev.forall("every neuron of J_+ and J_-: w_j^T w_(sign a_j) > 0", vals > 0, relation="true",
              detail=f"min {vals.min():.3e} over {vals.size} neurons" if vals.size else "")
    return ev


not_checkable(
    "phuong2021.thm1.p8", kind="claim", title="Proof of Theorem 1: (26)-(29)",
    statement=r"$\|a\|=\|W\|_F$; $a_j/\|a\|\to u_j\|w_+\|$ ($J_+$), $-z_j\|w_-\|$ ($J_-$), $0$ ($J_0$).",
    reason="follows from Lemma A.4 and (23)-(25); checked as D9 (eq. (9)) in phuong2021.thm1 and as the balance "
           "in phuong2021.lemA.4", indirect_evidence="phuong2021.thm1", uses=["phuong2021.lemA.4", "phuong2021.thm1.p6"])
