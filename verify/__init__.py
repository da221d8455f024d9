"""Theorem-verification harness for deep-learning theory.

The names a claim author needs::

    from verify import (claim, not_checkable, hypothesis, family, random, adversarial, negative,
                        Evidence, judge_trend, judge_binomial)

Everything else (runner, records, report, numerics) lives in submodules.
"""

from .claims import (
    REGISTRY,
    Fixture,
    adversarial,
    claim,
    family,
    hypothesis,
    negative,
    not_checkable,
    random,
)
from .errors import UsageError
from .evidence import Evidence, jsonable
from .judgements import clopper_pearson, judge_binomial, judge_trend

__version__ = "0.1.0"

__all__ = [
    "REGISTRY", "Evidence", "Fixture", "UsageError", "adversarial", "claim", "clopper_pearson", "family",
    "hypothesis", "jsonable", "judge_binomial", "judge_trend", "negative", "not_checkable", "random",
    "__version__",
]
