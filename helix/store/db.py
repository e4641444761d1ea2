"""One SQLite file under HELIX_HOME, opened the same way by every writer and reader.

WAL mode so readers never block on a writer; a busy timeout so two writers queue instead of
failing; named, ordered migrations per namespace so the run log and the session store can each
own their tables in the same file without sharing a version counter.

A run log that cannot be read never stops a command. A file SQLite rejects (random bytes,
truncated, "file is not a database", "database disk image is malformed") or that is not laid
out as Helix's (another program's tables, a table missing columns Helix needs) is moved aside to
`helix.sqlite.corrupt-<UTC time>` (with its -wal/-shm side files, so it can still be opened and
inspected), a one-line notice goes to stderr, and a fresh file is created. The verdict is taken
again under a lock file before anything moves, so a second process that recovered first is
never undone. Busy, read-only or full disks are not corruption: they are errors, and nothing
moves. Rows are checked by their readers (`helix.runlog.store`, `helix.session.store`): a TEXT
value that is not UTF-8 comes back as `UndecodableText`, so one bad row can be skipped instead
of stopping a whole read.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import sqlite_utils

from helix.core.errors import (
    BadPathError,
    HelixError,
    RunLogBusyError,
    RunLogDamagedError,
    RunLogUnwritableError,
)
from helix.core.notices import notify
from helix.core.paths import runlog_path

BUSY_TIMEOUT_MS = 10_000
RECOVERY_LOCK_TIMEOUT_S = 30.0
CORRUPT_INFIX = ".corrupt-"
SIDE_FILES = ("-wal", "-shm", "-journal")
# what a migration step fails with when the file holds someone else's tables
_SCHEMA_FAILURE = re.compile(r"already exists|no such (table|column)|has no column")


class UndecodableText(str):
    """A TEXT value that was not valid UTF-8 (held with replacement characters).

    A row holding one is unreadable; the marker lets readers skip that row, where the sqlite3
    default would raise on it and stop the whole query."""


class SchemaMismatch(sqlite3.DatabaseError):
    """The file is a SQLite database, but not laid out as Helix's run log."""


@dataclass(frozen=True)
class Schema:
    """A namespace's migrations and the columns its tables must have (checked after them)."""

    namespace: str
    steps: Sequence[str]
    tables: Mapping[str, Collection[str]] = field(default_factory=dict)


def notice(message: str) -> None:
    """One line on stderr: something was recovered or skipped, and the command goes on (made
    visible like every notice: a row id read from the database is untrusted text)."""
    notify(message)


def is_corruption(exc: BaseException) -> bool:
    """Not a database, a malformed image or a foreign layout; never busy, read-only or full."""
    return type(exc) is sqlite3.DatabaseError or isinstance(exc, SchemaMismatch)


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return UndecodableText(raw.decode("utf-8", errors="replace"))


def open_db(path: Path | None = None, *, schemas: Sequence[Schema] = ()) -> sqlite_utils.Database:
    """The run log database (default `$HELIX_HOME/helix.sqlite`), with `schemas` migrated.

    An unreadable file is moved aside and replaced (see the module doc). An unusable place
    (HELIX_HOME under a regular file, no permission) is a one-line UserError.
    """
    try:
        path = Path(path) if path is not None else runlog_path()
    except BadPathError as exc:  # a link in its place: never written through
        raise RunLogUnwritableError(str(exc)) from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunLogUnwritableError(f"cannot create {path.parent} for the run log "
                        f"({exc.strerror or exc}); set HELIX_HOME to a writable directory"
                        ) from None
    try:
        conn = _connect(path, schemas)
    except sqlite3.DatabaseError as exc:
        if not is_corruption(exc):
            raise _unusable(path, exc) from None
        conn = _recover(path, schemas)
    return sqlite_utils.Database(conn)


def ensure(db: sqlite_utils.Database, schemas: Sequence[Schema]) -> int:
    """Migrate `schemas` on an open database; a foreign or damaged file is moved aside and
    `db` is reconnected, in place, to a fresh one. Returns how many steps were applied."""
    try:
        return _apply(db.conn, schemas)
    except sqlite3.DatabaseError as exc:
        path = _file_of(db.conn)
        if path is None:  # in memory: nothing to move aside
            raise
        if not is_corruption(exc):
            raise _unusable(path, exc) from None
    with suppress(sqlite3.Error):
        db.conn.close()
    db.conn = _recover(path, schemas)
    return 0


def migrate(db: sqlite_utils.Database, namespace: str, steps: Sequence[str]) -> int:
    """Apply `steps` (SQL scripts) of `namespace` not applied yet, each in one transaction.

    Steps are identified by position: append new ones, never edit or reorder old ones.
    Returns how many were applied.
    """
    return ensure(db, [Schema(namespace, steps)])


def _connect(path: Path, schemas: Sequence[Schema]) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                               check_same_thread=False)
    except sqlite3.Error as exc:
        raise _unusable(path, exc) from None
    try:
        conn.text_factory = _decode
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        _check_layout(conn)  # before anything writes: a foreign file is moved aside unchanged
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        _apply(conn, schemas)
    except BaseException:
        conn.close()
        raise
    return conn


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {str(row[1]) for row in conn.execute(f'PRAGMA table_info("{table}")')}


def _check_layout(conn: sqlite3.Connection) -> None:
    """Reads the schema page (a garbled or truncated file fails here) and refuses a database
    that holds tables but none of Helix's bookkeeping."""
    tables = {str(row[0]) for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")} - {"sqlite_sequence"}
    if tables and "_migrations" not in tables:
        shown = ", ".join(sorted(tables)[:5])
        raise SchemaMismatch(f"not a Helix run log (tables: {shown})")
    if tables and not {"namespace", "step"} <= _columns(conn, "_migrations"):
        raise SchemaMismatch("not a Helix run log (_migrations has other columns)")


def _apply(conn: sqlite3.Connection, schemas: Sequence[Schema]) -> int:
    applied = 0
    for schema in schemas:
        applied += _migrate(conn, schema.namespace, schema.steps)
        for table, wanted in sorted(schema.tables.items()):
            have = _columns(conn, table)
            if not have:
                raise SchemaMismatch(f"table {table} is missing")
            missing = sorted(set(wanted) - have)
            if missing:
                more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
                raise SchemaMismatch(f"table {table} lacks {', '.join(missing[:3])}{more}")
    return applied


def _migrate(conn: sqlite3.Connection, namespace: str, steps: Sequence[str]) -> int:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (namespace TEXT NOT NULL, step INTEGER NOT NULL,"
        " PRIMARY KEY (namespace, step))"
    )
    done = {row[0] for row in conn.execute(
        "SELECT step FROM _migrations WHERE namespace = ?", (namespace,))}
    applied = 0
    for number, script in enumerate(steps, start=1):
        if number in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # re-check under the write lock: another process may have migrated meanwhile
            if conn.execute("SELECT 1 FROM _migrations WHERE namespace=? AND step=?",
                            (namespace, number)).fetchone():
                conn.execute("COMMIT")
                continue
            for statement in _split(script):
                try:
                    conn.execute(statement)
                except sqlite3.OperationalError as exc:
                    if _SCHEMA_FAILURE.search(str(exc)):
                        raise SchemaMismatch(f"{namespace} step {number}: {exc}") from None
                    raise
            conn.execute("INSERT INTO _migrations VALUES (?, ?)", (namespace, number))
            conn.execute("COMMIT")
            applied += 1
        except BaseException:
            if conn.in_transaction:
                with suppress(sqlite3.Error):  # keep the original error, not this one
                    conn.execute("ROLLBACK")
            raise
    return applied


def _split(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def _file_of(conn: sqlite3.Connection) -> Path | None:
    """The main database file of `conn` (None for an in-memory database)."""
    try:
        for _, name, filename in conn.execute("PRAGMA database_list"):
            if name == "main" and filename:
                return Path(filename)
    except sqlite3.Error:
        return None
    return None


def _unusable(path: Path, exc: BaseException) -> HelixError:
    if "locked" in str(exc) or "busy" in str(exc):
        return RunLogBusyError(f"the run log {path} is busy (another helix process is "
                               "writing it); try again")
    return RunLogUnwritableError(f"cannot open the run log {path}: {one_line(exc)}; set "
                                 "HELIX_HOME to a writable directory")


@contextmanager
def guarded(db: sqlite_utils.Database, schemas: Sequence[Schema]) -> Iterator[None]:
    """Around reads and writes of an open run log: damage found mid-command (a malformed page
    the opening check could not see) moves the file aside, reconnects `db` to a fresh one and
    ends the command in one line (exit 1); a lock held past the busy timeout is one line too."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        path = _file_of(db.conn)
        if path is None:
            raise
        if not is_corruption(exc):
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise _unusable(path, exc) from None
            raise
        with suppress(sqlite3.Error):
            db.conn.close()
        db.conn = _recover(path, schemas, deep=True)
        raise RunLogDamagedError(f"the run log {path} was damaged ({one_line(exc)}); it was "
                                 "moved aside and a new one started: run the command again"
                                 ) from None


def _healthy(conn: sqlite3.Connection) -> None:
    rows = conn.execute("PRAGMA quick_check").fetchall()
    if [tuple(row) for row in rows] != [("ok",)]:
        raise sqlite3.DatabaseError(f"quick_check: {rows[0][0] if rows else 'no answer'}")


def _recover(path: Path, schemas: Sequence[Schema], *, deep: bool = False) -> sqlite3.Connection:
    """Under the lock: look again (`deep`: every page), move the file aside if it is still
    unreadable, reconnect."""
    from indexers.locking import acquire

    release = acquire(path.with_name(path.name + ".lock"), RECOVERY_LOCK_TIMEOUT_S)
    if release is None:
        raise RunLogBusyError(f"the run log {path} is being recovered by another helix "
                              "process; try again")
    try:
        try:  # another process may have recovered it meanwhile
            conn = _connect(path, schemas)
            if deep:
                try:
                    _healthy(conn)
                except BaseException:
                    conn.close()
                    raise
            return conn
        except sqlite3.DatabaseError as exc:
            if not is_corruption(exc):
                raise _unusable(path, exc) from None
            target = _move_aside(path)
            notice(f"the run log {path} could not be read ({one_line(exc)}); moved it to "
                   f"{target.name} and started a new one")
        try:
            return _connect(path, schemas)
        except sqlite3.DatabaseError as exc:
            raise _unusable(path, exc) from None
    finally:
        release()


def _move_aside(path: Path) -> Path:
    """Rename the database and its side files to `<name>.corrupt-<UTC time>[-n]<suffix>`."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    base = f"{path.name}{CORRUPT_INFIX}{stamp}"
    target, number = path.with_name(base), 0
    while any(path.with_name(target.name + s).exists() for s in ("", *SIDE_FILES)):
        number += 1
        target = path.with_name(f"{base}-{number}")
    # side files first: a fresh database must never meet the old one's write-ahead log
    for suffix in SIDE_FILES:
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.replace(target.with_name(target.name + suffix))
    if path.exists():
        path.replace(target)
    return target
