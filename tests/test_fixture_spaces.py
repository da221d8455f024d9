"""The catalogue's declared search spaces: every family builds over its whole space, and the families a
hunt of the errata needs (issue 19) declare one."""

import numpy as np
import pytest

from verify.claims import REGISTRY
from verify.discovery import load_package
from verify.space import Choice, Integer

POINTS = 20


def _catalogue():
    load_package("theorems")
    return [c for c in REGISTRY if c.checkable]


def _families():
    fams = {}
    for c in _catalogue():
        for u in c.fixtures:
            if u.family.space:
                fams[u.family.name] = u.family
    return fams


def _draw(dim, rng, corner):
    """The lower corner (0), the upper corner (1), or a uniform draw (on a log scale where declared)."""
    if isinstance(dim, Choice):
        return dim.options[int(rng.integers(len(dim.options)))]
    if corner is not None:
        return (dim.lo, dim.hi)[corner]
    if isinstance(dim, Integer):
        return int(rng.integers(dim.lo, dim.hi + 1))
    if dim.log:
        return float(np.exp(rng.uniform(np.log(dim.lo), np.log(dim.hi))))
    return float(rng.uniform(dim.lo, dim.hi))


FAMILIES = _families()


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_family_builds_over_its_space(name):
    fam = FAMILIES[name]
    rng = np.random.default_rng(19)
    for i in range(POINTS):
        corner = i if i < 2 else None
        params = {k: _draw(d, rng, corner) for k, d in fam.space.items()}
        data = fam.build(np.random.default_rng(i), **{**fam.defaults, **params})
        assert isinstance(data, dict), (name, params)


def test_errata_and_amended_claims_have_searchable_random_families():
    """A printed claim with an erratum, and its amended form, run on random families that declare a space
    (families without parameters are hunted over their seeds)."""
    missing = {(c.id, u.family.name) for c in _catalogue() if c.erratum is not None or c.amends is not None
               for u in c.fixtures if u.kind == "random" and u.family.defaults and not u.family.space}
    assert not missing, sorted(missing)


def test_defaults_lie_in_the_spaces_or_are_kept():
    """A family's defaults are unchanged by its declaration; a default outside the declared range is only
    ever clipped by a hunt, so report it here."""
    outside = [(n, k, f.defaults[k]) for n, f in FAMILIES.items() for k, d in f.space.items()
               if not d.contains(f.defaults[k])]
    assert not outside, outside
