"""Search spaces of fixture families: the parameters a hunt for counterexamples may vary.

A family declares, beside its defaults, the range of each parameter that matters (dimension, number of
points, margin, angles, init scale, loss tail, width)::

    @family("mine.gauss", space={"d": integer(2, 8), "margin": real(1e-4, 1.0, log=True),
                                 "loss": choice("exp", "logistic")})
    def gauss(rng, d=3, margin=0.1, loss="exp"): ...

The declaration is optional: a family without one can still be searched over its seeds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .errors import UsageError


@dataclass(frozen=True)
class Real:
    """A continuous range [lo, hi], searched uniformly or on a log scale."""

    lo: float
    hi: float
    log: bool = False

    def describe(self) -> dict:
        return {"type": "real", "lo": self.lo, "hi": self.hi, "log": self.log}

    def contains(self, x: Any) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool) and self.lo <= x <= self.hi


@dataclass(frozen=True)
class Integer:
    """An integer range lo..hi (both included)."""

    lo: int
    hi: int

    def describe(self) -> dict:
        return {"type": "integer", "lo": self.lo, "hi": self.hi}

    def contains(self, x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool) and self.lo <= x <= self.hi


@dataclass(frozen=True)
class Choice:
    """One of finitely many values, the first being the simplest (what shrinking moves toward)."""

    options: tuple

    def describe(self) -> dict:
        return {"type": "choice", "options": list(self.options)}

    def contains(self, x: Any) -> bool:
        return x in self.options


Dimension = Real | Integer | Choice


def real(lo: float, hi: float, *, log: bool = False) -> Real:
    """A continuous parameter in [lo, hi] (``log=True``: searched on a log scale; needs lo > 0)."""
    lo, hi = float(lo), float(hi)
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
        raise UsageError(f"real({lo}, {hi}): need finite lo <= hi")
    if log and lo <= 0:
        raise UsageError(f"real({lo}, {hi}, log=True): a log scale needs lo > 0")
    return Real(lo, hi, log)


def integer(lo: int, hi: int) -> Integer:
    """An integer parameter in lo..hi."""
    if int(lo) != lo or int(hi) != hi or lo > hi:
        raise UsageError(f"integer({lo}, {hi}): need integers lo <= hi")
    return Integer(int(lo), int(hi))


def choice(*options: Any) -> Choice:
    """A parameter taking one of ``options`` (the first is the simplest)."""
    if not options:
        raise UsageError("choice(): needs at least one option")
    return Choice(tuple(options))


def validate_space(family_name: str, space: dict, params: dict) -> dict:
    """Check a declared space against the family's parameters; returns it as a plain dict."""
    if not isinstance(space, dict):
        raise UsageError(f"family {family_name!r}: space must be a dict of parameter -> real/integer/choice")
    for k, dim in space.items():
        if k not in params:
            raise UsageError(f"family {family_name!r}: space names {k!r}, which is not a parameter "
                             f"(parameters: {', '.join(sorted(params)) or 'none'})")
        if not isinstance(dim, (Real, Integer, Choice)):
            raise UsageError(f"family {family_name!r}: space[{k!r}] must be real(...), integer(...) or choice(...)")
    return dict(space)
