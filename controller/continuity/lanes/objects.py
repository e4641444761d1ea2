"""Object-level follow-ups in a session turn: over the index graph, or retrieved around.

    run_graph            T4  "who calls it?" / "is it tested?": the graph only, no retrieval
    run_explain_focused  T4  "tell me more about that" / "explain it": the focused object,
                             retrieved around (the controller asked about it); the root
                             question, its list and the focus stay as they are
    run_explain_item     T3  "tell me more about the first one": the item is chosen by the
                             selection lane's gates, selected, then retrieved around
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from controller.continuity.events import ContinuityEvent
from controller.continuity.graph_focus import (
    GraphKind,
    describe_followup,
    graph_followup,
    resolve_focus_symbols,
)
from controller.continuity.lanes.context import LaneOutcome, TurnContext, action, boundary
from controller.continuity.lanes.selection import chosen_updates, clarified, resolve, selected_frame
from controller.continuity.requests import LoadGraph, OpenSpan, Retrieve, Steps
from controller.continuity.selection import SelectionDecision
from controller.continuity.state import OptionItem, OptionSet, TargetRef
from controller.continuity.transitions import StateSlot
from controller.continuity.turn import ShownList
from helix.core.english import POINTING_WORDS, word_alternation
from helix.core.envelope import Envelope
from helix.core.errors import BadPathError, HelixError

_SENSE = "sense:"


def _section_text(ctx: TurnContext, target: TargetRef) -> Steps[str]:
    if target.kind not in ("section", "tree_node") or not target.path:
        return ""
    try:
        opened = yield OpenSpan(target, ctx.config.continuity.open_span_max_lines)
    except (BadPathError, OSError):
        return ""
    return str(opened.text)


def run_graph(ctx: TurnContext) -> Steps[LaneOutcome]:
    """T4 on the focused object: resolved to definitions (or its file) over the index graph;
    the graph only, no root retrieval."""
    target = ctx.plan.target
    assert target is not None
    out = yield from _graph_of(ctx, target)
    if out.transition == "T10":
        return out
    return _read_as(ctx, target, out, grounded=True)


_POINTER = re.compile(rf"\b({word_alternation(POINTING_WORDS)})\b", re.I)


def _read_as(ctx: TurnContext, target: TargetRef, out: LaneOutcome, *,
             grounded: bool) -> LaneOutcome:
    """`out` with one line first saying which object a follow-up acted on when nothing was
    chosen or opened: the last answer's lead (`grounded`: said for the graph only), or the
    closest match an ungrounded answer showed first, which the gate's `object_only` carryover
    lets the turn act on, not the answer's claims: "Read 'it' as X, the closest match shown"."""
    selected = ctx.state.selected_object
    if selected is None or not selected.from_answer or selected.focus_object_ref.id != target.id \
            or not (grounded or selected.shown_only):
        return out
    label = target.symbol or target.label
    name = label if label == target.path else f"{label}{_where(target)}"
    if selected.shown_only:
        said = _POINTER.findall(ctx.plan.text)  # the last: "a test that checks this?"
        answer = ctx.state.answer_context_state
        asked = f'"{answer.question}"' if answer else "the last question"
        line = (f"Read '{said[-1].lower() if said else 'it'}' as {name}, the closest match "
                f"shown: nothing found answers {asked}.")
    else:
        line = f"Taking {name}, the item the last answer led with."
    return replace(out, answer=f"{line}\n{out.answer}", reasons=(*out.reasons, line))


def _choose(ctx: TurnContext
            ) -> Steps[LaneOutcome | tuple[OptionItem, OptionSet | None, SelectionDecision]]:
    """The item a T3 follow-up names, chosen through the selection lane's gates: (item, its
    list, the decision), or the turn's outcome when none can be (a clarifier, or no list)."""
    mixed, lane_state = yield from resolve(ctx)
    decision: SelectionDecision = mixed.selection
    if decision.kind == "clarify":
        return clarified(ctx, decision, lane_state)
    if decision.kind != "execute" or decision.candidate is None:
        return boundary(ctx, f"no list to choose from ({decision.reason})", lane="selection",
                        events=decision.events)
    return decision.candidate, lane_state.option_set(decision.option_set_id or ""), decision


def run_graph_item(ctx: TurnContext) -> Steps[LaneOutcome]:
    """T3: "who calls it?" with nothing opened (the item the last answer led with) or "who
    calls the second one?": the item chosen through the selection lane's gates, selected, then
    its callers or tests over the index graph; the answer says which item was taken."""
    plan, state = ctx.plan, ctx.state
    chosen = yield from _choose(ctx)
    if isinstance(chosen, LaneOutcome):
        return chosen
    choice, option_set, decision = chosen
    out = yield from _graph_of(ctx, choice.target)
    if out.transition == "T10":
        return out
    taken = (f"Taking item {choice.index}, {choice.target.symbol or choice.target.label}"
             f"{_where(choice.target)}: {plan.reasons[-1].split(' -> ')[-1]}.")
    updates: dict[StateSlot, Any] = {
        **out.updates, "selected_object": selected_frame(state, choice.target, option_set),
        "pending": None, "loop_guard": None, **chosen_updates(ctx, choice, option_set)}
    if "option_sets" in out.updates:  # the callers list is the new active list
        updates["option_sets"] = out.updates["option_sets"]
    return replace(out, transition="T3", lane="selection", answer=f"{taken}\n{out.answer}",
                   updates=updates, events=(*decision.events, *out.events),
                   reasons=(*out.reasons, taken))


def _graph_of(ctx: TurnContext, target: TargetRef) -> Steps[LaneOutcome]:
    plan, state = ctx.plan, ctx.state
    kind: GraphKind = "callers" if plan.intent == "graph_callers" else "tests"
    try:
        graph = yield LoadGraph()
    except HelixError as exc:
        return boundary(ctx, f"the index graph is not available ({exc})", lane="graph")
    context = " ".join(x for x in (state.root_frame.question if state.root_frame else "",
                                   plan.text, target.label) if x)
    settings = ctx.config.continuity
    section_text = yield from _section_text(ctx, target)
    focus = resolve_focus_symbols(graph, target, context=context, section_text=section_text,
                                  max_symbols=settings.graph_focus_max_symbols)
    result = graph_followup(graph, focus, kind, turn_id=ctx.turn_id,
                            max_items=settings.graph_list_max_items)
    answer = describe_followup(kind, target, result, graph)
    option_set = result.option_set
    event = ContinuityEvent(name="graph_followup", reason=kind,
                            data={"definitions": list(focus.defs), "files": list(focus.files),
                                  "basis": focus.basis, "found": result.total,
                                  "widened_to": result.widened_to})
    if not focus.defs and not focus.files:
        return boundary(ctx, answer.rstrip("."), lane="graph", events=(event,))
    names = ", ".join(focus.names(graph))
    done = action(ctx, "list_callers" if kind == "callers" else "list_tests", target,
                  scope=kind, option_set_id=option_set.id if option_set else None,
                  outcome="executed", reason=f"{kind} of the focused {target.label} ({names})")
    updates: dict[StateSlot, Any] = {"explanation": answer}
    if option_set is not None:
        updates["option_sets"] = option_set
    return LaneOutcome(lane="graph", transition="T4", intent=plan.intent, answer=answer,
                       answer_mode="continuity", updates=updates, action=done,
                       shown=ShownList.of(option_set) if option_set else None,
                       events=(event,))


def explain_question(target: TargetRef) -> str:
    """What the controller is asked to retrieve around an object."""
    if target.symbol:
        return f"explain {target.symbol}"
    if target.kind == "section":
        return f"explain {target.label.split('>')[-1].strip() or target.label}"
    if target.path and target.kind in ("file", "span"):
        return f"explain {target.path}"
    return f"explain {target.label or target.id}"


def _where(target: TargetRef) -> str:
    if target.path and target.start_line:
        return f" ({target.path}:{target.start_line}-{target.end_line or target.start_line})"
    return f" ({target.path})" if target.path else ""


def _retrieve_around(ctx: TurnContext, target: TargetRef
                     ) -> Steps[tuple[Envelope | None, str, str]]:
    """(envelope, question, why-not): the controller asked about `target` (a clarifier's
    option: the suspended root question with that sense)."""
    question, sense = explain_question(target), None
    root = ctx.state.root_frame
    if target.kind == "option" and target.id.startswith(_SENSE) and root is not None:
        question, sense = root.question, target.id[len(_SENSE):]
    try:
        return (yield Retrieve(question, None, sense)), question, ""
    except HelixError as exc:
        return None, question, f"the question could not run ({exc})"


def _explained(ctx: TurnContext, target: TargetRef, envelope: Envelope, question: str,
               events: tuple[ContinuityEvent, ...]) -> tuple[str, tuple[ContinuityEvent, ...]]:
    ran = ContinuityEvent(name="retrieval_run", reason=ctx.plan.intent,
                          data={"question": question, "target": target.id,
                                "route": envelope.route, "stop": envelope.stop_reason,
                                "evidence": len(envelope.evidence)})
    head = f"About {target.symbol or target.label}{_where(target)}:"
    return f"{head}\n{envelope.answer}", (*events, ran)


def run_explain_focused(ctx: TurnContext) -> Steps[LaneOutcome]:
    """T4: "tell me more about that" on the focused object, retrieved around."""
    plan = ctx.plan
    assert plan.target is not None
    target = plan.target
    envelope, question, failed = yield from _retrieve_around(ctx, target)
    if envelope is None:
        return boundary(ctx, failed, lane="explain")
    answer, events = _explained(ctx, target, envelope, question, ())
    if not envelope.evidence:
        return boundary(ctx, f"nothing more was found about {target.label}", lane="explain",
                        envelope=envelope, events=events)
    done = action(ctx, "explain_object", target, scope=ctx.state.active_scope or "focus",
                  option_set_id=ctx.state.active_option_set_id, outcome="answered",
                  reason=f"'{plan.text}' refers to the focused {target.label}")
    out = LaneOutcome(lane="explain", transition="T4", intent=plan.intent, answer=answer,
                      answer_mode=envelope.answer_mode, updates={"explanation": envelope.answer},
                      action=done, envelope=envelope, events=events, reasons=(done.reason,))
    return _read_as(ctx, target, out, grounded=False)


def run_explain_item(ctx: TurnContext) -> Steps[LaneOutcome]:
    """T3: "tell me more about the first one": chosen through the selection lane's gates,
    selected, then retrieved around."""
    plan, state = ctx.plan, ctx.state
    chosen = yield from _choose(ctx)
    if isinstance(chosen, LaneOutcome):
        return chosen
    choice, option_set, decision = chosen
    target = choice.target
    envelope, question, failed = yield from _retrieve_around(ctx, target)
    if envelope is None:
        return boundary(ctx, failed, lane="selection", events=decision.events)
    answer, events = _explained(ctx, target, envelope, question, decision.events)
    resolved = decision.mutations.last_resolved_action
    why = resolved.reason if resolved else f"item {choice.index}"
    done = action(ctx, "explain_object", target,
                  scope=option_set.scope if option_set else "evidence",
                  option_set_id=option_set.id if option_set else None, outcome="answered",
                  reason=why)
    updates: dict[StateSlot, Any] = {
        "selected_object": selected_frame(state, target, option_set), "pending": None,
        "loop_guard": None, "explanation": envelope.answer,
        **chosen_updates(ctx, choice, option_set)}
    try:  # the chosen span is opened too (stored with the turn; the focus follows it)
        opened = yield OpenSpan(target, ctx.config.continuity.open_span_max_lines)
    except (BadPathError, OSError):
        opened = None
    return LaneOutcome(lane="selection", transition="T3", intent=plan.intent, answer=answer,
                       answer_mode=envelope.answer_mode, updates=updates, action=done,
                       opened=opened, envelope=envelope, events=events, reasons=(why,))
