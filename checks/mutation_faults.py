"""The hand-written named faults of ``softmix mutation-score --named``: textual patches (``old``
must occur exactly once in ``path``), each with the claims it touches.  The generated mutants of
:mod:`softmix.checks.mutants` are the headline measure; these remain a fixed regression set."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["Fault", "FAULTS", "NULL_FAULT", "apply_fault"]


@dataclass(frozen=True)
class Fault:
    id: str
    path: str
    old: str
    new: str
    description: str
    claims: tuple
    tests: tuple = ()  # pytest node ids also run on the patched tree (caught if one fails)


S2 = ("prop-2.1", "prop-2.1-shared", "bb-lemma-2.1", "linear-fixed-proportions")
FP = ("fp-lln", "fp-bias", "fp-covariance")

FAULTS: list[Fault] = [
    Fault("mgf-half", "theory/mixtures.py", "(a.T * m)[0, 0] + sp.Rational(1, 2) * (a.T * G * a)[0, 0]",
          "(a.T * m)[0, 0] + (a.T * G * a)[0, 0]", "component log-MGF without the factor 1/2", S2 + FP),
    Fault("mgf-sign", "theory/mixtures.py", "(a.T * m)[0, 0] + sp.Rational(1, 2) * (a.T * G * a)[0, 0]",
          "-(a.T * m)[0, 0] + sp.Rational(1, 2) * (a.T * G * a)[0, 0]",
          "component log-MGF with the mean term's sign flipped", S2 + FP),
    Fault("gate-half", "theory/attention.py",
          "                             half=sp.Rational(1, 2)) -> sp.Matrix:\n    \"\"\"Eq. (2)",
          "                             half=sp.Integer(1)) -> sp.Matrix:\n    \"\"\"Eq. (2)",
          "stated gate scores of eq. (2) without the factor 1/2", ("prop-2.1",)),
    Fault("expert-transpose", "theory/attention.py", "        out += w * (m + G * U * z)\n    return V * out",
          "        out += w * (m + G * U.T * z)\n    return V * out", "stated experts use U^T z (swapped index)",
          ("prop-2.1", "prop-2.1-shared")),
    Fault("shared-linear-term", "theory/attention.py", "    return V * G * U * z + V * bary", "    return V * bary",
          "eq. (3) without the global linear term V G U z", ("prop-2.1-shared",)),
    Fault("linear-missing-mmT", "theory/attention.py", "        out += p * V * (G + m * m.T) * U * z",
          "        out += p * V * G * U * z", "linear attention expert without m m^T (missing mean term)",
          ("linear-fixed-proportions",)),
    Fault("gaussian-affine-sign", "theory/attention.py", "    return V * (m + G * U * z)",
          "    return V * (m - G * U * z)",
          "Gaussian affine map with a flipped covariance term", ("bb-lemma-2.1",)),
    Fault("prop-a1-normalisation", "theory/attention.py",
          "        r = pi * sum(q * al for q, al in zip(masses, align)) / Z",
          "        r = pi * sum(q * al for q, al in zip(masses, align))", "Prop. A.1 gates without normalisation",
          ("prop-a.1",)),
    Fault("tilted-cov-missing-G", "theory/attention.py", "        out += wk * (G + (mu - mbar) * (mu - mbar).T)",
          "        out += wk * (mu - mbar) * (mu - mbar).T", "tilted covariance without the within-component term", (),
          ("tests/theory/test_theory_attention.py::test_tilted_covariance_is_the_hessian_of_the_cgf",)),
    Fault("lse-normalisation", "numerics/attention.py",
          "    return scores - (mx + np.log(np.exp(scores - mx).sum(axis=1, keepdims=True)))",
          "    return scores - mx", "log-gates not normalised (softmax without denominator)", S2 + FP),
    Fault("output-V-transpose", "numerics/attention.py",
          "    grad = np.einsum(\"nk,nkd->nd\", al, g)\n    return grad @ V.T",
          "    grad = np.einsum(\"nk,nkd->nd\", al, g)\n    return grad @ V",
          "float64 operator applies V^T instead of V", (),
          ("tests/numerics/test_numerics.py::test_numpy_and_mpmath_agree_and_log_space_is_stable",)),
    Fault("mp-gates-prior", "numerics/attention.py",
          "        al = _softmax_mp(s)\n        grad = mpm.matrix(mix.dim, 1)",
          "        al = [w_ for w_ in mix.mp()[0]]\n        grad = mpm.matrix(mix.dim, 1)",
          "mpmath operator uses prior weights as gates", S2),
    Fault("second-moment-weights", "numerics/attention.py",
          "        M2 += w[k] * np.array(f(vals), dtype=float).reshape(D, D)",
          "        M2 += np.array(f(vals), dtype=float).reshape(D, D)",
          "float64 second moment without the mixture weights", (),
          ("tests/numerics/test_numerics.py::test_linear_attention_float_matches_mp",)),
    Fault("mp-second-moment-weights", "numerics/attention.py",
          "            M2 += w[k] * mpm.matrix([[out[i * D + j] for j in range(D)] for i in range(D)])",
          "            M2 += mpm.matrix([[out[i * D + j] for j in range(D)] for i in range(D)])",
          "mpmath linear attention without the mixture weights", ("linear-fixed-proportions",)),
    Fault("rho-exponent", "numerics/finite_prompt.py", "    rho = float(np.exp(lam2 - 2 * lam1))",
          "    rho = float(np.exp(lam2 - lam1))",
          "rho(a) = M(2a)/M(a) (wrong power of M(a))", FP),
    Fault("bias-sign", "numerics/finite_prompt.py", "\"bias\": rho * V @ (grad1 - grad2)",
          "\"bias\": rho * V @ (grad2 - grad1)",
          "bias coefficient with flipped sign", ("fp-bias",)),
    Fault("cov-missing-G", "numerics/finite_prompt.py", "        C += w2[k] * (G[k] + np.outer(d, d))",
          "        C += w2[k] * np.outer(d, d)",
          "covariance coefficient without the within-component covariance", ("fp-covariance",)),
    Fault("cov-wrong-centre", "numerics/finite_prompt.py",
          "        d = g2[0, k] - grad1  # m_k + 2 G_k a - grad Lambda(a)",
          "        d = g2[0, k] - grad2", "covariance coefficient centred at grad Lambda(2a)", ("fp-covariance",)),
    Fault("cov-weights-at-a", "numerics/finite_prompt.py", "        C += w2[k] * (G[k] + np.outer(d, d))",
          "        C += w1[k] * (G[k] + np.outer(d, d))", "covariance coefficient weighted by w(a) instead of w(2a)",
          ("fp-covariance",)),
    Fault("projected-cov", "numerics/finite_prompt.py", "        covs = B @ G @ B.T  # (K",
          "        covs = B @ G @ B.T / 4  # (K", "projected sampler with half the standard deviation", FP),
    Fault("projected-mean", "numerics/finite_prompt.py", "        means = m @ B.T\n        covs",
          "        means = m @ B.T * 0.9\n        covs", "projected sampler with shrunken means", FP),
    Fault("online-lse", "numerics/finite_prompt.py",
          "            scale = np.exp(run_max - new_max)\n            f = np.exp(cmax - new_max)",
          "            scale = np.ones_like(run_max)\n            f = np.exp(cmax - new_max)",
          "streaming log-sum-exp forgets to rescale earlier chunks", FP),
    Fault("gh-scaling", "numerics/quadrature.py", "        s2, sp_ = mpm.sqrt(2), mpm.sqrt(mpm.pi)",
          "        s2, sp_ = mpm.mpf(1), mpm.sqrt(mpm.pi)",
          "Gauss-Hermite nodes not scaled by sqrt(2) (wrong variance)",
          ("prop-2.1", "bb-lemma-2.1", "linear-fixed-proportions")),
    Fault("gh-weights", "numerics/quadrature.py", "        return [s2 * x for x in t], [x / sp_ for x in w]",
          "        return [s2 * x for x in t], [x / 2 for x in w]", "Gauss-Hermite weights with a wrong normalisation",
          ("linear-fixed-proportions",)),
    Fault("psd-sqrt", "numerics/mixture.py", "    return Q * np.sqrt(w)", "    return Q * w",
          "PSD square root without the square root", FP),
    # ---- Section 3 (LDA) -------------------------------------------------------------------
    Fault("lda-r-factor", "theory/lda.py", "    r = (v21.T * dm)[0, 0] + 2 * v22\n    s = 2 * u12 + U11 * dm\n    s0",
          "    r = (v21.T * dm)[0, 0] + v22\n    s = 2 * u12 + U11 * dm\n    s0",
          "eq. (7): r with v22 instead of 2 v22 (dropped factor)",
          ("eq-6-7", "lemma-b.1")),
    Fault("lda-bayes-prior", "theory/lda.py",
          "    b = -half * ((m1.T * Gamma_inv * m1)[0, 0] - (m_1.T * Gamma_inv * m_1)[0, 0]) "
          "+ sp.log(pi_p / (1 - pi_p))",
          "    b = -half * ((m1.T * Gamma_inv * m1)[0, 0] - (m_1.T * Gamma_inv * m_1)[0, 0]) + sp.log(pi_p)",
          "Bayes intercept with a wrong prior log-odds log(pi) instead of log(pi/(1-pi))", ("prop-b.2",)),
    Fault("lda-sigmoid-sign", "theory/lda.py", "    return 1 / (1 + sp.exp(-t))", "    return 1 / (1 + sp.exp(t))",
          "sigmoid with a flipped sign", ("lemma-b.1", "eq-6-7", "lemma-b.9")),
    Fault("lda-num-bayes-logodds", "numerics/lda.py",
          "        return m1, m_1, G, np.linalg.cholesky(G), pi, float(np.log(pi / (1 - pi)))",
          "        return m1, m_1, G, np.linalg.cholesky(G), pi, float(np.log(pi))",
          "numeric gate offset s0 with a wrong prior log-odds log(pi) instead of log(pi/(1-pi))",
          ("lemma-b.4", "thm-3.5", "fig-1")),
    Fault("lda-num-phi-index", "numerics/lda.py", "    b = v @ m_1 - v22\n    r = v @ dm + 2 * v22",
          "    b = v @ m1 - v22\n    r = v @ dm + 2 * v22", "numeric Phi: b uses m_1 instead of m_{-1} (swapped index)",
          ("thm-3.5", "fig-1", "lemma-3.2")),
    Fault("lda-num-hessian-perp", "numerics/lda.py", "        hess[iw, iw] = hess[iw, iw] + pc * cw * Cperp\n",
          "", "numeric Hessian misses the orthogonal-complement covariance term",
          ("lemma-b.11", "thm-3.5", "lemma-b.13")),
    # ---- Section 4 (denoising) -------------------------------------------------------------
    Fault("den-tweedie-factor", "theory/denoising.py", "    return z + xi**2 * grad", "    return z + grad",
          "Tweedie's formula without the noise variance", ("prop-c.1",)),
    Fault("den-eq11-swap", "theory/denoising.py", "    return gamma**2 / s * z + xi**2 / s * bary",
          "    return xi**2 / s * z + gamma**2 / s * bary", "eq. (11) with the shrinkage factors swapped",
          ("eq-11", "thm-4.1")),
    Fault("den-num-bayes-swap", "numerics/denoising.py", "    return c * Z + a * b @ M", "    return a * Z + c * b @ M",
          "numeric Bayes denoiser with the shrinkage factors swapped", ("thm-4.1", "prop-4.4", "fig-2")),
    Fault("den-best-linear-xi", "numerics/denoising.py",
          "        return MX * mpm.inverse(MX + to_mpf(task.xi) ** 2 * mpm.eye(d))",
          "        return MX * mpm.inverse(MX + to_mpf(task.xi) * mpm.eye(d))",
          "best linear map A* with xi instead of xi^2",
          ("prop-c.6", "thm-4.1")),
    Fault("den-residual-wout", "theory/denoising.py", "        W_out = sp.Matrix.hstack(sp.eye(d), -2 * a * sp.eye(d))",
          "        W_out = sp.Matrix.hstack(sp.eye(d), -a * sp.eye(d))",
          "residual architecture's output map with -a instead of -2a", ("prop-4.4",)),
    Fault("den-u-lambda", "numerics/denoising.py", "        H = lambda u: mpm.tanh(l2 * u) - u",
          "        H = lambda u: mpm.tanh(l2 * u) - u / 2", "fixed-point equation of Prop. 4.3 with a wrong factor",
          ("prop-4.3",)),
    # ---- beyond the paper ------------------------------------------------------------------
    Fault("zfb-moment", "theory/beyond.py", "    return Lam**2 + (Lam**2 + Lam.trace() * Lam) / N",
          "    return Lam**2 + (Lam**2 + Lam) / N", "ZFB second moment without tr(Lambda) (missing trace term)",
          ("zfb-linear-flow",)),
    Fault("qavg-det-power", "theory/beyond.py",
          "    return M.det() ** -HALF * ((V * Gamma * V.T).trace() + (M.inv() * Q).trace())",
          "    return M.det() ** -1 * ((V * Gamma * V.T).trace() + (M.inv() * Q).trace())",
          "query-averaged constant with det^(-1) instead of det^(-1/2)", ("fp-query-averaged-rate",)),
    Fault("mp-psd-sqrt-rank", "numerics/quadrature.py", "    cols = [i for i in range(D) if E[i] > tol]",
          "    cols = [i for i in range(D) if E[i] > tol][1:]",
          "quadrature drops one direction of the covariance (off-by-one in the rank)",
          ("prop-2.1", "bb-lemma-2.1")),
]


def apply_fault(fault: Fault, root: Path) -> None:
    p = root / fault.path
    text = p.read_text()
    n = text.count(fault.old)
    if n != 1:
        raise ValueError(f"fault {fault.id}: pattern occurs {n} times in {fault.path}")
    p.write_text(text.replace(fault.old, fault.new))


NULL_FAULT = Fault("null", "theory/mixtures.py", "def cgf(", "def cgf(", "no change (the clean tree)",
                   ("prop-2.1-shared",))
