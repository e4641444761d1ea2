"""Helix's state in a shared PostgreSQL (psycopg 3): what several `helix serve` / `helix mcp
--http` replicas behind a load balancer read and write together.

- Connections come from one pool per process and database (`psycopg_pool`), borrowed for one
  read or one transaction and given back; every statement runs in autocommit unless inside
  `transaction()`, so no connection sits idle in a transaction.
- A session turn holds a session-level advisory lock (`turn_lock`) on a connection of its own
  from the first read of the session to its commit: two replicas given turns of one session at
  once run them one after the other, the second on the state the first committed. A replica
  killed mid-turn drops the lock with its connection; what it had committed stays.
- A process that writes pending runs holds a presence lock for as long as it lives (`owner`);
  a pending run whose owner's presence lock is gone was interrupted, whichever replica reads it.
- Migrations: `helix.store.pg_schema`, numbered per namespace in `_migrations`, applied under
  a transaction-level advisory lock (DDL is transactional: a step is whole or absent).

Errors: an unreachable server, a refused login or a pool that cannot hand out a connection in
`state.connect_timeout_s` is a one-line `StateDatabaseError`; the URL is shown without its
password.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from helix.core.errors import ConcurrentTurnError, StateDatabaseError
from helix.core.hashing import short_id
from helix.core.scale_settings import StateSettings
from helix.store.backend import Backend, Tx
from helix.store.db import Schema, one_line
from helix.store.pg_schema import PG_MIGRATIONS

# advisory lock classes (the first of the two int4 keys): what a lock is for
MIGRATE_CLASS = 0x48780001
TURN_CLASS = 0x48780002
PRESENCE_CLASS = 0x48780003
_KEY_MASK = 0x7FFFFFFF  # int4, non-negative: pg_locks shows the keys as oid
_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@")

_pools: dict[tuple[int, str], Any] = {}
_migrated: set[tuple[int, str, str]] = set()
_presence: dict[tuple[int, str], Any] = {}
_guard = threading.Lock()


def shown_url(url: str) -> str:
    """The URL as it may be shown: its password replaced."""
    shown = _PASSWORD.sub(r"\1***@", url)
    return re.sub(r"(password=)[^&\s]*", r"\1***", shown)


def lock_key(key: str) -> int:
    """A stable int4 key for an advisory lock (`helix.core.hashing`)."""
    return int(short_id("advisory-lock", key)[:8], 16) & _KEY_MASK


def pg_sql(sql: str) -> str:
    """The common dialect's SQL for psycopg: `?` placeholders become `%s`, a literal `%`
    is doubled. (Helix's SQL holds no `?` inside a string literal.)"""
    return sql.replace("%", "%%").replace("?", "%s")


def _unusable(url: str, exc: BaseException) -> StateDatabaseError:
    return StateDatabaseError(f"the state database {shown_url(url)} cannot be used: "
                              f"{shown_url(one_line(exc))}")


def _pool(settings: StateSettings) -> Any:
    """The process's pool for this database, opened on first use."""
    from psycopg_pool import ConnectionPool, PoolTimeout

    assert settings.database_url is not None
    url = settings.database_url
    key = (os.getpid(), url)
    with _guard:
        pool = _pools.get(key)
        if pool is not None:
            return pool
        wait_ms = round(settings.turn_lock_timeout_s * 1000)

        def configure(conn: Any) -> None:  # no lock (a turn's, a row's) is waited on forever
            conn.execute(f"SET lock_timeout = {int(wait_ms)}")

        pool = ConnectionPool(
            url, min_size=1, max_size=settings.pool_max, open=False, name="helix-state",
            timeout=settings.connect_timeout_s, configure=configure,
            kwargs={"autocommit": True, "application_name": "helix",
                    "connect_timeout": max(1, round(settings.connect_timeout_s))})
        try:
            pool.open(wait=True, timeout=settings.connect_timeout_s)
        except PoolTimeout as exc:
            pool.close()
            raise _unusable(url, _first_failure(url, settings) or exc) from None
        _pools[key] = pool
        atexit.register(pool.close)
        return pool


def _first_failure(url: str, settings: StateSettings) -> BaseException | None:
    """Why a connection cannot be made (the pool only says it timed out)."""
    import psycopg

    try:
        psycopg.connect(url, connect_timeout=max(1, round(settings.connect_timeout_s))).close()
    except psycopg.Error as exc:
        return exc
    return None


@contextlib.contextmanager
def _mapped(url: str) -> Iterator[None]:
    """Connection-level failures as one line; a query's own error as it is."""
    import psycopg
    from psycopg_pool import PoolTimeout

    try:
        yield
    except psycopg.errors.LockNotAvailable:
        raise
    except (psycopg.OperationalError, psycopg.InterfaceError, PoolTimeout) as exc:
        raise _unusable(url, exc) from None


class _PgTx:
    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.conn.execute(pg_sql(sql), tuple(params))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any:
        with self.conn.cursor() as cursor:
            cursor.executemany(pg_sql(sql), [tuple(r) for r in rows])
            return cursor


class PostgresBackend(Backend):
    kind = "postgres"

    def __init__(self, settings: StateSettings) -> None:
        import psycopg

        if settings.database_url is None:
            raise ValueError("no database URL")
        self.settings = settings
        self.url = settings.database_url
        self.integrity_errors = (psycopg.errors.UniqueViolation,)
        with _mapped(self.url):
            self.pool = _pool(settings)

    @contextlib.contextmanager
    def _conn(self) -> Iterator[Any]:
        with _mapped(self.url), self.pool.connection() as conn:
            yield conn

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._conn() as conn:
            return list(conn.execute(pg_sql(sql), tuple(params)).fetchall())

    def dict_rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self._conn() as conn:
            cursor = conn.execute(pg_sql(sql), tuple(params))
            names = [d.name for d in cursor.description or ()]
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def write(self, sql: str, params: Sequence[Any] = ()) -> int:
        with self._conn() as conn:  # autocommit: one statement is atomic on its own
            return int(conn.execute(pg_sql(sql), tuple(params)).rowcount)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Tx]:
        with self._conn() as conn, conn.transaction():
            yield _PgTx(conn)

    def ensure(self, schemas: Sequence[Schema]) -> None:
        pending = [s.namespace for s in schemas
                   if (os.getpid(), self.url, s.namespace) not in _migrated]
        if not pending:
            return
        with self._conn() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (MIGRATE_CLASS,))
            conn.execute("CREATE TABLE IF NOT EXISTS _migrations (namespace TEXT NOT NULL,"
                         " step INTEGER NOT NULL, PRIMARY KEY (namespace, step))")
            for namespace in pending:
                done = {row[0] for row in conn.execute(
                    "SELECT step FROM _migrations WHERE namespace = %s", (namespace,))}
                for number, script in enumerate(PG_MIGRATIONS[namespace], start=1):
                    if number not in done:
                        conn.execute(script)
                        conn.execute("INSERT INTO _migrations VALUES (%s, %s)",
                                     (namespace, number))
        _migrated.update((os.getpid(), self.url, name) for name in pending)

    @contextlib.contextmanager
    def turn_lock(self, key: str) -> Iterator[None]:
        import psycopg

        with self._conn() as conn:  # its lock_timeout: turn_lock_timeout_s (the pool's)
            try:
                conn.execute("SELECT pg_advisory_lock(%s, %s)", (TURN_CLASS, lock_key(key)))
            except psycopg.errors.LockNotAvailable:
                raise ConcurrentTurnError(
                    f"another turn of this session has been under way for over "
                    f"{self.settings.turn_lock_timeout_s:g} s; try again") from None
            try:
                yield
            finally:
                with contextlib.suppress(psycopg.Error):  # a broken connection dropped it
                    conn.execute("SELECT pg_advisory_unlock(%s, %s)",
                                 (TURN_CLASS, lock_key(key)))

    def owner(self) -> str:
        """This process's identity, its presence lock taken on first use (held on a
        connection of its own until the process ends)."""
        import psycopg

        identity = super().owner()
        key = (os.getpid(), self.url)
        with _guard:
            if key not in _presence:
                with _mapped(self.url):
                    conn = psycopg.connect(self.url, autocommit=True,
                                           application_name="helix-presence")
                    conn.execute("SELECT pg_advisory_lock(%s, %s)",
                                 (PRESENCE_CLASS, lock_key(identity)))
                _presence[key] = conn
        return identity

    def gone(self, owner: str) -> bool:
        """True when no live connection holds the owner's presence lock."""
        held = self.rows(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            " AND classid::bigint = ? AND objid::bigint = ? AND objsubid = 2",
            (PRESENCE_CLASS, lock_key(owner)))
        return not held[0][0]


def drop_process_state() -> None:
    """Close this process's pools and presence connections (tests; a server stopping)."""
    with _guard:
        pools, presence = list(_pools.values()), list(_presence.values())
        _pools.clear()
        _presence.clear()
        _migrated.clear()
    for pool in pools:
        pool.close()
    for conn in presence:
        conn.close()
