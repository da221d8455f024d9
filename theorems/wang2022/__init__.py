"""Wang & Pilanci (2022), "The Convex Geometry of Backpropagation: Neural Network Gradient Flows Converge
to Extreme Points of the Dual Convex Program" (ICLR 2022, arXiv 2110.06488).

Modules by topic: definitions (Defs 1-2, in-text definitions, Remark 2), convex_program (Props 1-3,
Thm 3), dual_feasibility (Props 4-5, Remark 1, Lemmas 5-6), early_phase (Lemmas 1-3, 7, Cor 1, Prop 6,
Thm 1), landscape (Lemmas 4, 8, 9, Prop 7), convergence (Thms 2, 4), experiments (App. F).
Spec: shared/claims/wang2022.md.
"""
