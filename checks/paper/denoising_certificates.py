"""Ball-arithmetic certificates for Section 4: the linear-attention gap (Thm. 4.1 / Prop. C.6) and
the fixed point and contraction of Prop. 4.3.

Each statement is decided by a rigorous computation (:mod:`softmix.numerics.denoising_certificates`)
whose status is tri-state (certainly true: verified; certainly false: refuted; else inconclusive),
and its balls are checked against independent mpmath values.  Two kinds of negative control:
a *shifted threshold* (the same certificate, a moved statement) and a *wrong quantity* (the
statement fixed, the certified quantity computed with a plausible mistake).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import mpmath as mpm

from softmix.numerics import denoising as ND, denoising_certificates as NC
from softmix.numerics.memo import remember

from .. import configs as C
from ..api import Draws, Part, claim, outcome, part
from ..params import Exact, exact_default
from .denoising_setting import SOURCE


def _certificate(tag: str, key, make):
    """A certificate computed once per claim run (the claim and its controls share it)."""
    return remember(f"denoising_certificates.{tag}", key, make)


def _cert_part(status, **row) -> Part:
    return part("certificate", [{"passed": status, **row}])


def _no_flint(e) -> Part:
    return part("certificate", [{"passed": None, "reason": f"python-flint unavailable ({e}); install python-flint"}])


def _chain(pieces, start, end) -> bool:
    """Whether the intervals ``pieces`` (pairs of decimal strings) run from ``start`` to ``end`` without a gap
    or a fold back.  Each piece is first clipped to [start, end], so a piece past ``end`` (the empty last
    piece [r + eta, 1] when r + eta > 1) is the point [end, end]; a clipped piece whose ends are reversed covers
    nothing and breaks the chain."""
    clip = lambda x: min(max(Fraction(x), start), end)  # noqa: E731
    ends = [(clip(a), clip(b)) for a, b in pieces]
    return (bool(ends) and ends[0][0] == start and ends[-1][1] == end and all(a <= b for a, b in ends)
            and all(ends[k][1] == ends[k + 1][0] for k in range(len(ends) - 1)))


def _u_bookkeeping(lam, power, cert) -> Part:
    """The u_lambda certificate's argument decided from its evidence (exact): the slope is lambda^power; the
    pieces (0, d0], [d0, r - eta], [r - eta, r + eta], [r + eta, 1] chain from 0 to 1 (u >= 1 by tanh < 1), and
    each certified piece's boxes tile it (numerics.balls.boxes_tile);
    on (0, d0] the lemma's inequality lambda^6 d0^2 < 3 (lambda^2 - 1) holds with the certificate's d0."""
    from softmix.numerics import balls as B  # python-flint: present, since the certificate was computed
    l2 = Fraction(str(lam)) ** power
    d0 = Fraction(cert["near_zero"]["interval"][1])
    pieces = [cert["near_zero"]["interval"], cert["H_positive_on"]["interval"],
              cert["H_decreasing_near_root"]["interval"], cert["H_negative_on"]["interval"]]
    covers = [(cert["_covers"]["left"][0], cert["H_positive_on"]),
              (cert["_derivative_cover"][0], cert["H_decreasing_near_root"]),
              (cert["_covers"]["right"][0], cert["H_negative_on"])]
    return part("certificate", [
        {"check": f"slope lambda^{power} = {l2}", "passed": cert["_lam2"] == l2},
        {"check": "the pieces cover (0, 1]", "passed": _chain(pieces, Fraction(0), Fraction(1))},
        {"check": "each certified piece's boxes tile it (no gap, no overlap), if certified",
         "passed": all(B.boxes_tile(boxes, *ev["interval"]) for boxes, ev in covers
                       if ev["status"] is True and Fraction(ev["interval"][0]) < Fraction(ev["interval"][1]))},
        {"check": "near zero: lambda^6 d0^2 < 3 (lambda^2 - 1), d0 > 0",
         "passed": d0 > 0 and l2 ** 3 * d0 * d0 < 3 * (l2 - 1)}], name="certificate bookkeeping",
        rule=_u_bookkeeping.__doc__)


def _contraction_bookkeeping(lam, margin, near_zero, gain, cert) -> Part:
    """The contraction certificate's argument decided from its evidence (exact): the gain is lambda^2 (or the
    control's 2 lambda); the pieces (0, d0] and [d0, 1 + margin] chain with d0 the asked ``near_zero``, the
    second's boxes tiling it; the
    near-zero lemma (tanh x < x) is applied exactly when margin = 0 and the gain is <= 1."""
    from softmix.numerics import balls as B  # python-flint: present, since the certificate was computed
    lam = Fraction(str(lam))
    g = lam * lam if gain == "lambda^2" else 2 * lam
    pieces = [cert["near_zero"]["interval"], cert["compact_piece"]["interval"]]
    return part("certificate", [
        {"check": f"gain {gain} = {g}", "passed": cert["_lam2"] == g},
        {"check": "the pieces cover (0, 1 + margin]",
         "passed": _chain(pieces, Fraction(0), 1 + margin) and Fraction(pieces[0][1]) == Fraction(str(near_zero))},
        {"check": "the compact piece's boxes tile it (no gap, no overlap), if certified and not empty",
         "passed": (cert["compact_piece"]["status"] is not True or Fraction(pieces[1][0]) >= Fraction(pieces[1][1])
                    or B.boxes_tile(cert["_boxes"], *pieces[1]))},
        {"check": "the near-zero lemma applies iff margin = 0 and gain <= 1",
         "passed": cert["near_zero"]["applies"] == (margin == 0 and g <= 1)}], name="certificate bookkeeping",
        rule=_contraction_bookkeeping.__doc__)

# ---- cert-thm-4.1-linear-gap ----------------------------------------------------------------------
@dataclass
class LinearGapParams:
    means: list[list[Exact]] = field(default_factory=lambda: exact_default([[3, 0], [0, 3]]))
    weights: list[Exact] = field(default_factory=lambda: exact_default(["1/2", "1/2"]))
    gamma: Exact = exact_default(1)
    xi: Exact = exact_default(2)
    grid: int = 96
    half_width_sd: Exact = exact_default(6)
    prec: int = 64


def _gap_status(B, cert, thr, mp_value):
    with B.precision(cert["prec"]):
        status = B.gt(cert["_lower"], thr)
        if status is not True:
            status = False if B.le(cert["_upper"], thr) is True else None
        encl = None
        if mp_value is not None:  # rigour: [lower, upper] contains the independent 1-D reduction
            with mpm.workdps(30):
                encl = NC.ball_contains(B.hull(cert["_lower"].lower(), cert["_upper"].upper()), mpm.mpf(mp_value),
                                        mpm.mpf(10) ** -20)
            status = False if encl is False else status
        if not cert["_partition_ok"]:
            status = False  # the box masses do not partition the line: not a certificate
    return status, encl


@claim(id="cert-thm-4.1-linear-gap", title="Certified strict risk gap of linear attention (Fig. 2 setting)",
       source=f"{SOURCE}, Thm 4.1, Prop C.6, Lemma C.7", section="certificates", kind="numeric",
       statement="d=2, m1=(3,0), m2=(0,3), gamma=1, xi=2, pi1=1/2: with A* = M_X (M_X + xi^2 I)^{-1}, "
                 "R(A*) - R(f*) = E||A* Z - f*(Z)||^2 > 0",
       independence="derived side: ball-arithmetic enclosure of the linear-attention excess risk; stated side: a "
                    "strictly positive gap; rigour: the bounds contain the mpmath 1-D reduction; shared: nothing",
       configurations_note="certifies one stated constant (the Fig. 2 setting's risk gap); the general gap is "
                           "thm-4.1 / prop-c.6, decided on drawn tasks",
       assumptions=("xi > 0", "two components with equal norms", "Gamma = gamma^2 I"),
       profiles={"full": {"grid": 192, "prec": 96}},
       controls={"shifted-threshold": "claim the excess risk exceeds 1.5 x its high-precision value",
                 "wiener-denoiser": "wrong quantity: f* taken as the posterior mean of a centred Gaussian with second "
                                    "moment M_X (the Wiener filter, = A* Z); threshold 0 kept: the computed gap is "
                                    "exactly 0"})
def cert_linear_gap(p: LinearGapParams, ctx):
    denoiser = "wiener" if ctx.control("wiener-denoiser") else "bayes"
    args = (p.means, p.weights, p.gamma, p.xi)
    key = (str(args), p.grid, str(p.half_width_sd), p.prec, denoiser)
    try:
        cert = _certificate("linear-gap", key, lambda: NC.linear_gap_certificate(
            *args, grid=p.grid, half_width_sd=p.half_width_sd, prec=p.prec, denoiser=denoiser))
        from softmix.numerics import balls as B
    except ModuleNotFoundError as e:
        return _no_flint(e)
    mp_value = _certificate("linear-gap-1d", str(args), lambda: mpm.nstr(NC.linear_gap_1d(*args), 25))
    thr = Fraction(mp_value) * Fraction(3, 2) if ctx.control("shifted-threshold") else Fraction(0)
    status, encl = _gap_status(B, cert, thr, mp_value if denoiser == "bayes" else None)
    return outcome(_cert_part(status, statement=f"R(A*) - R(f*) > {thr}", threshold=str(thr),
                              mpmath_value_1d_reduction=mp_value if denoiser == "bayes" else None,
                              bounds_contain_mpmath_value=encl,
                              certificate={k: v for k, v in cert.items() if not k.startswith("_")},
                              rule="verified iff the certified lower bound is certainly > threshold and [lower, upper] "
                                   "contains the 25-digit value of the independent 1-D reduction; refuted iff the "
                                   "certified upper bound is certainly <= threshold or the bounds exclude that value"))


# ---- cert-prop-4.3-u-lambda -----------------------------------------------------------------------
@dataclass
class ULambdaParams:
    """``lam`` is lambda (a Python keyword); ``claimed``: an interval claimed for u_lambda (None: (0, 1))."""
    lam: Exact = exact_default("6/5")
    claimed: list[Exact] | None = None
    n_init: int = 8
    prec: int = 128


def _draw_u_lambda(rng, p, i):
    """A drawn lambda > 1 (away from the default 1.2), against the general claim u_lambda in (0, 1)."""
    return {"lam": C.rational(rng, 1.05, 2.5, 2, avoid=(1.2,)), "claimed": None}


def _u_cert(p: ULambdaParams, power: int = 2):
    return _certificate("u-lambda", (str(p.lam), p.prec, p.n_init, power),
                        lambda: NC.u_lambda_certificate(p.lam, p.prec, p.n_init, power))


def _u_rigour(p: ULambdaParams, cert) -> tuple:
    """The enclosure contains numerics' bisection root; the cover boxes contain H, and near the root H' (mpmath)."""
    from softmix.numerics import balls as B

    r = ND.u_lambda(Fraction(str(p.lam)), 50)
    with B.precision(int(cert["prec"])), mpm.workdps(60):
        root = NC.ball_contains(B.hull(cert["_lo"], cert["_hi"]), r["u"], r["width"])
    H_mp = lambda l2, u: mpm.tanh(l2 * u) - u
    dH_mp = lambda l2, u: l2 * (1 - mpm.tanh(l2 * u) ** 2) - 1
    covers = [(side, bx, sign, H_mp) for side, (bx, sign) in cert["_covers"].items()]
    covers.append(("near the root (H')", *cert["_derivative_cover"], dH_mp))
    boxes = [{"cover": side, **x} for side, bx, sign, fn in covers
             for x in NC.box_bounds_contain(bx, sign, fn, int(cert["prec"]), cert["_lam2"])]
    return root, boxes


@claim(id="cert-prop-4.3-u-lambda", title="Certified enclosure and uniqueness of the clustering fixed point u_lambda",
       source=f"{SOURCE}, Prop 4.3, App. C.4", section="certificates", kind="numeric",
       statement="For lambda > 1 (default lambda = 1.2, lambda^2 = 1.44) u = tanh(lambda^2 u) has a unique positive "
                 "root u_lambda, and u_lambda in (0, 1); a certified enclosure of width ~2^-99 is reported",
       independence="derived side: ball sign certificates of tanh(lambda^2 u) - u around an enclosure; stated side: a "
                    "unique positive fixed point; rigour: the enclosure contains numerics' 60-digit bisection root and "
                    "the cover boxes contain mpmath values; shared: nothing",
       assumptions=("lambda > 1",),
       controls={"shifted-enclosure": "claim u_lambda lies in an interval of width 2e-6 centred 1e-3 above it",
                 "lambda-not-squared": "wrong quantity: the root of u = tanh(lambda u) (lambda for lambda^2), claimed "
                                       "in the reported enclosure of u_lambda widened by 2^-40"},
       configurations=Draws(_draw_u_lambda))
def cert_u_lambda(p: ULambdaParams, ctx):
    try:
        cert = _u_cert(p)
        a, b = (Fraction(0), Fraction(1)) if p.claimed is None else (Fraction(p.claimed[0]), Fraction(p.claimed[1]))
        if ctx.control("shifted-enclosure"):
            mid = (cert["_lo"] + cert["_hi"]) / 2 + Fraction(1, 1000)
            a, b = mid - Fraction(1, 10 ** 6), mid + Fraction(1, 10 ** 6)
        wrong = ctx.control("lambda-not-squared")
        if wrong:  # the enclosure of the right certificate, widened; the quantity solved with lambda
            a, b = cert["_lo"] - Fraction(1, 2 ** 40), cert["_hi"] + Fraction(1, 2 ** 40)
            cert = _u_cert(p, power=1)
        root, boxes = (None, []) if wrong else _u_rigour(p, cert)
    except ModuleNotFoundError as e:
        return _no_flint(e)
    status = None
    if cert["uniqueness_and_existence_certified"]:
        inside, outside = a < cert["_lo"] and cert["_hi"] < b, cert["_hi"] < a or b < cert["_lo"]
        status = True if inside else (False if outside else None)
    if False in [root] + [x["contains_f_at_ends_and_midpoint"] for x in boxes]:
        status = False
    main = _cert_part(status, statement=f"u = tanh(lambda^2 u) has exactly one positive root u_lambda, and u_lambda "
                                        f"in ({a}, {b})", claimed_interval=[str(a), str(b)],
                      enclosure_contains_bisection_root=root, box_bounds_contain_H_and_dH=boxes,
                      certificate={k: v for k, v in cert.items() if not k.startswith("_")})
    return [main, _u_bookkeeping(p.lam, 1 if wrong else 2, cert)]


# ---- cert-prop-4.3-contraction --------------------------------------------------------------------
@dataclass
class ContractionParams:
    """``lam`` is lambda (a Python keyword)."""
    lam: Exact = exact_default(1)
    near_zero: Exact = exact_default("1/8")
    n_init: int = 8
    max_depth: int = 30
    prec: int = 96


def _draw_contraction(rng, p, i):
    """A drawn lambda in [0.55, 0.99]: there the ``slope-2-lambda`` control (gain 2 lambda > 1) stays a false
    statement (for lambda <= 1/2 the map u -> tanh(2 lambda u) contracts too)."""
    return {"lam": C.rational(rng, 0.55, 0.99, 2)}


@claim(id="cert-prop-4.3-contraction", title="Certified contraction tanh(lambda^2 u) < u on (0, inf) for lambda <= 1",
       source=f"{SOURCE}, Prop 4.3 (weak separation, including the threshold), App. C.4", section="certificates",
       kind="numeric",
       statement="For lambda <= 1 (default lambda = 1, the tangent threshold): tanh(lambda^2 u) < u for all u > 0",
       independence="derived side: ball bisection of tanh(lambda^2 u) - u on (0, oo); stated side: contraction for "
                    "lambda <= 1; rigour: the cover boxes contain mpmath values; shared: nothing",
       assumptions=("lambda <= 1",),
       controls={"shifted-threshold": "claim tanh(u) < u - 1e-3 for all u > 0 (fails near 0)",
                 "above-threshold": "the same statement at lambda = 1.05 > 1 (fails on (0, u_lambda))",
                 "slope-2-lambda": "wrong quantity: lambda^2 computed as 2 lambda (the map u -> tanh(2u) at "
                                   "lambda = 1), statement and margin 0 kept"},
       configurations=Draws(_draw_contraction))
def cert_contraction(p: ContractionParams, ctx):
    margin = Fraction(1, 1000) if ctx.control("shifted-threshold") else Fraction(0)
    lam = "1.05" if ctx.control("above-threshold") else p.lam
    gain = "2*lambda" if ctx.control("slope-2-lambda") else "lambda^2"
    key = (str(lam), str(margin), str(p.near_zero), p.prec, p.n_init, p.max_depth, gain)
    try:
        cert = _certificate("contraction", key, lambda: NC.contraction_certificate(
            lam, margin, p.near_zero, p.prec, p.n_init, p.max_depth, gain))
        mg = cert["_margin"]
        f_mp = lambda l2, u: mpm.tanh(l2 * u) - u + mpm.mpf(mg.numerator) / mg.denominator
        boxes = NC.box_bounds_contain(cert["_boxes"], -1, f_mp, int(cert["prec"]), cert["_lam2"])
    except ModuleNotFoundError as e:
        return _no_flint(e)
    status = False if False in [x["contains_f_at_ends_and_midpoint"] for x in boxes] else cert["status"]
    main = _cert_part(status, statement=f"tanh(lambda^2 u) < u - {margin} for every u > 0 (lambda = {lam})",
                      gain_computed_as=gain, box_bounds_contain_f=boxes,
                      certificate={k: v for k, v in cert.items() if not k.startswith("_")})
    return [main, _contraction_bookkeeping(lam, margin, p.near_zero, gain, cert)]
