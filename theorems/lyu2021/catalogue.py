"""Every numbered item of Lyu, Li, Wang, Arora (2021): kind, title, statement (spec §2) and the
dependency graph from the proofs (spec §6.1). Claim modules take their statements and ``uses`` from
here; :func:`register_remaining` registers every item no module checked as not checkable, with its reason.
"""

from __future__ import annotations

from verify import REGISTRY, not_checkable

P = "lyu2021."

# id suffix -> (kind, title, statement)
ITEMS: dict[str, tuple[str, str, str]] = {
    "thm3.1": ("theorem", "Theorem 3.1 (Lyu & Li 2020; Ji & Telgarsky 2020)",
               r"For homogeneous definable nets with logistic loss, if $L(\theta(0)) < \ln 2/n$ then $L(\theta(t)) \to 0$, "
               r"$\|\theta(t)\|_2 \to \infty$ and $\theta(t)/\|\theta(t)\|_2$ converges to a KKT-margin direction."),
    "asm3.2": ("assumption", "Assumption 3.2 (linear separability)",
               r"There exists $w \in \mathbb{R}^d$ with $y_i \langle w, x_i\rangle \ge 1$ for all $i \in [n]$."),
    "def3.3": ("definition", "Definition 3.3 (max-margin linear separator)",
               r"$w^* \in S^{d-1}$ maximises $\min_i y_i\langle w, x_i\rangle$ over the unit sphere."),
    "asm4.1": ("assumption", "Assumption 4.1 (symmetric data)",
               r"$n$ even, $x_i = -x_{i+n/2}$, $y_i = 1$, $y_{i+n/2} = -1$ for $1 \le i \le n/2$."),
    "thm4.2": ("theorem", "Theorem 4.2 (global-max-margin nets are linear)",
               r"Under Asm 3.2 and 4.1, for width $m \ge 2$, every global-max-margin direction $\theta^* \in S^{D-1}$ gives "
               r"$f_{\theta^*}(x) = \frac{1+\alpha}{4}\langle w^*, x\rangle$ for all $x \in \mathbb{R}^d$."),
    "thm4.3": ("theorem", "Theorem 4.3 (small-init GF learns the max-margin linear classifier)",
               r"Under 3.2, 4.1, 4.5, 4.6, GF on a width-$m \ge 2$ net from $\sigma_{init}\bar\theta_0$, $\bar\theta_0 \sim D_{init}(1)$: "
               r"with probability $\ge 1 - 2^{-(m-1)}$ there is $\sigma_{max}$ such that for all $\sigma_{init} < \sigma_{max}$ GF "
               r"directionally converges and $f_\infty(x) = \frac{1+\alpha}{4}\langle w^*, x\rangle$."),
    "cor4.4": ("corollary", "Corollary 4.4",
               r"In the setting of Thm 4.3, GF converges to a global-max-margin direction with probability $\ge 1 - 2^{-(m-1)}$."),
    "asm4.5": ("assumption", "Assumption 4.5", r"$\langle \mu, x_i\rangle \ne 0$ for all $i \in [n]$, $\mu = \frac1n\sum_i y_i x_i$."),
    "asm4.6": ("assumption", "Assumption 4.6 (non-branching, two groups)",
               r"For any $m \ge 2$ there are $r, \epsilon > 0$ such that $\theta$ is a non-branching starting point whenever its neurons "
               r"split into a group with $a_k = \|w_k\| \in (0, r)$, $w_k$ along one $w_+$ with $\|w_+ - \bar\mu\| \le \epsilon$ and a "
               r"group with $-a_k = \|w_k\| \in (0, r)$, $w_k$ along one $w_-$ with $\|w_- + \bar\mu\| \le \epsilon$."),
    "def5.1": ("definition", "Definition 5.1 (M-norm)", r"$\|\theta\|_M = \max_k \max\{\|w_k\|_2, |a_k|\}$."),
    "lem5.2": ("lemma", "Lemma 5.2 (Phase I)",
               r"W.p. 1 over $\bar\theta_0 \sim D_{init}(1)$, if $\sigma_{init} \le r^3/(\sqrt m\|\bar\theta_0\|_M)$ then at "
               r"$T_1(r) = \frac{1}{\lambda_0}\ln\frac{r}{\sqrt m\sigma_{init}\|\bar\theta_0\|_M}$: $w_k = r\bar b_k\bar\mu + \Delta w_k$, "
               r"$a_k = r\bar b_k + \Delta a_k$, $\|\Delta\theta\|_M \le C r^3/\sqrt m$."),
    "lem5.3": ("lemma", "Lemma 5.3 (embedding commutes with GF)",
               r"For $\hat\theta = (w^1, w^2, a^1, a^2)$ with $a^1 > 0 > a^2$ and a good embedding vector $b$, if $\hat\theta$ and "
               r"$\pi_b(\hat\theta)$ are non-branching then $\phi(\pi_b(\hat\theta), t) = \pi_b(\phi(\hat\theta, t))$ for all $t \ge 0$."),
    "lem5.4": ("lemma", "Lemma 5.4 (Phase II)",
               r"W.p. $1 - 2^{-(m-1)}$, $\bar b$ is a good embedding vector, $\tilde\theta(t) = \lim_{r\to0}\phi(r\hat\theta, T_2(r) + t)$ "
               r"exists and is nonzero, and $\lim_{\sigma_{init}\to0}\theta(T_{12} + t) = \pi_{\bar b}(\tilde\theta(t))$ for all $t$."),
    "thm5.5": ("theorem", "Theorem 5.5 (width-2 Phase III)",
               r"For $m = 2$, if initially $a_1 = \|w_1\|$, $a_2 = -\|w_2\|$, $\langle w_1, w^*\rangle > 0$, $\langle w_2, w^*\rangle < 0$, "
               r"then $\theta(t)$ directionally converges to the global-max-margin direction $\frac14(w^*, -w^*, 1, -1)$ [printed; "
               r"unit vector is $\frac12(\cdot)$]."),
    "thm5.6": ("theorem", "Theorem 5.6 (local convergence near a local-max-margin direction)",
               r"For an $L$-homogeneous definable net, a local-max-margin direction $\bar\theta^*$ and any $\delta > 0$ there are "
               r"$\epsilon_0 > 0$, $\rho_0 \ge 1$ such that GF from any $\theta_0$ with $\|\theta_0\| \ge \rho_0$ and "
               r"$\|\theta_0/\|\theta_0\| - \bar\theta^*\| \le \epsilon_0$ converges in direction to some $\bar\theta$ with "
               r"$\gamma(\bar\theta) = \gamma(\bar\theta^*)$ and $\|\bar\theta - \bar\theta^*\| \le \delta$."),
    "def6.1": ("definition", "Definition 6.1 (hinted dataset)",
               r"$S' = S \cup \{(Hw^*, 1), (\epsilon w^* + Kw_\perp, 1), (\epsilon w^* - Kw_\perp, 1)\}$."),
    "thm6.2": ("theorem", "Theorem 6.2 (hinted data: GF converges to a suboptimal linear boundary)",
               r"For large $H, K$ and small $\epsilon$, on the hinted $S'$ under Asm A.6, GF from $\sigma_{init}\tilde\theta_0$, "
               r"$\tilde\theta_0 \sim \tilde D_{init}(1)$: w.p. $1 - 2^{-m}$, for small $\sigma_{init}$, GF directionally converges and "
               r"$f_\infty(x) = \frac12\phi(\langle w^*, x\rangle)$; moreover this limit attains only a suboptimal margin."),
    "asmA.1": ("assumption", "Assumption A.1 (principal direction)",
               r"There is a unit $w_{pd}$ with $\gamma_{pd} = \min_i y_i\langle w_{pd}, x_i\rangle > 0$ and "
               r"$\frac{\frac1n\sum_i\|P x_i\|}{\alpha\langle\mu, w_{pd}\rangle} < \frac{\gamma_{pd}}{\max_i\|P x_i\|}$, $P = I - w_{pd}w_{pd}^\top$."),
    "asmA.2": ("assumption", "Assumption A.2",
               r"For all $i$: $\langle\mu, y_ix_i\rangle > \frac{1-\alpha}{n\alpha}\sum_j\max\{-\langle y_ix_i, y_jx_j\rangle, 0\}$."),
    "asmA.3": ("assumption", "Assumption A.3", r"$\|\mu_+\| > \|\mu_-\|$."),
    "lemA.4": ("lemma", "Lemma A.4",
               r"For $m = 1$, a KKT-margin direction $\theta = (w_1, a_1) \in S^{D-1}$ with $a_1 \ge 0$ equals "
               r"$(w_+/\sqrt2, 1/\sqrt2)$ and attains the max margin $\gamma_+/2$."),
    "asmA.5": ("assumption", "Assumption A.5",
               r"For any $m$ and $\theta$ with all $a_k \le 0$, the normalised margin on $\{(x_i, y_i) : i \in S_+\}$ is $< \gamma_+/2$."),
    "asmA.6": ("assumption", "Assumption A.6 (non-branching, one group)",
               r"For any $m \ge 1$ there are $r, \epsilon > 0$ such that $\theta$ is non-branching if $a_k = \|w_k\| \in (0, r)$ and all "
               r"$w_k$ point along one $v$ with $\|v - \bar\mu_+\| \le \epsilon$."),
    "thmA.7": ("theorem", "Theorem A.7 (non-symmetric data)",
               r"Under 3.2, A.2, A.3, A.5, A.6, GF from $\sigma_{init}\tilde\theta_0$: w.p. $1 - 2^{-m}$, for small $\sigma_{init}$, "
               r"$f_\infty(x) = \frac12\phi(\langle w_+, x\rangle)$."),
    "asmA.8": ("assumption", "Assumption A.8", r"$\|\mu_+\| < \|\mu_-\|$."),
    "asmA.9": ("assumption", "Assumption A.9",
               r"For any $m$ and $\theta$ with all $a_k \le 0$ [printed], the normalised margin on $\{i : y_i\langle w_-, x_i^-\rangle = \gamma_-\}$ is $< \gamma_-/2$."),
    "thmA.10": ("theorem", "Theorem A.10 (reversed case)",
                r"Under 3.2, A.2, A.6, A.8, A.9: w.p. $1 - 2^{-m}$, $f_\infty(x) = -\frac12\phi(-\langle w_-, x\rangle)$ for small $\sigma_{init}$."),
    "lemB.1": ("lemma", "Lemma B.1 (Gronwall)",
               r"If $u(t) \le \alpha(t) + \int_a^t\beta u$ with $\beta \ge 0$ then $u(t) \le \alpha(t) + \int_a^t\alpha(\tau)\beta(\tau)"
               r"e^{\int_\tau^t\beta}d\tau$; if $\alpha$ is non-decreasing, $u(t) \le \alpha(t)e^{\int_a^t\beta}$."),
    "thmB.2": ("theorem", "Theorem B.2", r"For locally Lipschitz $L$-homogeneous $f$: $\partial^\circ f(c\theta) = c^{L-1}\partial^\circ f(\theta)$, $c > 0$."),
    "thmB.3": ("theorem", "Theorem B.3 (Euler)", r"For all $g \in \partial^\circ f(\theta)$: $\langle g, \theta\rangle = L f(\theta)$."),
    "lemB.4": ("lemma", "Lemma B.4",
               r"If $\theta \in S^{d-1}$ maximises an $L$-homogeneous $f$ on the sphere and $f$ is differentiable there, "
               r"$\nabla f(\theta) = L f(\theta)\theta$."),
    "lemB.5": ("lemma", "Lemma B.5", r"If $w \in S^{d-1}$ maximises $|G|$ on the sphere and $G$ is differentiable at $w$, $\nabla G(w) = G(w)w$."),
    "defB.6": ("definition", "Definition B.6 (feasible / KKT point)",
               r"For $\min f$ s.t. $g_i \le 0$: $\exists\lambda_i \ge 0$ with $0 \in \partial^\circ f + \sum\lambda_i\partial^\circ g_i$ and $\lambda_ig_i = 0$."),
    "defB.7": ("definition", "Definition B.7 (KKT-margin direction, homogeneous net)",
               r"$q_i(\theta) > 0$ and $\theta \in \sum_i\lambda_i\partial^\circ q_i(\theta)$ with $\lambda_i = 0$ unless $q_i = q_{min}$."),
    "defB.8": ("definition", "Definition B.8 (KKT-margin direction, two-layer net)",
               r"$q_i > 0$ and $\exists\lambda \ge 0$: $w_k \in \sum_i\lambda_iy_ia_k\phi^\circ(w_k^\top x_i)x_i$, "
               r"$a_k = \sum_i\lambda_iy_i\phi(w_k^\top x_i)$, $\lambda_i = 0$ unless $q_i = q_{min}$."),
    "lemB.9": ("lemma", "Lemma B.9", r"Every KKT-margin direction is balanced: $|a_k| = \|w_k\|$ for all $k$."),
    "lemB.10": ("lemma", "Lemma B.10",
                r"For $\|x\| \le 1$: $|f_\theta(x)| \le m\|\theta\|_M^2$ and $|f_\theta(x) - f_{\tilde\theta}(x)| \le "
                r"m\|\theta - \tilde\theta\|_M(\|\theta\|_M + \|\tilde\theta\|_M)$."),
    "lemB.11": ("lemma", "Lemma B.11",
                r"Every element of $\partial^\circ(\mathcal{L} - \tilde{\mathcal{L}})$ restricted to $w_k$ has norm $\le m\|\theta\|_M^2|a_k|$, "
                r"and $|\partial(\mathcal{L} - \tilde{\mathcal{L}})/\partial a_k| \le m\|\theta\|_M^2\|w_k\|$."),
    "lemB.12": ("lemma", "Lemma B.12", r"For all $g \in \partial^\circ(\mathcal{L} - \tilde{\mathcal{L}})(\theta)$: $\|g\|_M \le m\|\theta\|_M^3$."),
    "corB.13": ("corollary", "Corollary B.13",
                r"If $\tilde{\mathcal{L}}$ is $C^1$ at $\theta$: every $g \in \partial^\circ\mathcal{L}(\theta) - \nabla\tilde{\mathcal{L}}(\theta)$ has $\|g\|_M \le m\|\theta\|_M^3$."),
    "lemB.14": ("lemma", "Lemma B.14",
                r"If $\|\theta\|_M \le \sqrt{\epsilon/(2m)}$: $\partial^\circ_{w_k}\mathcal{L} \subseteq \{-\frac{a_k}{2n}\sum_i(1+\epsilon_i)"
                r"\alpha_iy_ix_i : \alpha_i \in \phi^\circ(w_k^\top x_i), \epsilon_i \in [-\epsilon, \epsilon]\}$."),
    "lemB.15": ("lemma", "Lemma B.15 (Davis et al. 2020)",
                r"GF satisfies $\frac{d\theta}{dt} = -\bar\partial^\circ\mathcal{L}(\theta)$ and $\frac{d\mathcal{L}}{dt} = -\|\frac{d\theta}{dt}\|^2$ a.e."),
    "lemB.16": ("lemma", "Lemma B.16 (balance)",
                r"$\frac12\frac{d\|w_k\|^2}{dt} = \frac12\frac{da_k^2}{dt} = -\frac1n\sum_i\ell'(q_i)y_ia_k\phi(w_k^\top x_i)$; hence "
                r"$\|w_k\|^2 - a_k^2$ is constant."),
    "lemB.17": ("lemma", "Lemma B.17", r"If $a_k(t_0) = 0$ and $w_k(t_0) = 0$ then $a_k(t) = 0$, $w_k(t) = 0$ for all $t \ge 0$."),
    "corB.18": ("corollary", "Corollary B.18",
                r"If $|a_k(0)| = \|w_k(0)\|$ then $|a_k(t)| = \|w_k(t)\|$ for all $t$, and the sign of $a_k$ is preserved."),
    "thmB.19": ("theorem", "Theorem B.19",
                r"If some $k$ has $\mathrm{sgn}(a_k(0))\langle w_k(0), w^*\rangle > 0$ and $\langle w_k(0), w^*\rangle^2 > \|w_k(0)\|^2 - a_k(0)^2$ "
                r"($w^*$ a unit separator with margin $\gamma^* > 0$), then $a_k(t) \ne 0$, $\mathcal{L} \to 0$ and $\|\theta\| \to \infty$."),
    "lemB.20": ("lemma", "Lemma B.20",
                r"For a.e. $t$: $\langle\mathrm{sgn}(a_k)\frac{dw_k}{dt}, w^*\rangle \ge |a_k|\alpha\gamma^*(1 - e^{-n\mathcal{L}})/n$."),
    "lemD.1": ("lemma", "Lemma D.1", r"The linearised flow satisfies $\|\tilde\theta(t)\|_M \le e^{\lambda_0t}\|\tilde\theta_0\|_M$."),
    "lemD.2": ("lemma", "Lemma D.2",
               r"$\|\theta(t) - \tilde\phi(\theta_0, t)\|_M \le \frac{4m\|\theta_0\|_M^3}{\lambda_0}e^{3\lambda_0t}$ for "
               r"$t \le \frac{1}{\lambda_0}\ln\frac{\sqrt{\lambda_0/4}}{\sqrt m\|\theta_0\|_M}$."),
    "lemE.1": ("lemma", "Lemma E.1", r"$\theta(t) = \pi_b(\phi(\hat\theta^0, t))$ is a GF trajectory from $\pi_b(\hat\theta^0)$."),
    "lemE.2": ("lemma", "Lemma E.2", r"For $g \in \partial^\circ\mathcal{L}(\hat\theta)$: $\pi_b(g) \in \partial^\circ\mathcal{L}(\pi_b(\hat\theta))$."),
    "defE.3": ("definition", "Definition E.3 (well-aligned)",
               r"$\hat\theta$ is well-aligned if for $k \le p$, $\hat w_k/\|\hat w_k\|$ maximises $|G|$, $\hat a_k = \mathrm{sgn}(G(\hat w_k))"
               r"\|\hat w_k\|$, $\langle\hat w_k, x_i\rangle \ne 0$, and $\hat w_k = 0$, $\hat a_k = 0$ for $k > p$."),
    "thmE.4": ("theorem", "Theorem E.4",
               r"For well-aligned $\hat\theta$ and $t \le t_0$: $\lim_{r\to0}\phi(r\hat\theta, T_2(r) + t)$ exists, is within "
               r"$\frac{4m\|\hat\theta\|_M^3}{\lambda}e^{3\lambda t}$ of $e^{\lambda t}\hat\theta$, and is robust to $O(r^{1+\kappa})$ perturbations."),
    "lemE.5": ("lemma", "Lemma E.5",
               r"If $\|\theta_0 - r\hat\theta\|_M \le Cr^{1+\kappa}$, $r$ small: for $-T_2(r) \le t \le t_0$ the activation signs of "
               r"active neurons are preserved, $\|\phi\|_M \le 2e^{\lambda t}\|\hat\theta\|_M$, and P/R-seminorm bounds hold."),
    "lemE.6": ("lemma", "Lemma E.6",
               r"$\|\phi(\theta_0, T_2(r)+t) - \phi(r\hat\theta, T_2(r)+t)\|_M \le 4Cr^\kappa e^{\lambda t}$ for $t \in [-T_2(r), t_0]$."),
    "lemE.7": ("lemma", "Lemma E.7", r"For $m \ge 2$, $\bar b$ is a good embedding vector w.p. $1 - 2^{-(m-1)}$."),
    "lemE.8": ("lemma", "Lemma E.8 (Phase II.1)",
               r"If $\bar b$ is good, for $t \le t_0$: $\tilde\theta(t)$ exists, is close to $e^{\lambda_0t}\hat\theta$, and "
               r"$\lim_{\sigma\to0}\theta(T_{12}+t) = \pi_{\bar b}(\tilde\theta(t))$."),
    "lemE.9": ("lemma", "Lemma E.9 (Phase II.2)",
               r"If $\pi_{\bar b}(\tilde\theta(t_0))$ is non-branching and the limit holds at $t_0$, it holds for all $t > t_0$."),
    "lemE.10": ("lemma", "Lemma E.10", r"For every $\theta$ and $g \in \partial^\circ\mathcal{L}(\theta)$: $\|g\|_2 \le \|\theta\|_2$."),
    "lemE.11": ("lemma", "Lemma E.11", r"On $[t_0, t_s]$, $t \mapsto \theta(T_{12}+t)$ is Lipschitz with constant $\|\theta(T_{12}+t_0)\|_2e^{t_s-t_0}$."),
    "lemF.1": ("lemma", "Lemma F.1",
               r"If $y_i(\phi(\langle u_1, x_i\rangle) - \phi(-\langle u_2, x_i\rangle)) \ge 1$ for all $i$ then "
               r"$y_i(h_{1i}\langle u_2, x_i\rangle + h_{2i}\langle u_1, x_i\rangle) \ge 1$ for all $h_{1i} \in \phi^\circ(\langle u_1, x_i\rangle)$, "
               r"$h_{2i} \in \phi^\circ(-\langle u_2, x_i\rangle)$."),
    "lemF.2": ("lemma", "Lemma F.2", r"A width-2 KKT-margin direction with $a_1 > 0 > a_2$ has $w_1 = -w_2$, $a_1 = -a_2 = \|w_1\|$."),
    "lemF.3": ("lemma", "Lemma F.3",
               r"A width-2 KKT-margin direction with $\|\theta\| = 1$, $a_1 \ge 0 \ge a_2$ is one of $\frac12(w^*, -w^*, 1, -1)$, "
               r"$\frac{1}{\sqrt2}(w^*, 0, 1, 0)$, $\frac{1}{\sqrt2}(0, -w^*, 0, -1)$."),
    "lemF.4": ("lemma", "Lemma F.4 (Ji & Telgarsky 2020, Lemma 3.6)",
               r"Definable $f$ on $\{\|\theta\| > 1\}$: a desingularising $\Psi$ with $\Psi'(f)\|\theta\|\|\bar\partial^\circ f\| \ge 1$ "
               r"where the tangential part dominates."),
    "lemF.5": ("lemma", "Lemma F.5 (Ji & Telgarsky 2020, Lemma 3.7)",
               r"For any $\lambda > 0$ a desingularising $\Psi$ with $\Psi'(f)\|\theta\|^{1+\lambda}\|\bar\partial^\circ f\| \ge 1$."),
    "lemF.6": ("lemma", "Lemma F.6 (Ji & Telgarsky 2020, Lemma 3.4)",
               r"If $\mathcal{L}(\theta(t_0)) < \ell(0)/n$: $\frac{d\tilde\gamma}{dt} = \|\bar\partial^\circ_r\tilde\gamma\|\|\bar\partial^\circ_r\mathcal{L}\| "
               r"+ \|\bar\partial^\circ_\perp\tilde\gamma\|\|\bar\partial^\circ_\perp\mathcal{L}\|$ a.e."),
    "lemF.7": ("lemma", "Lemma F.7 (Ji & Telgarsky 2020, Lemma B.10)", r"$\tilde\gamma$ has finitely many asymptotic Clarke critical values."),
    "lemF.8": ("lemma", "Lemma F.8 (Lyu & Li 2020, Lemma C.12)",
               r"If $\mathcal{L}(\theta(t_0)) < \ell(0)/n$ there are $t_j \to \infty$ with $\beta(t_j) \to 1$."),
    "thmF.9": ("theorem", "Theorem F.9",
               r"If $\mathcal{L}(\theta(0)) < \ell(0)/n$, $\theta/\|\theta\|$ converges to some $\bar\theta$ and $\gamma(\bar\theta)$ is an "
               r"asymptotic Clarke critical value of $\tilde\gamma$."),
    "lemF.10": ("lemma", "Lemma F.10", r"Two KL-type inequalities near any direction $\bar\theta^*$ with one desingularising $\Psi$."),
    "lemF.11": ("lemma", "Lemma F.11",
                r"Near a local-max-margin direction, $\frac{d\zeta}{dt} \le -c\frac{d}{dt}\Psi(\gamma(\bar\theta^*) - \tilde\gamma(\theta(t)))$ "
                r"until $\tilde\gamma$ reaches $\gamma(\bar\theta^*)$."),
    "lemG.1": ("lemma", "Lemma G.1", r"Assumption A.1 implies Assumption A.2."),
    "lemG.2": ("lemma", "Lemma G.2",
               r"A.2 $\iff K \subseteq \mathrm{int}(C) \iff \forall i: \min_{\alpha\in[\alpha,1]^n}\langle y_ix_i, \sum_j\alpha_jy_jx_j\rangle > 0$."),
    "lemG.3": ("lemma", "Lemma G.3",
               r"Under A.2, if $w(0) \notin \{\lambda\mu_- : \lambda \ge 0\}$ [printed] and $\frac{dw}{dt} \in \|w\|\partial^\circ G(w)$, "
               r"then $w(T_0) \in C_{\delta/2}$ for some $T_0 > 0$."),
    "lemG.4": ("lemma", "Lemma G.4 (non-symmetric Phase I(a))",
               r"Under A.2, for balanced $\bar\theta$ avoiding the printed rays, there are $T_0, \sigma_{max}$ with $w_k(T_0) \in "
               r"\mathrm{sgn}(\bar a_k)C_{\delta/3}$ and $A\sigma \le \|w_k(T_0)\| \le B\sigma$ for all $\sigma < \sigma_{max}$."),
    "lemG.5": ("lemma", "Lemma G.5 (non-symmetric Phase I(b))",
               r"At $T_0 + T_1(\sigma, r)$ positive neurons are $r\bar b_k(\bar\mu_+, 1) + O(r^3)$ and negative neurons "
               r"$r^{1-\kappa}\bar b_k(\bar\mu_-, 1) + O(r^3)$, $\kappa = 1 - \|\mu_-\|/\|\mu_+\|$."),
    "lemG.6": ("lemma", "Lemma G.6", r"$\|\tilde\theta(t)\|_M \le e^{(t-T_0)\lambda_0^+}\|\tilde\theta(T_0)\|_M$ (linear flow)."),
    "lemG.7": ("lemma", "Lemma G.7",
               r"$\|\theta(t) - \tilde\phi(\theta(T_0), t - T_0)\|_M \le \frac{4m\|\theta(T_0)\|_M^3}{\lambda_0^+}e^{3\lambda_0^+(t-T_0)}$ on a window."),
    "lemG.8": ("lemma", "Lemma G.8 (non-symmetric Phase II)",
               r"W.p. $1 - 2^{-m}$ the limit $\hat b$ has $\hat b_+ > 0 = \hat b_-$ and $\lim_j\theta_j(T_{12}(\sigma_j) + t) = \pi_{\hat b}(\tilde\theta(t))$."),
    "thmG.9": ("theorem", "Theorem G.9",
               r"For $m = 1$, $a_1(0) = \|w_1(0)\|$, $\langle w_1(0), w^*\rangle > 0$: $\theta/\|\theta\| \to \frac{1}{\sqrt2}(w_+, 1)$."),
    "lemG.10": ("lemma", "Lemma G.10",
                r"$\sup_{\theta\in\Theta_-}\min_{i\in S_+}q_i(\theta)/\|\theta\|^2 = \inf_{\lambda\in\Lambda_+}\sup_{u\in S^{d-1}}"
                r"(-\frac12\sum_i\lambda_iy_i\phi(\langle u, x_i\rangle))$."),
    "thmG.11": ("theorem", "Theorem G.11",
                r"Under A.5, $\pi_b(\hat\theta)$, $\hat\theta = (w_+/\sqrt2, 1/\sqrt2, 0, 0)$, is a local maximiser of $\gamma$ on $\bar Q$, "
                r"and nearby $\theta \in \bar Q$ with the same margin have $f_\theta = f_{\hat\theta}$."),
    "thmG.12": ("theorem", "Theorem G.12", r"For any $\sigma_j \to 0$ a subsequence satisfies the conclusion of Thm A.7."),
    "defH.1": ("definition", "Definition H.1 (orthogonal separability)",
               r"$x_i^\top x_j > 0$ whenever $y_i = y_j$ and $x_i^\top x_j \le 0$ whenever $y_i = -y_j$."),
    "thmH.2": ("theorem", "Theorem H.2",
               r"(ReLU) For OS data all KKT-margin directions $\theta \in S^{D-1}$ give the same function $f_\theta$; hence all are global-max-margin."),
    "lemH.3": ("lemma", "Lemma H.3",
               r"(ReLU, OS) At a KKT point of (P), for $a_k \ne 0$: $|a_k| = \|w_k\|$ and $(\sum_{j: a_ja_k > 0}a_j^2)w_k/a_k$ [printed] "
               r"is the unique minimiser of $\min\frac12\|w\|^2$ s.t. $\langle w, x_i\rangle \ge 1$ for $y_i = \mathrm{sgn}(a_k)$."),
    "exp.J": ("experiment", "Table 1 and Figure 4 (App. J)",
              r"On $n \in \{10, \dots, 100\}$ Gaussian points in $d = 50$, labelled through zero and translated away from the "
              r"separator, a width-100 leaky-ReLU net with bias trained by GD from $0.001\times$ He initialisation has the "
              r"test error of the SVM max-margin linear classifier to within about 2 points (Table 1), and its decision "
              r"boundary on a plane through 0 is the SVM's (Figure 4)."),
}

# Dependency graph from the proofs (spec §6.1): id suffix -> used id suffixes.
USES: dict[str, list[str]] = {
    "thm4.2": ["asm3.2", "asm4.1", "def3.3"],
    "cor4.4": ["thm4.2", "thm4.3"],
    "thm4.3": ["lem5.2", "lem5.3", "lem5.4", "thm5.5", "thm5.6", "thm4.2", "asm4.5", "asm4.6", "thmB.19", "thm3.1"],
    "lem5.2": ["lemD.1", "lemD.2", "corB.13", "lemB.1", "def5.1"],
    "lemD.2": ["lemD.1", "corB.13", "lemB.1"],
    "lem5.3": ["lemE.1"], "lemE.1": ["lemE.2"],
    "lem5.4": ["lemE.7", "lemE.8", "lemE.9", "lem5.2", "thmB.19"],
    "lemE.8": ["thmE.4", "lemE.1", "lem5.2"], "lemE.9": ["lemE.10", "lemE.11", "asm4.6"],
    "thmE.4": ["lemE.5", "lemE.6", "lemB.5", "lemB.11", "lemB.17", "defE.3"], "lemE.6": ["lemE.5", "lemB.10"],
    "thm5.5": ["thmB.19", "thm3.1", "lemF.3", "corB.18", "lemB.20"], "lemF.3": ["lemF.2"], "lemF.2": ["lemF.1", "lemB.9"],
    "thm5.6": ["lemF.11", "thmF.9", "lemF.7"], "lemF.11": ["lemF.6", "lemF.10"], "lemF.10": ["lemF.4", "lemF.5"],
    "thmF.9": ["thm3.1", "lemF.8"],
    "thm6.2": ["thmA.7", "lemG.1", "def6.1"], "thmA.7": ["thmG.12"],
    "thmG.12": ["lemG.5", "lemG.8", "thmG.9", "thmG.11", "thm5.6", "corB.18"],
    "thmG.11": ["lemG.10", "asmA.5", "lemB.9"], "lemG.5": ["lemG.4", "lemG.6", "lemG.7"], "lemG.8": ["lemG.5"],
    "lemG.4": ["lemG.2", "lemB.14", "lemB.16", "corB.18"], "lemG.1": ["lemG.2", "asmA.1", "asmA.2"],
    "thmA.10": ["thmA.7", "asmA.8", "asmA.9"],
    "lemB.9": ["thmB.3", "defB.8"], "lemB.11": ["lemB.10"], "lemB.12": ["lemB.11"], "corB.13": ["lemB.12"],
    "lemB.14": ["lemB.10"], "lemB.16": ["thmB.3"], "lemB.17": ["lemB.16", "lemB.1"], "corB.18": ["lemB.16", "lemB.17"],
    "thmB.19": ["lemB.20", "lemB.15", "lemB.16", "thm3.1"],
    "thmH.2": ["lemH.3", "lemB.9", "defH.1"], "lemA.4": ["defB.8"], "thmG.9": ["lemA.4", "thm3.1"],
}

# Items that cannot be checked numerically, with the reason (spec §3, class N and D).
NOT_CHECKABLE: dict[str, str] = {
    "asm4.6": "non-branching of a Clarke/Filippov flow is a statement about all trajectories from a point; "
              "no finite computation certifies uniqueness (spec §3.1). Assumed wherever used.",
    "asmA.6": "non-branching of all trajectories from a configuration is not finitely checkable (spec §3.1).",
    "lemF.4": "existence of a definable desingularising function (o-minimal geometry); no numerical witness (spec §3.7).",
    "lemF.5": "existence of a definable desingularising function (o-minimal geometry); no numerical witness (spec §3.7).",
    "lemF.7": "finiteness of the set of asymptotic Clarke critical values of a definable function (o-minimality); "
              "not numerically checkable (spec §3.7).",
    "lemF.10": "existence of a desingularising Psi with two KL inequalities; not numerically checkable (spec §3.7).",
    "lemF.11": "path-length bound through an unknown desingularising function Psi; only a proxy (fitted power of the "
               "margin gap) could be recorded (spec §3.7).",
    "def5.1": "definition: the M-norm, implemented as theorems.lyu2021.common.norm_M and exercised by lem5.2 and lemB.10.",
    "defB.6": "definition: Clarke KKT point; implemented through verify.numerics.margin.two_layer_kkt_residual (Def B.8 form).",
    "defB.7": "definition: KKT-margin direction of a homogeneous net; the two-layer form Def B.8 is the one computed.",
    "defB.8": "definition: KKT-margin direction of a two-layer net; implemented as the LP two_layer_kkt_residual and "
              "exercised by lemB.9, lemA.4, lemF.3 and ex.I1.1.*.",
    "def6.1": "definition: the hinted data set, built by fixture family lyu.hinted (which certifies the SVM w* and "
              "records the margins; w+ = w* is thm6.2's hypothesis 'w+ = w*', evaluated per fixture).",
    "defE.3": "definition: well-aligned parameter vectors; the symmetric construction w_k = b_k mubar, a_k = b_k is used in lem5.2.",
    "defH.1": "definition: orthogonal separability, implemented as the hypothesis predicate 'orthogonally separable (Def H.1)'.",
    "def3.3": "definition: the max-margin linear separator w*, computed by verify.numerics.margin.svm_origin "
              "(KKT residuals recomputed); used by every claim through the fixtures' w_star.",
    "asm3.2": "assumption: implemented as the hypothesis predicate 'linearly separable (Asm 3.2)' (certified SVM), "
              "evaluated on every fixture of the claims that assume it.",
    "asm4.1": "assumption: implemented as the hypothesis predicate 'symmetric data (Asm 4.1)' (exact structural check), "
              "evaluated on every fixture; non-symmetric negative controls (lyu.sym.broken, lyu.gen.*) exercise it.",
    "asm4.5": "assumption: implemented as the hypothesis predicate '<mu, x_i> != 0 (Asm 4.5)'; the symmetric fixture "
              "families redraw until it holds with slack 1e-6.",
    "asmA.1": "assumption: implemented as asm_a1_slack (theorems.lyu2021.appendix_gh), searched over candidate "
              "directions in lemG.1 (only 'holds' is certain).",
    "asmA.2": "assumption: implemented as the hypothesis predicate 'Asm A.2' (exact formula; equivalence with the cone "
              "form checked by lemG.2).",
    "asmA.3": "assumption: implemented as the hypothesis predicate 'Asm A.3' (||mu+|| - ||mu-||).",
    "asmA.5": "assumption: implemented as the hypothesis predicate 'Asm A.5 (via the all-negative oracle of Lemma G.10, "
              "d = 2)' (exact SOCP; its identity with the minimax is checked by lemG.10).",
    "asmA.8": "assumption: implemented as the hypothesis predicate 'Asm A.8' (||mu-|| - ||mu+||), used by thmA.10.",
}


# What each check checks of its printed statement (issue 27): faithful, partial (which part), proxy (which stand-in)
# or definitional (by construction); an amended claim inherits its printed claim's entry.
FIDELITY: dict[str, tuple[str, str]] = {
    "lemB.1": ("faithful", ""),
    "thmB.2": ("partial", "two of the paper's homogeneous functions, f_theta(x) (L = 2) and G (L = 1), not "
                    "every locally Lipschitz homogeneous f"),
    "thmB.3": ("partial", "two of the paper's homogeneous functions, f_theta(x) (L = 2) and G (L = 1), not "
                    "every locally Lipschitz homogeneous f"),
    "lemB.4": ("partial", "two homogeneous functions (a quadratic form and G) at their maximisers, not "
                    "every homogeneous f"),
    "lemB.5": ("partial", "G on symmetric data (maximiser mubar) and on d = 2 data (exact arc enumeration)"),
    "lemB.9": ("partial", "the KKT points the harness knows (constructed or certified), not every "
                    "KKT-margin direction"),
    "lemB.10": ("faithful", ""),
    "lemB.11": ("faithful", ""),
    "lemB.12": ("faithful", ""),
    "corB.13": ("faithful", ""),
    "lemB.14": ("faithful", ""),
    "lemB.15": ("partial", "the energy identity dL/dt = -||dtheta/dt||^2 (integrated along an accurate "
                    "flow); that the velocity is the min-norm Clarke element is not checked "
                    "separately"),
    "lemB.16": ("faithful", ""),
    "lemB.17": ("faithful", ""),
    "corB.18": ("faithful", ""),
    "thmB.19": ("partial", "a_k(t) != 0 and L < ln2/n within a finite run, then L -> 0 and ||theta|| -> inf "
                    "through Thm 3.1 (monotone along four horizons), not the limits themselves"),
    "lemB.20": ("faithful", ""),
    "lemD.1": ("faithful", ""),
    "lemD.2": ("faithful", ""),
    "lemE.1": ("faithful", ""),
    "lemE.2": ("faithful", ""),
    "lemE.7": ("faithful", ""),
    "lemE.10": ("faithful", ""),
    "lemE.11": ("faithful", ""),
    "lemF.1": ("faithful", ""),
    "lemF.3": ("partial", "the three listed directions are KKT (LP certificate); that there are no others "
                    "is probed by where normalised GD from 8 random starts ends, not proved"),
    "lemF.2": ("partial", "KKT points reached by normalised GD from random width-2 starts, judged along "
                    "horizons, not every KKT point"),
    "thmE.4": ("faithful", ""),
    "lemE.5": ("faithful", ""),
    "lemE.6": ("faithful", ""),
    "obs.G.3.grad_G_cone": ("faithful", ""),
    "lemG.3": ("faithful", ""),
    "lemG.4": ("faithful", ""),
    "lemG.6": ("faithful", ""),
    "lemG.7": ("faithful", ""),
    "lemG.5": ("faithful", ""),
    "lemG.8": ("faithful", ""),
    "thm6.2": ("partial", "the limit statement on hinted data at chosen H, K, eps (large H, K and small eps "
                    "not varied to their limits); the suboptimal margin is lyu2021.thm6.2.suboptimal; "
                    "A.6 (non-branching) assumed"),
    "thm6.2.suboptimal": ("faithful", ""),
    "thmA.7": ("faithful", ""),
    "thmG.12": ("partial", "one sequence sigma_j = sigma {1, 1e-2, 1e-4} (a seed whose proof event holds but "
                           "that has not succeeded there is rerun at 1e-20 and 1e-40), not every sequence sigma_j -> 0"),
    "thmA.10": ("partial", "the d = 2 label-flipped hinted family only (alpha in {0.5, 0.8}, m = 2; m = 1 outside quick, "
                           "n0 = 4, gap 0.7): the amended claim there, a satisfiability witness for its hypotheses, not "
                           "every data set meeting them; the mirrored A.6 is assumed, not verified; the printed claim is "
                           "vacuous everywhere by a closed form"),
    "asmA.9": ("faithful", ""),
    "exp.J": ("partial", "a reduced size (n in {10, 20, 40}, not 10..100) with the unstated settings chosen "
                         "(translation 0.1, alpha = 1/2, step schedule), finite horizons; the SVM is the hard-margin one "
                         "with the bias coordinate"),
    "lemA.4": ("partial", "(w+/sqrt2, 1/sqrt2) is a KKT direction with margin gamma+/2; that it is the only "
                    "one with a_1 >= 0 is probed by 100 other separators and 200 random balanced one-neuron "
                    "directions (no margin ascent), not proved"),
    "thmG.9": ("faithful", ""),
    "lemG.1": ("partial", "A.1 => A.2 where some candidate direction witnesses A.1 (a search; data where "
                    "A.1 holds unwitnessed are not tested)"),
    "lemG.2": ("faithful", ""),
    "lemG.10": ("partial", "d = 2 (the exact SOCP oracle); the minimax's inner maximum over a grid of 20000 "
                    "directions plus breakpoints"),
    "thmH.2": ("partial", "the limits of GD from 4 random inits, not every KKT-margin direction"),
    "lemH.3": ("partial", "KKT points reached by normalised GD from random starts (5 width/sign splits), "
                    "not every KKT point"),
    "thmG.11": ("partial", "local maximality probed by 3000 random perturbations and one directed one on the "
                    "tangent set, not proved"),
    "ex.I1.1.relu": ("faithful", ""),
    "ex.I1.1.leaky": ("faithful", ""),
    "ex.I2.1": ("faithful", ""),
    "obs.I2.1.os_monotone": ("faithful", ""),
    "thm3.1": ("partial", "L -> 0 and ||theta|| -> inf as monotone along five margin horizons; directional "
                    "convergence to a KKT direction as the fitted limit of the KKT residual at finite "
                    "horizons (Q <= 25600)"),
    "thm4.2.sym_identity": ("faithful", ""),
    "thm4.2.upper_bound": ("partial", "the chain gamma(theta) <= gamma(sym theta) <= bound on 2000 sampled parameters; "
                    "the supremum itself is certified only in d = 2 by lyu2021.thm4.2"),
    "thm4.2.attained": ("faithful", ""),
    "thm4.2": ("partial", "d = 2, exactly over every width (cell SOCP and its dual); d >= 3 only through "
                    "the proof steps thm4.2.sym_identity, upper_bound, attained"),
    "thm4.3": ("faithful", ""),
    "cor4.4": ("faithful", ""),
    "obs.sec4.3.mu_wstar": ("definitional", ""),
    "obs.sec4.3.mu_wstar.unit": ("faithful", ""),
    "exp.fig1": ("partial", "the panels' data built as the paper describes them (no coordinates printed); the "
                    "middle panel's better network found by a search"),
    "exp.fig2": ("partial", "the left and right panels (the middle one is lyu2021.exp.fig2.middle), judged at "
                    "finite margin horizons from 0.001 x He inits"),
    "exp.fig2.middle": ("partial", "the panel's data read from its description (no coordinates printed: eps = 0.1, "
                    "eps' = 3 or 5, c = 0.05, alpha = 1/2), width 8, finite horizons"),
    "exp.fig2.middle.assumptions": ("partial", "a grid over the family's parameters, not the continuum"),
    "lemF.6": ("faithful", ""),
    "lemF.8": ("partial", "beta along finite margin horizons of an accurate flow, not the existence of a "
                    "sequence t_j -> inf with beta(t_j) -> 1"),
    "thmF.9": ("partial", "finite margin horizons (Q <= 3200) of an accurate flow; directional convergence "
                    "itself is judged by thm3.1"),
    "lem5.2": ("faithful", ""),
    "obs.sec5.1.mu_tilde": ("faithful", ""),
    "lem5.3": ("faithful", ""),
    "thm5.5": ("faithful", ""),
    "thm5.6": ("partial", "one local-max-margin direction (the global one of Thm 4.2), eps0 in {0.1, 0.03, "
                    "0.01}, rho0 = 10"),
    "lem5.4": ("faithful", ""),
    "lemE.8": ("faithful", ""),
    "lemE.9": ("faithful", ""),
}


# Claims whose conclusions carry no room (no comparison against a printed bound or constant), and why.
NO_ROOM: dict[str, str] = {
    "cor4.4": "a probability judged by a Clopper-Pearson interval against the printed 1 - 2^-k, plus "
              "limits judged as trends and the proof's event as yes/no: no bound with a factor of "
              "room",
    "thm4.3": "a probability judged by a Clopper-Pearson interval against the printed 1 - 2^-k, plus "
              "limits judged as trends and the proof's event as yes/no: no bound with a factor of "
              "room",
    "thm6.2": "a probability judged by a Clopper-Pearson interval against the printed 1 - 2^-k, plus "
              "limits judged as trends and the proof's event as yes/no: no bound with a factor of "
              "room",
    "thmA.7": "a probability judged by a Clopper-Pearson interval against the printed 1 - 2^-k, plus "
              "limits judged as trends and the proof's event as yes/no: no bound with a factor of "
              "room",
    "thmG.12": "a probability judged by a Clopper-Pearson interval against the printed 1 - 2^-k, plus "
               "limits judged as trends and the proof's event as yes/no: no bound with a factor of "
               "room",
    "thmA.10": "a probability judged by a Clopper-Pearson interval against the printed 1 - 2^-k, plus "
               "limits judged as trends and the proof's event as yes/no: no bound with a factor of "
               "room",
    "corB.18": "balance a_k = s_k ||w_k|| (an identity along the flow, to 1e-9) and constant signs "
               "(yes/no)",
    "ex.I2.1": "identities checked to rounding (relative 1e-12 or so): no printed constant to be off "
               "by a factor",
    "lem5.3": "identities checked to rounding (relative 1e-12 or so): no printed constant to be off "
              "by a factor",
    "lemB.16": "identities checked to rounding (relative 1e-12 or so): no printed constant to be off "
               "by a factor",
    "lemE.1": "identities checked to rounding (relative 1e-12 or so): no printed constant to be off "
              "by a factor",
    "lemE.2": "identities checked to rounding (relative 1e-12 or so): no printed constant to be off "
              "by a factor",
    "thm4.2.sym_identity": "identities checked to rounding (relative 1e-12 or so): no printed constant to be off "
                           "by a factor",
    "thmB.2": "identities checked to rounding (relative 1e-12 or so): no printed constant to be off "
              "by a factor",
    "thmB.3": "identities checked to rounding (relative 1e-12 or so): no printed constant to be off "
              "by a factor",
    "lemB.4": "identities checked to rounding (relative 1e-12 or so): no printed constant to be off "
              "by a factor",
    "lemG.2": "identities checked to rounding (relative 1e-12 or so): no printed constant to be off "
              "by a factor",
    "obs.sec5.1.mu_tilde": "identities checked to rounding (relative 1e-12 or so): no printed constant to be off "
                           "by a factor; the growth rate is an identity too",
    "obs.G.3.grad_G_cone": "identities checked to rounding (relative 1e-12 or so): no printed constant to be off "
                           "by a factor; the growth rate is an identity too",
    "thm4.2.attained": "identities checked to rounding (relative 1e-12 or so): no printed constant to be off "
                       "by a factor",
    "exp.fig2": "limits judged as trends toward the claimed value (judge_trend) and yes/no conclusions: "
                "the tolerance is the harness's, not a printed constant",
    "exp.fig2.middle": "a probability judged by a Clopper-Pearson interval against the printed 1 - 2^-k, plus "
                       "limits judged as trends and the proof's event as yes/no: no bound with a factor of "
                       "room",
    "thm3.1": "limits judged as trends toward the claimed value (judge_trend) and yes/no conclusions: "
              "the tolerance is the harness's, not a printed constant",
    "thmG.9": "limits judged as trends toward the claimed value (judge_trend) and yes/no conclusions: "
              "the tolerance is the harness's, not a printed constant",
    "thmF.9": "limits judged as trends toward the claimed value (judge_trend) and yes/no conclusions: "
              "the tolerance is the harness's, not a printed constant",
    "lemF.8": "limits judged as trends toward the claimed value (judge_trend) and yes/no conclusions: "
              "the tolerance is the harness's, not a printed constant",
    "lemE.9": "limits judged as trends toward the claimed value (judge_trend) and yes/no conclusions: "
              "the tolerance is the harness's, not a printed constant",
    "thm5.5": "limits judged as trends toward the claimed value (judge_trend) and yes/no conclusions: "
              "the tolerance is the harness's, not a printed constant; the printed limit's norm is a "
              "closed-form identity",
    "lem5.2": "order statements judged by fitted exponents and limits judged as trends; the proof's "
              "constant is compared without room (it is not the statement's)",
    "lem5.4": "order statements judged by fitted exponents and limits judged as trends; the proof's "
              "constant is compared without room (it is not the statement's)",
    "lemG.5": "order statements judged by fitted exponents and limits judged as trends; the proof's "
              "constant is compared without room (it is not the statement's)",
    "lemG.8": "order statements judged by fitted exponents and limits judged as trends; the proof's "
              "constant is compared without room (it is not the statement's)",
    "lemB.1": "(11) and (12) hold with equality on the constructed u up to the slack s >= 0 drawn by "
              "the check, so the room measures the draw, not a constant; compared with a quadrature "
              "tolerance",
    "lemB.15": "an energy identity (tolerance: quadrature error)",
    "lemB.20": "a sign statement (a lower bound whose both sides scale together; the check compares "
               "their difference with 0)",
    "lemB.9": "KKT certificates and balance |a_k| = ||w_k|| (identities to 1e-9 / 1e-12)",
    "lemE.7": "a probability of an exactly computable event against 1 - 2^-(m-1) (two-sided interval, "
              "no factor)",
    "lemF.1": "a feasibility inequality >= 1 whose tight samples meet it with equality by "
              "construction (no room claimed)",
    "lemF.2": "limits judged as trends toward the claimed value (judge_trend) and yes/no conclusions: "
              "the tolerance is the harness's, not a printed constant",
    "lemF.3": "limits judged as trends toward the claimed value (judge_trend) and yes/no conclusions: "
              "the tolerance is the harness's, not a printed constant; KKT certificates (LP "
              "residuals)",
    "lemF.6": "a pointwise inequality between two expressions of the flow's velocity compared up to a "
              "finite-difference tolerance; its room is not a printed constant",
    "lemG.1": "an implication (A.1 => A.2 slack > 0): a sign",
    "lemG.10": "an identity of two optima (SOCP vs LP)",
    "lemG.3": "yes/no conclusions (a sign, an inclusion, membership, existence of an entry time): no "
              "constant to be off by a factor",
    "lemG.4": "yes/no conclusions (a sign, an inclusion, membership, existence of an entry time): no "
              "constant to be off by a factor; the neurons' cone margins compared with delta/3 (delta "
              "computed, not printed)",
    "lemH.3": "identities checked to rounding (relative 1e-12 or so): no printed constant to be off "
              "by a factor (KKT stationarity of the listed vector)",
    "obs.I2.1.os_monotone": "a sign statement (>= 0)",
    "thm4.2": "the global max margin equals (1+alpha)/4 gamma_lin (an identity, to 1e-6) and the "
              "structure of every maximiser (yes/no from the dual certificate)",
    "thm6.2.suboptimal": "a strict inequality gamma > gamma+/2 judged against a numerical threshold 1e-6 (not a "
                         "printed constant)",
    "thmB.19": "yes/no conclusions (a_k keeps its sign, L < ln2/n reached, monotone L and ||theta||); "
               "the proof's time bound is compared without room",
    "thmG.11": "a local maximality (gamma(theta) <= gamma(theta_c)) probed by perturbations: ties at "
               "the maximum leave no factor",
}

# Claims whose printed conclusion is not expected to fail anywhere in a run, with the reason (issue 27's "cannot fail
# here", acknowledged): the claim keeps the mark and is not fully verified.
CANNOT_FAIL: dict[str, str] = {
    "asmA.9": "(amended) an assumption about the data with no hypothesis of its own to break, so no probe; the "
              "unmutated control on the unflipped hinted data, where the mirrored A.9 fails (sup 4.27 gamma-/2), is "
              "refuted, which the engine does not count as a probe; the halved constant is refuted",
    "lemB.1": "a pointwise inequality or identity over every parameter (and data set) of its class: "
              "no hypothesis the check could break while staying in the statement's domain; the "
              "mutated-constant control shows that the check can fail",
    "lemB.10": "a pointwise inequality or identity over every parameter (and data set) of its class: "
               "no hypothesis the check could break while staying in the statement's domain; the "
               "mutated-constant control shows that the check can fail",
    "lemB.11": "a pointwise inequality or identity over every parameter (and data set) of its class: "
               "no hypothesis the check could break while staying in the statement's domain; the "
               "mutated-constant control shows that the check can fail",
    "lemB.12": "a pointwise inequality or identity over every parameter (and data set) of its class: "
               "no hypothesis the check could break while staying in the statement's domain; the "
               "mutated-constant control shows that the check can fail",
    "corB.13": "a pointwise inequality or identity over every parameter (and data set) of its class: "
               "no hypothesis the check could break while staying in the statement's domain; the "
               "mutated-constant control shows that the check can fail",
    "lemB.14": "a pointwise inequality or identity over every parameter (and data set) of its class: "
               "no hypothesis the check could break while staying in the statement's domain; the "
               "mutated-constant control shows that the check can fail",
    "lemB.16": "a pointwise inequality or identity over every parameter (and data set) of its class: "
               "no hypothesis the check could break while staying in the statement's domain; the "
               "mutated-constant control shows that the check can fail",
    "lemB.17": "a pointwise inequality or identity over every parameter (and data set) of its class: "
               "no hypothesis the check could break while staying in the statement's domain; the "
               "mutated-constant control shows that the check can fail",
    "lemB.20": "a pointwise inequality or identity over every parameter (and data set) of its class: "
               "no hypothesis the check could break while staying in the statement's domain; the "
               "mutated-constant control shows that the check can fail",
    "lemE.10": "a pointwise inequality or identity over every parameter (and data set) of its class: "
               "no hypothesis the check could break while staying in the statement's domain; the "
               "mutated-constant control shows that the check can fail",
    "thmB.2": "a pointwise inequality or identity over every parameter (and data set) of its class: "
              "no hypothesis the check could break while staying in the statement's domain; the "
              "mutated-constant control shows that the check can fail",
    "thmB.3": "a pointwise inequality or identity over every parameter (and data set) of its class: "
              "no hypothesis the check could break while staying in the statement's domain; the "
              "mutated-constant control shows that the check can fail",
    "lemB.4": "a pointwise inequality or identity over every parameter (and data set) of its class: "
              "no hypothesis the check could break while staying in the statement's domain; the "
              "mutated-constant control shows that the check can fail",
    "lemB.5": "a pointwise inequality or identity over every parameter (and data set) of its class: "
              "no hypothesis the check could break while staying in the statement's domain; the "
              "mutated-constant control shows that the check can fail",
    "lemE.1": "a pointwise inequality or identity over every parameter (and data set) of its class: "
              "no hypothesis the check could break while staying in the statement's domain; the "
              "mutated-constant control shows that the check can fail",
    "lemE.2": "a pointwise inequality or identity over every parameter (and data set) of its class: "
              "no hypothesis the check could break while staying in the statement's domain; the "
              "mutated-constant control shows that the check can fail",
    "lem5.3": "a pointwise inequality or identity over every parameter (and data set) of its class: "
              "no hypothesis the check could break while staying in the statement's domain; the "
              "mutated-constant control shows that the check can fail",
    "lemG.2": "a pointwise inequality or identity over every parameter (and data set) of its class: "
              "no hypothesis the check could break while staying in the statement's domain; the "
              "mutated-constant control shows that the check can fail",
    "lemG.10": "a pointwise inequality or identity over every parameter (and data set) of its class: "
               "no hypothesis the check could break while staying in the statement's domain; the "
               "mutated-constant control shows that the check can fail",
    "thm4.2.attained": "a pointwise inequality or identity over every parameter (and data set) of its class: "
                       "no hypothesis the check could break while staying in the statement's domain; the "
                       "mutated-constant control shows that the check can fail",
    "lemD.1": "a pointwise inequality or identity over every parameter (and data set) of its class: "
              "no hypothesis the check could break while staying in the statement's domain; the "
              "mutated-constant control shows that the check can fail; off Asm 4.1 (sym.broken) it "
              "still holds: Cauchy-Schwarz and Gronwall need no symmetry",
    "lemG.6": "a pointwise inequality or identity over every parameter (and data set) of its class: "
              "no hypothesis the check could break while staying in the statement's domain; the "
              "mutated-constant control shows that the check can fail; off Asm A.2 it still holds: "
              "Cauchy-Schwarz and Gronwall need no cone condition",
    "obs.G.3.grad_G_cone": "(amended) grad G = mu+/2 is an identity on int(C) whenever int(C) is nonempty; off A.2 "
                           "(hinted.smallH) it still holds; the quartered constant is refuted",
    "lemB.15": "a property of every gradient-flow trajectory the check integrates, with no hypothesis "
               "left to break (its domain is all starts of the class); the mutated control shows that "
               "the check can fail",
    "corB.18": "a property of every gradient-flow trajectory the check integrates, with no hypothesis "
               "left to break (its domain is all starts of the class); the mutated control shows that "
               "the check can fail",
    "lemE.5": "a property of every gradient-flow trajectory the check integrates, with no hypothesis "
              "left to break (its domain is all starts of the class); the mutated control shows that "
              "the check can fail",
    "lemE.6": "a property of every gradient-flow trajectory the check integrates, with no hypothesis "
              "left to break (its domain is all starts of the class); the mutated control shows that "
              "the check can fail",
    "lemE.11": "a property of every gradient-flow trajectory the check integrates, with no hypothesis "
               "left to break (its domain is all starts of the class); the mutated control shows that "
               "the check can fail",
    "thmE.4": "a property of every gradient-flow trajectory the check integrates, with no hypothesis "
              "left to break (its domain is all starts of the class); the mutated control shows that "
              "the check can fail",
    "ex.I1.1.leaky": "a worked example with fixed numbers, true once computed; the mutated control shows "
                     "that the check can fail",
    "ex.I1.1.relu": "a worked example with fixed numbers, true once computed; the mutated control shows "
                    "that the check can fail",
    "ex.I2.1": "a worked example with fixed numbers, true once computed; the mutated control shows "
               "that the check can fail",
    "lemB.9": "balance of the KKT points the harness knows; a KKT point is balanced whatever the "
              "data, and an unbalanced point fails the KKT certificate (the mutated control)",
    "lemE.7": "a property of the initialisation distribution D_init(1) alone (no data, no "
              "hypothesis); the halved probability is refuted",
    "lemA.4": "a property of every separable data set (its only hypothesis); the missing-1/2 margin "
              "is refuted",
    "lemG.1": "an implication checked only where A.1 is witnessed; data breaking A.1 leave it "
              "vacuous, not false",
    "exp.fig1": "a fact about the panels' data as constructed; the control claiming no better network "
                "exists is refuted",
    "exp.fig2": "GD converged to the predicted classifier on every run of these panels; the one-sided "
                "target is refuted",
    "exp.fig2.middle": "(amended, the harness's restatement) on the eps = 0.5 member every He seed converged "
                       "in quick; the reversed target and 'every initialisation' are refuted",
    "exp.J": "(amended, Table 1) the test errors agreed on every seed; the 0.1-point constant is "
             "refuted",
    "lemE.9": "off Asm 4.1 (gen.gauss) the probe ends undecided (no good-bbar seed settles), so no "
              "control shows the conclusion failing; the mutated control is refuted",
    "lemF.6": "its only hypothesis (L < ln2/n) cannot be broken without leaving the late phase the "
              "inequality is about (theta0 = 0 has no flow to measure); the mutated control is "
              "refuted",
    "lemF.8": "as lemF.6: the late phase is the statement's domain; the mutated control is refuted",
    "thmF.9": "as lemF.6: the late phase is the statement's domain; the mutated control is refuted",
    "cor4.4": "off Asm 4.1 (sym.broken) the probe ends undecided: seeds reach a smoothed margin above "
              "(1+alpha)/4 gamma_lin (the measured ratio is in the record, max_smoothed_margin_ratio), so Thm "
              "4.2's value is not the optimum there and the global max margin the conclusion is about is not "
              "known (d = 3); the exponent and bad-bbar controls are refuted",
    "thm6.2.suboptimal": "a property of the hinted construction (K > 2 eps/(1-alpha)); its controls claim the "
                         "opposite and are refuted",
    "thmG.11": "a local maximality on the hinted data under A.5; the directed perturbation control is "
               "refuted",
    "thmH.2": "off Def H.1 (fig1left data) GD still reaches a single function in quick (probe held): "
              "orthogonal separability is sufficient, not shown necessary here; the mutated target is "
              "refuted",
    "lemH.3": "(amended) off Def H.1 the probe ends undecided; the all-neurons-sum control is refuted",
}


def declared(key: str) -> dict:
    """Keyword arguments of a claim from the tables above: ``fidelity`` and ``fidelity_note`` (FIDELITY), and where
    they apply ``no_room`` (NO_ROOM) and ``cannot_fail`` (CANNOT_FAIL)."""
    f, note = FIDELITY[key]
    out = {"fidelity": f, "fidelity_note": note}
    if key in NO_ROOM:
        out["no_room"] = NO_ROOM[key]
    if key in CANNOT_FAIL:
        out["cannot_fail"] = CANNOT_FAIL[key]
    return out


def statement(key: str) -> str:
    return ITEMS[key][2]


def title(key: str) -> str:
    return ITEMS[key][1]


def kind(key: str) -> str:
    return ITEMS[key][0]


def uses(key: str) -> list[str]:
    return [P + u for u in USES.get(key, [])]


def item(key: str) -> dict:
    """Keyword arguments for ``claim``/``not_checkable``: kind, statement, title, uses."""
    return {"kind": kind(key), "statement": statement(key), "title": title(key), "uses": uses(key)}


def register_remaining() -> None:
    """Register every catalogue item that no claim module registered, as not checkable with its reason."""
    for key in ITEMS:
        cid = P + key
        if cid in REGISTRY:
            continue
        if key in NOT_CHECKABLE:
            reason = NOT_CHECKABLE[key]
        else:
            reason = "checkable in principle (see spec §3) but not implemented in this version of the harness"
        not_checkable(cid, reason=reason, **item(key))
