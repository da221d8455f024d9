"""The space a hunt searches: the claim's fixture families, their declared parameters and the seeds.

An **arm** is one family the claim runs on (one of its random or adversarial fixtures) with the
parameters the search may vary (the family's declared space) and those it keeps (the fixture's own
parameters, or the family's defaults). A **candidate** is one point: an arm, a value for every
searched parameter, and a seed. Every candidate is the fixture that a hunt would hand back::

    adversarial(family, label="hunted", seed=SEED, **params)

so what the search evaluates, what confirmation reruns and what the claim keeps are one declaration.
A family without a declared space is searched over its seeds alone.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any

from .. import settings as S
from ..claims import Claim, FixtureFamily, FixtureUse, adversarial
from ..space import Choice, Integer, Real

SEED_RANGE = 2**32
HUNTED_LABEL = "hunted"
BINS = 10


@dataclass(frozen=True)
class Arm:
    """One family of the claim with the parameters a hunt varies (``space``) and keeps (``base``)."""

    use_index: int
    family: FixtureFamily
    base: tuple  # ((name, value), ...): parameters not searched
    space: tuple  # ((name, dimension), ...) in the family's declaration order

    @property
    def name(self) -> str:
        return self.family.name

    def describe(self) -> dict:
        from ..evidence import jsonable

        return {"family": self.family.name, "use_index": self.use_index, "base": jsonable(dict(self.base)),
                "space": {k: d.describe() for k, d in self.space}}


@dataclass(frozen=True)
class Candidate:
    """One point of the search: an arm, the searched parameters' values, a seed."""

    arm: int
    values: tuple  # ((name, value), ...) in the arm's space order
    seed: int

    def with_values(self, **changes: Any) -> Candidate:
        return Candidate(self.arm, tuple((k, changes.get(k, v)) for k, v in self.values), self.seed)

    def with_seed(self, seed: int) -> Candidate:
        return Candidate(self.arm, self.values, int(seed))

    def to_dict(self) -> dict:
        from ..evidence import jsonable

        return {"arm": self.arm, "values": jsonable(dict(self.values)), "seed": self.seed}


class Domain:
    """The arms of one claim and what a candidate becomes: a fixture use, a declaration, coordinates."""

    def __init__(self, claim: Claim, arms: list[Arm]):
        self.claim = claim
        self.arms = arms

    @classmethod
    def of(cls, claim: Claim, *, kinds: tuple = (S.RANDOM, S.ADVERSARIAL), base: str = "use") -> Domain:
        """The arms of ``claim``: its fixtures of the given kinds (negative controls are never hunted).

        ``base="use"`` keeps each fixture's own parameters where the space does not vary them;
        ``base="family"`` keeps the family's defaults instead, so hand-picked parameters play no part
        (fixtures of one family then share one arm)."""
        arms: list[Arm] = []
        seen = set()
        for i, use in enumerate(claim.fixtures):
            if use.kind not in kinds or use.kind == S.NEGATIVE:
                continue
            fam = use.family
            fixed = dict(fam.defaults) if base == "family" else {**fam.defaults, **use.params}
            space = tuple((k, d) for k, d in fam.space.items())
            for k, _ in space:
                fixed.pop(k, None)
            key = (fam.name, _canonical(fixed))
            if key in seen:
                continue
            seen.add(key)
            arms.append(Arm(i, fam, tuple(sorted(fixed.items())), space))
        return cls(claim, arms)

    # -- candidates ----------------------------------------------------------------------------
    def params(self, cand: Candidate) -> dict:
        """Every parameter of the candidate's family (defaults, kept ones, searched ones)."""
        arm = self.arms[cand.arm]
        return {**arm.family.defaults, **dict(arm.base), **dict(cand.values)}

    def overrides(self, cand: Candidate) -> dict:
        """The parameters that differ from the family's defaults (what a declaration must state)."""
        fam = self.arms[cand.arm].family
        return {k: v for k, v in self.params(cand).items() if not _same(v, fam.defaults.get(k, _MISSING))}

    def use(self, cand: Candidate) -> FixtureUse:
        """The fixture a candidate is: ``adversarial(family, label="hunted", seed=..., **params)``."""
        return adversarial(self.arms[cand.arm].family, label=HUNTED_LABEL, seed=cand.seed, **self.overrides(cand))

    def start(self, seed: int) -> Candidate:
        """The first candidate: arm 0 at the fixture's own values (clipped into the space)."""
        arm = self.arms[0]
        params = {**arm.family.defaults}
        use = self.claim.fixtures[arm.use_index]
        params.update(use.params)
        values = tuple((k, _clip(d, params.get(k))) for k, d in arm.space)
        return Candidate(0, values, int(seed) % SEED_RANGE)

    def key(self, cand: Candidate) -> str:
        return _canonical([cand.arm, list(cand.values), cand.seed])

    # -- continuous coordinates (for the SciPy optimiser) ----------------------------------------
    def has_reals(self) -> bool:
        return any(isinstance(d, Real) and d.hi > d.lo for a in self.arms for _, d in a.space)

    def real_names(self, cand: Candidate) -> list[str]:
        return [k for k, d in self.arms[cand.arm].space if isinstance(d, Real) and d.hi > d.lo]

    def to_unit(self, cand: Candidate, names: list[str]) -> list[float]:
        dims = dict(self.arms[cand.arm].space)
        vals = dict(cand.values)
        return [_to_unit(dims[k], float(vals[k])) for k in names]

    def from_unit(self, cand: Candidate, names: list[str], z: Any) -> Candidate:
        dims = dict(self.arms[cand.arm].space)
        return cand.with_values(**{k: _from_unit(dims[k], float(v)) for k, v in zip(names, z)})

    # -- coverage -------------------------------------------------------------------------------
    def coverage(self, cands: list[Candidate]) -> dict:
        """How much of each arm's space the evaluated candidates reached: per parameter, the range
        seen and the share of its bins visited (10 bins, on a log scale where declared; one bin per
        integer or option when fewer)."""
        out = []
        for i, arm in enumerate(self.arms):
            mine = [c for c in cands if c.arm == i]
            dims = {}
            for k, d in arm.space:
                vals = [dict(c.values)[k] for c in mine]
                dims[k] = _dim_coverage(d, vals)
            out.append({"family": arm.name, "fixtures": len(mine), "seeds": len({c.seed for c in mine}),
                        "parameters": dims})
        return {"arms": out}

    # -- declarations -----------------------------------------------------------------------------
    def declaration(self, cand: Candidate, family_name: str | None = None) -> str:
        """The Python declaration of the candidate as a fixture the claim can keep: every parameter, those
        equal to the family's defaults included, so the kept fixture stays the same if a default changes."""
        fam = family_name or self.arms[cand.arm].family.name
        args = [f'label="{HUNTED_LABEL}"', f"seed={cand.seed}"]
        args += [f"{k}={_py(v)}" for k, v in self.params(cand).items()]
        return f"adversarial({fam}, {', '.join(args)})"

    def describe_params(self, cand: Candidate) -> str:
        vals = ", ".join(f"{k}={_short(v)}" for k, v in self.params(cand).items() if k in dict(cand.values)
                         or not _same(v, self.arms[cand.arm].family.defaults.get(k, _MISSING)))
        return f"{self.arms[cand.arm].name}({vals + ', ' if vals else ''}seed={cand.seed})"


_MISSING = object()


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:  # arrays and other values without a plain equality: never "the same"
        return False


def _canonical(x: Any) -> str:
    return json.dumps(x, sort_keys=True, default=repr)


def _clip(d, v: Any) -> Any:
    """A value inside dimension ``d``: ``v`` when it is in it, else the dimension's simplest value."""
    if d.contains(v):
        return v
    if isinstance(d, Integer):
        return d.lo if not isinstance(v, (int, float)) else int(min(max(v, d.lo), d.hi))
    if isinstance(d, Real):
        return d.lo if not isinstance(v, (int, float)) else float(min(max(v, d.lo), d.hi))
    return d.options[0]


def _to_unit(d: Real, x: float) -> float:
    if d.log:
        return (math.log(x) - math.log(d.lo)) / (math.log(d.hi) - math.log(d.lo))
    return (x - d.lo) / (d.hi - d.lo)


def _from_unit(d: Real, z: float) -> float:
    z = min(max(z, 0.0), 1.0)
    if d.log:
        x = math.exp(math.log(d.lo) + z * (math.log(d.hi) - math.log(d.lo)))
    else:
        x = d.lo + z * (d.hi - d.lo)
    return min(max(x, d.lo), d.hi)


def _dim_coverage(d, vals: list) -> dict:
    if not vals:
        return {"seen": 0, "bins": 0, "of": 0}
    if isinstance(d, Choice):
        seen = [o for o in d.options if any(_same(o, v) for v in vals)]
        return {"seen": [_short(o) for o in seen], "bins": len(seen), "of": len(d.options)}
    if isinstance(d, Integer) and d.hi - d.lo + 1 <= BINS:
        distinct = sorted(set(vals))
        return {"min": distinct[0], "max": distinct[-1], "bins": len(distinct), "of": d.hi - d.lo + 1}
    lo, hi = min(vals), max(vals)
    if isinstance(d, Real) and d.hi == d.lo:
        return {"min": lo, "max": hi, "bins": 1, "of": 1}
    if isinstance(d, Integer):
        unit = [(v - d.lo) / (d.hi - d.lo) for v in vals]
    else:
        unit = [_to_unit(d, float(v)) for v in vals]
    bins = {min(int(u * BINS), BINS - 1) for u in unit}
    return {"min": lo, "max": hi, "bins": len(bins), "of": BINS, "log": bool(getattr(d, "log", False))}


def _py(v: Any) -> str:
    if isinstance(v, float):
        return repr(float(v))
    return repr(v)


def _short(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def mix_seed(*parts: Any) -> int:
    """A 32-bit seed from any JSON-able parts (the hunt seed, the claim, the shard, the round)."""
    payload = json.dumps(parts, sort_keys=True, default=str).encode()
    return int.from_bytes(hashlib.sha256(payload).digest()[:4], "little")
