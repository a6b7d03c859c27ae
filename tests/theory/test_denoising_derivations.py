"""theory.denoising's derivation builders: a control's derivation is named after its variant, and the
defaults hold in every dimension the builders accept (survivors of the library run on ed2a0ca)."""
from __future__ import annotations

import pytest

from softmix.theory import denoising as TD
from softmix.theory.families import structured_mixture


@pytest.mark.parametrize("build,variant", [(TD.prop_c5_derivations, "swap-U"), (TD.prop_c5_derivations, "flip-B"),
                                           (TD.prop_c3_derivations, "U-scale")])
def test_a_variant_derivation_is_named_after_its_variant(build, variant):
    plain = [d.name for d in build()]
    named = [d.name for d in build(variant=variant)]
    assert named and all(n.endswith(f" [{variant}]") and n[:-len(variant) - 3] in plain for n in named)


@pytest.mark.parametrize("d", [2, 3])
def test_lemma_c7_default_mixture_lives_in_the_asked_dimension(d):
    der = TD.lemma_c7_derivation(d=d, layers=1)
    assert der.holds() and f"d={d}" in der.name
    U = [s for s in der.free_symbols() if s.name.startswith("U")]
    assert len(U) == d * d  # one generic d x d head: the default mixture has the asked dimension


@pytest.mark.parametrize("K,D", [(2, 2), (3, 1)])
def test_coincident_means_are_k_copies_of_one_generic_mean(K, D):
    mix = structured_mixture(K, D, means="coincident")
    assert len(mix.means) == K and all(m == mix.means[0] for m in mix.means)
    assert mix.means[0].shape == (D, 1) and all(x.is_Symbol for x in mix.means[0])
