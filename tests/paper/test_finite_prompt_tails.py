"""The tails filter of the finite-prompt risk draws is decided by the claims (DR.tails_part): the filter's values
(numerics.risk_references.head_tails) against the MGF in closed form, and a drawn configuration's promise."""
import math

import numpy as np
import pytest

from softmix.checks.paper import finite_prompt_risk as F, finite_prompt_risk_draws as DR
from softmix.checks.registry import Context, load_all
from softmix.numerics import risk_references as RR

PAPER = {"mixture": F.MIX, "heads": F.HEADS, "target": F.TARGET, "z": ["0.8", "-0.4", "0.6"]}


def test_closed_form_tails_of_one_gaussian_by_hand():
    """One Gaussian N(m, G): rho(a) = exp(a.G.a), M(4a) / M(a)^4 = exp(16/2 - 4/2) a.G.a = exp(6 a.G.a)."""
    gauss = {"weights": ["1"], "means": [["0.3", "-0.2"]], "covariances": [[["1", "0.3"], ["0.3", "0.5"]]]}
    heads = [{"U": [["0.5", "0.1"], ["-0.2", "0.4"]], "V": [["1", "0"]]}]
    (rho, k4), = DR.tails_closed_form({"mixture": gauss, "heads": heads, "z": ["0.7", "-1.1"]})
    a = np.array([[0.5, 0.1], [-0.2, 0.4]]) @ np.array([0.7, -1.1])
    q = float(a @ np.array([[1, 0.3], [0.3, 0.5]]) @ a)
    assert float(rho) == pytest.approx(math.exp(q), rel=1e-14) and float(k4) == pytest.approx(math.exp(6 * q),
                                                                                              rel=1e-14)


def test_tails_part_confirms_the_paper_and_refutes_a_broken_promise_or_filter(monkeypatch):
    assert DR.tails_part(PAPER).verdict == "confirmed"
    assert DR.tails_part(PAPER, {"rho": [1.2, 3.0], "k4_max": 28.8}).verdict == "confirmed"
    assert DR.tails_part(PAPER, {"rho": [1.3, 3.0], "k4_max": 28.8}).verdict == "refuted"  # head 0: rho 1.274
    assert DR.tails_part(PAPER, {"rho": [1.2, 3.0], "k4_max": 7.0}).verdict == "refuted"  # head 1: 7.21
    good = RR.head_tails
    monkeypatch.setattr(RR, "head_tails", lambda *a: [(r, k4 * r) for r, k4 in good(*a)])
    assert DR.tails_part(PAPER).verdict == "refuted"


def test_a_drawn_configuration_records_its_promise_and_keeps_it():
    claims = load_all()
    p = claims["fp-multihead-covariance"].params("quick")
    over = DR.draw_cov(Context("fp-multihead-covariance", "quick", 3).stream("configuration", 1), dict(p), 1)
    promise = over[DR.PROMISE]
    assert promise["rho"] == list(DR.DRAW_RHO)
    assert promise["k4_max"] == pytest.approx(4 * max(k4 for _r, k4 in DR.tails_closed_form(PAPER)), rel=1e-12)
    v = {**p, **over}
    assert DR.PROMISE not in DR.values(v)  # a record, not an input of the data streams
    assert DR.tails_part(DR.values(v), promise).verdict == "confirmed"
