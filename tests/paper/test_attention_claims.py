"""Section 2 / App. A claims: the large-scores case of prop-2.1 (public names only)."""
import numpy as np

from softmix.checks.paper.attention import Prop21, prop_2_1
from softmix.checks.params import coerce_dataclass
from softmix.checks.registry import Context
from softmix.numerics.memo import scope


def _large_score_rows(seed=5):
    p = coerce_dataclass(Prop21, {"quadrature_dims": [], "exact_dims": [2]})
    with scope():
        parts = prop_2_1(p, Context("prop-2.1", "quick", seed, claim=prop_2_1.claim))
    numeric = next(x for x in parts if x.kind == "numeric")
    return [r for r in numeric.rows if r.get("check") == "scores in the thousands (log-space)"]


def test_large_scores_case_catches_a_naive_softmax(monkeypatch):
    """prop-2.1's scores-in-the-thousands case passes with the log-space gates and fails when the float64
    gates forget to subtract the maximum (exp overflows)."""
    import softmix.numerics.attention as NA

    ok = _large_score_rows()
    assert len(ok) == 4 and all(r["passed"] for r in ok) and ok[0]["max_abs_score"] >= 1000

    def naive(scores):
        with np.errstate(all="ignore"):
            return np.log(np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True))

    monkeypatch.setattr(NA, "log_gates", naive)
    bad = {r["path"]: r for r in _large_score_rows() if "path" in r}
    assert bad["production float64"]["passed"] is False and bad["production float64"]["verdict"] == "refuted"
