"""The semantic lane in a session turn (T8 / T9 answers about what happened; never executes).

Hands the lane its bounded inputs and maps its decision onto the turn:
    inputs     the recent turns (the TTL window; the enricher widens it), the focused object's
               opened span (`active_scoped_entity`), the last answer (`last_assistant_explanation`),
               the replied-to turn's action when the user replied (`--reply-to`: it wins),
               whether a semantic model is configured, and `SessionSemanticEnricher` (its span
               reads are requests for the session's driver)
    answer     a meta frame; one packed clarifier -> answer text, nothing executed; handoff ->
               the selection lane (a command-like turn); flag off -> the lane's safe clarifier
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from controller.continuity.focus import TurnSummary
from controller.continuity.lanes.context import LaneOutcome, TurnContext
from controller.continuity.lanes.selection import run_selection
from controller.continuity.pending import SLOT_PREFIX, make_pending
from controller.continuity.requests import OpenSpan, Steps
from controller.continuity.semantic import (
    SLOT_SCHEMA,
    SemanticEnrichment,
    SemanticIntent,
    semantic_steps,
)
from controller.continuity.semantic_answer import Slot
from controller.continuity.semantic_binding import ENTITY_QUESTION
from controller.continuity.semantic_evidence import ScopedSnapshot, entity_key, entity_keys_of
from controller.continuity.state import (
    ActionTraceEntry,
    MetaFrameState,
    MetaQuestionKind,
    TargetRef,
)
from controller.continuity.transitions import StateSlot
from controller.continuity.turn import TurnResult, summaries
from helix.core.errors import BadPathError

MS_PER_S = 1000
ENRICH_MAX_SNAPSHOTS = 3  # excerpts one enrichment step may add (bounded)
EXCERPT_MAX_LINES = 12


def _ms(turn: TurnResult) -> int:
    return int(turn.created_at * MS_PER_S)


def _snapshots(ctx: TurnContext) -> tuple[ScopedSnapshot, ...]:
    """The scoped active entity: the focused object's opened span (if any)."""
    state = ctx.state
    opened = [t for t in ctx.turns if t.opened is not None]
    if state.selected_object is None or not opened:
        return ()
    last = opened[-1]
    assert last.opened is not None
    return (ScopedSnapshot(
        source_type="active_scoped_entity", source_id=last.opened.target.id,
        scope=state.active_scope or "session",
        text=f"{last.opened.target.label} {last.opened.path}:{last.opened.start_line}\n"
             f"{last.opened.text}", option_set_id=state.active_option_set_id,
        timestamp=_ms(last)),)


class SessionSemanticEnricher:
    """Orchestrator-driven enrichment from the session's own material, in the active scope,
    bounded (semantic lane allowlist):
        step 1  scoped referent excerpts: the span of each item of the active list that IS the
                referent (its label, symbol or file names it), read inside the repository
        step 2  retrieval chunks: evidence spans of the answer that showed the list and name
                the referent
    Each step adds at most ENRICH_MAX_SNAPSHOTS excerpts; the lane retries only when the
    evidence fingerprint changed."""

    def __init__(self, ctx: TurnContext, text: str) -> None:
        self.ctx = ctx
        match = ENTITY_QUESTION.search(text)
        raw = next((g for g in match.groups() if g), "") if match else ""
        self.referent = entity_key(re.sub(r"^(?:the|a|an)\s+", "", raw.strip(" ?.!"),
                                          flags=re.I))

    def _item_keys(self, label: str, symbol: str | None, path: str | None) -> tuple[str, ...]:
        return entity_keys_of(" ".join(x for x in (label, symbol or "", path or "") if x))

    def enrich(self, step: int, intent: SemanticIntent, missing: tuple[Slot, ...],
               scope: str) -> Steps[SemanticEnrichment]:
        ctx, state = self.ctx, self.ctx.state
        active = state.active_option_set()
        if active is None or active.scope != scope:
            return SemanticEnrichment()
        origin = next((t for t in ctx.turns if t.turn_id == active.origin_turn_id), None)
        stamp = _ms(origin) if origin else ctx.now_ms
        out: list[ScopedSnapshot] = []
        if step == 1 and self.referent:
            for item in active.items:
                target = item.target
                keys = self._item_keys(item.label, target.symbol, target.path)
                if self.referent not in keys:
                    continue
                try:
                    span = yield OpenSpan(target, EXCERPT_MAX_LINES)
                except (BadPathError, OSError):
                    continue
                out.append(ScopedSnapshot(
                    source_type="active_widget_snapshot", source_id=item.id, scope=scope,
                    text=f"{item.label} {span.path}:{span.start_line}\n{span.text}",
                    entity_keys=keys, option_set_id=active.id, timestamp=stamp))
        elif step > 1 and self.referent and origin is not None and origin.envelope is not None:
            for e in origin.envelope.evidence:
                if self.referent in entity_keys_of(e.text):
                    out.append(ScopedSnapshot(
                        source_type="active_widget_snapshot", source_id=e.id, scope=scope,
                        text=f"{e.path}:{e.start_line}-{e.end_line}\n{e.text}",
                        option_set_id=active.id, timestamp=stamp))
        return SemanticEnrichment(snapshots=tuple(out[:ENRICH_MAX_SNAPSHOTS]))


def _anchored_action(ctx: TurnContext) -> ActionTraceEntry | None:
    """The action of the replied-to turn (`--reply-to N`), rebuilt from the stored turn."""
    focus = ctx.plan.focus
    if focus.source != "reply_anchor" or focus.anchor_turn_id is None:
        return None
    turn = next((t for t in ctx.turns if t.turn_id == focus.anchor_turn_id), None)
    if turn is None:
        return None
    if turn.opened is not None:
        target = turn.opened.target
        kind = "focus_symbol" if target.kind == "symbol" else "open_span"
        return ActionTraceEntry(type=kind, target_ref=target, source_scope="session",  # type: ignore[arg-type]
                                option_set_id=None, timestamp=_ms(turn), outcome="executed")
    if turn.shown is not None and turn.lane == "graph":
        kind = "list_callers" if turn.shown.kind == "callers" else "list_tests"
        return ActionTraceEntry(type=kind, target_ref=TargetRef(  # type: ignore[arg-type]
            kind="none", id=f"turn:{turn.turn_id}", label=turn.text), source_scope="session",
            option_set_id=turn.shown.option_set_id, timestamp=_ms(turn), outcome="executed")
    return None


def _history(turns: Sequence[TurnResult], window: int) -> tuple[TurnSummary, ...]:
    """The recent chat window, newest first (CHAT_HISTORY_MAX_TURNS; the lane caps tokens)."""
    return tuple(reversed(summaries(turns[-window:])))


def run_semantic(ctx: TurnContext) -> Steps[LaneOutcome]:
    plan, state = ctx.plan, ctx.state
    settings = ctx.config.continuity
    intent = plan.intent if plan.intent in SLOT_SCHEMA else None
    last_turn = ctx.turns[-1] if ctx.turns else None
    decision = yield from semantic_steps(
        plan.text, state, settings, now_ms=ctx.now_ms, intent=intent,
        history=_history(ctx.turns, settings.caps.chat_history_max_turns),
        snapshots=_snapshots(ctx),
        explanation_scope=state.active_scope,
        explanation_ms=_ms(last_turn) if last_turn else None,
        model_ready=ctx.model_ready("semantic_answer"),
        enricher=SessionSemanticEnricher(ctx, plan.text),
        anchored=_anchored_action(ctx))
    if decision.kind == "handoff":
        out = yield from run_selection(ctx)
        return LaneOutcome(**{**out.__dict__, "events": (*decision.events, *out.events)})
    source = (state.last_resolved_action.turn_id if state.last_resolved_action
              else (last_turn.turn_id if last_turn else 0))
    if plan.focus.source == "reply_anchor" and plan.focus.anchor_turn_id is not None:
        source = plan.focus.anchor_turn_id
    kind: MetaQuestionKind = ("memory_recap" if plan.transition == "T9"
                              else "answer_interpretation")
    if decision.kind == "answer":
        evidence = decision.evidence
        listed = evidence is not None and evidence.option_set_id is not None
        frame = MetaFrameState(source_answer_object_ref=source, meta_question_kind=kind,
                               source_gate_status=state.coverage_gate_state.coverage_status,
                               meta_truth_mode="confirmed", answered_turn_id=ctx.turn_id,
                               referent_id=evidence.source_id if evidence and listed else None)
        updates: dict[StateSlot, Any] = {"meta_frame": frame}
        if decision.mutations.last_assistant_explanation is not None:  # the lane's mutation
            updates["explanation"] = decision.mutations.last_assistant_explanation
        return LaneOutcome(lane="semantic", transition=plan.transition, intent=plan.intent,
                           answer=decision.answer, answer_mode="continuity",
                           updates=updates, events=decision.events,
                           reasons=(decision.reason,))
    clarifier = decision.clarifier
    text = clarifier.question if clarifier else "Which earlier turn do you mean?"
    frame = MetaFrameState(source_answer_object_ref=source, meta_question_kind=kind,
                           source_gate_status=state.coverage_gate_state.coverage_status,
                           meta_truth_mode="clarification_required")
    changes: dict[StateSlot, Any] = {"meta_frame": frame}
    waiting = decision.mutations.pending_clarifier_type
    if waiting is not None and waiting != "none":
        # the packed clarifier waits for its missing slots (pendingClarifierType): the next
        # turn is routed afresh (no strict answer type), the pending dropped then
        changes["pending"] = make_pending(
            kind="slot_request", expected_type=SLOT_PREFIX + "|".join(decision.missing_slots),
            clarifier_type=waiting,
            anchor_turn_id=ctx.turn_id, thread_key=ctx.session_id, now_ms=ctx.now_ms,
            caps=settings.caps)
    return LaneOutcome(lane="semantic", transition=plan.transition, intent=plan.intent,
                       answer=text, answer_mode="clarify", updates=changes,
                       events=decision.events,
                       reasons=(decision.reason, decision.fallback_reason or ""))

