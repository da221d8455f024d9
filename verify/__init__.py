"""Theorem-verification harness for deep-learning theory.

The names a claim author needs::

    from verify import (claim, erratum, not_checkable, hypothesis, family, random, adversarial, negative,
                        Evidence, judge_trend, judge_slope, judge_binomial, real, integer, choice)

Everything else (runner, records, report, numerics) lives in submodules.
"""

from .claims import (
    REGISTRY,
    Fixture,
    adversarial,
    claim,
    erratum,
    family,
    hypothesis,
    negative,
    not_checkable,
    random,
)
from .errors import UsageError
from .evidence import Evidence, jsonable
from .judgements import clopper_pearson, judge_binomial, judge_slope, judge_trend
from .space import choice, integer, real

__version__ = "0.1.0"

__all__ = [
    "REGISTRY", "Evidence", "Fixture", "UsageError", "adversarial", "choice", "claim", "clopper_pearson",
    "erratum", "family", "hypothesis", "integer", "jsonable", "judge_binomial", "judge_slope", "judge_trend",
    "negative", "not_checkable", "random", "real", "__version__",
]
