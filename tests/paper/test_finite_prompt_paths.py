"""Reference paths of the finite-prompt numerics: input validation, pinned values, and the claims' new
decisions seeing a deliberately broken path (issue 11: every reference path is decided by a claim)."""
import math

import numpy as np
import pytest

import softmix.numerics.attention as NA
import softmix.numerics.finite_prompt as FPN
import softmix.numerics.risk as RK
import softmix.numerics.risk_references as RR
from softmix.checks.paper import (
    finite_prompt as FP,
    finite_prompt_lln as FL,
    finite_prompt_risk_draws as DR,
    finite_prompt_risk_paths as PA,
    finite_prompt_risk_threshold as TH,
)
from softmix.checks.registry import REGISTRY, Context
from softmix.checks.rules import AlphaFamily
from softmix.numerics.errors import InputError
from softmix.numerics.mixture import GaussianMixture

MIX2 = GaussianMixture.from_json_obj({"weights": ["0.4", "0.6"], "means": [[1, 0], [0, 1]],
                                      "covariances": [[[1, 0], [0, 1]], [["0.5", 0], [0, "0.5"]]]})


# ---- numerics.attention.check_params -----------------------------------------------------------
@pytest.mark.parametrize("U, V, Z, needle", [
    (np.eye(3), np.eye(2), None, "U must be 2x2"),
    (np.eye(2), np.eye(3), None, "V must have 2 columns"),
    (np.array([[1.0, np.inf], [0, 1]]), np.eye(2), None, "U has non-finite"),
    (np.eye(2), np.array([[np.nan, 0], [0, 1]]), None, "V has non-finite"),
    (np.eye(2), np.eye(2), np.zeros((1, 3)), "queries must have dimension 2"),
    (np.eye(2), np.eye(2), np.array([[np.nan, 0.0]]), "queries have non-finite"),
])
def test_check_params_rejects_bad_shapes_and_non_finite_entries(U, V, Z, needle):
    with pytest.raises(InputError, match=needle):
        NA.check_params(MIX2, U, V, Z)


def test_check_params_returns_arrays_and_queries():
    U, V, Z = NA.check_params(MIX2, [[1, 0], [0, 1]], [[1, 2]], [0.5, 0.25])
    assert U.shape == (2, 2) and V.shape == (1, 2) and Z.shape == (1, 2)


def test_second_moment_and_float_linear_attention_by_hand():
    # E[x x^T] = sum_k pi_k (G_k + m_k m_k^T) = 0.4 (I + e1 e1^T) + 0.6 (I/2 + e2 e2^T)
    M2 = NA.second_moment(MIX2)
    assert np.allclose(M2, [[0.4 * 2 + 0.3, 0], [0, 0.4 + 0.3 + 0.6]], rtol=0, atol=1e-15)
    U = np.array([[1.0, 2.0], [0.0, 1.0]])
    V = np.array([[0.0, 1.0]])
    z = np.array([[1.0, -1.0]])
    assert np.allclose(NA.linear_attention(MIX2, U, V, z), (V @ M2 @ U @ z[0])[None], rtol=1e-15)


# ---- numerics.risk input parsing -------------------------------------------------------------
_U = [["1", "0"], ["0", "1"]]


@pytest.mark.parametrize("obj, needle", [
    ({"U": _U, "V": _U}, "heads: expected a list"),
    ([], "heads: expected a non-empty list"),
    (["x"], r"heads\[0\]: expected an object with keys U, V"),
    ([{"U": _U, "V": _U, "Q": _U}], "unknown key"),
    ([{"V": _U}], "missing key 'U'"),
    ([{"U": _U}], "missing key 'V'"),
    ([{"U": [["1"]], "V": _U}], r"heads\[0\]\.U: expected a 2x2 matrix"),
    ([{"U": _U, "V": [["1", "0", "0"]]}], r"heads\[0\]\.V: expected 2 columns"),
    ([{"U": _U, "V": _U, "W": [["1", "0", "0"]]}], r"heads\[0\]\.W: expected 2 columns"),
    ([{"U": _U, "V": _U}, {"U": _U, "V": _U, "W": [["1", "0"]]}], "all heads must share the output space"),
    ([{"U": [["1", "0"], ["0"]], "V": _U}], "rows have different lengths"),
    ([{"U": [], "V": _U}], r"heads\[0\]\.U: expected a non-empty list"),
])
def test_parse_heads_errors(obj, needle):
    with pytest.raises(InputError, match=needle):
        RK.parse_heads(obj, 2)


def test_parse_heads_defaults_w_to_identity():
    (h,) = RK.parse_heads([{"U": _U, "V": [["1", "2"], ["3", "4"]]}], 2)
    assert np.array_equal(h.arrays()[2], np.eye(2))


@pytest.mark.parametrize("obj, needle", [
    ([], "expected an object with keys B, noise_covariance"),
    ({"B": _U, "x": 1}, "unknown key"),
    ({"noise_covariance": _U}, "missing key 'B'"),
    ({"B": [["1", "0"]]}, "B: expected a 2x2 matrix"),
    ({"B": _U, "noise_covariance": [["1"]]}, "noise_covariance: expected a 2x2 matrix"),
    ({"B": _U, "noise_covariance": [["1", "0.5"], ["0", "1"]]}, "not symmetric"),
    ({"B": _U, "noise_covariance": [["1", "2"], ["2", "1"]]}, "not positive semidefinite"),
])
def test_parse_target_errors(obj, needle):
    with pytest.raises(InputError, match=needle):
        RK.parse_target(obj, 2, 2)


def test_parse_target_defaults_to_no_noise():
    t = RK.parse_target({"B": _U}, 2, 2)
    assert np.array_equal(t.arrays()[1], np.zeros((2, 2)))


# ---- numerics.risk.threshold_info: pinned cases ------------------------------------------------
def test_threshold_info_with_silent_heads_is_finite_with_no_rows():
    g = GaussianMixture.from_json_obj({"weights": ["1"], "means": [["0", "0"]], "covariances": [_U]})
    heads = RK.parse_heads([{"U": _U, "V": [["0", "0"]]}], 2)  # W V G = 0: the head reads nothing
    th = RK.threshold_info(g, heads, g)
    assert th == {"lambda": 0.0, "finite": True, "rows": [], "rate_exponent": -1.0, "log_power": 0}


def test_threshold_info_exactly_at_one_half_by_hand():
    # G = I, queries N(0, I), U = diag(s, t) with s^2 = 1/2, t^2 = 1/5, V = I: lambda* = 1/2 (multiplicity 1) and the
    # mean shift V G U e1 = s e1 != 0, so the rate is L^-1 (ln L)^(m/2 + d) = (ln L)^(3/2)
    g = GaussianMixture.from_json_obj({"weights": ["1"], "means": [["0", "0"]], "covariances": [_U]})
    heads = RK.parse_heads([{"U": [[repr(math.sqrt(0.5)), "0"], ["0", repr(math.sqrt(0.2))]], "V": _U}], 2)
    th = RK.threshold_info(g, heads, g)
    assert th["lambda"] == pytest.approx(0.5, abs=1e-15) and not th["finite"]
    assert th["rate_exponent"] == -1.0 and th["log_power"] == 1.5
    assert PA.threshold_link(g, heads, g, th).verdict == "confirmed"
    # past it: lambda* = 2 (U = 2 I... scaled), rate -1/(2 lambda*) and (ln L)^(m/2 - 1 + d) with m = 2
    heads2 = RK.parse_heads([{"U": [[repr(math.sqrt(2.0)), "0"], ["0", repr(math.sqrt(2.0))]], "V": _U}], 2)
    th2 = RK.threshold_info(g, heads2, g)
    assert th2["rate_exponent"] == pytest.approx(-0.25) and th2["log_power"] == 1.0
    assert PA.threshold_link(g, heads2, g, th2).verdict == "confirmed"


# ---- numerics.risk averages past the threshold and on mixture tokens -------------------------------
def _risk_setup(scale=1.0):
    P = REGISTRY["fp-risk-expansion"].params("quick")
    heads_obj = RR.scaled_heads(P["heads"], scale) if scale != 1.0 else P["heads"]
    g = GaussianMixture.from_json_obj(P["gaussian_tokens"])
    return P, g, RK.parse_heads(heads_obj, 3), GaussianMixture.from_json_obj(P["queries"]), RK.parse_target(P["target"],
                                                                                                            3, 2)


def test_averages_past_the_threshold_are_infinite_on_both_paths():
    P, g, heads, q, t = _risk_setup()
    lam = RK.threshold_info(g, heads, q)["lambda"]
    _P, g, heads, q, t = _risk_setup(math.sqrt(0.8 / lam))
    d = TH.past_threshold_link(g, heads, q, t, P["gaussian_tokens"])
    assert d.verdict == "confirmed" and all(r["passed"] for r in d.rows)


def test_mixture_monte_carlo_path_agrees_with_the_closed_form():
    P, g, heads, q, t = _risk_setup()
    parts = PA.mc_path(Context("fp-risk-expansion", "quick", 5), AlphaFamily(), P["gaussian_tokens"], heads, q, t)
    assert [p.verdict for p in parts] == ["confirmed", "confirmed"]
    assert any("Monte Carlo path was taken" in r["check"] for r in parts[0].rows)


def test_mixture_monte_carlo_path_sees_an_understated_standard_error(monkeypatch):
    P, g, heads, q, t = _risk_setup()
    real = RK._mc_average

    def halved(*a, **k):
        out = real(*a, **k)
        out["standard_error"] = {kk: v / 4 for kk, v in out["standard_error"].items()}
        return out
    monkeypatch.setattr(RK, "_mc_average", halved)
    parts = PA.mc_path(Context("fp-risk-expansion", "quick", 5), AlphaFamily(), P["gaussian_tokens"], heads, q, t)
    assert parts[1].rows[1]["verdict"] == "refuted"  # the chi-square calibration


def test_closed_form_link_sees_a_mislabelled_part(monkeypatch):
    P, g, heads, q, t = _risk_setup()
    cf = RK.averaged_risk(g, heads, q, t)
    assert PA.closed_form_links(g, heads, q, t, cf).verdict == "confirmed"
    swapped = {**cf, "variance": cf["variance"] - cf["cross"], "cross": 2 * cf["cross"]}  # same K, wrong split
    assert PA.closed_form_links(g, heads, q, t, swapped).verdict == "refuted"


def test_per_query_links_see_a_wrong_mp_constant(monkeypatch):
    P = REGISTRY["fp-risk-expansion"].params("quick")
    mix, heads, target = DR.setup(P)
    z = np.array([[0.8, -0.4, 0.6]])
    assert PA.per_query_links(mix, heads, target, z).verdict == "confirmed"
    real = RK.risk_constants_mp
    monkeypatch.setattr(RK, "risk_constants_mp", lambda *a,
                        **k: {**real(*a, **k), "cross": real(*a, **k)["cross"] * 1.001})
    assert PA.per_query_links(mix, heads, target, z).verdict == "refuted"


def test_multihead_engine_one_component_branch():
    P = REGISTRY["fp-multihead-covariance"].params("quick")
    _mix, heads, _t = DR.setup(P)
    d = PA.engine_branch_link(Context("fp-multihead-covariance", "quick", 3), AlphaFamily(), P["mixture"], heads,
                              np.array([0.8, -0.4, 0.6]))
    assert d.verdict == "confirmed" and len(d.rows[0]["z"]) == 4


# ---- numerics.finite_prompt reference paths ----------------------------------------------------
def test_streaming_attention_counts_tokens_and_ignores_empty_chunks():
    st = FPN.StreamingAttention(np.eye(2), np.eye(2), np.array([0.3, -0.2]))
    st.update(np.zeros((0, 2)))
    with pytest.raises(InputError, match="empty prompt"):
        st.result()
    st.update(np.array([[1.0, 0.0], [0.0, 1.0]])).update_projected(np.array([0.5]), np.array([[2.0, 2.0]]))
    assert st.n_tokens == 3
    # by hand: scores 0.3, -0.2, 0.5; values (1,0), (0,1), (2,2)
    e = np.exp([0.3, -0.2, 0.5])
    assert np.allclose(st.result(),
                       (e[0] * np.array([1, 0]) + e[1] * np.array([0, 1]) + e[2] * np.array([2, 2])) / e.sum(),
                       rtol=1e-14)
    with pytest.raises(InputError, match="shape mismatch"):
        FPN.StreamingAttention(np.eye(3), np.eye(2), np.zeros(2))


def test_finite_prompt_attention_shape_errors_and_single_prompt():
    toks = np.array([[1.0, 0.0], [0.0, 2.0]])
    with pytest.raises(InputError, match="shape mismatch"):
        FPN.finite_prompt_attention(toks, np.eye(3), np.eye(2), np.zeros(2))
    one = FPN.finite_prompt_attention(toks, np.eye(2), np.eye(2), np.array([1.0, 0.0]))
    both = FPN.finite_prompt_attention(np.stack([toks, toks]), np.eye(2), np.eye(2), np.array([1.0, 0.0]))
    assert one.shape == (2,) and both.shape == (2, 2) and np.allclose(both[1], one)
    # e^1 (1, 0) + e^0 (0, 2) over e + 1
    assert np.allclose(one, [math.e / (math.e + 1), 2 / (math.e + 1)], rtol=1e-15)


def test_simulate_outputs_rejects_an_unknown_method():
    mix, U, V, z = FP.configuration(FP.FPConfig())
    with pytest.raises(ValueError, match="unknown method"):
        FPN.simulate_outputs(mix, U, V, z, 10, 2, np.random.default_rng(0), method="nope")


def test_reference_paths_decide_and_see_a_wrong_token_law(monkeypatch):
    mix, U, V, z = FP.configuration(FP.FPConfig())
    lim = FPN.finite_prompt_constants(mix, U, V, z)["limit"]
    ctx = Context("fp-lln", "quick", 7)
    parts = FL.reference_paths(mix, U, V, z, lim, ctx, AlphaFamily())
    assert [p.verdict for p in parts] == ["confirmed"] * 2
    real = FPN.iter_token_chunks

    def shifted(mix, L, rng, chunk=1 << 16):  # tokens of the wrong law: every token shifted by 0.3 e1
        for c in real(mix, L, rng, chunk):
            yield c + np.array([0.3, 0.0, 0.0])
    monkeypatch.setattr(FL, "iter_token_chunks", shifted)
    parts = FL.reference_paths(mix, U, V, z, lim, ctx, AlphaFamily())
    assert parts[1].rows[0]["verdict"] == "refuted"  # the means


def test_reference_paths_see_a_merge_that_forgets_to_rescale(monkeypatch):
    mix, U, V, z = FP.configuration(FP.FPConfig())
    lim = FPN.finite_prompt_constants(mix, U, V, z)["limit"]

    def no_rescale(self, scores, values):
        s = np.asarray(scores, float).reshape(-1)
        y = np.asarray(values, float).reshape(s.shape[0], -1)
        e = np.exp(s - s.max())
        self.num, self.den, self.max = self.num + e @ y, self.den + e.sum(), s.max()
        self.n_tokens += s.shape[0]
        return self
    monkeypatch.setattr(FPN.StreamingAttention, "update_projected", no_rescale)
    parts = FL.reference_paths(mix, U, V, z, lim, Context("fp-lln", "quick", 7), AlphaFamily())
    assert parts[0].verdict == "refuted"
    assert [r["value"] for r in parts[0].rows if r["check"].startswith("streamed")][0] > 1e-6


def test_tilted_covariance_link_sees_a_wrong_constant(monkeypatch):
    ctx = Context("fp-covariance", "quick", 1)
    sym, num = FP.tilted_covariance_parts(FP.Covariance(), ctx)
    assert sym.rows[0]["status"] == "proven" and num.verdict == "confirmed"
    real = FP.finite_prompt_constants_mp
    monkeypatch.setattr(FP, "finite_prompt_constants_mp", lambda *a,
                        **k: {**real(*a, **k), "mse": real(*a, **k)["mse"] * 2})
    _sym, num = FP.tilted_covariance_parts(FP.Covariance(), ctx)
    assert num.verdict == "refuted"


def test_overflow_links_reach_the_log_space_path_and_see_a_wrong_bias(monkeypatch):
    """The second query is just past the overflow of some rho_hk (0.1 % in t), where risk_constants takes its
    log-space rows, the first at half of it; with V and B scaled the values fit float64 and are compared, so a
    log-space bias that drops a factor (1/2 on head 0's bias, only where rho overflowed) is refuted there and
    only there (at the second query, head 0); a head that tilts nowhere gives no part."""
    P = REGISTRY["fp-risk-expansion"].params("quick")
    mix, heads, target = DR.setup(P)
    z = np.array([0.8, -0.4, 0.6])
    t = PA._overflow_scale(mix, heads, target, z)
    assert np.isinf(RK.risk_constants(mix, heads, target, (t * z)[None])["rho"]).any()
    assert np.isfinite(RK.risk_constants(mix, heads, target, (0.998 * t * z)[None])["rho"]).all()
    [good] = PA.overflow_links(mix, heads, target, z)
    assert good.verdict == "confirmed" and len(good.rows) == 2 * 2 * (5 + len(heads))
    real = RK._log_space_rows

    def half_bias(out, terms, r, rows):
        real(out, terms, r, rows)
        out["bias"][0][rows] *= 0.5

    monkeypatch.setattr(RK, "_log_space_rows", half_bias)
    [bad] = PA.overflow_links(mix, heads, target, z)
    assert bad.verdict == "refuted"
    failed = [r["check"] for r in bad.rows if not r["passed"]]
    assert failed and all(f.startswith(f"{t:.6g} z,") and f.endswith("bias W_0 b_0") for f in failed), failed
    flat = [RK.Head(tuple((0,) * len(h.U) for _ in h.U), h.V, h.W) for h in heads]
    assert PA.overflow_links(mix, flat, target, z) == []


def test_risk_constants_mp_bias_is_the_bias_of_the_float_path():
    P = REGISTRY["fp-risk-expansion"].params("quick")
    mix, heads, target = DR.setup(P)
    c = RK.risk_constants(mix, heads, target, np.array([[0.8, -0.4, 0.6]]))
    cm = RK.risk_constants_mp(mix, heads, target, ["0.8", "-0.4", "0.6"], dps=30)
    assert len(cm["bias"]) == len(heads)
    for h, bh in enumerate(cm["bias"]):
        assert np.allclose([float(b) for b in bh], c["bias"][h][0], rtol=1e-12, atol=1e-14)


def test_overflow_links_stay_confirmed_where_pair_terms_cancel_or_vanish():
    """A third head equal to head 0 with V scaled by -0.999999 (the cross terms nearly cancel the variance, which
    a part measured against its own size would refute at float64 precision), and heads with V = 0 (every part
    exactly 0: no part, rather than a crash)."""
    from fractions import Fraction

    P = REGISTRY["fp-risk-expansion"].params("quick")
    mix, heads, target = DR.setup(P)
    z = np.array([0.8, -0.4, 0.6])
    h0 = heads[0]
    twin = RK.Head(h0.U, tuple(tuple(Fraction(x) * Fraction(-999999, 1000000) for x in r) for r in h0.V), h0.W)
    [links] = PA.overflow_links(mix, [*heads, twin], target, z)
    assert links.verdict == "confirmed", [r for r in links.rows if not r["passed"]]
    silent = [RK.Head(h.U, tuple(tuple(0 for _ in r) for r in h.V), h.W) for h in heads]
    zero_target = RK.Target(tuple(tuple(0 for _ in r) for r in target.B), target.noise)
    assert PA.overflow_links(mix, silent, zero_target, z) == []
