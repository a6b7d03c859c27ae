"""Displayed steps of Appendix B.5.3-B.5.5 (display ledger): the proofs of Lemma 3.2,
Lemma B.22 and Prop. 3.4, one claim per proof.  Derivations: :mod:`softmix.theory.steps_b5`;
the two estimates of B.5.5 are also evaluated at 30 digits at points drawn from the seed."""
from __future__ import annotations

import mpmath as mp

from softmix.theory import steps_b5 as T

from ..rules import Bound
from .steps_common import step_claim

__all__ = ["taylor_bound_rows"]

_C = mp.sqrt(3) / 36  # sup |sigma''| / 2, derived in B.5.5#8


def _sig(t):
    return 1 / (1 + mp.exp(-t))


def taylor_bound_rows(ctx, perturb: bool, n: int = 12) -> list:
    """B.5.5#8: |g_zeta_R(x) - f*(x)| <= C (c^T x)^2 / R (<= C (c^T x)^2 for R >= 1), and B.5.5#10:
    |l(y, g) - l(y, f)| <= |g - f|, at 30 digits on points drawn from the seed (s0, a = c^T x, R >= 1),
    the first point at the maximiser of |sigma''| with R large (where the first bound is nearly
    attained).  ``perturb``: the right-hand sides divided by 4 (the control)."""
    rng = ctx.stream("taylor-points")
    k = mp.mpf(4) if perturb else mp.mpf(1)
    rows = []
    with mp.workdps(30):
        pts = [(mp.log(2 + mp.sqrt(3)), mp.mpf(1), mp.mpf(1000))]
        draw = lambda lo, hi: mp.mpf(float(rng.uniform(lo, hi)))
        pts += [(draw(-4, 4), draw(-5, 5), draw(1, 50)) for _ in range(n)]
        for s0, a, R in pts:
            s1 = _sig(s0) * (1 - _sig(s0))
            gap = R * (_sig(s0 + a / R) - _sig(s0) - s1 * a / R)
            rows.append({"check": "B.5.5#8 Taylor bound", "s0": mp.nstr(s0, 8), "a": mp.nstr(a, 8), "R": mp.nstr(R, 8),
                         **Bound().decide(abs(gap), _C * a**2 / R / k)})
            rows.append({"check": "B.5.5#8 Taylor bound", "R": mp.nstr(R, 8), "part": "C/R <= C (R >= 1)",
                         **Bound().decide(_C * a**2 / R, _C * a**2 / k)})
            for y in (1, -1):
                f = s0 * a  # any two scores
                lhs = abs(mp.log(1 + mp.exp(-y * (f + gap))) - mp.log(1 + mp.exp(-y * f)))
                rows.append({"check": "B.5.5#10 logistic loss 1-Lipschitz", "y": y,
                             **Bound().decide(lhs, abs(gap) / k)})
    return rows


step_claim("steps-lemma-3.2", "Proof of Lemma 3.2 (B.20): the image of DPhi, the explicit preimage and the "
           "injectivity of DPhi^* (used by Lemma B.21)", "App. B.5.3, Lemma 3.2; App. B.5.4, Lemma B.21",
           T.b53_steps, d=2)
step_claim("steps-lemma-b.22", "Proof of Lemma B.22: Df, D^2 f at a saddle with v21 = 0 and the negative-curvature "
           "direction", "App. B.5.4, Lemma B.22", T.b54_steps, d=2)
step_claim("steps-prop-3.4", "Proof of Prop. 3.4 (B.23): g at zeta_R, its Taylor expansion, limits and bounds",
           "App. B.5.5, Prop. 3.4", T.b55_steps, d=2, numeric=taylor_bound_rows,
           checks=("B.5.5#8 Taylor bound", "B.5.5#10 logistic loss 1-Lipschitz"), findings=[
               {"kind": "gap", "where": "proof of Prop. 3.4 (B.23), display B.5.5 #8",
                "detail": "(C/R)(c^T x)^2 <= C (c^T x)^2 needs R >= 1 (only R -> oo is used; restrict to R >= 1)",
                "counterexample": "s0 = 0, c^T x = 1/10, R = 1/100: |g - f*| = 0.0200 > C (c^T x)^2 = 4.8e-4"},
               {"kind": "typo", "where": "proof of Prop. 3.4, display B.5.5 #4",
                "detail": "zeta_r printed for zeta_R ('for r > 0' for R > 0)"}])
