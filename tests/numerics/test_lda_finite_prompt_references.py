"""softmix.numerics.lda_finite_prompt_references: the references of lda-finite-prompt agree with the layer on
the claim's configuration and a drawn one, and a deliberately broken piece moves its residual."""

import numpy as np
import pytest

from softmix.checks.rules import ZTest
from softmix.numerics import lda as N, lda_finite_prompt as F, lda_finite_prompt_references as FPR

DRAWN = {
    "m1": ["0.3", "1.1", "-0.4"],
    "m_1": ["-0.7", "0.2", "0.5"],
    "Gamma": [["1.2", "0.3", "-0.2"], ["0.3", "0.8", "0.1"], ["-0.2", "0.1", "1.5"]],
    "pi_plus": "0.35",
}
EPS = np.finfo(float).eps


def _run(cfg, seed=3, n_law=20000):
    return FPR.implementation_residuals(N.LDAProblem.from_params(cfg), np.random.default_rng(seed), n_law)


def _ok(out):
    rel = lambda k, tol: out[k][0] <= tol * max(1.0, out[k][1])
    return {
        "predict": rel("predict", 1e-12),
        "gradient": rel("gradient", 1e-6),
        "loss": rel("loss", 1e4 * EPS),
        "kl": out["kl"][0] <= 100 * EPS,
        "excess_risk_mc": rel("excess_risk_mc", 1e-12),
        "sgd_finite_prompt": rel("sgd_finite_prompt", 1e-6),
    }


@pytest.mark.parametrize("cfg", [N.C1, DRAWN])
def test_implementation_residuals_pass(cfg):
    out = _run(cfg)
    assert all(_ok(out).values()), out
    assert ZTest(1e-4).decide(*out["token_law"][:3])["passed"]


def test_reference_output_pinned_d1():
    """d = 1, theta = (U11, u12, v21, v22) = (1/2, 1/5, 1, 3/10), query x = 1, two tokens (X, Y) = (2, 1) and
    (-1, -1): scores 1.2 and -0.7, values 2.3 and -1.3, so f = (2.3 e^1.2 - 1.3 e^-0.7) / (e^1.2 + e^-0.7)."""
    P = N.LDAProblem.from_params({"m1": [1], "m_1": [-1], "Gamma": [[1]], "pi_plus": "1/2"})
    th = np.array([0.5, 0.2, 1.0, 0.3])
    x, TX, TY = np.array([[1.0]]), np.array([[[2.0], [-1.0]]]), np.array([[1.0, -1.0]])
    want = (2.3 * np.exp(1.2) - 1.3 * np.exp(-0.7)) / (np.exp(1.2) + np.exp(-0.7))
    assert FPR.reference_output(P, th, x, TX, TY)[0] == pytest.approx(want, rel=1e-14)
    assert F.predict(P, th, x, TX, TY)[0] == pytest.approx(want, rel=1e-14)


def test_broken_kl_is_caught(monkeypatch):
    monkeypatch.setattr(F, "kl_bernoulli_logit", lambda t, f: 0 * t + np.abs(t - f) ** 2 / 8)
    assert not _ok(_run(DRAWN, n_law=200))["kl"]


def test_transposed_attention_is_caught(monkeypatch):
    orig = F.predict

    def wrong(prob, theta, x, TX, TY, grad=False):
        U, u, v, v22 = N.unpack_theta(np.asarray(theta, float), prob.d)
        return orig(prob, N.pack_theta(U.T, u, v, v22), x, TX, TY, grad)

    monkeypatch.setattr(F, "predict", wrong)
    assert not _ok(_run(DRAWN, n_law=200))["predict"]


def test_wrong_token_law_is_refuted(monkeypatch):
    orig = F.sample_prompts

    def wrong(prob, rng, B, L):  # transposed Cholesky factor: covariance L^T L instead of Gamma
        TX, TY = orig(prob, rng, B, L)
        m1, m_1, _G, Lc, _pi, _s0 = prob.arrays()
        mean = np.where(TY[..., None] > 0, m1, m_1)
        Z = np.linalg.solve(Lc, (TX - mean).reshape(-1, prob.d).T).T
        return (Z @ Lc).reshape(TX.shape) + mean, TY

    monkeypatch.setattr(F, "sample_prompts", wrong)
    assert ZTest(1e-4).decide(*_run(DRAWN)["token_law"][:3])["verdict"] == "refuted"


def test_labels_outside_pm1_are_named(monkeypatch):
    """A query sampler with labels {2, -1} (the mutant '1.0 -> 2.0' of numerics.lda.sample) is a wrong token
    law outright: its moments are replaced by one entry naming the labels (the claim refutes on it)."""
    orig = N.sample
    monkeypatch.setattr(
        N, "sample", lambda prob, rng, n: (orig(prob, rng, n)[0], np.where(orig(prob, rng, n)[1] > 0, 2.0, -1.0))
    )
    names = _run(N.C1, n_law=2000)["token_law"][3]
    assert any(n.endswith("labels in {-1, 1}") for n in names)


def test_token_law_spread_by_hand_and_against_the_known_variances():
    """A hand sample: labels (1, 1, -1, 1, -1, -1) and X = (0, 2, 1, 4, 3, 5) in d = 1: the label's sd (ddof 1)
    sqrt(0.3), class +1 tokens (0, 2, 4) with sd 2, products (x - 2)^2 = (4, 0, 4) with sd 4/sqrt(3); then the
    known-variance standard errors of a large Gaussian sample within their tolerances, and a mean's standard
    error without its Gamma_ii factor (Gamma_ii = 1.5) outside them."""
    Y = np.array([1, 1, -1, 1, -1, -1], float)
    X = np.array([[0], [2], [1], [4], [3], [5]], float)
    emp, tol = FPR.token_law_spread(X, Y)
    want = [np.sqrt(0.3 / 6), 2 / np.sqrt(3), 4 / np.sqrt(3) / np.sqrt(3), 2 / np.sqrt(3), 4 / np.sqrt(3) / np.sqrt(3)]
    assert np.allclose(emp, want, rtol=1e-14)
    label = 20 / 6  # p = 1/2: q = 1/4, (1 - 3q)/q - 1 = 0, so only the second-order allowance 20/n
    assert np.allclose(tol, [label] + [3 * np.sqrt(2 / 3), 3 * np.sqrt(14 / 3)] * 2)
    bad_emp, bad_tol = FPR.token_law_spread(X, np.array([1, 0, -1, 1, -1, -1], float))
    assert len(bad_emp) == 1 and np.isnan(bad_emp[0]) and np.isnan(bad_tol[0])
    one = FPR.token_law_spread(X, np.array([1, -1, -1, -1, -1, -1], float))  # class +1 has one token
    assert np.isnan(one[0][1:3]).all() and np.isfinite(one[0][3:]).all()
    P = N.LDAProblem.from_params(DRAWN)
    Xq, Yq = N.sample(P, np.random.default_rng(5), 20000)
    _est, se, _pred, names = FPR.token_law_moments(P, Xq, Yq, "query")
    emp, tol = FPR.token_law_spread(Xq, Yq)
    ratio = [abs(a / b - 1) / t for a, b, t in zip(se, emp, tol)]
    assert max(ratio) <= 1, ratio
    i = names.index("query E[X_2 | Y=1]")
    assert abs(se[i] / np.sqrt(1.5) / emp[i] - 1) / tol[i] > 1
