"""Claim registry: stable ids, sources, assumptions, defaults, checks and negative controls.

A claim's ``check(params, ctx)`` returns an :class:`Outcome`.  The *same* function is run once
per negative control with ``ctx.variant`` set to the control id; a control must come back
``refuted``, otherwise the verifier itself has failed for that claim.
"""
from __future__ import annotations

import importlib
import zlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

__all__ = ["VERDICTS", "Outcome", "Control", "Claim", "Context", "REGISTRY", "register",
           "load_all", "get", "CLAIM_MODULES", "SECTIONS"]

VERDICTS = ("verified", "confirmed", "refuted", "inconclusive", "error")

#: Modules that register claims, in display order.
CLAIM_MODULES = (
    "checks.claims_attention",
    "checks.claims_finite_prompt",
    "checks.claims_lda",
    "checks.claims_lda_landscape",
    "checks.claims_lda_dynamics",
    "checks.claims_lda_finite_prompt",
    "checks.claims_denoising",
    "checks.claims_beyond",
    "checks.certificates",
)

#: Section keys accepted in --config files, with the claim modules they cover.
SECTIONS = {"attention": "Sec. 2 / App. A", "finite-prompt": "notes/finite-prompt.md",
            "lda": "Sec. 3 / App. B", "denoising": "Sec. 4 / App. C",
            "beyond": "predecessor and neighbouring results (issue 7)",
            "certificates": "ball-arithmetic certificates (python-flint)"}


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
        raise ValueError(f"unknown section {claim.section}")
    if not claim.controls:
        raise ValueError(f"claim {claim.id} has no negative control")
    REGISTRY[claim.id] = claim
    return claim


_loaded = False


def load_all() -> dict[str, Claim]:
    global _loaded
    if not _loaded:
        for mod in CLAIM_MODULES:
            try:
                importlib.import_module(mod)
            except ModuleNotFoundError as e:
                if e.name != mod:
                    raise
        _loaded = True
    return REGISTRY


def get(claim_id: str) -> Claim:
    load_all()
    return REGISTRY[claim_id]
