"""Displayed steps of App. B.9, B.11, B.12 (issue 27): derivations proven, perturbations refuted;
the conserved quantity is |U11|^2 - |v21|^2, not the sum (whose derivative is -4 <w, grad L>)."""
import sympy as sp

from softmix.theory import steps_b9_b12 as T
from softmix.theory.steps_common import perturbed


def test_each_display_is_proven_and_its_perturbation_refuted():
    for der in T.b12_steps(2) + [x for x in T.b9_steps(2) if x.name.startswith(("B.9#4", "B.9#8", "B.9#36"))]:
        assert der.decide(seed=1)[0] == "proven", der.name
        assert perturbed(der).decide(seed=1)[0] == "refuted", der.name


def test_sum_of_norms_is_not_conserved():
    s24 = next(x for x in T.b12_steps(2) if x.name.startswith("B.12#24"))
    assert type(s24)("S' = 0", "", s24.derived[0], sp.Integer(0)).decide(seed=2)[0] == "refuted"


def test_krylov_steps_proven_and_vandermonde_vanishes_at_a_repeated_eigenvalue():
    from softmix.theory import steps_b10 as T10
    ds = T10.b10_steps(3)
    for der in ds:
        assert der.decide(seed=1)[0] == "proven", der.name
        assert perturbed(der).decide(seed=1)[0] == "refuted", der.name
    vdm = ds[-1].derived
    lam1, lam2 = sp.Symbol("lambda1", real=True), sp.Symbol("lambda2", real=True)
    assert sp.expand(vdm.subs(lam2, lam1)) == 0
