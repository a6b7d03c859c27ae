"""Modules a reader can hold: no module of the package over 600 lines, no function over 80 (its
docstring included), read from the sources with ``ast`` (docs/contributing.md)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ("theory", "numerics", "checks", "softmix")
MAX_MODULE, MAX_FUNCTION = 600, 80


def _files():
    return sorted(p for d in PACKAGE for p in (ROOT / d).rglob("*.py"))


def test_the_scan_sees_the_package():
    assert len(_files()) > 100


def test_no_module_over_600_lines():
    long = {str(p.relative_to(ROOT)): n for p in _files() if (n := len(p.read_text().splitlines())) > MAX_MODULE}
    assert not long


def test_no_function_over_80_lines():
    long = {}
    for p in _files():
        for node in ast.walk(ast.parse(p.read_text(), str(p))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION:
                    long[f"{p.relative_to(ROOT)}:{node.lineno} {node.name}"] = n
    assert not long
