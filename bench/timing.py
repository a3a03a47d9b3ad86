"""Timing shared by the Python benchmarks."""

import time


def best_times(fns, nbytes):
    """Best seconds per call of each of `fns`, over a few batches of each sized
    to ~0.05 s, the functions' batches taken in turn: a change in the shared
    host's load between batches then touches every column of a row alike."""
    reps = []
    for fn in fns:
        fn()
        t0 = time.perf_counter()
        fn()
        one = max(time.perf_counter() - t0, 1e-7)
        reps.append(max(1, min(20000, int(0.05 / one))))
    batches = 5 if nbytes <= (16 << 20) else 3
    best = [float("inf")] * len(fns)
    for _ in range(batches):
        for k, (fn, r) in enumerate(zip(fns, reps)):
            t0 = time.perf_counter()
            for _ in range(r):
                fn()
            best[k] = min(best[k], (time.perf_counter() - t0) / r)
    return best
