"""lemma-b.37's amplification_row: the measured transverse amplification is decided against its
linearisation, with a tolerance sized by the linearisation and the flow alone."""
from softmix.checks.paper.lda_dynamics import AMP_DELTA, amplification_row


def test_agreeing_amplifications_pass_and_a_doubled_one_is_refuted():
    lin = 1.2e6  # kappa delta A_lin = 0.012 at delta = 1e-9
    assert amplification_row(lin * (1 + 1e-4), lin, 400, 5.0)["passed"] is True
    assert amplification_row(2 * lin, lin, 400, 5.0)["passed"] is False
    assert amplification_row(1.1 * lin, lin, 400, 5.0)["passed"] is False
    assert amplification_row(1.0, 1.0, 400, 5.0)["passed"] is True
    assert amplification_row(1.01, 1.0, 400, 5.0)["passed"] is False


def test_the_tolerance_does_not_grow_with_the_measured_value():
    """A wrong (huge) measured value cannot widen its own tolerance: the relative tolerance is the same."""
    a, b = amplification_row(1.3, 1.3, 400, 5.0), amplification_row(1e9, 1.3, 400, 5.0)
    assert a["relative_tolerance"] == b["relative_tolerance"] and b["passed"] is False


def test_beyond_first_order_the_row_is_undecided():
    row = amplification_row(1e8, 1e8, 400, 5.0)  # kappa delta A_lin = 1
    assert row["passed"] is None and "not first order" in row["reason"]
    assert amplification_row(1e8, 1e8, 400, 5.0, delta=AMP_DELTA / 10)["passed"] is True
