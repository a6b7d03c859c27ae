"""numerics.parsing: the documented input limits (docs/input.md, "Limits") and the refusal of an
unreadable file, as the command line shows them (one line on stderr, exit 2).  The numbers come
from docs/input.md, never from ``LIMITS``, so a changed limit is seen here."""
import errno
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from softmix.numerics.errors import InputError
from softmix.numerics.parsing import load_json_file, parse_number

EYE = [[1, 0], [0, 1]]
MIX = {"weights": ["0.3", "0.7"], "means": [[0, 0], [1, "-1/2"]], "covariances": [EYE, [["2", "0.5"], ["0.5", 1]]]}


def _attention(tmp_path, mixture="mix.json", query="0,0"):
    (tmp_path / "mix.json").write_text(json.dumps(MIX))
    (tmp_path / "I.json").write_text(json.dumps(EYE))
    return subprocess.run([sys.executable, "-m", "softmix", "attention", "--mixture", mixture, "--U", "I.json",
                           "--V", "I.json", "--query", query], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)


def _one_line_exit_2(r):
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    return lines[0]


def test_a_decimal_of_1000_significant_digits_is_read_exactly_and_1001_is_refused(tmp_path):
    """docs/input.md: at most 1000 significant digits in one decimal.  At the limit the value is exact
    (a hand-written fraction); one digit more is refused by the command line with one line, exit 2."""
    digits = "1" * 999 + "7"
    assert parse_number("0." + digits) == Fraction(int(digits), 10 ** 1000)
    assert _attention(tmp_path, query="0,0." + digits).returncode == 0
    line = _one_line_exit_2(_attention(tmp_path, query="0,0." + digits + "3"))
    assert line.startswith("softmix: error: --query[1]: number ") and "has 1001 significant digits" in line


def test_a_missing_file_is_one_line_naming_it_and_the_reason_once(tmp_path):
    """The reason is the operating system's own message (os.strerror), written once, the path once."""
    reason = os.strerror(errno.ENOENT)
    line = _one_line_exit_2(_attention(tmp_path, mixture="missing.json"))
    assert line == f"softmix: error: missing.json: cannot read file ({reason})"
    with pytest.raises(InputError) as e:
        load_json_file(tmp_path / "missing.json")
    assert str(e.value) == f"{tmp_path / 'missing.json'}: cannot read file ({reason})"


def test_an_os_error_without_an_errno_still_gives_its_message(tmp_path, monkeypatch):
    """An OSError raised with a bare message (no errno, ``strerror`` None) is reported by that message."""
    def stat(self, *a, **k):
        raise OSError("device went away")

    monkeypatch.setattr(Path, "stat", stat)
    with pytest.raises(InputError) as e:
        load_json_file(tmp_path / "f.json")
    assert str(e.value) == f"{tmp_path / 'f.json'}: cannot read file (device went away)"


def test_show_value_keeps_60_characters_and_cuts_longer_ones_to_57_plus_dots():
    from softmix.numerics.parsing import show_value

    s60 = "x" * 58  # json.dumps adds the two quotes: 60 characters, kept whole
    assert show_value(s60) == '"' + s60 + '"'
    s61 = "x" * 59
    assert show_value(s61) == ('"' + s61 + '"')[:57] + "..." and len(show_value(s61)) == 60


def test_a_parsed_document_is_held_to_the_depth_limit_for_arrays_and_objects():
    """parsing.py:243 (a survivor of the library run on 86ed141; the text-level bracket count refuses a deep file
    before this check, so only a parsed document reaches it): 32 nested arrays or objects pass, 33 are refused
    naming the path."""
    from softmix.numerics.parsing import check_json_bounds

    def nest(n, kind):
        doc: list | dict = [] if kind == "array" else {}
        for _ in range(n - 1):
            doc = [0, doc] if kind == "array" else {"a": doc}
        return doc

    for kind, path in (("array", r"(\[1\])+"), ("object", r"a(\.a)*")):
        check_json_bounds(nest(32, kind), "cfg.json")
        with pytest.raises(InputError, match=rf"cfg.json: {path}: nested deeper than the limit of 32 levels"):
            check_json_bounds(nest(33, kind), "cfg.json")


def test_mpmath_and_numpy_numbers_are_read_at_their_exact_value_and_held_to_the_range():
    """parse_number's mpmath and numpy paths (lines no test or claim ran): an mpf is its exact binary value
    (mantissa x 2^exponent), a numpy scalar the value of its Python counterpart; non-finite and out-of-range
    values are InputErrors naming ``where``."""
    import mpmath as mpm
    import numpy as np

    assert parse_number(mpm.mpf("0.375")) == Fraction(3, 8) and parse_number(mpm.mpf(0)) == 0
    assert parse_number(mpm.mpf(-5)) == -5
    with mpm.workdps(40):
        tenth = parse_number(mpm.mpf("0.1"))
    assert tenth != Fraction(1, 10) and abs(tenth - Fraction(1, 10)) < Fraction(1, 10 ** 39)
    assert tenth.denominator & (tenth.denominator - 1) == 0  # a power of two
    for bad, message in ((mpm.mpf("inf"), "non-finite number"), (mpm.mpf("nan"), "non-finite number"),
                         (mpm.mpf("1e400"), "out of range"), (mpm.mpf("1e-1200"), "out of range")):
        with pytest.raises(InputError, match=f"^q: .*{message}"):
            parse_number(bad, "q")
    assert parse_number(mpm.mpf("1e300")) == Fraction(int(mpm.mpf("1e300")))
    assert parse_number(np.int64(-3)) == -3 and type(parse_number(np.int64(-3))) is Fraction
    assert parse_number(np.float64(0.5)) == Fraction(1, 2)
    assert parse_number(np.float32(0.1)) == Fraction(float(np.float32(0.1))) != Fraction(1, 10)
    with pytest.raises(InputError, match="^w: non-finite number nan"):
        parse_number(np.float64("nan"), "w")
    with pytest.raises(InputError, match="^w: expected a number, got complex"):
        parse_number(1j, "w")


def test_a_mixture_given_in_mpmath_numbers_keeps_the_signs_of_its_entries():
    """mpf.man_exp is the mantissa without its sign: read as the value, a negative mpf lost its sign, so a mixture
    given in mpmath numbers had its negative means and covariances flipped, silently."""
    import mpmath as mpm

    from softmix.numerics.mixture import GaussianMixture

    g = GaussianMixture.from_json_obj({"weights": [mpm.mpf(1)], "means": [[mpm.mpf(-1), mpm.mpf("-0.5")]],
                                       "covariances": [[[mpm.mpf(2), mpm.mpf("-0.5")], [mpm.mpf("-0.5"), 1]]]})
    assert g.means == ((Fraction(-1), Fraction(-1, 2)),)
    assert g.covariances[0][0][1] == g.covariances[0][1][0] == Fraction(-1, 2)


def test_a_json_number_literal_is_held_to_2100_characters_and_named_by_its_line(tmp_path):
    """docs/input.md: at most 2100 characters in one number, a JSON literal included (the literal check, a path no
    test ran).  A literal of 1000 significant digits with a zero-padded exponent: at 2100 characters it is read
    exactly, at 2101 it is refused naming the file and the literal's line."""
    digits = "1" * 1000
    short = "0." + digits + "e" + "0" * 1096 + "1"  # 0.11...1 x 10^1, 2100 characters
    long = "0." + digits + "e" + "0" * 1097 + "1"  # the same value, 2101 characters
    assert len(short) == 2100 and len(long) == 2101
    f = tmp_path / "n.json"
    f.write_text('{"a": [1,\n' + short + "]}")
    assert load_json_file(f)["a"][1] == Fraction(int(digits), 10 ** 999)
    f.write_text('{"a": [1,\n' + long + "]}")
    with pytest.raises(InputError, match=f"^{f}: line 2: .*has 2101 characters, more than 2100"):
        load_json_file(f)


def test_read_matrix_names_its_input_matrix_unless_told_otherwise():
    from softmix.numerics.mixture import read_matrix

    assert read_matrix([["1", "-1/2"], [0, "0.25"]]) == [[1, Fraction(-1, 2)], [0, Fraction(1, 4)]]
    with pytest.raises(InputError, match="^matrix: "):
        read_matrix([[1, 2], [3]])
    with pytest.raises(InputError, match="^--U: "):
        read_matrix([[1, 2], [3]], where="--U")


def test_a_refused_number_is_shown_whole_up_to_40_characters_and_an_mpmath_one_at_5_digits():
    """The one-line refusal quotes the number as given when it has at most 40 characters, else its first 20
    and last 12 characters and its length; an mpmath number just past 1e301 by its exact value (inside the
    binary-exponent pre-check) is quoted at 5 significant digits."""
    import mpmath as mpm

    forty = "1" + "0" * 31 + "e9999999"
    assert len(forty) == 40
    with pytest.raises(InputError) as e:
        parse_number(forty, "w")
    assert f"number {forty} is out of range" in str(e.value) and "characters)" not in str(e.value)
    with pytest.raises(InputError) as e:
        parse_number(forty + "9", "w")
    assert "(41 characters)" in str(e.value) and f"number {(forty + '9')[:20]}..." in str(e.value)
    with mpm.workdps(30):
        big = mpm.mpf("1.23456789e301")
    with pytest.raises(InputError) as e:
        parse_number(big, "w")
    assert "number 1.2346e+301 is out of range" in str(e.value)
