"""Generic configurations by construction: the draws.

A claim decided only on a paper's configuration is blind to every term that vanishes there
(equal-norm means, weights 1/2, symmetric matrices, tilts so small that log-space never
matters, ...).  This module holds the draws of configurations where no such coincidence holds:
``mixture``, ``weights``, ``means``, ``spd``, ``matrix``, ``vector``, ``large_scores``,
``rational``, each taking a NumPy ``Generator`` (in a claim's ``draw(rng, p, i)``, the engine
passes ``ctx.stream("configuration", i)``: the same seed gives the same configurations, a
different seed different ones, and a negative control is decided on exactly its claim's).
Numbers are short decimals written as strings, so they parse exactly (Fractions) wherever a
check works in exact or arbitrary-precision arithmetic.

Running a claim on them is the engine's: ``@softmix.claim(..., configurations=softmix.Draws(draw,
quick=1, full=3))`` (:mod:`softmix.checks.configurations`: the alpha split, the skipped draws,
the control rule, the evidence).

The engine knows nothing of the paper: draws are about mixtures and matrices, not claims.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["rational", "weights", "means", "spd", "matrix", "vector", "mixture", "large_scores", "MAX_TRIES",
           "exhausted"]


# ---- draws ----------------------------------------------------------------------------------------
#: every rejection loop stops after this many draws with a RuntimeError: a draw whose promise cannot be met
#: fails instead of hanging
MAX_TRIES = 10_000


def exhausted(what: str) -> RuntimeError:
    """The error of a rejection loop that ran out of tries (``what``: the draw and its promise)."""
    return RuntimeError(f"configs.{what}: no draw met its promise in {MAX_TRIES} tries")

def rational(rng, low: float, high: float, digits: int = 2, avoid=()) -> str:
    """A decimal string in [low, high] with ``digits`` decimals, away (>= 10^-digits) from
    every value in ``avoid`` (RuntimeError when 1000 draws found none: never an avoided value)."""
    q = 10**digits
    for _ in range(1000):
        v = Fraction(int(rng.integers(int(np.ceil(low * q)), int(np.floor(high * q)) + 1)), q)
        if all(abs(v - Fraction(a).limit_denominator(10**9)) >= Fraction(1, q) for a in avoid):
            return _dec(v, digits)
    raise RuntimeError(f"could not draw a value in [{low}, {high}] away from {list(avoid)}")


def _dec(v: Fraction, digits: int = 2) -> str:
    q = 10**digits
    n = round(v * q)
    sign = "-" if n < 0 else ""
    n = abs(n)
    s = f"{sign}{n // q}.{n % q:0{digits}d}".rstrip("0").rstrip(".")
    return s if s not in ("-0", "") else "0"


def weights(rng, K: int, away: float = 0.1, digits: int = 2) -> list[str]:
    """Mixture weights summing to one exactly, each >= away, no two equal and none equal to
    1/K (so that 'pi = 1/2' or 'equal weights' never holds by accident)."""
    q = 10**digits
    lo = int(np.ceil(away * q))
    for _ in range(1000):
        cuts = np.sort(rng.choice(np.arange(lo, q - lo + 1), size=K - 1, replace=False)) if K > 1 else np.array([])
        parts = np.diff(np.concatenate([[0], cuts, [q]])).astype(int)
        if K == 1:
            return ["1"]
        if parts.min() >= lo and len(set(parts.tolist())) == K and all(abs(p * K - q) >= K for p in parts):
            return [_dec(Fraction(int(p), q), digits) for p in parts]
    raise RuntimeError("could not draw weights")  # pragma: no cover


def vector(rng, D: int, low: float = -2.0, high: float = 2.0, norm_range=None, digits: int = 2) -> list[str]:
    """A vector with no zero entry; ``norm_range=(a, b)`` rescales (approximately) to a norm
    in [a, b] before rounding."""
    for _ in range(MAX_TRIES):
        v = rng.uniform(low, high, size=D)
        if norm_range is not None:
            v = v / np.linalg.norm(v) * rng.uniform(*norm_range)
        out = [_dec(Fraction(float(x)).limit_denominator(10**digits * 10), digits) for x in v]
        if all(s != "0" for s in out):
            return out
    raise exhausted("vector")


def means(rng, K: int, D: int, norm_range=(0.5, 2.5), equal_norms: bool = False, min_ratio: float = 1.2,
          digits: int = 2) -> list[list[str]]:
    """K means in R^D.  ``equal_norms=False`` (default): the largest norm is at least
    ``min_ratio`` times the smallest.  ``equal_norms=True``: exactly equal norms (integer
    coordinates from Pythagorean-type sums when D >= 2, else opposite signs) -- generic within
    the symmetry otherwise (not collinear for D >= 2, not opposite)."""
    if equal_norms:
        return _equal_norm_means(rng, K, D)
    for _ in range(MAX_TRIES):
        ms = [vector(rng, D, norm_range=norm_range, digits=digits) for _ in range(K)]
        norms = [np.linalg.norm([float(x) for x in m]) for m in ms]
        if K == 1 or max(norms) >= min_ratio * min(norms):
            return ms
    raise exhausted("means")


def _signed_perms(v):
    import itertools
    out = set()
    for p in itertools.permutations(v):
        for sg in itertools.product((1, -1), repeat=len(v)):
            out.add(tuple(a * b for a, b in zip(p, sg)))
    return sorted(out)


_EQUAL_NORM = {2: _signed_perms((3, 4)), 3: _signed_perms((1, 2, 2))}


def _equal_norm_means(rng, K, D):
    """Exactly equal norms, pairwise neither equal nor opposite nor collinear (D >= 2); every
    coordinate non-zero when D <= 3 (signed permutations of (3, 4) or (1, 2, 2))."""
    if D == 1:
        if K > 2:
            raise ValueError("at most two distinct equal-norm means in dimension 1")
        r = rational(rng, 0.5, 2.5)
        return [[r], ["-" + r]][:K]
    base = _EQUAL_NORM[min(D, 3)]
    scale = Fraction(int(rng.integers(2, 9)), 10 if D == 2 else 5)
    for _ in range(1000):
        idx = rng.choice(len(base), size=K, replace=False)
        vs = [base[int(i)] for i in idx]
        ok = all(any(a[i] * b[j] - a[j] * b[i] for i in range(len(a)) for j in range(i + 1, len(a)))
                 for x, a in enumerate(vs) for b in vs[x + 1:])
        if ok:
            break
    out = []
    for a in vs:
        v = [Fraction(x) * scale for x in a] + [Fraction(0)] * (D - len(a))
        out.append([_dec(x, 3) if (x * 1000).denominator == 1 else str(x) for x in v])
    return out


def spd(rng, D: int, rank: int | None = None, scale_range=(0.3, 2.0), digits: int = 2) -> list[list[str]]:
    """A symmetric positive semi-definite matrix L L^T, L D x rank with short decimal entries
    (exact), non-isotropic (distinct eigenvalues almost surely) and, for rank < D, singular."""
    r = D if rank is None else int(rank)
    for _ in range(MAX_TRIES):
        Lm = [[Fraction(int(rng.integers(-10, 11)), 10) for _ in range(r)] for _ in range(D)]
        M = [[sum((Lm[i][k] * Lm[j][k] for k in range(r)), Fraction(0)) for j in range(D)] for i in range(D)]
        Mf = np.array([[float(x) for x in row] for row in M])
        ev = np.linalg.eigvalsh(Mf)
        if np.linalg.matrix_rank(Mf, tol=1e-9) != r:
            continue
        # distinct eigenvalues on the range, and away from the kernel's 0 (which has multiplicity D - r:
        # counting it more than once made every draw of rank <= D - 2 fail, and the loop never ended)
        spectrum = ev[D - r:] if r == D else np.concatenate([[0.0], ev[D - r:]])
        if len(spectrum) > 1 and np.min(np.diff(spectrum)) < 0.05:
            continue
        if r == D and ev.min() < 0.1 * scale_range[0]:
            continue
        if any(M[i][j] != 0 for i in range(D) for j in range(D) if i != j) or D == 1:
            return [[_dec(x, 2 * digits) if (x * 10**(2 * digits)).denominator == 1 else str(x) for x in row]
                    for row in M]
    raise exhausted("spd")


def matrix(rng, rows: int, cols: int | None = None, low: float = -1.0, high: float = 1.0, symmetric: bool = False,
           min_asymmetry: float = 0.1, digits: int = 2) -> list[list[str]]:
    """A dense matrix; when square and not ``symmetric``, ||A - A^T||_max >= min_asymmetry so
    that a transpose is never invisible."""
    cols = rows if cols is None else cols
    for _ in range(MAX_TRIES):
        A = [[rational(rng, low, high, digits) for _ in range(cols)] for _ in range(rows)]
        if symmetric:
            return [[A[min(i, j)][max(i, j)] for j in range(cols)] for i in range(rows)]
        if rows != cols or rows == 1:
            return A
        Af = np.array([[float(x) for x in r] for r in A])
        if np.max(np.abs(Af - Af.T)) >= min_asymmetry:
            return A
    raise exhausted("matrix")


def mixture(rng, K: int, D: int, singular: int = 1, shared: bool = False, equal_norms: bool = False,
            norm_range=(0.5, 2.5), away: float = 0.1, assume=()) -> dict:
    """A JSON mixture {"weights", "means", "covariances"}: distinct weights away from 1/K,
    unequal-norm means (unless ``equal_norms``), non-isotropic covariances, ``singular`` of
    them rank-deficient (rank D - 1, or 0 when D = 1 is impossible: rank 1 then).

    ``assume``: assumptions (catalogue names or :class:`softmix.checks.assumptions.Assumption`
    objects) the draw must satisfy -- ``equal-norms``, ``antipodal``, ``equal-weights``,
    ``centred``, ``shared-covariance``, ``isotropic``, ``shared-isotropic``, ``diagonal``,
    ``singular``; generic in everything else (a user assumption's ``family`` transform does not
    apply to these JSON draws)."""
    from .assumption_runs import family_spec
    from .assumptions import resolve

    spec = family_spec([resolve(a) for a in assume], components=K)
    spec["means"] = "equal-norms" if equal_norms and spec["means"] == "generic" else spec["means"]
    spec["covariance"] = "shared" if shared and spec["covariance"] == "general" else spec["covariance"]
    w = weights(rng, K, away) if spec["weights"] == "generic" else [_exact(Fraction(1, K))] * K
    m = _structured_means(rng, K, D, spec, w, norm_range)
    cov = spec["covariance"]
    if cov in ("isotropic", "shared-isotropic", "diagonal"):
        # distinct values in the order drawn (a set's order follows PYTHONHASHSEED: the draws would differ by process)
        vs = sorted(dict.fromkeys(rational(rng, 0.3, 2.0) for _ in range(4 * K * D)), key=lambda _: rng.random())
        if cov == "shared-isotropic":
            vs = vs[:1] * K
        covs = [[[(vs[(k * D + i) if cov == "diagonal" else k] if i == j else "0") for j in range(D)] for i in range(D)]
                for k in range(K)]
    elif cov == "shared":
        G = spd(rng, D)
        covs = [G for _ in range(K)]
    else:
        n_sing = max(singular, 1 if spec["degenerate"] else 0) if (spec["degenerate"] or singular) else 0
        covs = [spd(rng, D, rank=(max(1, D - 1) if k < n_sing and D > 1 else None)) for k in range(K)]
    return {"weights": w, "means": m, "covariances": covs}


def _exact(v: Fraction) -> str:
    return _dec(v, 6) if (v * 10**6).denominator == 1 else str(v)


def _structured_means(rng, K, D, spec, w, norm_range):
    kind = spec["means"]
    if kind == "antipodal":
        m1 = vector(rng, D, norm_range=norm_range)
        ms = [m1, [_exact(-Fraction(x)) for x in m1]]
    elif kind == "coincident":
        ms = [vector(rng, D, norm_range=norm_range)] * K
    else:
        ms = means(rng, K, D, norm_range, kind == "equal-norms")
    if spec["centred"] and kind not in ("antipodal",) and K > 1:
        fw = [Fraction(x) for x in w]
        last = [-sum(fw[k] * Fraction(ms[k][i]) for k in range(K - 1)) / fw[-1] for i in range(D)]
        ms = ms[:-1] + [[_exact(x) for x in last]]
    return ms


def large_scores(rng, n: int, low: float = 1000.0, high: float = 5000.0) -> list[str]:
    """Scores in the thousands (where exp overflows in double precision and only a log-space
    evaluation survives), with distinct values and both signs."""
    out: list = []
    while len(out) < n:
        v = rational(rng, low, high, 1)
        v = v if rng.random() < 0.5 else "-" + v
        if v not in out:
            out.append(v)
    if n >= 2 and len({x.startswith("-") for x in out}) == 1:  # one sign only (1 draw in 2^(n-1)): flip the last
        out[-1] = out[-1][1:] if out[-1].startswith("-") else "-" + out[-1]
    return out
