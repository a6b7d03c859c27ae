"""Ready settings for ``softmix risk`` and :mod:`softmix.numerics.risk` (a thin public alias of
:mod:`softmix.numerics.settings`, where the formulas are documented):

>>> from softmix.settings import icl_regression
>>> s = icl_regression(5, "0.1", ["0.3", "-0.2"], ["1.5", "0.8"])   # beta = e_1
>>> from softmix.numerics.risk import averaged_risk
>>> round(float(averaged_risk(*s.as_inputs())["K"]), 4)
8.2393
"""
from softmix.numerics.settings import SETTING_KINDS, Setting, denoising, icl_regression, setting_from_json  # noqa: F401

__all__ = ["Setting", "icl_regression", "denoising", "setting_from_json", "SETTING_KINDS"]
