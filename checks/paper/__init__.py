"""The paper library: claims for Gabet, Boursier & Boyer (2026) and its neighbours.

This package is a *plugin* of the engine in :mod:`softmix.checks`: the engine imports nothing
from it; it is loaded through the ``softmix.claims`` entry point (``pyproject.toml``), exactly
as a user's claims are.  Importing it declares its section keys and registers every claim, one
module per section of the paper, each section's ball-arithmetic certificates beside it:

* :mod:`.attention` -- Section 2 / Appendix A (Prop 2.1, Prop A.1, linear attention);
* :mod:`.finite_prompt`, :mod:`.finite_prompt_lln`, :mod:`.finite_prompt_risk` (with ``_threshold``, ``_tasks``,
  ``_lda``, ``_paths``, ``_draws``), :mod:`.finite_prompt_certificates` -- finite prompts
  (docs/finite-prompt.md: one head's constants, several heads' risk, query averages);
* :mod:`.lda`, :mod:`.lda_bayes`, :mod:`.lda_hessian`, :mod:`.lda_critical`, :mod:`.lda_landscape`,
  :mod:`.lda_dynamics`, :mod:`.lda_figures`, :mod:`.lda_finite_prompt`, :mod:`.lda_certificates` --
  Section 3 / Appendix B;
* :mod:`.lda_appendix` -- Appendix B statements decided on their own (Lemmas B.7, B.15, B.16, B.17, B.19,
  B.33, Remark B.36);
* Section 4 / Appendix C: :mod:`.denoising_bayes` (the Bayes denoiser), :mod:`.denoising_two_heads` (two heads,
  Fig. 2), :mod:`.denoising_single_head` (one head), :mod:`.denoising_linear` (the linear-attention gap, Remark 4.2),
  :mod:`.denoising_clustering` (Prop. 4.3, Fig. 3), :mod:`.denoising_residual` (Prop. 4.4),
  :mod:`.denoising_operator` (one-head displays as operator statements), :mod:`.denoising_certificates`; the
  shared setting in :mod:`.denoising_setting`;
* :mod:`.statements` -- the paper's 54 numbered statements and the claims that decide each
  (``softmix coverage``).
* :mod:`.display_ledger` -- the ledger of every displayed formula (``data/displays.toml``,
  ``softmix coverage --displays``).
* :mod:`.query_averaged_rate`, :mod:`.beyond_concentration`, :mod:`.beyond_regression`,
  :mod:`.beyond_denoising` -- the predecessor and neighbouring results (section ``beyond``).
* :mod:`.steps_common` and ``steps_*`` -- the displayed steps of the proofs, one claim per proof
  (derivations in ``softmix.theory.steps_*``), cited by the display ledger.
"""
from __future__ import annotations

import importlib

from ..registry import register_section

register_section("attention", "Sec. 2 / App. A of the paper")
register_section("finite-prompt", "finite prompts (docs/finite-prompt.md)")
register_section("lda", "Sec. 3 / App. B of the paper")
register_section("denoising", "Sec. 4 / App. C of the paper")
register_section("beyond", "the predecessor and neighbouring results")
register_section("certificates", "ball-arithmetic certificates (python-flint)")

#: modules in display order
MODULES = ("attention", "finite_prompt", "finite_prompt_lln", "finite_prompt_risk",
           "finite_prompt_risk_threshold", "finite_prompt_risk_tasks", "finite_prompt_risk_lda", "lda", "lda_bayes",
           "lda_hessian", "lda_critical", "lda_landscape", "lda_dynamics", "lda_figures", "lda_finite_prompt",
           "lda_appendix", "denoising_bayes", "denoising_two_heads", "denoising_single_head", "denoising_linear",
           "denoising_clustering", "denoising_residual", "denoising_operator", "query_averaged_rate",
           "beyond_concentration", "beyond_regression", "beyond_denoising", "lda_certificates",
           "denoising_certificates", "finite_prompt_certificates", "steps_a_b3", "steps_b4", "steps_b5", "steps_b6_b8",
           "steps_b9_b12", "steps_c")

for _m in MODULES:
    importlib.import_module(f"{__name__}.{_m}")

importlib.import_module(f"{__name__}.statements")
importlib.import_module(f"{__name__}.display_ledger")


