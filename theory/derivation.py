"""Derivation objects: a derived expression, the paper's stated one, and their difference.

A :class:`Derivation` is what ``softmix show CLAIM`` prints.  ``holds()`` is exact: it is
True only when SymPy simplifies every entry of ``derived - stated`` to the literal zero.
Nothing numeric happens here.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

__all__ = ["Derivation", "simplify_zero", "exp_atoms_to_symbols", "normal_exponent"]


def _entries(expr):
    if isinstance(expr, sp.MatrixBase):
        return list(expr)
    return [sp.sympify(expr)]


def exp_atoms_to_symbols(expr):
    """Rewrite every exp(...) as a product of integer powers of fresh positive symbols.

    exp(sum_i c_i t_i) (c_i rational, t_i monomials) becomes prod_i X_{t_i}^(c_i q_i) with
    X_t = exp(t / q_t), q_t the lcm of the denominators seen for t.  The map is a ring
    homomorphism on the exponentials present, so an identity proven for the rewritten rational
    function holds for the original.  Only real terms are rewritten (X_t > 0 fails off the real
    line: sqrt(exp(z)) != exp(z/2) at z = 2 pi i); log terms stay in exp.  Sound, not complete.
    """
    expr = sp.sympify(expr)
    exps = [e for e in expr.atoms(sp.exp)]
    if not exps:
        return expr
    pairs: dict = {}
    split: dict = {}
    for e in exps:
        terms = []
        for t in sp.Add.make_args(sp.expand(e.args[0])):
            c, rest = t.as_coeff_Mul()
            if rest.has(sp.log) or rest == 1 or rest.is_real is not True:
                terms.append((None, t))
                continue
            c = sp.Rational(c)
            pairs.setdefault(rest, []).append(c)
            terms.append((c, rest))
        split[e] = terms
    syms = {}
    for i, (rest, cs) in enumerate(pairs.items()):
        q = 1
        for c in cs:
            q = sp.ilcm(q, c.q)
        syms[rest] = (sp.Symbol(f"_X{i}", positive=True), q)
    rep = {}
    for e, terms in split.items():
        val = sp.Integer(1)
        for c, rest in terms:
            if c is None:
                val *= sp.exp(rest)
            else:
                X, q = syms[rest]
                val *= X ** int(c * q)
        rep[e] = val
    return expr.xreplace(rep)


def normal_exponent(arg):
    """``arg`` rewritten as a sum over monomials in the symbols that appear in no denominator,
    each coefficient a cancelled rational function of the other symbols.

    ``-||m||^2 / (2 s)`` with ``m = r * stereographic(t)`` becomes ``-r^2 / (2 s)``, the same
    atom whichever component it came from, so that :func:`exp_atoms_to_symbols` sees the common
    factor.  An exact rewrite (the same rational function), hence sound."""
    arg = sp.together(sp.sympify(arg))
    num, den = sp.fraction(arg)
    gens = sorted(arg.free_symbols - den.free_symbols, key=lambda s: s.name)
    if not gens or not den.free_symbols:
        return sp.cancel(arg) if den.free_symbols else arg
    try:
        poly = sp.Poly(sp.expand(num), *gens)
    except sp.PolynomialError:  # pragma: no cover - a non-polynomial numerator (log, sqrt)
        return arg
    return sp.Add(*[sp.cancel(c / den) * sp.Mul(*[g**e for g, e in zip(gens, mon)]) for mon, c in poly.terms()])


_HYPERBOLIC = (sp.tanh, sp.sinh, sp.cosh, sp.coth, sp.sech, sp.csch)


def _rational_exponents(e) -> bool:
    return any(sp.fraction(sp.together(x.args[0]))[1].free_symbols for x in e.atoms(sp.exp))


def _is_zero(e) -> bool:
    r = exp_atoms_to_symbols(e)
    try:
        return sp.cancel(sp.together(r)) == 0
    except Exception:  # pragma: no cover - sympy internals
        return False


def _infinite_against_finite(derived: list, stated: list, point: dict, digits: int) -> str:
    """'' unless some entry has one side infinite (oo, -oo, zoo) and the other a finite number at ``point``;
    then says which (e.g. ``'entry 0: derived oo, stated 0.25'``)."""
    for i, (a, b) in enumerate(zip(derived, stated)):
        va, vb = sp.N(sp.sympify(a).xreplace(point), digits), sp.N(sp.sympify(b).xreplace(point), digits)
        if va.has(sp.nan) or vb.has(sp.nan):
            continue
        inf_a, inf_b = va.has(sp.oo, -sp.oo, sp.zoo), vb.has(sp.oo, -sp.oo, sp.zoo)
        if inf_a != inf_b and (vb if inf_a else va).is_number:
            return f"entry {i}: derived {sp.sstr(va)}, stated {sp.sstr(sp.N(vb, 6))}" if inf_a else \
                f"entry {i}: derived {sp.sstr(sp.N(va, 6))}, stated {sp.sstr(vb)}"
    return ""


def simplify_zero(expr) -> bool:
    """True iff every entry of ``expr`` is proven to be exactly zero.

    Exponentials are first turned into polynomial atoms (:func:`exp_atoms_to_symbols`), then
    the rational function is put over a common denominator and cancelled.  When that fails,
    hyperbolic functions are rewritten as exponentials and the same is tried again; and when
    some exponent is a rational function with a symbolic denominator, the exponents are first
    put in the normal form of :func:`normal_exponent` and the same is tried again.  A False
    answer means "not proven zero", never "proven non-zero" (use a numeric counterexample for
    that).
    """
    for e in _entries(expr):
        e = sp.sympify(e)
        if e == 0 or _is_zero(e):
            continue
        if e.has(*_HYPERBOLIC):  # tanh(x) = (e^x - e^-x) / (e^x + e^-x), ...: exponentials the atoms can handle
            e = e.rewrite(sp.exp)
            if _is_zero(e):
                continue
        if _rational_exponents(e):
            n = e.replace(lambda x: isinstance(x, sp.exp), lambda x: sp.exp(normal_exponent(x.args[0])))
            if _is_zero(n):
                continue
        return False
    return True


@dataclass
class Derivation:
    """``derived`` (what SymPy obtains from the definitions) versus ``stated`` (the paper)."""

    name: str
    source: str
    derived: object
    stated: object
    assumptions: tuple[str, ...] = ()
    notes: str = ""
    steps: list[tuple[str, object]] = field(default_factory=list)

    def difference(self):
        if isinstance(self.derived, sp.MatrixBase):
            d = sp.Matrix(self.derived) - sp.Matrix(self.stated)
        else:
            d = sp.sympify(self.derived) - sp.sympify(self.stated)
        return d

    def holds(self) -> bool:
        """Exact: derived - stated simplifies to zero."""
        return simplify_zero(self.difference())

    def free_symbols(self):
        """Free symbols of both sides (a symbol may cancel in the difference)."""
        syms = set()
        for side in (self.derived, self.stated):
            syms |= sp.sympify(side).free_symbols if not isinstance(side, sp.MatrixBase) else side.free_symbols
        return sorted(syms, key=lambda s: s.name)

    def counterexample(self, seed: int = 0, trials: int = 8, digits: int = 30):
        """Search for a point where derived != stated, evaluating the exactly-substituted
        difference with ``digits`` significant digits.  Points are random non-zero rationals
        (positive symbols get positive values; every identity here is homogeneous in the
        weights, so they need not sum to one).  Returns the worst point found: a dict with the
        point, the residual and the scale of the derived side, and ``points``, how many points
        could be evaluated.  Callers compare the residual with a tolerance derived from ``digits``.

        A point where one side of an entry is infinite (``oo``, ``-oo``, ``zoo``) and the other a
        finite number is a counterexample (residual ``oo``: an integral that diverges against a
        finite closed form); a point where an entry is undefined (``nan``) or both sides are
        infinite decides nothing and is skipped.

        >>> x = sp.Symbol("x", positive=True)
        >>> Derivation("diverges", "", sp.integrate(sp.exp(x * sp.Symbol("t", positive=True)),
        ...            (sp.Symbol("t", positive=True), 0, sp.oo)), 1 / x).counterexample()["residual"]
        oo
        """
        import random

        rnd = random.Random(seed)
        d = self.difference()
        syms = self.free_symbols()
        entries = list(d) if isinstance(d, sp.MatrixBase) else [d]
        der = list(self.derived) if isinstance(self.derived, sp.MatrixBase) else [sp.sympify(self.derived)]
        sta = list(self.stated) if isinstance(self.stated, sp.MatrixBase) else [sp.sympify(self.stated)]
        best, evaluated = None, 0
        for _ in range(trials):
            point = {}
            for s in syms:
                num = rnd.randint(1, 9) if s.is_positive else rnd.choice([-1, 1]) * rnd.randint(1, 9)
                point[s] = sp.Rational(num, rnd.randint(2, 7))
            try:
                split = _infinite_against_finite(der, sta, point, digits)
                if split:
                    evaluated += 1
                    best = {"point": {str(k): str(v) for k, v in point.items()}, "residual": sp.oo,
                            "scale": sp.Integer(1), "non_finite": split}
                    break
                vals = [sp.N(e.xreplace(point), digits) for e in entries]
                scale = max([abs(sp.N(x.xreplace(point), digits)) for x in der] + [sp.Integer(1)])
                res = max(abs(v) for v in vals)
                if not (res.is_number and scale.is_number) or res.has(sp.nan, sp.zoo, sp.oo):
                    continue
            except (TypeError, ZeroDivisionError, ValueError):
                continue
            evaluated += 1
            rel = res / scale
            if best is None or rel > best["residual"] / best["scale"]:
                best = {"point": {str(k): str(v) for k, v in point.items()}, "residual": res, "scale": scale}
        if best is None:
            best = {"point": {}, "residual": sp.Integer(0), "scale": sp.Integer(1)}
        best["points"] = evaluated
        return best

    def decide(self, seed: int = 0, digits: int = 30) -> tuple[str, dict]:
        """'proven' (symbolic zero), 'refuted' (numeric counterexample far above the precision
        floor 10^(5 - digits) relative) or 'unproven'.  The numeric search runs first, so
        false statements are refuted without an expensive simplification."""
        ce = self.counterexample(seed=seed, digits=digits)
        tol = sp.Float(10) ** (5 - digits) * ce["scale"]
        info = {"max_residual_at_random_points": (f"{float(ce['residual']):.3e}" if ce["points"]
                                                  else "none: no random point could be evaluated"),
                "tolerance": f"{float(tol):.1e}", "digits": digits}
        if ce["residual"] > tol:
            info["counterexample"] = ce["point"]
            if "non_finite" in ce:
                info["non_finite"] = ce["non_finite"]
            return "refuted", info
        if self.holds():
            return "proven", info
        return "unproven", info

    def pretty(self) -> str:
        out = [f"{self.name}  [{self.source}]"]
        for a in self.assumptions:
            out.append(f"  assume: {a}")
        for label, expr in self.steps:
            out.append(f"  {label}:")
            out.append("    " + sp.pretty(expr).replace("\n", "\n    "))
        out.append("  derived:")
        out.append("    " + sp.pretty(self.derived).replace("\n", "\n    "))
        out.append("  stated:")
        out.append("    " + sp.pretty(self.stated).replace("\n", "\n    "))
        return "\n".join(out)

    def latex(self) -> str:
        return (
            f"% {self.name} [{self.source}]\n"
            f"\\text{{derived}}: {sp.latex(self.derived)}\\\\\n"
            f"\\text{{stated}}: {sp.latex(self.stated)}"
        )

    def _repr_latex_(self) -> str:
        """Jupyter: the derived and the stated side, one above the other (no simplification)."""
        name = self.name.replace("\\", "").replace("{", "(").replace("}", ")").replace("_", " ")
        # TeX specials as text; ~ and ^ have no text-mode escape that MathJax and LaTeX share, so they leave
        # the text for math (\sim, \hat{}) and come back
        name = "".join("\\" + c if c in "#%&$" else {"~": "}\\sim\\text{", "^": "}\\hat{}\\text{"}.get(c, c)
                       for c in name)
        return (f"$\\displaystyle \\begin{{aligned}}&\\text{{{name}}}\\\\"
                f"&\\text{{derived: }} {sp.latex(self.derived)}\\\\"
                f"&\\text{{stated: }} {sp.latex(self.stated)}\\end{{aligned}}$")

    def summary(self) -> dict:
        return {"name": self.name, "source": self.source, "holds": self.holds(),
                "stated": sp.sstr(self.stated), "assumptions": list(self.assumptions)}
