"""Compiling the numerical kernels once, before the checks start.

numba compiles a kernel the first time it is called with a new combination of argument types, and
writes the machine code to its on-disk cache (:mod:`verify.numerics._jit`). Left to itself, that first
call happens inside a check: on a machine with an empty cache every worker process compiles the same
kernels at once (minutes of CPU on a small machine, with no message), and the compilation is counted
against the time limit of whichever claim happened to call first.

So a run compiles them up front, in its own process, before any worker starts: :func:`prepare` takes
the kernels and argument types the selected claims' papers are known to use (``kernel_signatures.json``
beside this file, recorded from the catalogue by ``python -m verify.numerics.warmup --record``), and
compiles each one (``Dispatcher.compile``: loaded from the on-disk cache when it is there, compiled and
written to it when not). Forked workers inherit the compiled code; workers that start fresh (Dask)
load it from the cache. A kernel called with types the file does not list still compiles where it is
called, as before, and correctly: the file decides only what is compiled early.

The signatures are kept per paper so that a run of one paper compiles only that paper's kernels.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

SIGNATURES = Path(__file__).with_name("kernel_signatures.json")
# The packages whose modules may declare kernels (searched for numba dispatchers when recording).
KERNEL_PACKAGES = ("verify.", "theorems.")


@dataclass
class Warmup:
    """What :func:`prepare` did: compiled functions (one per kernel and argument types, the kernels they
    call included) loaded from numba's cache or compiled, and the wall-clock and CPU seconds it took
    (this process's own CPU)."""

    loaded: int = 0
    compiled: int = 0
    failed: list = field(default_factory=list)
    wall_s: float = 0.0
    cpu_s: float = 0.0
    per_kernel: dict = field(default_factory=dict)  # name -> CPU seconds (with what it calls), compiled ones

    def describe(self) -> dict:
        return {"loaded": self.loaded, "compiled": self.compiled, "failed": self.failed,
                "wall_s": round(self.wall_s, 3), "cpu_s": round(self.cpu_s, 3)}


# ---------------------------------------------------------------------------------------------
# Argument types as text (the file's format) and back


def type_text(t) -> str:
    """A numba type as text that :func:`parse_type` reads back (``Array(float64, 2, 'C')``, ``int64``)."""
    from numba.core import types

    if isinstance(t, types.Array):
        ro = "" if t.mutable else ", readonly=True"
        return f"Array({type_text(t.dtype)}, {t.ndim}, {t.layout!r}{ro})"
    if isinstance(t, types.UniTuple):
        return f"UniTuple({type_text(t.dtype)}, {t.count})"
    if isinstance(t, types.Tuple):
        return "Tuple((" + "".join(type_text(x) + ", " for x in t.types) + "))"
    if isinstance(t, types.Boolean):
        return "boolean"
    if isinstance(t, types.NoneType):
        return "none"
    if isinstance(t, types.Literal):  # a constant passed by a compiled caller: compiled with the caller
        raise ValueError(f"{t} is a literal type: no Python call passes it")
    if isinstance(t, (types.Integer, types.Float, types.Complex)):
        return str(t)
    raise ValueError(f"no text form for the numba type {t!r}")


def parse_type(text: str):
    """The numba type :func:`type_text` wrote (evaluated with numba's type names only)."""
    from numba.core import types

    names = {k: v for k, v in vars(types).items() if not k.startswith("_")}
    return eval(text, {"__builtins__": {}}, names)  # noqa: S307 - the project's own file, numba names only


def signature_text(sig: tuple) -> str:
    return "(" + ", ".join(type_text(t) for t in sig) + ")"


def parse_signature(text: str) -> tuple:
    inner = text.strip()[1:-1]
    return tuple(parse_type(part) for part in _split_top(inner)) if inner.strip() else ()


def _split_top(s: str) -> list[str]:
    """``s`` split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(s):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(s[start:i].strip())
            start = i + 1
    if s[start:].strip():
        parts.append(s[start:].strip())
    return parts


# ---------------------------------------------------------------------------------------------
# The kernels of the loaded modules


def dispatchers() -> dict[str, object]:
    """Every compiled kernel declared in a loaded module of :data:`KERNEL_PACKAGES`, by
    ``module.qualname``; kernels that are only inlined into others (never called on their own) left out."""
    from . import _jit

    if not _jit.ENABLED:
        return {}
    from numba.core.registry import CPUDispatcher

    out = {}
    for modname, module in list(sys.modules.items()):
        if module is None or not modname.startswith(KERNEL_PACKAGES):
            continue
        for obj in list(vars(module).values()):
            if not isinstance(obj, CPUDispatcher) or obj.targetoptions.get("inline", "never") != "never":
                continue
            fn = obj.py_func
            if fn.__module__ == modname:
                out[f"{modname}:{fn.__qualname__}"] = obj
    return out


def used_signatures() -> dict[str, list[str]]:
    """The argument types each kernel of this process has been compiled (or loaded) for (but those with
    literal types, which only a compiled caller passes and its compilation covers)."""
    out = {}
    for name, d in sorted(dispatchers().items()):
        texts = []
        for sig in d.signatures:
            try:
                texts.append(signature_text(sig))
            except ValueError:
                continue
        if texts:
            out[name] = sorted(texts)
    return out


# ---------------------------------------------------------------------------------------------
# Compiling before the checks


def load_table(path: Path = SIGNATURES) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"papers": {}}


def needed(papers: Iterable[str], table: dict | None = None) -> dict[str, list[str]]:
    """The kernels and argument types the given papers use, by kernel, in the file's order."""
    table = load_table() if table is None else table
    out: dict[str, list[str]] = {}
    for paper in sorted(set(papers)):
        for name, sigs in table.get("papers", {}).get(paper, {}).items():
            have = out.setdefault(name, [])
            have += [s for s in sigs if s not in have]
    return out


def prepare(papers: Iterable[str], *, stream: TextIO | None = None, table: dict | None = None) -> Warmup:
    """Compile (or load from numba's cache) every kernel the given papers use, in this process; print
    one line on ``stream`` (none when there is nothing to compile). Never raises for a kernel that fails
    to compile: it is named in the result, and compiles (or fails) again where a check calls it."""
    result = Warmup()
    todo = needed(papers, table)
    if not todo:  # before importing numba: a run of claims without kernels pays nothing
        return result
    from . import _jit

    if not _jit.ENABLED:
        return result
    wall0, cpu0 = time.perf_counter(), time.process_time()
    before = _cache_counts()
    announced = False
    # numba's compiler allocates a great many short-lived objects; the collector's full passes would also walk
    # everything the run has loaded by then (the catalogue, cvxpy, scipy): what is alive now is set aside from
    # the collector while the kernels compile (gc.freeze), and handed back after
    gc.freeze()
    try:
        for name, sigs in todo.items():
            modname, qualname = name.split(":", 1)
            try:
                kernel = getattr(importlib.import_module(modname), qualname)
            except (ImportError, AttributeError) as exc:
                result.failed.append(f"{name}: {type(exc).__name__}: {exc}")
                continue
            for text in sigs:
                try:
                    sig = parse_signature(text)
                except Exception as exc:
                    result.failed.append(f"{name}{text}: {type(exc).__name__}: {exc}")
                    continue
                if sig in kernel.overloads:  # compiled already, with a kernel that calls it
                    continue
                misses = sum(kernel.stats.cache_misses.values())
                if stream is not None and not announced and not _cached(kernel, sig):
                    print("compiling numerical kernels (first run only) ...", end=" ", file=stream, flush=True)
                    announced = True
                t0 = time.process_time()
                try:
                    kernel.compile(sig)
                except Exception as exc:
                    result.failed.append(f"{name}{text}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
                    continue
                if sum(kernel.stats.cache_misses.values()) > misses:
                    result.per_kernel[f"{name}{text}"] = round(time.process_time() - t0, 3)
    finally:
        gc.unfreeze()
    after = _cache_counts()
    result.loaded, result.compiled = after[0] - before[0], after[1] - before[1]
    result.wall_s, result.cpu_s = time.perf_counter() - wall0, time.process_time() - cpu0
    if stream is not None and announced:
        print(f"done in {result.wall_s:.1f} s ({result.compiled} compiled, {result.loaded} from the cache)",
              file=stream, flush=True)
    if stream is not None and result.failed:
        print(f"verify: warning: {len(result.failed)} kernel(s) did not compile ahead of the checks "
              f"(they compile where called): {result.failed[0]}", file=stream, flush=True)
    return result


def _cache_counts() -> tuple[int, int]:
    """(loaded from numba's cache, compiled) so far, summed over every kernel of the loaded modules."""
    hits = misses = 0
    for d in dispatchers().values():
        hits += sum(d.stats.cache_hits.values())
        misses += sum(d.stats.cache_misses.values())
    return hits, misses


def _cached(kernel, sig: tuple) -> bool:
    """Whether numba's on-disk cache holds ``kernel`` for ``sig`` (so that loading it is no compilation)."""
    try:  # numba's private cache index (no public way to ask without loading the machine code)
        cache = kernel._cache
        return cache._index_key(sig, kernel.targetctx.codegen()) in cache._cache_file._load_index()
    except Exception:
        return False


# ---------------------------------------------------------------------------------------------
# Recording the table from the catalogue


_RECORD_ONE = """
import json, sys
from verify.cli import main
from verify.numerics import warmup
from verify.numerics.warmup import used_signatures
# nothing compiled ahead from the table being replaced: its entries would be recorded again, stale ones too
# (a kernel whose argument types changed kept its old ones, which still compile)
warmup.needed = lambda papers, table=None: {}
main(["run", sys.argv[1], "--profile", sys.argv[2], "--jobs", "1", "--executor", "inprocess", "--no-report",
      "--quiet", "--out", sys.argv[3]])
print(json.dumps(used_signatures()))
"""


def record(papers: Iterable[str], profile: str = "quick", path: Path = SIGNATURES) -> dict:
    """Run each paper's claims at ``profile`` in a process of its own (with an empty numba cache, and nothing
    compiled ahead from the table) and write the kernels and argument types each one used to ``path`` (a
    paper's entries replace its old ones; other papers' stay)."""
    table = load_table(path)
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    for paper in papers:
        with tempfile.TemporaryDirectory() as tmp:
            # an empty numba cache of its own: a kernel loaded from the cache does not compile the kernels it
            # calls, which would then be missing from the recording (it would depend on the cache's state)
            r = subprocess.run([sys.executable, "-c", _RECORD_ONE, paper, profile, tmp], capture_output=True,
                               text=True, env={**env, "NUMBA_CACHE_DIR": str(Path(tmp) / "numba")}, cwd=root)
        if r.returncode not in (0, 1):
            raise RuntimeError(f"recording {paper} failed (exit {r.returncode}): {r.stderr[-2000:]}")
        table.setdefault("papers", {})[paper] = json.loads(r.stdout.strip().splitlines()[-1])
    table["papers"] = dict(sorted(table["papers"].items()))
    table["recorded_with"] = {"profile": profile, "command": "python -m verify.numerics.warmup --record"}
    path.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    return table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m verify.numerics.warmup", description=__doc__.splitlines()[0])
    p.add_argument("papers", nargs="*", help="papers (default: every paper of the catalogue)")
    p.add_argument("--record", action="store_true", help="run each paper and record the kernels it uses")
    p.add_argument("--profile", default="quick", help="profile to record with (default quick)")
    args = p.parse_args(argv)
    from ..discovery import load_package

    load_package("theorems")
    from ..claims import REGISTRY

    papers = args.papers or REGISTRY.papers()
    if args.record:
        record(papers, args.profile)
    w = prepare(papers, stream=sys.stdout)
    print(json.dumps({**w.describe(), "per_kernel_cpu_s": w.per_kernel}, indent=1))
    return 0 if not w.failed else 1


if __name__ == "__main__":
    sys.exit(main())
