"""Compiling the kernels once, before the checks (verify.numerics.warmup): the table's format, the per-paper
selection, a cold compile that a second process loads from the cache, and the run record that says so."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from verify.numerics import _jit, warmup

ROOT = Path(__file__).resolve().parents[1]
needs_numba = pytest.mark.skipif(not _jit.ENABLED, reason="numba is switched off or missing")


@needs_numba
def test_argument_types_round_trip_through_text():
    from numba.core import types

    sig = (types.Array(types.float64, 2, "C"), types.Array(types.int64, 1, "A", readonly=True), types.int64,
           types.float64, types.boolean, types.UniTuple(types.float64, 3),
           types.Tuple((types.Array(types.float64, 1, "C"), types.int64)))
    text = warmup.signature_text(sig)
    assert text.startswith("(Array(float64, 2, 'C'), Array(int64, 1, 'A', readonly=True), int64, float64, boolean")
    assert warmup.parse_signature(text) == sig and warmup.parse_signature("()") == ()


def test_only_the_selected_papers_kernels_are_compiled():
    table = {"papers": {"p1": {"m:k": ["(int64)"], "m:j": ["(float64)"]}, "p2": {"m:k": ["(int64)", "(float64)"]}}}
    assert warmup.needed(["p1"], table) == {"m:k": ["(int64)"], "m:j": ["(float64)"]}
    assert warmup.needed(["p2", "p1"], table) == {"m:k": ["(int64)", "(float64)"], "m:j": ["(float64)"]}
    assert warmup.needed(["p3"], table) == {}
    w = warmup.prepare(["p3"], table=table)  # nothing to do: numba is not even asked
    assert (w.compiled, w.loaded, w.failed) == (0, 0, [])


@needs_numba
def test_the_committed_table_names_kernels_that_exist_with_types_that_parse():
    from verify.discovery import load_package

    load_package("theorems")
    kernels = warmup.dispatchers()
    table = warmup.load_table()
    assert set(table["papers"]) >= {"lyu2021", "phuong2021", "wang2022", "min2024"}
    for paper, entries in table["papers"].items():
        for name, sigs in entries.items():
            assert name in kernels, f"{paper}: {name} is no kernel (re-record: python -m verify.numerics.warmup --record)"
            for text in sigs:
                assert warmup.signature_text(warmup.parse_signature(text)) == text


@needs_numba
def test_a_cold_cache_compiles_once_and_the_next_process_loads(tmp_path):
    # One small kernel, compiled into an empty cache, then loaded from it by a second process.
    table = tmp_path / "table.json"
    table.write_text(json.dumps({"papers": {"p": {"verify.numerics._kernels:dot_into": [
        "(Array(float64, 2, 'C'), Array(float64, 2, 'C'), Array(float64, 2, 'C'))"]}}}))
    code = ("import json, sys; from pathlib import Path; from verify.numerics import warmup; "
            "w = warmup.prepare(['p'], stream=sys.stderr, table=warmup.load_table(Path(sys.argv[1]))); "
            "print(json.dumps(w.describe()))")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, "-c", code, str(table)], capture_output=True, text=True, env=env,
                           cwd=ROOT, timeout=300) for _ in range(2)]
    first, second = (json.loads(r.stdout.strip().splitlines()[-1]) for r in runs)
    assert (first["compiled"], first["loaded"], first["failed"]) == (1, 0, []), runs[0].stderr
    assert "compiling numerical kernels (first run only) ... done in" in runs[0].stderr
    assert (second["compiled"], second["loaded"]) == (0, 1) and "compiling" not in runs[1].stderr


def test_a_run_records_its_kernel_preparation_apart_from_the_checks(tmp_path):
    from verify.claims import REGISTRY
    from verify.discovery import load_file
    from verify.records import read_records
    from verify.runner import run

    load_file(ROOT / "examples" / "hunt_planted.py")
    out = run([REGISTRY["planted.perceptron_novikoff"]], profile="quick", out_dir=tmp_path, executor="inprocess",
              progress=False, report=False)
    rec = [r for r in read_records(out.records_path) if r["type"] == "run"][0]
    assert rec["kernels"] == {"loaded": 0, "compiled": 0, "failed": [], "wall_s": 0.0, "cpu_s": 0.0}
