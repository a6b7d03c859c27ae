"""Independent references for the finite-prompt LDA layer (numerics.lda_finite_prompt): the layer's
output from the generic finite-prompt attention, its loss and a finite-difference gradient, the Bernoulli
KL at 30 digits, the Bayes log-odds from the class densities, replays of the Monte Carlo excess risk and of
the SGD on their own streams, and the moments of the token law for a z-test.  Used by the claim
lda-finite-prompt (softmix.checks.paper.lda_finite_prompt); tested in
tests/numerics/test_lda_finite_prompt_references.py.
"""

from __future__ import annotations

import mpmath as mpm
import numpy as np
from scipy.stats import multivariate_normal as mvn

from . import lda as N, lda_finite_prompt as F
from .finite_prompt import finite_prompt_attention

__all__ = [
    "reference_output",
    "reference_loss",
    "central_gradient",
    "kl_bernoulli_mp",
    "bayes_logit",
    "token_law_moments",
    "token_law_spread",
    "excess_risk_replay",
    "sgd_replay",
    "implementation_residuals",
]


def reference_output(P, theta, x, TX, TY):
    """f_L(x) from the generic finite-prompt attention (numerics.finite_prompt.finite_prompt_attention,
    sum_i softmax_i(<U z, z_i>) V z_i) with U, V assembled from the eq. (12) blocks: U^T = [[U11, u12], [0, 0]],
    V's last row (v21^T, v22) (its other rows are arbitrary and not read); query z = (x, 0), tokens
    z_i = (X_i, Y_i); the last output coordinate."""
    d = P.d
    U11, u12, v21, v22 = N.unpack_theta(np.asarray(theta, float), d)
    UT = np.zeros((d + 1, d + 1))
    UT[:d, :d], UT[:d, d] = U11, u12
    V = np.full((d + 1, d + 1), 0.5)
    V[d, :d], V[d, d] = v21, v22
    return np.array(
        [
            finite_prompt_attention(np.hstack([TX[b], TY[b][:, None]]), UT.T, V, np.append(x[b], 0.0))[d]
            for b in range(len(x))
        ]
    )


def reference_loss(P, theta, x, y, TX, TY):
    """Mean logistic loss of :func:`reference_output` on a batch."""
    return float(np.mean(np.logaddexp(0.0, -y * reference_output(P, theta, x, TX, TY))))


def central_gradient(fun, th, h=1e-5):
    """The gradient of ``fun`` at ``th`` by central differences (step h along each coordinate)."""
    I = np.eye(th.size)
    return np.array([(fun(th + h * I[i]) - fun(th - h * I[i])) / (2 * h) for i in range(th.size)])


def kl_bernoulli_mp(t, f, dps=30):
    """KL(Bern(p) || Bern(q)) = p log(p/q) + (1-p) log((1-p)/(1-q)), p = sigma(t), q = sigma(f), at dps digits."""
    with mpm.workdps(dps):
        sg = lambda a: 1 / (1 + mpm.exp(-mpm.mpf(float(a))))
        p, q = sg(t), sg(f)
        return float(p * mpm.log(p / q) + (1 - p) * mpm.log((1 - p) / (1 - q)))


def bayes_logit(P, x):
    """log-odds of the class densities (scipy), independent of the problem's Bayes coefficients."""
    m1, m_1, G, _L, pi, _s0 = P.arrays()
    return np.log(pi) - np.log(1 - pi) + np.atleast_1d(mvn(m1, G).logpdf(x) - mvn(m_1, G).logpdf(x))


def token_law_moments(P, X, Y, where):
    """(estimates, standard errors, predicted, names) of the token law's moments: P(Y = 1) = pi_+, and per
    class the mean m_c and the covariance entries Gamma_ij (i <= j) of X; known-variance standard errors
    (binomial; Gamma_ii / n_c; (Gamma_ii Gamma_jj + Gamma_ij^2) / n_c for a Gaussian sample covariance).  Labels
    outside {-1, 1} give one undecidable entry named '... labels in {-1, 1}'."""
    m1, m_1, G, _L, pi, _ = P.arrays()
    if not set(np.unique(Y)) <= {-1.0, 1.0}:
        return [float("nan")], [1.0], [0.0], [f"{where} labels in {{-1, 1}}"]
    est, se, pred, names = [float(np.mean(Y > 0))], [float(np.sqrt(pi * (1 - pi) / len(Y)))], [pi], [f"{where} P(Y=1)"]
    for c, mc in ((1, m1), (-1, m_1)):
        Xc = X[Y == c]
        nc = len(Xc)
        est += list(Xc.mean(0))
        se += list(np.sqrt(np.diag(G) / nc))
        pred += list(mc)
        names += [f"{where} E[X_{i} | Y={c}]" for i in range(P.d)]
        C = (Xc - mc).T @ (Xc - mc) / nc  # the class mean is known: no degree of freedom lost
        for i in range(P.d):
            for j in range(i, P.d):
                est.append(float(C[i, j]))
                se.append(float(np.sqrt((G[i, i] * G[j, j] + G[i, j] ** 2) / nc)))
                pred.append(float(G[i, j]))
                names.append(f"{where} Cov[X_{i}, X_{j} | Y={c}]")
    return est, se, pred, names


def token_law_spread(X, Y):
    """(empirical standard errors, relative tolerances) in the order of :func:`token_law_moments`'s entries: the
    sample's own spread, sd(ddof=1) / sqrt(n), of 1{Y = 1}, of X_i and of the centred products (X_i - mean_i)(X_j
    - mean_j) per class -- what the known-variance standard errors must match if the law they assume is the
    sampler's.  The tolerance of an entry is six standard deviations of the ratio sd / sd_true, whose relative
    variance is (mu_4 / sigma^4 - 1) / (4 n) for a sample of n with central fourth moment mu_4: 2 for a Gaussian
    X_i; at most 14 for a product of two jointly Gaussian coordinates (U^2: mu_4 = 60 sigma_U^8, Var = 2
    sigma_U^4); (1 - 3 q) / q - 1 for the label, q = p (1 - p) at the sample's p.  Tolerance 3 sqrt(that / n),
    plus 20 / n for the label, whose first-order term vanishes at p = 1/2 (then sd(p^) / sd(p) - 1 = -(p^ -
    p)^2 / (2 q) + O(n^-2): under 18 / n at six standard deviations of p^, and the ddof's 1 / (2 n)).
    An entry that cannot be judged (labels outside {-1, 1}, a class with fewer than 2 tokens, all labels equal)
    is (nan, nan)."""
    nan = float("nan")
    if not set(np.unique(Y)) <= {-1.0, 1.0}:
        return [nan], [nan]
    n = len(Y)
    p = float(np.mean(Y > 0)) if n else 0.0
    q = p * (1 - p)
    emp = [float(np.std(Y > 0, ddof=1) / np.sqrt(n)) if q > 0 else nan]
    tol = [float(3 * np.sqrt(max(0.0, (1 - 3 * q) / q - 1) / n) + 20 / n) if q > 0 else nan]
    d = X.shape[1]
    for c in (1, -1):
        Xc = X[Y == c]
        nc = len(Xc)
        if nc < 2:
            k = d + d * (d + 1) // 2
            emp, tol = emp + [nan] * k, tol + [nan] * k
            continue
        emp += list(np.std(Xc, axis=0, ddof=1) / np.sqrt(nc))
        tol += [float(3 * np.sqrt(2 / nc))] * d
        D = Xc - Xc.mean(0)
        for i in range(d):
            for j in range(i, d):
                emp.append(float(np.std(D[:, i] * D[:, j], ddof=1) / np.sqrt(nc)))
                tol.append(float(3 * np.sqrt(14 / nc)))
    return emp, tol


def excess_risk_replay(P, th, L, n, seed, chunk):
    """excess_risk_mc replayed on its stream (queries then prompts, chunk by chunk) with the references: mean
    and standard error of KL(eta || sigma(f_L)), eta from :func:`bayes_logit`, f_L from :func:`reference_output`."""
    rr, done = np.random.default_rng(seed), 0
    vals: list = []
    while done < n:
        B = min(chunk, n - done)
        xq, _ = N.sample(P, rr, B)
        pX, pY = F.sample_prompts(P, rr, B, L)
        vals += [kl_bernoulli_mp(a, b) for a, b in zip(bayes_logit(P, xq), reference_output(P, th, xq, pX, pY))]
        done += B
    arr = np.array(vals)
    return float(arr.mean()), float(arr.std(ddof=1) / np.sqrt(n))


def sgd_replay(P, th, L, step, steps, batch, seed, frac):
    """sgd_finite_prompt replayed on its stream with the reference loss's finite-difference gradient and the
    Polyak average after ``frac`` of the steps: (averaged parameter, per-step losses)."""
    rr, cur, avg, navg, losses = np.random.default_rng(seed), th.copy(), np.zeros_like(th), 0, []
    for k in range(steps):
        xq, yq = N.sample(P, rr, batch)
        pX, pY = F.sample_prompts(P, rr, batch, L)
        losses.append(reference_loss(P, cur, xq, yq, pX, pY))
        cur = cur - step * central_gradient(lambda t: reference_loss(P, t, xq, yq, pX, pY), cur)
        if k >= int(frac * steps):
            avg, navg = avg + cur, navg + 1
    return avg / navg, np.array(losses)


def implementation_residuals(P, rng, n_law) -> dict:
    """The finite-prompt layer's pieces on one configuration against the references: (residual, scale) of
    predict vs :func:`reference_output`, of loss_grad's gradient vs :func:`central_gradient` of the reference
    loss (and its loss), of kl_bernoulli_logit vs :func:`kl_bernoulli_mp` (relative to 1 + |t| + |f|), of
    excess_risk_mc vs :func:`excess_risk_replay`, of sgd_finite_prompt vs :func:`sgd_replay`; and the token-law
    moments of the query and prompt samplers (``n_law`` draws each) for a z-test, with their samples' own
    spread (:func:`token_law_spread`) to check the z-test's standard errors against."""
    th = rng.standard_normal(N.theta_size(P.d)) * 0.7
    x, y = F.sample_queries(P, rng, 3)
    TX, TY = F.sample_prompts(P, rng, 3, 6)
    ref = reference_output(P, th, x, TX, TY)
    out: dict = {"predict": (float(np.max(np.abs(F.predict(P, th, x, TX, TY) - ref))), float(np.max(np.abs(ref))))}
    loss, g = F.loss_grad(P, th, x, y, TX, TY)
    gfd = central_gradient(lambda t: reference_loss(P, t, x, y, TX, TY), th)
    out["gradient"] = (float(np.max(np.abs(g - gfd))), float(np.max(np.abs(gfd))))
    out["loss"] = (abs(loss - reference_loss(P, th, x, y, TX, TY)), abs(loss))
    t = np.array([0.3, -2.0, 4.0, 9.5, -7.0, 0.0])
    q = np.array([1.0, 0.5, -3.0, 6.0, -11.0, 2.5])
    kl = F.kl_bernoulli_logit(t, q)
    out["kl"] = (
        float(
            np.max(np.abs(kl - np.array([kl_bernoulli_mp(a, b) for a, b in zip(t, q)])) / (1 + np.abs(t) + np.abs(q)))
        ),
        1.0,
    )
    seed = int(rng.integers(2**31))
    val, se = F.excess_risk_mc(P, th, 5, 7, np.random.default_rng(seed), chunk=3)
    ref_v, ref_se = excess_risk_replay(P, th, 5, 7, seed, 3)
    out["excess_risk_mc"] = (max(abs(val - ref_v), abs(se - ref_se)), max(abs(ref_v), abs(ref_se)))
    th_s, losses = F.sgd_finite_prompt(P, th, 5, 0.3, 4, 3, np.random.default_rng(seed + 1), 0.5)
    avg, ref_losses = sgd_replay(P, th, 5, 0.3, 4, 3, seed + 1, 0.5)
    out["sgd_finite_prompt"] = (
        max(float(np.max(np.abs(th_s - avg))), float(np.max(np.abs(losses - ref_losses)))),
        float(np.max(np.abs(th_s))),
    )
    Xq, Yq = N.sample(P, rng, n_law)
    PX, PY = F.sample_prompts(P, rng, 1, n_law)
    out["token_law"] = [
        a + b for a, b in zip(token_law_moments(P, Xq, Yq, "query"), token_law_moments(P, PX[0], PY[0], "prompt"))
    ]
    out["token_law_spread"] = [a + b for a, b in zip(token_law_spread(Xq, Yq), token_law_spread(PX[0], PY[0]))]
    return out
