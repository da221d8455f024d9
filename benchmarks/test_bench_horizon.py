"""Item 3: steps to a normalised-margin gap of 1e-3 on symmetric data (leaky ReLU, alpha = 0.5).

Fixture ``bench_cases.symmetric_margin_fixture`` (d = 3, 8 + 8 points, m = 8, 8 seeds, init scale 1e-3): the
global max normalised margin is ``gamma* = (1 + alpha)/4 * gamma_lin`` (Lyu et al. 2021 Thm 4.2, spec section
1.13 item 1).  Gap = ``1 - gamma(theta_k) / gamma*`` per seed, gamma = ``min_i q_i / ||theta||^2``.

* loss-normalised steps: ``flow.normalized_gradient_descent`` (step lr / L) in stages of ``STAGE`` steps with
  lr = 0.1, 0.03, ..., 3e-4 (each stage restarts from the previous end state).  With a fixed lr the relative
  step ``lr ||grad log L|| / ||theta||`` does not shrink and the gap plateaus at O(lr) (measured: lr = 0.1
  oscillates at 2e-2 .. 9e-2 after 2e4 steps), hence the decreasing stages;
* constant-step GD: ``flow.gradient_descent`` with lr = 4 for ``GD_BUDGET`` steps.  Its gap decays like
  c / log k, so 1e-3 is out of reach; the budget gives a lower bound on the ratio and the c / log k fit an
  extrapolated step count.
Goal: >= 100x fewer steps at equal accuracy.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from bench_cases import QUICK, first_step_below, symmetric_margin_fixture

from verify.numerics.flow import gradient_descent, normalized_gradient_descent

TARGETS = (1e-1, 3e-2, 1e-2, 3e-3, 1e-3)
NGD_LRS = (0.1, 0.03, 0.01, 0.003, 0.001, 0.0003)
STAGE = 1500
GD_LR = 4.0
GD_BUDGET = int(os.environ.get("BENCH_GD_BUDGET", "20000" if QUICK else "1200000"))


@pytest.fixture(scope="module")
def fixture() -> dict:
    return symmetric_margin_fixture()


def _normalized_staged(f: dict) -> tuple[np.ndarray, np.ndarray]:
    W, a = f["W0"], f["a0"]
    steps, gamma = [], []
    for k, lr in enumerate(NGD_LRS):
        r = normalized_gradient_descent(W, a, f["X"], f["y"], alpha=f["alpha"], lr=lr, margin_horizons=[1e300],
                                        max_steps=STAGE, record_every=10)
        steps.append(r.history["step"] + k * STAGE)
        gamma.append(r.history["normalized_margin"])
        W, a = r.W, r.a
    return np.concatenate(steps), np.concatenate(gamma)


def _constant_gd(f: dict) -> tuple[np.ndarray, np.ndarray]:
    r = gradient_descent(f["W0"], f["a0"], f["X"], f["y"], alpha=f["alpha"], lr=GD_LR, steps=GD_BUDGET,
                         record_every=max(1, GD_BUDGET // 4000), error_estimate=None)
    return r.history["step"], r.history["normalized_margin"]


@pytest.mark.parametrize("method", ["normalized_gd_staged", "constant_gd"])
def test_horizon(benchmark, fixture: dict, method: str) -> None:
    fn = _normalized_staged if method == "normalized_gd_staged" else _constant_gd
    benchmark.group = "3 long horizons (symmetric, alpha=0.5)"
    steps, gamma = benchmark.pedantic(fn, args=(fixture,), rounds=1, iterations=1)
    gap = 1.0 - gamma / fixture["gamma_star"]
    hits = {f"{t:g}": first_step_below(steps, gap, t).tolist() for t in TARGETS}
    # gap ~ c / log k on the tail (constant-step GD): extrapolated log10 of the steps needed for 1e-3
    tail = steps > steps[-1] // 2
    c = np.median(gap[tail] * np.log(steps[tail])[:, None], axis=0)
    benchmark.extra_info.update({
        "item": 3, "method": method, "total_steps": int(steps[-1]), "gamma_star": fixture["gamma_star"],
        "first_hit_steps": hits, "final_gap": gap[-1].tolist(), "min_gap": gap.min(axis=0).tolist(),
        "log10_steps_for_1e-3_by_c_over_log_k": (c / 1e-3 / np.log(10)).tolist(),
    })
    assert np.all(gap > -1e-9), "normalised margin above the global maximum gamma*"
