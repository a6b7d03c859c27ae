"""The installed package and the plugin mechanism (issue 10): one top-level package `softmix`,
a facade whose names all resolve, claims loaded from files and modules like the paper library."""
import json
import os
import shutil
import subprocess
import sys

import pytest

import softmix


def _run(args, cwd, env=None):
    exe = shutil.which("softmix")
    cmd = [exe] if exe else [sys.executable, "-m", "softmix"]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, cwd=cwd, timeout=300,
                          env=env)


def test_import_from_elsewhere_installs_no_generic_top_level_package(tmp_path):
    code = ("import importlib.util, json, softmix; "
            "print(json.dumps([softmix.__version__, "
            "[importlib.util.find_spec(n) is None for n in ('theory', 'numerics', 'checks')]]))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    version, absent = json.loads(r.stdout)
    assert version and version != "0+unknown"
    assert absent == [True, True, True]


def test_facade_names_resolve_and_are_typed():
    for name in softmix.__all__:
        assert getattr(softmix, name) is not None, name
    with pytest.raises(AttributeError):
        softmix.no_such_name  # noqa: B018
    pkg_dir = os.path.dirname(softmix.__file__)
    assert os.path.isfile(os.path.join(pkg_dir, "py.typed"))


def test_engine_imports_nothing_from_the_paper_library():
    """The engine modules of softmix.checks never import softmix.checks.paper."""
    import softmix.checks as C

    root = os.path.dirname(C.__file__)
    for fn in sorted(os.listdir(root)):
        if fn.endswith(".py"):
            src = open(os.path.join(root, fn)).read()
            assert "checks.paper" not in src and "from .paper" not in src, fn


def test_layering_theory_and_numerics():
    import softmix.numerics as N
    import softmix.theory as T

    for pkg, banned in ((T, ("numerics", "checks")), (N, ("checks",))):
        root = os.path.dirname(pkg.__file__)
        for fn in os.listdir(root):
            if fn.endswith(".py"):
                for line in open(os.path.join(root, fn)):
                    s = line.strip()
                    if s.startswith(("from ", "import ")):
                        for b in banned:
                            assert f"softmix.{b}" not in s and not s.startswith(f"from ..{b}"), (fn, s)


PLUGIN = '''
from softmix import Claim, Control, Outcome, register, register_section

register_section("mine", "my own statements")


def _check(params, ctx):
    value = params["x"] * 2
    expected = params["x"] + params["x"] if ctx.variant is None else params["x"] + 1
    return Outcome("confirmed" if value == expected else "refuted", {"value": value, "expected": expected})


register(Claim(id="my-doubling", title="2x = x + x", source="my notes", statement="2x = x + x",
               section="mine", check=_check, defaults={"x": 3},
               controls=(Control("plus-one", "2x = x + 1"),)))
'''


def test_plugin_file_is_listed_verified_and_configurable(tmp_path):
    f = tmp_path / "my_claims.py"
    f.write_text(PLUGIN)
    r = _run(["list", "--plugin", str(f)], cwd=tmp_path)
    assert r.returncode == 0 and "my-doubling" in r.stdout and "prop-2.1" in r.stdout
    r = _run(["list", "--where", "--plugin", str(f)], cwd=tmp_path)
    assert "my-doubling" in r.stdout and ":_check" in r.stdout
    out = tmp_path / "out.json"
    r = _run(["verify", "--plugin", str(f), "my-doubling", "--json", str(out), "--quiet"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert doc["claims"][0]["verdict"] == "confirmed"
    assert doc["claims"][0]["negative_controls"][0]["refuted"]
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"mine": {"x": 1}}))  # x = 1: 2x = x + 1 holds, the control survives
    r = _run(["verify", "--plugin", str(f), "my-doubling", "--config", str(cfg), "--quiet"], cwd=tmp_path)
    assert r.returncode == 1


@pytest.mark.parametrize("content,needle", [(None, "not found"), ("def broken(:\n", "syntax error"),
                                            ("raise RuntimeError('boom')\n", "failed to load")])
def test_bad_plugin_is_one_line_exit_2(tmp_path, content, needle):
    f = tmp_path / "bad.py"
    if content is not None:
        f.write_text(content)
    r = _run(["verify", "--plugin", str(f), "prop-2.1"], cwd=tmp_path)
    assert r.returncode == 2
    assert needle in r.stderr and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_plugin_module_name_and_entry_point_library():
    from softmix.checks import registry

    claims = registry.load_all()
    assert "prop-2.1" in claims  # the paper library came through the softmix.claims entry point
    assert any(p == "softmix.checks.paper" for p in registry.PLUGINS)
    with pytest.raises(softmix.InputError, match="plugin module not found"):
        registry.load_plugin("softmix_no_such_module_xyz")


def test_closed_output_pipe_is_not_an_error(tmp_path):
    exe = shutil.which("softmix")
    cmd = exe if exe else f"{sys.executable} -m softmix"
    r = subprocess.run(f"{cmd} list | head -1", shell=True, capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    assert r.stdout.count("\n") == 1
    assert "Traceback" not in r.stderr and "BrokenPipe" not in r.stderr


def test_python_dash_m_softmix(tmp_path):
    r = subprocess.run([sys.executable, "-m", "softmix", "list"], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    assert r.returncode == 0 and "prop-2.1" in r.stdout


def test_mutation_score_needs_a_source_checkout(monkeypatch, tmp_path):
    from softmix.checks import mutation

    monkeypatch.setattr(mutation, "ROOT", tmp_path)
    with pytest.raises(softmix.InputError, match="source checkout"):
        mutation.require_source_checkout()
