"""Item 2: training a two-layer ReLU net by plain GD on the mean logistic loss, a batch of seeds at once.

Two shapes: a seed sweep (32 seeds, n = 100, d = 20, m = 100: BLAS-sized products) and the catalogue's
dominant shape (4 seeds, n = 7, d = 2, m = 2: microsecond steps, where interpreter overhead decides).
Implementations: the project's ``flow.gd_steps`` (compiled loop) and ``flow.gradient_descent`` (the same
steps plus per-step monitors and history); the competitors a skilled user would write: batched PyTorch
with explicit bmm gradients, batched PyTorch ``vmap(grad)``, a per-seed numpy loop, and the per-seed
PyTorch autograd loop.  All run on one thread, interleaved round by round (``bench_cases.interleaved``),
so the ratios come from one run; CPU time per step is reported.  Every final state must agree with
``gd_steps`` to 1e-9 relative (equal accuracy: the same iteration).
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest
from bench_cases import (
    QUICK,
    interleaved,
    matmul_peak_gflops,
    numpy_loop,
    ratios,
    rounds,
    torch_batched_bmm,
    torch_batched_vmap,
    torch_loop,
    training_problem,
)

from verify.numerics.flow import gd_step_flops, gd_steps, gradient_descent

LR = 0.5
SHAPES = {  # name: (n, d, m, seeds, steps)
    "sweep": (100, 20, 100, 32, int(os.environ.get("BENCH_TRAIN_STEPS", "20" if QUICK else "300"))),
    "catalogue": (7, 2, 2, 4, 200 if QUICK else 3000),
}
HAVE_TORCH = importlib.util.find_spec("torch") is not None


def _implementations(p: dict, steps: int) -> dict:
    W0, a0, X, y = p["W0"], p["a0"], p["X"], p["y"]

    def project_gradient_descent():
        r = gradient_descent(W0, a0, X, y, lr=LR, steps=steps, error_estimate=None)
        return r.W, r.a

    impls = {
        "project_gd_steps": lambda: gd_steps(W0, a0, X, y, lr=LR, steps=steps),
        "project_gradient_descent": project_gradient_descent,
        "numpy_loop": lambda: numpy_loop(W0, a0, X, y, lr=LR, steps=steps),
    }
    if HAVE_TORCH:
        impls.update({
            "torch_batched_bmm": lambda: torch_batched_bmm(W0, a0, X, y, lr=LR, steps=steps),
            "torch_batched_vmap": lambda: torch_batched_vmap(W0, a0, X, y, lr=LR, steps=steps),
            "torch_loop": lambda: torch_loop(W0, a0, X, y, lr=LR, steps=steps),
        })
    return impls


@pytest.mark.parametrize("shape", list(SHAPES))
def test_training(benchmark, shape: str) -> None:
    n, d, m, seeds, steps = SHAPES[shape]
    p = training_problem(n, d, m, seeds)
    impls = _implementations(p, steps)
    benchmark.group = f"2 training {shape}: B={seeds} n={n} d={d} m={m}"
    out = benchmark.pedantic(lambda: interleaved(impls, rounds(5, 1)), rounds=1, iterations=1)
    W_ref, a_ref = out["result"]["project_gd_steps"]
    scale = np.max(np.abs(W_ref))
    deviation = {k: float(max(np.max(np.abs(W - W_ref)), np.max(np.abs(a - a_ref))) / scale)
                 for k, (W, a) in out["result"].items()}
    per_step = {k: float(np.median(v)) / steps for k, v in out["cpu"].items()}
    flops = gd_step_flops(seeds, m, n, d)
    benchmark.extra_info.update({
        "item": 2, "shape": shape, "n": n, "d": d, "m": m, "seeds": seeds, "steps_timed": steps,
        "rounds": len(out["cpu"]["project_gd_steps"]), "cpu_per_step": per_step,
        "wall_per_step": {k: float(np.median(v)) / steps for k, v in out["wall"].items()},
        "ratio_to_gd_steps": ratios(out["cpu"], "project_gd_steps"), "max_rel_deviation": deviation,
        "gflops": {k: flops / t / 1e9 for k, t in per_step.items()},
        "peak_gflops": matmul_peak_gflops() if shape == "sweep" else None,
        "torch": HAVE_TORCH,
    })
    bad = {k: v for k, v in deviation.items() if not v <= 1e-9}
    assert not bad, f"implementations disagree with gd_steps (relative deviation): {bad}"
