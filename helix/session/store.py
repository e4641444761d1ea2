"""The session store: sessions, their turns and the continuity state after each turn.

Tables (namespace "sessions" in the run log database, `helix.store.db`):
    sessions(id, name UNIQUE, repo_root, created_at, updated_at, turn_count, state_json,
             state_hash)
    turns(session_id, turn_id, created_at, user_text, reply_to, lane, transition, intent,
          turn_json, state_json, state_hash)      PRIMARY KEY (session_id, turn_id)
and the continuity events (namespace "events", `helix.session.eventlog`).

A turn is written atomically: the turn row, its events and the session's new state commit in one
`BEGIN IMMEDIATE` transaction, guarded by the expected turn count so two writers can never
interleave a session. A process killed mid-write leaves the previous turn as the last one
(SQLite's journal), never half a turn. State is stored as canonical JSON with its hash.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence

import sqlite_utils

from controller.continuity.events import ContinuityEvent
from controller.continuity.focus import TurnSummary
from controller.continuity.state import ContinuityState, initial_state
from helix.core.errors import NotFoundError, UserError
from helix.core.hashing import canonical_json, hash_obj, short_id
from helix.core.schemas import Frozen
from helix.session.eventlog import insert_events, migrate_events
from helix.session.turn import TurnResult
from helix.store.db import migrate

MIGRATIONS = [
    """
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        repo_root TEXT NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        turn_count INTEGER NOT NULL DEFAULT 0,
        state_json TEXT NOT NULL,
        state_hash TEXT NOT NULL
    );
    CREATE TABLE turns (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        turn_id INTEGER NOT NULL,
        created_at REAL NOT NULL,
        user_text TEXT NOT NULL,
        reply_to INTEGER,
        lane TEXT NOT NULL,
        transition TEXT NOT NULL,
        intent TEXT NOT NULL,
        turn_json TEXT NOT NULL,
        state_json TEXT NOT NULL,
        state_hash TEXT NOT NULL,
        PRIMARY KEY (session_id, turn_id)
    );
    CREATE INDEX turns_by_session ON turns(session_id, turn_id)
    """,
]

SESSION_NAME_MAX = 80


class SessionRecord(Frozen):
    id: str
    name: str
    repo_root: str
    created_at: float
    updated_at: float
    turn_count: int
    state: ContinuityState


class ConcurrentTurnError(UserError):
    """Another process wrote a turn of this session meanwhile."""


def ensure_schema(db: sqlite_utils.Database) -> None:
    migrate(db, "sessions", MIGRATIONS)
    migrate_events(db)


def session_id_for(name: str) -> str:
    return "s-" + short_id("session", name)


def validate_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > SESSION_NAME_MAX or any(ch in name for ch in "\n\r\t"):
        raise UserError(f"bad session name {name!r} (1-{SESSION_NAME_MAX} printable characters)")
    return name


def _record(row: sqlite3.Row | tuple) -> SessionRecord:
    sid, name, root, created, updated, count, state_json = row
    return SessionRecord(id=sid, name=name, repo_root=root, created_at=created,
                         updated_at=updated, turn_count=count,
                         state=ContinuityState.model_validate_json(state_json))


_SELECT = ("SELECT id, name, repo_root, created_at, updated_at, turn_count, state_json "
           "FROM sessions")


def get_session(db: sqlite_utils.Database, name: str) -> SessionRecord | None:
    row = db.conn.execute(f"{_SELECT} WHERE name = ?", (name,)).fetchone()
    return _record(row) if row else None


def list_sessions(db: sqlite_utils.Database) -> list[SessionRecord]:
    rows = db.conn.execute(f"{_SELECT} ORDER BY updated_at DESC, name").fetchall()
    return [_record(row) for row in rows]


def open_session(db: sqlite_utils.Database, name: str, repo_root: str, *,
                 now: float) -> SessionRecord:
    """The named session, created on first use. A name is bound to one repository."""
    name = validate_name(name)
    existing = get_session(db, name)
    if existing is not None:
        if existing.repo_root != repo_root:
            raise UserError(f"session '{name}' belongs to {existing.repo_root}, "
                            f"not {repo_root}; use another --session name")
        return existing
    sid = session_id_for(name)
    state = initial_state(sid)
    with contextlib.suppress(sqlite3.IntegrityError):  # created by another process meanwhile
        db.conn.execute(
            "INSERT INTO sessions VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
            (sid, name, repo_root, now, now, canonical_json(state), hash_obj(state)))
    record = get_session(db, name)
    assert record is not None
    return record


def reset_session(db: sqlite_utils.Database, name: str) -> None:
    """Delete a session, its turns and its events (`/new` in chat reuses the name)."""
    record = get_session(db, name)
    if record is None:
        return
    conn = db.conn
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("DELETE FROM continuity_events WHERE session_id = ?", (record.id,))
        conn.execute("DELETE FROM turns WHERE session_id = ?", (record.id,))
        conn.execute("DELETE FROM sessions WHERE id = ?", (record.id,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def commit_turn(db: sqlite_utils.Database, record: SessionRecord, result: TurnResult,
                state: ContinuityState, events: Sequence[ContinuityEvent]) -> None:
    """Write the turn, its events and the new state in one transaction."""
    if result.turn_id != record.turn_count + 1 or state.turn_count != result.turn_id:
        raise ValueError("turn id does not follow the session's turn count")
    state_json, state_hash = canonical_json(state), hash_obj(state)
    conn = db.conn
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute("SELECT turn_count FROM sessions WHERE id = ?",
                           (record.id,)).fetchone()
        if row is None or row[0] != record.turn_count:
            raise ConcurrentTurnError(
                f"session '{record.name}' changed meanwhile (another helix wrote a turn); "
                "ask again")
        conn.execute(
            "INSERT INTO turns VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (record.id, result.turn_id, result.created_at, result.text, result.reply_to,
             result.lane, result.transition, result.intent, canonical_json(result),
             state_json, state_hash))
        insert_events(conn, events)
        conn.execute(
            "UPDATE sessions SET turn_count = ?, updated_at = ?, state_json = ?, state_hash = ?"
            " WHERE id = ?",
            (result.turn_id, result.created_at, state_json, state_hash, record.id))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def load_turns(db: sqlite_utils.Database, session_id: str) -> list[TurnResult]:
    rows = db.conn.execute("SELECT turn_json FROM turns WHERE session_id = ? ORDER BY turn_id",
                           (session_id,)).fetchall()
    return [TurnResult.model_validate_json(row[0]) for row in rows]


def load_turn(db: sqlite_utils.Database, session_id: str, turn_id: int) -> TurnResult:
    row = db.conn.execute("SELECT turn_json FROM turns WHERE session_id = ? AND turn_id = ?",
                          (session_id, turn_id)).fetchone()
    if row is None:
        raise NotFoundError(f"no turn {turn_id} in this session")
    return TurnResult.model_validate_json(row[0])


def state_after(db: sqlite_utils.Database, session_id: str, turn_id: int) -> ContinuityState:
    row = db.conn.execute("SELECT state_json FROM turns WHERE session_id = ? AND turn_id = ?",
                          (session_id, turn_id)).fetchone()
    if row is None:
        raise NotFoundError(f"no turn {turn_id} in this session")
    return ContinuityState.model_validate_json(row[0])


def summaries(turns: Sequence[TurnResult]) -> list[TurnSummary]:
    """What focus resolution needs of each stored turn."""
    out = []
    for turn in turns:
        target = turn.opened.target if turn.opened else None
        out.append(TurnSummary(
            turn_id=turn.turn_id, user_text=turn.text, lane=turn.lane,
            transition=turn.transition, answer_excerpt=turn.answer[:200], object_ref=target,
            option_set_id=turn.shown.option_set_id if turn.shown else None))
    return out
