"""Continuity telemetry: every event the continuity documents name, as one frozen record.

Names come verbatim from the documents:
    umbrella (continuity-umbrella-contract.md, Step 5)     UMBRELLA_EVENTS
    selection lane (selection-continuity-execution-lane)   SELECTION_EVENTS
    semantic lane (semantic-continuity-answer-lane)        SEMANTIC_EVENTS
plus the runtime's own transition / focus / pending events (RUNTIME_EVENTS), which the state,
transition and focus documents require to be observable but do not name.

Every event carries the umbrella's loop-cycle fields (`loop_cycle_id`, `fingerprint_before`,
`fingerprint_after`, `retry_attempt_index`, `retry_budget_remaining`) and `active_option_set_id`,
`active_scope`; lane-specific diagnostics (candidate count, collision flags, window size,
structured-field usage, slot-missing reasons, winner / non-winner) go in `data`.

Pure: building an event needs no clock (the caller passes `timestamp`), no store. The session
package writes them to the run log database (`helix.session.eventlog`).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import Field

from controller.continuity.state import Lane, TransitionClass
from helix.core.schemas import Frozen

UmbrellaEvent = Literal[
    "deterministic_continuity_resolve",
    "llm_select",
    "llm_need_more_info",
    "need_more_info_veto_applied",
    "need_more_info_veto_blocked_reason",
    "continuity_enrichment_retry_called",
    "continuity_enrichment_fingerprint_unchanged",
    "continuity_enrichment_budget_exhausted",
]
SelectionEvent = Literal[
    "selection_deterministic_continuity_resolve",
    "selection_llm_select",
    "selection_llm_need_more_info",
    "selection_need_more_info_veto_applied",
    "selection_need_more_info_veto_blocked_reason",
    "selection_enrichment_retry_called",
    "selection_enrichment_fingerprint_unchanged",
    "selection_enrichment_budget_exhausted",
]
SemanticEvent = Literal[
    "semantic_followup_answered",
    "semantic_followup_missing_slot",
    "semantic_followup_single_clarifier_asked",
    "semantic_followup_handoff_to_selection_lane",
    "semantic_followup_context_insufficient",
    "continuity_slot_filled",
    "continuity_blocked_conflict",
    "continuity_ttl_expired",
    "continuity_no_referent_marker",
    "continuity_non_unique_scoped_evidence",
    "semantic_enrichment_retry_called",
    "semantic_enrichment_fingerprint_unchanged",
    "semantic_enrichment_budget_exhausted",
]
RuntimeEvent = Literal[
    "turn_routed",            # router decision: lane, transition, intent
    "transition_applied",     # state mutations of the transition
    "hard_interrupt",         # stop / cancel / start over / never mind
    "focus_resolved",         # reply anchor or lane recency
    "reply_anchor_list_readmitted",  # a reply re-admits the anchored turn's list
    "pending_applied",        # a pending state matched strictly and resumed its route
    "pending_cleared_mismatch",
    "pending_expired",
    "retrieval_run",          # the controller ran (T1 / T2 / T7)
    "graph_followup",         # T4 over the index graph, no root retrieval
    "meta_answer",            # T8
    "memory_recap",           # T9
    "boundary",               # T10: unsupported / blocked / failed, said so
    "lane_disabled",          # a continuity setting is off: the flag-off behaviour ran
    "small_talk_reply",       # T0: small talk answered, no retrieval (model or deterministic)
    "model_call_failed",      # the turn's model call failed (reason: the fallback reason)
    "loop_guard_hit",         # the loop guard stopped a repeated unresolved cycle
    "reading_announced",      # the meaning router said how it read an unsure turn
    "reading_clarifier_asked",  # the meaning router asked which of two readings was meant
]
EventName = Literal[UmbrellaEvent, SelectionEvent, SemanticEvent, RuntimeEvent]

UMBRELLA_EVENTS: tuple[str, ...] = get_args(UmbrellaEvent)
SELECTION_EVENTS: tuple[str, ...] = get_args(SelectionEvent)
SEMANTIC_EVENTS: tuple[str, ...] = get_args(SemanticEvent)
RUNTIME_EVENTS: tuple[str, ...] = get_args(RuntimeEvent)
ALL_EVENTS: tuple[str, ...] = UMBRELLA_EVENTS + SELECTION_EVENTS + SEMANTIC_EVENTS + RUNTIME_EVENTS


class ContinuityEvent(Frozen):
    name: EventName
    session_id: str = ""
    turn_id: int = 0
    lane: Lane | None = None
    transition: TransitionClass | None = None
    timestamp: int = 0  # epoch ms, set by the caller (pure code has no clock)
    # loop-cycle fields (umbrella Step 5, required on every event)
    loop_cycle_id: str | None = None
    fingerprint_before: str | None = None
    fingerprint_after: str | None = None
    retry_attempt_index: int = 0
    retry_budget_remaining: int | None = None
    active_option_set_id: str | None = None
    active_scope: str | None = None
    reason: str = ""
    data: dict[str, Any] = Field(default_factory=dict)


def stamp(events: tuple[ContinuityEvent, ...], *, session_id: str, turn_id: int,
          timestamp: int, lane: Lane | None = None,
          transition: TransitionClass | None = None) -> tuple[ContinuityEvent, ...]:
    """Fill the turn's identity into events a pure lane built without it."""
    out = []
    for event in events:
        update: dict[str, Any] = {"session_id": session_id, "turn_id": turn_id,
                                  "timestamp": timestamp}
        if event.lane is None and lane is not None:
            update["lane"] = lane
        if event.transition is None and transition is not None:
            update["transition"] = transition
        out.append(event.model_copy(update=update))
    return tuple(out)
