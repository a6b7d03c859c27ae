"""Evidence and parameters -> JSON values, by the one number rule of
:data:`softmix.checks.schema.NUMBER_RULE` (used by the runner and by ``Outcome._repr_html_``)."""
from __future__ import annotations

__all__ = ["jsonable"]


def jsonable(x):
    """Evidence -> JSON by the one number rule of :data:`softmix.checks.schema.NUMBER_RULE`:
    integers -> JSON integers; float64 quantities (Python and NumPy floats) -> JSON numbers,
    non-finite ones -> the strings "inf", "-inf", "nan"; exact rationals (Fraction, SymPy
    Rational) -> strings "p/q" (integers "p"); high-precision reals (mpmath, SymPy Float,
    Decimal) -> decimal strings with 30 significant digits; anything else -> str()."""
    import decimal
    import math
    from fractions import Fraction

    import mpmath as mpm
    import numpy as np
    import sympy as sp

    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, (bool, type(None), str)):
        return x
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else ("nan" if math.isnan(x) else ("inf" if x > 0 else "-inf"))
    if isinstance(x, np.ndarray):
        return jsonable(x.tolist())
    if isinstance(x, mpm.mpf):
        return mpm.nstr(x, 30) if mpm.isfinite(x) else ("nan" if mpm.isnan(x) else ("inf" if x > 0 else "-inf"))
    if isinstance(x, mpm.matrix):
        return [[jsonable(x[i, j]) for j in range(x.cols)] for i in range(x.rows)]
    if isinstance(x, Fraction):
        return str(x)
    if isinstance(x, sp.Integer):
        return int(x)
    if isinstance(x, sp.Rational):
        return f"{x.p}/{x.q}"
    if isinstance(x, sp.Float):
        return jsonable(mpm.mpf(x._mpf_)) if hasattr(x, "_mpf_") else str(x)
    if isinstance(x, decimal.Decimal):
        return str(x) if x.is_finite() else ("nan" if x.is_nan() else ("inf" if x > 0 else "-inf"))
    if isinstance(x, sp.MatrixBase):
        return [[jsonable(x[i, j]) for j in range(x.cols)] for i in range(x.rows)]
    return str(x)
