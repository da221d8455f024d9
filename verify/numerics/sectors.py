"""Sectors of a two-layer ReLU layer and the extremal directions of the early-phase potential G.

For data rows ``x_i`` (``X`` of shape (n, d)) and per-example weights ``c_i`` (for a loss, ``c_i = -l_i'(0)``;
cross-entropy gives ``c_i = y_i / 2``), the early-phase potential of a neuron direction ``w`` is

    G(w) = sum_i c_i rho(w^T x_i)                    (Maennel et al. 2018; Phuong & Lampert 2021, eq. (12))

and its sector is the sign vector ``sign(X w)`` (a relatively open polyhedral cone). Extremal directions are
strict local maxima (positive) and minima (negative) of G on the unit sphere. This module computes G, the
projected "gradient" g, sector signs, the expansion radius of Lemma A.2-type identities, and enumerates
extremal directions exactly: in every dimension for open sectors (fixed points g_A = C w), and on the
circle (d = 2) for every direction including kinks.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np

__all__ = [
    "potential", "sector_of", "zero_set_projector", "projected_gradient", "expansion_radius",
    "class_sum_directions", "open_sector_fixed_points", "circle_extrema", "multistart_maxima", "sphere_samples",
    "sphere_objective",
]


def potential(X: np.ndarray, c: np.ndarray, W: np.ndarray) -> np.ndarray:
    """G(w) = sum_i c_i max(0, w^T x_i), for one ``w`` (shape (d,)) or a batch (shape (m, d)).

    Positively 1-homogeneous; restrict to unit ``w`` for the sphere version of eq. (12).
    """
    return np.maximum(np.asarray(W, float) @ X.T, 0.0) @ c


def sphere_objective(X: np.ndarray, c: np.ndarray, basis: np.ndarray | None = None) -> Callable[[np.ndarray], float]:
    """``z -> -G(v / ||v||)`` with ``v = z`` (or ``basis @ z``), as a float: what a derivative-free search for
    the maxima of G on the sphere minimises (``z`` a float vector).

    Bit for bit ``-float(potential(X, c, v / np.linalg.norm(v)))``: an optimiser calls it some 10^4 times, so
    the shapes are checked here once rather than in every call, ``X.T`` is bound once, and ``||v||`` is
    ``sqrt(v . v)``, which is what ``np.linalg.norm`` computes for a real vector (tests/test_numerics_sectors
    holds the two equal), without its dispatch. ``X`` is used as given (not converted), as ``potential`` uses it.
    """
    if np.ndim(X) != 2 or np.shape(c) != (np.shape(X)[0],):
        raise ValueError(f"X must be (n, d) and c (n,); got {np.shape(X)}, {np.shape(c)}")
    if basis is not None and (np.ndim(basis) != 2 or np.shape(basis)[0] != np.shape(X)[1]):
        raise ValueError(f"basis must be (d, k) with d = {np.shape(X)[1]}; got {np.shape(basis)}")
    XT = X.T
    if basis is None:
        def objective(z: np.ndarray) -> float:
            return -float(np.maximum((z / math.sqrt(z.dot(z))) @ XT, 0.0) @ c)
    else:
        def objective(z: np.ndarray) -> float:
            v = basis @ z       # once; the checked form computed it twice, to the same value
            return -float(np.maximum((v / math.sqrt(v.dot(v))) @ XT, 0.0) @ c)
    return objective


def sector_of(X: np.ndarray, w: np.ndarray, tol: float = 1e-12) -> np.ndarray:
    """The sector sign(X w) in {-1, 0, 1}^n with a relative zero test |w^T x_i| <= tol ||w|| ||x_i||.

    ``tol = 0`` gives the exact sign (use with integer-valued data).
    """
    z = X @ w
    thr = tol * np.linalg.norm(w) * np.linalg.norm(X, axis=1)
    return np.where(np.abs(z) <= thr, 0, np.sign(z)).astype(int)


def zero_set_projector(X: np.ndarray, w: np.ndarray, tol: float = 1e-12) -> np.ndarray:
    """P_w: the orthogonal projector onto span{x_i : w^T x_i = 0}^perp (tolerant zero test), eq. (31)."""
    d = X.shape[1]
    Z = X[sector_of(X, w, tol) == 0]
    if Z.shape[0] == 0:
        return np.eye(d)
    u, s, _ = np.linalg.svd(Z.T, full_matrices=False)
    rank = int(np.sum(s > 1e-12 * max(s.max(), 1e-300)))
    Q = u[:, :rank]
    return np.eye(d) - Q @ Q.T


def projected_gradient(X: np.ndarray, c: np.ndarray, w: np.ndarray, tol: float = 1e-12) -> np.ndarray:
    """g(w) = sum_i c_i 1{w^T x_i > 0} P_w x_i (Phuong & Lampert eq. (31)); constant on each sector,
    and G(w) = w^T g(w)."""
    active = sector_of(X, w, tol) > 0
    return zero_set_projector(X, w, tol) @ (X[active].T @ c[active])


def expansion_radius(X: np.ndarray, w: np.ndarray, v: np.ndarray) -> float:
    """eps_max = 1/2 inf{eps > 0 : some sign(w + eps v)^T x_i flips against sign(w^T x_i)} (eq. (40)).

    Equals 1/2 min{-w^T x_i / v^T x_i : (w^T x_i)(v^T x_i) < 0}; +inf when no sign ever flips.
    """
    a, b = X @ w, X @ v
    flip = a * b < 0
    if not flip.any():
        return float("inf")
    return 0.5 * float(np.min(-a[flip] / b[flip]))


def class_sum_directions(X: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(s_+/||s_+||, s_-/||s_-||) with s_+ = sum_{c_i>0} c_i x_i and s_- = sum_{c_i<0} |c_i| x_i.

    For orthogonally separable data these are the unique global maximiser and minimiser of G on the
    sphere, with G = ||s_+|| and -||s_-|| there. A zero class sum gives the zero vector.
    """
    pos, neg = c > 0, c < 0
    s_pos = X[pos].T @ c[pos]
    s_neg = X[neg].T @ (-c[neg])
    return _unit(s_pos), _unit(s_neg)


def _unit(v: np.ndarray) -> np.ndarray:
    """v/||v||, or the zero vector when v = 0 (no direction)."""
    n = np.linalg.norm(v)
    return v / n if n > 0 else np.zeros_like(v)


def open_sector_fixed_points(X: np.ndarray, c: np.ndarray, tol: float = 1e-12) -> list[dict]:
    """All strict local extrema of G lying in open sectors, by enumerating active sets (n <= 20).

    Inside an open sector with active set A, G(w) = g_A^T w with g_A = sum_{i in A} c_i x_i, so the
    only critical point on the sphere is w = +-g_A/||g_A||; it is a strict local max (min) iff it
    lies in that open sector: {i : g_A^T x_i > 0} = A and no g_A^T x_i = 0 (resp. for -g_A).
    Returns dicts {"direction", "kind" ("max"/"min"), "value", "active"}.
    """
    n = X.shape[0]
    if n > 20:
        raise ValueError(f"open_sector_fixed_points enumerates 2^n active sets; n = {n} > 20")
    masks = np.array(list(itertools.product([0, 1], repeat=n)), dtype=float)[1:]
    gA = masks @ (c[:, None] * X)
    norms = np.linalg.norm(gA, axis=1)
    out = []
    scale = np.linalg.norm(X, axis=1)
    for sign, kind in ((1.0, "max"), (-1.0, "min")):
        proj = sign * gA @ X.T
        thr = tol * norms[:, None] * scale[None, :]
        clean = np.all(np.abs(proj) > thr, axis=1) & (norms > 0)
        match = np.all((proj > 0) == (masks > 0), axis=1) & clean
        for k in np.flatnonzero(match):
            w = sign * gA[k] / norms[k]
            out.append({"direction": w, "kind": kind, "value": float(potential(X, c, w)),
                        "active": np.flatnonzero(masks[k] > 0)})
    return out


def circle_extrema(X: np.ndarray, c: np.ndarray, tol: float = 1e-12) -> list[dict]:
    """Every strict local extremum of G on the unit circle (d = 2), exactly, kinks included.

    Breakpoints are the angles angle(x_i) +- 90 degrees. On each open arc with active set A,
    G(phi) = s_A^T u(phi), u(phi) = (cos phi, sin phi): interior extrema are at angle(+-s_A) when inside
    the arc. At a breakpoint the one-sided derivatives are s_L^T u'(phi) (left arc) and s_R^T u'(phi)
    (right arc); a strict max needs G increasing into it from the left and decreasing after it (first
    order, or second order when a one-sided derivative vanishes: G_side(phi) > 0). Returns dicts
    {"angle", "direction", "kind", "value"}.
    """
    if X.shape[1] != 2:
        raise ValueError("circle_extrema needs d = 2")
    ang = np.arctan2(X[:, 1], X[:, 0])
    br = np.sort(np.mod(np.concatenate([ang + np.pi / 2, ang - np.pi / 2]), 2 * np.pi))
    br = br[np.concatenate([[True], np.diff(br) > 1e-15])]
    m = br.size
    arcs = [(br[k], br[k + 1] if k + 1 < m else br[0] + 2 * np.pi) for k in range(m)]

    def u(phi):
        return np.array([np.cos(phi), np.sin(phi)])

    def du(phi):
        return np.array([-np.sin(phi), np.cos(phi)])

    s_arc = []
    for lo, hi in arcs:
        mid = 0.5 * (lo + hi)
        act = X @ u(mid) > 0
        s_arc.append(X[act].T @ c[act])
    out = []
    scale = float(np.sum(np.abs(c) * np.linalg.norm(X, axis=1)))
    for (lo, hi), s in zip(arcs, s_arc):
        ns = np.linalg.norm(s)
        if ns <= tol * scale:
            continue
        for sign, kind in ((1.0, "max"), (-1.0, "min")):
            phi = np.mod(np.arctan2(sign * s[1], sign * s[0]) - lo, 2 * np.pi) + lo
            if lo + 1e-13 < phi < hi - 1e-13:
                w = u(phi)
                out.append({"angle": float(np.mod(phi, 2 * np.pi)), "direction": w, "kind": kind,
                            "value": float(potential(X, c, w))})
    for k in range(m):
        phi = arcs[k][0]
        sL, sR = s_arc[k - 1], s_arc[k]
        dl, dr = float(sL @ du(phi)), float(sR @ du(phi))
        gl, gr = float(sL @ u(phi)), float(sR @ u(phi))
        eps = tol * scale
        up_left = _approaches_from_below(dl, gl, eps)       # G increases into phi from the left
        down_right = _approaches_from_below(-dr, gr, eps)   # G decreases out of phi to the right
        down_left = _approaches_from_below(-dl, -gl, eps)
        up_right = _approaches_from_below(dr, -gr, eps)
        for ok, kind in ((up_left and down_right, "max"), (down_left and up_right, "min")):
            if ok:
                w = u(phi)
                out.append({"angle": float(np.mod(phi, 2 * np.pi)), "direction": w, "kind": kind,
                            "value": float(potential(X, c, w))})
    return out


def multistart_maxima(X: np.ndarray, c: np.ndarray, rng: np.random.Generator, starts: int = 500,
                      steps: int = 400, snaps: int = 30, cluster: float = 1e-6) -> list[dict]:
    """Local maxima of G on the sphere reached by projected subgradient ascent from random starts (any n, d).

    w <- normalise(w + eta (I - w w^T) g(w)), g(w) = sum_i c_i 1{w^T x_i > 0} x_i, eta = 0.05/sum|c_i|||x_i||
    (each step turns w by at most ~0.05 rad), all starts at once, then ``snaps`` fixed-point steps
    w <- g(w)/||g(w)|| (exact inside a sector whose critical point lies in it). A run ends at a fixed point
    w = g/||g|| of its sector (the open-sector critical point, Lemma A.1) or on a plateau g = 0 (G = 0, not
    strict: discarded). End points are clustered (angle < ``cluster``). Approximate: it finds the maxima whose
    basins the starts hit, so use it as a search, not a certificate. Returns dicts {"direction", "value",
    "hits"} for converged clusters.
    """
    d = X.shape[1]
    W = sphere_samples(rng, starts, d)
    eta = 0.05 / float(np.sum(np.abs(c) * np.linalg.norm(X, axis=1)))
    for _ in range(steps):
        g = ((W @ X.T) > 0) * c[None, :] @ X
        tang = g - np.sum(g * W, axis=1, keepdims=True) * W
        W = W + eta * tang
        W /= np.linalg.norm(W, axis=1, keepdims=True)
    for _ in range(snaps):
        g = ((W @ X.T) > 0) * c[None, :] @ X
        gn = np.linalg.norm(g, axis=1, keepdims=True)
        W = np.where(gn > 0, g / np.maximum(gn, 1e-300), W)
    g = ((W @ X.T) > 0) * c[None, :] @ X
    gn = np.linalg.norm(g, axis=1)
    keep = gn > 0
    ends = np.where(keep[:, None], g / np.maximum(gn, 1e-300)[:, None], 0.0)
    ok = keep & (np.sum(ends * W, axis=1) > 1 - 1e-9)          # converged to its sector's fixed point
    out: list[dict] = []
    for w in ends[ok]:
        for e in out:
            if np.arccos(min(1.0, float(e["direction"] @ w))) < cluster:
                e["hits"] += 1
                break
        else:
            out.append({"direction": w, "value": float(potential(X, c, w)), "hits": 1})
    return out


def _approaches_from_below(slope: float, value: float, eps: float) -> bool:
    """One side of a kink lies below G(phi): positive one-sided slope (oriented toward phi), or zero
    slope with the cosine piece at its maximum there (value > 0 means curvature -value < 0)."""
    return slope > eps or (abs(slope) <= eps and value > eps)


def sphere_samples(rng: np.random.Generator, m: int, d: int) -> np.ndarray:
    """m uniform random unit vectors in R^d (rows)."""
    v = rng.standard_normal((m, d))
    return v / np.linalg.norm(v, axis=1, keepdims=True)
