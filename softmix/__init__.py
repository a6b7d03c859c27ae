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
from typing import TYPE_CHECKING

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
    "SoftmixWarning": ("softmix.numerics.errors", "SoftmixWarning"),
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
    # statement kinds beyond the operator (checks/statement_kinds.py and checks/kind_*.py)
    "identity_claim": ("softmix.checks.kind_identity", "identity_claim"),
    "constant_claim": ("softmix.checks.kind_constant", "constant_claim"),
    "bound_claim": ("softmix.checks.kind_bound", "bound_claim"),
    "rate_claim": ("softmix.checks.kind_rate", "rate_claim"),
    "flow_claim": ("softmix.checks.kind_flow", "flow_claim"),
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
    "Threshold": ("softmix.checks.rules", "Threshold"),
    "AlphaFamily": ("softmix.checks.rules", "AlphaFamily"),
    "SlopeRule": ("softmix.checks.fits", "SlopeRule"),
    "InverseLRule": ("softmix.checks.fits", "InverseLRule"),
    # drawn configurations (the module: configs.mixture, configs.spd, ...)
    "configs": ("softmix.checks", "configs"),
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

# What a type checker sees: the same names as _EXPORTS, imported for real (tests/engine/test_facade.py keeps
# the two equal, so an export cannot be added without its type).  At run time nothing is imported here.
if TYPE_CHECKING:
    from softmix.checks import configs as configs
    from softmix.checks.api import (
        LATTICE as LATTICE,
        Part as Part,
        claim as claim,
        combine as combine,
        decide as decide,
        outcome as outcome,
        part as part,
    )
    from softmix.checks.assumptions import Assumption as Assumption
    from softmix.checks.configurations import Draws as Draws
    from softmix.checks.fits import InverseLRule as InverseLRule, SlopeRule as SlopeRule
    from softmix.checks.kind_bound import bound_claim as bound_claim
    from softmix.checks.kind_constant import constant_claim as constant_claim
    from softmix.checks.kind_flow import flow_claim as flow_claim
    from softmix.checks.kind_identity import identity_claim as identity_claim
    from softmix.checks.kind_rate import rate_claim as rate_claim
    from softmix.checks.operator import operator_claim as operator_claim
    from softmix.checks.params import (
        Covariance as Covariance,
        Exact as Exact,
        NonNegative as NonNegative,
        Positive as Positive,
        Real as Real,
    )
    from softmix.checks.registry import (
        Claim as Claim,
        Context as Context,
        Control as Control,
        Outcome as Outcome,
        load_all as load_all,
        load_plugin as load_plugin,
        register as register,
        register_section as register_section,
    )
    from softmix.checks.rules import (
        AlphaFamily as AlphaFamily,
        Bound as Bound,
        Float64Agreement as Float64Agreement,
        Residual as Residual,
        Threshold as Threshold,
        ZTest as ZTest,
    )
    from softmix.checks.runner import Result as Result, run_claim as run_claim, run_claims as run_claims
    from softmix.checks.verdicts import combine_control as combine_control, verdict_of as verdict_of
    from softmix.numerics.attention import (
        gates as gates,
        gates_mp as gates_mp,
        linear_attention as linear_attention,
        linear_attention_mp as linear_attention_mp,
        softmax_attention as softmax_attention,
        softmax_attention_mp as softmax_attention_mp,
    )
    from softmix.numerics.errors import InputError as InputError, SoftmixWarning as SoftmixWarning
    from softmix.numerics.finite_prompt import (
        finite_prompt_attention as finite_prompt_attention,
        finite_prompt_constants as finite_prompt_constants,
        finite_prompt_constants_mp as finite_prompt_constants_mp,
        simulate_outputs as simulate_outputs,
    )
    from softmix.numerics.lambdify import compile_expr as compile_expr
    from softmix.numerics.mixture import GaussianMixture as GaussianMixture
    from softmix.numerics.parsing import LIMITS as INPUT_LIMITS, parse_number as parse_number
    from softmix.numerics.posterior import (
        posterior_covariance as posterior_covariance,
        posterior_mean as posterior_mean,
        posterior_mean_mp as posterior_mean_mp,
    )
    from softmix.numerics.precision import (
        PrecisionWarning as PrecisionWarning,
        exact_floats as exact_floats,
        strict_precision as strict_precision,
        workdps as workdps,
    )
    from softmix.numerics.settings import (
        denoising as denoising_setting,
        icl_regression as icl_regression_setting,
        setting_from_json as setting_from_json,
    )
    from softmix.theory.derivation import Derivation as Derivation
    from softmix.theory.mixtures import SymbolicMixture as SymbolicMixture, symbolic_mixture as symbolic_mixture

# static, so that type checkers read it; equal to ["__version__", *_EXPORTS] (tests/engine/test_facade.py)
__all__ = [
    "__version__", "GaussianMixture", "SymbolicMixture", "symbolic_mixture", "InputError", "parse_number",
    "INPUT_LIMITS", "softmax_attention", "softmax_attention_mp", "linear_attention", "linear_attention_mp", "gates",
    "gates_mp", "compile_expr", "workdps", "SoftmixWarning", "PrecisionWarning", "strict_precision", "exact_floats",
    "finite_prompt_constants", "finite_prompt_constants_mp", "simulate_outputs", "finite_prompt_attention",
    "icl_regression_setting", "denoising_setting", "setting_from_json", "posterior_mean", "posterior_mean_mp",
    "posterior_covariance", "Claim", "Control", "Context", "Outcome", "register", "register_section", "load_plugin",
    "load_all", "run_claim", "claim", "operator_claim", "identity_claim", "constant_claim", "bound_claim",
    "rate_claim", "flow_claim", "Assumption", "Part", "part", "decide", "combine",
    "outcome", "LATTICE", "Residual", "Float64Agreement", "ZTest", "Bound", "Threshold", "AlphaFamily", "SlopeRule",
    "InverseLRule", "configs", "NonNegative", "Positive", "Covariance", "Exact", "Real", "Derivation", "run_claims",
    "Result", "Draws", "verdict_of", "combine_control",
]


if not TYPE_CHECKING:  # a type checker reports an unknown ``softmix.X`` instead of typing it ``Any``
    def __getattr__(name: str) -> object:
        try:
            mod, attr = _EXPORTS[name]
        except KeyError:
            raise AttributeError(f"module 'softmix' has no attribute {name!r}") from None
        module = importlib.import_module(mod)
        try:
            value = getattr(module, attr)
        except AttributeError:  # a submodule not imported yet (e.g. ``configs``)
            value = importlib.import_module(f"{mod}.{attr}")
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(__all__))
