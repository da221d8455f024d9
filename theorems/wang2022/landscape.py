"""App. D.5-D.6 of Wang & Pilanci (2022): local maximisers of lambda^T (Xu)_+ on the unit ball and their
activation patterns (Lemmas 4, 8, 9, Proposition 7)."""

from __future__ import annotations

import numpy as np

from fixtures.orthogonal import boundary as shared_os_boundary
from fixtures.orthogonal import near_boundary as shared_os_near_boundary
from fixtures.wang2022 import OBTUSE_SAME, SLIDE, gen_gauss, os_boundary, os_cones
from verify import Evidence, adversarial, claim, negative, random

from ._hyp import orthogonally_separable, strictly_orthogonally_separable
from ._numerics import complete_patterns, sphere_flow

PERTURB_EPS = (1e-3, 1e-5)


def objective(X: np.ndarray, lam: np.ndarray, U: np.ndarray) -> np.ndarray:
    """F(u) = lambda^T (X u)_+ for the columns of U."""
    return lam @ np.maximum(X @ U, 0.0)


def is_local_max(X: np.ndarray, lam: np.ndarray, u: np.ndarray, rng: np.random.Generator,
                 n_dirs: int = 1000) -> tuple[bool, float]:
    """Perturbation test on the sphere: F(normalise(u + eps v)) <= F(u) + 1e-12 for random tangent v,
    eps in {1e-3, 1e-5}. Returns (passed, largest increase found)."""
    V = rng.normal(size=(len(u), n_dirs))
    V -= np.outer(u, u @ V)
    V /= np.linalg.norm(V, axis=0)
    f0 = float(objective(X, lam, u[:, None])[0])
    worst = -np.inf
    for eps in PERTURB_EPS:
        W = u[:, None] + eps * V
        W /= np.linalg.norm(W, axis=0)
        worst = max(worst, float(np.max(objective(X, lam, W) - f0)))
    return worst <= 1e-12 * max(1.0, abs(f0)), worst


def fixed_points(X: np.ndarray, lam: np.ndarray) -> list[np.ndarray]:
    """Self-consistent stationary directions u_D = X^T D lambda / ||.|| with D(u_D) = D (strict pattern),
    over the open-cell patterns D (spec §3 prop7, '<=' direction). Dead directions are excluded."""
    out = []
    for Dj in complete_patterns(X):
        g = X.T @ (Dj * lam)
        ng = np.linalg.norm(g)
        if ng < 1e-12:
            continue
        u = g / ng
        if np.array_equal((X @ u > 1e-12).astype(float), Dj) and np.any(X @ u > 1e-12):
            out.append(u)
    return out


def cos_g(X: np.ndarray, u: np.ndarray, lam: np.ndarray) -> float:
    """cos angle(u, g(u, lambda)), g(u, lambda) = X^T D(u) lambda (strict pattern)."""
    g = X.T @ ((X @ u > 1e-12) * lam)
    ng = np.linalg.norm(g)
    return float(u @ g / ng) if ng > 0 else np.nan


def ascent_maximisers(X: np.ndarray, lam: np.ndarray, rng: np.random.Generator, n_starts: int = 200) -> list:
    """Multistart projected sub-gradient ascent of F on the sphere (the idealised flow with s = +1), then
    snapped to the stationary direction of its pattern and kept only if certified a local maximiser."""
    U = rng.normal(size=(X.shape[1], n_starts))
    r = sphere_flow(X, lam, U, np.ones(n_starts), dt=1e-2, steps=2000)
    # refine with small steps so that chattering across a hyperplane shrinks to O(1e-4)
    r = sphere_flow(X, lam, r["U"], np.ones(n_starts), dt=1e-4, steps=300)
    tau = 1e-3 * float(np.max(np.linalg.norm(X, axis=1)))
    out = []
    for u in r["U"].T:
        z = X @ u
        if not np.any(z > 1e-9):
            continue  # dead direction: (Xu)_+ = 0
        g = X.T @ ((z > tau) * lam)
        cand = g / np.linalg.norm(g) if np.linalg.norm(g) > 0 else u
        for w in (cand, u):
            ok, _ = is_local_max(X, lam, w, rng, n_dirs=300)
            if ok and np.any(X @ w > 1e-12):
                out.append(w)
                break
    return out


@claim("wang2022.lem4", kind="lemma", title="Lemma 4 (local maximisers activate a whole class)",
       statement=r"For orthogonally separable data: a local maximiser $w\in B$ of $y^\top(Xw)_+$ with $(Xw)_+\ne0$ has "
                 r"$\langle w, x_n\rangle > 0$ for all $n$ with $y_n=1$; a local minimiser, for all $n$ with $y_n=-1$.",
       hypotheses=[orthogonally_separable],
       fixtures=[random(os_cones), random(os_cones, d=4, Np=5, Nn=7), adversarial(os_boundary, d=3),
                 adversarial(os_cones, theta_deg=44.5), negative(OBTUSE_SAME),
                 negative(os_cones, mutation="local maximisers activate the negatives")],
       judged_by="200-start projected ascent / descent, snapped and certified by a 300-direction perturbation test; "
                 "min over the class of x_n^T u > 1e-9; also u = class sum / norm (spec R4) within 1e-8")
def lem4(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    for s, name in ((1.0, "maximiser"), (-1.0, "minimiser")):
        found = ascent_maximisers(X, s * y, fx.rng, n_starts=60 if fx.profile == "quick" else 200)
        cls = -s if fx.mutated() else s
        if not found:
            ev.inconclusive(f"no certified local {name} found")
            continue
        worst = min(float(np.min(X[y == cls] @ u)) for u in found)
        ev.ge(f"min over certified local {name}s of min_(y_n = {cls:+.0f}) x_n^T u", worst, 1e-9, rtol=0.0)
        target = X[y == s].sum(axis=0)
        target /= np.linalg.norm(target)
        if not fx.mutated():
            ev.ge(f"local {name}s equal the class-sum direction (R4): min cos", min(float(u @ target) for u in found),
                  1.0, atol=1e-8, rtol=0.0)
        ev.record(**{f"certified local {name}s": len(found)})
    return ev


@claim("wang2022.prop7", kind="proposition", title="Proposition 7 (local maximisers <=> cos = 1)",
       statement=r"For orthogonally separable data, $u\in B$ (non-dead) is a local maximiser of $y^\top(Xu)_+$ iff "
                 r"$\cos\angle(u, g(u,y)) = 1$, and a local minimiser iff $\cos\angle(u, g(u,y)) = -1$.",
       uses=["wang2022.lem8", "wang2022.lem9"], hypotheses=[orthogonally_separable],
       fixtures=[random(os_cones), random(os_cones, d=4, Np=4, Nn=6), adversarial(os_boundary, d=2),
                 adversarial(os_boundary, d=3), adversarial(shared_os_boundary),
                 adversarial(shared_os_near_boundary), negative(SLIDE),
                 negative(os_cones, mutation="minimisers tested as maximisers")],
       judged_by="'<=': every self-consistent stationary direction over all patterns passes the perturbation test; "
                 "'=>': every certified local extremum from 200-start ascent has cos = +-1 (1e-9)")
def prop7(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    for s, name in ((1.0, "max"), (-1.0, "min")):
        lam = s * y
        fps = fixed_points(X, lam)
        test_lam = -lam if fx.mutated() else lam
        results = [is_local_max(X, test_lam, u, fx.rng) for u in fps]
        ev.true(f"'<=': all {len(fps)} stationary directions with cos = {s:+.0f} are local {name}ima",
                bool(fps) and all(r[0] for r in results),
                detail=f"largest increase {max((r[1] for r in results), default=np.nan):.3e}")
        found = ascent_maximisers(X, lam, fx.rng, n_starts=60 if fx.profile == "quick" else 200)
        if found:
            ev.ge(f"'=>': min cos(u, g(u, {s:+.0f} y)) over certified local {name}ima",
                  min(cos_g(X, u, lam) for u in found), 1.0, atol=1e-9, rtol=0.0)
    return ev


@claim("wang2022.lem8", kind="lemma", title="Lemma 8 (sufficient condition for a local maximiser)",
       statement=r"If $u_0 = g(u_0,\lambda)/\|g(u_0,\lambda)\|$, $\sigma = \mathrm{sign}(Xu_0)$ and "
                 r"$\|g(\sigma',\lambda)\| \le \|g(\sigma,\lambda)\|$ for every open $\sigma'$ containing $\sigma$ (printed with "
                 r"'=' and $y$; the proof uses this form), then $u_0$ is a local maximiser of $\lambda^\top(Xu)_+$ on $B_2$.",
       fixtures=[random(gen_gauss, N=8, d=3), random(os_cones), adversarial(os_boundary, d=3),
                 negative(gen_gauss, N=8, d=3, mutation="stationary points of -lambda tested as maximisers")],
       judged_by="stationary directions over all patterns for 10 random lambda; realisable sigma' by 2000 perturbations "
                 "(eps = 1e-6); local maximality by the perturbation test")
def lem8(fx):
    ev = Evidence()
    X = fx["X"]
    n_cond, n_fail, worst = 0, 0, -np.inf
    for _ in range(10):
        lam = fx.rng.normal(size=X.shape[0])
        for u in fixed_points(X, lam):
            if not _condition_le(X, lam, u, fx.rng):
                continue
            n_cond += 1
            ok, inc = is_local_max(X, -lam if fx.mutated() else lam, -u if fx.mutated() else u, fx.rng, n_dirs=300)
            worst = max(worst, inc)
            n_fail += not ok
    ev.true(f"all {n_cond} stationary points meeting the condition are local maximisers", n_cond > 0 and n_fail == 0,
            detail=f"{n_fail} failures, largest increase {worst:.3e}")
    return ev


def _adjacent_patterns(X: np.ndarray, u: np.ndarray, rng: np.random.Generator, n: int = 2000) -> np.ndarray:
    """Open sign patterns sigma' realised arbitrarily close to u (they all contain sign(Xu))."""
    V = rng.normal(size=(len(u), n))
    W = u[:, None] + 1e-6 * V / np.linalg.norm(V, axis=0)
    return np.unique(np.sign(X @ W).T, axis=0)


def _g_sigma(X: np.ndarray, sigma: np.ndarray, lam: np.ndarray) -> np.ndarray:
    return X.T @ ((sigma > 0) * lam)


def _condition_le(X, lam, u, rng):
    sig = np.sign(np.where(np.abs(X @ u) < 1e-12, 0.0, X @ u))
    base = np.linalg.norm(_g_sigma(X, sig, lam))
    return all(np.linalg.norm(_g_sigma(X, sp, lam)) <= base + 1e-12 for sp in _adjacent_patterns(X, u, rng))


def _lem9(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    worst, cert, n_fp = 0.0, None, 0
    for k in range(10):
        lam = y * (np.ones(len(y)) if k == 0 else fx.rng.exponential(size=len(y)))
        for u in fixed_points(X, lam):
            n_fp += 1
            sig = np.sign(np.where(np.abs(X @ u) < 1e-12, 0.0, X @ u))
            base = np.linalg.norm(_g_sigma(X, sig, lam))
            for sp in _adjacent_patterns(X, u, fx.rng):
                err = abs(np.linalg.norm(_g_sigma(X, sp, lam)) - base) / base
                if err > worst:
                    worst, cert = err, {"u0": u, "lambda": lam, "sigma": sig, "sigma_prime": sp}
    ev.le(f"max relative | ||g(sigma', lambda)|| - ||g(sigma, lambda)|| | over {n_fp} stationary points", worst, 0.0,
          atol=1e-10)
    if cert is not None and worst > 1e-10:
        ev.certify(counterexample=cert)
    return ev


@claim("wang2022.lem9", kind="lemma", title="Lemma 9 (orthogonal separability: g-norm constant on adjacent patterns)",
       statement=r"For orthogonally separable data, $Y\lambda\ge0$ and $u_0 = g(u_0,\lambda)/\|g(u_0,\lambda)\|$: for every "
                 r"$\sigma'$ containing $\sigma = \mathrm{sign}(Xu_0)$, $\|g(\sigma',\lambda)\| = \|g(\sigma,\lambda)\|$.",
       hypotheses=[orthogonally_separable], expected="refuted",
       expected_reason="false when a cross-class product is exactly 0 (allowed by '<= 0'): X = I_2, y = (1,-1), "
                       "u0 = e_1, sigma' = (1,1) gives sqrt(2) times the norm (spec E5)",
       fixtures=[random(os_boundary, d=2), random(os_cones), adversarial(os_boundary, d=3),
                 adversarial(shared_os_boundary), negative(SLIDE)],
       judged_by="stationary points over all patterns for 10 multipliers lambda = y o Exp(1); adjacent sigma' by sampling")
def lem9(fx):
    return _lem9(fx)


@claim("wang2022.lem9.amended", kind="lemma", title="Lemma 9 (amended: strict orthogonal separability)",
       amends="wang2022.lem9",
       statement=r"Lemma 9 holds when all cross-class products are strictly negative (then $\sigma$ has no zero entries "
                 r"and $\sigma' = \sigma$); Proposition 7 does not need Lemma 9 at the boundary.",
       hypotheses=[strictly_orthogonally_separable],
       fixtures=[random(os_cones), random(os_cones, d=4), adversarial(os_cones, theta_deg=44.5),
                 negative(os_boundary, d=2)],
       judged_by="as wang2022.lem9")
def lem9_amended(fx):
    return _lem9(fx)
