"""float64 numerics never return nan where a finite or infinite value is defined: at scores near and
far past exp's overflow (~709.78) the float64 constants agree with the high-precision path where
float64 can hold the value, are inf of the right sign where it cannot, and exactly 0 where the
value is 0.  Drawn configurations: several components, non-symmetric U, unequal weights, one
singular covariance."""
import math
from fractions import Fraction

import mpmath as mpm
import numpy as np
import pytest

from softmix.numerics import attention as A, finite_prompt as F, risk as RK
from softmix.numerics.logspace import scaled, scaled_sum
from softmix.numerics.mixture import GaussianMixture

BIG = 1e300  # above this the mp value may not fit float64 once multiplied: only the sign is compared


def test_scaled_known_answers():
    assert np.array_equal(scaled(800.0, [0.0, 2.0, -3.0]), [0.0, np.inf, -np.inf])
    assert scaled(math.log(4.0), -0.5) == pytest.approx(-2.0, rel=1e-15)
    assert scaled_sum([(np.array(800.0), np.array(1.0)), (np.array(801.0), np.array(-1.0))]) == -np.inf
    # exp(800) (1 - e) + exp(799) e = exp(799) (e^1 (1 - e) + e) < 0 ... and a difference that fits float64:
    v = scaled_sum([(np.array(705.0), np.array(1.0)), (np.array(705.0 + math.log(0.5)), np.array(-1.0))])
    assert v == pytest.approx(0.5 * math.exp(705.0), rel=1e-12)
    assert scaled_sum([(np.array(900.0), np.array(0.0)), (np.array(1.0), np.array(0.0))]) == 0.0
    assert scaled_sum([(np.array(900.0), np.array(1.0)), (np.array(900.0), np.array(-1.0))]) == 0.0


def _q(x, den=100):
    return Fraction(float(x)).limit_denominator(den)


def _mixture(rng, K, D):
    """Distinct weights away from 1/K, generic means, covariances L L^T with the first singular."""
    while True:
        w = rng.dirichlet(np.full(K, 2.0))
        if K == 1 or (w.min() > 0.1 and np.min(np.abs(w - 1 / K)) > 0.02):
            break
    w = [_q(x) for x in w[:-1]]
    w.append(1 - sum(w))
    m = [[_q(x) for x in rng.normal(size=D)] for _ in range(K)]
    covs = []
    for k in range(K):
        L = [[_q(x) for x in r] for r in rng.normal(size=(D, D)) * 0.6]
        if k == 0 and D > 1:
            L = [r[:-1] + [Fraction(0)] for r in L]  # rank D - 1
        covs.append([[sum(L[i][t] * L[j][t] for t in range(D)) for j in range(D)] for i in range(D)])
    return GaussianMixture.from_values(w, m, covs)


def _agree(f64, mp_value, what):
    f = float(f64)
    assert not math.isnan(f), what
    v = mpm.mpf(mp_value)
    if abs(v) > BIG:
        assert math.isinf(f) or abs(f) > 1e299, (what, f, v)
        assert (f > 0) == (v > 0), (what, f, v)
    elif v == 0:
        assert f == 0, (what, f)
    else:
        assert abs(f - float(v)) <= 1e-7 * max(abs(float(v)), 1e-300) + 1e-12, (what, f, v)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("scale", [1, 12, 40])
def test_finite_prompt_constants_float64_against_mp_past_overflow(seed, scale):
    rng = np.random.default_rng(seed)
    K, D = 2 + seed % 2, 2
    mix = _mixture(rng, K, D)
    U = [[_q(x) * scale for x in r] for r in rng.normal(size=(D, D))]
    V = [[_q(x) for x in rng.normal(size=D)], [Fraction(0)] * D]  # a zero row: its entries are exactly 0
    z = [_q(x) for x in rng.normal(size=D)]
    c = F.finite_prompt_constants(mix, np.array(U, float), np.array(V, float), np.array(z, float))
    cm = F.finite_prompt_constants_mp(mix, U, V, z, dps=30)
    with mpm.workdps(30):
        assert c["log_rho"] == pytest.approx(float(mpm.log(cm["rho"])), rel=1e-9, abs=1e-9)
        _agree(c["rho"], cm["rho"], "rho")
        _agree(c["mse"], cm["mse"], "mse")
        _agree(c["effective_sample_fraction"], cm["effective_sample_fraction"], "esf")
        for i in range(2):
            _agree(c["bias"][i], cm["bias"][i], f"bias[{i}]")
            for j in range(2):
                _agree(c["covariance"][i, j], cm["covariance"][i, j], f"covariance[{i}][{j}]")


def test_the_reported_case_scores_near_720():
    """One Gaussian component, G = 1: Lambda(2a) - 2 Lambda(a) = a^2 = 720 (rho = e^720 > float64)."""
    mix = GaussianMixture.from_values(["1"], [["1/2"]], [[["1"]]])
    a = math.sqrt(720)
    c = F.finite_prompt_constants(mix, np.array([[a]]), np.array([[1.0]]), np.array([1.0]))
    assert c["log_rho"] == pytest.approx(720.0) and c["rho"] == math.inf and c["mse"] == math.inf
    assert not np.isnan(c["covariance"]).any() and not np.isnan(c["bias"]).any()
    assert c["effective_sample_fraction"] == pytest.approx(math.exp(-720.0), rel=1e-10)
    # bias = rho V (grad Lambda(a) - grad Lambda(2a)) = -e^720 a: -inf
    assert c["bias"][0] == -math.inf


@pytest.mark.parametrize("seed", [4, 5])
@pytest.mark.parametrize("scale", [1, 15, 40])
def test_risk_constants_float64_against_mp_past_overflow(seed, scale):
    rng = np.random.default_rng(seed)
    D = 2
    mix = _mixture(rng, 2, D)
    heads = [RK.Head(tuple(tuple(_q(x) * scale for x in r) for r in rng.normal(size=(D, D))),
                     tuple(tuple(_q(x) for x in r) for r in rng.normal(size=(2, D))),
                     tuple(tuple(_q(x) for x in r) for r in rng.normal(size=(2, 2)))) for _ in range(2)]
    tgt = RK.Target(tuple(tuple(_q(x) for x in r) for r in rng.normal(size=(2, D))),
                    ((Fraction(1, 10), Fraction(0)), (Fraction(0), Fraction(1, 5))))
    z = [_q(x) for x in rng.normal(size=D)]
    c = RK.risk_constants(mix, heads, tgt, np.array([[float(x) for x in z]]))
    cm = RK.risk_constants_mp(mix, heads, tgt, z, dps=30)
    with mpm.workdps(30):
        for k in ("variance", "cross", "bias_residual", "K", "risk_infinite"):
            _agree(c[k][0], cm[k], k)
    assert not np.isnan(c["bias"]).any() and not np.isnan(c["rho"]).any()


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_risk_constants_along_a_ray_past_overflow_warn_nothing_and_never_nan(seed):
    """Queries t z, t from 1 to 400: past the overflow of rho the float64 parts are inf - inf before the
    log-space path rewrites those rows; no RuntimeWarning reaches the user (fp-multihead-covariance printed
    one), and K is finite or +-inf, never nan."""
    rng = np.random.default_rng(seed)
    D = 3
    mix = _mixture(rng, 2, D)
    heads = [RK.Head(*(tuple(tuple(_q(x) for x in r) for r in rng.normal(size=shape))
                       for shape in ((D, D), (2, D), (2, 2)))) for _ in range(2)]
    tgt = RK.Target(tuple(tuple(_q(x) for x in r) for r in rng.normal(size=(2, D))),
                    ((Fraction(1, 2), Fraction(0)), (Fraction(0), Fraction(1, 3))))
    z = rng.normal(size=D)
    c = RK.risk_constants(mix, heads, tgt, np.geomspace(1, 400, 40)[:, None] * z[None])
    assert not np.isnan(c["K"]).any() and not np.isfinite(c["rho"][..., -1]).all()


@pytest.mark.parametrize("scale", [50, 400, 3000])
def test_gates_and_attention_at_large_scores_against_mp(scale):
    rng = np.random.default_rng(scale)
    mix = _mixture(rng, 3, 2)
    U = [[_q(x) * scale for x in r] for r in rng.normal(size=(2, 2))]
    V = [[_q(x) for x in r] for r in rng.normal(size=(2, 2))]
    z = [_q(x) for x in rng.normal(size=2)]
    Uf, Vf, zf = (np.array(U, float), np.array(V, float), np.array([[float(x) for x in z]]))
    g, T = A.gates(mix, Uf, zf)[0], A.softmax_attention(mix, Uf, Vf, zf)[0]
    gm, Tm = A.gates_mp(mix, U, z, dps=30), A.softmax_attention_mp(mix, U, V, z, dps=30)
    s, _ = A.tilted_moments(mix, zf @ Uf.T)
    assert np.abs(s).max() > 700 or scale == 50
    for i in range(3):
        assert g[i] == pytest.approx(float(gm[i]), abs=1e-12)
    for i in range(2):  # the tilted means grow like |G a|: relative agreement
        assert T[i] == pytest.approx(float(Tm[i]), rel=1e-8, abs=1e-8)


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_risk_constants_in_log_space_stay_finite_where_the_value_does(seed):
    """Scores just past overflow (U grown by steps of 1.1 until some rho_hk is inf in float64, so log rho
    stays below about 1.21 x 709.8) with V and the target's matrix of size 1e-150: the variance, cross and
    bias terms (rho x |V|^2, rho x |V|) fit float64 again, and the log-space rows must give the
    high-precision values themselves, not only their signs (kills numerics/risk.py:232, the diagonal weight
    1 -> 1/2, and :237, the bias residual read from the wrong queries, of the library run on acffd0d)."""
    rng = np.random.default_rng(seed)
    D, tiny = 2, Fraction(1, 10 ** 150)
    mix = _mixture(rng, 2, D)
    Us = [rng.normal(size=(D, D)) for _ in range(2)]
    Vs = [[[_q(x) * tiny for x in r] for r in rng.normal(size=(2, D))] for _ in range(2)]
    Ws = [[[_q(x) for x in r] for r in rng.normal(size=(2, 2))] for _ in range(2)]
    tgt = RK.Target(tuple(tuple(_q(x) * tiny for x in r) for r in rng.normal(size=(2, D))),
                    ((Fraction(1, 10), Fraction(0)), (Fraction(0), Fraction(1, 5))))
    zs = [[_q(x) for x in rng.normal(size=D)] for _ in range(3)]
    Z = np.array([[float(x) for x in z] for z in zs])
    scale = Fraction(1)
    while True:
        heads = [RK.Head(tuple(tuple(_q(x) * scale for x in r) for r in U), tuple(map(tuple, V)),
                         tuple(map(tuple, W))) for U, V, W in zip(Us, Vs, Ws)]
        c = RK.risk_constants(mix, heads, tgt, Z)
        if np.isinf(c["rho"]).any():  # the log-space rows are exercised
            break
        scale *= Fraction(11, 10)
    for q, z in enumerate(zs):
        cm = RK.risk_constants_mp(mix, heads, tgt, z, dps=40)
        with mpm.workdps(40):
            for k in ("variance", "cross", "bias_residual", "K"):
                v = mpm.mpf(cm[k])
                assert abs(v) < BIG, (k, v)  # the configuration keeps the value inside float64
                _agree(c[k][q], v, k)
