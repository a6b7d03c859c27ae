"""numerics.denoising_certificates: the Section 4 ball-arithmetic certificates, pinned against mpmath."""
from __future__ import annotations

from fractions import Fraction

import mpmath as mpm
import pytest

pytest.importorskip("flint")

from softmix.numerics import (
    balls as B,  # noqa: E402
    denoising as ND,  # noqa: E402
)
from softmix.numerics.denoising_certificates import (  # noqa: E402
    ball_contains,
    box_bounds_contain,
    contraction_certificate,
    linear_gap_1d,
    linear_gap_certificate,
    linear_gap_setup,
    u_lambda_certificate,
)

FIG2 = ([[3, 0], [0, 3]], ["1/2", "1/2"], 1, 2)


def test_linear_gap_bounds_enclose_the_1d_reduction_and_the_other_quadrature():
    cert = linear_gap_certificate(*FIG2, grid=24, prec=64)
    v = linear_gap_1d(*FIG2)
    t = ND.DenoisingTask.from_params({"m1": [3, 0], "m2": [0, 3], "gamma": 1, "xi": 2, "pi1": "1/2"})
    q = ND.linear_excess_risk_mp(t, 30, method="quad")[0]
    with mpm.workdps(30):
        assert abs(v - q) < mpm.mpf(10) ** -20
    assert cert["_partition_ok"] and B.gt(cert["_lower"], 0) is True
    with B.precision(64), mpm.workdps(30):
        assert ball_contains(B.hull(cert["_lower"].lower(), cert["_upper"].upper()), v, mpm.mpf(10) ** -20) is True
        assert ball_contains(B.hull(cert["_lower"].lower(), cert["_upper"].upper()), 3 * v, mpm.mpf(10) ** -20) is False


def test_the_wiener_denoiser_has_no_gap():
    cert = linear_gap_certificate(*FIG2, grid=24, prec=64, denoiser="wiener")
    assert B.gt(cert["_lower"], 0) is not True and float(cert["_upper"].mid()) < 1e-6
    with pytest.raises(ValueError):
        linear_gap_certificate(*FIG2, grid=4, denoiser="other")


def test_u_lambda_enclosure_contains_the_bisection_root():
    cert = u_lambda_certificate("6/5", prec=128)
    r = ND.u_lambda(Fraction(6, 5), 50)
    assert cert["uniqueness_and_existence_certified"] and cert["_lo"] < cert["_hi"]
    with mpm.workdps(60):
        assert cert["_lo"] < Fraction(mpm.nstr(r["u"], 55)) < cert["_hi"]
    with pytest.raises(ValueError):
        u_lambda_certificate("1")
    wrong = u_lambda_certificate("6/5", power=1)  # u = tanh(1.2 u): another root
    assert wrong["_hi"] < cert["_lo"]
    # the near-zero lemma's d0: 1/2 halved until lambda^6 d0^2 < 3 (lambda^2 - 1) -- 1/2 itself at lambda = 6/5
    # (lambda^6 / 4 = 0.746 < 1.32), 1/4 at lambda = 2 (64 / 4 = 16 >= 9, 64 / 16 = 4 < 9)
    assert cert["near_zero"]["interval"] == ["0", "1/2"]
    assert u_lambda_certificate("2", prec=128)["near_zero"]["interval"] == ["0", "1/4"]


def test_contraction_certificate_tristate():
    assert contraction_certificate(1)["status"] is True
    assert contraction_certificate("0.8")["status"] is True
    assert contraction_certificate(1, margin=Fraction(1, 1000))["status"] is False  # fails near 0
    assert contraction_certificate("1.05")["status"] is False  # above the threshold
    assert contraction_certificate(1, gain="2*lambda")["status"] is False


@pytest.mark.parametrize("lam", [1, "0.85"])
def test_box_bounds_contain_catches_a_wrong_ball_in_the_first_or_last_box(lam):
    """The documented spot checks: the worst, first and last boxes of a cover are held against mpmath.  The
    clean cover of tanh(lambda^2 u) < u passes; a ball shifted by 1/2 in the first or in the last box (the end
    of the range, where a tail or endpoint defect would show) is certainly outside f there."""
    cert = contraction_certificate(lam)
    boxes, prec, lam2 = cert["_boxes"], int(cert["prec"]), cert["_lam2"]
    f_mp = lambda l2, u: mpm.tanh(l2 * u) - u  # margin 0

    def statuses(bx):
        return [r["contains_f_at_ends_and_midpoint"] for r in box_bounds_contain(bx, -1, f_mp, prec, lam2)]

    assert len(boxes) >= 4 and statuses(boxes) and all(x is True for x in statuses(boxes))
    with B.precision(prec):
        for i in (0, len(boxes) - 1):
            bad = list(boxes)
            a, b, ball = bad[i]
            bad[i] = (a, b, ball + B.to_arb(Fraction(1, 2)))  # larger: not the worst box
            assert False in statuses(bad), i


def test_u_lambda_pinned_and_lambda_not_squared_root_outside():
    """lambda = 1.2: u_lambda ~ 0.8339 (u = tanh(1.44 u)); the control's root of u = tanh(1.2 u) ~ 0.6586."""
    good, bad = u_lambda_certificate("6/5"), u_lambda_certificate("6/5", power=1)
    with mpm.workdps(50):
        r = mpm.findroot(lambda u: mpm.tanh(mpm.mpf("1.44") * u) - u, 0.8)
        r1 = mpm.findroot(lambda u: mpm.tanh(mpm.mpf("1.2") * u) - u, 0.65)
    assert abs(float(r) - 0.8339059391573412) < 1e-14
    assert good["_lo"] < Fraction(mpm.nstr(r, 45)) < good["_hi"]
    assert bad["uniqueness_and_existence_certified"] and bad["_lo"] < Fraction(mpm.nstr(r1, 45)) < bad["_hi"]
    assert bad["_hi"] < good["_lo"] - Fraction(1, 10)


def test_linear_gap_pinned_and_wiener_gap_exactly_zero():
    cert = linear_gap_certificate(*FIG2, grid=40)
    v = linear_gap_1d(*FIG2, dps=20)
    assert float(cert["_lower"].upper()) < float(v) < float(cert["_upper"].lower())
    assert float(cert["_lower"].lower()) > 0
    assert abs(float(v) - 1.6415237275181479) < 1e-12
    w = linear_gap_certificate(*FIG2, grid=8, denoiser="wiener")
    assert w["A_star_minus_W"] == [["0", "0"], ["0", "0"]]
    for k in ("_lower", "_upper"):
        assert w[k] == 0 and w[k].rad() == 0


def test_slope_2_lambda_counterexample_is_genuine():
    import numpy as np

    cert = contraction_certificate(1, gain="2*lambda")
    assert cert["status"] is False
    u = Fraction(cert["compact_piece"]["counterexample"])
    assert 0 < u and np.tanh(2 * float(u)) > float(u) + 1e-3


def test_linear_gap_bounds_enclose_the_reference_at_unequal_weights_and_unrelated_means():
    # FIG2's equal weights cancel the log-weights in the posterior's logit (a term dropped from it went unseen,
    # library run on acffd0d, denoising_certificates.py:189); here pi = (1/10, 9/10), means neither orthogonal
    # nor of equal norm, gamma != xi, and a grid fine enough that the bounds without that term miss the value
    # (upper bound 0.199 < 0.2012 at 128 x 128)
    gen = ([[2, 1], [-1, 3]], ["1/10", "9/10"], "3/2", 1)
    cert = linear_gap_certificate(*gen, grid=160, prec=64)
    t = ND.DenoisingTask.from_params({"m1": [2, 1], "m2": [-1, 3], "gamma": "3/2", "xi": 1, "pi1": "1/10"})
    q = ND.linear_excess_risk_mp(t, 30, method="quad")[0]
    with mpm.workdps(30):
        assert abs(linear_gap_1d(*gen) - q) < mpm.mpf(10) ** -20
    assert cert["_partition_ok"] and B.gt(cert["_lower"], 0) is True
    assert float(cert["_lower"].upper()) < float(q) < float(cert["_upper"].lower())


def test_the_2_lambda_control_is_exactly_that_gain():
    # the control's gain drifting to another wrong one (4 lambda) still refutes at lambda = 1 (survivor
    # denoising_certificates.py:320 of the library run on acffd0d); pinned where 2 lambda is known: it equals
    # lambda^2 at lambda = 2, and at lambda = 1/2 it is 1, where tanh(u) < u is certified
    two, square = contraction_certificate(2, gain="2*lambda"), contraction_certificate(2)
    assert two["_lam2"] == square["_lam2"] == 4 and two["status"] is square["status"] is False
    half = contraction_certificate(Fraction(1, 2), gain="2*lambda")
    assert half["_lam2"] == 1 and half["status"] is True


def test_u_lambda_near_zero_argument_states_both_sides_of_its_inequality():
    """denoising_certificates.py:300 (a survivor of the library run on 86ed141): the near-zero lemma's argument
    gives lambda^6 d0^2 and 3 (lambda^2 - 1) exactly -- at lambda = 2: 64 / 16 = 4 and 9; at lambda = 6/5:
    (36/25)^3 / 4 = 11664/15625 and 33/25."""
    two = u_lambda_certificate("2", prec=128)["near_zero"]["argument"]
    assert two.endswith("since lambda^6 d0^2 = 4 < 3 (lambda^2 - 1) = 9")
    six_fifths = u_lambda_certificate("6/5", prec=128)["near_zero"]["argument"]
    assert six_fifths.endswith("since lambda^6 d0^2 = 11664/15625 < 3 (lambda^2 - 1) = 33/25")


def test_the_tail_bound_is_the_stated_bound_integrated_outside_the_grid():
    """denoising_certificates.py:117 (a survivor of the library run on 86ed141: the bound's factor 2 -> 1 left the
    certificate holding).  The reported tail is sum_k pi_k sum_i of E_k[(2 ||B||_F^2 |z|^2 + 2 c^2 max|m|^2)
    1{z_i beyond the grid}], recomputed here by mpmath quadrature of each coordinate's normal density."""
    import ast

    gen = ([[2, 1], [-1, 3]], ["1/10", "9/10"], "3/2", 1)
    ms, pis, _g2, x2, s2, _d, _A, Bm = linear_gap_setup(*gen)
    for K in (2, 3):
        cert = linear_gap_certificate(*gen, grid=4, half_width_sd=K, prec=64)
        edges = ast.literal_eval(cert["grid"].split(" boxes on ")[1])
        with mpm.workdps(30):
            f = lambda x: mpm.mpf(Fraction(x).numerator) / Fraction(x).denominator
            BF2 = sum(f(x) ** 2 for r in Bm for x in r)
            H2 = (f(x2) / f(s2)) ** 2 * max(sum(f(x) ** 2 for x in m) for m in ms)
            s, tot = mpm.sqrt(f(s2)), mpm.mpf(0)
            for p, m in zip(pis, ms):
                for i in range(2):
                    other, mi = sum(f(m[j]) ** 2 + f(s2) for j in range(2) if j != i), f(m[i])
                    g = lambda t, mi=mi, o=other: (2 * BF2 * (t * t + o) + 2 * H2) * mpm.npdf(t, mi, s)
                    tot += f(p) * (mpm.quad(g, [f(edges[i][1]), mpm.inf]) + mpm.quad(g, [-mpm.inf, f(edges[i][0])]))
            reported = mpm.mpf(cert["tail_bound_outside_grid"].strip("[").split()[0])
            assert abs(reported - tot) < 1e-5 * tot, (K, reported, tot)


def test_the_cover_of_h_prime_near_the_root_encloses_h_prime():
    """denoising_certificates.py:274 (a survivor of the library run on 86ed141: H' made a constant still certified
    H' < 0 near the root).  Each box of the derivative cover encloses -H'(u) = 1 - lambda^2 (1 - tanh^2(lambda^2 u))
    at its ends and midpoint; a ball of -H' evaluated at the wrong argument does not."""
    for lam in ("6/5", "2"):
        cert = u_lambda_certificate(lam, prec=128)
        boxes, sign = cert["_derivative_cover"]
        assert sign == -1 and boxes and cert["uniqueness_and_existence_certified"]
        dH = lambda l2, u: l2 * (1 - mpm.tanh(l2 * u) ** 2) - 1
        rows = box_bounds_contain(boxes, sign, dH, 128, cert["_lam2"])
        assert rows and all(r["contains_f_at_ends_and_midpoint"] is True for r in rows)
        wrong = box_bounds_contain(boxes, sign, lambda l2, u: dH(l2, u + mpm.mpf(1) / 100), 128, cert["_lam2"])
        assert all(r["contains_f_at_ends_and_midpoint"] is False for r in wrong)


def test_u_lambda_close_to_1_needs_no_cover_right_of_the_root():
    """At lambda = 2 (u_lambda = 0.99933...) and 3 (0.99999997) the cover of H' near the root reaches past 1, so no
    cover of H < 0 is built right of it: the piece [r + eta, 1] left for one is empty (r + eta > 1) and starts where
    the near-root piece ends, so the pieces still chain from 0 to 1 (what the claim's bookkeeping decides)."""
    for lam in ("2", "3"):
        cert = u_lambda_certificate(lam, prec=128)
        assert cert["uniqueness_and_existence_certified"] and cert["_covers"]["right"] == ([], -1)
        near, neg = cert["H_decreasing_near_root"]["interval"], cert["H_negative_on"]["interval"]
        assert neg[1] == "1" and Fraction(neg[0]) > 1 and neg[0] == near[1] and cert["H_negative_on"]["n_boxes"] == 0
        assert Fraction(near[0]) < cert["_lo"] < cert["_hi"] < 1 < Fraction(near[1])
    assert Fraction(u_lambda_certificate("6/5")["H_negative_on"]["interval"][0]) < 1


@pytest.mark.parametrize("n_extra", [0, 1, 5])
def test_cover_evidence_lists_the_first_boxes_and_counts_the_rest(n_extra):
    """cover_evidence: at most MAX_BOX_ROWS box rows, then one row counting the boxes left out -- none when
    the cover has exactly MAX_BOX_ROWS boxes (no '0 more boxes' row); the worst box is the one with the
    lowest bound, the smallest width the narrowest box."""
    from softmix.numerics.denoising_certificates import MAX_BOX_ROWS, cover_evidence

    n = MAX_BOX_ROWS + n_extra
    boxes = [(Fraction(i, n), Fraction(i + 1, n) if i else Fraction(1, 2 * n), B.to_arb(Fraction(n + 3 - i, 7)))
             for i in range(n)]
    ev = cover_evidence({"status": True, "boxes": boxes})
    assert ev["status"] is True and ev["n_boxes"] == n
    assert len(ev["boxes"]) == MAX_BOX_ROWS + (1 if n_extra else 0)
    assert all("box" in r for r in ev["boxes"][:MAX_BOX_ROWS])
    if n_extra:
        assert ev["boxes"][-1] == {"...": f"{n_extra} more boxes"}
    assert ev["worst_box"]["box"] == [str(Fraction(n - 1, n)), "1"]
    assert Fraction(ev["smallest_box_width"]) == Fraction(1, 2 * n)


def test_cover_evidence_prints_bounds_to_eight_digits_by_default():
    from softmix.numerics.denoising_certificates import cover_evidence

    one = {"status": True, "boxes": [(Fraction(0), Fraction(1), B.to_arb(Fraction(1, 3)))]}
    assert cover_evidence(one)["worst_box"]["bound"].startswith("[0.33333333 +/-")
    assert cover_evidence(one, digits=5)["worst_box"]["bound"].startswith("[0.33333 +/-")


@pytest.mark.timeout(60)
def test_u_lambda_just_above_1_shrinks_the_near_root_window_past_the_positive_piece():
    """lambda = 1001/1000 and 1 + 1e-5: the root is so small (0.0773..., 0.00775...) that the near-root window
    eta = 1/64 would reach below d0 (where H > 0 is known from the Taylor bound), so eta is halved until
    r - 2 eta > d0 (the only claim-free branch of the certificate, and a loop).  The certificate still
    encloses the root mpmath finds, and its pieces chain: H > 0 on [d0, r - eta], H' < 0 on [r - eta, r + eta]."""
    for lam, d0 in (("1001/1000", Fraction(1, 16)), ("100001/100000", Fraction(1, 256))):
        cert = u_lambda_certificate(lam, prec=128)
        l2 = Fraction(lam) ** 2
        with mpm.workdps(40):
            r = mpm.findroot(lambda u: mpm.tanh(mpm.mpf(l2.numerator) / l2.denominator * u) - u, float(cert["_lo"]))
        assert cert["uniqueness_and_existence_certified"]
        assert cert["_lo"] < Fraction(mpm.nstr(r, 35)) < cert["_hi"]
        pos, near = cert["H_positive_on"]["interval"], cert["H_decreasing_near_root"]["interval"]
        assert Fraction(pos[0]) == d0 and pos[1] == near[0]
        eta = (Fraction(near[1]) - Fraction(near[0])) / 2
        assert eta < Fraction(1, 64) and Fraction(near[0]) - eta > d0


def test_linear_gap_enclosure_narrows_at_first_order_in_the_grid():
    """sum over boxes of (sup - inf) x mass, for an integrand Lipschitz on the grid, shrinks like 1/n: doubling
    the grid halves the width of [lower, upper] (measured 0.496 and 0.501 at 16 -> 32 -> 64).  A box evaluated on
    an interval wider than itself (the second axis's box hulled with the first axis's edge: survivor
    denoising_certificates.py:135 of the library run on dd46daa) stays a valid but loose enclosure, whose width
    stops halving (0.69, 0.79).  Means whose coordinate ranges differ per axis, so the two axes' edges differ."""
    gen = ([[2, 1], [-1, 3]], ["1/10", "9/10"], "3/2", 1)
    widths = []
    for n in (16, 32, 64):
        cert = linear_gap_certificate(*gen, grid=n, prec=64)
        widths.append(float((cert["_upper"] - cert["_lower"]).mid()))
    assert all(0.4 < b / a < 0.6 for a, b in zip(widths, widths[1:])), widths
