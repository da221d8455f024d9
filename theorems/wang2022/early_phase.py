"""Section 4 and App. D of Wang & Pilanci (2022): the early phase of the sub-gradient flow from a small
balanced initialisation (Lemmas 1-3, 7, Corollary 1, Proposition 6, Theorem 1)."""

from __future__ import annotations

import numpy as np

from fixtures.wang2022 import MC3, SLIDE, fan, gen_gauss, mc_simplex, near_opposite, os_cones, shrink
from verify import Evidence, adversarial, claim, hypothesis, judge_trend, negative, random
from verify.numerics.nets import gradient, loss_weights

from ._hyp import orthogonally_separable
from ._numerics import clarke_alignment, complete_patterns, sphere_flow

DELTAS = (1e-1, 1e-2, 1e-3)


def _gd_trajectory(X, y, W1, w2, eta, steps):
    """Constant-step GD on the summed logistic loss for one network W1 (d, m), w2 (m,), sub-gradient 0 at kinks
    (eqs. 18-19); yields (W1, w2, lambda~, G1, G2) per step with lambda~_n = -y_n l'(q_n) (eq. 19) and
    (G1, G2) = -grad, from ``nets.loss_weights`` / ``nets.gradient`` in their (W, a) = (W1^T, w2) convention."""
    for _ in range(steps):
        q = y * (np.maximum(X @ W1, 0.0) @ w2)
        lt = y * loss_weights(q, reduction="sum")
        dW, da = gradient(W1.T, w2, X, y, at_kink=0.0, reduction="sum")
        G1, G2 = -dW.T, -da
        yield W1, w2, lt, G1, G2
        W1 = W1 + eta * G1
        w2 = w2 + eta * G2


# ---------------------------------------------------------------------------------------------
# Lemma 1


def _lem1_run(fx, eta, T, r0=0.1, m=8, unbalanced=False):
    X, y = fx["X"], fx["y"]
    rng = np.random.default_rng(fx.seed)
    U = rng.normal(size=(X.shape[1], m))
    U /= np.linalg.norm(U, axis=0)
    s = rng.choice([-1.0, 1.0], size=m)
    if fx.family == "wang.shrink":
        U[:, 0], s[0] = X[0] / np.linalg.norm(X[0]), 1.0
    W1, w2 = r0 * U, r0 * s * (2.0 if unbalanced else 1.0)
    steps = int(round(T / eta))
    r_init = np.log(np.linalg.norm(W1, axis=0))
    id_err, mono, r_slack, min_norm = 0.0, np.inf, np.inf, np.inf
    prev = None
    for k, (W1k, w2k, _lt, G1, G2) in enumerate(_gd_trajectory(X, y, W1, w2, eta, steps + 1)):
        delta = np.sum(W1k**2, axis=0) - w2k**2
        if prev is not None:
            pW1, pw2, pG1, pG2, pdelta = prev
            pred = pdelta + eta**2 * (np.sum(pG1**2, axis=0) - pG2**2)
            id_err = max(id_err, float(np.max(np.abs(delta - pred) / np.maximum(np.sum(W1k**2, axis=0), 1e-300))))
            mono = min(mono, float(np.min(delta - pdelta)))
        n = np.linalg.norm(W1k, axis=0)
        min_norm = min(min_norm, float(n.min()))
        t = k * eta
        rate = X.shape[0] * np.max(np.linalg.norm(X, axis=1)) * (0.25 if fx.mutated("rate N x_max / 4") else 1.0)
        r_slack = min(r_slack, float(np.min(np.log(n) - (r_init - rate * t))))
        prev = (W1k, w2k, G1, G2, delta)
    rel_drift = float(np.max(np.abs(delta) / np.sum(W1k**2, axis=0)))
    return {"identity": id_err, "mono": mono, "r_slack": r_slack, "min_norm": min_norm, "drift": rel_drift}


@claim("wang2022.lem1", kind="lemma", title="Lemma 1 (balance is conserved, neurons never vanish)",
       statement=r"If $\|w_{1,i}(0)\| = |w_{2,i}(0)| > 0$ for all $i$, then $\|w_{1,i}(t)\| = |w_{2,i}(t)| > 0$ for all $t>0$ "
                 r"(flow (22)); the proof bounds $r_i(t) \ge r_i(0) - N x_{\max} t$ (the paper's $/4$ uses "
                 r"$|\tilde\lambda_n| \le 1/4$, false: spec E3).",
       fixtures=[random(gen_gauss), random(os_cones), adversarial(SLIDE), adversarial(shrink),
                 negative(shrink, mutation="rate N x_max / 4"),
                 negative(os_cones, mutation="unbalanced init |w_2| = 2 ||w_1||")],
       judged_by="GD: exact discrete identity R5 (1e-12) and monotone drift; flow: Richardson-extrapolated drift at "
                 "T = 1 from eta = 2e-3, 1e-3, 5e-4 is <= 2e-4 relative and the GD drift halves with eta; "
                 "log-norm bound N x_max t")
def lem1(fx):
    ev = Evidence()
    etas = (2e-3, 1e-3, 5e-4)
    runs = [_lem1_run(fx, eta, 1.0, unbalanced=fx.mutated("unbalanced init |w_2| = 2 ||w_1||")) for eta in etas]
    ev.le("R5 identity Delta(k+1) = Delta(k) + eta^2 (w2^2 ||g||^2 - (w1^T g)^2), max relative error",
          max(r["identity"] for r in runs), 0.0, atol=1e-12)
    if fx.mutated("unbalanced init |w_2| = 2 ||w_1||"):
        ev.le("| ||w_1||^2 - w_2^2 | / ||w_1||^2 at T (mutated init)", runs[-1]["drift"], 0.0, atol=2e-3)
        return ev
    ev.ge("Delta nondecreasing along GD (from 0)", min(r["mono"] for r in runs), 0.0, atol=1e-15)
    drift = [r["drift"] for r in runs]
    # GD drift is O(eta) (R5); its Richardson extrapolation 2 d(eta/2) - d(eta) estimates the flow's drift
    richardson = [abs(2 * drift[k + 1] - drift[k]) for k in range(len(drift) - 1)]
    ev.record(balance_drift=drift, richardson_drift=richardson)
    ev.le("flow balance drift at T (Richardson-extrapolated |Delta(T)| / ||w_1(T)||^2)", richardson[-1], 0.0,
          atol=2e-4)
    ratios = [drift[k + 1] / drift[k] for k in range(len(drift) - 1) if drift[k] > 1e-9]
    ev.le("GD drift halves with the step (first order, -> 0 as eta -> 0): max d(eta/2) / d(eta)",
          max(ratios, default=0.0), 0.6, rtol=0.0)
    ev.add_series("balance drift vs step size", etas, {"GD drift": drift}, xlabel="eta", logx=True, logy=True)
    ev.ge("min_t ||w_1i(t)|| > 0", min(r["min_norm"] for r in runs), 0.0, atol=0.0)
    ev.ge("min_t [r_i(t) - (r_i(0) - rate t)] (rate N x_max" + (" / 4" if fx.mutated() else "") + ")",
          min(r["r_slack"] for r in runs), 0.0, atol=1e-9)
    return ev


@claim("wang2022.lem7", kind="lemma", title="Lemma 7 (perturbation of normalised vectors)",
       statement=r"If $0<\delta<c$, $\|a-b\|\le\delta$ and $\|a\|\ge c$, then $\|a/\|a\| - b/\|b\|\| \le 2\delta/c$.",
       fixtures=[random(gen_gauss), adversarial(gen_gauss, d=20), negative(gen_gauss, mutation="bound delta / (2c)")],
       judged_by="20000 random triples incl. worst cases (e orthogonal to a, delta -> c), exact inequality 1e-12")
def lem7(fx):
    ev = Evidence()
    d = fx["X"].shape[1]
    rng = fx.rng
    n = 20000
    a = rng.normal(size=(n, d))
    na = np.linalg.norm(a, axis=1)
    c = na * rng.uniform(0.05, 1.0, size=n)
    delta = c * rng.uniform(0.0, 1.0, size=n) ** 0.2
    e = rng.normal(size=(n, d))
    half = n // 2
    e[:half] -= (np.sum(e[:half] * a[:half], axis=1) / na[:half] ** 2)[:, None] * a[:half]
    e *= (delta * rng.uniform(0.9, 1.0, size=n) ** 0.1 / np.linalg.norm(e, axis=1))[:, None]
    b = a + e
    lhs = np.linalg.norm(a / na[:, None] - b / np.linalg.norm(b, axis=1)[:, None], axis=1)
    bound = delta / (2 * c) if fx.mutated() else 2 * delta / c
    ratio = lhs / bound
    ev.le("max LHS / bound", float(ratio.max()), 1.0, rtol=1e-12)
    ev.record(max_ratio=float(ratio.max()))
    return ev


# ---------------------------------------------------------------------------------------------
# Lemma 2


def _g_norms(X, lam):
    D = complete_patterns(X)
    norms = np.linalg.norm(X.T @ (D * lam).T, axis=0)
    return float(norms[norms > 1e-12].min()), float(norms.max())


def _lem2_sup_errors(fx, r0, c, T=2.0, eta=2e-3, m=6):
    X, y = fx["X"], fx["y"]
    rng = np.random.default_rng(fx.seed)
    U = rng.normal(size=(X.shape[1], m))
    U /= np.linalg.norm(U, axis=0)
    s = rng.choice([-1.0, 1.0], size=m)
    e1 = e2 = 0.0
    for W1, w2, lt, G1, G2 in _gd_trajectory(X, y, r0 * U, r0 * s, eta, int(T / eta)):
        Z = X @ W1
        A = Z > 0
        e1 = max(e1, float(np.max(np.linalg.norm(X.T @ (A * (lt - c * y)[:, None]), axis=0))))
        q = y * (np.maximum(Z, 0.0) @ w2)
        dq = y * (np.maximum(Z, 0.0) @ G2 + (A * (X @ G1)) @ w2)
        dlt = -y * np.exp(q - 2 * np.logaddexp(0.0, q)) * dq
        e2 = max(e2, float(np.max(np.linalg.norm(X.T @ (A * dlt[:, None]), axis=0))))
    return e1, e2


def _lem2(fx, c, delta=0.1):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    gmin, gmax = _g_norms(X, c * y)
    r0s = (1.0,) if fx.mutated() else tuple(fx.get("r0s", (1e-2, 1e-4, 1e-6)))
    res = [_lem2_sup_errors(fx, r0, c) for r0 in r0s]
    ev.record(g_min=gmin, g_max=gmax, r0=r0s, sup_e1=[r[0] for r in res], sup_e2=[r[1] for r in res])
    ev.le(f"(i) sup_t ||g(u, lambda~) - g(u, {c} y)|| at r0 = {r0s[-1]:g}", res[-1][0], gmin * delta / 8, rtol=0.0)
    ev.le(f"(ii) sup_t ||d/dt g(u, lambda~)|| at r0 = {r0s[-1]:g}", res[-1][1], gmin * delta / 16, rtol=0.0)
    if len(res) > 1:
        judge_trend("(i) error along r0 -> 0", [1 / r for r in r0s], [r[0] for r in res], gmin * delta / 8,
                    scale_label="1/r0", evidence=ev)
    return ev


@claim("wang2022.lem2", kind="lemma", title="Lemma 2 (small initialisation: lambda~ close to y/4), as printed",
       statement=r"For $r_0$ small enough, on $[0,T]$: (i) $\|g(u,\tilde\lambda) - g(u, y/4)\| \le g_{\min}\delta/8$; "
                 r"(ii) $\|\frac{d}{dt} g(u,\tilde\lambda)\| \le g_{\min}\delta/16$ where the pattern is locally constant.",
       uses=["wang2022.lem1"], expected="refuted",
       expected_reason="lambda~ -> y/2 (l'(0) = -1/2), not y/4: sup error ~ ||g(u, y/4)|| >= g_min for every r0 (spec E3)",
       fixtures=[random(gen_gauss), random(os_cones), adversarial(near_opposite),
                 negative(os_cones, mutation="r0 = 1 (not small)")],
       judged_by="full GD (eta 2e-3, T = 2, 6 neurons, all small) at r0 = 1e-2, 1e-4, 1e-6 (adversarial: r0 down to "
                 "1e-12 on nearly collinear opposite-label data, g_min ~ eps/2); delta = 0.1; exact d/dt")
def lem2(fx):
    return _lem2(fx, 0.25)


@claim("wang2022.lem2.amended", kind="lemma", title="Lemma 2 (amended: y/2)", amends="wang2022.lem2",
       statement=r"Lemma 2 with $y/2$ in place of $y/4$ (also in $g_{\min}$).",
       uses=["wang2022.lem1"],
       fixtures=[random(gen_gauss), random(os_cones), adversarial(SLIDE),
                 adversarial(near_opposite, eps=1e-4, r0s=(1e-2, 1e-3, 1e-4)),
                 negative(os_cones, mutation="r0 = 1 (not small)")],
       judged_by="as wang2022.lem2; the bound must hold at the smallest r0 (1e-6; adversarial 1e-12) and the error "
                 "shrink along r0")
def lem2_amended(fx):
    return _lem2(fx, 0.5)


# ---------------------------------------------------------------------------------------------
# Lemma 3 and Corollary 1 (idealised early-phase flow, lambda~ frozen at y/2: the r0 -> 0 limit)


def _hitting_time(g0, a, z0, c):
    """Time for z' = g0 (a^2 - z^2), z(0) = z0 to reach c (eqs. 26-27 with level c); 0 if z0 >= c."""
    if z0 >= c:
        return 0.0
    if c >= a:
        return np.inf
    return float((np.log((a + c) / (a - c)) - np.log((a + z0) / (a - z0))) / (2 * g0 * a))


LEM3_DELTAS = (0.1, 0.01)


def _lem3_trajectory(fx, n_neurons, dt=2e-3, horizon=10.0):
    """Idealised flow of s = +1 neurons with y^T (X u_0)_+ > 0, all integrated together; each is frozen at
    its first pattern switch (time T0, u1 = u(T0), v1 = the last pre-switch v). Records the first time
    u^T v >= 1 - delta before the switch, for each delta in LEM3_DELTAS."""
    X, y = fx["X"], fx["y"]
    rng = np.random.default_rng(fx.seed)
    U = rng.normal(size=(X.shape[1], 4 * n_neurons))
    U /= np.linalg.norm(U, axis=0)
    U = U[:, (y @ np.maximum(X @ U, 0.0)) > 1e-3][:, :n_neurons]
    n = U.shape[1]
    lam = y / 2
    sig0 = np.sign(X @ U)
    G = X.T @ ((X @ U > 0) * lam[:, None])
    z0 = np.sum(U * G, axis=0) / np.linalg.norm(G, axis=0)
    t_align = {d: np.full(n, np.inf) for d in LEM3_DELTAS}
    T0, c1 = np.full(n, np.inf), np.full(n, np.nan)
    U0, live = U.copy(), np.ones(n, dtype=bool)
    for k in range(int(horizon / dt)):
        t = k * dt
        G = X.T @ ((X @ U > 0) * lam[:, None])
        V = G / np.linalg.norm(G, axis=0)
        z = np.sum(U * V, axis=0)
        for d in LEM3_DELTAS:
            t_align[d] = np.where(live & ~np.isfinite(t_align[d]) & (z >= 1 - d), t, t_align[d])
        Un = U + dt * (G - np.sum(U * G, axis=0) * U)
        Un /= np.linalg.norm(Un, axis=0)
        switched = live & np.any(np.sign(X @ Un) != sig0, axis=0)
        T0 = np.where(switched, t + dt, T0)
        c1 = np.where(switched, np.sum(Un * V, axis=0), c1)
        live &= ~switched
        U = np.where(live, Un, U)
        if not live.any():
            break
    return {"U0": U0, "sig0": sig0, "z0": z0, "T0": T0, "c1": c1, "t_align": t_align, "dt": dt,
            "horizon": horizon}


def _lem3_events(fx, tr, variant, delta):
    """Lemma 3's disjunction (E1 or E2) and Corollary 1's implication per neuron, for one variant of the
    constants: printed (g0 with y/4, a = sqrt(1 - delta/8)), corrected (y/2, sqrt(1 - delta/4)), mutated
    (printed bounds / 4). Neurons with no event before the horizon and T* beyond it are undecided."""
    X, y = fx["X"], fx["y"]
    lam_g0 = y / 4 if variant == "printed" else y / 2
    a = np.sqrt(1 - delta / 4) if variant == "corrected" else np.sqrt(1 - delta / 8)
    shrink_bound = 4.0 if variant == "mutated" else 1.0
    g0 = np.linalg.norm(X.T @ ((tr["sig0"] > 0) * lam_g0[:, None]), axis=0)
    z0, T0, c1, ta, dt = tr["z0"], tr["T0"], tr["c1"], tr["t_align"][delta], tr["dt"]
    n = len(z0)
    ok, slack, cor, n_ante, undecided, cor_gap = [], [], [], 0, 0, -np.inf
    for i in range(n):
        Tstar = _hitting_time(g0[i], a, z0[i], 1 - delta) / shrink_bound
        if np.isfinite(T0[i]):
            Tshift = _hitting_time(g0[i], a, z0[i], c1[i]) / shrink_bound
            if c1[i] <= 1 - delta:
                ok.append(T0[i] <= Tshift + 2 * dt)
                slack.append(Tshift - T0[i])
            else:
                # u1^T v1 = c1 > 1 - delta: the alignment level is reached at the latest at the switch T0
                # (it can cross within the very step that switches, before ``ta`` records it)
                t_hit = min(ta[i], T0[i])
                ok.append(t_hit <= Tstar + 2 * dt)
                slack.append(Tstar - t_hit)
            cor_gap = max(cor_gap, float(T0[i] - Tshift))
            if T0[i] > Tshift + 2 * dt:
                n_ante += 1
                cor.append(c1[i] > 1 - delta)
        elif not np.isfinite(ta[i]) and Tstar > tr["horizon"] - dt:
            undecided += 1
        else:
            ok.append(ta[i] <= Tstar + 2 * dt)
            slack.append(Tstar - ta[i])
    slack = np.array(slack) if slack else np.array([np.inf])
    i = int(np.argmin(slack))
    return {"lem": np.array(ok, dtype=bool), "cor": np.array(cor, dtype=bool),
            "switches": int(np.isfinite(T0).sum()), "cor_antecedent": n_ante, "undecided": undecided,
            "cor_gap": cor_gap,
            "worst_slack": float(slack[i]), "worst_u0": tr["U0"][:, i] if i < tr["U0"].shape[1] else None}


def _lem3(fx, variant):
    ev = Evidence()
    tr = _lem3_trajectory(fx, 20 if fx.profile == "quick" else 60)
    for delta in LEM3_DELTAS:
        r = _lem3_events(fx, tr, variant, delta)
        ev.true(f"delta={delta}: event (E1) or (E2) holds for all {len(r['lem'])} decided neurons",
                bool(r["lem"].all()) and len(r["lem"]) > 0,
                detail=f"{int((~r['lem']).sum())} violations, worst time slack {r['worst_slack']:.3g}",
                slack=float(r["worst_slack"]))
        ev.record(**{f"delta={delta}: pattern switches": r["switches"], f"delta={delta}: undecided": r["undecided"],
                     f"delta={delta}: Cor 1 antecedent held": r["cor_antecedent"]})
        if not r["lem"].all():
            ev.certify(**{f"delta={delta}: u0": r["worst_u0"]})
    ev.note("idealised flow (lambda~ frozen at y/2, the r0 -> 0 limit validated by wang2022.lem2.amended), "
            "Euler dt = 2e-3 with renormalisation, horizon 10; first pattern switch detected between steps")
    return ev


@claim("wang2022.lem3", kind="lemma", title="Lemma 3 (time bounds T*, T_shift), as printed",
       statement=r"With $T^*$ (26) and $T_{\rm shift}$ (27) ($g_0 = \|g(\sigma_0, y/4)\|$, $a=\sqrt{1-\delta/8}$): either the "
                 r"pattern changes at $T$ and [$u_1^\top v_1\le1-\delta$ and $T\le T_{\rm shift}(v_1^\top u_1)$, or alignment "
                 r"$\ge 1-\delta$ was reached by $T^*$ before], or alignment $u^\top v\ge1-\delta$ is reached by $T^*$ "
                 r"without a pattern change.",
       uses=["wang2022.lem2.amended", "wang2022.lem7"],
       fixtures=[random(gen_gauss), random(os_cones), adversarial(SLIDE),
                 negative(gen_gauss, mutation="time bounds divided by 4")],
       judged_by="per-neuron event check on the idealised flow, 20 (quick) / 60 neurons, delta in {0.1, 0.01}")
def lem3(fx):
    return _lem3(fx, "mutated" if fx.mutated() else "printed")


@claim("wang2022.lem3.corrected", kind="lemma", title="Lemma 3 with the corrected comparison ODE",
       statement=r"Lemma 3 with $g_0 = \|g(\sigma_0, y/2)\|$ and $a = \sqrt{1-\delta/4}$ (the equilibrium of (92); spec E3, E4).",
       uses=["wang2022.lem3"],
       fixtures=[random(gen_gauss), random(os_cones), adversarial(SLIDE),
                 negative(os_cones, mutation="time bounds divided by 4")],
       judged_by="as wang2022.lem3")
def lem3_corrected(fx):
    return _lem3(fx, "mutated" if fx.mutated() else "corrected")


@claim("wang2022.cor1", kind="corollary", title="Corollary 1 (contrapositive of Lemma 3's first event)",
       statement=r"If the pattern first changes at $T > T_{\rm shift}(v_1^\top u_1)$, then $u_1^\top v_1 > 1-\delta$.",
       uses=["wang2022.lem3"],
       fixtures=[random(gen_gauss), random(os_cones), adversarial(fan, N=40), adversarial(SLIDE),
                 negative(gen_gauss, mutation="time bounds divided by 4")],
       judged_by="implication over neurons of the idealised flow; records how often the antecedent held and the "
                 "closest approach max (T0 - T_shift); adversarial fixtures: dense arrangement (40 lines in R^2, "
                 "switches before alignment) and the sliding boundary (SLIDE), 200 neurons")
def cor1(fx):
    ev = Evidence()
    n_neurons = 20 if fx.profile == "quick" else (200 if fx.kind == "adversarial" else 60)
    tr = _lem3_trajectory(fx, n_neurons)
    if not np.isfinite(tr["T0"]).any():
        return ev.inconclusive("no pattern switch before the horizon: the implication was not exercised")
    for delta in LEM3_DELTAS:
        r = _lem3_events(fx, tr, "mutated" if fx.mutated() else "printed", delta)
        ev.true(f"delta={delta}: T0 > T_shift => u1^T v1 > 1 - delta ({r['cor_antecedent']} antecedents)",
                bool(r["cor"].all()), detail=f"{int((~r['cor']).sum())} violations")
        ev.record(**{f"delta={delta}: switches": r["switches"],
                     f"delta={delta}: max (T0 - T_shift) over switched neurons": r["cor_gap"]})
    return ev


# ---------------------------------------------------------------------------------------------
# Proposition 6 and Theorem 1 (early alignment)


def _label_columns(fx):
    return [fx["Y"][:, k] for k in range(fx["K"])] if "Y" in fx else [fx["y"]]


def _alignment_runs(fx, n_neurons, horizon, dt):
    out = []
    for k, yk in enumerate(_label_columns(fx)):
        rng = np.random.default_rng([fx.seed, k])
        X = fx["X"]
        U = rng.normal(size=(X.shape[1], n_neurons))
        U /= np.linalg.norm(U, axis=0)
        s = rng.choice([-1.0, 1.0], size=n_neurons)
        F = yk @ np.maximum(X @ U, 0.0)
        matched = np.sign(F) == s
        U, s = U[:, matched], s[matched]
        r = sphere_flow(X, yk / 2, U, s, dt=dt, steps=int(horizon / dt))
        out.append({"k": k, "y": yk, "U0": U, "s": s, **r})
    return out


def _has_matched(fx):
    cols = _label_columns(fx)
    return True, float(len(cols)), "sign-matched neurons (9) are drawn at t = 0 for every output"


sign_matched = hypothesis("sign-matched neurons (9) at initialisation", _has_matched,
                          description="sign(y_k^T (X w_1)_+) = sign(w_2) = s: the alignment check runs on these")


def _alignment_cos(X, yk, U, s, best, relaxed, flip):
    """Per-neuron alignment: Clarke-relaxed at the current state, or the literal best over the run."""
    if relaxed:
        return np.array([clarke_alignment(X, U[:, i], s[i] * yk) for i in range(len(s))])
    if flip:
        G = X.T @ ((X @ U > 0) * yk[:, None])
        return np.sum(U * G, axis=0) / np.maximum(np.linalg.norm(G, axis=0), 1e-300)
    return best


def _alignment_check(fx, relaxed):
    """'There is a T' with alignment >= 1 - delta: neurons not aligned by the horizon H are continued to 2H,
    4H and 8H (the statement allows any finite T); the remaining failures are reported."""
    ev = Evidence()
    quick = fx.profile == "quick"
    dt, horizon = (2e-3, 10.0) if quick else (1e-3, 20.0)
    runs = _alignment_runs(fx, 30 if quick else 100, horizon, dt)
    flip = fx.mutated("s dropped (align with +X^T D(u) y_k)")
    label = ("Clarke-relaxed alignment at some T <= 8H" if relaxed
             else "best literal cos(u, s X^T D(u) y_k) over [0, 8H]")
    for r in runs:
        X, yk = fx["X"], r["y"]
        s = np.ones_like(r["s"]) if flip else r["s"]
        U, best = r["U"].copy(), r["best_cos"].copy()
        cos = _alignment_cos(X, yk, U, s, best, relaxed, flip)
        extended = 0
        for _ in range(3):
            late = np.where(cos < 1 - DELTAS[-1])[0]
            if late.size == 0 or flip:
                break
            extended = int(late.size)
            more = sphere_flow(X, yk / 2, U[:, late], r["s"][late], dt=dt, steps=int(horizon / dt) * 2 ** _)
            U[:, late] = more["U"]
            best[late] = np.maximum(best[late], more["best_cos"])
            cos = _alignment_cos(X, yk, U, s, best, relaxed, flip)
        for delta in DELTAS:
            frac = float(np.mean(cos >= 1 - delta))
            ev.ge(f"k={r['k']}: fraction of {len(s)} sign-matched neurons with {label} >= 1 - {delta:g}", frac, 1.0,
                  rtol=0.0)
        i = int(np.argmin(cos))
        ev.record(**{f"k={r['k']}: min cos": float(cos[i]), f"k={r['k']}: neurons continued past H": extended})
        if cos[i] < 1 - DELTAS[-1]:
            ev.certify(**{f"k={r['k']}: worst u0": r["U0"][:, i], f"k={r['k']}: its s": float(r["s"][i]),
                          f"k={r['k']}: its final u": U[:, i]})
    return ev, runs


@claim("wang2022.thm1", kind="theorem", title="Theorem 1 (early alignment, any dataset), as printed",
       statement=r"For ANY dataset, scaled initialisation close to 0 and a neuron with (9) "
                 r"$\mathrm{sign}(y_k^\top(Xw_1)_+) = \mathrm{sign}(w_2) = s$: for $\delta\in(0,1)$ there is $T$ with "
                 r"$\cos\angle(w_1(T), sX^\top D(w_1(T))y_k) \ge 1-\delta$.",
       uses=["wang2022.prop6"], hypotheses=[sign_matched], expected="refuted",
       expected_reason="Filippov sliding modes: neurons slide along a hyperplane x_n^T u = 0 where u is not parallel to "
                       "X^T D(u) y (SLIDE: best cos 0.966; ~50% of neurons on Gaussian data; spec E1)",
       fixtures=[random(gen_gauss), random(MC3), random(os_cones), adversarial(SLIDE),
                 adversarial(mc_simplex, K=3, n_k=3),
                 negative(os_cones, mutation="s dropped (align with +X^T D(u) y_k)")],
       judged_by="idealised early-phase flow (r0 -> 0: lambda~ = y_k/2), Euler dt = 2e-3 / horizon H = 10 (quick), 1e-3 / "
                 "20; neurons not aligned by H continued to 8H; max of the literal cosine over all steps; delta in "
                 "{1e-1, 1e-2, 1e-3}")
def thm1(fx):
    return _alignment_check(fx, relaxed=False)[0]


@claim("wang2022.thm1.amended", kind="theorem", title="Theorem 1 (amended: Clarke-relaxed alignment)",
       amends="wang2022.thm1",
       statement=r"As Theorem 1 with $D(w_1)$ replaced by some $D(w_1) + \mathrm{diag}(a)$, $a\in[0,1]$ supported on the "
                 r"near-boundary set $\{n : |x_n^\top u| \le \tau\|x_n\|\}$ ($\tau = 10^{-2}$). For orthogonally separable data "
                 r"the literal statement holds (no sliding).",
       uses=["wang2022.prop6.amended"], hypotheses=[sign_matched],
       fixtures=[random(gen_gauss), random(MC3), random(os_cones), adversarial(SLIDE),
                 negative(os_cones, mutation="s dropped (align with +X^T D(u) y_k)")],
       judged_by="as wang2022.thm1, relaxed cosine at the horizon by bounded least squares (scipy lsq_linear)")
def thm1_amended(fx):
    return _alignment_check(fx, relaxed=True)[0]


@claim("wang2022.prop6", kind="proposition", title="Proposition 6 (alignment within T = O(log 1/delta))",
       statement=r"For (23) with $s=1$, $\|u_0\|=1$, $y^\top(Xu_0)_+>0$, any $\delta$ and small $r_0$ there is "
                 r"$T = O(\log\delta^{-1})$ with $u(T)^\top v(T) \ge 1-\delta$ and $\cos\angle(u(T), g(u(T),y)) \ge 1-\delta$.",
       uses=["wang2022.lem3", "wang2022.lem2.amended", "wang2022.lem7"], hypotheses=[sign_matched],
       expected="refuted", expected_reason="same sliding-mode gap as Theorem 1 (spec E1)",
       fixtures=[random(gen_gauss), random(os_cones), adversarial(SLIDE),
                 negative(os_cones, mutation="s dropped (align with +X^T D(u) y_k)")],
       judged_by="as wang2022.thm1 (s = +-1 by the y -> -y symmetry); plus the first hitting times T(delta) must grow "
                 "at most logarithmically: T(1e-3) - T(1e-2) <= 2 (T(1e-2) - T(1e-1)) + 1")
def prop6(fx):
    ev, runs = _alignment_check(fx, relaxed=False)
    if not fx.mutated():
        _log_growth(ev, runs)
    return ev


def _log_growth(ev, runs):
    for r in runs:
        h = r["first_hit"]
        ok = np.isfinite(h[1e-3])
        if not ok.any():
            continue
        inc1 = h[1e-2][ok] - h[1e-1][ok]
        inc2 = h[1e-3][ok] - h[1e-2][ok]
        ev.le(f"k={r['k']}: max [T(1e-3) - T(1e-2)] - 2 [T(1e-2) - T(1e-1)] (log growth)",
              float(np.max(inc2 - 2 * inc1)), 1.0, rtol=0.0)
        ev.record(**{f"k={r['k']}: median T(delta) for delta = 1e-1..1e-4":
                     [float(np.median(h[d][ok])) for d in (1e-1, 1e-2, 1e-3, 1e-4) if np.isfinite(h[d][ok]).all()]})


@claim("wang2022.prop6.amended", kind="proposition", title="Proposition 6 (amended: Clarke-relaxed alignment)",
       amends="wang2022.prop6",
       statement=r"Proposition 6 with the Clarke-relaxed cosine of wang2022.thm1.amended; literal for orthogonally "
                 r"separable data.",
       uses=["wang2022.lem3.corrected", "wang2022.lem2.amended"], hypotheses=[sign_matched],
       fixtures=[random(gen_gauss), random(os_cones), adversarial(SLIDE),
                 negative(os_cones, mutation="s dropped (align with +X^T D(u) y_k)")],
       judged_by="as wang2022.thm1.amended")
def prop6_amended(fx):
    return _alignment_check(fx, relaxed=True)[0]


@claim("wang2022.prop6.os", kind="proposition", title="Proposition 6 on orthogonally separable data (literal)",
       statement=r"For orthogonally separable data the literal alignment of Proposition 6 holds with "
                 r"$T = O(\log\delta^{-1})$, and the limit direction is $\sum_{y_n=1}x_n/\|\cdot\|$ (spec R4).",
       uses=["wang2022.prop6.amended"], hypotheses=[orthogonally_separable, sign_matched],
       fixtures=[random(os_cones), random(os_cones, d=5, Np=6, Nn=6, profiles=("standard", "thorough")),
                 adversarial(os_cones, theta_deg=44.0),
                 negative(gen_gauss), negative(os_cones, mutation="s dropped (align with +X^T D(u) y_k)")],
       judged_by="as wang2022.prop6; plus cos(u(T), s-class sum) >= 1 - 1e-3 for active neurons")
def prop6_os(fx):
    ev, runs = _alignment_check(fx, relaxed=False)
    if fx.mutated():
        return ev
    _log_growth(ev, runs)
    X, y = fx["X"], fx["y"]
    worst = 1.0
    for r in runs:
        for i in range(len(r["s"])):
            target = X[y == r["s"][i]].sum(axis=0)
            worst = min(worst, float(r["U"][:, i] @ target / np.linalg.norm(target)))
    ev.ge("min cos(u(T), sum of the s-class points) (spec R4)", worst, 1 - 1e-3, rtol=0.0)
    return ev
