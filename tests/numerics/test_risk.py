"""Finite-prompt risk engine (issue 13): constants, closed forms, Monte Carlo, CLI as a process."""
import json
import math
import subprocess
import sys
from pathlib import Path

import mpmath as mpm
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from softmix.numerics import risk as RK, risk_simulation as RS
from softmix.numerics.finite_prompt import finite_prompt_constants
from softmix.numerics.mixture import GaussianMixture
from softmix.theory import finite_prompt_risk as TR

MIX = {"weights": ["0.35", "0.65"], "means": [["1", "0", "0.2"], ["-0.5", "1", "0"]],
       "covariances": [[["1", "0.3", "0"], ["0.3", "1", "0"], ["0", "0", "0.5"]],
                       [["0.5", "0.2", "0"], ["0.2", "0.4", "0"], ["0", "0", "0.3"]]]}
GAUSS = {"weights": ["1"], "means": [["0.3", "0", "-0.2"]],
         "covariances": [[["1", "0.3", "0"], ["0.3", "1", "0"], ["0", "0", "0.5"]]]}
HEADS = [{"U": [["0.5", "0.1", "0"], ["0", "0.4", "0.2"], ["0.1", "0", "0.3"]],
          "V": [["1", "0", "0"], ["0", "1", "0.5"]],
          "W": [["1", "0.2"], ["-0.3", "1"]]},
         {"U": [["-0.3", "0", "0.2"], ["0.2", "0.5", "0"], ["0", "0.1", "0.4"]],
          "V": [["0", "1", "0"], ["1", "0", "1"]],
          "W": [["0.7", "0"], ["0.1", "0.5"]]}]
TARGET = {"B": [["0.5", "0", "0.2"], ["0", "0.3", "1"]], "noise_covariance": [["0.1", "0"], ["0", "0.2"]]}
QUERIES = {"weights": ["0.6", "0.4"], "means": [["0", "0", "0"], ["0.2", "-0.1", "0"]],
           "covariances": [[["0.8", "0.1", "0"], ["0.1", "0.5", "0"], ["0", "0", "0"]],
                           [["0.3", "0", "0"], ["0", "0.3", "0"], ["0", "0", "0"]]]}


def _setup(mix=MIX):
    m = GaussianMixture.from_json_obj(mix)
    return m, RK.parse_heads(HEADS, 3), RK.parse_target(TARGET, 3, 2)


# ---- derivations --------------------------------------------------------------------------------
def test_derivations_hold_and_control_fails():
    assert TR.risk_expansion_derivation(2).holds()
    assert TR.multihead_covariance_derivation(2).holds()
    assert not TR.multihead_covariance_derivation(2, "no-shift").holds()


# ---- per-query constants --------------------------------------------------------------------------
def test_single_head_reduces_to_notes_constants():
    mix = GaussianMixture.from_json_obj(MIX)
    h = RK.parse_heads([{"U": HEADS[0]["U"], "V": HEADS[0]["V"]}], 3)
    t = RK.parse_target({"B": [["0"] * 3] * 2}, 3, 2)
    z = np.array([0.8, -0.4, 0.6])
    c = RK.risk_constants(mix, h, t, z[None])
    U, V, _W = h[0].arrays()
    f = finite_prompt_constants(mix, U, V, z)
    assert c["variance"][0] == pytest.approx(f["mse"], rel=1e-12)
    assert np.allclose(c["bias"][0, 0], f["bias"], rtol=1e-12)
    assert np.allclose(c["residual"][0], -f["limit"], rtol=1e-12)
    # K = mse - 2 r.b with r = -limit
    assert c["K"][0] == pytest.approx(f["mse"] + 2 * f["limit"] @ f["bias"], rel=1e-12)


def test_float_and_mp_constants_agree():
    mix, heads, t = _setup()
    z = ["0.8", "-0.4", "0.6"]
    c = RK.risk_constants(mix, heads, t, np.array([[0.8, -0.4, 0.6]]))
    cm = RK.risk_constants_mp(mix, heads, t, z, dps=40)
    for k in ("variance", "cross", "bias_residual", "K", "risk_infinite"):
        assert float(cm[k]) == pytest.approx(float(c[k][0]), rel=1e-12, abs=1e-13)


def test_rho_zero_query_and_independent_sum():
    """z = 0: plain averages, rho = 1, no bias; the cross term is the covariance of plain means."""
    mix, heads, t = _setup()
    c = RK.risk_constants(mix, heads, t, np.zeros((1, 3)))
    assert np.allclose(c["rho"][..., 0], 1.0)
    assert np.allclose(c["bias"], 0.0)
    w, m, G = mix.arrays()
    P = [h.arrays()[2] @ h.arrays()[1] for h in heads]
    Sig = sum(w[k] * (G[k] + np.outer(m[k], m[k])) for k in range(2)) - np.outer(w @ m, w @ m)
    Ptot = P[0] + P[1]
    assert c["variance"][0] == pytest.approx(np.trace(Ptot @ Sig @ Ptot.T), rel=1e-12)


def test_gaussian_tokens_cross_covariance_by_hand():
    """One Gaussian: C_hk = exp(a_h^T G a_k) V_h (G + G a_k a_h^T G) V_k^T."""
    mix = GaussianMixture.from_json_obj(GAUSS)
    heads = RK.parse_heads(HEADS, 3)
    z = np.array([0.7, -0.2, 0.9])
    cb = RS.covariance_blocks(mix, heads, z)["blocks"]
    _w, _m, G = mix.arrays()
    G = G[0]
    (U0, V0, _), (U1, V1, _) = heads[0].arrays(), heads[1].arrays()
    a0, a1 = U0 @ z, U1 @ z
    hand = math.exp(a0 @ G @ a1) * V0 @ (G + np.outer(G @ a1, G @ a0)) @ V1.T
    assert np.allclose(cb[(0, 1)], hand, rtol=1e-12)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6))
def test_vectorised_equals_loop(seed):
    mix, heads, t = _setup()
    Z = np.random.default_rng(seed).standard_normal((7, 3))
    c = RK.risk_constants(mix, heads, t, Z)
    for i in range(len(Z)):
        ci = RK.risk_constants(mix, heads, t, Z[i:i + 1])
        assert ci["K"][0] == pytest.approx(c["K"][i], rel=1e-12, abs=1e-12)


# ---- query averages -----------------------------------------------------------------------------
def test_gaussian_integral_1d_by_hand():
    # E exp(s z^2) for z ~ N(0, 1): (1 - 2 s)^(-1/2); with z^2: (1 - 2s)^(-3/2)
    s = 0.2
    one = RK.gaussian_exp_quadratic_mean([[s]], 1.0, [0.0], [[0.0]], [0.0], [[1.0]])
    sq = RK.gaussian_exp_quadratic_mean([[s]], 0.0, [0.0], [[1.0]], [0.0], [[1.0]])
    assert one == pytest.approx((1 - 2 * s) ** -0.5, rel=1e-14)
    assert sq == pytest.approx((1 - 2 * s) ** -1.5, rel=1e-14)
    assert RK.gaussian_exp_quadratic_mean([[0.5]], 1.0, [0.0], [[0.0]], [0.0], [[1.0]]) == math.inf


def test_closed_form_matches_query_monte_carlo_and_mp():
    mix, heads, t = _setup(GAUSS)
    q = GaussianMixture.from_json_obj(QUERIES)
    a = RK.averaged_risk(mix, heads, q, t)
    am = RK.averaged_risk(mix, heads, q, t, dps=40)
    assert a["method"] == "closed-form" and a["finite"]
    assert float(am["K"]) == pytest.approx(a["K"], rel=1e-11)
    rng = np.random.default_rng(7)
    n = 200000
    qw, qm, qS = q.arrays()
    lab = rng.random(n) < qw[0]
    Z = np.where(lab[:, None], qm[0] + rng.standard_normal((n, 3)) @ RK.psd_sqrt(qS[0]).T,
                 qm[1] + rng.standard_normal((n, 3)) @ RK.psd_sqrt(qS[1]).T)
    c = RK.risk_constants(mix, heads, t, Z)
    for k in ("K", "cross", "risk_infinite"):
        est, se = c[k].mean(), c[k].std() / math.sqrt(n)
        assert abs(est - a[k]) < 5 * se, (k, est, a[k], se)


def test_mixture_average_monte_carlo_against_gaussian_closed_form():
    """Two identical components are one Gaussian: the importance-sampled average must agree."""
    mix, heads, t = _setup(GAUSS)
    dup = GaussianMixture.from_json_obj({"weights": ["0.5", "0.5"], "means": GAUSS["means"] * 2,
                                         "covariances": GAUSS["covariances"] * 2})
    q = GaussianMixture.from_json_obj(QUERIES)
    a = RK.averaged_risk(mix, heads, q, t)
    b = RK.averaged_risk(dup, heads, q, t, n_mc=100000, seed=3)
    assert b["method"] == "monte-carlo"
    assert abs(b["K"] - a["K"]) < 5 * b["standard_error"]["K"]


def test_past_the_threshold_r_inf_is_plain_monte_carlo_with_its_closed_form_standard_error():
    """Past the threshold (lambda* = 3.0 here) K is infinite and only R_inf is averaged; R_inf is a quadratic in z,
    so plain sampling of the queries has finite variance and the reported standard error is that of a plain
    stratified mean.  By hand: on Gaussian tokens N(m, G) the infinite-prompt prediction is sum_h W_h V_h (m + G U_h z),
    so r = A z - c with A = B - sum_h W_h V_h G U_h, c = sum_h W_h V_h m; for z ~ N(mu_j, S_j), y = A z - c ~ N(b_j,
    C_j) and Var ||y||^2 = 2 tr C_j^2 + 4 b_j^T C_j b_j, E = ||b_j||^2 + tr C_j (+ tr N).  The Monte Carlo path is
    taken with the Gaussian written as two identical components (same law)."""
    mix, heads, t = _setup(GAUSS)
    dup = GaussianMixture.from_json_obj({"weights": ["0.3", "0.7"], "means": GAUSS["means"] * 2,
                                         "covariances": GAUSS["covariances"] * 2})
    qobj = {"weights": ["0.6", "0.4"], "means": [["0", "0", "0"], ["0.2", "-0.1", "0"]],
            "covariances": [[["9", "1", "0"], ["1", "6", "0"], ["0", "0", "0"]],
                            [["8", "0", "0"], ["0", "7", "0"], ["0", "0", "0"]]]}
    f = lambda M: np.array(M, float)  # noqa: E731
    m, G = f(GAUSS["means"][0]), f(GAUSS["covariances"][0])
    A, c = f(TARGET["B"]), np.zeros(2)
    for h in HEADS:
        WV = f(h["W"]) @ f(h["V"])
        A, c = A - WV @ G @ f(h["U"]), c + WV @ m
    n, mean, var = 20000, 0.0, 0.0
    for wj, mu, S in zip(f(qobj["weights"]), qobj["means"], qobj["covariances"]):
        b, C = A @ f(mu) - c, A @ f(S) @ A.T
        nj = round(n * wj)
        mean += wj * (b @ b + np.trace(C) + 0.3)
        var += wj**2 * (2 * np.trace(C @ C) + 4 * b @ C @ b) / nj
    out = RK.averaged_risk(dup, heads, GaussianMixture.from_json_obj(qobj), t, n_mc=n, seed=11)
    assert out["method"] == "monte-carlo" and not out["finite"] and out["K"] == math.inf
    se = out["standard_error"]["risk_infinite"]
    assert se == pytest.approx(math.sqrt(var), rel=0.15), (se, math.sqrt(var))
    assert abs(out["risk_infinite"] - mean) < 5 * math.sqrt(var)


def test_threshold_and_log_power():
    mix = GaussianMixture.from_json_obj(GAUSS)
    q = GaussianMixture.from_json_obj({"weights": ["1"], "means": [["0", "0", "0"]],
                                       "covariances": [[["4", "0", "0"], ["0", "4", "0"], ["0", "0", "0"]]]})
    # isotropic U and G on the query plane: top eigenvalue of multiplicity 2
    G = {"weights": ["1"], "means": [["0", "0", "0"]],
         "covariances": [[["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"]]]}
    g = GaussianMixture.from_json_obj(G)
    h = RK.parse_heads([{"U": [["0.5", "0", "0"], ["0", "0.5", "0"], ["0", "0", "0"]], "V": [["1", "0", "0"]]}], 3)
    th = RK.threshold_info(g, h, q)
    assert th["lambda"] == pytest.approx(1.0) and not th["finite"]
    assert th["rate_exponent"] == pytest.approx(-0.5)
    assert th["log_power"] == pytest.approx(2 / 2 - 1 + 1)  # m = 2, mean shift on the top space
    # mixture tokens: no pure log power
    mx = GaussianMixture.from_json_obj(MIX)
    assert RK.threshold_info(mx, h, q)["log_power"] is None
    assert RK.threshold_info(mix, RK.parse_heads(HEADS, 3), GaussianMixture.from_json_obj(QUERIES))["finite"]


# ---- Monte Carlo engine -----------------------------------------------------------------------
def test_projected_engine_law_matches_full_tokens():
    """The projected joint sampler and full D-dimensional tokens give the same law of the outputs
    (two-sample z-test on the means of both heads' outputs)."""
    mix, heads, t = _setup()
    z = np.array([0.8, -0.4, 0.6])
    eng = RS.MultiHeadEngine(mix, heads, z)
    T, _ = eng.run(50, 20000, np.random.default_rng(1))
    qmix = GaussianMixture.from_json_obj({"weights": ["1"], "means": [["0.8", "-0.4", "0.6"]],
                                          "covariances": [[["0"] * 3] * 3]})
    out = RS.simulate_excess_averaged(mix, heads, t, qmix, 50, 20000, np.random.default_rng(2))
    e1 = RS.simulate_excess(mix, heads, t, z, 50, 20000, np.random.default_rng(1))["X"]
    e2 = out["X"]
    zst = (e1.mean() - e2.mean()) / math.hypot(e1.std() / math.sqrt(len(e1)), e2.std() / math.sqrt(len(e2)))
    assert abs(zst) < 4.5
    assert T[0].shape == (20000, 2) and T[1].shape == (20000, 2)


def test_control_variate_unbiased_and_reduces_variance():
    mix, heads, t = _setup()
    z = np.array([0.8, -0.4, 0.6])
    out = RS.simulate_excess(mix, heads, t, z, 200, 20000, np.random.default_rng(5))
    X, Xc = out["X"], out["X_cv"]
    assert X.var() / Xc.var() > 3
    d = X - Xc
    assert abs(d.mean()) < 4.5 * d.std() / math.sqrt(len(d))
    K = RK.risk_constants(mix, heads, t, z[None])["K"][0]
    assert abs(Xc.mean() - K) < 0.1 * abs(K)  # O(1/L) remainder at L = 200


def test_importance_sampled_queries_are_unbiased_and_tame_the_tail():
    """simulate_excess_averaged with a wider query proposal: the weights have mean 1 on each
    component (also on a singular one), the weighted estimates agree with plain sampling and with
    the closed-form K, and the default s = 1 keeps the historical stream (weights exactly 1)."""
    gmix = GaussianMixture.from_json_obj(GAUSS)
    heads = RK.parse_heads(HEADS, 3)
    t = RK.parse_target(TARGET, 3, 2)
    q = GaussianMixture.from_json_obj(QUERIES)
    lam = RK.threshold_info(gmix, heads, q)["lambda"]
    s = RS.proposal_scale_for(lam)
    assert s == pytest.approx(math.sqrt(2 / (1 - 2 * lam))) and s > 1
    K = float(RK.averaged_risk(gmix, heads, q, t)["K"])
    plain = RS.simulate_excess_averaged(gmix, heads, t, q, 200, 20000, np.random.default_rng(3))
    assert np.all(plain["weights"] == 1.0)
    same = RS.simulate_excess_averaged(gmix, heads, t, q, 200, 20000, np.random.default_rng(3), proposal_scale=1.0)
    assert np.array_equal(plain["X"], same["X"])
    wide = RS.simulate_excess_averaged(gmix, heads, t, q, 200, 20000, np.random.default_rng(4), proposal_scale=s)
    w = wide["weights"]
    assert abs(w.mean() - 1) < 4.5 * w.std() / math.sqrt(len(w))
    assert not np.all(w == 1.0)
    for est in (plain["X_cv"], wide["X_cv"]):
        assert abs(est.mean() - K) < 4.5 * est.std() / math.sqrt(len(est)) + 0.05 * abs(K)  # O(1/L) remainder
    with pytest.raises(ValueError):
        RS.simulate_excess_averaged(gmix, heads, t, q, 10, 10, np.random.default_rng(0), proposal_scale=0.5)
    with pytest.raises(ValueError):
        RS.proposal_scale_for(0.5)


def test_same_seed_same_draws():
    mix, heads, t = _setup()
    z = np.array([0.8, -0.4, 0.6])
    a = RS.simulate_excess(mix, heads, t, z, 30, 50, np.random.default_rng(9))["X"]
    b = RS.simulate_excess(mix, heads, t, z, 30, 50, np.random.default_rng(9))["X"]
    c = RS.simulate_excess(mix, heads, t, z, 30, 50, np.random.default_rng(10))["X"]
    assert np.array_equal(a, b) and not np.array_equal(a, c)


# ---- CLI as a real process -------------------------------------------------------------------
def _files(tmp_path, mix=GAUSS, heads=HEADS, queries=QUERIES, target=TARGET):
    paths = {}
    for name, obj in (("mix", mix), ("heads", heads), ("queries", queries), ("target", target)):
        p = tmp_path / f"{name}.json"
        p.write_text(obj if isinstance(obj, str) else json.dumps(obj))
        paths[name] = str(p)
    return paths


def _run(args):
    return subprocess.run([sys.executable, "-m", "softmix", "risk", *args], capture_output=True, text=True, timeout=300)


def test_cli_closed_form_digits(tmp_path):
    p = _files(tmp_path)
    out = tmp_path / "o.json"
    r = _run(["--mixture", p["mix"], "--heads", p["heads"], "--queries", p["queries"], "--target", p["target"],
              "--dps", "30", "--json", str(out)])
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert doc["method"] == "closed-form" and doc["finite"] is True and "standard_error" not in doc
    for k in ("risk_infinite", "coefficient_1_over_L", "threshold", "decomposition"):
        assert k in doc
    # 10+ digits: the 30-digit answer against an independent 60-digit evaluation
    mix, heads, t = _setup(GAUSS)
    ref = RK.averaged_risk(mix, heads, GaussianMixture.from_json_obj(QUERIES), t, dps=60)
    with mpm.workdps(60):
        assert abs(mpm.mpf(doc["coefficient_1_over_L"]) - ref["K"]) < mpm.mpf(10) ** -25 * abs(ref["K"])
        v, b = (mpm.mpf(doc["decomposition"][k]) for k in ("variance", "bias_residual"))
        assert abs(v + b - mpm.mpf(doc["coefficient_1_over_L"])) < mpm.mpf(10) ** -25


def test_cli_mixture_monte_carlo_and_mc_rows(tmp_path):
    p = _files(tmp_path, mix=MIX)
    r = _run(["--mixture", p["mix"], "--heads", p["heads"], "--queries", p["queries"], "--target", p["target"],
              "--mc", "100,400", "--reps", "3000", "--seed", "4"])
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["method"] == "monte-carlo" and doc["standard_error"]["K"] > 0
    rows = doc["monte_carlo"]["rows"]
    assert [x["L"] for x in rows] == [100, 400]
    K, seK = float(doc["coefficient_1_over_L"]), doc["standard_error"]["K"]
    # the 1/L-extrapolated Monte Carlo agrees with the coefficient (z-test, generous Bonferroni bound)
    a, b = rows
    icpt = (4 * b["L_excess_risk_cv"] - a["L_excess_risk_cv"]) / 3
    se = math.sqrt(16 * b["se_cv"] ** 2 + a["se_cv"] ** 2) / 3
    assert abs(icpt - K) < 4.5 * math.hypot(se, seK)
    r2 = _run(["--mixture", p["mix"], "--heads", p["heads"], "--queries", p["queries"], "--target", p["target"],
               "--mc", "100,400", "--reps", "3000", "--seed", "4"])
    assert r2.stdout == r.stdout  # same seed, same JSON


def test_cli_above_threshold_reports_infinite(tmp_path):
    big = {"weights": ["1"], "means": [["0", "0", "0"]],
           "covariances": [[["9", "0", "0"], ["0", "9", "0"], ["0", "0", "0"]]]}
    p = _files(tmp_path, queries=big)
    r = _run(["--mixture", p["mix"], "--heads", p["heads"], "--queries", p["queries"], "--target", p["target"]])
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["finite"] is False and doc["coefficient_1_over_L"] is None and doc["threshold"] > 0.5
    assert -1 < doc["rate"]["exponent"] < 0 and doc["rate"]["log_power"] is not None


@pytest.mark.parametrize("case,needle", [
    ("bad-json", "invalid JSON"),
    ("heads-U-shape", "heads[0].U: expected a 3x3 matrix"),
    ("heads-W-shape", "heads[0].W: expected 2 columns"),
    ("target-B-shape", "B: expected a 2x3 matrix"),
    ("noise-not-psd", "not positive semidefinite"),
    ("queries-dim", "dimension"),
    ("mixture-not-psd", "not positive semidefinite"),
    ("reps-without-mc", "--reps needs --mc"),
    ("bad-mc", "--mc"),
])
def test_cli_bad_input_exit_2_one_line(tmp_path, case, needle):
    kw = {}
    extra = []
    if case == "bad-json":
        kw["heads"] = "[{"
    elif case == "heads-U-shape":
        kw["heads"] = [{"U": [["1", "0"], ["0", "1"]], "V": [["1", "0", "0"]]}]
    elif case == "heads-W-shape":
        kw["heads"] = [{"U": HEADS[0]["U"], "V": HEADS[0]["V"], "W": [["1", "0", "0"], ["0", "1", "0"]]}]
    elif case == "target-B-shape":
        kw["target"] = {"B": [["1", "0"], ["0", "1"]]}
    elif case == "noise-not-psd":
        kw["target"] = {"B": TARGET["B"], "noise_covariance": [["1", "0"], ["0", "-1"]]}
    elif case == "queries-dim":
        kw["queries"] = {"weights": ["1"], "means": [["0", "0"]], "covariances": [[["1", "0"], ["0", "1"]]]}
    elif case == "mixture-not-psd":
        kw["mix"] = {"weights": ["1"], "means": [["0", "0", "0"]],
                     "covariances": [[["1", "2", "0"], ["2", "1", "0"], ["0", "0", "1"]]]}
    elif case == "reps-without-mc":
        extra = ["--reps", "10"]
    elif case == "bad-mc":
        extra = ["--mc", "10,x"]
    p = _files(tmp_path, **kw)
    r = _run(["--mixture", p["mix"], "--heads", p["heads"], "--queries", p["queries"], "--target", p["target"], *extra])
    assert r.returncode == 2
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in r.stderr, r.stderr


# ---- fp-query-averaged-rate in any dimension (numerics.beyond.averaged_constant) -------------------
def test_averaged_constant_any_dimension_matches_closed_form():
    from softmix.numerics import beyond as NB

    rng = np.random.default_rng(5)
    D = 6
    A = rng.standard_normal((D, D))
    G = A @ A.T / D + 0.3 * np.eye(D)
    Bm = rng.standard_normal((D, D))
    S = Bm @ Bm.T / D + 0.2 * np.eye(D)
    U0 = np.triu(rng.standard_normal((D, D))) * 0.5 + np.eye(D)
    mix = GaussianMixture.from_values([1], [[0] * D], [[[repr(float(x)) for x in r] for r in G]])
    G = mix.arrays()[2][0]
    U = U0 * math.sqrt(0.35 / NB.threshold_lambda(mix, S, U0))
    V = np.eye(D)[:2]
    cf = NB.gaussian_averaged_constant(G, S, U, V)
    mc = NB.averaged_constant(mix, S, U, V, rng=np.random.default_rng(1), mc_samples=200000)
    assert mc["method"] == "monte-carlo"
    assert abs(mc["value"] - cf["K"]) < 4.5 * mc["standard_error"]
    # low dimension: still tensor quadrature
    q = NB.averaged_constant(GaussianMixture.from_values([1], [[0, 0]], [[[1, 0], [0, 1]]]), np.eye(2) * 0.5,
                             np.eye(2) * 0.5, np.eye(2))
    assert q["method"] == "quadrature" and q["error_estimate"] < 1e-10


# ---- the claims and their negative controls --------------------------------------------------------
RISK_CLAIMS = ["fp-multihead-covariance", "fp-risk-expansion", "fp-risk-threshold", "fp-risk-icl-regression",
               "fp-risk-denoiser", "fp-risk-lda-bayes-point"]


@pytest.mark.parametrize("cid", RISK_CLAIMS)
def test_risk_claim_decided_and_controls_refuted(cid):
    from softmix.checks.runner import run_claim

    r = run_claim(cid, profile="quick", seed=1)
    assert r["verdict"] == "confirmed", json.dumps(r["evidence"])[:2000]
    assert r["negative_controls"]
    led = r["evidence"]["alpha"]  # one family-wise alpha, split by construction (rules.AlphaFamily)
    # the claim's 1e-3, of which this configuration holds a share fixed before any draw (softmix.Draws)
    share = led.get("configuration_share", 1.0)
    assert led.get("claim_alpha", led["family_alpha"]) == 1e-3 and 0 < share <= 1
    assert led["family_alpha"] == pytest.approx(1e-3 * share, rel=1e-12)
    assert 0 < led["spent"] <= led["family_alpha"] * (1 + 1e-12) and led["tests"]
    assert isinstance(r["evidence"]["monte-carlo"]["rule"], str) and "level" in r["evidence"]["monte-carlo"]["rule"]
    for c in r["negative_controls"]:
        assert c["verdict"] == "refuted", (c["id"], json.dumps(c["evidence"])[:1500])
    json.dumps(r)


def test_risk_rules_no_private_extrapolation():
    """The risk claims use fits.InverseLRule (known SEs, chi-square misfit test), not an SE inflated
    by the reduced chi-square."""
    import softmix.checks.paper.finite_prompt_risk as FR

    assert not hasattr(FR, "extrapolate")


def test_rate_decision_band_logic():
    from softmix.checks.fits import decay_rate_decision
    from softmix.checks.mc_verdict import RATE_SLOPE_MARGIN

    _rate_decision = lambda *a: decay_rate_decision(*a, margin=RATE_SLOPE_MARGIN)  # noqa: E731

    Ls = [100, 400, 1600, 6400]
    band = [-0.7, -0.3]
    exact = lambda p: [L ** p for L in Ls]
    tight = lambda p, f=1e-3: [f * L ** p for L in Ls]
    # inside the band, far from -1, tight: confirmed
    d = _rate_decision(1e-3, Ls, exact(-0.5), tight(-0.5), False, band, 1000, "t")
    assert d["verdict"] == "confirmed" and d["alpha"] == 1e-3
    # a pure 1/L decay cannot be told from a regime where the regular 1/L part still dominates: inconclusive
    # for an infinite coefficient; the same data confirm a finite (1/L) prediction
    assert _rate_decision(1e-3, Ls, exact(-1.0), tight(-1.0), False, band, 1000, "t")["verdict"] == "inconclusive"
    assert _rate_decision(1e-3, Ls, exact(-1.0), tight(-1.0), True, [-1.0, -1.0], 1000, "t")["verdict"] == "confirmed"
    # between -1 and the band (a 1/L part still weighing on the local slope): confirmed, not refuted
    d = _rate_decision(1e-3, Ls, exact(-0.85), tight(-0.85), False, band, 1000, "t")
    assert d["verdict"] == "confirmed" and d["allowed_slopes"] == [-1.0, -0.3]
    # steeper than 1/L, or shallower than the band allows: refuted
    assert _rate_decision(1e-3, Ls, exact(-1.3), tight(-1.3), False, band, 1000, "t")["verdict"] == "refuted"
    assert _rate_decision(1e-3, Ls, exact(-0.1), tight(-0.1), False, band, 1000, "t")["verdict"] == "refuted"
    # a finite prediction is refuted by a decay clearly slower than 1/L
    assert _rate_decision(1e-3, Ls, exact(-0.5), tight(-0.5), True, [-1.0, -1.0], 1000, "t")["verdict"] == "refuted"
    # noisy enough that the interval overlaps the band and contains -1: inconclusive, never refuted
    d = _rate_decision(1e-3, Ls, exact(-0.6), tight(-0.6, 1.0), False, band, 1000, "t")
    assert d["verdict"] == "inconclusive"
    # zero standard errors: inconclusive
    d = _rate_decision(1e-3, Ls, exact(-0.5), [0.0] * 4, False, band, 1000, "t")
    assert d["verdict"] == "inconclusive" and d["passed"] is None


def test_cli_example_files_literally():
    root = Path(__file__).resolve().parents[2] / "examples" / "risk"
    r = _run(["--mixture", str(root / "MIX.json"), "--heads", str(root / "HEADS.json"), "--queries",
              str(root / "QUERIES.json"),
              "--target", str(root / "TARGET.json"), "--dps", "30"])
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    # pinned (30 digits, Gaussian closed form)
    assert doc["coefficient_1_over_L"].startswith("5.1100553029059915714444127")
    assert doc["risk_infinite"].startswith("0.61232675200000000000")


def test_lda_bayes_point_outside_first_order_regime_is_inconclusive():
    """Seed 8015 drew an ill-conditioned Gamma with K_LDA = 106: at L = 100 and 400 the excess is about one
    nat, terms beyond 1/L dominate (L (R_L - R*) = 118, 117, 111, 107 at L = 100 ... 6400) and the a + b/L
    fit refuted the true statement.  The check now says inconclusive there and names the prompt lengths."""
    from softmix.checks.runner import run_claim

    cfg = {"problem": {"m1": ["-0.1", "0.87"], "m_1": ["-0.4", "-0.36"],
                       "Gamma": [["0.89", "-0.85"], ["-0.85", "1.06"]], "pi_plus": "0.34"},
           "U0": [["0.85", "0.6"], ["0.17", "0.89"]], "u": ["0.01", "-0.43"], "prompts": 500, "query_samples": 20000}
    r = run_claim("fp-risk-lda-bayes-point", seed=3, overrides=cfg)
    given = r["configurations"]["rows"][0]
    assert given["name"] == "given" and given["verdict"] == "inconclusive"
    test = [row for row in r["evidence"]["monte-carlo"]["rows"] if row["verdict"] == "inconclusive"][0]
    assert "K_LDA / min L" in test["reason"] and "L >= " in test["reason"]
    assert r["evidence"]["K_LDA"] > 100


def test_lda_bayes_point_lambda_beyond_reach_is_inconclusive():
    """Seed 5 drew a Bayes point with lambda* = 0.140 (< 1/6): L (R_L - R*) = 6.05, 5.95, 6.26, 6.64 at
    L = 100 ... 6400 against K_LDA = 6.93, so the a + b/L fit refuted a true statement (z = -4.7).  The
    check decides only for lambda* < 1/8 and says inconclusive above."""
    from softmix.checks.runner import run_claim

    cfg = {"problem": {"m1": ["-1.11", "-1"], "m_1": ["-0.25", "-0.38"],
                       "Gamma": [["0.18", "-0.03"], ["-0.03", "0.41"]], "pi_plus": "0.78"},
           "U0": [["0.6", "-0.89"], ["0.03", "-0.38"]], "u": ["0.4", "0.31"], "prompts": 500, "query_samples": 20000}
    r = run_claim("fp-risk-lda-bayes-point", seed=3, overrides=cfg)
    assert r["configurations"]["rows"][0]["verdict"] == "inconclusive"
    assert "lambda* = 0.14" in r["evidence"]["monte-carlo"]["rows"][0]["reason"]


#: seed 9237's drawn averaged configuration of fp-risk-expansion (fresh-seed record, before DRAW_MAX_TILT)
_OVER_9237 = {"gaussian_tokens": {"weights": ["1"], "means": [["-0.45", "0.03", "-0.6"]], "covariances": [[["1.31",
              "-0.42", "0.68"], ["-0.42", "0.76", "-0.56"], ["0.68", "-0.56", "1.04"]]]},
              "queries": {"weights": ["0.63", "0.37"], "means": [["-0.65", "0.61", "0.77"], ["-0.8", "0.7", "0.47"]],
              "covariances": [[["0.22572", "-0.0108", "0.05184"], ["-0.0108", "0.0486", "-0.00432"], ["0.05184",
              "-0.00432", "0.07884"]], [["0.03996", "-0.01836", "-0.054"], ["-0.01836", "0.03132", "-0.00216"],
              ["-0.054", "-0.00216", "0.10476"]]]}, "heads": [{"U": [["-0.35", "0.44", "-0.13"], ["0.05", "-0.41",
              "0.16"], ["-0.03", "0.12", "0.55"]], "V": [["0.05", "0.07", "0.57"], ["-1.01", "0.54", "-0.16"]],
              "W": [["-0.69", "0.84"], ["-0.23", "-0.42"]]}, {"U": [["0.25", "-0.15", "-0.02"], ["0.53", "0.02",
              "0.23"], ["0.43", "0.05", "0.44"]], "V": [["-0.91", "0.71", "-0.43"], ["0.33", "-0.49", "-0.32"]],
              "W": [["0.75", "0.87"], ["-0.62", "-0.45"]]}], "target": {"B": [["-0.18", "0.6", "-0.25"], ["-0.82",
              "-0.83", "0.81"]], "noise_covariance": [["0.68", "-0.52"], ["-0.52", "1.16"]]}}


def test_averaged_draws_exclude_a_pre_asymptotic_tilt_seed_9237():
    """Seed 9237 drew an averaged configuration (lambda* = 0.084, inside DRAW_LAMBDA) whose K-weighted tilt
    ratio E_z[rho K] / E_z K is 4.1: L (R_L - R_inf) was about 15.3, 16.6, 18.6 at L = 100, 400, 1600 against
    K = 20.2, and the claim's a + b/L fit over L = 100, 400 refuted the true expansion (z = -5.9).  The draw
    filter now bounds that ratio (the paper configuration: 1.26); the configuration is excluded, and the
    seed draws another one."""
    import softmix.checks.paper.finite_prompt_risk_draws as DR
    from softmix.checks.registry import REGISTRY, Context, load_all

    load_all()
    base = REGISTRY["fp-risk-expansion"].params("quick")
    e = DR.averaged_effects({**base, **_OVER_9237})
    assert 0.05 <= e["lambda"] <= 0.14 and e["spread"] <= DR.DRAW_MAX_SPREAD  # the old filter let it through
    assert e["tilt"] > 3.5 and not DR.decidable_average(e)
    assert DR.averaged_effects(base)["tilt"] == pytest.approx(1.26, abs=0.02)
    over = DR.draw_expansion(Context("fp-risk-expansion", "quick", 9237).stream("configuration", 1), dict(base), 1)
    assert over is not None and DR.averaged_effects({**base, **over})["tilt"] <= DR.DRAW_MAX_TILT


def test_a_target_read_through_its_protocol_gives_the_linear_targets_constants():
    """Target.conditional_mean(Z) = Z B^T and conditional_trace(Z) = tr(noise) per query (the protocol every
    target follows); risk_constants through that protocol (a wrapper with linear = False, so the closed-form B path
    is not taken) equals the linear target's constants."""
    mix = GaussianMixture.from_json_obj(MIX)
    heads, t = RK.parse_heads(HEADS, 3), RK.parse_target(TARGET, 3, 2)
    Z = np.array([[0.2, -0.4, 0.1], [1.0, 0.3, -0.7]])
    B = np.array([[0.5, 0, 0.2], [0, 0.3, 1]])
    assert np.array_equal(t.conditional_mean(Z), Z @ B.T)
    assert np.allclose(t.conditional_trace(Z), [0.3, 0.3], rtol=0, atol=1e-15)

    class Protocol:
        linear = False
        conditional_mean, conditional_trace = t.conditional_mean, t.conditional_trace

    lin, gen = RK.risk_constants(mix, heads, t, Z), RK.risk_constants(mix, heads, Protocol(), Z)
    for k in ("risk_infinite", "residual"):
        assert np.allclose(gen[k], lin[k], rtol=1e-13, atol=1e-15), k


def test_each_query_component_is_sampled_with_its_own_proposal():
    """The importance sampling of averaged_risk draws query component j from N(0, tau_j^2 I) in its whitened
    coordinates with tau_j^2 = 1 / (1 - 2 lambda_j), lambda_j the largest lambda of threshold_info's rows for that
    component: two query components of different spreads get different proposals, each its own."""
    mix, heads, t = _setup(MIX)
    q = GaussianMixture.from_json_obj(QUERIES)
    th = RK.threshold_info(mix, heads, q)
    lam = {}
    for r in th["rows"]:
        lam[r["query_component"]] = max(lam.get(r["query_component"], 0.0), r["lambda"])
    assert th["finite"] and len(lam) == 2 and abs(lam[0] - lam[1]) > 1e-3  # the two proposals differ
    mc = RK.averaged_risk(mix, heads, q, t, n_mc=400, seed=1)
    assert mc["method"] == "monte-carlo"
    assert mc["proposal_variance"] == pytest.approx([1 / (1 - 2 * max(0.0, lam[j])) for j in (0, 1)], rel=1e-15)
