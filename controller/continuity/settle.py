"""The turn's bookkeeping around its lane, pure: what the runner does before and after the lane
step, as functions of the plan, the state and the lane's outcome.

    readmit_anchor_list  a reply to an older turn gets that turn's list back (same id)
    before_lane          the routing events, and the state the lane sees (a pending state that
                         does not match the turn is dropped first: it never hijacks the turn)
    settle_turn          the lane's outcome applied through the transition registry (plus the
                         focus its class carries), the turn's events stamped, the stored turn
    telemetry_events     the events the contract names that no lane emits (a failed model call,
                         a loop-guard hit)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.continuity.events import ContinuityEvent, stamp
from controller.continuity.lanes.context import LaneOutcome
from controller.continuity.state import OPTION_SETS_KEPT, ContinuityState
from controller.continuity.transitions import (
    REGISTRY,
    StateSlot,
    apply_transition,
    changed_slots,
)
from controller.continuity.turn import TurnResult
from controller.continuity.turn_plan import TurnPlan
from helix.core.continuity_caps import ContinuityCaps
from helix.core.envelope import Envelope
from helix.core.hashing import hash_obj


def readmit_anchor_list(state: ContinuityState, turns: Sequence[TurnResult],
                        reply_to: int) -> tuple[ContinuityState, list[ContinuityEvent]]:
    """A reply to an older turn acts on that turn's list even when newer lists pushed it out
    of the kept option sets: the list is rebuilt from the stored turn (same id) and kept
    again, newest first; never a newer list in its place."""
    anchored = next((t for t in turns if t.turn_id == reply_to), None)
    if anchored is None or anchored.shown is None or state.option_set(
            anchored.shown.option_set_id) is not None:
        return state, []
    option_set = anchored.shown.as_option_set(anchored.turn_id)
    if option_set is None:
        return state, []
    kept = (option_set, *state.option_sets)[:OPTION_SETS_KEPT]
    event = ContinuityEvent(name="reply_anchor_list_readmitted", reason=f"turn {reply_to}",
                            active_option_set_id=state.active_option_set_id,
                            active_scope=state.active_scope,
                            data={"option_set_id": option_set.id})
    return state.model_copy(update={"option_sets": kept}), [event]


MODEL_FAILURES = frozenset({"timeout", "rate_limited", "transport_error", "auth_error",
                            "abstain", "contract_no_evidence_claim",
                            "contract_no_valid_citation"})


def telemetry_events(envelope: Envelope | None, reasons: tuple[str, ...]
                     ) -> list[ContinuityEvent]:
    """The events the contract's telemetry names that no lane emits itself: a failed model
    call (its fallback reason) and a loop-guard hit."""
    out: list[ContinuityEvent] = []
    if envelope is not None and envelope.fallback_reason in MODEL_FAILURES:
        out.append(ContinuityEvent(name="model_call_failed", reason=envelope.fallback_reason,
                                   data={"model": envelope.model}))
    for reason in reasons:
        if reason.startswith("loop_guard"):
            out.append(ContinuityEvent(name="loop_guard_hit", reason=reason))
    return out


def before_lane(state: ContinuityState, plan: TurnPlan,
                readmitted: Sequence[ContinuityEvent] = ()
                ) -> tuple[ContinuityState, list[ContinuityEvent]]:
    """(the state the lane sees, the events of routing) for a routed turn."""
    pre: list[ContinuityEvent] = [*readmitted, ContinuityEvent(
        name="turn_routed", reason="; ".join(plan.reasons),
        active_option_set_id=state.active_option_set_id, active_scope=state.active_scope,
        data={"intent": plan.intent, "transition_name": plan.transition_name,
              "retrieval": plan.retrieval, "disabled": plan.disabled,
              "reading": _reading(plan)})]
    if plan.announce:
        pre.append(ContinuityEvent(name="reading_announced", reason=plan.announce,
                                   data={"reading": _reading(plan)}))
    pre.append(ContinuityEvent(
        name="focus_resolved", reason=plan.focus.source,
        data={"anchor_turn_id": plan.focus.anchor_turn_id,
              "window_turn_ids": list(plan.focus.window_turn_ids),
              "pronoun_hint": plan.focus.pronoun_hint.model_dump()
              if plan.focus.pronoun_hint else None}))
    base = state
    if state.pending is not None and state.pending.clarifier_type == "repair" \
            and plan.pending.status == "applied":  # the router re-read the earlier message
        pre.append(ContinuityEvent(name="pending_applied", reason=plan.pending.reason,
                                   data={"expected_type": state.pending.expected_type}))
        base = state.model_copy(update={"pending": None, "pending_clarifier_type": "none"})
    elif state.pending is not None and plan.pending.status not in ("applied", "none", "held"):
        pre.append(ContinuityEvent(
            name="pending_expired" if plan.pending.status == "expired"
            else "pending_cleared_mismatch", reason=plan.pending.reason,
            data={"expected_type": state.pending.expected_type}))
        # a pending state that does not match never hijacks the turn: drop it first
        base = state.model_copy(update={"pending": None, "pending_clarifier_type": "none",
                                        "clarification_state": None})
    if plan.lane == "interrupt":
        pre.append(ContinuityEvent(name="hard_interrupt", reason=plan.intent))
    if plan.disabled:
        pre.append(ContinuityEvent(name="lane_disabled", reason=plan.reasons[-1]))
    return base, pre


def _reading(plan: TurnPlan) -> dict[str, Any] | None:
    reading = plan.reading
    if reading is None:
        return None
    return {"meaning": reading.meaning, "confidence": reading.confidence,
            "alternatives": [list(a) for a in reading.alternatives], "forced": reading.forced}


def settled_updates(base: ContinuityState, plan: TurnPlan, out: LaneOutcome
                    ) -> dict[StateSlot, Any]:
    """The lane's updates, plus the focus when its transition class writes one: the focus
    object survives only with the selected object (T1 never inherits it); an opened span is
    the new focus object."""
    updates = dict(out.updates)
    spec = REGISTRY[out.transition]
    if "focus" not in updates and "focus" in spec.state_mutations:
        keeps = ("selected_object" not in spec.forbidden_carryover
                 and updates.get("selected_object", base.selected_object) is not None)
        focus = plan.focus.as_state()
        object_ref = out.opened.target if out.opened else (focus.object_ref if keeps else None)
        updates["focus"] = focus.model_copy(update={"object_ref": object_ref})
    return updates


def settle_turn(state: ContinuityState, base: ContinuityState, plan: TurnPlan, out: LaneOutcome,
                pre: Sequence[ContinuityEvent], *, session: str, session_id: str, turn_id: int,
                text: str, reply_to: int | None, now_ms: int, created_at: float,
                continuity_hash: str, caps: ContinuityCaps) -> tuple[TurnResult, ContinuityState]:
    """(the turn to store, the new state): the registry refuses a change the class does not
    declare; `state` is the stored state before the turn (what the mutations are against)."""
    result = apply_transition(base, out.transition, turn_id=turn_id, caps=caps,
                              updates=settled_updates(base, plan, out), action=out.action)
    mutations = changed_slots(state, result.state)
    spec = REGISTRY[out.transition]
    events = [*pre, *out.events, *telemetry_events(out.envelope, out.reasons), ContinuityEvent(
        name="transition_applied", reason=f"{out.transition} {spec.name}",
        active_option_set_id=result.state.active_option_set_id,
        active_scope=result.state.active_scope, data={"mutations": list(mutations)})]
    stamped = stamp(tuple(events), session_id=session_id, turn_id=turn_id, timestamp=now_ms,
                    lane=out.lane, transition=out.transition)
    turn = TurnResult(
        session=session, session_id=session_id, turn_id=turn_id, text=text,
        reply_to=reply_to, lane=out.lane, transition=out.transition,
        transition_name=spec.name, intent=out.intent,
        answer=f"{plan.announce}\n{out.answer}" if plan.announce else out.answer,
        answer_mode=out.answer_mode, retrieval=out.envelope is not None, shown=out.shown,
        opened=out.opened, state_mutations=tuple(mutations), events=stamped,
        reasons=plan.reasons + out.reasons, envelope=out.envelope,
        state_hash=hash_obj(result.state), created_at=created_at,
        continuity_hash=continuity_hash)
    return turn, result.state
