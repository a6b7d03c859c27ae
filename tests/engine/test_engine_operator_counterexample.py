"""Known answers for what an operator statement reports, in process (checks/operator.py): the shrunk
counterexample with both sides of the identity, a stated map that cannot be evaluated at a numeric
instance, the rank-one family of a degenerate statement, the statement line taken from the docstring."""
from fractions import Fraction

import sympy as sp

from softmix.checks.operator import operator_claim
from softmix.checks.runner import run_claim_object

SMALL = {"exact_dims": [1], "quadrature_dims": [], "instances": 1}


def _gated(mix, U, z, prior_power):
    a = U * z
    s = [prior_power * sp.log(p) + (m.T * a)[0] + (a.T * G * a)[0] / 2
         for p, m, G in zip(mix.weights, mix.means, mix.covariances)]
    den = sum(sp.exp(x) for x in s)
    return [(sp.exp(x) / den, m + G * a) for x, m, G in zip(s, mix.means, mix.covariances)]


def gated(mix, U, V, z):
    """eq. (2): the softmax-gated mixture of affine experts"""
    return V * sum((w * e for w, e in _gated(mix, U, z, 1)), sp.zeros(U.rows, 1))


def wrong_prior(mix, U, V, z):
    """eq. (2) with the prior weight squared in the gate"""
    return V * sum((w * e for w, e in _gated(mix, U, z, 2)), sp.zeros(U.rows, 1))


def test_the_counterexample_is_shrunk_inside_the_model_and_reports_both_sides():
    """Shrinking drives U z to 0, where eq. (1) is the mixture's mean sum pi_k m_k and the squared-prior gate
    gives sum pi_k^2 m_k / sum pi_k^2: both values and their gap are reported, inside the model."""
    c = operator_claim("t-wrong-prior", wrong_prior, components=2, dim=1, register=False)
    r = run_claim_object(c, overrides=SMALL)
    assert r["verdict"] == "refuted"
    ce = r["evidence"]["counterexample"]
    assert ce["inside_model"] is True and "outside_model_reason" not in ce
    assert 1 <= ce["shrink_evaluations"] <= 24 and ce["dim"] == 1
    u, z = Fraction(ce["U"][0][0]), Fraction(ce["z"][0])
    assert u * z == 0  # the greedy shrink reached a = U z = 0
    w = [Fraction(x) for x in ce["mixture"]["weights"]]
    m = [Fraction(x[0]) for x in ce["mixture"]["means"]]
    v = Fraction(ce["V"][0][0])
    operator = v * sum(a * b for a, b in zip(w, m))
    stated = v * sum(a * a * b for a, b in zip(w, m)) / sum(a * a for a in w)
    assert float(ce["operator_value"][0]) == float(operator) and float(ce["stated_value"][0]) == float(stated)
    assert float(ce["residual"]) == abs(float(stated - operator)) > 0


def test_a_stated_map_that_divides_by_zero_at_a_numeric_instance_is_refuted_there_with_the_reason():
    """Symbolically the map is eq. (2); at numeric instances it raises ZeroDivisionError: the numeric
    rows are refuted (not skipped, not an error) and carry the exception's text."""

    def fragile(mix, U, V, z):
        """eq. (2), undefined at numbers"""
        if all(x.is_number for x in z):
            raise ZeroDivisionError("no value at a numeric z")
        return V * sum((w * e for w, e in _gated(mix, U, z, 1)), sp.zeros(U.rows, 1))

    c = operator_claim("t-fragile", fragile, components=2, dim=1, register=False)
    r = run_claim_object(c, overrides=SMALL)
    assert r["verdict"] == "refuted" and r["evidence"]["symbolic"]["verdict"] == "verified"
    rows = r["evidence"]["numeric"]["rows"]
    assert rows and all(row["verdict"] == "refuted" and row["passed"] is False for row in rows)
    assert {row["reason"] for row in rows} == {"no value at a numeric z"}


def gaussian_affine(mix, U, V, z):
    """one component: T(z) = V (m + G U z)"""
    return V * (mix.means[0] + mix.covariances[0] * U * z)


def test_a_degenerate_statement_is_also_derived_on_rank_one_covariances():
    names = [d.name for d in operator_claim("t-aff", gaussian_affine, components=1, dim=2, register=False)
             .derivations()]
    assert names == ["t-aff: K=1, D=2, generic symmetric covariances"]
    deg = [d for d in operator_claim("t-aff-deg", gaussian_affine, components=1, dim=2, degenerate=True,
                                     register=False).derivations()]
    assert [d.name for d in deg] == ["t-aff-deg: K=1, D=2, generic symmetric covariances",
                                     "t-aff-deg: K=1, D=2, rank-1 covariances L L^T"]
    G = [x for x in deg[1].stated.free_symbols]  # the rank-one family has fewer covariance symbols
    assert len(G) < len(deg[0].stated.free_symbols)


def test_the_statement_line_is_the_docstring_s_first_line_or_names_the_function():
    assert operator_claim("t-doc", gaussian_affine, components=1, dim=1, register=False).statement == \
        "one component: T(z) = V (m + G U z)"

    def undocumented(mix, U, V, z):
        return V * (mix.means[0] + mix.covariances[0] * U * z)

    assert operator_claim("t-nodoc", undocumented, components=1, dim=1, register=False).statement == \
        "T_{U,V}[mu](z) = undocumented(mu, U, V, z)"


def test_a_statement_false_in_every_dimension_reports_its_counterexample_in_the_lowest():
    """Declared in dimension 2 and decided there, the squared-prior gate fails in dimension 1 too: the
    counterexample is searched lower down first and reported in dimension 1 (kills operator.py:352, the
    stated map and the candidate swapped, which made every lower candidate fail to evaluate); the derivation
    carries the source given, else the claim's id (kills operator.py:275, ``source or id`` -> ``and``)."""
    c = operator_claim("t-wrong-prior-2d", wrong_prior, components=2, dim=2, register=False, source="eq. 3 of mine")
    r = run_claim_object(c, overrides={"exact_dims": [2], "quadrature_dims": [], "instances": 1})
    assert r["verdict"] == "refuted" and r["evidence"]["counterexample"]["dim"] == 1
    assert [d.source for d in c.derivations()] == ["eq. 3 of mine"]
    plain = operator_claim("t-wrong-prior-nosource", wrong_prior, components=2, dim=1, register=False)
    assert [d.source for d in plain.derivations()] == ["t-wrong-prior-nosource"]


# ---- lines no test ran in process (the test map of the engine run on 2026d72) -----------------------------------
def complement_weight(mix, U, V, z):
    """eq. (3) with pi_2 written as 1 - pi_1 (true for mixtures: the weights sum to one)"""
    a = U * z
    p1, p2 = mix.weights[0], 1 - mix.weights[0]
    s = [sp.log(p1) + (mix.means[0].T * a)[0], sp.log(p2) + (mix.means[1].T * a)[0]]
    den = sp.exp(s[0]) + sp.exp(s[1])
    return V * mix.covariances[0] * a + V * (sp.exp(s[0]) / den * mix.means[0] + sp.exp(s[1]) / den * mix.means[1])


def test_a_statement_refuted_only_outside_the_model_is_unproven_and_reports_the_outside_point():
    """operator.py:290-291 and :376-378 (run before only in the worker processes of a verify subprocess): an
    identity false in free weights but true for every mixture is 'unproven' symbolically (not refuted, not
    verified), confirmed by the numeric part, and its symbolic counterexample is the outside point with why."""
    c = operator_claim("t-complement-weight", complement_weight, components=2, dim=1, covariance="shared",
                       register=False)
    r = run_claim_object(c, overrides=SMALL)
    ev = r["evidence"]
    assert r["verdict"] == "confirmed" and ev["symbolic"]["verdict"] == "unproven"
    sce = ev["symbolic_counterexample"]
    assert sce["source"] == "symbolic" and sce["inside_model"] is False and "sum to" in sce["outside_model_reason"]
    assert {"pi1", "pi2"} <= set(sce["point"])


def test_describe_instance_writes_every_entry_as_an_exact_fraction_string():
    """operator.py:115: the evidence form of an instance (a mixture, U, V, z) is nested lists of exact strings."""
    from softmix.checks.operator import describe_instance
    from softmix.numerics.mixture import GaussianMixture

    mix = GaussianMixture.from_values(["1/3", "2/3"], [["1/2", "-1"], ["0", "3"]],
                                      [[["2", "1/2"], ["1/2", "1"]], [["1", "0"], ["0", "1/4"]]])
    got = describe_instance(mix, [[1, "1/3"], [0, 2]], [["-1/5", 0], [1, 1]], ["1/7", "-2"])
    assert got == {"mixture": {"weights": ["1/3", "2/3"], "means": [["1/2", "-1"], ["0", "3"]],
                               "covariances": [[["2", "1/2"], ["1/2", "1"]], [["1", "0"], ["0", "1/4"]]]},
                   "U": [["1", "1/3"], ["0", "2"]], "V": [["-1/5", "0"], ["1", "1"]], "z": ["1/7", "-2"]}


def test_the_shrink_keeps_an_entry_where_the_stated_map_cannot_be_evaluated():
    """A change the stated map cannot be evaluated at (it raises at z = 0) is not a failure the shrink may keep:
    the counterexample keeps z != 0 and reaches U z = 0 through U instead (operator.py's shrink, a branch no test
    ran)."""

    def wrong_prior_undefined_at_0(mix, U, V, z):
        """eq. (2) with the prior weight squared in the gate, undefined at z = 0"""
        if all(x.is_number and x == 0 for x in z):
            raise ValueError("no value at z = 0")
        return wrong_prior(mix, U, V, z)

    c = operator_claim("t-wrong-prior-z0", wrong_prior_undefined_at_0, components=2, dim=1, register=False)
    r = run_claim_object(c, overrides=SMALL)
    assert r["verdict"] == "refuted"
    ce = r["evidence"]["counterexample"]
    assert Fraction(ce["z"][0]) != 0 and Fraction(ce["U"][0][0]) == 0 and ce["inside_model"] is True
    assert float(ce["residual"]) > 0


def test_the_symbolic_counterexample_is_inside_the_model_unless_a_row_says_otherwise():
    """The symbolic search's counterexample of a false statement on the plain family lies inside the model: its
    row is labelled so (every refuted row is; operator.py:371, a survivor of the engine run on 79d04be, read a
    missing label as outside, a default no row ever reached -- the label is now read as it is) and the report
    says inside_model True with no outside-model reason."""
    c = operator_claim("t-wrong-prior-sym", wrong_prior, components=2, dim=1, register=False)
    r = run_claim_object(c, overrides=SMALL)
    sce = r["evidence"]["symbolic_counterexample"]
    assert r["verdict"] == "refuted" and sce["source"] == "symbolic" and sce["point"]
    assert sce["inside_model"] is True and "outside_model_reason" not in sce
    assert all("inside_model" in row for row in r["evidence"]["symbolic"]["rows"] if row["status"] == "refuted")


def test_each_quadrature_instance_is_compared_with_its_own_reference():
    """Two instances in one dimension: each numeric row is compared with the quadrature of its own instance (the
    reference is remembered per instance; operator.py:328, a survivor of the engine run on 79d04be, shared the
    first instance's reference with the second, which only more than one instance shows)."""
    c = operator_claim("t-gated-two-instances", gated, components=2, dim=1, register=False)
    r = run_claim_object(c, overrides={"exact_dims": [], "quadrature_dims": [1], "instances": 2, "nodes": 24})
    rows = r["evidence"]["numeric"]["rows"]
    assert r["verdict"] == "verified" and len(rows) == 2 and all(row["passed"] for row in rows)
    assert rows[0]["mixture"] != rows[1]["mixture"]
