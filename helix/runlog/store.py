"""The run log: one row per `helix ask` (dry or not) in the shared SQLite file under HELIX_HOME.

A run is written in two steps so a crash in the LLM call loses nothing:
    `start`        question, repository, revisions, config hash and the controller's envelope,
                   status "pending" (committed before any model is called)
    `set_prompt`   the exact prompt messages, still "pending" (committed before the call)
    `finish`       the answered envelope, mode, reason, model, tokens, timings: status "done"
                   (or "fallback"); `fail` records an error that ended the run ("error")
A pending run also records the process writing it (`owner`: boot, pid, start time,
`helix.core.process`): read back while that process no longer runs (killed, or the machine
restarted), it is "interrupted", never "pending" forever.
A dry run calls no model: `record` writes the row those steps would leave in one.
WAL mode (see `helix.store.db`) lets `helix log` read while another process writes. With a
shared database (`helix.store.backend`: PostgreSQL) the run log is every replica's, and a
pending run is "interrupted" when its owner's presence lock is gone, whichever replica reads it.
Session turns (engineer F's store) point at runs through `session_id` + `turn_number`.

Reads take `roots`: only the runs asked of those repositories (a run across several counts
when every one of them is among `roots`); a server passes the repositories it serves, so a run
of another one is not there for its clients (`resolve` says "no such turn" as for an id that
never existed).
"""

from __future__ import annotations

import functools
import json
import re
import secrets
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, TypeVar

import sqlite_utils
from pydantic import ValidationError

from helix.core.envelope import Envelope
from helix.core.errors import (
    NotFoundError,
    UnreadableRunError,
)
from helix.core.hashing import canonical_json, short_id
from helix.core.schemas import Frozen
from helix.core.secrets import redact_text
from helix.inputs import shown
from helix.multi_repo import SEPARATOR
from helix.store.backend import Backend, SqliteBackend, open_backend
from helix.store.db import (
    Schema,
    UndecodableText,
    notice,
    one_line,
)

NAMESPACE = "runlog"
MIN_PREFIX = 4  # shortest run-id prefix `helix show` accepts
MAX_REF = 64  # longest turn reference looked up (run ids are 12 hex characters)
_REF_RE = re.compile(r"[A-Za-z0-9_-]+")
RunStatus = Literal["pending", "done", "fallback", "error", "interrupted"]
Roots = Sequence[str] | None
SCOPE_SQL = " AND helix_in_scope(CAST(repo_root AS BLOB), ?)"  # bytes: any row can be read
SCOPE_SQL_TEXT = " AND helix_in_scope(repo_root, ?) = 1"  # PostgreSQL: text is always UTF-8

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
    # the process that started a run: a pending run whose process is gone was interrupted
    "ALTER TABLE runs ADD COLUMN owner TEXT",
)


RUN_COLUMNS = ("id", "created", "updated", "status", "question", "repo_root", "repo_rev",
               "config_hash", "index_rev", "dry_run", "envelope_json", "prompt_json",
               "prompt_hash", "answer", "answer_mode", "fallback_reason", "model",
               "prompt_tokens", "completion_tokens", "attempts", "llm_steps", "timings_json",
               "redactions_json", "error", "session_id", "turn_number", "owner")
SCHEMA = Schema(NAMESPACE, MIGRATIONS, {"runs": RUN_COLUMNS})
T = TypeVar("T")



def _masked(error: str | None) -> str | None:
    """An error as the run log keeps it: what it quotes (a provider's body) masked."""
    return None if error is None else redact_text(error)[0]

class _BadRow(ValueError):
    pass


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


def _finished(envelope: Envelope) -> RunStatus:
    return "fallback" if envelope.answer_mode == "fallback" else "done"


class RunLog:
    """The run log. Reads skip a row that cannot be read back (text that is not UTF-8, a JSON
    column that does not parse, a field that fails validation) and note it in `unreadable`
    (run id -> why); `get` of such a row is an `UnreadableRunError`."""

    def __init__(self, db: sqlite_utils.Database | Backend | None = None) -> None:
        if db is None:
            self.backend = open_backend([SCHEMA])
        elif isinstance(db, Backend):
            self.backend = db
            db.ensure([SCHEMA])
        else:
            self.backend = SqliteBackend(db)
            self.backend.ensure([SCHEMA])
        if isinstance(self.backend, SqliteBackend):
            self.db = self.backend.db
            self.db.conn.create_function("helix_in_scope", 2, _in_scope, deterministic=True)
        self.unreadable: dict[str, str] = {}

    @property
    def conn(self) -> Any:
        """The SQLite connection (the embedded run log only)."""
        return self.db.conn

    def close(self) -> None:
        """Close the connection now (a long-running server opens one per question: left to
        the garbage collector, their native memory piles up)."""
        self.backend.close()

    def _write(self, sql: str, params: Sequence[Any]) -> None:
        if self.backend.write(sql, params) != 1:
            raise NotFoundError("run not found for update")

    def notice_unreadable(self) -> None:
        """One stderr line when reads skipped rows that cannot be read back (never fatal)."""
        if self.unreadable:
            shown_ids = ", ".join(sorted(self.unreadable)[:5])
            notice(f"skipped {len(self.unreadable)} unreadable rows in the run log (turn ids: "
                   f"{shown_ids}{', ...' if len(self.unreadable) > 5 else ''})")

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return self.backend.dict_rows(sql, params)

    def _scope(self, roots: Roots) -> tuple[str, tuple[str, ...]]:
        """The SQL condition (and its parameter) keeping the runs of `roots`; none for None."""
        if roots is None:
            return "", ()
        sql = SCOPE_SQL if isinstance(self.backend, SqliteBackend) else SCOPE_SQL_TEXT
        return sql, (canonical_json(sorted(roots)),)

    def _readable(self, rows: list[dict[str, Any]],
                  build: Callable[[dict[str, Any], Callable[[str], bool]], T]) -> list[T]:
        out = []
        for row in rows:
            run_id = str(row.get("id"))
            try:
                out.append(build(row, self.backend.gone))
            except (_BadRow, ValidationError, ValueError, TypeError) as exc:
                self.unreadable[run_id] = _why(exc)
        return out

    def start(self, envelope: Envelope, *, created: float, dry_run: bool,
              session_id: str | None = None, turn_number: int | None = None,
              run_id: str | None = None) -> str:
        run_id = run_id or new_run_id(envelope.question, created)
        turn_number = self._turn(session_id, turn_number)
        self._write(
            "INSERT INTO runs (id, created, updated, status, question, repo_root, repo_rev,"
            " config_hash, index_rev, dry_run, envelope_json, answer_mode, session_id,"
            " turn_number, owner) VALUES (?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run_id, created, created, envelope.question, envelope.repo_root, envelope.repo_rev,
             envelope.config_hash, envelope.index_rev, int(dry_run), canonical_json(envelope),
             envelope.answer_mode, session_id, turn_number, self.backend.owner()),
        )
        return run_id

    def _turn(self, session_id: str | None, turn_number: int | None) -> int | None:
        """The turn number given, or a session's next one."""
        if session_id is None or turn_number is not None:
            return turn_number
        (row,) = self._rows("SELECT MAX(turn_number) AS n FROM runs WHERE session_id = ?",
                            (session_id,))
        return (row["n"] if isinstance(row["n"], int) else 0) + 1

    def record(self, envelope: Envelope, *, created: float, updated: float,
               session_id: str | None = None, turn_number: int | None = None,
               run_id: str | None = None) -> str:
        """A dry run (no model is called: nothing can fail between `start` and `finish`),
        written whole in one transaction: the row `start` then `finish` would leave."""
        run_id = run_id or new_run_id(envelope.question, created)
        turn_number = self._turn(session_id, turn_number)
        status = _finished(envelope)
        self._write(
            "INSERT INTO runs (id, created, updated, status, question, repo_root, repo_rev,"
            " config_hash, index_rev, dry_run, envelope_json, answer_mode, session_id,"
            " turn_number, answer, fallback_reason, model, prompt_tokens, completion_tokens,"
            " attempts, llm_steps, timings_json, redactions_json, error) VALUES (?, ?, ?, ?,"
            " ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ?, ?, '{}', NULL)",
            (run_id, created, updated, status, envelope.question, envelope.repo_root,
             envelope.repo_rev, envelope.config_hash, envelope.index_rev,
             canonical_json(envelope), envelope.answer_mode, session_id, turn_number,
             envelope.answer, envelope.fallback_reason, envelope.model, envelope.llm_steps,
             canonical_json(envelope.timings_ms)),
        )
        return run_id

    def set_prompt(self, run_id: str, messages: Sequence[dict[str, str]], prompt_hash: str,
                   *, updated: float) -> None:
        self._write("UPDATE runs SET prompt_json = ?, prompt_hash = ?, updated = ? WHERE id = ?",
                    (canonical_json(list(messages)), prompt_hash, updated, run_id))

    def finish(self, run_id: str, envelope: Envelope, *, updated: float,
               prompt_tokens: int = 0, completion_tokens: int = 0, attempts: int = 0,
               redactions: dict[str, int] | None = None, error: str | None = None) -> None:
        status = _finished(envelope)
        self._write(
            "UPDATE runs SET status = ?, updated = ?, envelope_json = ?, answer = ?,"
            " answer_mode = ?, fallback_reason = ?, model = ?, prompt_tokens = ?,"
            " completion_tokens = ?, attempts = ?, llm_steps = ?, timings_json = ?,"
            " redactions_json = ?, error = ?, owner = NULL WHERE id = ?",
            (status, updated, canonical_json(envelope), envelope.answer, envelope.answer_mode,
             envelope.fallback_reason, envelope.model, prompt_tokens, completion_tokens,
             attempts, envelope.llm_steps, canonical_json(envelope.timings_ms),
             canonical_json(redactions or {}), _masked(error), run_id),
        )

    def fail(self, run_id: str, error: str, *, updated: float) -> None:
        self._write("UPDATE runs SET status = 'error', error = ?, updated = ?, owner = NULL"
                    " WHERE id = ?", (_masked(error), updated, run_id))

    def resolve(self, ref: str, roots: Roots = None) -> str:
        """A full run id from an id, a unique prefix (>= 4 chars) or `last` (of `roots`)."""
        if len(ref) > MAX_REF or not _REF_RE.fullmatch(ref):
            raise NotFoundError(f"bad turn id {shown(ref)}: give a turn id from `helix log`, "
                                f"a prefix of {MIN_PREFIX}+ of its characters, or `last`")
        scope, within = self._scope(roots)
        if ref == "last":
            rows = self._rows(f"SELECT id FROM runs WHERE 1 = 1{scope} ORDER BY created DESC, "
                              "id DESC LIMIT 1", within)
            if not rows:
                raise NotFoundError("the run log is empty")
            return str(rows[0]["id"])
        if self._rows(f"SELECT 1 FROM runs WHERE id = ?{scope}", (ref, *within)):
            return ref
        if len(ref) >= MIN_PREFIX:
            rows = self._rows(f"SELECT id FROM runs WHERE id LIKE ?{scope} ORDER BY id LIMIT 2",
                              (ref.replace("_", "") + "%", *within))
            if len(rows) == 1:
                return str(rows[0]["id"])
            if len(rows) > 1:
                raise NotFoundError(f"turn '{ref}' is ambiguous; give more characters")
        raise NotFoundError(f"no such turn: {ref}")

    def get(self, ref: str, roots: Roots = None) -> RunRecord:
        run_id = self.resolve(ref, roots)
        (row,) = self._rows("SELECT * FROM runs WHERE id = ?", (run_id,))
        found = self._readable([row], _record)
        if not found:
            raise UnreadableRunError(f"turn {run_id} cannot be read back from the run log "
                                     f"({self.unreadable[run_id]})")
        return found[0]

    def recent(self, limit: int | None = None, roots: Roots = None) -> list[RunSummary]:
        scope, within = self._scope(roots)
        params: tuple[Any, ...] = within
        sql = ("SELECT id, created, status, question, answer_mode, fallback_reason, model,"
               f" session_id, turn_number, owner FROM runs WHERE 1 = 1{scope}"
               " ORDER BY created DESC, id DESC")
        if limit is not None:
            sql += " LIMIT ?"
            params = (*params, limit)
        return self._readable(self._rows(sql, params), _summary)

    def records(self, statuses: Sequence[str] = ("done", "fallback"),
                roots: Roots = None) -> Iterator[RunRecord]:
        """Finished runs, oldest first (created, id): what export reads."""
        marks = ",".join("?" for _ in statuses)
        scope, within = self._scope(roots)
        rows = self._rows(f"SELECT * FROM runs WHERE status IN ({marks}){scope} "
                          "ORDER BY created, id", (*statuses, *within))
        for row in rows:
            yield from self._readable([row], _record)

    def for_session(self, session_id: str) -> list[RunSummary]:
        rows = self._rows(
            "SELECT id, created, status, question, answer_mode, fallback_reason, model,"
            " session_id, turn_number, owner FROM runs WHERE session_id = ?"
            " ORDER BY turn_number, created, id", (session_id,))
        return self._readable(rows, _summary)


@functools.lru_cache(maxsize=16)
def _root_set(roots_json: str) -> frozenset[str]:
    return frozenset(json.loads(roots_json))


def _in_scope(repo_root: Any, roots_json: str) -> int:
    """SQL `helix_in_scope(repo_root, roots)`: 1 when every repository the run was asked of
    is one of `roots` (a JSON list); `repo_root` comes as bytes, so a row that is not UTF-8
    is out of scope, not an error."""
    if not isinstance(repo_root, bytes) or not repo_root:
        return 0
    allowed = _root_set(roots_json)
    text = repo_root.decode("utf-8", "surrogateescape")
    return int(all(part in allowed for part in text.split(SEPARATOR)))


def _why(exc: BaseException) -> str:
    """One line saying what is wrong with a row."""
    if isinstance(exc, ValidationError):
        errors = exc.errors()
        first = errors[0]
        where = ".".join(str(part) for part in first["loc"]) or exc.title
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        return f"{where}: {first['msg']}{more}"
    return one_line(exc)


def _check_text(row: dict[str, Any]) -> None:
    for name, value in row.items():
        if isinstance(value, UndecodableText):
            raise _BadRow(f"{name} is not valid UTF-8")


def _json(row: dict[str, Any], column: str, default: Any) -> Any:
    raw = row.pop(column)
    if raw is None or raw == "":
        return default
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise _BadRow(f"{column}: not JSON ({exc})") from None


def _live_status(row: dict[str, Any], gone: Callable[[str], bool]) -> dict[str, Any]:
    """The row without its owner, a pending run whose process is gone "interrupted"."""
    row = dict(row)
    owner = row.pop("owner", None)
    if row.get("status") == "pending" and isinstance(owner, str) and gone(owner):
        row["status"] = "interrupted"
    return row


def _summary(row: dict[str, Any], gone: Callable[[str], bool]) -> RunSummary:
    _check_text(row)
    return RunSummary(**_live_status(row, gone))


def _record(row: dict[str, Any], gone: Callable[[str], bool]) -> RunRecord:
    _check_text(row)
    row = _live_status(row, gone)
    prompt = _json(row, "prompt_json", None)
    try:
        envelope = Envelope.model_validate_json(row.pop("envelope_json") or "")
    except ValidationError as exc:
        raise _BadRow(f"envelope_json: {_why(exc)}") from None
    if prompt is not None and not isinstance(prompt, list):
        raise _BadRow("prompt_json: not a list of messages")
    return RunRecord(
        envelope=envelope,
        prompt=tuple(prompt) if prompt is not None else None,
        timings_ms=_json(row, "timings_json", {}),
        redactions=_json(row, "redactions_json", {}),
        dry_run=bool(row.pop("dry_run")),
        **row,
    )
