"""Finite-prompt attention LDA (beyond the paper): training and evaluation at prompt length L.

Tokens (X_i, Y_i) i.i.d. from mu_LDA (X | Y = c ~ N(m_c, Gamma), P(Y = 1) = pi_+), query (x, 0).
With the block convention of eq. (12) the last output coordinate is

    f_L(x) = sum_i softmax_i(x^T U11 X_i + (x^T u12) Y_i) (v21^T X_i + v22 Y_i),

the finite-prompt counterpart of f_theta (eq. (6)); as L -> infinity it tends to
w^T x + b + r sigma(s0 + s^T x) with (w, b, r, s) = Phi(theta) (eq. (7)).  Every query gets its
own prompt (batched, shape (B, L, d)).  ``lda-finite-prompt`` decides :func:`predict` against the
generic finite-prompt attention (numerics.finite_prompt.finite_prompt_attention with U, V assembled
from the blocks) and its hand gradient against central finite differences.

Prompts are independent of the query's (x, y), so the Bayes predictor given (x, prompt) is still
f*(x) = w*^T x + b*: the finite-prompt excess risk R_L(theta) - R* is >= 0 and equals
E_{x, prompt} KL(Bern(eta(x)) || Bern(sigma(f_L(x)))), eta = sigma(f*).  The Monte Carlo
estimator below averages that KL (the label integrated out exactly): every term is >= 0 and the
estimate needs no value of R*.

Gradients of the logistic loss are by hand (checked against finite differences in the tests):
    df/dv21 = sum_i a_i X_i,  df/dv22 = sum_i a_i Y_i,  df/dsc_i = a_i (val_i - f),
    df/dU11 = x g^T,  df/du12 = x h,  g = sum_i a_i (val_i - f) X_i,  h = sum_i a_i (val_i - f) Y_i.
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from . import lda as N

__all__ = ["sample_prompts", "sample_queries", "eta", "predict", "loss_grad", "sgd_finite_prompt",
           "excess_risk_mc", "kl_bernoulli_logit"]


def sample_prompts(prob, rng, B, L):
    """B prompts of L tokens: (TX (B, L, d), TY (B, L))."""
    m1, m_1, G, Lc, pi, s0 = prob.arrays()
    d = prob.d
    pos = rng.random((B, L)) < pi
    TY = np.where(pos, 1.0, -1.0)
    TX = (rng.standard_normal((B * L, d)) @ Lc.T).reshape(B, L, d)
    TX += m_1 + pos[..., None] * (m1 - m_1)
    return TX, TY


def sample_queries(prob, rng, B):
    """(x (B, d), y (B,)) from mu_LDA (= numerics.lda.sample)."""
    return N.sample(prob, rng, B)


def eta(prob, x):
    """Bayes logit f*(x) = w*^T x + b* (eq. (5))."""
    w, b = prob.bayes()
    return x @ w + b


def predict(prob, theta, x, TX, TY, grad=False):
    """f_L at queries x (B, d) with per-query prompts (TX (B, L, d), TY (B, L)).  Stable
    log-sum-exp softmax.  With ``grad``: also df/dtheta, shape (B, d^2 + 2d + 1), theta layout of
    numerics.lda (U11 row-major, u12, v21, v22)."""
    d = prob.d
    U, u, v, v22 = N.unpack_theta(np.asarray(theta, float), d)
    sc = np.einsum("be,ble->bl", x @ U, TX) + (x @ u)[:, None] * TY
    sc = sc - sc.max(axis=1, keepdims=True)
    A = np.exp(sc)
    A /= A.sum(axis=1, keepdims=True)
    val = TX @ v + v22 * TY
    f = np.einsum("bl,bl->b", A, val)
    if not grad:
        return f
    c = A * (val - f[:, None])                      # df/dsc_i
    g = np.einsum("bl,ble->be", c, TX)              # (B, d)
    h = np.einsum("bl,bl->b", c, TY)                # (B,)
    dU = (x[:, :, None] * g[:, None, :]).reshape(len(x), d * d)
    du = x * h[:, None]
    dv = np.einsum("bl,ble->be", A, TX)
    dv22 = np.einsum("bl,bl->b", A, TY)
    return f, np.hstack([dU, du, dv, dv22[:, None]])


def loss_grad(prob, theta, x, y, TX, TY):
    """(mean logistic loss, its gradient) over a batch."""
    f, J = predict(prob, theta, x, TX, TY, grad=True)
    loss = np.logaddexp(0.0, -y * f)
    l1 = -y * expit(-y * f)
    return float(loss.mean()), J.T @ l1 / len(y)


def sgd_finite_prompt(prob, theta0, L, step, steps, batch, rng, average_from=None):
    """Online SGD on the logistic loss of f_L: fresh prompts (length L) and fresh queries at every
    step, constant step size.  ``average_from`` (a fraction in [0, 1)): return the Polyak average
    of the iterates after that fraction of the steps instead of the last iterate.
    Returns (theta, per-step batch losses)."""
    th = np.array(theta0, float)
    losses = np.empty(steps)
    k0 = steps if average_from is None else int(average_from * steps)
    avg, navg = np.zeros_like(th), 0
    for k in range(steps):
        x, y = sample_queries(prob, rng, batch)
        TX, TY = sample_prompts(prob, rng, batch, L)
        losses[k], g = loss_grad(prob, th, x, y, TX, TY)
        th = th - step * g
        if k >= k0:
            avg += th
            navg += 1
    return (avg / navg if navg else th), losses


def kl_bernoulli_logit(t, f):
    """KL(Bern(sigma(t)) || Bern(sigma(f))) = E_y[softplus(-y f) - softplus(-y t)], y ~ Bern(sigma(t))."""
    p = expit(t)
    return p * (np.logaddexp(0.0, -f) - np.logaddexp(0.0, -t)) + (1 - p) * (np.logaddexp(0.0, f) - np.logaddexp(0.0, t))


def excess_risk_mc(prob, theta, L, n, rng, chunk=None):
    """Monte Carlo R_L(theta) - R* = E KL(eta(x) || sigma(f_L(x))) over n fresh (query, prompt)
    pairs.  Returns (mean, standard error)."""
    chunk = chunk or max(1, min(n, 2_000_000 // max(1, L * prob.d)))
    vals = []
    done = 0
    while done < n:
        B = min(chunk, n - done)
        x, _ = sample_queries(prob, rng, B)
        TX, TY = sample_prompts(prob, rng, B, L)
        vals.append(kl_bernoulli_logit(eta(prob, x), predict(prob, theta, x, TX, TY)))
        done += B
    v = np.concatenate(vals)
    return float(v.mean()), float(v.std(ddof=1) / np.sqrt(len(v)))
