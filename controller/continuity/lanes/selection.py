"""The selection lane in a session turn (T3 / T5): resolve, then open the span or clarify.

The pure lane (`controller.continuity.selection`) decides; this module gives it the session's
inputs (the list the plan names made active, the rejected choice of a correction, whether a
selection model is configured, a repository snapshot enricher) and turns its decision into a
turn: an opened span, or a clarifier whose options become their own numbered list (so "the
second" means the second option shown), with a typed pending state that a strict answer
resolves - through this lane's safe-winner and loop-guard gates again, never directly.
"""

from __future__ import annotations

from typing import Any

from controller.continuity.events import ContinuityEvent
from controller.continuity.lanes.context import (
    LaneOutcome,
    TurnContext,
    action,
    boundary,
    with_changes,
)
from controller.continuity.pending import make_pending, selection_expected_type
from controller.continuity.requests import OpenSpan, Steps
from controller.continuity.selection import (
    EnrichmentType,
    SelectionDecision,
    SelectionEnrichment,
    offered_option_set,
)
from controller.continuity.semantic import MixedOutcome, mixed_intent_steps
from controller.continuity.state import (
    ContinuityState,
    OptionItem,
    OptionSet,
    ResolvedAction,
    SelectedObjectFrameState,
    TargetRef,
    TransitionClass,
)
from controller.continuity.transitions import ChoiceUpdate, StateSlot
from controller.continuity.turn import ShownList
from helix.core.errors import BadPathError
from helix.core.hashing import digest


class RepoSnapshotEnricher:
    """Selection-lane enrichment (orchestrator-driven, current candidates only): adds each
    candidate's first non-blank span line to its sublabel, read from the repository (a span
    read per candidate, yielded to the driver)."""

    SNIPPET_MAX_CHARS = 80

    def _first_line(self, target: TargetRef) -> Steps[str]:
        try:
            opened = yield OpenSpan(target, 8)
        except (BadPathError, OSError):
            return ""
        for line in opened.text.splitlines():
            body = line.split("  ", 1)[-1].strip()
            if body:
                return body[: self.SNIPPET_MAX_CHARS]
        return ""

    def enrich(self, types: tuple[EnrichmentType, ...], option_set: OptionSet,
               pool: tuple[OptionItem, ...]) -> Steps[SelectionEnrichment]:
        items, hashes = [], []
        for item in pool:
            line = yield from self._first_line(item.target)
            if line and line not in item.sublabel:
                items.append(item.model_copy(update={"sublabel": f"{item.sublabel} | {line}"}))
                hashes.append(digest(line))
        return SelectionEnrichment(items=tuple(items), excerpt_hashes=tuple(sorted(hashes)))


def selected_frame(state: ContinuityState, target: TargetRef,
                   option_set: OptionSet | None) -> SelectedObjectFrameState:
    root = state.root_frame
    return SelectedObjectFrameState(
        focus_object_ref=target, focus_object_kind=target.kind,
        source_result_set_id=root.root_result_set_id if root else None,
        compatible_route_family="object",
        provenance_bundle_ref=option_set.id if option_set else None,
        temporal_ceiling=root.revision if root else "")


def chosen_updates(ctx: TurnContext, choice: OptionItem | None,
                   option_set: OptionSet | None) -> dict[StateSlot, Any]:
    """A choice's bookkeeping: accepted (and the correction's rejected) ids; a choice made
    from a clarifier's offered options makes the list they came from active again."""
    updates: dict[StateSlot, Any] = {}
    rejected = ctx.plan.rejected_choice_id
    if choice is not None or rejected is not None:
        updates["choices"] = ChoiceUpdate(accepted=choice.id if choice else None,
                                          rejected=rejected)
    parent = option_set.parent_id if option_set else None
    if parent and ctx.state.option_set(parent) is not None:
        updates["option_sets"] = parent
    return updates


def _open(ctx: TurnContext, item_target: TargetRef, *, option_set: OptionSet | None,
          choice: OptionItem | None, done: ResolvedAction | None, reason: str,
          events: tuple[ContinuityEvent, ...], transition: TransitionClass
          ) -> Steps[LaneOutcome]:
    try:
        opened = yield OpenSpan(item_target, ctx.config.continuity.open_span_max_lines)
    except (BadPathError, OSError) as exc:
        return boundary(ctx, str(exc), lane="selection", events=events)
    state = ctx.state
    scope = option_set.scope if option_set else (state.active_scope or "focus")
    if done is None:
        done = action(ctx, "focus_symbol" if item_target.kind == "symbol" else "open_span",
                      item_target, scope=scope, option_set_id=option_set.id if option_set else None,
                      outcome="executed", reason=reason)
    label = item_target.symbol or item_target.label
    answer = (f"{opened.path}:{opened.start_line}-{opened.end_line}"
              + (f" ({label})" if label and label != opened.path else "")
              + ("  [truncated]" if opened.truncated else "") + "\n" + opened.text)
    updates: dict[StateSlot, Any] = {
        "pending": None, "explanation": f"opened {opened.path}:{opened.start_line} because "
                                        f"{done.reason}", "loop_guard": None}
    if transition == "T3":
        updates["selected_object"] = selected_frame(state, item_target, option_set)
        updates.update(chosen_updates(ctx, choice, option_set))
    elif choice is not None:
        updates["choices"] = choice.id
    return LaneOutcome(lane="selection", transition=transition, intent=ctx.plan.intent,
                       answer=answer, answer_mode="continuity", updates=updates, action=done,
                       opened=opened, events=events, reasons=(done.reason,))


def _with_active(state: ContinuityState, option_set_id: str | None) -> ContinuityState:
    kept = state.option_set(option_set_id) if option_set_id else None
    if kept is None or kept.id == state.active_option_set_id:
        return state
    return state.model_copy(update={"active_option_set_id": kept.id, "active_scope": kept.scope})


def resolve(ctx: TurnContext) -> Steps[tuple[MixedOutcome, ContinuityState]]:
    """Run the selection lane on the list the plan names (a correction's rejected choice
    counted as rejected already). Mixed intent ("open 2 and explain why"): the selection lane
    first, then the semantic lane answers the clause from the new lastResolvedAction."""
    plan, state = ctx.plan, ctx.state
    lane_state = _with_active(state, plan.option_set_id)
    rejected = plan.rejected_choice_id
    if rejected and rejected not in lane_state.recent_rejected_choice_ids:
        window = ctx.config.continuity.caps.recent_choice_window
        lane_state = lane_state.model_copy(update={"recent_rejected_choice_ids": (
            rejected, *lane_state.recent_rejected_choice_ids)[:window]})
    mixed = yield from mixed_intent_steps(
        plan.selection_text or plan.text, lane_state, ctx.config.continuity, now_ms=ctx.now_ms,
        model_ready=ctx.model_ready("selection_advisory"), enricher=RepoSnapshotEnricher(),
        said=plan.text)
    return mixed, lane_state


def clarified(ctx: TurnContext, decision: SelectionDecision,
              lane_state: ContinuityState) -> LaneOutcome:
    """The lane's clarifier: its options as their own numbered list, a typed pending state."""
    plan, settings = ctx.plan, ctx.config.continuity
    option_set = lane_state.option_set(decision.option_set_id or "")
    if option_set is None:
        return boundary(ctx, decision.clarifier_text.rstrip("."), lane="selection",
                        events=decision.events)
    offered = offered_option_set(option_set, decision.options or option_set.items, ctx.turn_id)
    updates: dict[StateSlot, Any] = {"loop_guard": decision.mutations.selection_loop_guard,
                                     "option_sets": offered}
    if plan.rejected_choice_id:
        updates["choices"] = ChoiceUpdate(rejected=plan.rejected_choice_id)
    # the answer's lead stays selected: a message that answers none of the options drops the
    # pending (focus-context-pending-state step 3: it must not hijack routing), and "it" is
    # then what the last answer led with, as if the clarifier had not been asked
    if settings.pending_state:
        updates["pending"] = make_pending(
            kind="workflow_waiting",
            expected_type=selection_expected_type(tuple(i.label for i in offered.items)),
            clarifier_type=decision.mutations.pending_clarifier_type
            or "selection_disambiguation", anchor_turn_id=ctx.turn_id,
            thread_key=ctx.session_id, now_ms=ctx.now_ms, option_set_id=offered.id,
            caps=settings.caps, followup_clause=decision.followup_clause)
    target = TargetRef(kind="none", id="", label=plan.text)
    done = action(ctx, "clarify", target, scope=decision.scope or "evidence",
                  option_set_id=offered.id, outcome="clarified", reason=decision.reason)
    return LaneOutcome(lane="selection", transition="T3", intent=plan.intent,
                       answer=decision.clarifier_text, answer_mode="clarify", updates=updates,
                       action=done, shown=ShownList.of(offered), events=decision.events,
                       reasons=(decision.reason,))


def run_selection(ctx: TurnContext) -> Steps[LaneOutcome]:
    plan, state = ctx.plan, ctx.state
    if plan.transition == "T5" and plan.target is not None \
            and ctx.config.continuity.selection_lane:
        event = ContinuityEvent(
            name="selection_deterministic_continuity_resolve", reason="focused object",
            active_option_set_id=state.active_option_set_id, active_scope=state.active_scope,
            data={"winner_id": plan.target.id, "focus_source": plan.focus.source})
        return (yield from _open(ctx, plan.target, option_set=None, choice=None, done=None,
                                 reason=f"'{plan.text}' refers to the focused "
                                        f"{plan.target.label}", events=(event,),
                                 transition="T5"))
    mixed, lane_state = yield from resolve(ctx)
    decision: SelectionDecision = mixed.selection
    events = decision.events
    option_set = lane_state.option_set(decision.option_set_id or "")
    if decision.kind == "execute" and decision.candidate is not None:
        out = yield from _open(ctx, decision.candidate.target, option_set=option_set,
                               choice=decision.candidate,
                               done=decision.mutations.last_resolved_action,
                               reason=decision.reason, events=events, transition="T3")
        sem = mixed.semantic
        if sem is not None and sem.kind == "answer" and out.transition == "T3":
            out = with_changes(out, answer=f"{out.answer}\n\nWhy: {sem.answer}",
                               events=(*out.events, *sem.events),
                               updates={**out.updates, "explanation": sem.answer})
        return out
    if decision.kind == "clarify":
        return clarified(ctx, decision, lane_state)
    if plan.target is not None and state.selected_object is not None:
        # escape with a focused object: "open it" still means it
        return (yield from _open(ctx, plan.target, option_set=None, choice=None, done=None,
                                 reason="the focused object", events=events, transition="T5"))
    if decision.reason == "question_intent" and state.pending is not None \
            and state.pending_clarifier_type == "selection_disambiguation":
        return reasked(ctx, events)
    return boundary(ctx, f"no list to choose from ({decision.reason})", lane="selection",
                    events=events)


def reasked(ctx: TurnContext, events: tuple[ContinuityEvent, ...]) -> LaneOutcome:
    """A question while a selection clarifier waits (handed over by the semantic lane, which
    must not enter then): the choice is asked again in the same context, the pending kept."""
    offered = ctx.state.active_option_set()
    options = "; ".join(f"{i.index}. {i.label}" for i in offered.items) if offered else ""
    answer = ("A choice is still open, so I have not answered that yet: which one do you mean"
              + (f" ({options})" if options else "") + "? Say 'cancel' to drop the choice.")
    target = TargetRef(kind="none", id="", label=ctx.plan.text)
    done = action(ctx, "clarify", target, scope=ctx.state.active_scope or "evidence",
                  option_set_id=offered.id if offered else None, outcome="clarified",
                  reason="selection clarifier pending")
    return LaneOutcome(lane="selection", transition="T3", intent=ctx.plan.intent, answer=answer,
                       answer_mode="clarify", updates={}, action=done,
                       shown=ShownList.of(offered) if offered else None, events=events,
                       reasons=("selection clarifier pending: asked again",))
