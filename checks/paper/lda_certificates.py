"""Ball-arithmetic certificates for Section 3 (Thm 3.5 / Lemma B.26 normal Hessian; Lemma B.32 coercivity).

Each statement is ``quantity > threshold``, decided by a rigorous python-flint computation
(:mod:`softmix.numerics.lda_hessian_certificate`, :mod:`softmix.numerics.lda_coercivity_certificate`)
whose outcome is tri-state: certainly true (``verified``), certainly false (``refuted``), or the balls
overlap (``inconclusive``).  Every ball is also checked against an independent mpmath value: a ball that
certainly misses it is no certificate (``refuted``).  Two kinds of negative control: a *shifted
threshold* (same certificate, remembered in the run's memo) and a *wrong quantity* (the certificate
computed with a plausible mathematical mistake, the statement kept).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import mpmath as mpm
import numpy as np

from softmix.numerics.memo import remember

from .. import configs as C
from ..api import claim, outcome, part
from ..configurations import Draws
from ..params import Exact, exact_default
from .lda import SOURCE, require_positive
from .rows import bound

SECTION = "certificates"


def ball_contains(ball, ref, rad):
    """:func:`softmix.numerics.balls.ball_contains` (imported lazily: python-flint is optional)."""
    from softmix.numerics.balls import ball_contains as contains

    return contains(ball, ref, rad)


def _flint():
    """The ball-arithmetic helpers (python-flint is optional: ModuleNotFoundError without it)."""
    from softmix.numerics import balls

    return balls


def _no_flint(e):
    return part("certificate", [{"passed": None, "reason": f"python-flint unavailable ({e}); install python-flint"}])


def _frac(x) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(str(x))


def _enclosure_part(rows, name):
    """Rows of tri-state enclosures: a ball that certainly misses its value refutes; a partial overlap (a ball
    narrower than the reference's accuracy) is consistent and reported as null under ``contains``."""
    return part("certificate", [{**r, "passed": r["contains"] is not False} for r in rows], name=name,
                rule="each ball contains its independent reference value (False: certainly misses it -> refuted)")


# ---- Theorem 3.5 / Lemma B.26: positive normal Hessian eigenvalues on C1 -------------------------------
@dataclass
class NormalHessian:
    m1: list[Exact] = field(default_factory=lambda: exact_default([1, 0]))
    m_minus1: list[Exact] = field(default_factory=lambda: exact_default([0, 1]))
    pi_plus: Exact = exact_default("0.6")
    Gamma: str = "identity"
    s_scale: Exact = exact_default(1)
    truncation: int = 12
    prec: int = 128

    def __post_init__(self):
        require_positive(self, "truncation", "prec")
        if self.Gamma != "identity" or len(self.m1) != 2 or len(self.m_minus1) != 2:
            raise ValueError("this certificate handles d = 2 and Gamma = identity (configuration C1)")


def _hessian_certificate(p, s_scale, truncation):
    from softmix.numerics.lda_hessian_certificate import normal_hessian_certificate

    key = (tuple(map(_frac, p.m1)), tuple(map(_frac, p.m_minus1)), _frac(p.pi_plus), _frac(s_scale), truncation, p.prec)
    return remember("lda_certificates.normal_hessian", key, lambda: normal_hessian_certificate(
        p.m1, p.m_minus1, p.pi_plus, s_scale, truncation, p.prec))


def _integral_enclosures(p, cert):
    """The six integral balls, at the claim's truncation T and at T = 4 (where the Gaussian tail bound, ~1e-5,
    is what makes them enclosures), against the 40-digit whole-line mpmath values."""
    from softmix.numerics.lda_hessian_certificate import enclosure_rows, hessian_integrals_reference

    key = (tuple(map(_frac, p.m1)), tuple(map(_frac, p.m_minus1)), _frac(p.pi_plus), _frac(p.s_scale))
    refs = remember("lda_certificates.hessian_integrals", key, lambda: hessian_integrals_reference(
        p.m1, p.m_minus1, p.pi_plus, p.s_scale, 40))
    short = _hessian_certificate(p, p.s_scale, 4)
    with _flint().precision(cert["prec"]):
        rows = [{"truncation": str(T), **r} for T, c in ((p.truncation, cert), (4, short))
                for r in enclosure_rows(c["integral_balls"], refs, 40, refs["error"])]
    return _enclosure_part(rows, "integral enclosures"), mpm.nstr(refs["error"], 3)


def _hessian_enclosures(p, cert):
    """The 16 balls of H = E[kappa F F^T] in (w1, w2, b, r) against the same expectation from its definition in the
    original coordinates (numerics.lda_hessian_certificate.hessian_wbr_reference: 2-D Gauss-Hermite, float64),
    taken as a ball of radius 10 x its error estimate: checks the reduction to t = e.X and the rotation back."""
    from softmix.numerics.lda_hessian_certificate import hessian_wbr_reference

    B = _flint()
    Href, err = hessian_wbr_reference(p.m1, p.m_minus1, p.pi_plus, p.s_scale)
    rows = []
    with B.precision(cert["prec"]):
        for i, row in enumerate(cert["hessian_balls"]):
            for j, ball in enumerate(row):
                rows.append({"entry": f"H_wbr[{i}][{j}]", "ball": B.fmt(ball, 15), "reference": repr(float(Href[i, j])),
                             "contains": B.ball_contains(ball, mpm.mpf(float(Href[i, j])), 10 * err)})
    return _enclosure_part(rows, "hessian enclosures")


def _float_spectrum(p, cert):
    """Independent float64 view of the certificate: theta* (the midpoints of its balls) mapped by
    ``numerics.lda.phi`` must be the Bayes point (w*, b*, 0, s* = c w*) of numerics.lda's own Bayes
    coefficients; the Hessian of R(theta) there (``numerics.lda_hessian.hessian_refined``: the quadrature
    risk in attention coordinates, not the certificate's one-dimensional integrals, H_wbr or DC) has five
    zero eigenvalues (the fibre of Phi) and four equal to the certificate's float estimates of the spectrum
    of K; the certified lower bound and the Rayleigh upper bound bracket its smallest non-zero eigenvalue.
    Tolerance 10 x the quadrature error + 1e-9 max|H| (theta* is read to 12 digits)."""
    from flint import arb

    from softmix.numerics import lda as N
    from softmix.numerics.lda_hessian import hessian_refined

    P = N.LDAProblem.from_params({"m1": [str(x) for x in p.m1], "m_1": [str(x) for x in p.m_minus1],
                                  "Gamma": [[1, 0], [0, 1]], "pi_plus": str(p.pi_plus)})
    th = cert["theta_star"]
    mid = lambda s: float(arb(s).mid())
    theta = N.pack_theta([[mid(x) for x in r] for r in th["U11"]], [mid(x) for x in th["u12"]],
                         [mid(x) for x in th["v21"]], mid(th["v22"]))
    w, b = P.bayes()
    target = np.concatenate([w, [b, 0.0], float(p.s_scale) * w])
    zeta = N.phi(P, theta)
    H, gnorm, qerr, n = hessian_refined(P, theta, 48, 200)
    ev = sorted(np.linalg.eigvalsh(H), key=abs)
    tol = 10 * qerr + 1e-9 * float(np.abs(H).max())
    rows = [bound("Phi(theta*) = (w*, b*, 0, c w*) by numerics.lda", float(np.abs(zeta - target).max()),
                  1e-9 * max(1.0, float(np.abs(target).max())), theta=theta.tolist()),
            bound("|grad R(theta*)| (a critical point)", gnorm, tol, nodes=n),
            bound("five zero eigenvalues of the Hessian (the fibre of Phi)", float(abs(ev[4])), tol)]
    est = cert.get("normal_eigenvalues", {}).get("float_estimates")
    if est is not None:  # else no spectrum was certified (theta* not realised, DC DC^T singular): rows above decide
        nz, upper = sorted(ev[5:]), cert["upper"]
        rows += [bound("its four non-zero eigenvalues = the certificate's estimates of spec K",
                       float(np.abs(np.array(nz) - sorted(est)).max()), tol, float64=[float(x) for x in nz],
                       certificate=sorted(est)),
                 bound("certified lower <= smallest non-zero eigenvalue", float(cert["lower"] or 0),
                       float(nz[0]) + tol),
                 bound("smallest non-zero eigenvalue <= Rayleigh upper bound", float(nz[0]) - tol,
                       float(upper.mid()) + float(upper.rad()) if upper is not None else float("inf"))]
    return part("numeric", rows, name="float64 cross-check", rule=_float_spectrum.__doc__)


def draw_regular_point(rng, p: NormalHessian, i):
    """A generic configuration for the certificate (d = 2, Gamma = I): means of unequal norms (ratio >= 1.2,
    so m1 != -m-1 and v22 = -(|m1|^2 - |m-1|^2) b* / (2 |mbar|^2) != 0, a term C1 sets to zero), pi+ in
    [0.3, 0.7] at least 0.05 from 1/2, and s* = c w* with c in [0.5, 1.5], c != 1."""
    m1, mm = C.means(rng, 2, 2, norm_range=(0.5, 2.0))
    for _ in range(1000):
        pi = C.rational(rng, 0.3, 0.7)
        if abs(Fraction(pi) - Fraction(1, 2)) >= Fraction(1, 20):
            break
    return {"m1": m1, "m_minus1": mm, "pi_plus": pi, "s_scale": C.rational(rng, 0.5, 1.5, digits=1, avoid=(1,))}


def _threshold_status(B, cert, thr):
    with B.precision(cert["prec"]):
        if cert["lower"] is not None and cert["lower"] >= thr:
            return True
        if cert["upper"] is not None and B.le(cert["upper"], thr) is True:
            return False
    return None


@claim(id="cert-thm-3.5-normal-hessian", title="Certified positive normal curvature at a regular Bayes point (C1)",
       source=f"{SOURCE}, Thm 3.5, Lemma B.26, Prop B.12, Lemma B.13, Lemma B.14", section=SECTION, kind="numeric",
       statement="On C1 (d=2, m1=(1,0), m-1=(0,1), Gamma=I, pi+=0.6), at theta* in Theta_1^reg with s* = w*, "
                 "the nonzero (normal) eigenvalues of the Hessian of R are > 0, with a certified lower bound",
       assumptions=("m1 != -m-1", "theta* in Theta_1 with s(theta*) != 0", "Gamma = I2 (closed-form orthogonal part)"),
       configurations=Draws(draw_regular_point, quick=1, full=3),
       controls={"shifted-threshold": "claim the smallest normal eigenvalue exceeds the certified bound + 1",
                 "s-star-zero": "wrong quantity: the Hessian at the Bayes point with s* = 0 (gate sigma(s0 + s^T X) "
                                "collapsed to the constant sigma(s0) = pi+, Lemma B.13 second case); threshold 0 kept: "
                                "a normal eigenvalue is exactly 0"},
       independence="derived side: ball-arithmetic (python-flint) enclosure of the normal Hessian; stated side: "
                    "positivity; rigour: its integral balls against 40-digit mpmath Gauss-Legendre over the whole line "
                    "(at T and T = 4), its Hessian balls against E[kappa F F^T] by a 2-D float64 Gauss-Hermite rule in "
                    "the original coordinates; its spectrum against the float64 Hessian of R(theta) in attention "
                    "coordinates (numerics.lda quadrature risk, Phi and Bayes coefficients); shared: nothing")
def cert_normal_hessian(p: NormalHessian, ctx):
    """Verified iff the certified lower bound >= threshold and every integral ball contains its 40-digit value;
    refuted iff a Rayleigh quotient (an upper bound on the smallest normal eigenvalue) is certainly <= threshold,
    or a ball certainly misses its value (an integral, or an entry of H against E[kappa F F^T] in the original
    coordinates)."""
    wrong = ctx.control("s-star-zero")
    try:
        B = _flint()
        cert = _hessian_certificate(p, 0 if wrong else p.s_scale, p.truncation)
    except ModuleNotFoundError as e:
        return _no_flint(e)
    thr = (cert["lower"] or Fraction(0)) + 1 if ctx.control("shifted-threshold") else Fraction(0)
    shown = {k: v for k, v in cert.items() if k not in ("lower", "upper", "integral_balls", "hessian_balls")}
    row = {"statement": f"every normal eigenvalue of the risk Hessian at theta* > {thr}", "threshold": str(thr),
           "s_scale": str(0 if wrong else p.s_scale), "certificate": shown,
           "passed": _threshold_status(B, cert, thr)}
    bound = part("certificate", [row], name="certificate", rule=cert_normal_hessian.__doc__)
    if wrong:  # the wrong-quantity control changes the integrals, not the method: enclosures checked in the claim's run
        return bound
    enclosures, ref_err = _integral_enclosures(p, cert)
    return outcome(bound, enclosures, _hessian_enclosures(p, cert), _float_spectrum(p, cert),
                   reference_error_estimate=ref_err)


# ---- Lemma B.32: coercivity constant C_1 = c0 sqrt(lambda_min(Gamma)) on C2 ----------------------------
@dataclass
class Coercivity:
    d: int = 20
    m1: str = "e1"
    Gamma: str = "identity"
    monotonicity_boxes: int = 8
    random_directions: int = 2
    radii: list[str] = field(default_factory=lambda: ["0.5", "2", "8"])
    softplus_K: int = 9
    softplus_pieces: int = 160
    prec: int = 96

    def __post_init__(self):
        require_positive(self, "d", "monotonicity_boxes", "softplus_K", "softplus_pieces", "prec", "random_directions",
                         allow_zero=("random_directions",))


def _coercivity(p, endpoint, ctx):
    from softmix.numerics.lda_coercivity_certificate import coercivity_certificate

    key = (p.d, p.m1, p.Gamma, p.monotonicity_boxes, p.random_directions, tuple(p.radii), p.softplus_K,
           p.softplus_pieces, p.prec, endpoint)  # one memo per claim run: one seed
    return remember("lda_certificates.coercivity", key, lambda: coercivity_certificate(
        p.d, p.m1, p.Gamma, ctx.stream("directions"), p.random_directions, p.radii, p.monotonicity_boxes,
        p.softplus_K, p.softplus_pieces, p.prec, endpoint))


def _coercivity_rows(cert):
    """What the certificate's flags summarise, decided from its evidence (exact rationals): the monotonicity
    boxes chain from -M' to M' with M'^2 >= M^2 (they cover [-M, M]) and Phi is certainly positive on each;
    g' = Phi proven by SymPy; each summary flag (all boxes certain, all sampled inequalities certified, the
    number of certain counterexamples) equals the count over its rows."""
    mono, samp = cert["monotonicity"], cert["sampled_directions"]
    ends = [(Fraction(b["box"][0]), Fraction(b["box"][1])) for b in mono["boxes"]]
    chained = bool(ends) and all(ends[k][1] == ends[k + 1][0] for k in range(len(ends) - 1))
    covers = chained and ends[0][0] == -ends[-1][1] and ends[-1][1] ** 2 >= Fraction(cert["M^2"])
    positive = all(b["certainly_positive"] is True for b in mono["boxes"])
    rows = samp["rows"]
    flags = (mono["all_certain"] == (covers and positive)
             and samp["all_certain"] == all(r["certified"] for r in rows)
             and samp["n_certain_counterexamples"] == sum(bool(r["counterexample"]) for r in rows))
    return part("certificate", [
        {"check": "the monotonicity boxes cover [-M, M] (chained, symmetric, M'^2 >= M^2)", "passed": covers,
         "boxes": len(ends)},
        {"check": "Phi > 0 certainly on every box", "passed": positive},
        {"check": "g' = Phi (SymPy)", "passed": cert["g_prime_equals_Phi_symbolic"] is True},
        {"check": "the certificate's summary flags = their rows", "passed": flags}],
        name="certificate bookkeeping", rule=_coercivity_rows.__doc__)


@claim(id="cert-lemma-b.32-coercivity",
       title="Certified coercivity constant C1 of the reduced linear logistic risk (C2)",
       source=f"{SOURCE}, Lemma B.32, Lemma B.6", section=SECTION, kind="numeric",
       statement="C2 (d=20, m1=e1=-m-1, Gamma=I, pi+=1/2): M = 1, c0 = g(-1) = phi(1) - Phi(-1), C1 = c0 > 0, "
                 "and L(w) >= C1 ||w|| on sampled directions",
       assumptions=("m1 = -m-1", "Gamma symmetric positive definite"),
       configurations_note="certifies the stated coercivity constant of configuration C2 (a specific constant); the "
                           "random directions are drawn from the run's seed",
       profiles={"full": {"random_directions": 6, "radii": ["0.25", "1", "4", "16"], "softplus_pieces": 640}},
       controls={"shifted-threshold": "claim C1 > c0 + 1e-3 (c0 from mpmath)",
                 "c0-at-plus-M": "wrong quantity: c0 = g(+M) = M Phi(M) + phi(M) (the max of g on [-M, M]); statement "
                                 "kept: L(w) >= C1 ||w|| then fails certainly on a sampled w"},
       independence="derived side: ball-arithmetic enclosure of the reduced risk on boxes; stated side: the coercivity "
                    "constant; rigour: M, c0, C1 against mpmath and the softplus bounds against a float64 quadrature; "
                    "shared: nothing")
def cert_coercivity(p: Coercivity, ctx):
    """Verified iff C1 > threshold certainly and every sampled inequality is certified; refuted iff C1 <= threshold
    certainly or some sampled w has an upper bound of L(w) certainly below C1 ||w||, or a ball certainly misses its
    mpmath value."""
    try:
        B = _flint()
        cert = _coercivity(p, "+M" if ctx.control("c0-at-plus-M") else "-M", ctx)
    except ModuleNotFoundError as e:
        return _no_flint(e)
    thr = Fraction(cert["c0_mpmath"]) + Fraction(1, 1000) if ctx.control("shifted-threshold") else Fraction(0)
    with B.precision(cert["prec"]):
        s = B.gt(cert["C1"], thr)
    status = (True if cert["ok"] else None) if s is True else (False if s is False else None)
    if cert["counterexample"]:
        status = False  # a sampled w with L(w) < C1 ||w|| certainly (upper bound of L below C1 ||w||)
    shown = {k: v for k, v in cert.items() if k not in ("C1", "ok", "counterexample", "enclosures_ok", "enclosures")}
    row = {"statement": f"C1 = c0 sqrt(lambda_min(Gamma)) > {thr}, c0 = min_(|t|<=M) t Phi(t) + phi(t) = g(-M), and "
                        "L(w) >= C1 ||w|| on the sampled directions", "threshold": str(thr), "certificate": shown,
           "passed": status}
    return [part("certificate", [row], name="certificate", rule=cert_coercivity.__doc__),
            _enclosure_part(cert["enclosures"]["rows"], "enclosures"), _coercivity_rows(cert)]
