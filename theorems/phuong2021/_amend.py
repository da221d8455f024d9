"""Fidelity of an amended statement that differs from its printed one's.

``erratum(amended=...)`` registers the amended claim with the printed claim's ``fidelity``; an amendment that
holds by construction (a pointwise inequality, a restatement of a hypothesis) is re-declared here.
"""

from __future__ import annotations

import dataclasses

from verify.claims import REGISTRY


def declare_amended(cid: str, *, fidelity: str | None = None, fidelity_note: str = "", no_room: str = "",
                    cannot_fail: str = "") -> None:
    """Replace the fidelity fields of the registered amended claim ``cid`` (validated as ``claim()`` does); a
    field not given keeps the printed claim's value."""
    from verify.claims import _validate_fidelity

    c = REGISTRY[cid]
    if c.variant != "amended":
        raise ValueError(f"{cid} is not an amended claim")
    if fidelity is not None:
        c = dataclasses.replace(c, fidelity=_validate_fidelity(cid, fidelity, fidelity_note), fidelity_note=fidelity_note)
    REGISTRY.claims[cid] = dataclasses.replace(c, no_room=no_room or c.no_room,
                                               cannot_fail=cannot_fail or c.cannot_fail)
