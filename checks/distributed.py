"""Run claims (and Monte Carlo replicate batches) on a dask.distributed cluster: the Dask-specific
parts only (the client, the executor that :func:`softmix.checks.runner.run_claims` runs claims
on, replicate batches as tasks).

Every claim derives its random numbers from ``Context.stream`` (keyed by seed, claim id, purpose
and keys: :mod:`softmix.checks.streams`) and replicate batches from ``SeedSequence(seed).spawn``, so a task
draws the same numbers wherever it runs: a distributed run gives the same results as a local
run with the same seed (only the timings differ).

``dask`` is imported lazily; without it, or with an unreachable scheduler, a
:class:`DistributedError` (an ``InputError``: one line, exit code 2 from the CLI) is raised.
"""
from __future__ import annotations

import os
from contextlib import contextmanager

from softmix.numerics.errors import InputError

__all__ = ["DistributedError", "client_for", "executor_for", "client_map", "simulate_outputs_distributed",
           "CONNECT_TIMEOUT"]

#: seconds to wait for a scheduler before giving up
CONNECT_TIMEOUT = float(os.environ.get("SOFTMIX_DASK_TIMEOUT", "5"))


class DistributedError(InputError):
    """Dask missing or scheduler unreachable."""


def _import_distributed():
    try:
        import distributed  # noqa: F401
        from distributed import Client, LocalCluster
    except ImportError:
        raise DistributedError("--scheduler needs dask.distributed: pip install 'softmix[dask]' "
                               "(or pip install \"dask[distributed]\")") from None
    return Client, LocalCluster


@contextmanager
def client_for(address: str, timeout: float | None = None, n_workers: int | None = None):
    """A ``distributed.Client`` for ``address`` ('local' starts a LocalCluster of worker
    processes, closed on exit; anything else is a scheduler address such as
    tcp://127.0.0.1:8786)."""
    Client, LocalCluster = _import_distributed()
    timeout = CONNECT_TIMEOUT if timeout is None else timeout
    cluster = None
    if address == "local":
        import logging

        import dask

        from .pool import WORKER_DEATH_RETRIES

        n = n_workers or min(2, os.cpu_count() or 1)
        try:  # a task whose worker dies is run once more, then fails with KilledWorker (as locally)
            with dask.config.set({"distributed.scheduler.allowed-failures": WORKER_DEATH_RETRIES}):
                cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.ERROR)
        except Exception as e:  # pragma: no cover - environment dependent
            raise DistributedError(f"could not start a local Dask cluster: {type(e).__name__}: {e}") from None
        client = Client(cluster)
    else:
        try:
            client = Client(address, timeout=f"{timeout}s")
        except (OSError, TimeoutError, ValueError) as e:
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise DistributedError(f"cannot reach Dask scheduler at {address!r} within {timeout:g}s ({msg})") from None
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


@contextmanager
def executor_for(address: str, timeout: float | None = None, n_workers: int | None = None):
    """A ``concurrent.futures`` executor on the Dask cluster at ``address`` (``'local'``: a local
    cluster, as in :func:`client_for`): ``Client.get_executor(pure=False)``, for
    :func:`softmix.checks.runner.run_claims`.

    Its ``slots()`` is the cluster's number of worker threads: ``run_claims`` keeps no more claims
    than that in flight, so that the tasks a worker holds are the ones it is running, and a
    worker's death counts only against them.  The scheduler reruns such a task on another worker
    until its ``distributed.scheduler.allowed-failures`` are used up (the local cluster allows
    :data:`~softmix.checks.pool.WORKER_DEATH_RETRIES`), then fails it with ``KilledWorker``."""
    with client_for(address, timeout, n_workers) as client:
        ex = client.get_executor(pure=False)
        ex.slots = lambda: sum(client.nthreads().values())
        try:
            yield ex
        finally:
            ex.shutdown(wait=False)


def client_map(client):
    """A ``map(fn, items)`` that runs each item as a Dask task and returns results in order."""
    def _map(fn, items):
        items = list(items)
        return client.gather(client.map(fn, items, pure=False))
    return _map


def simulate_outputs_distributed(client, mix, U, V, z, L, R, seed, batch: int = 4096, method: str = "projected"):
    """:func:`softmix.numerics.finite_prompt.simulate_outputs_batched` with one Dask task per replicate
    batch; identical to the local call with the same (seed, batch)."""
    from softmix.numerics.finite_prompt import simulate_outputs_batched

    return simulate_outputs_batched(mix, U, V, z, L, R, seed, batch=batch, method=method, map=client_map(client))
