"""numerics.denoising_references: the independent reference computations of the Section 4 claims."""
from __future__ import annotations

from fractions import Fraction

import mpmath as mpm
import numpy as np
import pytest

from softmix.checks.paper.denoising_two_heads import tensor_agreement
from softmix.numerics import denoising as ND
from softmix.numerics.denoising import DenoisingTask
from softmix.numerics.denoising_references import (
    fixed_point_by_iteration,
    heads_residual_mp,
    linear_risk_tensor_gh,
    random_equal_norm_task,
    rational_queries,
    trainer_consistency,
)
from softmix.numerics.memo import scope

FIG2 = {"m1": [3, 0], "m2": [0, 3], "gamma": 1, "xi": 2, "pi1": "1/2"}


def _task(**kw):
    return DenoisingTask.from_params({**FIG2, **kw})


def test_tensor_gauss_hermite_reference_pinned():
    t = _task()
    val, err = linear_risk_tensor_gh(t, ND.best_linear_map(t), 40)
    assert abs(val - 1.641523727518147896784) < 1e-9 and err < 1e-9


def test_refined_tensor_estimate_survives_an_accidental_agreement():
    """Thm 4.1's configuration drawn at seed 9300: Gauss-Hermite converges non-monotonically on its steep
    gate, and v(90), v(135) agree to 6e-9 while both are 1.4e-7 from the 30-digit value.  The refined
    estimate (larger of two successive differences) still bounds the error."""
    t = DenoisingTask.from_params({"m1": ["2.1", "-2.8"], "m2": ["2.1", "2.8"], "gamma": "0.8", "xi": "0.7",
                                   "pi1": "0.4"})
    val = float(ND.linear_excess_risk_mp(t, 30, method="quad")[0])
    A = ND.best_linear_map_mp(t, 30)
    with scope():
        v1, e1 = linear_risk_tensor_gh(t, A, 90)  # one difference: the accident
        assert e1 < 1e-8 and abs(v1 - val) > 10 * e1
        ref, e = linear_risk_tensor_gh(t, A, 40, refine=True)
    assert abs(ref - val) <= e
    assert tensor_agreement(val, ref, e)["passed"] is True
    assert tensor_agreement(val * (1 + 1e-5), ref, e)["passed"] is False  # still fails a 1e-5 error


def test_refined_tensor_reference_reaches_a_decision_in_d3():
    """d = 3 (Prop. C.6's drawn configuration of the full profile): the refinement goes past 48 nodes a
    direction and decides; its estimate bounds the error and a 1e-5 relative error fails."""
    t = DenoisingTask.from_params({"m1": ["0.8", "-1.6", "-1.6"], "m2": ["0.8", "1.6", "-1.6"], "gamma": "0.9",
                                   "xi": "1", "pi1": "0.16"})
    val = float(ND.linear_excess_risk_mp(t, 30, method="quad")[0])
    with scope():
        ref, e = linear_risk_tensor_gh(t, ND.best_linear_map_mp(t, 30), 32, refine=True)
    assert abs(ref - val) <= e and e <= 1e-6 * val
    assert tensor_agreement(val, ref, e)["passed"] is True
    assert tensor_agreement(val * (1 + 1e-5), ref, e)["passed"] is False
    assert tensor_agreement(val, ref, 1e-3 * val)["passed"] is None  # a coarse rule cannot decide


def test_heads_residual_of_the_paper_heads_and_a_wrong_head():
    """Prop. C.5's heads at the Fig. 2 task realise f* (to 1e-40); halving one value matrix does not."""
    t = _task(pi1="0.3")
    heads = [(np.asarray(U, float).tolist(), np.asarray(V, float).tolist()) for U, V in ND.paper_two_heads(t)]
    qs = rational_queries(np.random.default_rng(0), 2, 2)
    assert heads_residual_mp(t, heads, qs, 30) < 1e-12  # float64 heads: agree to rounding
    bad = [heads[0], (heads[1][0], [[v / 2 for v in r] for r in heads[1][1]])]
    assert heads_residual_mp(t, bad, qs, 30) > 1e-3


def test_fixed_point_iteration_matches_bisection_and_refusal():
    for lam in ("1.05", "3/2", "2"):
        it = fixed_point_by_iteration(lam)
        r = ND.u_lambda(Fraction(lam), 50)
        with mpm.workdps(60):
            assert it["converged"] and abs(r["u"] - mpm.mpf(it["u"])) < mpm.mpf(10) ** -45
    assert fixed_point_by_iteration("3/2")["u"].startswith("0.97549582573979363658192032237969024000")
    # the iteration count is the number of tanh steps taken: capped, it is the cap and not converged
    capped = fixed_point_by_iteration("1.05", max_iter=10)
    assert capped["iterations"] == 10 and capped["converged"] is False
    assert 1 < fixed_point_by_iteration("2")["iterations"] < 200000
    for lam in (1, Fraction(4, 5)):
        with pytest.raises(ND.InputError):
            ND.u_lambda(lam, 30)


def test_trainer_consistency_passes_and_catches_a_wrong_gradient(monkeypatch):
    assert trainer_consistency(_task(pi1="0.3"), 2, np.random.default_rng(1))["passed"]
    import softmix.numerics.denoising_references as R

    real = ND.heads_loss_grad
    monkeypatch.setattr(R, "heads_loss_grad", lambda *a, **k: (lambda lg: (lg[0], 2 * lg[1]))(real(*a, **k)))
    bad = trainer_consistency(_task(pi1="0.3"), 2, np.random.default_rng(1))
    assert not bad["passed"] and all(not r["passed"] for r in bad["loss_and_gradient"])


def test_random_tasks_and_queries_are_exact_and_admissible():
    rng = np.random.default_rng(3)
    for i in range(20):
        t = random_equal_norm_task(rng, 2 + i % 2, opposite=(i % 3 == 0))
        assert t.equal_norm and t.m1 != t.m2 and 0 < t.pi1 < 1 and t.gamma > 0 and t.xi > 0
        assert (t.m2 == tuple(-v for v in t.m1)) or i % 3 != 0
    q = rational_queries(rng, 3, 5)
    assert len(q) == 5 and all(isinstance(v,
                                          Fraction) and abs(v) <= 4 and (8 * v).denominator == 1 for r in q for v in r)


def test_rational_queries_fill_the_closed_box_of_eighths_and_no_more():
    """[-scale, scale]^d on the grid of eighths: both ends reached over many draws, nothing past them (kills
    numerics/denoising_references.py:185 of the library run on acffd0d, the upper end + 1/8)."""
    for scale in (1, 3):
        vals = [v for q in rational_queries(np.random.default_rng(scale), 2, 1500, scale) for v in q]
        assert min(vals) == -scale and max(vals) == scale and all((8 * v).denominator == 1 for v in vals)


def test_isotropic_posterior_mean_quadrature_has_the_known_answers():
    """One component N(m, v I): E[X | z] = (v z + xi^2 m) / (v + xi^2) coordinatewise.  Two (d = 2, unequal
    variances, so the gates carry det(S_k)^(-1/2) = (v_k + xi^2)^(-1)): gates w_k N(z; m_k, (v_k + xi^2) I),
    written out by hand here."""
    import mpmath as mpm

    from softmix.numerics.denoising_references import isotropic_posterior_mean_quadrature

    F = Fraction
    with mpm.workdps(40):
        m, v, n, z = [F(1, 2), F(-3, 4)], F(5, 4), F(1, 3), [F(2), F(-1, 8)]
        got, err = isotropic_posterior_mean_quadrature([1], [m], [v], n, z, dps=40)
        want = [(v * zi + n * mi) / (v + n) for zi, mi in zip(z, m)]
        assert err < mpm.mpf(10) ** -30
        assert max(abs(g - mpm.mpf(w.numerator) / w.denominator) for g, w in zip(got, want)) < mpm.mpf(10) ** -30

        w, ms, vs = [F(3, 10), F(7, 10)], [[F(1), F(0)], [F(-1, 2), F(2)]], [F(1, 4), F(2)]
        got, err = isotropic_posterior_mean_quadrature(w, ms, vs, n, z, dps=40)
        q = lambda x: mpm.mpf(x.numerator) / x.denominator  # noqa: E731
        gate = [q(wk) * (q(vk) + q(n)) ** -1 * mpm.exp(-sum((q(zi) - q(mi)) ** 2 for zi, mi in zip(z, mk))
                                                        / (2 * (q(vk) + q(n)))) for wk, mk, vk in zip(w, ms, vs)]
        mean = [[(q(vk) * q(zi) + q(n) * q(mi)) / (q(vk) + q(n)) for zi, mi in zip(z, mk)] for mk, vk in zip(ms, vs)]
        want2 = [sum(g * mk[i] for g, mk in zip(gate, mean)) / sum(gate) for i in range(2)]
        assert err < mpm.mpf(10) ** -30
        assert max(abs(a - b) for a, b in zip(got, want2)) < mpm.mpf(10) ** -30

        # the posterior's trace: one component, D v n / (v + n); two, the law of total variance by hand
        from softmix.numerics.denoising_references import isotropic_posterior_moments_quadrature as moments

        _m, tr1, err = moments([1], [m], [v], n, z, dps=40)
        assert err < mpm.mpf(10) ** -30 and abs(tr1 - q(2 * v * n / (v + n))) < mpm.mpf(10) ** -30
        _m, tr2, err = moments(w, ms, vs, n, z, dps=40)
        within = sum(g * 2 * q(vk) * q(n) / (q(vk) + q(n)) for g, vk in zip(gate, vs)) / sum(gate)
        between = sum(g * sum((mk[i] - want2[i]) ** 2 for i in range(2)) for g, mk in zip(gate, mean)) / sum(gate)
        assert abs(tr2 - (within + between)) < mpm.mpf(10) ** -30
