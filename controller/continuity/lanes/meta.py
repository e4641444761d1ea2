"""Turns about the conversation itself: meta (T8), recap (T9), interrupts and "back" (T1 / T6).

None of them retrieves: meta answers from the stored envelope of the answer asked about (the
turn replied to with `--reply-to`, else the last answer), recap from the stored turns only
(a recap asking what changed since an earlier answer asks the driver for that answer's drift:
its question re-run as a dry run, nothing logged), interrupts drop what they must and keep the
root question.
"""

from __future__ import annotations

from typing import Any

from controller.continuity import phrases as say
from controller.continuity import recall
from controller.continuity.events import ContinuityEvent
from controller.continuity.lanes.context import LaneOutcome, TurnContext, action, boundary
from controller.continuity.requests import CheckDrift, Steps
from controller.continuity.state import (
    ContinuityState,
    CoverageGateState,
    FocusState,
    InvestigationState,
    MetaFrameState,
    OptionSet,
    TargetRef,
    TruthMode,
)
from controller.continuity.transitions import StateSlot
from controller.continuity.turn import ShownList, TurnResult
from helix.core.errors import HelixError


def _meta_source(ctx: TurnContext) -> TurnResult | None:
    """The answer a meta question is about: the replied-to turn, else the last answer (or
    a graph list shown after it)."""
    by_id = {t.turn_id: t for t in ctx.turns}
    focus = ctx.plan.focus
    if focus.source == "reply_anchor" and focus.anchor_turn_id is not None:
        return by_id.get(focus.anchor_turn_id)
    answer_ctx = ctx.state.answer_context_state
    assert answer_ctx is not None  # the router checked
    # a later object-level answer about the same root: a graph list, or a "tell me more"
    later = [t for t in ctx.turns if t.turn_id > answer_ctx.turn_id and (
        (t.lane == "graph" and t.transition == "T4")
        or (t.intent in ("explain_item", "explain_focused") and t.envelope is not None))]
    return later[-1] if later else by_id.get(answer_ctx.turn_id)


def run_meta(ctx: TurnContext) -> LaneOutcome:
    state = ctx.state
    source = _meta_source(ctx)
    if source is None:
        return boundary(ctx, "the earlier answer is no longer stored", lane="meta")
    if source.envelope is None and source.shown is None:
        return boundary(ctx, f"turn {source.turn_id} ({source.intent}) gave no answer to "
                             "discuss", lane="meta")
    answer, truth = recall.meta_answer(source, ctx.plan.text)
    frame = MetaFrameState(source_answer_object_ref=source.turn_id,
                           meta_question_kind="evaluation",
                           source_gate_status=state.coverage_gate_state.coverage_status,
                           meta_truth_mode=truth)  # type: ignore[arg-type]
    return LaneOutcome(lane="meta", transition="T8", intent=ctx.plan.intent, answer=answer,
                       answer_mode="continuity", updates={"meta_frame": frame},
                       events=(ContinuityEvent(name="meta_answer", reason=truth,
                                               data={"source_turn": source.turn_id}),))


def run_recap(ctx: TurnContext) -> Steps[LaneOutcome]:
    """T9: a recap from the stored turns; one that asks what changed since an earlier answer
    (`phrases.RECAP_CHANGED`) gets that answer's drift, checked now."""
    if say.RECAP_CHANGED.match(say.body(ctx.plan.text)):
        return (yield from _drift_recap(ctx))
    answer, hits = recall.recap(ctx.turns, ctx.plan.topic)
    source = hits[-1] if hits else (ctx.turns[-1].turn_id if ctx.turns else 0)
    frame = MetaFrameState(source_answer_object_ref=source, meta_question_kind="memory_recap",
                           source_gate_status=ctx.state.coverage_gate_state.coverage_status,
                           meta_truth_mode="confirmed" if ctx.turns else "unsupported")
    return LaneOutcome(lane="recap", transition="T9", intent=ctx.plan.intent, answer=answer,
                       answer_mode="continuity", updates={"meta_frame": frame},
                       events=(ContinuityEvent(name="memory_recap", reason=ctx.plan.topic or "",
                                               data={"matching_turns": hits}),))


def _drift_recap(ctx: TurnContext) -> Steps[LaneOutcome]:
    source = recall.answered(ctx.turns, ctx.plan.topic)
    about = f" about \"{ctx.plan.topic}\"" if ctx.plan.topic else ""
    if source is None or source.envelope is None:
        return _recap_outcome(ctx, f"No earlier answer{about} in this session to compare "
                                   "with: ask it first.", [], "unsupported", "none")
    try:
        drifted = yield CheckDrift(source.envelope)
    except HelixError as exc:
        return _recap_outcome(ctx, f"Turn {source.turn_id} could not be checked now ({exc}).",
                              [source.turn_id], "unsupported", "error")
    return _recap_outcome(ctx, recall.drift_recap(source, drifted), [source.turn_id],
                          "confirmed", drifted.severity)


def _recap_outcome(ctx: TurnContext, answer: str, hits: list[int], truth: TruthMode,
                   drift: str) -> LaneOutcome:
    source = hits[-1] if hits else (ctx.turns[-1].turn_id if ctx.turns else 0)
    frame = MetaFrameState(source_answer_object_ref=source, meta_question_kind="memory_recap",
                           source_gate_status=ctx.state.coverage_gate_state.coverage_status,
                           meta_truth_mode=truth)
    return LaneOutcome(lane="recap", transition="T9", intent=ctx.plan.intent, answer=answer,
                       answer_mode="continuity", updates={"meta_frame": frame},
                       events=(ContinuityEvent(name="memory_recap", reason=ctx.plan.topic or "",
                                               data={"matching_turns": hits,
                                                     "drift": drift}),))


def _root_list(state: ContinuityState) -> OptionSet | None:
    root = state.root_frame
    if root is None:
        return None
    for option_set in state.option_sets:
        if option_set.origin_turn_id == root.root_answer_object_ref:
            return option_set
    return None


def run_interrupt(ctx: TurnContext) -> LaneOutcome:
    plan, state = ctx.plan, ctx.state
    target = TargetRef(kind="none", id="", label=plan.text)
    if plan.intent == "reset":
        updates: dict[StateSlot, Any] = {
            "root_frame": None, "selected_object": None, "clarification": None,
            "answer_context": None, "coverage_gate": CoverageGateState(), "meta_frame": None,
            "option_sets": None, "focus": FocusState(), "pending": None,
            "investigation": InvestigationState(), "explanation": "",
            "last_resolved_action": None, "recent_action_trace": None, "loop_guard": None}
        return LaneOutcome(lane="interrupt", transition="T1", intent="reset",
                           answer="Started over: no question, list or focus is carried on. "
                                  "The session log is kept.",
                           answer_mode="continuity", updates=updates)
    root_list = _root_list(state)
    updates = {"selected_object": None, "pending": None, "clarification": None,
               "focus": FocusState(), "option_sets": root_list.id if root_list else None,
               "loop_guard": None}
    if plan.intent == "back_to_root":
        if state.root_frame is None:
            return boundary(ctx, "there is no earlier question to go back to", lane="root")
        answer = f"Back to \"{state.root_frame.question}\"."
    else:
        selected = state.selected_object
        dropped = [name for name, value in (
            ("the pending question", state.pending),
            ("the focused object", None if selected and selected.shown_only else selected))
            if value is not None]
        answer = "Stopped" + (f" ({', '.join(dropped)} dropped)" if dropped else "") + "."
        if state.root_frame is not None:
            answer += f" Still on \"{state.root_frame.question}\"."
    done = action(ctx, "interrupt", target, scope=state.active_scope or "session",
                  option_set_id=root_list.id if root_list else None, outcome="interrupted",
                  reason=plan.intent)
    return LaneOutcome(lane=plan.lane, transition="T6", intent=plan.intent, answer=answer,
                       answer_mode="continuity", updates=updates, action=done,
                       shown=ShownList.of(root_list) if root_list else None)
