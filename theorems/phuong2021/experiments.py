"""Section 5 reproduction targets. Fig. 1: a two-layer ReLU network (p = 100, no biases) trained by SGD
(batch 50, learning rate 0.1, 500 epochs, all weights x 0.05 at init) on the synthetic OS data of Section 5.1."""

from __future__ import annotations

import numpy as np

from fixtures import phuong2021 as ph
from verify import Evidence, adversarial, claim, negative, random
from verify.numerics.flow import gd_steps
from verify.numerics.nets import activation as relu
from verify.numerics.patterns import is_orthogonally_separable

from ._geometry import class_geometry, support_rank
from .hypotheses import orthogonally_separable


def sgd_train(X, y, a0, W0, rng, lr=0.1, batch=50, epochs=500):
    """Minibatch SGD on the mean binary cross-entropy (reshuffled every epoch): one
    verify.numerics.flow.gd_steps step per minibatch, with rho'(0) = 0."""
    a, W = a0.copy(), W0.copy()
    n = len(y)
    for _ in range(epochs):
        perm = rng.permutation(n)
        for b in range(0, n, batch):
            idx = perm[b:b + batch]
            W, a = gd_steps(W, a, X[idx], y[idx], lr=lr, steps=1, at_kink=0.0, reduction="mean")
    return a, W


@claim("phuong2021.exp.fig1", kind="experiment", title="Figure 1 (Section 5.1): rank two and max-margin alignment",
       cannot_fail="a reproduction of Section 5.1's experiment on its data law: there is no hypothesis to break;"
                   " the control correlating with the opposite max-margin direction is refuted",
       fidelity="proxy",
       fidelity_note="the figure's qualitative statements ('rank two', 'most neurons correlate above 0.9') by "
                     "harness thresholds (sigma_3/sigma_1 <= 0.06, median correlation >= 0.9); unreported "
                     "choices (biases, init, loss reduction) fixed by the harness",
       statement=r"After SGD training on the Section 5.1 data the first-layer matrix has rank two (all but two singular "
                 r"values effectively zero), rows align along two directions, and the correlation of $w_j$ with its "
                 r"max-margin direction ($w_+$ if $a_j>0$, $w_-$ if $a_j<0$) is above 0.9 for most neurons.",
       hypotheses=[orthogonally_separable],
       uses=["phuong2021.thm1"],
       fixtures=[random(ph.sec51), adversarial(ph.sec51, init_scale=0.01, label="init x 0.01"), negative(ph.sec51, mutation="correlation with the opposite max-margin direction")],
       judged_by="numeric targets for the qualitative statements (spec §4.1): sigma_3/sigma_1 <= 0.06, median "
                 "correlation >= 0.9, fraction above 0.9 >= 0.5, every neuron that grew closer to its own max-margin direction; "
                 "unspecified choices: no biases, PyTorch-default uniform init x 0.05, mean BCE per minibatch, "
                 "reshuffling every epoch", timeout_s=300)
def fig1(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    cg = class_geometry(X, y)
    a, W = sgd_train(X, y, fx["a0"], fx["W0"], fx.rng)
    acc = float(np.mean(np.sign(relu(X @ W.T) @ a) == y))
    sv = np.linalg.svd(W, compute_uv=False)
    up = cg.w_pos / np.linalg.norm(cg.w_pos)
    un = cg.w_neg / np.linalg.norm(cg.w_neg)
    Wn = W / np.linalg.norm(W, axis=1, keepdims=True)
    own = np.where(a > 0, Wn @ up, Wn @ un)
    other = np.where(a > 0, Wn @ un, Wn @ up)
    if fx.mutated():
        own, other = other, own
    ev.le("sigma_3/sigma_1 of W (Fig. 1a: rank two)", float(sv[2] / sv[0]), 0.06, rtol=0.0)
    ev.ge("median correlation with the respective max-margin direction (Fig. 1c)", float(np.median(own)), 0.9,
          rtol=0.0)
    ev.ge("fraction of neurons with correlation > 0.9", float(np.mean(own > 0.9)), 0.5, rtol=0.0)
    grown = np.linalg.norm(W, axis=1) >= 2 * np.linalg.norm(fx["W0"], axis=1)
    ev.forall("every neuron that grew (||w_j|| >= 2 ||w_j(0)||) is closer to its own max-margin direction",
              own[grown] > other[grown], relation="true",
              detail=f"{int(np.sum(own[grown] <= other[grown]))} exceptions among {int(grown.sum())} grown neurons; "
                     f"{int(np.sum(own <= other))} among all {len(a)} (neurons that never grew keep their init noise)")
    d = X.shape[1]
    ev.record(train_accuracy=acc, top10_singular_values=sv[:10].tolist(), n_pos=int(np.sum(y > 0)),
              n_neg=int(np.sum(y < 0)), cos_wpos_wneg=float(up @ un),
              support_pos=len(cg.support_pos), support_neg=len(cg.support_neg),
              support_span_holds=bool(support_rank(X, cg.support_pos) == d and support_rank(X, cg.support_neg) == d))
    ev.add_series("Fig. 1a: top-10 singular values of W", np.arange(1, 11), {"sigma_k": sv[:10]}, xlabel="k",
                  logy=True)
    ev.add_series("Fig. 1c: sorted correlations with the respective max-margin direction", np.arange(len(own)),
                  {"correlation": np.sort(own)}, xlabel="neuron (sorted)", reference=0.9)
    U = np.linalg.svd(W, full_matrices=False)[2][:2]
    proj = W @ U.T
    for sgn, name in ((1.0, "a_j > 0"), (-1.0, "a_j < 0")):
        sel = (a > 0) if sgn > 0 else (a < 0)
        order = np.argsort(proj[sel, 0])
        ev.add_series(f"Fig. 1b: rows of W on the top-2 singular directions ({name})", proj[sel, 0][order],
                      {"second coordinate": proj[sel, 1][order]}, xlabel="first coordinate")
    return ev


def residual_init(rng, d, p=100, L=4, scale=0.05):
    """PyTorch-default uniform init U(+-1/sqrt(fan_in)) times ``scale`` for W_1 (p x d), W_2..W_{L-1} (p x p),
    W_L (1 x p) of the residual network (30)."""
    return ([scale * rng.uniform(-1, 1, (p, d)) / np.sqrt(d)]
            + [scale * rng.uniform(-1, 1, (p, p)) / np.sqrt(p) for _ in range(L - 2)]
            + [scale * rng.uniform(-1, 1, (1, p)) / np.sqrt(p)])


def residual_sgd(X, y, Ws, rng, lr=0.1, batch=50, epochs=500):
    """SGD (mean BCE) on f^1 = W_1 x, f^l = f^{l-1} + W_l rho(f^{l-1}) (l = 2..L-1), f = W_L rho(f^{L-1}) (30)."""
    # rho(f^l) is computed once per step (forward and backward read the same values), sums, masks and the
    # update in place: the same operations on the same numbers as the textbook form, bit for bit
    Ws = [W.copy() for W in Ws]
    L, n = len(Ws), len(y)
    for _ in range(epochs):
        perm = rng.permutation(n)
        for b in range(0, n, batch):
            idx = perm[b:b + batch]
            Xb, yb = X[idx], y[idx]
            zs = [Xb @ Ws[0].T]
            rs = [relu(zs[0])]
            for layer in range(1, L - 1):
                z = rs[-1] @ Ws[layer].T
                z += zs[-1]                       # f^l = f^{l-1} + W_l rho(f^{l-1})
                zs.append(z)
                rs.append(relu(z))
            f = (rs[-1] @ Ws[-1].T)[:, 0]
            gf = -yb * np.exp(-np.logaddexp(0.0, yb * f)) / len(idx)
            grads = [None] * L
            grads[-1] = gf[None, :] @ rs[-1]
            gz = np.outer(gf, Ws[-1][0])
            gz *= zs[-1] > 0
            for layer in range(L - 2, 0, -1):
                grads[layer] = gz.T @ rs[layer - 1]
                back = gz @ Ws[layer]
                back *= zs[layer - 1] > 0
                back += gz                        # gz + (gz W_l) * 1{f^{l-1} > 0}
                gz = back
            grads[0] = gz.T @ Xb
            for layer in range(L):
                grads[layer] *= lr
                Ws[layer] -= grads[layer]
    return Ws


@claim("phuong2021.exp.fig2", kind="experiment", title="Figure 2 (Section 5.2): deeper residual network",
       cannot_fail="a reproduction of Section 5.2's exploratory experiment (no theorem): no hypothesis to break;"
                   " the control correlating with the farther max-margin direction is refuted",
       fidelity="proxy",
       fidelity_note="'rank two' read as the trained update's sigma_3/sigma_1 <= 0.01 and 'correlate highly' as "
                     "median correlation >= 0.9 (harness thresholds); unreported choices fixed by the harness",
       statement=r"A residual network (30) with L = 4 and width 100, trained as in Section 5.1: $W_1,W_2,W_3$ are all "
                 r"of rank two, and first-layer rows correlate highly with the closest max-margin direction "
                 r"(exploratory; no theorem).",
       hypotheses=[orthogonally_separable], uses=["phuong2021.exp.fig1"],
       fixtures=[random(ph.sec51), adversarial(ph.sec51, init_scale=0.01, label="init x 0.01"),
                 negative(ph.sec51, mutation="correlation with the farther max-margin direction")],
       judged_by="rank two read as: the trained update W_l - W_l(0) has sigma_3/sigma_1 <= 0.01 for l = 1, 2, 3 (the raw "
                 "sigma_3/sigma_1, ~0.1, is the untouched initial noise, recorded); median over first-layer neurons that "
                 "grew (||w_j|| >= 2 ||w_j(0)||) of max(cos(w_j, w_+), cos(w_j, w_-)) >= 0.9; unspecified choices as "
                 "for Fig. 1", timeout_s=300)
def fig2(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    cg = class_geometry(X, y)
    W0 = residual_init(fx.rng, X.shape[1], scale=float(fx["lam"]))
    Ws = residual_sgd(X, y, W0, fx.rng)
    raw = []
    for layer in range(3):
        sv = np.linalg.svd(Ws[layer] - W0[layer], compute_uv=False)
        # 0.01 is the harness's reading of the figure's "rank two", not a printed constant: no room (measured
        # sigma_3/sigma_1 of the update 4e-4 to 6e-4 on the quick seed)
        ev.le(f"W_{layer + 1} - W_{layer + 1}(0): sigma_3/sigma_1 (rank-two update)", float(sv[2] / sv[0]), 0.01,
              rtol=0.0, room=None)
        sr = np.linalg.svd(Ws[layer], compute_uv=False)
        raw.append(float(sr[2] / sr[0]))
        ev.add_series(f"Fig. 2: top-10 singular values of W_{layer + 1}", np.arange(1, 11), {"sigma_k": sr[:10]},
                      xlabel="k", logy=True)
    up = cg.w_pos / np.linalg.norm(cg.w_pos)
    un = cg.w_neg / np.linalg.norm(cg.w_neg)
    Wn = Ws[0] / np.linalg.norm(Ws[0], axis=1, keepdims=True)
    corr = (np.minimum if fx.mutated() else np.maximum)(Wn @ up, Wn @ un)
    grown = np.linalg.norm(Ws[0], axis=1) >= 2 * np.linalg.norm(W0[0], axis=1)
    ev.ge("median over grown first-layer neurons of the correlation with the closest max-margin direction",
          float(np.median(corr[grown])) if grown.any() else -1.0, 0.9, rtol=0.0,
          detail=f"{int(grown.sum())} of {len(corr)} neurons grew")
    ev.record(raw_sigma3_over_sigma1=raw, median_corr_all=float(np.median(corr)))
    ev.add_series("Fig. 2g: sorted correlations with the closest max-margin direction (W_1)", np.arange(len(corr)),
                  {"correlation": np.sort(corr)}, xlabel="neuron (sorted)", reference=0.9)
    return ev


MNIST_DIFFERENCES = (
    "differences from the paper's setting: scikit-learn's 8x8 digits (1797 images, shipped in its wheel; 360 "
    "in the pair 0/1) instead of 28x28 MNIST (~12,700 in the pair), loaded offline; an MLP with ReLU layers "
    "fc(64, 64), fc(64, 64) as the feature extractor in place of the six convolutional layers, then "
    "'layer 7' fc(64, 32) and 'layer 8' fc(32, 1) in place of fc(3136, 128), fc(128, 1); biases and "
    "PyTorch-default init (unspecified in the paper); Adam at learning rate 1e-3 (unspecified), binary "
    "cross-entropy, batch 128, 50 epochs, weights of layers 7 and 8 times 0.05, as printed: 150 Adam steps "
    "instead of ~5000 (the two orthogonal-separability claims, exp.mnist.os and .relu, train 1700 epochs, ~5100 "
    "steps)")


def _cosines(L, y):
    n = np.linalg.norm(L, axis=1)
    C = (L @ L.T) / np.maximum(np.outer(n, n), 1e-300)
    same, off = np.equal.outer(y, y), ~np.eye(len(y), dtype=bool)
    return C, same & off, ~same


def _violations(L, y):
    """Fraction of ordered pairs (i != j) violating eq. (1) in the representation L."""
    K = L @ L.T
    same, off = np.equal.outer(y, y), ~np.eye(len(y), dtype=bool)
    return float(np.mean(np.where(same, K <= 0, K > 0)[off]))


def _theory_hypotheses(fx, ev):
    """Theorem 1's data hypotheses, measured and reported (App. D is outside the theory's scope): OS of the
    digit pair itself and of the head's input (layer-6 features); support span where OS holds."""
    X0, X6, y = fx["layers"][0], fx["X"], fx["y"]
    os_in, os_head = is_orthogonally_separable(X0, y)[0], is_orthogonally_separable(X6, y)[0]
    rec = {"hypothesis_OS_of_the_digit_pair": os_in, "hypothesis_OS_of_the_head_input": os_head}
    if os_head:
        cg = class_geometry(X6, y)
        d = X6.shape[1]
        rec["hypothesis_support_span_of_the_head_input"] = bool(
            support_rank(X6, cg.support_pos) == d and support_rank(X6, cg.support_neg) == d)
    ev.record(**rec)
    ev.note("Theorem 1's hypotheses are " + ("met" if os_head else "not met") + " by the head's input, so its "
            "predictions for layers 7-8 are " + ("applicable" if os_head else "vacuous") + " here (recorded)")


LOW_RANK_MUTATION = "W_7 of rank at most one"


@claim("phuong2021.exp.mnist", kind="experiment", title="Appendix D (Figures 3, 4): real digits, 0 vs 1",
       cannot_fail="a reproduction on an offline analogue of App. D: no hypothesis to break; the control "
                   "claiming W_7 of rank at most one is refuted",
       fidelity="proxy",
       fidelity_note="an offline analogue of App. D stands in for the MNIST experiment (scikit-learn's 8x8 "
                     "digits, an MLP in place of the CNN, 150 Adam steps instead of ~5000); qualitative "
                     "statements by harness thresholds",
       statement=r"A network trained as in App. D on two digit classes learns representations in which same-class "
                 r"examples are more similar than cross-class ones, more so at higher layers (Fig. 3), and the "
                 r"weight matrix $W_7$ of its first fully-connected layer has very few (perhaps five or ten) "
                 r"significantly non-zero singular values (Fig. 4a).",
       fixtures=[random(ph.digits), adversarial(ph.digits, pair=(3, 8), label="digits 3 vs 8"),
                 adversarial(ph.digits, pair=(1, 7), label="digits 1 vs 7"),
                 negative(ph.digits, mutation=LOW_RANK_MUTATION)],
       judged_by="numeric targets for the qualitative statements: number of singular values of W_7 above 0.1 "
                 "sigma_1 <= 10; mean cosine of same-class pairs above that of cross-class pairs at layer 7, and "
                 "the gap between them larger at layer 7 than at the input; the fraction of pairs violating eq. (1) "
                 "per layer, the accuracy and Theorem 1's data hypotheses (OS of the pair and of the head's input, "
                 "span) are measured and recorded. " + MNIST_DIFFERENCES, timeout_s=300)
def exp_mnist(fx):
    ev = Evidence()
    y = fx["y"]
    sv = np.linalg.svd(fx["W7"], compute_uv=False)
    significant = int(np.sum(sv > 0.1 * sv[0]))
    limit_rank = 1 if fx.mutated(LOW_RANK_MUTATION) else 10
    ev.le("Fig. 4a: singular values of W_7 above 0.1 sigma_1", significant, limit_rank, rtol=0.0,
          detail=f"top-6 sigma_k/sigma_1 = {np.round(sv[:6] / sv[0], 3).tolist()}")
    gaps = []
    for L in fx["layers"]:
        C, same, cross = _cosines(L, y)
        gaps.append(float(C[same].mean() - C[cross].mean()))
    ev.true("Fig. 3: at layer 7 same-class pairs are more similar than cross-class pairs (mean cosine)",
            gaps[-1] > 0, detail=f"gap {gaps[-1]:.3f}")
    ev.true("Fig. 3: the separation grows from the input to layer 7 (gap of mean cosines)", gaps[-1] > gaps[0],
            detail=f"gaps per layer {np.round(gaps, 3).tolist()}")
    _theory_hypotheses(fx, ev)
    ev.record(accuracy=fx["accuracy"], significant_singular_values=significant,
              top10_singular_values=sv[:10].tolist(), cosine_gap_per_layer=gaps,
              violating_pair_fraction_per_layer=[_violations(L, y) for L in fx["layers"]])
    ev.add_series("Fig. 4a: top-10 singular values of W_7", np.arange(1, 11), {"sigma_k": sv[:10]}, xlabel="k",
                  logy=True)
    return ev


PIXELS_OS = "the input pixels are already orthogonally separable"


def _layer7_os(fx, pre: bool) -> Evidence:
    """Eq. (1) on every pair of training examples in layer 7's representation: its pre-activations
    W_7 f^6 + b_7 (``pre``) or its ReLU output f^7; the pixel control takes the input pixels instead."""
    ev = Evidence()
    y = fx["y"]
    pre_act = fx["X"] @ fx["W7"].T + fx["b7"]
    L = fx["layers"][0] if fx.mutated(PIXELS_OS) else (pre_act if pre else fx["layers"][-1])
    K = L @ L.T
    same, off = np.equal.outer(y, y), ~np.eye(len(y), dtype=bool)
    ok = np.where(same, K > 0, K <= 0)[off]
    where = "input pixels" if fx.mutated(PIXELS_OS) else ("layer 7, pre-activations" if pre else "layer 7, ReLU output")
    ev.forall(f"eq. (1) on every pair of training examples ({where})", ok, relation="true")
    cross = (~same)[off]
    ev.record(violating_pair_fraction=float(np.mean(~ok)), violating_pairs=int(np.sum(~ok)), pairs=int(ok.size),
              negative_cross_class_fraction=float(np.mean(K[~same] < 0)),
              violating_cross_class_pairs=int(np.sum(~ok & cross)),
              violating_pair_fraction_preactivation=_violations(pre_act, y),
              # a bias shared by every example can alone push cross-class products positive
              violating_pair_fraction_preactivation_without_bias=_violations(pre_act - fx["b7"], y),
              violating_pair_fraction_relu_output=_violations(fx["layers"][-1], y), accuracy=fx["accuracy"])
    _theory_hypotheses(fx, ev)
    return ev


# Adam epochs for the OS claims: 3 mini-batches of 128 per epoch on a digit pair (~360 images), so 1700 epochs are
# ~5100 steps, the paper's training length (~5000): at exp.mnist's 150 steps a refutation would be open to "the
# stand-in was not trained long enough"
OS_EPOCHS = 1700
# (exp.mnist.os.relu draws exp.mnist.os's seeds, seed_key: the two readings judge the same trained nets, trained once
# per worker, ph.train_digit_net being memoised)
OS_FIXTURES = [random(ph.digits, epochs=OS_EPOCHS),
               adversarial(ph.digits, pair=(3, 8), label="digits 3 vs 8", epochs=OS_EPOCHS),
               negative(ph.digits, mutation=PIXELS_OS, epochs=OS_EPOCHS)]
_MNIST_OS_FIDELITY = ("an offline analogue of App. D stands in for the MNIST experiment (scikit-learn's 8x8 digits, an "
                      "MLP in place of the CNN), trained for ~5100 Adam steps (1700 epochs of 3 mini-batches), the "
                      "paper's ~5000")


@claim("phuong2021.exp.mnist.os", kind="experiment", title="Appendix D (Figure 3): 7th-layer representations OS, on digits",
       statement=r"'Remarkably, the 7th layer representations are orthogonally separable': on the 8x8-digits analogue "
                 r"of App. D, the pre-activations of layer 7 satisfy eq. (1) on every pair of training examples.",
       derived="the harness's transplant of App. D's Figure 3 claim to an offline analogue (scikit-learn's 8x8 "
               "digits, an MLP in place of the CNN, ~5100 Adam steps as the paper's ~5000); a failure here is a finding about the analogue, "
               "not an erratum of the paper's MNIST experiment, which could not be rerun offline. Pre-activations: "
               "Fig. 3 shows negative cross-class products at layer 7, impossible for ReLU outputs (>= 0), so the "
               "figure plots pre-activations (the ReLU-output reading is phuong2021.exp.mnist.os.relu)",
       expected="refuted",
       expected_reason="on the analogue the layer-7 pre-activations are not orthogonally separable on any seed or pair "
                       "tried: after ~5100 Adam steps (the paper's ~5000), on the paper's pair 0 vs 1 0.10% to 45% of "
                       "the pairs violate eq. (1) (thorough, 10 fixtures, median 1.8%; all violations cross-class), on "
                       "3 vs 8 (a pair App. D does not show) 1.2% to 14%; 1.5% to 31% after 150 steps, so longer "
                       "training does not bring it there. At the level of Fig. 3's histograms the figure is "
                       "reproduced on most seeds (e.g. quick 0 vs 1: 0.10% of the pairs violate, 99.8% of cross-class "
                       "products negative): what fails is the literal every-pair property the text states. The W_7 "
                       "low-rank part of App. D does reproduce (phuong2021.exp.mnist)",
       uses=["phuong2021.exp.mnist"],
       fixtures=OS_FIXTURES,
       fidelity="proxy", fidelity_note=_MNIST_OS_FIDELITY, no_room="yes/no sign conditions on every pair",
       judged_by="exact signs of every z^7(x_i)^T z^7(x_j), i != j, z^7 = W_7 f^6 + b_7 the pre-activations of layer 7 "
                 "(the reading of Fig. 3, whose cross-class products go negative); the ReLU-output fractions are "
                 "recorded beside it. " + MNIST_DIFFERENCES, timeout_s=300)
def exp_mnist_os(fx):
    return _layer7_os(fx, pre=True)


@claim("phuong2021.exp.mnist.os.relu", kind="experiment", seed_key="phuong2021.exp.mnist.os",
       title="Appendix D (Figure 3): 7th-layer ReLU outputs OS, on digits (derived reading)",
       statement=r"On the 8x8-digits analogue of App. D, the ReLU outputs $f^7$ of layer 7 satisfy eq. (1) on every "
                 r"pair of training examples.",
       derived="the ReLU-output reading of App. D's 'the 7th layer representations are orthogonally separable', kept "
               "beside the pre-activation reading that Fig. 3 shows (phuong2021.exp.mnist.os): ReLU outputs are >= 0, "
               "so every cross-class product is >= 0 by construction and eq. (1) there demands exact zeros (disjoint "
               "active units per class), the J_+/J_- split of the theory; the analogue's transplant as above",
       expected="refuted",
       expected_reason="3.3% to 50% of the pairs violate eq. (1) on the analogue after ~5100 Adam steps (thorough, 13 "
                       "fixtures, the trained nets of exp.mnist.os; all violations cross-class pairs with a shared active "
                       "unit)",
       uses=["phuong2021.exp.mnist"],
       fixtures=OS_FIXTURES,
       fidelity="proxy", fidelity_note=_MNIST_OS_FIDELITY, no_room="yes/no sign conditions on every pair",
       judged_by="exact signs of every f^7(x_i)^T f^7(x_j), i != j (f^7 the ReLU output of layer 7). " + MNIST_DIFFERENCES,
       timeout_s=300)
def exp_mnist_os_relu(fx):
    return _layer7_os(fx, pre=False)
