"""Decorated claims with Assumption objects, for tests/engine/test_operator_language.py: an assumption
that is needed (its dropped control is refuted), one that is not (a scope finding), a proportion
and a threshold, and drawn configurations that must satisfy the declared assumptions."""
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath as mpm

import softmix
from softmix.checks import configs as C
from softmix.checks.assumptions import Below, EqualNorms, PiNotHalf


def _f(x):
    return Fraction(str(x))


def _gates_at_zero(means, weights, s, offsets: bool, prior_power=1):
    """softmax_k(prior_power * log pi_k - offsets * |m_k|^2 / (2 s)) at 50 digits."""
    with mpm.workdps(50):
        sc = [prior_power * mpm.log(mpm.mpf(_f(w).numerator) / _f(w).denominator)
              - (sum(_f(x) ** 2 for x in m) / (2 * _f(s)) if offsets else 0) for w, m in zip(weights, means)]
        e = [mpm.exp(mpm.mpf(x) if not isinstance(x, Fraction) else mpm.mpf(x.numerator) / x.denominator) for x in sc]
        return [x / sum(e) for x in e]


@dataclass
class GateParams:
    means: list[list[float]] = field(default_factory=lambda: [["0.6", "0.8"], ["-1", "0"]])
    weights: list[float] = field(default_factory=lambda: ["0.3", "0.7"])
    s: softmix.Positive = "1.5"


def _gate_claim(p, ctx, offsets):
    g = _gates_at_zero(p.means, p.weights, p.s, offsets, prior_power=2 if ctx.control("prior-squared") else 1)
    rule = softmix.Residual(40)
    with mpm.workdps(50):
        res = max(abs(a - mpm.mpf(_f(w).numerator) / _f(w).denominator) for a, w in zip(g, p.weights))
    return softmix.part("numeric", [{"means": p.means, **rule.decide(res)}])


@softmix.claim(id="gate-at-zero-offsets", title="at z = 0 the posterior gate is the prior (equal norms)",
               source="test", controls={"prior-squared": "the prior squared in the gate"},
               assumptions=[EqualNorms("means"), "s > 0 is the posterior variance scale"])
def gate_at_zero_offsets(p: GateParams, ctx):
    return _gate_claim(p, ctx, offsets=True)


@softmix.claim(id="gate-at-zero-plain", title="at z = 0 the gate without offsets is the prior",
               source="test", controls={"prior-squared": "the prior squared in the gate"},
               assumptions=[EqualNorms("means")])
def gate_at_zero_plain(p: GateParams, ctx):
    return _gate_claim(p, ctx, offsets=False)


def _draw_equal(rng, params, i):
    return {"means": C.means(rng, 2, 2, equal_norms=True), "weights": C.weights(rng, 2)}


def _draw_any(rng, params, i):
    return {"means": C.means(rng, 2, 2), "weights": C.weights(rng, 2)}  # unequal norms: outside the statement


@softmix.claim(id="gate-at-zero-drawn", title="drawn configurations satisfy the declared assumptions",
               source="test", controls={"prior-squared": "the prior squared in the gate"},
               assumptions=[EqualNorms("means")], configurations=softmix.Draws(_draw_equal, quick=1, full=3))
def gate_at_zero_drawn(p: GateParams, ctx):
    return _gate_claim(p, ctx, offsets=True)


@softmix.claim(id="gate-at-zero-bad-draws", title="draws outside the assumptions are skipped", source="test",
               controls={"prior-squared": "the prior squared in the gate"}, assumptions=[EqualNorms("means")],
               configurations=softmix.Draws(_draw_any, quick=1, full=3))
def gate_at_zero_bad_draws(p: GateParams, ctx):
    return _gate_claim(p, ctx, offsets=True)


@dataclass
class LogitParams:
    pi_plus: float = "0.3"
    x: float = "0.2"


@softmix.claim(id="log-odds-nonzero", title="the log-odds log(pi/(1 - pi)) is not zero", source="test",
               controls={"halved": "the statement at pi = pi/2 + 1/4 (between pi and 1/2)"},
               assumptions=[PiNotHalf("pi_plus")])
def log_odds_nonzero(p: LogitParams, ctx):
    pi = _f(p.pi_plus)
    if ctx.control("halved"):
        pi = Fraction(1, 2)  # the wrong general statement 'log-odds of 1/2 is non-zero'
    ok = pi != 1 - pi
    return softmix.part("numeric", [{"pi_plus": str(pi), "passed": ok, "verdict": "confirmed" if ok else "refuted"}])


@softmix.claim(id="geometric-bound", title="1 / (1 - x) <= 1 + 2 x for 0 <= x < 1/2", source="test",
               controls={"tight": "1 / (1 - x) <= 1 + x"},
               assumptions=[Below("x-below-half", lambda v: _f(v["x"]), Fraction(1, 2), fields=("x",))])
def geometric_bound(p: LogitParams, ctx):
    x = _f(p.x)
    rhs = 1 + (1 if ctx.control("tight") else 2) * x
    return softmix.part("numeric", [{"x": str(x), **softmix.Bound().decide(1 / (1 - x), rhs)}])
