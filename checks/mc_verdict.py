"""Verdicts of the Monte Carlo commands: ``softmix risk --mc`` and ``softmix finite-prompt --mc``.

Each run opens ONE :class:`~softmix.checks.rules.AlphaFamily` (alpha = 1e-3) and decides one statement:
the limit of L (R_L - R_inf) (risk) or of L * MSE (finite-prompt) equals the closed form, or ``--compare
VALUE`` (a published constant).  Below the threshold the limit is fitted as a + b/L by
:class:`~softmix.checks.fits.InverseLRule`; past it (risk, lambda* >= 1/2: no finite coefficient) the
decay rate is decided by :func:`~softmix.checks.fits.decay_rate_decision` against the band the command
predicts.  The reach rules (docs/finite-prompt.md, sec. 10), fixed from the expansion's remainder terms
before any simulation, turn what the fit cannot decide into ``inconclusive`` with its reason and the
prompt lengths that would settle it -- never ``refuted``:

* few effective tokens: the first correction and the first omitted term of the expansion at the shortest
  prompt must be small (finite-prompt: the exact c3, c4 of ``numerics.expansion_reach``; risk: the
  query-averaged weight-moment ratio r3, 2 r3 / L <= 1/4);
* risk: lambda* >= 1/6, where the query average of the next coefficient diverges and the remainder of
  L (R_L - R_inf) decays like L^(1/2 - 1/(4 lambda*)), slower than the 1/L the fit models;
* a chi-square misfit of a + b/L over the grid;
* finite-prompt: a gap the omitted c4 / L^2 term can explain (a systematic allowance, |c4| sum_i |g_i| / L_i^2
  for the fit's weights g_i on the limit).

Verdicts: confirmed (not rejected, interval half-width <= LIMIT_RELATIVE_MARGIN |value|), refuted,
inconclusive; exit 0 / 1 / 0 (1 with ``--strict``).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from .fits import InverseLRule, _satterthwaite, decay_rate_decision, fit_inverse_L
from .rules import ALPHA, AlphaFamily, z_critical

__all__ = ["LIMIT_RELATIVE_MARGIN", "RISK_LAMBDA_BOUND", "limit_decision", "rate_decision", "rate_band",
           "student_factor",
           "finite_prompt_reach", "risk_reach", "summary_line", "exit_code", "new_family"]

#: confirmed only if the limit's interval half-width is at most this fraction of |value tested|
LIMIT_RELATIVE_MARGIN = 0.10
#: risk: the 1/L extrapolation of a query average needs lambda* below this (docs/finite-prompt.md, sec. 5)
RISK_LAMBDA_BOUND = 1 / 6
#: past the threshold: the slope interval's half-width for a confirmation, and the allowance on the log
#: power of the band (the unknown (1 + c / ln L) corrections); the values of the claim fp-risk-threshold
RATE_SLOPE_MARGIN = 0.25
LOG_POWER_ALLOWANCE = 1.5


def new_family(command: str) -> AlphaFamily:
    """The run's one family-wise level (ALPHA = 1e-3)."""
    return AlphaFamily(ALPHA, name=command)


def _grid(L0: int, Ls) -> list[int]:
    """A grid of the same shape as ``Ls`` starting at L0 (ratios kept; at least L0, 4 L0, 16 L0)."""
    Ls = sorted(set(int(x) for x in Ls))
    if len(Ls) < 3:
        return [int(L0), int(4 * L0), int(16 * L0)]
    return [int(math.ceil(L0 * x / Ls[0])) for x in Ls]


def finite_prompt_reach(mix, U, V, z, Ls) -> dict:
    """Reach of the a + b/L fit of L * MSE at one query (rules of the module docstring)."""
    from softmix.numerics.expansion_reach import TERM_RATIO, first_order_reach, mse_expansion

    e = mse_expansion(mix, U, V, z)
    r = first_order_reach(e["m2"], e["c3"], e["c4"], Ls)
    out = {"rho": e["rho2"], "rho3": e["rho3"], "rho4": e["rho4"], "effective_tokens_at_shortest": min(Ls) / e["rho2"],
           "expansion": {"m2": e["m2"], "c3": e["c3"], "c4": e["c4"],
                         "reading": "L * MSE = m2 + c3 / L + c4 / L^2 + O(L^-3)"},
           **r, "allowance_coefficient": abs(e["c4"]) if math.isfinite(e["c4"]) else None}
    if not r["inside"]:
        out["reason"] = (f"few effective tokens: rho = {e['rho2']:.4g} leaves L / rho = {min(Ls) / e['rho2']:.3g} at "
                         f"L = {min(Ls)}, where the expansion's first correction |c3| / (m2 L) = "
                         f"{r['first_correction']:.3g} and first omitted term |c4| / (m2 L^2) = "
                         f"{r['first_omitted']:.3g} are not below {TERM_RATIO} and {TERM_RATIO ** 2}: the remainder "
                         f"is not O(1/L) yet")
        out["settle_lengths"] = _grid(r["L_reach"], Ls) if r["L_reach"] else None
    return out


def risk_reach(mix, heads, target, queries, lam: float, Ls) -> dict:
    """Reach of the a + b/L fit of L (R_L - R_inf) averaged over queries (rules of the module docstring)."""
    from softmix.numerics.expansion_reach import TERM_RATIO, averaged_tilt_ratio

    out: dict[str, Any] = {"lambda": lam, "lambda_bound": RISK_LAMBDA_BOUND}
    if lam >= RISK_LAMBDA_BOUND:
        f = 1 / (1 / (4 * lam) - 1 / 2)  # L must grow 10^f-fold for a 10-fold smaller remainder
        out.update({"inside": False, "settle_lengths": None,
                    "reason": (f"lambda* = {lam:.4g} >= 1/6: the query average of the expansion's next coefficient is "
                               f"infinite and the remainder of L (R_L - R_inf) decays like L^(1/2 - 1/(4 lambda*)) = "
                               f"L^{0.5 - 1 / (4 * lam):.3g}, not like 1/L, so no grid makes a + b/L decide the limit "
                               f"(a 10-fold smaller remainder needs {10 ** f:.3g}-fold longer prompts); heads with "
                               f"lambda* < 1/6 are within reach")})
        return out
    t = averaged_tilt_ratio(mix, heads, target, queries, lam)
    L_reach = int(math.ceil(2 * t["ratio"] / TERM_RATIO))
    out.update({"weight_moment_ratio": t["ratio"], "first_correction": 2 * t["ratio"] / min(Ls), "L_reach": L_reach,
                "inside": bool(min(Ls) >= L_reach), "allowance_coefficient": None})
    if not out["inside"]:
        out["reason"] = (f"few effective tokens: the query-averaged weight-moment ratio r3 = E[rho3/rho2 K_var] / "
                         f"E[K_var] = {t['ratio']:.4g} makes the first correction 2 r3 / L = "
                         f"{out['first_correction']:.3g} > {TERM_RATIO} at L = {min(Ls)}: the remainder is not O(1/L) "
                         f"yet")
        out["settle_lengths"] = _grid(L_reach, Ls)
    return out


def _allowance(fit_Ls, ses, coeff) -> float:
    """|coeff| sum_i |g_i| / L_i^2: the largest shift of the fitted limit that an omitted coeff / L^2 term causes
    (g the weights of the weighted least-squares limit on the data)."""
    L = np.asarray(fit_Ls, float)
    return float(abs(coeff) * np.sum(np.abs(_limit_weights(fit_Ls, ses)) / L**2))


def _tested(closed_form, closed_form_se, compare):
    if compare is not None:
        return float(compare), None, f"--compare {compare:g}"
    return float(closed_form), (closed_form_se or None), "the closed form"


def _limit_weights(Ls, ses) -> np.ndarray:
    """g with fitted limit a = sum_i g_i y_i (weighted least squares of y = a + b/L)."""
    L = np.asarray(Ls, float)
    W = 1 / np.asarray(ses, float) ** 2
    X = np.vstack([np.ones_like(L), 1 / L]).T
    return (np.linalg.inv(X.T @ (W[:, None] * X)) @ (X.T * W))[0]


def student_factor(Ls, ses, se_dof, alpha: float) -> tuple[float, float | None]:
    """The standard errors are estimated from the replicates, each with ``se_dof`` effective degrees of freedom
    (``fits.mean_se_dof``, kurtosis-corrected).  The limit a = sum g_i y_i then has the Welch-Satterthwaite dof
    nu = (sum a_i)^2 / sum a_i^2 / nu_i, a_i = g_i^2 se_i^2; scaling every standard error by t_nu / z turns the
    rule's normal quantile into Student's.  Returns (factor, nu)."""
    if not se_dof or len(set(Ls)) < 2 or not all(np.isfinite(s) and s > 0 for s in ses):
        return 1.0, None
    a = alpha / 2 if len(set(Ls)) >= 3 else alpha
    g = _limit_weights(Ls, ses)
    nu = max(1.0, _satterthwaite(g**2 * np.asarray(ses, float) ** 2, np.asarray(se_dof, float)))
    return float(stats.t.isf(a / 2, nu) / stats.norm.isf(a / 2)), float(nu)


def limit_decision(Ls, values, ses, *, closed_form, closed_form_se=None, compare=None, reach: dict,
                   family: AlphaFamily, n_samples: int, quantity: str, se_dof=None) -> dict:
    """Decide lim y(L) == value (the closed form, or ``compare``) from Monte Carlo y(L) +- se(L).

    Inside the reach: :class:`InverseLRule` (a + b/L, z-test of a, chi-square fit with >= 3 lengths) at the
    family's whole level; a misfit, or a refutation the omitted c4 / L^2 term can explain, is inconclusive.
    Outside: inconclusive with the reach's reason; the fit is still reported (no alpha spent).
    ``se_dof``: effective degrees of freedom of each standard error (``student_factor``)."""
    value, value_se, tested = _tested(closed_form, closed_form_se, compare)
    q, nu = student_factor(Ls, ses, se_dof, family.alpha)
    ses = [float(s) * q for s in ses]
    out = {"statement": f"lim {quantity} == {tested}", "value_tested": value, "closed_form": float(closed_form),
           "closed_form_se": closed_form_se, "reach": reach, "margin_relative": LIMIT_RELATIVE_MARGIN,
           "se_inflation": q, "limit_dof": nu}
    ok_data = len(set(Ls)) >= 2 and all(np.isfinite(s) and s > 0 for s in ses)
    if not reach["inside"]:
        out.update({"verdict": "inconclusive", "reason": "outside the expansion's reach: " + reach["reason"],
                    "settle": {"prompt_lengths": reach.get("settle_lengths")}})
        if ok_data:
            fit = fit_inverse_L(Ls, values, ses)
            zc = z_critical(1, family.alpha)
            a, s = fit["limit"][0], math.hypot(fit["limit_se"][0], value_se or 0.0)
            out.update({"fitted_limit": a, "limit_se": fit["limit_se"][0], "interval": [a - zc * s, a + zc * s],
                        "interval_level": 1 - family.alpha, "fit": fit,
                        "rule": "outside the reach no test is run (no alpha spent); the fit is shown for information"})
        return out
    rule = InverseLRule(family.rest("limit"), LIMIT_RELATIVE_MARGIN, relative=True, name=f"limit of {quantity}")
    dec = rule.decide(Ls, values, ses, value, n_samples, predicted_se=value_se)
    out.update({"verdict": dec["verdict"], "rule": dec["rule"], "alpha": family.ledger(), "test": dec})
    if "fit" not in dec:
        out.update({"reason": dec["reason"], "settle": {"prompt_lengths": _grid(max(Ls), Ls) if Ls else None}})
        return out
    fit, zt = dec["fit"], dec["limit_test"]
    a, zc = fit["limit"][0], zt["z_critical"]
    s = math.hypot(fit["limit_se"][0], value_se or 0.0)
    out.update({"fitted_limit": a, "limit_se": fit["limit_se"][0], "interval": [a - zc * s, a + zc * s],
                "interval_level": 1 - zt["alpha"], "z": zt["z"][0], "z_critical": zc})
    gof = dec.get("goodness_of_fit")
    if gof is not None and not gof["passed"]:
        out.update({"verdict": "inconclusive", "settle": {"prompt_lengths": [4 * int(x) for x in Ls]},
                    "reason": (f"the a + b/L model does not fit (chi-square {gof['chi2'][0]:.3g} > "
                               f"{gof['critical']:.3g} at {gof['dof']} dof): terms beyond 1/L are visible over this "
                               "grid, so its limit cannot be extrapolated; longer prompts would settle it")})
        return out
    gap = abs(a - value)
    allow = _allowance(Ls, ses, reach["allowance_coefficient"]) if reach.get("allowance_coefficient") else 0.0
    out["remainder_allowance"] = allow
    if dec["verdict"] == "refuted" and gap <= zc * s + allow:
        f = 2 ** math.ceil(math.log2(max(1.0, math.sqrt(allow / max(s, 1e-300)))))
        out.update({"verdict": "inconclusive", "settle": {"prompt_lengths": [f * int(x) for x in Ls]},
                    "reason": (f"the gap |{a:.5g} - {value:.5g}| = {gap:.3g} exceeds {zc:.3g} standard errors but the "
                               f"omitted c4 / L^2 term can shift the fitted limit by up to {allow:.3g}")})
    elif dec["verdict"] == "refuted":
        out["reason"] = f"the fitted limit {a:.5g} differs from {value:.5g} ({tested}) by z = {zt['z'][0]:.3g}"
    elif dec["verdict"] == "inconclusive":
        n = dec.get("samples_to_settle")
        out.update({"reason": (f"not rejected, but the interval half-width {dec.get('half_width', float('nan')):.3g} "
                               f"exceeds {LIMIT_RELATIVE_MARGIN:g} x |{value:.5g}|"),
                    "settle": {"replicates_per_length": n}})
    else:
        out["reason"] = (f"the fitted limit {a:.5g} agrees with {value:.5g} ({tested}; z = {zt['z'][0]:.3g}) within "
                         f"a half-width of at most {LIMIT_RELATIVE_MARGIN:g} x |value|")
    return out


def rate_band(lam: float, beta: float, Ls, allowance: float = LOG_POWER_ALLOWANCE) -> list:
    """The log-log slopes of L^(-1/(2 lambda*)) (ln L)^beta over the grid, beta within +- allowance (the
    slope of (ln L)^beta averaged over [min L, max L] is beta (ln ln Lmax - ln ln Lmin) / (ln Lmax - ln Lmin))."""
    lo, hi = math.log(max(3, min(Ls))), math.log(max(3, max(Ls)))
    w = (math.log(hi) - math.log(lo)) / (hi - lo) if hi > lo else 1 / lo  # one length: the local slope
    p = -1 / (2 * lam) if lam > 0.5 else -1.0
    return [p + (beta - allowance) * w, p + (beta + allowance) * w]


def rate_decision(Ls, values, ses, *, lam: float, log_power, compare=None, family: AlphaFamily, n_samples: int,
                  quantity: str) -> dict:
    """Past the threshold (lambda* >= 1/2, no finite 1/L coefficient): the decay of ``quantity`` (a sum of
    non-negative parts) against the band of L^(-1/(2 lambda*)) (ln L)^beta (``fits.decay_rate_decision``).
    With ``compare`` the statement tested is the published finite constant, i.e. a 1/L decay."""
    beta = log_power if log_power is not None else 0.5
    band = rate_band(lam, beta, Ls)
    finite = compare is not None
    dec = decay_rate_decision(family.rest("rate"), Ls, values, ses, finite, [-1.0, -1.0] if finite else band,
                              n_samples, f"log-log slope of {quantity}", margin=RATE_SLOPE_MARGIN)
    stmt = (f"a finite limit --compare {compare:g}, i.e. {quantity} ~ 1/L" if finite else
            f"{quantity} decays like L^(-1/(2 lambda*)) (ln L)^b, slower than 1/L")
    out = {"statement": stmt, "past_threshold": True, "lambda": lam, "rate_exponent": -1 / (2 * lam),
           "band": band, "verdict": dec["verdict"], "rule": dec["rule"], "alpha": family.ledger(), "test": dec,
           "closed_form": None, "value_tested": compare}
    fit: Any = dec.get("fit")
    if fit is not None:
        out.update({"slope": fit["slope"], "slope_interval": fit["ci"]})
    if "allowed_slopes" in dec:
        out["allowed_slopes"] = dec["allowed_slopes"]
    if dec["verdict"] == "refuted":
        out["reason"] = (f"the slope interval [{fit['ci'][0]:.3g}, {fit['ci'][1]:.3g}] excludes -1: the decay is "
                         "slower than 1/L, so no finite constant" if finite else
                         f"the slope interval [{fit['ci'][0]:.3g}, {fit['ci'][1]:.3g}] lies outside the allowed "
                         f"{[round(x, 3) for x in dec.get('allowed_slopes', band)]}")
    elif dec["verdict"] == "inconclusive":
        out["reason"] = dec.get("reason") or "the slope interval is wider than the margin"
        if dec.get("samples_to_settle"):
            out["settle"] = {"replicates_per_length": dec["samples_to_settle"]}
    else:
        out["reason"] = "the slope interval lies within the predicted range"
    return out


def exit_code(decision: dict, strict: bool) -> int:
    v = decision["verdict"]
    return 1 if v == "refuted" or (strict and v == "inconclusive") else 0


def summary_line(command: str, d: dict) -> str:
    """One line for stderr: the fitted limit (or slope) with its interval, the closed form, the verdict, why."""
    if d.get("past_threshold"):
        s = (f"softmix {command}: past the threshold (lambda* = {d['lambda']:.4g} >= 1/2, the 1/L coefficient is "
             f"infinite)")
        if "slope_interval" in d:
            s += f"; slope {d['slope']:.3g} [{d['slope_interval'][0]:.3g}, {d['slope_interval'][1]:.3g}]"
        rng = d.get("allowed_slopes") or d["band"]
        s += f", allowed {[round(x, 3) for x in rng]}"
    else:
        s = f"softmix {command}: {d['statement'].split(' == ')[0]}"
        if "fitted_limit" in d:
            lo, hi = d["interval"]
            s += f" = {d['fitted_limit']:.5g} [{lo:.5g}, {hi:.5g}]"
        s += f"; closed form {d['closed_form']:.5g}"
        if d["value_tested"] != d["closed_form"]:
            s += f"; tested {d['value_tested']:.5g}"
    s += f": {d['verdict']}"
    if d.get("z") is not None and not d.get("past_threshold"):
        s += f" (z = {d['z']:.3g})"
    s += f" -- {d['reason']}" if d.get("reason") else ""
    settle = d.get("settle") or {}
    if settle.get("prompt_lengths"):
        s += f"; prompt lengths that would settle it: {','.join(str(x) for x in settle['prompt_lengths'])}"
    elif settle.get("replicates_per_length"):
        s += f"; about {settle['replicates_per_length']} replicates per prompt length would settle it"
    return s
