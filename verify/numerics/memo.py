"""Reuse of a pure computation's result within one process, keyed on the bit content of its arguments.

The printed and the amended claim of an erratum run the same check on the same fixtures (same seeds, so the
same data and the same draws from ``fx.rng``), and their expensive part (a training run, an accurate flow) is
then computed twice with identical inputs: lyu2021.thmA.10 and its amendment spent 12 of the warm quick
catalogue's ~110 s CPU on two copies of one set of runs. :func:`pure_memo` returns the stored result when every
argument is bit for bit the one of an earlier call, so the second claim gets exactly the numbers the first
computed (the same IEEE values it would have recomputed: the wrapped function must be deterministic, with no
randomness and no state outside its arguments). The pool runner sends the tasks of one seed to the worker that
ran that seed before (``verify.runner``), so the second call finds the first's result there too.

Keys are SHA-256 digests of the arguments' dtype, shape and bytes (numbers and strings by their ``repr``); an
argument of any other type (a callable, a loss object) makes the call uncached rather than guess its identity.
Results are deep-copied in and out: a caller that edits a returned array cannot change what the next caller
gets. Exceptions are not stored (the next call raises again by recomputing).
"""

from __future__ import annotations

import copy
import functools
import hashlib
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

__all__ = ["pure_memo"]

F = TypeVar("F", bound=Callable[..., Any])


class _Uncacheable(Exception):
    """An argument whose content cannot be keyed."""


def _feed(h: Any, x: Any) -> None:
    if isinstance(x, np.ndarray):
        if x.dtype == object:
            raise _Uncacheable
        h.update(b"A" + str(x.dtype).encode() + repr(x.shape).encode())
        h.update(np.ascontiguousarray(x).tobytes())
    elif isinstance(x, (bool, int, float, complex, str, np.generic)) or x is None:
        # repr keeps the type apart (1 vs 1.0 vs True vs np.float64(1.0)) and floats exactly (shortest round trip)
        h.update(b"S" + type(x).__name__.encode() + b":" + repr(x).encode())
    elif isinstance(x, (list, tuple)):
        h.update(b"L" if isinstance(x, list) else b"T")
        h.update(str(len(x)).encode())
        for v in x:
            _feed(h, v)
        h.update(b")")
    else:
        raise _Uncacheable


def _key(args: tuple, kwargs: dict) -> bytes:
    h = hashlib.sha256()
    _feed(h, args)
    for k in sorted(kwargs):
        h.update(b"K" + k.encode())
        _feed(h, kwargs[k])
    return h.digest()


def pure_memo(maxsize: int = 16) -> Callable[[F], F]:
    """Decorator: store the last ``maxsize`` results of a deterministic function by argument content.

    ``wrapped.cache_info()`` gives ``(hits, misses, uncached)``; ``wrapped.cache_clear()`` empties it."""
    if maxsize < 1:
        raise ValueError("pure_memo: maxsize must be at least 1")

    def deco(fn: F) -> F:
        store: OrderedDict[bytes, Any] = OrderedDict()
        stats = {"hits": 0, "misses": 0, "uncached": 0}

        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            try:
                key = _key(args, kwargs)
            except _Uncacheable:
                stats["uncached"] += 1
                return fn(*args, **kwargs)
            if key in store:
                stats["hits"] += 1
                store.move_to_end(key)
                return copy.deepcopy(store[key])
            stats["misses"] += 1
            out = fn(*args, **kwargs)
            store[key] = copy.deepcopy(out)
            if len(store) > maxsize:
                store.popitem(last=False)
            return out

        wrapped.cache_info = lambda: (stats["hits"], stats["misses"], stats["uncached"])  # type: ignore[attr-defined]

        def cache_clear() -> None:
            store.clear()
            stats.update(hits=0, misses=0, uncached=0)

        wrapped.cache_clear = cache_clear  # type: ignore[attr-defined]
        return wrapped  # type: ignore[return-value]

    return deco
