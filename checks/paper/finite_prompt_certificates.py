"""Ball-arithmetic certificate for the finite-prompt constant rho(a) >= 1 (docs/finite-prompt.md).

The certificate machinery and its negative-control scheme are described in :mod:`softmix.checks.paper.certify`.
"""
from __future__ import annotations

import json
import time
from fractions import Fraction

import mpmath as mpm
import numpy as np

from ..registry import Claim, Control, Outcome, register
from .certify import SOURCE, _MAX_ROWS, _F, _cached, _flint, _no_flint, _verdict


# =============================================================================================
def _rho_certificate(params):
    B = _flint()
    from flint import arb
    from softmix.numerics.mixture import GaussianMixture

    from .finite_prompt import DEFAULTS as FP

    prec = int(params["prec"])
    mix = GaussianMixture.from_json_obj(params["mixture"], where="cert-fp-rho mixture")
    D = mix.dim
    box = [[_F(x) for x in r] for r in params["tilt_box"]]
    n = int(params["grid"])
    kpow = int(params.get("denominator_power", 2))  # rho = M(2a)/M(a)^k; k = 1 is a control's mistake
    with B.precision(prec):
        lw = [B.to_arb(Fraction(w)).log() for w in mix.weights]
        ms = [[B.to_arb(Fraction(x)) for x in m] for m in mix.means]
        Gs = [[[B.to_arb(Fraction(x)) for x in r] for r in G] for G in mix.covariances]

        def scores(a):
            out = []
            for k in range(len(lw)):
                lin = sum((a[i] * ms[k][i] for i in range(D)), arb(0))
                quad = sum((a[i] * Gs[k][i][j] * a[j] for i in range(D) for j in range(D)), arb(0))
                out.append(lw[k] + lin + quad / 2)
            return out

        def lse(s):
            mx = max(float(x.mid()) for x in s)
            return sum(((x - mx).exp() for x in s), arb(0)).log() + mx

        def Lam(a):
            return lse(scores(a))

        def F(a):  # log rho(a)
            return Lam([2 * x for x in a]) - kpow * Lam(a)

        def weights_lower(b):
            """Exact lower bounds of the tilted weights over the box b (monotone in each difference)."""
            s = scores(b)
            out = []
            for k in range(len(s)):
                den = 1 + sum(((s[j] - s[k]).upper().exp() for j in range(len(s)) if j != k), arb(0))
                out.append((1 / den).lower())
            return out

        def gradF(a):  # 2 grad Lambda(2a) - k grad Lambda(a), grad Lambda = sum_k w_k (m_k + G_k a)
            def gl(x):
                sc = scores(x)
                mx = max(float(v.mid()) for v in sc)
                e = [(v - mx).exp() for v in sc]
                S = sum(e, arb(0))
                return [sum((e[k] / S * (ms[k][i] + sum((Gs[k][i][j] * x[j] for j in range(D)), arb(0)))
                             for k in range(len(e))), arb(0)) for i in range(D)]
            g2, g1 = gl([2 * x for x in a]), gl(a)
            return [2 * u - kpow * v for u, v in zip(g2, g1)]

        # lambda_min(G_k) lower bounds (Cholesky of G_k - cI; 0 for singular components)
        lam = []
        for G in mix.covariances:
            a = np.array([[float(x) for x in r] for r in G])
            ev = float(np.linalg.eigvalsh(a)[0])
            if ev > 1e-9:
                c = Fraction(ev * (1 - 2.0 ** -20)).limit_denominator(10 ** 9)
                st, _ = B.min_eig_lower([[B.to_arb(Fraction(x)) for x in r] for r in G], c)
                lam.append(c if st else Fraction(0))
            else:
                lam.append(Fraction(0))
        rows, n_direct, n_curv, n_strict = [], 0, 0, 0
        worst = None
        cx = None
        for idx in np.ndindex(*([n] * D)):
            lo = [box[i][0] + (box[i][1] - box[i][0]) * Fraction(idx[i], n) for i in range(D)]
            hi = [box[i][0] + (box[i][1] - box[i][0]) * Fraction(idx[i] + 1, n) for i in range(D)]
            a = [B.hull(l, h) for l, h in zip(lo, hi)]
            c = [(l + h) / 2 for l, h in zip(lo, hi)]
            Fb = F(a)  # naive ball evaluation, intersected with the mean-value form
            mv = F([B.to_arb(x) for x in c]) + sum((g * (ai - B.to_arb(ci)) for g, ai, ci in zip(gradF(a), a, c)), arb(0))
            try:
                Fb = Fb.intersection(mv)
            except ValueError:
                pass
            direct = Fb.lower()
            # curvature route: F(a) = int_0^2 min(s, 2-s) a^T Cov_{sa} a ds >= |a|^2 min_b sum_k w_k(b) lam_k,
            # b over the hull of {0} and 2 x box (Cov of the tilted mixture >= sum_k w_k G_k)
            hb = [B.hull(min(Fraction(0), 2 * l), max(Fraction(0), 2 * h)) for l, h in zip(lo, hi)]
            wk = weights_lower(hb)
            kappa = sum((wk[k] * B.to_arb(lam[k]) for k in range(len(lam))), arb(0))
            amin2 = sum((Fraction(0) if l <= 0 <= h else min(l * l, h * h)) for l, h in zip(lo, hi))
            curv = (B.to_arb(amin2) * kappa).lower()
            if curv < 0:
                curv = arb(0)
            if kpow != 2:  # the integral form is the second difference Lambda(2a) - 2 Lambda(a) + Lambda(0) only
                bound, method = direct, "direct"
                n_direct += 1
            elif direct > 0 and direct >= curv:
                bound, method = direct, "direct"
                n_direct += 1
            else:
                bound, method = (curv if curv >= direct else direct), "curvature"
                n_curv += 1
            n_strict += int(bound > 0)
            row = {"box": [[str(l), str(h)] for l, h in zip(lo, hi)], "method": method,
                   "log_rho_ge": bound.str(8, radius=False), "_b": bound}
            rows.append(row)
            if worst is None or float(bound) < float(worst["_b"]):
                worst = row
            # counterexample probes at exact points: the box centre, and 0 when it lies in the box
            pts = [[(l + h) / 2 for l, h in zip(lo, hi)]]
            if all(l <= 0 <= h for l, h in zip(lo, hi)):
                pts.append([Fraction(0)] * D)
            for p in pts:
                r = F([B.to_arb(x) for x in p]).exp()
                if cx is None or float(r.mid()) < float(cx[1].mid()):
                    cx = (p, r)
        a0 = [sum(Fraction(u) * Fraction(z) for u, z in zip(ur, FP["z"])) for ur in FP["U"]] \
            if params["mixture"] == FP["mixture"] else None
        out = {"prec": prec, "rho_definition": f"M(2a) / M(a)^{kpow}",
               "tilt_box": [[str(x) for x in r] for r in box], "grid": f"{n}^{D} = {n ** D} boxes",
               "lambda_min_lower_G_k": [str(x) for x in lam], "n_direct": n_direct, "n_curvature": n_curv,
               "n_boxes_log_rho_certainly_positive": n_strict,
               "worst_box": {k: v for k, v in worst.items() if k != "_b"},
               "boxes": [{k: v for k, v in r.items() if k != "_b"} for r in rows[:_MAX_ROWS]],
               "smallest_rho_at_probe_points": {"point": [str(x) for x in cx[0]], "rho": cx[1].str(20, more=True)},
               "method": "log rho = Lambda(2a) - 2 Lambda(a): lower bound per box by ball evaluation ('direct') or, "
                         "when that is not certainly > 0, by the integral form of the second difference with the "
                         "tilted covariance >= sum_k w_k G_k ('curvature', >= 0 always, > 0 off 0)"}
        if a0 is not None:
            out["rho_at_notes_default_tilt"] = {"a": [str(x) for x in a0],
                                                "rho": F([B.to_arb(x) for x in a0]).exp().str(25, more=True)}
        out["_rows"], out["_cx"] = rows, cx
        return out


def _check_rho(params, ctx):
    p = dict(params)
    if ctx.variant == "wrong-power":
        p["denominator_power"] = 1  # wrong quantity: rho = M(2a)/M(a), statement rho >= 1 kept
    try:
        cert = _cached("rho", p, lambda: _rho_certificate(p))
    except ModuleNotFoundError as e:
        return _no_flint(e)
    B = _flint()
    thr = Fraction(1)
    if ctx.variant == "shifted-threshold":
        thr = Fraction(3, 2)
    with B.precision(cert["prec"]):
        logthr = B.to_arb(thr).log()
        ok = all(r["_b"] >= logthr for r in cert["_rows"]) if thr == 1 else \
            all(B.gt(r["_b"], logthr) is True for r in cert["_rows"])
        refuted = B.lt(cert["_cx"][1], thr) is True
    status = True if ok else (False if refuted else None)
    # rigour: the ball of rho at the probe point contains, and three boxes' lower bounds of log rho lie below (at the
    # box centres), the 40-digit value of numerics.finite_prompt's constants (an independent mpmath path, U = V = I
    # so that a = z); the wrong-power control computes another rho
    probe = None
    if ctx.variant != "wrong-power":
        from flint import arb
        from softmix.numerics.finite_prompt import finite_prompt_constants_mp
        from softmix.numerics.mixture import GaussianMixture
        from .lda_certificates import _ball_contains

        mix = GaussianMixture.from_json_obj(p["mixture"], where="cert-fp-rho mixture")
        eye = [[int(i == j) for j in range(mix.dim)] for i in range(mix.dim)]
        rho40 = lambda pt: finite_prompt_constants_mp(mix, eye, eye, [mpm.mpf(x.numerator) / x.denominator for x in pt],
                                                      40)["rho"]
        rows = cert["_rows"]
        worst = min(rows, key=lambda r: float(r["_b"].mid()))
        with mpm.workdps(40), B.precision(cert["prec"]):
            probe = {"probe_point": _ball_contains(B, cert["_cx"][1], rho40(cert["_cx"][0]), mpm.mpf(10) ** -35)}
            for tag, r in (("worst box", worst), ("first box", rows[0]), ("last box", rows[-1])):
                c = [(Fraction(a) + Fraction(b)) / 2 for a, b in r["box"]]
                lr = mpm.log(rho40(c))
                lb_ok = B.le(r["_b"], arb(mpm.nstr(lr, 40), "1e-35"))  # the box's lower bound of log rho at its centre
                probe[f"{tag} {[str(x) for x in c]}: lower bound <= log rho"] = lb_ok
        if False in probe.values():
            status = False  # a ball or lower bound that certainly misses the 40-digit value: not a certificate
    ev = {"statement": f"rho(a) = M(2a)/M(a)^2 >= {thr} for every tilt a in the box", "threshold": str(thr),
          "rho_computed_as": cert["rho_definition"],
          "checked_against_40_digit_rho": probe,
          "rule": "verified iff every box has a certified lower bound of log rho >= log threshold (> when the "
                  "threshold is not 1); refuted iff rho at an exact probe point is certainly below it, or the "
                  "probe's ball or a box's lower bound (at its centre) certainly misses the 40-digit rho of "
                  "numerics.finite_prompt",
          "certificate": {k: v for k, v in cert.items() if not k.startswith("_")}}
    return Outcome(_verdict(status), ev)


def _rho_defaults():
    from .finite_prompt import DEFAULTS as FP

    return {"mixture": FP["mixture"], "tilt_box": [[-1, 1], [-1, 1], [-1, 1]], "grid": 6, "prec": 96}


register(Claim(
    id="cert-fp-rho", title="Certified rho(a) = M(2a)/M(a)^2 >= 1 over a box of tilts (finite-prompt notes)",
    independence="derived side: ball-arithmetic enclosure of M(2a)/M(a)^2 over a box; stated side: rho >= 1; rigour: the probe ball and three boxes' lower bounds against finite_prompt_constants_mp at 40 digits; shared: nothing",
    source="shared/notes/finite-prompt.md (Jensen / convexity of Lambda)",
    statement="For the notes' default mixture, rho(a) >= 1 for every a in [-1, 1]^3 (equality only at a = 0)",
    section="certificates", check=_check_rho, kind="numeric",
    configurations_note=("certifies the notes' default mixture over a box of tilts (a stated constant); rho >= 1 "
                         "in general is Jensen's inequality"),
    assumptions=("weights sum to 1", "some component covariance positive definite (for strictness off 0)"),
    defaults=_rho_defaults(), profiles={"full": {"grid": 10}},
    controls=(Control("shifted-threshold", "claim rho(a) >= 1.5 on the same box (which contains a = 0)"),
              Control("wrong-power", "wrong quantity: rho computed as M(2a)/M(a) (power 1 in the denominator); "
                                     "statement rho >= 1 kept: certainly < 1 at a box centre (mixture mean != 0)")),
))
