"""Fuzzing the inputs a user can hand the engine: every malformed records file, baseline or claim
declaration must end in a UsageError naming what is wrong, never in another exception."""

import json

import numpy as np
import pytest

from verify import UsageError
from verify.claims import Registry, claim, family, hypothesis, negative, not_checkable, random
from verify.records import read_records, split
from verify.verdicts import aggregate

VALID = [
    {"type": "run", "run_id": "r", "profile": "quick", "seed": 0},
    {"type": "claim", "id": "p.a", "paper": "p", "kind": "lemma", "statement": "s", "checkable": True, "uses": []},
    {"type": "result", "claim": "p.a", "task_id": "0.0", "family": "f", "fixture_kind": "random", "verdict": "pass",
     "expected": ["pass"], "as_expected": True, "seed": 1},
    {"type": "end", "run_id": "r"},
]


def _mutate(text: str, rng: np.random.Generator) -> str:
    ops = rng.integers(0, 5, size=rng.integers(1, 4))
    chars = list(text)
    for op in ops:
        i = int(rng.integers(0, max(len(chars), 1)))
        if op == 0 and chars:  # delete a span
            del chars[i:i + int(rng.integers(1, 8))]
        elif op == 1:  # insert junk
            chars[i:i] = list(rng.choice(list('{}[]":,\n x0-e"'), size=int(rng.integers(1, 6))))
        elif op == 2 and chars:  # flip a character
            chars[i] = str(rng.choice(list('{}[]":,ab\x00')))
        elif op == 3:  # drop a line
            lines = "".join(chars).split("\n")
            del lines[int(rng.integers(0, len(lines)))]
            chars = list("\n".join(lines))
        else:  # swap two lines
            lines = "".join(chars).split("\n")
            a, b = rng.integers(0, len(lines), size=2)
            lines[a], lines[b] = lines[b], lines[a]
            chars = list("\n".join(lines))
    return "".join(chars)


def test_fuzzed_records_and_baselines(tmp_path):
    from verify.diff import diff_records

    rng = np.random.default_rng(2026)
    base = "\n".join(json.dumps(r) for r in VALID) + "\n"
    outcomes = {"read": 0, "usage_error": 0}
    for k in range(400):
        p = tmp_path / f"f{k}.jsonl"
        p.write_text(_mutate(base, rng), encoding="utf-8", errors="replace")
        try:
            recs = read_records(p)
        except UsageError as e:
            assert str(p) in str(e)
            outcomes["usage_error"] += 1
            continue
        outcomes["read"] += 1
        claims, results, _ = split(recs)
        aggregate(list(claims.values()), results)
        diff_records(recs, [json.loads(x) for x in base.splitlines()])
    assert outcomes["read"] > 0 and outcomes["usage_error"] > 0


@family("fuzz.f")
def _f(rng, d=2):
    return {"x": rng.normal(size=d)}


BAD_DECLARATIONS = [
    lambda reg: claim("", kind="lemma", statement="s", fixtures=[random(_f)], registry=reg),
    lambda reg: claim("has space", kind="lemma", statement="s", fixtures=[random(_f)], registry=reg),
    lambda reg: claim("p.x", kind="lemmma", statement="s", fixtures=[random(_f)], registry=reg),
    lambda reg: claim("p.x", kind="lemma", statement=None, fixtures=[random(_f)], registry=reg),
    lambda reg: claim("p.x", kind="lemma", statement="s", fixtures=["not a fixture"], registry=reg),
    lambda reg: claim("p.x", kind="lemma", statement="s", fixtures=[random(_f)], hypotheses=[len], registry=reg),
    lambda reg: claim("p.x", kind="lemma", statement="s", fixtures=[random(_f)], expected="wrong", registry=reg),
    lambda reg: claim("p.x", kind="lemma", statement="s", fixtures=[random(_f)], registry=reg)(42),
    lambda reg: random("not a family"),
    lambda reg: random(_f, nope=1),
    lambda reg: negative(_f, expect=["passed"]),
    lambda reg: random(_f, profiles=["fast"]),
    lambda reg: hypothesis("h", 3),
    lambda reg: not_checkable("p.y", kind="lemma", statement="s", reason="", registry=reg),
]


@pytest.mark.parametrize("declare", BAD_DECLARATIONS)
def test_bad_declarations_raise_usage_error(declare):
    with pytest.raises(UsageError):
        declare(Registry())
