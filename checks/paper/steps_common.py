"""How the display-step claims (``checks/paper/steps_*.py``) are made.

A *step claim* decides the displayed steps of one proof: each display is a SymPy
:class:`~softmix.theory.derivation.Derivation` built in ``softmix.theory.steps_*`` (derived from
the definitions, stated as printed), decided by :func:`softmix.decide` (a numeric search for a
counterexample at random rational points, then exact simplification).  Its negative control
``perturbed-step`` adds a term to every stated side (:func:`softmix.theory.steps_common.perturbed`);
the same check must refute it.  The ledger (``data/displays.toml``) cites each display's
derivation by name; :func:`step_claim` exposes the names through ``derivations=``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from softmix.theory.steps_common import perturbed_all

from ..api import claim, decide, outcome, part

__all__ = ["StepParams", "step_claim", "check_labels", "SOURCE"]

SOURCE = "Gabet-Boursier-Boyer 2026"
_NOTE = ("SymPy identities in general symbols (every entry of the displays a free symbol); the numeric search "
         "for a counterexample draws its random rational points from the run's seed, so no configuration is drawn")
_CONTROLS = {"perturbed-step": "every stated side altered by an additive term (1/7 s + 2/11, s a free symbol); "
                               "every numerically checked estimate tightened by a factor 4"}


#: a step derivation's name begins with the display it decides, as the ledger cites it ("B.12#6 ...", "4.2#3 ...")
_DISPLAY_LABEL = re.compile(r"^([A-C]\.)?\d+(\.\d+)*#\d+\b")


def check_labels(ds) -> None:
    """Every derivation of a step claim is labelled by its display (name ``<section>#<n> ...``) and sourced
    in the paper (source ``Gabet-Boursier-Boyer 2026, ...``): otherwise the ledger cannot account for it,
    and the claim is an error (ValueError naming the derivation), not a verdict on unlabelled steps."""
    for D in ds:
        if not _DISPLAY_LABEL.match(str(D.name)) or not str(D.source).startswith(SOURCE):
            raise ValueError(f"step derivation {str(D.name)[:60]!r} (source {str(D.source)[:60]!r}) is not labelled "
                             "by its display '<section>#<n> ...' with a source in the paper")


@dataclass
class StepParams:
    """The dimension of the symbolic instance (entries of vectors and matrices are free symbols)."""
    d: int = 2

    def __post_init__(self):
        if not 1 <= self.d <= 3:
            raise ValueError("d must be 1, 2 or 3 (the symbolic steps grow quickly with d)")


def step_claim(id: str, title: str, source: str, build, *, section: str = "lda", d: int = 2, statement: str = "",
               numeric=None, checks=(), findings=()):
    """Register the claim ``id`` deciding the derivations ``build(d)`` (a list of
    :class:`~softmix.theory.derivation.Derivation`).  ``d`` is the default dimension.

    ``numeric(ctx, perturb)`` (optional) returns rule rows (``softmix.Bound`` / ``softmix.Residual``),
    each with a ``check`` key among ``checks``: a high-precision evaluation of an estimate at
    points drawn from ``ctx.stream``; ``perturb`` is True in the control (the estimate tightened),
    which the same rows must refute.  ``findings``: dicts (``kind`` typo / gap, ``where``, ``detail``,
    optionally ``counterexample``) put in the evidence (docs/findings.md lists them)."""
    tag = id.replace("-", "_").replace(".", "_")
    P = type(f"StepParams_{tag}", (StepParams,), {"__annotations__": {"d": int}, "d": d})
    P = dataclass(P)

    def check(p: StepParams, ctx):  # p is a P: the claim is given params=P
        ds = ctx.data("derivations", lambda rng: build(p.d), params=p)  # built once for the claim and its control
        check_labels(ds)
        if ctx.control("perturbed-step"):
            ds = perturbed_all(ds)
        # a claim whose displays are partly checked numerically is at most confirmed: its SymPy part
        # proves some of the displays, not the claim (docs/statistics.md, "What may be verified")
        parts = [decide(ds, ctx, kind="lemma") if numeric is not None else decide(ds, ctx)]
        if numeric is not None:
            parts.append(part("numeric", numeric(ctx, ctx.control("perturbed-step"))))
        return outcome(*parts, findings=list(findings)) if findings else parts

    check.__name__ = check.__qualname__ = f"steps_{id.replace('-', '_').replace('.', '_')}"
    return claim(id=id, title=title, source=f"{SOURCE}, {source}", section=section,
                 kind="symbolic" if numeric is None else "numeric",  # numeric rows: at most confirmed, shown so
                 statement=statement or title, params=P, controls=dict(_CONTROLS), configurations_note=_NOTE,
                 derivations=lambda: build(d), checks=tuple(checks),
                 independence="derived side: SymPy from the definitions (numeric checks: high-precision evaluation or "
                              "simulation at drawn points); stated side: the displayed formula as printed; "
                              "shared: nothing")(check)
