"""Section 3 / Appendix B claims: attention-based LDA.

Symbolic claims: SymPy derives the object (attention output from the CGF of the degenerate token
mixture; gradients / Hessians by differentiation) and Derivation.decide compares with the paper's
stated formula.  Numeric claims use projected Gauss-Hermite quadrature (numerics.lda), float64 or
mpmath; every decision rule is fixed below before any number is computed.  Negative controls run
the same code with a deliberately wrong variant of the statement.
"""
from __future__ import annotations

import functools
import math
import time
from fractions import Fraction

import mpmath as mpm
import numpy as np
import sympy as sp

from softmix.numerics import lda as N
from softmix.numerics.errors import InputError
from softmix.numerics.precision import workdps
from softmix.theory import lda as T

from .. import configs as C
from ..configs import generic
from ..api import decide
from ..params import register_shape
from ..registry import Claim, Control, Outcome, register
from ..rules import residual_test

SOURCE = "Gabet-Boursier-Boyer 2026"
SEC = "lda"


def _prob(params, key="lda"):
    return N.LDAProblem.from_params(params.get(key, N.C1))


def _Rat(f):
    return sp.Rational(f.numerator, f.denominator)


def _sym_prob(P):
    return (sp.Matrix([_Rat(x) for x in P.m1]), sp.Matrix([_Rat(x) for x in P.m_1]),
            sp.Matrix([[_Rat(x) for x in r] for r in P.Gamma]), _Rat(P.pi))


def _decide_all(derivs, ctx):
    """(all proven, any refuted, rows) from the engine's one derivation-list helper."""
    sym = decide(derivs, ctx)
    return sym.verdict == "verified" or not derivs, sym.verdict == "refuted", sym.rows


def _sym_outcome(derivs, ctx, extra=None):
    ok, ref, rows = _decide_all(derivs, ctx)
    ev = {"symbolic": rows, **(extra or {})}
    if ref:
        return Outcome("refuted", ev)
    if ok:
        return Outcome("verified", ev)
    ev["to_settle"] = "an exact simplification of derived - stated (larger CAS budget)"
    return Outcome("inconclusive", ev)


def _f(x, k=12):
    return mpm.nstr(x, k) if isinstance(x, mpm.mpf) else float(x)


def draw_lda(rng, params, i, key="lda"):
    """Drawn LDA configuration (issue 11), same dimension as the given one: pi_+ away from 1/2,
    means of unequal norms (never m1 = -m_-1), non-isotropic full-rank Gamma with non-zero
    off-diagonal entries -- none of the coincidences of the paper's C1 (equal norms, Gamma = I)."""
    base = params.get(key, N.C1)
    d = len(base["m1"])
    # keep the classes moderately separated (Mahalanobis distance in [0.7, 2.2], Gamma's smallest
    # eigenvalue >= 0.3) so that the fixed quadrature rules of the checks converge: a drawn
    # configuration must be decidable, not merely generic
    for _ in range(1000):
        m = C.means(rng, 2, d, norm_range=(0.4, 1.5))
        G = C.spd(rng, d)
        Gf = np.array([[float(x) for x in r] for r in G])
        dm = np.array([float(a) - float(b) for a, b in zip(m[0], m[1])])
        maha = float(np.sqrt(dm @ np.linalg.solve(Gf, dm)))
        if np.linalg.eigvalsh(Gf).min() >= 0.3 and 0.7 <= maha <= 2.2:
            break
    return {key: {"m1": m[0], "m_1": m[1], "Gamma": G, "pi_plus": C.weights(rng, 2, away=0.15)[0]}}


def draw_lda_symmetric(rng, params, i, key="lda", balanced=False, max_d=3):
    """Drawn configuration generic within the symmetry m_-1 = -m1 (issue 11): m1 with no zero entry,
    non-isotropic full-rank Gamma with non-zero off-diagonal entries (smallest eigenvalue >= 0.3,
    Mahalanobis norm (m1^T Gamma^-1 m1)^(1/2) in [0.35, 1.1] as draw_lda), pi_+ away from 1/2 unless
    ``balanced`` (then pi_+ = 1/2, the symmetric balanced setting).  Dimension: the given one, capped
    at ``max_d`` (the paper's 20-dimensional C2 would make the checks' quadratures too expensive)."""
    base = params.get(key, N.C1)
    d = min(len(base["m1"]), int(max_d))
    for _ in range(1000):
        m = C.vector(rng, d, norm_range=(0.4, 1.5))
        G = C.spd(rng, d)
        Gf = np.array([[float(x) for x in r] for r in G])
        mf = np.array([float(x) for x in m])
        maha = float(np.sqrt(mf @ np.linalg.solve(Gf, mf)))
        if np.linalg.eigvalsh(Gf).min() >= 0.3 and 0.35 <= maha <= 1.1:
            break
    neg = [x[1:] if x.startswith("-") else "-" + x for x in m]
    pi = "0.5" if balanced else C.weights(rng, 2, away=0.15)[0]
    return {key: {"m1": m, "m_1": neg, "Gamma": G, "pi_plus": pi}}


def start_check(P, theta, kind: str, seed: int = 0) -> dict:
    """Check an experiment's starting point, not only its rate (issue 11).

    kind = "theta1": f_theta = f* (Bayes log-odds from the Gaussian densities, computed here with
    scipy, not from the problem's Bayes coefficients) at 16 sampled x, r = 0 and s != 0;
    "theta2": f_theta = f* and s = 0; "krylov" (fig-5 / thm-3.6 starts): blocks U11 = 0, u12 = 0,
    v22 = 0, v21 != 0, and w = 0, s = 0 in effective coordinates; "gaussian" (fig-4): every
    entry non-zero with sample mean and variance of a standard normal (|mean| <= 5/sqrt(n),
    variance in [1/3, 3])."""
    from scipy.stats import multivariate_normal as mvn

    d = P.d
    th = np.asarray(theta, float)
    z = N.phi(P, th)
    out = {"kind": kind}
    ok = True
    if kind in ("theta1", "theta2"):
        m1, m_1, G, _L, pi, _s0 = P.arrays()
        X = np.random.default_rng(seed).standard_normal((16, d)) * 2 + (m1 + m_1) / 2
        bayes = (np.log(pi) - np.log(1 - pi) + mvn(m1, G).logpdf(X) - mvn(m_1, G).logpdf(X))
        f = N.f_theta_batch(P, th, X)
        err = float(np.max(np.abs(f - bayes)))
        tol = 1e-8 * max(1.0, float(np.max(np.abs(bayes))))
        out.update({"max_abs_f_minus_bayes": err, "tolerance": tol})
        ok &= err <= tol
        if kind == "theta1":
            out.update({"r": float(z[d + 1]), "s_norm": float(np.linalg.norm(z[d + 2:]))})
            ok &= abs(z[d + 1]) <= 1e-10 and np.linalg.norm(z[d + 2:]) > 1e-8
        else:
            out["s_norm"] = float(np.linalg.norm(z[d + 2:]))
            ok &= np.linalg.norm(z[d + 2:]) <= 1e-10
    elif kind == "krylov":
        U, u, v, v22 = N.unpack_theta(th, d)
        out.update({"U11_max": float(np.max(np.abs(U))), "u12_max": float(np.max(np.abs(u))), "v22": float(v22),
                    "v21_norm": float(np.linalg.norm(v)), "w_norm": float(np.linalg.norm(z[:d])),
                    "s_norm": float(np.linalg.norm(z[d + 2:]))})
        ok &= (out["U11_max"] == 0 and out["u12_max"] == 0 and v22 == 0 and out["v21_norm"] > 0
               and out["w_norm"] == 0 and out["s_norm"] == 0)
    elif kind == "gaussian":
        n = th.size
        out.update({"mean": float(th.mean()), "variance": float(th.var()), "zeros": int(np.sum(th == 0))})
        ok &= out["zeros"] == 0 and abs(out["mean"]) <= 5 / np.sqrt(n) and 1 / 3 <= out["variance"] <= 3
    else:
        raise ValueError(kind)
    out["passed"] = bool(ok)
    return out


#: why a claim of this module draws no configuration (issue 11): the SymPy derivations below keep every
#: parameter a symbol (only the dimension sym_dim is fixed), so no numeric configuration is involved
_SYMBOLIC_NOTES = {
    "lemma-b.1": "symbolic in general parameters: m1, m_-1, a symmetric Gamma, pi_+, every block of U and V and the "
                 "query (x, y) are symbols (the proof covers every configuration of dimension sym_dim, and d = 1)",
    "eq-6-7": "symbolic in general parameters: m1, m_-1, a symmetric Gamma, pi_+, theta and x are symbols at the "
              "statement's query (x, 0) (the proof covers every configuration of dimension sym_dim)",
    "prop-b.2": "symbolic in general parameters: m1, m_-1, pi_+, x and the precision matrix Gamma^-1 (a symmetric "
                "matrix of symbols) (the proof covers every configuration of dimension sym_dim)",
    "lemma-b.8": "symbolic in general parameters: m1, m_-1, a symmetric Gamma, pi_+, theta, the direction h and x "
                 "are symbols (the proof covers every configuration of dimension sym_dim: 1 in quick, 2 in full)",
    "lemma-b.9": "symbolic at the integrand level in general symbols (w, b, r, s, s0, x and eta free; the Lemma B.7 "
                 "step in scalars t, eta) (the proof covers every configuration of dimension sym_dim)",
    "lemma-b.10": "symbolic in general parameters: m1, m_-1, a symmetric Gamma, pi_+, theta, x and eta are symbols "
                  "(the proof covers every configuration of dimension sym_dim: 1 in quick, where a transpose is "
                  "invisible, 2 in full; the controls add a d = 2 random-point search)",
    "prop-b.12": "symbolic in general symbols at a general point (w*, b*, 0, s) of E1 (w*, b*, s, s0 and x free; "
                 "r = 0 is the statement's E1) (the proof covers every configuration of dimension sym_dim)",
    "lemma-b.14": "symbolic in general parameters: m1, m_-1, a symmetric Gamma, pi_+, theta and the direction are "
                  "symbols (the proof covers every configuration of dimension sym_dim)",
}
LDA_DEFAULT = {"lda": N.C1}
LDA_SYM = {"lda": N.C2}


#: what each side of the decision shares (softmix show); a claim's own line wins over checks.paper.independence:
#: the implementation checks added for issue 11 are listed after the table's text
_INDEPENDENCE = {
    "lemma-b.3":
        "derived side: f_theta from the attention parametrisation at the constructed theta*; stated side: the "
        "Bayes score w*^T x + b*; shared: nothing; numeric constructions (construct_theta1, construct_theta2, "
        "theta2_mp): f_theta through Phi against the log-odds of the class densities by scipy, shared: "
        "nothing",
    "lemma-b.4":
        "derived side: risks of perturbed predictors by quadrature; stated side: the Bayes score as "
        "minimiser; shared: the quadrature rule; R* itself against tanh-sinh integrals of its definition (w*, "
        "b* solved in mpmath), shared: nothing",
    "lemma-b.13":
        "derived side: eigenvalues of the quadrature Hessian at the Bayes point; stated side: nullity d or "
        "d+1; shared: nothing; the projected Gauss-Hermite rule against the full tensor rule, shared: the "
        "integrand code",
}


# an LDA problem given in --config is checked as numerics will take it (Gamma positive definite, pi_plus in
# (0, 1), m1 != m_1) before anything runs, wherever it appears (lda, problem, extra_configs entries)
register_shape(("m1", "m_1", "Gamma", "pi_plus"), lambda v, where: N.LDAProblem.from_params(v, where))


def reg(id, title, source, statement, check, controls, kind="numeric", defaults=None, profiles=None,
        assumptions=(), derivations=None, configurations_note=""):
    register(Claim(id=id, title=title, source=f"{SOURCE}, {source}", statement=statement, section=SEC,
                   check=check, assumptions=tuple(assumptions), defaults=dict(defaults or LDA_DEFAULT),
                   profiles=profiles or {}, controls=tuple(Control(a, b) for a, b in controls),
                   derivations=derivations, kind=kind,
                   configurations_note=configurations_note or _SYMBOLIC_NOTES.get(id, ""),
                   independence=_INDEPENDENCE.get(id, "")))


# ---- symbolic claims ----------------------------------------------------------------------------
def _chk_b1(p, ctx):
    v = ctx.variant
    ds = [T.lemma_b1_derivation(p["sym_dim"], v)]
    if v is None and p.get("also_d1"):
        ds.insert(0, T.lemma_b1_derivation(1))
    return _sym_outcome(ds, ctx, {"transposes": "s(x,y) = U11^T x + y u21 and t = u12^T x + y u22 follow from "
                                                "z^T U^T z' with U^T = [[U11,u12],[u21^T,u22]]; derived and stated agree"})


reg("lemma-b.1", "Attention on the LDA token law is a sigmoid-gated affine map", "Lemma B.1",
    "T_{U,V}[mu_LDA](x,y) = V (Gamma(U11^T x + y u21) + (1-alpha) m_-1 + alpha m_1 ; 2 alpha - 1), "
    "alpha = sigma(log(pi/(1-pi)) + 2(u12^T x + y u22) + <U11^T x + y u21, m1 - m_-1>)",
    _chk_b1, [("untransposed-U11", "U11 x instead of U11^T x in the gate and the mean"),
              ("dropped-2", "factor 2 in front of t(x, y) dropped")], kind="symbolic",
    defaults={"sym_dim": 2, "also_d1": True}, profiles={"full": {"sym_dim": 3}},
    assumptions=("degenerate token covariance blockdiag(Gamma, 0)", "block convention (12)"),
    derivations=lambda: [T.lemma_b1_derivation(2)])


def _chk_67(p, ctx):
    return _sym_outcome([T.eq67_derivation(p["sym_dim"], ctx.variant)], ctx)


reg("eq-6-7", "Last output coordinate at query (x,0) is w^T x + b + r sigma(s0 + s^T x)", "eqs. (6)-(7)",
    "f_theta(x) = w^T x + b + r sigma(s0 + s^T x), w = U11 Gamma v21, b = v21^T m_-1 - v22, r = v21^T dm + 2 v22, "
    "s = 2 u12 + U11 dm, s0 = log(pi/(1-pi))", _chk_67,
    [("transposed-w", "w = U11^T Gamma v21"), ("transposed-s", "s = 2 u12 + U11^T dm")], kind="symbolic",
    defaults={"sym_dim": 2}, profiles={"full": {"sym_dim": 3}}, derivations=lambda: [T.eq67_derivation(2)])


def _chk_b2(p, ctx):
    return _sym_outcome([T.prop_b2_derivation(p["sym_dim"], ctx.variant)], ctx)


reg("prop-b.2", "Bayes score of LDA is affine (eq. (5))", "Prop. B.2 / eq. (5)",
    "eta(x) = sigma(w*^T x + b*), w* = Gamma^-1 dm, b* = -(m1^T G^-1 m1 - m_-1^T G^-1 m_-1)/2 + log(pi/(1-pi))",
    _chk_b2, [("dropped-half", "b* without the factor 1/2"), ("flipped-sign", "w* replaced by -w*")],
    kind="symbolic", defaults={"sym_dim": 2}, profiles={"full": {"sym_dim": 3}},
    derivations=lambda: [T.prop_b2_derivation(2)])


B3_CASES = [N.C1,  # case 1
            {"m1": [1, 0], "m_1": [0, 1], "Gamma": [[1, 0], [0, 1]], "pi_plus": "0.5"},  # 2(a), b* = 0
            {"m1": [2, 0], "m_1": [0, 1], "Gamma": [[2, 1], [1, 3]], "pi_plus": "0.5"},  # 2(a), b* != 0
            {"m1": [1, 2], "m_1": [-1, -2], "Gamma": [[2, 1], [1, 3]], "pi_plus": "0.5"},  # 2(b)
            {"m1": ["0.5", 1, 0], "m_1": [0, -1, 2], "Gamma": [[3, 1, 0], [1, 2, 0], [0, 0, 1]], "pi_plus": "0.3"}]


#: r(theta*) asked of numerics.lda_landscape.theta2_mp where it is free (pi_+ = 1/2): not 1, its default
R_TARGET = Fraction(-7, 4)


def numeric_constructions(P, dps=30):
    """The numeric constructions of Bayes-realising points (Lemma B.3, Table 3) decided on one configuration.

    * numerics.lda.construct_theta1 (unless m1 = -m_-1 with pi_+ != 1/2, where no r = 0 point has b = b*):
      start_check 'theta1' -- f_theta = the log-odds of the class densities (scipy) at 16 points within
      1e-8 max(1, |f*|), r = 0, s != 0;
    * numerics.lda.construct_theta2 (pi_+ != 1/2): start_check 'theta2' (f_theta = f*, s = 0) and r != 0;
    * numerics.lda_landscape.theta2_mp at ``dps`` digits (both branches; raises ValueError exactly in the
      symmetric balanced case): s = 0, w = w*, b + r sigma(s0) = b* with residuals <= 10^(10-dps) max(1, |.|),
      start_check 'theta2' on its float64 value, and r = R_TARGET when pi_+ = 1/2 (where r is free), r != 0
      otherwise;
    * LDAProblem.to_params: the echoed configuration parses back to the same problem (exact Fractions).
    Returns (rows, all passed)."""
    from softmix.numerics import lda_landscape as LL

    d, rows = P.d, {}
    rows["to_params_round_trip"] = {"passed": bool(N.LDAProblem.from_params(P.to_params()) == P)}
    if not (P.symmetric and not P.balanced):
        th = N.construct_theta1(P)
        rows["construct_theta1"] = start_check(P, th, "theta1")
    if not P.balanced:
        th = N.construct_theta2(P)
        st = start_check(P, th, "theta2")
        st["r"] = float(N.phi(P, th)[d + 1])
        st["passed"] = bool(st["passed"] and abs(st["r"]) > 1e-8)
        rows["construct_theta2"] = st
    if P.balanced and P.symmetric:
        try:
            LL.theta2_mp(P, R_TARGET, dps)
            rows["theta2_mp"] = {"passed": False, "reason": "no ValueError in the symmetric balanced case"}
        except ValueError as e:
            rows["theta2_mp"] = {"passed": True, "raised": str(e)}
    else:
        th = LL.theta2_mp(P, R_TARGET, dps)
        with workdps(dps):
            z = N.phi(P, th, True)
            ws, bs = P.bayes(True)
            r = z[d + 1]
            pi = mpm.mpf(P.pi.numerator) / P.pi.denominator  # sigma(s0) = pi_+ exactly
            res = max([abs(x) for x in z[d + 2:]] + [abs(a - b) for a, b in zip(z[:d], ws)] + [abs(z[d] + r * pi - bs)])
            on_E2 = residual_test(res, dps, max([abs(x) for x in z]))
            r_ok = (abs(r - _Rat_mp(R_TARGET)) <= mpm.mpf(10) ** (10 - dps) * max(1, abs(r))) if P.balanced \
                else abs(r) > mpm.mpf(10) ** (10 - dps)
        st = start_check(P, np.array([float(x) for x in th]), "theta2")
        rows["theta2_mp"] = {"on_E2": on_E2, "r": mpm.nstr(r, 15), "r_target": str(R_TARGET) if P.balanced else None,
                             "r_ok": bool(r_ok), "start_check": st,
                             "passed": bool(on_E2["passed"] and r_ok and st["passed"])}
    return rows, all(v["passed"] for v in rows.values())


def _Rat_mp(f):
    return mpm.mpf(f.numerator) / f.denominator


@generic(draw_lda)
def _chk_b3(p, ctx):
    cfgs = [p["lda"]] + (B3_CASES if p.get("all_cases", True) else [])
    ds, cases, num_ok = [], [], True
    for c in cfgs:
        P = N.LDAProblem.from_params(c)
        D, label, theta = T.lemma_b3_derivation(*_sym_prob(P), variant=ctx.variant)
        ds.append(D)
        rows, ok = numeric_constructions(P)
        num_ok &= ok
        cases.append({"config": P.to_params(), "case": label, "theta": sp.sstr(theta), "numeric_constructions": rows})
    out = _sym_outcome(ds, ctx, {"cases": cases, "numeric_rule": numeric_constructions.__doc__.split("Returns")[0].strip()})
    if not num_ok:
        out.verdict = "refuted"
    return out


reg("lemma-b.3", "A single head realises the Bayes score (explicit constructions)", "Lemma B.3",
    "For every LDA configuration there is theta* with f_theta* = f* (cases pi != 1/2; pi = 1/2 with m1 != -m_-1, "
    "b* = 0 or not; symmetric balanced)", _chk_b3,
    [("no-division", "case-1 v22 not divided by (2 pi - 1); case-2 U11 not normalised by ||a||^2")],
    kind="symbolic", defaults={"lda": N.C1, "all_cases": True})


def _chk_b8(p, ctx):
    """Decides the lemma's content (Df as printed, D^2 f with the cross term doubled); the printed
    D^2 display is a typo, recorded as a finding and refuted separately by the 'as-printed' control."""
    ds = T.lemma_b8_derivations(p["sym_dim"], ctx.variant)
    if ctx.variant:
        ds = [ds[2]]
    ok, ref, rows = _decide_all(ds, ctx)
    ev = {"symbolic": rows}
    if ctx.variant:
        return Outcome("refuted" if ref else "verified" if ok else "inconclusive", ev)
    content = [rows[0], rows[2], rows[3]]  # rows[3]: derived - printed is exactly the missing cross term
    if rows[1]["status"] == "refuted":
        ev["findings"] = [{"kind": "typo (coefficient)", "where": "Lemma B.8, display of D^2 f_theta[h,h]",
                           "detail": "the cross term (dv21^T dm + 2 dv22) sigma'(z)(2 du12 + dU11 dm)^T x must carry a "
                                     "factor 2 (d^2/deps^2 of r(eps) sigma(z(eps)) gives 2 r' sigma' z'); the printed "
                                     "first variation is correct",
                           "counterexample": rows[1].get("counterexample"),
                           "impact": "none on the results: D^2 f enters only multiplied by sigma(f)-eta, which vanishes "
                                     "at Bayes points (Prop. B.12)"}]
    if any(r["status"] == "refuted" for r in content):
        return Outcome("refuted", ev)
    return Outcome("verified" if all(r["status"] == "proven" for r in content) else "inconclusive", ev)


reg("lemma-b.8", "First and second variations of f_theta", "Lemma B.8",
    "Df_theta[h] as displayed; D^2 f_theta[h,h] as displayed up to a typo (the cross term carries a factor 2)", _chk_b8,
    [("dropped-2", "corrected D^2 with the bilinear term 2 dv^T Gamma dU^T x halved"),
     ("as-printed", "the printed D^2 display (cross term once)")], kind="symbolic",
    defaults={"sym_dim": 1}, profiles={"full": {"sym_dim": 2}}, derivations=lambda: T.lemma_b8_derivations(1))


def _chk_b9(p, ctx):
    return _sym_outcome([T.lemma_b7_derivation("flipped-sign" if ctx.variant == "flipped-sign" else None),
                         T.lemma_b9_derivation(p["sym_dim"],
                                               "dropped-factor" if ctx.variant == "dropped-factor" else None)], ctx)


reg("lemma-b.9", "Gradient of the effective risk", "Lemmas B.7 and B.9",
    "grad R~(zeta) = E[(sigma(g_zeta(X)) - eta(X)) grad g_zeta(X)] with the four displayed blocks", _chk_b9,
    [("dropped-factor", "sigma(1-sigma) replaced by sigma in the s-block"),
     ("flipped-sign", "E[l'|X] = eta - sigma(t)")], kind="symbolic", defaults={"sym_dim": 2},
    derivations=lambda: [T.lemma_b7_derivation(), T.lemma_b9_derivation(2)])


def _chk_b10(p, ctx):
    ds = T.lemma_b10_derivations(p["sym_dim"], ctx.variant)
    if ctx.variant or (p["sym_dim"] < 2 and p.get("d2_search", True)):
        # transposes only show for d >= 2: random-point search (no proof) at d = 2 as well
        extra = T.lemma_b10_derivations(2, ctx.variant)
        rows = []
        for D in extra:
            ce = D.counterexample(seed=ctx.int_seed("b10", D.name) % 10**6)
            tol = sp.Float(10) ** (5 - 30) * ce["scale"]
            rows.append({"derivation": D.name, "max_residual_at_random_points": f"{float(ce['residual']):.3e}",
                         "status": "refuted" if ce["residual"] > tol else "no counterexample at 8 random points"})
            if ce["residual"] > tol:
                return Outcome("refuted", {"symbolic_d2_search": rows, "counterexample": ce["point"]})
        if ctx.variant:
            ds = []
    ev = {"orientation": "grad_U11 of w^T x = x^T U11 Gamma v21 is x (Gamma v21)^T; the paper's X (Gamma^T v21)^T "
                         "is the same since Gamma is symmetric; eq. (7) w = U11 Gamma v21 and Lemma B.3's "
                         "v21^T Gamma U11^T x agree"}
    return _sym_outcome(ds, ctx, ev)


reg("lemma-b.10", "Explicit gradients of R in attention coordinates", "Lemma B.10",
    "grad_U11 R = E[(sigma(f)-eta)(X (Gamma^T v21)^T + r sigma' X dm^T)], grad_u12 = 2 r E[...sigma' X], ...; "
    "equivalently DPhi^* grad R~", _chk_b10,
    [("untransposed", "U11^T inserted: X (Gamma U11^T v21)^T"), ("flipped-sign", "sign of the v22 gradient flipped")],
    kind="symbolic", defaults={"sym_dim": 2}, profiles={"quick": {"sym_dim": 1}},
    derivations=lambda: T.lemma_b10_derivations(2))


def _fd_check(P, ctx, dps, n):
    """Population gradient / Hessian (GH at dps) vs central finite differences at dps+15."""
    rng = ctx.rng("fd")
    th = [mpm.mpf(int(x)) / 8 for x in rng.integers(-8, 9, N.theta_size(P.d))]
    with workdps(dps + 15):
        R, g, H = N.hess_theta(P, th, n, dps + 15, True)
        h = mpm.mpf(10) ** (-(dps // 2) + 2)
        # Richardson-free central difference: error O(h^2) = 10^(4-dps)
        fd_g, fd_H = [], []
        for i in range(len(th)):
            e = [mpm.mpf(0)] * len(th)
            e[i] = h
            tp = [a + b for a, b in zip(th, e)]
            tm = [a - b for a, b in zip(th, e)]
            fd_g.append((N.risk_theta(P, tp, n, dps + 15, True) - N.risk_theta(P, tm, n, dps + 15, True)) / (2 * h))
            fd_H.append((N.grad_theta(P, tp, n, dps + 15, True)[1] - N.grad_theta(P, tm, n, dps + 15, True)[1]) / (2 * h))
        rg = max(abs(a - b) for a, b in zip(fd_g, g))
        rH = max(abs(fd_H[i][j] - H[i, j]) for i in range(len(th)) for j in range(len(th)))
        sc = max([abs(x) for x in g] + [abs(x) for x in H.ravel()])
    tg = residual_test(rg, dps, sc, guard=6)
    tH = residual_test(rH, dps, sc, guard=6)
    return tg, tH, [str(x) for x in th]


@generic(draw_lda)
def _chk_b11(p, ctx):
    ds = [T.lemma_b11_derivation(variant=ctx.variant)]
    out = _sym_outcome(ds, ctx)
    P = _prob(p)
    tg, tH, th = _fd_check(P, ctx, p["dps"], p["nodes"])
    out.evidence.update({"gradient_vs_fd": tg, "hessian_vs_fd": tH, "theta": th,
                         "rule": "|analytic - central FD| <= 10^(6-dps) * scale, FD step 10^(2-dps/2) at dps+15"})
    if out.verdict == "verified" and not (tg["passed"] and tH["passed"]):
        out.verdict = "refuted"
    return out


reg("lemma-b.11", "Second-order expansion of the risk", "Lemma B.11",
    "D^2 R(theta)[h,h] = E[sigma(f)(1-sigma(f)) (Df[h])^2 + (sigma(f)-eta) D^2 f[h,h]]", _chk_b11,
    [("dropped-curvature", "sigma(1-sigma) replaced by sigma")], kind="symbolic",
    defaults={"lda": N.C1, "dps": 30, "nodes": 8}, profiles={"full": {"nodes": 16}},
    derivations=lambda: [T.lemma_b11_derivation()])


def _chk_b12(p, ctx):
    return _sym_outcome([T.prop_b12_derivation(p["sym_dim"], ctx.variant)], ctx)


reg("prop-b.12", "Hessian of the effective risk on E1", "Prop. B.12",
    "grad^2 R~(zeta*) = E[eta(1-eta) grad g grad g^T], grad g = (X, 1, sigma(s0+s*^T X), 0)", _chk_b12,
    [("dropped-zero-block", "s-block of grad g taken as X instead of 0")], kind="symbolic",
    defaults={"sym_dim": 1}, profiles={"full": {"sym_dim": 2}}, derivations=lambda: [T.prop_b12_derivation(1)])


def _chk_b14(p, ctx):
    return _sym_outcome([T.lemma_b14_derivation(p["sym_dim"], ctx.variant)], ctx)


reg("lemma-b.14", "Differential of the reparametrisation Phi", "Lemma B.14",
    "DPhi(theta)[dtheta] = (dU11 Gamma v21 + U11 Gamma dv21, dv21^T m_-1 - dv22, dv21^T dm + 2 dv22, 2 du12 + dU11 dm)",
    _chk_b14, [("dropped-term", "dw without U11 Gamma dv21")], kind="symbolic", defaults={"sym_dim": 2},
    derivations=lambda: [T.lemma_b14_derivation(2)])


# ---- numeric claims -------------------------------------------------------------------------------
def _eigs_mp(H, dps):
    with workdps(dps):
        E, _ = mpm.eigsy(mpm.matrix(H.tolist()))
        return sorted([E[i] for i in range(E.rows)], key=lambda x: abs(x))


def _nullity(eigs, dps, scale, gap=mpm.mpf("1e-8")):
    """(nullity, smallest non-null |eig|, decided): eigenvalues below 10^(10-dps)*scale are zero;
    the rest must exceed ``gap`` (otherwise undecided)."""
    tol = mpm.mpf(10) ** (10 - dps) * max(1, scale)
    null = [e for e in eigs if abs(e) <= tol]
    rest = [e for e in eigs if abs(e) > tol]
    return len(null), (min(rest, key=abs) if rest else None), all(abs(e) > gap for e in rest), tol


@functools.lru_cache(maxsize=64)  # deterministic in (P, dps): the claim's controls reuse it
def bayes_risk_reference(P, dps):
    """R* = sum_c pi_c E softplus(-c f*(X)) from its definition, independently of numerics.lda.bayes_risk:
    f*(X) | class c ~ N(w*^T m_c + b*, w*^T Gamma w*) with w* = Gamma^-1 dm and b* of eq. (5) solved here in
    mpmath, each class's 1-D integral by mpmath.quad (tanh-sinh) split at the kink of softplus.  Returns
    (value, error estimate) at dps digits."""
    with workdps(dps + 5):
        m1, m_1, G, _L, pi, s0 = P.arrays(True)
        Gm = mpm.matrix(G.tolist())
        sol = lambda v: np.array(list(mpm.lu_solve(Gm, mpm.matrix(list(v)))), dtype=object)
        ws = sol(m1 - m_1)
        bs = -(m1 @ sol(m1) - m_1 @ sol(m_1)) / 2 + s0
        sd = mpm.sqrt(ws @ G @ ws)
        tot, err = mpm.mpf(0), mpm.mpf(0)
        for c, pc, mc in ((1, pi, m1), (-1, 1 - pi, m_1)):
            mu = ws @ mc + bs

            def f(t, mu=mu, c=c):
                a = -c * (mu + sd * t)
                return mpm.npdf(t) * (a + mpm.log1p(mpm.exp(-a)) if a > 0 else mpm.log1p(mpm.exp(a)))
            v, e = mpm.quad(f, [-mpm.inf, -mu / sd, mpm.inf], error=True)
            tot += pc * v
            err += pc * e
        return +tot, +err


@generic(lambda rng, params, i: {**draw_lda(rng, params, i), "nodes": int(params["nodes"]) * 8 // 5})  # 100 -> 160
def _chk_b4(p, ctx):
    P = _prob(p)
    dps, n = p["dps"], p["nodes"]
    # the 1-D rule is refined (x2, at most twice) until its error estimate meets the bound: a wide or
    # strongly separated configuration (the flat d = 3 --config form) needs more nodes than the default
    for k in range(3):
        val, err = N.bayes_risk(P, n, dps)
        if err <= mpm.mpf(10) ** -16 * max(1, abs(val)) or k == 2:
            break
        n *= 2
    shift = 0.3 if ctx.variant == "shifted-minimiser" else 0.0
    rng = ctx.rng("pert")
    d = P.d
    z0 = N.bayes_zeta(P)
    z0[d] += shift
    R0 = N.eff_risk(P, z0, 0, 60)[0]
    rows, ok = [], True
    for k in range(p["perturbations"]):
        dz = rng.standard_normal(2 * d + 2) * 10 ** rng.uniform(-2, 0)
        dz[d + 2:] = 0 if k % 2 == 0 else dz[d + 2:]
        Rk = N.eff_risk(P, z0 + dz, 0, 60)[0]
        rows.append({"perturbation_norm": float(np.linalg.norm(dz)), "risk_gap": float(Rk - R0)})
        ok &= Rk - R0 > 1e-13
    # the value R* itself against its definition (1-D integrals by tanh-sinh, independent of the GH rule)
    ref, ref_err = bayes_risk_reference(P, 20)
    with workdps(dps):
        rtol = 10 * (err + ref_err) + mpm.mpf(10) ** -14 * max(1, abs(ref))
        r_ok = abs(val - ref) <= rtol
        # the float64 risk at the claimed minimiser (the rule the perturbations use) agrees with R* too
        f_ok = abs(R0 - float(ref)) <= 1e-10 * max(1.0, float(ref)) if shift == 0 else True
    # pointwise: g_X'(t) = sigma(t) - eta vanishes at logit(eta) (exact)
    sym = T.lemma_b7_derivation().decide(seed=1)[0]
    ev = {"bayes_risk": mpm.nstr(val, 20), "bayes_risk_error_estimate": mpm.nstr(err, 3),
          "quadrature": f"1-D Gauss-Hermite, {int(1.5 * n) + 2} vs {n} nodes at {dps} digits (refined x2 until the error estimate is below 1e-16 relative, at most twice)",
          "perturbed_predictors": rows, "pointwise_derivative_identity": sym,
          "bayes_risk_reference": {"value": mpm.nstr(ref, 20), "error_estimate": mpm.nstr(ref_err, 3),
                                   "residual": mpm.nstr(abs(val - ref), 3), "tolerance": mpm.nstr(rtol, 3),
                                   "passed": bool(r_ok), "float64_risk_at_minimiser": float(R0),
                                   "float64_agrees_1e-10": bool(f_ok)},
          "rule": "every perturbed effective predictor has risk > risk at the claimed minimiser + 1e-13 (float64 GH, 60 nodes); "
                  "R* (1-D Gauss-Hermite) equals its definition by tanh-sinh at 20 digits within 10 (both error "
                  "estimates) + 1e-14 max(1, R*) (the rule's own error bound is 1e-16 relative), and the float64 60-node risk at (w*, b*, 0, 0) equals it within 1e-10 max(1, R*)"}
    ok &= bool(r_ok and f_ok)
    if err > mpm.mpf(10) ** -16 * max(1, abs(val)):
        return Outcome("inconclusive", {**ev, "to_settle": f"more than {n} quadrature nodes"})
    return Outcome("confirmed" if ok and sym == "proven" else "refuted", ev)


reg("lemma-b.4", "The logistic population risk is minimised by the Bayes score", "Lemma B.4",
    "argmin_f E[log(1+exp(-Y f(X)))] = f* a.s.; R* = R(f*)", _chk_b4,
    [("shifted-minimiser", "claimed minimiser f* + 0.3")],
    defaults={"lda": N.C1, "dps": 30, "nodes": 100, "perturbations": 12})


def _chk_b6(p, ctx):
    rng = ctx.rng("b6")
    dps = p["dps"]
    rows, ok, undecided = [], True, False
    with workdps(dps):
        for _ in range(p["points"]):
            mu = mpm.mpf(int(rng.integers(-30, 31))) / 10
            sg = mpm.mpf(int(rng.integers(1, 30))) / 10
            q = mu / sg
            # the definition in the standardised variable x = mu + s t, split at the peak t = 0: tanh-sinh on
            # [0, oo) in x missed a narrow peak (seed 8114: mu = 2.7, s = 0.1, error 2.6e-15 at 30 digits)
            pts = [-q, 0, mpm.inf] if q > 0 else [-q, mpm.inf]
            with workdps(dps + 10):
                ref, qerr = mpm.quad(lambda t: (mu + sg * t) * mpm.npdf(t), pts, error=True)
            st = mu * mpm.ncdf(q) + (0 if ctx.variant == "dropped-density" else sg * mpm.npdf(q))
            t = residual_test(abs(st - ref), dps, abs(ref))
            t["quadrature_error_estimate"] = mpm.nstr(qerr, 3)
            if qerr > mpm.mpf(t["tolerance"]) / 10:  # the reference cannot decide: inconclusive, never refuted
                t.update({"passed": None, "reason": "quadrature error estimate above a tenth of the tolerance"})
                undecided = True
            rows.append({"mu": str(mu), "sigma": str(sg), **t})
            ok &= t["passed"] is not False
    verdict = "refuted" if not ok else ("inconclusive" if undecided else "confirmed")
    return Outcome(verdict, {"points": rows, "reference": "mpmath.quad tanh-sinh at dps + 10 in t = (x - mu)/s, split "
                                                          "at the peak, with its error estimate"})


reg("lemma-b.6", "Positive part of a Gaussian", "Lemma B.6", "E[X_+] = mu Phi(mu/s) + s phi(mu/s)", _chk_b6,
    [("dropped-density", "s phi(mu/s) term dropped")], defaults={"dps": 30, "points": 6},
    configurations_note="no mixture configuration: the check itself draws its `points` pairs (mu, s) from the "
                        "run's seed (mu in [-3, 3], s in [0.1, 2.9], a fresh draw per run)")


def _rand_theta_exact(rng, d, v21_zero=False):
    r = lambda: sp.Rational(int(rng.integers(-9, 10)), int(rng.integers(1, 6)))
    U = sp.Matrix(d, d, lambda i, j: r())
    u = sp.Matrix([r() for _ in range(d)])
    v = sp.zeros(d, 1) if v21_zero else sp.Matrix([r() for _ in range(d)])
    while not v21_zero and all(x == 0 for x in v):
        v = sp.Matrix([r() for _ in range(d)])
    return U, u, v, r()


@generic(draw_lda)
def _chk_32(p, ctx):
    rng = ctx.rng("rank")
    rows, ok = [], True
    cfgs = [p["lda"], {"m1": [1, 2, 0], "m_1": [0, -1, 1], "Gamma": [[2, 1, 0], [1, 2, 0], [0, 0, 1]], "pi_plus": "0.3"},
            {"m1": [1, 0], "m_1": [-1, 0], "Gamma": [[2, 1], [1, 1]], "pi_plus": "0.5"}]
    for c in cfgs:
        P = N.LDAProblem.from_params(c)
        m1, m_1, G, pi = _sym_prob(P)
        d = P.d
        for v0 in (False, True):
            for _ in range(p["points"]):
                th = _rand_theta_exact(rng, d, v0)
                rank = T.dphi_matrix(m1, m_1, G, th).rank()
                predicted_full = (not P.symmetric) and not v0
                if ctx.variant == "no-v21-condition":
                    predicted_full = not P.symmetric
                full = rank == 2 * d + 2
                rows.append({"d": d, "symmetric_means": P.symmetric, "v21_zero": v0, "rank": int(rank),
                             "full": 2 * d + 2, "predicted_injective": predicted_full})
                ok &= full == predicted_full
    return Outcome("confirmed" if ok else "refuted",
                   {"points": rows, "method": "exact sympy rank of DPhi at random rational theta"})


reg("lemma-3.2", "DPhi^* injective iff m1 != -m_-1 and v21 != 0", "Lemma 3.2 / B.20",
    "rank DPhi(theta) = 2d+2 exactly when m1 != -m_-1 and v21 != 0", _chk_32,
    [("no-v21-condition", "claims full rank also on {v21 = 0}")], defaults={"lda": N.C1, "points": 3})


def projected_vs_full_rule(P, rng, n=40):
    """numerics.lda.eff_risk's projected rule (Gauss-Hermite on span{L^T w, L^T s}, the orthogonal
    complement added exactly through Cov = Gamma - L Q (L Q)^T) against the parameter-independent tensor
    rule in all d directions (full_basis), float64, at three generic effective points: w, s independent
    (k = min(d, 2)), s = 0.7 w (k = 1: the complement corrections are non-zero) and w = s = 0 (k = 0), each
    with b, r != 0.  R~, its gradient and its Hessian must agree within 10 (|rule(n) - rule(1.5n+2)| of
    both rules) + 1e3 eps max(1, scale), entrywise maximum.  Deterministic; run for d <= 2 (the full rule
    has n^d nodes: 4.5 s in d = 3)."""
    d = P.d
    w, s = rng.standard_normal(d), rng.standard_normal(d)
    b, r = rng.standard_normal(2)
    pts = [("k = min(d, 2)", np.concatenate([w, [b, r], s])), ("k = 1 (s = 0.7 w)", np.concatenate([w, [b, r], 0.7 * w])),
           ("k = 0 (w = s = 0)", np.concatenate([0 * w, [b, r], 0 * s]))]
    rows, ok = [], True
    flat = lambda t: np.concatenate([[t[0]], t[1], t[2].ravel()])
    for label, z in pts:
        a1, a2 = flat(N.eff_risk(P, z, 2, n)), flat(N.eff_risk(P, z, 2, int(1.5 * n) + 2))
        f1, f2 = flat(N.eff_risk(P, z, 2, n, None, True)), flat(N.eff_risk(P, z, 2, int(1.5 * n) + 2, None, True))
        tol = 10 * (np.max(np.abs(a1 - a2)) + np.max(np.abs(f1 - f2))) + 1e3 * np.finfo(float).eps * max(1.0, np.max(np.abs(f2)))
        res = float(np.max(np.abs(a2 - f2)))
        rows.append({"point": label, "residual": res, "tolerance": float(tol), "passed": bool(res <= tol)})
        ok &= res <= tol
    return {"points": rows, "nodes": [n, int(1.5 * n) + 2], "passed": bool(ok)}


@generic(draw_lda)
def _chk_b13(p, ctx):
    P = _prob(p)
    dps, n, d = p["dps"], p["nodes"], P.d
    mp = dps is not None
    rows, ok = [], True
    rule = projected_vs_full_rule(P, ctx.shared_rng("rules")) if d <= 2 else {"passed": True, "note": "d > 2: not run"}
    ok &= rule["passed"]
    with workdps(dps or 15):
        for snz in (True, False):
            s = None
            if snz:
                s = np.array([0.5, -1.0] + [1 / 3] * (d - 2))
                s = np.array([mpm.mpf(x) for x in s], dtype=object) if mp else s
            z = N.bayes_zeta(P, mp=mp, s=s)
            # refined (x1.5 nodes, up to max_nodes) while an eigenvalue lies between the zero tolerance and
            # 10 x it: the rule is the same at every n, only the quadrature error shrinks (seed 9350's draw: an
            # eigenvalue 8.9e-6 against a tolerance of 1.3e-6 at 48 nodes left the case undecided)
            m, H2_prev = n, None
            while True:
                H = N.eff_risk(P, z, 2, m, dps)[2]
                H2 = N.eff_risk(P, z, 2, int(1.5 * m) + 2, dps)[2]
                qerr = max(abs(a - b) for a, b in zip(H.ravel(), H2.ravel()))
                if H2_prev is not None:  # refined: also the previous finest rule, against an accidental agreement
                    qerr = max(qerr, max(abs(a - b) for a, b in zip(H2_prev.ravel(), H2.ravel())))
                H2_prev = H2
                eigs = _eigs_mp(H2, dps) if mp else sorted(np.linalg.eigvalsh(H2.astype(float)), key=abs)
                sc = max(abs(x) for x in eigs)
                # zero threshold fixed in advance: 100 x the quadrature error estimate, or the precision floor
                floor = (mpm.mpf(10) ** (10 - dps)) if mp else 1e-13
                tol = max(floor * sc, 100 * qerr)
                nul = sum(1 for e in eigs if abs(e) <= tol)
                rest = [e for e in eigs if abs(e) > tol]
                smin = min(rest, key=abs) if rest else None
                gap_ok = all(abs(e) > 10 * tol for e in rest)
                if gap_ok or int(1.5 * m) > p.get("max_nodes", n):
                    break
                m = int(1.5 * m)
            expected = d if snz else d + 1
            if ctx.variant == "swapped":
                expected = d + 1 if snz else d
            rows.append({"s_star_nonzero": snz, "hessian_nullity": nul, "expected_nullity": expected,
                         "smallest_nonzero_eigenvalue": _f(smin, 8) if smin is not None else None,
                         "zero_tolerance": _f(tol, 3), "precision": f"{dps} digits" if mp else "float64",
                         "nodes": m})
            rows[-1]["resolved"] = gap_ok
            # an eigenvalue between tol and 10 tol is neither zero nor resolved: the case cannot decide (seed 9249:
            # a normal eigenvalue 6.0e-6 against a tolerance of 1.7e-6 refuted the lemma); a clear gap decides
            ok &= (nul == expected) if gap_ok else True
    undecided = [r for r in rows if not r["resolved"]]
    verdict = "refuted" if not ok else ("inconclusive" if undecided else "confirmed")
    extra = {"reason": f"{len(undecided)} case(s) with an eigenvalue between the zero tolerance and 10 x it: the "
                       "nullity is not resolved", "to_settle": f"more nodes than max_nodes = {p.get('max_nodes', n)} (a smaller quadrature error)"} \
        if verdict == "inconclusive" else {}
    return Outcome(verdict,
                   {**extra, "cases": rows, "projected_vs_full_rule": rule,
                    "rule": "eigenvalue zero iff |lambda| <= max(floor, 100 x |H(n) - H(1.5n+2)|); "
                            "non-zero ones must exceed 10x that (one in between: n x 1.5 up to max_nodes, then "
                            "inconclusive); the projected quadrature the Hessians use equals the full "
                            "tensor rule at three generic points (projected_vs_full_rule)"})


reg("lemma-b.13", "Kernel of the effective Hessian on E1", "Lemma B.13",
    "dim ker grad^2 R~(zeta*) = d if s* != 0, d+1 if s* = 0", _chk_b13,
    [("swapped", "expected nullities swapped")], defaults={"lda": N.C1, "dps": None, "nodes": 48, "max_nodes": 162},
    profiles={"full": {"dps": 30}})


def _fit_rate(ts, ds):
    ts, ds = np.asarray(ts, float), np.asarray(ds, float)
    m = ds > 0
    A = np.vstack([ts[m], np.ones(m.sum())]).T
    coef, res, *_ = np.linalg.lstsq(A, np.log(ds[m]), rcond=None)
    pred = A @ coef
    ss = np.sum((np.log(ds[m]) - pred) ** 2)
    tot = np.sum((np.log(ds[m]) - np.log(ds[m]).mean()) ** 2) or 1.0
    return -float(coef[0]), 1 - ss / tot


def _hessian_refined(P, th, n, max_nodes):
    """Hessian of R at theta in float64, Gauss-Hermite rule refined n -> 1.5 n + 2 until two successive
    rules agree to 1e-10 x max|H| or the next rule would pass ``max_nodes``; tensor rule in all d
    directions for d <= 2 (the projected rule converges slowly when |s| is large: seed 5003, |s| = 10.5,
    gave a spurious negative eigenvalue -1.7e-3 at 40 nodes).  Returns (H, |grad R|, quadrature error
    max|H(n) - H(n')|, n).  Approximate: the error is an a-posteriori estimate of the coarser rule's."""
    full = P.d <= 2
    _R, _g, H = N.hess_theta(P, th, n, None, full)
    while True:
        n2 = int(1.5 * n) + 2
        _R, g2, H2 = N.hess_theta(P, th, n2, None, full)
        qerr = float(np.max(np.abs(H2 - H)))
        if qerr <= 1e-10 * float(np.abs(H2).max()) or int(1.5 * n2) + 2 > max_nodes:
            return (H2 + H2.T) / 2, float(np.linalg.norm(g2)), qerr, n2
        H, n = H2, n2


@generic(draw_lda)
def _chk_35(p, ctx):
    P = _prob(p)
    if P.symmetric:
        return Outcome("inconclusive", {"assumption_violated": "m1 = -m_-1"})
    d = P.d
    th = N.construct_theta1(P)
    z = N.phi(P, th)
    ev = {"theta_star": th.tolist(), "zeta_star": z.tolist(), "s_star_norm": float(np.linalg.norm(z[d + 2:])),
          "start_check": start_check(P, th, "theta1")}
    if not ev["start_check"]["passed"]:
        return Outcome("refuted", {**ev, "reason": "the flow's base point is not a Theta1^reg point"})
    H, gnorm, qerr, n = _hessian_refined(P, th, int(p["nodes"]), int(p["max_nodes"]))
    eigs = sorted(np.linalg.eigvalsh(H), key=abs)
    sc = max(abs(e) for e in eigs)
    # three zones: zero (float64 round-off, quadrature error, residual gradient at the float64 theta*),
    # non-zero (10 x above), and between them undecided.  The quadrature error is the coarser rule's
    # (an over-estimate for the finer rule, whose eigenvalues are used)
    tol = max(1e-12 * sc, 10 * qerr, 10 * gnorm)
    null = [e for e in eigs if abs(e) <= tol]
    rest = [e for e in eigs if abs(e) > tol]
    undecided = [e for e in rest if abs(e) < 10 * tol]
    nul = len(null)
    expected = d * d + d - 1 + (1 if ctx.variant == "wrong-nullity" else 0)
    smin = min(rest, key=abs) if rest else 0.0
    ev.update({"hessian_nullity": nul, "expected_nullity": expected, "zero_tolerance": tol, "quadrature_nodes": n,
               "quadrature_error": qerr, "gradient_norm_at_theta_star": gnorm,
               "normal_eigenvalues": [float(e) for e in sorted(rest)], "smallest_normal_eigenvalue": float(smin)})
    if undecided:
        return Outcome("inconclusive", {**ev, "reason": f"{len(undecided)} eigenvalue(s) between the zero tolerance "
                                                         f"{tol:.3g} and 10 x it: the nullity is not resolved",
                                        "to_settle": "a larger max_nodes"})
    if tol > 1e-6 * sc and max((abs(e) for e in null), default=0.0) > tol / 100:
        # a zero tolerance that is not small against the spectrum, with eigenvalues inside it that are not at
        # the round-off level: a small normal eigenvalue cannot be told from a zero, so the nullity is not
        # read at all (seed 8157: |s*| = 13.6, quadrature error 2.3e-5 at 95 nodes, tolerance 2.3e-4, six
        # eigenvalues inside it for five zeros)
        return Outcome("inconclusive", {**ev, "reason": f"zero tolerance {tol:.3g} > 1e-6 x |H| with eigenvalues "
                                                         "inside it above tolerance / 100: the nullity is not resolved",
                                        "to_settle": "a larger max_nodes"})
    extra = sorted(null, key=abs)[expected:]  # the candidates for zero beyond the stated nullity
    if max((abs(e) for e in extra), default=0.0) > tol / 100:
        # more eigenvalues inside the tolerance than the statement's zeros, and the extra ones are not at the
        # round-off level: a small normal eigenvalue inside the quadrature's reach, not a zero (seed 9203: a
        # normal eigenvalue 7.9e-5 inside the tolerance 9.3e-5 = 10 x the error of a 95-node rule, the five
        # zeros at 1e-13; a 218-node rule puts the tolerance at 1.7e-8 and the nullity at 5).  Only a
        # nullity below the stated one (eigenvalues certainly non-zero) or extra zeros at round-off refute.
        return Outcome("inconclusive", {**ev, "reason": f"{len(extra)} eigenvalue(s) beyond the stated nullity inside "
                                                         f"the zero tolerance {tol:.3g} but above tolerance / 100 "
                                                         f"(largest {max(abs(e) for e in extra):.3g}): the nullity is "
                                                         "not resolved", "to_settle": "a larger max_nodes"})
    ok = nul == expected and all(e > 0 for e in rest)
    if not ok:  # the Hessian already contradicts the statement; the flow cannot repair it
        return Outcome("refuted", {**ev, "reason": "the Hessian's nullity or the signs of its normal eigenvalues "
                                                   "contradict the statement"})
    # gradient flow from a perturbed start, with the same quadrature rule
    rng = ctx.rng("pert")
    th0 = th + p["perturbation"] * rng.standard_normal(th.size)
    # RK4 is stable for h * lambda_max < 2.78: cap the step by the Hessian's largest eigenvalue
    h = min(float(p["h"]), 1.5 / float(max(eigs)))
    # a stiff Hessian (large lambda_max, small h) would need T / h steps: at most max_steps, the horizon
    # shortened accordingly (a flow that then has not converged is inconclusive, not refuted)
    T = min(float(p["T"]), int(p["max_steps"]) * h)
    truncated = T < float(p["T"])
    every = max(1, int(T / h / 100))
    ev.update({"integrator_step": h, "horizon": T, "horizon_truncated": truncated})
    grad = lambda x: -N.grad_theta(P, x, n, None, d <= 2)[1]
    traj = N.rk4(grad, th0, T, h, None, every)
    ts = [t for t, _ in traj]
    ds_ = [N.dist_E1(P, N.phi(P, x)) for _, x in traj]
    # numerical floor: the same integrator and quadrature started exactly at theta* (the quadrature
    # risk's minimiser sits slightly off E1); the rate is fitted where the distance is > 10 x floor
    ref = N.rk4(grad, th, T, h, None, every)
    floor = max(N.dist_E1(P, N.phi(P, x)) for _, x in ref)
    keep = [i for i in range(len(ts)) if ds_[i] > 10 * floor]
    keep = keep[2 * len(keep) // 3:] if len(keep) >= 9 else keep
    rate, r2 = _fit_rate([ts[i] for i in keep], [ds_[i] for i in keep]) if len(keep) >= 3 else (0.0, 0.0)
    ev.update({"flow": {"t": ts, "dist_E1": ds_, "fitted_rate": rate, "r2": r2, "numerical_floor": floor,
                        "points_fitted": len(keep), "smallest_normal_eigenvalue": float(smin),
                        "rate_over_smallest_eigenvalue": rate / float(smin) if smin else None},
               "figures": [{"title": "thm-3.5: gradient flow from a perturbed theta* (C1)", "xlabel": "t",
                            "ylabel": "distance to E1", "yscale": "log",
                            "series": [{"label": "dist_E1", "x": ts, "y": ds_},
                                       {"label": "numerical floor (flow from theta*)", "x": ts, "y": [floor] * len(ts)}]}],
               "rule": "Hessian by a Gauss-Hermite rule refined until two rules agree to 1e-10 x max|H| (or max_nodes); "
                       "eigenvalues <= tol = max(1e-12 x scale, 10 x quadrature error, 10 x |grad R(theta*)|) are zero, "
                       "those >= 10 x tol non-zero, any in between -> inconclusive; nullity == d^2+d-1 and the others "
                       "positive; flow (same rule, RK4 step <= 1.5 / lambda_max, at most max_steps steps; not converged on a "
                       "shortened horizon -> inconclusive): a numerical floor (flow from theta* itself) above 0.1 x the start "
                       "distance or fewer than 3 points above 10 x the floor -> inconclusive; otherwise final dist_E1 "
                       "< max(0.1, exp(-lambda_min T / 2)) x initial and a log-linear fit (last third of the points above 10 x floor) with rate > 0 "
                       "(R^2 reported, not used: transients make it seed-dependent)"})
    if floor >= 0.1 * ds_[0] or len(keep) < 3:
        return Outcome("inconclusive", {**ev, "reason": "the flow is not resolved above its numerical floor"})
    # the contraction the Hessian predicts over the horizon is exp(-lambda_min T): require a tenth, or half of
    # the predicted log-contraction where a tenth is not expected (seed 8131: lambda_min T = 0.5, observed 4.3x)
    need = max(0.1, math.exp(-float(smin) * T / 2))
    conv = ds_[-1] < need * ds_[0] and rate > 0
    if not conv and float(smin) * T < 1:
        # the horizon is shorter than the slowest normal mode's time constant, 1 / lambda_min: the flow has
        # not reached its asymptotic regime and neither the contraction nor a non-positive late rate decides
        # anything (seed 8176: lambda_min = 8e-5, lambda_min T = 0.064; dist_E1 fell 21x, then rose 3x along
        # the slow mode.  Seed 9308: lambda_min = 5.6e-7, lambda_min T = 4.5e-4; the fast modes' transient
        # raised dist_E1 from 0.0219 to 0.0253, then it decayed at the late rate 1.1e-6 > 0, ending 15 % above
        # its start; the earlier guard also asked for dist_E1 to end below its start and refuted).  The
        # statement's local part is decided by the Hessian above (nullity and signs), which no horizon affects.
        return Outcome("inconclusive", {**ev, "reason": f"lambda_min T = {float(smin) * T:.3g} < 1: the horizon does not "
                                                         "reach the slowest mode's exponential regime",
                                        "to_settle": "a longer horizon T (at least 1 / lambda_min)"})
    if not conv and truncated:
        return Outcome("inconclusive", {**ev, "reason": f"the flow has not converged within max_steps = "
                                                         f"{int(p['max_steps'])} steps of h = {h:.3g} (horizon {T:.3g})",
                                        "to_settle": "a larger max_steps"})
    return Outcome("confirmed" if conv else "refuted", ev)


reg("thm-3.5", "Morse-Bott at Theta1^reg and local exponential convergence", "Thm 3.5 / Lemma B.26",
    "At theta* in Theta1 with s != 0: ker Hess R = T Theta1 (nullity d^2+d-1), normal eigenvalues > 0; "
    "gradient flow from nearby converges exponentially", _chk_35,
    [("wrong-nullity", "expected nullity d^2+d")],
    defaults={"lda": N.C1, "nodes": 40, "max_nodes": 100, "perturbation": 1e-2, "T": 800.0, "h": 2.0,
              "max_steps": 2000},
    profiles={"full": {"T": 2000.0, "h": 0.5, "max_steps": 8000}}, assumptions=("m1 != -m_-1", "s(theta*) != 0"))
