"""What each claim's derived side is computed from, what its stated side is computed from, and
what (if anything) they share (issue 11, part 4).  One short line per claim, shown by
``softmix show``; :func:`apply` fills ``Claim.independence`` for the claims registered by this
package (a claim that already set its own line keeps it).
"""
from __future__ import annotations

INDEPENDENCE = {
    # Section 2 / App. A
    "prop-2.1": "derived side: gradient of the mixture CGF (SymPy) and the definition by quadrature; stated side: eq. (2) gates x affine experts; shared: nothing",
    "prop-2.1-shared": "derived side: eq. (2) (proven from the MGF in prop-2.1); stated side: eq. (3) with shared G; shared: the gate softmax helper",
    "bb-lemma-2.1": "derived side: CGF gradient of one Gaussian and quadrature of the definition; stated side: V(m + G U z); shared: nothing",
    "prop-a.1": "derived side: normalised attention on atoms / tanh-sinh quadrature of the definition; stated side: query-gated mixture of component maps; shared: nothing",
    "linear-fixed-proportions": "derived side: second moment from the Hessian of the MGF; stated side: sum_k pi_k V (G_k + m_k m_k^T) U z; shared: nothing",
    # finite prompts
    "fp-lln": "derived side: simulated finite prompts (sampling code); stated side: infinite-prompt limit V grad Lambda(a) (float64, cross-checked at 30 digits); shared: the mixture parser",
    "fp-bias": "derived side: simulated finite prompts; stated side: rho V (grad Lambda(a) - grad Lambda(2a)) from the CGF (float64 and mpmath paths must agree); shared: the mixture parser",
    "fp-covariance": "derived side: simulated finite prompts; stated side: rho V C V^T from tilted moments (float64 and mpmath paths must agree); shared: the mixture parser",
    # Section 3 / App. B
    "lemma-b.1": "derived side: attention output computed from the LDA token law's MGF (SymPy); stated side: sigmoid-gated affine map of Lemma B.1; shared: nothing",
    "eq-6-7": "derived side: last coordinate of the derived attention output; stated side: w^T x + b + r sigma(s0 + s^T x); shared: nothing",
    "prop-b.2": "derived side: posterior P(Y=1|X) by Bayes' rule on the Gaussian densities; stated side: sigma(w^T x + b) of eq. (5); shared: nothing",
    "lemma-b.3": "derived side: f_theta from the attention parametrisation at the constructed theta*; stated side: the Bayes score w*^T x + b*; shared: nothing",
    "lemma-b.8": "derived side: SymPy derivatives of f_theta; stated side: the paper's first/second variations (as printed and corrected); shared: f_theta's expression",
    "lemma-b.9": "derived side: derivative of the conditional logistic loss; stated side: E[(sigma(f) - eta) Df]; shared: nothing",
    "lemma-b.10": "derived side: chain rule through f_theta (SymPy); stated side: the explicit attention-coordinate gradients; shared: f_theta's expression",
    "lemma-b.11": "derived side: second derivative of the loss (SymPy) and central finite differences of the quadrature risk; stated side: the B.11 expansion; shared: the Gauss-Hermite risk (FD differentiates it)",
    "prop-b.12": "derived side: SymPy Hessian of the effective risk; stated side: the Prop. B.12 formula; shared: nothing",
    "lemma-b.14": "derived side: Jacobian of Phi by differentiation; stated side: DPhi as printed; shared: Phi's expression",
    "lemma-b.4": "derived side: risks of perturbed predictors by quadrature; stated side: the Bayes score as minimiser; shared: the quadrature rule",
    "lemma-b.6": "derived side: quadrature of E[max(X, 0)]; stated side: closed form mu Phi(mu/s) + s phi(mu/s); shared: nothing",
    "lemma-3.2": "derived side: exact rank of DPhi at random rational theta (SymPy); stated side: injectivity condition m1 != -m_-1, v21 != 0; shared: nothing",
    "lemma-b.13": "derived side: eigenvalues of the quadrature Hessian at the Bayes point; stated side: nullity d or d+1; shared: nothing",
    "thm-3.5": "derived side: integrated gradient flow from perturbed starts; stated side: exponential rate from the normal Hessian; shared: the effective risk code",
    # Section 4 / App. C
    "prop-c.1": "derived side: posterior mean by conditioning Gaussians (SymPy) and Tweedie's formula; stated side: eq. (10); shared: nothing",
    "remark-c.2": "derived side: eq. (10) evaluated at 40 digits for extreme xi; stated side: the limits sum pi_k m_k and z; shared: nothing",
    "eq-11": "derived side: eq. (10) (conditioning, proven in prop-c.1); stated side: eq. (11) without offsets; shared: nothing",
    "thm-4.1": "derived side: softmax attention on mu_Z at 50 digits (mpmath) and quadrature risks; stated side: the explicit heads and f*; shared: nothing",
    "prop-c.4": "derived side: elimination ideal of the one-head conditions (SymPy); stated side: incompatibility iff gamma^2 != xi^2; shared: nothing",
    "prop-c.5": "derived side: softmax attention of the two explicit heads (derived CGF, mpmath); stated side: f* of eq. (10); shared: nothing",
    "prop-c.3": "derived side: attention outputs with Gamma = 0 (SymPy) and single-head solve; stated side: the Prop. C.3 heads; shared: nothing",
    "prop-c.6": "derived side: quadrature excess risks of perturbed maps; stated side: A* = M_X (M_X + xi^2 I)^-1 and Pythagoras; shared: the quadrature rule",
    "lemma-c.7": "derived side: each layer's second moment from the generating function of the pushed-forward token (MGF_mu(J^T t)); stated side: product of I + V M_l U with M_l from the hand-written push-forward mixture; shared: nothing",
    "prop-4.3": "derived side: iterates of u -> tanh(lambda^2 u) and an interval root of the fixed point; stated side: midpoint / clustering limits and rates; shared: nothing",
    "prop-4.4": "derived side: residual two-head attention (SymPy) and Monte Carlo finite prompts; stated side: f*; shared: nothing",
    "fig-2": "derived side: online SGD of two heads; stated side: the Bayes risk and the linear baseline; shared: the risk code",
    "fig-3": "derived side: iterated Bayes denoiser on samples; stated side: strong/weak separation behaviour of Fig. 3; shared: the denoiser",
    # beyond
    "fp-query-averaged-rate": "derived side: simulated finite prompts averaged over queries; stated side: 1/L and L^(-1/(2 lambda)) rates; shared: nothing",
    "bb-prop-3.1": "derived side: simulated output concentration; stated side: the predecessor's bound c1 sigma^6 ln L / L^(c2/sigma^2); shared: nothing",
    "bb-thm-5.1": "derived side: integrated gradient flow and exact risk; stated side: R(A, b), conserved ||A||_F^2 - b^2, balanced limit; shared: nothing",
    "smart-2025-mixture": "derived side: attention on an atomic prompt by simulation; stated side: the Bayes posterior mean; shared: nothing",
    "zfb-linear-flow": "derived side: integrated linear-attention flow and Monte Carlo loss; stated side: Gamma_N^-1 and the minimal loss; shared: nothing",
    # certificates
    "cert-thm-3.5-normal-hessian": "derived side: ball-arithmetic (python-flint) enclosure of the normal Hessian; stated side: positivity; shared: nothing",
    "cert-lemma-b.32-coercivity": "derived side: ball-arithmetic enclosure of the reduced risk on boxes; stated side: the coercivity constant; shared: nothing",
    "cert-thm-4.1-linear-gap": "derived side: ball-arithmetic enclosure of the linear-attention excess risk; stated side: a strictly positive gap; shared: nothing",
    "cert-prop-4.3-u-lambda": "derived side: interval Newton enclosure of tanh(lambda^2 u) = u; stated side: a unique positive fixed point; shared: nothing",
    "cert-prop-4.3-contraction": "derived side: ball bisection of tanh(lambda^2 u) - u on (0, oo); stated side: contraction for lambda <= 1; shared: nothing",
    "cert-fp-rho": "derived side: ball-arithmetic enclosure of M(2a)/M(a)^2 over a box; stated side: rho >= 1; shared: nothing",
    # added on main after the first pass (finite-prompt risk, appendix B, remark 4.2)
    "fp-multihead-covariance": "derived side: simulated finite prompts read by several heads; stated side: rho_hh' V_h C_hh' V_h'^T from the mixture's CGF; shared: the mixture parser",
    "fp-risk-expansion": "derived side: simulated finite-prompt risks; stated side: the closed-form 1/L coefficient K (and its Gaussian-query average); shared: the mixture parser",
    "fp-risk-threshold": "derived side: simulated query-averaged risks over L; stated side: finiteness iff lambda* < 1/2 and the L^(-1/(2 lambda*)) rate past it; shared: nothing",
    "fp-risk-icl-regression": "derived side: simulated in-context regression prompts; stated side: the closed-form 1/L coefficient; shared: nothing",
    "fp-risk-denoiser": "derived side: simulated finite prompts through Thm 4.1's two heads; stated side: lambda* >= 1 and the L^(-1/(2 lambda*)) excess; shared: the head construction",
    "fp-risk-lda-bayes-point": "derived side: simulated finite-prompt logistic risks at a Bayes point; stated side: (1/2) E[eta(1 - eta) v(x)] from the variance constant; shared: the Bayes-point construction",
    "remark-4.2": "derived side: quadrature excess risk of the best linear map with gamma = 0; stated side: a strictly positive gap; shared: nothing",
}


def apply(registry) -> None:
    """Fill ``independence`` for this package's claims (a claim's own line wins)."""
    for cid, line in INDEPENDENCE.items():
        c = registry.get(cid)
        if c is not None and not getattr(c, "independence", ""):
            c.independence = line
