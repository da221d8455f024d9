"""A claim that reports the BLAS libraries its check runs with: thread count and kernel, as seen from
inside the process that runs the check (tests of the executors' thread settings)."""

from verify import Evidence, claim, family, negative, random


@family("blas.none")
def nothing(rng):
    return {"x": float(rng.normal())}


@claim("blas.settings", kind="lemma", statement="a check sees the run's BLAS settings",
       fixtures=[random(nothing), negative(nothing, mutation="no BLAS library expected")],
       cannot_fail="a test claim about the executors' BLAS settings: it has no hypothesis to break")
def settings(fx):
    import numpy as np
    import scipy.linalg  # noqa: F401  (SciPy's own BLAS library, loaded inside the task if not before)
    from threadpoolctl import threadpool_info

    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
    ev = Evidence()
    expect_blas = not fx.mutated("no BLAS library expected")
    ev.true("a BLAS library is loaded" if expect_blas else "no BLAS library is loaded", bool(blas) == expect_blas)
    ev.record(threads=sorted({i["num_threads"] for i in blas}),
              architectures=sorted({str(i.get("architecture")) for i in blas}),
              libraries=len(blas), dot=float(np.ones(3) @ np.ones(3)))
    return ev
