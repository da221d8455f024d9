"""Compiled inner loops of the gradient-descent integrators (see :mod:`verify.numerics._jit`).

Each kernel computes exactly the iteration of the numpy code it replaces in :mod:`verify.numerics.flow`
(same formulas, same branch at exact kinks, same log-domain loss weights, float64 throughout); only the
order of the additions inside the small matrix products differs, so results agree to rounding.  The
kernels take the loss as ``(kind, offsets)`` (:func:`verify.numerics.nets.kernel_loss`): kind 0 is the
logistic loss, 1 the exponential loss, 2 the logistic loss linearised at 0 (ln 2 - q/2), and each offset adds a constant to both log-domain functions
(a loss multiplied by e^offset, as :func:`verify.numerics.nets.scaled_loss` builds).  ``log_count`` is
log n for the mean and 0 for the sum.

Shapes: ``W`` (B, m, d), ``a`` (B, m), ``X`` (n, d) and its transpose ``XT`` (d, n), ``y`` (n,).
"""

from __future__ import annotations

import numpy as np

from ._jit import jit, jit_callee, jit_inline

LOGE2 = 0.6931471805599453
TINY = float(np.finfo(float).tiny)
BLAS_WORK = 1 << 11
"""m n d from which the two products of a gradient go to BLAS (np.dot): below it, plain loops (no call
overhead, and a result that does not depend on the BLAS kernel the machine picks)."""


# ----------------------------------------------------------------------------------------------------------
# Scalars with numpy's semantics
# ----------------------------------------------------------------------------------------------------------

@jit_inline
def logaddexp(x, y):
    """numpy's npy_logaddexp, branch for branch."""
    if x == y:
        return x + LOGE2
    tmp = x - y
    if tmp > 0:
        return x + np.log1p(np.exp(-tmp))
    if tmp <= 0:
        return y + np.log1p(np.exp(tmp))
    return tmp


@jit_inline
def pmax(x, y):
    """np.maximum: NaN propagates."""
    if x != x or y != y:
        return np.nan
    return x if x >= y else y


@jit_inline
def pmin(x, y):
    """np.minimum: NaN propagates."""
    if x != x or y != y:
        return np.nan
    return x if x <= y else y


@jit_inline
def log_value(kind, offsets, q):
    """log l(q) (nets.LOGISTIC / nets.EXPONENTIAL ``log_value``, then each offset added)."""
    if kind == 0:
        if q <= 30.0:
            v = np.log(logaddexp(0.0, -q))
        else:
            v = -q + np.log1p(-0.5 * np.exp(-q))
    elif kind == 2:
        v = np.log(np.abs(np.log(2.0) - q / 2) + 1e-300)
    else:
        v = -q
    for o in offsets:
        v = o + v
    return v


@jit_inline
def log_neg_derivative(kind, offsets, q):
    """log(-l'(q)) (``log_neg_derivative``, then each offset added)."""
    if kind == 0:
        v = -logaddexp(0.0, q)
    elif kind == 2:
        v = np.log(0.5)
    else:
        v = -q
    for o in offsets:
        v = o + v
    return v


# ----------------------------------------------------------------------------------------------------------
# One network: forward pass, loss, weights, gradient
# ----------------------------------------------------------------------------------------------------------

@jit_callee
def dot_into(A, B, out):
    """out = A B by BLAS.  A function of its own, so that the small-array path of its callers, which never
    reaches it, is compiled without the BLAS call's setup (measured: forward at m n d = 28 in 142 ns with
    np.dot inline in an untaken branch, 68 ns without)."""
    np.dot(A, B, out)


@jit_inline
def phi(z, alpha):
    """The (leaky) ReLU of one pre-activation, NaN kept (nets.activation)."""
    if alpha == 0.0:
        return z if z > 0.0 else (0.0 if z == z else z)
    p = z if z >= alpha * z else alpha * z
    return z if z != z else p


@jit_inline
def forward(W, a, X, XT, y, alpha, Z, P, q):
    """Z = W X^T, P = phi(Z), q = y * (a P) (margins).  Large products go to BLAS (see BLAS_WORK).

    Both branches add in one order (z_ji = ((0 + w_j0 x_i0) + w_j1 x_i1) + ..., q_i = ((0 + a_0 p_0i) + a_1 p_1i)
    + ...).  The plain loops keep the sums in registers: at the catalogue's small sizes (n of ten or so) sums kept
    in the arrays cost a memset call and a store and reload per term.  After BLAS, Z is read row by row (a sweep
    down its columns made GD at m, n, d = 50, 120, 64 17% slower a step: 35.8 -> 42.0 us)."""
    m, d = W.shape
    n = XT.shape[1]
    if m * n * d >= BLAS_WORK:
        dot_into(W, XT, Z)
        for i in range(n):
            q[i] = 0.0
        for j in range(m):
            aj = a[j]
            for i in range(n):
                p = phi(Z[j, i], alpha)
                P[j, i] = p
                q[i] += aj * p
        for i in range(n):
            q[i] = y[i] * q[i]
        return
    for i in range(n):
        s = 0.0
        for j in range(m):
            z = 0.0
            for k in range(d):
                z += W[j, k] * XT[k, i]
            Z[j, i] = z
            p = phi(z, alpha)
            P[j, i] = p
            s += a[j] * p
        q[i] = y[i] * s


@jit_callee
def log_loss(q, kind, offsets, log_count):
    """log L = logsumexp_i log l(q_i) - log_count (nets.log_loss)."""
    n = q.shape[0]
    top = -np.inf
    nan = False
    for i in range(n):
        v = log_value(kind, offsets, q[i])
        if v != v:
            nan = True
        elif v > top:
            top = v
    if nan:
        return np.nan
    safe = top if np.isfinite(top) else 0.0
    s = 0.0
    for i in range(n):
        s += np.exp(log_value(kind, offsets, q[i]) - safe)
    return safe + np.log(s) - log_count


EXP_ZERO = -746.0
"""Below this argument np.exp returns exactly 0 (e^-746 < 2^-1075, half the smallest subnormal), so the kernels
skip the call there: the result is the same bits, not an approximation."""


@jit_inline
def log_terms(kind, offsets, q):
    """(log_value, log_neg_derivative) of q with exactly their operations, the logistic loss's exp(-|q|) and
    log1p computed once for both (three or four transcendental calls instead of five, none where exp(-q)
    underflows to 0)."""
    if kind != 0 or q != q or q == 0.0:
        return log_value(kind, offsets, q), log_neg_derivative(kind, offsets, q)
    if q > 0.0:
        # logaddexp(0, -q) = 0 + log1p(exp(-q)); logaddexp(0, q) = q + log1p(exp(-q))
        if -q < EXP_ZERO:
            v = -q       # -q + log1p(-0.5 * 0) = -q + -0.0
            u = -q       # -(q + log1p(0))
        else:
            e = np.exp(-q)
            l1 = np.log1p(e)
            if q <= 30.0:
                v = np.log(0.0 + l1)
            else:
                v = -q + np.log1p(-0.5 * e)
            u = -(q + l1)
    else:
        # logaddexp(0, -q) = -q + log1p(exp(q)); logaddexp(0, q) = 0 + log1p(exp(q))
        l1 = np.log1p(np.exp(q))
        v = np.log(-q + l1)
        u = -(0.0 + l1)
    for o in offsets:
        v = o + v
    for o in offsets:
        u = o + u
    return v, u


@jit_inline
def plain_weights(q, y, kind, offsets, log_count, c):
    """c_i = r_i y_i, r_i = -l'(q_i)/n, in log domain (nets.loss_weights)."""
    for i in range(q.shape[0]):
        c[i] = np.exp(log_neg_derivative(kind, offsets, q[i]) - log_count) * y[i]


@jit_inline
def normalized_weights(q, y, kind, offsets, log_count, work, c):
    """c_i = r_i y_i, r_i = -l'(q_i)/L, in log domain (nets.loss_weights); returns log L (nets.log_loss: the
    same shifted sum serves both)."""
    n = q.shape[0]
    top = -np.inf
    for i in range(n):
        v, u = log_terms(kind, offsets, q[i])
        work[i] = v
        c[i] = u
        top = pmax(top, v)
    # c_i = e^(u_i - top) / s * y_i.  Both exponentials are taken in this loop, which the loop vectoriser
    # leaves scalar (the in-order sum s): in a loop of their own the exponentials of c were vectorised,
    # which evaluates np.exp on every lane, past the EXP_ZERO test, and e^x for x < -745 goes through
    # libm's slow underflow path (errno): 8 such calls a step at large margins.  Where u_i == v_i (the
    # exponential loss; the logistic loss once e^-q underflows) e^(u_i - top) is the e^(v_i - top) just
    # computed: the same argument up to the sign of a zero, so the same bits.
    s = 0.0
    for i in range(n):
        v = work[i]
        u = c[i]
        x = v - top
        e = 0.0
        if not x < EXP_ZERO:
            e = np.exp(x)
            s += e
        if u != v:
            x = u - top
            e = np.exp(x) if not x < EXP_ZERO else 0.0
        c[i] = e
    for i in range(n):
        c[i] = c[i] / s * y[i]
    if np.isfinite(top) or top != top:
        return top + np.log(s) - log_count
    return log_loss(q, kind, offsets, log_count)


@jit_inline
def backward(Z, P, a, c, X, XT, alpha, kink, dW, da):
    """dL/dw_j = -a_j sum_i c_i phi'(z_ji) x_i (phi'(0) = kink), dL/da_j = -sum_i c_i phi(z_ji).
    ``P`` is overwritten (by phi'(Z) * c).  The sums run in registers, in the order of the plain loops (see
    forward): accumulated in dW, each term was a store and a reload."""
    m, n = Z.shape
    d = X.shape[1]
    for j in range(m):
        s = 0.0
        for i in range(n):
            z = Z[j, i]
            ci = c[i]
            s += P[j, i] * ci
            P[j, i] = ci if z > 0.0 else (kink * ci if z == 0.0 else alpha * ci)
        da[j] = -s
    if m * n * d >= BLAS_WORK:
        dot_into(P, X, dW)
        for j in range(m):
            aj = a[j]
            for k in range(d):
                dW[j, k] = -aj * dW[j, k]
        return
    for j in range(m):
        aj = a[j]
        for k in range(d):
            s = 0.0
            for i in range(n):
                s += P[j, i] * XT[k, i]
            dW[j, k] = -aj * s


@jit_inline
def descend(W, a, dW, da, lr):
    """theta <- theta - lr grad."""
    m, d = W.shape
    for j in range(m):
        for k in range(d):
            W[j, k] = W[j, k] - lr * dW[j, k]
        a[j] = a[j] - lr * da[j]


@jit_inline
def flat_norm(W, a):
    """sqrt(||W||^2 + ||a||^2)."""
    sw = 0.0
    for j in range(W.shape[0]):
        for k in range(W.shape[1]):
            sw += W[j, k] ** 2
    sa = 0.0
    for j in range(a.shape[0]):
        sa += a[j] ** 2
    return np.sqrt(sw + sa)


@jit_inline
def balance_terms(W, a, b, scale_only):
    """b_j = a_j^2 - ||w_j||^2 into ``b`` (unless ``scale_only``); returns max_j (a_j^2 + ||w_j||^2), or
    the smallest normal number where that is 0 (flow._balance_scale)."""
    top = -np.inf
    for j in range(W.shape[0]):
        w2 = 0.0
        for k in range(W.shape[1]):
            w2 += W[j, k] ** 2
        a2 = a[j] ** 2
        if not scale_only:
            b[j] = a2 - w2
        top = pmax(top, a2 + w2)
    return top if top > 0 else TINY


@jit_inline
def balance_drift(W, a, b0, scale0, work):
    """max_j |b_j - b_j(0)| / max(scale0, max_j (a_j^2 + ||w_j||^2)) (flow._balance_drift)."""
    scale = balance_terms(W, a, work, False)
    top = -np.inf
    for j in range(W.shape[0]):
        top = pmax(top, abs(work[j] - b0[j]))
    return top / pmax(scale0, scale)


@jit_inline
def pattern_update(Z, prev, count):
    """Write the activation pattern Z > 0 into ``prev`` (m, n); return how many entries changed when ``count``
    (else 0)."""
    flips = 0
    for j in range(Z.shape[0]):
        for i in range(Z.shape[1]):
            p = Z[j, i] > 0.0
            if count and p != prev[j, i]:
                flips += 1
            prev[j, i] = p
    return flips


@jit_inline
def min_of(q):
    out = np.inf
    for i in range(q.shape[0]):
        out = pmin(out, q[i])
    return out


@jit_callee
def gradient_call(W, a, X, XT, y, alpha, kink, kind, offsets, log_count, normalized, Z, P, q, work, c, dW, da):
    """Forward pass and gradient of one network into the work arrays (Z, P, q, work, c, dW, da); log L when
    ``normalized``, else NaN.

    Compiled once and called rather than inlined, for the kernels whose time is not in the call
    (gradient_batch: one gradient per network; gd_path and gd_log_time: a few hundred steps in the
    catalogue): each inlined copy of the gradient is compiled again (cold, loaded 2-core machine: 4-5 s CPU per
    kernel), while the hot integrators (gd_steps, gd_run, ngd_run) inline forward, the one weighting they use
    and backward (a call passes ~15 arrays as seven-word structs: 1.18 against 0.65 us per normalised GD step
    at catalogue shapes; and a constant ``normalized`` passed to an inlined function does not remove the other
    weighting before typing, so they call it directly: their cold compilation 16.5 -> 10-11 s CPU, load 8)."""
    forward(W, a, X, XT, y, alpha, Z, P, q)
    if normalized:
        logL = normalized_weights(q, y, kind, offsets, log_count, work, c)
    else:
        plain_weights(q, y, kind, offsets, log_count, c)
        logL = np.nan
    backward(Z, P, a, c, X, XT, alpha, kink, dW, da)
    return logL


# ----------------------------------------------------------------------------------------------------------
# Integrators
# ----------------------------------------------------------------------------------------------------------

@jit
def gd_steps(W, a, X, y, lr, steps, alpha, kink, kind, offsets, log_count):
    """``steps`` plain GD steps on every element of the batch, in place (flow.gd_steps)."""
    B, m, d = W.shape
    n = X.shape[0]
    XT = np.ascontiguousarray(X.T)
    Z, P = np.empty((m, n)), np.empty((m, n))
    q, c = np.empty(n), np.empty(n)
    dW, da = np.empty((m, d)), np.empty(m)
    for b in range(B):
        Wb, ab = W[b], a[b]
        for _ in range(steps):
            forward(Wb, ab, X, XT, y, alpha, Z, P, q)
            plain_weights(q, y, kind, offsets, log_count, c)
            backward(Z, P, ab, c, X, XT, alpha, kink, dW, da)
            descend(Wb, ab, dW, da, lr)


@jit_callee
def workspace(m, n, d):
    """The work arrays of gradient_call for m neurons, n points, d dimensions: Z, P, q, work, c, dW, da."""
    return (np.empty((m, n)), np.empty((m, n)), np.empty(n), np.empty(n), np.empty(n), np.empty((m, d)),
            np.empty(m))


@jit
def gd_path(W, a, X, y, lr, alpha, kink, kind, offsets, log_count, Ws, As, dWs, dAs):
    """Plain GD on one network W (m, d), a (m,), in place, for Ws.shape[0] steps; the state before each step
    and its gradient go to row k of Ws, As, dWs, dAs (theta <- theta + lr * (-grad), as the numpy loops write it)."""
    m, d = W.shape
    XT = np.ascontiguousarray(X.T)
    Z, P, q, work, c, dW, da = workspace(m, X.shape[0], d)
    plain = np.bool_(False)  # a boolean, not the literal False: gradient_call is then compiled once for all callers
    for k in range(Ws.shape[0]):
        for j in range(m):
            for i in range(d):
                Ws[k, j, i] = W[j, i]
            As[k, j] = a[j]
        gradient_call(W, a, X, XT, y, alpha, kink, kind, offsets, log_count, plain, Z, P, q, work, c, dW, da)
        for j in range(m):
            for i in range(d):
                dWs[k, j, i] = dW[j, i]
            dAs[k, j] = da[j]
        for j in range(m):
            for i in range(d):
                W[j, i] = W[j, i] + lr * (-dW[j, i])
            a[j] = a[j] + lr * (-da[j])


@jit
def active_field(X, lam, U, j, g):
    """g = sum of lam_n x_n over the points with <x_n, u_j> > 0 (u_j = column j of U): X^T D(u_j) lam."""
    N, d = X.shape
    for i in range(d):
        g[i] = 0.0
    for n in range(N):
        z = 0.0
        for i in range(d):
            z += X[n, i] * U[i, j]
        if z > 0:
            for i in range(d):
                g[i] += X[n, i] * lam[n]


@jit
def gd_log_time(W, a, X, y, h, log_times, alpha, kink, kind, offsets, log_count, W_out, a_out):
    """GD with steps dt = h (1 + t) / max(1, log(1 + t)); the iterate at the first t with
    log(1 + t) >= log_times[k] goes to W_out[k], a_out[k] (flow.gd_log_time).  Returns the final t."""
    m, d = W.shape
    n = X.shape[0]
    XT = np.ascontiguousarray(X.T)
    Z, P = np.empty((m, n)), np.empty((m, n))
    q, work, c = np.empty(n), np.empty(n), np.empty(n)
    dW, da = np.empty((m, d)), np.empty(m)
    t = 0.0
    k = 0
    plain = np.bool_(False)  # as in gd_path
    while k < log_times.shape[0]:
        s = np.log1p(t)
        if s >= log_times[k]:
            for j in range(m):
                for i in range(d):
                    W_out[k, j, i] = W[j, i]
                a_out[k, j] = a[j]
            k += 1
            continue
        dt = h * (1.0 + t) / (s if s > 1.0 else 1.0)
        gradient_call(W, a, X, XT, y, alpha, kink, kind, offsets, log_count, plain, Z, P, q, work, c, dW, da)
        descend(W, a, dW, da, dt)
        t += dt
    return t


@jit
def gd_run(W, a, X, y, lr, steps, every, stop_margin, use_stop, alpha, kink, kind, offsets, log_count,
           b0, scale0, active, nsteps, changes, prev, q, qmin, k, row,
           h_step, h_log_loss, h_min_margin, h_normalized, h_drift, h_changes):
    """flow.gradient_descent from step ``k`` (history row ``row``) on; returns (k, row, done).

    Stops early, with done False and the state consistent at the start of step k, when the history
    buffers are full (the caller grows them and calls again).  Frozen elements (``stop_margin`` reached)
    keep their last margins ``q``, ``qmin``."""
    B, m, d = W.shape
    n = X.shape[0]
    XT = np.ascontiguousarray(X.T)
    Z, P = np.empty((m, n)), np.empty((m, n))
    c = np.empty(n)
    dW, da = np.empty((B, m, d)), np.empty((B, m))
    bwork = np.empty(m)
    cap = h_step.shape[0]
    while True:
        if row >= cap:
            return k, row, False
        for b in range(B):
            if not active[b]:
                continue
            forward(W[b], a[b], X, XT, y, alpha, Z, P, q[b])
            plain_weights(q[b], y, kind, offsets, log_count, c)
            backward(Z, P, a[b], c, X, XT, alpha, kink, dW[b], da[b])
            flips = pattern_update(Z, prev[b], k > 0)
            if k > 0:
                changes[b] += flips
            qmin[b] = min_of(q[b])
            if use_stop and not qmin[b] < stop_margin:
                active[b] = False
        any_active = False
        for b in range(B):
            if active[b]:
                any_active = True
        last = k == steps or not any_active
        if k % every == 0 or last:
            h_step[row] = k
            for b in range(B):
                h_log_loss[row, b] = log_loss(q[b], kind, offsets, log_count)
                h_min_margin[row, b] = qmin[b]
                fn = flat_norm(W[b], a[b])
                h_normalized[row, b] = qmin[b] / (fn * fn)
                h_drift[row, b] = balance_drift(W[b], a[b], b0[b], scale0[b], bwork)
                h_changes[row, b] = changes[b]
            row += 1
        if last:
            return k, row, True
        for b in range(B):
            if active[b]:
                descend(W[b], a[b], dW[b], da[b], lr)
                nsteps[b] += 1
        k += 1


# ----------------------------------------------------------------------------------------------------------
# Batched network functions (verify.numerics.nets on small arrays)
# ----------------------------------------------------------------------------------------------------------

@jit
def margins_batch(W, a, X, y, alpha, out):
    """out[b] = y * f_b(X) (nets.margins; ``y`` = 1 gives nets.forward)."""
    B, m, _ = W.shape
    n = X.shape[0]
    XT = np.ascontiguousarray(X.T)
    Z, P = np.empty((m, n)), np.empty((m, n))
    for b in range(B):
        forward(W[b], a[b], X, XT, y, alpha, Z, P, out[b])


@jit
def gradient_batch(W, a, X, y, alpha, kink, kind, offsets, log_count, normalized, dW, da):
    """(dL/dW, dL/da) of every element, or of log L when ``normalized`` (nets.gradient)."""
    B, m, _ = W.shape
    n = X.shape[0]
    XT = np.ascontiguousarray(X.T)
    Z, P = np.empty((m, n)), np.empty((m, n))
    q, work, c = np.empty(n), np.empty(n), np.empty(n)
    for b in range(B):
        gradient_call(W[b], a[b], X, XT, y, alpha, kink, kind, offsets, log_count, normalized, Z, P, q, work, c,
                      dW[b], da[b])


@jit
def log_loss_rows(Q, kind, offsets, log_count, out):
    """out[r] = log L of the margins Q[r] (nets.log_loss over the last axis)."""
    for r in range(Q.shape[0]):
        out[r] = log_loss(Q[r], kind, offsets, log_count)


# ----------------------------------------------------------------------------------------------------------
# Normalised GD with the batch across lanes (small networks)
# ----------------------------------------------------------------------------------------------------------
# Stepped one element after another, each element's forward pass and gradient are a few dozen scalar
# operations at the catalogue's sizes (m, n, d = 2, 10, 2 and a batch of 48-96 seeds), with a dependency
# chain through every sum.  ngd_run keeps the state of the elements still running side by side (element
# innermost: ``Ws[j, k, l]``), so each arithmetic loop of a small network runs over the elements and the
# compiler vectorises it.  Every element computes exactly forward's and backward's operations in their order
# (the sums of the small branch start at 0.0 and add term by term; no fused multiply-adds: see _jit), so an
# element's results are the same bits as stepped alone; the loss weights, whose exponentials are taken only
# where they do not underflow, run one element at a time through normalized_weights.  Large networks
# (m n d >= BLAS_WORK) and the last few running elements (fewer than LANES_MIN) are stepped one at a time on a
# copy, through forward and backward as before.  Measured against the kernel that stepped every element
# alone (flow.normalized_gradient_descent, best of 3, ns an element-step; 2-core Xeon, load ~1.4): B = 96,
# m, n, d = 2, 10, 2 at q_min ~1.6e4: 249 -> 173; at ~1.1e3: 332 -> 251; B = 8: 192 -> 142; B = 48, m, n, d =
# 8, 121, 2: 5420 -> 2360; B = 1: 204 -> 226 (the copy in and out).  Cold compilation 4.9 -> 7.7 s.
# A vectorised fast path of the weights (the comparisons and divisions over the lanes) was measured and not
# kept: 173 -> 137 ns at large margins, but slower where some lane leaves it (251 -> 283, 2360 -> 2800) and
# 2.8 s more compilation.

LANES_MIN = 8
"""The fewest running elements stepped side by side: below it the lanes' loops cost more than they save
(B = 1: 845 ns an element-step side by side, 225 alone)."""


@jit_inline
def lanes_forward(Ws, As, XT, y, alpha, L, Z, P, Q):
    """forward's small branch for lanes 0..L-1: Z[j, i, l], P[j, i, l], margins Q[i, l].  Each sum builds up
    in its own output entry, with no accumulator array besides (a shared one measured 845 against 764 ns an
    element-step at one lane; below LANES_MIN the narrow path takes over anyway)."""
    m, d = Ws.shape[0], Ws.shape[1]
    n = XT.shape[1]
    for i in range(n):
        for ln in range(L):
            Q[i, ln] = 0.0
        for j in range(m):
            for ln in range(L):
                Z[j, i, ln] = 0.0
            for k in range(d):
                xk = XT[k, i]
                for ln in range(L):
                    Z[j, i, ln] += Ws[j, k, ln] * xk
            for ln in range(L):
                p = phi(Z[j, i, ln], alpha)
                P[j, i, ln] = p
                Q[i, ln] += As[j, ln] * p
        yi = y[i]
        for ln in range(L):
            Q[i, ln] = yi * Q[i, ln]


@jit_inline
def lanes_backward(Z, P, As, C, XT, alpha, kink, L, dWs, dAs):
    """backward's small branch for lanes 0..L-1 (P overwritten by phi'(Z) * c), each sum in its own entry."""
    m, n = Z.shape[0], Z.shape[1]
    d = XT.shape[0]
    for j in range(m):
        for ln in range(L):
            dAs[j, ln] = 0.0
        for i in range(n):
            for ln in range(L):
                zz = Z[j, i, ln]
                ci = C[i, ln]
                dAs[j, ln] += P[j, i, ln] * ci
                P[j, i, ln] = ci if zz > 0.0 else (kink * ci if zz == 0.0 else alpha * ci)
        for ln in range(L):
            dAs[j, ln] = -dAs[j, ln]
    for j in range(m):
        for k in range(d):
            for ln in range(L):
                dWs[j, k, ln] = 0.0
            for i in range(n):
                xk = XT[k, i]
                for ln in range(L):
                    dWs[j, k, ln] += P[j, i, ln] * xk
            for ln in range(L):
                dWs[j, k, ln] = -As[j, ln] * dWs[j, k, ln]


@jit_callee
def lane_get(Ws, As, ln, Wb, ab):
    """Lane ``ln``'s network into Wb (m, d), ab (m)."""
    for j in range(Ws.shape[0]):
        for k in range(Ws.shape[1]):
            Wb[j, k] = Ws[j, k, ln]
        ab[j] = As[j, ln]


@jit_callee
def lane_put(Ws, As, ln, Wb, ab):
    """Wb, ab into lane ``ln``."""
    for j in range(Ws.shape[0]):
        for k in range(Ws.shape[1]):
            Ws[j, k, ln] = Wb[j, k]
        As[j, ln] = ab[j]


@jit
def ngd_run(W, a, X, y, lr, log_lr, q_ref, max_steps, every, Qs, alpha, kink, kind, offsets, log_count,
            b0, scale0, nxt, log_time, nsteps, changes, prev, k, row,
            s_step, s_W, s_a, s_min_margin, s_normalized, s_log_loss, s_log_time,
            h_step, h_log_loss, h_min_margin, h_normalized, h_drift, h_changes, h_log_time):
    """flow.normalized_gradient_descent from step ``k`` (history row ``row``) on; returns (k, row, done).

    Steps of lr / L (``log_lr`` = log lr; with ``q_ref`` > 0 the step is lr * min(1, q_ref / q_min)) with
    log-domain weights; the snapshot for horizon Q is the first iterate with q_min >= Q; an element stops
    after its last horizon.  Returns early (done False) when the history buffers are full, with the state
    consistent at the start of step k.

    Optional diagnostics, switched off by the caller through the arguments it already passes (one compiled
    signature): ``log_lr`` NaN skips the log flow time (``log_time`` is then left as the caller set it, NaN),
    ``prev`` with no elements (shape (0, m, n)) skips the count of activation changes (``changes`` left as
    set).  The normalised margin (a square root and a division) is computed only where it is recorded.

    The elements still running occupy lanes 0..L-1 (see above; ``lane[l]`` is the element, ``pos[b]`` its
    lane or -1).  Every element is computed at the first step of a call (the values its history rows read);
    afterwards an element leaves the lanes, its W and a written back, at the step where it stops.  W and a hold
    every element's state whenever the kernel returns."""
    B, m, d = W.shape
    n = X.shape[0]
    H = Qs.shape[0]
    XT = np.ascontiguousarray(X.T)
    Ws, As = np.empty((m, d, B)), np.empty((m, B))
    dWs, dAs = np.empty((m, d, B)), np.empty((m, B))
    Z, P = np.empty((m, n, B)), np.empty((m, n, B))
    Q, C = np.empty((n, B)), np.empty((n, B))
    lrs = np.empty(B)
    qb, work, cb = np.empty(n), np.empty(n), np.empty(n)
    Wb, ab, Zb, bwork = np.empty((m, d)), np.empty(m), np.empty((m, n)), np.empty(m)
    Pb, dWb, dab = np.empty((m, n)), np.empty((m, d)), np.empty(m)
    small = m * n * d < BLAS_WORK
    logL, qmin, gamma = np.empty(B), np.empty(B), np.empty(B)
    lane = np.empty(B, dtype=np.int64)
    pos = np.empty(B, dtype=np.int64)
    for b in range(B):
        lane[b] = b
        pos[b] = b
        lane_put(Ws, As, b, W[b], a[b])
    L = B
    cap = h_step.shape[0]
    first = True
    flow_time = log_lr == log_lr
    flips_wanted = prev.shape[0] > 0
    while True:
        if row >= cap:
            for ln in range(L):
                lane_get(Ws, As, ln, W[lane[ln]], a[lane[ln]])
            return k, row, False
        recorded = k % every == 0 or k == max_steps
        wide = small and L >= LANES_MIN
        if wide:
            lanes_forward(Ws, As, XT, y, alpha, L, Z, P, Q)
        for ln in range(L):
            b = lane[ln]
            if wide:
                for i in range(n):
                    qb[i] = Q[i, ln]
            else:  # one element at a time, as stepped alone (large nets: products in BLAS); lane_get written
                # out, since the call is not inlined here: lane_get(...) measured 228 -> 255 ns an element-step at
                # B = 1 and 2328 -> 2581 at B = 48, m, n, d = 8, 121, 2
                for j in range(m):
                    for i in range(d):
                        Wb[j, i] = Ws[j, i, ln]
                    ab[j] = As[j, ln]
                forward(Wb, ab, X, XT, y, alpha, Zb, Pb, qb)
            logL[b] = normalized_weights(qb, y, kind, offsets, log_count, work, cb)
            qmin[b] = min_of(qb)
            if wide:
                for i in range(n):
                    C[i, ln] = cb[i]
            else:
                backward(Zb, Pb, ab, cb, X, XT, alpha, kink, dWb, dab)
                for j in range(m):
                    for i in range(d):
                        dWs[j, i, ln] = dWb[j, i]
                    dAs[j, ln] = dab[j]
                    if flips_wanted:
                        for i in range(n):
                            Z[j, i, ln] = Zb[j, i]
        if wide:
            lanes_backward(Z, P, As, C, XT, alpha, kink, L, dWs, dAs)
        for ln in range(L):
            b = lane[ln]
            active = nxt[b] < H
            if flips_wanted:
                for j in range(m):
                    for i in range(n):
                        Zb[j, i] = Z[j, i, ln]
                flips = pattern_update(Zb, prev[b], k > 0 and active)
                if k > 0 and active:
                    changes[b] += flips
            due = active and qmin[b] >= Qs[nxt[b]]
            if first or recorded or due:
                lane_get(Ws, As, ln, Wb, ab)
                fn = flat_norm(Wb, ab)
                gamma[b] = qmin[b] / (fn * fn)
            while nxt[b] < H and qmin[b] >= Qs[nxt[b]]:
                h = nxt[b]
                s_step[h, b] = k
                for j in range(m):
                    for i in range(d):
                        s_W[h, b, j, i] = Ws[j, i, ln]
                    s_a[h, b, j] = As[j, ln]
                s_min_margin[h, b] = qmin[b]
                s_normalized[h, b] = gamma[b]
                s_log_loss[h, b] = logL[b]
                s_log_time[h, b] = log_time[b]
                nxt[b] += 1
        first = False
        any_active = False
        for b in range(B):
            if nxt[b] < H:
                any_active = True
        last = k == max_steps or not any_active
        if recorded or last:
            h_step[row] = k
            for b in range(B):
                h_log_loss[row, b] = logL[b]
                h_min_margin[row, b] = qmin[b]
                h_normalized[row, b] = gamma[b]
                if pos[b] >= 0:
                    lane_get(Ws, As, pos[b], Wb, ab)
                else:   # stopped: as written back
                    for j in range(m):
                        for i in range(d):
                            Wb[j, i] = W[b, j, i]
                        ab[j] = a[b, j]
                h_drift[row, b] = balance_drift(Wb, ab, b0[b], scale0[b], bwork)
                h_changes[row, b] = changes[b]
                h_log_time[row, b] = log_time[b]
            row += 1
        if last:
            for ln in range(L):
                lane_get(Ws, As, ln, W[lane[ln]], a[lane[ln]])
            return k, row, True
        # the elements that stopped leave the lanes (W, a written back); the others close up, in order
        kept = 0
        for ln in range(L):
            b = lane[ln]
            if nxt[b] >= H:
                lane_get(Ws, As, ln, W[b], a[b])
                pos[b] = -1
                continue
            if kept != ln:
                for j in range(m):
                    for i in range(d):
                        Ws[j, i, kept] = Ws[j, i, ln]
                        dWs[j, i, kept] = dWs[j, i, ln]
                    As[j, kept] = As[j, ln]
                    dAs[j, kept] = dAs[j, ln]
                lane[kept] = b
                pos[b] = kept
            kept += 1
        L = kept
        for ln in range(L):
            b = lane[ln]
            lr_b, log_step = lr, log_lr
            if q_ref > 0.0 and qmin[b] > q_ref:
                lr_b = lr * (q_ref / qmin[b])
                if flow_time:
                    log_step = np.log(lr_b)
            lrs[ln] = lr_b
            if flow_time:
                log_time[b] = logaddexp(log_time[b], log_step - logL[b])
            nsteps[b] += 1
        for j in range(m):
            for i in range(d):
                for ln in range(L):
                    Ws[j, i, ln] = Ws[j, i, ln] - lrs[ln] * dWs[j, i, ln]
            for ln in range(L):
                As[j, ln] = As[j, ln] - lrs[ln] * dAs[j, ln]
        k += 1
