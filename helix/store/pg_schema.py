"""The PostgreSQL tables of Helix's state, as numbered migrations per namespace (the same
namespaces, tables and columns as the SQLite steps in `helix.session.store`,
`helix.session.eventlog`, `helix.runlog.store` and `helix.store.repos`, so one SQL serves both).

Steps are identified by position: append new ones, never edit or reorder old ones. Types are
chosen to read back as SQLite's do: DOUBLE PRECISION for REAL (PostgreSQL's REAL is 4 bytes),
BIGINT for INTEGER (turn timestamps are milliseconds). Text that orders rows (names, ids) is
COLLATE "C", so a listing is in the byte order SQLite uses, whatever the server's locale.
"""

from __future__ import annotations

PG_MIGRATIONS: dict[str, tuple[str, ...]] = {
    "sessions": (
        """
        CREATE TABLE sessions (
            id TEXT COLLATE "C" PRIMARY KEY,
            name TEXT COLLATE "C" NOT NULL UNIQUE,
            repo_root TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL,
            turn_count BIGINT NOT NULL DEFAULT 0,
            state_json TEXT NOT NULL,
            state_hash TEXT NOT NULL
        );
        CREATE TABLE turns (
            session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            turn_id BIGINT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            user_text TEXT NOT NULL,
            reply_to BIGINT,
            lane TEXT NOT NULL,
            transition TEXT NOT NULL,
            intent TEXT NOT NULL,
            turn_json TEXT NOT NULL,
            state_json TEXT NOT NULL,
            state_hash TEXT NOT NULL,
            PRIMARY KEY (session_id, turn_id)
        )
        """,
    ),
    "events": (
        """
        CREATE TABLE continuity_events (
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            session_id TEXT COLLATE "C" NOT NULL,
            turn_id BIGINT NOT NULL,
            name TEXT COLLATE "C" NOT NULL,
            lane TEXT,
            transition TEXT,
            timestamp BIGINT NOT NULL,
            loop_cycle_id TEXT,
            fingerprint_before TEXT,
            fingerprint_after TEXT,
            retry_attempt_index BIGINT NOT NULL,
            retry_budget_remaining BIGINT,
            active_option_set_id TEXT,
            active_scope TEXT,
            reason TEXT NOT NULL,
            data_json TEXT NOT NULL
        );
        CREATE INDEX continuity_events_by_session ON continuity_events(session_id, turn_id, seq);
        CREATE INDEX continuity_events_by_name ON continuity_events(name)
        """,
    ),
    "runlog": (
        """
        CREATE TABLE runs (
            id TEXT COLLATE "C" PRIMARY KEY,
            created DOUBLE PRECISION NOT NULL,
            updated DOUBLE PRECISION NOT NULL,
            status TEXT NOT NULL,
            question TEXT NOT NULL,
            repo_root TEXT NOT NULL,
            repo_rev TEXT NOT NULL,
            config_hash TEXT NOT NULL,
            index_rev TEXT NOT NULL,
            dry_run BIGINT NOT NULL,
            envelope_json TEXT NOT NULL,
            prompt_json TEXT,
            prompt_hash TEXT,
            answer TEXT,
            answer_mode TEXT,
            fallback_reason TEXT,
            model TEXT,
            prompt_tokens BIGINT NOT NULL DEFAULT 0,
            completion_tokens BIGINT NOT NULL DEFAULT 0,
            attempts BIGINT NOT NULL DEFAULT 0,
            llm_steps BIGINT NOT NULL DEFAULT 0,
            timings_json TEXT NOT NULL DEFAULT '{}',
            redactions_json TEXT NOT NULL DEFAULT '{}',
            error TEXT,
            session_id TEXT COLLATE "C",
            turn_number BIGINT,
            owner TEXT
        );
        CREATE INDEX runs_created ON runs (created, id);
        CREATE INDEX runs_session ON runs (session_id, turn_number);
        -- SQLite's helix_in_scope is a Python function (`helix.runlog.store`); this is the
        -- same rule in SQL: every repository a run was asked of is one of `roots` (JSON list)
        CREATE FUNCTION helix_in_scope(repo_root TEXT, roots_json TEXT) RETURNS INTEGER
        LANGUAGE sql IMMUTABLE AS $$
            SELECT CASE
                WHEN repo_root IS NULL OR repo_root = '' THEN 0
                WHEN EXISTS (SELECT 1 FROM unnest(string_to_array(repo_root, '; ')) AS part
                             WHERE NOT jsonb_exists(roots_json::jsonb, part)) THEN 0
                ELSE 1 END
        $$
        """,
    ),
    "registry": (
        """
        CREATE TABLE repos (
            name TEXT COLLATE "C" PRIMARY KEY,
            grp TEXT COLLATE "C" NOT NULL,
            source TEXT NOT NULL,
            rev TEXT NOT NULL,
            root TEXT NOT NULL,
            index_dir TEXT NOT NULL,
            index_rev TEXT NOT NULL,
            summary_json TEXT NOT NULL,
            summary_hash TEXT NOT NULL,
            updated DOUBLE PRECISION NOT NULL
        );
        CREATE INDEX repos_by_group ON repos (grp, name)
        """,
    ),
}
