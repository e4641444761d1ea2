"""The session aggregate: everything a conversation carries from one turn to the next.

Vocabulary (spec README translation table):
    living_mode      address_data = a repo question, assistant_data_scope = choosing a scope,
                     chat = small talk, meta_followup = a question about the last answer,
                     clarification = waiting for a clarifier's answer
    root frame       subsystem (primary tree), controller route, path scope, revision,
                     evidence set id of the last root answer
    selected object  the focused file / symbol / section and the evidence set it came from
    option set       a numbered list a turn showed (evidence list, clarifier options, callers,
                     tests, tree nodes), with an option-set id and a scope

`ContinuityState` is the `assistant_session_state` aggregate of state-and-transition-contracts
and also carries the umbrella contract's `ContinuityState` sidecar fields (lastResolvedAction,
recentActionTrace, lastAcceptedChoiceId, recent accepted/rejected ids, activeOptionSetId,
activeScope, pendingClarifierType). Field names are the documents' names in snake_case, 1:1.

Every sub-state is a frozen model that declares its owner (`OWNER`): the one module allowed to
build a changed copy of it. Everything else reads. The state is a value: transitions return a
new state (`model_copy(update=...)`), never mutate one.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field, model_validator

from helix.core.schemas import Frozen

STATE_SCHEMA_VERSION = "helix-continuity-state/1"

# The windows of the action trace and of the accepted / rejected choice ids are settings
# (`continuity.caps`: recent_action_trace_max_entries, recent_choice_window): the transitions
# keep them (`controller.continuity.transitions`), so a state stored under a configured window
# reloads under any other (the schema is not sized from the defaults).
# A numbered list never holds more items than the controller's evidence cap.
OPTION_SET_MAX_ITEMS = 24
# Option sets kept for recap and staleness checks; only the active one is selectable.
OPTION_SETS_KEPT = 4

LivingMode = Literal["address_data", "assistant_data_scope", "chat", "meta_followup",
                     "clarification"]
PendingClarifierType = Literal["none", "selection_disambiguation", "scope_disambiguation",
                               "missing_slot", "confirmation", "repair"]
PendingKind = Literal["slot_request", "workflow_waiting", "tool_retry_offer", "delegation_offer",
                      "clarification_needed"]
MetaQuestionKind = Literal["evaluation", "comparison", "memory_recap", "boundary_explanation",
                           "answer_interpretation"]
CoverageStatus = Literal["full", "partial", "blocked"]
TruthMode = Literal["confirmed", "limited", "clarification_required", "unsupported"]
CarryoverEligibility = Literal["full", "root_only", "object_only", "meta_only", "none"]
FrameStatus = Literal["active", "suspended", "dropped"]
# T1-T10: the ten classes of state-and-transition-contracts.md; T0: small talk (living mode
# `chat`), a turn outside the documents' business transitions that carries everything unchanged.
TransitionClass = Literal["T0", "T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10"]
# What handled the turn. `graph` = object-level follow-up over the index graph (T4);
# `explain` = retrieval around the focused object (T4); `chat` = small talk (T0); `clarify` =
# the meaning router asking which of two readings a message meant (T0: nothing changes).
Lane = Literal["root", "selection", "semantic", "graph", "explain", "interrupt", "meta",
               "recap", "clarify_resume", "boundary", "chat", "clarify"]
# Where a numbered list's candidates come from (scope cue vocabulary: "from the evidence" ...).
OptionSetKind = Literal["evidence", "options", "callers", "tests", "tree", "answer"]
TargetKind = Literal["file", "span", "symbol", "section", "tree_node", "option", "question",
                     "none"]
ActionType = Literal["answer_root", "open_span", "focus_symbol", "list_callers", "list_tests",
                     "explain_object", "rerun_scoped", "pivot_root", "resume_clarified",
                     "meta_answer", "recap", "interrupt", "clarify", "boundary"]
ActionOutcome = Literal["executed", "answered", "clarified", "blocked", "interrupted"]
FocusSource = Literal["reply_anchor", "lane_recency", "none"]


class _Owned(Frozen):
    OWNER: ClassVar[str] = "controller.continuity.transitions"


class TargetRef(_Owned):
    """What an action acted on: a span, a symbol, a file, a clarifier option, a question."""

    kind: TargetKind
    id: str  # graph node id ("def:a.py::f"), candidate id, or "" for kind "none"
    label: str = ""
    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    symbol: str | None = None


class OptionItem(_Owned):
    """One numbered entry of a list shown to the user (1-based `index`)."""

    id: str  # candidate id: stable within the option set (evidence id, node id, sense)
    index: int = Field(ge=1)
    label: str
    target: TargetRef
    sublabel: str = ""  # deterministic disambiguator (path:line, kind)
    sense: str | None = None  # for clarifier options


class OptionSet(_Owned):
    """A bounded candidate list. Selection executes only ids present here."""

    id: str  # option-set id: short_id of (turn, kind, item ids)
    kind: OptionSetKind
    scope: str  # normalized scope key: "evidence", "options", "callers", "tests", "path:tests/"
    origin_turn_id: int
    items: tuple[OptionItem, ...] = Field(max_length=OPTION_SET_MAX_ITEMS)
    # a clarifier's offered options: the list they were narrowed from (one loop-guard cycle)
    parent_id: str | None = None

    @model_validator(mode="after")
    def _indices(self) -> OptionSet:
        if [item.index for item in self.items] != list(range(1, len(self.items) + 1)):
            raise ValueError("option items must be numbered 1..n in order")
        if len({item.id for item in self.items}) != len(self.items):
            raise ValueError("option item ids must be unique within a set")
        return self


class ActionTraceEntry(_Owned):
    """The umbrella's canonical `recentActionTrace[]` entry."""

    type: ActionType
    target_ref: TargetRef
    source_scope: str
    option_set_id: str | None
    timestamp: int  # epoch ms
    outcome: ActionOutcome


class ResolvedAction(ActionTraceEntry):
    """`lastResolvedAction`: the trace entry plus why it was taken (for "why did you ...")."""

    turn_id: int
    user_text: str
    reason: str  # "ordinal 2 in the evidence list of turn 1", "reply anchor", ...


class LivingModeState(_Owned):
    living_mode: LivingMode = "chat"
    mode_reason: str = "session start"
    mode_source: str = "default"
    mode_entry_turn_id: int = 0


class RootFrameState(_Owned):
    """The active root question: survives object-level transitions (T3-T5, T8, T9)."""

    question: str
    domain_id: str | None  # subsystem: the primary tree / top directory of the evidence
    root_route_id: str  # controller route
    path_scope: str | None  # organization_scope
    revision: str  # date_scope / temporal ceiling: repo_rev
    index_rev: str = ""
    root_result_set_id: str  # evidence set id (hash of the evidence ids)
    root_answer_object_ref: int  # the turn whose answer this frame is
    sense: str | None = None
    frame_status: FrameStatus = "active"


# `compatible_route_family` of the object a grounded root answer led with: selected by the
# answer (the one item it puts first), not yet chosen or opened by the user
ANSWER_LEAD_FAMILY = "answer"
# `compatible_route_family` of the lead of an answer the coverage gate admits `object_only`
# and no more for it (the lead is not what was asked): shown first on screen, so "show it
# again" reopens it (T5), and a capability pointed at it ("who calls it?") acts on it (T4),
# the reply saying first how "it" was read; it is never the focus the head sees (`has_focus`)
ANSWER_SHOWN_FAMILY = "answer_shown"


class SelectedObjectFrameState(_Owned):
    focus_object_ref: TargetRef
    focus_object_kind: TargetKind
    source_result_set_id: str | None
    # "object" (span/symbol actions), "file", "section"; ANSWER_LEAD_FAMILY: the answer's lead
    compatible_route_family: str
    provenance_bundle_ref: str | None  # option-set id the object was chosen from
    temporal_ceiling: str  # revision of the root frame it came from
    frame_status: FrameStatus = "active"

    @property
    def from_answer(self) -> bool:
        """Selected by a root answer (its lead), not chosen or opened by the user."""
        return self.compatible_route_family in (ANSWER_LEAD_FAMILY, ANSWER_SHOWN_FAMILY)

    @property
    def shown_only(self) -> bool:
        """An answer's lead that was shown, not what the question asked (`ANSWER_SHOWN_FAMILY`):
        what "again" shows, and what a capability pointed at "it" acts on, said as read."""
        return self.compatible_route_family == ANSWER_SHOWN_FAMILY


class MetaFrameState(_Owned):
    source_answer_object_ref: int
    meta_question_kind: MetaQuestionKind
    source_gate_status: CoverageStatus
    meta_truth_mode: TruthMode
    # the turn that answered, and the listed item its answer explained ("what's X mean?"):
    # what "it" means right after that answer
    answered_turn_id: int | None = None
    referent_id: str | None = None


class ClarificationState(_Owned):
    """A suspended root question waiting for a sense / scope / slot (resumed by T7)."""

    clarification_kind: PendingClarifierType
    missing_anchors: tuple[str, ...]  # e.g. ("sense",)
    candidate_scopes: tuple[str, ...]  # the senses / scopes offered, in option order
    resume_target_route: str
    resume_target_frame: RootFrameState | None
    question: str  # the suspended question, re-run verbatim with the chosen sense
    option_set_id: str
    asked_turn_id: int


class CoverageGateState(_Owned):
    coverage_status: CoverageStatus = "blocked"
    evidence_grade: float = 0.0  # slot coverage ratio of the last root answer
    grounding_status: Literal["grounded", "ungrounded", "none"] = "none"
    truth_mode: TruthMode = "unsupported"
    carryover_eligibility: CarryoverEligibility = "none"
    reason_codes: tuple[str, ...] = ()


class AnswerContextState(_Owned):
    """The last answer object, for meta follow-ups (T8) and recap (T9)."""

    turn_id: int
    question: str
    answer_excerpt: str
    answer_mode: str
    route: str | None
    stop_reason: str | None
    evidence_ids: tuple[str, ...]
    evidence_paths: tuple[str, ...]  # distinct, in evidence order
    lane: Lane
    transition: TransitionClass
    # the evidence item the answer led with (what "that" means right after it)
    lead_evidence_id: str | None = None


class InvestigationState(_Owned):
    """What the session has looked at: bounded, newest first."""

    evidence_set_ids: tuple[str, ...] = Field(default=(), max_length=OPTION_SETS_KEPT)
    root_questions: tuple[str, ...] = Field(default=(), max_length=OPTION_SETS_KEPT)


class AddressNavigationState(_Owned):
    root_frame: RootFrameState | None = None
    selected_object: SelectedObjectFrameState | None = None


class FocusState(_Owned):
    """The deterministic focus anchor of the last turn (focus-context-pending-state)."""

    OWNER: ClassVar[str] = "controller.continuity.focus"
    anchor_turn_id: int | None = None
    anchor_source: FocusSource = "none"
    snippet: str = ""
    object_ref: TargetRef | None = None


class PendingState(_Owned):
    """A typed pending state: applies only on a strict match of `expected_type`."""

    OWNER: ClassVar[str] = "controller.continuity.pending"
    kind: PendingKind
    # "selection:1|2", "selection:1|2|3", "boolean", "path_scope", "sense:a|b"
    expected_type: str
    clarifier_type: PendingClarifierType
    created_at_ms: int
    expires_at_ms: int | None
    expires_after_turn: int | None  # last turn id at which it may still apply
    anchor_turn_id: int  # anchorMessageId
    thread_key: str  # the session id
    option_set_id: str | None = None
    # "open the bm25 one and explain why" that needed a clarifier first: the clause to answer
    # once the choice is made
    followup_clause: str | None = None
    # a `repair` clarifier (two readings of one message): the readings offered, in option
    # order, and the message they read
    readings: tuple[str, ...] = ()
    reading_text: str | None = None


class LoopGuardState(_Owned):
    """The selection lane's loop guard for the current unresolved option-set cycle: a repeat of
    the same cycle does not re-call the LLM and keeps the prior suggestion order."""

    OWNER: ClassVar[str] = "controller.continuity.selection"
    key: str
    loop_cycle_id: str
    option_set_id: str
    scope: str
    suggestion_order: tuple[str, ...]  # candidate ids, as suggested last time
    llm_calls: int = 0
    llm_failed: bool = False
    turn_id: int


class ContinuityState(_Owned):
    """`assistant_session_state`: the architectural owner of cross-turn continuity."""

    OWNER: ClassVar[str] = "controller.continuity.transitions"
    schema_version: str = STATE_SCHEMA_VERSION
    session_id: str
    turn_count: int = 0  # id of the last completed turn (turn ids are 1-based)

    living_mode_state: LivingModeState = LivingModeState()
    address_navigation_state: AddressNavigationState = AddressNavigationState()
    investigation_state: InvestigationState = InvestigationState()
    clarification_state: ClarificationState | None = None
    answer_context_state: AnswerContextState | None = None
    coverage_gate_state: CoverageGateState = CoverageGateState()
    meta_frame_state: MetaFrameState | None = None

    # umbrella ContinuityState sidecar
    last_resolved_action: ResolvedAction | None = None
    recent_action_trace: tuple[ActionTraceEntry, ...] = ()
    last_accepted_choice_id: str | None = None
    recent_accepted_choice_ids: tuple[str, ...] = ()
    recent_rejected_choice_ids: tuple[str, ...] = ()
    active_option_set_id: str | None = None
    active_scope: str | None = None
    pending_clarifier_type: PendingClarifierType = "none"
    last_assistant_explanation: str = ""

    option_sets: tuple[OptionSet, ...] = Field(default=(), max_length=OPTION_SETS_KEPT)
    focus: FocusState = FocusState()
    pending: PendingState | None = None
    selection_loop_guard: LoopGuardState | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ContinuityState:
        stamps = [entry.timestamp for entry in self.recent_action_trace]
        if stamps != sorted(stamps, reverse=True):
            raise ValueError("recent_action_trace must be newest first")
        if self.active_option_set_id is not None and self.option_set(
                self.active_option_set_id) is None:
            raise ValueError("active_option_set_id names no kept option set")
        return self

    # --- read helpers (pure) ---
    @property
    def root_frame(self) -> RootFrameState | None:
        return self.address_navigation_state.root_frame

    @property
    def selected_object(self) -> SelectedObjectFrameState | None:
        return self.address_navigation_state.selected_object

    @property
    def chosen_object(self) -> SelectedObjectFrameState | None:
        """The selected object when the user chose or opened it (not an answer's lead)."""
        selected = self.address_navigation_state.selected_object
        return None if selected is None or selected.from_answer else selected

    def option_set(self, option_set_id: str) -> OptionSet | None:
        for option_set in self.option_sets:
            if option_set.id == option_set_id:
                return option_set
        return None

    def active_option_set(self) -> OptionSet | None:
        if self.active_option_set_id is None:
            return None
        return self.option_set(self.active_option_set_id)


# The declared owner of every sub-state (state-and-transition-contracts: "every transition class
# has a declared state owner"). Module paths; tests check each model's OWNER agrees.
STATE_OWNERS: dict[str, str] = {
    "living_mode_state": LivingModeState.OWNER,
    "address_navigation_state": AddressNavigationState.OWNER,
    "investigation_state": InvestigationState.OWNER,
    "clarification_state": ClarificationState.OWNER,
    "answer_context_state": AnswerContextState.OWNER,
    "coverage_gate_state": CoverageGateState.OWNER,
    "meta_frame_state": MetaFrameState.OWNER,
    "last_resolved_action": ResolvedAction.OWNER,
    "recent_action_trace": ActionTraceEntry.OWNER,
    "option_sets": OptionSet.OWNER,
    "focus": FocusState.OWNER,
    "pending": PendingState.OWNER,
    "selection_loop_guard": LoopGuardState.OWNER,
}


def initial_state(session_id: str) -> ContinuityState:
    return ContinuityState(session_id=session_id)
