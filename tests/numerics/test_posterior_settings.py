"""numerics.posterior (the K-component Bayes denoiser), numerics.settings (ready settings of `softmix risk`)
and numerics.expansion_reach (the next coefficients of the finite-prompt expansion), each against an
independent computation: quadrature, the two-component reference of numerics.denoising, an exact sum
over a two-atom token law, and the claim library's own in-context-regression builder."""
import math

import mpmath as mpm
import numpy as np
import pytest
from scipy.stats import binom

from softmix.numerics import denoising as DN, expansion_reach as ER, risk as RK
from softmix.numerics.errors import InputError
from softmix.numerics.mixture import GaussianMixture
from softmix.numerics.posterior import (
    PosteriorMeanTarget,
    posterior_covariance,
    posterior_mean,
    posterior_mean_mp,
    posterior_weights,
)
from softmix.numerics.settings import denoising, icl_regression, setting_from_json

CLEAN3 = GaussianMixture.from_values(["0.2", "0.5", "0.3"], [["-1.3"], ["0.4"], ["2.1"]],
                                     [[["0.3"]], [["0.8"]], [["0"]]])


def _quad_posterior_1d(mix, noise, z, dps=30):
    """E[X | Z = z] and E[X^2 | Z = z] by mpmath quadrature of the joint density (no conditional-Gaussian formula);
    a point-mass component integrates in closed form."""
    with mpm.workdps(dps):
        w, m, G = mix.mp()
        s2 = mpm.mpf(noise)
        phi = lambda x, v: mpm.exp(-x * x / (2 * v)) / mpm.sqrt(2 * mpm.pi * v)
        z = mpm.mpf(z)
        mom = [mpm.mpf(0)] * 3
        for k in range(len(w)):
            mk, vk = m[k][0], G[k][0, 0]
            for j in range(3):
                if vk == 0:
                    mom[j] += w[k] * mk**j * phi(z - mk, s2)
                else:
                    f = lambda x, j=j: x**j * phi(x - mk, vk) * phi(z - x, s2)
                    mom[j] += w[k] * mpm.quad(f, [-mpm.inf, mk - 5, mk, mk + 5, mpm.inf])
        return mom[1] / mom[0], mom[2] / mom[0]


def test_posterior_mean_against_quadrature_three_components_one_point_mass():
    for z in ("-3.1", "0.25", "1.7", "6"):
        ref, ref2 = _quad_posterior_1d(CLEAN3, "0.45", z)
        got = posterior_mean(CLEAN3, 0.45, [[float(z)]])[0, 0]
        assert abs(got - float(ref)) < 1e-12 * max(1, abs(float(ref)))
        cov = posterior_covariance(CLEAN3, 0.45, [[float(z)]])[0, 0, 0]
        assert abs(cov - float(ref2 - ref**2)) < 1e-10
        with mpm.workdps(30):
            mp = posterior_mean_mp(CLEAN3, "0.45", [z], dps=30)[0]
            assert abs(mp - ref) < mpm.mpf(10) ** -25 * max(1, abs(ref))


def test_posterior_mean_mp_defaults_to_50_digits():
    """``posterior_mean_mp(clean, noise, z)`` without ``dps``: 50 digits (the documented default), i.e. each
    value is the true f*(z) rounded once to 50 digits.  The true value at 80 digits, written out by hand for
    d = 1 (gates pi_k N(z; m_k, v_k + n), means m_k + v_k (z - m_k) / (v_k + n); the formula is checked against
    quadrature above); three queries, so a coarser default cannot match all of them by chance."""
    for z in ("-3.1", "0.25", "1.7"):
        with mpm.workdps(80):
            zz, n = mpm.mpf(z), mpm.mpf("0.45")
            w, m, v = ([mpm.mpf(x) for x in c] for c in (["0.2", "0.5", "0.3"], ["-1.3", "0.4", "2.1"],
                                                         ["0.3", "0.8", "0"]))
            g = [w[k] * mpm.npdf(zz, m[k], mpm.sqrt(v[k] + n)) for k in range(3)]
            ref = sum(g[k] * (m[k] + v[k] * (zz - m[k]) / (v[k] + n)) for k in range(3)) / sum(g)
        got = posterior_mean_mp(CLEAN3, "0.45", [z])[0]
        with mpm.workdps(50):
            assert got == +ref, (z, got - ref)


def test_posterior_mean_against_the_two_component_reference_and_at_large_scores():
    task = DN.DenoisingTask.from_params({"m1": ["1.2", "-0.7", "0.3"], "m2": ["-0.4", "0.9", "1.1"], "gamma": "0.8",
                                         "xi": "1.3", "pi1": "0.35"})
    clean = GaussianMixture.from_values([task.pi1, 1 - task.pi1], [list(task.m1), list(task.m2)],
                                        [[[task.gamma**2 if i == j else 0 for j in range(3)] for i in range(3)]] * 2)
    Z = np.random.default_rng(5).normal(scale=2.5, size=(200, 3))
    Z[:3] = [[1e3, -1e3, 5e2], [-4e4, 1e4, 0.0], [1e300 ** 0.5, 0, 0]]  # scores far beyond exp's range
    got, ref = posterior_mean(clean, task.xi**2, Z), DN.bayes_denoiser(task, Z)
    assert np.all(np.isfinite(got))
    assert np.allclose(got, ref, rtol=1e-12, atol=1e-12)
    b = posterior_weights(clean, float(task.xi**2), Z)
    assert np.all(np.isfinite(b)) and np.allclose(b.sum(1), 1)
    # unequal covariances: far out the widest observation law wins, f*(z) ~ Sigma_k S_k^-1 z (no nan, no inf - inf)
    c2 = GaussianMixture.from_values(["0.5", "0.5"], [["0"], ["1"]], [[["1"]], [["2"]]])
    far = posterior_mean(c2, 0.5, [[1e200], [-1e200], [1e3]])[:, 0]
    assert np.allclose(far[:2], [0.8e200, -0.8e200], rtol=1e-12) and far[2] == pytest.approx(0.8 * 1e3 + 0.2, rel=1e-9)


def test_posterior_mean_non_isotropic_noise_singular_component_against_gauss_hermite():
    clean = GaussianMixture.from_values(["0.25", "0.45", "0.3"], [["1", "-0.5"], ["-1.2", "0.8"], ["0.3", "1.5"]],
                                        [[["0.5", "0.2"], ["0.2", "0.3"]], [["0.4", "0"], ["0", "0"]],
                                         [["0.2", "-0.1"], ["-0.1", "0.6"]]])
    N = np.array([[0.7, 0.25], [0.25, 0.9]])
    Ni = np.linalg.inv(N)
    x, wq = np.polynomial.hermite_e.hermegauss(60)
    X1, X2 = np.meshgrid(x, x, indexing="ij")
    xi = np.stack([X1.ravel(), X2.ravel()], 1)
    W = np.outer(wq, wq).ravel() / (2 * np.pi)
    w, m, G = clean.arrays()
    for z in ([0.4, -0.3], [2.5, 1.0], [-2.0, 2.2]):
        num, den = np.zeros(2), 0.0
        for k in range(3):
            pts = m[k] + xi @ RK.psd_sqrt(G[k]).T
            d = z - pts
            lik = np.exp(-0.5 * np.einsum("ni,ij,nj->n", d, Ni, d))
            num += w[k] * (W * lik) @ pts
            den += w[k] * (W * lik).sum()
        assert np.allclose(posterior_mean(clean, N, [z])[0], num / den, rtol=1e-9, atol=1e-10)


def test_posterior_rejects_a_degenerate_observation():
    with pytest.raises(InputError):
        posterior_mean(CLEAN3, 0.0, [[0.1]])  # the point mass plus zero noise has no density


# ---- settings -------------------------------------------------------------------------------------------
def test_icl_regression_setting_gives_the_exact_constant_8_2393():
    """The user's setting of issue 26 (d = 5, noise 0.1, omega = (0.3, -0.2), mu = (1.5, 0.8), beta = e1):
    the published loss approximation said 6.697, the exact 1/L coefficient is 8.2393."""
    s = setting_from_json({"icl_regression": {"d": 5, "noise_variance": "0.1", "omega": ["0.3", "-0.2"],
                                              "mu": ["1.5", "0.8"]}})
    r = RK.averaged_risk(*s.as_inputs(), dps=30)
    assert r["method"] == "closed-form" and abs(r["threshold"] - 0.09) < 1e-12
    assert mpm.nstr(r["K"], 12) == "8.23927459308"
    assert abs(float(r["risk_infinite"]) - 0.6041) < 1e-12
    # the same setting built by the claim library's own builder (scores <A_h x_q, x_i>, A_h = omega_h I)
    from softmix.numerics.risk_references import icl_regression_inputs

    A = [[[o if i == j else 0 for j in range(5)] for i in range(5)] for o in (0.3, -0.2)]
    t, q, h, tg = icl_regression_inputs(5, [1, 0, 0, 0, 0], "0.1", A, [1.5, 0.8])
    mix, qq = GaussianMixture.from_json_obj(t), GaussianMixture.from_json_obj(q)
    ref = RK.averaged_risk(mix, RK.parse_heads(h, 6), qq, RK.parse_target(tg, 6, 1))
    assert abs(ref["K"] - float(r["K"])) < 1e-12 * ref["K"]


def test_icl_regression_generic_beta_and_input_errors():
    s = icl_regression(2, "1/4", ["0.35"], ["1.3"], beta=["0.8", "-0.5"])
    assert s.tokens.covariances[0][2][2] == pytest.approx(0.8**2 + 0.5**2 + 0.25)
    assert RK.averaged_risk(*s.as_inputs())["K"] > 0
    for bad in ({"icl_regression": {"d": 2, "noise_variance": "0.1", "omega": ["1"], "mu": ["1", "2"]}},
                {"icl_regression": {"d": 0, "noise_variance": "0.1", "omega": ["1"], "mu": ["1"]}},
                {"icl_regression": {"d": 2, "noise_variance": "0.1", "omega": ["1"]}},
                {"icl_regression": {"d": 2, "noise_variance": "0.1", "omega": ["1"], "mu": ["1"], "x": 1}},
                {"denoising": {"gamma": "1", "xi": "2", "weights": ["1"], "means": [["0", "0"]]}},
                {"nope": {}}):
        with pytest.raises(InputError):
            setting_from_json(bad)


def test_denoising_setting_paper_heads_realise_the_bayes_denoiser():
    s = denoising("1", "2", m1=["3", "0"], m2=["0", "3"], pi1="0.3")
    r = RK.averaged_risk(*s.as_inputs(), n_mc=4000, seed=1)
    assert r["method"] == "monte-carlo" and abs(r["risk_infinite"]) < 1e-20  # Thm 4.1: exact at L = infinity
    assert r["finite"] is False and abs(r["threshold"] - 1.5855823048) < 1e-8  # docs/finite-prompt.md sec. 8
    # y = X: the risk at L = infinity is the Bayes risk E tr Cov(X | Z), against a direct simulation of (X, Z)
    c = denoising("1", "2", m1=["3", "0"], m2=["0", "3"], pi1="0.3", clean_target=True)
    rc = RK.averaged_risk(*c.as_inputs(), n_mc=20000, seed=2)
    rng = np.random.default_rng(3)
    n = 200000
    lab = rng.random(n) < 0.3
    X = np.where(lab[:, None], [3.0, 0.0], [0.0, 3.0]) + rng.standard_normal((n, 2))
    Z = X + 2 * rng.standard_normal((n, 2))
    e = ((X - posterior_mean(c.target.clean_law, 4.0, Z)) ** 2).sum(1)
    assert abs(rc["risk_infinite"] - e.mean()) < 4 * math.hypot(e.std() / math.sqrt(n),
                                                                rc["standard_error"]["risk_infinite"])


def test_posterior_target_equals_the_linear_target_when_the_posterior_mean_is_linear():
    """One centred clean component: f*(z) = Sigma S^-1 z, Cov(X | z) = Sigma - Sigma S^-1 Sigma; the risk constants
    with PosteriorMeanTarget equal those with the linear Target (B = Sigma S^-1, that noise)."""
    Sig = np.array([[1.0, 0.3], [0.3, 0.5]])
    N = np.array([[0.4, 0.0], [0.0, 0.6]])
    clean = GaussianMixture.from_values(["1"], [[0, 0]], [Sig.tolist()])
    tokens = GaussianMixture.from_values(["1"], [[0, 0]], [(Sig + N).tolist()])
    heads = RK.parse_heads([{"U": [["0.3", "0.1"], ["-0.2", "0.25"]], "V": [["0.7", "0.1"], ["0", "0.5"]]}], 2)
    B = Sig @ np.linalg.inv(Sig + N)
    lin = RK.Target(tuple(tuple(float(x) for x in r) for r in B),
                    tuple(tuple(float(x) for x in r) for r in Sig - B @ Sig))
    post = PosteriorMeanTarget(clean, tuple(tuple(float(x) for x in r) for r in N), clean=True)
    Z = np.random.default_rng(0).normal(size=(50, 2))
    a, b = RK.risk_constants(tokens, heads, lin, Z), RK.risk_constants(tokens, heads, post, Z)
    for k in ("K", "risk_infinite", "variance", "bias_residual"):
        assert np.allclose(a[k], b[k], rtol=1e-10, atol=1e-12), k


# ---- the expansion's next coefficients ----------------------------------------------------------------
def test_expansion_coefficients_exact_on_a_two_atom_token_law():
    """For tokens from a two-atom law, E||T_L - T||^2 and E[T_L - T] are finite binomial sums: L^2 (L MSE - m2 -
    c3 / L) -> c4 and L^2 (L bias - b - d3 / L) -> d4, with an O(1/L) error."""
    p, s = 0.3, np.array([0.9, -0.4])
    Y = np.array([[1.0, 0.5], [-0.7, 0.2]])
    P = np.array([p, 1 - p])
    w = np.exp(s) / (P * np.exp(s)).sum()
    u = Y - (P * w) @ Y
    mom = {}
    for k in (2, 3, 4):
        mom[f"rho{k}"], mom[f"e{k}"], mom[f"m{k}"] = (P * w**k).sum(), (P * w**k) @ u, (P * w**k * (u**2).sum(1)).sum()
    co = ER.expansion_coefficients(mom)
    errs = []
    for L in (400, 1600):
        n = np.arange(L + 1)
        pr = binom.pmf(n, L, p)
        e = (n[:, None] * w[0] * u[0] + (L - n)[:, None] * w[1] * u[1]) / (n * w[0] + (L - n) * w[1])[:, None]
        r4 = (L * (pr * (e**2).sum(1)).sum() - co["m2"] - co["c3"] / L) * L**2 / co["c4"]
        rd = (L * (pr @ e) - co["bias"] - co["d3"] / L) * L**2 / co["d4"]
        errs.append(max(abs(r4 - 1), float(np.max(np.abs(rd - 1)))))
    assert errs[1] < 0.03 and errs[1] < 0.3 * errs[0]


def test_weight_moments_of_a_mixture_against_gauss_hermite():
    mix = GaussianMixture.from_values(["0.4", "0.6"], [["0.5", "-0.3"], ["-0.6", "0.4"]],
                                      [[["0.5", "0.1"], ["0.1", "0.3"]], [["0.2", "0"], ["0", "0.4"]]])
    U = np.array([[0.8, -0.3], [0.2, 0.6]])
    V = np.array([[1.0, 0.5]])
    z = np.array([0.7, -0.4])
    got = ER.weight_moments(mix, U, V, z)
    x, wq = np.polynomial.hermite_e.hermegauss(50)
    X1, X2 = np.meshgrid(x, x, indexing="ij")
    xi = np.stack([X1.ravel(), X2.ravel()], 1)
    W = np.outer(wq, wq).ravel() / (2 * np.pi)
    w, m, G = mix.arrays()
    pts = np.vstack([m[k] + xi @ RK.psd_sqrt(G[k]).T for k in range(2)])
    pw = np.concatenate([w[k] * W for k in range(2)])
    a = U @ z
    ex = np.exp(pts @ a)
    M = pw @ ex
    T = (pw * ex) @ (pts @ V.T) / M
    uu = pts @ V.T - T
    for k in (2, 3, 4):
        wk = pw * (ex / M) ** k
        assert got[f"rho{k}"] == pytest.approx(wk.sum(), rel=1e-10)
        assert np.allclose(got[f"e{k}"], wk @ uu, rtol=1e-9, atol=1e-12)
        assert got[f"m{k}"] == pytest.approx(wk @ (uu**2).sum(1), rel=1e-9)
    covariance = __import__("softmix").finite_prompt_constants(mix, U, V, z)["covariance"]
    assert got["m2"] == pytest.approx(float(np.trace(covariance)))


def test_first_order_reach_thresholds():
    r = ER.first_order_reach(2.0, 40.0, 800.0, [100, 400])
    assert r["inside"] and r["first_correction"] == pytest.approx(0.2) and r["L_reach"] == 80
    r = ER.first_order_reach(2.0, 40.0, 800.0, [60, 400])
    assert not r["inside"]


def test_example_setting_files_load():
    from pathlib import Path

    from softmix.numerics.mixture import load_json_file

    root = Path(__file__).resolve().parents[2] / "examples" / "settings"
    kinds = {setting_from_json(load_json_file(p), where=p.name).kind for p in sorted(root.glob("*.json"))}
    assert kinds == {"icl_regression", "denoising"}


def test_posterior_noise_as_variances_a_matrix_or_a_scalar_and_queries_of_the_wrong_dimension():
    """posterior_mean_mp reads a list of numbers as the variances of a diagonal noise covariance, the same as the
    matrix; a scalar is v I.  Queries of the wrong dimension are InputErrors naming both dimensions (branches
    no test or claim ran)."""
    clean = GaussianMixture.from_values(["0.4", "0.6"], [["1", "-0.5"], ["-0.3", "0.8"]],
                                        [[["0.5", "0.1"], ["0.1", "0.4"]], [["0.2", "0"], ["0", "0.7"]]])
    z = ["0.3", "-1.1"]
    diag = posterior_mean_mp(clean, ["0.3", "0.9"], z, dps=30)
    full = posterior_mean_mp(clean, [["0.3", "0"], ["0", "0.9"]], z, dps=30)
    assert all(abs(a - b) < mpm.mpf(10) ** -28 for a, b in zip(diag, full))
    iso = posterior_mean_mp(clean, "0.3", z, dps=30)
    iso_full = posterior_mean_mp(clean, [["0.3", "0"], ["0", "0.3"]], z, dps=30)
    assert all(abs(a - b) < mpm.mpf(10) ** -28 for a, b in zip(iso, iso_full))
    assert max(abs(a - b) for a, b in zip(diag, iso)) > 1e-3  # the second variance matters
    f64 = posterior_mean(clean, np.diag([0.3, 0.9]), np.array([[0.3, -1.1]]))[0]
    assert np.allclose(f64, [float(v) for v in diag], rtol=1e-12, atol=1e-14)
    with pytest.raises(InputError, match="queries must have dimension 2, got 3"):
        posterior_mean(clean, 0.3, [[0.1, 0.2, 0.3]])
    with pytest.raises(InputError, match="query must have dimension 2, got 1"):
        posterior_mean_mp(clean, "0.3", ["0.1"])


def test_denoising_setting_refuses_a_mixture_without_heads_and_heads_of_the_wrong_output():
    with pytest.raises(InputError, match="heads are required unless the two-component task"):
        denoising("1", "2", weights=["0.5", "0.5"], means=[["1", "0"], ["0", "1"]])
    one_out = [{"U": [["1", "0"], ["0", "1"]], "V": [["1", "0"]]}]  # outputs 1 coordinate, the signal has 2
    with pytest.raises(InputError, match="heads must output 2 coordinates \\(the clean signal\\), got 1"):
        denoising("1", "2", weights=["0.5", "0.5"], means=[["1", "0"], ["0", "1"]], heads=one_out)
    two_out = [{"U": [["1", "0"], ["0", "1"]], "V": [["1", "0"], ["0", "1"]]}]
    s = denoising("1", "2", weights=["0.5", "0.5"], means=[["1", "0"], ["0", "1"]], heads=two_out)
    assert len(s.heads) == 1 and s.parameters["weights"] == ["1/2", "1/2"] and s.parameters["heads"] == "given"
