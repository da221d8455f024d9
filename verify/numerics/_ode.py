"""Compiled integration of one activation region of the non-smooth flow (see :mod:`verify.numerics._jit`).

:func:`region_segment` is ``scipy.integrate.solve_ivp(method="DOP853", dense_output=True, events=...)`` as
``flow._integrate_single`` calls it, in compiled code: the same Dormand-Prince 8(5,3) tableau (scipy's
coefficients), the same step-size control, initial step, dense output and terminal-event location (Brent's
method with scipy's tolerances and iteration), and the same count of right-hand-side evaluations, so the
step sequence, event times and budget are scipy's up to rounding.  The right-hand side is the field of one
activation region with Filippov sliding (``flow._RegionFlow``), in direct coordinates theta = (W, a) or in
polar coordinates (U, rho - rho0) of a balanced net.

``model`` = (X, XT, y, kind, offsets, log_count, polar, signs, rho0, E, sigma, xnorm, member_ptr,
member_idx, ET), ET = E^T contiguous; ``region`` = (T, C, H_phi, H_free, h_plus, h_minus, slide_ptr,
slide_neuron, slide_plane, slide_pinv, off): ``slide_*`` list the sliding (neuron, plane) pairs, grouped by
neuron in the order of ``_RegionFlow.sliding_neurons``, with the pseudo-inverses of :func:`sliding_pinv`.
"""

from __future__ import annotations

import numpy as np
from scipy.integrate._ivp import dop853_coefficients as _dop

from . import _jit
from ._jit import jit, jit_callee
from ._kernels import log_neg_derivative, pmax

N_STAGES = _dop.N_STAGES
A = np.ascontiguousarray(_dop.A, dtype=np.float64)
B = np.ascontiguousarray(_dop.B, dtype=np.float64)
C = np.ascontiguousarray(_dop.C, dtype=np.float64)
E3 = np.ascontiguousarray(_dop.E3, dtype=np.float64)
E5 = np.ascontiguousarray(_dop.E5, dtype=np.float64)
D = np.ascontiguousarray(_dop.D, dtype=np.float64)
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0
ERROR_EXPONENT = -1.0 / (7 + 1)
EPS = float(np.finfo(float).eps)

# status codes of region_segment
FINISHED, EVENT, TOO_SMALL_STEP, BUDGET, EVENT_SIGN_ERROR, EVENT_NO_CONVERGENCE, EVENT_NAN = 0, 1, -1, -2, -3, -4, -5


# ----------------------------------------------------------------------------------------------------------
# Small least-squares systems
# ----------------------------------------------------------------------------------------------------------

def _least_squares_numpy(A, b, rcond, x):
    """:func:`least_squares` without numba (``VERIFY_JIT=0``): np.linalg.lstsq, with numba's error for a
    non-finite matrix (a non-finite right-hand side goes to LAPACK, as np.linalg.lstsq sends it)."""
    if not np.isfinite(A).all():
        raise np.linalg.LinAlgError("Array must not contain infs or NaNs.")
    x[:] = np.linalg.lstsq(A, b, rcond)[0]


_gelsd = None
if _jit.ENABLED:
    try:
        from numba.core import types as _types
        from numba.np.linalg import _LAPACK

        # numba's own binding of LAPACK's dgelsd (scipy's), the routine behind np.linalg.lstsq
        _gelsd = _LAPACK().numba_ez_gelsd(_types.float64)
    except (ImportError, AttributeError):
        # a private name of numba's: a numba without it gets its public lstsq below (the same LAPACK routine,
        # the same results; ~5 s more cold compilation)
        pass

if _jit.ENABLED and _gelsd is None:
    @jit
    def least_squares(A, b, rcond, x):
        """x = np.linalg.lstsq(A, b, rcond)[0], numba's own implementation (the fallback where numba's dgelsd
        binding is absent). numba's lstsq refuses a non-finite right-hand side, which np.linalg.lstsq sends to
        LAPACK: here x is then NaN (the trial stage that produced it is rejected either way)."""
        for i in range(b.shape[0]):
            if not np.isfinite(b[i]):
                for j in range(x.shape[0]):
                    x[j] = np.nan
                return
        sol = np.linalg.lstsq(A, b, rcond)[0]
        for j in range(x.shape[0]):
            x[j] = sol[j]

    @jit
    def least_squares_columns(A, B, rcond, X):
        """X = np.linalg.lstsq(A, B, rcond)[0] for B (rows, nrhs), numba's own implementation (the fallback
        where numba's dgelsd binding is absent)."""
        sol = np.linalg.lstsq(A, B, rcond)[0]
        for t in range(X.shape[0]):
            for j in range(X.shape[1]):
                X[t, j] = sol[t, j]
elif _jit.ENABLED:
    @jit
    def least_squares_columns(A, B, rcond, X):
        """X = np.linalg.lstsq(A, B, rcond)[0] for a float64 A (rows, cols) and B (rows, nrhs), X (cols, nrhs):
        the LAPACK call numba's np.linalg.lstsq makes (dgelsd through numba's binding, A copied to column order,
        B to max(rows, cols) rows in column order), and its errors for a non-finite A (LinAlgError, which
        flow._integrate_single answers by repeating the run on the numpy path) and an SVD that does not converge
        (ValueError). A non-finite B goes to dgelsd, as np.linalg.lstsq (the numpy path) sends it, and X comes
        back non-finite: B is then the field of a rejected trial stage whose loss weights overflowed (numba's
        lstsq refuses it, and the whole run was repeated on the numpy path: lyu2021.thm3.1 standard task 0.1,
        42 s instead of ~2 s).

        Not np.linalg.lstsq itself: numba's implementation of it (its argument checks and specialisations)
        was ~4 s of the region integrator's cold compilation, and ~1 s more for being optimised again in
        every compiled function above it (numba links each callee into its caller)."""
        rows, cols = A.shape
        nrhs = B.shape[1]
        for i in range(rows):
            for j in range(cols):
                if not np.isfinite(A[i, j]):
                    raise np.linalg.LinAlgError("Array must not contain infs or NaNs.")
        big = max(rows, cols)
        af = np.empty(rows * cols)
        for j in range(cols):
            for i in range(rows):
                af[j * rows + i] = A[i, j]
        bf = np.zeros(big * nrhs)
        for j in range(nrhs):
            for i in range(rows):
                bf[j * big + i] = B[i, j]
        sv = np.empty(min(rows, cols))
        rank = np.empty(1, dtype=np.int32)
        info = _gelsd(100, rows, cols, nrhs, af.ctypes, rows, bf.ctypes, big, sv.ctypes, rcond,
                      rank.ctypes)  # 100: 'd'
        if info != 0:
            raise ValueError("Internal algorithm failed to converge.")
        for j in range(nrhs):
            for t in range(cols):
                X[t, j] = bf[j * big + t]

    @jit
    def least_squares(A, b, rcond, x):
        """x = np.linalg.lstsq(A, b, rcond)[0] for b (rows,), bit for bit: least_squares_columns with one
        column (the same dgelsd call as numba's np.linalg.lstsq makes)."""
        least_squares_columns(A, b.reshape((b.shape[0], 1)), rcond, x.reshape((x.shape[0], 1)))
else:
    least_squares = _least_squares_numpy

    def least_squares_columns(A, B, rcond, X):
        """X = np.linalg.lstsq(A, B, rcond)[0] (``VERIFY_JIT=0``)."""
        if not np.isfinite(A).all():
            raise np.linalg.LinAlgError("Array must not contain infs or NaNs.")
        X[:] = np.linalg.lstsq(A, B, rcond)[0]


@jit
def sliding_pinv(E, sptr, splane):
    """The pseudo-inverses of the sliding neurons' plane matrices, once per region: rows sptr[s] .. sptr[s+1]-1
    of the result (len(splane), d) hold pinv(Ec^T) (p x d) for a neuron s sliding on p >= 2 planes (Ec the rows
    splane[sptr[s]:sptr[s+1]] of E; rows of a neuron with one plane are zero, :func:`parts` solves that case
    in closed form). So :func:`parts` solves each sliding least-squares problem min |Ec^T beta + z| as the
    product -pinv(Ec^T) z instead of one dgelsd call per neuron and field evaluation (lyu2021.exp.J: 1.36 M
    calls, ~57% of its integrator's time): the same minimum-norm solution, with dgelsd's rank decision
    (rcond = eps max(d, p) on the singular values of Ec^T, computed here from the same matrix), equal to
    the per-call solve up to rounding (x = V S^+ U^T z associated differently)."""
    d = E.shape[1]
    PI = np.zeros((splane.shape[0], d))
    eye = np.zeros((d, d))
    for k in range(d):
        eye[k, k] = 1.0
    for s_ in range(sptr.shape[0] - 1):
        p0, p1 = sptr[s_], sptr[s_ + 1]
        p = p1 - p0
        if p < 2:
            continue
        Ec = np.empty((d, p))
        for t in range(p):
            for k in range(d):
                Ec[k, t] = E[splane[p0 + t], k]
        sol = np.empty((p, d))
        least_squares_columns(Ec, eye, EPS * max(d, p), sol)
        for t in range(p):
            for k in range(d):
                PI[p0 + t, k] = sol[t, k]
    return PI


# ----------------------------------------------------------------------------------------------------------
# The field of one region
# ----------------------------------------------------------------------------------------------------------

@jit
def parts(theta, model, region, dV, dr, lam):
    """_RegionFlow.parts: velocities dV (m, d) of theta[:m d], dr (m,) of theta[m d:], Filippov weights lam
    (one per sliding pair, in the order of ``region``)."""
    X, XT, y, kind, offsets, log_count, polar, signs, rho0, E, sigma, xnorm, mptr, midx, ET = model
    T, Cm, H_phi, H_free, h_plus, h_minus, sptr, sneuron, splane, PI, off = region
    m, d = dV.shape
    n = X.shape[0]
    V = theta[: m * d].reshape((m, d))
    r = theta[m * d:]
    u = np.empty((m, d))
    coef = np.empty(m)
    for j in range(m):
        if polar:
            s = 0.0
            for k in range(d):
                s += V[j, k] * V[j, k]
            nrm = np.sqrt(s)
            for k in range(d):
                u[j, k] = V[j, k] / nrm
            coef[j] = signs[j] * np.exp(2.0 * (rho0[j] + r[j]))
        else:
            for k in range(d):
                u[j, k] = V[j, k]
            coef[j] = r[j]
    phiZ = np.empty((m, n))
    q = np.zeros(n)
    for j in range(m):
        # <u_j, x_i> summed over k in order for every i at once: the same additions in the same order as one
        # sum per i (the same bits), but the loop over i carries no dependency and vectorises (with the stage
        # sums of region_segment written the same way: lyu2021.exp.J's accurate flow at m, n, d = 100, 20, 51
        # 3.1 -> 2.0 s CPU, identical results)
        for i in range(n):
            phiZ[j, i] = 0.0
        for k in range(d):
            ujk = u[j, k]
            for i in range(n):
                phiZ[j, i] += ujk * XT[k, i]
        for i in range(n):
            phiZ[j, i] = H_phi[j, i] * phiZ[j, i]
        cj = coef[j]
        for i in range(n):
            q[i] += cj * phiZ[j, i]
    c = np.empty(n)
    for i in range(n):
        c[i] = np.exp(log_neg_derivative(kind, offsets, y[i] * q[i]) - log_count) * y[i]
    z = np.zeros((m, d))
    for j in range(m):
        for i in range(n):
            g = H_free[j, i] * c[i]
            for k in range(d):
                z[j, k] += g * X[i, k]
    pair = 0
    for s_ in range(sneuron.shape[0]):
        kk = sneuron[s_]
        p0, p1 = sptr[s_], sptr[s_ + 1]
        p = p1 - p0
        beta = np.empty(p)
        if p == 1:
            e = E[splane[p0]]
            ez, ee = 0.0, 0.0
            for k in range(d):
                ez += e[k] * z[kk, k]
                ee += e[k] * e[k]
            beta[0] = -(ez / ee)
        else:
            # beta = -lstsq(Ec^T, z_k): the region's pseudo-inverse (sliding_pinv) times z_k
            for t in range(p):
                acc = 0.0
                for k in range(d):
                    acc += PI[p0 + t, k] * z[kk, k]
                beta[t] = -acc
        for k in range(d):
            acc = 0.0
            for t in range(p):
                acc += E[splane[p0 + t], k] * beta[t]
            z[kk, k] = z[kk, k] + acc
        for t in range(p):
            rr = splane[p0 + t]
            bp, bm = 0.0, 0.0
            for mi in range(mptr[rr], mptr[rr + 1]):
                i = midx[mi]
                w = c[i] * sigma[i] * xnorm[i]
                bp += w * h_plus[i]
                bm += w * h_minus[i]
            b = beta[t]
            lam[pair] = (b - bm) / (bp - bm) if bp != bm else 0.5
            pair += 1
    if not polar:
        for j in range(m):
            for k in range(d):
                dV[j, k] = r[j] * z[j, k]
            s = 0.0
            for i in range(n):
                s += phiZ[j, i] * c[i]
            dr[j] = s
        return
    for j in range(m):
        uz = 0.0
        for k in range(d):
            uz += u[j, k] * z[j, k]
        for k in range(d):
            dV[j, k] = signs[j] * (z[j, k] - uz * u[j, k])
        dr[j] = signs[j] * uz


@jit_callee
def velocity(theta, s, log_time, model, region, m, d, out, lam):
    """d theta / ds: the region's field, times e^s in log-time s = log(1 + t)."""
    dV = out[: m * d].reshape((m, d))
    dr = out[m * d:]
    parts(theta, model, region, dV, dr, lam)
    if log_time:
        es = np.exp(s)
        for i in range(out.shape[0]):
            out[i] = out[i] * es


@jit_callee
def sliding_exit_value(lam):
    """The sliding-exit event function from the Filippov weights ``lam`` of a state: min over pairs of
    min(lam, 1 - lam)."""
    best = 0.0
    for p in range(lam.shape[0]):
        v = lam[p] if not (1.0 - lam[p] < lam[p]) else 1.0 - lam[p]
        if p == 0 or v < best:
            best = v
    return best


@jit_callee
def event_value(which, theta, model, region, m, d, lam):
    """The region's terminal event functions (both fire going down through 0): ``which`` 0, a crossing, is
    the min over free (neuron, plane) pairs of T <w, E_r> + off (1 when every pair slides); 1, a sliding
    exit, the min over sliding pairs of min(lam, 1 - lam) (the Filippov weight leaving [0, 1]).

    One compiled function, not one per event behind a dispatching one: numba links every compiled callee
    into its caller and optimises and generates the machine code again there, so each level of calls
    between region_segment and parts was paid again at cold compilation (~1 s CPU each)."""
    if which == 0:
        ET = model[14]
        T, Cm, off = region[0], region[1], region[10]
        R = ET.shape[1]
        # <w_j, E_r> for all planes r at once, summed over k in order: the same additions in the same order as
        # one sum per pair (the same bits), but the R sums are independent instead of one chain of dependent
        # additions, and read E^T (the model's contiguous copy) along its rows: at m, d, R = 50, 64, 120
        # (min2024's digits) 259 -> 52 us an evaluation (E read down its columns before)
        gj = np.empty(R)
        out = np.inf
        found = False
        for j in range(m):
            for r in range(R):
                gj[r] = 0.0
            for k in range(d):
                wjk = theta[j * d + k]
                for r in range(R):
                    gj[r] += wjk * ET[k, r]
            for r in range(R):
                if Cm[j, r]:
                    continue
                v = T[j, r] * gj[r] + off[j, r]
                if not found:
                    out = v
                    found = True
                elif v != v or out != out:
                    out = np.nan
                elif v < out:
                    out = v
        return out if found else 1.0
    dV, dr = np.empty((m, d)), np.empty(m)
    parts(theta, model, region, dV, dr, lam)
    return sliding_exit_value(lam)


# ----------------------------------------------------------------------------------------------------------
# DOP853 (scipy.integrate._ivp.rk.DOP853, step by step)
# ----------------------------------------------------------------------------------------------------------

@jit_callee
def rms_norm(x, sqrt_n):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return np.sqrt(s) / sqrt_n


@jit
def dense_eval(F, y_old, t_old, h, t, out):
    """Dop853DenseOutput at t."""
    x = (t - t_old) / h
    N = y_old.shape[0]
    for i in range(N):
        out[i] = 0.0
    for p in range(F.shape[0]):
        f = F[F.shape[0] - 1 - p]
        for i in range(N):
            out[i] += f[i]
        if p % 2 == 0:
            for i in range(N):
                out[i] *= x
        else:
            for i in range(N):
                out[i] *= 1.0 - x
    for i in range(N):
        out[i] += y_old[i]


@jit_callee
def brent_event(which, F, y_old, t_old, h, xa, xb, model, region, m, d, lam, ybuf):
    """scipy.optimize.brentq(event(t, sol(t)), xa, xb, xtol=rtol=4 eps, maxiter=100): (root, status)."""
    xtol = 4 * EPS
    rtol = 4 * EPS
    dense_eval(F, y_old, t_old, h, xa, ybuf)
    fpre = event_value(which, ybuf, model, region, m, d, lam)
    dense_eval(F, y_old, t_old, h, xb, ybuf)
    fcur = event_value(which, ybuf, model, region, m, d, lam)
    if fpre != fpre or fcur != fcur:
        return xa, EVENT_NAN
    xpre, xcur = xa, xb
    xblk, fblk, spre, scur = 0.0, 0.0, 0.0, 0.0
    if fpre == 0:
        return xpre, 0
    if fcur == 0:
        return xcur, 0
    if np.signbit(fpre) == np.signbit(fcur):
        return 0.0, EVENT_SIGN_ERROR
    for _ in range(100):
        if fpre != 0 and fcur != 0 and np.signbit(fpre) != np.signbit(fcur):
            xblk = xpre
            fblk = fpre
            spre = scur = xcur - xpre
        if abs(fblk) < abs(fcur):
            xpre = xcur
            xcur = xblk
            xblk = xpre
            fpre = fcur
            fcur = fblk
            fblk = fpre
        delta = (xtol + rtol * abs(xcur)) / 2
        sbis = (xblk - xcur) / 2
        if fcur == 0 or abs(sbis) < delta:
            return xcur, 0
        if abs(spre) > delta and abs(fcur) < abs(fpre):
            if xpre == xblk:
                stry = -fcur * (xcur - xpre) / (fcur - fpre)
            else:
                dpre = (fpre - fcur) / (xpre - xcur)
                dblk = (fblk - fcur) / (xblk - xcur)
                stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            lim = 3 * abs(sbis) - delta
            lim = abs(spre) if abs(spre) < lim else lim
            if 2 * abs(stry) < lim:
                spre = scur
                scur = stry
            else:
                spre = sbis
                scur = sbis
        else:
            spre = sbis
            scur = sbis
        xpre = xcur
        fpre = fcur
        if abs(scur) > delta:
            xcur += scur
        else:
            xcur += delta if sbis > 0 else -delta
        dense_eval(F, y_old, t_old, h, xcur, ybuf)
        fcur = event_value(which, ybuf, model, region, m, d, lam)
        if fcur != fcur:
            return xcur, EVENT_NAN
    return xcur, EVENT_NO_CONVERGENCE


@jit
def region_segment(theta0, s0, s1, rtol, atol, log_time, model, region, m, d, n_events, cand, nrhs, max_rhs,
                   sqrt_n, out, y_end, F, y_old, step):
    """Integrate from s0 to s1 until the first terminal event (solve_ivp, DOP853, dense output).

    Events (direction -1, terminal): 0 = crossing (``n_events`` >= 1), 1 = sliding exit (``n_events`` = 2).
    The dense output is evaluated at the sorted points ``cand`` of every completed step, into ``out``.
    ``sqrt_n`` is len(theta0) ** 0.5 (scipy's RMS norm).
    Returns (status, event, s_end, n_out, nrhs); ``y_end`` is the state at s_end (at the event time for
    an event); ``F``, ``y_old`` and ``step`` = (t_old, h) the last step's dense output.
    """
    N = theta0.shape[0]
    lam = np.empty(max(region[8].shape[0], 1))
    # the Filippov weights at y, written by its field evaluation (the first one, then the last stage of each
    # step, evaluated at y_new = the next y once accepted): the sliding-exit event function at y is read from
    # them instead of evaluating the field at y again (the same values: parts of the same bits)
    lam_y = np.empty(lam.shape[0])
    K = np.empty((16, N))
    y = theta0.copy()
    y_new = np.empty(N)
    ytmp = np.empty(N)
    f = np.empty(N)
    scale = np.empty(N)
    t = s0
    n_out = 0
    if s1 == s0:
        for i in range(N):
            y_end[i] = y[i]
        while n_out < cand.shape[0] and cand[n_out] <= s1:
            for i in range(N):
                out[n_out, i] = y[i]
            n_out += 1
        return FINISHED, -1, s1, n_out, nrhs
    direction = 1.0 if s1 > s0 else -1.0
    # first evaluation and initial step (scipy.integrate._ivp.common.select_initial_step)
    nrhs += 1
    if nrhs > max_rhs:
        return BUDGET, -1, t, 0, nrhs
    velocity(y, t, log_time, model, region, m, d, f, lam_y)
    interval = abs(s1 - s0)
    for i in range(N):
        scale[i] = atol + abs(y[i]) * rtol
    for i in range(N):
        ytmp[i] = y[i] / scale[i]
    d0 = rms_norm(ytmp, sqrt_n)
    for i in range(N):
        ytmp[i] = f[i] / scale[i]
    d1 = rms_norm(ytmp, sqrt_n)
    h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
    h0 = interval if interval < h0 else h0
    for i in range(N):
        y_new[i] = y[i] + h0 * direction * f[i]
    nrhs += 1
    if nrhs > max_rhs:
        return BUDGET, -1, t, 0, nrhs
    velocity(y_new, t + h0 * direction, log_time, model, region, m, d, K[1], lam)
    for i in range(N):
        ytmp[i] = (K[1, i] - f[i]) / scale[i]
    d2 = rms_norm(ytmp, sqrt_n) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = 1e-6 if 1e-6 > h0 * 1e-3 else h0 * 1e-3
    else:
        mx = d2 if d2 > d1 else d1
        h1 = (0.01 / mx) ** (1.0 / (7 + 1))
    h_abs = 100 * h0
    if h1 < h_abs:
        h_abs = h1
    if interval < h_abs:
        h_abs = interval
    g = np.empty(2)
    for e in range(n_events):
        g[e] = event_value(e, y, model, region, m, d, lam) if e == 0 else sliding_exit_value(lam_y)
    g_new = np.empty(2)
    err5 = np.empty(N)
    err3 = np.empty(N)
    # The stage combinations sum_j K[j, i] coef[j] below run j outer and i inner into per-i accumulators: each sum
    # gets the same additions in the same order as a loop over j per i (the same bits), and the inner loop over
    # i carries no dependency, so it vectorises.
    acc = np.empty(N)
    while True:
        # one step (RungeKutta._step_impl)
        min_step = 10 * abs(np.nextafter(t, direction * np.inf) - t)
        if h_abs < min_step:
            h_abs = min_step
        accepted = False
        rejected = False
        while not accepted:
            if h_abs < min_step:
                return TOO_SMALL_STEP, -1, t, n_out, nrhs
            h = h_abs * direction
            t_new = t + h
            if direction * (t_new - s1) > 0:
                t_new = s1
            h = t_new - t
            h_abs = abs(h)
            # rk_step
            for i in range(N):
                K[0, i] = f[i]
            for s in range(1, N_STAGES):
                for i in range(N):
                    acc[i] = 0.0
                for j in range(s):
                    asj = A[s, j]
                    for i in range(N):
                        acc[i] += K[j, i] * asj
                for i in range(N):
                    ytmp[i] = y[i] + acc[i] * h
                nrhs += 1
                if nrhs > max_rhs:
                    return BUDGET, -1, t, n_out, nrhs
                velocity(ytmp, t + C[s] * h, log_time, model, region, m, d, K[s], lam)
            for i in range(N):
                acc[i] = 0.0
            for j in range(N_STAGES):
                bj = B[j]
                for i in range(N):
                    acc[i] += K[j, i] * bj
            for i in range(N):
                y_new[i] = y[i] + h * acc[i]
            nrhs += 1
            if nrhs > max_rhs:
                return BUDGET, -1, t, n_out, nrhs
            velocity(y_new, t + h, log_time, model, region, m, d, K[N_STAGES], lam_y)
            for i in range(N):
                scale[i] = atol + pmax(abs(y[i]), abs(y_new[i])) * rtol
            for i in range(N):
                err5[i] = 0.0
                err3[i] = 0.0
            for j in range(N_STAGES + 1):
                e5, e3 = E5[j], E3[j]
                for i in range(N):
                    err5[i] += K[j, i] * e5
                    err3[i] += K[j, i] * e3
            for i in range(N):
                err5[i] = err5[i] / scale[i]
                err3[i] = err3[i] / scale[i]
            s5, s3 = 0.0, 0.0
            for i in range(N):
                s5 += err5[i] * err5[i]
                s3 += err3[i] * err3[i]
            n5 = np.sqrt(s5)
            n3 = np.sqrt(s3)
            n5 = n5 * n5
            n3 = n3 * n3
            if n5 == 0 and n3 == 0:
                error_norm = 0.0
            else:
                denom = n5 + 0.01 * n3
                error_norm = abs(h) * n5 / np.sqrt(denom * N)
            if error_norm < 1:
                if error_norm == 0:
                    factor = MAX_FACTOR
                else:
                    factor = SAFETY * error_norm ** ERROR_EXPONENT
                    factor = factor if factor < MAX_FACTOR else MAX_FACTOR
                if rejected:
                    factor = factor if factor < 1 else 1.0
                h_abs *= factor
                accepted = True
            else:
                factor = SAFETY * error_norm ** ERROR_EXPONENT
                h_abs *= factor if factor > MIN_FACTOR else MIN_FACTOR
                rejected = True
        t_old = t
        for i in range(N):
            ytmp[i] = y[i]  # y_old
        t = t_new
        for i in range(N):
            y[i] = y_new[i]
        for i in range(N):
            f[i] = K[N_STAGES, i]
        # dense output (DOP853._dense_output_impl)
        for s in range(N_STAGES + 1, 16):
            for i in range(N):
                acc[i] = 0.0
            for j in range(s):
                asj = A[s, j]
                for i in range(N):
                    acc[i] += K[j, i] * asj
            for i in range(N):
                y_new[i] = ytmp[i] + acc[i] * h
            nrhs += 1
            if nrhs > max_rhs:
                return BUDGET, -1, t, n_out, nrhs
            velocity(y_new, t_old + C[s] * h, log_time, model, region, m, d, K[s], lam)
        for i in range(N):
            dy = y[i] - ytmp[i]
            F[0, i] = dy
            F[1, i] = h * K[0, i] - dy
            F[2, i] = 2 * dy - h * (f[i] + K[0, i])
        for r in range(4):
            for i in range(N):
                acc[i] = 0.0
            for j in range(16):
                drj = D[r, j]
                for i in range(N):
                    acc[i] += drj * K[j, i]
            for i in range(N):
                F[3 + r, i] = h * acc[i]
        finished = direction * (t - s1) >= 0
        # events (solve_ivp: find_active_events, handle_events with terminal events)
        status = FINISHED if finished else 2
        event = -1
        t_stop = t
        if n_events > 0:
            first_root = np.inf
            for e in range(n_events):
                g_new[e] = event_value(e, y, model, region, m, d, lam) if e == 0 else sliding_exit_value(lam_y)
            for e in range(n_events):
                if g[e] >= 0 and g_new[e] <= 0:
                    root, code = brent_event(e, F, ytmp, t_old, h, t_old, t, model, region, m, d, lam, y_new)
                    if code != 0:
                        return code, e, root, n_out, nrhs
                    if event < 0 or root < first_root:
                        first_root = root
                        event = e
            for e in range(n_events):
                g[e] = g_new[e]
            if event >= 0:
                status = EVENT
                t_stop = first_root
                dense_eval(F, ytmp, t_old, h, t_stop, y_end)
        while n_out < cand.shape[0] and cand[n_out] <= t:
            dense_eval(F, ytmp, t_old, h, cand[n_out], out[n_out])
            n_out += 1
        for i in range(N):
            y_old[i] = ytmp[i]
        step[0] = t_old
        step[1] = h
        if status == EVENT:
            return EVENT, event, t_stop, n_out, nrhs
        if status == FINISHED:
            for i in range(N):
                y_end[i] = y[i]
            return FINISHED, -1, t, n_out, nrhs


# ----------------------------------------------------------------------------------------------------------
# Region by region (flow._integrate_single)
# ----------------------------------------------------------------------------------------------------------

# status codes of integrate_regions (besides FINISHED, TOO_SMALL_STEP, BUDGET and the EVENT_* errors)
MAX_EVENTS, ZENO = -6, -7
EVENT_KINDS = ("cross", "slide", "exit")


@jit_callee
def region_weights(T, Cm, rep, sigma, alpha):
    """H_phi, H_free of the region with sides T and sliding flags Cm (``flow._RegionFlow``)."""
    m = T.shape[0]
    n = rep.shape[0]
    H_phi, H_free = np.empty((m, n)), np.empty((m, n))
    for k in range(m):
        for i in range(n):
            h = 1.0 if sigma[i] * T[k, rep[i]] > 0 else alpha
            if Cm[k, rep[i]]:
                H_free[k, i] = 0.0
                H_phi[k, i] = 0.5 * (1.0 + alpha)
            else:
                H_free[k, i] = h
                H_phi[k, i] = h
    return H_phi, H_free


@jit_callee
def build_region(T, Cm, rep, sigma, alpha, h_plus, h_minus, off, E):
    """The region tuple of ``flow._RegionFlow`` for sides T and sliding flags Cm."""
    m, R = T.shape
    H_phi, H_free = region_weights(T, Cm, rep, sigma, alpha)
    count, neurons = 0, 0
    for k in range(m):
        any_k = False
        for r in range(R):
            if Cm[k, r]:
                count += 1
                any_k = True
        if any_k:
            neurons += 1
    sptr, sneuron, splane = np.zeros(neurons + 1, dtype=np.int64), np.empty(neurons, dtype=np.int64), \
        np.empty(count, dtype=np.int64)
    s, p = 0, 0
    for k in range(m):
        start = p
        for r in range(R):
            if Cm[k, r]:
                splane[p] = r
                p += 1
        if p > start:
            sneuron[s] = k
            s += 1
            sptr[s] = p
    return (T.copy(), Cm.copy(), H_phi, H_free, h_plus, h_minus, sptr, sneuron, splane,
            sliding_pinv(E, sptr, splane), off)


@jit_callee
def with_sides(region, T, rep, sigma, alpha):
    """``region`` with sides T (its sliding flags, and so its sliding pairs and pseudo-inverses, kept)."""
    H_phi, H_free = region_weights(T, region[1], rep, sigma, alpha)
    return (T.copy(), region[1], H_phi, H_free, region[4], region[5], region[6], region[7], region[8],
            region[9], region[10])


@jit_callee
def _plane_products(W, ET):
    """G = W E^T, from the model's contiguous E^T (m, R sums over j in order, R side by side)."""
    m, d = W.shape
    R = ET.shape[1]
    G = np.zeros((m, R))
    for k in range(m):
        for j in range(d):
            wkj = W[k, j]
            for r in range(R):
                G[k, r] += wkj * ET[j, r]
    return G


@jit_callee
def close_sliding_pair(pick, lam_pick, region, Cm, T, open_idx, sl_end, t, ev_t, ev_kind, ev_k, ev_r, n_ev):
    """End the sliding of pair ``pick`` (in the order of ``region``) at time t: the neuron leaves on the side its
    Filippov weight ``lam_pick`` points to, the episode is closed and an exit event recorded. Returns n_ev."""
    sptr, sneuron, splane = region[6], region[7], region[8]
    kk = 0
    for s_ in range(sneuron.shape[0]):
        if sptr[s_] <= pick < sptr[s_ + 1]:
            kk = sneuron[s_]
    rr = splane[pick]
    Cm[kk, rr] = False
    T[kk, rr] = 1 if lam_pick >= 0.5 else -1
    sl_end[open_idx[kk, rr]] = t
    open_idx[kk, rr] = -1
    ev_t[n_ev], ev_kind[n_ev], ev_k[n_ev], ev_r[n_ev] = t, 2, kk, rr
    return n_ev + 1


@jit
def integrate_regions(theta0, t_end, t_eval, rtol, atol, log_time, max_events, max_rhs, model, alpha, m, d, rep,
                      rep_point, sqrt_n, out_t, out_y, ev_t, ev_kind, ev_k, ev_r, sl_start, sl_end, sl_k, sl_r,
                      theta_out):
    """flow._integrate_single in compiled code: region by region until t_end, an error or a budget.

    Returns (status, t, n_out, n_events, n_sliding, nrhs, stuck); the records go to the output arrays
    (events: time, kind 0 cross / 1 slide / 2 exit, neuron, plane; sliding episodes: start, end, neuron,
    plane), the final state to ``theta_out``."""
    E, sigma, ET = model[9], model[10], model[14]
    R = E.shape[0]
    N = theta0.shape[0]
    eps = EPS
    h_plus, h_minus = np.empty(rep.shape[0]), np.empty(rep.shape[0])
    for i in range(rep.shape[0]):
        h_plus[i] = 1.0 if sigma[i] > 0 else alpha
        h_minus[i] = alpha if sigma[i] > 0 else 1.0
    theta = theta0.copy()
    T = np.empty((m, R), dtype=np.int64)
    G0 = _plane_products(theta[: m * d].reshape((m, d)), ET)
    for k in range(m):
        for r in range(R):
            T[k, r] = 1 if G0[k, r] > 0 else -1
    Cm = np.zeros((m, R), dtype=np.bool_)
    open_idx = np.full((m, R), -1, dtype=np.int64)
    has_kink = alpha < 1.0
    t = 0.0
    # counters passed to compiled callees start as int64, not as the literal 0: numba would otherwise compile
    # region_segment and close_sliding_pair once more for the literal (cold: region_segment twice)
    n_out, n_ev, n_sl, nrhs = 0, np.int64(0), 0, np.int64(0)
    stuck_t, have_stuck, stuck = 0.0, False, 0
    status = FINISHED
    K_eval = t_eval.shape[0]
    seg_out = np.empty((K_eval, N))
    y_end, F, y_old, step = np.empty(N), np.empty((7, N)), np.empty(N), np.empty(2)
    dV, dr = np.empty((m, d)), np.empty(m)
    while True:
        # a sliding pair whose Filippov weight already lies outside [0, 1] leaves now (flow._integrate_single)
        while n_ev < max_events:
            any_s = False
            for kk in range(m):
                for r in range(R):
                    if Cm[kk, r]:
                        any_s = True
            if not any_s:
                break
            region0 = build_region(T, Cm, rep, sigma, alpha, h_plus, h_minus, np.zeros((m, R)), E)
            lam0 = np.empty(max(region0[8].shape[0], 1))
            parts(theta, model, region0, dV, dr, lam0)
            pick, best, lam_pick = np.int64(-1), 0.0, 0.0
            for p_ in range(region0[8].shape[0]):
                v = lam0[p_] if not (1.0 - lam0[p_] < lam0[p_]) else 1.0 - lam0[p_]
                if v <= 0.0 and (pick < 0 or v < best):
                    pick, best, lam_pick = p_, v, lam0[p_]
            if pick < 0:
                break
            n_ev = close_sliding_pair(pick, lam_pick, region0, Cm, T, open_idx, sl_end, t, ev_t, ev_kind, ev_k,
                                      ev_r, n_ev)
        W = theta[: m * d].reshape((m, d))
        any_c = False
        for kk in range(m):
            p = 0
            for r in range(R):
                if Cm[kk, r]:
                    p += 1
            if p == 0:
                continue
            any_c = True
            Ec = np.empty((p, d))
            q = 0
            for r in range(R):
                if Cm[kk, r]:
                    for j in range(d):
                        Ec[q, j] = E[r, j]
                    q += 1
            # the products by BLAS, as the numpy path computes them (the same bits; plain loops sum in another
            # order, and the sliding runs' event counts then move), the correction applied in a loop (an
            # in-place array subtraction is ~0.1 s more to compile)
            M = Ec @ Ec.T
            rhs_ = Ec @ W[kk].copy()
            coef = np.empty(p)
            least_squares(M, rhs_, EPS * p, coef)
            upd = Ec.T @ coef
            for j in range(d):
                W[kk, j] = W[kk, j] - upd[j]
        G = _plane_products(W, ET)
        off = np.zeros((m, R))
        for k in range(m):
            for r in range(R):
                u = 0.0
                for j in range(d):
                    u += abs(W[k, j]) * abs(E[r, j])
                ulp = 8 * eps * u
                tg = T[k, r] * G[k, r]
                if tg < ulp:
                    off[k, r] = ulp - tg
        region = build_region(T, Cm, rep, sigma, alpha, h_plus, h_minus, off, E)
        s0 = np.log1p(t) if log_time else t
        s1 = np.log1p(t_end) if log_time else t_end
        n_events = (2 if any_c else 1) if has_kink else 0
        j0 = 0
        while j0 < K_eval and not t_eval[j0] >= t:
            j0 += 1
        cand = np.empty(K_eval - j0)
        for j in range(K_eval - j0):
            cand[j] = np.log1p(t_eval[j0 + j]) if log_time else t_eval[j0 + j]
        seg_status, event, s_end, n_cand, nrhs = region_segment(
            theta, s0, s1, rtol, atol, log_time, model, region, m, d, n_events, cand, nrhs, max_rhs, sqrt_n,
            seg_out, y_end, F, y_old, step)
        if seg_status == BUDGET or seg_status == TOO_SMALL_STEP:
            status = seg_status
            break
        if seg_status < 0:
            status = seg_status
            t = s_end
            break
        t_stop = np.expm1(s_end) if log_time else s_end
        count = 0
        while count < cand.shape[0] and (seg_status == FINISHED or t_eval[j0 + count] <= t_stop):
            count += 1
        first = 1 if count > 0 and n_out > 0 and t_eval[j0] <= out_t[n_out - 1] else 0
        for idx in range(first, count):
            out_t[n_out] = t_eval[j0 + idx]
            if idx < n_cand:
                for i in range(N):
                    out_y[n_out, i] = seg_out[idx, i]
            else:  # rounding put the point past the last step: its interpolant
                dense_eval(F, y_old, step[0], step[1], cand[idx], out_y[n_out])
            n_out += 1
        if seg_status == FINISHED:
            theta = y_end.copy()
            t = t_end
            break
        if n_ev >= max_events:
            status = MAX_EVENTS
            break
        theta = y_end.copy()
        t_new = np.expm1(s_end) if log_time else s_end
        if have_stuck and t_new - stuck_t <= 1e-12 * (1.0 + abs(t_new)):
            stuck += 1
        else:
            stuck = 0
        stuck_t, have_stuck, t = t_new, True, t_new
        if stuck > 4 * (m * R + 1):
            status = ZENO
            break
        W = theta[: m * d].reshape((m, d))
        G = _plane_products(W, ET)
        lam = np.empty(max(region[8].shape[0], 1))
        if event == 0:
            # the plane that fired: among planes within rounding of the boundary, one approached
            parts(theta, model, region, dV, dr, lam)
            rate = _plane_products(dV, ET)
            gmin, gnan = np.inf, False
            g = np.empty((m, R))
            for k in range(m):
                for r in range(R):
                    g[k, r] = np.inf if Cm[k, r] else T[k, r] * G[k, r] + off[k, r]
                    rate[k, r] = 0.0 if Cm[k, r] else T[k, r] * rate[k, r]
                    if g[k, r] != g[k, r]:
                        gnan = True
                    elif g[k, r] < gmin:
                        gmin = g[k, r]
            if gnan:
                gmin = np.nan
            any_moving = False
            moving = np.zeros((m, R), dtype=np.bool_)
            for k in range(m):
                s = 0.0
                for j in range(d):
                    s += W[k, j] * W[k, j]
                tol = 1e-12 * (np.sqrt(s) + 1e-300)
                for r in range(R):
                    if g[k, r] <= gmin + tol and rate[k, r] < 0:
                        moving[k, r] = True
                        any_moving = True
            kk, rr, best, found = 0, 0, np.inf, False
            for k in range(m):
                for r in range(R):
                    v = (rate[k, r] if moving[k, r] else np.inf) if any_moving else g[k, r]
                    if not found:
                        kk, rr, best, found = k, r, v, True
                        if v != v:
                            break
                    elif best == best and (v != v or v < best):
                        kk, rr, best = k, r, v
                        if v != v:
                            break
                if best != best:
                    break
            v_side = np.zeros(2)
            for si in range(2):
                side = 1 if si == 0 else -1
                T2 = T.copy()
                T2[kk, rr] = side
                parts(theta, model, with_sides(region, T2, rep, sigma, alpha), dV, dr, lam)
                acc = 0.0
                for j in range(d):
                    acc += dV[kk, j] * E[rr, j]
                v_side[si] = acc
            vp, vm = v_side[0], v_side[1]
            if vp < 0 < vm:
                side = 0
            elif (vp >= 0 and vm > 0) or (vp > 0 and vm >= 0):
                side = 1
            elif (vp <= 0 and vm < 0) or (vp < 0 and vm <= 0):
                side = -1
            else:
                side = -T[kk, rr]
            if side == 0:
                Cm[kk, rr] = True
                sl_start[n_sl], sl_end[n_sl], sl_k[n_sl], sl_r[n_sl] = t, np.nan, kk, rr
                open_idx[kk, rr] = n_sl
                n_sl += 1
                ev_t[n_ev], ev_kind[n_ev], ev_k[n_ev], ev_r[n_ev] = t, 1, kk, rr
                n_ev += 1
            else:
                if side != T[kk, rr]:
                    ev_t[n_ev], ev_kind[n_ev], ev_k[n_ev], ev_r[n_ev] = t, 0, kk, rr
                    n_ev += 1
                T[kk, rr] = side
        else:
            parts(theta, model, region, dV, dr, lam)
            best, pick, lam_pick = 0.0, np.int64(0), 0.0
            for p in range(region[8].shape[0]):
                v = lam[p] if not (1.0 - lam[p] < lam[p]) else 1.0 - lam[p]
                if p == 0 or v < best:
                    best, pick, lam_pick = v, p, lam[p]
            n_ev = close_sliding_pair(pick, lam_pick, region, Cm, T, open_idx, sl_end, t, ev_t, ev_kind, ev_k,
                                      ev_r, n_ev)
    for i in range(n_sl):
        if sl_end[i] != sl_end[i]:
            sl_end[i] = t
    for i in range(N):
        theta_out[i] = theta[i]
    return status, t, n_out, n_ev, n_sl, nrhs, stuck
