"""How the engine uses a claim's declared assumptions (:mod:`softmix.checks.assumptions`).

* :func:`family_spec`: the family options (covariance, means, weights, centred, degenerate,
  user transforms) that a set of assumptions imposes, with one of them dropped for its control;
* :func:`check_defaults` (at registration) and :func:`check_values` (``--config``, exit 2 naming
  the assumption);
* :func:`dropped_assumption`, :func:`violating_values`, :func:`admissible`: the
  assumption-dropped control ``without:NAME`` of a decorated claim, and drawn configurations;
* :func:`control_failed`, :func:`scope_findings`: an assumption-dropped control that is not
  refuted is a finding of kind ``scope`` (the assumption is not needed), not a failure.
"""
from __future__ import annotations

from softmix.numerics.errors import InputError

from .assumptions import CONTROL_PREFIX, Assumption

__all__ = ["BASE_FAMILY", "family_spec", "check_defaults", "check_values", "dropped_assumption",
           "violating_values", "admissible", "control_failed", "scope_findings"]


# ---- families: the options a set of assumptions imposes -----------------------------------------
#: the generic family (no structure)
BASE_FAMILY = {"covariance": "general", "means": "generic", "weights": "generic", "centred": False, "degenerate": False}
_COV_MEET = {frozenset({"shared", "isotropic"}): "shared-isotropic",
             frozenset({"shared", "shared-isotropic"}): "shared-isotropic",
             frozenset({"isotropic", "shared-isotropic"}): "shared-isotropic",
             frozenset({"diagonal", "isotropic"}): "isotropic",
             frozenset({"diagonal", "shared-isotropic"}): "shared-isotropic"}
_MEANS_MEET = {frozenset({"equal-norms", "antipodal"}): "antipodal",
               frozenset({"equal-norms", "coincident"}): "coincident"}


def _meet(key, a, b):
    if a == b or b in (None, "general", "generic"):
        return a
    if a in ("general", "generic"):
        return b
    table = _COV_MEET if key == "covariance" else _MEANS_MEET
    out = table.get(frozenset({a, b}))
    if out is None:
        raise InputError(f"the assumptions ask for {key} {a!r} and {b!r} at once (no family has both)")
    return out


def family_spec(assumptions, base: dict | None = None, drop=None, components: int | None = None) -> dict:
    """The family options imposed by ``assumptions`` on top of ``base`` (default
    :data:`BASE_FAMILY`): ``covariance``, ``means``, ``weights``, ``centred``, ``degenerate``,
    and ``transforms`` (user assumptions' ``family(mix) -> mix``).  ``drop`` (one of them) is left
    out and its ``broken`` options are forced: the family of its assumption-dropped control.
    Combinations: centred antipodal means need equal weights (imposed); centred equal norms are
    built for two components (antipodal, equal weights); anything else contradictory raises
    InputError."""
    spec = dict(BASE_FAMILY if base is None else base)
    spec["transforms"] = list(spec.get("transforms", []))
    for a in assumptions:
        if drop is not None and a.name == drop.name:
            continue
        fam = a.family
        if callable(fam):
            spec["transforms"].append(fam)
            continue
        for k, v in (fam or {}).items():
            if k in ("covariance", "means"):
                spec[k] = _meet(k, spec[k], v)
            elif k in ("centred", "degenerate"):
                spec[k] = spec[k] or bool(v)
            elif k == "weights":
                spec[k] = "equal" if "equal" in (spec[k], v) else spec[k]
            else:
                raise InputError(f"assumption {a.name}: unknown family option {k!r}")
    if drop is not None:
        spec.update(drop.broken or {})
    if spec["centred"] and spec["means"] == "equal-norms":
        if components not in (None, 2):
            raise InputError(f"a centred mixture of {components} equal-norm means is not built (two components only)")
        spec["means"], spec["weights"] = "antipodal", "equal"
    if spec["centred"] and spec["means"] == "antipodal":
        spec["weights"] = "equal"
    return spec


# ---- the engine's use of declared assumptions -----------------------------------------------------
def _declared(claim) -> tuple:
    return tuple(getattr(claim, "assumption_objects", ()) or ())


def check_defaults(claim_id: str, assumptions, defaults: dict, profiles: dict | None = None) -> tuple:
    """Bind ``assumptions`` to a claim's parameter fields (at registration) and check that the
    defaults and every profile satisfy them; an unknown field or values that break one raise
    ValueError."""
    bound = []
    for a in assumptions:
        try:
            b = a.bind(defaults)
        except KeyError as e:
            raise ValueError(f"claim {claim_id}: {e.args[0]}") from None
        for name, repl in {"defaults": {}, **(profiles or {})}.items():
            if b.holds({**defaults, **repl}) is False:
                where = "its defaults break" if name == "defaults" else f"its profile {name!r} breaks"
                raise ValueError(f"claim {claim_id}: {where} its assumption {a.name} ({a.text})")
        bound.append(b)
    names = [a.name for a in bound]
    if len(set(names)) != len(names):
        raise ValueError(f"claim {claim_id}: an assumption is declared twice ({', '.join(names)})")
    return tuple(bound)


def check_values(claim, values: dict, where: str) -> None:
    """``--config`` values (merged with the defaults) against the claim's declared assumptions:
    InputError naming the first one they break."""
    for a in _declared(claim):
        try:
            ok = a.holds(values)
        except (KeyError, IndexError, TypeError, ValueError, ArithmeticError) as e:
            raise InputError(f"{where}: cannot check assumption {a.name} ({a.text}): {type(e).__name__}: {e}") from None
        if ok is False:
            raise InputError(f"{where}: the values break the claim's assumption {a.name} ({a.text})")


def dropped_assumption(claim, variant):
    """The declared assumption whose dropped control is ``variant``, or None."""
    if not variant or not variant.startswith(CONTROL_PREFIX):
        return None
    name = variant[len(CONTROL_PREFIX):]
    return next((a for a in _declared(claim) if a.name == name), None)


def violating_values(claim, assumption: Assumption, values: dict, rng):
    """``(values, info)``: ``values`` changed so that ``assumption`` fails, keeping every other
    declared assumption that held (the first candidate of ``assumption.violate`` that does;
    else the first that breaks it, ``info["also_breaks"]`` naming the others).  ``(None, info)``
    when no candidate breaks it."""
    others = [a for a in _declared(claim) if a.name != assumption.name and a.holds(values) is not False]
    first = None
    for over in assumption.violate(values, rng):
        new = {**values, **over}
        if assumption.holds(new) is True:
            continue
        broken = [a.name for a in others if a.holds(new) is False]
        if not broken:
            return new, {"assumption": assumption.name, "overrides": over}
        first = first or (new, {"assumption": assumption.name, "overrides": over, "also_breaks": broken})
    if first is not None:
        return first
    return None, {"assumption": assumption.name,
                  "note": "no configuration breaking it could be built from these values"}


def admissible(claim, variant, values: dict, rng):
    """A drawn configuration as the run needs it: ``(values, None)`` when it satisfies every
    declared assumption (the one ``variant`` drops is broken first, by :func:`violating_values`,
    if the draw did not break it already); ``(None, reason)`` when the draw breaks a declared
    assumption (it is then not a configuration of the statement and is skipped)."""
    drop = dropped_assumption(claim, variant)
    for a in _declared(claim):
        if a is not drop and a.holds(values) is False:
            return None, f"the draw breaks the assumption {a.name} ({a.text})"
    if drop is None or drop.holds(values) is False:
        return values, None
    new, info = violating_values(claim, drop, values, rng)
    return (new, None) if new is not None else (None, info["note"])


def control_failed(control: dict) -> bool:
    """Does this control result fail the run?  A negative control must be refuted; an
    assumption-dropped control fails the run only when it errored (not refuted means: the
    assumption is not needed, a scope finding)."""
    if control.get("kind") == "assumption-dropped":
        return control.get("verdict") == "error"
    return not control.get("refuted")


def scope_findings(claim, controls: list[dict]) -> list[dict]:
    """One ``{"kind": "scope", ...}`` finding per assumption-dropped control that was not refuted."""
    out = []
    for c in controls:
        if c.get("kind") != "assumption-dropped" or c.get("refuted"):
            continue
        name = c.get("assumption", c["id"][len(CONTROL_PREFIX):])
        decided = c["verdict"] in ("verified", "confirmed")
        text = (f"the statement also holds without the assumption {name} (its control {c['id']} came back "
                f"{c['verdict']}, not refuted): the assumption is not needed for this statement" if decided else
                f"whether the assumption {name} is needed could not be decided (its control {c['id']} came back "
                f"{c['verdict']})")
        out.append({"kind": "scope", "assumption": name, "control": c["id"], "control_verdict": c["verdict"],
                    "needed": False if decided else None, "text": text})
    return out
