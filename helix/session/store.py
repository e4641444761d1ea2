"""The session store: sessions, their turns and the continuity state after each turn.

Tables (namespace "sessions" in the run log database, `helix.store.db`):
    sessions(id, name UNIQUE, repo_root, created_at, updated_at, turn_count, state_json,
             state_hash)
    turns(session_id, turn_id, created_at, user_text, reply_to, lane, transition, intent,
          turn_json, state_json, state_hash)      PRIMARY KEY (session_id, turn_id)
and the continuity events (namespace "events", `helix.session.eventlog`).

A turn is written atomically: the turn row, its events and the session's new state commit in one
transaction, guarded by the expected turn count so two writers can never interleave a session.
A process killed mid-write leaves the previous turn as the last one, never half a turn. State is
stored as canonical JSON with its hash.

Every function takes the state store (`helix.store.backend`): the SQLite file under
$HELIX_HOME (a `sqlite_utils.Database`, as before) or a shared PostgreSQL, where `turn_lock`
also runs the turns of one session one after another across replicas.
"""

from __future__ import annotations

import contextlib
import unicodedata
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from controller.continuity.events import ContinuityEvent
from controller.continuity.state import ContinuityState, initial_state
from controller.continuity.turn import TurnResult
from helix.core.errors import (
    ConcurrentTurnError,
    NotFoundError,
    UnreadableSessionError,
    UserError,
)
from helix.core.hashing import canonical_json, hash_obj, short_id
from helix.core.schemas import Frozen
from helix.inputs import shown
from helix.session.eventlog import EVENT_MIGRATIONS, insert_events
from helix.store.backend import Backend, State, as_backend
from helix.store.db import Schema, UndecodableText, notice, one_line

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
SCHEMAS = (
    Schema("sessions", MIGRATIONS, {
        "sessions": ("id", "name", "repo_root", "created_at", "updated_at", "turn_count",
                     "state_json", "state_hash"),
        "turns": ("session_id", "turn_id", "created_at", "user_text", "reply_to", "lane",
                  "transition", "intent", "turn_json", "state_json", "state_hash")}),
    Schema("events", EVENT_MIGRATIONS, {
        "continuity_events": ("seq", "session_id", "turn_id", "name", "reason", "data_json")}),
)


class SessionRecord(Frozen):
    id: str
    name: str
    repo_root: str
    created_at: float
    updated_at: float
    turn_count: int
    state: ContinuityState


def ensure_schema(db: State) -> None:
    """Sessions, turns and continuity events; a damaged or foreign file is moved aside."""
    as_backend(db).ensure(SCHEMAS)


def _backend(db: State) -> Backend:
    return as_backend(db, SCHEMAS)


def _rows(db: State, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
    return _backend(db).rows(sql, params)


def turn_lock(db: State, name: str) -> contextlib.AbstractContextManager[None]:
    """Held around a whole turn of session `name` (a shared database: one turn of a session
    at a time across every replica; SQLite: the turn-count guard of `commit_turn` alone)."""
    return _backend(db).turn_lock(session_id_for(name))


def session_id_for(name: str) -> str:
    return "s-" + short_id("session", name)


def _printable(name: str) -> bool:
    # Cc: control characters (NUL, newline, escape ...); Cs: bytes that were not UTF-8
    return all(unicodedata.category(ch) not in ("Cc", "Cs") for ch in name)


def validate_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > SESSION_NAME_MAX or not _printable(name):
        raise UserError(f"bad session name {shown(name)} (1-{SESSION_NAME_MAX} printable "
                        "characters)")
    return name


def _why(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or exc.title
        return f"{where}: {first['msg']}"
    return one_line(exc)


def _bad_text(row: Sequence[Any]) -> bool:
    return any(isinstance(value, UndecodableText) for value in row)


def _record(row: Sequence[Any]) -> SessionRecord:
    sid, name, root, created, updated, count, state_json = row
    if _bad_text(row):
        raise ValueError("a text column is not valid UTF-8")
    return SessionRecord(id=sid, name=name, repo_root=root, created_at=created,
                         updated_at=updated, turn_count=count,
                         state=ContinuityState.model_validate_json(state_json or ""))


_SELECT = ("SELECT id, name, repo_root, created_at, updated_at, turn_count, state_json "
           "FROM sessions")


def get_session(db: State, name: str) -> SessionRecord | None:
    """The named session; None when there is none; UnreadableSessionError when its row is bad
    (`reset_session` still deletes it: `/new` in chat, or use another name)."""
    rows = _rows(db, f"{_SELECT} WHERE name = ?", (name,))
    if not rows:
        return None
    try:
        return _record(rows[0])
    except (ValidationError, ValueError, TypeError) as exc:
        raise UnreadableSessionError(
            f"session '{name}' cannot be read back from the run log ({_why(exc)}); use "
            "another --session name, or /new in `helix chat --session` to start it afresh"
        ) from None


def list_sessions(db: State) -> list[SessionRecord]:
    """Every readable session, most recent first; unreadable rows are skipped and counted."""
    out, bad = [], 0
    for row in _rows(db, f"{_SELECT} ORDER BY updated_at DESC, name"):
        try:
            out.append(_record(row))
        except (ValidationError, ValueError, TypeError):
            bad += 1
    if bad:
        notice(f"skipped {bad} unreadable session row(s) in the run log")
    return out


def open_session(db: State, name: str, repo_root: str, *,
                 now: float) -> SessionRecord:
    """The named session, created on first use. A name is bound to one repository."""
    name = validate_name(name)
    existing = get_session(db, name)
    if existing is not None:
        if existing.repo_root != repo_root:
            # never the other repository's path: a server's client may not know it exists
            raise UserError(f"session '{name}' belongs to another repository; "
                            "use another --session name")
        return existing
    sid = session_id_for(name)
    state = initial_state(sid)
    backend = _backend(db)
    with contextlib.suppress(*backend.integrity_errors):
        # IntegrityError: created by another process meanwhile
        backend.write(
            "INSERT INTO sessions VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
            (sid, name, repo_root, now, now, canonical_json(state), hash_obj(state)))
    record = get_session(db, name)
    assert record is not None
    return record


def reset_session(db: State, name: str) -> None:
    """Delete a session, its turns and its events (`/new` in chat reuses the name). Works on
    a session whose row cannot be read back: only its id is needed."""
    rows = _rows(db, "SELECT id FROM sessions WHERE name = ?", (name,))
    if not rows:
        return
    session_id = rows[0][0]
    with _backend(db).transaction() as tx:
        tx.execute("DELETE FROM continuity_events WHERE session_id = ?", (session_id,))
        tx.execute("DELETE FROM turns WHERE session_id = ?", (session_id,))
        tx.execute("DELETE FROM sessions WHERE id = ?", (session_id,))


def commit_turn(db: State, record: SessionRecord, result: TurnResult,
                state: ContinuityState, events: Sequence[ContinuityEvent]) -> None:
    """Write the turn, its events and the new state in one transaction."""
    if result.turn_id != record.turn_count + 1 or state.turn_count != result.turn_id:
        raise ValueError("turn id does not follow the session's turn count")
    state_json, state_hash = canonical_json(state), hash_obj(state)
    with _backend(db).transaction() as tx:
        # the guarded update first: it takes the session's row lock (PostgreSQL), so of two
        # writers of the same turn one updates and the other finds the count moved on
        moved = tx.execute(
            "UPDATE sessions SET turn_count = ?, updated_at = ?, state_json = ?,"
            " state_hash = ? WHERE id = ? AND turn_count = ?",
            (result.turn_id, result.created_at, state_json, state_hash, record.id,
             record.turn_count))
        if moved.rowcount != 1:
            raise ConcurrentTurnError(
                f"session '{record.name}' changed meanwhile (another helix wrote a turn); "
                "ask again")
        tx.execute(
            "INSERT INTO turns VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (record.id, result.turn_id, result.created_at, result.text, result.reply_to,
             result.lane, result.transition, result.intent, canonical_json(result),
             state_json, state_hash))
        insert_events(tx, events)


def _turn(raw: Any) -> TurnResult:
    if isinstance(raw, UndecodableText):
        raise ValueError("turn_json is not valid UTF-8")
    return TurnResult.model_validate_json(raw or "")


def load_turns(db: State, session_id: str) -> list[TurnResult]:
    """The session's turns in order; a turn row that cannot be read back is skipped and
    counted (one stderr line), never fatal: the session goes on with the turns it can read."""
    out, bad = [], 0
    for (raw,) in _rows(db, "SELECT turn_json FROM turns WHERE session_id = ? ORDER BY turn_id",
                        (session_id,)):
        try:
            out.append(_turn(raw))
        except (ValidationError, ValueError, TypeError):
            bad += 1
    if bad:
        notice(f"skipped {bad} unreadable turn row(s) of session {session_id} in the run log")
    return out


def _one(db: State, column: str, session_id: str, turn_id: int) -> Any:
    if not -(2**63) <= turn_id < 2**63:
        raise NotFoundError(f"no turn {turn_id} in this session")
    rows = _rows(db, f"SELECT {column} FROM turns WHERE session_id = ? AND turn_id = ?",
                 (session_id, turn_id))
    if not rows:
        raise NotFoundError(f"no turn {turn_id} in this session")
    return rows[0][0]


def load_turn(db: State, session_id: str, turn_id: int) -> TurnResult:
    try:
        return _turn(_one(db, "turn_json", session_id, turn_id))
    except (ValidationError, ValueError, TypeError) as exc:
        raise UnreadableSessionError(f"turn {turn_id} of this session cannot be read back "
                                     f"({_why(exc)})") from None


def state_after(db: State, session_id: str, turn_id: int) -> ContinuityState:
    raw = _one(db, "state_json", session_id, turn_id)
    try:
        if isinstance(raw, UndecodableText):
            raise ValueError("state_json is not valid UTF-8")
        return ContinuityState.model_validate_json(raw or "")
    except (ValidationError, ValueError, TypeError) as exc:
        raise UnreadableSessionError(f"the state after turn {turn_id} of this session cannot "
                                     f"be read back ({_why(exc)})") from None
