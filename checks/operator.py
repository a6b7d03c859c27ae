"""``softmix.operator_claim``: a user's statement about the softmax attention operator, decided.

A statement is a function ``stated(mix, U, V, z, **symbols)`` returning the claimed
``T_{U,V}[mu](z)`` (eq. (1) of Gabet, Boursier & Boyer 2026) as a SymPy column matrix, built from
``mix`` (a :class:`softmix.theory.mixtures.SymbolicMixture` with ``.weights``, ``.means``,
``.covariances``, and ``.variances`` for isotropic families, ``.radius`` for equal norms), ``U``,
``V`` (SymPy matrices), ``z`` (a SymPy column) and the declared extra symbols.  The statement is
made for a *model*: ``components`` components in dimension ``dim``, a covariance structure
(``general``, ``shared``, ``isotropic``, ``shared-isotropic``, ``diagonal``), declared assumptions
(``assume=("equal-norms", ...)``, :mod:`softmix.checks.assumptions`), a head ``U``, ``V`` that is
generic or given (a matrix or ``U(mix, **symbols)``).  The ladder:

1. **symbolic** (exact): on the symbolic family of the model (:mod:`softmix.checks.operator_family`;
   also rank-one covariances L L^T when ``degenerate``), ``derived - stated`` is simplified to
   zero, where ``derived = V grad Lambda(U z)`` is differentiated from the cumulant generating
   function of the family.  A random rational point with a residual far above the working
   precision refutes -- if it is a mixture of the model (:mod:`softmix.checks.operator_model`).
2. **numeric** (50 digits): random rational instances of the model in dimension ``dim`` and larger
   ones: the stated map, evaluated exactly and rounded, against definition (1) by Gauss-Hermite
   quadrature (dimension <= 2) and against the exact gradient of the CGF.  A failing instance is
   shrunk (entries of z, and of U, V and the means when they are generic, set to 0 or +-1 while it
   still fails) and reported as the ``counterexample``.
3. **automatic controls**: perturbations of the user's stated map -- one additive term dropped,
   one term's sign flipped, every exponential's argument scaled by 6/5, ``U`` transposed -- each
   built only when it can differ from the statement on the model (``controls_not_built`` in the
   evidence says which were not, and why); and, per declared assumption, the **assumption-dropped
   control** ``without:NAME``: the same statement decided on the family without it.  A
   perturbation must be refuted; a dropped assumption whose control is not refuted is not needed
   (a ``scope`` finding, not a failure).

``verified`` needs the symbolic proof; numeric agreement alone is ``confirmed``.
"""
from __future__ import annotations

import dataclasses
import inspect
import re

import mpmath as mpm
import sympy as sp

from softmix.numerics.errors import InputError
from softmix.numerics.precision import workdps
from softmix.theory.attention import softmax_attention_derived
from softmix.theory.derivation import Derivation
from softmix.theory.families import COVARIANCES

from .api import claim, decide, outcome, part
from .assumption_runs import BASE_FAMILY
from .assumptions import Assumption, control_id, resolve
from .operator_family import RESERVED_SYMBOL, Head, Instance, _generic_head, _instance  # noqa: F401 (_generic_head: public to the tests)
from .operator_model import classify_refutations, model_violations
from .operator_reference import (
    compare,
    definition_by_quadrature,
    exact_matrix,
    exact_operator,
    rational_matrix,
    sym_mixture,
    to_mp,
)
from .registry import Control
from .rules import Residual
from .statement_kinds import perturb_expr

__all__ = ["operator_claim", "definition_by_quadrature", "exact_operator", "sym_mixture", "perturb", "CONTROLS",
           "compare", "random_instance", "describe_instance", "to_mp", "rational_matrix"]

#: automatic negative controls (name -> description)
CONTROLS = {
    "dropped-term": "the stated map with one additive term dropped (first sum met in its first entry)",
    "flipped-sign": "the stated map with one term's sign flipped (first sum met in its first entry)",
    "gate-argument": "the stated map with every exponential's argument scaled by 6/5 (a gate's argument changed)",
    "transposed-U": "the stated map applied with U transposed",
}

_to_mp = to_mp


# ---- perturbations of the stated map (automatic negative controls) -----------------------------
def perturb(stated, name: str):
    """The stated map altered by the automatic control ``name`` (see :data:`CONTROLS`)."""
    if name == "dropped-term":
        return lambda mix, U, V, z, **kw: perturb_expr(stated(mix, U, V, z, **kw), "dropped-term")
    if name == "flipped-sign":
        return lambda mix, U, V, z, **kw: perturb_expr(stated(mix, U, V, z, **kw), "flipped-sign")
    if name == "gate-argument":
        return lambda mix, U, V, z, **kw: sp.Matrix(stated(mix, U, V, z, **kw)).applyfunc(
            lambda e: sp.sympify(e).replace(sp.exp, lambda x: sp.exp(sp.Rational(6, 5) * x)))
    if name == "transposed-U":
        return lambda mix, U, V, z, **kw: stated(mix, U.T, V, z, **kw)
    raise KeyError(f"unknown automatic control {name!r}")


def _call(stated, mix, U, V, z, where, symbols=None):
    out = stated(mix, U, V, z, **(symbols or {}))
    if not isinstance(out, sp.MatrixBase):
        out = sp.Matrix(out)
    if out.shape != (V.shape[0], 1):
        raise InputError(f"{where}: stated(mix, U, V, z) must return a {V.shape[0]}x1 column, got shape {out.shape}")
    return out


# ---- today's generic instances (unchanged draws) -------------------------------------------------
def random_instance(rng, K, D, degenerate=True, shared=False):
    """A random rational instance (mixture, U, V, z): K components in dimension D, non-singular
    covariances unless ``degenerate`` (then the last component has rank D - 1), U with entries in
    [-1, 1], V and z small rationals; distinct means, U z != 0, V non-singular and U not symmetric
    (D >= 2) by rejection (see ``_generic_head``)."""
    return _instance(rng, K, D, degenerate, shared)


def describe_instance(mix, U, V, z) -> dict:
    """An instance for the evidence, every entry an exact fraction string."""
    inst = Instance(mix, sym_mixture(mix), exact_matrix(U), exact_matrix(V), rational_matrix(list(z)))
    return inst.describe()


# ---- numeric comparison and shrinking ------------------------------------------------------------
def _fails(stated, inst: Instance, rule):
    """(failed?, row) comparing the stated map with the exact operator at rationals."""
    with workdps(rule.dps):
        ref = to_mp(exact_operator(inst.mix, inst.U, inst.V, inst.z), rule.dps)
        try:
            val = to_mp(_call(stated, inst.smix, inst.U, inst.V, inst.z, "stated", inst.symbols), rule.dps)
        except ArithmeticError as e:
            return True, {"dim": inst.dim, "passed": False, "verdict": "refuted", "reason": str(e),
                          "rule": rule.describe()}
        res = max(abs(x - y) for x, y in zip(val, ref))
        row = {"dim": inst.dim, **rule.decide(res, max(abs(x) for x in ref))}
        row["stated_value"] = [mpm.nstr(x, 20) for x in val]
        row["operator_value"] = [mpm.nstr(x, 20) for x in ref]
    return not row["passed"], row


def _rebuild(inst: Instance, z, U, V, means) -> Instance:
    from .operator_family import _gm_of

    smix = dataclasses.replace(inst.smix, means=[sp.Matrix(m) for m in means])
    return Instance(_gm_of(smix), smix, sp.Matrix(U), sp.Matrix(V), sp.Matrix(z), inst.symbols)


def _shrink(stated, inst: Instance, rule, budget, head: Head, spec: dict):
    """Greedy: set entries of z (and of U, V, the means when the model leaves them generic) to 0,
    then to +-1, keeping each change that still fails; at most ``budget`` evaluations."""
    z, U, V = sp.Matrix(inst.z), sp.Matrix(inst.U), sp.Matrix(inst.V)
    means = [sp.Matrix(m) for m in inst.smix.means]
    slots = [(z, i) for i in range(len(z))]
    slots += [(U, i) for i in range(len(U))] if head.U is None else []
    slots += [(V, i) for i in range(len(V))] if head.V is None else []
    if spec["means"] == "generic" and not spec["centred"] and not spec.get("transforms"):
        slots += [(m, i) for m in means for i in range(len(m))]
    used = 0
    for target in (0, 1):
        for M, j in slots:
            if used >= budget:
                break
            old = M[j]
            new = sp.Integer(0) if target == 0 else sp.sign(old)
            if old == new:  # an entry already at its target (sign(0) = 0: a zero stays zero)
                continue
            M[j] = new
            used += 1
            try:
                still, _ = _fails(stated, _rebuild(inst, z, U, V, means), rule)
            except Exception:
                still = False
            if not still:
                M[j] = old
    return _rebuild(inst, z, U, V, means), used


# ---- declaration ------------------------------------------------------------------------------
def _symbols(spec, where) -> tuple:
    names = spec.split() if isinstance(spec, str) else list(spec or ())
    out = []
    for n in names:
        if not isinstance(n, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", n) or RESERVED_SYMBOL.match(n):
            raise InputError(f"{where}: {n!r} cannot name an extra symbol (a Python identifier not used by the family: "
                             "not pi1, m1_1, G_11, v, v1, r, t1_1, z_1, U_11, ...)")
        out.append(sp.Symbol(n, positive=True))
    if len({s.name for s in out}) != len(out):
        raise InputError(f"{where}: a symbol is named twice in symbols={spec!r}")
    return tuple(out)


def _declare(id, components, dim, shared_covariance, degenerate, covariance, symbols, U, V, assume) -> Head:
    K, D = int(components), int(dim)
    where = f"operator_claim {id}"
    if K < 1 or D < 1:
        raise InputError(f"{where}: components and dim must be positive integers")
    cov = covariance or ("shared" if shared_covariance else "general")
    if cov not in COVARIANCES or (shared_covariance and cov != "shared"):
        raise InputError(f"{where}: covariance must be one of {', '.join(COVARIANCES)}"
                         + (" (shared_covariance=True is covariance='shared')" if shared_covariance else ""))
    if degenerate and cov not in ("general", "shared"):
        raise InputError(f"{where}: degenerate=True needs general or shared covariances, not {cov!r}")
    for name, M in (("U", U), ("V", V)):
        if M is not None and not callable(M) and not (isinstance(M, sp.MatrixBase) and M.shape == (D, D)):
            raise InputError(f"{where}: {name} must be a {D}x{D} SymPy matrix or a function (mix, **symbols) -> matrix")
    objs = tuple(resolve(a) for a in (assume if isinstance(assume, (list, tuple)) else (assume,)))
    for a in objs:
        if not isinstance(a, Assumption) or (a.family is None and a.broken is None):
            raise InputError(f"{where}: assumption {a.name} does not shape a family (give it family= options or a "
                             "transform family(mix) -> mix)")
    if len({a.name for a in objs}) != len(objs):
        raise InputError(f"{where}: an assumption is declared twice")
    base = {**BASE_FAMILY, "covariance": cov, "degenerate": bool(degenerate)}
    return Head(K, D, base, objs, _symbols(symbols, where), U, V)


def _probe(head: Head, stated, id, drop=None) -> sp.Matrix:
    where = f"operator_claim {id}"
    what = f" without the assumption {drop.name}" if drop is not None else ""
    try:
        spec = head.spec(drop)
        mix, U, V, z, syms = head.symbolic(spec)
    except InputError:
        raise
    except Exception as e:  # the family's own check, a transform, or U / V: not the statement
        raise InputError(f"{where}: the symbolic {head.K}-component family in dimension {head.D}{what} (with its U "
                         f"and V) could not be built: {type(e).__name__}: {e}") from None
    try:
        return _call(stated, mix, U, V, z, where, syms)
    except InputError:
        raise
    except Exception as e:
        raise InputError(f"{where}: stated(mix, U, V, z) failed on the symbolic {head.K}-component family in dimension "
                         f"{head.D}{what}: {type(e).__name__}: {e}") from None


def _can_differ(probe, perturbed) -> bool:
    """Does the perturbed map differ from the statement somewhere on the family?  Decided at random
    rational points (30 digits); equal at every point tried: it cannot differ (the control is not built)."""
    d = Derivation(name="probe", source="", derived=probe, stated=perturbed)
    try:
        ce = d.counterexample(seed=1, trials=3, digits=30)
    except Exception:  # cannot be evaluated: keep the control
        return True
    return bool(ce["residual"] > sp.Float(10) ** -20 * ce["scale"])


def _controls(head: Head, stated, probe, id):
    controls: dict = {}
    not_built: dict = {}
    candidates = ["dropped-term", "flipped-sign"] + (["gate-argument"] if probe.atoms(sp.exp) else [])
    candidates += ["transposed-U"] if head.D >= 2 else []
    mix, U, V, z, syms = head.symbolic(head.spec())
    for name in candidates:
        if _can_differ(probe, _call(perturb(stated, name), mix, U, V, z, id, syms)):
            controls[name] = CONTROLS[name]
        else:
            not_built[name] = ("cannot differ from the statement on the declared model (equal at random points of the "
                               "family)")
    for a in head.assumptions:
        _probe(head, stated, id, drop=a)
        controls[control_id(a.name)] = Control(
            control_id(a.name), f"the same statement without the assumption {a.name} ({a.text}): decided on the "
            "family and instances that break it; not refuted means the assumption is not needed (a scope finding)",
            kind="assumption-dropped", assumption=a.name)
    return controls, not_built


def _family_label(spec: dict) -> str:
    parts = [{"general": "generic symmetric covariances", "shared": "one shared covariance",
              "isotropic": "isotropic covariances v_k I", "shared-isotropic": "one isotropic covariance v I",
              "diagonal": "diagonal covariances"}[spec["covariance"]]]
    parts += [f"{spec['means']} means"] if spec["means"] != "generic" else []
    parts += ["equal weights"] if spec["weights"] == "equal" else []
    parts += ["centred"] if spec["centred"] else []
    parts += [getattr(t, "__name__", "transform") for t in spec.get("transforms", [])]
    return ", ".join(parts)


def _derivations(head: Head, stated, spec, id, source, assumptions):
    """[(Derivation, family)] on the symbolic family of ``spec`` (and its rank-one variant when degenerate)."""
    fams = [(_family_label(spec), None)] + ([("rank-1 covariances L L^T", 1)] if spec["degenerate"] else [])
    out = []
    for label, rank in fams:
        mix, U, V, z, syms = head.symbolic(spec, rank)
        d = Derivation(name=f"{id}: K={head.K}, D={head.D}, {label}", source=source or id,
                       derived=softmax_attention_derived(mix, U, V, z), stated=_call(stated, mix, U, V, z, id, syms),
                       assumptions=assumptions)
        out.append((d, mix))
    return out


def _symbolic_part(head, stated, spec, ctx, id, source, assumptions, kept):
    pairs = _derivations(head, stated, spec, id, source, assumptions)
    sym = decide([d for d, _ in pairs], ctx)
    # a refutation must hold inside the model; a perturbation control is a wrong map by construction (its
    # refutation decides nothing about the model), so only the claim and its assumption-dropped controls pay for this
    if sym.verdict == "refuted" and (ctx.variant is None or ctx.variant not in CONTROLS):
        seed = int(ctx.stream("model-points").integers(0, 10**6))
        if not classify_refutations(sym.rows, pairs, kept, spec["covariance"], seed):
            statuses = [r["status"] for r in sym.rows]
            sym.verdict = "verified" if all(s == "proven" for s in statuses) else "unproven"
    return sym


def _draw_key(head: Head, spec, d, drop):
    simple = (head.plain and spec["means"] == "generic" and spec["weights"] == "generic" and not spec["centred"]
              and not spec.get("transforms") and spec["covariance"] in ("general", "shared"))
    if simple and drop is None:  # today's key: the same seed draws today's instances
        return [head.K, d, spec["degenerate"], spec["covariance"] == "shared"]
    return [head.K, d, spec["degenerate"], Head.spec_key(spec), drop.name if drop is not None else ""]


def _numeric_part(p, ctx, head, stated, spec, drop, id, kept):
    rule = Residual(p.dps)
    rows, skipped, failing = [], [], []
    cases = [("quadrature", d) for d in p.quadrature_dims] + [("exact", d) for d in p.exact_dims]
    for method, d in cases:
        for i in range(p.instances):
            key, pkey = (method, d, i), _draw_key(head, spec, d, drop)
            try:
                inst = ctx.data(key, lambda rng: head.draw(rng, d, spec, spec["degenerate"], avoid=drop, require=kept),
                                params=pkey)
                with workdps(p.dps):
                    val = to_mp(_call(stated, inst.smix, inst.U, inst.V, inst.z, id, inst.symbols), p.dps)
            except (InputError, IndexError, sp.ShapeError, ValueError, TypeError, AttributeError) as e:
                if d == head.D:
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
                        inst.mix, inst.U, inst.V, inst.z, p.dps, p.nodes), params=pkey + [p.dps, p.nodes])
                else:
                    ref = ctx.data(("ref",) + key,
                                   lambda rng: to_mp(exact_operator(inst.mix, inst.U, inst.V, inst.z), p.dps),
                                   params=pkey + [p.dps])
                    qerr = None
                row = compare(rule, val, ref, qerr, dim=d, components=head.K,
                              method="definition (1) by Gauss-Hermite quadrature" if method == "quadrature"
                              else "exact grad Lambda(U z) at rationals")
            row.update(inst.describe())
            rows.append(row)
            if row["passed"] is False:
                failing.append((d, inst, row))
    return part("numeric", rows, rule=rule), skipped, failing


def _counterexample(ctx, head, stated, spec, failing, p, kept) -> dict:
    """The smallest failing instance: lower dimensions first, then shrunk; labelled inside / outside the model."""
    d, inst, row = min(failing, key=lambda t: t[0])
    rule = Residual(min(p.dps, 40))
    for lower in range(1, d):  # a dimension-generic statement may fail lower down too
        try:
            cand = head.draw(ctx.stream("counterexample", lower), lower, spec, spec["degenerate"], require=kept)
            if _fails(stated, cand, rule)[0]:
                inst = cand
                break
        except Exception:  # the statement is not defined in that dimension
            continue
    small, used = _shrink(stated, inst, rule, p.shrink_budget, head, spec)
    _, srow = _fails(stated, small, rule)
    why = model_violations(small.smix, kept, spec["covariance"])
    out = {**small.describe(), "dim": small.dim, "residual": srow.get("residual"),
           "stated_value": srow.get("stated_value"),
           "operator_value": srow.get("operator_value"), "shrink_evaluations": used, "inside_model": not why}
    if why:
        out["outside_model_reason"] = "; ".join(why)
    return out


def _symbolic_counterexample(sym) -> dict | None:
    for r in sym.rows:
        if r.get("status") == "refuted" and r.get("counterexample"):
            # classify_refutations labelled every refuted row of the claim: a missing label is an engine fault
            out = {"source": "symbolic", "point": r["counterexample"], "inside_model": r["inside_model"]}
            if r.get("outside_model_reason"):
                out["outside_model_reason"] = r["outside_model_reason"]
            return out
    for r in sym.rows:  # refutations found only outside the model (the derivation is unproven)
        if r.get("inside_model") is False:
            return {"source": "symbolic", "point": r["counterexample"], "inside_model": False,
                    "outside_model_reason": r["outside_model_reason"]}
    return None


def _params_type(id, K: int, D: int, fixed: bool):
    Params = dataclasses.make_dataclass(f"OperatorParams_{re.sub(r'[^A-Za-z0-9_]', '_', str(id))}", [
        ("quadrature_dims", list[int], dataclasses.field(default_factory=lambda: [D] if D <= 2 else [])),
        ("exact_dims", list[int], dataclasses.field(default_factory=lambda: [D] if fixed else [D, D + 2])),
        ("instances", int, dataclasses.field(default=1)),
        ("dps", int, dataclasses.field(default=50)),
        ("nodes", int, dataclasses.field(default=40)),
        ("shrink_budget", int, dataclasses.field(default=24)),
    ])
    Params.__doc__ = f"Parameters of {id}: dimensions of the numeric instances (always {K} components), precision."
    return Params


def _prose(head: Head, fixed: bool) -> tuple:
    """The model in words (the claim's ``assumptions``), the declared assumptions as "name: text"."""
    spec, K, D = head.spec(), head.K, head.D
    cov = {"general": "", "shared": "G_k = G for all k", "isotropic": "G_k = v_k I",
           "shared-isotropic": "G_k = v I for all k",
           "diagonal": "G_k diagonal"}[spec["covariance"]]
    rank = "singular G_k allowed" if spec["degenerate"] else (
        "G_k non-singular" if spec["covariance"] in ("general", "shared") else "")
    return tuple(a for a in (f"mu = sum of {K} Gaussian components N(m_k, G_k), pi_k > 0",
                             f"dimension {D}" + ("" if fixed else " (numeric instances also above)"), cov, rank,
                             *(a.describe() for a in head.assumptions)) if a)


def _make_check(head: Head, stated, Params, dropped: dict, not_built: dict, id, source, prose):
    """The claim's check: the statement (or the control's perturbation, or the family without the
    dropped assumption) decided by the symbolic and numeric parts."""
    def check(p: Params, ctx):
        drop = dropped.get(ctx.variant)
        st = perturb(stated, ctx.variant) if ctx.variant in CONTROLS else stated
        spec = head.spec(drop)
        kept = tuple(a for a in head.assumptions if a is not drop)
        sym = _symbolic_part(head, st, spec, ctx, id, source, prose, kept)
        num, skipped, failing = _numeric_part(p, ctx, head, st, spec, drop, id, kept)
        extra = {"components": head.K, "dim": head.D, "shared_covariance": spec["covariance"] == "shared",
                 "degenerate": spec["degenerate"], "covariance": spec["covariance"],
                 "family": {k: v for k, v in spec.items() if k != "transforms"}}
        if head.assumptions:
            extra["assumptions"] = [a.name for a in kept]
        if head.symbols:
            extra["symbols"] = [s.name for s in head.symbols]
        if not_built:
            extra["controls_not_built"] = dict(not_built)
        if drop is not None:
            extra["assumption_dropped"] = {"assumption": drop.name, "text": drop.text}
        if skipped:
            extra["skipped"] = skipped
        if failing and ctx.variant is None:
            extra["counterexample"] = _counterexample(ctx, head, st, spec, failing, p, kept)
        sce = _symbolic_counterexample(sym) if ctx.variant is None else None
        if sce is not None:
            extra["symbolic_counterexample"] = sce
            extra.setdefault("counterexample", sce)
        return outcome(sym, num, **extra)

    check.__annotations__ = {"p": Params}
    return check


#: how every operator claim chooses its configurations (``softmix show``; a claim says how it draws)
_DRAWS = ("the symbolic part is over the whole family of the model; the numeric part draws its rational instances "
          "(per dimension of quadrature_dims and exact_dims, `instances` each) from the run's seed, inside the "
          "declared model, and the assumption-dropped controls draw instances that break their assumption")

#: what every operator claim's two sides are computed from (``softmix show``)
_INDEPENDENCE = ("derived side: V grad Lambda(U z) differentiated by SymPy from the cumulant generating "
                 "function of the family; at rational instances, definition (1) by Gauss-Hermite quadrature and "
                 "the exact gradient of the CGF; stated side: the statement's own function; shared: nothing "
                 "(the reference never calls the statement's code)")


def operator_claim(id, stated, *, components, dim, shared_covariance=False, degenerate=False, title="", source="",
                   covariance=None, symbols="", U=None, V=None, assume=(), section: str = "user",
                   register: bool = True):
    """Register a claim that ``stated(mix, U, V, z, **symbols)`` equals the softmax attention
    operator ``T_{U,V}[mu](z)`` (eq. (1)) for mixtures with ``components`` components in dimension
    ``dim`` (the module docstring has the ladder and the automatic controls).

    * ``covariance``: ``"general"`` (default), ``"shared"`` (``shared_covariance=True`` is an
      alias), ``"isotropic"`` (``Sigma_k = v_k I``, ``mix.variances[k]``), ``"shared-isotropic"``
      (one ``v``, ``mix.variances[0]``) or ``"diagonal"``;
    * ``symbols``: extra positive real symbols (``"sigma_Z tau"``), passed by keyword to
      ``stated``, ``U`` and ``V``; numeric instances draw positive rationals for them;
    * ``U``, ``V``: a SymPy matrix (it may hold the extra symbols) or a function
      ``U(mix, **symbols)`` returning one; default: generic symbols;
    * ``assume``: assumptions on the mixture, by catalogue name (``"equal-norms"``,
      ``"antipodal"``, ``"equal-weights"``, ``"centred"``, ``"distinct-means"``,
      ``"pi-not-half"``, ...) or :class:`softmix.checks.assumptions.Assumption` objects with a
      ``family`` (options or a transform ``family(mix) -> mix``).  The family and the instances
      satisfy them; each gets its control ``without:NAME``;
    * ``section``: the group the claim is listed and configured under (default ``"user"``; another
      must be declared first with :func:`softmix.checks.registry.register_section`).

    Returns the registered :class:`softmix.checks.registry.Claim` (``register=False``: returned, not
    registered; :func:`softmix.checks.runner.run_claim_object` runs it).  A statement that cannot be
    evaluated on the symbolic family (or on a family without one of its assumptions), or returns
    the wrong shape, raises InputError here, at import.
    """
    if not callable(stated):
        raise InputError(f"operator_claim {id}: stated must be a function (mix, U, V, z) -> column matrix")
    head = _declare(id, components, dim, shared_covariance, degenerate, covariance, symbols, U, V, assume)
    K, D = head.K, head.D
    probe = _probe(head, stated, id)
    controls, not_built = _controls(head, stated, probe, id)
    dropped = {control_id(a.name): a for a in head.assumptions}
    fixed = (U is not None and not callable(U)) or (V is not None and not callable(V))

    Params = _params_type(id, K, D, fixed)
    prose = _prose(head, fixed)
    check = _make_check(head, stated, Params, dropped, not_built, id, source, prose)
    check.__module__ = getattr(stated, "__module__", __name__)
    check.__qualname__ = getattr(stated, "__qualname__", "stated")
    statement = (inspect.getdoc(stated) or "").split("\n")[0] or \
        f"T_{{U,V}}[mu](z) = {getattr(stated, '__name__', 'stated')}(mu, U, V, z)"
    claim(id=id, title=title or f"operator statement {id}", source=source or "user statement",
          controls=controls, section=section, kind="symbolic", statement=statement, independence=_INDEPENDENCE,
          configurations_note=_DRAWS,
          assumptions=prose, params=Params,
          profiles={"full": {"exact_dims": [D] if fixed else [D, D + 1, D + 3], "instances": 2}},
          derivations=lambda: [d for d, _ in _derivations(head, stated, head.spec(), id, source, prose)],
          register=register)(check)
    c = check.claim  # registered unless register=False (then only returned: runner.run_claim_object runs it)
    c.check.__wrapped__ = stated
    return c
