"""What Ray itself costs a benchmark that fans work out over it (cluster_index_bench,
corpus_cluster_bench), measured in the same run as the work.

    local_ray(tasks, warm)  start (or join) the local Ray runtime: (ray, seconds it took,
                            empty_task_ms(ray, tasks, warm))
    empty_task_ms(ray, tasks, warm)
                            the wall milliseconds per task of `tasks` tasks that do nothing,
                            after `warm` such tasks have brought the workers up

A script run as `python benchmarks/NAME.py` imports this as `_ray` (its folder is first on
sys.path); Ray and Helix are imported only when called.
"""

from __future__ import annotations

import time
from typing import Any


def empty_task_ms(ray: Any, tasks: int, warm: int) -> float:
    """Milliseconds of wall time per empty task, `tasks` of them at once, after `warm`."""
    @ray.remote(num_cpus=1)
    def empty(x: int) -> int:
        return x

    ray.get([empty.remote(i) for i in range(warm)])  # workers up
    started = time.perf_counter()
    ray.get([empty.remote(i) for i in range(tasks)])
    return (time.perf_counter() - started) / tasks * 1000.0


def local_ray(tasks: int, warm: int) -> tuple[Any, float, float]:
    """(the ray module connected locally, seconds connecting took, empty_task_ms)."""
    from helix.cluster.runtime import connect

    started = time.perf_counter()
    ray = connect("local")
    startup = time.perf_counter() - started
    return ray, startup, empty_task_ms(ray, tasks, warm)
