"""Many repositories indexed at once: each one a task (`index_job.index_repository`), on a Ray
cluster or in turn in this process, then the registry updated with what was built.

The report lists the repositories in the order they were given, whatever finished first; a
repository that failed is its own one-line error and the others go on. `wall_s` is the run's
wall time, `task_s` the sum of the repositories' own times: their ratio is the speed-up the
cluster gave over running the same tasks one after another.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from helix.cluster.index_job import RepoJob, RepoResult, index_repository
from helix.cluster.repos_file import RepoSource
from helix.cluster.runtime import executor
from helix.core.schemas import Frozen


class FleetReport(Frozen):
    executor: str  # "serial" or "ray"
    cluster: str | None
    store_root: str
    repos: tuple[RepoResult, ...]
    failed: dict[str, str]  # name -> why
    wall_s: float
    task_s: float
    speedup: float | None


def index_fleet(sources: Sequence[RepoSource], *, cluster: str | None, store_root: Path,
                flags: Mapping[str, Any] | None = None, force: bool = False,
                register: bool = True) -> FleetReport:
    """Index `sources` into `store_root` (see the module docstring)."""
    from helix.core.config import resolve_config

    timeout = resolve_config(None)[0].cluster.task_timeout_s
    store_root.mkdir(parents=True, exist_ok=True)
    runner = executor(cluster)
    jobs = [RepoJob(source=s, store_root=str(store_root), flags=dict(flags or {}),
                    on_cluster=cluster is not None, force=force) for s in sources]
    started = time.perf_counter()
    outcomes = runner.map(index_repository, jobs, timeout_s=timeout)
    wall = time.perf_counter() - started
    done = [o.value for o in outcomes if o.error is None]
    failed = {job.source.name: o.error for job, o in zip(jobs, outcomes, strict=True)
              if o.error is not None}
    if register and done:
        _register(done)
    task = sum(r.seconds for r in done)
    return FleetReport(executor=runner.name, cluster=cluster, store_root=str(store_root),
                       repos=tuple(done), failed=failed, wall_s=round(wall, 3),
                       task_s=round(task, 3),
                       speedup=round(task / wall, 3) if wall > 0 and done else None)


def _register(results: Sequence[RepoResult]) -> None:
    from helix.store.repos import Registry, RepoRow

    registry = Registry()
    try:
        now = time.time()
        for r in results:
            registry.put(RepoRow(name=r.name, group=r.group, source=r.source, rev=r.rev,
                                 root=r.root, index_dir=r.index_dir, index_rev=r.index_rev,
                                 summary=r.summary, updated=now))
    finally:
        registry.close()
