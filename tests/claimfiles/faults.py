"""Claims that misbehave on purpose: they exercise the runner's isolation."""

import os
import time

import numpy as np

from verify import Evidence, claim, family, negative, random


@family("faults.scalar")
def scalar(rng, scale=1.0):
    return {"x": float(rng.normal()) * scale}


def _fixtures():
    return [random(scalar), negative(scalar, mutation="flip")]


def _ok(fx):
    ev = Evidence()
    ev.ge("x^2", fx["x"] ** 2 * (-1 if fx.mutated() else 1), 0.0 if not fx.mutated() else 1e-300)
    return ev


@claim("faults.fine", kind="lemma", statement="$x^2 \\ge 0$", fixtures=_fixtures())
def fine(fx):
    return _ok(fx)


@claim("faults.hang", kind="lemma", statement="hangs", fixtures=_fixtures(), timeout_s=1.0)
def hang(fx):
    time.sleep(60)
    return _ok(fx)


@claim("faults.dies", kind="lemma", statement="kills its process", fixtures=_fixtures())
def dies(fx):
    os._exit(3)


@claim("faults.oom", kind="lemma", statement="runs out of memory", fixtures=_fixtures())
def oom(fx):
    raise MemoryError("simulated allocation failure")


@claim("faults.raises", kind="lemma", statement="raises", fixtures=_fixtures())
def raises(fx):
    return np.linalg.cholesky(-np.eye(2))
