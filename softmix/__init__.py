"""softmix: a symbolic-numeric verifier for softmax attention on Gaussian-mixture prompts.

The library lives in three subpackages (the design card's top-level folders, installed under
``softmix``):

* :mod:`softmix.theory` -- SymPy derivations (exact; knows nothing of numerics);
* :mod:`softmix.numerics` -- the derivations lambdified to float64 and to any mpmath precision,
  Gauss-Hermite quadrature, finite-prompt sampling and constants;
* :mod:`softmix.checks` -- the engine (claims, rules, runner, CLI) and, in
  :mod:`softmix.checks.paper`, the paper's claims, loaded like any user's plugin.

The names below are the documented entry points; they are imported lazily, so ``import
softmix`` is cheap.  See README.md ("Your own statement") and ``docs/``.
"""
from __future__ import annotations

import importlib
import os as _os

try:  # the installed distribution's version
    from importlib.metadata import PackageNotFoundError, version as _version

    __version__ = _version("softmix")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0+unknown"

# Running from a source checkout (``python -m ...`` in the repository root): the subpackages are
# the top-level folders beside this one.  An installed wheel has them inside this folder.
_here = _os.path.dirname(_os.path.abspath(__file__))
_root = _os.path.dirname(_here)
if not _os.path.isdir(_os.path.join(_here, "theory")) and all(
        _os.path.isfile(_os.path.join(_root, d, "__init__.py")) for d in ("theory", "numerics", "checks")):
    __path__.append(_root)  # noqa: F821  (the package's own __path__)

#: public name -> (module, attribute)
_EXPORTS = {
    # mixtures and inputs
    "GaussianMixture": ("softmix.numerics.mixture", "GaussianMixture"),
    "SymbolicMixture": ("softmix.theory.mixtures", "SymbolicMixture"),
    "symbolic_mixture": ("softmix.theory.mixtures", "symbolic_mixture"),
    "InputError": ("softmix.numerics.errors", "InputError"),
    "parse_number": ("softmix.numerics.parsing", "parse_number"),
    "INPUT_LIMITS": ("softmix.numerics.parsing", "LIMITS"),
    # operators at float64 and at any precision
    "softmax_attention": ("softmix.numerics.attention", "softmax_attention"),
    "softmax_attention_mp": ("softmix.numerics.attention", "softmax_attention_mp"),
    "linear_attention": ("softmix.numerics.attention", "linear_attention"),
    "linear_attention_mp": ("softmix.numerics.attention", "linear_attention_mp"),
    "gates": ("softmix.numerics.attention", "gates"),
    "gates_mp": ("softmix.numerics.attention", "gates_mp"),
    "compile_expr": ("softmix.numerics.lambdify", "compile_expr"),
    "workdps": ("softmix.numerics.precision", "workdps"),
    "PrecisionWarning": ("softmix.numerics.precision", "PrecisionWarning"),
    "strict_precision": ("softmix.numerics.precision", "strict_precision"),
    "exact_floats": ("softmix.numerics.precision", "exact_floats"),
    # finite prompts
    "finite_prompt_constants": ("softmix.numerics.finite_prompt", "finite_prompt_constants"),
    "finite_prompt_constants_mp": ("softmix.numerics.finite_prompt", "finite_prompt_constants_mp"),
    "simulate_outputs": ("softmix.numerics.finite_prompt", "simulate_outputs"),
    "finite_prompt_attention": ("softmix.numerics.finite_prompt", "finite_prompt_attention"),
    # ready settings and the K-component Bayes denoiser (numerics/settings.py, numerics/posterior.py)
    "icl_regression_setting": ("softmix.numerics.settings", "icl_regression"),
    "denoising_setting": ("softmix.numerics.settings", "denoising"),
    "setting_from_json": ("softmix.numerics.settings", "setting_from_json"),
    "posterior_mean": ("softmix.numerics.posterior", "posterior_mean"),
    "posterior_mean_mp": ("softmix.numerics.posterior", "posterior_mean_mp"),
    "posterior_covariance": ("softmix.numerics.posterior", "posterior_covariance"),
    # claims and the engine
    "Claim": ("softmix.checks.registry", "Claim"),
    "Control": ("softmix.checks.registry", "Control"),
    "Context": ("softmix.checks.registry", "Context"),
    "Outcome": ("softmix.checks.registry", "Outcome"),
    "register": ("softmix.checks.registry", "register"),
    "register_section": ("softmix.checks.registry", "register_section"),
    "load_plugin": ("softmix.checks.registry", "load_plugin"),
    "load_all": ("softmix.checks.registry", "load_all"),
    "run_claim": ("softmix.checks.runner", "run_claim"),
    # writing a claim (checks/api.py, checks/rules.py, checks/params.py, checks/operator.py)
    "claim": ("softmix.checks.api", "claim"),
    "operator_claim": ("softmix.checks.operator", "operator_claim"),
    "Assumption": ("softmix.checks.assumptions", "Assumption"),
    "Part": ("softmix.checks.api", "Part"),
    "part": ("softmix.checks.api", "part"),
    "decide": ("softmix.checks.api", "decide"),
    "combine": ("softmix.checks.api", "combine"),
    "outcome": ("softmix.checks.api", "outcome"),
    "LATTICE": ("softmix.checks.api", "LATTICE"),
    "Residual": ("softmix.checks.rules", "Residual"),
    "Float64Agreement": ("softmix.checks.rules", "Float64Agreement"),
    "ZTest": ("softmix.checks.rules", "ZTest"),
    "Bound": ("softmix.checks.rules", "Bound"),
    "NonNegative": ("softmix.checks.params", "NonNegative"),
    "Positive": ("softmix.checks.params", "Positive"),
    "Covariance": ("softmix.checks.params", "Covariance"),
    "Exact": ("softmix.checks.params", "Exact"),
    "Real": ("softmix.checks.params", "Real"),
    "Derivation": ("softmix.theory.derivation", "Derivation"),
    "run_claims": ("softmix.checks.runner", "run_claims"),
    "Result": ("softmix.checks.runner", "Result"),
    "Draws": ("softmix.checks.configurations", "Draws"),
    "verdict_of": ("softmix.checks.verdicts", "verdict_of"),
    "combine_control": ("softmix.checks.verdicts", "combine_control"),
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name):
    try:
        mod, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'softmix' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(mod), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
