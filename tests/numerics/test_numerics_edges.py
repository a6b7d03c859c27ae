"""Edges of the numerics and the theory that the claims' default runs do not reach.

Each test names what it guards, as the mutation run of seed 4111 (docs/records.md, "Mutation runs")
showed it unguarded: scores in the thousands (log-space), a caller's random stream honoured,
malformed rows rejected as input errors, the denoising excess risk along a non-collinear basis
against an independent float64 tensor rule, the intermediate steps and labels of derivations, and
the genericity of symbolic atoms.
"""
import math

import numpy as np
import pytest
import sympy as sp

from softmix.numerics import beyond as NB, denoising as ND
from softmix.numerics.errors import InputError
from softmix.numerics.lda import LDAProblem
from softmix.numerics.mixture import GaussianMixture
from softmix.theory import attention as TA, beyond as TB, lda as TL
from softmix.theory.derivation import simplify_zero


def _mix2():
    return GaussianMixture.from_values(["0.3", "0.7"], [["1", "0.5"], ["-0.4", "0.9"]],
                                       [[["0.5", "0.1"], ["0.1", "0.3"]], [["0.4", "-0.05"], ["-0.05", "0.6"]]])


# ---- log-space streaming at scores in the thousands ---------------------------------------------
def test_query_errors_stay_finite_with_scores_in_the_thousands():
    """U = 400 I and queries of norm ~3: token scores x^T U z reach the thousands, where exp overflows
    float64 unless the running maximum is subtracted (online log-sum-exp)."""
    mix = _mix2()
    U, V = 400 * np.eye(2), np.array([[1.0, 0.2], [-0.3, 0.8]])
    Z = np.array([[3.0, 1.0], [-2.0, 2.5]])
    scores = Z @ U.T @ np.array([[1, 0.5], [-0.4, 0.9]]).T
    assert np.abs(scores).max() > 800  # exp(800) overflows float64
    out = NB.simulate_query_errors(mix, U, V, Z, 200, np.random.default_rng(3), chunk=64)
    assert out.shape == (2,) and np.all(np.isfinite(out)) and np.all(out >= 0)


# ---- random streams: a caller's generator is used ------------------------------------------------
def test_averaged_constant_monte_carlo_uses_the_callers_generator():
    mix = _mix2()
    Sigma, U, V = np.eye(2) * 0.2, np.array([[0.3, 0.1], [-0.2, 0.25]]), np.eye(2)
    kw = dict(max_points=1, mc_samples=4000)  # forces the importance-sampled branch
    a = NB.averaged_constant(mix, Sigma, U, V, rng=np.random.default_rng(11), **kw)
    b = NB.averaged_constant(mix, Sigma, U, V, rng=np.random.default_rng(11), **kw)
    c = NB.averaged_constant(mix, Sigma, U, V, rng=np.random.default_rng(12), **kw)
    assert a["method"] == "monte-carlo"
    assert a["value"] == b["value"]  # same stream, same draws
    assert a["value"] != c["value"]  # another stream, other draws
    assert abs(a["value"] - c["value"]) < 8 * math.hypot(a["standard_error"], c["standard_error"])


# ---- malformed rows are input errors, not crashes ------------------------------------------------
@pytest.mark.parametrize("Gamma", [[[1, 0], [0, 1, 2]], [[1, 0], 5], [[1, 0]], "I"])
def test_lda_gamma_rows_of_the_wrong_shape_are_input_errors(Gamma):
    with pytest.raises(InputError, match="Gamma"):
        LDAProblem.from_params({"m1": [1, 0], "m_1": [0, 1], "Gamma": Gamma, "pi_plus": 0.3})


# ---- the denoising excess risk of a linear map, non-collinear means ------------------------------
def test_linear_map_excess_risk_mp_against_an_independent_tensor_rule():
    """E||A Z - f*(Z)||^2 by numerics' 30-digit path (line integral along e1 plus exact Gaussian moments
    along e2 and the orthogonal complement) against a plain float64 tensor Gauss-Hermite rule over the
    whole plane with the float64 Bayes denoiser; means non-collinear with unequal norms, pi1 != 1/2 and a
    non-symmetric A, so that both basis directions and every term carry weight."""
    task = ND.DenoisingTask.from_params({"m1": ["1.2", "0.4"], "m2": ["-0.3", "0.9"], "gamma": "0.7",
                                         "xi": "0.6", "pi1": "0.35"})
    A = np.array([[0.8, -0.3], [0.25, 0.6]])
    got = float(ND.linear_map_excess_risk_mp(task, [["0.8", "-0.3"], ["0.25", "0.6"]],
                                             dps=30))  # 'p/q' or decimal strings: exact
    x, w = np.polynomial.hermite_e.hermegauss(80)
    w = w / math.sqrt(2 * math.pi)
    X1, X2 = np.meshgrid(x, x, indexing="ij")
    W = np.outer(w, w).ravel()
    pts = np.stack([X1.ravel(), X2.ravel()], 1)
    s = float(task.s)
    ref = 0.0
    for p, m in ((float(task.pi1), np.array(task.m1, float)), (1 - float(task.pi1), np.array(task.m2, float))):
        Z = m + math.sqrt(s) * pts
        err = Z @ A.T - ND.bayes_denoiser(task, Z)
        ref += p * float(W @ (err**2).sum(1))
    assert got == pytest.approx(ref, rel=1e-9), (got, ref)


def test_linear_map_excess_risk_mp_keeps_its_digits():
    """30 digits asked, 30 delivered: against the same path at 60 digits (guard digits included)."""
    task = ND.DenoisingTask.from_params({"m1": ["1.2", "0.4"], "m2": ["-0.3", "0.9"], "gamma": "0.7",
                                         "xi": "0.6", "pi1": "0.35"})
    A = [["0.8", "-0.3"], ["0.25", "0.6"]]
    import mpmath as mpm
    with mpm.workdps(70):
        Am = mpm.matrix([[mpm.mpf(v) for v in r] for r in A])
        lo = ND.linear_map_excess_risk_mp(task, Am, dps=30, n=60)
        hi = ND.linear_map_excess_risk_mp(task, Am, dps=60, n=60)
        assert abs(lo - hi) <= mpm.mpf(10) ** -29 * abs(hi), mpm.nstr(abs(lo - hi), 5)


# ---- derivations: intermediate steps hold, labels say what they are ------------------------------
def test_prop_b2_log_odds_step_equals_the_stated_score():
    """The displayed step 'log-odds derived' of Prop. B.2 is log(eta / (1 - eta)) = w*^T x + b* exactly."""
    d = TL.prop_b2_derivation(2)
    (label, step), = d.steps
    assert label == "log-odds derived"
    m1, m_1, P, pi_p = TL.problem_symbols(2, precision=True)
    x = sp.Matrix(sp.symbols("x1:3"))
    w, b = TL.bayes_coefficients(m1, m_1, P, pi_p)
    xs = {s.name: s for s in step.free_symbols}
    x = sp.Matrix([xs.get(f"x_{i + 1}", xs.get(f"x{i + 1}")) for i in range(2)])
    assert all(v is not None for v in x)
    assert simplify_zero(sp.expand(step - ((w.T * x)[0, 0] + b)))


def test_derivation_labels_name_their_variants():
    assert "[equal norms dropped]" in TB.denoising_derivation(3, 2, equal_norms=False).name
    assert TB.denoising_derivation(3, 2).name.startswith("Bayes posterior mean = softmax head U = I/sigma^2")
    assert "[U = 1 I]" in TB.denoising_derivation(3, 2, temperature=sp.Integer(1)).name
    names = [x.name for x in TL.lemma_b10_derivations(2, variant="flipped-sign")]
    assert names and all("[control flipped-sign]" in n for n in names)
    assert all("[control" not in x.name for x in TL.lemma_b10_derivations(2))


def test_prop_a1_atoms_are_distinct_symbols():
    """Generic atomic components: K * atoms * D distinct coordinates and K * atoms distinct alignment values
    (atoms or alignments shared across components would hide the mixing)."""
    d = TA.prop_a1_derivation(K=2, atoms_per_component=2, D=2)
    xs = {s for s in d.free_symbols() if s.name.startswith("x")}
    assert len(xs) == 2 * 2 * 2, sorted(s.name for s in xs)
    align = {s for s in d.free_symbols() if s.name.startswith("A")}
    assert len(align) == 2 * 2, sorted(s.name for s in align)


# ---- exact configurations written back as text ----------------------------------------------------
def test_exact_fractions_print_as_exact_decimals_when_they_terminate():
    """A terminating fraction is printed exactly, however many digits (2^-150 has 150 decimals); a
    non-terminating one to 40 significant digits; integers as integers."""
    from fractions import Fraction

    from softmix.numerics.mixture import _frac_to_str

    tiny = _frac_to_str(Fraction(1, 2**150))
    assert Fraction(tiny) == Fraction(1, 2**150) and len(tiny) > 150
    assert _frac_to_str(Fraction(3, 8)) == "0.375" and _frac_to_str(Fraction(-7)) == "-7"
    third = _frac_to_str(Fraction(1, 3))
    assert third.startswith("0.3333") and len(third.replace("0.", "", 1)) == 40


def test_counterexample_search_reaches_negative_values_of_real_symbols():
    """|x| = x holds for x >= 0 only: the random search must try negative values of a real symbol and
    refute it (a search over positive values alone would leave it 'unproven')."""
    from softmix.theory.derivation import Derivation

    x = sp.Symbol("x", real=True)
    verdict, info = Derivation("abs", "test", sp.Abs(x), x).decide(seed=0)
    assert verdict == "refuted" and sp.Rational(info["counterexample"]["x"]) < 0
    # a positive symbol is only ever drawn positive (the identity holds there: proven)
    p = sp.Symbol("p", positive=True)
    assert Derivation("abs", "test", sp.Abs(p), p).decide(seed=0)[0] == "proven"


def test_prop_b12_label_names_its_control():
    assert TL.prop_b12_derivation(2).name == "Prop. B.12 Hessian integrand on E1, d=2"
    assert TL.prop_b12_derivation(2, variant="dropped-zero-block").name.endswith("[control dropped-zero-block]")


# ---- online SGD of fig. 2: one step is the minibatch-mean gradient step ---------------------------
def test_sgd_heads_step_is_the_minibatch_mean_gradient_step():
    """One step of sgd_heads from a seeded start equals theta - lr * grad of the batch MEAN squared error
    against f*, the gradient checked by central differences of the loss computed from head_outputs (so the
    batch weights, the learning rate and the target all enter the comparison)."""
    task = ND.DenoisingTask.from_params({"m1": ["1.2", "0.4"], "m2": ["-0.3", "0.9"], "gamma": "0.7",
                                         "xi": "0.6", "pi1": "0.35"})
    H, lr, batch, d = 2, 0.05, 16, task.d
    _curve, heads = ND.sgd_heads(task, H, steps=1, lr=lr, clip=1e9, batch=batch, rng=np.random.default_rng(5),
                                 track_every=1)
    rng = np.random.default_rng(5)
    M, pi, s, _c, _a = task.arrays()
    th = rng.normal(scale=0.1, size=H * 2 * d * d)
    lab = rng.random(batch) < pi[0]
    Z = np.where(lab[:, None], M[0], M[1]) + np.sqrt(s) * rng.standard_normal((batch, d))
    target = ND.bayes_denoiser(task, Z)

    def mean_loss(t):
        out = ND.head_outputs(task, ND._unpack(t, d, H), Z)
        return float(np.mean(((out - target) ** 2).sum(1)))

    eps = 1e-6
    g = np.array([(mean_loss(th + eps * e) - mean_loss(th - eps * e)) / (2 * eps) for e in np.eye(th.size)])
    assert np.allclose(ND._pack(heads), th - lr * g, rtol=1e-6, atol=1e-8)


def test_a_covariance_asymmetry_is_judged_relative_to_its_entries():
    """mixture.py:114 (a survivor of the library run on 86ed141): entries 300000 and 300000.00000001 differ by 1e-8,
    which is 3e-14 of their size: a rounding slip, accepted and symmetrised exactly; 300000 against 300001 is
    refused, naming the entry."""
    from fractions import Fraction

    import pytest

    from softmix.numerics.errors import InputError
    from softmix.numerics.mixture import GaussianMixture

    g = GaussianMixture.from_values(["1"], [["0", "0"]], [[["1000000", "300000"], ["300000.00000001", "1000000"]]])
    assert g.covariances[0][0][1] == g.covariances[0][1][0] == Fraction("300000.000000005")
    with pytest.raises(InputError, match=r"covariances\[0\] is not symmetric \(entry \[0\]\[1\]"):
        GaussianMixture.from_values(["1"], [["0", "0"]], [[["1000000", "300000"], ["300001", "1000000"]]])
