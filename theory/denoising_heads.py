"""Single softmax heads that realise the Bayes denoiser, derived from the definitions (Props. C.3, C.4).

A single head realises f* when the Sec. 4.1 display ``T_{U,V}[mu_Z](z)`` equals f*(z) for every z.
Put over one denominator (sums of exponentials, never 0), the difference is a numerator
``sum_j c_j(z) exp(lambda_j(U) . z)`` with polynomial coefficients; distinct exponents give
linearly independent functions over the polynomials, so it vanishes identically iff, for the
partition of the exponents into coinciding classes, every class's summed coefficients vanish.
:func:`exp_groups` builds the classes, :func:`identity_solutions` solves every partition exactly
(Groebner bases), :func:`derived_single_heads` does both at one task; :func:`stated_single_heads`
solves the paper's conditions (1)-(3) (and the exchanged endpoints of Prop. C.4's proof).

Exact SymPy throughout; no numerics.
"""
from __future__ import annotations

import sympy as sp
from sympy.utilities.iterables import multiset_partitions

from . import denoising as TD
from .mixtures import matrix_symbols

__all__ = ["exp_groups", "identity_solutions", "solve_polynomial_system", "exchanged_endpoint_conditions",
           "derived_single_heads", "stated_single_heads", "positive_gamma_roots", "circle_family_facts"]


def exp_groups(exprs, z) -> dict:
    """Each expression, over one denominator, has a numerator ``sum_j c_j(z) exp(lambda_j . z)``:
    returns ``{lambda_j: [c_j per expression]}`` (exact).  Every exp atom must have an argument
    affine in ``z`` (else ValueError); ``exp(const)`` factors are kept in ``c_j``.

    >>> z = sp.symbols("z")
    >>> sorted(exp_groups([sp.exp(2 * z) - z * sp.exp(2 * z)], [z]).items())
    [((2,), [1 - z])]
    """
    atoms = sorted(set().union(*[sp.sympify(e).atoms(sp.exp) for e in exprs]), key=sp.default_sort_key)
    X = sp.symbols(f"_X0:{len(atoms)}")
    lams, rep = [], {}
    for x, a in zip(X, atoms):
        arg = sp.expand(a.args[0])
        lam = tuple(sp.expand(arg.diff(zi)) for zi in z)
        if any(entry.has(*z) for entry in lam):
            raise ValueError(f"exponent {arg} is not affine in z")
        const = sp.expand(arg - sum(entry * zi for entry, zi in zip(lam, z)))
        lams.append(lam)
        rep[a] = x * sp.exp(const)
    groups: dict = {}
    for j, e in enumerate(exprs):
        num = sp.numer(sp.together(sp.sympify(e).xreplace(rep)))
        for mono, coeff in sp.Poly(sp.expand(num), *X).terms():
            lam = tuple(sp.expand(sum(k * entry[i] for k, entry in zip(mono, lams))) for i in range(len(z)))
            groups.setdefault(lam, [sp.Integer(0)] * len(exprs))
            groups[lam][j] += coeff
    return groups


def identity_solutions(groups: dict, z, unknowns) -> list[dict]:
    """All values of ``unknowns`` making ``sum_j c_j(z) exp(lambda_j . z)`` vanish identically in z.

    For each partition of the exponents into classes that coincide (a linear condition on the
    unknowns) the summed coefficient polynomials of every class must vanish; the union over the
    partitions is the solution set.  Returns SymPy's solution dicts (a free unknown is a free
    parameter).

    >>> u, z = sp.symbols("u z")
    >>> identity_solutions(exp_groups([sp.exp(u * z) - sp.exp(2 * z)], [z]), [z], [u])
    [{u: 2}]
    """
    keys = list(groups)
    sols: list = []
    for blocks in multiset_partitions(list(range(len(keys)))):
        lin = [sp.expand(a - b) for blk in blocks for i in blk[1:] for a, b in zip(keys[blk[0]], keys[i])]
        lin = [e for e in lin if e != 0]
        if any(not e.free_symbols & set(unknowns) for e in lin):
            continue  # two exponents that differ by a non-zero constant never coincide
        eqs = list(lin)
        for blk in blocks:
            for j in range(len(groups[keys[0]])):
                c = sp.expand(sum(groups[keys[i]][j] for i in blk))
                if c != 0:
                    eqs += sp.Poly(c, *z).coeffs()
        for s in solve_polynomial_system(eqs, unknowns):
            if s not in sols:
                sols.append(s)
    return sols


def exchanged_endpoint_conditions(U, V, m1, m2, gamma, xi) -> list:
    """Prop. C.4's proof, 'for completeness': the exchanged endpoints ``V m1 = a m2``, ``V m2 = a m1``,
    ``U^T dm = -dm / s`` with condition (1) kept (admissible only when pi1 = pi2: the intercepts),
    as polynomial equations."""
    d = m1.shape[0]
    s = gamma**2 + xi**2
    a = xi**2 / s
    dm = m1 - m2
    eqs = list(s * V * U - gamma**2 / s * sp.eye(d)) + list(U.T * dm + dm / s)
    eqs += list(V * m1 - a * m2) + list(V * m2 - a * m1)
    return [sp.numer(sp.together(e)) for e in eqs]


def solve_polynomial_system(eqs, unknowns) -> list[dict]:
    """Exact solutions of polynomial equations ``eqs == 0`` in ``unknowns`` (SymPy solution dicts; an
    unknown left out of a dict is free), never silently empty and never unchecked.

    An inconsistent system (reduced Groebner basis ``[1]``) has no solution: ``[]``.  Otherwise SymPy's
    ``solve`` runs on the Groebner basis and, when that finds nothing (it does on some
    positive-dimensional systems, e.g. Prop. C.4's exchanged endpoints in d = 3), on the equations
    themselves; every solution is substituted back and must make every equation vanish identically.
    A consistent system with no solution found, or a solution that fails its check, raises
    ``ArithmeticError``: an empty list always means *no solution*.

    >>> x, y = sp.symbols("x y")
    >>> solve_polynomial_system([x * y - 1, x - y], [x, y])
    [{x: -1, y: -1}, {x: 1, y: 1}]
    >>> solve_polynomial_system([x - 1, x - 2], [x])
    []
    """
    G = sp.groebner(eqs, *unknowns, order="grevlex")
    if G.exprs == [1]:
        return []
    sols = sp.solve(G.exprs, unknowns, dict=True, check=False) or sp.solve(list(eqs), unknowns, dict=True)
    if not sols:
        raise ArithmeticError(f"SymPy found no solution of a consistent polynomial system in {len(unknowns)} "
                              "unknowns: its solution set cannot be decided here")
    for s in sols:
        bad = [e for e in eqs if sp.simplify(sp.together(sp.sympify(e).xreplace(s))) != 0]
        if bad:
            raise ArithmeticError(f"SymPy returned a solution that does not solve the system: {bad[0]} != 0 at {s}")
    return sols


def derived_single_heads(m1, m2, gamma, xi, pi1):
    """The single heads with display == f* for every z at one exact task (d = 2): ``(U, V, z, e,
    solutions)`` with ``U``, ``V`` the symbolic head, ``z`` the query symbols, ``e`` the difference
    display - f* (f* by Gaussian conditioning) and ``solutions`` the exact solution dicts."""
    m1, m2 = sp.Matrix(m1), sp.Matrix(m2)
    d = m1.shape[0]
    z = sp.Matrix(sp.symbols(f"z_1:{d + 1}"))
    U, V = matrix_symbols("U", d), matrix_symbols("V", d)
    S = (gamma**2 + xi**2) * sp.eye(d)
    e = TD.single_head_display([pi1, 1 - pi1], [m1, m2], S, U, V, z) - \
        TD.bayes_denoiser_conditioning([pi1, 1 - pi1], [m1, m2], gamma**2 * sp.eye(d), xi, z)
    return U, V, z, e, identity_solutions(exp_groups(list(e), z), list(z), list(U) + list(V))


def stated_single_heads(U, V, m1, m2, gamma, xi, pi1) -> dict:
    """The stated single heads: ``{"(1)-(3)": solutions of conditions (1)-(3)}`` and, when pi1 = 1/2,
    ``"exchanged endpoints"``: the solutions of :func:`exchanged_endpoint_conditions`."""
    m1, m2 = sp.Matrix(m1), sp.Matrix(m2)
    unknowns = list(U) + list(V)
    out = {"(1)-(3)": solve_polynomial_system(TD.single_head_conditions(U, V, m1, m2, gamma, xi), unknowns)}
    if pi1 == sp.Rational(1, 2):
        exchanged = exchanged_endpoint_conditions(U, V, m1, m2, gamma, xi)
        out["exchanged endpoints"] = solve_polynomial_system(exchanged, unknowns)
    return out


def positive_gamma_roots(m1, m2):
    """``(elimination ideal in gamma, its roots that may be positive)`` of conditions (1)-(3) at the
    means ``m1``, ``m2`` (:func:`softmix.theory.denoising.prop_c4_elimination`)."""
    elim, gamma, _xi = TD.prop_c4_elimination(m1, m2)
    roots = set()
    for g in elim:
        for r in sp.solve(g, gamma):
            if r.is_positive is not False and r != 0:
                roots.add(sp.simplify(r))
    return elim, sorted(roots, key=str)


def circle_family_facts(d: int = 2) -> dict:
    """The symbolic means the Section 4 derivations are decided on (:func:`circle_means`) are what
    they are said to be, decided exactly for every admissible parameter: 'generic' has equal norms
    and a positive minor (never collinear), 'unequal' has ``||m2||^2 - ||m1||^2 > 0``, 'opposite'
    has ``m1 + m2 = 0`` with ``m1 != 0``.  Returns the facts and ``passed``."""
    m1, m2, _ = TD.circle_means(d, "generic")
    gap = sp.cancel((m1.T * m1)[0, 0] - (m2.T * m2)[0, 0])
    minor = sp.factor(m1[0] * m2[1] - m1[1] * m2[0])
    mu1, mu2, _ = TD.circle_means(d, "unequal")
    ugap = sp.factor((mu2.T * mu2)[0, 0] - (mu1.T * mu1)[0, 0])
    o1, o2, _ = TD.circle_means(d, "opposite")
    r = {"d": d, "generic_norm_gap": str(gap), "generic_minor": str(minor), "unequal_norm_gap": str(ugap),
         "opposite_sum": str(list(o1 + o2)), "equal_norms": gap == 0, "non_collinear": minor.is_positive is True,
         "unequal_norms": ugap.is_positive is True,
         "opposite": all(v == 0 for v in o1 + o2) and (o1.T * o1)[0, 0].is_positive is True}
    r["passed"] = bool(r["equal_norms"] and r["non_collinear"] and r["unequal_norms"] and r["opposite"])
    return r
