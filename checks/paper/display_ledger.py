"""The paper's display ledger (``data/displays.toml``) and the named numeric checks it cites.

``softmix coverage --displays`` reads the ledger registered here: one entry per ``$$`` display of
the shipped paper text (``data/gabet-boursier-boyer-2026-softmax-attention-gaussian-mixtures.md``,
CC BY 4.0, attribution in its first lines).  A ledger entry names the derivation or check inside a
claim that decides a display; derivations are found through ``Claim.derivations()``.  The numeric
checks below are the evidence entries (or, for Lemma B.3, the derivations built inside the check
for each case) of claims written before claims could declare their checks: each name is a key the
claim writes into its evidence, so a reader finds the decision in ``softmix verify --json``
(tests/paper/test_displays.py checks that each name occurs in the claim's module).
"""
from __future__ import annotations

from pathlib import Path

from ..displays import declare_checks, register_ledger

LEDGER = register_ledger(Path(__file__).with_name("data") / "displays.toml")

#: claim id -> names of the numeric checks (evidence keys) that ledger entries cite
CHECKS = {
    "lemma-b.3": ("Lemma B.3 case 1 (pi_+ != 1/2)", "Lemma B.3 case 2(a), b* != 0", "Lemma B.3 case 2(a), b* = 0",
                  "Lemma B.3 case 2(b) (symmetric balanced)"),
    "thm-3.3": ("D2R[h_t, h_t]",),
    "prop-3.4": ("L1_distance", "risk_gap"),
    "thm-3.5": ("hessian_nullity", "normal_eigenvalues", "fitted_rate"),
    "lemma-b.13": ("hessian_nullity",),
    "prop-b.30": ("of T E2 + E_flat in the kernel",),
    "cert-lemma-b.32-coercivity": ("M", "c0", "C1"),
    "lemma-b.34": ("conserved within the RK4 error bound",),
    "thm-3.6": ("stays in T_K", "risk gap drops 1000x", "rate of ||w_t - w*||: interval above 0",
                "||w_T - w*|| <= 1e-2 ||w_0 - w*||"),
    "prop-c.4": ("conditions", "elimination"),
    "prop-c.6": ("linear_excess_risk", "pythagoras_identity"),
    "cert-thm-4.1-linear-gap": ("lower_bound",),
}

for _cid, _names in CHECKS.items():
    declare_checks(_cid, *_names)
