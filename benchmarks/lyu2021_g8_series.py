"""Lemma G.8's (67) series read through App. G.3.2's display (lambda0+ = ||mu+||), on every positive lemG.8 fixture
of a run (issue 29): the old 3-point series r bhat+ in {1e-3, 1e-4, 1e-5} and the longer one down to 1e-25, with their
local slopes in r; the closed-form exponent 1 - Lambda/||mu+|| (Lambda >= max G on the sphere, lemG.8's cone_G_max);
and the check itself on the same fixture with the display's mutation set.

    PYTHONPATH=$PWD python benchmarks/lyu2021_g8_series.py RUN/records.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def local_slopes(X: np.ndarray, y: np.ndarray, al: float, bp: float, lam: float, rbs: np.ndarray) -> list[float]:
    """Local slopes in r of ||phi(r theta^, ln(1/r)/lam)||_M, theta^ = (bp mubar+, 0, bp, 0), at r bhat+ = ``rbs``."""
    from theorems.lyu2021.common import mu_pm, norm_M
    from theorems.lyu2021.dynamics import flow_ode

    mp = mu_pm(X, y, al)[0]
    Wh = np.zeros((2, X.shape[1]))
    Wh[0] = bp * mp / np.linalg.norm(mp)
    ah = np.array([bp, 0.0])
    sizes = []
    for rb in rbs:
        rr = rb / bp
        Ws, As = flow_ode(rr * Wh, rr * ah, X, y, al, [np.log(1 / rr) / lam], rtol=1e-11, atol=1e-16 * rr)
        sizes.append(float(norm_M(Ws[-1], As[-1])))
    return np.round(np.diff(np.log(sizes)) / np.diff(np.log(rbs)), 3).tolist()


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_file():
        print("usage: lyu2021_g8_series.py RUN/records.jsonl", file=sys.stderr)
        return 2
    from theorems.lyu2021 import appendix_g as ag
    from theorems.lyu2021.common import CONE_DISPLAY, mu_pm
    from verify.claims import REGISTRY, Fixture

    claim = REGISTRY["lyu2021.lemG.8"]
    for line in Path(argv[0]).read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r.get("claim") != "lyu2021.lemG.8" or r.get("fixture_kind") not in ("random", "adversarial"):
            continue
        q = r["evidence"]["quantities"]
        if "bbar" not in q:
            print(f"task {r['task_id']}: {r['verdict']} (no bbar recorded)")
            continue
        use = claim.fixtures[int(r["task_id"].split(".")[0])]
        data = use.family.build(np.random.default_rng(r["seed"]), **{**use.family.defaults, **use.params})
        X, y, al = data["X"], data["y"], data["alpha"]
        mp = mu_pm(X, y, al)[0]
        bp = float(np.linalg.norm(np.asarray(q["bbar"])[-1][data["abar"] > 0]))
        lam = float(np.linalg.norm(mp))
        fx = Fixture(use, r["seed"], r["profile"], data)
        fx._mutation = CONE_DISPLAY
        ev = claim.check(fx)
        print(f"task {r['task_id']} {r['label']}: {r['verdict']} as run; bhat+ = {bp:.4g}; closed-form exponent "
              f"1 - Lambda/||mu+|| = {1 - ag.cone_G_max(X, y, al) / lam:.4f}; under the display: {ev.outcome[0]}")
        for name, rbs in (("old series r bhat+ 1e-3, 1e-4, 1e-5", np.array([1e-3, 1e-4, 1e-5])),
                          ("new series r bhat+ 1e-3 .. 1e-25 (x 1e-2)", 10.0 ** (-3 - 2 * np.arange(12)))):
            print(f"   {name}, local slopes in r:", local_slopes(X, y, al, bp, lam, rbs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
