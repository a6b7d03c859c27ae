"""Bad input, end to end: malformed mixture, matrix and config files, unknown claim ids and
contradictory options give exit code 2 and one line naming the file and the problem (fuzzed
with hypothesis, run in-process through the CLI's main), never a traceback; and the JSON schema
validator itself can fail.

Besides the derandomised CI profile, CI runs this file under the ``fuzz`` profile (randomised
examples, several ``--hypothesis-seed`` values; tests/conftest.py, .ci/run): junk at any depth of
a mixture or matrix file, hostile numbers (huge exponents, thousands of digits, zero
denominators, non-ASCII digits), and mixtures given in pieces through ``--config`` whose check
must only ever see a valid mixture."""
import contextlib
import io
import json
import os
import tempfile
import time

import pytest
from hypothesis import example, given, settings, strategies as st

from softmix.checks.cli import main
from softmix.checks.schema import VERIFY_SCHEMA, SchemaError, validate

GOOD_MIX = {"weights": [0.5, 0.5], "means": [[0, 0], [1, 1]], "covariances": [[[1, 0], [0, 1]], [[1, 0], [0, 1]]]}
EYE = [[1, 0], [0, 1]]

_scalars = st.one_of(st.integers(-5, 5), st.floats(allow_nan=False, allow_infinity=False, width=32),
                     st.sampled_from(["x", "", "NaN", "inf", "1e400", None, True]))
_json = st.recursive(_scalars,
                     lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(st.text(max_size=3), c, max_size=3)),
                     max_leaves=8)


def _run(argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    return code, err.getvalue()


def _write(d, name, text):
    p = os.path.join(d, name)
    with open(p, "w") as fh:
        fh.write(text)
    return p


@st.composite
def broken_mixtures(draw):
    """A valid mixture with one field replaced by junk, or arbitrary JSON."""
    kind = draw(st.sampled_from(["replace", "arbitrary", "negative", "nonpsd", "asym", "shape"]))
    m = json.loads(json.dumps(GOOD_MIX))
    if kind == "replace":
        key = draw(st.sampled_from(["weights", "means", "covariances"]))
        m[key] = draw(_json)
    elif kind == "arbitrary":
        return draw(_json)
    elif kind == "negative":
        m["weights"] = [1.5, -0.5]
    elif kind == "nonpsd":
        m["covariances"][0] = [[1, 3], [3, 1]]
    elif kind == "asym":
        m["covariances"][0] = [[1, 0.5], [0, 1]]
    else:
        m["means"][1] = [1, 1, 1]
    return m


def _n(k: int) -> int:
    """At least ``k`` examples, more under a profile that asks for more (``fuzz``)."""
    return max(k, settings.default.max_examples)


@settings(max_examples=_n(40))
@given(broken_mixtures())
@example({"weights": [0.5, 0.5], "means": [[0, 0], [1, 1]], "covariances": [[[1, 0], [0, 1]], [[1, 0], [0, "NaN"]]]})
def test_bad_mixture_files_exit_2_with_one_line(mix):
    with tempfile.TemporaryDirectory() as d:
        mp = _write(d, "mix.json", json.dumps(mix, allow_nan=True))
        up, vp = _write(d, "U.json", json.dumps(EYE)), _write(d, "V.json", json.dumps(EYE))
        code, err = _run(["attention", "--mixture", mp, "--U", up, "--V", vp, "--query", "0.1,0.2"])
    if code == 0:  # the junk happened to form a valid mixture: then it must be one
        return
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err and "mix.json" in lines[0]


@settings(max_examples=min(_n(25), 40))  # each example parses the command line twice (slow argparse): capped
@given(st.one_of(_json, st.text(max_size=20)))
def test_bad_matrix_and_config_files(junk):
    with tempfile.TemporaryDirectory() as d:
        mp = _write(d, "mix.json", json.dumps(GOOD_MIX))
        bad = _write(d, "bad.json", junk if isinstance(junk, str) else json.dumps(junk))
        vp = _write(d, "V.json", json.dumps(EYE))
        code, err = _run(["attention", "--mixture", mp, "--U", bad, "--V", vp, "--query", "0,0"])
        assert code == 2 and len(err.strip().splitlines()) == 1 and "bad.json" in err
        if isinstance(junk, dict) and not junk:  # {} is a valid (empty) config: nothing to refuse, no claim to run
            return
        code, err = _run(["verify", "prop-2.1-shared", "--config", bad, "--quiet"])
        assert code == 2 and len(err.strip().splitlines()) == 1 and "bad.json" in err


@pytest.mark.parametrize("argv", [
    ["verify", "no-such-claim"], ["verify", "--quiet", "--verbose"], ["verify", "--workers", "0"],
    ["verify", "--profile", "huge"], ["show", "nope"], ["attention"], ["finite-prompt", "--reps", "3"],
])
def test_usage_errors(argv):
    code, err = _run(argv)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_schema_validator_refutes_broken_documents():
    good = {"claims": [{"id": "x", "title": "", "source": "", "verdict": "verified", "evidence": {},
                        "negative_controls": [{"id": "c", "description": "", "verdict": "refuted", "refuted": True,
                                               "evidence": {}}], "seconds": 0.1}],
            "seed": 1, "profile": "quick", "versions": {}, "exit_code": 0}
    validate(good)
    for mutate in (lambda d: d.pop("seed"), lambda d: d["claims"][0].update(verdict="maybe"),
                   lambda d: d["claims"][0]["negative_controls"][0].update(refuted="yes"),
                   lambda d: d.update(profile="slow")):
        bad = json.loads(json.dumps(good))
        mutate(bad)
        with pytest.raises(SchemaError):
            validate(bad)
    assert VERIFY_SCHEMA["properties"]["claims"]["items"]["required"]


# ---- junk at any depth, hostile numbers -------------------------------------------------------------
_hostile_numbers = st.one_of(
    st.integers(4, 999_999_999).map(lambda e: f"1e{e}"), st.integers(1001, 999_999_999).map(lambda e: f"-2.5e-{e}"),
    st.integers(1001, 30_000).map(lambda n: "7" * n), st.integers(1001, 5_000).map(lambda n: "0." + "3" * n),
    st.sampled_from(["1/0", "0/0", "1e300/1e-300", "NaN", "-Infinity", "1_000", "\u0663", "0x1p3", "1e", ".", "--1",
                     " ", "1/2/3", "+-1", "1e+", "٣/4"]),
    st.integers(302, 2000).map(lambda e: 10 ** e), st.just(1e305), st.just(float("inf")))


def _paths(obj, path=()):
    """Every position inside a JSON value (the root included)."""
    yield path
    if isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, path + (i,))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, path + (k,))


def _replace(obj, path, value):
    if not path:
        return value
    out = json.loads(json.dumps(obj))
    node = out
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    return out


@st.composite
def mutated(draw, base, junk):
    """``base`` with the value at one drawn position (any depth) replaced by ``junk``."""
    paths = list(_paths(base))
    return _replace(base, draw(st.sampled_from(paths)), draw(junk))


def _dump(obj):
    return json.dumps(obj, allow_nan=True)


@settings(max_examples=_n(40))
@given(mutated(GOOD_MIX, st.one_of(_json, _hostile_numbers)))
@example(_replace(GOOD_MIX, ("covariances",), [[0], 0]))
@example(_replace(GOOD_MIX, ("weights", 0), "1e999999999"))
def test_junk_at_any_depth_of_a_mixture_file(mix):
    with tempfile.TemporaryDirectory() as d:
        mp = _write(d, "mix.json", _dump(mix))
        up, vp = _write(d, "U.json", json.dumps(EYE)), _write(d, "V.json", json.dumps(EYE))
        t0 = time.process_time()
        code, err = _run(["attention", "--mixture", mp, "--U", up, "--V", vp, "--query", "0.1,0.2"])
        secs = time.process_time() - t0
    if code == 0:
        return
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err and "mix.json" in lines[0], err
    assert secs < 1.0, (secs, err)


@settings(max_examples=_n(30))
@given(st.sampled_from(["U", "V"]), mutated(EYE, st.one_of(_json, _hostile_numbers)))
def test_junk_at_any_depth_of_a_matrix_file(which, M):
    with tempfile.TemporaryDirectory() as d:
        mp = _write(d, "mix.json", json.dumps(GOOD_MIX))
        files = {"U": _write(d, "U.json", json.dumps(EYE)), "V": _write(d, "V.json", json.dumps(EYE))}
        files[which] = _write(d, f"{which}.json", _dump(M))
        t0 = time.process_time()
        code, err = _run(["attention", "--mixture", mp, "--U", files["U"], "--V", files["V"], "--query", "0,1"])
        secs = time.process_time() - t0
    if code == 0:
        return
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and f"{which}.json" in lines[0] and "Traceback" not in err, err
    assert secs < 1.0, (secs, err)


@settings(max_examples=_n(30))
@given(st.lists(st.one_of(st.integers(-3, 3).map(str), _hostile_numbers.map(str)), min_size=1, max_size=4))
@example(["0", "1e155"])  # parses, then overflows float64: the message must name the query (CI fuzz seed, 838449b)
def test_hostile_query_entries(parts):
    with tempfile.TemporaryDirectory() as d:
        mp = _write(d, "mix.json", json.dumps(GOOD_MIX))
        up = _write(d, "U.json", json.dumps(EYE))
        t0 = time.process_time()
        code, err = _run(["attention", "--mixture", mp, "--U", up, "--V", up, "--query", ",".join(parts)])
        secs = time.process_time() - t0
    if code == 0:
        return
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--query" in err and "Traceback" not in err, err
    assert secs < 1.0


# ---- mixtures given in pieces through --config ----------------------------------------------------------
_PIECES_DEFAULTS = {"weights": ["0.25", "0.75"], "means": [["0", "1"], ["1", "-1/2"]],
                    "covariances": [[["1", "0"], ["0", "1"]], [["2", "1/2"], ["1/2", "1"]]], "label": "x"}


def _pieces_claim():
    """A claim whose parameters are a mixture in pieces; its check builds the mixture, so a bad one
    that passed validation would raise inside the check."""
    from softmix.checks.registry import REGISTRY, Claim, Control, Outcome, register
    from softmix.numerics.mixture import GaussianMixture

    if "fuzz-mixture-pieces" not in REGISTRY:
        def check(p, ctx):
            GaussianMixture.from_values(p["weights"], p["means"], p["covariances"], where="check")
            return Outcome("verified", {})
        register(Claim(id="fuzz-mixture-pieces", title="pieces", source="tests", statement="", section="user",
                       check=check, defaults=dict(_PIECES_DEFAULTS), controls=(Control("c", "c"),)))
    return REGISTRY["fuzz-mixture-pieces"]


_weights = st.lists(st.one_of(st.sampled_from(["0.25", "0.75", "1/2", "0.5", "0", "-0.25", "1", "0.3"]),
                              st.integers(0, 2)), min_size=0, max_size=4)
_vector = st.lists(st.sampled_from(["0", "1", "-1/2", "2.5"]), min_size=0, max_size=3)
_pieces = st.fixed_dictionaries({}, optional={
    "weights": st.one_of(_weights, _json), "means": st.one_of(st.lists(_vector, max_size=4), _json),
    "covariances": st.one_of(st.lists(st.sampled_from([[["1", "0"], ["0", "1"]], [["1"]], [["1", "2"], ["2", "1"]],
                                                        [["1", "0"], ["0"]], 0, [[0], 0]]), max_size=3), _json)})


@settings(max_examples=_n(60))
@given(_pieces, st.booleans())
@example({"weights": ["0.2", "0.7"]}, False)
@example({"means": [["0", "1"]]}, True)
def test_mixture_pieces_through_config_never_reach_the_check_broken(pieces, by_section):
    from softmix.checks.cli_verify import load_config
    from softmix.checks.registry import Context, load_all
    from softmix.numerics.errors import InputError

    load_all()
    claim = _pieces_claim()
    with tempfile.TemporaryDirectory() as d:
        path = _write(d, "cfg.json", _dump({("user" if by_section else claim.id): pieces}))
        try:
            config = load_config(path, {claim.id: claim}, [claim.id])
        except InputError as e:
            msg = str(e)
            assert "\n" not in msg and msg.startswith(path), msg
            return
    out = claim.check(claim.params("quick", config.get(claim.id, {})), Context(claim.id, "quick", 1, claim=claim))
    assert out.verdict == "verified"
