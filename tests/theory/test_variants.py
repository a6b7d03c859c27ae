"""theory/: every function taking ``variant=`` declares its names and raises on any other (issue 25)."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import softmix.theory as theory
from softmix.theory.variants import check_variant, variants


def _variant_functions():
    out = []
    for info in pkgutil.iter_modules(theory.__path__):
        if info.name == "variants":  # the checker itself
            continue
        mod = importlib.import_module(f"softmix.theory.{info.name}")
        for name, fn in vars(mod).items():
            if (inspect.isfunction(fn) and not name.startswith("_") and fn.__module__ == mod.__name__
                    and "variant" in inspect.signature(fn).parameters):
                out.append((f"{info.name}.{name}", fn))
    return out


FUNCTIONS = _variant_functions()


def test_the_scan_finds_the_known_functions():
    names = {n for n, _ in FUNCTIONS}
    assert {"beyond.zfb_minimiser_derivation", "lda.lemma_b9_derivation", "denoising.prop_c5_derivations",
            "lda_appendix.lemma_b16_derivations", "finite_prompt_risk.multihead_covariance_derivation"} <= names
    assert len(FUNCTIONS) >= 25


@pytest.mark.parametrize("name,fn", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_every_variant_function_declares_and_checks_its_names(name, fn):
    assert getattr(fn, "variants", ()), f"{name} takes variant= but declares no names (@variants)"
    params = inspect.signature(fn).parameters
    args = [None] * list(params).index("variant")  # placeholders: the check runs before the body
    with pytest.raises(ValueError, match="unknown variant 'no-such-control'") as e:
        fn(*args, "no-such-control")
    for known in fn.variants:
        assert repr(known) in str(e.value)
    with pytest.raises(ValueError, match="unknown variant"):
        fn(*args, variant="no-such-control")


def test_known_variants_change_the_stated_side_and_none_is_the_statement():
    from softmix.theory import beyond as TB, lda as TL

    assert TL.lemma_b7_derivation().holds()
    assert not TL.lemma_b7_derivation("flipped-sign").holds()
    assert TL.lemma_b7_derivation.variants == ("flipped-sign",)
    assert TB.zfb_min_loss_derivation(1).holds()
    assert not TB.zfb_min_loss_derivation(1, "dropped-trace").holds()
    assert set(TB.zfb_min_loss_derivation.variants) == {"dropped-trace", "infinite-N"}


def test_decorator_keeps_the_signature_and_refuses_functions_without_variant():
    @variants("a", "b")
    def f(x, variant=None, *, y=1):
        """doc"""
        return (x, variant, y)

    assert str(inspect.signature(f)) == "(x, variant=None, *, y=1)" and f.__doc__ == "doc"
    assert f(1) == (1, None, 1) and f(1, "a", y=2) == (1, "a", 2) and f(1, variant="b") == (1, "b", 1)
    with pytest.raises(ValueError, match=r"f: unknown variant 'c' \(known: None, 'a', 'b'\)"):
        f(1, "c")
    with pytest.raises(TypeError, match="needs a parameter named 'variant'"):
        variants("a")(lambda x: x)
    check_variant("g", None, ())
    with pytest.raises(ValueError, match=r"known: None\)"):
        check_variant("g", "x", ())
