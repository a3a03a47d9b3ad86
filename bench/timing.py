"""Timing shared by the Python benchmarks, and the host they ran on."""

import os
import platform
import time


def host():
    """The machine as /proc/cpuinfo names it, so that a table says where it
    was measured: "AMD EPYC, family 25 model 17, 2 CPUs, x86_64"."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                info.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    name = info.get("model name") or platform.processor() or platform.machine()
    family = f", family {info['cpu family']} model {info['model']}" if "cpu family" in info and "model" in info else ""
    return f"{name}{family}, {os.cpu_count()} CPUs, {platform.machine()}"


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
