"""Implementation checks of lda-finite-prompt (checks.paper.lda_finite_prompt._implementation): they pass
on the claim's configuration and on a drawn one, and a deliberately broken piece makes them fail."""
import numpy as np
import pytest

from softmix.checks.paper import lda_finite_prompt as M
from softmix.checks.rules import ZTest
from softmix.numerics import lda as N, lda_finite_prompt as F

DRAWN = {"m1": ["0.3", "1.1", "-0.4"], "m_1": ["-0.7", "0.2", "0.5"],
         "Gamma": [["1.2", "0.3", "-0.2"], ["0.3", "0.8", "0.1"], ["-0.2", "0.1", "1.5"]], "pi_plus": "0.35"}


def _run(cfg, seed=3):
    P = N.LDAProblem.from_params(cfg)
    out, ok, law = M._implementation(P, np.random.default_rng(seed), 20000)
    return out, ok, ZTest(1e-4).decide(*law[:3])


@pytest.mark.parametrize("cfg", [N.C1, DRAWN])
def test_implementation_checks_pass(cfg):
    out, ok, law = _run(cfg)
    assert ok and law["passed"], out


def test_reference_predictor_pinned_d1():
    """d = 1, theta = (U11, u12, v21, v22) = (1/2, 1/5, 1, 3/10), query x = 1, two tokens (X, Y) = (2, 1) and
    (-1, -1): scores x U11 X + x u12 Y = 1.2 and -0.7, values v21 X + v22 Y = 2.3 and -1.3, so
    f = (2.3 e^1.2 - 1.3 e^-0.7) / (e^1.2 + e^-0.7)."""
    P = N.LDAProblem.from_params({"m1": [1], "m_1": [-1], "Gamma": [[1]], "pi_plus": "1/2"})
    th = np.array([0.5, 0.2, 1.0, 0.3])
    x, TX, TY = np.array([[1.0]]), np.array([[[2.0], [-1.0]]]), np.array([[1.0, -1.0]])
    want = (2.3 * np.exp(1.2) - 1.3 * np.exp(-0.7)) / (np.exp(1.2) + np.exp(-0.7))
    assert M._reference_f(P, th, x, TX, TY)[0] == pytest.approx(want, rel=1e-14)
    assert F.predict(P, th, x, TX, TY)[0] == pytest.approx(want, rel=1e-14)


def test_broken_kl_is_caught(monkeypatch):
    monkeypatch.setattr(F, "kl_bernoulli_logit", lambda t, f: M._kl_mp(0, 0) + 0 * t + np.abs(t - f) ** 2 / 8)
    out, ok, _ = _run(DRAWN)
    assert not ok and not out["kl_vs_bernoulli_kl_30_digits"]["passed"]


def test_transposed_attention_is_caught(monkeypatch):
    orig = F.predict

    def wrong(prob, theta, x, TX, TY, grad=False):
        d = prob.d
        U, u, v, v22 = N.unpack_theta(np.asarray(theta, float), d)
        return orig(prob, N.pack_theta(U.T, u, v, v22), x, TX, TY, grad)
    monkeypatch.setattr(F, "predict", wrong)
    out, ok, _ = _run(DRAWN)
    assert not ok and not out["predict_vs_generic_attention"]["passed"]


def test_wrong_token_law_is_refuted(monkeypatch):
    orig = F.sample_prompts

    def wrong(prob, rng, B, L):  # transposed Cholesky factor: covariance L^T L instead of Gamma
        TX, TY = orig(prob, rng, B, L)
        m1, m_1, G, Lc, pi, s0 = prob.arrays()
        mean = np.where(TY[..., None] > 0, m1, m_1)
        Z = np.linalg.solve(Lc, (TX - mean).reshape(-1, prob.d).T).T
        return (Z @ Lc).reshape(TX.shape) + mean, TY
    monkeypatch.setattr(F, "sample_prompts", wrong)
    _, _, law = _run(DRAWN)
    assert law["verdict"] == "refuted"


def test_labels_outside_pm1_refute(monkeypatch):
    """A query sampler with labels {2, -1} (the mutant '1.0 -> 2.0' of numerics.lda.sample) is a wrong token
    law outright: refuted, not an undecidable moment."""
    from softmix.checks.registry import Context

    orig = N.sample

    def wrong(prob, rng, n):
        X, y = orig(prob, rng, n)
        return X, np.where(y > 0, 2.0, -1.0)
    monkeypatch.setattr(N, "sample", wrong)
    P = N.LDAProblem.from_params(N.C1)
    ev, verdict = M._implementation_part(P, Context("lda-finite-prompt", "quick", 987654321), 2000, 1e-4)
    assert verdict == "refuted"
