"""Claim registry: stable ids, sources, assumptions, defaults, checks and negative controls.

A claim's ``check(params, ctx)`` returns an :class:`Outcome`.  The *same* function is run once
per negative control with ``ctx.variant`` set to the control id; a control must come back
``refuted``, otherwise the verifier itself has failed for that claim.
"""
from __future__ import annotations

import os as _os
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .streams import stream as _stream
from .verdicts import VERDICTS

__all__ = ["VERDICTS", "Outcome", "Control", "Claim", "Context", "derivation_key", "REGISTRY", "register",
           "register_section",
           "load_all", "load_plugin", "get", "SECTIONS", "PLUGINS", "PLUGIN_CLAIMS", "plugin_claims",
           "ENTRY_POINT_GROUP"]

#: Entry-point group through which claim libraries (this project's paper library included)
#: register themselves: ``[project.entry-points."softmix.claims"] NAME = "package.module"``.
ENTRY_POINT_GROUP = "softmix.claims"

#: Section keys accepted in --config files, with a description.  Libraries add theirs with
#: :func:`register_section`; ``"user"`` is always there for claims that name no section.
SECTIONS: dict[str, str] = {"user": "claims written by users (softmix.operator_claim and plugins)"}


def register_section(key: str, description: str = "") -> str:
    """Declare a section key (a group of claims that ``--config`` can address at once)."""
    if not isinstance(key, str) or not key:
        raise ValueError("a section key must be a non-empty string")
    if key in REGISTRY:
        raise ValueError(f"section key {key!r} collides with a claim id")
    SECTIONS.setdefault(key, description)
    return key


#: the evidence an Outcome shows in a notebook (``_repr_html_``), in characters of its JSON
HTML_EVIDENCE_CHARS = 20000


@dataclass
class Outcome:
    verdict: str
    evidence: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {self.verdict!r}")

    def _repr_html_(self) -> str:
        """Jupyter: the verdict, then the evidence as JSON (numbers by the rule of
        :mod:`softmix.checks.schema`)."""
        import html
        import json

        from .jsonable import jsonable as _jsonable

        color = {"verified": "#1a7f37", "confirmed": "#2f6f9f", "inconclusive": "#9a6700", "error": "#8250df",
                 "refuted": "#cf222e"}[self.verdict]
        text = json.dumps(_jsonable(self.evidence), indent=1)
        if len(text) > HTML_EVIDENCE_CHARS:  # a notebook cell stays readable; the JSON report has all of it
            text = text[:HTML_EVIDENCE_CHARS] + f"\n... (truncated at {HTML_EVIDENCE_CHARS} of {len(text)} characters)"
        body = html.escape(text)
        return (f'<div><b>verdict:</b> <span style="color:{color};font-weight:bold">{self.verdict}</span>'
                f'<details><summary>evidence</summary><pre>{body}</pre></details></div>')


@dataclass(frozen=True)
class Control:
    id: str
    description: str
    #: "negative" (must be refuted) or "assumption-dropped" (the statement without one declared
    #: assumption: not refuted means the assumption is not needed, a scope finding; see checks/assumptions.py)
    kind: str = "negative"
    #: the dropped assumption's name (assumption-dropped controls)
    assumption: str = ""


@dataclass
class Context:
    """Where a check runs: its claim's id, the profile, the master seed, the negative control
    being run (``variant``, None for the claim itself) and the :class:`Claim` object itself
    (``claim``; set by the runner, so a check never looks its own claim up again in
    :data:`REGISTRY` -- a claim that is not registered, such as an engine control, runs the
    same way).

    Randomness comes from :meth:`stream` (seed, claim, purpose, keys: never the control), data
    shared by the claim and its controls from :meth:`data`; both are documented in docs/design.md
    ("Random streams").

    >>> ctx = Context("my-claim", "quick", 7)
    >>> ctl = Context("my-claim", "full", 7, variant="flipped-sign")
    >>> bool((ctx.stream("noise", 1).random(3) == ctl.stream("noise", 1).random(3)).all())
    True
    """

    claim_id: str
    profile: str
    seed: int
    variant: str | None = None
    claim: "Claim | None" = field(default=None, repr=False, compare=False)
    #: keys (:func:`derivation_key`) of the derivations :func:`softmix.checks.api.decide` decided in this run:
    #: the runner compares them with what ``softmix show`` prints (:meth:`Claim.shown_derivations`)
    decided: set = field(default_factory=set, repr=False, compare=False)

    def claim_object(self) -> "Claim":
        """The claim this context runs (``claim``; the runner always sets it).  A context built by hand
        for a check that asks :meth:`control` must be given its claim: the registry is never consulted
        (a check would otherwise see a different claim's controls under the same id)."""
        if self.claim is None:
            raise ValueError(f"this Context for {self.claim_id!r} was built without its claim: pass "
                             f"claim=<the Claim> (the runner does; Context never looks a claim up in the registry)")
        return self.claim

    def stream(self, purpose: str, *keys) -> np.random.Generator:
        """The random stream of (seed, claim id, ``purpose``, ``keys``) -- the same in the claim and
        in every negative control, whatever the profile, worker or order
        (:func:`softmix.checks.streams.stream`)."""
        return _stream(self.seed, self.claim_id, purpose, *keys)

    def data(self, key, factory, params=None):
        """Random data for this claim, made once by ``factory(rng)`` from ``stream("data", key,
        params)`` and remembered in the run's memo (:mod:`softmix.numerics.memo`) by (claim, seed,
        ``key``, ``params``) -- not by control, so the negative controls reuse exactly the data the
        claim saw (and do not pay for it again).  ``params`` (any JSON-able value: the parameter
        dataclass, a dict) says what the data depend on besides the seed.

        >>> from softmix.numerics.memo import scope
        >>> with scope():
        ...     a = Context("c", "quick", 1).data("x", lambda rng: rng.random(2))
        ...     b = Context("c", "quick", 1, variant="ctl").data("x", lambda rng: rng.random(2))
        ...     a is b
        True
        """
        import json

        from softmix.numerics.memo import remember

        pkey = json.dumps(params, sort_keys=True, default=str) if params is not None else ""
        return remember("context.data", (self.claim_id, int(self.seed), str(key), pkey),
                        lambda: factory(self.stream("data", str(key), pkey)))

    def control(self, name: str) -> bool:
        """True when this run is the negative control ``name``.  An unknown name raises
        ``KeyError`` (a typo would otherwise silently run the claim itself as the control)."""
        names = {c.id for c in self.claim_object().controls}
        if name not in names:
            raise KeyError(f"claim {self.claim_id!r} has no negative control {name!r} "
                           f"(declared: {', '.join(sorted(names)) or 'none'})")
        return self.variant == name

    @property
    def full(self) -> bool:
        return self.profile == "full"


@dataclass
class Claim:
    id: str
    title: str
    source: str
    statement: str
    section: str
    check: Callable[[dict, Context], Outcome]
    assumptions: tuple = ()
    defaults: dict = field(default_factory=dict)
    profiles: dict = field(default_factory=dict)  # {"quick": {...}, "full": {...}} overrides
    controls: tuple = ()
    #: what ``softmix show`` prints: ``() -> list[Derivation]``, or ``(p) -> list[Derivation]`` given the parameter
    #: dataclass; every derivation it returns for a run's parameters must be decided by that run (runner)
    derivations: Callable | None = None
    kind: str = "numeric"  # symbolic | numeric | monte-carlo | experiment
    #: what the derived side is computed from, what the stated side is computed from, and what
    #: they share ("derived side: ...; stated side: ...; shared: nothing"); shown by ``softmix show``
    independence: str = ""
    #: the parameter dataclass of a claim written with ``@softmix.claim`` (None: types are
    #: inferred from ``defaults``, see :mod:`softmix.checks.params`)
    params_type: type | None = None
    #: why the claim is decided without configurations drawn from the seed (a SymPy proof in fully
    #: general symbols, a certificate of one stated constant, ...); shown as the ``note`` of
    #: ``configurations`` in the result when nothing is drawn
    configurations_note: str = ""
    #: declared :class:`softmix.checks.assumptions.Assumption` objects (``assumptions`` holds their
    #: "name: text" beside any prose): they check --config values and have assumption-dropped controls
    assumption_objects: tuple = ()
    #: the configurations the engine draws for this claim (a :class:`softmix.checks.configurations.Draws`;
    #: ``@softmix.claim(configurations=...)``), None when it draws none (then ``configurations_note`` says why)
    configurations: object = None
    #: names of the numeric (non-derivation) checks the claim makes, each the key of a row or
    #: evidence entry it records (``@softmix.claim(checks=...)``): a display ledger may cite them
    #: as a ``derivation`` (:mod:`softmix.checks.displays`)
    checks: tuple = ()

    def params(self, profile: str, overrides: dict | None = None) -> dict:
        p = dict(self.defaults)
        p.update(self.profiles.get(profile, {}))
        if overrides:
            p.update(overrides)
        return p

    def takes_parameters(self) -> bool:
        """Whether :attr:`derivations` is called with the parameters: it has exactly one positional argument
        without a default.  A function whose arguments all have defaults (``def derivations(wrong=False)``) is
        called with none: passing it the parameters would set ``wrong``."""
        import inspect

        if self.derivations is None:
            return False
        required = [a for a in inspect.signature(self.derivations).parameters.values()
                    if a.default is a.empty and a.kind in (a.POSITIONAL_ONLY, a.POSITIONAL_OR_KEYWORD)]
        return len(required) == 1

    def shown_derivations(self, values: dict | None = None) -> list:
        """The derivations ``softmix show`` prints for the parameter ``values`` (the defaults when None): what
        :attr:`derivations` returns, given the parameter dataclass when it takes one argument."""
        if self.derivations is None:
            return []
        if not self.takes_parameters():
            return list(self.derivations())
        vals = dict(self.defaults if values is None else values)
        if self.params_type is not None:
            from .params import coerce_dataclass

            return list(self.derivations(coerce_dataclass(self.params_type, vals, f"claim {self.id}")))
        return list(self.derivations(vals))


def derivation_key(d) -> str:
    """A digest of a derivation's name and both sides (SymPy ``srepr``): equal keys, the same derivation."""
    import hashlib

    import sympy as sp

    return hashlib.sha1("\x00".join((str(d.name), sp.srepr(d.derived), sp.srepr(d.stated))).encode()).hexdigest()


REGISTRY: dict[str, Claim] = {}


def register(claim: Claim) -> Claim:
    if claim.id in REGISTRY and REGISTRY[claim.id] is not claim:
        raise ValueError(f"duplicate claim id {claim.id}")
    if claim.section not in SECTIONS:
        raise ValueError(f"unknown section {claim.section!r} (declare it first with register_section)")
    if not claim.controls:
        raise ValueError(f"claim {claim.id} has no negative control")
    REGISTRY[claim.id] = claim
    return claim


_entry_points_loaded = False
#: plugin specs loaded so far (module names or file paths), in load order; shipped to workers
PLUGINS: list[str] = []
#: plugin spec (absolute path of a file, module name, entry-point value) -> ids of the claims its
#: loading registered, in order (``softmix verify --plugin FILE`` with no ids runs these)
PLUGIN_CLAIMS: dict[str, list[str]] = {}


def plugin_claims(spec: str) -> list[str]:
    """Ids of the claims that loading ``spec`` (as given to :func:`load_plugin`) registered."""
    import os

    is_file = spec.endswith(".py") or os.sep in spec or bool(os.altsep and os.altsep in spec)
    return list(PLUGIN_CLAIMS.get(os.path.abspath(spec) if is_file else spec, []))


def _plugin_module_name(path: str) -> str:
    import hashlib
    import os

    stem = "".join(ch if ch.isalnum() else "_" for ch in os.path.splitext(os.path.basename(path))[0])
    return f"softmix_plugin_{stem}_{hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:10]}"


def load_plugin(spec: str):
    """Load claims from ``spec``: a path to a ``.py`` file or an importable module name.

    Importing the module registers its claims (``register``, ``@claim``, ``operator_claim``).
    Loading the same spec twice is a no-op.  A missing file or module, or one that fails to
    import, raises :class:`softmix.numerics.errors.InputError` (one line; exit code 2 from the
    CLI) naming the plugin.
    """
    import importlib.util
    import os
    import sys

    from softmix.numerics.errors import InputError

    if not isinstance(spec, str) or not spec:
        raise InputError(f"plugin must be a module name or a .py file, got {spec!r}")
    is_file = spec.endswith(".py") or os.sep in spec or (os.altsep and os.altsep in spec)
    key = os.path.abspath(spec) if is_file else spec
    if key in PLUGINS:
        return sys.modules.get(_plugin_module_name(key) if is_file else spec)
    before = set(REGISTRY)
    try:
        if is_file:
            if not os.path.isfile(spec):
                raise InputError(f"plugin file not found: {spec}")
            name = _plugin_module_name(key)
            mspec = importlib.util.spec_from_file_location(name, key)
            module = importlib.util.module_from_spec(mspec)  # type: ignore[arg-type]  # a .py path has one
            sys.modules[name] = module
            try:
                mspec.loader.exec_module(module)  # type: ignore[union-attr]
            except BaseException:
                sys.modules.pop(name, None)
                raise
        else:
            module = importlib.import_module(spec)
    except InputError:
        raise
    except ModuleNotFoundError as e:
        if not is_file and e.name and spec.startswith(e.name):
            raise InputError(f"plugin module not found: {spec}") from None
        raise InputError(f"plugin {spec} failed to import: {type(e).__name__}: {e}") from None
    except SyntaxError as e:
        raise InputError(f"plugin {spec}: syntax error at line {e.lineno}: {e.msg}") from None
    except Exception as e:
        raise InputError(f"plugin {spec} failed to load: {type(e).__name__}: {e}") from None
    PLUGINS.append(key)
    PLUGIN_CLAIMS[key] = _new_claims(before, getattr(module, "__name__", None))
    return module


def _new_claims(before: set, module_name: str | None) -> list[str]:
    """The claims registered since ``before``; none when the module had been imported already
    (then the claims decided by functions of ``module_name`` or its submodules)."""
    new = [c for c in REGISTRY if c not in before]
    if new or not module_name:
        return new

    def mod(c: Claim) -> str:
        return getattr(getattr(c.check, "__wrapped__", c.check), "__module__", "") or ""

    return [cid for cid, c in REGISTRY.items() if mod(c) == module_name or mod(c).startswith(module_name + ".")]


def _load_entry_points():
    from importlib.metadata import entry_points

    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: (e.name != "paper", e.name)):
        if ep.value in PLUGINS:
            continue
        before = set(REGISTRY)
        obj = ep.load()
        if callable(obj):  # an entry point may also name a function that registers claims
            obj()
        PLUGINS.append(ep.value)
        PLUGIN_CLAIMS[ep.value] = _new_claims(before, ep.value.split(":")[0])


def load_all(plugins=()) -> dict[str, Claim]:
    """Every registered claim: the ``softmix.claims`` entry points (once per process), then
    ``plugins`` (module names or .py files), in order."""
    global _entry_points_loaded
    if not _entry_points_loaded and not _NO_ENTRY_POINTS:
        _entry_points_loaded = True
        _load_entry_points()
    for spec in plugins or ():
        load_plugin(spec)
    return REGISTRY


def get(claim_id: str) -> Claim:
    load_all()
    return REGISTRY[claim_id]


#: SOFTMIX_NO_ENTRY_POINTS=1 loads only the plugins named explicitly (for isolated tests).
_NO_ENTRY_POINTS = _os.environ.get("SOFTMIX_NO_ENTRY_POINTS", "") not in ("", "0")
