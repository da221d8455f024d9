"""Exact global max normalised margin of two-layer (leaky) ReLU nets over all widths, in d = 2.

With u = a w for a balanced neuron (|a| = ||w||), a phi(<w, x>) = h <u, x> where h = 1 on the open
half-space <w, x> > 0 and alpha on the other side, and ||theta||^2 = 2 sum_k ||u_k||. Neurons with the same
activation cell R of the central arrangement {w : <w, x_i> = 0} and the same output sign s merge by the
triangle inequality, so

    v* = min sum_{R,s} ||u_{R,s}||  s.t.  y_i sum_{R,s} h_{R,i} <u_{R,s}, x_i> >= 1,
                                         s sigma_{R,i} <u_{R,s}, x_i> >= 0   (all R, s, i)

equals min (1/2)||theta||^2 s.t. q_i >= 1 over all widths, and gamma* = 1/(2 v*). In d = 2 the cells are
the arcs between consecutive critical angles, enumerated exactly. The SOCP is solved with CLARABEL and
a witness network is rebuilt from the returned u's, its margin recomputed (a certified lower bound).
"""

from __future__ import annotations

from dataclasses import dataclass

import cvxpy as cp
import numpy as np

from .nets import normalized_margin

__all__ = ["OracleResult", "arrangement_cells_2d", "global_margin_oracle"]


@dataclass(frozen=True)
class OracleResult:
    """Global max normalised margin over all widths (exact SOCP in d = 2) and a witness network."""

    gamma: float
    gamma_witness: float
    W: np.ndarray
    a: np.ndarray
    status: str


def arrangement_cells_2d(X: np.ndarray) -> np.ndarray:
    """Midpoint directions of the arcs of the 2-D central arrangement {w : <w, x_i> = 0}."""
    ang = np.arctan2(X[:, 1], X[:, 0])
    crit = np.mod(np.concatenate([ang + np.pi / 2, ang - np.pi / 2]), 2 * np.pi)
    crit = np.unique(np.round(crit, 14))
    nxt = np.roll(crit, -1)
    nxt[-1] += 2 * np.pi
    mids = (crit + nxt) / 2
    return np.stack([np.cos(mids), np.sin(mids)], axis=1)


def global_margin_oracle(X: np.ndarray, y: np.ndarray, alpha: float, signs: tuple = (1.0, -1.0)) -> OracleResult:
    """gamma* = 1/(2 v*) for the SOCP of the module docstring (Lyu et al. 2021 spec §1.13 item 5).

    d = 2 only (cells enumerated exactly). ``signs`` restricts the output-weight signs allowed (e.g.
    ``(-1.0,)``: nets with all a_k <= 0, as in Lyu et al. Asm A.5). The witness network (one balanced neuron per nonzero
    u_{R,s}) has its margin recomputed from the returned values: gamma_witness <= gamma_NN*.
    """
    if X.shape[1] != 2:
        raise ValueError("the exact oracle is implemented for d = 2")
    # margins are 1-homogeneous in the data: solve on X / max||x_i|| (well scaled) and scale back
    scale = float(np.max(np.linalg.norm(X, axis=1)))
    X = X / scale
    cells = arrangement_cells_2d(X)
    S = np.sign(X @ cells.T)                # (n, R) cell sign of <w, x_i>
    Hc = np.where(S > 0, 1.0, alpha)        # slope per (i, R)
    R = cells.shape[0]
    ns = len(signs)
    signs_all = np.tile(np.asarray(signs, dtype=float), R)  # column ns r + si: cell r, output sign s
    Scol = np.repeat(S, ns, axis=1) * signs_all[None, :]    # s sigma_{R,i}
    Hcol = np.repeat(Hc, ns, axis=1)
    U = cp.Variable((ns * R, 2))
    P = X @ U.T                                          # (n, 2R): <u_{R,s}, x_i>
    cons = [cp.multiply(Scol, P) >= 0, cp.multiply(y, cp.sum(cp.multiply(Hcol, P), axis=1)) >= 1]
    prob = cp.Problem(cp.Minimize(cp.sum(cp.norm(U, axis=1))), cons)
    prob.solve(solver=cp.CLARABEL)
    if U.value is None:
        return OracleResult(float("nan"), float("nan"), np.zeros((0, 2)), np.zeros(0), str(prob.status))
    Uv = np.asarray(U.value)
    norms = np.linalg.norm(Uv, axis=1)
    keep = norms > 1e-9 * max(norms.max(), 1e-300)
    signs = signs_all[keep]
    # neuron: a = s sqrt(||u||), w = u / a  (balanced, a w = u)
    a = signs * np.sqrt(norms[keep])
    W = Uv[keep] / a[:, None]
    gw = float(normalized_margin(W, a, X, y, alpha)) * scale
    return OracleResult(scale / (2 * prob.value), gw, W, a, prob.status)    # (W, a) is a witness for the original data
