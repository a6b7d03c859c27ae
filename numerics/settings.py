"""Ready settings for :mod:`softmix.numerics.risk` (``softmix risk --setting FILE.json``): the token law,
the heads sharing one prompt, the query law and the target, built from a few parameters.

In-context linear regression (:func:`icl_regression`), tokens in R^(d+1):

    token  (x_i, y_i),  x_i ~ N(0, I_d),  y_i = beta^T x_i + eps_i,  eps_i ~ N(0, sigma^2)
           i.e. N(0, G),  G = [[I_d, beta], [beta^T, |beta|^2 + sigma^2]]
    query  z = (x_q, 0),  x_q ~ N(0, I_d)         (query covariance diag(I_d, 0), singular)
    head h U_h = omega_h [[I_d, 0], [0, 0]]       (score <U_h z, x_i> = omega_h x_i^T x_q)
           V_h = e_(d+1)^T                        (reads the y channel),  W_h = [mu_h]
    target y_q = beta^T x_q + eps_q               (B = [beta^T, 0], noise covariance [sigma^2])

    predictor yhat_L = sum_h mu_h sum_i softmax_i(omega_h x_i^T x_q) y_i.

Bayes denoising, the paper's Sec. 4 task (:func:`denoising`):

    clean  X ~ sum_k pi_k N(m_k, gamma^2 I_d),  noisy Z = X + N(0, xi^2 I_d)
    tokens and queries: the noisy law  sum_k pi_k N(m_k, (gamma^2 + xi^2) I_d)
    heads  given, or by default the two heads of Thm 4.1's construction (App. C.6, ``paper_two_heads``),
           which realise the Bayes denoiser at L = infinity
    target y = E[X | Z = z] = f*(z) (eq. (10); ``posterior.PosteriorMeanTarget``), not linear in z, so
           the risk E||f*(Z) - yhat_L(Z)||^2 (the excess over the Bayes risk) is averaged over queries
           by Monte Carlo; ``"target": "clean"`` uses y = X instead (adds the Bayes risk E tr Cov(X | Z)).

All entries are exact (decimal strings and "p/q" parse without rounding; the default denoising heads
are float64 values taken at their exact binary value).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from .errors import InputError
from .mixture import GaussianMixture, parse_number
from .posterior import PosteriorMeanTarget
from .risk import Head, Target, parse_heads

__all__ = ["Setting", "icl_regression", "denoising", "setting_from_json", "SETTING_KINDS"]

SETTING_KINDS = ("icl_regression", "denoising")


@dataclass(frozen=True)
class Setting:
    """What ``numerics.risk`` needs: tokens, heads, queries, target (and how it was built)."""
    tokens: GaussianMixture
    heads: tuple
    queries: GaussianMixture
    target: object
    kind: str
    parameters: dict = field(default_factory=dict, compare=False, hash=False)

    def as_inputs(self):
        """(tokens, heads, queries, target), the arguments of ``risk.averaged_risk``."""
        return self.tokens, list(self.heads), self.queries, self.target


def _vector(v, where, n=None):
    if not isinstance(v, (list, tuple)) or not v:
        raise InputError(f"{where}: expected a non-empty list of numbers")
    out = [parse_number(x, f"{where}[{i}]") for i, x in enumerate(v)]
    if n is not None and len(out) != n:
        raise InputError(f"{where}: expected {n} entries, got {len(out)}")
    return out


def icl_regression(d, noise_variance, omega, mu, beta=None) -> Setting:
    """The in-context linear regression setting (module docstring): ``d`` >= 1, ``noise_variance`` >= 0,
    one score scale ``omega[h]`` and output weight ``mu[h]`` per head, ``beta`` (default e_1) of length d."""
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        raise InputError(f"icl_regression: d must be a positive integer, got {d!r}")
    s2 = parse_number(noise_variance, "icl_regression: noise_variance")
    if s2 < 0:
        raise InputError("icl_regression: noise_variance must be >= 0")
    om = _vector(omega, "icl_regression: omega")
    mus = _vector(mu, "icl_regression: mu", len(om))
    b = _vector(beta, "icl_regression: beta", d) if beta is not None else [Fraction(int(i == 0)) for i in range(d)]
    D, z = d + 1, Fraction(0)
    G = [[Fraction(int(i == j)) if i < d and j < d else z for j in range(D)] for i in range(D)]
    for i in range(d):
        G[i][d] = G[d][i] = b[i]
    G[d][d] = sum(x * x for x in b) + s2
    tokens = GaussianMixture.from_values([1], [[0] * D], [G], where="icl_regression tokens")
    Sq = [[Fraction(int(i == j and i < d)) for j in range(D)] for i in range(D)]
    queries = GaussianMixture.from_values([1], [[0] * D], [Sq], where="icl_regression queries")
    heads = tuple(Head(tuple(tuple(o if (i == j and i < d) else z for j in range(D)) for i in range(D)),
                       (tuple(Fraction(int(j == d)) for j in range(D)),), ((m,),)) for o, m in zip(om, mus))
    target = Target((tuple(b) + (z,),), ((s2,),))
    params = {"d": d, "noise_variance": str(s2), "omega": [str(x) for x in om], "mu": [str(x) for x in mus],
              "beta": [str(x) for x in b]}
    return Setting(tokens, heads, queries, target, "icl_regression", params)


def denoising(gamma, xi, m1=None, m2=None, pi1=None, weights=None, means=None, heads=None,
              clean_target: bool = False) -> Setting:
    """The paper's Sec. 4 denoising task (module docstring).  Either the two-component task of Sec. 4.2
    (``m1``, ``m2``, ``pi1``; default heads: Thm 4.1's construction) or Sec. 4.1's mixture of any number
    of components (``weights``, ``means``; ``heads`` required: a list of {"U", "V", "W"?} objects)."""
    from . import denoising as DN

    two = m1 is not None or m2 is not None or pi1 is not None
    if two == (weights is not None or means is not None):
        raise InputError("denoising: give either m1, m2, pi1 (two components) or weights, means (any number)")
    g, x = parse_number(gamma, "denoising: gamma"), parse_number(xi, "denoising: xi")
    if g < 0 or x <= 0:
        raise InputError("denoising: need gamma >= 0 and xi > 0")
    if two:
        task = DN.DenoisingTask.from_params({"m1": m1, "m2": m2, "gamma": gamma, "xi": xi, "pi1": pi1})
        w, ms = [task.pi1, 1 - task.pi1], [list(task.m1), list(task.m2)]
    else:
        if not isinstance(weights, (list, tuple)) or not isinstance(means, (list, tuple)):
            raise InputError("denoising: weights and means must be lists")
        w, ms, task = list(weights), list(means), None
    d = len(ms[0]) if ms and isinstance(ms[0], (list, tuple)) else 0
    iso = lambda c: [[c if i == j else 0 for j in range(d)] for i in range(d)]
    noisy = GaussianMixture.from_values(w, ms, [iso(g * g + x * x)] * len(w), where="denoising noisy law")
    clean = GaussianMixture.from_values(w, ms, [iso(g * g)] * len(w), where="denoising clean law")
    if heads is None:
        if task is None:
            raise InputError("denoising: heads are required unless the two-component task (m1, m2, pi1) is given")
        hs = [{"U": [[repr(float(v)) for v in r] for r in U], "V": [[repr(float(v)) for v in r] for r in V]}
              for U, V in DN.paper_two_heads(task)]
        heads_obj, default = hs, True
    else:
        heads_obj, default = heads, False
    hl = parse_heads(heads_obj, noisy.dim, where="denoising: heads")
    if len(hl[0].W) != d:
        raise InputError(f"denoising: heads must output {d} coordinates (the clean signal), got {len(hl[0].W)}")
    target = PosteriorMeanTarget(clean, tuple(tuple(r) for r in iso(x * x)), clean=bool(clean_target))
    params = {"gamma": str(g), "xi": str(x), "weights": [str(v) for v in noisy.weights],
              "means": [[str(v) for v in m] for m in noisy.means],
              "heads": "Thm 4.1 construction" if default else "given",
              "target": "clean signal X" if clean_target else "posterior mean E[X | Z]"}
    return Setting(noisy, tuple(hl), noisy, target, "denoising", params)


_KEYS = {"icl_regression": ({"d", "noise_variance", "omega", "mu"}, {"beta"}),
         "denoising": ({"gamma", "xi"}, {"m1", "m2", "pi1", "weights", "means", "heads", "target"})}


def setting_from_json(obj, where: str = "setting") -> Setting:
    """A setting file's object: ``{"icl_regression": {...}}`` or ``{"denoising": {...}}`` (module docstring)."""
    if not isinstance(obj, dict) or len(obj) != 1 or next(iter(obj)) not in _KEYS:
        raise InputError(f"{where}: expected one key, one of {', '.join(SETTING_KINDS)}")
    kind, p = next(iter(obj.items()))
    if not isinstance(p, dict):
        raise InputError(f"{where}.{kind}: expected an object of parameters")
    need, opt = _KEYS[kind]
    missing, extra = sorted(need - set(p)), sorted(set(p) - need - opt)
    if missing or extra:
        said = (["missing key(s) " + ", ".join(missing)] if missing else []) + \
            (["unknown key(s) " + ", ".join(extra)] if extra else [])
        raise InputError(f"{where}.{kind}: " + "; ".join(said) + f" (expected {', '.join(sorted(need | opt))})")
    try:
        if kind == "icl_regression":
            return icl_regression(p["d"], p["noise_variance"], p["omega"], p["mu"], p.get("beta"))
        tgt = p.get("target", "posterior_mean")
        if tgt not in ("posterior_mean", "clean"):
            raise InputError("target must be \"posterior_mean\" or \"clean\"")
        return denoising(p["gamma"], p["xi"], p.get("m1"), p.get("m2"), p.get("pi1"), p.get("weights"),
                         p.get("means"), p.get("heads"), clean_target=tgt == "clean")
    except InputError as e:
        msg = str(e)
        raise InputError(msg if msg.startswith(where) else f"{where}: {msg}") from None
