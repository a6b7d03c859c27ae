"""Ball-arithmetic certificates: tri-state comparisons, pinned values computed independently
with mpmath, and every certificate claim verified with its negative controls refuted."""
import json
from fractions import Fraction

import mpmath as mpm
import numpy as np
import pytest

flint = pytest.importorskip("flint")
from flint import arb  # noqa: E402

from softmix.numerics import balls as B  # noqa: E402

CERT_IDS = ["cert-thm-3.5-normal-hessian", "cert-thm-4.1-linear-gap", "cert-prop-4.3-u-lambda",
            "cert-prop-4.3-contraction", "cert-lemma-b.32-coercivity", "cert-fp-rho"]

#: every claim has a shifted-threshold control and a wrong-quantity control (threshold kept fixed)
EXPECTED_CONTROLS = {
    "cert-thm-3.5-normal-hessian": {"shifted-threshold", "s-star-zero"},
    "cert-thm-4.1-linear-gap": {"shifted-threshold", "wiener-denoiser"},
    "cert-prop-4.3-u-lambda": {"shifted-enclosure", "lambda-not-squared"},
    "cert-prop-4.3-contraction": {"shifted-threshold", "above-threshold", "slope-2-lambda"},
    "cert-lemma-b.32-coercivity": {"shifted-threshold", "c0-at-plus-M"},
    "cert-fp-rho": {"shifted-threshold", "wrong-power"},
}
WRONG_QUANTITY = {"s-star-zero", "wiener-denoiser", "lambda-not-squared", "slope-2-lambda", "c0-at-plus-M",
                  "wrong-power"}


# ---- tri-state comparisons -------------------------------------------------------------------

def _certificates():
    """The certificate modules of the paper library written on certify.py, as one namespace (the Section 4
    certificates are public in softmix.numerics.denoising_certificates)."""
    import types

    from softmix.checks.paper import finite_prompt_certificates, lda_certificates

    ns = types.SimpleNamespace()
    for m in (lda_certificates, finite_prompt_certificates):
        ns.__dict__.update({k: v for k, v in vars(m).items() if not k.startswith("__")})
    return ns

def test_overlapping_balls_never_compare_true_or_false():
    rng = np.random.default_rng(7)
    with B.precision(64):
        for _ in range(300):
            m = float(rng.normal())
            r = float(rng.uniform(1e-12, 1.0))
            x = arb(m, r)
            y = arb(m + float(rng.uniform(-0.9, 0.9)) * r, r)  # centres within both radii: overlap
            assert x.overlaps(y)
            for cmp in (B.gt, B.ge, B.lt, B.le):
                assert cmp(x, y) is None
        assert B.gt(arb(2), arb(1)) is True and B.gt(arb(1), arb(2)) is False
        assert B.ge(arb(1), arb(1)) is True and B.gt(arb(1), arb(1)) is False  # exact points decide
        assert B.lt(arb("1 +/- 0.1"), 1.2) is True and B.gt(arb("1 +/- 0.1"), 1.05) is None


def test_ball_cholesky_is_tri_state():
    with B.precision(64):
        eps = arb(0, 1e-20)
        assert B.cholesky([[arb(2), arb(1)], [arb(1), arb(2)]])[0] is True
        assert B.cholesky([[arb(1), arb(1)], [arb(1), arb(1) + eps]])[0] is None  # singular up to a ball
        assert B.cholesky([[arb(1), arb(2)], [arb(2), arb(1)]])[0] is False  # indefinite
        st, _ = B.min_eig_lower([[arb(2), arb(0)], [arb(0), arb(3)]], Fraction(199, 100))
        assert st is True


def test_gaussian_helpers_against_mpmath():
    with B.precision(128), mpm.workdps(30):
        assert B.normal_mass(-1, 2).contains(arb(mpm.nstr(mpm.ncdf(2) - mpm.ncdf(-1), 25))) or \
            abs(float(B.normal_mass(-1, 2)) - float(mpm.ncdf(2) - mpm.ncdf(-1))) < 1e-20
        q = mpm.quad(lambda t: (1 + t * t) * mpm.npdf(t - mpm.mpf("0.5")), [3, mpm.inf])
        assert abs(float(B.poly2_tail(3, Fraction(1, 2))) - float(q)) < 1e-15
        v = B.integrate(lambda z: B.phi(z), -1, 1)
        assert abs(float(v) - float(mpm.erf(1 / mpm.sqrt(2)))) < 1e-25


def test_cover_sign_finds_counterexamples_and_certifies():
    with B.precision(64):
        ok = B.cover_sign(lambda u: u * u + 1, 0, 4, +1)
        assert ok["status"] is True and ok["boxes"]
        bad = B.cover_sign(lambda u: u - B.to_arb(Fraction(1, 3)), 0, 1, +1)
        assert bad["status"] is False and bad["counterexample"] < Fraction(1, 3)


# ---- pinned values (independent mpmath computations) ----------------------------------------------




# ---- wrong-quantity controls: the mistaken quantity itself, checked independently -------------------


# ---- every certificate claim: verified, every control (old and new) refuted ----------------------
@pytest.mark.parametrize("cid", CERT_IDS)
def test_certificate_claims_and_controls(cid):
    from softmix.checks.registry import get
    from softmix.checks.runner import run_claim

    assert {c.id for c in get(cid).controls} == EXPECTED_CONTROLS[cid]
    assert EXPECTED_CONTROLS[cid] & WRONG_QUANTITY, "each certificate needs a wrong-quantity control"
    r = run_claim(cid, profile="quick", seed=1)
    assert r["verdict"] == "verified", r["evidence"]
    assert {c["id"] for c in r["negative_controls"]} == EXPECTED_CONTROLS[cid]
    for c in r["negative_controls"]:
        assert c["verdict"] == "refuted" and c["refuted"], (c["id"], c["evidence"])


def test_without_python_flint_every_certificate_is_inconclusive(monkeypatch):
    """Certificates need python-flint; without it they say so (`inconclusive`, with the reason),
    never crash and never pass.  (The helper that says so used a name it never imported.)"""
    from softmix.checks.registry import load_all
    from softmix.checks.runner import run_claim

    def no_flint():
        raise ModuleNotFoundError("No module named 'flint'")

    for mod in ("lda_certificates",):
        monkeypatch.setattr(f"softmix.checks.paper.{mod}._flint", no_flint)
    monkeypatch.setattr("softmix.numerics.denoising_certificates._balls", no_flint)
    monkeypatch.setattr("softmix.numerics.rho_certificate.require_flint", no_flint)
    ids = [c for c in load_all() if c.startswith("cert-")]
    assert len(ids) >= 6
    for cid in ids:
        r = run_claim(cid, profile="quick", seed=3)
        assert r["verdict"] == "inconclusive", (cid, r["verdict"], str(r["evidence"])[:300])
        assert "python-flint" in json.dumps(r["evidence"]), cid


@pytest.mark.parametrize("seed", range(40))
def test_drawn_regular_points_are_generic(seed):
    """cert-thm-3.5-normal-hessian's drawn configurations have the properties they promise: unequal mean norms
    (so m1 != -m-1 and the v22 of theta* is non-zero, a term configuration C1 sets to zero), pi+ at least 0.05
    from 1/2, s* = c w* with c in [0.5, 1.5] and c != 1."""
    from softmix.checks.paper.lda_certificates import NormalHessian, draw_regular_point

    rng = np.random.default_rng(seed)
    v = draw_regular_point(rng, NormalHessian(), 1)
    m1, mm = ([Fraction(x) for x in v[k]] for k in ("m1", "m_minus1"))
    n1, n2 = sum(x * x for x in m1), sum(x * x for x in mm)
    assert max(n1, n2) >= Fraction(144, 100) * min(n1, n2) * Fraction(99, 100)  # norm ratio ~>= 1.2
    assert [a + b for a, b in zip(m1, mm)] != [0, 0]
    pi, c = Fraction(v["pi_plus"]), Fraction(v["s_scale"])
    assert Fraction(3, 10) <= pi <= Fraction(7, 10) and abs(pi - Fraction(1, 2)) >= Fraction(1, 20)
    assert Fraction(1, 2) <= c <= Fraction(3, 2) and c != 1
    mbar = [(a + b) / 2 for a, b in zip(m1, mm)]
    dm = [a - b for a, b in zip(m1, mm)]
    assert sum(a * b for a, b in zip(mbar, dm)) != 0  # v22 = -(v21 . dm) / 2 with v21 parallel to mbar
    NormalHessian(**v)  # the drawn values validate as the claim's parameters


def _synthetic_coercivity(boxes, M2="1", all_certain=True, certified=(True, True), counter=(False, False)):
    return {"M^2": M2, "g_prime_equals_Phi_symbolic": True,
            "monotonicity": {"boxes": [{"box": [lo, hi], "certainly_positive": True} for lo, hi in boxes],
                             "all_certain": all_certain},
            "sampled_directions": {"rows": [{"certified": c, "counterexample": x} for c, x in zip(certified, counter)],
                                   "all_certain": all(certified), "n_certain_counterexamples": sum(counter)}}


@pytest.mark.parametrize("boxes, M2, flag, verdict", [
    ([("-1", "0"), ("0", "1")], "1", True, "verified"),
    ([("-1", "0"), ("0", "1/2")], "1", True, "refuted"),  # half of [0, M] uncovered
    ([("-1", "0"), ("1/4", "1")], "1", True, "refuted"),  # a gap
    ([("-1", "0"), ("0", "1")], "2", True, "refuted"),  # M' = 1 < M = sqrt 2
    ([("-3/2", "0"), ("0", "3/2")], "2", True, "verified"),  # M' = 3/2 >= sqrt 2 (an upper endpoint)
    ([("-1", "0"), ("0", "1")], "1", False, "refuted"),  # a summary flag that contradicts its rows
])
def test_coercivity_bookkeeping_decides_from_the_evidence(boxes, M2, flag, verdict):
    """cert-lemma-b.32-coercivity decides what the certificate's flags summarise from its rows: the boxes cover
    [-M, M] exactly (chained, symmetric, M'^2 >= M^2) and each flag equals its rows' count."""
    from softmix.checks.paper.lda_certificates import _coercivity_rows

    assert _coercivity_rows(_synthetic_coercivity(boxes, M2, all_certain=flag)).verdict == verdict
    bad = _synthetic_coercivity([("-1", "0"), ("0", "1")])
    bad["sampled_directions"]["n_certain_counterexamples"] = 1
    assert _coercivity_rows(bad).verdict == "refuted"


def test_prop43_bookkeeping_decides_the_argument_from_the_evidence():
    """The u_lambda and contraction certificates' arguments are decided from their evidence: the pieces chain,
    each certified piece's boxes tile it, the near-zero lemma's inequality holds with the certificate's d0, the
    slope is lambda^2."""
    from softmix.checks.paper.denoising_certificates import _contraction_bookkeeping, _u_bookkeeping

    def halves(a, b):  # a cover's boxes: the interval in two halves
        a, b = Fraction(a), Fraction(b)
        return [(a, (a + b) / 2, None), ((a + b) / 2, b, None)]

    def u_cert(d0="1/4", r=("3/4", "7/8"), lam2=Fraction(4)):
        ev = lambda a, b: {"interval": [a, b], "status": True}  # noqa: E731
        return {"_lam2": lam2, "near_zero": {"interval": ["0", d0]}, "H_positive_on": ev(d0, r[0]),
                "H_decreasing_near_root": ev(*r), "H_negative_on": ev(r[1], "1"),
                "_covers": {"left": (halves(d0, r[0]), 1), "right": (halves(r[1], "1"), -1)},
                "_derivative_cover": (halves(*r), -1)}

    assert _u_bookkeeping(2, 2, u_cert()).verdict == "verified"
    assert _u_bookkeeping(2, 2, u_cert(d0="1/2")).verdict == "refuted"  # 64/4 = 16 >= 3 (4 - 1) = 9
    assert _u_bookkeeping(2, 2, u_cert(lam2=Fraction(2))).verdict == "refuted"  # lambda, not lambda^2
    gap = u_cert()
    gap["H_negative_on"]["interval"] = ["15/16", "1"]
    assert _u_bookkeeping(2, 2, gap).verdict == "refuted"
    fold = u_cert()  # the near-root piece reversed: its ends still chain, but it covers nothing
    fold["H_positive_on"]["interval"], fold["H_decreasing_near_root"]["interval"] = ["1/4", "7/8"], ["7/8", "3/4"]
    fold["H_negative_on"]["interval"] = ["3/4", "1"]
    fold["_covers"] = {"left": (halves("1/4", "7/8"), 1), "right": (halves("3/4", "1"), -1)}
    assert _u_bookkeeping(2, 2, fold).verdict == "refuted"
    past = u_cert(r=("15/16", "17/16"))  # the root within eta of 1: the last piece [r + eta, 1] is empty, legitimately
    past["H_negative_on"]["status"] = True
    past["_covers"]["right"] = ([], -1)
    assert _u_bookkeeping(2, 2, past).verdict == "verified"
    past["H_decreasing_near_root"]["interval"] = ["15/16", "63/64"]  # ... but the near-root piece must reach 1
    past["_derivative_cover"] = (halves("15/16", "63/64"), -1)
    assert _u_bookkeeping(2, 2, past).verdict == "refuted"
    overlap = u_cert()  # boxes that each start at the piece's left end: a cover, but not a tiling
    overlap["_covers"]["left"] = ([(Fraction(1, 4), Fraction(1, 2), None), (Fraction(1, 4), Fraction(3, 4), None)], 1)
    assert _u_bookkeeping(2, 2, overlap).verdict == "refuted"
    overlap["H_positive_on"]["status"] = None  # an undecided cover is the main part's business, not the tiling's
    assert _u_bookkeeping(2, 2, overlap).verdict == "verified"

    def c_cert(applies=True, d0="1/8", lam2=Fraction(1), top="1"):
        return {"_lam2": lam2, "near_zero": {"interval": ["0", d0], "applies": applies},
                "compact_piece": {"interval": [d0, top], "status": True}, "_boxes": halves(d0, top)}

    assert _contraction_bookkeeping(1, Fraction(0), "1/8", "lambda^2", c_cert()).verdict == "verified"
    assert _contraction_bookkeeping(1, Fraction(0), "1/8", "lambda^2", c_cert(applies=False)).verdict == "refuted"
    assert _contraction_bookkeeping("1.05", Fraction(0), "1/8", "lambda^2",
                                    c_cert(applies=False, lam2=Fraction(441, 400))).verdict == "verified"
    assert _contraction_bookkeeping(1, Fraction(0), "1/8", "lambda^2", c_cert(top="1/2")).verdict == "refuted"
    assert _contraction_bookkeeping(1, Fraction(0), "1/4", "lambda^2", c_cert()).verdict == "refuted"
    holed = c_cert()
    holed["_boxes"] = holed["_boxes"][:1]  # the compact piece's upper half not certified
    assert _contraction_bookkeeping(1, Fraction(0), "1/8", "lambda^2", holed).verdict == "refuted"
