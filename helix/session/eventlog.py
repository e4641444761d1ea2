"""Continuity events in the run log database (namespace "events"), and reading them back."""

from __future__ import annotations

import json
from collections.abc import Sequence

from controller.continuity.events import ContinuityEvent
from helix.core.hashing import canonical_json
from helix.store.backend import State, Tx, as_backend
from helix.store.db import Schema, UndecodableText, notice

EVENT_MIGRATIONS = [
    """
    CREATE TABLE continuity_events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL,
        turn_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        lane TEXT,
        transition TEXT,
        timestamp INTEGER NOT NULL,
        loop_cycle_id TEXT,
        fingerprint_before TEXT,
        fingerprint_after TEXT,
        retry_attempt_index INTEGER NOT NULL,
        retry_budget_remaining INTEGER,
        active_option_set_id TEXT,
        active_scope TEXT,
        reason TEXT NOT NULL,
        data_json TEXT NOT NULL
    );
    CREATE INDEX continuity_events_by_session ON continuity_events(session_id, turn_id, seq);
    CREATE INDEX continuity_events_by_name ON continuity_events(name)
    """,
]

_COLUMNS = ("session_id", "turn_id", "name", "lane", "transition", "timestamp", "loop_cycle_id",
            "fingerprint_before", "fingerprint_after", "retry_attempt_index",
            "retry_budget_remaining", "active_option_set_id", "active_scope", "reason")


SCHEMA = Schema("events", EVENT_MIGRATIONS)


def migrate_events(db: State) -> None:
    as_backend(db).ensure([SCHEMA])


def insert_events(conn: Tx, events: Sequence[ContinuityEvent]) -> None:
    """Insert inside the caller's transaction (the turn's)."""
    placeholders = ", ".join("?" for _ in range(len(_COLUMNS) + 1))
    conn.executemany(
        f"INSERT INTO continuity_events ({', '.join(_COLUMNS)}, data_json) "
        f"VALUES ({placeholders})",
        [(*(getattr(e, c) for c in _COLUMNS), canonical_json(e.data)) for e in events])


def read_events(db: State, *, session_id: str | None = None,
                name: str | None = None, limit: int | None = None) -> list[ContinuityEvent]:
    """Events in write order (optionally one session's, one name's; the last `limit`)."""
    migrate_events(db)
    where, args = [], []
    if session_id is not None:
        where.append("session_id = ?")
        args.append(session_id)
    if name is not None:
        where.append("name = ?")
        args.append(name)
    sql = f"SELECT {', '.join(_COLUMNS)}, data_json FROM continuity_events"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY seq DESC"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    rows = as_backend(db, [SCHEMA]).rows(sql, args)
    out, bad = [], 0
    for row in reversed(rows):  # a row that cannot be read back is skipped and counted
        fields = dict(zip(_COLUMNS, row[:-1], strict=True))
        try:
            if any(isinstance(value, UndecodableText) for value in row):
                raise ValueError("a text column is not valid UTF-8")
            out.append(ContinuityEvent(**fields, data=json.loads(row[-1])))
        except (ValueError, TypeError):  # pydantic's ValidationError is a ValueError
            bad += 1
    if bad:
        notice(f"skipped {bad} unreadable event row(s) in the run log")
    return out
