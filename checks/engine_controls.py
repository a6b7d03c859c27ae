"""Engine controls: canary claims with known outcomes, run by ``softmix verify`` on every run.

A verifier's exit code is its product, so the machinery that turns a check into an exit code --
the runner (:func:`~softmix.checks.runner.run_claim_object`), the verdict lattice
(:func:`softmix.checks.api.combine`, :func:`~softmix.checks.api.verdict_of`), the rules, the alpha
budget, :func:`~softmix.checks.runner.claim_passed`, :func:`~softmix.checks.runner.exit_code`,
:func:`~softmix.checks.runner.verdict_counts` and the automatic controls of
:func:`softmix.operator_claim` -- is itself checked on every run.  Each *canary* below is a claim
whose judgement is known in advance; it is run through exactly the machinery a user's claim goes
through and its observed judgement is compared with the expected one.  A canary judged wrongly is
an *engine failure*: ``softmix verify`` says so and exits 1, whatever the user's claims say.

The canaries are built with ``register=False``: they are never in the registry (``softmix list``
does not show them, ``--config`` cannot reach them).  They know nothing of any paper: their
statements are elementary identities (the derivative of a two-expert log-partition function), the
softmax attention operator's gated-experts form (eq. (1)-(2) of the operator front-end), and what
the input front end makes of fixed files (:mod:`softmix.checks.engine_input_controls`).

Each canary isolates one mechanism: its negative control is refuted unless the canary is about
the control, so that breaking one rule (say, letting ``error`` pass) changes one canary's
judgement instead of being masked by a second failure.  See docs/engine.md.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

import mpmath as mpm
import sympy as sp

from .api import claim, decide, part
from .engine_input_controls import input_front_end
from .rules import AlphaFamily, Residual, ZTest

if TYPE_CHECKING:
    from .registry import Claim

__all__ = ["Canary", "canaries", "expected_judgement", "observed_judgement", "run_engine_controls",
           "engine_failures", "summary_line", "failure_lines", "for_verify", "judge_verify", "print_verify"]


@dataclass
class Canary:
    """One engine control: how to build its (unregistered) claim, the parameter overrides it runs
    with, and its expected judgement: the claim's verdict, each control's verdict, and whether the
    claim passes without and with ``--strict``."""

    id: str
    description: str
    build: Callable[[], Claim]
    verdict: str
    controls: dict
    passed: bool
    passed_strict: bool
    overrides: dict = field(default_factory=dict)


def expected_judgement(c: Canary) -> dict:
    """The judgement ``c`` must receive (the keys compared by :func:`run_engine_controls`): verdict,
    control verdicts, the controls counted as refuted, passed (non-strict and strict), the exit
    code of a run of this claim alone (non-strict and strict) and its non-zero verdict counts."""
    from .assumptions import CONTROL_PREFIX

    # a negative control must be refuted; an assumption-dropped one fails the run only when it errs
    not_refuted = sum(v == "error" if k.startswith(CONTROL_PREFIX) else v != "refuted" for k, v in c.controls.items())
    counts = {c.verdict: 1}
    if not_refuted:
        counts["controls_survived"] = not_refuted
    return {"verdict": c.verdict, "controls": dict(c.controls),
            "controls_refuted": sorted(k for k, v in c.controls.items() if v == "refuted"),
            "passed": c.passed, "passed_strict": c.passed_strict,
            "exit_code": 0 if c.passed else 1, "exit_code_strict": 0 if c.passed_strict else 1, "counts": counts}


def observed_judgement(res: dict) -> dict:
    """The judgement the engine gave the result ``res`` of :func:`run_claim_object`, through the
    same functions that judge a user's claims (claim_passed, exit_code, verdict_counts)."""
    from .runner import claim_passed, exit_code, verdict_counts

    ctl = res["negative_controls"]
    return {"verdict": res["verdict"], "controls": {c["id"]: c["verdict"] for c in ctl},
            "controls_refuted": sorted(c["id"] for c in ctl if c["refuted"]),
            "passed": bool(claim_passed(res)), "passed_strict": bool(claim_passed(res, True)),
            "exit_code": exit_code([res]), "exit_code_strict": exit_code([res], True),
            "counts": {k: v for k, v in verdict_counts([res]).items() if v}}


# ---- the statements the canaries decide -----------------------------------------------------------
_P, _A, _B, _T = sp.symbols("p a b t", real=True)


def _two_expert(flip: bool = False, prior_power: int = 1):
    """d/dt log(p e^{a t} + (1 - p) e^{b t}) (derived) against the gated mean of the two experts a,
    b (stated; ``flip`` flips the sign of the second expert, ``prior_power`` raises the prior)."""
    from softmix.theory.derivation import Derivation

    q = 1 - _P
    derived = sp.diff(sp.log(_P * sp.exp(_A * _T) + q * sp.exp(_B * _T)), _T)
    w1, w2 = _P**prior_power * sp.exp(_A * _T), q**prior_power * sp.exp(_B * _T)
    stated = w1 / (w1 + w2) * _A + w2 / (w1 + w2) * (-_B if flip else _B)
    return Derivation(name=f"two-expert gate{' (flipped)' if flip else ''}{' (prior^2)' if prior_power != 1 else ''}",
                      source="engine control", derived=derived, stated=stated,
                      assumptions=("0 < p < 1", "a, b, t real"))


_POINT = {_P: sp.Rational(3, 10), _A: sp.Rational(-7, 5), _B: sp.Rational(9, 4), _T: sp.Rational(2, 3)}


def _numeric_row(d, dps: int) -> dict:
    """Both sides of ``d`` at one rational point, rounded at ``dps`` digits, by the Residual rule."""
    with mpm.workdps(dps):
        der = mpm.mpf(str(sp.N(d.derived.xreplace(_POINT), dps + 10)))
        sta = mpm.mpf(str(sp.N(d.stated.xreplace(_POINT), dps + 10)))
        return {"point": {str(k): str(v) for k, v in _POINT.items()}, **Residual(dps).decide(der - sta, der)}


def _mean_row(alpha: float, shift_se: float, se: float = 0.01, margin: float | None = 0.1) -> dict:
    """A deterministic 'Monte Carlo' mean: estimate 1 + 0.3 se against the prediction 1 + shift_se
    se, by a two-sided ZTest at ``alpha`` (no random number: the canary must not depend on a draw)."""
    return ZTest(alpha, margin=margin, name="mean").decide(1.0 + 0.3 * se, se, 1.0 + shift_se * se)


@dataclass
class _Params:
    """Canary parameters (the defaults are what the canaries run with)."""

    dps: int = 30


_FLIP = {"flipped-sign": "the second expert's sign flipped in the stated side"}


def _true():
    @claim(id="engine/true", title="engine control: a true statement", source="engine control", controls=_FLIP,
           kind="symbolic", register=False, derivations=lambda p: [_two_expert()])
    def check(p: _Params, ctx):
        d = _two_expert(flip=ctx.control("flipped-sign"))
        fam = AlphaFamily()
        shift = 40.0 if ctx.control("flipped-sign") else 0.0
        return [decide([d], ctx), part("numeric", [_numeric_row(d, p.dps)]),
                part("monte-carlo", [_mean_row(fam.take("mean"), shift)])]
    return check


def _undisplayed():
    @claim(id="engine/undisplayed", title="engine control: softmix show prints a derivation the check did not decide",
           source="engine control", controls=_FLIP, kind="symbolic", register=False,
           derivations=lambda: [_two_expert(prior_power=2)])
    def check(p: _Params, ctx):
        d = _two_expert(flip=ctx.control("flipped-sign"))
        return [decide([d], ctx), part("numeric", [_numeric_row(d, p.dps)])]
    return check


def _false():
    @claim(id="engine/false", title="engine control: a false statement (refuted beats error and inconclusive)",
           source="engine control", controls=_FLIP, kind="symbolic", register=False)
    def check(p: _Params, ctx):
        d = _two_expert(flip=ctx.control("flipped-sign"), prior_power=2)
        fam = AlphaFamily()
        return [decide([d], ctx), part("numeric", [_numeric_row(d, p.dps)]),
                part("monte-carlo", [_mean_row(fam.take("mean"), 0.0, margin=1e-6)]),
                part("numeric", [{"verdict": "error", "reason": "a row the engine could not evaluate"}], name="broken")]
    return check


def _error_part():
    @claim(id="engine/error-part", title="engine control: a part in error (error beats inconclusive)",
           source="engine control", controls=_FLIP, register=False)
    def check(p: _Params, ctx):
        d = _two_expert(flip=ctx.control("flipped-sign"))
        fam = AlphaFamily()
        return [part("numeric", [_numeric_row(d, p.dps)]),
                part("monte-carlo", [_mean_row(fam.take("mean"), 0.0, margin=1e-6)]),
                part("numeric", [{"verdict": "error", "reason": "a row the engine could not evaluate"}], name="broken")]
    return check


def _raises():
    @claim(id="engine/raises", title="engine control: a check that raises", source="engine control", controls=_FLIP,
           register=False)
    def check(p: _Params, ctx):
        if ctx.control("flipped-sign"):  # the control is refuted: only the crash may fail this claim
            return part("numeric", [_numeric_row(_two_expert(flip=True), p.dps)])
        raise RuntimeError("engine control: this check raises by design")
    return check


def _overspent():
    @claim(id="engine/overspent", title="engine control: a check that spends more alpha than its family holds",
           source="engine control", controls=_FLIP, kind="monte-carlo", register=False)
    def check(p: _Params, ctx):
        if ctx.control("flipped-sign"):
            return part("numeric", [_numeric_row(_two_expert(flip=True), p.dps)])
        fam = AlphaFamily()
        rows = [_mean_row(fam.split("first", 0.75), 0.0), _mean_row(fam.split("second", 0.5), 0.0)]  # raises
        return part("monte-carlo", rows)
    return check


def _inconclusive():
    @claim(id="engine/inconclusive", title="engine control: an inconclusive statement (interval wider than its margin)",
           source="engine control", controls={"shifted": "the prediction shifted by 40 standard errors"},
           kind="monte-carlo", register=False)
    def check(p: _Params, ctx):
        fam = AlphaFamily()
        shift = 40.0 if ctx.control("shifted") else 0.0
        return [part("numeric", [_numeric_row(_two_expert(), p.dps)]),
                part("monte-carlo", [_mean_row(fam.take("mean"), shift, margin=1e-6)])]
    return check


def _control_survives():
    @claim(id="engine/control-survives", title="engine control: a true statement whose control survives",
           source="engine control", controls={"rescaled": "the stated side multiplied by exp(0) (no change)"},
           register=False)
    def check(p: _Params, ctx):
        d = _two_expert()
        if ctx.control("rescaled"):
            d.stated = d.stated * sp.exp(0)
        return part("numeric", [_numeric_row(d, p.dps)])
    return check


def _control_inconclusive():
    @claim(id="engine/control-inconclusive", title="engine control: a control the rule cannot decide",
           source="engine control", controls={"shifted": "the prediction shifted, decided with a zero standard error"},
           kind="monte-carlo", register=False)
    def check(p: _Params, ctx):
        fam = AlphaFamily()
        if ctx.control("shifted"):  # zero standard error: the z-test cannot decide (never 'refuted')
            row = ZTest(fam.take("mean"), name="mean").decide(1.0, 0.0, 2.0)
        else:
            row = _mean_row(fam.take("mean"), 0.0)
        return part("monte-carlo", [row])
    return check


def _gated_experts(mix, U, V, z):
    """T(z) = V sum_k alpha_k(z) (m_k + G_k U z), alpha = softmax(log pi_k + m_k^T U z + (Uz)^T G_k U z / 2)"""
    a = U * z
    scores = [sp.log(w) + (m.T * a)[0] + (a.T * G * a)[0] / 2
              for w, m, G in zip(mix.weights, mix.means, mix.covariances)]
    den = sum(sp.exp(s) for s in scores)
    return V * sum((sp.exp(s) / den * (m + G * a) for s, m, G in zip(scores, mix.means, mix.covariances)),
                   sp.zeros(U.rows, 1))


def _operator(D: int):
    from .operator import operator_claim

    return lambda: operator_claim(f"engine/operator-d{D}", _gated_experts, components=2, dim=D, register=False,
                                  title=f"engine control: the gated-experts form of T, dimension {D}",
                                  source="engine control")


def _shared_form(mix, U, V, z):
    """eq. (3): T(z) = V G U z + V sum_k alpha_k(z) m_k, alpha = softmax(log pi_k + m_k^T U z), G the first
    component's covariance (all of them, when one covariance is shared)."""
    a = U * z
    scores = [sp.log(w) + (m.T * a)[0] for w, m in zip(mix.weights, mix.means)]
    den = sum(sp.exp(s) for s in scores)
    return V * (mix.covariances[0] * a + sum((sp.exp(s) / den * m for s, m in zip(scores, mix.means)),
                                             sp.zeros(U.rows, 1)))


def _operator_assumptions():
    from .operator import operator_claim

    return operator_claim("engine/operator-assumptions", _shared_form, components=2, dim=2,
                          assume=("shared-isotropic", "centred"), register=False, source="engine control",
                          title="engine control: eq. (3) on centred mixtures with one covariance v I")


_OPERATOR_CONTROLS = ("dropped-term", "flipped-sign", "gate-argument", "transposed-U")


def canaries() -> list[Canary]:
    """The fixed set of engine controls, each with its expected judgement (see docs/engine.md)."""
    ref = {"flipped-sign": "refuted"}
    op = {c: "refuted" for c in _OPERATOR_CONTROLS}
    cheap = {"quadrature_dims": [], "instances": 1, "dps": 30, "shrink_budget": 0}
    return [
        Canary("engine/true", "a true identity decided symbolically, numerically and by a z-test: verified, passes",
               _true, "verified", ref, True, True),
        Canary("engine/undisplayed", "a true identity decided, but softmix show prints another derivation: error, "
               "fails", _undisplayed, "error", ref, False, False),
        Canary("engine/false", "a false identity (with an inconclusive and an errored part): refuted, fails",
               _false, "refuted", ref, False, False),
        Canary("engine/error-part", "a confirmed, an inconclusive and an errored part: error, fails",
               _error_part, "error", ref, False, False),
        Canary("engine/raises", "a check that raises: error, fails", _raises, "error", ref, False, False),
        Canary("engine/overspent", "a check that overspends its AlphaFamily (AlphaOverspent): error, fails",
               _overspent, "error", ref, False, False),
        Canary("engine/inconclusive", "an interval wider than its margin: inconclusive, passes only without --strict",
               _inconclusive, "inconclusive", {"shifted": "refuted"}, True, False),
        Canary("engine/control-survives", "a true claim whose control is confirmed: the control survived, fails",
               _control_survives, "confirmed", {"rescaled": "confirmed"}, False, False),
        Canary("engine/control-inconclusive", "a true claim whose control is inconclusive: not refuted, fails",
               _control_inconclusive, "confirmed", {"shifted": "inconclusive"}, False, False),
        Canary("engine/operator-d2", "operator_claim, gated-experts form, K = 2, D = 2: verified, the four "
               "automatic controls present and refuted", _operator(2), "verified", op, True, True,
               {**cheap, "exact_dims": [2]}),
        Canary("engine/operator-d3", "operator_claim, gated-experts form, K = 2, D = 3: verified, the four "
               "automatic controls present and refuted", _operator(3), "verified", op, True, True,
               {**cheap, "exact_dims": [3]}),
        Canary("engine/operator-assumptions", "operator_claim, eq. (3) with declared assumptions shared-isotropic "
               "and centred, K = 2, D = 2: verified; dropping shared-isotropic refutes it, dropping centred does not "
               "(a scope finding, which passes)", _operator_assumptions, "verified",
               {**op, "without:shared-isotropic": "refuted", "without:centred": "verified"}, True, True,
               {**cheap, "exact_dims": [2]}),
        Canary("engine/input-front-end", "the input front end reads fixed files exactly and refuses malformed "
               "ones with one line: confirmed, the perturbed reference refuted", input_front_end, "confirmed",
               {"perturbed-reference": "refuted"}, True, True),
    ]


def _run_canary(c: Canary, seed: int) -> dict:
    from .runner import run_claim_object

    t0, c0 = time.perf_counter(), time.process_time()
    expected = expected_judgement(c)
    try:
        res = run_claim_object(c.build(), "quick", seed, c.overrides)
        observed = observed_judgement(res)
        detail = res["evidence"].get("exception") if isinstance(res.get("evidence"), dict) else None
    except Exception as e:  # the engine crashed on its own control: an engine failure, not a traceback
        observed, detail = {"crash": f"{type(e).__name__}: {e}"}, None
    wrong = sorted(k for k in expected if observed.get(k) != expected[k])
    entry = {"id": c.id, "description": c.description, "expected": expected, "observed": observed,
             "judged_right": not wrong, "wrong": wrong, "seconds": round(time.perf_counter() - t0, 3),
             "cpu_seconds": round(time.process_time() - c0, 3)}
    if detail:
        entry["exception"] = str(detail)
    return entry


def run_engine_controls(seed: int = 0, only=None) -> list[dict]:
    """Run every canary (or those whose id is in ``only``) at ``seed``, in the quick profile, in
    this process; one entry per canary: ``{"id", "description", "expected", "observed",
    "judged_right", "wrong", "seconds", "cpu_seconds"}`` (wall and CPU time; ``wrong``: the judgement
    keys that differ; ``exception`` when the canary's check raised, as the raising canary must)."""
    return [_run_canary(c, seed) for c in canaries() if only is None or c.id in only]


def engine_failures(entries) -> list[dict]:
    """The canaries judged wrongly."""
    return [e for e in entries if not e["judged_right"]]


def summary_line(entries) -> str:
    """``engine controls: 10/10 judged right (4.2 s)``."""
    ok = sum(e["judged_right"] for e in entries)
    return f"engine controls: {ok}/{len(entries)} judged right ({sum(e['seconds'] for e in entries):.1f} s)"


def _show(j: dict) -> str:
    if "crash" in j:
        return f"crash {j['crash']}"
    ctl = ", ".join(f"{k}: {v}" for k, v in j.get("controls", {}).items())
    return (f"verdict {j.get('verdict')}, controls [{ctl}], refuted {j.get('controls_refuted')}, "
            f"passes {j.get('passed')}, passes --strict {j.get('passed_strict')}")


def failure_lines(entries) -> list[str]:
    """One engine-failure line per canary judged wrongly, naming it, what it should have been
    judged and what it was judged."""
    return [f"softmix: ENGINE FAILURE: engine control {e['id']} judged wrongly ({', '.join(e['wrong'])}): expected "
            f"{_show(e['expected'])}; observed {_show(e['observed'])}. The verifier's own machinery is broken: "
            "no verdict of this run can be trusted (exit 1; see docs/engine.md)" for e in engine_failures(entries)]


# ---- softmix verify ---------------------------------------------------------------------------------
#: ``SOFTMIX_NO_ENGINE_CONTROLS=1`` in the environment skips the engine controls like
#: ``--no-engine-controls`` (with the same warning): for test sessions whose many small verify
#: processes are not about the engine (tests/conftest.py); the engine tests clear it.
SKIP_ENV = "SOFTMIX_NO_ENGINE_CONTROLS"


def for_verify(seed: int, skip: bool = False) -> dict:
    """The engine controls of one ``softmix verify`` run, as the keys of its JSON document:
    ``{"engine_controls": [entries], "engine_controls_skipped": bool}``.  ``skip``
    (``--no-engine-controls``, or :data:`SKIP_ENV` set) runs none and warns on stderr."""
    import os
    import sys

    by_env = os.environ.get(SKIP_ENV, "") not in ("", "0")
    if skip or by_env:
        how = "--no-engine-controls" if skip else f"{SKIP_ENV} is set"
        print(f"softmix: warning: {how}: the engine controls were skipped, so nothing in this run checks that "
              "the verifier's own machinery judges claims correctly", file=sys.stderr)
        return {"engine_controls": [], "engine_controls_skipped": True}
    return {"engine_controls": run_engine_controls(seed), "engine_controls_skipped": False}


def judge_verify(doc: dict) -> int:
    """Apply the engine controls held in ``doc`` (see :func:`for_verify`) to a verify run: its exit
    code becomes 1 when a canary was judged wrongly, whatever the claims say.  Returns the exit code
    (also stored in ``doc["exit_code"]``)."""
    if engine_failures(doc.get("engine_controls") or []):
        doc["exit_code"] = 1
    return doc["exit_code"]


def print_verify(doc: dict, quiet: bool = False, failures: bool = False) -> None:
    """The engine controls' one-line summary on stdout (unless ``quiet``), or with ``failures`` one
    engine-failure line per canary judged wrongly on stderr (always)."""
    import sys

    entries = doc.get("engine_controls") or []
    if failures:
        for line in failure_lines(entries):
            print(line, file=sys.stderr)
    elif entries and not quiet:
        print(summary_line(entries))
