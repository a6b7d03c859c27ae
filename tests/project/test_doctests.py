"""The docstring examples of the public modules run as tests (docs/contributing.md).  Every module of
the package whose source holds a ``>>>`` example is found here, so a new example is tested without
listing it.  (``pytest --doctest-modules`` cannot do this: the subpackages are the repository's
top-level folders, which it would import a second time under other names.)"""
import doctest
import importlib
from pathlib import Path

import pytest

import softmix

ROOT = Path(__file__).resolve().parents[2]
# module prefix -> folder of the source checkout (pyproject's [tool.setuptools.package-dir])
_FOLDERS = {"softmix": "softmix", "softmix.theory": "theory", "softmix.numerics": "numerics",
            "softmix.checks": "checks"}


def _modules_with_examples() -> list[str]:
    found = []
    for prefix, folder in _FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if ">>>" not in path.read_text():
                continue
            rel = path.relative_to(ROOT / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            found.append(".".join([prefix, *parts]))
    return found


MODULES = _modules_with_examples()


def test_the_examples_are_found():
    assert {"softmix.checks.rules", "softmix.settings", "softmix.numerics.parsing"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                             extraglobs={"softmix": softmix})
    assert result.attempted > 0, f"{name}: no example collected (is the >>> in a docstring?)"
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
