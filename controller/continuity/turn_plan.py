"""One turn as the router's rules see it (`Turn`) and what they decide (`TurnPlan`). Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from controller.continuity import phrases as say
from controller.continuity.focus import FocusContext
from controller.continuity.pending import PendingMatch, normalize
from controller.continuity.state import (
    CarryoverEligibility,
    ContinuityState,
    Lane,
    OptionSet,
    OptionSetKind,
    TargetRef,
    TransitionClass,
)
from controller.continuity.transitions import CLASS_OF, REGISTRY
from helix.core.config import ContinuitySettings
from helix.core.schemas import Frozen

Intent = Literal[
    "root_question", "reset", "cancel", "back_to_root", "scope_rerun", "resume_clarified",
    "select_item", "select_focused", "graph_callers", "graph_tests", "explain_last_action",
    "reflective_why_followup", "summarize_recent_activity", "explain_entity_meaning",
    "meta_answer", "recap_topic", "boundary", "small_talk", "explain_item", "explain_focused",
    "correct_choice", "pivot", "clarify_reading",
]
ORDINAL_SHAPE_MAX = 10**6  # any ordinal a person could type


class Reading(Frozen):
    """How the meaning router read a turn: the meaning, its probability, the next readings."""

    meaning: str
    confidence: float
    alternatives: tuple[tuple[str, float], ...] = ()
    option_scores: tuple[float, ...] = ()  # the message against each pending option
    # the message against each sense of the root question (`Features.senses`)
    sense_scores: tuple[float, ...] = ()
    detail: str | None = None  # the nearest exemplar's detail (a small-talk kind)
    forced: bool = False  # given, not classified (the trainer's teacher-forced runs)

    @property
    def margin(self) -> float:
        second = self.alternatives[0][1] if self.alternatives else 0.0
        return round(self.confidence - second, 4)


class TurnPlan(Frozen):
    lane: Lane
    transition: TransitionClass
    transition_name: str
    intent: Intent
    text: str
    question: str | None = None  # what the controller runs (T1 / T2 / T6 pivot / T7)
    scope: str | None = None  # path scope ("tests/")
    sense: str | None = None  # T2 / T7: the chosen sense
    choice_index: int | None = None  # 1-based index in the option set (T3 / T7)
    option_set_id: str | None = None  # the bounded list the turn acts on
    source_cue: OptionSetKind | None = None  # explicit "from the evidence" cue
    target: TargetRef | None = None  # the resolved object (T4 / T5)
    topic: str | None = None  # T9 recap topic
    followup_clause: str | None = None  # mixed intent: answered after the selection
    selection_text: str | None = None  # what the selection lane resolves (default: the text)
    rejected_choice_id: str | None = None  # a correction: the choice the user turned down
    small_talk: say.SmallTalkKind | None = None
    # the carryover the turn needs when more than its class declares (binding "that" to what
    # the answer said needs a grounded answer: "full")
    carryover_depth: CarryoverEligibility | None = None
    retrieval: bool = False  # does the controller run over the repository
    disabled: bool = False  # the lane's setting is off: its flag-off behaviour runs
    pending: PendingMatch = PendingMatch(status="none")
    focus: FocusContext
    reasons: tuple[str, ...] = ()
    rule: str = ""  # the vocabulary rule that made the plan (router.RULES)
    reading: Reading | None = None  # the meaning router's reading (None: the rules alone)
    announce: str | None = None  # said back first when the reading was unsure
    readings: tuple[str, ...] = ()  # clarify_reading: the two readings offered, in order


@dataclass
class Turn:
    """One message as the rules see it (read-only, except the reasons they add)."""

    state: ContinuityState
    text: str
    reply_to: int | None
    settings: ContinuitySettings
    focus: FocusContext
    body: str  # normalized, small-talk lead-in and polite lead-ins removed
    plain: str  # normalized, small-talk lead-in removed ("and the tokenizer?" keeps its "and")
    core: str  # body without a mixed-intent clause ("and explain why")
    clause: str | None
    turn_id: int
    now_ms: int
    pending: PendingMatch = field(default_factory=lambda: PendingMatch(status="none"))
    reasons: list[str] = field(default_factory=list)
    last_transition: TransitionClass | None = None  # the class of the turn before

    def plan(self, transition: str, lane: Lane, intent: Intent, why: str,
             **kw: object) -> TurnPlan:
        """A plan for the transition named `transition` (`root_query_entry`, ...)."""
        cls = CLASS_OF[transition]
        retrieval = bool(kw.pop("retrieval", REGISTRY[cls].root_retrieval))
        if lane == "selection" and not kw.get("selection_text"):
            kw["selection_text"] = self.as_read()
        pending = kw.pop("pending", None) or self.pending
        return TurnPlan(lane=lane, transition=cls, transition_name=transition, intent=intent,
                        text=self.text, focus=self.focus,
                        pending=pending,  # type: ignore[arg-type]
                        reasons=(*self.reasons, why), retrieval=retrieval,
                        **kw)  # type: ignore[arg-type]

    def as_read(self) -> str | None:
        """The message as the router read it, in the user's own letters: a courtesy or polite
        frame around a request dropped ("Thank you. Would you open the test one, please?" ->
        "open the test one"), so the selection lane never takes the request for a question.
        None when nothing was dropped (the lane reads the text)."""
        words = re.findall(r"[\w./#'-]+", self.body)
        if not words or self.body == normalize(self.text):
            return None
        found = re.search(r"\W+".join(map(re.escape, words)), self.text, re.IGNORECASE)
        return found.group(0) if found else self.body

    def boundary(self, why: str, lane: Lane = "boundary") -> TurnPlan:
        return self.plan("unsupported_or_blocked_boundary", lane, "boundary", why)

    def focused(self) -> TargetRef | None:
        """The object "it" means: the reply anchor's object, else the selected object."""
        if self.focus.source == "reply_anchor" and self.focus.object_ref is not None:
            return self.focus.object_ref
        selected = self.state.selected_object
        return selected.focus_object_ref if selected and not selected.shown_only else None

    def shown_lead(self) -> TargetRef | None:
        """With nothing in focus, the item the last answer showed first though it was not
        what was asked (`SelectedObjectFrameState.shown_only`): what "show it again" shows,
        and what "who calls it?" / "explain it" act on (the gate's `object_only` carryover)."""
        selected = self.state.selected_object
        if self.focused() is not None or selected is None or not selected.shown_only:
            return None
        return selected.focus_object_ref

    def answer_lead(self) -> bool:
        """The object "it" means is the one the last answer led with (not chosen or opened)."""
        selected = self.state.selected_object
        return self.focus.source != "reply_anchor" and selected is not None \
            and selected.from_answer and not selected.shown_only

    def lead_item(self) -> tuple[OptionSet, int] | None:
        """(active list, index) of the item the last answer led with, when it is listed."""
        pool = self.pool()
        answer = self.state.answer_context_state
        lead = answer.lead_evidence_id if answer else None
        if pool is None or not lead:
            return None
        index = next((i.index for i in pool.items if i.id == lead), None)
        return None if index is None else (pool, index)

    def explained_item(self) -> tuple[OptionSet, int] | None:
        """(active list, index) of the item the last turn's semantic answer explained, when
        that answer is the last turn and the item is listed."""
        frame = self.state.meta_frame_state
        pool = self.pool()
        if frame is None or frame.referent_id is None or pool is None \
                or frame.answered_turn_id != self.state.turn_count:
            return None
        index = next((i.index for i in pool.items if i.id == frame.referent_id), None)
        return None if index is None else (pool, index)

    def pool(self, cue: OptionSetKind | None = None) -> OptionSet | None:
        """The bounded list a selection acts on: the explicit source cue's list, else the reply
        anchor's list, else the active one. Never a stale list otherwise."""
        if cue is not None:
            return next((s for s in self.state.option_sets if s.kind == cue), None)
        if self.focus.source == "reply_anchor" and self.focus.option_set_id:
            return self.state.option_set(self.focus.option_set_id)
        return self.state.active_option_set()


def hold_selection_pending(t: Turn, plan: TurnPlan) -> TurnPlan:
    """A semantic follow-up while a selection clarifier waits keeps the pending: the semantic
    lane must not enter then (its selection-first rung hands the turn to the selection ladder,
    which owns the unresolved choice); dropping it first would let the lane answer."""
    pending = t.state.pending
    if plan.lane != "semantic" or pending is None or t.pending.status != "mismatch" \
            or pending.clarifier_type != "selection_disambiguation":
        return plan
    held = t.pending.model_copy(update={"status": "held", "reason": (
        "selection clarifier pending: the selection ladder answers")})
    return plan.model_copy(update={"pending": held,
                                   "reasons": (*plan.reasons, "selection pending held")})
