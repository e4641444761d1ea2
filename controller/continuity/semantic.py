"""The semantic lane: follow-ups about what happened ("why did you open that?").

semantic-continuity-answer-lane.md. Answer / explain mode only: this lane never executes.
`LADDER` is the lane, top to bottom, first step that decides wins:

    step             when                                             decision
    hard_interrupt   "stop", "start over"                             escape
    selection_first  selection arbitration pending, or a command /    hand off to the selection
                     ordinal ("open 2", "the second one")             lane
    lane_off         continuity.semantic_lane false                   one safe clarifier, stop
    no_intent        no semantic intent in the words                  one packed clarifier
    bind_slots       intent slot schema -> continuation eligibility -> referent binding (reply
                     anchor > explicit target > scoped active entity > lastResolvedAction >
                     recentActionTrace) -> scoped evidence uniqueness; while a required slot
                     is missing: orchestrator enrichment (scoped referent excerpts, the recent
                     chat window, retrieval chunks in the same scope), retried only when the
                     evidence fingerprint changed and SEMANTIC_MAX_ENRICHMENT_STEPS allows;
                     still missing                                    ONE packed clarifier
    answer           every required slot filled                       the answer (an entity's
                                                                      meaning phrased by the
                                                                      model when one is set;
                                                                      degradation matrix on
                                                                      failure)

Answers about actions come from `lastResolvedAction` / `recentActionTrace` (newest first,
max 5) and are deterministic. Pure: `semantic_steps` is a lane step
(`controller.continuity.requests`); the model call is a `ModelCall` it yields.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol

from pydantic import Field

from controller.continuity.caps import ContinuityCaps, truncate_tokens
from controller.continuity.degradation import Condition, FallbackReason, degrade
from controller.continuity.events import ContinuityEvent
from controller.continuity.fingerprint import (
    CandidateSignature,
    FingerprintInput,
    ScopeBinding,
    evidence_fingerprint,
)
from controller.continuity.focus import TurnSummary
from controller.continuity.lane_mutations import LaneMutations, apply_lane_mutations
from controller.continuity.requests import Steps, at_once
from controller.continuity.selection_match import (
    SelectionCues,
    parse_selection_input,
    scoped_pool,
)
from controller.continuity.semantic_answer import (
    BlendedContext,
    SemanticClarifier,
    Slot,
    answer_action,
    answer_call,
    assemble_context,
    packed_clarifier,
    summarize_trace,
)
from controller.continuity.semantic_binding import (
    ENTITY_QUESTION,
    Slots,
    Trace,
    bind_action,
    bind_entity,
    strip_cue,
)
from controller.continuity.semantic_evidence import (
    ReferentRef,
    ScopedEvidenceCandidate,
    ScopedSnapshot,
    build_candidates,
)
from controller.continuity.state import ActionTraceEntry, ContinuityState
from controller.continuity.vocabulary_data import compiled
from helix.core.config import ContinuitySettings
from helix.core.hashing import digest, short_id
from helix.core.schemas import Frozen

SemanticIntent = Literal["explain_last_action", "summarize_recent_activity",
                         "explain_entity_meaning", "reflective_why_followup"]
# The intent slot schema (normative): required slots, optional slots.
SLOT_SCHEMA: dict[SemanticIntent, tuple[tuple[Slot, ...], tuple[str, ...]]] = {
    "explain_last_action": (("lastResolvedAction",), ("lastAssistantExplanation",)),
    "summarize_recent_activity": (("recentActionTrace",), ("activeScope",)),
    "explain_entity_meaning": (("entityReferent", "scopedEvidence"),
                               ("activeScope", "lastResolvedAction")),
    "reflective_why_followup": (("lastResolvedAction",),
                                ("recentActionTrace", "lastAssistantExplanation")),
}
SemanticKind = Literal["answer", "clarify", "handoff", "escape"]

_SUMMARIZE = compiled("SUMMARIZE")
_WHY = re.compile(r"^\s*why\b", re.I)
_LAST_ACTION = compiled("LAST_ACTION")


def classify_semantic_intent(text: str) -> SemanticIntent | None:
    if _SUMMARIZE.search(text):
        return "summarize_recent_activity"
    if _WHY.match(text):
        return "reflective_why_followup"
    if _LAST_ACTION.search(text):
        return "explain_last_action"
    if ENTITY_QUESTION.search(text):
        return "explain_entity_meaning"
    return None


class SemanticEnrichment(Frozen):
    snapshots: tuple[ScopedSnapshot, ...] = ()
    history: tuple[TurnSummary, ...] = ()


class SemanticEnricher(Protocol):
    """Orchestrator-driven enrichment (no LLM hints in this phase): scoped referent excerpts,
    a bounded recent chat window, bounded retrieval chunks in the same scope."""

    def enrich(self, step: int, intent: SemanticIntent, missing: tuple[Slot, ...],
               scope: str) -> Steps[SemanticEnrichment]: ...


class SemanticDecision(Frozen):
    kind: SemanticKind
    reason: str
    intent: SemanticIntent | None = None
    answer: str = ""
    clarifier: SemanticClarifier | None = None
    missing_slots: tuple[Slot, ...] = ()
    referents: tuple[ReferentRef, ...] = ()
    evidence: ScopedEvidenceCandidate | None = None
    bound_action: ActionTraceEntry | None = None
    context: BlendedContext | None = None
    fallback_reason: FallbackReason | None = None
    scope: str | None = None
    llm_calls: int = 0
    enrichment_steps: int = 0
    events: tuple[ContinuityEvent, ...] = ()
    mutations: LaneMutations = Field(default_factory=LaneMutations)
    executes: Literal[False] = False  # this lane cannot execute actions


def _fingerprint(scope: str, instance: str, option_set_id: str | None,
                 candidates: Sequence[ScopedEvidenceCandidate],
                 history: Sequence[TurnSummary]) -> str:
    """Referents are not part of it: they follow from the text and the state, which no
    enrichment changes; the evidence (candidates, chat window) is what can change."""
    sigs = tuple(CandidateSignature(id=c.excerpt_id, label_normalized=c.source_type,
                                    kind=c.source_type, owner=",".join(c.entity_keys))
                 for c in candidates)
    hashes = tuple(c.excerpt_hash for c in candidates) + tuple(
        digest(f"{h.turn_id}:{h.user_text}:{h.answer_excerpt}") for h in history)
    return evidence_fingerprint(FingerprintInput(
        scope_binding=ScopeBinding(active_scope=scope, scope_instance_id=instance),
        active_option_set_id=option_set_id, candidate_signatures=sigs, excerpt_hashes=hashes))


class _Ask:
    """One semantic follow-up: what every step reads, and what binding found."""

    def __init__(self, text: str, state: ContinuityState, settings: ContinuitySettings,
                 now_ms: int, intent: SemanticIntent | None, history: Sequence[TurnSummary],
                 snapshots: Sequence[ScopedSnapshot], explanation_scope: str | None,
                 explanation_ms: int | None, model_ready: bool,
                 enricher: SemanticEnricher | None, anchored: ActionTraceEntry | None,
                 extended_budget: bool, caps: ContinuityCaps) -> None:
        self.text, self.state, self.settings, self.now_ms = text, state, settings, now_ms
        self.model_ready, self.enricher, self.anchored = model_ready, enricher, anchored
        self.caps, self.calls = caps, 0
        self.cues: SelectionCues = parse_selection_input(text)
        option_set, _, cue_scope = scoped_pool(state, self.cues)
        self.explicit_scope = self.cues.scope_kind is not None or self.cues.path_scope is not None
        self.scope = ((cue_scope or self.cues.scope_kind or self.cues.path_scope or "session")
                      if self.explicit_scope else (state.active_scope or "session"))
        self.option_set_id = option_set.id if option_set else state.active_option_set_id
        self.intent = intent or classify_semantic_intent(strip_cue(text, self.cues.scope_phrase))
        self.body = strip_cue(self.cues.text, self.cues.scope_phrase)
        self.history = tuple(history)
        self.snapshots = tuple(snapshots)
        self.explanation_scope = explanation_scope
        self.explanation_ms = now_ms if explanation_ms is None else explanation_ms
        budget = caps.semantic_enrichment_budget(extended_budget)
        self.t = Trace(short_id("semantic-cycle", state.session_id, state.turn_count + 1,
                                self.intent, self.cues.key_text), self.scope, self.option_set_id,
                       budget, caps)
        self.slots = Slots()
        self.context: BlendedContext | None = None

    def decision(self, **kw: Any) -> SemanticDecision:
        return SemanticDecision(intent=self.intent, scope=self.scope, events=tuple(self.t.events),
                                llm_calls=self.calls,
                                enrichment_steps=self.t.step, **kw)

    def clarify(self, reason: str, clar: SemanticClarifier, **kw: Any) -> SemanticDecision:
        return self.decision(kind="clarify", reason=reason, clarifier=clar,
                             missing_slots=clar.missing_slots,
                             mutations=LaneMutations(pending_clarifier_type="missing_slot"),
                             **kw)

    def candidates(self) -> list[ScopedEvidenceCandidate]:
        return build_candidates(self.snapshots, self.state.last_assistant_explanation,
                                self.explanation_scope, self.explanation_ms, self.scope)

    def fingerprint(self) -> str:
        return _fingerprint(self.scope, self.option_set_id or self.state.session_id,
                            self.option_set_id, self.candidates(), self.history)

    def bind(self) -> Slots:
        t, state = self.t, self.state
        t.missing_reasons = {}
        if self.intent == "summarize_recent_activity":
            entries = [e for e in state.recent_action_trace
                       if not self.explicit_scope or e.source_scope == self.scope]
            if not entries:
                t.missing_reasons["recentActionTrace"] = "no actions recorded"
                return Slots(missing=("recentActionTrace",))
            return Slots()
        if self.intent == "explain_entity_meaning":
            return bind_entity(self.body, state, self.scope, self.option_set_id,
                               self.candidates(), self.now_ms, t, self.caps)
        return bind_action(self.body, state, self.scope, self.now_ms, t, self.caps,
                           self.anchored)


Rung = Callable[[_Ask], Steps[SemanticDecision | None]]


def hard_interrupt(a: _Ask) -> SemanticDecision | None:
    return SemanticDecision(kind="escape", reason="hard_interrupt") if a.cues.interrupt \
        else None


def selection_first(a: _Ask) -> SemanticDecision | None:
    """A selection-like turn ("the second one") or pending selection arbitration stays in
    the selection ladder: this lane never enters, never duplicates that hook."""
    cues = a.cues
    selection_like = not cues.question_intent and (cues.ordinal is not None
                                                   or cues.kind_word is not None)
    pending = a.state.pending_clarifier_type == "selection_disambiguation"
    if not (pending or cues.command_like or selection_like):
        return None
    why = ("selection arbitration pending" if pending
           else "command-like turn on a bounded target")
    a.t.emit("semantic_followup_handoff_to_selection_lane", why)
    return a.decision(kind="handoff", reason=why)


def lane_off(a: _Ask) -> SemanticDecision | None:
    if a.settings.semantic_lane:
        return None
    a.t.emit("lane_disabled", "semantic_lane off: one safe clarifier")
    return a.decision(kind="clarify", reason="lane_disabled", clarifier=SemanticClarifier(
        question="Follow-up answers about earlier turns are turned off (continuity."
                 "semantic_lane); please ask the question in full, naming the file or symbol.",
        missing_slots=()))


def no_intent(a: _Ask) -> SemanticDecision | None:
    if a.intent is not None:
        return None
    a.t.emit("semantic_followup_context_insufficient", "not a semantic follow-up")
    return a.clarify("context_insufficient", packed_clarifier(("lastResolvedAction",), ()))


def bind_slots(a: _Ask) -> Steps[SemanticDecision | None]:
    """Bind every required slot; enrich (fingerprint-gated, budgeted) while one is missing;
    then ONE packed clarifier. None when every slot is filled (the answer step runs)."""
    t = a.t
    assert a.intent is not None
    while True:
        fp = a.fingerprint()
        t.fp_before = t.fp_before or fp
        t.fp_after = fp
        a.slots = a.bind()
        excerpt = a.slots.evidence.text if a.slots.evidence else ""
        a.context = assemble_context(a.state, a.history, excerpt, a.caps)
        t.window, t.fields_used = len(a.context.history), tuple(
            k for k, v in a.context.structured.items() if v not in (None, [], ""))
        if not a.slots.missing and not _explanation_only(a):
            return None
        if not a.slots.missing:
            # an entity bound only through the last explanation (an answer or a recap that
            # quotes its name): the listed items or evidence spans that ARE it come first,
            # looked for within the same budget; the explanation stays the fallback
            if a.enricher is None or t.step >= t.budget:
                return None
            t.step += 1
            got = yield from a.enricher.enrich(t.step, a.intent, ("scopedEvidence",), a.scope)
            a.snapshots += got.snapshots
            t.fp_before, t.fp_after = fp, a.fingerprint()
            if t.fp_after != fp:
                t.emit("semantic_enrichment_retry_called", "continuity_enrichment_retry_called")
            continue
        t.emit("semantic_followup_missing_slot", "required slot missing",
               missing=list(a.slots.missing))
        stop: Condition | None = None
        if a.enricher is not None and t.step >= t.budget:
            stop = "budget_exhausted"
            t.emit("semantic_enrichment_budget_exhausted", "continuity_enrichment_budget_exhausted")
        elif a.enricher is not None:
            t.step += 1
            got = yield from a.enricher.enrich(t.step, a.intent, a.slots.missing, a.scope)
            a.snapshots += got.snapshots
            merged = {h.turn_id: h for h in (*a.history, *got.history)}
            a.history = tuple(merged[k] for k in sorted(merged, reverse=True))
            t.fp_before, t.fp_after = fp, a.fingerprint()
            if t.fp_after == fp:
                stop = "fingerprint_unchanged"
                t.emit("semantic_enrichment_fingerprint_unchanged",
                       "continuity_enrichment_fingerprint_unchanged")
            else:
                t.emit("semantic_enrichment_retry_called", "continuity_enrichment_retry_called")
                continue
        if not a.slots.options and not a.slots.candidates:
            t.emit("semantic_followup_context_insufficient", "nothing to offer")
        d = degrade(stop, "semantic") if stop else None
        clar = packed_clarifier(a.slots.missing, a.slots.options, d.note if d else "")
        t.emit("semantic_followup_single_clarifier_asked", d.reason if d else "missing slot",
               missing=list(a.slots.missing))
        return a.clarify("missing_slot", clar, referents=a.slots.referents, context=a.context,
                         fallback_reason=d.reason if d else None)


def _explanation_only(a: _Ask) -> bool:
    evidence = a.slots.evidence if a.slots else None
    return (a.intent == "explain_entity_meaning" and evidence is not None
            and evidence.source_type == "last_assistant_explanation")


def answer(a: _Ask) -> Steps[SemanticDecision]:
    slots, context = a.slots, a.context
    assert context is not None
    if a.intent == "summarize_recent_activity":
        text = summarize_trace(a.state, a.scope if a.explicit_scope else None)
    elif a.intent == "explain_entity_meaning" and slots.evidence is not None:
        text = (f"From the {slots.evidence.source_type.replace('_', ' ')} in the {a.scope} "
                f"scope: {context.excerpt}")
        if a.model_ready:
            a.calls += 1
            phrased, failure = yield from answer_call(a.body, context, a.caps)
            if failure is not None:
                d = degrade(failure, "semantic")
                a.t.emit("semantic_followup_single_clarifier_asked", d.reason)
                return a.clarify("degraded", packed_clarifier(("scopedEvidence",), (
                    f"{slots.evidence.source_type}: "
                    f"{truncate_tokens(slots.evidence.text, 12)}",), d.note),
                    referents=slots.referents, evidence=slots.evidence, context=context,
                    fallback_reason=d.reason)
            text = phrased
    else:
        assert slots.action is not None
        text = answer_action(slots.action, a.state, a.history)
    a.t.emit("semantic_followup_answered", a.intent or "")
    return a.decision(kind="answer", reason="answered", answer=text, referents=slots.referents,
                      evidence=slots.evidence, bound_action=slots.action, context=context,
                      mutations=LaneMutations(pending_clarifier_type="none",
                                              last_assistant_explanation=text))


LADDER: tuple[tuple[str, Rung], ...] = (
    ("hard_interrupt", at_once(hard_interrupt)),
    ("selection_first", at_once(selection_first)),
    ("lane_off", at_once(lane_off)),
    ("no_intent", at_once(no_intent)),
    ("bind_slots", bind_slots),  # it may enrich (span reads)
    ("answer", answer),  # it may ask the model
)


def semantic_steps(
    text: str, state: ContinuityState, settings: ContinuitySettings, *, now_ms: int,
    intent: SemanticIntent | None = None, history: Sequence[TurnSummary] = (),
    snapshots: Sequence[ScopedSnapshot] = (), explanation_scope: str | None = None,
    explanation_ms: int | None = None, model_ready: bool = False,
    enricher: SemanticEnricher | None = None, anchored: ActionTraceEntry | None = None,
    extended_budget: bool = False, caps: ContinuityCaps | None = None,
) -> Steps[SemanticDecision]:
    """Answer one semantic follow-up, or ask ONE packed clarifier. Never executes.
    `anchored`: the action of the turn the user replied to (`--reply-to`)."""
    caps = caps or settings.caps  # the settings' limits unless a caller names others
    ask = _Ask(text, state, settings, now_ms, intent, history, snapshots, explanation_scope,
               explanation_ms, model_ready, enricher, anchored, extended_budget, caps)
    for _name, step in LADDER:
        decided = yield from step(ask)
        if decided is not None:
            return decided
    raise AssertionError("answer always decides")


class MixedOutcome(Frozen):
    selection: Any  # SelectionDecision (kept loose to avoid a cycle in type hints)
    semantic: SemanticDecision | None
    state: ContinuityState


def mixed_intent_steps(text: str, state: ContinuityState, settings: ContinuitySettings, *,
                       now_ms: int, **selection_kwargs: Any) -> Steps[MixedOutcome]:
    """`open 2 and explain why`: the selection lane first; if it executed, the explanation
    clause is answered by this lane from the new lastResolvedAction. If it clarified, the
    clause stays on the selection decision (`followup_clause`) for after the choice."""
    from controller.continuity.selection import selection_steps

    sel = yield from selection_steps(text, state, settings, now_ms=now_ms, **selection_kwargs)
    new_state = apply_lane_mutations(state, sel.mutations, settings.caps)
    if sel.kind != "execute" or not sel.followup_clause:
        return MixedOutcome(selection=sel, semantic=None, state=new_state)
    if sel.candidate is not None:  # "it" in the clause is what this turn just opened
        new_state = new_state.model_copy(update={"focus": new_state.focus.model_copy(
            update={"object_ref": sel.candidate.target})})
    sem = yield from semantic_steps(sel.followup_clause, new_state, settings, now_ms=now_ms,
                                    intent="reflective_why_followup")
    return MixedOutcome(selection=sel, semantic=sem,
                        state=apply_lane_mutations(new_state, sem.mutations, settings.caps))
