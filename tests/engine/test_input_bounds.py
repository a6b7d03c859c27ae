"""Bounded parsing and declared schemas (docs/input.md): every limit refuses input past it quickly
and with one line naming the place; known answers for the number grammar; parameter types whose
values arrive parsed; ``verify --plugin FILE`` runs that file's claims; unknown names suggest the
nearest.  Exit codes are tested as processes."""
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

import mpmath as mpm
import pytest

import softmix
from softmix.checks.params import coerce_dataclass, exact_default, validate_params
from softmix.numerics.errors import InputError
from softmix.numerics.parsing import LIMITS, load_json_file, parse_number

EYE = [[1, 0], [0, 1]]
MIX = {"weights": ["0.3", "0.7"], "means": [[0, 0], [1, "-1/2"]], "covariances": [EYE, [["2", "0.5"], ["0.5", 1]]]}


def _softmix(*argv, cwd=None, timeout=120):
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "softmix", *argv], capture_output=True, text=True, timeout=timeout,
                       cwd=cwd)
    return r, time.perf_counter() - t0


def _one_line_exit_2(r):
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    return lines[0]


# ---- the number grammar: known answers -------------------------------------------------------------
@pytest.mark.parametrize("text, value", [
    ("0.6", Fraction(3, 5)), (" -1.25e-3 ", Fraction(-1, 800)), ("1/3", Fraction(1, 3)), ("2.5/7", Fraction(5, 14)),
    ("+.5", Fraction(1, 2)), ("3.", Fraction(3)), ("1E2", Fraction(100)), ("-0", Fraction(0)),
    ("1e300", Fraction(10**300)), ("1e-1000", Fraction(1, 10**1000)), ("9" * 1000, None),
])
def test_parse_number_known_answers(text, value):
    if value is None:  # 1000 nines: at the digit limit but out of range (1e1000 > 1e301)
        with pytest.raises(InputError, match="out of range"):
            parse_number(text)
        return
    assert parse_number(text) == value


@pytest.mark.parametrize("x, needle", [
    ("1e999999999", "out of range"), ("1e-999999999", "out of range"), ("1e301", "out of range"),
    ("1e-1001", "out of range"), ("1" * 2_000_000, "characters"), ("0." + "1" * 1001, "significant digits"),
    ("1/0", "zero denominator"), ("1e300/1e-300", "out of range"), ("NaN", "non-finite"), ("inf", "non-finite"),
    ("1_000", "not a number"), ("٣", "not a number"), ("0x10", "not a number"), ("", "not a number"),
    (float("nan"), "non-finite"), (True, "expected a number"), (None, "expected a number"), ([1], "expected a number"),
    (10**400, "out of range"), (1e305, "out of range"), (Decimal("1e999999999"), "out of range"),
    (Fraction(1, 10**1200), "too many digits"), (mpm.mpf("1e-100000000"), "out of range"),
])
def test_parse_number_refuses_past_the_limits_quickly(x, needle):
    t0 = time.process_time()
    with pytest.raises(InputError, match=needle) as e:
        parse_number(x, "here")
    assert time.process_time() - t0 < 0.1 and str(e.value).startswith("here: ")


def test_parse_number_is_public_and_documented():
    assert softmix.parse_number is parse_number and "number   :=" in parse_number.__doc__
    assert softmix.INPUT_LIMITS is LIMITS and LIMITS.max_depth == 32 and LIMITS.max_exponent == 300


# ---- JSON files ----------------------------------------------------------------------------------
@pytest.mark.parametrize("text, needle", [
    ("[" * 100_000 + "]" * 100_000, "nested 100000 levels deep"),
    ("[" * 33 + "]" * 33, "more than the limit of 32"),
    ('{"a": "' + "[" * 40 + '\\"["}', None),  # brackets inside a string do not nest
    ("[[" + "1" * 2_000_000 + "]]", "integer literal with too many digits"),
    ("[1e999999999]", "line 1: number 1e999999999 is out of range"),
    ("[\n1,\n-1e-99999]", "line 3"),
    ("[" + ",".join(["0"] * (LIMITS.max_array_length + 1)) + "]", "an array of 100001 entries"),
    ("[NaN]", "non-finite"), ("[1, 2", "invalid JSON"), (b"\xff\xfe[1]", "not UTF-8"),
])
def test_json_limits(tmp_path, text, needle):
    p = tmp_path / "f.json"
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    t0 = time.process_time()
    if needle is None:
        assert load_json_file(p) == {"a": "[" * 40 + '"['}
        return
    with pytest.raises(InputError, match=needle) as e:
        load_json_file(p)
    assert time.process_time() - t0 < 0.5 and str(e.value).startswith(str(p))


def test_json_file_size_limit_checked_before_reading(tmp_path):
    p = tmp_path / "big.json"
    with open(p, "wb") as fh:
        fh.seek(LIMITS.max_file_bytes)
        fh.write(b"0")
    t0 = time.process_time()
    with pytest.raises(InputError, match="more than the limit of 8388608 bytes"):
        load_json_file(p)
    assert time.process_time() - t0 < 0.1


# ---- hostile input through the command line, as processes, timed --------------------------------------
@pytest.mark.parametrize("case, needle", [
    ("covariances-nested", "mix.json: covariances[1]: expected a list, got 0"),
    ("weights-huge-exponent", 'mix.json: line 1: number 1e999999999 is out of range'),
    ("weights-string-exponent", "mix.json: weights[0]: number 1e999999999 is out of range"),
    ("two-million-digits", "mix.json: means[0][0]: number"),
    ("deep-U", "U.json: nested 50000 levels deep"),
    ("query-exponent", "--query[0]: number 1e999999999 is out of range"),
    ("query-digits", "--query[1]: number"),
    ("unknown-key", "mix.json: unknown key 'weight' (did you mean 'weights'?)"),
    ("mean-dimension", "mix.json: means[1]: expected 2 entries (the dimension of means[0]), got 3"),
])
def test_hostile_attention_inputs_exit_2_fast(tmp_path, case, needle):
    mix, U, query = json.loads(json.dumps(MIX)), json.dumps(EYE), "0.1,0.2"
    if case == "covariances-nested":
        mix["covariances"] = [[[0]], 0]
    elif case == "weights-string-exponent":
        mix["weights"][0] = "1e999999999"
    elif case == "two-million-digits":
        mix["means"][0][0] = "1" * 2_000_000
    elif case == "deep-U":
        U = "[" * 50_000 + "]" * 50_000
    elif case == "query-exponent":
        query = "1e999999999,0"
    elif case == "query-digits":
        query = "0," + "7" * 100_000  # (an argument of two million characters is refused by the OS)
    elif case == "unknown-key":
        mix["weight"] = mix.pop("weights")
    elif case == "mean-dimension":
        mix["means"][1] = [1, 2, 3]
    text = json.dumps(mix)
    if case == "weights-huge-exponent":
        text = text.replace('"0.3"', "1e999999999")
    (tmp_path / "mix.json").write_text(text)
    (tmp_path / "U.json").write_text(U)
    (tmp_path / "V.json").write_text(json.dumps(EYE))
    r, secs = _softmix("attention", "--mixture", "mix.json", "--U", "U.json", "--V", "V.json", "--query", query,
                       cwd=tmp_path)
    assert needle in _one_line_exit_2(r)
    assert secs < 20  # the interpreter's start; the refusal itself is timed in-process below


def test_refusals_take_well_under_a_second_in_process(tmp_path):
    from softmix.checks.cli import main

    (tmp_path / "mix.json").write_text(json.dumps(MIX))
    (tmp_path / "I.json").write_text(json.dumps(EYE))
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "huge.json").write_text('[["' + "3" * 2_000_000 + '"]]')
    args = ["attention", "--mixture", str(tmp_path / "mix.json"), "--V", str(tmp_path / "I.json")]
    main(args + ["--U", str(tmp_path / "I.json"), "--query", "0,0", "--json", str(tmp_path / "o.json")])  # warm
    for extra in (["--U", str(tmp_path / "deep.json"), "--query", "0,0"],
                  ["--U", str(tmp_path / "huge.json"), "--query", "0,0"],
                  ["--U", str(tmp_path / "I.json"), "--query", "1e999999999,0"],
                  ["--U", str(tmp_path / "I.json"), "--query", "0," + "9" * 2_000_000]):
        t0 = time.process_time()  # CPU time: the machine may be shared
        assert main(args + extra) == 2
        assert time.process_time() - t0 < 0.5, extra


# ---- --config: mixtures in pieces, suggestions ------------------------------------------------------
@pytest.mark.parametrize("config, needle", [
    ({"smart-2025-mixture": {"weights": ["0.2", "0.3", "0.4"]}},
     "smart-2025-mixture (weights, means form a mixture): weights sum to 0.9, not 1"),
    ({"smart-2025-mixture": {"means": [["1", "0"], ["0", "1"]]}}, "means: expected 3 vectors (one per weight), got 2"),
    ({"smart-2025-mixture": {"means": [["1", "0"], ["0", "1"], ["1"]]}},
     "smart-2025-mixture.means: rows have different lengths"),
    ({"smart-2025-mixture": {"weights": ["0.5", "0.6", "-0.1"]}}, "weights[2] = -0.1 is not positive"),
    ({"smart-2025-mixture": {"weights": ["1e999999999", "0", "0"]}}, "weights[0]: number 1e999999999 is out of range"),
    ({"smart-2025-mixtur": {}}, "unknown claim id or section 'smart-2025-mixtur' (did you mean 'smart-2025-mixture'?)"),
    ({"smart-2025-mixture": {"weight": ["1"]}}, "does not accept parameter(s) weight (did you mean 'weights'?)"),
    ({"ld": {"m1": [1, 0]}}, "(did you mean 'lda'?)"),
    ({"lda": {"Gama": [[1, 0], [0, 1]]}}, "(did you mean 'Gamma'?)"),
    ({"smart-2025-mixture": []}, "smart-2025-mixture: expected an object of parameters, got []"),
])
def test_config_errors_name_the_claim_and_the_piece(tmp_path, config, needle):
    (tmp_path / "c.json").write_text(json.dumps(config))
    r, _ = _softmix("verify", "smart-2025-mixture", "--config", "c.json", "--quiet", cwd=tmp_path)
    line = _one_line_exit_2(r)
    assert needle in line and line.startswith("softmix: error: c.json: "), line


def test_pieces_in_a_valid_config_pass_validation():
    from softmix.checks.registry import load_all

    c = load_all()["smart-2025-mixture"]
    assert validate_params(c, {"weights": ["0.25", "0.25", "1/2"]}, "cfg", "quick")
    assert validate_params(c, {"weights": ["0.5", "0.5"], "means": [[1, 0], [0, 1]]}, "cfg")


def test_unknown_claim_ids_suggest_the_nearest():
    r, _ = _softmix("verify", "lemma-b.88", "--quiet")
    assert "unknown claim id(s): lemma-b.88 (did you mean 'lemma-b.8'?)" in _one_line_exit_2(r)
    r, _ = _softmix("show", "prop-2.1-share")
    assert "(did you mean 'prop-2.1-shared'?)" in _one_line_exit_2(r)


# ---- --plugin FILE: that file's claims only ----------------------------------------------------------
_PLUGIN = '''
from dataclasses import dataclass
import softmix

@dataclass
class P:
    n: int = 3

@softmix.claim(id="tiny-plugin-claim", title="n + 0 = n", source="here", controls={"plus-one": "n + 1 = n"})
def tiny(p: P, ctx):
    return softmix.part("numeric", [softmix.Bound().decide(p.n + (1 if ctx.control("plus-one") else 0), p.n)])
'''


def test_verify_plugin_without_ids_runs_the_plugin_claims_only(tmp_path):
    (tmp_path / "mine.py").write_text(_PLUGIN)
    r, _ = _softmix("verify", "--plugin", "mine.py", "--quiet", "--json", "out.json", "--workers", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "out.json").read_text())
    assert [c["id"] for c in doc["claims"]] == ["tiny-plugin-claim"]
    r, _ = _softmix("verify", "tiny-plugin-claim", "--all", "--plugin", "mine.py", cwd=tmp_path)
    assert "--all" in _one_line_exit_2(r)
    (tmp_path / "empty.py").write_text("x = 1\n")
    r, _ = _softmix("verify", "--plugin", "empty.py", cwd=tmp_path)
    assert "registers no claim" in _one_line_exit_2(r)


def test_plugin_claims_of_a_module_plugin_and_of_the_entry_point():
    from softmix.checks.registry import load_all, plugin_claims

    claims = load_all()
    paper = plugin_claims("softmix.checks.paper")
    assert len(paper) == len([c for c in claims if c in paper]) >= 70 and "lemma-b.8" in paper


# ---- parameter types whose values arrive parsed ----------------------------------------------------------
@dataclass
class _Typed:
    exact: softmix.Exact = "1/3"
    real: softmix.Real = "0.1"
    frac: Fraction = Fraction(1, 7)
    flt: float = 1
    scale: softmix.NonNegative = "0.25"
    cov: softmix.Covariance = field(default_factory=lambda: [["1", "1/2"], ["1/2", 1]])
    ints: list[int] = field(default_factory=lambda: [1, 2.0])
    exacts: list[softmix.Exact] = field(default_factory=lambda: ["0.1", 2])
    raw: list = field(default_factory=lambda: ["0.1"])
    name: str = "x"
    dps: int = 60


def test_typed_fields_arrive_parsed_from_defaults_and_from_config():
    p = coerce_dataclass(_Typed, {f: getattr(_Typed(), f) for f in _Typed.__dataclass_fields__})
    assert p.exact == Fraction(1, 3) and isinstance(p.exact, Fraction)
    assert isinstance(p.real, mpm.mpf)
    with mpm.workdps(80):  # rounded once at the dataclass's dps (60 digits), not at 15
        assert abs(p.real - mpm.mpf(1) / 10) < mpm.mpf(10) ** -58 and abs(p.real - mpm.mpf(1) / 10) > 0
    assert p.frac == Fraction(1, 7) and p.flt == 1.0 and isinstance(p.flt, float) and p.scale == 0.25
    assert p.cov == [[1, Fraction(1, 2)], [Fraction(1, 2), 1]]
    assert all(isinstance(x, Fraction) for r in p.cov for x in r)
    assert p.ints == [1, 2] and all(type(i) is int for i in p.ints)
    assert p.exacts == [Fraction(1, 10), 2] and p.raw == ["0.1"] and p.name == "x"
    q = coerce_dataclass(_Typed, {"exact": Decimal("0.1"), "real": "2/3", "flt": "1/4", "dps": 20})
    assert q.exact == Fraction(1, 10) and q.flt == 0.25
    with mpm.workdps(40):
        assert 1e-19 > abs(q.real - mpm.mpf(2) / 3) > 1e-40  # rounded at 20 digits
    with pytest.raises(InputError, match="exact.*out of range|out of range"):
        coerce_dataclass(_Typed, {"exact": "1e999999999"}, "claim x")


@dataclass
class _WrittenDefaults:
    third: softmix.Exact = exact_default("1/3")
    m: list[softmix.Exact] = field(default_factory=lambda: exact_default([3, "0.5"]))
    G: list[list[softmix.Exact]] = field(default_factory=lambda: exact_default([["1", 0], [0, "1/2"]]))


def test_exact_default_keeps_the_written_default_and_the_check_gets_fractions():
    raw = _WrittenDefaults()  # the defaults as written (what softmix show prints and a run records)
    assert (raw.third, raw.m, raw.G) == ("1/3", [3, "0.5"], [["1", 0], [0, "1/2"]])
    p = coerce_dataclass(_WrittenDefaults, {"third": raw.third, "m": raw.m, "G": raw.G})
    assert p.third == Fraction(1, 3) and p.m == [3, Fraction(1, 2)] and p.G == [[1, 0], [0, Fraction(1, 2)]]
    assert all(isinstance(x, Fraction) for x in [p.third, *p.m, *p.G[0], *p.G[1]])


_TYPED_PLUGIN = '''
from dataclasses import dataclass
from fractions import Fraction
import mpmath as mpm
import softmix

@dataclass
class P:
    third: softmix.Exact = "1/3"
    r: softmix.Real = "1/7"
    dps: int = 40

@softmix.claim(id="typed-params-claim", title="3 * third = 1 exactly", source="here",
               controls={"off": "3 * third = 1.1"})
def typed(p: P, ctx):
    assert isinstance(p.third, Fraction) and isinstance(p.r, mpm.mpf), (type(p.third), type(p.r))
    target = Fraction(11, 10) if ctx.control("off") else 1
    return softmix.part("numeric", [softmix.Bound().decide(3 * p.third, target),
                                    softmix.Bound().decide(target, 3 * p.third)])
'''


def test_exact_parameters_reach_a_check_parsed_through_config(tmp_path):
    (tmp_path / "typed.py").write_text(_TYPED_PLUGIN)
    (tmp_path / "c.json").write_text(json.dumps({"typed-params-claim": {"third": "2/6", "r": 0.5}}))
    r, _ = _softmix("verify", "--plugin", "typed.py", "--config", "c.json", "--json", "o.json", "--workers", "1",
                    "--quiet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "o.json").read_text())
    assert doc["claims"][0]["verdict"] in ("verified", "confirmed")
    assert all(c["refuted"] for c in doc["claims"][0]["negative_controls"])
    (tmp_path / "c.json").write_text(json.dumps({"typed-params-claim": {"third": "one third"}}))
    r, _ = _softmix("verify", "--plugin", "typed.py", "--config", "c.json", cwd=tmp_path)
    assert "c.json: typed-params-claim.third: not a number: 'one third'" in _one_line_exit_2(r)


def test_a_covariance_that_is_not_square_is_named_with_its_shape():
    """Survivor of the recorded engine run (params.py:268): the message reads the row length from row 0, so a
    single-row covariance is a one-line input error, not an IndexError."""
    from softmix.checks.params import Covariance

    @dataclass
    class P:
        G: Covariance = field(default_factory=lambda: [[1, 0], [0, 1]])

    def check(p: P, ctx):  # pragma: no cover - never run: only its parameters are validated
        return softmix.part("numeric", [{"passed": True}])

    c = softmix.claim(id="cov-shape", title="t", source="tests", controls={"c": "a control"}, register=False)(check)
    for bad, shape in (([[1, 0, 0]], "1x3"), ([[1, 0, 0], [0, 1, 0]], "2x3")):
        with pytest.raises(InputError, match=f"a covariance must be square, got {shape}"):
            validate_params(c, {"G": bad}, "cfg")


def test_an_unknown_parameter_name_suggests_the_nearest_one():
    """Survivor of the recorded engine run (params.py:360): validate_value names the nearest parameter."""
    from softmix.checks.params import validate_value
    from softmix.checks.registry import load_all

    c = load_all()["smart-2025-mixture"]
    with pytest.raises(InputError, match=r"has no parameter 'weight' \(did you mean 'weights'\?\)"):
        validate_value(c, "weight", ["1"], "cfg")


def test_the_limits_are_the_documented_table():
    """docs/input.md's table of limits, value by value (a limit changed in one place only is caught here)."""
    assert (LIMITS.max_digits, LIMITS.max_number_chars, LIMITS.min_exponent, LIMITS.max_exponent) == (1000, 2100,
                                                                                                     -1000, 300)
    assert LIMITS.max_file_bytes == 8_388_608 and LIMITS.max_depth == 32 and LIMITS.max_array_length == 100_000
    assert LIMITS.max_dimension == 1024 and LIMITS.max_components == 1024
