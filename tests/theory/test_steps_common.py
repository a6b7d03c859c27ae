"""theory.steps_common.perturbed: the step claims' negative control moves the stated side by exactly the
documented term (1/7) s + 2/11 (s the first free symbol by name, 1 when there is none), in the first entry
of a matrix, whatever the derivation; the expected differences are computed by hand."""
import sympy as sp

from softmix.theory.derivation import Derivation
from softmix.theory.steps_common import perturbed


def test_perturbed_adds_the_documented_term_to_the_stated_side_only():
    a, b = sp.symbols("a b", real=True)
    R = sp.Rational
    scalar = Derivation("scalar", "src", a * b + b, b * (a + 1))
    p = perturbed(scalar)
    assert p.derived == scalar.derived and p.name == "scalar [perturbed]"
    assert sp.expand(p.stated - scalar.stated - (a / 7 + R(2, 11))) == 0  # a precedes b by name
    const = perturbed(Derivation("constant", "src", sp.Integer(3), sp.Integer(3)))
    assert const.stated - 3 == R(25, 77)  # 1/7 + 2/11 = (11 + 14)/77, never 0
    mat = Derivation("matrix", "src", sp.Matrix([[b, 0], [0, a]]), sp.Matrix([[b, 0], [0, a]]))
    diff = (perturbed(mat).stated - mat.stated).applyfunc(sp.expand)
    assert diff == sp.Matrix([[a / 7 + R(2, 11), 0], [0, 0]])


def test_perturbed_step_is_refuted_by_the_same_check_for_each_kind_of_side():
    """The control moves every kind of stated side (scalar, constant, matrix) by a non-zero amount, so the
    decision that proves the step refutes its perturbation."""
    a, b = sp.symbols("a b", real=True)
    for der in (Derivation("s", "src", (a + b)**2, a**2 + 2 * a * b + b**2),
                Derivation("c", "src", sp.Integer(0), sp.Integer(0)),
                Derivation("m", "src", sp.Matrix([a * b, a]), sp.Matrix([b * a, a]))):
        assert der.decide(seed=1)[0] == "proven"
        assert perturbed(der).decide(seed=1)[0] == "refuted", der.name
