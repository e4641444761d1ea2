"""One SQLite file under HELIX_HOME, opened the same way by every writer and reader.

WAL mode so readers never block on a writer; a busy timeout so two writers queue instead of
failing; named, ordered migrations per namespace so the run log and the session store can each
own their tables in the same file without sharing a version counter.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import sqlite_utils

from helix.core.paths import runlog_path

BUSY_TIMEOUT_MS = 10_000


def open_db(path: Path | None = None) -> sqlite_utils.Database:
    path = path or runlog_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                           check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    return sqlite_utils.Database(conn)


def migrate(db: sqlite_utils.Database, namespace: str, steps: Sequence[str]) -> int:
    """Apply `steps` (SQL scripts) of `namespace` not applied yet, each in one transaction.

    Steps are identified by position: append new ones, never edit or reorder old ones.
    Returns how many were applied.
    """
    conn = db.conn
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
                conn.execute(statement)
            conn.execute("INSERT INTO _migrations VALUES (?, ?)", (namespace, number))
            conn.execute("COMMIT")
            applied += 1
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return applied


def _split(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]
