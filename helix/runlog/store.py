"""The run log: one row per `helix ask` (dry or not) in the shared SQLite file under HELIX_HOME.

A run is written in two steps so a crash in the LLM call loses nothing:
    `start`        question, repository, revisions, config hash and the controller's envelope,
                   status "pending" (committed before any model is called)
    `set_prompt`   the exact prompt messages, still "pending" (committed before the call)
    `finish`       the answered envelope, mode, reason, model, tokens, timings: status "done"
                   (or "fallback"); `fail` records an error that ended the run ("error")
WAL mode (see `helix.store.db`) lets `helix log` read while another process writes.
Session turns (engineer F's store) point at runs through `session_id` + `turn_number`.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any, Literal

import sqlite_utils

from helix.core.envelope import Envelope
from helix.core.errors import NotFoundError
from helix.core.hashing import canonical_json, short_id
from helix.core.schemas import Frozen
from helix.store.db import migrate, open_db

NAMESPACE = "runlog"
MIN_PREFIX = 4  # shortest run-id prefix `helix show` accepts
RunStatus = Literal["pending", "done", "fallback", "error"]

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        created REAL NOT NULL,
        updated REAL NOT NULL,
        status TEXT NOT NULL,
        question TEXT NOT NULL,
        repo_root TEXT NOT NULL,
        repo_rev TEXT NOT NULL,
        config_hash TEXT NOT NULL,
        index_rev TEXT NOT NULL,
        dry_run INTEGER NOT NULL,
        envelope_json TEXT NOT NULL,
        prompt_json TEXT,
        prompt_hash TEXT,
        answer TEXT,
        answer_mode TEXT,
        fallback_reason TEXT,
        model TEXT,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        llm_steps INTEGER NOT NULL DEFAULT 0,
        timings_json TEXT NOT NULL DEFAULT '{}',
        redactions_json TEXT NOT NULL DEFAULT '{}',
        error TEXT,
        session_id TEXT,
        turn_number INTEGER
    );
    CREATE INDEX runs_created ON runs (created, id);
    CREATE INDEX runs_session ON runs (session_id, turn_number)
    """,
)


class RunSummary(Frozen):
    id: str
    created: float
    status: str
    question: str
    answer_mode: str | None
    fallback_reason: str | None
    model: str | None
    session_id: str | None = None
    turn_number: int | None = None


class RunRecord(Frozen):
    id: str
    created: float
    updated: float
    status: str
    question: str
    repo_root: str
    repo_rev: str
    config_hash: str
    index_rev: str
    dry_run: bool
    envelope: Envelope
    prompt: tuple[dict[str, str], ...] | None
    prompt_hash: str | None
    answer: str | None
    answer_mode: str | None
    fallback_reason: str | None
    model: str | None
    prompt_tokens: int
    completion_tokens: int
    attempts: int
    llm_steps: int
    timings_ms: dict[str, float]
    redactions: dict[str, int]
    error: str | None
    session_id: str | None
    turn_number: int | None


def new_run_id(question: str, created: float) -> str:
    """Unique per run (a random salt), short enough to type."""
    return short_id(question, created, secrets.token_hex(8), length=12)


class RunLog:
    def __init__(self, db: sqlite_utils.Database | None = None) -> None:
        self.db = db if db is not None else open_db()
        migrate(self.db, NAMESPACE, MIGRATIONS)

    @property
    def conn(self) -> sqlite3.Connection:
        return self.db.conn

    def _write(self, sql: str, params: Sequence[Any]) -> None:
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            cursor = conn.execute(sql, tuple(params))
            if cursor.rowcount != 1:
                raise NotFoundError("run not found for update")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def start(self, envelope: Envelope, *, created: float, dry_run: bool,
              session_id: str | None = None, turn_number: int | None = None,
              run_id: str | None = None) -> str:
        run_id = run_id or new_run_id(envelope.question, created)
        if session_id is not None and turn_number is None:
            row = self.conn.execute("SELECT MAX(turn_number) FROM runs WHERE session_id = ?",
                                    (session_id,)).fetchone()
            turn_number = (row[0] or 0) + 1
        self._write(
            "INSERT INTO runs (id, created, updated, status, question, repo_root, repo_rev,"
            " config_hash, index_rev, dry_run, envelope_json, answer_mode, session_id,"
            " turn_number) VALUES (?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run_id, created, created, envelope.question, envelope.repo_root, envelope.repo_rev,
             envelope.config_hash, envelope.index_rev, int(dry_run), canonical_json(envelope),
             envelope.answer_mode, session_id, turn_number),
        )
        return run_id

    def set_prompt(self, run_id: str, messages: Sequence[dict[str, str]], prompt_hash: str,
                   *, updated: float) -> None:
        self._write("UPDATE runs SET prompt_json = ?, prompt_hash = ?, updated = ? WHERE id = ?",
                    (canonical_json(list(messages)), prompt_hash, updated, run_id))

    def finish(self, run_id: str, envelope: Envelope, *, updated: float,
               prompt_tokens: int = 0, completion_tokens: int = 0, attempts: int = 0,
               redactions: dict[str, int] | None = None, error: str | None = None) -> None:
        status: RunStatus = "fallback" if envelope.answer_mode == "fallback" else "done"
        self._write(
            "UPDATE runs SET status = ?, updated = ?, envelope_json = ?, answer = ?,"
            " answer_mode = ?, fallback_reason = ?, model = ?, prompt_tokens = ?,"
            " completion_tokens = ?, attempts = ?, llm_steps = ?, timings_json = ?,"
            " redactions_json = ?, error = ? WHERE id = ?",
            (status, updated, canonical_json(envelope), envelope.answer, envelope.answer_mode,
             envelope.fallback_reason, envelope.model, prompt_tokens, completion_tokens,
             attempts, envelope.llm_steps, canonical_json(envelope.timings_ms),
             canonical_json(redactions or {}), error, run_id),
        )

    def fail(self, run_id: str, error: str, *, updated: float) -> None:
        self._write("UPDATE runs SET status = 'error', error = ?, updated = ? WHERE id = ?",
                    (error, updated, run_id))

    def resolve(self, ref: str) -> str:
        """A full run id from an id, a unique prefix (>= 4 chars) or `last`."""
        if ref == "last":
            row = self.conn.execute(
                "SELECT id FROM runs ORDER BY created DESC, id DESC LIMIT 1").fetchone()
            if row is None:
                raise NotFoundError("the run log is empty")
            return str(row[0])
        if self.conn.execute("SELECT 1 FROM runs WHERE id = ?", (ref,)).fetchone():
            return ref
        if len(ref) >= MIN_PREFIX:
            rows = self.conn.execute("SELECT id FROM runs WHERE id LIKE ? ORDER BY id LIMIT 2",
                                     (ref.replace("%", "").replace("_", "") + "%",)).fetchall()
            if len(rows) == 1:
                return str(rows[0][0])
            if len(rows) > 1:
                raise NotFoundError(f"turn '{ref}' is ambiguous; give more characters")
        raise NotFoundError(f"no such turn: {ref}")

    def get(self, ref: str) -> RunRecord:
        run_id = self.resolve(ref)
        cursor = self.conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,))
        names = [d[0] for d in cursor.description]
        return _record(dict(zip(names, cursor.fetchone(), strict=True)))

    def recent(self, limit: int | None = None) -> list[RunSummary]:
        sql = ("SELECT id, created, status, question, answer_mode, fallback_reason, model,"
               " session_id, turn_number FROM runs ORDER BY created DESC, id DESC")
        params: tuple[Any, ...] = ()
        if limit is not None:
            sql += " LIMIT ?"
            params = (limit,)
        cursor = self.conn.execute(sql, params)
        names = [d[0] for d in cursor.description]
        return [RunSummary(**dict(zip(names, row, strict=True))) for row in cursor.fetchall()]

    def records(self, statuses: Sequence[str] = ("done", "fallback")) -> Iterator[RunRecord]:
        """Finished runs, oldest first (created, id): what export reads."""
        marks = ",".join("?" for _ in statuses)
        cursor = self.conn.execute(
            f"SELECT * FROM runs WHERE status IN ({marks}) ORDER BY created, id", tuple(statuses))
        names = [d[0] for d in cursor.description]
        for row in cursor.fetchall():
            yield _record(dict(zip(names, row, strict=True)))

    def for_session(self, session_id: str) -> list[RunSummary]:
        cursor = self.conn.execute(
            "SELECT id, created, status, question, answer_mode, fallback_reason, model,"
            " session_id, turn_number FROM runs WHERE session_id = ?"
            " ORDER BY turn_number, created, id", (session_id,))
        names = [d[0] for d in cursor.description]
        return [RunSummary(**dict(zip(names, row, strict=True))) for row in cursor.fetchall()]


def _record(row: dict[str, Any]) -> RunRecord:
    raw_prompt = row.pop("prompt_json")
    prompt = json.loads(raw_prompt) if raw_prompt else None
    return RunRecord(
        envelope=Envelope.model_validate_json(row.pop("envelope_json")),
        prompt=tuple(prompt) if prompt is not None else None,
        timings_ms=json.loads(row.pop("timings_json") or "{}"),
        redactions=json.loads(row.pop("redactions_json") or "{}"),
        dry_run=bool(row.pop("dry_run")),
        **row,
    )
