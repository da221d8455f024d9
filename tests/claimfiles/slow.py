"""Many small claims that each take a little while (for resume and SIGKILL tests)."""

import time

from verify import Evidence, claim, family, negative, random


@family("slow.scalar")
def scalar(rng, delay=0.2):
    return {"x": float(rng.normal()), "delay": delay}


def _make(i):
    @claim(f"slow.c{i:02d}", kind="lemma", statement=f"claim {i}: $x^2 \\ge 0$",
           fixtures=[random(scalar, seeds=2), negative(scalar, mutation="flip")],
           cannot_fail="a test claim: x^2 >= 0 holds for every real x (the mutation control checks the check)")
    def check(fx):
        time.sleep(fx["delay"])
        ev = Evidence()
        ev.ge("x^2", -fx["x"] ** 2 - 1 if fx.mutated() else fx["x"] ** 2, 0.0)
        return ev


for _i in range(10):
    _make(_i)
