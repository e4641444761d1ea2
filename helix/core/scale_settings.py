"""Settings of Helix run for an organisation: the shared state database (`state`) and the Ray
cluster's work (`cluster`). Yours only, like `server`: a repository's own config cannot set any
of it (`helix.core.config.REPO_SECTIONS`), so a repository never chooses where sessions and runs
are written nor how many tasks its indexing starts. Neither section is part of any hash: they
decide where state lives and how work is spread, never what an index holds or what an answer
says (a cluster-built index has the item hashes of a laptop-built one).
"""

from __future__ import annotations

from pydantic import Field, field_validator

from helix.core.schemas import FrozenSettings

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


class StateSettings(FrozenSettings):
    # None: sessions, events, runs and the repository registry in SQLite under $HELIX_HOME.
    # postgresql://user@host:port/db (HELIX_DATABASE_URL): in that PostgreSQL, shared by
    # every replica that names it. A password is better kept in ~/.pgpass than here.
    database_url: str | None = None
    # connections one process keeps to PostgreSQL at most (a server: one per request at once,
    # plus one per session turn under way, which holds the session's lock)
    pool_max: int = Field(default=16, ge=2, le=1024)
    # seconds to open a connection before the database counts as unreachable
    connect_timeout_s: float = Field(default=10.0, gt=0, le=600)
    # seconds a turn waits for another replica's turn of the same session to finish
    turn_lock_timeout_s: float = Field(default=300.0, gt=0, le=24 * 3600)

    @field_validator("database_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        if not value.startswith(POSTGRES_SCHEMES):
            raise ValueError("give a postgresql://user@host[:port]/database URL")
        return value.strip()


class ClusterSettings(FrozenSettings):
    # a repository with more files to parse than this splits its parse stage into shard
    # tasks by directory (`indexers.shards`); smaller ones are parsed by their own task
    shard_above_files: int = Field(default=3000, ge=1)
    # files in one parse shard at most (a directory with more is split by its subdirectories,
    # then by path order)
    shard_files: int = Field(default=1000, ge=1)
    # repositories a `--repos GROUP|all` question is retrieved in, the best by their summary
    repos_top: int = Field(default=3, ge=1, le=8)
    # what a repository's summary (the index `--repos` ranks repositories by) keeps at most
    summary_identifiers: int = Field(default=400, ge=1, le=100_000)
    summary_headings: int = Field(default=200, ge=1, le=100_000)
    summary_doc_chars: int = Field(default=160, ge=0, le=10_000)
    # seconds a repository task may run before the run counts it as failed
    task_timeout_s: float = Field(default=6 * 3600.0, gt=0)
    # questions of `helix eval qa|SUITES --cluster` one task answers (each task opens the
    # index once: fewer, longer tasks spend less of the cluster on opening it)
    cases_per_task: int = Field(default=4, ge=1, le=10_000)
    # seconds one git clone, fetch or checkout of a git source may take
    git_timeout_s: float = Field(default=1800.0, gt=0)
    # seconds to reach a Ray cluster's address (`--cluster HOST:PORT`) before it counts as
    # unreachable (Ray itself would keep retrying for minutes)
    connect_timeout_s: float = Field(default=10.0, gt=0, le=600)
