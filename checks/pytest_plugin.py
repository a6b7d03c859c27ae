"""pytest plugin: a user's claim files as test items (off unless asked for; docs/testing.md).

Registered through the ``pytest11`` entry point, so it loads with pytest wherever softmix is
installed, but it does nothing -- no collection hook, no import beyond this module -- unless
claim files are named::

    pytest --softmix-claims 'claims/*.py' [--softmix-seed N] [--softmix-profile quick|full] [--softmix-strict]

or in the ini file (``[tool.pytest.ini_options]`` / ``pytest.ini``)::

    softmix_claims = claims/my_claims.py claims/more_*.py
    softmix_seed = 7
    softmix_profile = quick

Each claim a file registers (``@softmix.claim``, ``softmix.operator_claim``, ``register``) becomes
one item ``FILE::CLAIM-ID`` that runs the claim and its negative controls as ``softmix verify``
does.  The item passes when the claim is verified or confirmed and every negative control is
refuted; it fails (the text names the verdict, the counterexample or finding, the failing rows, the
surviving controls and the command that reproduces it) when the claim is refuted or errored or a
control survived; an inconclusive claim is *skipped* with its reason (``--softmix-strict``: it
fails).  Every item uses the one master seed ``--softmix-seed`` (default that of ``softmix
verify``), printed in the header and in each failure.  With ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``
load it by name: ``-p softmix.checks.pytest_plugin``.
"""
from __future__ import annotations

import glob
import os

import pytest

#: the entry point's name and this module's name (equal, so ``-p`` and autoloading never register it twice)
PLUGIN_NAME = "softmix.checks.pytest_plugin"
_DEFAULT_SEED = 20261130  # softmix.checks.testing.DEFAULT_SEED, without importing the engine here


def pytest_addoption(parser):
    group = parser.getgroup("softmix", "softmix claims as test items")
    group.addoption("--softmix-claims", action="append", default=[], metavar="FILE_OR_GLOB",
                    help="collect the claims these .py files register as test items (repeatable; globs allowed)")
    group.addoption("--softmix-seed", type=int, default=None, metavar="N",
                    help="master seed of every claim item (default: softmix_seed in the ini file, else "
                         f"{_DEFAULT_SEED})")
    group.addoption("--softmix-profile", choices=("quick", "full"), default=None,
                    help="parameter profile of the claims (default: softmix_profile in the ini file, else quick)")
    group.addoption("--softmix-strict", action="store_true", default=False,
                    help="an inconclusive claim fails (default: it is skipped with its reason)")
    parser.addini("softmix_claims", "claim files (globs allowed) collected as test items", type="args", default=[])
    parser.addini("softmix_seed", "master seed of the claim items", default="")
    parser.addini("softmix_profile", "parameter profile of the claim items (quick or full)", default="")


def pytest_configure(config):
    cli = config.getoption("softmix_claims") or []
    ini = config.getini("softmix_claims") or []
    if not cli and not ini:
        return  # not asked for: register nothing else
    files = _resolve(cli, config.invocation_params.dir) + _resolve(ini, config.rootpath)
    seed = config.getoption("softmix_seed")
    if seed is None:
        raw = str(config.getini("softmix_seed")).strip()
        try:
            seed = int(raw) if raw else _DEFAULT_SEED
        except ValueError:
            raise pytest.UsageError(f"softmix_seed must be an integer, got {raw!r}") from None
    if seed < 0:
        raise pytest.UsageError(f"--softmix-seed must be a non-negative integer, got {seed}")
    profile = config.getoption("softmix_profile") or str(config.getini("softmix_profile")).strip() or "quick"
    if profile not in ("quick", "full"):
        raise pytest.UsageError(f"softmix_profile must be quick or full, got {profile!r}")
    collector = _ClaimCollector(files, seed, profile, bool(config.getoption("softmix_strict")))
    config.pluginmanager.register(collector, "softmix-claims-collector")
    _add_to_args(config, files)


def _resolve(patterns, base) -> list[str]:
    out: list[str] = []
    for pat in patterns:
        full = pat if os.path.isabs(pat) else os.path.join(str(base), pat)
        hits = sorted(glob.glob(full)) if glob.has_magic(full) else ([full] if os.path.isfile(full) else [])
        hits = [os.path.realpath(h) for h in hits if h.endswith(".py")]
        if not hits:
            raise pytest.UsageError(f"--softmix-claims {pat}: no such .py file")
        out += [h for h in hits if h not in out]
    return out


def _add_to_args(config, files) -> None:
    """Collect the claim files even when they lie outside the paths pytest was given."""
    roots = []
    for a in config.args:
        p = os.path.realpath(os.path.join(str(config.invocation_params.dir), str(a).split("::")[0]))
        roots.append(p)
    for f in files:
        if not any(f == r or f.startswith(r.rstrip(os.sep) + os.sep) for r in roots):
            config.args.append(f)


class _ClaimCollector:
    """The hooks that exist only when claim files were named."""

    def __init__(self, files, seed: int, profile: str, strict: bool):
        self.files, self.seed, self.profile, self.strict = set(files), seed, profile, strict

    def pytest_report_header(self, config):
        return (f"softmix claims: {len(self.files)} file(s), seed {self.seed}, profile {self.profile}"
                f"{', strict' if self.strict else ''} (--softmix-seed, --softmix-profile)")

    def pytest_collect_file(self, file_path, parent):
        if os.path.realpath(str(file_path)) in self.files:
            return ClaimFile.from_parent(parent, path=file_path, options=self)
        return None


_IDS: dict[str, list[str]] = {}  # claim file -> ids it registered (a file is imported once per process)


def _claim_ids(path: str) -> list[str]:
    from softmix.checks.registry import REGISTRY, load_plugin

    if path not in _IDS:
        before = set(REGISTRY)
        load_plugin(path)
        _IDS[path] = [cid for cid in REGISTRY if cid not in before]
    return _IDS[path]


class ClaimFile(pytest.File):
    """A .py file of claims: one :class:`ClaimItem` per claim it registers."""

    def __init__(self, *, options, **kw):
        super().__init__(**kw)
        self.options = options

    def collect(self):
        from softmix.numerics.errors import InputError

        path = os.path.realpath(str(self.path))
        try:
            ids = _claim_ids(path)
        except InputError as e:
            raise self.CollectError(f"softmix: {e}") from None
        except ValueError as e:  # e.g. a duplicate claim id (the file was also imported as a test module)
            raise self.CollectError(f"softmix: {path}: {e} (is this file also collected as a test module? "
                                    "name claim files so that python_files does not match them)") from None
        if not ids:
            raise self.CollectError(f"softmix: {path} registers no claim")
        for cid in ids:
            yield ClaimItem.from_parent(self, name=cid, claim_id=cid, claim_file=path)


class ClaimFailed(Exception):
    """A claim item failed: the message is the whole report."""


class ClaimItem(pytest.Item):
    """One claim and its negative controls, run as ``softmix verify`` runs them."""

    def __init__(self, *, claim_id: str, claim_file: str, **kw):
        super().__init__(**kw)
        self.claim_id, self.claim_file = claim_id, claim_file
        self.result: dict | None = None

    def runtest(self):
        from softmix.checks.runner import claim_passed, run_claim
        from softmix.checks.testing import claim_report

        parent = self.parent
        assert isinstance(parent, ClaimFile)
        opts = parent.options
        self.result = res = run_claim(self.claim_id, profile=opts.profile, seed=opts.seed, plugins=(self.claim_file,))
        self.user_properties += [("softmix_verdict", res["verdict"]), ("softmix_seed", opts.seed)]
        rerun = (f"pytest '{self.nodeid}' --softmix-claims {self.claim_file} --softmix-seed {opts.seed} "
                 f"--softmix-profile {opts.profile}   (or: softmix verify --plugin {self.claim_file} {self.claim_id} "
                 f"--seed {opts.seed} --profile {opts.profile})")
        text = claim_report(res, opts.seed, opts.profile, rerun=rerun)
        if not claim_passed(res, strict=opts.strict):
            raise ClaimFailed(text)
        if res["verdict"] == "inconclusive":
            pytest.skip(text)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ClaimFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, f"softmix claim {self.claim_id}"
