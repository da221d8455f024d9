"""A sibling module of the claim files beside it: they import it as a user's file would (item 8 of issue 32)."""

import numpy as np


def inner(u: np.ndarray, v: np.ndarray) -> float:
    return float(u @ v)
