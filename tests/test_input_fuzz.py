"""Bad input, end to end: malformed mixture, matrix and config files, unknown claim ids and
contradictory options give exit code 2 and one line naming the file and the problem (fuzzed
with hypothesis, run in-process through the CLI's main), never a traceback; and the JSON schema
validator itself can fail."""
import contextlib
import io
import json
import math
import os
import tempfile

import pytest
from hypothesis import example, given, settings, strategies as st

from softmix.checks.cli import main
from softmix.checks.schema import SchemaError, VERIFY_SCHEMA, validate

GOOD_MIX = {"weights": [0.5, 0.5], "means": [[0, 0], [1, 1]], "covariances": [[[1, 0], [0, 1]], [[1, 0], [0, 1]]]}
EYE = [[1, 0], [0, 1]]

_scalars = st.one_of(st.integers(-5, 5), st.floats(allow_nan=False, allow_infinity=False, width=32),
                     st.sampled_from(["x", "", "NaN", "inf", "1e400", None, True]))
_json = st.recursive(_scalars, lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(st.text(max_size=3), c, max_size=3)),
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


@settings(max_examples=40)
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


@settings(max_examples=25)
@given(st.one_of(_json, st.text(max_size=20)))
def test_bad_matrix_and_config_files(junk):
    with tempfile.TemporaryDirectory() as d:
        mp = _write(d, "mix.json", json.dumps(GOOD_MIX))
        bad = _write(d, "bad.json", junk if isinstance(junk, str) else json.dumps(junk))
        vp = _write(d, "V.json", json.dumps(EYE))
        code, err = _run(["attention", "--mixture", mp, "--U", bad, "--V", vp, "--query", "0,0"])
        assert code == 2 and len(err.strip().splitlines()) == 1 and "bad.json" in err
        code, err = _run(["verify", "prop-2.1-shared", "--config", bad, "--quiet"])
        if not (isinstance(junk, dict) and not junk):  # {} is a valid (empty) config
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
