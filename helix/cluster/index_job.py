"""One repository's indexing: what a Ray task runs (or the serial loop, in this process).

    index_repository(job)   the source made a work tree (a path as it is; a git URL checked
                            out at its revision under the store root: `checkout`), the config
                            resolved as on a laptop (defaults < the store root's config.toml <
                            the repository's own < the settings the command passed), the index
                            built into `<store root>/indexes/...` (generations published
                            atomically, `indexers.store`), a large repository's parse stage
                            split into shard tasks (`indexers.shards`), then the repository's
                            summary read from the new index.

The store root is the HELIX_HOME of the indexing (set for the duration of the task): every
worker must see it at the same path (a shared file system), and the servers that answer from
these indexes use it as their HELIX_HOME too, so `helix ask --repo <work tree>` finds them.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import Field

from helix.cluster.repos_file import RepoSource
from helix.core.schemas import Frozen

# settings a command may pass to the tasks: what decides the index's content and how the work
# is split (never where state goes: that is the store root's config.toml)
PASSED_SECTIONS = ("index.", "retrieval.", "cluster.")


class RepoJob(Frozen):
    source: RepoSource
    store_root: str
    flags: dict[str, Any] = Field(default_factory=dict)
    on_cluster: bool = False  # a Ray task: shard tasks go to the cluster too
    force: bool = False


class RepoResult(Frozen):
    name: str
    group: str
    source: str
    rev: str
    root: str
    index_dir: str
    index_rev: str
    files: int
    chunks: int
    files_parsed: int
    shards: int
    seconds: float  # the task, checkout included
    cpu_s: float  # CPU seconds of the task's own process (shard tasks on a cluster apart)
    build_seconds: dict[str, float]
    node: str  # where it ran (host name)
    summary: dict[str, Any]


@contextlib.contextmanager
def helix_home(path: str) -> Iterator[None]:
    """HELIX_HOME set to the store root while the task runs (a Ray worker runs one task at a
    time; the previous value comes back after)."""
    old = os.environ.get("HELIX_HOME")
    os.environ["HELIX_HOME"] = path
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("HELIX_HOME", None)
        else:
            os.environ["HELIX_HOME"] = old


class ShardCounter:
    """The parse map the build is handed: shards to the cluster (or in turn here), counted."""

    def __init__(self, on_cluster: bool) -> None:
        self.on_cluster = on_cluster
        self.shards = 0

    def __call__(self, shards: list[list[Any]], settings: Any) -> list[list[Any]]:
        from helix.cluster.runtime import OnRay, Serial, connect, map_values

        self.shards += len(shards)
        runner = OnRay(connect("local")) if self.on_cluster else Serial()
        return map_values(runner, parse_shard_task, [(shard, settings) for shard in shards])


def parse_shard_task(item: tuple[list[Any], Any]) -> list[Any]:
    """One parse shard (a Ray task of its own on a cluster)."""
    from indexers.shards import parse_shard

    files, settings = item
    return parse_shard(files, settings)


def _work_tree(job: RepoJob) -> tuple[Path, str | None]:
    from helix.cluster.checkout import checkout
    from helix.core.config import resolve_config
    from helix.core.errors import BadPathError

    source = job.source
    if source.path is not None:
        root = Path(source.path)
        if not root.is_dir():
            raise BadPathError(f"{source.name}: not a directory: {source.path}")
        return root.resolve(), None
    assert source.git is not None
    timeout = resolve_config(None)[0].cluster.git_timeout_s
    return checkout(source.name, source.git, source.rev, Path(job.store_root), timeout)


def index_repository(job: RepoJob) -> RepoResult:
    """Index one repository into the store root (see the module docstring)."""
    from helix.cluster.summary import summarize
    from helix.core.config import load_config
    from helix.core.paths import index_dir_for, private_files
    from indexers.build import build_index, index_store
    from indexers.reader import Index

    started, cpu = time.perf_counter(), time.process_time()
    private_files()
    with helix_home(job.store_root):
        root, commit = _work_tree(job)
        config = load_config(root, flags=passed(job.flags))
        index_dir = index_dir_for(root)
        counter = ShardCounter(job.on_cluster)
        report = build_index(root, config, index_dir=index_dir, force=job.force,
                             parse_map=counter)
        index = Index.open(index_store(root, index_dir), root, config.index,
                           verified_rev=report.index_rev)
        summary = summarize(index, job.source.name, job.source.group, config.cluster)
    return RepoResult(
        name=job.source.name, group=job.source.group, source=job.source.source,
        rev=commit or report.repo_rev, root=str(root), index_dir=str(index_dir),
        index_rev=report.index_rev, files=report.files_indexed,
        chunks=int(report.chunks.get("total", 0)), files_parsed=report.files_parsed,
        shards=counter.shards, seconds=round(time.perf_counter() - started, 4),
        cpu_s=round(time.process_time() - cpu, 4),
        build_seconds=dict(report.seconds), node=socket.gethostname(), summary=summary)


def passed(flags: Mapping[str, Any]) -> dict[str, Any]:
    """The command's settings a task takes: index, retrieval and cluster ones only."""
    return {k: v for k, v in flags.items() if k.startswith(PASSED_SECTIONS) and v is not None}
