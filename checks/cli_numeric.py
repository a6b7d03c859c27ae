"""``softmix attention``, ``finite-prompt`` and ``risk``: numbers for a user's mixture and heads."""
from __future__ import annotations

from .cli_common import parse_lengths, parse_query, write_json

__all__ = ["cmd_attention", "cmd_finite_prompt", "cmd_risk"]


def _load_inputs(args):
    from softmix.numerics.errors import InputError
    from softmix.numerics.mixture import GaussianMixture, read_matrix

    mix = GaussianMixture.load(args.mixture)
    U = read_matrix(args.U)
    V = read_matrix(args.V)
    D = mix.dim
    if len(U) != D or len(U[0]) != D:
        raise InputError(f"{args.U}: expected U to be a {D}x{D} matrix (the mixture's dimension), got "
                         f"{len(U)}x{len(U[0])}")
    if len(V[0]) != D:
        raise InputError(f"{args.V}: expected V to have {D} columns (the mixture's dimension), got {len(V[0])}")
    z = parse_query(args.query, D)
    if args.dps is not None and not (5 <= args.dps <= 10000):
        raise InputError("--dps must be between 5 and 10000")
    return mix, U, V, z


def cmd_attention(args):
    mix, U, V, z = _load_inputs(args)  # every input validated before the numerics (and SymPy) load
    import numpy as np

    from softmix.numerics import attention as A
    from softmix.numerics.precision import fmt_mp

    if args.dps:
        work = args.dps + 15
        T = A.softmax_attention_mp(mix, U, V, z, dps=work)
        Tl = A.linear_attention_mp(mix, U, V, z, dps=work)
        g = A.gates_mp(mix, U, z, dps=work)
        doc = {"softmax": [fmt_mp(x, args.dps) for x in T], "linear": [fmt_mp(x, args.dps) for x in Tl],
               "gates": [fmt_mp(x, args.dps) for x in g], "dps": args.dps}
    else:
        Uf = np.array([[float(x) for x in r] for r in U])
        Vf = np.array([[float(x) for x in r] for r in V])
        zf = np.array([[float(x) for x in z]])
        from softmix.numerics.errors import InputError
        try:
            doc = {"softmax": A.softmax_attention(mix, Uf, Vf, zf)[0].tolist(),
                   "linear": A.linear_attention(mix, Uf, Vf, zf)[0].tolist(),
                   "gates": A.gates(mix, Uf, zf)[0].tolist()}
        except InputError as e:  # name the inputs that produced the overflow (each once)
            names = ", ".join(dict.fromkeys([args.mixture, args.U, args.V, f"--query {args.query}"]))
            raise InputError(f"{names}: {e}") from None
    write_json(doc, args.json)
    return 0


def cmd_finite_prompt(args):
    mix, U, V, z = _load_inputs(args)
    import numpy as np

    from softmix.numerics import finite_prompt as F
    from softmix.numerics.errors import InputError
    from softmix.numerics.precision import fmt_mp

    from .risk_cli import parse_compare

    compare = parse_compare(args)
    Ls = None
    if args.mc:
        Ls = parse_lengths(args.mc)
        if args.reps < 2:
            raise InputError("--reps must be at least 2")
    elif args.reps is not None and args.reps != 2000:
        raise InputError("--reps needs --mc")
    if args.dps:
        c = F.finite_prompt_constants_mp(mix, U, V, z, dps=args.dps + 15)
        f = lambda x: fmt_mp(x, args.dps)
        cov = c["covariance"]
        doc = {"bias_coefficient": [f(x) for x in c["bias"]],
               "covariance_coefficient": [[f(cov[i, j]) for j in range(cov.cols)] for i in range(cov.rows)],
               "effective_sample_fraction": f(c["effective_sample_fraction"]), "rho": f(c["rho"]),
               "mse_coefficient": f(c["mse"]), "limit": [f(x) for x in c["limit"]], "dps": args.dps}
    else:
        c = F.finite_prompt_constants(mix, np.array(U, float), np.array(V, float), np.array(z, float))
        doc = {"bias_coefficient": c["bias"].tolist(), "covariance_coefficient": c["covariance"].tolist(),
               "effective_sample_fraction": float(c["effective_sample_fraction"]), "rho": float(c["rho"]),
               "log_rho": c["log_rho"],
               "mse_coefficient": float(c["mse"]), "limit": c["limit"].tolist()}
    if args.mc:
        doc["monte_carlo"], doc["decision"] = _finite_prompt_mc(args, mix, U, V, z, Ls, compare)
    write_json(doc, args.json)
    return _verdict_exit("finite-prompt", doc, args)


def _finite_prompt_mc(args, mix, U, V, z, Ls, compare):
    """Simulated L * MSE per prompt length and the verdict on its limit (``checks.mc_verdict``)."""
    import numpy as np

    from softmix.numerics import finite_prompt as F

    from . import mc_verdict as MV
    from .montecarlo import finite_prompt_rows

    Uf, Vf, zf = (np.array(x, float) for x in (U, V, z))
    c = F.finite_prompt_constants(mix, Uf, Vf, zf)
    rows = finite_prompt_rows(mix, Uf, Vf, zf, Ls, args.reps, args.seed, c["limit"])
    reach = MV.finite_prompt_reach(mix, Uf, Vf, zf, Ls)
    dec = MV.limit_decision(Ls, [r["L_mse"] for r in rows], [r["L_mse_se"] for r in rows],
                            closed_form=float(c["mse"]), compare=compare, reach=reach,
                            family=MV.new_family("softmix finite-prompt --mc"), n_samples=int(args.reps),
                            quantity="L * MSE", se_dof=[r["se_dof"] for r in rows])
    mc = {"seed": int(args.seed), "replicates": int(args.reps), "method": "projected", "per_L": rows,
          "reading": "L * MSE = L E||T_L - T||^2 and L * mean error per prompt length over independent replicates; "
                     "L * MSE approaches mse_coefficient with an O(1/L) remainder inside the expansion's reach"}
    return mc, dec


def _verdict_exit(command, doc, args) -> int:
    """The one-line summary of a --mc verdict on stderr and its exit code (0, or 1 when refuted / strict)."""
    import sys

    dec = doc.get("decision")
    if dec is None:
        return 0
    from .mc_verdict import exit_code, summary_line

    print(summary_line(command, dec), file=sys.stderr)
    return exit_code(dec, bool(getattr(args, "strict", False)))


def cmd_risk(args):
    from softmix.checks.risk_cli import run_risk

    doc = run_risk(args)
    write_json(doc, args.json)
    return _verdict_exit("risk", doc, args)
