"""The 54 numbered statements of Gabet, Boursier & Boyer (2026) and the claims that decide them.

Counted from the paper (/work/shared/paper): 11 in the main text (Prop 2.1, Thm 3.1, Lemma 3.2,
Thm 3.3, Prop 3.4, Thm 3.5, Thm 3.6, Thm 4.1, Remark 4.2, Prop 4.3, Prop 4.4), 1 in Appendix A
(Prop A.1), 35 in Appendix B (B.1 to B.37 share one counter; B.24 and B.27 are definitions and
are not statements) and 7 in Appendix C (C.1 to C.7).  Definitions, equations and figures are
not numbered statements (figures and equations have claims of their own: fig-*, eq-*).

Status (softmix.checks.coverage): ``decided`` -- claim(s) of its own; ``alias`` -- decided inside
the named claims (``part`` says where); ``external`` -- a textbook result the paper imports.
"""
from __future__ import annotations

from ..coverage import register_statement

SOURCE = "Gabet-Boursier-Boyer 2026"


def _d(label, *claims):
    register_statement(label, "decided", claims, source=SOURCE)


def _a(label, claims, part):
    register_statement(label, "alias", claims, part=part, source=SOURCE)


def _x(label, reason):
    register_statement(label, "external", (), reason=reason, source=SOURCE)


# ---- main text -------------------------------------------------------------------------------------
_d("Proposition 2.1", "prop-2.1", "prop-2.1-shared")
_d("Theorem 3.1", "thm-3.1")
_d("Lemma 3.2", "lemma-3.2")
_d("Theorem 3.3", "thm-3.3")
_d("Proposition 3.4", "prop-3.4")
_d("Theorem 3.5", "thm-3.5", "cert-thm-3.5-normal-hessian")
_d("Theorem 3.6", "thm-3.6")
_d("Theorem 4.1", "thm-4.1", "prop-c.4", "cert-thm-4.1-linear-gap", "thm-4.1-balanced-head")
_d("Remark 4.2", "remark-4.2", "prop-c.3")
_d("Proposition 4.3", "prop-4.3", "cert-prop-4.3-u-lambda", "cert-prop-4.3-contraction")
_d("Proposition 4.4", "prop-4.4", "prop-4.4-head")

# ---- Appendix A ------------------------------------------------------------------------------------
_d("Proposition A.1", "prop-a.1")

# ---- Appendix B ------------------------------------------------------------------------------------
_d("Lemma B.1", "lemma-b.1")
_d("Proposition B.2", "prop-b.2")
_d("Lemma B.3", "lemma-b.3")
_d("Lemma B.4", "lemma-b.4")
_d("Remark B.5", "remark-b.5")
_d("Lemma B.6", "lemma-b.6")
_d("Lemma B.7", "lemma-b.7")
_d("Lemma B.8", "lemma-b.8")
_d("Lemma B.9", "lemma-b.9")
_d("Lemma B.10", "lemma-b.10")
_d("Lemma B.11", "lemma-b.11")
_d("Proposition B.12", "prop-b.12")
_d("Lemma B.13", "lemma-b.13")
_d("Lemma B.14", "lemma-b.14")
_d("Lemma B.15", "lemma-b.15")
_d("Lemma B.16", "lemma-b.16", "thm-3.3")
_d("Lemma B.17", "lemma-b.17")
_a("Corollary B.18", ("lemma-b.17", "eq-6-7"),
   "set-theoretic consequence of E* = E1 u E2 (lemma-b.17) through R = R~ o Phi (eq-6-7 derives "
   "f_theta = g_Phi(theta)); Theta1, Theta2 are defined as the preimages")
_d("Lemma B.19", "lemma-b.19", "thm-3.1")
_a("Lemma B.20", ("lemma-3.2",), "Lemma 3.2 restated verbatim")
_a("Lemma B.21", ("lemma-3.2", "lemma-b.15", "lemma-b.19"),
   "composition: chain rule grad R = DPhi^* grad R~ (lemma-b.15), DPhi^* injective when v21 != 0 and "
   "m1 != -m_-1 (lemma-3.2), Crit R~ = argmin R~ (lemma-b.19)")
_a("Lemma B.22", ("thm-3.3",),
   "the negative-curvature direction h_t of Lemma B.22 and the positive direction at every located critical "
   "point on {v21 = 0} (the whole numeric check of thm-3.3)")
_a("Proposition B.23", ("prop-3.4",), "Proposition 3.4 restated (the same zeta_R)")
_x("Lemma B.25", "Morse-Bott lemma (local form, Banyaga and Hurtubise 2004): a general result of differential "
                 "topology the paper imports; its hypothesis at Theta1^reg is Lemma B.26 (checked by thm-3.5)")
_a("Lemma B.26", ("thm-3.5", "lemma-b.13"),
   "ker Hess R(theta*) = T_theta* Theta1 with nullity d^2 + d - 1 at theta* in Theta1^reg (thm-3.5's kernel "
   "check; lemma-b.13 derives the effective kernel)")
_x("Lemma B.28", "preimage (regular value) theorem: a general result of differential topology the paper imports")
_a("Theorem B.29", ("thm-3.5",), "Theorem 3.5 restated near a regular critical component: the local "
                                 "exponential-convergence part of thm-3.5")
_d("Proposition B.30", "prop-b.30")
_d("Corollary B.31", "cor-b.31")
_d("Lemma B.32", "lemma-b.32", "cert-lemma-b.32-coercivity")
_d("Lemma B.33", "lemma-b.33")
_d("Lemma B.34", "lemma-b.34")
_d("Proposition B.35", "prop-b.35")
_d("Remark B.36", "remark-b.36")
_d("Lemma B.37", "lemma-b.37")

# ---- Appendix C ------------------------------------------------------------------------------------
_d("Proposition C.1", "prop-c.1")
_d("Remark C.2", "remark-c.2")
_d("Proposition C.3", "prop-c.3")
_d("Proposition C.4", "prop-c.4")
_d("Proposition C.5", "prop-c.5")
_d("Proposition C.6", "prop-c.6", "cert-thm-4.1-linear-gap")
_d("Lemma C.7", "lemma-c.7")
