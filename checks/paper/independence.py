"""What each claim's derived side is computed from, what its stated side is computed from, and
what (if anything) they share (issue 11, part 4).  One short line per claim, shown by
``softmix show``; :func:`apply` fills ``Claim.independence`` for the claims registered by this
package (a claim that already set its own line keeps it).
"""
from __future__ import annotations

INDEPENDENCE = {
    # finite prompts
    # Section 3 / App. B
    "remark-b.5": "derived side: best square-loss fit inside the attention class (optimisation); stated side: target 2 eta - 1 outside the class; shared: nothing",
    "thm-3.1": "derived side: critical points found by multistart optimisation of R~; stated side: their risk equals the Bayes risk; shared: the effective risk code",
    "thm-3.3": "derived side: Hessian eigenvalues / escape along the flow at critical points on v21 = 0; stated side: strict-saddle property; shared: the effective risk code",
    "prop-3.4": "derived side: risk along scaled directions R -> oo; stated side: the limiting risk and rate; shared: the effective risk code",
    "prop-b.30": "derived side: numerical kernel of the effective Hessian on the constant-gate branch; stated side: T E2 + E_flat of dim d+1; shared: nothing",
    "cor-b.31": "derived side: kernel of the attention-coordinate Hessian vs tangent dimension; stated side: not Morse-Bott; shared: the Hessian code",
    "lemma-b.32": "derived side: reduced linear logistic risk evaluated along rays; stated side: coercivity constant; shared: nothing",
    "lemma-b.34": "derived side: integrated gradient flow on T_K; stated side: conserved ||U11||_F^2 - ||v21||^2; shared: the gradient code",
    "lemma-b.37": "derived side: gradient at points of T_K; stated side: it stays in T_K; shared: the gradient code",
    "prop-b.35": "derived side: exact rational Krylov ranks; stated side: the dimension criterion; shared: nothing",
    "thm-3.6": "derived side: integrated flow on T_K from several starts; stated side: global exponential convergence; shared: the gradient code",
    "fig-1": "derived side: GD trajectories near Theta1 and Theta2; stated side: fast vs slow convergence of Fig. 1; shared: the risk code",
    "fig-5": "derived side: SGD in d = 20 from the paper's start; stated side: near-Bayes risk of Fig. 5; shared: the risk code",
    "fig-4": "derived side: SGD in d = 20 from an all-Gaussian start; stated side: slow approach of Fig. 4; shared: the risk code",
    "lda-finite-prompt": "derived side: SGD on finite prompts and Monte Carlo excess risk; stated side: population optimum approached as L grows; shared: the risk code",
    # certificates
    # added on main after the first pass (finite-prompt risk, appendix B, remark 4.2)
    "lemma-b.7": "derived side: derivative of the conditional logistic loss (SymPy); stated side: sigma(f) - eta; shared: nothing",
    "lemma-b.15": "derived side: gradient of R o Phi by the chain rule (SymPy); stated side: the blockwise adjoint DPhi^*; shared: Phi's expression",
    "lemma-b.17": "derived side: g_zeta on each branch and its x-Hessian (SymPy); stated side: E1 u E2 as the minimisers; shared: nothing",
    "lemma-b.19": "derived side: Hessian of the integrand in (w, b, r) (SymPy); stated side: sigma'(g) phi phi^T, PSD; shared: nothing",
    "lemma-b.33": "derived side: Hessian of the linear logistic risk (SymPy) and its quadrature eigenvalues; stated side: positive definite; shared: nothing",
    "remark-b.36": "derived side: Monte Carlo energy fraction of Gaussian vectors in K; stated side: dim K / d; shared: the Krylov basis",
    "lemma-b.16": "derived side: the proof's algebraic steps (SymPy) and grad_w R~ at located critical points (quadrature); stated side: grad_w R~ != 0; shared: the effective risk code",
}


def apply(registry) -> None:
    """Fill ``independence`` for this package's claims (a claim's own line wins)."""
    for cid, line in INDEPENDENCE.items():
        c = registry.get(cid)
        if c is not None and not getattr(c, "independence", ""):
            c.independence = line
