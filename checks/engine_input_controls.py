"""The input front-end's engine control: what a user's files and numbers become, checked on every run.

Every number and file a user gives -- a mixture, heads, a target, a ``--setting`` file, a claim
parameter -- goes through :mod:`softmix.numerics.parsing`, the schema of
:mod:`softmix.numerics.input_schema`, :class:`~softmix.numerics.mixture.GaussianMixture` and
:mod:`softmix.numerics.settings` before any claim sees it.  A fault there changes what every later
verdict is about, and no claim of the library reads a file.  So ``softmix verify`` checks the front
end itself, as one more canary of :mod:`softmix.checks.engine_controls`:

* *reads*: fixed JSON texts (every number form of the grammar: ``"p/q"``, decimals with exponents,
  JSON floats and integers) are written to files and read back through the public loaders; each
  result is compared exactly (Fractions) with values written here by hand;
* *refusals*: malformed inputs (a negative or unnormalised weight, a ragged, asymmetric or
  indefinite covariance, an exponent of a billion, nesting past the limit, ``NaN``, a truncated
  file, a misspelt setting key) must each raise :class:`~softmix.numerics.errors.InputError` with
  a one-line message naming the file.

* *values*: numbers a library user passes (mpmath, NumPy and SymPy scalars, Decimals, floats) are
  read exactly by ``parse_number`` and ``to_fraction`` (a float at its binary value, by Python's
  own ``Fraction``); and an ``_mp`` function given a float that is not the decimal it prints as warns
  (``PrecisionWarning``, naming the argument) and refuses it under ``strict_precision``; numbers past
  the range and parsed documents nested past the limit are refused.

All are decided by the exact :class:`~softmix.checks.rules.Bound` ``max |read - by hand| <= 0``
(resp. ``refused badly <= 0``).  The control ``perturbed-reference`` moves every hand-written value
by 1/1000 and expects every malformed input to be accepted: the same rows must then refute.
"""
from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction as F
from pathlib import Path

from .api import claim, part
from .rules import Bound

__all__ = ["READS", "REFUSALS", "input_front_end"]

_H = F(1, 2)
#: name -> (file text, loader name, the exact value the loader must return, written by hand)
READS = {
    "mixture": (
        '{"weights": ["3/10", 0.7], "means": [["1", "-2.5e-1"], [0, "2e0"]],\n'
        ' "covariances": [[["2", "1/2"], ["0.5", 1]], [[1, 0], [0, ".5"]]]}',
        "mixture", ((F(3, 10), F(7, 10)), ((1, F(-1, 4)), (0, 2)), (((2, _H), (_H, 1)), ((1, 0), (0, _H))))),
    "heads": ('[{"U": [["1", "0"], ["0", "-2"]], "V": [["1", "1/3"]]}, {"U": [[0, 1], [1, 0]], "V": [[0, 1]], '
              '"W": [["-3/2"]]}]', "heads",
              ((((1, 0), (0, -2)), ((1, F(1, 3)),), ((1,),)), (((0, 1), (1, 0)), ((0, 1),), ((F(-3, 2),),)))),
    "target": ('{"B": [["1/2", "0"]], "noise_covariance": [["1e-2"]]}', "target",
               (((_H, 0),), ((F(1, 100),),))),
    "icl-setting": ('{"icl_regression": {"d": 2, "noise_variance": "1/10", "omega": ["3/10", "-0.2"], '
                    '"mu": ["3/2", "4/5"], "beta": ["1", "-1/2"]}}', "setting",
                    # token covariance [[I, beta], [beta^T, |beta|^2 + sigma^2]]; U_h = omega_h diag(1, 1, 0)
                    (((1, 0, 1), (0, 1, -_H), (1, -_H, F(27, 20))), ((1, 0, 0), (0, 1, 0), (0, 0, 0)),
                     (((F(3, 10), 0, 0), (0, F(3, 10), 0), (0, 0, 0)), ((0, 0, 1),), ((F(3, 2),),)),
                     (((1, -_H, 0),), ((F(1, 10),),)))),
    # the documented limits, at the boundary: nesting of exactly LIMITS.max_depth (32), the smallest magnitude
    "json-at-depth-limit": ("[" * 32 + "1" + "]" * 32, "json", (1,)),
    "json-objects-at-depth-limit": ('{"a": ' * 32 + "1" + "}" * 32, "json", (1,)),
    "numbers": ('["1/3", "-1.25e-3", "2.5/7", " 7 ", "1e-1000", "-0", ".5e1"]', "numbers",
                (F(1, 3), F(-1, 800), F(5, 14), 7, F(1, 10**1000), 0, 5)),
    "denoising-setting": ('{"denoising": {"m1": ["3", "0"], "m2": ["0", "-1"], "gamma": "1", "xi": "2", '
                          '"pi1": "0.3"}}', "setting-noisy",
                          # the noisy law: weights pi1, 1 - pi1; covariances (gamma^2 + xi^2) I
                          ((F(3, 10), F(7, 10)), ((3, 0), (0, -1)), (((5, 0), (0, 5)), ((5, 0), (0, 5))))),
}

_GOOD_MIX = '"means": [[0], [1]], "covariances": [[[1]], [[1]]]'
_ICL = '"noise_variance": "0.1", "omega": [1], "mu": [1]'
_LONG = "12345678901234567890123456789e300"  # 33 characters: shown whole; past 40 the message abbreviates
_LONGER = "9" * 45 + "e300"
#: name -> (file text, loader name, what the message must say): each must be refused with a one-line InputError
#: naming the file and saying, in these words, where and what is wrong
REFUSALS = {
    "negative-weight": ('{"weights": ["-0.3", "1.3"], ' + _GOOD_MIX + '}', "mixture", ("weights[0]", "not positive")),
    "unnormalised-weights": ('{"weights": ["0.3", "0.3"], ' + _GOOD_MIX + '}', "mixture", ("sum to 0.6",)),
    "ragged-covariance": ('{"weights": [1], "means": [[0, 0]], "covariances": [[[1, 0], [0]]]}', "mixture",
                          ("covariances[0]", "rectangular")),
    "covariance-of-wrong-size": ('{"weights": [1], "means": [[0, 0]], "covariances": [[[1, 0, 0], [0, 1, 0]]]}',
                                 "mixture", ("covariances[0]", "expected a 2x2 matrix", "got 2x3")),
    "asymmetric-covariance": ('{"weights": [1], "means": [[0, 0]], "covariances": [[[1, "0.5"], [0, 1]]]}',
                              "mixture", ("covariances[0]", "not symmetric", "[0][1]")),
    "indefinite-covariance": ('{"weights": [1], "means": [[0, 0]], "covariances": [[[1, 2], [2, 1]]]}', "mixture",
                              ("covariances[0]", "not positive semidefinite", "-1")),
    "huge-exponent": ('{"weights": ["1e999999999"], "means": [[0]], "covariances": [[[1]]]}', "mixture",
                      ("weights[0]", "1e999999999", "out of range")),
    "nested-too-deep": ("[" * 40 + "]" * 40, "mixture", ("40 levels", "32")),
    "nan": ('{"weights": [NaN], "means": [[0]], "covariances": [[[1]]]}', "mixture", ("line 1", "NaN")),
    "truncated": ('{"weights": [1], "means": [[0', "mixture", ("invalid JSON", "line 1")),
    "misspelt-setting-key": ('{"icl_regression": {"d": 1, "nosie_variance": "0.1", "omega": [1], "mu": [1]}}',
                             "setting", ("missing key(s) noise_variance", "unknown key(s) nosie_variance")),
    "unknown-setting-key": ('{"icl_regression": {"d": 1, ' + _ICL + ', "gamma": 1}}', "setting",
                            ("icl_regression", "unknown key(s) gamma")),
    "boolean-dimension": ('{"icl_regression": {"d": true, ' + _ICL + '}}', "setting",
                          ("d must be a positive integer", "True")),
    "fractional-dimension": ('{"icl_regression": {"d": 1.5, ' + _ICL + '}}', "setting",
                             ("d must be a positive integer", "1.5")),
    "json-past-depth-limit": ("[" * 33 + "1" + "]" * 33, "json", ("33 levels", "32")),
    "number-past-range": ('["1e301"]', "numbers", ("[0]", "1e301", "out of range", "1e301")),
    "long-number-past-range": (f'["{_LONG}"]', "numbers", (f"[0]: number {_LONG} is out of range",)),
    "longer-number-past-range": (f'["{_LONGER}"]', "numbers",
                                 (f"number {_LONGER[:20]}...{_LONGER[-12:]} (49 characters)",)),
    "number-below-range": ('["1e-1001"]', "numbers", ("[0]", "1e-1001", "out of range")),
    "json-objects-past-depth-limit": ('{"a": ' * 33 + "1" + "}" * 33, "json", ("33 levels", "32")),
    "ratio-below-range": ('["1e-600/1e600"]', "numbers", ("[0]", "1e-600/1e600", "out of range")),
    "zero-denominator": ('["1/0"]', "numbers", ("[0]", "zero denominator", "1/0")),
    "head-of-wrong-size": ('[{"U": [[1, 0], [0, 1]], "V": [[1, 0, 0]]}]', "heads", ("heads[0].V", "2 columns", "3")),
    "denoising-weights-not-a-list": ('{"denoising": {"gamma": 1, "xi": 1, "weights": "1", "means": [[0, 0]]}}',
                                     "setting", ("denoising: weights and means must be lists",)),
}


def _load(loader: str, path: Path):
    """Read ``path`` through the public loader ``loader``; the result as nested tuples of numbers."""
    from softmix.numerics.mixture import GaussianMixture, load_json_file
    from softmix.numerics.parsing import parse_number
    from softmix.numerics.risk import Target, parse_heads, parse_target
    from softmix.numerics.settings import setting_from_json

    if loader == "json":
        return load_json_file(path)
    if loader == "numbers":
        items = load_json_file(path)
        assert isinstance(items, list)  # the files of READS and REFUSALS that use this loader are lists
        return tuple(parse_number(x, f"{path}[{i}]") for i, x in enumerate(items))
    if loader == "mixture":
        m = GaussianMixture.load(path)
        return (m.weights, m.means, m.covariances)
    if loader == "heads":
        return tuple((h.U, h.V, h.W) for h in parse_heads(load_json_file(path), 2, where=str(path)))
    if loader == "target":
        t = parse_target(load_json_file(path), 2, 1, where=str(path))
        return (t.B, t.noise)
    st = setting_from_json(load_json_file(path), where=str(path))
    if loader == "setting-noisy":
        return (st.tokens.weights, st.tokens.means, st.tokens.covariances)
    h, tgt = st.heads[0], st.target
    assert isinstance(tgt, Target)  # an icl_regression setting's target is linear
    return (st.tokens.covariances[0], st.queries.covariances[0], (h.U, h.V, h.W), (tgt.B, tgt.noise))


def _flat(x) -> list:
    if isinstance(x, dict):
        return [v for e in x.values() for v in _flat(e)]
    return [v for e in x for v in _flat(e)] if isinstance(x, (tuple, list)) else [x]


def _gap(read, by_hand) -> F | None:
    """max |read - by hand| over the entries, exactly (None when the shapes differ)."""
    a, b = _flat(read), _flat(by_hand)
    if len(a) != len(b) or any(not isinstance(v, (int, F)) or isinstance(v, bool) for v in a):
        return None
    return max(abs(F(x) - F(y)) for x, y in zip(a, b))


def _read_row(name: str, path: Path, loader: str, by_hand) -> dict:
    try:
        gap = _gap(_load(loader, path), by_hand)
    except Exception as e:  # a refusal of a well-formed file is a misreading, decided like one
        return {"input": name, **Bound().decide(1, 0), "reason": f"refused: {type(e).__name__}: {e}"}
    if gap is None:
        return {"input": name, **Bound().decide(1, 0), "reason": "read with another shape than written"}
    return {"input": name, "max_gap": str(gap), **Bound().decide(gap, 0)}


def _refusal_row(name: str, path: Path, loader: str, says: tuple, expect_refused: bool) -> dict:
    from softmix.numerics.errors import InputError

    try:
        _load(loader, path)
        how = "accepted"
    except InputError as e:
        msg = str(e)
        lacks = [w for w in (str(path),) + says if w not in msg]
        how = "refused" if msg and "\n" not in msg and not lacks else f"refused badly: {msg!r} does not say {lacks}"
    except Exception as e:
        how = f"raised {type(e).__name__} instead of an input error"
    bad = int(how != ("refused" if expect_refused else "accepted"))
    return {"input": name, "outcome": how, **Bound().decide(bad, 0)}


def _values():
    """(read, by hand) of the library-number forms: parse_number and to_fraction side by side."""
    from decimal import Decimal

    import mpmath as mpm
    import numpy as np
    import sympy as sp

    from softmix.numerics.parsing import parse_number
    from softmix.numerics.precision import to_fraction

    given = [mpm.mpf("0.375"), mpm.mpf(-3) / 4, np.float64(0.1), np.float32(0.1), np.int64(-3), Decimal("1.5e-3"),
             0.1]
    by_hand = [F(3, 8), F(-3, 4), F.from_float(0.1), F.from_float(float(np.float32(0.1))), -3, F(3, 2000),
               F.from_float(0.1)]
    read = [parse_number(x, "value") for x in given] + [to_fraction(x) for x in given + [sp.Rational(-7, 3)]]
    return tuple(read), tuple(by_hand + by_hand + [F(-7, 3)])


def _nest(n: int, kind: str):
    doc: list | dict = [] if kind == "arrays" else {}
    for _ in range(n - 1):
        doc = [0, doc] if kind == "arrays" else {"a": doc}
    return doc


def _range_rows(expect_refused: bool) -> list:
    """Library values past the documented limits: numbers out of range (a Fraction below 1e-1000 and one at
    1e301, an mpmath number below 1e-1000) refused by ``parse_number`` ("out of range"); parsed documents 33
    arrays or objects deep (no file, so no text-level bracket count) refused by ``check_json_bounds``."""
    import mpmath as mpm

    from softmix.numerics.errors import InputError
    from softmix.numerics.parsing import check_json_bounds, parse_number

    cases: list[tuple[str, Callable[..., object], object, str]] = [
        (f"number {name}", parse_number, x, "out of range")
        for name, x in (("Fraction 1e-1001", F(1, 10**1001)), ("Fraction 1e301", F(10**301)),
                        ("mpf 1e-1001", mpm.mpf("1e-1001")))]
    cases += [(f"document of 33 nested {kind}", check_json_bounds, _nest(33, kind),
               "nested deeper than the limit of 32") for kind in ("arrays", "objects")]
    rows = []
    for name, read, value, says in cases:
        try:
            read(value, "value")
            how = "accepted"
        except InputError as e:
            how = "refused" if says in str(e) else f"refused badly: {e}"
        rows.append({"input": f"library {name}", "outcome": how,
                     **Bound().decide(int(how != ("refused" if expect_refused else "accepted")), 0)})
    return rows


def _precision_rows(expect_guarded: bool) -> list:
    """gates_mp given floats that are not the decimal they print as (in U, then in U and z): a
    PrecisionWarning naming every such place; under strict precision an InputError; given decimal strings,
    neither."""
    import warnings

    from softmix.numerics.attention import gates_mp
    from softmix.numerics.errors import InputError
    from softmix.numerics.mixture import GaussianMixture
    from softmix.numerics.precision import PrecisionWarning, strict_precision

    mix = GaussianMixture.from_values(["1/2", "1/2"], [[0], [1]], [[[1]], [[1]]])
    mix3 = GaussianMixture.from_values([1], [[0, 0, 0]], [[[1, 0, 0], [0, 1, 0], [0, 0, 1]]])
    U3 = [[0.1, 0, 0], [0, 1, 0], [0, 0, 1]]
    rows = []
    # the warning names at most three places, the first ones: U's one, then z's first two (not z[2])
    for name, mx, U, z, places in (("float U", mix, [[0.1]], [1], ("U[0][0] = 0.1",)),
                                   ("float U and z", mix, [[0.1]], [0.3], ("U[0][0] = 0.1", "z[0] = 0.3")),
                                   ("four inexact places", mix3, U3, [0.3, 0.7, 0.9],
                                    ("U[0][0] = 0.1", "z[0] = 0.3", "z[1] = 0.7")),
                                   ("decimal strings", mix, [["0.1"]], ["0.3"], ())):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            gates_mp(mx, U, z, dps=20)
        said = " ".join(str(x.message) for x in w if issubclass(x.category, PrecisionWarning))
        try:
            with strict_precision():
                gates_mp(mx, U, z, dps=20)
            refused = False
        except InputError:
            refused = True
        got = (bool(said) and all(pl in said for pl in places) and "z[2]" not in said, refused)
        want = (bool(places) == expect_guarded,) * 2
        rows.append({"input": f"gates_mp with {name}", "warned naming each place, refused under strict": str(got),
                     **Bound().decide(int(got != want), 0)})
    return rows


_THIRDS = ('{"weights": ["1/3", "2/3"], "means": [[1, 0], [-2, "1/7"]], "covariances": [[[1, 0], [0, 1]], '
           '[["2/3", 0], [0, 3]]]}', ((F(1, 3), F(2, 3)), ((1, 0), (-2, F(1, 7))), (((1, 0), (0, 1)),
                                                                                ((F(2, 3), 0), (0, 3)))))


def _round_trip_rows(tmp: Path, off: bool) -> list:
    """A mixture read, saved with ``GaussianMixture.save`` (exact) and read again: exact where every denominator
    is 2^a 5^b (a terminating decimal), within 10^-39 where it is not (40 significant digits of entries below 10)."""
    from softmix.numerics.mixture import GaussianMixture

    rows = []
    for name, (text, by_hand), tol in (("mixture", (READS["mixture"][0], READS["mixture"][2]), F(0)),
                                       ("thirds", _THIRDS, F(1, 10**39))):
        src, out = tmp / f"round-trip-{name}.json", tmp / f"round-trip-{name}-saved.json"
        src.write_text(text)
        try:
            GaussianMixture.load(src).save(out)
            gap = _gap(_load("mixture", out), _perturb(by_hand) if off else by_hand)
        except Exception as e:
            rows.append({"input": f"{name}, saved and read again", **Bound().decide(1, 0),
                         "reason": f"{type(e).__name__}: {e}"})
            continue
        rows.append({"input": f"{name}, saved and read again", "max_gap": str(gap),
                     **Bound().decide(1 if gap is None else gap, tol)})
    return rows


def _perturb(x):
    if isinstance(x, (tuple, list)):
        return tuple(_perturb(e) for e in x)
    return F(x) + F(1, 1000)


@dataclass
class _Params:
    """Nothing to choose: the inputs are fixed (see :data:`READS` and :data:`REFUSALS`)."""


def input_front_end():
    """The canary claim (unregistered): verified on a sound front end, its control refuted."""
    @claim(id="engine/input-front-end", title="engine control: the input front end reads and refuses exactly",
           source="engine control",
           controls={"perturbed-reference": "every hand-written value moved by 1/1000, every malformed input "
                                            "expected to be accepted"}, register=False)
    def check(p: _Params, ctx):
        off = ctx.control("perturbed-reference")
        reads, refusals = [], []
        with tempfile.TemporaryDirectory(prefix="softmix-input-") as tmp:
            for name, (text, loader, by_hand) in READS.items():
                path = Path(tmp) / f"{name}.json"
                path.write_text(text)
                reads.append(_read_row(name, path, loader, _perturb(by_hand) if off else by_hand))
            for name, (text, loader, says) in REFUSALS.items():
                path = Path(tmp) / f"{name}.json"
                path.write_text(text)
                refusals.append(_refusal_row(name, path, loader, says, expect_refused=not off))
            reads += _round_trip_rows(Path(tmp), off)
        try:
            read, by_hand = _values()
            gap = _gap(read, _perturb(by_hand) if off else by_hand)
            values = [{"input": "library numbers", "max_gap": str(gap), **Bound().decide(1 if gap is None else gap, 0)}]
        except Exception as e:
            values = [{"input": "library numbers", **Bound().decide(1, 0), "reason": f"{type(e).__name__}: {e}"}]
        values += _range_rows(expect_refused=not off) + _precision_rows(expect_guarded=not off)
        return [part("numeric", reads, name="reads"), part("numeric", refusals, name="refusals"),
                part("numeric", values, name="values")]
    return check

