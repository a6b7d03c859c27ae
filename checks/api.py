"""Writing a claim: parts, one verdict lattice, a decorator with a typed parameter dataclass.

A claim's check decides its statement in *parts* -- a symbolic part (derivations proven or
refuted by SymPy), certificate parts (rigorous ball arithmetic), numeric parts (high-precision
comparisons), Monte Carlo parts (statistical tests) -- and the parts are combined by one lattice
(:mod:`softmix.checks.verdicts`, re-exported here)::

    refuted > error > inconclusive > confirmed > verified

The worst part wins.  ``verified`` needs a proof (a symbolic part whose every derivation is
proven, or a certificate) and every other part passed; numeric or Monte Carlo agreement alone is
at most ``confirmed``.  A derivation SymPy neither proves nor refutes is ``unproven``: it blocks
``verified`` but does not by itself make the claim inconclusive when numeric parts confirm it.

Writing a claim::

    from dataclasses import dataclass
    import softmix

    @dataclass
    class P:                      # defaults live here, once; --config is validated from the types
        dim: int = 2
        dps: int = 40

    @softmix.claim(id="my-claim", title="...", source="my notes, Lemma 3",
                   controls={"flipped-sign": "the stated side with its sign flipped"},
                   profiles={"full": {"dim": 4}})
    def my_claim(p: P, ctx):
        data = ctx.data("instance", lambda rng: make_instance(rng, p.dim), params=p)  # shared with controls
        noise = ctx.stream("noise").standard_normal(p.dim)    # seed, claim, purpose: the same in the controls
        rule = softmix.Residual(dps=p.dps)         # agree to dps - 10 digits (or Residual(digits=30))
        res = stated(data, flip=ctx.control("flipped-sign")) - reference(data)
        rows = [{"dim": p.dim, **rule.decide(res)}]
        return softmix.part("numeric", rows)

The check returns a :class:`Part` or a list of parts (or an :class:`Outcome`); configurations
drawn from the seed are declared with ``configurations=softmix.Draws(draw, quick=1, full=3)``;
see docs/writing-claims.md.
"""
from __future__ import annotations

import dataclasses
import inspect
import typing
from dataclasses import dataclass, field

from softmix.numerics.memo import remember

from . import registry as _registry, verdicts as _verdicts
from .assumption_runs import check_defaults
from .configurations import Draws, run_configurations
from .registry import Claim, Context, Control, Outcome
from .verdicts import LATTICE, LATTICE_RULE, combine, combine_control, verdict_of

__all__ = ["LATTICE", "Part", "combine", "combine_control", "decide", "decide_one", "part", "outcome", "claim",
           "verdict_of", "Draws"]


@dataclass
class Part:
    """One part of a decision: ``kind`` is ``symbolic`` or ``certificate`` (proofs: may be
    ``verified``), ``numeric``, ``monte-carlo`` or any other evidence (at most ``confirmed``);
    ``verdict`` one of :data:`LATTICE` or ``unproven`` (symbolic, neither proven nor refuted).
    See :mod:`softmix.checks.verdicts`."""

    name: str
    kind: str
    verdict: str
    rows: list = field(default_factory=list)
    rule: str = ""

    def evidence(self) -> dict:
        ev = {"kind": self.kind, "verdict": self.verdict, "rows": self.rows}
        if self.rule:
            ev["rule"] = self.rule
        return ev

    def _repr_html_(self):
        return f"<b>{self.name}</b> ({self.kind}): {_badge(self.verdict)}, {len(self.rows)} row(s)"


def part(kind: str, rows, name: str | None = None, rule=None) -> Part:
    """A part from rows produced by rule objects (``softmix.Residual``, ``softmix.ZTest``,
    ``softmix.Bound``: ``rule.decide(...)``, merged with any context keys): each row has ``passed``,
    ``verdict`` and its rule's text.  Its verdict is :func:`verdict_of` ``(rows, kind)``: kind
    ``certificate`` (rows of a rigorous ball-arithmetic computation, ``passed`` True when the
    statement certainly holds) may be ``verified``; ``numeric`` and ``monte-carlo`` at most
    ``confirmed``.

    >>> part("numeric", [{"passed": True}, {"passed": True}]).verdict
    'confirmed'
    >>> part("certificate", [{"passed": True, "box": "[0, 1]"}]).verdict
    'verified'
    """
    rows = list(rows)
    text = rule.describe() if hasattr(rule, "describe") else (rule or "")
    if not text:
        texts = sorted({r["rule"] for r in rows if isinstance(r, dict) and "rule" in r})
        text = "; ".join(texts)
    return Part(name or kind, kind, verdict_of(rows, kind), rows, text)


def decide_one(d, seed: int, digits: int = 30) -> tuple[str, dict]:
    """``(status, info)`` for one derivation: ``proven`` outright when SymPy already reduced the
    difference to an exact 0 at construction; otherwise :meth:`Derivation.decide` (numeric
    counterexample search at ``digits`` digits, then exact simplification); when a side cannot be
    evaluated at random points, exact simplification alone (``proven`` or ``unproven``).
    Remembered in the run's memo (:mod:`softmix.numerics.memo`) on (name, both sides, seed,
    digits): a control that leaves a derivation unchanged does not pay for it twice."""
    import sympy as sp

    frozen = lambda e: sp.ImmutableMatrix(e) if isinstance(e, sp.MatrixBase) else sp.sympify(e)
    key = (d.name, frozen(d.derived), frozen(d.stated), int(seed), int(digits))  # structural hashes

    def make():
        diff = d.difference()
        entries = list(diff) if isinstance(diff, sp.MatrixBase) else [diff]
        if all(sp.sympify(e) == 0 for e in entries):
            return ("proven", {"difference": "exactly 0 after construction", "digits": digits})
        try:
            return d.decide(seed=seed, digits=digits)
        except TypeError:
            return ("proven" if d.holds() else "unproven"), {"note": "numeric search skipped", "digits": digits}

    return remember("api.decide_one", key, make)


def decide(derivations, ctx: Context, *, name: str = "symbolic", digits: int = 30, kind: str = "symbolic") -> Part:
    """Decide a list of :class:`softmix.theory.derivation.Derivation` (the one helper for every
    claim; see :func:`decide_one`).  The random points come from ``ctx.stream("symbolic-points",
    derivation name)``: they depend on (seed, claim, derivation name), not on the control, so a
    control is searched at the claim's points.  ``verified`` when all are proven, ``refuted`` when
    one has a counterexample, ``unproven`` otherwise (an empty list too).

    ``kind="lemma"``: the derivations are lemmas of a statement that other parts decide (a rate
    decided by Monte Carlo, say): a refuted lemma refutes the claim, but the part is evidence, not a
    proof of the statement, so it cannot make the claim ``verified``."""
    rows = []
    for d in derivations:
        ctx.decided.add(_registry.derivation_key(d))
        seed = int(ctx.stream("symbolic-points", d.name).integers(0, 10**6))
        status, info = decide_one(d, seed, digits)
        rows.append({"derivation": d.name, "status": status, **info})
    return Part(name, kind, verdict_of(rows, "symbolic") if rows else "unproven", rows,
                f"derived - stated simplifies to 0 (proven); a random rational point with relative residual "
                f"above 10^(5 - {digits}) at {digits} digits (refuted)")


def outcome(*parts: Part, findings=None, **extra) -> Outcome:
    """An :class:`Outcome` whose verdict is :func:`combine` of ``parts`` and whose evidence holds
    each part under its name, the lattice rule, ``findings`` and any ``extra`` entries."""
    flat: list = []
    for p in parts:
        flat.extend(p if isinstance(p, (list, tuple)) else [p])
    ev = {p.name: p.evidence() for p in flat}
    ev["verdict_rule"] = LATTICE_RULE
    if findings:
        ev["findings"] = list(findings)
    ev.update(extra)
    return Outcome(_verdicts.combine(flat), ev)  # through the module: the one combine, patched in one place


def _as_outcome(out) -> Outcome:
    if isinstance(out, Outcome):
        return out
    if isinstance(out, Part):
        return outcome(out)
    if isinstance(out, (list, tuple)) and all(isinstance(p, Part) for p in out):
        return outcome(*out)
    raise TypeError(f"a claim's check must return an Outcome, a Part or a list of Parts, not {type(out).__name__}")


def _params_type(fn, params):
    if params is not None:
        P = params
    else:
        sig = inspect.signature(fn)
        first = next(iter(sig.parameters.values()), None)
        if first is None:
            raise TypeError(f"{fn.__name__}: a claim's check takes (params, ctx)")
        hints = typing.get_type_hints(fn)
        P = hints.get(first.name)
    if P is None or not dataclasses.is_dataclass(P):
        raise TypeError(f"{fn.__name__}: annotate the first argument with a parameter dataclass "
                        f"(or pass params=...); got {P!r}")
    return P


def _claim_arguments(id: str, controls, configurations, checks, assumptions) -> tuple[list, list]:
    """:func:`claim`'s arguments checked at import; the assumptions split into (prose, Assumption objects)."""
    from .assumptions import Assumption

    if not controls or not isinstance(controls, dict):
        raise ValueError(f"claim {id}: controls must map at least one control name to its description")
    if configurations is not None and not isinstance(configurations, Draws):
        raise TypeError(f"claim {id}: configurations= takes a softmix.Draws(draw, quick=, full=), "
                        f"not {type(configurations).__name__}")
    if isinstance(checks, str) or any(not isinstance(n, str) or not n.strip() for n in checks):
        raise TypeError(f"claim {id}: checks= takes a tuple of non-empty names")
    prose, objects = [], []
    for a in assumptions:
        if isinstance(a, Assumption):
            objects.append(a)
            prose.append(a.describe())
        elif isinstance(a, str):
            prose.append(a)
        else:
            raise TypeError(f"claim {id}: an assumption is an Assumption object or a string, not {type(a).__name__}")
    return prose, objects


def _defaults_and_profiles(id: str, P, profiles) -> tuple[dict, dict]:
    """The parameter dataclass ``P``'s field defaults, and ``profiles`` checked against its fields (at import)."""
    try:
        base = P()
    except TypeError as e:
        raise TypeError(f"claim {id}: every field of {P.__name__} needs a default ({e})") from None
    prof = {}
    for name, repl in (profiles or {}).items():
        dataclasses.replace(base, **repl)  # raises TypeError on an unknown field, at import
        prof[name] = dict(repl)
    return {f.name: getattr(base, f.name) for f in dataclasses.fields(P)}, prof


def claim(*, id: str, title: str, source: str, controls: dict, section: str = "user", kind: str = "numeric",
          statement: str = "", assumptions=(), profiles: dict | None = None, derivations=None, params=None,
          configurations_note: str = "", configurations: Draws | None = None, independence: str = "",
          register: bool = True, checks=()):
    """Register the decorated check ``fn(p, ctx)`` as a claim.

    With ``register=False`` nothing is registered and the decorator returns the
    :class:`~softmix.checks.registry.Claim` itself (run it with
    :func:`softmix.checks.runner.run_claim_object`; ``softmix list`` does not show it).

    * ``p`` is an instance of the parameter dataclass (the annotation of ``fn``'s first argument,
      or ``params=``): its field defaults are the claim's defaults, its field types validate
      ``--config`` values, its ``__post_init__`` may reject bad combinations (raise ValueError);
    * ``profiles`` maps a profile name (``quick``, ``full``) to field replacements, checked now
      (an unknown field is an error at import);
    * ``controls`` maps each negative control's name to its description (or to a
      :class:`~softmix.checks.registry.Control`; at least one); inside
      the check, ``ctx.control(name)`` tells whether this run is that control and raises on a
      name that is not declared;
    * the check returns an Outcome, a Part, or a list of Parts (combined by :func:`combine`);
    * ``configurations``: a :class:`~softmix.checks.configurations.Draws` -- the engine decides the
      claim on the given parameters and on configurations drawn from the seed, the alpha split
      over them before any is drawn, a control refuted when one configuration refutes it, draws
      that break a declared assumption skipped (:mod:`softmix.checks.configurations`);
    * ``checks``: names of the numeric checks the claim makes (each the ``check`` key of the rows it
      records), so that a display ledger can cite them as the ``derivation`` deciding a display
      (docs/coverage.md); the names of ``derivations`` need not be repeated;
    * ``configurations_note`` says why no configuration is drawn from the seed (``Claim.configurations_note``);
    * ``independence``: one line saying what the derived side is computed from, what the stated side is
      computed from and what they share (``Claim.independence``, shown by ``softmix show``);
    * ``assumptions``: :class:`softmix.checks.assumptions.Assumption` objects (``EqualNorms("means")``,
      ...) and/or plain strings (prose, shown and recorded only).  Each object checks ``--config``
      values (exit 2 naming it), must hold at the defaults, and gets an automatic control
      ``without:NAME``: the check run on values that break it (``ctx.control`` is False for every
      declared control then).  Not refuted, it yields a ``scope`` finding (the assumption is not
      needed), which does not fail the run.
    """
    prose, objects = _claim_arguments(id, controls, configurations, checks, assumptions)

    def wrap(fn):
        P = _params_type(fn, params)
        defaults, prof = _defaults_and_profiles(id, P, profiles)
        bound = check_defaults(id, objects, defaults, prof)
        ctl = _controls_with_dropped(id, controls, bound)

        def check(values: dict, ctx: Context) -> Outcome:
            from .configurations import decide_given
            from .params import coerce_dataclass

            def one(vals: dict) -> Outcome:  # one configuration
                return _as_outcome(fn(coerce_dataclass(P, vals, f"claim {id}"), ctx))

            if configurations is None:
                return decide_given(c, values, ctx, one)
            return run_configurations(c, configurations, values, ctx, one,
                                      view=lambda vals: coerce_dataclass(P, vals, f"claim {id}"))

        check.__wrapped__ = fn  # type: ignore[attr-defined]
        check.__name__ = getattr(fn, "__name__", "check")
        check.__qualname__ = getattr(fn, "__qualname__", "check")
        check.__module__ = getattr(fn, "__module__", None)  # type: ignore[assignment]
        c = Claim(id=id, title=title, source=source, statement=statement or title, section=section, check=check,
                  assumptions=tuple(prose), defaults=defaults, profiles=prof, controls=ctl, derivations=derivations,
                  kind=kind, params_type=P, configurations_note=configurations_note, assumption_objects=bound,
                  configurations=configurations, independence=independence, checks=tuple(checks))
        fn.claim = c
        if not register:
            return c
        _registry.register(c)
        return fn

    return wrap


def _controls_with_dropped(claim_id: str, controls: dict, assumptions) -> tuple:
    """The declared negative controls, then one assumption-dropped control per assumption."""
    out = [v if isinstance(v, Control) else Control(k, v) for k, v in controls.items()]
    for a in assumptions:
        if a.control_id in controls:
            raise ValueError(f"claim {claim_id}: control {a.control_id!r} is the automatic control of assumption "
                             f"{a.name}")
        out.append(Control(a.control_id, f"the same statement without the assumption {a.name} ({a.text}), decided "
                           "on values that break it; not refuted: the assumption is not needed (a scope finding)",
                           kind="assumption-dropped", assumption=a.name))
    return tuple(out)


def _badge(verdict: str) -> str:
    color = {"verified": "#1a7f37", "confirmed": "#2f6f9f", "inconclusive": "#9a6700", "error": "#8250df",
             "refuted": "#cf222e"}.get(verdict, "#555")
    return f'<span style="color:{color};font-weight:bold">{verdict}</span>'
