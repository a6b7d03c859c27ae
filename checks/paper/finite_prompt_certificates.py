"""Ball-arithmetic certificate for the finite-prompt constant rho(a) >= 1 (docs/finite-prompt.md).

The enclosure is :func:`softmix.numerics.rho_certificate.rho_lower_bounds`; the claim reads it against the
threshold and ties it to the 40-digit constants of :mod:`softmix.numerics.finite_prompt`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath as mpm

from softmix.numerics.memo import remember

from ..api import claim, outcome, part
from ..params import Exact, exact_default
from .finite_prompt import MIXTURE


@dataclass
class RhoBox:
    mixture: dict = field(default_factory=lambda: MIXTURE)
    tilt_box: list[list[Exact]] = field(default_factory=lambda: exact_default([[-1, 1], [-1, 1], [-1, 1]]))
    grid: int = 6
    prec: int = 96


def _certificate(p: RhoBox, power: int):
    from softmix.numerics.rho_certificate import rho_lower_bounds

    key = json.dumps([p.mixture, p.tilt_box, p.grid, p.prec, power], default=str)
    return remember("cert-fp-rho.certificate", key,
                    lambda: rho_lower_bounds(p.mixture, p.tilt_box, p.grid, p.prec, denominator_power=power))


def _probe_rows(B, p: RhoBox, cert) -> list:
    """The probe's ball contains, and three boxes' lower bounds of log rho lie below (at the box centres), the
    40-digit rho of numerics.finite_prompt.finite_prompt_constants_mp (U = V = I, so that a = z); the gradient the
    mean-value form uses against its numerical derivative (:func:`_gradient_row`)."""
    from flint import arb

    from softmix.numerics.finite_prompt import finite_prompt_constants_mp
    from softmix.numerics.mixture import GaussianMixture

    mix = GaussianMixture.from_json_obj(p.mixture, where="cert-fp-rho mixture")
    eye = [[int(i == j) for j in range(mix.dim)] for i in range(mix.dim)]
    rho40 = lambda pt: finite_prompt_constants_mp(mix, eye, eye, [mpm.mpf(x.numerator) / x.denominator for x in pt],
                                                  40)["rho"]
    rows, boxes = [], cert["boxes"]
    worst = min(boxes, key=lambda r: float(r["bound"].mid()))
    with mpm.workdps(40), B.precision(cert["prec"]):
        pt, ball = cert["probe"]
        rows.append({"check": f"the ball of rho at the probe {[str(x) for x in pt]} contains the 40-digit rho",
                     "passed": B.ball_contains(ball, rho40(pt), mpm.mpf(10) ** -35)})
        rows.append(_gradient_row(B, mix, eye, [(Fraction(a) + Fraction(b)) / 2 for a, b in boxes[0]["box"]]))
        for tag, r in (("worst box", worst), ("first box", boxes[0]), ("last box", boxes[-1])):
            c = [(Fraction(a) + Fraction(b)) / 2 for a, b in r["box"]]
            lr = mpm.log(rho40(c))
            rows.append({"check": f"{tag} {[str(x) for x in c]}: lower bound <= the 40-digit log rho at its centre",
                         "passed": B.le(r["bound"], arb(mpm.nstr(lr, 40), "1e-35"))})
    return rows


def _gradient_row(B, mix, eye, c) -> dict:
    """The gradient of log rho that the boxes' mean-value form uses (rho_certificate._LogRho.gradF, a ball) at the
    exact point c (the first box's centre: at the probe a = 0 every rho's gradient vanishes) contains mpmath.diff of
    the 40-digit log rho (a numerical derivative, no gradient formula) known to 1e-35 (5 guard digits).  Caller
    holds workdps(40) and the certificate's precision."""
    from softmix.numerics.finite_prompt import finite_prompt_constants_mp
    from softmix.numerics.rho_certificate import log_rho_gradient

    balls = log_rho_gradient(mix, c)
    x0 = [mpm.mpf(x.numerator) / x.denominator for x in c]
    logrho = lambda *a: mpm.log(finite_prompt_constants_mp(mix, eye, eye, list(a), mpm.mp.dps)["rho"])  # diff's dps
    ref = [mpm.diff(logrho, x0, tuple(int(i == j) for j in range(len(x0)))) for i in range(len(x0))]
    ok = [B.ball_contains(g, r, mpm.mpf(10) ** -35) for g, r in zip(balls, ref)]
    return {"check": f"at {[str(x) for x in c]}: the gradient ball of log rho (the mean-value form's) contains "
                     "mpmath.diff of the 40-digit log rho", "reference": [mpm.nstr(r, 12) for r in ref],
            "passed": False if False in ok else (None if None in ok else True)}


def _strict_row(B, cert) -> dict:
    """The statement's "equality only at a = 0": every box that does not hold a = 0 has a certified lower bound of
    log rho > 0 (the curvature form gives |a|^2 min_b sum_k w_k(b) lambda_min(G_k) > 0 there); a box left
    uncertified is inconclusive (a lower bound <= 0 is no counterexample)."""
    off = [r for r in cert["boxes"] if not all(Fraction(a) <= 0 <= Fraction(b) for a, b in r["box"])]
    with B.precision(cert["prec"]):
        bad = [r["box"] for r in off if B.gt(r["bound"], 0) is not True]
    row = {"check": "every box off a = 0: certified lower bound of log rho > 0 (rho > 1: equality only at a = 0)",
           "passed": None if bad else True, "boxes_off_0": len(off), "uncertified": len(bad)}
    return row if not bad else {**row, "first_uncertified": bad[0], "reason": "strictness off a = 0 not certified",
                                "to_settle": "a finer grid or precision"}


@claim(id="cert-fp-rho", title="Certified rho(a) = M(2a)/M(a)^2 >= 1 over a box of tilts (finite-prompt constants)",
       source="docs/finite-prompt.md (Jensen / convexity of Lambda)", section="certificates", kind="numeric",
       statement="For the default finite-prompt mixture, rho(a) >= 1 for every a in [-1, 1]^3 (equality only at a = 0)",
       assumptions=("weights sum to 1", "some component covariance positive definite (for strictness off 0)"),
       profiles={"full": {"grid": 10}},
       controls={"shifted-threshold": "claim rho(a) >= 1.5 on the same box (which contains a = 0)",
                 "wrong-power": "wrong quantity: rho computed as M(2a)/M(a) (power 1 in the denominator); statement "
                                "rho >= 1 kept: certainly < 1 at a box centre (mixture mean != 0)"},
       configurations_note="certifies the default finite-prompt mixture over a box of tilts (a stated constant); "
                           "rho >= 1 in general is Jensen's inequality",
       independence="derived side: ball-arithmetic enclosure of M(2a)/M(a)^2 over a box; stated side: rho >= 1; "
                    "rigour: "
                    "the probe ball and three boxes' lower bounds against finite_prompt_constants_mp at 40 digits, "
                    "the mean-value form's gradient ball against mpmath.diff of it; "
                    "shared: nothing")
def cert_fp_rho(p: RhoBox, ctx):
    """Verified iff every box has a certified lower bound of log rho >= log threshold (> when the threshold is not
    1); a box that certainly fails, or a probe point where rho is certainly below, refutes; the probe ball or a box's
    lower bound that certainly misses the 40-digit rho of numerics.finite_prompt refutes (not a certificate)."""
    from softmix.numerics import rho_certificate as RC

    try:
        B = RC.require_flint()
    except ModuleNotFoundError as e:
        return outcome(part("certificate", [{"passed": None, "reason": f"python-flint unavailable ({e})"}]))
    wrong_power = ctx.control("wrong-power")
    cert = _certificate(p, 1 if wrong_power else 2)
    thr = Fraction(3, 2) if ctx.control("shifted-threshold") else Fraction(1)
    with B.precision(cert["prec"]):
        logthr = B.to_arb(thr).log()
        ok = all(r["bound"] >= logthr for r in cert["boxes"]) if thr == 1 else \
            all(B.gt(r["bound"], logthr) is True for r in cert["boxes"])
        below = B.lt(cert["probe"][1], thr) is True
        rho_probe = cert["probe"][1].str(20, more=True)
    rows = [{"check": f"every box: certified lower bound of log rho {'>=' if thr == 1 else '>'} log {thr}; at the "
                      f"probe points rho is not certainly below {thr}",
             "passed": True if ok else (False if below else None), "smallest_rho_at_probe_points": rho_probe}]
    if not wrong_power:  # the wrong-power control computes another rho: nothing to tie to the 40-digit constants
        rows += [_strict_row(B, cert)] + _probe_rows(B, p, cert)
    summary = {k: v for k, v in cert.items() if k not in ("boxes", "probe")}
    summary["boxes"] = [{k: v for k, v in r.items() if k != "bound"} for r in cert["boxes"][:12]]
    return outcome(part("certificate", rows, name="certificate"), threshold=str(thr),
                   rho_computed_as=cert["rho_definition"], enclosure=summary)
