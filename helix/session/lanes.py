"""Lane executors: what each routed turn does, and the state updates it asks its transition for.

Each executor takes the turn context and returns a `LaneOutcome` (transition class, updates by
state slot, the action for the trace, the answer, the list shown, events). It never writes state
itself: the runner applies the outcome through the transition registry, which refuses changes
the class does not declare.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from controller.continuity.events import ContinuityEvent
from controller.continuity.pending import make_pending, selection_expected_type
from controller.continuity.router import TurnPlan
from controller.continuity.selection import (
    EnrichmentType,
    SelectionDecision,
    SelectionEnrichment,
)
from controller.continuity.semantic import run_mixed_intent
from controller.continuity.state import (
    ActionOutcome,
    ActionType,
    ClarificationState,
    ContinuityState,
    CoverageGateState,
    FocusState,
    InvestigationState,
    Lane,
    MetaFrameState,
    OptionItem,
    OptionSet,
    ResolvedAction,
    SelectedObjectFrameState,
    TargetRef,
    TransitionClass,
)
from controller.continuity.transitions import StateSlot
from helix.core.config import HelixConfig
from helix.core.envelope import Envelope
from helix.core.errors import BadPathError, HelixError
from helix.core.hashing import digest
from helix.core.ports import LLM
from helix.session import actions
from helix.session.graph_focus import (
    GraphKind,
    describe_followup,
    graph_followup,
    resolve_focus_symbols,
)
from helix.session.optionsets import (
    answer_context_of,
    clarify_options,
    coverage_of,
    evidence_options,
    root_frame_of,
)
from helix.session.turn import OpenedSpan, ShownList, TurnResult


class Asker(Protocol):
    def __call__(self, question: str, *, scope: str | None, sense: str | None) -> Envelope: ...


GraphProvider = Callable[[], Any]


@dataclass(frozen=True)
class TurnContext:
    plan: TurnPlan
    state: ContinuityState  # pending already dropped when it did not match
    turns: tuple[TurnResult, ...]
    turn_id: int
    now_ms: int
    root: Path
    config: HelixConfig
    llm: LLM | None
    asker: Asker
    graph: GraphProvider
    session_id: str


@dataclass(frozen=True)
class LaneOutcome:
    lane: Lane
    transition: TransitionClass
    intent: str
    answer: str
    answer_mode: str
    updates: Mapping[StateSlot, Any]
    action: ResolvedAction | None = None
    shown: ShownList | None = None
    opened: OpenedSpan | None = None
    envelope: Envelope | None = None
    events: tuple[ContinuityEvent, ...] = ()
    reasons: tuple[str, ...] = ()


def _action(ctx: TurnContext, type_: ActionType, target: TargetRef, *, scope: str,
            option_set_id: str | None, outcome: ActionOutcome, reason: str) -> ResolvedAction:
    return ResolvedAction(type=type_, target_ref=target, source_scope=scope,
                          option_set_id=option_set_id, timestamp=ctx.now_ms, outcome=outcome,
                          turn_id=ctx.turn_id, user_text=ctx.plan.text, reason=reason)


def boundary(ctx: TurnContext, why: str, *, lane: Lane = "boundary",
             envelope: Envelope | None = None, extra: Mapping[StateSlot, Any] | None = None,
             events: tuple[ContinuityEvent, ...] = ()) -> LaneOutcome:
    """T10: say truthfully what cannot be done; never an answer dressed as confirmed."""
    target = TargetRef(kind="none", id="", label=ctx.plan.text)
    action = _action(ctx, "boundary", target, scope=ctx.state.active_scope or "session",
                     option_set_id=None, outcome="blocked", reason=why)
    return LaneOutcome(
        lane=lane, transition="T10", intent="boundary", answer=f"I can't do that here: {why}.",
        answer_mode="boundary", updates={"pending": None, **(extra or {})}, action=action,
        envelope=envelope, reasons=(why,),
        events=(*events, ContinuityEvent(name="boundary", reason=why)))


# --- root questions: T1, T2, T7 ------------------------------------------------------------

def run_root(ctx: TurnContext) -> LaneOutcome:
    plan, state = ctx.plan, ctx.state
    question = plan.question or plan.text
    try:
        envelope = ctx.asker(question, scope=plan.scope, sense=plan.sense)
    except HelixError as exc:
        return boundary(ctx, f"the question could not run ({exc})", lane=plan.lane)
    events = [ContinuityEvent(name="retrieval_run", reason=plan.intent,
                              data={"scope": plan.scope, "sense": plan.sense,
                                    "route": envelope.route, "stop": envelope.stop_reason,
                                    "evidence": len(envelope.evidence)})]
    coverage = coverage_of(envelope, ctx.config.retrieval.coverage_threshold)
    answer_text = envelope.answer
    if not envelope.evidence and envelope.clarify is None:
        answer = (answer_text + "\n" if answer_text else "") + (
            "No evidence was found for this question"
            + (f" in {plan.scope}" if plan.scope else "") + "; nothing is confirmed.")
        extra: dict[StateSlot, Any] = {"coverage_gate": coverage}
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
                settings=ctx.config.continuity)
        return _replace(boundary(ctx, "no evidence found", lane=plan.lane, envelope=envelope,
                                 extra=extra, events=tuple(events)),
                        answer=answer)
    frame = root_frame_of(envelope, question=question, scope=plan.scope, sense=plan.sense,
                          turn_id=ctx.turn_id)
    old = state.root_frame
    if plan.transition == "T2" and old is not None:  # must preserve the root domain and sense
        frame = frame.model_copy(update={"domain_id": old.domain_id, "sense": old.sense})
    updates: dict[StateSlot, Any] = {
        "root_frame": frame, "coverage_gate": coverage, "selected_object": None,
        "answer_context": answer_context_of(envelope, turn_id=ctx.turn_id, question=question,
                                            answer=answer_text, lane=plan.lane,
                                            transition=plan.transition),
        "investigation": InvestigationState(
            evidence_set_ids=(frame.root_result_set_id,
                              *state.investigation_state.evidence_set_ids)[:4],
            root_questions=(question, *[q for q in state.investigation_state.root_questions
                                        if q != question])[:4]),
        "explanation": answer_text, "clarification": None, "pending": None}
    option_set = clarify_options(envelope, ctx.turn_id) or evidence_options(envelope,
                                                                            ctx.turn_id)
    updates["option_sets"] = option_set
    kind: ActionType = {"T1": "answer_root", "T2": "rerun_scoped",
                        "T7": "resume_clarified"}.get(plan.transition, "answer_root")  # type: ignore[assignment]
    outcome: ActionOutcome = "answered"
    answer_mode = envelope.answer_mode
    if envelope.clarify is not None and option_set is not None:
        kind, outcome, answer_mode = "clarify", "clarified", "clarify"
        answer_text = envelope.clarify.question
        updates["clarification"] = ClarificationState(
            clarification_kind="selection_disambiguation", missing_anchors=("sense",),
            candidate_scopes=tuple(i.sense or i.id for i in option_set.items),
            resume_target_route=envelope.route, resume_target_frame=frame, question=question,
            option_set_id=option_set.id, asked_turn_id=ctx.turn_id)
        if ctx.config.continuity.pending_state:
            updates["pending"] = make_pending(
                kind="clarification_needed",
                expected_type=selection_expected_type(tuple(i.label for i in option_set.items)),
                clarifier_type="selection_disambiguation", anchor_turn_id=ctx.turn_id,
                thread_key=ctx.session_id, now_ms=ctx.now_ms,
                settings=ctx.config.continuity, option_set_id=option_set.id)
    if plan.transition == "T7" and plan.choice_index and state.option_set(
            plan.option_set_id or ""):
        chosen = state.option_set(plan.option_set_id or "")
        assert chosen is not None
        updates["choices"] = chosen.items[plan.choice_index - 1].id
    target = TargetRef(kind="question", id=frame.root_result_set_id, label=question)
    why = {"T1": "a new question", "T2": f"the same question re-run in {plan.scope}",
           "T7": f"you chose sense '{plan.sense}' for the suspended question" if plan.sense
           and plan.choice_index else "you accepted the wider search"}.get(
        plan.transition, plan.intent)
    action = _action(ctx, kind, target, scope=plan.scope or "repo",
                     option_set_id=option_set.id if option_set else None, outcome=outcome,
                     reason=why)
    return LaneOutcome(
        lane=plan.lane, transition=plan.transition, intent=plan.intent, answer=answer_text,
        answer_mode=answer_mode, updates=updates, action=action, envelope=envelope,
        shown=ShownList.of(option_set) if option_set else None, events=tuple(events))


# --- selection: T3 / T5 --------------------------------------------------------------------

def _open(ctx: TurnContext, item_target: TargetRef, *, option_set: OptionSet | None,
          choice: OptionItem | None, action: ResolvedAction | None, reason: str,
          events: tuple[ContinuityEvent, ...], transition: TransitionClass) -> LaneOutcome:
    try:
        opened = actions.open_span(ctx.root, item_target, ctx.config.continuity.open_span_max_lines)
    except (BadPathError, OSError) as exc:
        return boundary(ctx, str(exc), lane="selection", events=events)
    state = ctx.state
    root = state.root_frame
    scope = option_set.scope if option_set else (state.active_scope or "focus")
    if action is None:
        action = _action(ctx, "focus_symbol" if item_target.kind == "symbol" else "open_span",
                         item_target, scope=scope,
                         option_set_id=option_set.id if option_set else None,
                         outcome="executed", reason=reason)
    label = item_target.symbol or item_target.label
    answer = (f"{opened.path}:{opened.start_line}-{opened.end_line}"
              + (f" ({label})" if label and label != opened.path else "")
              + ("  [truncated]" if opened.truncated else "") + "\n" + opened.text)
    updates: dict[StateSlot, Any] = {
        "pending": None, "explanation": f"opened {opened.path}:{opened.start_line} because "
                                        f"{action.reason}", "loop_guard": None}
    if transition == "T3":
        updates["selected_object"] = SelectedObjectFrameState(
            focus_object_ref=item_target, focus_object_kind=item_target.kind,
            source_result_set_id=root.root_result_set_id if root else None,
            compatible_route_family="object",
            provenance_bundle_ref=option_set.id if option_set else None,
            temporal_ceiling=root.revision if root else "")
    if choice is not None:
        updates["choices"] = choice.id
    return LaneOutcome(lane="selection", transition=transition, intent=ctx.plan.intent,
                       answer=answer, answer_mode="continuity", updates=updates, action=action,
                       opened=opened, events=events, reasons=(action.reason,))


class RepoSnapshotEnricher:
    """Selection-lane enrichment (orchestrator-driven, current candidates only): adds each
    candidate's first non-blank span line to its sublabel, read from the repository."""

    SNIPPET_MAX_CHARS = 80

    def __init__(self, root: Path) -> None:
        self.root = root

    def _first_line(self, target: TargetRef) -> str:
        try:
            opened = actions.open_span(self.root, target, max_lines=8)
        except (BadPathError, OSError):
            return ""
        for line in opened.text.splitlines():
            body = line.split("  ", 1)[-1].strip()
            if body:
                return body[: self.SNIPPET_MAX_CHARS]
        return ""

    def enrich(self, types: tuple[EnrichmentType, ...], option_set: OptionSet,
               pool: tuple[OptionItem, ...]) -> SelectionEnrichment:
        items, hashes = [], []
        for item in pool:
            line = self._first_line(item.target)
            if line and line not in item.sublabel:
                items.append(item.model_copy(update={"sublabel": f"{item.sublabel} | {line}"}))
                hashes.append(digest(line))
        return SelectionEnrichment(items=tuple(items), excerpt_hashes=tuple(sorted(hashes)))


def _with_active(state: ContinuityState, option_set_id: str | None) -> ContinuityState:
    kept = state.option_set(option_set_id) if option_set_id else None
    if kept is None or kept.id == state.active_option_set_id:
        return state
    return state.model_copy(update={"active_option_set_id": kept.id, "active_scope": kept.scope})


def run_selection(ctx: TurnContext) -> LaneOutcome:
    plan, state = ctx.plan, ctx.state
    settings = ctx.config.continuity
    if plan.pending.status == "applied" and plan.choice_index and plan.option_set_id:
        option_set = state.option_set(plan.option_set_id)
        assert option_set is not None  # the router checked it is kept
        choice = option_set.items[plan.choice_index - 1]
        event = ContinuityEvent(name="pending_applied", reason=plan.pending.reason,
                                active_option_set_id=option_set.id,
                                active_scope=option_set.scope, data={"winner_id": choice.id})
        return _open(ctx, choice.target, option_set=option_set, choice=choice, action=None,
                     reason=f"you answered the clarifier with option {choice.index}",
                     events=(event,), transition="T3")
    if plan.transition == "T5" and plan.target is not None and settings.selection_lane:
        event = ContinuityEvent(
            name="selection_deterministic_continuity_resolve", reason="focused object",
            active_option_set_id=state.active_option_set_id, active_scope=state.active_scope,
            data={"winner_id": plan.target.id, "focus_source": plan.focus.source})
        return _open(ctx, plan.target, option_set=None, choice=None, action=None,
                     reason=f"'{plan.text}' refers to the focused {plan.target.label}",
                     events=(event,), transition="T5")
    lane_state = _with_active(state, plan.option_set_id)
    # mixed intent ("open 2 and explain why"): the selection lane first, then the semantic
    # lane answers the clause from the new lastResolvedAction (run_mixed_intent)
    mixed = run_mixed_intent(plan.text, lane_state, settings, now_ms=ctx.now_ms,
                             llm=ctx.llm if ctx.config.synthesis.model else None,
                             model=ctx.config.synthesis.model,
                             api_base=ctx.config.synthesis.api_base,
                             enricher=RepoSnapshotEnricher(ctx.root))
    decision: SelectionDecision = mixed.selection
    events = decision.events
    option_set = lane_state.option_set(decision.option_set_id or "")
    if decision.kind == "execute" and decision.candidate is not None:
        out = _open(ctx, decision.candidate.target, option_set=option_set,
                    choice=decision.candidate, action=decision.mutations.last_resolved_action,
                    reason=decision.reason, events=events, transition="T3")
        sem = mixed.semantic
        if sem is not None and sem.kind == "answer" and out.transition == "T3":
            out = _replace(out, answer=f"{out.answer}\n\nWhy: {sem.answer}",
                           events=(*out.events, *sem.events),
                           updates={**out.updates, "explanation": sem.answer})
        return out
    if decision.kind == "clarify":
        updates: dict[StateSlot, Any] = {"loop_guard": decision.mutations.selection_loop_guard}
        shown = None
        if option_set is not None:
            shown = ShownList.of(option_set.model_copy(update={"items": decision.options})) \
                if decision.options else ShownList.of(option_set)
            if settings.pending_state:
                updates["pending"] = make_pending(
                    kind="workflow_waiting",
                    expected_type=selection_expected_type(
                        tuple(i.label for i in option_set.items)),
                    clarifier_type=decision.mutations.pending_clarifier_type
                    or "selection_disambiguation",
                    anchor_turn_id=ctx.turn_id, thread_key=ctx.session_id, now_ms=ctx.now_ms,
                    settings=settings, option_set_id=option_set.id)
        target = TargetRef(kind="none", id="", label=plan.text)
        action = _action(ctx, "clarify", target, scope=decision.scope or "evidence",
                         option_set_id=decision.option_set_id, outcome="clarified",
                         reason=decision.reason)
        if option_set is None:
            return boundary(ctx, decision.clarifier_text.rstrip("."), lane="selection",
                            events=events)
        return LaneOutcome(lane="selection", transition="T3", intent=plan.intent,
                           answer=decision.clarifier_text, answer_mode="clarify",
                           updates=updates, action=action, shown=shown, events=events,
                           reasons=(decision.reason,))
    if plan.target is not None:  # escape with a focused object: "open it" still means it
        return _open(ctx, plan.target, option_set=None, choice=None, action=None,
                     reason="the focused object", events=events, transition="T5")
    return boundary(ctx, f"no list to choose from ({decision.reason})", lane="selection",
                    events=events)


# --- graph follow-ups: T4 ------------------------------------------------------------------

def _section_text(ctx: TurnContext, target: TargetRef) -> str:
    if target.kind not in ("section", "tree_node") or not target.path:
        return ""
    try:
        return actions.open_span(ctx.root, target, ctx.config.continuity.open_span_max_lines).text
    except (BadPathError, OSError):
        return ""


def run_graph(ctx: TurnContext) -> LaneOutcome:
    """T4 on the focused object: resolved to definitions (or its file) over the index graph;
    the graph only, no root retrieval."""
    plan, state = ctx.plan, ctx.state
    assert plan.target is not None
    target = plan.target
    kind: GraphKind = "callers" if plan.intent == "graph_callers" else "tests"
    try:
        graph = ctx.graph()
    except HelixError as exc:
        return boundary(ctx, f"the index graph is not available ({exc})", lane="graph")
    context = " ".join(x for x in (state.root_frame.question if state.root_frame else "",
                                   plan.text, target.label) if x)
    settings = ctx.config.continuity
    focus = resolve_focus_symbols(graph, target, context=context,
                                  section_text=_section_text(ctx, target),
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
    action = _action(ctx, "list_callers" if kind == "callers" else "list_tests", target,
                     scope=kind, option_set_id=option_set.id if option_set else None,
                     outcome="executed",
                     reason=f"{kind} of the focused {target.label} ({names})")
    updates: dict[StateSlot, Any] = {"explanation": answer}
    if option_set is not None:
        updates["option_sets"] = option_set
    return LaneOutcome(lane="graph", transition="T4", intent=plan.intent, answer=answer,
                       answer_mode="continuity", updates=updates, action=action,
                       shown=ShownList.of(option_set) if option_set else None,
                       events=(event,))


# --- meta (T8), recap (T9), interrupts and back (T1 / T6) ----------------------------------

def run_meta(ctx: TurnContext) -> LaneOutcome:
    state = ctx.state
    answer_ctx = state.answer_context_state
    assert answer_ctx is not None  # the router checked
    by_id = {t.turn_id: t for t in ctx.turns}
    source = by_id.get(answer_ctx.turn_id)
    later_lists = [t for t in ctx.turns if t.turn_id > answer_ctx.turn_id and t.lane == "graph"
                   and t.transition == "T4"]
    if later_lists:
        source = later_lists[-1]
    if source is None:
        return boundary(ctx, "the earlier answer is no longer stored", lane="meta")
    answer, truth = actions.meta_answer(source, ctx.plan.text)
    frame = MetaFrameState(source_answer_object_ref=source.turn_id,
                           meta_question_kind="evaluation",
                           source_gate_status=state.coverage_gate_state.coverage_status,
                           meta_truth_mode=truth)  # type: ignore[arg-type]
    return LaneOutcome(lane="meta", transition="T8", intent=ctx.plan.intent, answer=answer,
                       answer_mode="continuity", updates={"meta_frame": frame},
                       events=(ContinuityEvent(name="meta_answer", reason=truth,
                                               data={"source_turn": source.turn_id}),))


def run_recap(ctx: TurnContext) -> LaneOutcome:
    answer, hits = actions.recap(ctx.turns, ctx.plan.topic)
    source = hits[-1] if hits else (ctx.turns[-1].turn_id if ctx.turns else 0)
    frame = MetaFrameState(source_answer_object_ref=source, meta_question_kind="memory_recap",
                           source_gate_status=ctx.state.coverage_gate_state.coverage_status,
                           meta_truth_mode="confirmed" if ctx.turns else "unsupported")
    return LaneOutcome(lane="recap", transition="T9", intent=ctx.plan.intent, answer=answer,
                       answer_mode="continuity", updates={"meta_frame": frame},
                       events=(ContinuityEvent(name="memory_recap", reason=ctx.plan.topic or "",
                                               data={"matching_turns": hits}),))


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
        dropped = [name for name, value in (("the pending question", state.pending),
                                            ("the focused object", state.selected_object))
                   if value is not None]
        answer = "Stopped" + (f" ({', '.join(dropped)} dropped)" if dropped else "") + "."
        if state.root_frame is not None:
            answer += f" Still on \"{state.root_frame.question}\"."
    action = _action(ctx, "interrupt", target, scope=state.active_scope or "session",
                     option_set_id=root_list.id if root_list else None, outcome="interrupted",
                     reason=plan.intent)
    return LaneOutcome(lane=plan.lane, transition="T6", intent=plan.intent, answer=answer,
                       answer_mode="continuity", updates=updates, action=action,
                       shown=ShownList.of(root_list) if root_list else None)


def _replace(out: LaneOutcome, **changes: Any) -> LaneOutcome:
    from dataclasses import replace

    return replace(out, **changes)


def execute(ctx: TurnContext) -> LaneOutcome:
    plan = ctx.plan
    if plan.transition == "T10":
        return boundary(ctx, plan.reasons[-1], lane=plan.lane)
    if plan.lane == "interrupt" or plan.intent == "back_to_root":
        return run_interrupt(ctx)
    if plan.lane in ("root", "clarify_resume"):
        return run_root(ctx)
    if plan.lane == "selection":
        return run_selection(ctx)
    if plan.lane == "graph":
        return run_graph(ctx)
    if plan.lane == "meta":
        return run_meta(ctx)
    if plan.lane == "recap":
        return run_recap(ctx)
    if plan.lane == "semantic":
        from helix.session.semantic_exec import run_semantic

        return run_semantic(ctx)
    raise AssertionError(f"unrouted lane {plan.lane}")
