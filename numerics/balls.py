"""Ball-arithmetic helpers (python-flint ``arb``/``acb``) for certificates.

Every quantity is an ``arb`` ball that contains the exact real number.  Comparisons are
*tri-state*: ``True`` when the statement holds for every point of the balls (certainly true),
``False`` when it fails for every point (certainly false), ``None`` when the balls overlap the
boundary (unknown).  A certificate never turns ``None`` into a boolean.

Gaussian helpers are closed forms in ``erfc``/``exp`` (rigorous in arb); ``integrate`` wraps
``acb.integral`` (rigorous for integrands analytic on a neighbourhood of the path).
"""
from __future__ import annotations

from contextlib import contextmanager
from fractions import Fraction

from flint import acb, arb, ctx, fmpq

__all__ = ["DEFAULT_PREC", "precision", "to_arb", "hull", "gt", "ge", "lt", "le", "fmt", "ends",
           "Phi", "phi", "normal_mass", "poly2_tail", "poly2_mass", "cholesky",
           "min_eig_lower", "rayleigh", "integrate", "sigmoid", "matmul", "transpose",
           "with_error", "mean_value_enclosure", "cover_sign", "boxes_tile", "ball_contains"]

DEFAULT_PREC = 128


@contextmanager
def precision(bits: int = DEFAULT_PREC):
    """Set flint's working precision (bits) for the block; restored afterwards."""
    old = ctx.prec
    ctx.prec = int(bits)
    try:
        yield int(bits)
    finally:
        ctx.prec = old


def to_arb(x) -> arb:
    """Exact input -> ball.  int/Fraction/decimal strings go through the rational (exact up to
    one rounding of p/q); floats are taken as the exact binary number they denote."""
    if isinstance(x, arb):
        return x
    if isinstance(x, bool):
        raise TypeError("bool is not a number")
    if isinstance(x, int):
        return arb(x)
    if isinstance(x, str):
        x = Fraction(x)
    if isinstance(x, Fraction):
        return arb(fmpq(x.numerator, x.denominator))
    if isinstance(x, float):
        return arb(x)  # exact: a double is a dyadic rational
    raise TypeError(f"cannot convert {type(x).__name__} to arb")


def hull(lo, hi) -> arb:
    """Smallest ball containing the interval [lo, hi]."""
    a, b = to_arb(lo), to_arb(hi)
    return a.union(b)


def with_error(x: arb, err) -> arb:
    """x enlarged by the non-negative bound ``err`` (e.g. a truncation tail)."""
    e = to_arb(err)
    return x + arb(0, e.upper())


# ---- tri-state comparisons -------------------------------------------------------------------
def gt(x, y):
    """x > y: True (certainly), False (certainly x <= y), None (unknown)."""
    x, y = to_arb(x), to_arb(y)
    if x > y:
        return True
    if x <= y:
        return False
    return None


def ge(x, y):
    """x >= y, tri-state: the negation of y > x (certainly x >= y exactly when certainly not y > x)."""
    return {True: False, False: True, None: None}[gt(y, x)]


def lt(x, y):
    return gt(y, x)


def le(x, y):
    return ge(y, x)


def fmt(x, digits: int = 20) -> str:
    """Ball as a string that contains the value (arb.str with radius)."""
    return to_arb(x).str(digits, radius=True)


def ends(x: arb, digits: int = 12) -> list:
    """Lower and upper endpoints as decimal strings (outward enough for display)."""
    x = to_arb(x)
    return [x.lower().str(digits, radius=False), x.upper().str(digits, radius=False)]


# ---- elementary functions ---------------------------------------------------------------------
def sigmoid(x):
    """1 / (1 + exp(-x)) for arb or acb balls (meromorphic: poles give non-finite balls)."""
    return 1 / (1 + (-x).exp())


def Phi(x) -> arb:
    """Standard normal CDF, erfc(-x / sqrt 2) / 2 (accurate in both tails)."""
    x = to_arb(x)
    return (-x / arb(2).sqrt()).erfc() / 2


def phi(x):
    """Standard normal density."""
    if not isinstance(x, (arb, acb)):
        x = to_arb(x)
    return (-(x * x) / 2).exp() / (2 * arb.pi()).sqrt()


def normal_mass(a=None, b=None) -> arb:
    """P(a < U < b) for U ~ N(0, 1); None means -inf (a) or +inf (b)."""
    if a is None and b is None:
        return arb(1)
    if a is None:
        return Phi(b)
    if b is None:
        return Phi(-to_arb(a))
    a, b = to_arb(a), to_arb(b)
    if a >= 0:
        return Phi(-a) - Phi(-b)
    return Phi(b) - Phi(a)


def poly2_mass(c0, c1, c2, a=None, b=None) -> arb:
    """int_a^b (c0 + c1 u + c2 u^2) phi(u) du in closed form (None = infinite endpoint):
    int u phi = phi(a) - phi(b), int u^2 phi = a phi(a) - b phi(b) + P(a<U<b)."""
    P = normal_mass(a, b)
    pa = phi(a) if a is not None else arb(0)
    pb = phi(b) if b is not None else arb(0)
    apa = to_arb(a) * pa if a is not None else arb(0)
    bpb = to_arb(b) * pb if b is not None else arb(0)
    return to_arb(c0) * P + to_arb(c1) * (pa - pb) + to_arb(c2) * (apa - bpb + P)


def poly2_tail(T, mu) -> arb:
    """int_T^inf (1 + t^2) phi(t - mu) dt (exact closed form, used as a truncation bound)."""
    T, mu = to_arb(T), to_arb(mu)
    # t = mu + u: 1 + t^2 = (1 + mu^2) + 2 mu u + u^2
    return poly2_mass(1 + mu * mu, 2 * mu, 1, a=T - mu)


# ---- matrices (lists of lists of arb) --------------------------------------------------------
def transpose(A):
    return [list(r) for r in zip(*A)]


def matmul(A, B):
    Bt = transpose(B)
    return [[sum((a * b for a, b in zip(r, c)), arb(0)) for c in Bt] for r in A]


def cholesky(A):
    """Ball Cholesky of a symmetric matrix.  Returns (status, pivots, L):
    status True if every pivot is certainly > 0 (every matrix in the ball is positive definite),
    False if some pivot is certainly <= 0 while all earlier ones are certainly > 0 (the matrix is
    certainly not positive definite), None otherwise (unknown).  L is None unless status is True."""
    n = len(A)
    L = [[arb(0)] * n for _ in range(n)]
    pivots = []
    for j in range(n):
        p = to_arb(A[j][j]) - sum((L[j][k] * L[j][k] for k in range(j)), arb(0))
        pivots.append(p)
        s = gt(p, 0)
        if s is not True:
            return (False if s is False else None), pivots, None
        L[j][j] = p.sqrt()
        for i in range(j + 1, n):
            L[i][j] = (to_arb(A[i][j]) - sum((L[i][k] * L[j][k] for k in range(j)), arb(0))) / L[j][j]
    return True, pivots, L


def min_eig_lower(A, c):
    """Certify lambda_min(A) > c via the Cholesky factorisation of A - c I (tri-state)."""
    c = to_arb(c)
    n = len(A)
    B = [[to_arb(A[i][j]) - (c if i == j else 0) for j in range(n)] for i in range(n)]
    status, pivots, _ = cholesky(B)
    return status, pivots


def rayleigh(A, y) -> arb:
    """y^T A y / y^T y for an exact vector y: an enclosure of a number >= lambda_min(A)."""
    y = [to_arb(v) for v in y]
    n = len(y)
    num = sum((y[i] * to_arb(A[i][j]) * y[j] for i in range(n) for j in range(n)), arb(0))
    return num / sum((v * v for v in y), arb(0))


# ---- integration --------------------------------------------------------------------------------
def integrate(f, a, b, **kw) -> arb:
    """Rigorous int_a^b f(t) dt for f analytic near [a, b] (``f`` takes an acb ball and must be
    meromorphic there, or honour the analytic flag itself).  Returns the real part, after checking
    that the imaginary part encloses 0 (the integrand is real on the real line)."""
    r = acb.integral(lambda z, _an: f(z), to_arb(a), to_arb(b), **kw)
    if not (r.real.is_finite() and r.imag.is_finite() and r.imag.contains(0)):
        raise ArithmeticError(f"integration failed or non-real result: {r}")
    return r.real


# ---- interval covers ------------------------------------------------------------------------------
def mean_value_enclosure(f, df, lo, hi) -> arb:
    """Enclosure of f over [lo, hi]: the intersection of the naive ball evaluation f(box) and the
    mean-value form f(mid) + f'(box) (box - mid) (both contain the range; the intersection too)."""
    box = hull(lo, hi)
    mid = (to_arb(lo) + to_arb(hi)) / 2
    naive = f(box)
    if df is None:
        return naive
    mv = f(mid) + df(box) * (box - mid)
    try:
        return naive.intersection(mv)
    except ValueError:  # disjoint would contradict containment; keep the naive ball
        return naive


def cover_sign(f, lo, hi, sign: int, df=None, n_init: int = 8, max_depth: int = 40, max_boxes: int = 20000):
    """Certify sign * f(u) > 0 for every u in [lo, hi] (exact rational endpoints) by adaptive bisection.

    Returns a dict: status True (certified on every box), False (a point where sign * f <= 0 certainly:
    a counterexample), None (unknown: depth/box budget exhausted); boxes [(lo, hi, bound on sign*f)]."""
    from fractions import Fraction

    lo, hi = Fraction(lo), Fraction(hi)
    stack = [(lo + (hi - lo) * Fraction(i, n_init), lo + (hi - lo) * Fraction(i + 1, n_init), 0)
             for i in range(n_init)][::-1]
    boxes = []
    while stack:
        a, b, dep = stack.pop()
        val = sign * mean_value_enclosure(f, df, a, b)
        if val > 0:
            boxes.append((a, b, val))
            if len(boxes) > max_boxes:
                return {"status": None, "boxes": boxes, "reason": "box budget exhausted"}
            continue
        m = (a + b) / 2
        pv = sign * f(to_arb(m))
        if pv <= 0:
            return {"status": False, "boxes": boxes, "counterexample": m, "value_at_counterexample": pv}
        if dep >= max_depth:
            return {"status": None, "boxes": boxes, "reason": f"depth limit on [{a}, {b}]"}
        stack.append((m, b, dep + 1))
        stack.append((a, m, dep + 1))
    return {"status": True, "boxes": boxes}


def boxes_tile(boxes, lo, hi) -> bool:
    """Whether ``boxes`` [(a, b, ...), ...], in their order, run from ``lo`` to ``hi`` edge to edge -- no gap, no
    overlap, each of positive width: what a :func:`cover_sign` certificate's boxes must do to certify the whole
    interval.  Exact (Fractions or decimal strings).

    >>> boxes_tile([(0, 1, None), (1, 2, None)], 0, 2), boxes_tile([(0, 1, None), (0, 2, None)], 0, 2)
    (True, False)
    """
    ends = [(Fraction(b[0]), Fraction(b[1])) for b in boxes]
    return (bool(ends) and ends[0][0] == Fraction(lo) and ends[-1][1] == Fraction(hi)
            and all(a < b for a, b in ends) and all(ends[k][1] == ends[k + 1][0] for k in range(len(ends) - 1)))


# ---- enclosure of a reference value ---------------------------------------------------------------
def ball_contains(ball: arb, ref, rad):
    """Does ``ball`` contain the number known to lie within ``rad`` of the mpmath value ``ref``?  Tri-state:
    True when certainly (lower <= [ref +- rad] <= upper), False when certainly not (the ball misses the
    whole interval), None otherwise (a ball narrower than the reference's accuracy, e.g. an exact point:
    consistent, but not decided).

    >>> import mpmath
    >>> ball_contains(hull(0, 1), mpmath.mpf("0.5"), "1e-10"), ball_contains(hull(0, 1), mpmath.mpf(2), 0.1)
    (True, False)
    """
    import mpmath as mpm

    digits = max(mpm.mp.dps, 30) + 15
    with mpm.workdps(digits + 5):
        ref = mpm.mpf(ref)
        # outward: the decimal strings lose at most half a unit of their last digit, so the radius is widened by
        # one unit of the centre's last digit and by 1e-4 relative before it is rounded to 5 digits (a radius
        # rounded down would make a ball narrower than the reference's accuracy read as containing it)
        rad_out = mpm.mpf(rad) * (1 + mpm.mpf(10) ** -4) + abs(ref) * mpm.mpf(10) ** (1 - digits)
        r = arb(mpm.nstr(ref, digits), mpm.nstr(rad_out, 5))
    lo, hi = le(ball.lower(), r), le(r, ball.upper())
    return True if (lo is True and hi is True) else (False if (lo is False or hi is False) else None)
