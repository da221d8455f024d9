"""Reproductions of the experiments of Min, Mallada & Vidal (2024), App. A and Fig. 5.

Setting of the paper: plain GD on both layers, unbalanced Gaussian init ``N(0, alpha^2)`` with
``alpha = 1e-6``, ``h = 50``, step ``2e-3``. Unspecified in the paper (spec E35) and chosen here: the
logistic loss ``log(1 + e^{-y f})`` (it matches the App. A.2 narrative best), summed over the data for the
two-point sets and averaged for the digits. MNIST cannot be downloaded: Figs. 5, 10-13 run on **real
handwritten digits**, scikit-learn's 8x8 copy of the UCI set (shipped in the wheel), pixels in [0, 1] and
centred as in the paper. Centred digits violate Assumption 1 (0 vs 1: mu = -0.72, 6.7% of the pairs with
the wrong sign; 3 vs 8: 21.5%; 1 vs 7: 18.9%), so Theorem 1 is vacuous on them: these runs are evidence
beyond the theorem, as the paper's own MNIST runs are. Iteration counts differ from the paper's (smaller
images, smaller norms); the ordering and shapes are compared.
"""

from __future__ import annotations

import functools

import numpy as np

from fixtures.min2024 import assumption1_statistics, real_digits, toy2d, two_point
from verify import Evidence, adversarial, claim, clopper_pearson, erratum, hypothesis, negative, random
from verify.numerics.flow import gd_steps
from verify.numerics.memo import pure_memo
from verify.numerics.nets import forward, gradient, loss_value

from .common import A1, cos, mu_of

LR, STEPS, H, ALPHA = 2e-3, 21000, 50, 1e-6
GD_BAND = 1e-3
CHECKPOINTS = (2000, 4000, 7000, 21000)
STD = ("standard", "thorough")


def _gd_record(X, y, W, v, lr, steps, every, reduction="sum"):
    """Plain GD on both layers (logistic loss, ``1[z > 0]``), batched over a leading axis of ``W``, ``v``;
    returns ``(iterations, W[k], v[k])`` every ``every`` steps, iteration 0 included."""
    its, Ws, vs = [0], [W], [v]
    for k in range(every, steps + 1, every):
        W, v = gd_steps(W, v, X, y, lr=lr, steps=every, loss="logistic", at_kink=0.0, reduction=reduction)
        its.append(k)
        Ws.append(W)
        vs.append(v)
    return np.asarray(its), np.asarray(Ws), np.asarray(vs)


def _first_layer_gd(X, y, W, v, lr, steps, every):
    """GD on ``W`` only (``v`` fixed), mean logistic loss; ``(iterations, W[k])`` every ``every`` steps
    (:func:`verify.numerics.flow.gd_steps` trains both layers)."""
    its, Ws = [0], [W]
    for k in range(1, steps + 1):
        W = W - lr * gradient(W, v, X, y, loss="logistic", at_kink=0.0, reduction="mean")[0]
        if k % every == 0:
            its.append(k)
            Ws.append(W)
    return np.asarray(its), np.asarray(Ws)


def _counts(X, y, W, v):
    """(in S+, dead, partial) among V+(t) = {v_j > 0} for single-class (positive) data, exact activations."""
    act = W @ X.T > 0
    vp = v > 0
    ins = vp & act.all(1)
    dead = vp & ~act.any(1)
    return int(ins.sum()), int(dead.sum()), int((vp & act.any(1) & ~act.all(1)).sum())


@functools.lru_cache(maxsize=8)
def _two_point_runs(a: float, seed: int, n_runs: int = 3):
    """GD runs of App. A.2/A.3 on ``x1 = [1,0]``, ``x2 = [sin a, cos a]`` (both y = +1, summed logistic loss),
    recorded every 1000 steps."""
    X = np.array([[1.0, 0.0], [np.sin(a), np.cos(a)]])
    y = np.ones(2)
    rng = np.random.default_rng(seed)
    inits = [(rng.normal(scale=ALPHA, size=(H, 2)), rng.normal(scale=ALPHA, size=H)) for _ in range(n_runs)]
    its, Ws, vs = _gd_record(X, y, np.stack([w for w, _ in inits]), np.stack([v for _, v in inits]), LR, STEPS, 1000)
    return X, y, [(its, Ws[:, b], vs[:, b]) for b in range(n_runs)]


def _partial_kept_sign(X, y, W, v, v0):
    """Partial V+ neurons whose output weight kept its initial sign (the balanced theory's V+)."""
    act = W @ X.T > 0
    return int(((v > 0) & (v0 > 0) & act.any(1) & ~act.all(1)).sum())


MU_EFFECT_REVERSED = "smaller mu aligns faster (fewer partial neurons for mu = sin 0.001)"


def _orthogonal(fx):
    mu = mu_of(fx["X"], fx["y"])
    return abs(mu) < 1e-12, mu, f"mu = {mu:.3g}"


ORTHOGONAL = hypothesis("orthogonal data (mu = 0, App. A.3's setting)", _orthogonal)
TWO_POINT_NOTE = ("the two data sets and GD setting are the paper's (h = 50, alpha = 1e-6, step 2e-3, 3 runs); the "
                  "loss (logistic, summed) is the harness's choice (unspecified, E35)")


@claim("min2024.exp.fig7_8", kind="experiment", title="Figs. 7-8 (App. A.2): effect of mu on the alignment",
       statement=r"On $x_1=[1,0]$, $x_2=[\sin a,\cos a]$ ($y=+1$): with $\mu=\sin0.1$ the non-dead positive neurons "
       r"eventually all enter $S_+$; with $\mu=\sin0.001$ there are still non-dead neurons outside $S_+$ at iteration "
       r"7000.", uses=["min2024.thm1.a"], hypotheses=[A1],
       fidelity="proxy", fidelity_note=TWO_POINT_NOTE + "; 'eventually' read at iteration 21000, among the neurons "
       "that kept the sign of v_j(0) (unbalanced init)", no_room="neuron counts: yes/no conclusions",
       fixtures=[random(two_point, a=0.1, seeds={"quick": 1, "standard": 1, "thorough": 2}),
                 negative(two_point, label="min.two_point.orthogonal", a=0.0),
                 negative(two_point, mutation=MU_EFFECT_REVERSED, a=0.1)],
       judged_by="3 GD runs per data set inside one check (h = 50, alpha = 1e-6, step 2e-3, logistic loss): for the "
       "larger mu, zero partial neurons at 21000 among those that kept the sign of v_j(0) and a non-increasing "
       "partial count 2000 -> 7000 -> 21000; for mu = sin 0.001, >= 1 partial neuron at 7000 in every run and more "
       "partial neurons than the larger mu over 2000-7000")
def fig7_8(fx):
    ev = Evidence()
    seed = int(fx.rng.integers(2 ** 31))
    table, kept = {}, {}
    for a in (fx["a"], 0.001):
        X, y, runs = _two_point_runs(float(a), seed)
        table[a] = np.array([[_counts(X, y, Ws[c // 1000], vs[c // 1000])[2] for c in CHECKPOINTS]
                             for _, Ws, vs in runs])
        kept[a] = np.array([_partial_kept_sign(X, y, Ws[-1], vs[-1], vs[0]) for _, Ws, vs in runs])
    big, small = table[fx["a"]], table[0.001]
    ev.forall(f"every run: no partial V+ neuron at 21000 among those that kept their sign (a = {fx['a']})",
              kept[fx["a"]] == 0, relation="true")
    ev.forall(f"every run: partial count non-increasing 2000 -> 7000 -> 21000 (a = {fx['a']})",
              np.all(np.diff(big[:, [0, 2, 3]], axis=1) <= 0, axis=1), relation="true")
    ev.forall("every run: some partial V+ neuron at 7000 (a = 0.001)", small[:, 2] >= 1, relation="true")
    if fx.mutated(MU_EFFECT_REVERSED):
        ev.true("fewer partial neurons for a = 0.001 than for the larger a at 2000-7000",
                bool(small[:, :3].sum() < big[:, :3].sum()))
    else:
        ev.true("more partial neurons for a = 0.001 than for the larger a at 2000-7000",
                bool(small[:, :3].sum() > big[:, :3].sum()))
    ev.record(partial_large_mu=big, partial_small_mu=small, checkpoints=CHECKPOINTS,
              leftover_at_21000_small_mu=small[:, 3], leftover_at_21000_large_mu=big[:, 3],
              leftover_kept_sign_large_mu=kept[fx["a"]])
    if big[:, 3].max() > 0:
        ev.note("unbalanced init: a neuron whose v_j changed sign can stay partial past 21000 iterations "
                "(outside the balanced theory); counted apart")
    ev.add_series("partial V+ neurons (mean over runs)", CHECKPOINTS,
                  {f"a = {fx['a']}": big.mean(0), "a = 0.001": small.mean(0)}, xlabel="iteration")
    return ev


ALIGN_COMPLETES = "alignment completes with mu = 0 (no partial neuron left at 21000)"


@claim("min2024.exp.fig9", kind="experiment", title="Fig. 9 (App. A.3): orthogonal data (mu = 0)",
       statement=r"On $x_1=[1,0]$, $x_2=[0,1]$: positive neurons end aligned with $x_1$, $x_2$ or $x_+$; only the "
       r"$S_+$ neurons grow, so partial neurons persist and do not fit.", hypotheses=[ORTHOGONAL],
       fidelity="proxy", fidelity_note=TWO_POINT_NOTE + "; 'do not grow' read as a norm share below 1e-3 at 21000",
       no_room="neuron counts and a threshold of the harness's",
       fixtures=[random(two_point, label="min.two_point.orthogonal", a=0.0, seeds={"quick": 1, "standard": 1, "thorough": 2}),
                 negative(two_point, label="min.two_point.mu_positive", a=0.1),
                 negative(two_point, label="min.two_point.orthogonal", mutation=ALIGN_COMPLETES, a=0.0)],
       judged_by="3 GD runs: partial count > 0 and unchanged from iteration 4000 to 21000 in every run; partial "
       "neurons' share of ||W||_F^2 at 21000 below 1e-3 (the harness's reading of 'do not grow': a threshold, "
       "no room)")
def fig9(fx):
    ev = Evidence()
    X, y, runs = _two_point_runs(float(fx["a"]), int(fx.rng.integers(2 ** 31)))
    parts, shares = [], []
    for _its, Ws, vs in runs:
        c = np.array([_counts(X, y, Ws[k // 1000], vs[k // 1000])[2] for k in (4000, 7000, 21000)])
        parts.append(c)
        W, v = Ws[-1], vs[-1]
        act = W @ X.T > 0
        part = (v > 0) & act.any(1) & ~act.all(1)
        shares.append(float((W[part] ** 2).sum() / (W ** 2).sum()))
    parts = np.array(parts)
    if fx.mutated(ALIGN_COMPLETES):
        ev.forall("every run: no partial V+ neuron left at 21000 (alignment completes as for mu > 0)",
                  parts[:, -1] == 0, relation="true")
        return ev
    ev.forall("every run: some partial V+ neuron at 4000, 7000 and 21000", parts.min(1) >= 1, relation="true")
    ev.forall("every run: partial count constant from 4000 to 21000", (parts == parts[:, :1]).all(1),
              relation="true")
    ev.le("max share of ||W||_F^2 held by partial neurons at 21000", max(shares), 1e-3, rtol=0.0, room=None)
    ev.record(partial_counts=parts, partial_norm_share=shares)
    return ev


def _digit_statistics(fx, ev: Evidence) -> None:
    """Record how far the digits are from Theorem 1's hypotheses (Assumption 1), on the images used and on the
    whole centred pair, and say that the theorem is vacuous there."""
    X, y = fx["X"], fx["y"]
    mu, viol = assumption1_statistics(X, y)
    xp, xm = X[y > 0].sum(0), X[y < 0].sum(0)
    ev.record(pair=fx["pair"], n=len(y), mu_centred=mu, violating_pair_fraction=viol,
              mu_whole_pair=fx["mu_whole_pair"], violating_whole_pair=fx["violating_whole_pair"],
              n_whole_pair=fx["n_whole_pair"], raw_gram_min=float((fx["raw"] @ fx["raw"].T).min()),
              cos_xplus_xminus=float(cos(xp, xm)[0]))
    if mu <= 0:
        ev.note(f"Assumption 1 fails on these digits (mu = {mu:.3g}, {100 * viol:.1f}% of the pairs with the wrong "
                "sign): Theorem 1 is vacuous here, and the run is evidence beyond the theorem (as the paper's MNIST "
                "runs are)")


def _alignment_and_fit(X, y, Ws, vs):
    """Per record: min over V+-(t) of cos(w_j, x+-) (V+-(t) by the current sign of v_j, as the paper) among the
    neurons whose v_j kept the sign of v_j(0), the same min over every neuron (the paper's band, sign-flipped
    neurons included), the number of sign-flipped neurons and their share of ||W||_F^2, the mean logistic loss,
    the stable rank and ||W||_2^2."""
    xp, xm = X[y > 0].sum(0), X[y < 0].sum(0)
    L = loss_value(y * forward(Ws, vs, X), "logistic")
    mincos, mincos_all, flipped, flipped_share = [], [], [], []
    for W, v in zip(Ws, vs):
        c = np.where(v > 0, cos(W, xp), cos(W, xm))
        kept = np.sign(v) == np.sign(vs[0])
        mincos.append(c[kept].min() if kept.any() else 1.0)
        mincos_all.append(c.min())
        flipped.append(int((~kept).sum()))
        flipped_share.append(float((W[~kept] ** 2).sum() / (W ** 2).sum()))
    sv = np.linalg.svd(Ws, compute_uv=False)
    return (np.array(mincos), np.array(mincos_all), np.array(flipped), np.array(flipped_share), np.asarray(L),
            (sv ** 2).sum(-1) / sv[:, 0] ** 2, sv[:, 0] ** 2)


FIT_FIRST = "the fitting starts before the alignment (the opposite order)"
DIGIT_PAIRS = ("0 vs 1: Fig. 5; 3 vs 8 and 1 vs 7: Figs. 10-11 (App. A.4)")
# A 3-vs-8 seed found by a thorough run (task 2.2 of `verify run min2024.exp.fig5 --profile thorough`, seed 0) on
# which the paper's literal every-neuron band reaches 0.9 only at iteration 29000, after the fitting onset (27750).
# With run seed 0 the thorough profile draws this fixture seed as its third 3-vs-8 seed (its first of 8 runs fails);
# it is pinned in every profile as a fixture of exp.fig5 (whose counterexample it is) and of exp.fig5.kept_sign, not
# of the derived exp.fig5.typical (whose seeds are fixed by the profile: exp.fig5's, so at thorough with run seed 0
# its third 3-vs-8 seed is this one, drawn, not pinned).
BAND_FAILS_SEED = 632881569808031520
SMALL_INIT_STD = 1e-3
# GD runs per positive fixture, each from its own init drawn from the fixture's seed (fixed before the run by the
# profile's seeds): the printed figure is one run; the literal band is judged as a frequency over these runs.
RUNS = {"quick": 1, "standard": 4, "thorough": 8}


def _small_init(fx):
    return fx["init_std"] <= SMALL_INIT_STD, SMALL_INIT_STD - fx["init_std"], f"init std {fx['init_std']:g}"


SMALL_INIT = hypothesis("small init (the experiments' alpha = 1e-6; here <= 1e-3)", _small_init,
                        description="Gaussian N(0, alpha^2) init on both layers with a small alpha")
FIG5_FIXTURES = [
    random(real_digits, label="min.real_digits.0v1", n=120, seeds={"quick": 1, "standard": 1, "thorough": 2}),
    random(real_digits, label="min.real_digits.0v1_all", profiles=STD, seeds={"standard": 1, "thorough": 1}),
    adversarial(real_digits, label="min.real_digits.3v8", pair=(3, 8), n=120, steps=45000),
    adversarial(real_digits, label="min.real_digits.1v7", pair=(1, 7), n=120, steps=35000),
    negative(real_digits, label="min.real_digits.large_init", n=120, init_std=0.1, steps=5000),
    negative(real_digits, label="min.real_digits.0v1", mutation=FIT_FIRST, n=120)]
PINNED_3V8 = adversarial(real_digits, label="min.real_digits.3v8.band_late", pair=(3, 8), n=120, steps=45000,
                         seed=BAND_FAILS_SEED, profiles=("quick", "standard", "thorough"))
FIG5_DATA = ("substitute data: scikit-learn's 8x8 UCI digits (64 pixels, 120 images per run in quick, the whole 0/1 "
             "pair in standard) in place of MNIST (784 pixels; the paper's Fig. 5 is MNIST 0 vs 1, Figs. 10-11 3 vs 8 "
             "and 1 vs 7), full-batch GD with the mean logistic loss (the paper's loss and batch are unspecified, "
             "spec E35)")


def _runs(fx) -> list[tuple[np.ndarray, np.ndarray]]:
    """The fixture's init, then (positive fixtures, standard/thorough) further inits of the same std, each drawn
    from a seed derived from the fixture's seed: fixed by the profile before any run."""
    inits = [(fx["W_init"], fx["v_init"])]
    n_runs = 1 if fx.kind == "negative" else RUNS.get(fx.profile, 1)
    for r in range(1, n_runs):
        g = np.random.default_rng([fx.seed, 2, r])
        inits.append((g.normal(scale=fx["init_std"], size=fx["W_init"].shape),
                      g.normal(scale=fx["init_std"], size=fx["v_init"].shape)))
    return inits


def _onset_and_band(L: np.ndarray, band: np.ndarray) -> tuple[int, int]:
    """Record indices of the fitting onset (the loss 10% below its start) and of the band (min cos >= 0.9); the last
    record when either never happens."""
    dropped, aligned = L < 0.9 * L[0], band >= 0.9
    return (int(np.argmax(dropped)) if dropped.any() else len(L) - 1,
            int(np.argmax(aligned)) if aligned.any() else len(L) - 1)


def _same_time_half_step(fx, ev: Evidence, W0, v0, it_fit: float) -> None:
    """Second method for a run whose literal band comes after the fitting onset: the same init with half the step
    for twice the steps (the same gradient-flow time), so a late band that is an artefact of the step size shows."""
    its, Ws, vs = _gd_record(fx["X"], fx["y"], W0, v0, LR / 2, 2 * fx["steps"], 500, reduction="mean")
    _, mincos_all, *_rest, L, _sr, _top = _alignment_and_fit(fx["X"], fx["y"], Ws, vs)
    k_fit, k_align = _onset_and_band(L, mincos_all)
    # iterations at step LR/2 counted in steps of LR (the same flow time)
    ev.record(half_step_it_align=float(its[k_align]) / 2, half_step_it_fit=float(its[k_fit]) / 2,
              half_step_band_at_fit=float(mincos_all[k_fit]))
    ev.note(f"step halved, twice the steps (the same flow time; iterations counted at step {LR:g}): band 0.9 at "
            f"{its[k_align] / 2:g}, fitting onset {its[k_fit] / 2:g} (step {LR:g}: onset {it_fit:g}), band "
            f"{float(mincos_all[k_fit]):.3f} at the onset")
    if fx.profile == "quick":
        return
    # another integrator (standard and thorough: ~20-30 s a run): the gradient flow itself, region by region with
    # DOP853, from the same init, recorded at the same flow times
    from verify.numerics.flow import integrate_flow
    from verify.numerics.nets import unflatten_params

    ts = np.arange(0, fx["steps"] + 1, 250) * LR
    res = integrate_flow(W0, v0, fx["X"], fx["y"], loss="logistic", reduction="mean", t_end=float(ts[-1]), t_eval=ts,
                         rtol=1e-8, atol=1e-14, error_estimate=False, max_events=200_000, max_rhs_evals=20_000_000)
    if not res.success:
        ev.note(f"the gradient-flow integrator stopped ({res.message}): no second integrator here")
        return
    W, v = unflatten_params(res.history["theta"], *W0.shape)
    _, mincos_all, *_rest, L, _sr, _top = _alignment_and_fit(fx["X"], fx["y"], W, v)
    k_fit, k_align = _onset_and_band(L, mincos_all)
    ev.record(flow_it_align=float(ts[k_align] / LR), flow_it_fit=float(ts[k_fit] / LR),
              flow_band_at_fit=float(mincos_all[k_fit]))
    ev.note(f"gradient flow (region-by-region DOP853, rtol 1e-8; times counted in steps of {LR:g}): band 0.9 at "
            f"{ts[k_align] / LR:g}, fitting onset {ts[k_fit] / LR:g}, band {float(mincos_all[k_fit]):.3f} at the onset")


# exp.fig5 and its two derived readings (typical, kept_sign) judge one set of runs by three rules: the readings
# draw exp.fig5's seeds (seed_key), the pool runs the three claims' tasks of one fixture in one worker, and the
# runs are computed there once (the thorough profile holds 8 runs a task; 16 entries keep two fixtures' runs)
@pure_memo(maxsize=16)
def _fig5_run(X, y, W0, v0, steps):
    """One GD run of the figure from ``(W0, v0)`` recorded every 250 steps, and its per-record measures:
    ``(iterations, *_alignment_and_fit(...))``."""
    its, Ws, vs = _gd_record(X, y, W0, v0, LR, steps, 250, reduction="mean")
    return (its, *_alignment_and_fit(X, y, Ws, vs))


def _fig5(fx, reading: str) -> Evidence:
    """Alignment before the fitting onset, the loss drop and the stable rank over the fixture's GD runs.
    ``reading``: "typical" is the paper's band, min over every neuron of cos(w_j, x_sign(v_j(t))) (V+-(t) by the
    current sign of v_j, Sec. 4), judged as a frequency (>= half of the runs: the printed figure is one run shown as
    typical); "every_run" is the same band required in every run; "kept_sign" the derived rule over the neurons
    whose v_j kept the sign of v_j(0), in every run."""
    literal = reading != "kept_sign"
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    _digit_statistics(fx, ev)
    which = "every neuron, V+-(t) by the current sign of v_j" if literal else "neurons that kept the sign of v_j(0)"
    first, details, rows = [], [], []
    sr_last, dropped_any, grows = [], [], []
    for W0, v0 in _runs(fx):
        its, mincos, mincos_all, flipped, flipped_share, L, sr, top = _fig5_run(X, y, W0, v0, fx["steps"])
        band = mincos_all if literal else mincos
        dropped = L < 0.9 * L[0]
        k_fit, k_align = _onset_and_band(L, band)
        first.append(k_align < k_fit)
        details.append(f"align {its[k_align]} / fit {its[k_fit]}")
        sr_last.append(float(sr[-1]))
        dropped_any.append(bool(dropped.any()))
        grows.append(bool(top[-1] > top[k_fit]))
        late_all = mincos_all[k_fit] < 0.9 and k_fit > 0
        rows.append({"it_align": int(its[k_align]), "it_fit": int(its[k_fit]), "mincos_at_fit": float(band[k_fit]),
                     "every_neuron_mincos_at_fit": float(mincos_all[k_fit]), "sign_flipped_at_fit": int(flipped[k_fit]),
                     "sign_flipped_norm_share_at_fit": float(flipped_share[k_fit]), "final_loss": float(L[-1]),
                     "final_stable_rank": float(sr[-1])})
        if late_all and fx.kind != "negative":
            ev.note(f"the paper's literal every-neuron band is {float(mincos_all[k_fit]):.3f} at the fitting onset "
                    f"(iteration {int(its[k_fit])}) on this run: {int(flipped[k_fit])} neurons changed the sign of v_j "
                    f"({flipped_share[k_fit]:.2g} of ||W||_F^2)")
            if reading == "every_run":
                _same_time_half_step(fx, ev, W0, v0, float(its[k_fit]))
    first = np.array(first)
    detail = "; ".join(details)
    if reading == "typical":
        lo, hi = clopper_pearson(int(first.sum()), int(first.size))
        share = f"share of runs with the alignment (min cos >= 0.9 over {which}) before the fitting onset (10% loss drop)"
        cp = f"{int(first.sum())}/{first.size} runs (95% Clopper-Pearson {lo:.2f}-{hi:.2f}): {detail}"
        if fx.mutated(FIT_FIRST):
            ev.le(share + "; mutated: the fitting first in the typical run (<= 1/2)", float(first.mean()), 0.5,
                  rtol=0.0, room=None, detail=cp)
        else:
            ev.ge(share + "; the typical run (>= 1/2)", float(first.mean()), 0.5, rtol=0.0, room=None, detail=cp)
        ev.record(band_first_share_ci95=[lo, hi])
    elif fx.mutated(FIT_FIRST):
        ev.forall(f"every run: fitting onset (10% loss drop) before the alignment (min cos >= 0.9 over {which})",
                  ~first, relation="true", detail=detail)
    else:
        ev.forall(f"every run: alignment (min cos >= 0.9 over {which}) before the fitting onset (10% loss drop)",
                  first, relation="true", detail=detail)
    ev.forall("every run: the loss drops by 10% before the end", np.array(dropped_any), relation="true")
    ev.forall("every run: ||W||_2^2 grows from the fitting onset to the end", np.array(grows), relation="true")
    ev.le("max over runs of the final stable rank < 2 (printed)", max(sr_last), 2.0, rtol=0.0)
    ev.le("max over runs of the final stable rank <= 1.1 ('almost 1')", max(sr_last), 1.1, rtol=0.0, room=None)
    ev.record(runs=len(rows), band_first=first, per_run=rows, it_align=rows[0]["it_align"], it_fit=rows[0]["it_fit"],
              final_stable_rank=rows[0]["final_stable_rank"])
    ev.add_series("alignment: min_j cos(w_j, x_sign) (last run)", its,
                  {"min cos (every neuron)": mincos_all, "min cos (kept sign)": mincos}, xlabel="iteration")
    ev.add_series("loss, stable rank, ||W||_2^2 (last run)", its, {"loss": L, "stable rank": sr, "||W||_2^2": top},
                  xlabel="iteration", logy=True)
    return ev


FIG5_STATEMENT = (r"Centred two-class digit data, GD from small init: neurons align with $x_\pm$ early (min cosine "
                  r"near 1 before the loss drops), then $\|W\|_2^2$ grows and the loss decreases; the stable rank "
                  r"decreases below 2 and is almost 1 (because $\cos(x_+,x_-)\simeq-1$).")
FIG5_JUDGED = ("GD runs (mean logistic loss, h = 50, alpha = 1e-6, step 2e-3) on real 8x8 digits (" + DIGIT_PAIRS
               + "), 1 run per fixture in quick, 4 in standard, 8 in thorough, each init drawn from a seed derived from "
               "the fixture's (fixed by the profile before the run); the 0.9 and 10% thresholds are the harness's, "
               "fixed before the data; the loss drops by 10% and ||W||_2^2 grows from the fitting onset to the end in "
               "every run; the final stable rank is < 2 (printed) and <= 1.1 (the harness's reading of 'almost 1': "
               "a threshold, no room) in every run. Assumption 1 fails on every pair (mu and the fraction of "
               "violating pairs are recorded): Theorem 1 is vacuous, the experiment is evidence beyond it; the "
               "large-init control (alpha = 0.1) breaks the small-init setting")


@claim("min2024.exp.fig5", kind="experiment", timeout_s=1200,
       title="Figs. 5, 10, 11: two digits, alignment then fitting (real digits)",
       statement=FIG5_STATEMENT, hypotheses=[SMALL_INIT],
       uses=["min2024.thm1.a", "min2024.thm1.e"],
       fixtures=FIG5_FIXTURES + [PINNED_3V8],
       fidelity="proxy", fidelity_note=FIG5_DATA + "; the paper's band (every neuron, V+-(t) by the current sign of "
       "v_j) required in every run, the rule fixed before the data",
       erratum=erratum(
           kind="experiment not reproduced", location="Sec. 4 (Fig. 5, MNIST 0 vs 1) and App. A.4 (Figs. 10-11, 3 vs "
           "8 and 1 vs 7)",
           printed="in the alignment phase all neurons achieve good alignment with x_+ or x_- (the min cosine over "
           "every neuron near 1) before the loss starts to decrease; then ||W||_2^2 grows and the loss decreases",
           reading="the figures show single runs and the text states what happens, not what happens typically; "
           "V+-(t) by the current sign of v_j (Sec. 4); read, before any run, as: in every run from a small init "
           "the every-neuron band reaches 0.9 before the loss has dropped by 10%",
           second_method="another integrator: the gradient flow itself from the failing run's init (region by region "
           "with DOP853, rtol 1e-8, computed in the check at standard and thorough; ~30 s): fitting onset at flow "
           "time 55.5 (27750 steps of 2e-3), band 0.9 at 58 (29000), band 0.790 at the onset; GD at half the step "
           "for twice the steps (every profile) gives 0.790, 29000 vs 27750. It rules out the discretisation, not "
           "the data: no MNIST offline",
           independence="another integrator",
           summary="not reproduced in every run on substitute data: on one 3-vs-8 run of 24 at thorough (8x8 digits, "
           "not MNIST; pinned as min.real_digits.3v8.band_late) the every-neuron band reaches 0.9 after the fitting "
           "onset (0.789 there; 8 neurons changed the sign of v_j, 0.095 of ||W||_F^2); every other run of every "
           "pair is band-first (standard 16/16; thorough 0 vs 1 16/16 and 8/8 on the whole pair, 1 vs 7 24/24, 3 vs "
           "8 23/24). A weak finding: one run, substitute data, a sign-flipped neuron outside the balanced theory; "
           "the typical-run reading (exp.fig5.typical) and the kept-sign band (exp.fig5.kept_sign) hold"),
       judged_by=FIG5_JUDGED + "; the paper's band (min cos >= 0.9 over every neuron, V+-(t) by the current sign of "
       "v_j) before the fitting onset (10% loss drop) in every run, the pinned 3-vs-8 seed included (found on a "
       "thorough run at run seed 0, where it is one of the pre-fixed seeds; pinned so that every profile shows it); "
       "a run whose band is late is rerun with half the step for twice the steps and, at standard and thorough, "
       "integrated as a gradient flow (region-by-region DOP853), both recorded")
def fig5(fx):
    return _fig5(fx, "every_run")


@claim("min2024.exp.fig5.typical", kind="experiment", timeout_s=1200, seed_key="min2024.exp.fig5",
       title="Figs. 5, 10, 11 read as the typical run: the band first in at least half of the runs (derived)",
       statement=r"As exp.fig5, read as the typical run: the every-neuron band comes before the loss drops in at "
       r"least half of the runs from a small init; the loss drops, $\|W\|_2^2$ grows and the stable rank ends below "
       r"2 and almost 1 in every run.", hypotheses=[SMALL_INIT],
       uses=["min2024.thm1.a", "min2024.thm1.e"],
       derived="adopted after the every-run reading (exp.fig5) failed on one 3-vs-8 seed of a thorough run: the "
       "figures show one run each, read here as typical; the threshold 1/2 (a majority of runs) is the harness's, "
       "not the paper's",
       fixtures=FIG5_FIXTURES, fidelity="proxy",
       fidelity_note=FIG5_DATA + "; the band's order read as a majority over runs",
       judged_by=FIG5_JUDGED + "; the share of runs whose band (every neuron) precedes the fitting onset is >= 1/2, "
       "with its 95% Clopper-Pearson interval recorded; seeds fixed by the profile (exp.fig5's: the same runs, read by "
       "another rule), the pinned seed not added to them (at thorough with run seed 0 it is drawn as the third 3-vs-8 "
       "seed, where it was found); "
       "the mutated control claims the fitting first in the typical run (share <= 1/2)")
def fig5_typical(fx):
    return _fig5(fx, "typical")


@claim("min2024.exp.fig5.kept_sign", kind="experiment", timeout_s=1200, seed_key="min2024.exp.fig5",
       title="Figs. 5, 10, 11 with the alignment over the neurons that kept their sign (derived)",
       statement=r"As exp.fig5, with the alignment band taken over the neurons whose $v_j$ kept the sign of "
       r"$v_j(0)$ (sign-flipped neurons, outside the balanced theory, counted apart): they align with $x_\pm$ before "
       r"the loss drops in every run; the stable rank ends below 2 and almost 1.", hypotheses=[SMALL_INIT],
       uses=["min2024.thm1.a", "min2024.thm1.e"],
       derived="adopted (commit 2c2e2bb) after the paper's literal every-neuron band came after the fitting onset on "
       "one 3-vs-8 seed of a thorough run (pinned here as min.real_digits.3v8.band_late; its literal band is recorded "
       "in a note): a rule changed after a failure is a derived claim beside the printed one (exp.fig5), never a "
       "replacement; it follows the balanced theory's V+- = sign(v_j(0)), as the toy and two-point experiments "
       "(Figs. 6-8) do",
       fixtures=FIG5_FIXTURES + [PINNED_3V8], fidelity="proxy",
       fidelity_note=FIG5_DATA + "; the band over the kept-sign neurons",
       judged_by="as exp.fig5, the band over the neurons whose v_j kept the sign of v_j(0), in every run (not a "
       "frequency), the pinned 3-vs-8 seed included")
def fig5_kept_sign(fx):
    return _fig5(fx, "kept_sign")


NO_ALIGNMENT_PHASE = "aligned already at initialisation (no alignment phase)"


@claim("min2024.exp.fig6", kind="experiment", title="Fig. 6 (App. A.1): 2-D toy example",
       statement=r"In 2-D with $h=50$, $\alpha=10^{-6}$: at the end of the alignment every non-dead $V_\pm$ neuron is in "
       r"$S_\pm$; then norms grow and the loss goes to 0.", hypotheses=[A1],
       fidelity="proxy", fidelity_note="the paper's toy data set is not given (a figure only): 3 + 3 points within 40 "
       "degrees of +-e_1 stand in; the alignment end read at the fitting onset (10% loss drop), among the neurons "
       "that kept the sign of v_j(0)", no_room="memberships and a threshold of the harness's",
       uses=["min2024.thm1.a"],
       fixtures=[random(toy2d, seeds={"quick": 1, "standard": 1, "thorough": 2}),
                 negative(toy2d, label="min.toy2d.flipped_label", flip=True),
                 negative(toy2d, mutation=NO_ALIGNMENT_PHASE)],
       judged_by="one GD run on 3+3 points within 40 degrees of +-e_1 (exact mu = cos 80 deg): membership of the "
       "non-dead neurons that kept the sign of v_j(0) (unbalanced init: sign flips fall outside the balanced theory; "
       "counted apart) at the alignment end (= fitting onset, first 10% loss drop), activation band |cos| <= 1e-3; "
       "final loss < 1e-2 of its start")
def fig6(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    its, Ws, vs = _gd_record(X, y, fx["W_init"], fx["v_init"], LR, 12000, 500)
    L = loss_value(y * forward(Ws, vs, X), "logistic", reduction="sum")
    k = 0 if fx.mutated(NO_ALIGNMENT_PHASE) else int(np.argmax(np.array(L) < 0.9 * L[0]))
    W, v = Ws[k], vs[k]
    # cosine band: a GD step moves a direction by ~ step * ||x||^2 = O(1e-3), so |cos(w_j, x_i)| <= 1e-3 is
    # "on a hyperplane" (reported, not failed), as the tolerance band of the flow checks
    cs = (W @ X.T) / (np.linalg.norm(W, axis=1, keepdims=True) * np.linalg.norm(X, axis=1)[None, :])
    band = np.abs(cs) <= GD_BAND
    act = cs > 0
    pos = y > 0
    plus = act[:, pos].all(1) & ~act[:, ~pos].any(1)
    minus = act[:, ~pos].all(1) & ~act[:, pos].any(1)
    dead = ~act.any(1)
    good = np.where(v > 0, plus, minus) | dead
    kept = (np.sign(v) == np.sign(vs[0])) & ~band.any(1)
    ev.forall("every non-dead neuron that kept the sign of v_j(0) in S_sign(v_j) at the fitting onset",
              good[kept], relation="true", detail=f"{int((~good[kept]).sum())} neurons outside at iteration {int(its[k])}")
    ev.record(on_hyperplane_band=int(band.any(1).sum()), outside_in_band=int((~good & band.any(1)).sum()))
    ev.record(outside_sign_flipped=int((~good & (np.sign(v) != np.sign(vs[0]))).sum()))
    ev.le("final loss / initial loss (the loss 'goes to 0')", float(L[-1] / L[0]), 1e-2, rtol=0.0, room=None)
    ev.record(mu=mu_of(X, y), in_splus=int(plus.sum()), in_sminus=int(minus.sum()), dead=int(dead.sum()))
    ev.add_series("loss (toy)", its, {"loss": np.array(L)}, xlabel="iteration", logy=True)
    return ev


def _phase_metrics(X, y, W, v):
    """The App. A.5 metrics with the full gradient of the mean loss (the paper's sums are over neurons, spec E26):
    norm change ``sum_j 2 <-grad_{w_j} L, w_j>`` and direction change ``sum_j ||P_{w_j}(-grad_{w_j} L)|| / ||w_j||``."""
    dW = -gradient(W, v, X, y, loss="logistic", at_kink=0.0, reduction="mean")[0]
    nrm = np.linalg.norm(W, axis=1, keepdims=True)
    u = W / nrm
    perp = dW - np.einsum("jd,jd->j", dW, u)[:, None] * u
    return float(2 * np.einsum("jd,jd->j", dW, W).sum()), float((np.linalg.norm(perp, axis=1) / nrm[:, 0]).sum())


ONE_LAYER_TWO_PHASE = "first-layer-only training is two-phase too (norm change negligible early)"


@claim("min2024.exp.fig12_13", kind="experiment", timeout_s=1200,
       title="Figs. 12-13 (App. A.5): two-phase training vs first-layer-only training (real digits)",
       statement=r"Training both layers from small init, early on only the directions change (norm changes "
       r"negligible) and later the norms grow; training only $W$ (fixed $v_j=\pm1$) shows no such two phases.",
       hypotheses=[SMALL_INIT], fidelity="proxy", fidelity_note=FIG5_DATA + "; full-batch GD in place of SGD with "
       "batch 2000; 'negligible' and 'orders of magnitude' read as the thresholds 1e-3 and 1e3",
       no_room="thresholds of the harness's reading of 'negligible' and 'orders of magnitude'",
       fixtures=[random(real_digits, label="min.real_digits.0v1", n=120, seeds={"quick": 1, "standard": 1, "thorough": 2}),
                 adversarial(real_digits, label="min.real_digits.3v8", pair=(3, 8), n=120, steps=45000),
                 negative(real_digits, label="min.real_digits.large_init", n=120, init_std=0.1),
                 negative(real_digits, label="min.real_digits.0v1", mutation=ONE_LAYER_TWO_PHASE, n=120)],
       judged_by="full-batch GD (the paper uses SGD, batch 2000) on the mean logistic loss, real 8x8 digits 0 vs 1 "
       "(120 images; 3 vs 8 adversarial): both layers: norm/direction metric ratio <= 1e-3 at every checkpoint "
       "before alignment (min cos >= 0.9) and >= 1e3 times larger at the end; first layer only: ratio >= 1e-2 at "
       "every checkpoint (thresholds are the harness's reading of 'negligible' and 'orders of magnitude': no "
       "room). Assumption 1 fails on the digits (recorded): evidence beyond Theorem 1")
def fig12_13(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    _digit_statistics(fx, ev)
    its, Ws, vs = _gd_record(X, y, fx["W_init"], fx["v_init"], LR, fx["steps"], 250, reduction="mean")
    xp, xm = X[y > 0].sum(0), X[y < 0].sum(0)
    ratio, mincos = [], []
    for W, v in zip(Ws[1:], vs[1:]):
        a, b = _phase_metrics(X, y, W, v)
        ratio.append(abs(a) / b)
        mincos.append(min(cos(W[v > 0], xp).min(), cos(W[v < 0], xm).min()))
    ratio, mincos = np.array(ratio), np.array(mincos)
    aligned = bool((mincos >= 0.9).any())
    k_al = int(np.argmax(mincos >= 0.9)) if aligned else len(ratio) - 1
    early = float(ratio[: k_al + 1].max())
    if not aligned and early <= 1e-3:
        return ev.inconclusive(f"no alignment (min cos >= 0.9) within {fx['steps']} steps (max {mincos.max():.3f})")
    ev.le("both layers: max norm/direction ratio before alignment", early, 1e-3, rtol=0.0, room=None)
    ev.ge("both layers: final ratio / ratio at alignment", float(ratio[-1] / ratio[k_al]), 1e3, rtol=0.0, room=None)
    rng = np.random.default_rng(fx.seed)
    v_fixed = rng.choice([-1.0, 1.0], size=len(fx["v_init"]))
    its1, Ws1 = _first_layer_gd(X, y, fx["W_init"], v_fixed, LR, 3000, 250)
    r1 = np.array([abs(a) / b for a, b in (_phase_metrics(X, y, W, v_fixed) for W in Ws1[1:])])
    if fx.mutated(ONE_LAYER_TWO_PHASE):
        ev.le("first layer only: max norm/direction ratio over the first checkpoints", float(r1.max()), 1e-3,
              rtol=0.0, room=None)
    else:
        ev.ge("first layer only: min norm/direction ratio from the first checkpoint", float(r1.min()), 1e-2,
              rtol=0.0, room=None)
    ev.record(it_align=int(its[1:][k_al]), ratio_at_align=float(ratio[k_al]), ratio_end=float(ratio[-1]),
              max_ratio_before_alignment=early, first_layer_only_min_ratio=float(r1.min()))
    ev.add_series("norm change / direction change", its[1:], {"both layers": ratio}, xlabel="iteration", logy=True)
    ev.add_series("norm change / direction change (first layer only)", its1[1:], {"W only": r1}, xlabel="iteration",
                  logy=True)
    return ev
