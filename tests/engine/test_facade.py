"""The public facade (softmix/__init__.py): every lazy export has its real type for a type checker,
and every ``softmix.X`` the documentation and the examples name exists."""
import ast
import importlib
import re
import tomllib
import types
from pathlib import Path

import pytest

import softmix

ROOT = Path(__file__).resolve().parents[2]
INIT = ROOT / "softmix" / "__init__.py"


def _type_checking_imports() -> dict[str, tuple[str, str]]:
    """public name -> (module, attribute) of the ``from M import A as N`` lines under ``if TYPE_CHECKING:``."""
    tree = ast.parse(INIT.read_text())
    blocks = [node for node in tree.body if isinstance(node, ast.If) and isinstance(node.test, ast.Name)
              and node.test.id == "TYPE_CHECKING"]
    assert len(blocks) == 1, "softmix/__init__.py has one `if TYPE_CHECKING:` block of typed imports"
    out: dict[str, tuple[str, str]] = {}
    for stmt in blocks[0].body:
        assert isinstance(stmt, ast.ImportFrom) and stmt.module, ast.unparse(stmt)
        for alias in stmt.names:
            # `A as N` (N given explicitly) is what makes the name a re-export for mypy and pyright
            assert alias.asname is not None, f"write `{alias.name} as {alias.name}` (an explicit re-export)"
            assert alias.asname not in out, alias.asname
            out[alias.asname] = (stmt.module, alias.name)
    return out


def test_typed_imports_are_exactly_the_lazy_exports_and_all():
    typed = _type_checking_imports()
    assert typed == softmix._EXPORTS
    assert softmix.__all__ == ["__version__", *softmix._EXPORTS]


def test_every_export_is_the_object_its_typed_import_names():
    for name, (mod, attr) in _type_checking_imports().items():
        module = importlib.import_module(mod)
        expected = getattr(module, attr, None)
        if expected is None:  # a submodule exported as a name (``configs``)
            expected = importlib.import_module(f"{mod}.{attr}")
        assert getattr(softmix, name) is expected, name


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        softmix.no_such_name  # noqa: B018
    assert {"AlphaFamily", "SlopeRule", "configs", "SoftmixWarning"} <= set(dir(softmix))


def test_the_documented_rule_and_draw_names_are_exported():
    from softmix.checks import configs, fits, rules

    assert softmix.AlphaFamily is rules.AlphaFamily and softmix.Threshold is rules.Threshold
    assert softmix.SlopeRule is fits.SlopeRule and softmix.InverseLRule is fits.InverseLRule
    assert softmix.configs is configs and callable(softmix.configs.mixture)


def test_every_project_warning_is_a_softmix_warning():
    """One filter (``error::softmix.SoftmixWarning``) covers every warning class the project defines."""
    from softmix.testing import InconclusiveClaimWarning

    assert issubclass(softmix.PrecisionWarning, softmix.SoftmixWarning)
    assert issubclass(InconclusiveClaimWarning, softmix.SoftmixWarning)
    assert issubclass(softmix.SoftmixWarning, UserWarning)
    defined = set()
    for folder in ("checks", "numerics", "theory", "softmix"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ClassDef) and node.name.endswith("Warning"):
                    defined.add((path.relative_to(ROOT).as_posix(), node.name,
                                 tuple(ast.unparse(b) for b in node.bases)))
    assert defined, "the scan finds the warning classes"
    for path, name, bases in defined:
        assert name == "SoftmixWarning" or any(b.endswith("Warning") and b != "UserWarning" for b in bases), \
            (path, name, bases)
        assert "UserWarning" not in bases or name == "SoftmixWarning", (path, name, "derive from SoftmixWarning")


# ---- every softmix.X the documentation names resolves ----------------------------------------------
_DOTTED = re.compile(r"(?<![\w./-])softmix(?:\.[A-Za-z_]\w*)+")
_FROM_IMPORT = re.compile(r"^\s*from (softmix(?:\.\w+)*) import ([\w, ]+)$", re.M)


def _documents() -> list[Path]:
    files = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
    files += sorted(p for p in (ROOT / "examples").rglob("*") if p.is_file() and p.suffix in (".py", ".md"))
    return files


def _entry_point_groups() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return set(project.get("entry-points", {}))


def _resolve(dotted: str) -> bool:
    """Whether ``softmix.a.b.c`` is an attribute chain or a module path (or a mixture of both)."""
    obj: object = softmix
    parts = dotted.split(".")[1:]
    for part in parts:
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        if not isinstance(obj, types.ModuleType):
            return False
        try:
            obj = importlib.import_module(f"{obj.__name__}.{part}")
        except ModuleNotFoundError:
            return False
    return True


def _documented_names() -> dict[str, set[str]]:
    groups = _entry_point_groups()
    names: dict[str, set[str]] = {}
    for path in _documents():
        text = path.read_text()
        where = path.relative_to(ROOT).as_posix()
        for m in _DOTTED.finditer(text):
            name = m.group(0)
            if name not in groups:  # `softmix.claims` is the plugins' entry-point group
                names.setdefault(name, set()).add(where)
        for m in _FROM_IMPORT.finditer(text):
            for item in m.group(2).split(","):
                item = item.strip().split(" as ")[0].strip()
                if item and item != "*":
                    names.setdefault(f"{m.group(1)}.{item}", set()).add(where)
    return names


def test_the_scan_finds_the_documented_names():
    names = _documented_names()
    for expected in ("softmix.operator_claim", "softmix.claim", "softmix.Residual", "softmix.AlphaFamily",
                     "softmix.combine"):
        assert expected in names, expected
    assert not _resolve("softmix.no_such_name") and not _resolve("softmix.checks.no_such_module")
    assert not _resolve("softmix.Residual.no_such_method")


def test_every_softmix_name_in_the_docs_and_examples_exists():
    missing = {name: sorted(where) for name, where in _documented_names().items() if not _resolve(name)}
    assert not missing, missing
