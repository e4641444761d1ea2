"""The repository registry: the repositories an organisation's Helix indexes and serves, in
the state store (`helix.store.backend`: the SQLite file under $HELIX_HOME, or the shared
PostgreSQL every replica reads).

One row per repository name: its group, where it came from (a path, or a git URL and the
revision asked for), the commit or content revision indexed, its work tree and index directory
(under the shared store root), the index revision, and its summary (names, README headings,
top-level identifiers and their docs: what `--repos GROUP|all` ranks repositories by,
`helix.cluster.summary`). `helix index --repos-file` writes it; `helix ask --repos` and
`helix repos` read it. A row is replaced whole (upsert), in one statement.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import Field

from helix.core.errors import NotFoundError
from helix.core.hashing import canonical_json, hash_obj
from helix.core.schemas import Frozen
from helix.store.backend import Backend, State, as_backend, open_backend
from helix.store.db import Schema

NAMESPACE = "registry"
MIGRATIONS = (
    """
    CREATE TABLE repos (
        name TEXT PRIMARY KEY,
        grp TEXT NOT NULL,
        source TEXT NOT NULL,
        rev TEXT NOT NULL,
        root TEXT NOT NULL,
        index_dir TEXT NOT NULL,
        index_rev TEXT NOT NULL,
        summary_json TEXT NOT NULL,
        summary_hash TEXT NOT NULL,
        updated REAL NOT NULL
    );
    CREATE INDEX repos_by_group ON repos (grp, name)
    """,
)
COLUMNS = ("name", "grp", "source", "rev", "root", "index_dir", "index_rev", "summary_json",
           "summary_hash", "updated")
SCHEMA = Schema(NAMESPACE, MIGRATIONS, {"repos": COLUMNS})
ALL = "all"  # `--repos all`: every registered repository


class RepoRow(Frozen):
    name: str
    group: str
    source: str  # "path:<dir>" or "git:<url>@<rev asked>"
    rev: str  # the commit (git) or the content revision (a path) that was indexed
    root: str
    index_dir: str
    index_rev: str
    summary: dict[str, Any] = Field(default_factory=dict)
    updated: float = 0.0


def _row(values: dict[str, Any]) -> RepoRow:
    return RepoRow(name=values["name"], group=values["grp"], source=values["source"],
                   rev=values["rev"], root=values["root"], index_dir=values["index_dir"],
                   index_rev=values["index_rev"], summary=json.loads(values["summary_json"]),
                   updated=values["updated"])


class Registry:
    def __init__(self, db: State | None = None) -> None:
        self.backend: Backend = (open_backend([SCHEMA]) if db is None
                                 else as_backend(db, [SCHEMA]))
        self.backend.ensure([SCHEMA])

    def close(self) -> None:
        self.backend.close()

    def put(self, row: RepoRow) -> None:
        """Add the repository or replace its row."""
        names = ", ".join(COLUMNS)
        marks = ", ".join("?" for _ in COLUMNS)
        updates = ", ".join(f"{c} = excluded.{c}" for c in COLUMNS[1:])
        values = (row.name, row.group, row.source, row.rev, row.root, row.index_dir,
                  row.index_rev, canonical_json(row.summary), hash_obj(row.summary),
                  row.updated)
        self.backend.write(f"INSERT INTO repos ({names}) VALUES ({marks}) "
                           f"ON CONFLICT (name) DO UPDATE SET {updates}", values)

    def get(self, name: str) -> RepoRow:
        rows = self.backend.dict_rows(f"SELECT {', '.join(COLUMNS)} FROM repos WHERE name = ?",
                                      (name,))
        if not rows:
            raise NotFoundError(f"no repository named '{name}' in the registry "
                                "(`helix index --repos-file FILE` registers them)")
        return _row(rows[0])

    def rows(self, group: str | None = None) -> list[RepoRow]:
        """Every registered repository (of `group`; `all` or None: every one), by name."""
        sql = f"SELECT {', '.join(COLUMNS)} FROM repos"
        params: Sequence[Any] = ()
        if group not in (None, ALL):
            sql += " WHERE grp = ?"
            params = (group,)
        return [_row(values) for values in self.backend.dict_rows(sql + " ORDER BY name",
                                                                   params)]

    def groups(self) -> list[str]:
        return [str(r[0]) for r in self.backend.rows("SELECT DISTINCT grp FROM repos "
                                                     "ORDER BY grp")]
