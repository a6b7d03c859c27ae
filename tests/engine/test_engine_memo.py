"""Known answers for the one memo (numerics/memo.py): bounded, least recently used out; one memo per
claim run (the claim and its controls share it), empty when ``run_claim`` returns, so that a worker's
memory does not grow across claims; the engine's and numerics' caches live in it and nowhere else."""
from __future__ import annotations

import ast
import pathlib
from dataclasses import dataclass

import pytest

import softmix
from softmix.checks.runner import run_claim_object
from softmix.numerics import memo

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_memo_is_bounded_least_recently_used_out():
    m = memo.Memo(max_entries=3)
    for k in "abc":
        assert m.get(k, lambda k=k: k.upper()) == k.upper()
    assert m.get("a", lambda: "never") == "A"  # a hit: 'a' becomes the most recent
    m.get("d", lambda: "D")  # full: the least recently used ('b') goes
    assert "b" not in m and "a" in m and "c" in m and "d" in m and len(m) == 3
    assert m.stats() == {"entries": 3, "max_entries": 3, "hits": 1, "misses": 4, "evictions": 1}
    with pytest.raises(ZeroDivisionError):
        m.get("e", lambda: 1 / 0)
    assert "e" not in m  # a factory that raises remembers nothing
    with pytest.raises(ValueError):
        memo.Memo(max_entries=0)


def test_scope_is_fresh_nested_and_cleared_on_exit_even_by_an_exception():
    outer_before = len(memo.current())
    with memo.scope() as a:
        memo.remember("t", 1, lambda: "one")
        with memo.scope() as b:
            assert memo.current() is b and memo.remember("t", 1, lambda: "other") == "other"
        assert len(b) == 0 and memo.current() is a and memo.remember("t", 1, lambda: "x") == "one"
    assert len(a) == 0 and len(memo.current()) == outer_before
    with pytest.raises(RuntimeError):
        with memo.scope() as c:
            memo.remember("t", 2, lambda: 2)
            raise RuntimeError("boom")
    assert len(c) == 0


def test_numerics_caches_live_in_the_current_memo():
    from softmix.numerics import attention, quadrature

    with memo.scope() as m:
        r1 = quadrature.hermite_rule(6, 30)
        assert quadrature.hermite_rule(6, 30) is r1
        attention._kernel(1, "numpy")
        namespaces = {k[0] for k in m._data}
    assert {"quadrature.hermite_rule", "attention.kernel", "attention.kernel_args",
            "lambdify.compile_expr"} <= namespaces
    assert len(m) == 0


@dataclass
class P:
    n: int = 3


def test_a_claim_and_its_controls_share_one_memo_emptied_when_the_run_returns():
    made, memos = [], []

    @softmix.claim(id="unit-memo", title="t", source="s", controls={"c1": "a control", "c2": "another"},
                   register=False)
    def check(p: P, ctx):
        memos.append(memo.current())
        data = ctx.data("sample", lambda rng: made.append(ctx.variant) or rng.random(p.n).tolist(), params=p)
        return softmix.part("numeric", [{"passed": ctx.variant is None, "data": data}])

    process = memo.current()
    before = len(process)
    res = run_claim_object(check, seed=3)
    # made once, by the claim; the two controls reused it (the same numbers)
    assert made == [None]
    rows = [res["evidence"]["numeric"]["rows"][0]["data"]] + [
        c["evidence"]["numeric"]["rows"][0]["data"] for c in res["negative_controls"]]
    assert rows[0] == rows[1] == rows[2]
    # one memo for the claim and its controls, not the process's, and empty once the run returned
    assert len(memos) == 3 and memos[0] is memos[1] is memos[2] and memos[0] is not process
    assert len(memos[0]) == 0 and len(process) == before
    # the next run of the claim starts from an empty memo: nothing carried over from one claim to the next
    run_claim_object(check, seed=3)
    assert made == [None, None]


def test_a_claim_cannot_grow_the_memo_past_its_bound():
    sizes = []

    @softmix.claim(id="unit-memo-bound", title="t", source="s", controls={"c": "c"}, register=False)
    def check(p: P, ctx):
        for i in range(memo.MAX_ENTRIES + 50):
            memo.remember("bulk", i, lambda i=i: bytes(10))
        sizes.append(memo.current().stats())
        return softmix.part("numeric", [{"passed": ctx.variant is None}])

    run_claim_object(check, seed=1)
    s = sizes[0]  # every entry past the bound evicted one (the parameters' converters were remembered first)
    assert s["entries"] == memo.MAX_ENTRIES and s["evictions"] == s["misses"] - memo.MAX_ENTRIES >= 50


# registries (what is declared, not what was computed) are not memos
_REGISTRIES = {"REGISTRY", "PLUGIN_CLAIMS", "STATEMENTS", "_SHAPES", "_IDS", "_DECLARED"}


def _module_memos(path: pathlib.Path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in node.decorator_list:
                name = ast.unparse(d)
                if "lru_cache" in name or name in ("cache", "functools.cache"):
                    yield f"{path.name}:{node.lineno} @{name}"
    for node in tree.body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            target, value = node.target.id, node.value
        empty = (isinstance(value, ast.Dict) and not value.keys) or (
            isinstance(value, ast.Call) and ast.unparse(value.func) in (
                "dict", "OrderedDict", "collections.OrderedDict"))
        if target and empty and target not in _REGISTRIES:
            yield f"{path.name}:{node.lineno} {target}"


def test_no_module_level_memo_outside_the_one_memo():
    """theory/, numerics/ and the engine (checks/*.py) keep no cache of their own: no lru_cache, no
    module-level dict filled as a memo (the paper library's are migrated by its port)."""
    files = [p for d in ("theory", "numerics", "checks") for p in sorted((ROOT / d).glob("*.py"))
             if p.name != "memo.py"]
    found = [m for p in files for m in _module_memos(p)]
    assert not found, found


def test_a_value_made_meanwhile_by_another_thread_is_kept_and_returned_to_both():
    """Two threads ask for one key; the factory runs outside the lock, so both may run it.  The value stored first
    is kept, and the slower thread gets that value, not its own (memo.py's race branch, which no test ran)."""
    import threading

    m = memo.Memo()
    started, release, out = threading.Event(), threading.Event(), []

    def slow():
        started.set()
        release.wait(10)
        return "slow"

    t = threading.Thread(target=lambda: out.append(m.get("k", slow)))
    t.start()
    assert started.wait(10)
    assert m.get("k", lambda: "fast") == "fast"  # stored while the slow factory still runs
    release.set()
    t.join(10)
    assert out == ["fast"] and m.get("k", lambda: "again") == "fast" and len(m) == 1 and m.misses == 2
