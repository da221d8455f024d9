"""The one place where verdict, status, fixture-kind and profile words are defined."""

from __future__ import annotations

# Verdicts for one (claim, fixture).
PASS = "pass"
REFUTED = "refuted"
VACUOUS = "vacuous"
INCONCLUSIVE = "inconclusive"
ERROR = "error"
VERDICTS = (PASS, REFUTED, VACUOUS, INCONCLUSIVE, ERROR)

# Fixture kinds.
RANDOM = "random"
ADVERSARIAL = "adversarial"
NEGATIVE = "negative"
FIXTURE_KINDS = (RANDOM, ADVERSARIAL, NEGATIVE)

# Claim statuses (aggregated over fixtures).
VERIFIED = "verified"
FULLY_VERIFIED = "fully verified"
ST_REFUTED = "refuted"
ST_INCONCLUSIVE = "inconclusive"
ST_ERROR = "error"
ST_VACUOUS = "vacuous"
CONTROL_FAILED = "control failed"
UNGUARDED = "unguarded"
NOT_CHECKABLE = "not checkable"
NOT_RUN = "not run"
# A claim whose planned fixtures did not all run because the run was interrupted.
INCOMPLETE = "incomplete"
STATUSES = (
    FULLY_VERIFIED, VERIFIED, ST_REFUTED, ST_INCONCLUSIVE, ST_ERROR, ST_VACUOUS,
    CONTROL_FAILED, UNGUARDED, INCOMPLETE, NOT_CHECKABLE, NOT_RUN,
)
# Marks counted beside the statuses: a verified claim whose tightest comparison had more room than
# LOOSE_ROOM (a constant wrong by that factor would pass too), and an outcome not as expected.
LOOSE = "loose"
UNEXPECTED = "unexpected"
LOOSE_ROOM = 10.0
# A claim whose printed conclusion held on every fixture of the run (positive fixtures and the probes of its
# broken-hypothesis controls): the run never saw it fail, so a pass there is no verification of content.
CANNOT_FAIL = "cannot fail here"

# Fidelity: how much of the printed statement a check checks (DESIGN.md, "Fidelity").
FAITHFUL = "faithful"          # the printed statement, with its quantifiers, domain and constants
PROXY = "proxy"                # a stand-in quantity or event (say which)
PARTIAL = "partial"            # some parts, a special case or part of the printed domain (say which)
DEFINITIONAL = "definitional"  # holds by construction: an identity, a restatement of a hypothesis
FIDELITIES = (FAITHFUL, PROXY, PARTIAL, DEFINITIONAL)
UNDECLARED = "undeclared"      # a user's claim that does not say

# What a probe (the printed conclusion evaluated on a fixture whose hypotheses are unmet) showed.
PROBE_FAILED = "conclusion failed"      # the hypothesis is shown necessary there
PROBE_HELD = "conclusion held"
PROBE_UNDEFINED = "conclusion undefined off its hypotheses"   # the check crashed or measured non-finite
PROBE_UNDECIDED = "undecided"           # the computation was not certified

# What makes an erratum's second method independent of the check that found it.
INDEPENDENCE = (
    "another integrator", "another solver", "exact arithmetic", "interval arithmetic", "closed form",
    "other data", "another derivation",
)
SAME_METHOD = "same-method confirmation"   # a confirmation from the same run or integrator: not a second method
# Order from best to worst, for regression detection.
STATUS_RANK = {
    FULLY_VERIFIED: 0, VERIFIED: 0, NOT_CHECKABLE: 1, NOT_RUN: 1, ST_VACUOUS: 2,
    ST_INCONCLUSIVE: 3, INCOMPLETE: 3, UNGUARDED: 4, CONTROL_FAILED: 4, ST_REFUTED: 5, ST_ERROR: 5,
}
VERDICT_RANK = {PASS: 0, VACUOUS: 1, INCONCLUSIVE: 2, REFUTED: 3, ERROR: 3}

# Claim kinds.
CLAIM_KINDS = (
    "theorem", "lemma", "corollary", "proposition", "definition", "assumption", "remark",
    "claim", "conjecture", "experiment", "example", "condition",
)

# Kinds of erratum (what was found wrong in a printed statement), most serious first.
ERRATUM_KINDS = (
    "false statement",            # the statement fails on instances that meet its hypotheses
    "wrong constant or typo",     # the statement holds once a constant, sign or symbol is corrected
    "proof-step error",           # a step inside a proof fails; the statement itself still holds
    "experiment not reproduced",  # a reported experiment does not come out as printed
    "imprecision",                # informal prose that fails literally on edge cases
)

# Profiles: how many seeds each fixture kind gets, and whether adversarial fixtures run.
PROFILES = ("quick", "standard", "thorough")
DEFAULT_SEEDS = {
    "quick": {RANDOM: 1, ADVERSARIAL: 1, NEGATIVE: 1},
    "standard": {RANDOM: 3, ADVERSARIAL: 1, NEGATIVE: 1},
    "thorough": {RANDOM: 10, ADVERSARIAL: 3, NEGATIVE: 2},
}
DEFAULT_TIMEOUT_S = 300.0
