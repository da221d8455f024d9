"""Section 6 and Appendix A of Lyu et al. (2021): the hinted data set (Thm 6.2 and its suboptimality),
the non-symmetric theorems A.7 and A.10, and Lemma A.4 / Theorem G.9 (one positive neuron)."""

from __future__ import annotations

import numpy as np

from fixtures.lyu2021 import gen_gauss, hinted, hinted_small_h, sym_gauss
from verify import (
    Evidence,
    claim,
    erratum,
    family,
    hypothesis,
    integer,
    judge_binomial,
    negative,
    random,
    real,
)
from verify import adversarial as adv
from verify.claims import declare_amended
from verify.numerics.global_margin import global_margin_oracle
from verify.numerics.margin import two_layer_kkt_residual
from verify.numerics.nets import activation, gradient, normalized_margin, parameter_norm_sq

from . import catalogue as cat
from .common import d_tilde_init, minus_data, mu_pm, plus_data, probes, svm, svm_plus, unit_function_distance
from .dynamics import gd_until_margin, judge_floored_trend, ngd_horizons
from .hyps import asmA2, asmA3, separable, wplus_wstar

# ---------------------------------------------------------------------------------------------
# Assumption A.5 through Lemma G.10's all-negative oracle (exact in d = 2)


def best_negative_margin(X, y, alpha, S):
    """sup over all-negative nets (a_k <= 0, any width) of min_{i in S} q_i/||theta||^2 (exact SOCP, d = 2).
    Returns -inf when no all-negative net has positive margins on S."""
    res = global_margin_oracle(X[S], y[S], alpha, signs=(-1.0,))
    if res.status in ("infeasible", "infeasible_inaccurate"):
        return -np.inf, res.status
    return float(res.gamma), res.status


def support_plus(X, y, alpha, tol=1e-8):
    """S+ = argmin_i y_i <w+, x_i^+> (relative tolerance)."""
    wp, gp = svm_plus(X, y, alpha)
    marg = y * (plus_data(X, y, alpha) @ wp)
    return np.flatnonzero(marg <= gp * (1 + tol)), wp, gp


def _a5(fx):
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    if X.shape[1] != 2:
        return False, None, "A.5 is only decided exactly in d = 2"
    S, _, gp = support_plus(X, y, al)
    g, status = best_negative_margin(X, y, al, S)
    return g < gp / 2 - 1e-9, gp / 2 - g, f"best all-negative margin on S+ = {g:.6g} vs gamma+/2 = {gp / 2:.6g} ({status})"


asmA5 = hypothesis("Asm A.5 (via the all-negative oracle of Lemma G.10, d = 2)", _a5)


# ---------------------------------------------------------------------------------------------
# Theorem 6.2 / A.7 / A.10: balanced small initialisation on non-symmetric data


@family("lyu.hinted.flipped", space={"d": integer(2, 4), "n0": integer(4, 12), "alpha": real(0.1, 0.9),
                                     "gap": real(0.2, 0.9)})
def hinted_flipped(rng, d=2, n0=4, alpha=0.5, gap=0.7, m=2, sigma=1e-8):
    """The hinted data with labels flipped (Asm A.8 holds): the reversed case of App. A.3."""
    fx = hinted.build(rng, d=d, n0=n0, alpha=alpha, gap=gap, m=m, sigma=sigma)
    fx["y"] = -fx["y"]
    return fx


MAX_NGD_STEPS = 1_200_000


def balanced_runs(fx, W0, a0, sigmas=None):
    """Seeds theta~0 = (W0, a0) from D~_init(1) scaled by sigma (each of ``sigmas``, default fx["sigma"]; the seeds are
    shared): GD (eta 0.5) until q_min >= 0.05, then normalised GD (eta 5e-2, or 5e-5 / min ||x_i|| when larger) to the
    margin horizons {0.5, 2, 8}. Returns one HorizonRun per sigma."""
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    # The margins gained per normalised-GD step scale like eta * min_i ||x_i|| (the support points are the small
    # ones; the hinted data are rescaled to max norm 1), so below min ||x|| = 1e-3 the step grows as 1/min ||x||:
    # thorough thmG.12 task 1.6 (min ||x|| = 1e-4, gamma+ = 1.8e-5) reached q_min = 8 on no seed in 1.2M steps at
    # 5e-2; at 0.5 every seed reaches it within 0.86M steps, with the same per-seed outcomes at 0.25.
    eta_ngd = max(5e-2, 5e-5 / float(np.min(np.linalg.norm(X, axis=1))))
    runs = []
    for sig in (sigmas if sigmas is not None else [fx["sigma"]]):
        W, a, _ = gd_until_margin(sig * W0, sig * a0, X, y, al, eta=0.5, q_target=0.05, max_steps=200_000)
        runs.append(ngd_horizons(W, a, X, y, al, [0.5, 2.0, 8.0], eta=eta_ngd, max_steps=MAX_NGD_STEPS))
    return runs


def seed_outcomes(run, fd, fail_above=0.0):
    """Per seed: 1 success (distance <= 3e-2 and not growing, or <= 3e-3), 0 failure (settled above, and above
    ``fail_above``), -1 undecided (last horizon not reached, or still moving by more than 10%)."""
    out = np.full(fd.shape[1], -1)
    for b in range(fd.shape[1]):
        if not run.reached[-1, b]:
            continue
        e = fd[:, b]
        if e[-1] <= 3e-2 and (np.all(e[1:] <= 1.1 * e[:-1]) or e[-1] <= 3e-3):
            out[b] = 1
        elif abs(e[-1] - e[-2]) <= 0.1 * e[-2] and e[-1] > fail_above:
            out[b] = 0
    return out


RERUN_SIGMAS = (1e-20, 1e-40)    # "for small sigma_init": where a seed with the proof's event fails, further toward 0


def _one_neuron_limit(fx, target, success_sign, sigmas=None):
    """Thm A.7 / 6.2 / A.10 / G.12: per seed the limit function is the target; over a sequence of init scales a seed
    is judged by the two smallest scales when they agree, undecided otherwise. "For small sigma_init" is a threshold
    quantifier: the proof's event (some s_k = success_sign, decided exactly by the init) is judged against its exact
    probability 1 - 2^-m, and "event => success" seed by seed, a seed with the event that does not succeed being rerun
    at sigma = 1e-20 and 1e-40 before it counts (a failure at a larger sigma only places sigma_max below it)."""
    ev = Evidence()
    X, al, m = fx["X"], fx["alpha"], fx["m"]
    B = 16 if fx.profile == "quick" else 32
    W0, a0, s = d_tilde_init(fx.rng, B, m, X.shape[1])
    runs = balanced_runs(fx, W0, a0, sigmas)
    P = probes(fx.rng, X, 1000)

    def judge(run_list):
        outs, fds = [], []
        for run in run_list:
            fd = np.array([unit_function_distance(run.W[j], run.a[j], P, al, target) for j in range(len(run.horizons))])
            outs.append(seed_outcomes(run, fd))
            fds.append(fd)
        outs = np.array(outs)
        # "for small sigma_init" (Thm A.7) and "a subsequence of any sigma_j -> 0" (Thm G.12) are statements about the
        # small end of the sequence: a seed is judged by the two smallest scales when they agree, undecided otherwise;
        # with one scale, by that scale.
        return (outs[-1] if len(outs) == 1 else np.where(outs[-1] == outs[-2], outs[-1], -1)), outs, fds

    o, outs, fds = judge(runs)
    ev.record(outcomes_per_sigma=outs)
    event = np.any(s == success_sign, axis=1)
    judge_binomial(f"P(proof event: some s_k = {success_sign:+.0f}), exact from the inits", int(event.sum()), B,
                   1 - 2.0 ** (-m), confidence=0.99, evidence=ev)
    rerun = np.flatnonzero(event & (o != 1))
    if rerun.size:
        # sigma -> 0 for the seeds whose event did not (yet) give success: both smaller scales must agree
        o2, outs2, _ = judge(balanced_runs(fx, W0[rerun], a0[rerun], list(RERUN_SIGMAS)))
        ev.record(rerun_seeds=rerun, rerun_sigmas=list(RERUN_SIGMAS), rerun_outcomes=outs2, outcomes_before_rerun=o.copy())
        o = o.copy()
        o[rerun] = o2
    succ, decided, undec = int(np.sum(o == 1)), int(np.sum(o >= 0)), int(np.sum(o == -1))
    judge_binomial("P(f_inf = target)", succ, decided, 1 - 2.0 ** (-m), undecided=undec, confidence=0.99, evidence=ev,
                   covariate=(event[o >= 0], event[o == -1]), covariate_name="the proof's event")
    ev.forall("seeds with the proof's event: success at the smallest sigma (event => success)", o[event & (o >= 0)] == 1,
              relation="true", required=False)
    run = runs[-1]
    neg_mass = []
    for b in range(B):
        Wf, af = run.W[-1, b], run.a[-1, b]
        other = s[b] != success_sign
        neg_mass.append(float((np.sum(Wf[other] ** 2) + np.sum(af[other] ** 2)) / parameter_norm_sq(Wf, af)))
    ev.record(successes=succ, decided=decided, undecided=undec, predicted_successes=int(event.sum()),
              proof_event_mismatches=int(np.sum((o >= 0) & ((o == 1) != event))),
              final_function_distance=fds[-1][-1], other_sign_mass=neg_mass, signs=s)
    return ev


def _half_phi(w, al, sign=1.0):
    def target(Z):
        z = sign * (Z @ w)
        return sign * 0.5 * activation(z, al)
    return target


# thm6.2 reads the runs of thmA.7 (which it uses) against its own target: on the fixtures the two declare alike it draws
# thmA.7's seeds (seed_key), so balanced_runs' memoised GD runs are computed once per worker; the runs being thmA.7's,
# so is their declared precision across BLAS kernels (thmA.7's: final function distance moved 3.5e-4 relative under
# OPENBLAS_CORETYPE=Prescott, verdicts identical; measured again on thm6.2's task 3.0, the same fixture: 3.5e-4)
@claim("lyu2021.thm6.2", **cat.declared("thm6.2"), **cat.item("thm6.2"), hypotheses=[separable, asmA2, asmA3, wplus_wstar, asmA5],
       seed_key="lyu2021.thmA.7", reproducible={"rtol": 5e-3, "atol": 1e-9},
       fixtures=[random(hinted, gap=0.7, n0=4, m=2, sigma=1e-8),
                 random(hinted, gap=0.7, n0=4, m=1, sigma=1e-8, profiles=("standard", "thorough")),
                 adv(hinted, gap=0.5, n0=6, m=3, sigma=1e-8), negative(hinted_small_h, gap=0.7, n0=4, sigma=1e-8),
                 negative(hinted_flipped, label="labels flipped (A.3 broken, A.8 holds): the reversed case"),
                 negative(hinted, gap=0.7, n0=4, m=2, sigma=1e-8, mutation="target (1/2)<w*, x> (linear function)")],
       judged_by="per seed from D~_init(1): GD then normalised GD to margin horizons; success iff the function distance to "
                 "(1/2)phi(<w*,x>) is <= 3e-2 and shrinking, failure iff it settles above, else undecided (16 seeds in quick, "
                 "32 otherwise); Clopper-Pearson (99%) vs 1 - 2^-m with undecided seeds counted neither way. 'For small "
                 "sigma_init' through the proof's event (some s_k = +1): P(event) vs 1 - 2^-m exactly from the inits, and "
                 "'event => success' seed by seed, a seed with the event that does not succeed rerun at sigma = 1e-20 and "
                 "1e-40 (both must agree) before it counts. Suboptimality: lyu2021.thm6.2.suboptimal",
       timeout_s=900)
def thm6_2(fx):
    w = fx["w_star"]
    al = fx["alpha"]
    if fx.mutated("target (1/2)<w*, x> (linear function)"):
        return _one_neuron_limit(fx, lambda Z: 0.5 * (Z @ w), 1.0)
    return _one_neuron_limit(fx, _half_phi(w, al), 1.0)


def theta_b(w, w_perp, b):
    """The better net of spec §3: neurons (sqrt(c) w*, sqrt(c)), (+-sqrt(b) w_perp, sqrt(b)), c = 1/2 - 2b."""
    c = 0.5 - 2 * b
    W = np.stack([np.sqrt(c) * w, np.sqrt(b) * w_perp, -np.sqrt(b) * w_perp])
    return W, np.array([np.sqrt(c), np.sqrt(b), np.sqrt(b)])


@claim("lyu2021.thm6.2.suboptimal", **cat.declared("thm6.2.suboptimal"), kind="claim", title="Theorem 6.2 (the limit's margin is suboptimal)",
       statement=r"On the hinted data the limit classifier $\frac12\phi(\langle w^*, x\rangle)$ attains only a suboptimal "
                 r"normalised margin: some network has $\gamma > \gamma_+/2$.",
       hypotheses=[separable, asmA2, asmA3, wplus_wstar], uses=["lyu2021.def6.1", "lyu2021.lemA.4"],
       fixtures=[random(hinted), random(hinted, gap=0.7, n0=4), adv(hinted, k_fac=2.5), adv(hinted, alpha=0.25),
                 negative(hinted, k_fac=0.02, mutation="K << 2 eps/(1-alpha): claim the certificate net beats gamma+/2"),
                 negative(hinted, mutation="claim gamma_global = gamma+/2")],
       judged_by="certificate net theta_b (1-D grid over b, margin recomputed exactly) and the exact 2-D global oracle "
                 "(SOCP) both strictly above gamma+/2 = gamma(theta at the limit); the 1e-6 is the numerical threshold of "
                 "'strictly', not a constant of the claim, so no room is claimed for it")
def thm6_2_suboptimal(fx):
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    w, wperp, gp = fx["w_star"], fx["w_perp"], fx["gamma_plus"]
    W1 = np.stack([w / np.sqrt(2)])
    lim = float(normalized_margin(W1, np.array([1 / np.sqrt(2)]), X, y, al))
    ev.close("margin of the limit (w*/sqrt2, 1/sqrt2) = gamma+/2", lim, gp / 2, rtol=1e-9)
    bs = np.linspace(1e-4, 0.2, 400)
    gb = np.array([normalized_margin(*theta_b(w, wperp, b), X, y, al) for b in bs])
    k = int(np.argmax(gb))
    ev.record(best_b=bs[k], gamma_theta_b=gb[k], gamma_plus_half=gp / 2, K=fx["K"], eps=fx["eps"],
              certificate_condition_K_over_2eps_1malpha=fx["K"] / (2 * fx["eps"] / (1 - al)))
    if fx.mutated("claim gamma_global = gamma+/2"):
        res = global_margin_oracle(X, y, al)
        ev.close("global max margin (oracle) vs gamma+/2", res.gamma, gp / 2, rtol=1e-6)
        return ev
    ev.ge("certificate gamma(theta_b) - gamma+/2 (relative)", (gb[k] - gp / 2) / (gp / 2), 1e-6, rtol=0.0, room=None)
    ev.certify(b=bs[k], W=theta_b(w, wperp, bs[k])[0], a=theta_b(w, wperp, bs[k])[1])
    if X.shape[1] == 2 and not fx.mutated():
        res = global_margin_oracle(X, y, al)
        if res.status == "optimal":
            ev.ge("exact global max margin (oracle witness) - gamma+/2 (relative)", (res.gamma_witness - gp / 2) / (gp / 2),
                  1e-6, rtol=0.0, room=None)
            ev.record(oracle=res.gamma, oracle_witness=res.gamma_witness)
    return ev


@claim("lyu2021.thmA.7", **cat.declared("thmA.7"), **cat.item("thmA.7"), reproducible={"rtol": 5e-3, "atol": 1e-9},
       hypotheses=[separable, asmA2, asmA3, asmA5],
       fixtures=[random(hinted, gap=0.7, n0=4, m=2, sigma=1e-8),
                 random(hinted, gap=0.7, n0=4, m=3, sigma=1e-8, alpha=0.3, profiles=("standard", "thorough")),
                 adv(hinted, gap=0.5, n0=6, m=1, sigma=1e-8), negative(hinted_small_h, gap=0.7, n0=4, sigma=1e-8),
                 negative(hinted_flipped, label="labels flipped (A.3 broken, A.8 holds): the reversed case"),
                 negative(hinted, gap=0.7, n0=4, m=2, sigma=1e-8, mutation="target (1/2)<w+, x> (linear function)")],
       judged_by="as thm6.2 with target (1/2)phi(<w+, x>) (w+ from the SVM on x^+); Clopper-Pearson (99%) vs 1 - 2^-m, "
                 "undecided seeds counted neither way", timeout_s=900)
def thmA_7(fx):
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    wp, _ = svm_plus(X, y, al)
    if fx.mutated():
        return _one_neuron_limit(fx, lambda Z: 0.5 * (Z @ wp), 1.0)
    return _one_neuron_limit(fx, _half_phi(wp, al), 1.0)


@claim("lyu2021.thmG.12", **cat.declared("thmG.12"), **cat.item("thmG.12"), hypotheses=[separable, asmA2, asmA3, asmA5],
       fixtures=[random(hinted, gap=0.7, n0=4, m=2, sigma=1e-6),
                 random(hinted, gap=0.7, n0=4, m=3, alpha=0.3, sigma=1e-6, profiles=("standard", "thorough")),
                 adv(hinted, gap=0.7, n0=4, m=1, sigma=1e-6, label="m = 1"),
                 adv(hinted, gap=0.7, n0=4, m=2, alpha=0.8, sigma=1e-6, label="alpha = 0.8"),
                 negative(hinted_small_h, gap=0.7, n0=4, sigma=1e-6),
                 negative(hinted_flipped, sigma=1e-6, label="labels flipped (A.3 broken, A.8 holds): the reversed case"),
                 negative(hinted, gap=0.7, n0=4, m=2, sigma=1e-6, mutation="target (1/2)<w+, x> (linear function)")],
       judged_by="the sequence sigma_j = sigma {1, 1e-2, 1e-4}: per seed from D~_init(1), the conclusion of Thm A.7 (limit "
                 "(1/2)phi(<w+, x>), judged as in thmA.7) judged at the two smallest sigma_j: success (failure) when both succeed "
                 "(fail), else undecided (a failure at a larger sigma_j only places sigma_max below it); Clopper-Pearson (99%) vs 1 - 2^-m over 16 (quick) / 32 seeds, "
                 "undecided counted neither way. Extremes: m = 1, alpha = 0.8",
       timeout_s=900)
def thmG_12(fx):
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    wp, _ = svm_plus(X, y, al)
    target = (lambda Z: 0.5 * (Z @ wp)) if fx.mutated() else _half_phi(wp, al)
    return _one_neuron_limit(fx, target, 1.0, sigmas=fx["sigma"] * np.array([1.0, 1e-2, 1e-4]))


def _a8(fx):
    mp, mm = mu_pm(fx["X"], fx["y"], fx["alpha"])
    s = float(np.linalg.norm(mm) - np.linalg.norm(mp))
    return s > 0, s, f"||mu-|| - ||mu+|| = {s:.3g}"


asmA8 = hypothesis("Asm A.8", _a8, description="||mu+|| < ||mu-||")


# ---------------------------------------------------------------------------------------------
# Assumption A.9 and Theorem A.10 (App. A.3): the reversed case. Printed A.9 restricts to nets with all a_k <= 0; the
# theorem's own limit -(1/2)phi(-<w-, x>) is such a net, with margin exactly gamma-/2 on the set A.9 names, so the
# printed A.9 holds for no data set (spec §5 E17: the mirror of A.5 under y -> -y, (W, a) -> (W, -a), has a_k >= 0).


def support_minus(X, y, alpha, tol=1e-8):
    """S- = argmin_i y_i <w-, x_i^-> (relative tolerance), with (w-, gamma-) the max-margin separator of (x^-, y)."""
    Xm = minus_data(X, y, alpha)
    wm, gm = svm(Xm, y)
    return np.flatnonzero(y * (Xm @ wm) <= gm * (1 + tol)), wm, gm


def a10_limit_net(wm):
    """-(1/2)phi(-<w-, x>) as a unit one-neuron net: w = -w-/sqrt2, a = -1/sqrt2 (a <= 0), by 1-homogeneity of phi."""
    return (-wm / np.sqrt(2))[None], np.array([-1 / np.sqrt(2)])


def a9_sup(X, y, alpha, signs):
    """sup over nets whose a_k all have the sign ``signs`` of the normalised margin on S- (exact SOCP, d = 2)."""
    S, wm, gm = support_minus(X, y, alpha)
    res = global_margin_oracle(X[S], y[S], alpha, signs=signs)
    return float(res.gamma), res.status, S, wm, gm


def _a9(fx):
    """Printed A.9 (a_k <= 0) on the printed claim, the mirrored A.9 (a_k >= 0) on the amended one (fx.amended)."""
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    if X.shape[1] != 2:
        return False, None, "A.9 is only decided exactly in d = 2"
    sign = 1.0 if fx.amended else -1.0
    g, status, _, _, gm = a9_sup(X, y, al, (sign,))
    which = "a_k >= 0 (mirrored)" if fx.amended else "a_k <= 0 (printed)"
    return bool(status == "optimal" and g < gm / 2 - 1e-9), gm / 2 - g, \
        f"sup margin on S- over nets with {which} = {g:.6g} vs gamma-/2 = {gm / 2:.6g} ({status})"


asmA9 = hypothesis("Asm A.9 (printed a_k <= 0; mirrored a_k >= 0 in the amended statement; exact SOCP, d = 2)", _a9)

A9_MIRROR = r"For any $m$ and $\theta$ with all $a_k \ge 0$, the normalised margin on $\{i : y_i\langle w_-, x_i^-\rangle = \gamma_-\}$ is $< \gamma_-/2$."
A9_HALF_ALPHA = "claim the sup is < (alpha/2) gamma-/2"


@claim("lyu2021.asmA.9", **cat.declared("asmA.9"), **cat.item("asmA.9"),
       fixtures=[random(hinted_flipped), adv(hinted_flipped, alpha=0.8, label="alpha = 0.8"),
                 adv(hinted_flipped, alpha=0.2, n0=6, label="alpha = 0.2"),
                 negative(hinted, gap=0.7, n0=4),
                 negative(hinted_flipped, mutation=A9_HALF_ALPHA)],
       erratum=erratum(
           kind="wrong constant or typo", independence="another solver",
           location="App. A.3, Assumption A.9 (full text l. 1253)",
           printed="For any m >= 1 and any theta, if a_k <= 0 for all k in [m], then the normalized margin gamma(theta) on "
                   "the dataset {(x_i, y_i) : y_i <w-, x_i^-> = gamma-} is less than gamma-/2",
           reading="as printed, a property of the data: every net with all a_k <= 0 has margin < gamma-/2 on S-. The net "
                   "(w, a) = (-w-/sqrt2, -1/sqrt2), whose function is Thm A.10's limit -(1/2)phi(-<w-, x>), has a <= 0 and "
                   "margin exactly gamma-/2 on S- (each i in S- gives q_i = (1/2) y_i <w-, x_i^-> = gamma-/2), so the "
                   "printed A.9 holds for no data set. The slip (the sign of a_k) is printed here; lyu2021.thmA.10 "
                   "inherits it (its hypotheses include A.9)",
           amended=A9_MIRROR, amended_title="Assumption A.9 (mirrored, a_k >= 0)",
           difference="a_k >= 0 instead of a_k <= 0 (the image of Asm A.5 under y -> -y, (W, a) -> (W, -a); spec §5 E17)",
           second_method="the exact 2-D SOCP global-margin oracle restricted to a_k <= 0 (Clarabel, its witness net's margin "
                         "recomputed) on S-: its sup is >= gamma-/2 (2.14 gamma-/2 on the label-flipped hinted data), "
                         "independently of the closed-form witness",
           summary="printed A.9 (all a_k <= 0) is violated by Thm A.10's own limit net, margin exactly gamma-/2: no data "
                   "set satisfies it; the mirrored A.9 (a_k >= 0) holds on the label-flipped hinted data"),
       judged_by="on S- (the support set of the (x^-, y) SVM), d = 2: the sup of the normalised margin over nets with every "
                 "a_k <= 0 (printed) or >= 0 (amended), exact SOCP with its witness recomputed, must lie below gamma-/2; the "
                 "printed form also by the closed-form witness (the A.10 limit net, margin gamma-/2). Controls: the "
                 "unflipped hinted data (mirrored A.9 fails there: sup 4.3 gamma-/2 at alpha 1/2) and the halved constant "
                 "(alpha/2) gamma-/2 (the mirrored sup is alpha gamma-/2 on the flipped hinted data)",
       timeout_s=300)
def asmA_9(fx):
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    sign = 1.0 if fx.amended else -1.0
    g, status, S, wm, gm = a9_sup(X, y, al, (sign,))
    ev.valid("global-margin oracle optimal", status == "optimal", detail=status)
    if not fx.amended:
        # The closed form: the A.10 limit net is one of the nets the printed A.9 ranges over; its margin on S- is
        # (1/2) min_{i in S-} y_i <w-, x_i^-> = gamma-/2, not below it.
        W, a = a10_limit_net(wm)
        gw = float(normalized_margin(W, a, X[S], y[S], al))
        ev.close("margin on S- of the A.10 limit net (a = -1/sqrt2) = gamma-/2 (closed form)", gw, gm / 2, rtol=1e-9,
                 independent=True)
        ev.true("the A.10 limit net (all a_k <= 0) has margin < gamma-/2 on S-", gw < gm / 2 * (1 - 1e-9),
                detail=f"margin {gw:.12g}, gamma-/2 = {gm / 2:.12g}", independent=True)
    bound = al * gm / 4 if fx.mutated(A9_HALF_ALPHA) else gm / 2
    ev.le(f"sup margin on S- over nets with all a_k {'>=' if sign > 0 else '<='} 0 (exact SOCP)", g, bound, rtol=0.0)
    ev.record(sup_margin=g, gamma_minus_half=gm / 2, support_size=len(S), sup_over_gamma_minus_half=g / (gm / 2))
    return ev


# The printed A.9 is refuted by a closed form valid for every data set (faithful); the mirrored A.9 is only shown
# satisfiable on the family the amended A.10 runs on.
declare_amended("lyu2021.asmA.9.amended", fidelity="partial",
                fidelity_note="the d = 2 label-flipped hinted family only (alpha in {0.2, 0.5, 0.8}): a satisfiability "
                              "witness for the mirrored assumption (exact SOCP sup below gamma-/2 there), not a "
                              "characterisation of the data meeting it")


A10_AMENDED = (r"Under 3.2, A.2, A.8, the mirrored A.9 ($a_k \ge 0$) and the mirrored non-branching condition: w.p. "
               r"$1 - 2^{-m}$, $f_\infty(x) = -\frac12\phi(-\langle w_-, x\rangle)$ for small $\sigma_{init}$. "
               r"[The mirrored non-branching condition (the image of Asm A.6) is assumed, not verified: like A.6 it is "
               r"not checkable.]")


@claim("lyu2021.thmA.10", **cat.declared("thmA.10"), **cat.item("thmA.10"), hypotheses=[separable, asmA2, asmA8, asmA9],
       fixtures=[random(hinted_flipped), random(hinted_flipped, m=1, profiles=("standard", "thorough")),
                 adv(hinted_flipped, alpha=0.8, label="alpha = 0.8"),
                 negative(hinted, gap=0.7, n0=4, m=2, sigma=1e-8),
                 # The printed claim's hypotheses hold nowhere, so on it this control is vacuous; the engine accepts a
                 # printed claim's expected verdict on positive fixtures only, hence the explicit expect. The amended
                 # claim's records show it refuted (its hypotheses hold on every label-flipped fixture).
                 negative(hinted_flipped, mutation="target +(1/2)phi(<w-, x>)", expect=("refuted", "vacuous"))],
       expected="vacuous",
       erratum=erratum(
           kind="wrong constant or typo", independence="closed form", root="lyu2021.asmA.9",
           location="App. A.3, Theorem A.10 (full text l. 1260) through Assumption A.9 (l. 1253)",
           printed="Assumption A.9: if a_k <= 0 for all k in [m], then the normalized margin on {(x_i, y_i) : y_i <w-, "
                   "x_i^-> = gamma-} is less than gamma-/2. Theorem A.10: Under Assumptions 3.2, A.2, A.6, A.8 and A.9, "
                   "... f_inf(x) = -(1/2) phi(-<w-, x>)",
           reading="as printed (spec §5 E17 reads the sign of a_k in A.9 as a slip): A.9 ranges over nets with all "
                   "a_k <= 0, and the theorem's own limit is such a net with margin exactly gamma-/2 on that set, so no "
                   "data set meets the hypotheses and the printed theorem is vacuous. Under y -> -y a net (W, a) maps to "
                   "(W, -a) (the label-flip identity, checked here over 500 GD steps), which carries A.5 (a_k <= 0 on "
                   "S+) to the condition with a_k >= 0 on S-; A.6 would need the same mirroring (not checkable)",
           amended=A10_AMENDED, amended_uses=["lyu2021.thmA.7", "lyu2021.asmA.8", "lyu2021.asmA.9.amended"],
           difference="the mirrored A.9 (a_k >= 0) and mirrored non-branching condition instead of the printed A.9 "
                      "(a_k <= 0) and A.6",
           second_method="closed form: for i in S- the limit net (-w-/sqrt2, -1/sqrt2) gives q_i = -(1/2) y_i phi(-<w-, "
                         "x_i>) = (1/2) y_i <w-, x_i^-> = gamma-/2 (y_i = -1: phi(gamma-) = gamma-; y_i = +1: phi of a "
                         "negative argument is alpha times it), so its margin on S- is gamma-/2 whatever the data; "
                         "recomputed on every fixture by lyu2021.asmA.9 (and the SOCP sup there, 2.14 gamma-/2)",
           summary="the printed A.9 (a_k <= 0) excludes the theorem's own limit net, which attains gamma-/2 on S-: no "
                   "data set meets it, so the printed theorem is vacuous; with the mirrored A.9 (a_k >= 0) it holds"),
       judged_by="label-flipped hinted data; as thm6.2 with target -(1/2)phi(-<w-, x>); success iff some s_k = -1; "
                 "plus the exact label-flip identity GD(flipped, (W, a)) = GD(original, (W, -a)) over 500 GD steps. "
                 "Printed: Asm A.9 (a_k <= 0) fails on every fixture (vacuous; the conclusion is still probed). Amended: "
                 "the mirrored A.9 (exact SOCP). Extremes: m = 1, alpha = 0.8",
       timeout_s=900)
def thmA_10(fx):
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    S, wm, gm = support_minus(X, y, al)
    target = (lambda Z: 0.5 * activation(Z @ wm, al)) if fx.mutated() else _half_phi(wm, al, sign=-1.0)
    ev = _one_neuron_limit(fx, target, -1.0)
    if not fx.amended:
        # the erratum's second method (closed form): the theorem's own limit is a net with a <= 0 whose margin on S-
        # is exactly gamma-/2, which the printed A.9 says no such net reaches
        W, a = a10_limit_net(wm)
        ev.close("closed form: margin on S- of the limit net (-w-/sqrt2, -1/sqrt2) / (gamma-/2)",
                 float(normalized_margin(W, a, X[S], y[S], al)) / (gm / 2), 1.0, rtol=1e-9, independent=True)
    W, a = fx.rng.normal(size=(fx["m"], X.shape[1])), fx.rng.normal(size=fx["m"])
    W1, a1, W2, a2 = W.copy(), a.copy(), W.copy(), -a.copy()
    for _ in range(500):
        g1, h1 = gradient(W1, a1, X, y, al)
        g2, h2 = gradient(W2, a2, X, -y, al)
        W1, a1, W2, a2 = W1 - 0.1 * g1, a1 - 0.1 * h1, W2 - 0.1 * g2, a2 - 0.1 * h2
    err = float(np.sqrt(np.sum((W1 - W2) ** 2) + np.sum((a1 + a2) ** 2)))
    ev.le("label-flip identity error after 500 GD steps", err, 0.0, atol=1e-12)
    return ev


# ---------------------------------------------------------------------------------------------
# Lemma A.4 and Theorem G.9: one positive neuron


@claim("lyu2021.lemA.4", **cat.declared("lemA.4"), **cat.item("lemA.4"), hypotheses=[separable],
       fixtures=[random(gen_gauss), random(sym_gauss), random(hinted, gap=0.7, n0=4), adv(gen_gauss, d=5, n=30),
                 negative(gen_gauss, mutation="margin gamma+ (missing 1/2)")],
       judged_by="(i) (w+/sqrt2, 1/sqrt2) is KKT (LP residual <= 1e-9) with margin gamma+/2 (1e-12); (ii) 100 other unit "
                 "separators w of (x^+, y) give KKT residual >= 1e-3 at (w/sqrt2, 1/sqrt2); (iii) 200 random one-neuron "
                 "directions (v/sqrt2, 1/sqrt2), v uniform on the sphere (balanced loses nothing: for one neuron with a > 0 "
                 "the normalised margin is largest at ||w|| = a), never beat gamma+/2 (a sample, not a margin ascent)")
def lemA_4(fx):
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    wp, gp = svm_plus(X, y, al)
    W1, a1 = (wp / np.sqrt(2))[None], np.array([1 / np.sqrt(2)])
    r = two_layer_kkt_residual(W1, a1, X, y, alpha=al, tau_act=1e-9, tau_kink=1e-12)
    ev.le("KKT residual at (w+/sqrt2, 1/sqrt2)", r.r_kkt, 0.0, atol=1e-9)
    pred = gp if fx.mutated() else gp / 2
    ev.close("gamma(w+/sqrt2, 1/sqrt2)", float(normalized_margin(W1, a1, X, y, al)), pred, rtol=1e-12)
    rng = fx.rng
    Xp = plus_data(X, y, al)
    min_other, tried = np.inf, 0
    while tried < 100:
        v = wp + 0.3 * rng.normal(size=wp.size)
        v /= np.linalg.norm(v)
        if np.min(y * (Xp @ v)) <= 0 or np.linalg.norm(v - wp) < 1e-3:
            continue
        tried += 1
        ro = two_layer_kkt_residual((v / np.sqrt(2))[None], a1, X, y, alpha=al, tau_act=1e-9, tau_kink=1e-12)
        min_other = min(min_other, ro.r_kkt)
    # 1e-3 is the harness's threshold for 'not a KKT point', not a constant of the lemma
    ev.ge("min KKT residual over 100 other separators (uniqueness probe)", min_other, 1e-3, rtol=0.0, room=None)
    best = -np.inf
    for _ in range(200):
        v = rng.normal(size=wp.size)
        v /= np.linalg.norm(v)
        best = max(best, float(normalized_margin((v / np.sqrt(2))[None], a1, X, y, al)))
    ev.le("best sampled one-neuron (a >= 0) margin", best, gp / 2, rtol=1e-12)
    return ev


@family("lyu.oneneuron")
def one_neuron(rng, base="gen", d=3, n=12, alpha=0.5, scale=0.3, sign=1.0):
    """Data plus a balanced one-neuron start a = sign ||w||, with <w, w*> > 0 (Thm G.9 hypotheses for sign = +1)."""
    fx = (gen_gauss if base == "gen" else sym_gauss).build(rng, d=d, alpha=alpha, **({"n": n} if base == "gen" else {}))
    w = scale * rng.normal(size=d) / np.sqrt(d)
    w *= np.sign(w @ fx["w_star"])
    fx.update(W0=w[None], a0=np.array([sign * np.linalg.norm(w)]), m=1)
    return fx


def _g9(fx):
    ok = fx["a0"][0] > 0 and abs(fx["a0"][0] - np.linalg.norm(fx["W0"][0])) <= 1e-14 and fx["W0"][0] @ fx["w_star"] > 0
    return ok, float(fx["a0"][0]), "a1 = ||w1|| > 0, <w1, w*> > 0"


g9 = hypothesis("m = 1, a1(0) = ||w1(0)||, <w1(0), w*> > 0", _g9)


@claim("lyu2021.thmG.9", **cat.declared("thmG.9"), **cat.item("thmG.9"), hypotheses=[separable, g9],
       fixtures=[random(one_neuron), random(one_neuron, base="sym", d=4), adv(one_neuron, d=5, n=40, scale=3.0),
                 negative(one_neuron, sign=-1.0), negative(one_neuron, mutation="target (w+, 1/2) (unbalanced layers)")],
       judged_by="GD then normalised GD to margin horizons; parameter distance to (w+, 1)/sqrt2 judged by judge_trend "
                 "(tolerance 1e-2; horizons {100, 400, 1600}, and 6400 outside quick); power: the unbalanced target (w+, 1/2)/||.|| must be refuted (a plateau above tolerance)")
def thmG_9(fx):
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    wp, _ = svm_plus(X, y, al)
    W, a, _ = gd_until_margin(fx["W0"][None], fx["a0"][None], X, y, al, eta=0.1, q_target=1.0)
    H = [100, 400, 1600] if fx.profile == "quick" else [100, 400, 1600, 6400]
    run = ngd_horizons(W, a, X, y, al, H, eta=1e-2, q_ref=200)
    if not run.reached[-1, 0]:
        return ev.inconclusive("last horizon not reached")
    tgt = np.concatenate([wp, [0.5 if fx.mutated("target (w+, 1/2) (unbalanced layers)") else 1.0]])
    tgt = tgt / np.linalg.norm(tgt)
    dist = []
    for j in range(len(H)):
        th = np.concatenate([run.W[j, 0, 0], run.a[j, 0]])
        dist.append(float(np.linalg.norm(th / np.linalg.norm(th) - tgt)))
    return judge_floored_trend("distance to (w+, 1)/sqrt2", H, dist, 1e-2, ev)
