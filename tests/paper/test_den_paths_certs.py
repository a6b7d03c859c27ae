"""Certificates stay rigorous in the claims themselves (issue 11): a broken radius or a broken ball function in
numerics/balls.py makes the certificate claim refute, because each claim now checks its balls against an
independent high-precision value (the pattern of tests/numerics/test_certificate_radius.py, moved into the claims)."""
from __future__ import annotations

import mpmath as mpm
import pytest

pytest.importorskip("flint")

from softmix.checks.runner import run_claim  # noqa: E402
from softmix.numerics import (
    balls as B,  # noqa: E402
    denoising as ND,  # noqa: E402
)
from softmix.numerics.memo import scope  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_certificates():
    with scope():  # a fresh run memo: no certificate is remembered across tests
        yield


def test_clean_certificates_enclose_their_references():
    r = run_claim("cert-thm-3.5-normal-hessian", "quick", 7)
    enc = r["evidence"]["integral enclosures"]["rows"]
    assert r["verdict"] == "verified" and enc and all(x["contains"] for x in enc)
    assert {str(x["truncation"]) for x in enc} == {"12", "4"}  # the second truncation T = 4: the tail matters
    r = run_claim("cert-prop-4.3-u-lambda", "quick", 7)
    assert r["verdict"] == "verified" and r["evidence"]["certificate"]["rows"][0]["enclosure_contains_bisection_root"]
    r = run_claim("cert-fp-rho", "quick", 7)
    assert r["verdict"] == "verified" and all(row["passed"] is True for row in r["evidence"]["certificate"]["rows"])
    rows = r["evidence"]["certificate"]["rows"]
    assert len(rows) == 7  # the boxes, off a = 0 (strict), the probe ball, the gradient ball, three boxes at 40 digits
    assert any("equality only at a = 0" in row["check"] for row in rows)
    assert any("gradient ball of log rho" in row["check"] for row in rows)


def test_a_wrong_gradient_of_the_mean_value_form_refutes_cert_fp_rho(monkeypatch):
    """The default box never lets the mean-value form decide a bound (the naive ball or the curvature form is
    tighter), so a wrong gradient of Lambda (here taken at 2x) is seen only by the claim's gradient row."""
    from softmix.numerics import rho_certificate as RC

    orig = RC._LogRho.grad_lambda
    monkeypatch.setattr(RC._LogRho, "grad_lambda", lambda self, x: orig(self, [2 * v for v in x]))
    r = run_claim("cert-fp-rho", "quick", 7)
    assert r["verdict"] == "refuted"
    assert [row["passed"] for row in r["evidence"]["certificate"]["rows"] if "gradient ball" in row["check"]] == [False]


def test_dropping_the_tail_radius_refutes_the_hessian_certificate(monkeypatch):
    """At T = 12 the true tail (~1e-38) hides below the quadrature radius; the claim's second truncation T = 4,
    where the tail (~1e-5) is what the radius must cover, exposes the missing term."""
    monkeypatch.setattr(B, "with_error", lambda x, err: x)
    r = run_claim("cert-thm-3.5-normal-hessian", "quick", 7)
    assert r["verdict"] == "refuted"
    assert any(x["contains"] is False for x in r["evidence"]["integral enclosures"]["rows"]
               if str(x["truncation"]) == "4")


def test_a_midpoint_only_cover_refutes_the_contraction_certificate(monkeypatch):
    monkeypatch.setattr(B, "mean_value_enclosure", lambda f, df, lo, hi: f((B.to_arb(lo) + B.to_arb(hi)) / 2))
    r = run_claim("cert-prop-4.3-contraction", "quick", 7)
    assert r["verdict"] == "refuted"
    rows = r["evidence"]["certificate"]["rows"][0]["box_bounds_contain_f"]
    assert any(x["contains_f_at_ends_and_midpoint"] is False for x in rows)


def test_a_shifted_phi_refutes_the_coercivity_certificate(monkeypatch):
    real = B.phi
    monkeypatch.setattr(B, "phi", lambda x: real(x) * (1 + B.to_arb("1e-12")))
    r = run_claim("cert-lemma-b.32-coercivity", "quick", 7)
    assert r["verdict"] == "refuted"
    rows = r["evidence"]["enclosures"]["rows"]
    assert any(x["contains"] is False for x in rows)


def test_the_u_lambda_enclosure_is_checked_against_the_bisection(monkeypatch):
    real = ND.u_lambda

    def off(lam, dps=50):
        out = real(lam, dps)
        with mpm.workdps(dps + 10):
            out["u"] = out["u"] + mpm.mpf(10) ** -25
        return out

    monkeypatch.setattr(ND, "u_lambda", off)
    r = run_claim("cert-prop-4.3-u-lambda", "quick", 7)
    row = r["evidence"]["certificate"]["rows"][0]
    assert r["verdict"] == "refuted" and row["enclosure_contains_bisection_root"] is False


def test_box_masses_must_partition_the_line(monkeypatch):
    """A mass formula off by 1e-15 relative (far below the loose bounds of the gap) breaks sum = 1."""
    real = B.normal_mass
    monkeypatch.setattr(B, "normal_mass", lambda a=None, b=None: real(a, b) if a is None or b is None
                        else real(a, b) * (1 + B.to_arb("1e-15")))
    r = run_claim("cert-thm-4.1-linear-gap", "quick", 7, {"grid": 24})
    row = r["evidence"]["certificate"]["rows"][0]
    assert r["verdict"] == "refuted" and row["certificate"]["masses_partition_the_line"] is False
