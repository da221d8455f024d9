"""verify.numerics.memo: results reused only for bit-identical arguments, never shared mutably; the pool
runs an erratum's printed and amended tasks of one fixture, and those of a claim declared with their seed key, in
one worker, so the later ones reuse the first's computation with the same values."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from verify.numerics.memo import pure_memo

ROOT = Path(__file__).resolve().parents[1]


def _counted():
    calls = []

    @pure_memo(maxsize=2)
    def f(x, *, scale=1.0):
        calls.append(1)
        return {"y": np.asarray(x, dtype=float) * scale}

    return f, calls


def test_same_bits_reuse_and_any_difference_recomputes():
    f, calls = _counted()
    x = np.array([1.0, 2.0, 3.0])
    f(x)
    f(x.copy())
    assert len(calls) == 1 and f.cache_info() == (1, 1, 0)
    f(x + 1e-16 * x)  # a different last bit of one element is another argument
    f(x.astype(np.float32))  # same values, another dtype
    f(x.reshape(3, 1))  # same bytes, another shape
    f(x, scale=1)  # 1 (int) is not 1.0 (float): the key keeps types apart
    f(np.array([0.0]), scale=-0.0)
    f(np.array([0.0]), scale=0.0)
    assert len(calls) == 7


def test_results_are_copies_and_the_oldest_entry_goes_first():
    f, calls = _counted()
    a = f(np.ones(2))
    a["y"][0] = 99.0  # the caller's edit does not reach the stored result
    assert f(np.ones(2))["y"][0] == 1.0
    f(np.zeros(2))
    f(np.full(2, 2.0))  # maxsize 2: the least recently used (ones) is dropped
    n = len(calls)
    f(np.ones(2))
    assert len(calls) == n + 1


def test_uncacheable_arguments_and_exceptions_are_not_stored():
    calls = []

    @pure_memo()
    def g(x, fn=None):
        calls.append(1)
        if x < 0:
            raise ValueError("negative")
        return x

    g(1, fn=len)
    g(1, fn=len)  # a callable cannot be keyed by content: computed every time
    assert len(calls) == 2 and g.cache_info() == (0, 0, 2)
    for _ in range(2):
        with pytest.raises(ValueError):
            g(-1)
    assert len(calls) == 4
    with pytest.raises(ValueError):
        pure_memo(0)


def _run_shared_fixture(out, *options: str) -> list[dict]:
    """The records of a quick run of tests/claimfiles/shared_fixture.py."""
    r = subprocess.run([sys.executable, "-m", "verify", "--no-builtin", "run",
                        str(ROOT / "tests" / "claimfiles" / "shared_fixture.py"), "--out", str(out),
                        "--profile", "quick", "--quiet", "--no-report", *options],
                       env={**__import__("os").environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                       timeout=240)
    # (the exit status is not the point here: the toy amended claim declares no fidelity, so its summary line
    # is 'not as expected'; the records are)
    assert r.returncode in (0, 1), r.stderr
    return [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]


def test_pool_runs_an_erratums_two_claims_on_one_fixture_in_one_worker(tmp_path):
    recs = _run_shared_fixture(tmp_path, "--jobs", "2")
    res = {(x["claim"], x["seed"]): x for x in recs if x["type"] == "result" and x["fixture_kind"] == "random"}
    seeds = {s for c, s in res if c == "shared.norm"}
    assert len(seeds) == 6
    for s in seeds:
        printed, amended = res[("shared.norm", s)], res[("shared.norm.amended", s)]
        reading = res[("shared.norm.reading", s)]  # declared with seed_key="shared.norm": the same seeds
        assert (printed["verdict"], amended["verdict"], reading["verdict"]) == ("refuted", "pass", "pass")
        p, a, d = (x["evidence"]["quantities"] for x in (printed, amended, reading))
        assert a["pid"] == d["pid"] == p["pid"] and a["reused"] is d["reused"] is True and p["reused"] is False
        assert a["value"] == d["value"] == p["value"]


def test_in_process_runs_the_tasks_of_one_fixture_one_after_another(tmp_path):
    # in the order planned, all of shared.norm's tasks come before its amended claim's and the reading's: a memo of
    # a few entries would have lost the first by then (min2024.exp.fig5's readings recomputed its GD runs)
    recs = _run_shared_fixture(tmp_path, "--executor", "inprocess")
    order = [(x["claim"], x["seed"], x["fixture_kind"], x["mutation"]) for x in recs if x["type"] == "result"]
    assert len(order) == len(set(order)) == 3 * 7  # three claims, 6 random seeds and a negative each
    firsts: list = []
    for claim_id, seed, kind, mutation in order:
        key = (seed, kind, mutation)
        if key not in firsts:
            firsts.append(key)
        else:  # a later task on a fixture follows the earlier ones at once
            assert firsts[-1] == key, (claim_id, key)
    assert order[0][0] == "shared.norm" and order[1][0] == "shared.norm.amended"
