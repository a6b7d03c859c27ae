"""Claim registry: stable ids, sources, assumptions, defaults, checks and negative controls.

A claim's ``check(params, ctx)`` returns an :class:`Outcome`.  The *same* function is run once
per negative control with ``ctx.variant`` set to the control id; a control must come back
``refuted``, otherwise the verifier itself has failed for that claim.
"""
from __future__ import annotations

import importlib
import os as _os
import zlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

__all__ = ["VERDICTS", "Outcome", "Control", "Claim", "Context", "REGISTRY", "register", "register_section",
           "load_all", "load_plugin", "get", "SECTIONS", "PLUGINS", "ENTRY_POINT_GROUP"]

VERDICTS = ("verified", "confirmed", "refuted", "inconclusive", "error")

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


@dataclass
class Outcome:
    verdict: str
    evidence: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {self.verdict!r}")


@dataclass(frozen=True)
class Control:
    id: str
    description: str


@dataclass
class Context:
    claim_id: str
    profile: str
    seed: int
    variant: str | None = None

    def seed_sequence(self, *keys) -> np.random.SeedSequence:
        """Independent stream per (seed, claim, variant, keys): same inputs, same numbers,
        whatever the scheduling."""
        k = [zlib.crc32(self.claim_id.encode()), zlib.crc32((self.variant or "").encode())]
        k += [zlib.crc32(str(x).encode()) for x in keys]
        return np.random.SeedSequence(entropy=int(self.seed), spawn_key=tuple(k))

    def rng(self, *keys) -> np.random.Generator:
        return np.random.default_rng(self.seed_sequence(*keys))

    def int_seed(self, *keys) -> int:
        return int(self.seed_sequence(*keys).generate_state(1)[0])

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
    derivations: Callable | None = None  # () -> list[theory.derivation.Derivation]
    kind: str = "numeric"  # symbolic | numeric | monte-carlo | experiment
    #: what the derived side is computed from, what the stated side is computed from, and what
    #: they share ("derived side: ...; stated side: ...; shared: nothing"); shown by ``softmix show``
    independence: str = ""

    def params(self, profile: str, overrides: dict | None = None) -> dict:
        p = dict(self.defaults)
        p.update(self.profiles.get(profile, {}))
        if overrides:
            p.update(overrides)
        return p


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
    try:
        if is_file:
            if not os.path.isfile(spec):
                raise InputError(f"plugin file not found: {spec}")
            name = _plugin_module_name(key)
            mspec = importlib.util.spec_from_file_location(name, key)
            module = importlib.util.module_from_spec(mspec)
            sys.modules[name] = module
            try:
                mspec.loader.exec_module(module)
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
    return module


def _load_entry_points():
    from importlib.metadata import entry_points

    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: (e.name != "paper", e.name)):
        if ep.value in PLUGINS:
            continue
        obj = ep.load()
        if callable(obj):  # an entry point may also name a function that registers claims
            obj()
        PLUGINS.append(ep.value)


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
