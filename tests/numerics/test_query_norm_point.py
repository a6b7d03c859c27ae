"""softmix.numerics.risk.query_norm_point (the mean-query-norm controls' single query) on a known answer: the
mixture mean plus E||z - E z|| along the top principal axis of the query covariance, both computed here another
way (the covariance as E[z z^T] - mu mu^T, the mean norm by Gauss-Hermite per component)."""
import numpy as np

from softmix.numerics import risk as RK
from softmix.numerics.mixture import GaussianMixture

# unequal weights, unequal covariances, a mean spread off every axis and a non-zero mean: the top axis is none
# of the components' own, nor the means' spread alone, nor the sum without the weights
W = ["0.3", "0.7"]
MU = np.array([1.0, -1.0, 0.5])
DEV = np.array([2.0, 2.0, 0.0])
MEANS = [MU + 0.7 * DEV, MU - 0.3 * DEV]
COVS = [[[2, 0, 0], [0, "0.5", 0], [0, 0, 1]], [[1, "0.2", 0], ["0.2", 1, 0], [0, 0, "0.3"]]]


def _mixture():
    means = [[str(round(float(x), 12)) for x in m] for m in MEANS]
    return GaussianMixture.from_values(W, means, COVS)


def _mean_norm(w, means, covs, mu, nodes=40):
    """E||z - mu|| by a tensor Gauss-Hermite rule per component."""
    x, g = np.polynomial.hermite_e.hermegauss(nodes)
    g = g / g.sum()
    X = np.stack(np.meshgrid(x, x, x, indexing="ij"), -1).reshape(-1, 3)
    G = np.einsum("i,j,k->ijk", g, g, g).ravel()
    return sum(wj * G @ np.linalg.norm(m - mu + X @ np.linalg.cholesky(S).T, axis=1)
               for wj, m, S in zip(w, means, covs))


def test_query_norm_point_is_the_mean_plus_the_mean_norm_along_the_top_axis():
    w = np.array([float(x) for x in W])
    covs = [np.array(S, float) for S in COVS]
    mu = w @ np.array(MEANS)
    second = sum(wj * (S + np.outer(m, m)) for wj, m, S in zip(w, MEANS, covs))
    ev, V = np.linalg.eigh(second - np.outer(mu, mu))
    assert ev[-1] - ev[-2] > 0.5 and min(abs(V[:, -1])) < 0.99 * max(abs(V[:, -1]))  # a clear, oblique top axis
    r = _mean_norm(w, MEANS, covs, mu)
    zc = RK.query_norm_point(_mixture())
    step = zc - mu
    # the point sits on the top axis (either orientation: an axis has none) at the mean norm, which the function
    # estimates from a fixed 2^16-point sample: within 4 of its standard errors (sd of the norm below 1.6)
    assert abs(abs(step @ V[:, -1]) - r) <= 4 * 1.6 / 2**8
    assert np.linalg.norm(step - (step @ V[:, -1]) * V[:, -1]) <= 1e-12 * r
