"""Claims for the fault-injection tests (tests/test_fault_injection.py, issue 28): a check that waits at a
gate (a file the test creates), values JSON cannot store, ``SystemExit``, a check that swallows its time
limit, a NaN conclusion, an expected refutation and a very long id."""

import os
import threading
import time
from pathlib import Path

from verify import Evidence, claim, family, negative, random

# The test names a directory; a gated check announces itself there (a file named by its pid) and waits
# until the test creates ``open`` in it.
GATE = os.environ.get("VERIFY_TEST_GATE")
# x^2 >= 0 has no hypothesis to break: the mutation control shows the check can fail, no probe can.
HOLDS_EVERYWHERE = "a test claim: x^2 >= 0 holds for every real x (the mutation control checks the check)"


@family("hostile.scalar")
def scalar(rng, scale=1.0, gate=False):
    return {"x": float(rng.normal()) * scale, "gate": gate}


def _ok(fx):
    ev = Evidence()
    ev.ge("x^2", -fx["x"] ** 2 - 1 if fx.mutated() else fx["x"] ** 2, 0.0)
    return ev


def _wait_at_gate():
    gate = Path(GATE)
    (gate / f"started-{os.getpid()}").touch()
    deadline = time.monotonic() + 120  # a test that never opens the gate fails, it does not hang
    while not (gate / "open").exists() and time.monotonic() < deadline:
        time.sleep(0.01)


@claim("hostile.fast", kind="lemma", statement="$x^2 \\ge 0$", cannot_fail=HOLDS_EVERYWHERE,
       fixtures=[random(scalar, seeds=2), negative(scalar, mutation="flip")])
def fast(fx):
    return _ok(fx)


@claim("hostile.gated", kind="lemma", statement="$x^2 \\ge 0$, its second fixture waits at the gate",
       cannot_fail=HOLDS_EVERYWHERE,
       fixtures=[random(scalar, label="first"), random(scalar, label="gated", gate=True),
                 negative(scalar, mutation="flip")])
def gated(fx):
    if fx["gate"] and GATE:
        _wait_at_gate()
    return _ok(fx)


@claim("hostile.wrong", kind="lemma", statement="$x^2 \\le -1$", derived="a deliberately false statement",
       expected="refuted", expected_reason="$x^2$ is never negative", fixtures=[random(scalar)])
def wrong(fx):
    ev = Evidence()
    ev.le("x^2", fx["x"] ** 2, -1.0)
    return ev


@claim("hostile.unjson", kind="lemma", statement="records a lock", fixtures=[random(scalar)])
def unjson(fx):
    ev = _ok(fx)
    ev.record(handle=threading.Lock())
    return ev


@claim("hostile.sysexit", kind="lemma", statement="calls sys.exit", fixtures=[random(scalar)])
def sysexit(fx):
    raise SystemExit(3)


@claim("hostile.swallow", kind="lemma", statement="catches its time-limit signal", fixtures=[random(scalar)],
       timeout_s=0.3)
def swallow(fx):
    end = time.monotonic() + 1.5
    while time.monotonic() < end:
        try:
            time.sleep(0.02)
        except BaseException:  # noqa: BLE001 - the fault under test: a retry loop with a bare except
            pass
    return _ok(fx)


@claim("hostile.nan", kind="lemma", statement="compares against 0/0", fixtures=[random(scalar)])
def nan(fx):
    ev = Evidence()
    zero = fx["x"] - fx["x"]
    ev.le("ratio", float("nan") if zero == 0 else zero / zero, 1.0)
    return ev


LONG_ID = "hostile.long." + "x" * 292


@claim(LONG_ID, kind="lemma", statement="a claim with a 305-character id", cannot_fail=HOLDS_EVERYWHERE,
       fixtures=[random(scalar), negative(scalar, mutation="flip")])
def long_id(fx):
    return _ok(fx)
