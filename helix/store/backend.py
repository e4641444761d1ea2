"""The seam of Helix's state: sessions, continuity events, the run log and the repository
registry all go through one `Backend`, which is either embedded SQLite (the default: one file
under $HELIX_HOME, `helix.store.db`) or a shared PostgreSQL (`HELIX_DATABASE_URL`, or
`state.database_url` in $HELIX_HOME/config.toml: `helix.store.postgres`).

The stores write their SQL once, in the dialect both share: `?` placeholders (the PostgreSQL
backend turns them into `%s`), TEXT, INTEGER and REAL columns read alike. What differs is
behind this interface:

    rows / dict_rows   a read (SQLite: damage found mid-read moves the file aside, `guarded`)
    transaction()      one atomic write (SQLite: BEGIN IMMEDIATE, one writer at a time;
                       PostgreSQL: READ COMMITTED with the rows it updates locked)
    write(sql)         one statement, atomically (PostgreSQL: one round trip, no BEGIN)
    turn_lock(key)     held for a whole session turn. PostgreSQL: a session-level advisory
                       lock, so the turns of one session sent to several replicas run one after
                       another, each on the state the one before committed; a replica that dies
                       drops it with its connection. SQLite: none (one machine; the session's
                       turn-count guard refuses an interleaved write, as before)
    owner() / gone()   who is writing a pending run, and whether it has gone (SQLite: the
                       process on this machine, `helix.core.process`; PostgreSQL: a presence
                       lock each writing process holds, seen by every replica)
    ensure(schemas)    numbered migrations per namespace, each backend its own steps
    integrity_errors   what a violated unique key raises

`open_backend(schemas)` is the one place the choice is made.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, Protocol

import sqlite_utils

from helix.core import process
from helix.store.db import Schema, ensure, guarded, open_db


class Tx(Protocol):
    """A write transaction: SQL in the common dialect; `execute` returns a cursor
    (`rowcount`, `fetchone`, `fetchall`)."""

    def execute(self, sql: str, params: Any = ..., /) -> Any: ...

    def executemany(self, sql: str, rows: Any, /) -> Any: ...


class Backend(ABC):
    kind: ClassVar[str]
    integrity_errors: tuple[type[BaseException], ...] = ()

    @abstractmethod
    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """A read's rows as tuples."""

    @abstractmethod
    def dict_rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """A read's rows as {column: value}."""

    @abstractmethod
    def transaction(self) -> contextlib.AbstractContextManager[Tx]:
        """One atomic write: committed when the block ends, rolled back when it raises."""

    @abstractmethod
    def ensure(self, schemas: Sequence[Schema]) -> None:
        """Apply the namespaces' migrations not applied yet."""

    def write(self, sql: str, params: Sequence[Any] = ()) -> int:
        """One statement, atomically; the rows it changed."""
        with self.transaction() as tx:
            return int(tx.execute(sql, tuple(params)).rowcount)

    def turn_lock(self, key: str) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    def owner(self) -> str:
        return process.identity()

    def gone(self, owner: str) -> bool:
        return process.gone(owner)

    def close(self) -> None:
        return None


class SqliteBackend(Backend):
    """The embedded default: one SQLite file (WAL mode, busy timeout, damage moved aside)."""

    kind = "sqlite"

    def __init__(self, db: sqlite_utils.Database, schemas: Sequence[Schema] = ()) -> None:
        import sqlite3

        self.db = db
        self.schemas = list(schemas)
        self.integrity_errors = (sqlite3.IntegrityError,)

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with guarded(self.db, self.schemas):
            return self.db.conn.execute(sql, tuple(params)).fetchall()

    def dict_rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with guarded(self.db, self.schemas):
            cursor = self.db.conn.execute(sql, tuple(params))
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Tx]:
        with guarded(self.db, self.schemas):
            conn = self.db.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def ensure(self, schemas: Sequence[Schema]) -> None:
        ensure(self.db, schemas)
        self.schemas.extend(s for s in schemas if s not in self.schemas)

    def close(self) -> None:
        self.db.conn.close()


State = sqlite_utils.Database | Backend  # what the stores accept: a SQLite file as before too


def as_backend(db: State, schemas: Sequence[Schema] = ()) -> Backend:
    """`db` as a Backend (a `sqlite_utils.Database` is wrapped: the stores' callers that
    open the SQLite file themselves keep working unchanged)."""
    if isinstance(db, Backend):
        return db
    return SqliteBackend(db, schemas)


def database_url() -> str | None:
    """The shared database the user configured (`HELIX_DATABASE_URL`, or `state.database_url`
    in $HELIX_HOME/config.toml), None for the embedded SQLite file. Never a repository's."""
    from helix.core.config import resolve_config

    return resolve_config(None)[0].state.database_url


def open_backend(schemas: Sequence[Schema] = ()) -> Backend:
    """The state store the user configured, with `schemas` migrated: PostgreSQL when a
    database URL is set, else the SQLite file under $HELIX_HOME."""
    from helix.core.config import resolve_config

    state = resolve_config(None)[0].state
    if state.database_url is not None:
        from helix.store.postgres import PostgresBackend

        backend: Backend = PostgresBackend(state)
        backend.ensure(schemas)
        return backend
    return SqliteBackend(open_db(schemas=schemas), schemas)
