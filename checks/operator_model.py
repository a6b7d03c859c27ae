"""Is a counterexample inside the statement's model?  (Helpers of :mod:`softmix.checks.operator`.)

The symbolic part refutes a statement at a random rational point of its symbolic family.  Such a
point need not be a mixture of the model: the weights are positive symbols that need not sum to
one, a general covariance is a symmetric matrix of symbols that need not be PSD.  A statement can
differ from the operator there and nowhere on the model (``pi_2`` written as ``1 - pi_1``).  So a
refuting point is checked (:func:`model_violations`); when it is outside the model, random points
*inside* the model (weights normalised, covariances ``L L^T``) are tried; a refutation survives
only with a point inside the model -- otherwise the derivation is ``unproven`` and its point is
reported with ``inside_model: false`` and the reason.
"""
from __future__ import annotations

import random

import sympy as sp

from softmix.theory.mixtures import SymbolicMixture

__all__ = ["model_violations", "model_point", "classify_refutations"]


def model_violations(smix: SymbolicMixture, assumptions=(), structure=None) -> list[str]:
    """Why the numeric mixture ``smix`` is outside the model: weights not in (0, 1) or not summing
    to one, a covariance not symmetric PSD, a declared assumption broken (``holds_for``), the
    covariance ``structure`` not met.  Empty when it is inside."""
    from .assumptions import CATALOGUE

    out = []
    ws = [sp.nsimplify(w) for w in smix.weights]
    if len(ws) > 1 and any(not (0 < w < 1) for w in ws):
        out.append("weights " + ", ".join(map(str, ws)) + " not all in (0, 1)")
    total = sp.nsimplify(sum(ws))
    if total != 1:
        out.append(f"weights sum to {total}, not 1")
    seen: list = []
    for k, G in enumerate(smix.covariances):
        G = sp.Matrix(G)
        if any(G == H for H in seen):  # a shared covariance is judged once
            continue
        seen.append(G)
        if G != G.T or not G.is_positive_semidefinite:
            out.append(f"covariance {k + 1} is not symmetric positive semidefinite")
    checks = list(assumptions)
    if structure in ("shared", "isotropic", "shared-isotropic", "diagonal"):
        checks.append(CATALOGUE["shared-covariance" if structure == "shared" else structure]())
    for a in checks:
        try:
            ok = a.holds_for(smix)
        except Exception:  # a user predicate that cannot read this mixture
            ok = None
        if ok is False:
            out.append(f"breaks the assumption {a.name} ({a.text})")
    return out


def _at(mix: SymbolicMixture, point: dict) -> SymbolicMixture:
    x = lambda e: sp.sympify(e).xreplace(point)
    return SymbolicMixture([x(w) for w in mix.weights], [sp.Matrix(m).xreplace(point) for m in mix.means],
                           [sp.Matrix(G).xreplace(point) for G in mix.covariances],
                           variances=[x(v) for v in mix.variances] if mix.variances else None,
                           radius=x(mix.radius) if mix.radius is not None else None)


def _rational(rnd, positive):
    num = rnd.randint(1, 9) if positive else rnd.choice([-1, 1]) * rnd.randint(1, 9)
    return sp.Rational(num, rnd.randint(2, 7))


def model_point(rnd: random.Random, mix: SymbolicMixture, symbols) -> dict:
    """A random rational point of the symbolic family that is a mixture of the model: covariance
    symbols set from ``L L^T + I/2`` (L rational), weight symbols normalised to sum to one, every
    other symbol a random non-zero rational n / q, 1 <= |n| <= 9, 2 <= q <= 7, so 1/7 <= |x| <= 9/2
    (positive when the symbol is)."""
    point: dict = {}
    for G in mix.covariances:
        G = sp.Matrix(G)
        D = G.rows
        if not all(isinstance(G[i, j], sp.Symbol) for i in range(D) for j in range(D)):
            continue
        L = sp.Matrix(D, D, lambda i, j: _rational(rnd, False))
        S = L * L.T + sp.eye(D) / 2
        for i in range(D):
            for j in range(D):
                point.setdefault(G[i, j], S[i, j])
    ws = [w for w in mix.weights if isinstance(w, sp.Symbol)]
    raw = {w: sp.Integer(rnd.randint(1, 9)) for w in ws}
    fixed = sum((w for w in mix.weights if not isinstance(w, sp.Symbol)), sp.Integer(0))
    total = sum(raw.values(), sp.Integer(0))
    for w in ws:
        point[w] = raw[w] / total * (1 - fixed)
    for s in symbols:
        point.setdefault(s, _rational(rnd, bool(s.is_positive)))
    return point


def _residual(d, point, digits):
    diff = d.difference()
    entries = list(diff) if isinstance(diff, sp.MatrixBase) else [diff]
    der = list(d.derived) if isinstance(d.derived, sp.MatrixBase) else [sp.sympify(d.derived)]
    res = max(abs(sp.N(e.xreplace(point), digits)) for e in entries)
    scale = max([abs(sp.N(x.xreplace(point), digits)) for x in der] + [sp.Integer(1)])
    if not (res.is_number and scale.is_number) or res.has(sp.nan, sp.zoo, sp.oo):
        raise ArithmeticError("not finite at this point")
    return res > sp.Float(10) ** (5 - digits) * scale


def classify_refutations(rows, pairs, assumptions, structure, seed: int, digits: int = 30, tries: int = 6) -> bool:
    """Label each refuted row of a symbolic part (in place): ``inside_model`` and, when false,
    ``outside_model_reason``; a point outside the model is replaced by a refuting point inside it
    when one of ``tries`` random model points refutes; when none does, the row becomes
    ``unproven``.  ``pairs``: the (Derivation, symbolic family) of each row.  Returns True when a
    refutation inside the model remains."""
    refuted = False
    for row, (d, mix) in zip(rows, pairs):
        if row.get("status") != "refuted" or not isinstance(row.get("counterexample"), dict):
            continue
        syms = {s.name: s for s in d.free_symbols()}
        point = {syms[k]: sp.Rational(v) for k, v in row["counterexample"].items() if k in syms}
        try:
            why = model_violations(_at(mix, point), assumptions, structure)
        except TypeError:  # a family symbol absent from both sides: nothing to judge
            why = []
        if not why:
            row["inside_model"] = True
            refuted = True
            continue
        rnd, found, evaluated = random.Random(seed), None, 0
        for _ in range(tries):
            q = model_point(rnd, mix, d.free_symbols())
            try:
                bad = _residual(d, q, digits)
                evaluated += 1
            except (ArithmeticError, TypeError, ValueError, ZeroDivisionError):
                continue
            if bad and not model_violations(_at(mix, q), assumptions, structure):
                found = q
                break
        if found is not None:
            row["counterexample"] = {str(k): str(v) for k, v in found.items()}
            row["inside_model"] = True
            row["note"] = "the first refuting point was outside the model (" + "; ".join(why) + "); this one is inside"
            refuted = True
            continue
        row["inside_model"] = False
        row["outside_model_reason"] = "; ".join(why)
        if evaluated:
            row["status"] = "unproven"
            row["note"] = (f"refuted only outside the model: at {evaluated} random points inside it (weights summing "
                           "to one, PSD covariances) the two sides agree")
        else:
            refuted = True
    return refuted
