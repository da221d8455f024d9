"""Theorems 4 and 2 of Wang & Pilanci (2022): gradient flow from a small balanced initialisation on
orthogonally separable data converges (in direction) to a global max-margin network.

Every training run is classified before it is judged (issue 17, item 4): ``certified global`` (separated, the
restricted program over the limit's activation patterns attains P* with a dual-feasible multiplier, and the
normalised cost R/P* - 1 has come within tolerance without growing), ``certified non-global`` (separated, and
the run sits at a certified non-global KKT point: the restricted optimum over its patterns is a KKT point of
(13) with P_S > P* and a dual-infeasible multiplier, and R has come within tolerance of P_S), ``never
separates`` (every output weight has one sign: f >= 0 or f <= 0 forever, by Lemma 1; exact) or ``undecided``
(anything else: not separated within the budget, still converging). Only certified outcomes count; undecided
runs go to ``judge_binomial`` as undecided.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from fixtures.orthogonal import boundary as shared_os_boundary
from fixtures.orthogonal import near_boundary as shared_os_near_boundary
from fixtures.wang2022 import MC3, MC3_binary, mc_near_boundary, mc_simplex, os_boundary, os_cones
from verify import (
    Evidence,
    adversarial,
    claim,
    erratum,
    hypothesis,
    judge_binomial,
    judge_trend,
    negative,
    random,
)
from verify.claims import declare_amended
from verify.numerics.convex import convex_primal, dual_certificate
from verify.numerics.margin import svm_class
from verify.numerics.patterns import is_multiclass_orthogonally_separable, is_orthogonally_separable

from ._hyp import orthogonally_separable, orthogonally_separable_multiclass
from ._numerics import (
    balanced_init,
    convex_to_network,
    gd_to_margin,
    nonconvex_kkt,
    normalised_cost,
    os_closed_form,
    solve_convex,
    solved,
)

Q_TARGETS = (10.0, 20.0, 40.0, 80.0)
R_TOL = 3e-2          # R/P* - 1 at the last horizon (spec tolerance policy)
CERT_RTOL = 1e-6      # pattern-polished certificate (exact up to the SOCP)
NONGLOBAL_GAP = 1e-3  # P_S / P* - 1 above which a restricted optimum is non-global
KKT_TOL = 1e-5        # non-convex KKT residuals of a mapped restricted optimum
R4 = "limit = early-phase class-sum directions (spec R4)"

GLOBAL, NONGLOBAL, NEVER, UNDECIDED = "certified global", "certified non-global", "never separates", "undecided"


def _types_hold(X, y, W1, w2) -> bool:
    """H_types: at t = 0 some s = +1 neuron has y^T (X w_1)_+ > 0 and some s = -1 neuron has it < 0."""
    F = y @ np.maximum(X @ W1, 0.0)
    return bool(np.any((w2 > 0) & (F > 0)) and np.any((w2 < 0) & (F < 0)))


def reference_optimum(X, y):
    """P* and the dual-constraint function V: closed forms for orthogonally separable data (spec R1, R2:
    P* = ||u_+|| + ||u_-||, V(lambda) = max(||X^T lambda_+||, ||X^T lambda_-||) for Y lambda >= 0), else the
    complete-pattern SOCP and per-pattern NNLS certificates."""
    if is_orthogonally_separable(X, y)[0]:
        def V(lam):
            return max(np.linalg.norm(X.T @ np.maximum(lam, 0.0)), np.linalg.norm(X.T @ np.minimum(lam, 0.0)))
        return os_closed_form(X, y)["P"], V
    sol = solve_convex(X, y)
    return sol["value"], lambda lam: dual_certificate(lam, X, sol["D"]).value


def _restricted_solve(X, y, pats) -> tuple[float, np.ndarray, float] | None:
    """(P_S, lambda_S, kkt) of (14) restricted to the patterns ``pats``, or None when the solve fails."""
    r = convex_primal(X, y, pats)
    if not solved(r):
        return None
    Wn, wn = convex_to_network(r["U"], r["U2"], tol=1e-6)
    return r["value"], r["lam"], nonconvex_kkt(X, y, Wn, wn, r["lam"], tau=1e-6)["max_residual"]


def polished_certificate(X, y, W1, w2, V, solutions: dict | None = None) -> dict:
    """Theorem 3 applied to the limit's activation patterns (spec §3 thm4 (e)): solve (14) restricted to the
    patterns D(w_1i) of the significant neurons; the net is globally optimal iff P_S = P* and V(lambda_S) <= 1.
    ``kkt`` is the largest non-convex KKT residual of (13) of the restricted optimum mapped to a network.
    ``solutions`` (one dict per data set (X, y)) keeps each pattern set's solve: the runs of one data set often
    end on the same patterns (178 solves, 44 distinct, in a quick run), and the solve depends on nothing else."""
    size = np.linalg.norm(W1, axis=0) * np.abs(w2)
    sig = size >= 1e-3 * size.max()
    pats = np.unique((W1[:, sig].T @ X.T > 0).astype(float), axis=0)
    if solutions is None:
        sol = _restricted_solve(X, y, pats)
    else:
        key = pats.tobytes()
        if key not in solutions:
            solutions[key] = _restricted_solve(X, y, pats)
        sol = solutions[key]
    if sol is None:
        return {"P_S": np.inf, "V": np.inf, "kkt": np.inf, "n_patterns": pats.shape[0]}
    value, lam, kkt = sol
    return {"P_S": value, "V": float(V(lam)), "kkt": kkt, "n_patterns": pats.shape[0]}


def _closer_to_class_sums(X, y, W1, w2) -> bool:
    """The mutated conclusion (R4): every significant neuron is at least as close to the class-sum direction of its
    sign as to the per-class max-margin direction u_+- of the global optimum (spec R1)."""
    u = os_closed_form(X, y)["u"]
    size = np.linalg.norm(W1, axis=0) * np.abs(w2)
    for i in np.flatnonzero(size >= 1e-3 * size.max()):
        s = float(np.sign(w2[i]))
        if s not in u:
            continue
        w = W1[:, i] / np.linalg.norm(W1[:, i])
        csum = X[y == s].sum(axis=0)
        if w @ csum / np.linalg.norm(csum) < w @ u[s] / np.linalg.norm(u[s]):
            return False
    return True


def classify(X, y, P, V, W1, w2, R_err, *, same_sign: bool, mutated: bool = False,
             solutions: dict | None = None) -> tuple[str, dict]:
    """The outcome of one run (module docstring) and the certificate it rests on (``solutions``: as
    polished_certificate's)."""
    if same_sign and (y > 0).any() and (y < 0).any():
        return NEVER, {}
    if not np.isfinite(R_err[-1]):
        return UNDECIDED, {}
    cert = polished_certificate(X, y, W1, w2, V, solutions)
    err = np.asarray(R_err)
    settled = bool(np.all(err[1:] <= err[:-1] * 1.1 + R_TOL / 10))   # noise as verify.judge_trend, + R_TOL/10
    if (abs(cert["P_S"] - P) <= CERT_RTOL * P and cert["V"] <= 1 + CERT_RTOL and settled and err[-1] <= R_TOL):
        if mutated and not _closer_to_class_sums(X, y, W1, w2):
            return NONGLOBAL, cert          # certified global, hence certified not the R4 directions
        return GLOBAL, cert
    R_final = (1 + err[-1]) * P
    if (cert["P_S"] > P * (1 + NONGLOBAL_GAP) and cert["V"] > 1 + CERT_RTOL and cert["kkt"] <= KKT_TOL
            and settled and R_final <= cert["P_S"] * (1 + R_TOL)):
        return NONGLOBAL, cert
    return UNDECIDED, cert


def train_and_classify(X, y, *, seeds: int, m: int, r0: float, seed: tuple, eta0: float = 0.02,
                       mutated: bool = False) -> list[dict]:
    """GD on the logistic loss with eta_k = eta0 / L_k (spec R6) for ``seeds`` networks on one data set from the
    initialisations drawn by ``np.random.default_rng(seed)``, stopped at the horizons q_min = 10, 20, 40, 80 (4000
    steps each at most); each run classified. Cached: the printed and amended claims of an erratum share their
    fixtures and seeds, hence their runs."""
    X = np.ascontiguousarray(X, dtype=float)
    y = np.ascontiguousarray(y, dtype=float)
    return _runs(X.tobytes(), X.shape, y.tobytes(), tuple(int(v) for v in seed), seeds, m, float(r0), float(eta0),
                 bool(mutated))


@lru_cache(maxsize=32)
def _runs(Xb, shape, yb, seed, seeds, m, r0, eta0, mutated) -> list[dict]:
    X = np.frombuffer(Xb).reshape(shape)
    y = np.frombuffer(yb)
    P, V = reference_optimum(X, y)
    W1, w2 = balanced_init(np.random.default_rng(list(seed)), seeds, X.shape[1], m, r0)
    types = [_types_hold(X, y, W1[b], w2[b]) for b in range(seeds)]
    same = [bool(np.all(w2[b] > 0) or np.all(w2[b] < 0)) for b in range(seeds)]
    R = np.full((seeds, len(Q_TARGETS)), np.inf)
    live = np.arange(seeds)
    W1, w2 = W1.copy(), w2.copy()
    for k, target in enumerate(Q_TARGETS):
        W1[live], w2[live] = gd_to_margin(X, y, W1[live], w2[live], eta0=eta0, q_stop=target, steps=4000)
        R[live, k] = [normalised_cost(X, y, W1[b], w2[b]) for b in live]
        live = live[np.min(y * np.einsum("bnm,bm->bn", np.maximum(X @ W1[live], 0.0), w2[live]), axis=1) >= target]
        if live.size == 0:
            break
    out, solutions = [], {}
    for b in range(seeds):
        err = R[b] / P - 1
        outcome, cert = classify(X, y, P, V, W1[b], w2[b], err, same_sign=same[b], mutated=mutated,
                                 solutions=solutions)
        out.append({"types": types[b], "outcome": outcome, "R_err": err, "cert": cert, "W1": W1[b], "w2": w2[b],
                    "separated": bool(np.isfinite(err[-1]))})
    return out


def _show_runs(ev: Evidence, runs: list[dict], P: float, prefix: str) -> None:
    errs = np.array([r["R_err"] for r in runs if r["separated"]])
    if errs.size:
        ev.add_series(f"{prefix}R/P* - 1 along the horizons (separated runs)", Q_TARGETS,
                      {"median": np.median(errs, axis=0), "max": np.max(errs, axis=0)}, xlabel="q_min", logx=True,
                      logy=True)
    ev.record(**{f"{prefix}P*": P})
    # outcomes of chaotic dynamics: shown, never compared with a baseline (the verdict judges them)
    ev.show(**{f"{prefix}runs": len(runs), f"{prefix}H_types held": sum(r["types"] for r in runs),
               **{f"{prefix}{o}": sum(r["outcome"] == o for r in runs) for o in (GLOBAL, NONGLOBAL, NEVER, UNDECIDED)},
               f"{prefix}final R/P* per run": [float(r["R_err"][-1] + 1) for r in runs]})
    bad = [r for r in runs if r["outcome"] in (NONGLOBAL, NEVER)]
    if bad:
        f = bad[0]
        ev.certify(**{f"{prefix}certified failure": {"outcome": f["outcome"], "R/P*-1": f["R_err"],
                                                     "H_types": f["types"], **{k: v for k, v in f["cert"].items()}}})


def _judge(ev: Evidence, outcomes: list[str], name: str) -> None:
    """Probability 1 judged over the decided runs (undecided ones counted neither way)."""
    succ = sum(o == GLOBAL for o in outcomes)
    undecided = sum(o == UNDECIDED for o in outcomes)
    judge_binomial(name, succ, len(outcomes) - undecided, 1.0, undecided=undecided, evidence=ev)


def _all_positive_never_separates(ev: Evidence, X, y, m: int, rng: np.random.Generator) -> None:
    """Theorem 4 as printed ('almost all'): the initialisations with every w_2 > 0 have probability 2^-m > 0
    under the symmetric sign law, and from them f >= 0 for all t (Lemma 1 keeps the signs), so the negatives are
    never classified and no limit direction is a max-margin network. Exact; the GD run only illustrates it."""
    W1, w2 = balanced_init(rng, 1, X.shape[1], m, 1e-4)
    w2 = np.abs(w2)
    W1, w2 = gd_to_margin(X, y, W1, w2, eta0=0.02, q_stop=10.0, steps=500)
    f = np.maximum(X @ W1[0], 0.0) @ w2[0]
    ev.record(**{"all-w_2>0 init: max over negatives of y_n f(x_n) after 500 steps": float(np.max(-f[y < 0]))})
    ev.true(f"the initialisations with every w_2 > 0 (probability 2^-{m} > 0) separate the data, as a max-margin "
            "limit requires (impossible: f >= 0 forever by Lemma 1)", bool(np.all(y * f > 0)), independent=True)


def _thm4(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    if not is_orthogonally_separable(X, y)[0]:
        return ev   # hypothesis unmet (vacuous): skip the training runs
    m = fx.get("m", 10)
    seeds = 10 if fx.profile == "quick" else 30
    if not fx.amended and not fx.mutated():
        _all_positive_never_separates(ev, X, y, m, np.random.default_rng([fx.seed, 7]))
    # seed (fx.seed, 1): the generator of fx.rng
    runs = train_and_classify(X, y, seeds=seeds, m=m, r0=1e-4, seed=(fx.seed, 1), mutated=fx.mutated(R4))
    P = reference_optimum(X, y)[0]
    ev.record(eta0=0.02, r0=1e-4, width=m, horizons_q_min=Q_TARGETS,
              max_balance_drift=max(float(np.max(np.abs(np.sum(r["W1"] ** 2, axis=0) - r["w2"] ** 2)
                                                 / np.maximum(np.sum(r["W1"] ** 2, axis=0), 1e-300))) for r in runs))
    _show_runs(ev, runs, P, "")
    pool = [r["outcome"] for r in runs if r["types"] or not fx.amended]
    ev.forall("runs meeting H_types (amended: the initialisations the statement covers)" if fx.amended else
              "runs (every initialisation)", [True] * len(pool), relation="true")
    if pool:
        _judge(ev, pool, "runs reaching a certified global max-margin direction"
               + (" (given H_types)" if fx.amended else "") + (f" [{fx.mutation}]" if fx.mutated() else ""))
    return ev


@claim("wang2022.thm4", kind="theorem", title="Theorem 4 (orthogonally separable data: GF finds a global max-margin net)",
       fidelity="proxy",
       fidelity_note="gradient flow by normalised GD (eta_k = 0.02 / L_k), its limit by a certified "
                     "classification of the endpoint at q_min = 80 (global / non-global / never separates), "
                     "'sufficiently close to zero' at r0 = 1e-4; the refutation itself is the exact all-w_2 > 0 "
                     "argument",
       no_room="a probability (Clopper-Pearson over seeds) of a yes/no event",
       statement=r"For orthogonally separable data and a scaled initialisation, for almost all initialisations "
                 r"sufficiently close to zero, $\lim \theta(t)/\|\theta(t)\|_2 = \theta^*/\|\theta^*\|_2$ with $\theta^*$ a "
                 r"global minimiser of (2).",
       uses=["wang2022.prop6.os", "wang2022.lem4", "wang2022.prop7", "wang2022.prop4", "wang2022.thm3",
             "wang2022.lem1"],
       hypotheses=[orthogonally_separable],
       erratum=erratum(
           independence="another derivation",
           kind="false statement",
           location="Sec. 4, Theorem 4 (p. 9); proof App. D.7, first sentence",
           printed="For almost all initializations which are sufficiently close to zero, the limiting point of "
                   "theta(t)/||theta(t)||_2 is theta*/||theta*||_2, where theta* is a global minimizer of the max-margin "
                   "problem (2).",
           reading="'almost all' in the measure sense (all but a null set of initial directions and signs), for the "
                   "finite width m of the network; D.7 says 'for almost all initialization we can find two neurons such "
                   "that sign(w_2) = sign(y^T (X w_1)_+) = +-1', which is how the statement is used",
           second_method="exact sign argument, no integration: the initialisations with every w_2,i > 0 form an open "
                         "set of positive Lebesgue measure (probability 2^-m under any sign-symmetric law); Lemma 1 keeps "
                         "the signs, so f >= 0 and y_n f(x_n) <= 0 at every "
                         "negative point for all t (checked on every fixture); over random seeds with m = 2 about half "
                         "the runs fall in this set (Clopper-Pearson interval below 1)",
           summary="'almost all' fails for finite width: with probability >= 2^(1-m) all output weights share a sign "
                   "and the data are never separated",
           amended=r"Theorem 4 for the initialisations with a neuron $s=+1$, $y^\top(Xw_1)_+>0$ and a neuron $s=-1$, "
                   r"$y^\top(Xw_1)_+<0$ (H_types, as Theorem 1's (9)).",
           difference="'almost all initialisations' -> the initialisations with sign-matched neurons of both signs"),
       fixtures=[random(os_cones), random(os_cones, d=4, Np=5, Nn=5), random(os_cones, m=2, expect={"pass", "vacuous"}),
                 adversarial(os_boundary, d=3), adversarial(shared_os_boundary), adversarial(shared_os_near_boundary),
                 adversarial(os_cones, Np=20, Nn=20, d=5),
                 negative(MC3_binary), negative(os_cones, mutation=R4)],
       judged_by="GD with eta = 0.02 / L (R6), r0 = 1e-4, horizons q_min = 10, 20, 40, 80; each run classified "
                 "(certified global / certified non-global / never separates / undecided: module docstring) and only "
                 "certified outcomes judged, Clopper-Pearson over 10 (quick) / 30 runs, claimed probability 1; the "
                 "printed statement also meets the exact all-w_2 > 0 argument. Class: widths m = 2 (the extreme where "
                 "the sign event has probability 1/2) to 10, cross-label products exactly 0 (os_boundary, os.boundary) "
                 "and near 0 (os.near_boundary), N = 40 in d = 5")
def thm4(fx):
    return _thm4(fx)


# ---------------------------------------------------------------------------------------------
# Theorem 2


def _one_vs_rest_os(fx):
    """The amended Theorem 2 also needs every one-vs-rest problem to be binary orthogonally separable."""
    if not fx.amended:
        return True, None, "printed statement: multi-class orthogonal separability only"
    tests = [is_orthogonally_separable(fx["X"], fx["Y"][:, k]) for k in range(fx["K"])]
    return all(ok for ok, _ in tests), min(s for _, s in tests), "min OS slack over the one-vs-rest problems"


one_vs_rest_os = hypothesis("(amended) every one-vs-rest problem is binary orthogonally separable", _one_vs_rest_os,
                            description="the amended hypothesis of Theorem 2 (automatic for K = 2); the printed "
                                        "statement does not have it")


def split_lower_bound(X, labels, k) -> float:
    """P_split = sum over classes j of ||u_j||, u_j the per-class max-margin vector (``margin.svm_class``).

    For multi-class orthogonally separable data, a network whose neurons are each active on the points of one
    class only has R >= P_split (weak duality with lambda_n = alpha_n / ||u_j|| on class j: same-class products
    >= 0 make ||X^T D lambda|| monotone in D, Lemma 6), and gradient flow keeps a neuron active on one class only
    (d/dt x^T w_1 <= 0 at a point x of another class: cross products <= 0, w_2 lambda~_n > 0 on the neuron's class).
    """
    return float(sum(np.linalg.norm(svm_class(X[labels == j]).w) for j in np.unique(labels)))


def _split_certificate(ev: Evidence, fx, k: int) -> None:
    """The flow from the split-invariant initialisation (one neuron per class along its class sum, s = +1 for class
    k, s = -1 for the others; sign-matched, an open set of initialisations at any scale) never reaches the global
    optimum of output k when P_split > P*_k. Exact: P_split is a lower bound of R along the whole flow, and P*_k is
    bounded above by the cost of an explicit feasible network (the mapped SOCP optimum, margins re-checked)."""
    X, labels, yk = fx["X"], fx["labels"], fx["Y"][:, k]
    P_split = split_lower_bound(X, labels, k)
    sol = solve_convex(X, yk)
    W, w = convex_to_network(sol["U"], sol["U2"], tol=1e-9)
    margin = float(np.min(yk * (np.maximum(X @ W, 0.0) @ w)))
    upper = float(np.sum(np.linalg.norm(W, axis=0) * np.abs(w))) / margin if margin > 0 else np.inf
    # illustration: GD from that initialisation stays split (no neuron activates another class)
    classes = np.unique(labels)
    U = np.stack([X[labels == j].sum(axis=0) / np.linalg.norm(X[labels == j].sum(axis=0)) for j in classes], axis=1)
    s = np.where(classes == k, 1.0, -1.0)
    W1, w2 = gd_to_margin(X, yk, 1e-4 * U[None], 1e-4 * s[None], eta0=0.02, q_stop=10.0, steps=1000)
    active = np.maximum(X @ W1[0], 0.0) > 0
    stayed = bool(all(np.all(~active[labels != j, i]) for i, j in enumerate(classes)))
    ev.record(**{f"k={k}: split-invariant init: P_split (exact lower bound of R)": P_split,
                 f"k={k}: feasible merged network cost (upper bound of P*)": upper,
                 f"k={k}: split-invariant init: R/P_split after GD to q_min = 10":
                     normalised_cost(X, yk, W1[0], w2[0]) / P_split,
                 f"k={k}: split-invariant init: every neuron stayed on its class along GD": stayed})
    ev.le(f"k={k}: lower bound of R along the flow from the split-invariant initialisation <= an upper bound of P*_k "
          "(needed to reach the global optimum)", P_split, upper, rtol=1e-9, independent=True, room=None)


def _thm2(fx):
    ev = Evidence()
    X, Y = fx["X"], fx["Y"]
    if not (is_multiclass_orthogonally_separable(X, fx["labels"])[0] and _one_vs_rest_os(fx)[0]):
        return ev   # hypotheses unmet (vacuous): skip the training runs
    seeds = 6 if fx.profile == "quick" else 30
    mutated = fx.mutated(R4)
    per_k = []
    for k in range(fx["K"]):
        if not mutated:
            _split_certificate(ev, fx, k)
        runs = train_and_classify(X, Y[:, k], seeds=seeds, m=6, r0=1e-4, seed=(fx.seed, k), mutated=mutated)
        _show_runs(ev, runs, reference_optimum(X, Y[:, k])[0], f"k={k}: ")
        per_k.append(runs)
    outcomes = []
    for b in range(seeds):
        if fx.amended and not all(per_k[k][b]["types"] for k in range(fx["K"])):
            continue
        o = [per_k[k][b]["outcome"] for k in range(fx["K"])]
        outcomes.append(GLOBAL if all(x == GLOBAL for x in o) else
                        next((x for x in o if x in (NONGLOBAL, NEVER)), UNDECIDED))
    ev.forall("runs meeting H_types for every output" if fx.amended else "runs (every initialisation)",
              [True] * len(outcomes), relation="true")
    if outcomes:
        _judge(ev, outcomes, "runs reaching the global optimum of (7) for every output"
               + (" (given H_types)" if fx.amended else "") + (f" [{fx.mutation}]" if mutated else ""))
    return ev


@claim("wang2022.thm2", kind="theorem", title="Theorem 2 (multi-class orthogonal separability)",
       fidelity="proxy",
       fidelity_note="gradient flow by normalised GD (eta_k = 0.02 / L_k) per output, its limit by a certified "
                     "classification at q_min = 80, r0 = 1e-4; the refutation itself is the exact "
                     "split-invariant certificate on MC3",
       no_room="a probability (Clopper-Pearson over seeds) of a yes/no event",
       statement=r"If $(X,y)$ is orthogonally separable among multiple classes, the sub-gradient flow on (4) from a small "
                 r"scaled initialisation converges to the global optimum of (7) (hence of (5)), up to scaling.",
       uses=["wang2022.thm4", "wang2022.prop1", "wang2022.thm1"],
       hypotheses=[orthogonally_separable_multiclass, one_vs_rest_os],
       erratum=erratum(
           independence="closed form",
           amended_uses=["wang2022.thm4.amended", "wang2022.prop1", "wang2022.thm1.amended"],
           kind="false statement",
           location="Sec. 2.1, Theorem 2 (p. 4); proof App. E.3",
           printed="Suppose that (X, y) in R^{N x d} x [K]^N is orthogonal separable among multiple classes. ... Suppose "
                   "that the initialization is sufficiently close to the origin and scaled as in Theorem 1. Then, the "
                   "non-convex subgradient flow converges to the global optimum of the convex program (7) and hence the "
                   "non-convex objective (5) up to scaling.",
           reading="the K outputs are separate sub-networks trained on the one-vs-rest labels y_k (Sec. 2: F = [f_1, ..., "
                   "f_K], theta_k disjoint), as the proof E.3 does by applying Theorem 4 to each y_k; every small scaled "
                   "initialisation is covered (no 'almost all' in this statement)",
           second_method="exact, no integration: on MC3 (X = I_3 - 0.1 11^T, three classes) the split-invariant "
                         "initialisation (one sign-matched neuron per class, an open set) keeps every neuron on its class "
                         "(cross products -0.17 <= 0), so R >= P_split = 3.2929 along the whole flow by weak duality, "
                         "while an explicit merged network costs 2.8384 = P*. Both values in closed form, independent of "
                         "the QP and SOCP solvers the check uses: ||x_n||^2 = 0.83, x_2^T x_3 = -0.17, so P_split = "
                         "3 / sqrt(0.83) = 3.2929 and the merged cost 1 / sqrt(0.83) + sqrt(1.32) / 0.66 = 2.8384; "
                         "random seeds converge to the split KKT point (restricted program certified non-global: "
                         "V(lambda_S) = 1.2611 > 1, and wang2022.thm3's flow endpoint from the split init has the same "
                         "V from the flow's own multipliers)",
           summary="for K >= 3 the one-vs-rest problems are not binary orthogonally separable, so Theorem 4 does not "
                   "apply; MC3 converges to the split KKT point (3.2929 vs P* = 2.8384) from an open set of "
                   "initialisations (and, as for Theorem 4, an output whose w_2 share one sign never separates)",
           amended=r"Theorem 2 when every one-vs-rest problem $y_k$ is binary orthogonally separable (automatic for "
                   r"$K=2$) and each output has sign-matched neurons of both signs at $t=0$ (H_types).",
           difference="adds: every one-vs-rest problem binary orthogonally separable, and H_types per output"),
       fixtures=[random(MC3, expect={"vacuous"}), random(mc_simplex, K=2, n_k=4, extra_dims=1),
                 random(mc_simplex, K=3, n_k=3, profiles=("standard", "thorough"), expect={"pass", "vacuous"}),
                 random(mc_simplex, K=2, n_k=6, extra_dims=2, profiles=("standard", "thorough")),
                 adversarial(mc_simplex, K=2, n_k=6, theta_deg=44.0, extra_dims=1), adversarial(mc_near_boundary),
                 negative(mc_simplex, K=3, n_k=3, theta_deg=60.0),
                 negative(mc_simplex, K=2, n_k=4, extra_dims=1, mutation=R4)],
       judged_by="per output: the exact split-invariant certificate, then GD as wang2022.thm4 (m = 6 per output) with "
                 "each run classified, P*_k from the complete-pattern SOCP; a run succeeds when every output is "
                 "certified global, fails when one is certified non-global or never separates; Clopper-Pearson over "
                 "6 (quick) / 30 runs, claimed probability 1. Class: K = 2 (one-vs-rest = binary OS) and K = 3 (MC3, "
                 "simplex), half-angle 44 deg (same-class cosines near 0) and os.near_boundary as K = 2")
def thm2(fx):
    return _thm2(fx)


# ---------------------------------------------------------------------------------------------
# Theorem 4 along r0 -> 0

R0_SERIES = (1.0, 1e-1, 1e-2, 1e-3, 1e-4)
ANY_SCALE = "'sufficiently close to zero' dropped: the tolerance at every scale up to r0 = 3"


@claim("wang2022.thm4.r0_series", kind="claim", title="Theorem 4 along r0 -> 0 (small initialisation)",
       cannot_fail="on orthogonally separable data with H_types the limit is global (Theorem 4 amended), so the "
                   "series converges; a non-OS probe would leave the claim's setting without testing the r0 "
                   "trend; the control without 'sufficiently close to zero' (tolerance at every r0 up to 3) is "
                   "refuted",
       fidelity="proxy",
       fidelity_note="gradient flow by normalised GD (eta_k = 0.02 / L_k); the limit by the normalised cost R/P*"
                     " - 1 at q_min = 80, 'r0 small enough' by the series r0 = 1 ... 1e-4",
       no_room="a limit along r0 judged as a trend, and a probability",
       statement=r"For orthogonally separable data and the initialisations of wang2022.thm4.amended, the limit is a "
                 r"global max-margin direction once $r_0$ is small enough: along $r_0 = 1, 10^{-1}, \dots, 10^{-4}$ the "
                 r"worst normalised cost $R/P^* - 1$ at $q_{\min} = 80$ comes within tolerance without growing, and "
                 r"every decided run at the smallest $r_0$ is certified global.",
       derived="the clause 'sufficiently close to zero' of Theorem 4 (amended: given H_types) read as the limit r0 -> 0 "
               "of the training outcome at a fixed horizon q_min = 80",
       uses=["wang2022.thm4"], hypotheses=[orthogonally_separable],
       fixtures=[random(os_cones),
                 random(os_cones, d=4, Np=5, Nn=5, profiles=("standard", "thorough")),
                 adversarial(shared_os_near_boundary),
                 negative(os_cones, mutation=ANY_SCALE)],
       judged_by="10 seeds per scale (m = 10, eta = 0.02 / L), H_types runs only; judge_trend on the worst R/P* - 1 "
                 "(tolerance 3e-2, jitter floor 3e-3) along 1/r0, and Clopper-Pearson at r0 = 1e-4 over the decided runs")
def thm4_r0_series(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    if not is_orthogonally_separable(X, y)[0]:
        return ev
    P = reference_optimum(X, y)[0]
    scales = ((3.0,) if fx.mutated(ANY_SCALE) else ()) + R0_SERIES
    worst, outcomes = [], []
    for r0 in scales:
        runs = [r for r in train_and_classify(X, y, seeds=10, m=10, r0=r0, seed=(fx.seed, 3)) if r["types"]]
        worst.append(max((float(r["R_err"][-1]) for r in runs), default=np.inf))
        outcomes.append([r["outcome"] for r in runs])
        ev.show(**{f"r0={r0:g}: {o}": sum(x == o for x in outcomes[-1]) for o in (GLOBAL, NONGLOBAL, NEVER, UNDECIDED)})
    ev.record(P_star=P, r0=scales, worst_R_over_P_minus_1=worst)
    if fx.mutated(ANY_SCALE):
        ev.forall(f"worst R/P* - 1 <= {R_TOL:g} at every scale r0 <= 3 [{ANY_SCALE}]", worst, R_TOL, relation="<=",
                  rtol=0.0, room=None)
        return ev
    judge_trend("worst R/P* - 1 at q_min = 80 along r0 -> 0", [1 / r for r in scales], worst, R_TOL, floor=R_TOL / 10,
                scale_label="1/r0", evidence=ev)
    _judge(ev, outcomes[-1], f"runs certified global at r0 = {scales[-1]:g} (given H_types)")
    return ev


# Amended statements whose marks differ from their printed claim's (erratum(amended=) copies them).
declare_amended("wang2022.thm2.amended",
                cannot_fail="with one-vs-rest OS and H_types every run is certified global; the non-OS and H_types-breaking "
                            "seeds are what refute the printed Theorem 2; the class-sum control is refuted")
declare_amended("wang2022.thm4.amended",
                cannot_fail="with OS data and H_types every run is certified global; the MC3_binary probe leaves the amended "
                            "setting but its seeds are undecided (not separated by the horizon); the class-sum control is "
                            "refuted")
