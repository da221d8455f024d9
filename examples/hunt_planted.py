"""A claim file with a planted error that its random fixtures miss and ``verify hunt`` finds.

The perceptron convergence theorem (Novikoff 1962): if unit-norm ``u`` separates the data through the
origin with margin ``gamma = min_i y_i <u, x_i> > 0``, the perceptron started at zero makes at most
``(R / gamma)^2`` mistakes, ``R = max_i |x_i|``. ``planted.perceptron_bound`` states it with ``R``
dropped, ``1 / gamma^2``: a typo that no normalised data set can show, since there ``R = 1`` and the
two bounds coincide. Its random fixture is normalised (``radius=1``), so every seed of every profile
passes; the family declares its space, ``radius`` included, and a hunt finds the error::

    verify run examples/hunt_planted.py --profile thorough     # exit 0: both claims verified
    verify hunt examples/hunt_planted.py --budget 20           # exit 1: planted.perceptron_bound refuted

``planted.perceptron_novikoff`` is the correct statement, on the same fixtures: its hunt finds nothing.
"""

import numpy as np

from verify import Evidence, claim, family, hypothesis, integer, negative, random, real


@family("planted.separable", space={"n": integer(2, 40), "d": integer(2, 8), "margin": real(0.02, 0.5, log=True),
                                    "radius": real(0.25, 4.0, log=True)})
def separable(rng, n=20, d=3, margin=0.2, radius=1.0, u_scale=1.0):
    """n points of norm ``radius`` in R^d, labelled by a random unit u, each at least ``margin * radius``
    from u's hyperplane; ``u_scale`` != 1 hands the check a separator that is not unit-norm (a broken
    hypothesis: its margin is then overstated, and so is the bound)."""
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    z = rng.normal(size=(n, d))
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    t = z @ u
    y = np.where(t >= 0, 1.0, -1.0)
    # Move each point's component along u out of (-margin, margin), keeping it on the unit sphere.
    t_new = y * (margin + (1 - margin) * np.abs(t))
    perp = z - np.outer(t, u)
    norms = np.linalg.norm(perp, axis=1, keepdims=True)
    perp = np.where(norms > 1e-12, perp / np.maximum(norms, 1e-300), 0.0)
    z = np.outer(t_new, u) + perp * np.sqrt(1 - t_new**2)[:, None]
    return {"X": radius * z, "y": y, "u": u_scale * u}


def margin_of(fx) -> float:
    return float(np.min(fx["y"] * (fx["X"] @ fx["u"])))


separated = hypothesis("u separates the data with margin gamma > 0",
                       lambda fx: (margin_of(fx) > 0 and abs(np.linalg.norm(fx["u"]) - 1) < 1e-12, margin_of(fx)))


def perceptron_mistakes(X: np.ndarray, y: np.ndarray, max_passes: int) -> tuple[int, bool]:
    """Mistakes of the perceptron from w = 0 over cyclic passes; converged when a pass makes none."""
    w = np.zeros(X.shape[1])
    mistakes = 0
    for _ in range(max_passes):
        clean = True
        for xi, yi in zip(X, y):
            if yi * (w @ xi) <= 0:
                w += yi * xi
                mistakes += 1
                clean = False
        if clean:
            return mistakes, True
    return mistakes, False


def _check(fx, bound_of) -> Evidence:
    X, y = fx["X"], fx["y"]
    gamma = margin_of(fx)
    R = float(np.max(np.linalg.norm(X, axis=1)))
    k, converged = perceptron_mistakes(X, y, max_passes=int(min(1e5, 4 * (R / gamma) ** 2 + 10)))
    ev = Evidence()
    ev.valid("the perceptron converged (a pass without mistakes)", converged)
    bound = bound_of(R, gamma)
    if fx.mutated("bound divided by 100"):
        bound /= 100
    ev.le("perceptron mistakes", k, bound, rtol=0.0, atol=0.0, detail=f"R = {R:.4g}, gamma = {gamma:.4g}")
    ev.record(mistakes=k, R=R, gamma=gamma)
    return ev


# The powered control mutates the bound; the probe hands the check a separator of norm 5, so the margin it
# measures (and the bound) is 25x off: the printed conclusion fails there, showing ||u|| = 1 matters.
FIXTURES = [random(separable), negative(separable, mutation="bound divided by 100"), negative(separable, u_scale=5.0)]


@claim("planted.perceptron_bound", kind="theorem", hypotheses=[separated], fixtures=FIXTURES, fidelity="faithful",
       statement=r"If $\|u\| = 1$ and $y_i\langle u, x_i\rangle \ge \gamma > 0$ for all $i$, the perceptron from "
                 r"$w = 0$ makes at most $1/\gamma^2$ mistakes (planted typo: $R^2$ dropped)")
def perceptron_bound(fx):
    return _check(fx, lambda R, gamma: 1 / gamma**2)


@claim("planted.perceptron_novikoff", kind="theorem", hypotheses=[separated], fixtures=FIXTURES, fidelity="faithful",
       statement=r"If $\|u\| = 1$ and $y_i\langle u, x_i\rangle \ge \gamma > 0$ for all $i$, the perceptron from "
                 r"$w = 0$ makes at most $(R/\gamma)^2$ mistakes, $R = \max_i \|x_i\|$")
def perceptron_novikoff(fx):
    return _check(fx, lambda R, gamma: (R / gamma) ** 2)
