"""Min, Mallada & Vidal (2024), "Early neuron alignment in two-layer ReLU networks with small
initialization" (ICLR 2024): every numbered item, the unnumbered formal claims, errata (printed claim
refuted + amended claim) and the experiments on a synthetic stand-in for MNIST.

Modules by topic: ``common`` (sets, constants, hypotheses, cached simulation), ``geometry``
(Assumptions, cones, Lemmas 5-9, 11), ``early`` (Lemmas 1-4, 10, 15, (46), (50)), ``theorem1``,
``trajectories`` (Lemmas 12-14, App. C/D claims), ``constants_claims`` (paths, eps, zeta, t1 as printed,
App. E examples, remarks), ``experiments`` (App. A / Fig. 5 reproductions).
"""
