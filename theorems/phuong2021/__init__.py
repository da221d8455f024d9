"""Phuong & Lampert (2021), "The Inductive Bias of ReLU Networks on Orthogonally Separable Data" (ICLR).

Claims by topic: ``definitions`` (Section 2 assumptions), ``sectors`` (Definitions 1-2, Lemma 2, Lemmas A.1,
A.2), ``flow`` (Lemmas 1, 3, A.3, A.4, B.1), ``limit`` (Theorem 1, Corollary 1 and the claims in their
proofs), ``probability`` (the 1 - 2^-p statement), ``kkt`` (Lemma C.1), ``informal`` (prose claims I1-I7),
``experiments`` (Section 5). Importing this package registers every item.
"""

from . import definitions, experiments, flow, informal, kkt, limit, probability, sectors  # noqa: F401
