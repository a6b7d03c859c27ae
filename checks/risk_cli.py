"""Engine of ``softmix risk``: the finite-prompt risk of several heads sharing one prompt.

    softmix risk (--mixture MIX.json --heads HEADS.json --queries QUERIES.json --target TARGET.json
                  | --setting SETTING.json)
                 [--dps N] [--mc "L1,L2,..." --reps R --seed S [--compare VALUE] [--strict]] [--json PATH]

All inputs are read and validated before any computation (one-line error, exit 2).  Output keys:
risk_infinite, coefficient_1_over_L (null past the threshold, where it is infinite), finite, threshold
(lambda*, finite iff < 1/2), rate (exponent and log power past the threshold), decomposition {variance,
bias_residual, cross_head}, method (closed-form for Gaussian tokens and a linear target, monte-carlo
otherwise), standard_error (monte-carlo only), setting (with --setting), monte_carlo (with --mc: L times
the query-averaged excess risk of seeded full-token simulations, control-variate estimate and z-score)
and decision (with --mc: the verdict of ``checks.mc_verdict`` -- the fitted limit against the closed
form or --compare, or the decay rate past the threshold; exit 1 when refuted).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .cli_common import parse_lengths
from .fits import mean_se_dof

__all__ = ["load_risk_inputs", "run_risk"]


def _num(x, digits=None):
    import mpmath as mpm

    from softmix.numerics.precision import fmt_mp

    if x is None:
        return None
    if isinstance(x, mpm.mpf):
        return fmt_mp(x, digits or 17)
    x = float(x)
    if not math.isfinite(x):
        return None
    return repr(x)


def _load_files_or_setting(args):
    """(tokens, heads, queries, target, setting or None) from --setting FILE or the four files."""
    from softmix.numerics.errors import InputError
    from softmix.numerics.mixture import GaussianMixture, load_json_file
    from softmix.numerics.risk import parse_heads, parse_target

    files = {k: getattr(args, k, None) for k in ("mixture", "heads", "queries", "target")}
    setting_path = getattr(args, "setting", None)
    if setting_path is not None:
        given = [f"--{k}" for k, v in files.items() if v is not None]
        if given:
            raise InputError(f"--setting replaces {', '.join(given)}: give one or the other")
        from softmix.numerics.settings import setting_from_json

        st = setting_from_json(load_json_file(setting_path), where=str(setting_path))
        return (*st.as_inputs(), st)
    missing = [f"--{k}" for k, v in files.items() if v is None]
    if missing:
        raise InputError(f"give --setting FILE.json or all of --mixture, --heads, --queries, --target "
                         f"(missing {', '.join(missing)})")
    mix = GaussianMixture.load(args.mixture)
    D = mix.dim
    heads = parse_heads(load_json_file(args.heads), D, where=str(args.heads))
    queries = GaussianMixture.load(args.queries)
    if queries.dim != D:
        raise InputError(f"{args.queries}: queries have dimension {queries.dim} but tokens have {D}")
    q = len(heads[0].W)
    target = parse_target(load_json_file(args.target), D, q, where=str(args.target))
    return mix, heads, queries, target, None


def parse_compare(args):
    """``--compare VALUE`` (a published constant): a finite number, only with --mc; --strict only with --mc."""
    from softmix.numerics.errors import InputError
    from softmix.numerics.mixture import parse_number

    compare = getattr(args, "compare", None)
    if compare is not None:
        if args.mc is None:
            raise InputError("--compare needs --mc (the constant is tested against the simulations)")
        compare = float(parse_number(compare, "--compare"))
    if getattr(args, "strict", False) and args.mc is None:
        raise InputError("--strict needs --mc")
    return compare


def load_risk_inputs(args) -> dict:
    """Every input of ``softmix risk``, validated before any work: tokens, heads, queries, target, setting
    (or None), prompt lengths Ls (or None) and the --compare value (or None)."""
    from softmix.numerics.errors import InputError

    mix, heads, queries, target, setting = _load_files_or_setting(args)
    compare = parse_compare(args)
    if args.dps is not None and not (5 <= args.dps <= 1000):
        raise InputError("--dps must be between 5 and 1000")
    Ls = None
    if args.mc is not None:
        Ls = parse_lengths(args.mc)
        if args.reps is None:
            args.reps = 2000
        if args.reps < 2:
            raise InputError("--reps must be at least 2")
    elif args.reps is not None:
        raise InputError("--reps needs --mc")
    if args.seed is not None and args.seed < 0:
        raise InputError("--seed must be a non-negative integer")
    return {"mix": mix, "heads": heads, "queries": queries, "target": target, "setting": setting, "Ls": Ls,
            "compare": compare}


def _summary(res, inp, d) -> dict:
    fin = bool(res["finite"])
    doc = {"risk_infinite": _num(res["risk_infinite"], d),
           "coefficient_1_over_L": _num(res["K"], d) if fin else None,
           "finite": fin, "threshold": float(res["threshold"]), "threshold_critical": 0.5,
           "rate": {"exponent": res["rate_exponent"], "log_power": res["log_power"]},
           "decomposition": {"variance": _num(res["variance"], d) if fin else None,
                             "bias_residual": _num(res["bias_residual"], d) if fin else None,
                             "cross_head": _num(res["cross"], d) if fin else None},
           "method": res["method"], "heads": len(inp["heads"]), "dimension": inp["mix"].dim}
    if not fin:
        doc["coefficient_note"] = ("lambda* >= 1/2: the query-averaged 1/L coefficient is infinite (null here); the "
                                   "excess risk decays like L^(rate.exponent) up to (ln L)^(rate.log_power)")
    if inp["setting"] is not None:
        doc["setting"] = {"kind": inp["setting"].kind, "parameters": inp["setting"].parameters}
    if "log_power_note" in res:
        doc["rate"]["note"] = res["log_power_note"]
    if res["method"] == "closed-form":
        if d:
            doc["dps"] = d
    else:
        doc["standard_error"] = res["standard_error"]
        doc["queries_sampled"] = res["queries_sampled"]
        doc["importance_sampling"] = res["importance_sampling"]
    return doc


def _mc_rows(inp, res, reps, mc_ss) -> tuple[list, float]:
    """Seeded full-token simulations per prompt length: L (R_L - R_inf) raw and with the control variate,
    and E||yhat_L - yhat_inf||^2 (for the rate past the threshold).  Queries are importance-sampled
    (``proposal_scale_for``) when 1/8 <= lambda* < 1/2, where plain sampling has no fourth moment."""
    from softmix.numerics import risk_simulation as RS

    lam, fin = float(res["threshold"]), bool(res["finite"])
    scale = RS.proposal_scale_for(lam) if 1 / 8 <= lam < 0.5 else 1.0
    rows = []
    for L, ch in zip(inp["Ls"], mc_ss.spawn(len(inp["Ls"]))):
        out = RS.simulate_excess_averaged(inp["mix"], inp["heads"], inp["target"], inp["queries"], int(L), int(reps),
                                          np.random.default_rng(ch), proposal_scale=scale)
        X, Xc, sq = out["X"], out["X_cv"], out["sq_error"]
        n = len(X)
        row: dict[str, Any] = {"L": int(L), "replicates": n,
                               "L_excess_risk": float(X.mean()), "se": float(X.std(ddof=1) / math.sqrt(n)),
                               "L_excess_risk_cv": float(Xc.mean()), "se_cv": float(Xc.std(ddof=1) / math.sqrt(n)),
                               "variance_reduction": float(X.var(ddof=1) / max(Xc.var(ddof=1), 1e-300)),
                               "sq_error": float(sq.mean()), "sq_error_se": float(sq.std(ddof=1) / math.sqrt(n)),
                               "se_dof": mean_se_dof(Xc)}
        if fin:
            kk = float(res["K"])
            row["z_vs_coefficient"] = (round((row["L_excess_risk_cv"] - kk) / row["se_cv"], 3) if row["se_cv"] > 0
                                       else None)
        rows.append(row)
    return rows, scale


def _decision(inp, res, rows, reps) -> dict:
    from . import mc_verdict as MV

    fam = MV.new_family("softmix risk --mc")
    lam = float(res["threshold"])
    Ls = [r["L"] for r in rows]
    if not res["finite"]:
        return MV.rate_decision(Ls, [r["sq_error"] for r in rows], [r["sq_error_se"] for r in rows], lam=lam,
                                log_power=res["log_power"], compare=inp["compare"], family=fam, n_samples=int(reps),
                                quantity="E||yhat_L - yhat_inf||^2")
    reach = MV.risk_reach(inp["mix"], inp["heads"], inp["target"], inp["queries"], lam, Ls)
    se = res["standard_error"]["K"] if res["method"] == "monte-carlo" else None
    return MV.limit_decision(Ls, [r["L_excess_risk_cv"] for r in rows], [r["se_cv"] for r in rows],
                             closed_form=float(res["K"]), closed_form_se=se, compare=inp["compare"], reach=reach,
                             family=fam, n_samples=int(reps), quantity="L (R_L - R_inf)",
                             se_dof=[r["se_dof"] for r in rows])


def run_risk(args) -> dict:
    from softmix.numerics import risk as RK

    inp = load_risk_inputs(args)
    seed = 0 if args.seed is None else int(args.seed)
    avg_ss, mc_ss = np.random.SeedSequence(seed).spawn(2)
    work = None if args.dps is None else args.dps + 10
    res = RK.averaged_risk(inp["mix"], inp["heads"], inp["queries"], inp["target"], dps=work, seed=avg_ss)
    doc = _summary(res, inp, args.dps)
    if inp["Ls"]:
        rows, scale = _mc_rows(inp, res, args.reps, mc_ss)
        reading = ("L (R_L - R_inf): one fresh L-token prompt per sampled query, all heads share it; the cv estimate "
                   "subtracts the linearised fluctuation (exact mean); ")
        reading += ("it approaches coefficient_1_over_L with an O(1/L) remainder" if res["finite"] else
                    "past the threshold (lambda* >= 1/2) there is no finite 1/L coefficient: L (R_L - R_inf) grows "
                    "without bound and sq_error = E||yhat_L - yhat_inf||^2 decays like L^(rate.exponent) up to "
                    "logarithms, more slowly than 1/L")
        doc["monte_carlo"] = {"seed": seed, "rows": rows, "query_proposal_scale": scale, "reading": reading}
        doc["decision"] = _decision(inp, res, rows, args.reps)
    return doc
