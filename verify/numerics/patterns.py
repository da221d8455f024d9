"""Activation patterns of a ReLU layer: the hyperplane arrangement {x_n^T u = 0} and data predicates.

Conventions (rows are data points: ``X`` is ``(n, d)``; the papers use columns)
-------------------------------------------------------------------------------
* A pattern is the 0/1 vector ``1[X u >= 0]`` (Wang & Pilanci (6), D_i = diag(1[X u_i >= 0])), stored as one
  row of ``PatternSet.D`` (shape ``(p, n)``, ``int8``).
* ``enumerate_patterns`` returns the patterns of the **open cells** of the arrangement: every ``u`` in an open
  cell has ``x_n^T u != 0`` for every nonzero row, so ties cannot occur and ``1[X u >= 0] = 1[X u > 0]`` there.
  Zero rows (``x_n = 0``) have ``x_n^T u = 0`` for every ``u`` and get 1 (the ``>=`` convention).
* Not included: face patterns and the pattern of ``u = 0`` (``D = I``), which Wang & Pilanci's set P contains
  through the ``>=`` convention. For rows in general position every face pattern except possibly ``I``
  equals an open-cell pattern; extra cones are redundant in the convex program (14) (wang2022 spec §1.5).
  Add ``np.ones(n)`` yourself (``PatternSet.with_patterns``) when a statement needs ``I`` in P.
* ``witnesses[k]`` is a direction ``u`` strictly inside the open cell of pattern ``k``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "PatternSet",
    "cover_count",
    "enumerate_patterns",
    "facet_mask",
    "is_multiclass_orthogonally_separable",
    "is_orthogonally_separable",
    "is_spike_free",
    "pattern_of",
    "sample_patterns",
]

_ZERO_TOL = 1e-10  # |x_n^T v| <= tol (unit rows, unit v) counts as "v lies on hyperplane n"


@dataclass(frozen=True, eq=False)
class PatternSet:
    """Distinct activation patterns of ``X``.

    Attributes
    ----------
    D : (p, n) int8 array of 0/1 patterns ``1[X u >= 0]``, rows lexicographically sorted.
    complete : True when ``D`` holds every open-cell pattern (exact enumeration).
    method : how the patterns were found ("exact-rays", "sampled", ...).
    witnesses : (p, d) array, ``witnesses[k]`` strictly inside the cell of ``D[k]`` (None if unknown).
    degenerate : True when the rows are not in general position (zero rows, parallel rows, more than
        d - 1 hyperplanes through a ray, or rank(X) < d).
    rank : rank of ``X``.
    """

    D: np.ndarray
    complete: bool
    method: str
    witnesses: np.ndarray | None = None
    degenerate: bool = False
    rank: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def p(self) -> int:
        """Number of patterns."""
        return int(self.D.shape[0])

    def __len__(self) -> int:
        return self.p

    def with_patterns(self, extra: np.ndarray) -> PatternSet:
        """Return a new set with the 0/1 rows of ``extra`` added (duplicates dropped; witnesses dropped)."""
        extra = np.atleast_2d(np.asarray(extra)).astype(np.int8)
        D = np.unique(np.vstack([self.D, extra]), axis=0)
        return PatternSet(D=D, complete=self.complete, method=self.method + "+extra", witnesses=None,
                          degenerate=self.degenerate, rank=self.rank, notes=self.notes)


def cover_count(n: int, d: int) -> int:
    """Number of open cells of a central arrangement of ``n`` hyperplanes in general position in R^d.

    ``C(n, d) = 2 * sum_{k=0}^{d-1} binom(n - 1, k)`` (Cover 1965). It is also an upper bound for any
    central arrangement of ``n`` hyperplanes of rank ``d``.
    """
    if n < 0 or d < 0:
        raise ValueError(f"cover_count needs n, d >= 0, got n={n}, d={d}")
    if n == 0 or d == 0:
        return 1
    return 2 * sum(math.comb(n - 1, k) for k in range(d))


def pattern_of(X: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``1[X u >= 0]`` as int8; ``u`` may be ``(d,)`` or a stack ``(m, d)`` (then returns ``(m, n)``)."""
    X = np.asarray(X, dtype=np.float64)
    u = np.asarray(u, dtype=np.float64)
    return (u @ X.T >= 0).astype(np.int8)


def _check_X(X: np.ndarray) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-d (n, d) array, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X has non-finite entries")
    return X


def _row_basis(A: np.ndarray, tol: float = 1e-10) -> np.ndarray:
    """Orthonormal basis (columns) of the row space of ``A``; shape (d, r)."""
    if A.shape[0] == 0:
        return np.zeros((A.shape[1], 0))
    _, s, Vt = np.linalg.svd(A, full_matrices=False)
    r = int(np.sum(s > tol * max(1.0, s[0] if s.size else 0.0)))
    return Vt[:r].T


def _unique_rows(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unique rows of a 0/1 or sign (-1/0/+1) int8 matrix and the index of the first occurrence of each.

    Rows are packed into uint64 words (bit planes of S > 0 and S < 0) and sorted as integers.
    """
    S = np.ascontiguousarray(S)
    m = S.shape[0]
    if m == 0:
        return S, np.zeros(0, dtype=np.intp)
    if S.shape[1] == 0:
        return S[:1], np.zeros(1, dtype=np.intp)
    planes = [S > 0] if S.min() >= 0 else [S > 0, S < 0]
    bits = np.packbits(np.concatenate(planes, axis=1), axis=1)
    pad = (-bits.shape[1]) % 8
    if pad:
        bits = np.concatenate([bits, np.zeros((m, pad), dtype=np.uint8)], axis=1)
    keys = np.ascontiguousarray(bits).view(np.uint64)  # (m, w)
    order = np.lexsort(keys.T[::-1]) if keys.shape[1] > 1 else np.argsort(keys[:, 0], kind="stable")
    ks = keys[order]
    new = np.ones(m, dtype=bool)
    new[1:] = np.any(ks[1:] != ks[:-1], axis=1)
    idx = np.sort(order[new])
    return S[idx], idx


def _bit_weights(n: int) -> np.ndarray:
    """uint64 weights 2^(n-1-i): integer order of the keys is the lexicographic order of the rows."""
    return np.left_shift(np.uint64(1), np.arange(n - 1, -1, -1, dtype=np.uint64))


def _lex_order(D: np.ndarray) -> np.ndarray:
    """Permutation sorting the 0/1 rows of D lexicographically."""
    if D.shape[1] <= 62:
        return np.argsort((D.astype(np.uint64) * _bit_weights(D.shape[1])).sum(axis=1), kind="stable")
    return np.lexsort(D.T[::-1])


def _null_directions(M: np.ndarray) -> np.ndarray:
    """Generalised cross products: for a stack (m, r-1, r), v_i = (-1)^i det(M without column i).

    v is orthogonal to the r - 1 rows and ||v|| is the (r-1)-volume they span (0 when dependent).
    """
    m, k, r = M.shape
    if r == 2:
        return np.stack([M[:, 0, 1], -M[:, 0, 0]], axis=1)
    if r == 3:
        return np.cross(M[:, 0], M[:, 1])
    cols = [np.delete(np.arange(r), i) for i in range(r)]
    return np.stack([(-1) ** i * np.linalg.det(M[:, :, cols[i]]) for i in range(r)], axis=1)


def _cells_essential(A: np.ndarray, flags: dict) -> tuple[np.ndarray, np.ndarray]:
    """Sign vectors (+1/-1, shape (p, n)) and witnesses (p, r) of the open cells of unit rows ``A`` (n, r).

    ``A`` has rank r (essential arrangement) and no zero rows. Every open cell of an essential central
    arrangement is a pointed cone, so its closure contains an extreme ray: the null direction of r - 1
    independent rows. Around a ray v the cells are fixed by sign(A v) off the hyperplanes through v and by
    the cells of the local arrangement of the rows through v (recursion in v^perp).
    """
    n, r = A.shape
    if r == 1:
        s = np.sign(A[:, 0]).astype(np.int8)
        return np.vstack([s, -s]), np.array([[1.0], [-1.0]])
    subsets = np.array(list(itertools.combinations(range(n), r - 1)), dtype=np.intp)
    rays = _null_directions(A[subsets])  # (m, r), zero rows where the subset is dependent
    independent = np.linalg.norm(rays, axis=1) > 1e-9
    rays = rays[independent] / np.linalg.norm(rays[independent], axis=1, keepdims=True)
    subsets = subsets[independent]
    rays = np.concatenate([rays, -rays])
    subsets = np.concatenate([subsets, subsets])
    prods = rays @ A.T  # (m', n)
    on = np.abs(prods) <= _ZERO_TOL
    signs = np.where(on, 0, np.sign(prods)).astype(np.int8)
    signs, first = _unique_rows(signs)
    rays, subsets, prods, on = rays[first], subsets[first], prods[first], on[first]

    out_signs: list[np.ndarray] = []
    out_wit: list[np.ndarray] = []
    n_on = on.sum(axis=1)
    generic = n_on == r - 1
    if np.any(~generic):
        flags["degenerate"] = True
    # Generic rays: exactly the r - 1 rows of the subset pass through v, they are independent,
    # so all 2^(r-1) sign choices on them are realised by u = v + eps * pinv(A_S) s.
    if np.any(generic):
        g_rays, g_sub, g_prods, g_signs = rays[generic], subsets[generic], prods[generic], signs[generic]
        combos = np.array(list(itertools.product((1, -1), repeat=r - 1)), dtype=np.int8)  # (c, r-1)
        c = combos.shape[0]
        m = g_rays.shape[0]
        if n <= 62:  # patterns as integers (row i -> bit n-1-i): dedupe without building (m, c, n)
            weights = _bit_weights(n)
            base = ((g_signs > 0).astype(np.uint64) * weights).sum(axis=1)
            keys = base[:, None] + (weights[g_sub][:, None, :] * (combos > 0).astype(np.uint64)[None]).sum(axis=2)
            keys = keys.ravel()
            _, idx = np.unique(keys, return_index=True)
            full = np.where((keys[idx][:, None] & weights[None, :]) != 0, 1, -1).astype(np.int8)
        else:
            full = np.repeat(g_signs[:, None, :], c, axis=1)  # (m, c, n)
            full[np.arange(m)[:, None, None], np.arange(c)[None, :, None], g_sub[:, None, :]] = combos[None]
            full, idx = _unique_rows(full.reshape(m * c, n))
        k, ci = np.divmod(idx, c)
        # witnesses only for the distinct patterns: pinv(A_S) s = A_S^T (A_S A_S^T)^{-1} s
        As = A[g_sub[k]]  # (q, r-1, r)
        coef = np.linalg.solve(As @ As.transpose(0, 2, 1), combos[ci].astype(np.float64)[..., None])
        dirs = np.einsum("qkr,qk->qr", As, coef[..., 0])
        delta = np.abs(dirs @ A.T)  # (q, n)
        off = ~on[generic][k]
        margin = np.where(off, np.abs(g_prods[k]), np.inf).min(axis=1)
        dmax = np.where(off, delta, 0.0).max(axis=1)
        eps = np.where(np.isfinite(margin), 0.5 * margin / np.maximum(dmax, 1e-300), 1.0)
        eps = np.minimum(eps, 1.0)
        out_signs.append(full)
        out_wit.append(g_rays[k] + eps[:, None] * dirs)
    # Degenerate rays: recurse on the local arrangement of the rows through v.
    for k in np.flatnonzero(~generic):
        v = rays[k]
        T = np.flatnonzero(on[k])
        B = np.linalg.svd(v[None, :], full_matrices=True)[2][1:].T  # (r, r-1) basis of v^perp
        local = A[T] @ B
        loc_signs, loc_wit = _cells_any(local, flags)  # witnesses in v^perp coordinates
        z = loc_wit @ B.T  # (q, r)
        off_mask = ~on[k]
        margin = np.abs(prods[k][off_mask]).min() if np.any(off_mask) else np.inf
        dz = np.abs(z @ A[off_mask].T).max(axis=1) if np.any(off_mask) else np.zeros(len(z))
        eps = np.where(np.isfinite(margin), 0.5 * margin / np.maximum(dz, 1e-300), 1.0)
        eps = np.minimum(eps, 1.0)
        full = np.repeat(signs[k][None, :], len(loc_signs), axis=0)
        full[:, T] = loc_signs
        out_signs.append(full)
        out_wit.append(v[None, :] + eps[:, None] * z)
    S = np.vstack(out_signs)
    W = np.vstack(out_wit)
    S, first = _unique_rows(S)
    return S, W[first]


def _cells_any(A: np.ndarray, flags: dict) -> tuple[np.ndarray, np.ndarray]:
    """Sign vectors (+1/-1/0 for zero rows) and witnesses (p, d) of the open cells of any ``A`` (n, d)."""
    n, d = A.shape
    norms = np.linalg.norm(A, axis=1)
    scale = norms.max() if n else 0.0
    zero = norms <= 1e-12 * max(scale, 1e-300) if n else np.zeros(0, dtype=bool)
    if np.any(zero):
        flags["degenerate"] = True
    nz = np.flatnonzero(~zero)
    if nz.size == 0:
        w = np.zeros((1, d))
        if d:
            w[0, 0] = 1.0
        return np.zeros((1, n), dtype=np.int8), w
    U = A[nz] / norms[nz, None]
    Q = _row_basis(U)
    r = Q.shape[1]
    if r < d:
        flags["degenerate"] = True
    S_nz, W_r = _cells_essential(U @ Q, flags)
    S = np.zeros((S_nz.shape[0], n), dtype=np.int8)
    S[:, nz] = S_nz
    W = W_r @ Q.T
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    return S, W


def enumerate_patterns(X: np.ndarray, *, max_patterns: int | None = None) -> PatternSet:
    """Exact enumeration of the open-cell activation patterns ``1[X u >= 0]`` (Wang & Pilanci (6); spec E2/E3).

    Method: every open cell of the (essential part of the) arrangement {x_n^T u = 0} has an extreme ray in
    its closure, the null direction v of rank(X) - 1 independent rows. In general position the cells around
    v are all sign choices on those rows (with sign(x_m^T v) elsewhere); at degenerate rays (more rows
    through v) the local arrangement is enumerated recursively in v^perp. Exact up to the tie tolerance
    |x_n^T v| <= 1e-10 on unit rows. Each pattern comes with a witness strictly inside its cell; the
    witnesses are re-checked (``1[X w >= 0]`` equals the pattern and no nonzero row has ``x_n^T w = 0``);
    ``complete`` is set from that re-check. One method for every d (for d = 2 the rays are the lines
    x_n^perp, i.e. the critical angles phi_n +- pi/2 of spec E1); cost C(n, rank - 1) * 2^(rank - 1)
    candidate sign vectors, vectorised (measured: (40, 3) and (30, 4) in well under 0.1 s unloaded).

    Parameters
    ----------
    X : (n, d) data, rows are points.
    max_patterns : refuse (ValueError) when the Cover bound ``cover_count(n, rank X)`` exceeds this.

    Returns
    -------
    PatternSet with ``complete=True``; ``degenerate`` flags repeated/parallel/zero rows or ties.
    """
    X = _check_X(X)
    n, d = X.shape
    rank = int(np.linalg.matrix_rank(X)) if n else 0
    bound = cover_count(n, rank)
    if max_patterns is not None and bound > max_patterns:
        raise ValueError(f"enumerate_patterns: up to {bound} patterns for n={n}, rank={rank} "
                         f"exceeds max_patterns={max_patterns}; use sample_patterns")
    flags: dict = {"degenerate": False}
    S, W = _cells_any(X, flags)
    D = (S >= 0).astype(np.int8)
    D, first = _unique_rows(D)
    W = W[first]
    order = _lex_order(D)
    D, W = D[order], W[order]
    prods = W @ X.T
    nonzero_row = np.linalg.norm(X, axis=1) > 0
    ok = np.array_equal(pattern_of(X, W), D) and bool(
        np.all(np.abs(prods[:, nonzero_row]) > 0))
    notes = () if ok else ("witness re-check failed: a witness lies on a hyperplane or outside its cell",)
    return PatternSet(D=D, complete=ok, method="exact-rays", witnesses=W,
                      degenerate=bool(flags["degenerate"]), rank=rank, notes=notes)


def facet_mask(X: np.ndarray, ps: PatternSet) -> np.ndarray:
    """(p, n) bool: ``mask[j, n]`` iff hyperplane x_n^perp carries a facet of the open cell of pattern j.

    The cone C_j = {u : (2 D_j - I) X u >= 0} is full-dimensional, so it is cut out by its facet rows alone
    (the other rows are redundant). Hyperplane H carries a facet of cell j iff the cell obtained by
    flipping the bits of all rows lying on H (parallel or antiparallel rows) is also a cell. Needs the
    complete set of open-cell patterns (``enumerate_patterns``); refuses anything else, since with a
    subset a missing neighbour would drop a necessary constraint. Zero rows never carry a facet.
    """
    X = _check_X(X)
    if not (ps.complete and ps.method == "exact-rays"):
        raise ValueError("facet_mask needs the complete open-cell pattern set from enumerate_patterns")
    n = X.shape[0]
    norms = np.linalg.norm(X, axis=1)
    nonzero = norms > 0
    Un = np.divide(X, norms[:, None], out=np.zeros_like(X), where=nonzero[:, None])
    same_plane = (np.abs(Un @ Un.T) >= 1 - 1e-12) & np.outer(nonzero, nonzero)
    _, group = np.unique(same_plane, axis=0, return_inverse=True)
    group = group.ravel()
    keys = {row.tobytes() for row in ps.D}
    mask = np.zeros(ps.D.shape, dtype=bool)
    for g in np.unique(group[nonzero]):
        rows = group == g
        flipped = ps.D.copy()
        flipped[:, rows] ^= 1
        mask[:, rows] = np.array([row.tobytes() in keys for row in flipped])[:, None]
    mask[:, ~nonzero] = False
    assert mask.shape == (ps.p, n)
    return mask


def sample_patterns(X: np.ndarray, n_samples: int, rng: np.random.Generator) -> PatternSet:
    """Patterns ``1[X u >= 0]`` of Gaussian gates ``u ~ N(0, I_d)`` (spec E4): a subset of P, ``complete=False``.

    A restricted convex program over a subset is an upper bound on the full one; dual feasibility over a
    subset is only a necessary condition.
    """
    X = _check_X(X)
    if n_samples < 1:
        raise ValueError(f"sample_patterns needs n_samples >= 1, got {n_samples}")
    n, d = X.shape
    U = rng.standard_normal((n_samples, d))
    D = pattern_of(X, U)
    D, first = _unique_rows(D)
    W = U[first]
    order = _lex_order(D)
    rank = int(np.linalg.matrix_rank(X)) if n else 0
    return PatternSet(D=D[order], complete=False, method=f"sampled({n_samples})", witnesses=W[order],
                      degenerate=False, rank=rank)


# ---------------------------------------------------------------------------------------------------------
# Data predicates
# ---------------------------------------------------------------------------------------------------------

def _cosines(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    G = X @ X.T
    norms = np.sqrt(np.maximum(np.diag(G), 0.0))
    denom = np.outer(norms, norms)
    C = np.divide(G, denom, out=np.zeros_like(G), where=denom > 0)
    return G, C


def _os_from_same(X: np.ndarray, same: np.ndarray) -> tuple[bool, float]:
    G, C = _cosines(X)
    kappa_same = float(C[same].min()) if np.any(same) else math.inf
    cross = ~same
    kappa_cross = float(-C[cross].max()) if np.any(cross) else math.inf
    ok = bool(np.all(G[same] > 0) and np.all(G[cross] <= 0))
    return ok, min(kappa_same, kappa_cross)


def is_orthogonally_separable(X: np.ndarray, y: np.ndarray) -> tuple[bool, float]:
    """Orthogonal separability (Phuong & Lampert (1); Wang & Pilanci Sec. 3.1).

    ``x_i^T x_j > 0`` when ``y_i = y_j`` (i = j included, so no zero rows) and ``x_i^T x_j <= 0`` otherwise.
    The decision uses the signs of the Gram entries exactly. Slack ``min(kappa_same, kappa_cross)`` with
    ``kappa_same = min_{y_i = y_j} cos(x_i, x_j)`` and ``kappa_cross = -max_{y_i != y_j} cos(x_i, x_j)``
    (cos := 0 for a zero row; an empty set gives +inf). OS implies slack >= 0; slack > 0 implies OS.
    """
    X = _check_X(X)
    y = np.asarray(y, dtype=np.float64).ravel()
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y has {y.shape[0]} entries for {X.shape[0]} rows")
    return _os_from_same(X, np.equal.outer(y, y))


def is_multiclass_orthogonally_separable(X: np.ndarray, labels: np.ndarray) -> tuple[bool, float]:
    """Multi-class orthogonal separability (Wang & Pilanci Sec. 2): as the binary test with class labels.

    Note: for K >= 3 this does not imply binary OS of the one-vs-rest problems (wang2022 spec §1.10).
    """
    X = _check_X(X)
    labels = np.asarray(labels).ravel()
    if labels.shape[0] != X.shape[0]:
        raise ValueError(f"labels has {labels.shape[0]} entries for {X.shape[0]} rows")
    return _os_from_same(X, np.equal.outer(labels, labels))


def is_spike_free(X: np.ndarray, *, n_samples: int = 20000, seed: int = 0) -> tuple[bool, dict]:
    """Spike-freeness (Wang & Pilanci Definition 2): for every ``||u|| <= 1`` there is ``||z|| <= 1`` with
    ``(X u)_+ = X z``; equivalently ``v_+ in E`` for every ``v in E = {X u : ||u|| <= 1}``.

    Tests, by case (``detail["method"]``, ``detail["exact"]``):

    * rank X = n (full row rank): exact criterion (spec §1.11, R3): spike-free iff every off-diagonal entry
      of ``M = (X X^T)^{-1}`` is <= 0 (``detail["max_offdiag"]``, tolerance 1e-12 relative).
    * rank X < n: (a) range condition, exact over the enumerated cells: ``(I - X X^+) D_j X = 0`` for every
      open-cell pattern ``D_j`` (``detail["range_residual"]``); generically false, then not spike-free
      (exact; over sampled cells when there are more than 2e5). (b) if it holds, the norm condition
      ``max_{u in C_j, ||u|| <= 1} ||X^+ D_j X u|| <= 1`` is tested on random directions inside each
      cell (``detail["max_norm"]``): one-sided, can only certify "not spike-free" (``exact`` False when
      it passes).
    """
    X = _check_X(X)
    n, d = X.shape
    rank = int(np.linalg.matrix_rank(X)) if n else 0
    if n == 0:
        return True, {"method": "empty", "exact": True}
    if rank == n:
        M = np.linalg.inv(X @ X.T)
        max_off = float(M[~np.eye(n, dtype=bool)].max()) if n > 1 else -math.inf
        tol = 1e-12 * float(np.abs(M).max())
        return bool(max_off <= tol), {"method": "full-row-rank M-matrix criterion (R3)", "exact": True,
                                      "max_offdiag": max_off}
    try:
        ps = enumerate_patterns(X, max_patterns=200_000)
        complete = True
    except ValueError:  # too many cells to enumerate: sampled cells, one-sided either way
        ps = sample_patterns(X, n_samples, np.random.default_rng(seed))
        complete = False
    Xp = np.linalg.pinv(X)
    proj = np.eye(n) - X @ Xp
    scale = max(1.0, float(np.abs(X).max()))
    res = max(float(np.abs(proj @ (Dj[:, None] * X)).max()) for Dj in ps.D)
    detail: dict = {"method": "range condition over " + ("all" if complete else "sampled") + " cells",
                    "exact": True, "range_residual": res, "n_patterns": ps.p}
    if res > 1e-9 * scale:
        return False, detail
    rng = np.random.default_rng(seed)
    per = max(1, n_samples // max(ps.p, 1))
    best = 0.0
    for Dj, w in zip(ps.D, ps.witnesses):
        A = Xp @ (Dj[:, None] * X)
        cand = w[None, :] + rng.standard_normal((per, d)) * rng.uniform(0, 3, (per, 1))
        cand = np.vstack([w[None, :], cand])
        cand = cand[np.all(pattern_of(X, cand) == Dj, axis=1)]
        cand /= np.linalg.norm(cand, axis=1, keepdims=True)
        best = max(best, float(np.linalg.norm(cand @ A.T, axis=1).max()))
    detail.update(method="range " + ("exact" if complete else "sampled") + " + norm sampled",
                  exact=best > 1 + 1e-9, max_norm=best)
    return bool(best <= 1 + 1e-9), detail
