"""The transition registry T1-T10 (state-and-transition-contracts.md), as data, and the one pure
function that applies a transition to the session state.

Every class declares what the document requires: entry condition, required prior state, allowed
carryover depth, state mutations, forbidden carryover and expected answer mode (plus what it must
preserve and which lanes may take it). `apply_transition` enforces the declaration: a turn may only
change the slots its class lists, the forbidden carryover is dropped on entry, the required prior
state must exist. A change outside the declaration is a bug and raises `TransitionContractError`.

Helix mapping of the document's triggers (issue 5 numbers are the reference):
    T0  "hello" / "thanks!" / "ok" / "what can you do?": small talk (living mode `chat`), no
        retrieval, nothing carried or dropped (outside the documents' ten business classes);
        also the meaning router asking which of two readings a message meant (lane `clarify`)
    T1  a new root repo question; also "start over" (a reset root entry with no question)
    T2  "same question but only in tests/": re-run the root question in a narrower path scope
    T3  "open the second one": an item of the active numbered list is chosen
    T4  "who calls it?" / "where is it tested?": graph action on the selected object
    T5  "open it" / "show that again": pronoun follow-up on the selected object
    T6  "stop" / "cancel" / "never mind" / "back to the list": leave the object, keep the root;
        "what about the tokenizer?": a pivot that asks the root question of another subject,
        keeping its route and path scope, dropping the object
    T7  "the first" after a sense clarifier: resume the suspended question with that sense
    T8  "is that the only place?" / "why did you open that?": meta answer over the answer object
    T9  "did we talk about the tokenizer?" / "what happened last?": truthful recap of the session
    T10 unsupported follow-up, missing prior state, blocked evidence, failed execution
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from controller.continuity.state import (
    OPTION_SETS_KEPT,
    ActionTraceEntry,
    AddressNavigationState,
    CarryoverEligibility,
    ContinuityState,
    Lane,
    LivingMode,
    LivingModeState,
    OptionSet,
    ResolvedAction,
    TransitionClass,
)
from helix.core.continuity_caps import ContinuityCaps
from helix.core.schemas import Frozen

StateSlot = Literal[
    "living_mode", "root_frame", "selected_object", "clarification", "answer_context",
    "coverage_gate", "meta_frame", "option_sets", "choices", "focus", "pending",
    "investigation", "explanation", "last_resolved_action", "recent_action_trace",
    "loop_guard",
]
ExpectedAnswerMode = Literal[
    "small_talk_reply", "root_answer", "scoped_root_answer", "object_view", "object_action",
    "root_context_kept", "resumed_root_answer", "meta_answer", "recap", "boundary",
]


class ChoiceUpdate(Frozen):
    """The `choices` slot's update: a choice accepted and / or one the user turned down
    ("no, the other one"); both windows stay newest first and bounded."""

    accepted: str | None = None
    rejected: str | None = None


class TransitionContractError(ValueError):
    """A turn tried to change state its transition class does not declare (a bug, not input)."""


class TransitionSpec(Frozen):
    cls: TransitionClass
    name: str
    lanes: tuple[Lane, ...]
    entry_condition: str
    required_prior_state: tuple[StateSlot, ...]
    allowed_carryover_depth: CarryoverEligibility
    state_mutations: tuple[StateSlot, ...]
    forbidden_carryover: tuple[StateSlot, ...]  # dropped on entry
    must_preserve: tuple[StateSlot, ...]
    expected_answer_mode: ExpectedAnswerMode
    living_mode: LivingMode
    root_retrieval: bool  # whether the controller runs over the repository
    must_not: str
    # the class consumes the last answer's result: the coverage gate must admit its carryover
    # depth (`prior_state_ok`); interrupts, clarifier answers, meta and recap are never gated,
    # nor is T2: it re-asks the root question (the user's words) in a new scope and runs its own
    # retrieval with its own gate, so a last answer that missed its subject does not bar it
    gated: bool = False
    # the root frame may change, but never its path scope (organization scope, T6)
    keeps_root_scope: bool = False


_ACTION: tuple[StateSlot, ...] = ("last_resolved_action", "recent_action_trace")

REGISTRY: dict[TransitionClass, TransitionSpec] = {
    "T0": TransitionSpec(
        cls="T0", name="small_talk", lanes=("chat", "clarify"),
        entry_condition="the whole message is small talk or about Helix itself ('hello', "
                        "'thanks!', 'ok', 'bye', 'what can you do?')",
        required_prior_state=(), allowed_carryover_depth="none",
        state_mutations=("living_mode", "pending"),
        forbidden_carryover=(), must_preserve=(
            "root_frame", "selected_object", "option_sets", "answer_context", "coverage_gate",
            "focus", "last_resolved_action", "recent_action_trace", "choices"),
        expected_answer_mode="small_talk_reply", living_mode="chat", root_retrieval=False,
        must_not="retrieve, call a model other than continuity.chat_model, or drop the "
                 "question, list or focus the conversation carries"),
    "T1": TransitionSpec(
        cls="T1", name="root_query_entry", lanes=("root", "interrupt"),
        entry_condition="a new root repository question that no continuity cue claims "
                        "(or 'start over': a reset root entry without a question)",
        required_prior_state=(), allowed_carryover_depth="none",
        state_mutations=("living_mode", "root_frame", "selected_object", "clarification",
                         "answer_context", "coverage_gate", "meta_frame", "option_sets", "focus",
                         "pending", "investigation", "explanation", "loop_guard", "choices",
                         *_ACTION),
        forbidden_carryover=("loop_guard", "choices", "selected_object", "clarification", "pending",
                             "meta_frame"),
        must_preserve=(), expected_answer_mode="root_answer", living_mode="address_data",
        root_retrieval=True, must_not="inherit a stale focus object"),
    "T2": TransitionSpec(
        cls="T2", name="root_followup_scope_change", lanes=("root",),
        entry_condition="a follow-up that re-asks the root question with a changed path scope "
                        "('same question but only in tests/')",
        required_prior_state=("root_frame",), allowed_carryover_depth="root_only",
        state_mutations=("living_mode", "root_frame", "selected_object", "answer_context",
                         "coverage_gate", "option_sets", "focus", "pending", "clarification",
                         "investigation", "explanation", "loop_guard", "choices",
                         *_ACTION),
        forbidden_carryover=("loop_guard", "choices", "selected_object", "pending",
                             "clarification"),
        must_preserve=("root_frame",), expected_answer_mode="scoped_root_answer",
        living_mode="address_data", root_retrieval=True,
        must_not="downgrade to an unknown route or lose the root question and sense"),
    "T3": TransitionSpec(
        cls="T3", name="explicit_selected_object_drilldown", lanes=("selection",),
        entry_condition="an item of the active numbered list is chosen by ordinal, number or "
                        "exact label ('open the second one', 'tell me more about the first "
                        "one', 'no, the other one')",
        required_prior_state=("option_sets",), allowed_carryover_depth="object_only",
        # option_sets: a clarifier offers its narrowed options as their own numbered list; a
        # choice made from it makes the list they came from active again
        state_mutations=("living_mode", "selected_object", "focus", "choices", "pending",
                         "explanation", "loop_guard", "option_sets", *_ACTION),
        forbidden_carryover=(), must_preserve=("root_frame",),
        expected_answer_mode="object_view", living_mode="address_data", root_retrieval=False,
        must_not="execute an id outside the active bounded option set", gated=True),
    "T4": TransitionSpec(
        cls="T4", name="short_action_on_selected_object", lanes=("graph", "explain"),
        entry_condition="a short action on the selected object ('who calls it?', "
                        "'where is it tested?', 'tell me more about it', 'explain it')",
        required_prior_state=("selected_object",), allowed_carryover_depth="object_only",
        state_mutations=("living_mode", "option_sets", "focus", "explanation", *_ACTION),
        forbidden_carryover=(), must_preserve=("root_frame", "selected_object"),
        expected_answer_mode="object_action", living_mode="address_data", root_retrieval=False,
        must_not="fall into generic chat or root retrieval, or lose the selected object",
        gated=True),
    "T5": TransitionSpec(
        cls="T5", name="pronoun_object_followup", lanes=("selection",),
        entry_condition="a pronoun or compressed reference to the selected object ('open it')",
        required_prior_state=("selected_object",), allowed_carryover_depth="object_only",
        state_mutations=("living_mode", "focus", "pending", "explanation", "loop_guard",
                         "choices", *_ACTION),
        forbidden_carryover=(), must_preserve=("root_frame", "selected_object"),
        expected_answer_mode="object_view", living_mode="address_data", root_retrieval=False,
        must_not="degrade the object anchor into an older or vaguer one", gated=True),
    "T6": TransitionSpec(
        cls="T6", name="pivot_root_only_carryover", lanes=("interrupt", "root"),
        entry_condition="the user leaves the object drilldown or the pending question but "
                        "stays in the root question ('stop', 'cancel', 'back to the list', "
                        "'what about the tokenizer?': the root question of another subject)",
        required_prior_state=(), allowed_carryover_depth="root_only",
        state_mutations=("living_mode", "selected_object", "pending", "clarification", "focus",
                         "option_sets", "loop_guard", "choices", "root_frame", "answer_context",
                         "coverage_gate", "investigation", "explanation", *_ACTION),
        forbidden_carryover=("loop_guard", "choices", "selected_object", "pending",
                             "clarification"),
        must_preserve=(), expected_answer_mode="root_context_kept",
        living_mode="address_data", root_retrieval=False,
        must_not="replay the object route into another scope", keeps_root_scope=True),
    "T7": TransitionSpec(
        cls="T7", name="clarification_continuation", lanes=("clarify_resume",),
        entry_condition="the answer matches the pending clarifier's expected type strictly "
                        "('the first', 'option 2', an option's label)",
        required_prior_state=("clarification", "pending"), allowed_carryover_depth="root_only",
        state_mutations=("living_mode", "root_frame", "selected_object", "clarification",
                         "pending", "answer_context", "coverage_gate", "option_sets", "focus",
                         "choices", "investigation", "explanation", "loop_guard", *_ACTION),
        forbidden_carryover=("loop_guard", "clarification", "pending", "selected_object"),
        must_preserve=(), expected_answer_mode="resumed_root_answer",
        living_mode="address_data", root_retrieval=True,
        must_not="forget the suspended question or its route"),
    "T8": TransitionSpec(
        cls="T8", name="meta_followup_over_answer", lanes=("meta", "semantic"),
        entry_condition="a question about the last answer or action ('is that the only place?',"
                        " 'why did you open that?')",
        required_prior_state=(), allowed_carryover_depth="meta_only",
        state_mutations=("living_mode", "meta_frame", "pending", "explanation"),
        forbidden_carryover=(), must_preserve=("root_frame", "selected_object", "option_sets",
                                               "answer_context"),
        expected_answer_mode="meta_answer", living_mode="meta_followup", root_retrieval=False,
        must_not="blindly replay the root route"),
    "T9": TransitionSpec(
        cls="T9", name="memory_recap", lanes=("recap", "semantic"),
        entry_condition="a question about the conversation itself ('did we talk about X?', "
                        "'what happened last?', 'summarize what we did')",
        required_prior_state=(), allowed_carryover_depth="meta_only",
        state_mutations=("living_mode", "meta_frame", "pending", "explanation"),
        forbidden_carryover=(), must_preserve=("root_frame", "selected_object", "option_sets",
                                               "answer_context"),
        expected_answer_mode="recap", living_mode="meta_followup", root_retrieval=False,
        must_not="invent conversation memory"),
    "T10": TransitionSpec(
        cls="T10", name="unsupported_or_blocked_boundary", lanes=(
            "boundary", "root", "selection", "graph", "semantic", "clarify_resume"),
        entry_condition="the follow-up is unsupported, its prior state is missing, the evidence "
                        "gate is blocked or execution failed",
        required_prior_state=(), allowed_carryover_depth="none",
        state_mutations=("living_mode", "coverage_gate", "pending", "clarification", "meta_frame",
                         "answer_context", "option_sets", "selected_object", "focus",
                         "explanation", *_ACTION),
        forbidden_carryover=("pending",), must_preserve=(), expected_answer_mode="boundary",
        living_mode="address_data", root_retrieval=False,
        must_not="present blocked execution as a confirmed answer"),
}

# Which carryover a coverage gate admits for each declared depth.
_ADMITS: dict[CarryoverEligibility, frozenset[CarryoverEligibility]] = {
    "none": frozenset({"full", "root_only", "object_only", "meta_only", "none"}),
    "meta_only": frozenset({"full", "root_only", "object_only", "meta_only"}),
    "root_only": frozenset({"full", "root_only"}),
    "object_only": frozenset({"full", "object_only"}),
    "full": frozenset({"full"}),
}


# Transitions by name: code says `CLASS_OF["pronoun_object_followup"]`, never a bare "T5".
CLASS_OF: dict[str, TransitionClass] = {spec.name: cls for cls, spec in REGISTRY.items()}


def carryover_admitted(spec: TransitionSpec, state: ContinuityState,
                       depth: CarryoverEligibility | None = None) -> bool:
    """Does the last answer's coverage gate admit this class's carryover depth (or `depth`)?"""
    wanted = depth or spec.allowed_carryover_depth
    return state.coverage_gate_state.carryover_eligibility in _ADMITS[wanted]


def prior_state_ok(state: ContinuityState, cls: TransitionClass,
                   depth: CarryoverEligibility | None = None) -> tuple[bool, str]:
    """Can `cls` run on `state`: its required prior state present and, for a gated class, the
    last answer's coverage gate admitting its carryover depth (`depth` overrides the class's
    declared depth for a turn that needs more, such as binding "that" to the answer)?"""
    spec = REGISTRY[cls]
    missing = missing_prior_state(spec, state)
    if missing:
        return False, f"missing prior state: {', '.join(missing)}"
    if (spec.gated or depth is not None) and not carryover_admitted(spec, state, depth):
        gate = state.coverage_gate_state
        return False, (f"coverage gate admits {gate.carryover_eligibility} carryover "
                       f"({gate.grounding_status}, {gate.truth_mode}); {spec.name} needs "
                       f"{depth or spec.allowed_carryover_depth}")
    return True, ""


def missing_prior_state(spec: TransitionSpec, state: ContinuityState) -> tuple[StateSlot, ...]:
    """Required slots that are empty (`option_sets` counts only an active set)."""
    return tuple(slot for slot in spec.required_prior_state
                 if (state.active_option_set_id is None if slot == "option_sets"
                     else _get(state, slot) is None or _get(state, slot) == (None, "none")))


class TransitionResult(Frozen):
    state: ContinuityState
    transition: TransitionClass
    mutations: tuple[StateSlot, ...]  # slots whose value changed, in registry order


def apply_transition(state: ContinuityState, cls: TransitionClass, *, turn_id: int,
                     caps: ContinuityCaps, updates: Mapping[StateSlot, Any] | None = None,
                     action: ActionTraceEntry | None = None) -> TransitionResult:
    """Apply transition `cls` to `state`: drop forbidden carryover, apply `updates`, push
    `action` on the trace (and as `last_resolved_action` when it is a ResolvedAction).

    `updates` values: the new sub-state (None clears it). Special slots:
    `option_sets` takes an OptionSet (registered and made active; a set with the same id is
    replaced, stale ones are no longer selectable), a kept set's id (re-activated) or None;
    `choices` takes the accepted choice id or a `ChoiceUpdate` (accepted and / or rejected);
    `explanation` the last assistant explanation text; `living_mode` a LivingModeState
    (default: the class's mode, `clarification` when a pending state is left behind).
    The trace and the choice windows are `caps`' (`recent_action_trace_max_entries`,
    `recent_choice_window`): the settings', never the defaults'.
    """
    spec = REGISTRY[cls]
    updates = dict(updates or {})
    missing = missing_prior_state(spec, state)
    if missing:
        raise TransitionContractError(f"{cls} requires prior state {', '.join(missing)}")
    undeclared = sorted(set(updates) - set(spec.state_mutations))
    if action is not None and "recent_action_trace" not in spec.state_mutations:
        undeclared.append("recent_action_trace")
    if undeclared:
        raise TransitionContractError(f"{cls} may not change {', '.join(undeclared)}")
    before = state
    new = state
    for slot in spec.forbidden_carryover:
        if slot not in updates:
            new = _set(new, slot, None, caps)
    for slot, value in updates.items():
        if slot != "living_mode":
            new = _set(new, slot, value, caps)
    if action is not None:
        trace = (action if type(action) is ActionTraceEntry else ActionTraceEntry(
            **{name: getattr(action, name) for name in ActionTraceEntry.model_fields}),
            *new.recent_action_trace)[:caps.recent_action_trace_max_entries]
        change: dict[str, Any] = {"recent_action_trace": trace}
        if isinstance(action, ResolvedAction):
            change["last_resolved_action"] = action
        new = new.model_copy(update=change)
    mode = updates.get("living_mode")
    if mode is None:
        living = "clarification" if new.pending is not None else spec.living_mode
        mode = (new.living_mode_state if new.living_mode_state.living_mode == living
                else LivingModeState(living_mode=living, mode_reason=spec.name,
                                     mode_source=cls, mode_entry_turn_id=turn_id))
    new = new.model_copy(update={"living_mode_state": mode, "turn_count": turn_id})
    new = ContinuityState.model_validate(new.model_dump())  # re-check the invariants
    for slot in spec.must_preserve:
        if slot not in spec.state_mutations and _get(new, slot) != _get(before, slot):
            raise TransitionContractError(f"{cls} must preserve {slot}")
    if (spec.keeps_root_scope and before.root_frame is not None and new.root_frame is not None
            and new.root_frame.path_scope != before.root_frame.path_scope):
        raise TransitionContractError(f"{cls} must keep the root path scope "
                                      f"{before.root_frame.path_scope}")
    return TransitionResult(state=new, transition=cls, mutations=changed_slots(before, new))


def changed_slots(before: ContinuityState, after: ContinuityState) -> tuple[StateSlot, ...]:
    """The state slots whose value differs, in registry order."""
    return tuple(slot for slot in _SLOTS if _get(after, slot) != _get(before, slot))


_SLOTS: tuple[StateSlot, ...] = (
    "living_mode", "root_frame", "selected_object", "clarification", "answer_context",
    "coverage_gate", "meta_frame", "option_sets", "choices", "focus", "pending",
    "investigation", "explanation", "last_resolved_action", "recent_action_trace", "loop_guard",
)


def _get(state: ContinuityState, slot: StateSlot) -> Any:
    nav = state.address_navigation_state
    getters: dict[str, Any] = {
        "living_mode": state.living_mode_state,
        "root_frame": nav.root_frame,
        "selected_object": nav.selected_object,
        "clarification": state.clarification_state,
        "answer_context": state.answer_context_state,
        "coverage_gate": state.coverage_gate_state,
        "meta_frame": state.meta_frame_state,
        "option_sets": (state.option_sets, state.active_option_set_id, state.active_scope),
        "choices": (state.last_accepted_choice_id, state.recent_accepted_choice_ids,
                    state.recent_rejected_choice_ids),
        "focus": state.focus,
        "pending": (state.pending, state.pending_clarifier_type),
        "investigation": state.investigation_state,
        "explanation": state.last_assistant_explanation,
        "last_resolved_action": state.last_resolved_action,
        "recent_action_trace": state.recent_action_trace,
        "loop_guard": state.selection_loop_guard,
    }
    return getters[slot]


def _set(state: ContinuityState, slot: StateSlot, value: Any, caps: ContinuityCaps
         ) -> ContinuityState:
    nav = state.address_navigation_state
    if slot == "root_frame":
        return state.model_copy(update={"address_navigation_state": AddressNavigationState(
            root_frame=value, selected_object=nav.selected_object)})
    if slot == "selected_object":
        return state.model_copy(update={"address_navigation_state": AddressNavigationState(
            root_frame=nav.root_frame, selected_object=value)})
    if slot == "option_sets":
        return _set_option_sets(state, value)
    if slot == "choices":
        if value is None:  # a new context: the last accepted choice named an older list
            return state.model_copy(update={"last_accepted_choice_id": None})
        update = value if isinstance(value, ChoiceUpdate) else ChoiceUpdate(accepted=value)
        if update.rejected is not None:
            rejected = (update.rejected, *[c for c in state.recent_rejected_choice_ids
                                           if c != update.rejected])
            state = state.model_copy(update={
                "recent_rejected_choice_ids": rejected[:caps.recent_choice_window],
                "recent_accepted_choice_ids": tuple(
                    c for c in state.recent_accepted_choice_ids if c != update.rejected),
                "last_accepted_choice_id": None if state.last_accepted_choice_id
                == update.rejected else state.last_accepted_choice_id})
        if update.accepted is None:
            return state
        accepted = (update.accepted, *[c for c in state.recent_accepted_choice_ids
                                       if c != update.accepted])
        return state.model_copy(update={
            "last_accepted_choice_id": update.accepted,
            "recent_accepted_choice_ids": accepted[:caps.recent_choice_window]})
    if slot == "pending":
        return state.model_copy(update={
            "pending": value,
            "pending_clarifier_type": "none" if value is None else value.clarifier_type})
    if slot == "explanation":
        return state.model_copy(update={"last_assistant_explanation": value or ""})
    if slot == "focus":
        return state if value is None else state.model_copy(update={"focus": value})
    if slot == "investigation":
        return state if value is None else state.model_copy(update={"investigation_state": value})
    if slot == "coverage_gate":
        return state if value is None else state.model_copy(update={"coverage_gate_state": value})
    field = {"clarification": "clarification_state", "answer_context": "answer_context_state",
             "meta_frame": "meta_frame_state", "last_resolved_action": "last_resolved_action",
             "recent_action_trace": "recent_action_trace",
             "loop_guard": "selection_loop_guard"}[slot]
    if field == "recent_action_trace" and value is None:
        value = ()
    return state.model_copy(update={field: value})


def _set_option_sets(state: ContinuityState, value: OptionSet | str | None) -> ContinuityState:
    if value is None:
        return state.model_copy(update={"active_option_set_id": None, "active_scope": None})
    if isinstance(value, str):
        kept = state.option_set(value)
        if kept is None:
            raise TransitionContractError(f"option set {value} is not kept")
        return state.model_copy(update={"active_option_set_id": kept.id,
                                        "active_scope": kept.scope})
    sets = (value, *[s for s in state.option_sets if s.id != value.id])[:OPTION_SETS_KEPT]
    return state.model_copy(update={"option_sets": sets, "active_option_set_id": value.id,
                                    "active_scope": value.scope})
