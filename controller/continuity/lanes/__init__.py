"""Lane executors: what each routed turn does, and the state updates it asks its transition for.

`EXECUTORS` maps a plan to its executor, top to bottom (first match wins); each executor is a
lane step (`controller.continuity.requests`): it takes the turn context, yields what it needs
from outside, and returns a `LaneOutcome` (transition class, updates by state slot, the
action for the trace, the answer, the list shown, events). None writes state itself: the runner
applies the outcome through the transition registry. Root questions (T1, T2, the T6 pivot, T7)
run here; the others live in their own modules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.continuity.events import ContinuityEvent
from controller.continuity.item_names import (
    item_names,
    message_tokens,
    name_like,
    own_name_parts,
    spelt_as_words,
)
from controller.continuity.lanes.chat import run_chat, run_reading_clarifier
from controller.continuity.lanes.context import (
    Executor,
    LaneOutcome,
    TurnContext,
    action,
    boundary,
    pure,
    with_changes,
)
from controller.continuity.lanes.meta import run_interrupt, run_meta, run_recap
from controller.continuity.lanes.objects import (
    run_explain_focused,
    run_explain_item,
    run_graph,
    run_graph_item,
)
from controller.continuity.lanes.selection import run_selection
from controller.continuity.lanes.semantic import run_semantic
from controller.continuity.lead_subject import lead_shows_subject
from controller.continuity.optionsets import (
    answer_context_of,
    clarify_options,
    coverage_of,
    evidence_options,
    root_frame_of,
)
from controller.continuity.pending import make_pending, selection_expected_type
from controller.continuity.requests import Retrieve, Steps
from controller.continuity.state import (
    ANSWER_LEAD_FAMILY,
    ANSWER_SHOWN_FAMILY,
    ActionOutcome,
    ActionType,
    ClarificationState,
    InvestigationState,
    OptionItem,
    OptionSet,
    RootFrameState,
    SelectedObjectFrameState,
    TargetRef,
)
from controller.continuity.transitions import ChoiceUpdate, StateSlot
from controller.continuity.turn import ShownList
from controller.continuity.turn_plan import TurnPlan
from helix.core.envelope import Envelope
from helix.core.errors import HelixError

__all__ = ["EXECUTORS", "LaneOutcome", "TurnContext", "boundary", "execute", "run_root",
           "run_selection"]

_ACTION_OF: dict[str, ActionType] = {"T1": "answer_root", "T2": "rerun_scoped",
                                     "T6": "pivot_root", "T7": "resume_clarified"}


def _why(plan: TurnPlan) -> str:
    if plan.intent == "pivot":
        return f"the root question asked of another subject, in {plan.scope or 'the repository'}"
    if plan.intent == "correct_choice":
        return f"you turned down {plan.rejected_choice_id}: sense '{plan.sense}' instead"
    return {"T1": "a new question", "T2": f"the same question re-run in {plan.scope}",
            "T7": f"you chose sense '{plan.sense}' for the suspended question" if plan.sense
            and plan.choice_index else "you accepted the wider search"}.get(
        plan.transition, plan.intent)


def _nothing_found(ctx: TurnContext, question: str, envelope: Any,
                   events: tuple[ContinuityEvent, ...]) -> LaneOutcome:
    plan, state = ctx.plan, ctx.state
    answer = (envelope.answer + "\n" if envelope.answer else "") + (
        "No evidence was found for this question"
        + (f" in {plan.scope}" if plan.scope else "") + "; nothing is confirmed.")
    extra: dict[StateSlot, Any] = {}
    # a search that found nothing makes no frame, answer or list: the earlier root's stay on
    # screen, and so does the gate that judged them (the documents' coverage gate is the
    # result's admissibility; "open the second one" picks from that result, "are you sure?"
    # asks of that answer). With no earlier root, the gate records that nothing was found.
    if state.root_frame is None:
        extra["coverage_gate"] = coverage_of(envelope, ctx.config.retrieval.coverage_threshold)
    if plan.scope and ctx.config.continuity.pending_state:
        # a typed offer: "yes" re-runs the question over the whole repository (T7)
        answer += " Search the whole repository instead? (yes / no)"
        extra["clarification"] = ClarificationState(
            clarification_kind="confirmation", missing_anchors=("scope",),
            candidate_scopes=("repo",), resume_target_route=envelope.route,
            resume_target_frame=state.root_frame, question=question, option_set_id="",
            asked_turn_id=ctx.turn_id)
        extra["pending"] = make_pending(
            kind="tool_retry_offer", expected_type="boolean", clarifier_type="confirmation",
            anchor_turn_id=ctx.turn_id, thread_key=ctx.session_id, now_ms=ctx.now_ms,
            caps=ctx.config.continuity.caps)
    return with_changes(boundary(ctx, "no evidence found", lane=plan.lane, envelope=envelope,
                                 extra=extra, events=events), answer=answer)


def run_root(ctx: TurnContext) -> Steps[LaneOutcome]:
    """T1 / T2 / T7, and the T6 pivot: the controller runs over the repository."""
    plan = ctx.plan
    question = plan.question or plan.text
    try:
        envelope = yield Retrieve(question, plan.scope, plan.sense)
    except HelixError as exc:
        return boundary(ctx, f"the question could not run ({exc})", lane=plan.lane)
    events = (ContinuityEvent(name="retrieval_run", reason=plan.intent,
                              data={"scope": plan.scope, "sense": plan.sense,
                                    "route": envelope.route, "stop": envelope.stop_reason,
                                    "evidence": len(envelope.evidence)}),)
    if not envelope.evidence and envelope.clarify is None:
        return _nothing_found(ctx, question, envelope, events)
    frame = _root_frame(ctx, envelope, question)
    updates = _root_updates(ctx, envelope, frame, question)
    option_set = clarify_options(envelope, ctx.turn_id) or evidence_options(envelope,
                                                                            ctx.turn_id)
    updates["option_sets"] = option_set
    kind = _ACTION_OF.get(plan.transition, "answer_root")
    outcome: ActionOutcome = "answered"
    answer_text, answer_mode = envelope.answer, envelope.answer_mode
    if envelope.clarify is not None and option_set is not None:
        kind, outcome, answer_mode = "clarify", "clarified", "clarify"
        answer_text = envelope.clarify.question
        updates.update(_clarification_updates(ctx, envelope, frame, question, option_set))
    else:
        updates.update(_lead_updates(ctx, updates, option_set, envelope))
    updates.update(_choice_updates(ctx))
    target = TargetRef(kind="question", id=frame.root_result_set_id, label=question)
    done = action(ctx, kind, target, scope=plan.scope or "repo",
                  option_set_id=option_set.id if option_set else None, outcome=outcome,
                  reason=_why(plan))
    return LaneOutcome(
        lane=plan.lane, transition=plan.transition, intent=plan.intent, answer=answer_text,
        answer_mode=answer_mode, updates=updates, action=done, envelope=envelope,
        shown=ShownList.of(option_set) if option_set else None, events=events)


def _root_frame(ctx: TurnContext, envelope: Envelope, question: str) -> RootFrameState:
    """The root frame of the run; a scoped re-run (T2) keeps the old root's domain and sense."""
    plan, old = ctx.plan, ctx.state.root_frame
    frame = root_frame_of(envelope, question=question, scope=plan.scope, sense=plan.sense,
                          turn_id=ctx.turn_id)
    if plan.transition == "T2" and old is not None and plan.intent != "correct_choice":
        # must preserve the root domain and sense
        frame = frame.model_copy(update={"domain_id": old.domain_id, "sense": old.sense})
    return frame


def _root_updates(ctx: TurnContext, envelope: Envelope, frame: RootFrameState,
                  question: str) -> dict[StateSlot, Any]:
    """The state a root answer sets: the frame, its coverage gate, the answer's context, the
    investigation's recent sets and questions; selection, clarification and pending cleared."""
    plan, investigation = ctx.plan, ctx.state.investigation_state
    return {
        "root_frame": frame,
        "coverage_gate": coverage_of(envelope, ctx.config.retrieval.coverage_threshold),
        "selected_object": None,
        "answer_context": answer_context_of(envelope, turn_id=ctx.turn_id, question=question,
                                            answer=envelope.answer, lane=plan.lane,
                                            transition=plan.transition),
        "investigation": InvestigationState(
            evidence_set_ids=(frame.root_result_set_id, *investigation.evidence_set_ids)[:4],
            root_questions=(question, *[q for q in investigation.root_questions
                                        if q != question])[:4]),
        "explanation": envelope.answer, "clarification": None, "pending": None}


def _lead_updates(ctx: TurnContext, updates: dict[StateSlot, Any],
                  option_set: OptionSet | None, envelope: Envelope) -> dict[StateSlot, Any]:
    """A grounded answer's lead (the one item it puts first, listed) is the selected object
    (focus-context-pending-state: "it" is what the last answer is about), so "who calls it?",
    "explain it", "show it again" act on it (T4 / T5). An answer that never showed what was
    asked (the coverage gate admits less than `full`) selects nothing: its closest match is
    not what "it" means, unless the question named that item itself (`_asked_of`) and the
    gate found the thing the question looks for (no `missing:target`: "where is the BM25Index
    cache built?" finds no cache): then the object asked about is on screen, though what was
    asked of it (a topic, a mechanism) was not found, and the gate's `object_only` carryover
    admits acting on it (T4 / T5), not the answer's claims. So does a lead that shows the
    question's subject but for one word the code does not say or a slip of one
    (`lead_subject.lead_shows_subject`: "the K1 and B values" led by `BM25Index.score`). Any
    other lead the gate admits `object_only` for is selected as shown only
    (`ANSWER_SHOWN_FAMILY`): the item put first on screen is what "show it again" reopens
    (T5) and what a capability pointed at "it" acts on (T4), the reply saying first that "it"
    was read as that closest match (lanes/objects.py `_read_as`)."""
    gate, context = updates["coverage_gate"], updates["answer_context"]
    lead = context.lead_evidence_id
    item = next((i for i in option_set.items if i.id == lead), None) \
        if option_set is not None and lead else None
    if item is None or gate.carryover_eligibility not in ("full", "object_only"):
        return {}
    meant = gate.carryover_eligibility == "full" or _object_asked(
        ctx, item, envelope, gate.reason_codes)
    frame = updates["root_frame"]
    selected = SelectedObjectFrameState(
        focus_object_ref=item.target, focus_object_kind=item.target.kind,
        source_result_set_id=frame.root_result_set_id,
        compatible_route_family=ANSWER_LEAD_FAMILY if meant else ANSWER_SHOWN_FAMILY,
        provenance_bundle_ref=option_set.id if option_set else None,
        temporal_ceiling=frame.revision)
    if not meant:
        return {"selected_object": selected}
    return {"selected_object": selected,
            "focus": ctx.plan.focus.as_state().model_copy(update={"object_ref": item.target})}


TARGET_MISSING = "missing:target"  # the coverage gate's reason: the thing looked for not found


def _object_asked(ctx: TurnContext, item: OptionItem, envelope: Envelope,
                  reasons: tuple[str, ...]) -> bool:
    """The ungrounded answer's lead `item` is the object the question asked about."""
    question = ctx.plan.question or ctx.plan.text
    return (TARGET_MISSING not in reasons and _asked_of(item, question)) \
        or lead_shows_subject(envelope, item.id, question)


def _asked_of(item: OptionItem, question: str) -> bool:
    """The question names the item by its own name (its symbol, the symbol's last part, its
    label; a typo of a long one: `item_names.name_like`), not by its file or a word of it
    ("SearchEngine.search tie breaking" names SearchEngine.search; "where is the tokenizer
    cache configured?" names no part of Tokenizer.__init__), or writes that name as its words
    ("is the optical cavity tested?" names OpticalCavity: `item_names.spelt_as_words`)."""
    own = item_names(item)[0]
    return any(name_like(token, name) for token in message_tokens(question) for name in own) \
        or any(spelt_as_words(name, question) for name in own_name_parts(item))


def _clarification_updates(ctx: TurnContext, envelope: Envelope, frame: RootFrameState,
                           question: str, option_set: OptionSet) -> dict[StateSlot, Any]:
    """The suspended question when the run asks which sense was meant, and its pending offer."""
    updates: dict[StateSlot, Any] = {"clarification": ClarificationState(
        clarification_kind="selection_disambiguation", missing_anchors=("sense",),
        candidate_scopes=tuple(i.sense or i.id for i in option_set.items),
        resume_target_route=envelope.route, resume_target_frame=frame, question=question,
        option_set_id=option_set.id, asked_turn_id=ctx.turn_id)}
    if ctx.config.continuity.pending_state:
        updates["pending"] = make_pending(
            kind="clarification_needed",
            expected_type=selection_expected_type(tuple(i.label for i in option_set.items)),
            clarifier_type="selection_disambiguation", anchor_turn_id=ctx.turn_id,
            thread_key=ctx.session_id, now_ms=ctx.now_ms, option_set_id=option_set.id,
            caps=ctx.config.continuity.caps)
    return updates


def _choice_updates(ctx: TurnContext) -> dict[StateSlot, Any]:
    """The choice a resumed (T7) or corrected turn records."""
    plan, state = ctx.plan, ctx.state
    updates: dict[StateSlot, Any] = {}
    if plan.transition == "T7" and plan.choice_index and state.option_set(
            plan.option_set_id or ""):
        chosen = state.option_set(plan.option_set_id or "")
        assert chosen is not None
        updates["choices"] = chosen.items[plan.choice_index - 1].id
    if plan.intent == "correct_choice" and plan.sense:  # "no, the other one" (a sense)
        updates["choices"] = ChoiceUpdate(accepted=f"sense:{plan.sense}",
                                          rejected=plan.rejected_choice_id)
    return updates


def _boundary_plan(ctx: TurnContext) -> LaneOutcome:
    return boundary(ctx, ctx.plan.reasons[-1], lane=ctx.plan.lane)


Matches = Callable[[TurnPlan], bool]
GRAPH_INTENTS = ("graph_callers", "graph_tests")
EXECUTORS: tuple[tuple[str, Matches, Executor], ...] = (
    ("boundary", lambda p: p.transition == "T10", pure(_boundary_plan)),
    ("reading_clarifier", lambda p: p.intent == "clarify_reading", pure(run_reading_clarifier)),
    ("small_talk", lambda p: p.lane == "chat", run_chat),
    ("interrupt_or_back", lambda p: p.lane == "interrupt" or p.intent == "back_to_root",
     pure(run_interrupt)),
    ("root", lambda p: p.lane in ("root", "clarify_resume"), run_root),
    ("explain_item", lambda p: p.intent == "explain_item", run_explain_item),
    ("graph_item", lambda p: p.lane == "selection" and p.intent in GRAPH_INTENTS,
     run_graph_item),
    ("selection", lambda p: p.lane == "selection", run_selection),
    ("explain_focused", lambda p: p.lane == "explain", run_explain_focused),
    ("graph", lambda p: p.lane == "graph", run_graph),
    ("meta", lambda p: p.lane == "meta", pure(run_meta)),
    ("recap", lambda p: p.lane == "recap", run_recap),
    ("semantic", lambda p: p.lane == "semantic", run_semantic),
)


def execute(ctx: TurnContext) -> Steps[LaneOutcome]:
    """The turn's lane, as one step for the session's driver."""
    for _name, matches, executor in EXECUTORS:
        if matches(ctx.plan):
            return (yield from executor(ctx))
    raise AssertionError(f"unrouted lane {ctx.plan.lane}")
