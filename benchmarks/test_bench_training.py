"""Item 2: 32 seeds of a two-layer ReLU net (n = 100, d = 20, m = 100), plain GD on the mean logistic loss.

Implementations: the project's batched ``flow.gradient_descent`` (``error_estimate=None``: the same GD steps
as the baselines plus its per-step monitors), the batched BLAS kernel ``flow.gd_steps``, a per-seed
PyTorch CPU float64 autograd loop and a per-seed numpy loop.  The per-step cost does not depend on the
state (fixed shapes, no data-dependent branches), so each is timed over ``BENCH_TRAIN_STEPS`` steps
(default 300) and reported per step and extrapolated linearly to 10^4 steps.  All final parameters are
checked to agree.  Goal: >= 10x faster than the PyTorch loop; FLOP rate vs the measured matmul peak.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest
from bench_cases import QUICK, matmul_peak_gflops, numpy_loop, rounds, torch_loop, training_problem

from verify.numerics.flow import gd_step_flops, gd_steps, gradient_descent

N, D, M, SEEDS, LR = 100, 20, 100, 32, 0.5
STEPS = int(os.environ.get("BENCH_TRAIN_STEPS", "20" if QUICK else "300"))
TARGET_STEPS = 10_000
HAVE_TORCH = importlib.util.find_spec("torch") is not None


def _project(W0, a0, X, y):
    r = gradient_descent(W0, a0, X, y, lr=LR, steps=STEPS, error_estimate=None)
    return r.W, r.a


IMPLEMENTATIONS = {
    "project_gradient_descent": _project,
    "project_gd_steps": lambda W0, a0, X, y: gd_steps(W0, a0, X, y, lr=LR, steps=STEPS),
    "torch_loop": lambda W0, a0, X, y: torch_loop(W0, a0, X, y, lr=LR, steps=STEPS),
    "numpy_loop": lambda W0, a0, X, y: numpy_loop(W0, a0, X, y, lr=LR, steps=STEPS),
}


@pytest.fixture(scope="module")
def problem() -> dict:
    p = training_problem(N, D, M, SEEDS)
    p["reference"] = gd_steps(p["W0"], p["a0"], p["X"], p["y"], lr=LR, steps=STEPS)
    p["peak_gflops"] = matmul_peak_gflops()
    return p


@pytest.mark.parametrize("impl", list(IMPLEMENTATIONS))
def test_training(benchmark, problem: dict, impl: str) -> None:
    if impl == "torch_loop" and not HAVE_TORCH:
        pytest.skip("torch not installed (optional bench extra: pip install torch)")
    p = problem
    benchmark.group = f"2 training B={SEEDS} n={N} d={D} m={M}"
    W, a = benchmark.pedantic(IMPLEMENTATIONS[impl], args=(p["W0"], p["a0"], p["X"], p["y"]),
                              rounds=rounds(3, 1), iterations=1)
    W_ref, a_ref = p["reference"]
    scale = np.max(np.abs(W_ref))
    deviation = float(max(np.max(np.abs(W - W_ref)), np.max(np.abs(a - a_ref))) / scale)
    per_step = benchmark.stats.stats.median / STEPS
    flops = gd_step_flops(SEEDS, M, N, D)
    benchmark.extra_info.update({
        "item": 2, "impl": impl, "steps_timed": STEPS, "seconds_per_step": per_step,
        "extrapolated_seconds_1e4": per_step * TARGET_STEPS, "gflops": flops / per_step / 1e9,
        "peak_gflops": p["peak_gflops"], "max_rel_deviation": deviation,
    })
    assert deviation <= 1e-9, f"{impl} disagrees with gd_steps: relative deviation {deviation:.3e}"
