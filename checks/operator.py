"""``softmix.operator_claim``: a user's statement about the softmax attention operator, decided.

A statement is a function ``stated(mix, U, V, z)`` returning the claimed ``T_{U,V}[mu](z)``
(eq. (1) of Gabet, Boursier & Boyer 2026) as a SymPy column matrix, built from ``mix`` (a
:class:`softmix.theory.mixtures.SymbolicMixture` with ``.weights``, ``.means``,
``.covariances``), ``U``, ``V`` (SymPy matrices) and ``z`` (a SymPy column).  The ladder:

1. **symbolic** (exact): for a generic symbolic family with exactly ``components`` components
   in dimension ``dim`` (one shared covariance when ``shared_covariance``; also a family of
   rank-one covariances L L^T when ``degenerate``), ``derived - stated`` is simplified to zero,
   where ``derived = V grad Lambda(U z)`` is differentiated from the cumulant generating function
   Lambda (:func:`softmix.theory.attention.softmax_attention_derived`).  A random rational point
   with a residual far above the working precision refutes.
2. **numeric** (40+ digits): random rational instances with the same number of components, in
   dimension ``dim`` and larger ones (singular covariances only when ``degenerate``): the stated
   map, evaluated exactly and rounded at ``dps`` digits, against definition (1) by Gauss-Hermite
   quadrature (dimension <= 2, refined until two successive rules agree to the tolerance; if
   they never do the row is undecidable) and against the exact gradient of the CGF at the rationals (every dimension).
   A failing instance is shrunk greedily (entries set to 0 or +-1 while it still fails) and
   reported as the ``counterexample``.
3. **automatic negative controls**: perturbations of the user's *stated* map -- one additive
   term dropped, one term's sign flipped, every exponential's argument scaled by 6/5 (a gate's
   argument changed; when the statement has exponentials), ``U`` replaced by its transpose
   (``dim >= 2``).  The same check must refute each.

``verified`` needs the symbolic proof; numeric agreement alone is ``confirmed``.
"""
from __future__ import annotations

import dataclasses
from fractions import Fraction

import mpmath as mpm
import sympy as sp

from softmix.numerics.errors import InputError
from softmix.numerics.precision import to_mpf, workdps
from softmix.numerics.quadrature import expect_mixture
from softmix.theory.attention import softmax_attention_derived
from softmix.theory.derivation import Derivation
from softmix.theory.mixtures import SymbolicMixture, cgf, gradient, matrix_symbols, symbolic_mixture, vector_symbols

from .api import claim, decide, outcome, part
from .rules import Residual
from .strategies import _exact_rank, random_matrix, random_mixture

__all__ = ["operator_claim", "definition_by_quadrature", "exact_operator", "sym_mixture", "perturb", "CONTROLS",
           "compare", "random_instance", "describe_instance", "to_mp", "rational_matrix"]

#: automatic negative controls (name -> description)
CONTROLS = {
    "dropped-term": "the stated map with one additive term dropped (first sum met in its first entry)",
    "flipped-sign": "the stated map with one term's sign flipped (first sum met in its first entry)",
    "gate-argument": "the stated map with every exponential's argument scaled by 6/5 (a gate's argument changed)",
    "transposed-U": "the stated map applied with U transposed",
}


# ---- exact and quadrature references (independent of the stated side) --------------------------
def _R(x):
    x = Fraction(x)
    return sp.Rational(x.numerator, x.denominator)


def sym_mixture(mix) -> SymbolicMixture:
    """A numeric rational GaussianMixture as a SymbolicMixture of exact rationals."""
    return SymbolicMixture([_R(w) for w in mix.weights], [sp.Matrix([_R(v) for v in m]) for m in mix.means],
                           [sp.Matrix([[_R(v) for v in r] for r in G]) for G in mix.covariances])


def _mat(M):
    return sp.Matrix([[_R(v) for v in r] for r in M])


def rational_matrix(M) -> sp.Matrix:
    """Rows of Fractions (or a flat list: a column) as an exact SymPy matrix."""
    M = list(M)
    return _mat(M if M and isinstance(M[0], (list, tuple)) else [[v] for v in M])


def compare(rule, value, reference, quadrature_error=None, **keys) -> dict:
    """One evidence row: ``rule.decide(max |value - reference|, max |reference|)`` (mpmath columns)
    with ``keys`` first; a quadrature whose error estimate exceeds the rule's tolerance makes the
    row undecidable (``passed`` None: inconclusive, never refuted)."""
    res = max(abs(x - y) for x, y in zip(value, reference))
    row = {**keys, **rule.decide(res, max(abs(x) for x in reference))}
    if quadrature_error is not None:
        row["quadrature_error_estimate"] = mpm.nstr(quadrature_error, 3)
        if quadrature_error > mpm.mpf(10) ** (rule.guard - rule.dps):
            row.update(passed=None, verdict="inconclusive", reason="quadrature error estimate above the tolerance")
    return row


def exact_operator(mix, U, V, z) -> sp.Matrix:
    """V grad Lambda(U z) at rationals, exactly (differentiated from the CGF)."""
    smix = sym_mixture(mix)
    a = vector_symbols("a", mix.dim)
    point = dict(zip(a, _mat(U) * _mat([[v] for v in z])))  # rationals: xreplace is exact and fast
    return _mat(V) * gradient(cgf(smix, a), a).xreplace(point)


def definition_by_quadrature(mix, U, V, z, dps: int, nodes: int, tol=None, max_nodes: int = 160):
    """Eq. (1) literally: int e^{<Uz, x>} V x dmu / int e^{<Uz, x>} dmu by Gauss-Hermite
    quadrature with n = ``nodes``, 1.5 n + 2, ... nodes per direction of each covariance's range,
    until two successive rules agree to ``tol`` (relative; default 10^(10 - dps)) or n would pass
    ``max_nodes``.  Returns the last value and |last - previous| relative (an a-posteriori
    estimate of the previous rule's error, hence conservative for the last; not a bound)."""
    with workdps(dps):
        Um = mpm.matrix([[to_mpf(v) for v in r] for r in U])
        Vm = mpm.matrix([[to_mpf(v) for v in r] for r in V])
        a = Um * mpm.matrix([to_mpf(v) for v in z])
        tol = mpm.mpf(10) ** (10 - dps) if tol is None else mpm.mpf(tol)

        def f(x):
            e = mpm.exp(sum(a[i] * x[i] for i in range(len(x))))
            y = Vm * x
            return mpm.matrix([e] + [e * y[i] for i in range(y.rows)])

        def T(val):
            return mpm.matrix([val[i + 1] / val[0] for i in range(val.rows - 1)])

        n = int(nodes)
        prev = expect_mixture(f, mix, n=n, dps=dps)
        while True:
            n = int(1.5 * n) + 2
            cur = expect_mixture(f, mix, n=n, dps=dps)
            err = max(abs(x - y) for x, y in zip(cur, prev)) / abs(cur[0])
            if err <= tol or int(1.5 * n) + 2 > max_nodes:
                return T(cur), err
            prev = cur


def to_mp(M: sp.Matrix, dps: int):
    """An exact SymPy column rounded to ``dps`` digits (mpmath column); non-finite -> ArithmeticError."""
    return _to_mp(M, dps)


def _to_mp(M: sp.Matrix, dps: int):
    out = []
    with workdps(dps + 10):  # the mpf keep these digits whatever the caller's context
        for e in M:
            v = sp.N(e, dps + 10)
            if not v.is_number or v.has(sp.nan, sp.zoo, sp.oo, -sp.oo) or not v.is_real:
                raise ArithmeticError(f"stated value {sp.sstr(e)[:80]} is not a finite real number")
            out.append(mpm.mpf(str(v)))
        return mpm.matrix(out)


# ---- perturbations of the stated map (automatic negative controls) -----------------------------
def _first_add(e):
    for node in sp.preorder_traversal(e):
        if isinstance(node, sp.Add) and len(node.args) >= 2:
            return node
    return None


def _edit_first_entry(M, how):
    M = sp.Matrix(M)
    e = sp.sympify(M[0])
    a = _first_add(e)
    if a is None:
        M[0] = sp.Integer(0) if how == "drop" else -e
        if M[0] == e:  # a zero entry: any change will do
            M[0] = sp.Integer(1)
        return M
    rest, last = sp.Add(*a.args[:-1]), a.args[-1]
    M[0] = e.xreplace({a: rest if how == "drop" else rest - last})
    return M


def perturb(stated, name: str):
    """The stated map altered by the automatic control ``name`` (see :data:`CONTROLS`)."""
    if name == "dropped-term":
        return lambda mix, U, V, z: _edit_first_entry(stated(mix, U, V, z), "drop")
    if name == "flipped-sign":
        return lambda mix, U, V, z: _edit_first_entry(stated(mix, U, V, z), "flip")
    if name == "gate-argument":
        return lambda mix, U, V, z: sp.Matrix(stated(mix, U, V, z)).applyfunc(
            lambda e: sp.sympify(e).replace(sp.exp, lambda x: sp.exp(sp.Rational(6, 5) * x)))
    if name == "transposed-U":
        return lambda mix, U, V, z: stated(mix, U.T, V, z)
    raise KeyError(f"unknown automatic control {name!r}")


# ---- the claim ---------------------------------------------------------------------------------
def _symbolic_uvz(D):
    return matrix_symbols("U", D), matrix_symbols("V", D, D), vector_symbols("z", D)


def _call(stated, mix, U, V, z, where):
    out = stated(mix, U, V, z)
    if not isinstance(out, sp.MatrixBase):
        out = sp.Matrix(out)
    if out.shape != (V.shape[0], 1):
        raise InputError(f"{where}: stated(mix, U, V, z) must return a {V.shape[0]}x1 column, got shape {out.shape}")
    return out


def random_instance(rng, K, D, degenerate=True, shared=False):
    """A random rational instance (mixture, U, V, z): K components in dimension D, non-singular
    covariances unless ``degenerate`` (then the last component has rank D - 1), U with entries in
    [-1, 1], V and z small rationals; distinct means, U z != 0, V non-singular and U not symmetric
    (D >= 2) by rejection (see ``_generic_head``)."""
    return _instance(rng, K, D, degenerate, shared)


def describe_instance(mix, U, V, z) -> dict:
    """An instance for the evidence, every entry an exact fraction string."""
    return _describe(mix, U, V, z)


def _instance(rng, K, D, degenerate, shared):
    for _ in range(50):
        mix = random_mixture(rng, K, D, degenerate=degenerate and not shared, shared=shared)
        distinct = len({tuple(m) for m in mix.means}) == K  # equal means would let a gate error cancel
        if distinct and (degenerate or all(sp.Matrix(G).rank() == D for G in mix.covariances)):
            break
    while True:  # redrawn from the same stream, so a draw that is already generic is unchanged
        U = [[x / 2 for x in r] for r in random_matrix(rng, D, D, 2, 4)]
        V = random_matrix(rng, D, D, 3, 4)
        z = random_matrix(rng, 1, D, 2, 2)[0]
        if _generic_head(U, V, z):
            return mix, U, V, z


def _generic_head(U, V, z) -> bool:
    """U z != 0 (otherwise the tilt vanishes and every law's attention output is its plain mean V m, so a
    statement about the tilt cannot fail), V non-singular (otherwise a component of every error is
    hidden) and, in dimension >= 2, U not symmetric (otherwise the transposed-U control is invisible on
    the instance).  Seed 8017 drew V = 0 (and two equal means) in d = 1 and U = 0 in d = 2, and
    bb-lemma-2.1's control survived; one draw in ten had a symmetric U in d = 2."""
    D = len(z)
    Uz = [sum(U[i][j] * z[j] for j in range(D)) for i in range(D)]
    asymmetric = D == 1 or any(U[i][j] != U[j][i] for i in range(D) for j in range(i + 1, D))
    return any(v != 0 for v in Uz) and _exact_rank(V) == D and asymmetric


def _describe(mix, U, V, z):
    s = lambda x: str(Fraction(x))
    mixture = {"weights": [s(w) for w in mix.weights], "means": [[s(v) for v in m] for m in mix.means],
               "covariances": [[[s(v) for v in r] for r in G] for G in mix.covariances]}
    return {"mixture": mixture, "U": [[s(v) for v in r] for r in U], "V": [[s(v) for v in r] for r in V],
            "z": [s(v) for v in z]}


def _fails(stated, mix, U, V, z, rule):
    """(failed?, row) comparing the stated map with the exact operator at rationals."""
    D = mix.dim
    with workdps(rule.dps):
        ref = _to_mp(exact_operator(mix, U, V, z), rule.dps)
        try:
            val = _to_mp(_call(stated, sym_mixture(mix), _mat(U), _mat(V), _mat([[v] for v in z]), "stated"), rule.dps)
        except ArithmeticError as e:
            return True, {"dim": D, "passed": False, "verdict": "refuted", "reason": str(e), "rule": rule.describe()}
        res = max(abs(x - y) for x, y in zip(val, ref))
        row = {"dim": D, **rule.decide(res, max(abs(x) for x in ref))}
        row["stated_value"] = [mpm.nstr(x, 20) for x in val]
        row["operator_value"] = [mpm.nstr(x, 20) for x in ref]
    return not row["passed"], row


def _shrink(stated, inst, rule, budget):
    """Greedy: set entries of z, U, V and the means to 0, then to +-1, keeping each change that
    still fails; at most ``budget`` evaluations.  Returns the smallest failing instance found."""
    mix, U, V, z = inst
    U, V, z = [list(r) for r in U], [list(r) for r in V], list(z)
    means = [list(m) for m in mix.means]
    from softmix.numerics.mixture import GaussianMixture

    def build():
        return GaussianMixture.from_values(mix.weights, means, mix.covariances)

    slots = [(z, i) for i in range(len(z))] + [(r, j) for r in U for j in range(len(r))] + \
            [(r, j) for r in V for j in range(len(r))] + [(m, j) for m in means for j in range(len(m))]
    used = 0
    for target in (0, 1):
        for lst, j in slots:
            if used >= budget:
                break
            old = lst[j]
            new = Fraction(0) if target == 0 else Fraction((old > 0) - (old < 0))
            if old == new or (target == 1 and old == 0):
                continue
            lst[j] = new
            used += 1
            try:
                still, _ = _fails(stated, build(), U, V, z, rule)
            except Exception:
                still = False
            if not still:
                lst[j] = old
    return (build(), U, V, z), used


def operator_claim(id, stated, *, components, dim, shared_covariance=False, degenerate=False, title="", source="",
                   register: bool = True):
    """Register a claim that ``stated(mix, U, V, z)`` equals the softmax attention operator
    ``T_{U,V}[mu](z)`` (eq. (1)) for mixtures with ``components`` components in dimension ``dim``
    (see the module docstring for the ladder and the automatic negative controls).  Returns the
    registered :class:`softmix.checks.registry.Claim` (with ``register=False``: the Claim, not
    registered; see :func:`softmix.checks.runner.run_claim_object`).  A statement that cannot be evaluated on
    the generic symbolic family, or returns the wrong shape, raises InputError here, at import.
    """
    K, D = int(components), int(dim)
    if K < 1 or D < 1:
        raise InputError(f"operator_claim {id}: components and dim must be positive integers")
    if not callable(stated):
        raise InputError(f"operator_claim {id}: stated must be a function (mix, U, V, z) -> column matrix")
    fam = symbolic_mixture(K, D, shared=shared_covariance)
    try:
        probe = _call(stated, fam, *_symbolic_uvz(D), f"operator_claim {id}")
    except InputError:
        raise
    except Exception as e:
        raise InputError(f"operator_claim {id}: stated(mix, U, V, z) failed on a symbolic "
                         f"{K}-component family in dimension {D}: {type(e).__name__}: {e}") from None
    controls = {"dropped-term": CONTROLS["dropped-term"], "flipped-sign": CONTROLS["flipped-sign"]}
    if probe.atoms(sp.exp):
        controls["gate-argument"] = CONTROLS["gate-argument"]
    if D >= 2:
        controls["transposed-U"] = CONTROLS["transposed-U"]

    Params = dataclasses.make_dataclass(f"OperatorParams_{abs(hash(id))}", [
        ("quadrature_dims", list[int], dataclasses.field(default_factory=lambda: [D] if D <= 2 else [])),
        ("exact_dims", list[int], dataclasses.field(default_factory=lambda: [D, D + 2])),
        ("instances", int, dataclasses.field(default=1)),
        ("dps", int, dataclasses.field(default=50)),
        ("nodes", int, dataclasses.field(default=40)),
        ("shrink_budget", int, dataclasses.field(default=24)),
    ])
    Params.__doc__ = f"Parameters of {id}: dimensions of the numeric instances (always {K} components), precision."

    def families():
        fams = [("generic symmetric covariances" if not shared_covariance else "one shared covariance", fam)]
        if degenerate:
            fams.append(("rank-1 covariances L L^T", symbolic_mixture(K, D, shared=shared_covariance, degenerate_rank=1)))
        return fams

    def derivations(st=stated):
        out = []
        for label, m in families():
            U, V, z = _symbolic_uvz(D)
            out.append(Derivation(name=f"{id}: K={K}, D={D}, {label}", source=source or id,
                                  derived=softmax_attention_derived(m, U, V, z), stated=_call(st, m, U, V, z, id),
                                  assumptions=_assumptions))
        return out

    _assumptions = tuple(a for a in (
        f"mu = sum of {K} Gaussian components N(m_k, G_k), pi_k > 0", f"dimension {D} (numeric instances also above)",
        "G_k = G for all k" if shared_covariance else "", "singular G_k allowed" if degenerate else "G_k non-singular")
        if a)

    def check(p: Params, ctx):
        st = stated
        for name in controls:
            if ctx.control(name):
                st = perturb(stated, name)
        sym = decide(derivations(st), ctx)
        rule = Residual(p.dps)
        rows, skipped, failing = [], [], []
        cases = [("quadrature", d) for d in p.quadrature_dims] + [("exact", d) for d in p.exact_dims]
        for method, d in cases:
            for i in range(p.instances):
                key = (method, d, i)
                inst = ctx.data(key, lambda rng: _instance(rng, K, d, degenerate, shared_covariance),
                                params=[K, d, degenerate, shared_covariance])
                mix, U, V, z = inst
                try:
                    with workdps(p.dps):
                        val = _to_mp(_call(st, sym_mixture(mix), _mat(U), _mat(V), _mat([[v] for v in z]), id), p.dps)
                except (InputError, IndexError, sp.ShapeError, ValueError) as e:
                    if d == D:
                        raise
                    skipped.append({"dim": d, "reason": f"statement not defined in dimension {d}: {e}"})
                    continue
                except ArithmeticError as e:
                    row = {"dim": d, "method": method, "passed": False, "verdict": "refuted", "reason": str(e),
                           "rule": rule.describe()}
                    rows.append(row)
                    failing.append((d, inst, row))
                    continue
                with workdps(p.dps):
                    if method == "quadrature":
                        ref, qerr = ctx.data(("ref",) + key, lambda rng: definition_by_quadrature(
                            mix, U, V, z, p.dps, p.nodes), params=[K, d, degenerate, shared_covariance, p.dps, p.nodes])
                    else:
                        ref = ctx.data(("ref",) + key, lambda rng: _to_mp(exact_operator(mix, U, V, z), p.dps),
                                       params=[K, d, degenerate, shared_covariance, p.dps])
                        qerr = None
                    row = compare(rule, val, ref, qerr, dim=d, components=K,
                                  method="definition (1) by Gauss-Hermite quadrature" if method == "quadrature"
                                  else "exact grad Lambda(U z) at rationals")
                row.update(_describe(*inst))
                rows.append(row)
                if row["passed"] is False:
                    failing.append((d, inst, row))
        num = part("numeric", rows, rule=rule)
        extra = {"components": K, "dim": D, "shared_covariance": shared_covariance, "degenerate": degenerate}
        if skipped:
            extra["skipped"] = skipped
        if failing and ctx.variant is None:
            d, inst, row = min(failing, key=lambda t: t[0])
            for lower in range(1, d):  # a dimension-generic statement may fail lower down too
                cand = _instance(ctx.shared_rng("counterexample", lower), K, lower, degenerate, shared_covariance)
                try:
                    if _fails(st, *cand, Residual(min(p.dps, 40)))[0]:
                        inst = cand
                        break
                except Exception:  # the statement is not defined in that dimension
                    continue
            small, used = _shrink(st, inst, Residual(min(p.dps, 40)), p.shrink_budget)
            _, srow = _fails(st, *small, Residual(min(p.dps, 40)))
            extra["counterexample"] = {**_describe(*small), "dim": small[0].dim, "residual": srow.get("residual"),
                                       "stated_value": srow.get("stated_value"),
                                       "operator_value": srow.get("operator_value"),
                                       "shrink_evaluations": used}
        if sym.verdict == "refuted" and ctx.variant is None:
            pts = [r.get("counterexample") for r in sym.rows if r.get("counterexample")]
            if pts:
                extra["symbolic_counterexample"] = pts[0]
        return outcome(sym, num, **extra)

    check.__annotations__ = {"p": Params}
    check.__module__ = getattr(stated, "__module__", __name__)
    check.__qualname__ = getattr(stated, "__qualname__", "stated")
    statement = (stated.__doc__ or "").strip().split("\n")[0] or f"T_{{U,V}}[mu](z) = {getattr(stated, '__name__', 'stated')}(mu, U, V, z)"
    claim(id=id, title=title or f"operator statement {id}", source=source or "user statement",
          controls=controls, section="user", kind="symbolic", statement=statement,
          assumptions=_assumptions, params=Params,
          profiles={"full": {"exact_dims": [D, D + 1, D + 3], "instances": 2}},
          derivations=lambda: derivations(), register=register)(check)
    c = check.claim
    c.check.__wrapped__ = stated
    return c
