"""The semantic lane in a session turn (T8 / T9 answers about what happened; never executes).

Hands the lane its bounded inputs (recent turns, the focused object's excerpt as the scoped
entity snapshot, the active list as the widget snapshot) and maps its decision onto the turn:
answer -> a meta frame; one packed clarifier -> answer text, nothing executed; handoff -> the
selection lane (a command-like turn); flag off -> the lane's own safe clarifier.
"""

from __future__ import annotations

from typing import Any

from controller.continuity.semantic import SLOT_SCHEMA, run_semantic_lane
from controller.continuity.semantic_evidence import ScopedSnapshot
from controller.continuity.state import MetaFrameState, MetaQuestionKind
from controller.continuity.transitions import StateSlot
from helix.session.lanes import LaneOutcome, TurnContext, run_selection
from helix.session.store import summaries

MS_PER_S = 1000


def _snapshots(ctx: TurnContext) -> tuple[ScopedSnapshot, ...]:
    state = ctx.state
    scope = state.active_scope or "session"
    out: list[ScopedSnapshot] = []
    opened = [t for t in ctx.turns if t.opened is not None]
    if state.selected_object is not None and opened:
        last = opened[-1]
        assert last.opened is not None
        out.append(ScopedSnapshot(
            source_type="active_scoped_entity", source_id=last.opened.target.id, scope=scope,
            text=f"{last.opened.target.label} {last.opened.path}:{last.opened.start_line}\n"
                 f"{last.opened.text}", option_set_id=state.active_option_set_id,
            timestamp=int(last.created_at * MS_PER_S)))
    active = state.active_option_set()
    if active is not None:
        text = "\n".join(f"{i.index}. {i.label} {i.sublabel}" for i in active.items)
        origin = next((t for t in ctx.turns if t.turn_id == active.origin_turn_id), None)
        out.append(ScopedSnapshot(
            source_type="active_widget_snapshot", source_id=active.id, scope=active.scope,
            text=text, option_set_id=active.id,
            timestamp=int(origin.created_at * MS_PER_S) if origin else ctx.now_ms))
    return tuple(out)


def run_semantic(ctx: TurnContext) -> LaneOutcome:
    plan, state = ctx.plan, ctx.state
    settings = ctx.config.continuity
    intent = plan.intent if plan.intent in SLOT_SCHEMA else None
    last_turn = ctx.turns[-1] if ctx.turns else None
    model = ctx.config.synthesis.model
    decision = run_semantic_lane(
        plan.text, state, settings, now_ms=ctx.now_ms, intent=intent,
        history=tuple(reversed(summaries(ctx.turns))), snapshots=_snapshots(ctx),
        explanation_scope=state.active_scope,
        explanation_ms=int(last_turn.created_at * MS_PER_S) if last_turn else None,
        llm=ctx.llm if model else None, model=model, api_base=ctx.config.synthesis.api_base)
    if decision.kind == "handoff":
        out = run_selection(ctx)
        return LaneOutcome(**{**out.__dict__, "events": (*decision.events, *out.events)})
    source = (state.last_resolved_action.turn_id if state.last_resolved_action
              else (last_turn.turn_id if last_turn else 0))
    kind: MetaQuestionKind = ("memory_recap" if plan.transition == "T9"
                              else "answer_interpretation")
    if decision.kind == "answer":
        frame = MetaFrameState(source_answer_object_ref=source, meta_question_kind=kind,
                               source_gate_status=state.coverage_gate_state.coverage_status,
                               meta_truth_mode="confirmed")
        updates: dict[StateSlot, Any] = {"meta_frame": frame}
        if decision.mutations.last_assistant_explanation is not None:  # the lane's mutation
            updates["explanation"] = decision.mutations.last_assistant_explanation
        return LaneOutcome(lane="semantic", transition=plan.transition, intent=plan.intent,
                           answer=decision.answer, answer_mode="continuity",
                           updates=updates, events=decision.events,
                           reasons=(decision.reason,))
    clarifier = decision.clarifier
    text = clarifier.question if clarifier else "Which earlier turn do you mean?"
    if clarifier and clarifier.options:
        text += "\n" + "\n".join(f"  - {option}" for option in clarifier.options)
    frame = MetaFrameState(source_answer_object_ref=source, meta_question_kind=kind,
                           source_gate_status=state.coverage_gate_state.coverage_status,
                           meta_truth_mode="clarification_required")
    return LaneOutcome(lane="semantic", transition=plan.transition, intent=plan.intent,
                       answer=text, answer_mode="clarify", updates={"meta_frame": frame},
                       events=decision.events,
                       reasons=(decision.reason, decision.fallback_reason or ""))
