"""Continuity telemetry names and storage; a conversation replayed gives the same state hashes."""

from __future__ import annotations

import shutil
from pathlib import Path

from controller.continuity.events import (
    ALL_EVENTS,
    SELECTION_EVENTS,
    SEMANTIC_EVENTS,
    UMBRELLA_EVENTS,
    ContinuityEvent,
    stamp,
)
from helix.core.config import load_config
from helix.core.ports import FakeClock
from helix.session.eventlog import insert_events, read_events
from helix.session.runner import run_turn
from helix.session.store import ensure_schema, reset_session
from helix.store.db import open_db

# Copied from the documents' Observability / Telemetry sections (the names are binding).
DOC_UMBRELLA = [
    "deterministic_continuity_resolve", "llm_select", "llm_need_more_info",
    "need_more_info_veto_applied", "need_more_info_veto_blocked_reason",
    "continuity_enrichment_retry_called", "continuity_enrichment_fingerprint_unchanged",
    "continuity_enrichment_budget_exhausted",
]
DOC_SELECTION = ["selection_" + n for n in DOC_UMBRELLA[:5]] + [
    "selection_enrichment_retry_called", "selection_enrichment_fingerprint_unchanged",
    "selection_enrichment_budget_exhausted"]
DOC_SEMANTIC = [
    "semantic_followup_answered", "semantic_followup_missing_slot",
    "semantic_followup_single_clarifier_asked", "semantic_followup_handoff_to_selection_lane",
    "semantic_followup_context_insufficient", "continuity_slot_filled",
    "continuity_blocked_conflict", "continuity_ttl_expired", "continuity_no_referent_marker",
    "continuity_non_unique_scoped_evidence", "semantic_enrichment_retry_called",
    "semantic_enrichment_fingerprint_unchanged", "semantic_enrichment_budget_exhausted",
]
LOOP_FIELDS = {"loop_cycle_id", "fingerprint_before", "fingerprint_after",
               "retry_attempt_index", "retry_budget_remaining"}
FIXTURE = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "continuity_repo"


def test_every_named_event_of_the_documents_exists():
    assert set(DOC_UMBRELLA) == set(UMBRELLA_EVENTS)
    assert set(DOC_SELECTION) == set(SELECTION_EVENTS)
    assert set(DOC_SEMANTIC) == set(SEMANTIC_EVENTS)
    assert len(set(ALL_EVENTS)) == len(ALL_EVENTS)


def test_every_event_carries_the_loop_cycle_fields():
    assert set(ContinuityEvent.model_fields) >= LOOP_FIELDS
    assert {"active_option_set_id", "active_scope"} <= set(ContinuityEvent.model_fields)


def test_events_round_trip_through_the_run_log():
    db = open_db()
    ensure_schema(db)
    events = stamp((ContinuityEvent(name="llm_select", loop_cycle_id="c1",
                                    fingerprint_before="sha256:a", fingerprint_after="sha256:b",
                                    retry_attempt_index=1, retry_budget_remaining=0,
                                    data={"candidate_count": 3}),
                    ContinuityEvent(name="hard_interrupt", lane="interrupt")),
                   session_id="s-x", turn_id=4, timestamp=123, transition="T6")
    db.conn.execute("BEGIN")
    insert_events(db.conn, events)
    db.conn.execute("COMMIT")
    back = read_events(db, session_id="s-x")
    assert back == list(events)
    assert back[0].transition == "T6" and back[1].lane == "interrupt"
    assert read_events(db, name="hard_interrupt") == [events[1]]
    assert read_events(db, limit=1) == [events[1]]


def test_replayed_conversation_gives_identical_state_hashes(tmp_path, monkeypatch):
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    config = load_config(root)
    texts = ["where is the BM25 index built?", "open the second one", "open it",
             "what is a cavity?", "the first", "is that the only place?", "stop"]

    def play() -> list[str]:
        db = open_db()
        ensure_schema(db)
        reset_session(db, "d")
        clock = FakeClock(start=1_700_000_000.0)
        return [run_turn("d", text, root=root, config=config, clock=clock,
                         dry_run=True).state_hash for text in texts]

    first = play()
    assert first == play()
    assert len(set(first)) == len(first)
