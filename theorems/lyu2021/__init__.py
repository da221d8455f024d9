"""Lyu, Li, Wang, Arora (2021), "Gradient Descent on Two-layer Nets: Margin Maximization and Simplicity
Bias" (NeurIPS 2021, arXiv 2110.13905): every numbered item, by topic.

Helpers: ``catalogue`` (statements, dependency graph, not-checkable reasons), ``common`` (G, mu~, lambda0,
pi_b, initialisations), ``hyps`` (assumption predicates), ``dynamics`` (GD, normalised GD, accurate flow),
``search`` (margin ascent). Claim modules: ``sec4`` (Thm 3.1, 4.2, 4.3, Cor 4.4), ``sec5`` (Lemmas 5.2-5.4,
Thms 5.5, 5.6), ``sec6`` (Thm 6.2, App. A), ``appendix_b``, ``appendix_def`` (App. D, E, F), ``appendix_gh``
(App. G, H), ``examples`` (App. I) and ``experiments`` (Figures 1-2). Items no module checks are registered
as not checkable by :func:`catalogue.register_remaining`, after the claim modules are imported.
"""

from . import (  # noqa: F401
    appendix_b,
    appendix_def,
    appendix_g,
    appendix_gh,
    catalogue,
    examples,
    experiments,
    late_phase,
    phase2,
    sec4,
    sec5,
    sec6,
)

catalogue.register_remaining()
