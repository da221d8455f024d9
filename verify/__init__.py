"""Theorem-verification harness for deep-learning theory.

The names a claim author needs::

    from verify import (claim, erratum, not_checkable, hypothesis, family, random, adversarial, negative,
                        Evidence, judge_trend, judge_slope, judge_binomial, real, integer, choice)

In a notebook, ``verify.check(claim_id)`` and ``verify.run(*selectors)`` run claims and return
:class:`Results`, shown as the report's claim cards. Everything else (runner, records, report, numerics)
lives in submodules.
"""

from .api import Results, check, load_results, run
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
    "REGISTRY", "Evidence", "Fixture", "Results", "UsageError", "adversarial", "check", "choice", "claim",
    "clopper_pearson", "erratum", "family", "hypothesis", "integer", "jsonable", "judge_binomial", "judge_slope",
    "judge_trend", "load_results", "negative", "not_checkable", "random", "real", "run", "__version__",
]
