"""Symbolic Section 2: derived == stated, controls refuted, and pinned hand-computed values."""
import sympy as sp

from softmix.theory import attention as TA
from softmix.theory.derivation import exp_atoms_to_symbols, simplify_zero
from softmix.theory.mixtures import SymbolicMixture, symbolic_mixture


def test_prop_2_1_generic_and_degenerate():
    assert TA.prop_2_1_derivation(2, 2).decide()[0] == "proven"
    assert TA.prop_2_1_derivation(3, 1).decide()[0] == "proven"
    assert TA.prop_2_1_derivation(2, 2, degenerate_rank=1).decide()[0] == "proven"


def test_prop_2_1_dropped_half_is_refuted():
    status, info = TA.prop_2_1_derivation(2, 2, half=sp.Integer(1)).decide()
    assert status == "refuted" and "counterexample" in info


def test_shared_covariance_and_its_dropped_assumption():
    assert TA.prop_2_1_shared_derivation(2, 2).decide()[0] == "proven"
    assert TA.prop_2_1_shared_derivation(2, 2, shared=False).decide()[0] == "refuted"


def test_gaussian_affine_linear_and_prop_a1():
    assert TA.bb_lemma_2_1_derivation(2).decide()[0] == "proven"
    assert TA.linear_fixed_proportions_derivation(2, 2).decide()[0] == "proven"
    assert TA.prop_a1_derivation(2, 2, 1).decide()[0] == "proven"


def test_tilted_covariance_is_the_hessian_of_the_cgf():
    mix = symbolic_mixture(2, 1)
    a = TA.tilt_symbols(1)
    assert simplify_zero(TA.tilted_covariance_derived(mix, a) - TA.tilted_covariance_stated(mix, a))


def test_pinned_hand_computed_value():
    # mu = (N(-1,1) + N(1,1))/2 in d=1, U=V=1, z=1: scores log(1/2) -+ 1 + 1/2, so
    # alpha_2 = sigma(2) and T = alpha_1 (-1 + 1) + alpha_2 (1 + 1) = 2 sigma(2) = 1.7615941559557649
    mix = SymbolicMixture([sp.Rational(1, 2)] * 2, [sp.Matrix([-1]), sp.Matrix([1])], [sp.Matrix([[1]])] * 2)
    one = sp.Matrix([[1]])
    T = TA.softmax_attention_derived(mix, one, one, sp.Matrix([1]))[0]
    assert abs(sp.N(T, 30) - sp.Float("1.76159415595576488811945828260", 30)) < 1e-28


def test_exp_atoms_soundness_on_a_false_identity():
    x = sp.Symbol("x", real=True)
    assert not simplify_zero(sp.exp(x) - sp.exp(2 * x))
    assert simplify_zero(sp.exp(x) ** 2 - sp.exp(2 * x))
    assert exp_atoms_to_symbols(sp.exp(sp.log(3) + x)).has(sp.Symbol)


def test_prop_a1_is_decided_on_independent_masses_and_atoms_of_each_component():
    """Prop. A.1's family is generic: every component has its own masses q_k_j, atoms x_kj and alignment values
    (shared symbols would decide a narrower family), and the weights are positive symbols pi_k."""
    d = TA.prop_a1_derivation(K=2, atoms_per_component=2, D=2)
    names = {s.name for s in d.free_symbols()}
    assert {"q1_1", "q1_2", "q2_1", "q2_2", "A1_1", "A1_2", "A2_1", "A2_2", "pi1", "pi2"} <= names
    assert {"x11_1", "x12_1", "x21_1", "x22_1"} <= names
    pis = [s for s in d.free_symbols() if s.name in ("pi1", "pi2")]
    assert all(s.is_positive for s in pis)


def test_matrix_symbols_are_real_and_symmetric_only_when_asked():
    """Every entry is a real symbol (transposes and conjugates in the derivations rely on it), in the
    general and the symmetric form; the symmetric form shares the mirrored entries, the general one does not."""
    from softmix.theory.mixtures import matrix_symbols

    A, S, R = matrix_symbols("A", 2), matrix_symbols("S", 2, symmetric=True), matrix_symbols("R", 2, 3)
    assert all(e.is_real for M in (A, S, R) for e in M) and R.shape == (2, 3)
    assert S[0, 1] == S[1, 0] and A[0, 1] != A[1, 0] and len(A.free_symbols) == 4 and len(S.free_symbols) == 3
