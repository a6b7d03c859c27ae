"""The documented schema of ``softmix verify --json`` output, and a dependency-free validator.

The schema is JSON Schema (draft 2020-12 subset: type, required, properties, items, enum,
additionalProperties -- a schema for the values of the keys that properties does not name, or
false), written out in ``VERIFY_SCHEMA`` and printed by ``softmix schema``.

Number types follow one rule, :data:`NUMBER_RULE` (also the schema's ``description``):
float64 quantities are JSON numbers (non-finite ones the strings "inf", "-inf", "nan"),
exact rationals are "p/q" strings, high-precision reals are decimal strings.
"""
from __future__ import annotations

__all__ = ["VERIFY_SCHEMA", "NUMBER_RULE", "validate", "SchemaError"]

#: How numbers appear in ``softmix verify --json`` output (applied by ``runner._jsonable`` to every
#: claim's parameters and evidence), so that a reader never guesses a value's precision:
NUMBER_RULE = (
    "integers are JSON integers; float64 quantities (Monte Carlo estimates, standard errors, "
    "z-scores, timings) are JSON numbers, and non-finite float64 values are the strings "
    "'inf', '-inf', 'nan'; exact rationals are strings 'p/q' (or 'p'); high-precision reals "
    "(mpmath, SymPy Float, Decimal: 40-digit residuals, constants, quadrature values) are decimal "
    "strings with up to 30 significant digits; parameters are echoed as given in the defaults or "
    "--config (a decimal string stays a string)")

_VERDICT = {"type": "string", "enum": ["verified", "confirmed", "refuted", "inconclusive", "error"]}

_CONTROL = {
    "type": "object",
    "required": ["id", "description", "verdict", "refuted", "evidence"],
    "properties": {"id": {"type": "string"}, "description": {"type": "string"}, "verdict": _VERDICT,
                   "refuted": {"type": "boolean"}, "evidence": {"type": "object"},
                   # "negative" (must be refuted) or "assumption-dropped" (the statement without one declared
                   # assumption; not refuted: the assumption is not needed, a finding of kind "scope", not a failure)
                   "kind": {"type": "string"}, "assumption": {"type": "string"}},
}

_CLAIM = {
    "type": "object",
    "required": ["id", "title", "source", "verdict", "evidence", "negative_controls", "seconds"],
    "properties": {
        "id": {"type": "string"}, "title": {"type": "string"}, "source": {"type": "string"},
        "section": {"type": "string"}, "kind": {"type": "string"}, "statement": {"type": "string"},
        "assumptions": {"type": "array", "items": {"type": "string"}},
        "parameters": {"type": "object"}, "verdict": _VERDICT, "evidence": {"type": "object"},
        "findings": {"type": "array", "items": {"type": "object"}},
        "configurations": {"type": "object", "required": ["drawn", "rows"], "properties": {
            "drawn": {"type": "integer"},
            "rows": {"type": "array", "items": {"type": "object", "required": ["name", "values", "verdict"]}},
            "note": {"type": "string"}}},
        "negative_controls": {"type": "array", "items": _CONTROL},
        "alpha_spent": {"type": "number"},
        # the run's memo (numerics/memo.py), dropped when the claim's run ended: how often the claim and its
        # controls reused a value (hits), made one (misses), and evicted one at the bound (max_entries)
        "memo": {"type": "object", "properties": {k: {"type": "integer"} for k in
                                                  ("hits", "misses", "evictions", "max_entries")}},
        "seconds": {"type": "number"},
        # present (true) only on a claim not decided because its task failed outside its check (its
        # worker died twice, the executor broke or lost its scheduler); the cause is evidence.cause
        "infrastructure_failure": {"type": "boolean"},
    },
}

_JUDGEMENT = {
    "type": "object",
    "required": ["verdict", "controls", "controls_refuted", "passed", "passed_strict", "exit_code",
                 "exit_code_strict", "counts"],
    "properties": {"verdict": _VERDICT, "controls": {"type": "object", "additionalProperties": _VERDICT},
                   "controls_refuted": {"type": "array", "items": {"type": "string"}},
                   "passed": {"type": "boolean"}, "passed_strict": {"type": "boolean"},
                   "exit_code": {"type": "integer", "enum": [0, 1]},
                   "exit_code_strict": {"type": "integer", "enum": [0, 1]},
                   "counts": {"type": "object", "additionalProperties": {"type": "integer"}}},
}

#: one engine control (canary claim) of a verify run: what it must be judged, what it was judged
#: (``observed`` is ``{"crash": "..."}`` when the engine crashed on it), and whether they agree
_ENGINE_CONTROL = {
    "type": "object",
    "required": ["id", "description", "expected", "observed", "judged_right", "wrong", "seconds"],
    "properties": {"id": {"type": "string"}, "description": {"type": "string"}, "expected": _JUDGEMENT,
                   "observed": {"type": "object"}, "judged_right": {"type": "boolean"},
                   "wrong": {"type": "array", "items": {"type": "string"}}, "seconds": {"type": "number"},
                   "cpu_seconds": {"type": "number"}, "exception": {"type": "string"}},
}

VERIFY_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "softmix verify output",
    "description": "Number types: " + NUMBER_RULE,
    "type": "object",
    "required": ["claims", "seed", "profile", "versions", "exit_code"],
    "properties": {
        "claims": {"type": "array", "items": _CLAIM},
        "seed": {"type": "integer"},
        "profile": {"type": "string", "enum": ["quick", "full"]},
        "versions": {"type": "object"},
        "exit_code": {"type": "integer", "enum": [0, 1]},
        "seconds": {"type": "number"},
        "scheduler": {"type": ["string", "null"]},
        "strict": {"type": "boolean"},
        # present only when some claims were not decided (infrastructure failures): their ids
        "infrastructure_failures": {"type": "array", "items": {"type": "string"}},
        "counts": {"type": "object", "required": ["verified", "confirmed", "refuted", "inconclusive", "error",
                                                  "controls_survived"],
                   "properties": {k: {"type": "integer"} for k in ("verified", "confirmed", "refuted", "inconclusive",
                                                                   "error", "controls_survived")}},
        "engine_controls": {"type": "array", "items": _ENGINE_CONTROL},
        "engine_controls_skipped": {"type": "boolean"},
    },
}


class SchemaError(ValueError):
    pass


_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is(value, t) -> bool:
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[t])


def validate(doc, schema=VERIFY_SCHEMA, path: str = "$") -> None:
    """Raise :class:`SchemaError` naming the first offending path."""
    t = schema.get("type")
    if t is not None:
        types = t if isinstance(t, list) else [t]
        if not any(_is(doc, x) for x in types):
            raise SchemaError(f"{path}: expected {t}, got {type(doc).__name__}")
    if "enum" in schema and doc not in schema["enum"]:
        raise SchemaError(f"{path}: {doc!r} not in {schema['enum']}")
    if isinstance(doc, dict):
        for k in schema.get("required", []):
            if k not in doc:
                raise SchemaError(f"{path}: missing required key {k!r}")
        props = schema.get("properties", {})
        for k, sub in props.items():
            if k in doc:
                validate(doc[k], sub, f"{path}.{k}")
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for k in doc:
                if k not in props:
                    validate(doc[k], extra, f"{path}.{k}")
        elif extra is False:
            unknown = sorted(k for k in doc if k not in props)
            if unknown:
                raise SchemaError(f"{path}: unexpected key {unknown[0]!r}")
    if isinstance(doc, list) and "items" in schema:
        for i, item in enumerate(doc):
            validate(item, schema["items"], f"{path}[{i}]")
