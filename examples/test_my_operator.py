"""Property tests a user writes against softmix's building blocks (docs/testing.md).

Run:  python -m pytest examples/test_my_operator.py -p no:xdist

1. my float64 code path (here softmix's own ``softmax_attention``) agrees with the 40-digit path on
   whole problems drawn by ``softmix.strategies.problems`` -- to what float64 can give, by
   ``softmix.Float64Agreement`` with a condition number stated from the problem, not tuned;
2. an identity of my own -- with one shared covariance G, the operator is
   ``V G U z + V sum_k beta_k(z) m_k`` with ``beta = softmax(log pi_k + m_k^T U z)`` -- holds to 30
   digits on exact problems (``softmix.Residual(digits=30)``);
3. the same identity is *refuted* when I drop the G term: a test that can fail.
"""
import mpmath as mpm
import numpy as np
from hypothesis import given, settings

import softmix
import softmix.strategies as sst
from softmix.numerics.precision import mp_matrix
from softmix.testing import assert_agrees, assert_float64_agrees

DPS = 40


def condition(pb) -> float:
    """How much float64 rounding can grow in T(z) = V sum_k alpha_k(z) (m_k + G_k a), a = U z:
    each score s_k = log pi_k + m_k^T a + a^T G_k a / 2 is off by about eps |s_k|, which moves the
    gates by that much relatively, and the gates weight terms of size |V| |m_k + G_k a|."""
    U, V, Z = pb.arrays()
    a = U @ Z[0]
    w, m, G = pb.mix.arrays()
    s = np.log(w) + m @ a + np.einsum("i,kij,j->k", a, G, a) / 2
    terms = np.linalg.norm(V, 2) * max(np.linalg.norm(m[k] + G[k] @ a) for k in range(len(w)))
    return float((1 + np.abs(s).max()) * (1 + terms))


@settings(max_examples=25, deadline=None)
@given(sst.problems(max_dim=3, dyadic=True))  # dyadic: the float64 arrays ARE the exact problem
def test_float64_path_agrees_with_40_digits(pb):
    U, V, Z = pb.arrays()
    assert_float64_agrees(lambda: softmix.softmax_attention(pb.mix, U, V, Z[:1])[0],
                          lambda: softmix.softmax_attention_mp(pb.mix, pb.U, pb.V, pb.z, dps=DPS),
                          rule=softmix.Float64Agreement(condition=condition(pb)), dps=DPS)


def shared_covariance_form(pb, drop_G: bool = False):
    """My statement, at DPS digits: V G U z + V sum_k softmax_k(log pi_k + m_k^T U z) m_k."""
    with mpm.workdps(DPS):
        w, m, G = pb.mix.mp()
        U, V, z = (mp_matrix(M) for M in (pb.U, pb.V, [[x] for x in pb.z]))
        a = U * z
        s = [mpm.log(w[k]) + (m[k].T * a)[0] for k in range(len(w))]
        top = max(s)
        e = [mpm.exp(x - top) for x in s]
        mean = sum((e[k] / mpm.fsum(e) * m[k] for k in range(len(w))), mpm.matrix(pb.dim, 1))
        return V * mean if drop_G else V * (G[0] * a + mean)


@settings(max_examples=25, deadline=None)
@given(sst.problems(max_dim=3, shared=True))  # generic rationals (thirds included), exact throughout
def test_my_shared_covariance_identity(pb):
    T = softmix.softmax_attention_mp(pb.mix, pb.U, pb.V, pb.z, dps=DPS)
    assert_agrees(shared_covariance_form(pb), T, softmix.Residual(digits=30), dps=DPS)


def test_my_identity_without_the_G_term_is_refuted():
    """The check can fail: dropping V G U z is caught on some drawn problem."""
    failures = []

    @settings(max_examples=25, deadline=None, database=None)
    @given(sst.problems(min_dim=2, max_dim=2, shared=True, allow_degenerate=False))
    def drop(pb):
        T = softmix.softmax_attention_mp(pb.mix, pb.U, pb.V, pb.z, dps=DPS)
        try:
            assert_agrees(shared_covariance_form(pb, drop_G=True), T, softmix.Residual(digits=30), dps=DPS)
        except AssertionError as e:
            failures.append(str(e))

    drop()
    assert failures and "refuted" in failures[0]
