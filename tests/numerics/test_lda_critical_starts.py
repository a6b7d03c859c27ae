"""softmix.numerics.lda_critical.v21zero_critical_points: its two designed starts, (1, w*) and (1/2, -w*), on a
problem where F(v22, s) = R~(0, -v22, 2 v22, s) has a strict local minimiser on each side of v22 = 0 (the lower
one at v22 < 0): with no random start the search must return both."""
import numpy as np

from softmix.numerics import lda as N, lda_critical as LC, lda_landscape as LL

# a generic problem (pi_+ != 1/2, unequal-norm means, non-isotropic Gamma)
CFG_TWO_VALLEYS = {"m1": ["1.29", "-0.6"], "m_1": ["0.77", "-0.5"], "Gamma": [["0.52", "0.28"], ["0.28", "1.64"]],
                   "pi_plus": "0.73"}
# the two minimisers (v22, s) to 4 decimals, polished below
NEAR = {"v22 > 0": [1.3854, 1.4571, 0.0613], "v22 < 0": [-1.9034, -2.0324, 0.4855]}


def test_designed_starts_reach_the_minimiser_on_each_side_of_v22_zero():
    P = N.LDAProblem.from_params(CFG_TWO_VALLEYS)
    known = {}
    for side, y0 in NEAR.items():
        y, _ = LL.newton_polish(lambda q: LL.restricted_risk(P, q, 2, 32)[1:], np.array(y0))
        R, g, H = LL.restricted_risk(P, y, 2, 32)
        assert np.linalg.norm(g) < 1e-10 and np.linalg.eigvalsh(H)[0] > 1e-3 and np.linalg.norm(y - y0) < 1e-3
        known[side] = (y, R)
    assert known["v22 < 0"][1] < known["v22 > 0"][1] and known["v22 < 0"][0][0] < 0 < known["v22 > 0"][0][0]
    found = [y for label, y in LC.v21zero_critical_points(P, 32, 0, np.random.default_rng(0))
             if label == "minimiser of F"]
    for side, (y, _R) in known.items():
        assert any(np.linalg.norm(q - y) < 1e-6 for q in found), side
