"""Unnumbered worked examples of Lyu et al. (2021), App. I: explicit suboptimal KKT points on symmetric
data (I.1.1, ReLU and Leaky ReLU), non-unique gradient flow (I.2.1) and the monotone inner products on
orthogonally separable data (I.2)."""

from __future__ import annotations

import numpy as np

from fixtures.lyu2021 import fig1left_data, os_cones, sym_fig1left, sym_gauss
from verify import Evidence, claim, negative, random
from verify import adversarial as adv
from verify.numerics.global_margin import global_margin_oracle
from verify.numerics.margin import two_layer_kkt_residual
from verify.numerics.nets import activation, clarke_extreme_gradients, margins, normalized_margin

from . import catalogue as cat
from .appendix_b import on_kink, random_theta
from .hyps import orth_sep


def i11_point(alpha):
    """The App. I.1.1 KKT point (unscaled data), its multipliers lam and the zero pre-activation pairs."""
    X, y, beta = fig1left_data(alpha, scaled=False)
    if alpha == 0:
        a1 = 2 ** -0.25
        W = np.array([2 ** -0.75 * np.array([1.0, 1.0]), 2 ** -0.75 * np.array([1.0, -1.0]), [-1.0, 0.0]])
        a = np.array([a1, a1, -1.0])
        lam = np.array([1 / np.sqrt(2), 0, 1 / np.sqrt(2), 0, 1, 0])
        X = np.array([[1.0, -1.0], [1.0, 0.0], [1.0, 1.0]])
        X = np.vstack([X, -X])
    else:
        cb, sb = np.cos(beta), np.sin(beta)
        a1 = (2 * (1 + alpha) * cb) ** -0.5
        c3 = (1 + alpha) ** -0.5
        W = np.array([a1 * np.array([cb, sb]), a1 * np.array([cb, -sb]), c3 * np.array([-1.0, 0.0])])
        a = np.array([a1, a1, -c3])
        s = sb ** 2 / (cb * (1 - alpha))
        lam = np.array([s, 0, s, 0, 1 - 2 * alpha * sb ** 2 / ((1 - alpha) * cb), 0])
    return X, y, beta, W, a, lam


def explicit_kkt_residual(W, a, X, y, alpha, lam, h_kink):
    """|| (w_k - a_k sum_i lam_i y_i h_ik x_i, a_k - sum_i lam_i y_i phi(<w_k, x_i>))_k ||_inf with h_ik = h_kink at
    zero pre-activations (the multipliers of the example, at q_min = 1)."""
    Z = X @ W.T
    kink = np.abs(Z) <= 1e-12 * np.linalg.norm(X, axis=1)[:, None] * np.linalg.norm(W, axis=1)[None, :]
    H = np.where(kink, h_kink, np.where(Z > 0, 1.0, alpha))
    rW = W - a[:, None] * ((H * (lam * y)[:, None]).T @ X)
    ra = a - activation(Z, alpha).T @ (lam * y)
    return float(max(np.max(np.abs(rW)), np.max(np.abs(ra))))


def _i11(fx, alpha):
    ev = Evidence()
    X, y, beta, W, a, lam = i11_point(alpha)
    ev.close("q_i = 1 for all i", margins(W, a, X, y, alpha), np.ones(len(y)), rtol=1e-12)
    ev.close("|a_k| = ||w_k||", np.abs(a), np.linalg.norm(W, axis=1), rtol=1e-12)
    h = 1.0 if fx.mutated() else alpha
    r = two_layer_kkt_residual(W, a, X, y, alpha=alpha, tau_act=1e-9, tau_kink=1e-12)
    ev.le("LP KKT residual (Def B.8)", r.r_kkt, 0.0, atol=1e-9)
    lam_lp = np.asarray(r.multipliers)
    ev.le("explicit KKT residual with the paper's multipliers and h = alpha at the zero pre-activations",
          explicit_kkt_residual(W, a, X, y, alpha, lam, h), 0.0, atol=1e-12)
    ev.record(lp_multipliers=lam_lp, paper_multipliers=lam)
    g = float(normalized_margin(W, a, X, y, alpha))
    pred = (1 + alpha) * np.cos(beta) / (2 * (1 + np.cos(beta))) if alpha > 0 else 1 / (2 * (1 + np.sqrt(2)))
    ev.close("gamma_KKT", g, pred, rtol=1e-12)
    glob = global_margin_oracle(X, y, alpha)
    ev.close("global max margin (exact oracle) = (1+alpha)/4 gamma_lin = (1+alpha)/4", glob.gamma, (1 + alpha) / 4, rtol=1e-6)
    ev.le("gamma_KKT < global max margin (suboptimal KKT point)", g, glob.gamma * (1 - 1e-6), rtol=0.0)
    ev.record(beta=beta, gamma_kkt=g, gamma_global=glob.gamma)
    return ev


@claim("lyu2021.ex.I1.1.relu", **cat.declared("ex.I1.1.relu"), kind="example", title="App. I.1.1 (ReLU): a suboptimal KKT point with a nonlinear boundary",
       statement=r"$\alpha = 0$, $x_{1,2,3} = (1,-1), (1,0), (1,1)$ (label $+1$) and negatives; $a_1 = a_2 = 2^{-1/4}$, "
                 r"$w_{1,2} = 2^{-3/4}(1, \pm1)$, $a_3 = -1$, $w_3 = (-1, 0)$ is a KKT point with $q_i = 1$ and "
                 r"$\gamma = \frac{1}{2(1+\sqrt2)} < \frac14$.",
       uses=["lyu2021.defB.8", "lyu2021.thm4.2"],
       fixtures=[random(sym_fig1left, alpha=0.0), negative(sym_fig1left, alpha=0.0, mutation="h = 1 at the zero pre-activations")],
       judged_by="exact evaluation; explicit multipliers lam = (1/sqrt2, 0, 1/sqrt2, 0, 1, 0) and the LP certificate")
def ex_I11_relu(fx):
    return _i11(fx, 0.0)


@claim("lyu2021.ex.I1.1.leaky", **cat.declared("ex.I1.1.leaky"), kind="example", title="App. I.1.1 (Leaky ReLU): suboptimal KKT points for every alpha",
       statement=r"For $\alpha \in (0, 1)$ with $\beta$ the root in $(0, \pi/4]$ of $(2\sin^2\beta + \cos\beta)\alpha^2 - "
                 r"(1+\cos\beta)\alpha + \cos2\beta = 0$, the explicit network of App. I.1.1 is a KKT point with margin "
                 r"$\frac{(1+\alpha)\cos\beta}{2(1+\cos\beta)} < \frac{1+\alpha}{4}$.",
       uses=["lyu2021.defB.8", "lyu2021.thm4.2"],
       fixtures=[random(sym_fig1left, alpha=0.5), random(sym_fig1left, alpha=0.1), adv(sym_fig1left, alpha=0.99),
                 adv(sym_fig1left, alpha=0.9), negative(sym_fig1left, alpha=0.5, mutation="h = 1 at the zero pre-activations")],
       judged_by="exact evaluation: q_i = 1, LP certificate (Def B.8) and the explicit KKT residual with its multipliers and "
                 "h = alpha at the zero pre-activations (1e-12), closed-form margin, exact global oracle")
def ex_I11_leaky(fx):
    return _i11(fx, fx["alpha"])


@claim("lyu2021.ex.I2.1", **cat.declared("ex.I2.1"), kind="example", title="App. I.2.1: gradient flow need not be unique",
       statement=r"For $L(\theta) = -|\langle\theta, w\rangle|$, every $t_s \ge 0$ and sign $s$, $\theta(t) = 0$ ($t < t_s$), "
                 r"$s(t - t_s)w$ ($t \ge t_s$) satisfies $\frac{d\theta}{dt} \in -\partial^\circ L(\theta)$ for a.e. $t$.",
       fixtures=[random(sym_gauss), negative(sym_gauss, mutation="speed 1/2")],
       judged_by="at 200 sample times for 5 switching times and both signs: the velocity lies in -Clarke(L) (conv{w, -w} at 0, "
                 "-grad L elsewhere) exactly")
def ex_I2_1(fx):
    ev = Evidence()
    w = fx.rng.normal(size=4)
    speed = 0.5 if fx.mutated() else 1.0
    worst = 0.0
    for ts in (0.0, 0.5, 1.0, 2.0, 3.7):
        for s in (1.0, -1.0):
            for t in np.linspace(0.01, 6, 200):
                if abs(t - ts) < 1e-9:
                    continue
                theta = s * speed * max(t - ts, 0.0) * w
                vel = s * speed * w if t > ts else 0 * w
                ip = float(theta @ w)
                if ip == 0:            # Clarke(L)(theta) = conv{w, -w}: need vel = c w with |c| <= 1
                    c = float(vel @ w) / float(w @ w)
                    err = float(np.linalg.norm(vel - c * w)) + max(abs(c) - 1, 0.0)
                else:
                    err = float(np.linalg.norm(vel - np.sign(ip) * w))
                worst = max(worst, err / np.linalg.norm(w))
    ev.le("max distance of the velocity from -Clarke(L)", worst, 0.0, atol=1e-14)
    return ev


@claim("lyu2021.obs.I2.1.os_monotone", **cat.declared("obs.I2.1.os_monotone"), kind="claim", title="App. I.2: monotone inner products on orthogonally separable data",
       statement=r"On OS data, along gradient flow $\mathrm{sgn}(a_ky_i)\langle w_k, x_i\rangle$ is non-decreasing: "
                 r"$\mathrm{sgn}(a_ky_i)\langle -\partial L/\partial w_k, x_i\rangle \ge 0$ for every Clarke element.",
       hypotheses=[orth_sep], uses=["lyu2021.defH.1"],
       fixtures=[random(os_cones), random(os_cones, d=5), negative(sym_gauss, alpha=0.0),
                 negative(os_cones, mutation="non-increasing (the opposite direction)")],
       judged_by="every extreme Clarke element at 300 random theta (a third on kinks): min of sgn(a_k y_i)<-dL/dw_k, x_i> "
                 "scaled by |a_k| ||x_i|| must be >= -1e-15; power: the opposite direction must be refuted")
def obs_os_monotone(fx):
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    rng = fx.rng
    worst = np.inf
    for j in range(300):
        W, a = random_theta(rng, X.shape[1])
        if j % 3 == 0:
            W = on_kink(rng, W, X, 0, int(rng.integers(len(X))))
        G, _ = clarke_extreme_gradients(W, a, X, y, al, kink_tol=1e-12)
        for g in G:
            gW = g[: W.size].reshape(W.shape)
            val = np.sign(a)[:, None] * y[None, :] * (-gW @ X.T) / (np.abs(a)[:, None] * np.linalg.norm(X, axis=1)[None, :] + 1e-300)
            if fx.mutated("non-increasing (the opposite direction)"):
                val = -val
            worst = min(worst, float(np.min(val)))
    ev.ge("min scaled sgn(a_k y_i)<-dL/dw_k, x_i>", worst, 0.0, atol=1e-15)
    return ev
