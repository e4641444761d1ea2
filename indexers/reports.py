"""What a build and a status check report (`helix index --json`, `helix status --json`).

Pure data: the builder (`indexers.build`) fills them; the CLI prints them; each generation's
manifest keeps the BuildReport that made it (`kept_report` reuses it for a generation used as
it is).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from helix.core.schemas import Frozen


class BuildReport(Frozen):
    root: str
    index_dir: str
    files_seen: int
    files_indexed: int
    files_skipped: dict[str, int]
    changed_files: tuple[str, ...]
    added: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    files_parsed: int  # files parsed in this run (the rest came from the cache)
    chunks: dict[str, int]  # by kind, plus "total"
    symbols: dict[str, int]  # defs, refs
    graph_nodes: int
    graph_edges: dict[str, int]  # by kind, plus "total"
    repo_rev: str
    index_rev: str
    seconds: dict[str, float]
    noop: bool
    refreshed: bool
    built_whole: bool = False  # no earlier index was reused: the first build (or a rebuild)
    rebuild_reason: str | None = None  # why the previous index was not reused
    embeddings: dict[str, int]  # cached, computed, total
    graph_updated: bool = False  # the previous graph was updated, not rebuilt
    tokens: dict[str, int]  # cached, computed
    warnings: tuple[str, ...] = ()
    # the secret scan of the files read (`indexers.secret_scan`): masked (false: the user
    # turned it off), scanned (distinct contents; scanned_by_workers of them by the worker
    # processes), cached (files whose findings came from an earlier build), workers started,
    # seconds the build spent scanning or waiting for workers
    secret_scan: dict[str, Any] = Field(default_factory=dict)
    # another process held the writer lock: the current generation was used as it was, not
    # refreshed (it may not reflect the latest files)
    stale: bool = False
    # the generation's vectors: {"vectors", "total", "complete"} (None: embeddings off)
    dense_state: dict[str, Any] | None = None
    # what reading the definitions' history did (`indexers.history`), when it is on
    history: dict[str, Any] | None = None
    # the background dense worker embedding the rest, while vectors are missing
    worker_pid: int | None = None


class StatusReport(Frozen):
    root: str
    index_dir: str
    exists: bool
    fresh: bool
    problem: str | None = None
    changed_files: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    built_repo_rev: str | None = None
    current_repo_rev: str
    index_rev: str | None = None
    built_at: float | None = None
    files_indexed: int = 0
    size_bytes: int = 0
    dense_state: dict[str, Any] | None = None  # {"vectors", "total", "complete"}
    # the dense worker (`indexers.dense_worker.status`): running, pid, vectors, total,
    # rate, eta_s, status, error, paused
    worker: dict[str, Any] | None = None


def kept_report(built: dict[str, Any], root: Path, directory: Path, **update: Any
                ) -> BuildReport:
    """The report of a generation used as it is (a no-op, or a reader's stale use), naming
    the root and the index directory it is used for, not those it was built in (a moved
    checkout, an index directory copied or moved: the generation holds no absolute path)."""
    kept = dict(built, root=str(root), index_dir=str(directory))
    kept.update(noop=False, refreshed=False, built_whole=False, changed_files=(), added=(),
                modified=(), removed=(), files_parsed=0, rebuild_reason=None,
                embeddings={"cached": 0, "computed": 0,
                            "total": kept.get("embeddings", {}).get("total", 0)},
                tokens={"cached": 0, "computed": 0}, warnings=(), secret_scan={})
    kept.update(update)
    return BuildReport.model_validate(kept)
