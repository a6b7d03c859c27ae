"""Structured symbolic Gaussian mixtures: the families that a statement's assumptions describe.

A statement about the softmax operator is often made for a *structured* mixture -- isotropic
covariances sigma^2 I, equal-norm centres, antipodal means, equal weights, a centred mixture.
:func:`structured_mixture` builds such a family exactly, with every constraint built into the
parametrisation (never imposed by a side condition), so that an identity proven on the family
holds on every mixture of the structure and a random point of the family is a mixture of the
structure:

* covariances: ``general`` (symmetric symbols ``G{k}_ij``), ``shared`` (one ``G``), ``isotropic``
  (``v_k I``, ``v_k`` positive), ``shared-isotropic`` (``v I``), ``diagonal`` (positive ``g{k}_i``);
* means: ``generic`` (symbols ``m{k}_i``), ``equal-norms`` (``m_k = r * stereographic(t_k)``: a
  rational map onto the sphere of radius ``r``, so ``||m_k|| = r`` holds exactly and
  ``||m_k||^2`` cancels to ``r^2``; in dimension 1, ``r`` and ``-r``), ``antipodal`` (two
  components, ``m_2 = -m_1``), ``coincident`` (every mean equals ``m_1``);
* weights: ``generic`` (positive symbols ``pi{k}``; identities of the operator are homogeneous in
  them, so they need not sum to one) or ``equal`` (``1/K``);
* ``centred``: ``sum_k pi_k m_k = 0`` by solving for the last mean.

Exact SymPy only.
"""
from __future__ import annotations

import sympy as sp

from .mixtures import SymbolicMixture, matrix_symbols, vector_symbols

__all__ = ["COVARIANCES", "MEANS", "WEIGHTS", "stereographic", "structured_mixture", "promise_broken"]

COVARIANCES = ("general", "shared", "isotropic", "shared-isotropic", "diagonal")
MEANS = ("generic", "equal-norms", "antipodal", "coincident")
WEIGHTS = ("generic", "equal")


def stereographic(t):
    """The inverse stereographic projection of ``t`` (length D - 1) onto the unit sphere of
    R^D: ``(2 t, |t|^2 - 1) / (|t|^2 + 1)``.  Rational in ``t``, so rational points go to rational
    points of the sphere; works on SymPy symbols and on Fractions alike (returns a list)."""
    t = list(t)
    n2 = sum((x * x for x in t), 0 * (t[0] if t else 0))
    return [2 * x / (n2 + 1) for x in t] + [(n2 - 1) / (n2 + 1)]


def _covariances(K, D, covariance, degenerate_rank, prefix):
    if degenerate_rank is not None and covariance not in ("general", "shared"):
        raise ValueError(f"rank-deficient covariances need general or shared covariances, not {covariance!r}")

    def one(tag):
        if degenerate_rank is None:
            return matrix_symbols(f"{prefix}G{tag}", D, symmetric=True)
        L = matrix_symbols(f"{prefix}L{tag}", D, degenerate_rank)
        return L * L.T

    if covariance == "general":
        return [one(k + 1) for k in range(K)], None
    if covariance == "shared":
        G = one("")
        return [G] * K, None
    if covariance == "isotropic":
        vs = list(sp.symbols(f"{prefix}v1:{K + 1}", positive=True))
        return [v * sp.eye(D) for v in vs], vs
    if covariance == "shared-isotropic":
        v = sp.Symbol(f"{prefix}v", positive=True)
        return [v * sp.eye(D)] * K, [v] * K
    if covariance == "diagonal":
        return [sp.diag(*sp.symbols(f"{prefix}g{k + 1}_1:{D + 1}", positive=True)) for k in range(K)], None
    raise ValueError(f"unknown covariance structure {covariance!r} (one of {', '.join(COVARIANCES)})")


def _means(K, D, means, prefix):
    if means == "generic":
        return [vector_symbols(f"{prefix}m{k + 1}", D) for k in range(K)], None
    if means == "coincident":
        m = vector_symbols(f"{prefix}m1", D)
        return [m] * K, None
    if means == "antipodal":
        if K != 2:
            raise ValueError(f"antipodal means need exactly two components, not {K}")
        m = vector_symbols(f"{prefix}m1", D)
        return [m, -m], None
    if means == "equal-norms":
        r = sp.Symbol(f"{prefix}r", positive=True)
        if D == 1:
            if K > 2:
                raise ValueError("at most two distinct means of equal norm in dimension 1")
            return [sp.Matrix([r]), sp.Matrix([-r])][:K], r
        ms = []
        for k in range(K):
            t = sp.symbols(f"{prefix}t{k + 1}_1:{D}", real=True)
            ms.append(sp.Matrix([r * x for x in stereographic(t)]))
        return ms, r
    raise ValueError(f"unknown mean structure {means!r} (one of {', '.join(MEANS)})")


def structured_mixture(K: int, D: int, covariance: str = "general", means: str = "generic", weights: str = "generic",
                       centred: bool = False, degenerate_rank: int | None = None, prefix: str = "") -> SymbolicMixture:
    """The symbolic family with ``K`` components in dimension ``D`` and the given structure (see
    the module docstring).  ``variances`` is set for isotropic families, ``radius`` for equal
    norms.  ``centred`` with generic means solves for the last mean; with antipodal means it
    needs equal weights (then it holds already); other combinations raise ValueError."""
    if weights not in WEIGHTS:
        raise ValueError(f"unknown weight structure {weights!r} (one of {', '.join(WEIGHTS)})")
    ws = [sp.Rational(1, K)] * K if weights == "equal" else list(sp.symbols(f"{prefix}pi1:{K + 1}", positive=True))
    covs, variances = _covariances(K, D, covariance, degenerate_rank, prefix)
    ms, radius = _means(K, D, means, prefix)
    if centred and K == 1:
        ms = [sp.zeros(D, 1)]
    elif centred:
        if means == "generic":
            ms = ms[:-1] + [-sum((w * m for w, m in zip(ws[:-1], ms[:-1])), sp.zeros(D, 1)) / ws[-1]]
        elif means == "coincident":
            ms = [sp.zeros(D, 1)] * K
        elif not (means == "antipodal" and weights == "equal"):
            raise ValueError(f"a centred mixture with {means} means is only built for two antipodal means "
                             "of equal weights")
    mix = SymbolicMixture(ws, ms, covs, variances=variances, radius=radius)
    broken = promise_broken(mix, K, D, covariance, means, weights, centred)
    if broken:
        raise RuntimeError(f"structured_mixture({K}, {D}, {covariance!r}, {means!r}, {weights!r}, centred={centred}): "
                           f"the family breaks its own structure: {broken}")
    return mix


def _zero(x) -> bool:
    return sp.cancel(sp.together(x)) == 0


def promise_broken(mix: SymbolicMixture, K: int, D: int, covariance: str = "general", means: str = "generic",
                   weights: str = "generic", centred: bool = False) -> str:
    """'' when the symbolic mixture has the structure it is built for, else what it breaks (exact: rational
    functions of the family's symbols cancelled to 0).  :func:`structured_mixture` checks every family it
    returns, so a statement is never decided on a family without the property its assumptions promise.

    >>> promise_broken(structured_mixture(2, 2, "shared-isotropic", "equal-norms"), 2, 2, "shared-isotropic",
    ...                "equal-norms")
    ''
    >>> promise_broken(structured_mixture(2, 2), 2, 2, means="equal-norms")
    'means 1 and 2 of unequal norms'
    """
    ws, ms, gs = list(mix.weights), list(mix.means), list(mix.covariances)
    if not (len(ws) == len(ms) == len(gs) == K):
        return f"{len(ws)} weights, {len(ms)} means, {len(gs)} covariances for {K} components"
    if any(m.shape != (D, 1) for m in ms) or any(g.shape != (D, D) or g != g.T for g in gs):
        return f"a mean that is no {D} x 1 column or a covariance that is no symmetric {D} x {D} matrix"
    vs = mix.variances
    if covariance in ("isotropic", "shared-isotropic") and (
            vs is None or len(vs) != K or any(g != v * sp.eye(D) for g, v in zip(gs, vs))):
        return "a covariance that is not its variance times I"
    if covariance in ("shared", "shared-isotropic") and any(g != gs[0] for g in gs):
        return "covariances that are not one shared covariance"
    if covariance == "diagonal" and any(g[i, j] != 0 for g in gs for i in range(D) for j in range(D) if i != j):
        return "a covariance that is not diagonal"
    if means == "equal-norms":
        for k in range(1, K):
            if not _zero((ms[k].T * ms[k])[0] - (ms[0].T * ms[0])[0]):
                return f"means 1 and {k + 1} of unequal norms"
        if mix.radius is not None and not _zero((ms[0].T * ms[0])[0] - sp.sympify(mix.radius) ** 2):
            return "a mean whose norm is not the radius"
    if means == "antipodal" and (K != 2 or any(x != 0 for x in ms[0] + ms[1])):
        return "means that are not m and -m"
    if means == "coincident" and any(m != ms[0] for m in ms):
        return "means that do not coincide"
    if weights == "equal" and any(w != sp.Rational(1, K) for w in ws):
        return f"weights that are not 1/{K}"
    if centred and any(not _zero(x) for x in sum((w * m for w, m in zip(ws, ms)), sp.zeros(D, 1))):
        return "a mixture whose weighted mean is not 0"
    return ""
