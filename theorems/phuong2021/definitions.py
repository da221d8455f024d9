"""The prose assumptions of Section 2 and the unlabelled definitions, registered so that the catalogue is
complete. Each is implemented as a hypothesis predicate (theorems/phuong2021/hypotheses.py) that the runner
evaluates on every fixture of every claim that lists it."""

from __future__ import annotations

from verify import not_checkable

not_checkable(
    "phuong2021.asm.os", kind="assumption", title="Orthogonal separability (eq. (1))",
    statement=r"$x_i^\top x_j>0$ if $y_i=y_j$ and $x_i^\top x_j\le0$ if $y_i\ne y_j$, for all $i,j\in[n]$.",
    reason="assumption: implemented as the hypothesis predicate 'orthogonally separable (eq. (1))' "
           "(theorems.phuong2021.hypotheses.orthogonally_separable), checked on every fixture of Lemmas 1-3, B.1, "
           "C.1 and Theorem 1; its implementation is unit-tested on families with known answers")

not_checkable(
    "phuong2021.asm.span", kind="assumption", title="Support examples span R^d (Section 2)",
    statement=r"The positive support examples of (6) span $\mathbb R^d$, and so do the negative ones of (7).",
    reason="assumption: hypothesis predicate 'support examples span R^d (Section 2)' (exact max-margin QP with "
           "recomputed KKT residuals, then a rank test); os.span_certified meets it by construction")

not_checkable(
    "phuong2021.asm.init", kind="assumption", title="Near-zero balanced initialisation (Section 2)",
    statement=r"$w_j=\lambda_jv_j/\|v_j\|$, $v_j\sim\mathcal N(0,I)$ iid, $\lambda_j\in(0,\lambda]$, "
              r"$a_j\in\{\pm\lambda_j\}$, $\lambda>0$ small.",
    reason="assumption: hypothesis predicates 'balanced initialisation' (|a_j| = ||w_j|| > 0) and 'near-zero "
           "initialisation' (max ||w_j|| <= 1e-3, an operational reading of the unquantified 'small')")

not_checkable(
    "phuong2021.asm.loss", kind="assumption", title="Loss conditions (Section 2, eq. (3))",
    statement=r"Cross-entropy $\ell_i(u)=\log(1+e^{-y_iu})$; the results are said to hold for any differentiable "
              r"loss with $\ell'$ bounded and Lipschitz and $-y_i\ell_i'(u)>0$.",
    reason="assumption: hypothesis predicates 'cross-entropy loss (eq. (3))' and 'loss conditions (Section 2 / I3)'")

not_checkable(
    "phuong2021.asm.gp", kind="assumption", title="General position (footnote 4)",
    statement=r"$\{x_i\}\cup\{0\}$ in general position: no $k$ of these points lie on a $(k-2)$-dimensional "
              r"hyperplane, for all $k\ge2$.",
    reason="assumption: hypothesis predicate of Lemma A.3, read as 2 <= k <= d+1 (erratum E9: for k >= d+2 the "
           "printed condition is unsatisfiable, any d+2 points of R^d lie in R^d)")

not_checkable(
    "phuong2021.def.maxmargin", kind="definition", title="Max-margin vectors and support examples (eqs. (6), (7))",
    statement=r"$w_\pm=\arg\min\|w\|^2$ s.t. $w^\top x_i\ge1$ for $y_i=\pm1$; support examples attain equality.",
    reason="definition: computed by verify.numerics.margin.svm_class (least-distance programming with recomputed "
           "KKT residuals); support examples = the active set (theorems.phuong2021._geometry.class_geometry); "
           "cross-checked against the closed form of os.span_certified")

not_checkable(
    "phuong2021.def.G", kind="definition", title="The early-phase potential G (eq. (12)) and g (eq. (31))",
    statement=r"$G(w)=-\sum_i\ell_i'(0)\rho(w^\top x_i)$ on $\mathbb S^{d-1}$; "
              r"$g(w)=-\sum_i\ell_i'(0)1\{w^\top x_i>0\}P_wx_i$.",
    reason="definition: verify.numerics.sectors.potential and projected_gradient; exercised by Definition 2, "
           "Lemma 2, Lemmas A.1 and A.2")
