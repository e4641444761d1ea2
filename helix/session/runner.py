"""Run one conversational turn: route it, run its lane, apply its transition, store it.

    run_turn(session_name, text, root=..., config=..., reply_to=None, llm=None, clock=...)

The router (pure) picks lane and transition class; the lane (pure: a step that yields requests,
`controller.continuity.lanes`) runs under the driver (`helix.session.lane_driver.LanePorts`),
which answers its requests through the ports: the controller through `helix.service.ask` for root
questions, the index graph for object follow-ups, the repository for opening a span, the lane
models; the transition registry checks the state change; the session store writes turn, state
and events in one transaction: the only other I/O of a turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sqlite_utils

from controller.continuity.events import ContinuityEvent, stamp
from controller.continuity.lanes import TurnContext, execute
from controller.continuity.router import route_turn
from controller.continuity.state import OPTION_SETS_KEPT, ContinuityState
from controller.continuity.transitions import REGISTRY, apply_transition, changed_slots
from controller.continuity.turn import TurnResult, summaries
from controller.report_cut import RETRIEVAL_CHARS, cut_report
from helix.core.config import HelixConfig
from helix.core.envelope import Envelope
from helix.core.errors import UserError
from helix.core.hashing import hash_obj
from helix.core.ports import LLM, Clock, SystemClock
from helix.core.secrets import redact_text
from helix.session.lane_driver import Asker, GraphProvider, LanePorts, client, lane_models
from helix.session.store import (
    commit_turn,
    ensure_schema,
    load_turns,
    open_session,
)
from helix.store.db import open_db

MS_PER_S = 1000


def default_asker(root: Path, config: HelixConfig, *, llm: LLM | None, dry_run: bool,
                  session_id: str, turn_number: int, clock: Clock) -> Asker:
    """The controller (and synthesis) through the service entry point; logged in the run log
    with the session id and turn number."""

    def ask(question: str, *, scope: str | None, sense: str | None) -> Envelope:
        from helix.service import ask as service_ask

        return service_ask(question, root=root, config=config, dry_run=dry_run, llm=llm,
                           scope=scope, sense=sense, session_id=session_id,
                           turn_number=turn_number, clock=clock).envelope

    return ask


def default_graph(root: Path, config: HelixConfig) -> GraphProvider:
    def graph() -> Any:
        from indexers.build import ensure_index

        # the graph needs no vectors: never wait for a background dense worker (issue 11)
        return ensure_index(root, config, dense="background")[0].graph

    return graph


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


def run_turn(session_name: str, text: str, *, root: Path, config: HelixConfig,
             reply_to: int | None = None, llm: LLM | None = None, clock: Clock | None = None,
             dry_run: bool = False, db: sqlite_utils.Database | None = None,
             asker: Asker | None = None, graph: GraphProvider | None = None) -> TurnResult:
    """Route and run one turn of session `session_name` over repository `root`; store it."""
    if not text.strip():
        raise UserError("empty message")
    text = redact_text(text)[0]  # a pasted secret is stored, routed and sent masked
    text = cut_report(text, RETRIEVAL_CHARS)[0]  # a long paste: routed by what locates it
    clock = clock or SystemClock()
    root = Path(root).resolve()
    if llm is None and not dry_run:
        llm = client(config)  # LiteLLMClient when any model is configured (redacts every call)
    db = db if db is not None else open_db()
    ensure_schema(db)
    record = open_session(db, session_name, str(root), now=clock.now())
    turns = load_turns(db, record.id)
    state = record.state
    now_ms = int(clock.now() * MS_PER_S)
    turn_id = state.turn_count + 1
    readmitted: list[ContinuityEvent] = []
    if reply_to is not None:
        state, readmitted = readmit_anchor_list(state, turns, reply_to)
    plan = route_turn(state, text, reply_to, config.continuity, turns=summaries(turns),
                      now_ms=now_ms)
    pre: list[ContinuityEvent] = [*readmitted, ContinuityEvent(
        name="turn_routed", reason="; ".join(plan.reasons),
        active_option_set_id=state.active_option_set_id, active_scope=state.active_scope,
        data={"intent": plan.intent, "transition_name": plan.transition_name,
              "retrieval": plan.retrieval, "disabled": plan.disabled})]
    pre.append(ContinuityEvent(
        name="focus_resolved", reason=plan.focus.source,
        data={"anchor_turn_id": plan.focus.anchor_turn_id,
              "window_turn_ids": list(plan.focus.window_turn_ids),
              "pronoun_hint": plan.focus.pronoun_hint.model_dump()
              if plan.focus.pronoun_hint else None}))
    base = state
    if state.pending is not None and plan.pending.status not in ("applied", "none"):
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

    models = lane_models(config, llm)
    ports = LanePorts(
        root=root, models=models,
        asker=asker or default_asker(root, config, llm=llm, dry_run=dry_run,
                                     session_id=record.id, turn_number=turn_id, clock=clock),
        graph=graph or default_graph(root, config))
    ctx = TurnContext(
        plan=plan, state=base, turns=tuple(turns), turn_id=turn_id, now_ms=now_ms,
        repo_name=root.name, config=config, session_id=record.id, lane_models=models.names())
    out = ports.run(execute(ctx))
    updates = dict(out.updates)
    if "focus" not in updates and "focus" in REGISTRY[out.transition].state_mutations:
        spec = REGISTRY[out.transition]
        # the focus object survives only with the selected object (T1 never inherits it)
        keeps = ("selected_object" not in spec.forbidden_carryover
                 and updates.get("selected_object", base.selected_object) is not None)
        focus = plan.focus.as_state()
        object_ref = out.opened.target if out.opened else (focus.object_ref if keeps else None)
        updates["focus"] = focus.model_copy(update={"object_ref": object_ref})
    result = apply_transition(base, out.transition, turn_id=turn_id, updates=updates,
                              action=out.action)
    mutations = changed_slots(state, result.state)
    events = [*pre, *out.events, *telemetry_events(out.envelope, out.reasons), ContinuityEvent(
        name="transition_applied", reason=f"{out.transition} {REGISTRY[out.transition].name}",
        active_option_set_id=result.state.active_option_set_id,
        active_scope=result.state.active_scope, data={"mutations": list(mutations)})]
    stamped = stamp(tuple(events), session_id=record.id, turn_id=turn_id, timestamp=now_ms,
                    lane=out.lane, transition=out.transition)
    turn = TurnResult(
        session=record.name, session_id=record.id, turn_id=turn_id, text=text,
        reply_to=reply_to, lane=out.lane, transition=out.transition,
        transition_name=REGISTRY[out.transition].name, intent=out.intent,
        answer=out.answer, answer_mode=out.answer_mode, retrieval=out.envelope is not None,
        shown=out.shown, opened=out.opened, state_mutations=tuple(mutations), events=stamped,
        reasons=plan.reasons + out.reasons, envelope=out.envelope,
        state_hash=hash_obj(result.state), created_at=clock.now(),
        continuity_hash=config.continuity_hash)
    commit_turn(db, record, turn, result.state, stamped)
    return turn
