"""Theorem-verification harness for deep-learning theory.

The names a claim author needs::

    from verify import (claim, erratum, not_checkable, hypothesis, family, random, adversarial, negative,
                        Evidence, judge_trend, judge_slope, judge_binomial, real, integer, choice)

In a notebook, ``verify.check(claim_id)`` and ``verify.run(*selectors)`` run claims and return
:class:`Results`, shown as the report's claim cards. Everything else (runner, records, report, numerics)
lives in submodules.
"""

# First, before anything imports numpy: the BLAS thread count, the same in every process (verify.threads).
from .threads import init as _init_threads

_init_threads()

from .api import Results, check, load_results, run  # noqa: E402
from .claims import (  # noqa: E402
    NOT_YET_ENCODED,
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
from .errors import UsageError  # noqa: E402
from .evidence import Evidence, jsonable  # noqa: E402
from .judgements import clopper_pearson, judge_binomial, judge_slope, judge_trend  # noqa: E402
from .space import choice, integer, real  # noqa: E402

__version__ = "0.2.0"

__all__ = [
    "NOT_YET_ENCODED", "REGISTRY", "Evidence", "Fixture", "Results", "UsageError", "adversarial", "check", "choice",
    "claim", "clopper_pearson", "erratum", "family", "hypothesis", "integer", "jsonable", "judge_binomial",
    "judge_slope", "judge_trend", "load_results", "negative", "not_checkable", "random", "real", "run", "__version__",
]
