"""The semantic lane: follow-ups about what happened ("why did you open that?").

semantic-continuity-answer-lane.md. Answer / explain mode only: this lane never executes.

    hard interrupt ........................................ escape
    selection arbitration pending / command-like turn ..... hand off to the selection lane
    lane setting off ...................................... one safe clarifier, stop
    intent slot schema -> continuation eligibility -> referent binding (explicit target >
    scoped active entity > lastResolvedAction > recentActionTrace) -> scoped evidence
    uniqueness; all required slots filled ................. answer (no clarifier)
    else orchestrator enrichment (fingerprint-gated, budgeted), then ONE packed clarifier

Answers about actions come from `lastResolvedAction` / `recentActionTrace` (newest first,
max 5) and are deterministic; an entity meaning is answered from its unique scoped excerpt,
phrased by the injected LLM when one is configured (degradation matrix on failure).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from pydantic import Field

from controller.continuity.caps import CAPS, ContinuityCaps, truncate_tokens
from controller.continuity.degradation import (
    Condition,
    FallbackReason,
    degrade,
)
from controller.continuity.events import ContinuityEvent
from controller.continuity.fingerprint import (
    CandidateSignature,
    FingerprintInput,
    ScopeBinding,
    evidence_fingerprint,
)
from controller.continuity.focus import TurnSummary
from controller.continuity.selection import LaneMutations, apply_lane_mutations
from controller.continuity.selection_match import parse_selection_input, scoped_pool
from controller.continuity.semantic_answer import (
    BlendedContext,
    SemanticClarifier,
    Slot,
    action_types_asked,
    answer_action,
    ask_answer_llm,
    assemble_context,
    packed_clarifier,
    summarize_trace,
)
from controller.continuity.semantic_evidence import (
    ReferentRef,
    ScopedEvidenceCandidate,
    ScopedSnapshot,
    build_candidates,
    entity_key,
    entity_keys_of,
    select_eligible_scoped_evidence,
    unique_scoped_evidence,
)
from controller.continuity.state import ActionTraceEntry, ContinuityState, ResolvedAction
from helix.core.config import ContinuitySettings
from helix.core.hashing import digest, short_id
from helix.core.ports import LLM
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

_SUMMARIZE = re.compile(r"\b(what happened|summari[sz]e|recap|what have we done|"
                        r"what did we do|what we did)\b", re.I)
_WHY = re.compile(r"^\s*why\b", re.I)
_LAST_ACTION = re.compile(r"\bwhat (?:did|have) you (?:just )?(?:do|done|open|opened|show|"
                          r"showed|shown|pick|picked)\b|\bexplain what you did\b", re.I)
_ENTITY = re.compile(r"\bwhat (?:does|do) (.+?) mean\b|\bwhat (?:is|are) (.+)$|"
                     r"\bmeaning of (.+)$|\bdefine (.+)$|\bexplain (.+)$", re.I)
_WHY_TARGET = re.compile(r"\bwhy (?:did|do|would|have) you (?:\w+) (.+)$", re.I)
_DEICTIC = re.compile(r"^(?:it|that|this|those|them|there|that one|this one|the same)$", re.I)
# continuation eligibility, item 2 (plus "just" / "last", which name the last action itself)
_MARKER = re.compile(r"\b(it|that|this|those|them|there|continue|go on|more|again|next|why|"
                     r"how|what about|just|last)\b", re.I)


def classify_semantic_intent(text: str) -> SemanticIntent | None:
    if _SUMMARIZE.search(text):
        return "summarize_recent_activity"
    if _WHY.match(text):
        return "reflective_why_followup"
    if _LAST_ACTION.search(text):
        return "explain_last_action"
    if _ENTITY.search(text):
        return "explain_entity_meaning"
    return None


class SemanticEnrichment(Frozen):
    snapshots: tuple[ScopedSnapshot, ...] = ()
    history: tuple[TurnSummary, ...] = ()


class SemanticEnricher(Protocol):
    """Orchestrator-driven enrichment (no LLM hints in this phase): scoped referent excerpts,
    a bounded recent chat window, bounded retrieval chunks in the same scope."""

    def enrich(self, step: int, intent: SemanticIntent, missing: tuple[Slot, ...],
               scope: str) -> SemanticEnrichment: ...


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
    events: tuple[ContinuityEvent, ...] = ()
    mutations: LaneMutations = Field(default_factory=LaneMutations)
    executes: Literal[False] = False  # this lane cannot execute actions


def _within_ttl(state: ContinuityState, ts: int, now_ms: int, turn_id: int | None,
                caps: ContinuityCaps) -> bool:
    if not 0 <= now_ms - ts <= caps.continuity_ttl_max_ms:
        return False
    return turn_id is None or state.turn_count + 1 - turn_id <= caps.continuity_ttl_max_turns


def _target_keys(e: ActionTraceEntry) -> set[str]:
    t = e.target_ref
    return set(entity_keys_of(" ".join(x for x in (t.label, t.path or "", t.symbol or "", t.id)
                                       if x))) | {entity_key(t.label)}


def _strip_cue(text: str, phrase: str) -> str:
    return text.replace(phrase, " ").strip(" ,;:") if phrase else text


class _Turn:
    """One turn's working set: events with the loop-cycle fields, slot outcomes."""

    def __init__(self, cycle: str, scope: str, option_set_id: str | None, budget: int,
                 caps: ContinuityCaps) -> None:
        self.cycle, self.scope, self.option_set_id = cycle, scope, option_set_id
        self.budget, self.caps = budget, caps
        self.step = 0
        self.fp_before: str | None = None
        self.fp_after: str | None = None
        self.events: list[ContinuityEvent] = []
        self.window = 0
        self.fields_used: tuple[str, ...] = ()
        self.missing_reasons: dict[str, str] = {}

    def emit(self, name: Any, reason: str = "", **data: Any) -> None:
        self.events.append(ContinuityEvent(
            name=name, lane="semantic", loop_cycle_id=self.cycle,
            fingerprint_before=self.fp_before, fingerprint_after=self.fp_after,
            retry_attempt_index=self.step, retry_budget_remaining=self.budget - self.step,
            active_option_set_id=self.option_set_id, active_scope=self.scope, reason=reason,
            data={"window_size": self.window, "structured_fields_used": list(self.fields_used),
                  "slot_missing_reasons": dict(self.missing_reasons), **data}))


class _Slots(Frozen):
    missing: tuple[Slot, ...] = ()
    referents: tuple[ReferentRef, ...] = ()
    action: ActionTraceEntry | None = None
    evidence: ScopedEvidenceCandidate | None = None
    options: tuple[str, ...] = ()
    candidates: tuple[ScopedEvidenceCandidate, ...] = ()


def _bind_action(text: str, state: ContinuityState, scope: str, now_ms: int, t: _Turn,
                 caps: ContinuityCaps) -> _Slots:
    """Referent binding for action intents, strict priority order."""
    actions: list[ActionTraceEntry] = list(state.recent_action_trace)
    last = state.last_resolved_action
    if last is not None and all((a.timestamp, a.target_ref.id) != (last.timestamp,
                                                                   last.target_ref.id)
                                for a in actions):
        actions.insert(0, last)
    kinds = action_types_asked(text)  # "why did you open that?": the open actions only
    if kinds is not None:
        actions = [a for a in actions if a.type in kinds]
        last = last if last is not None and last.type in kinds else None
    explicit = _WHY_TARGET.search(text)
    target = explicit.group(1).strip(" ?.!") if explicit else ""
    if target and not _DEICTIC.match(target):
        key = entity_key(target)  # rank 1: explicit target in the current turn wins
        hits = [a for a in actions if key in _target_keys(a)]
        if not hits:
            t.emit("continuity_blocked_conflict", "explicit target never acted on",
                   target=target)
            t.missing_reasons["lastResolvedAction"] = f"no action on '{target}'"
            return _Slots(missing=("lastResolvedAction",),
                          options=tuple(a.target_ref.label for a in actions))
        return _one_action(hits, "explicit target", t, scope)
    if not _MARKER.search(text):
        t.emit("continuity_no_referent_marker", "no pronoun / continuation marker")
        t.missing_reasons["lastResolvedAction"] = "no referent marker"
        return _Slots(missing=("lastResolvedAction",))
    in_scope = [a for a in actions if a.source_scope == scope or scope == "session"]
    focus = state.focus.object_ref  # rank 2: the scoped active entity
    if focus is not None:  # (a named verb binds its kind on the focused object in any list)
        hits = [a for a in (actions if kinds is not None else in_scope)
                if a.target_ref.id == focus.id
                and _within_ttl(state, a.timestamp, now_ms, _turn_of(a, last), caps)]
        if hits:
            return _one_action(hits[:1], "scoped active entity", t, scope)
    if last is not None:  # rank 3: lastResolvedAction within TTL, same scope
        if not _within_ttl(state, last.timestamp, now_ms, last.turn_id, caps):
            t.emit("continuity_ttl_expired", "lastResolvedAction older than the TTL")
        elif last.source_scope == scope or scope == "session":
            return _one_action([last], "lastResolvedAction", t, scope)
    fresh = [a for a in in_scope if _within_ttl(state, a.timestamp, now_ms,
                                                _turn_of(a, last), caps)]
    if fresh:  # rank 4: the most recent trace entry within TTL
        return _one_action(fresh[:1], "recentActionTrace", t, scope)
    if in_scope and not fresh:
        t.emit("continuity_ttl_expired", "every trace entry is older than the TTL")
    t.missing_reasons["lastResolvedAction"] = "no referent within TTL in scope"
    return _Slots(missing=("lastResolvedAction",),
                  options=tuple(a.target_ref.label for a in actions))


def _turn_of(a: ActionTraceEntry, last: ActionTraceEntry | None) -> int | None:
    """Trace entries carry no turn id; the one that is lastResolvedAction borrows its."""
    if isinstance(a, ResolvedAction):
        return a.turn_id
    if (last is not None and isinstance(last, ResolvedAction)
            and (a.timestamp, a.target_ref.id) == (last.timestamp, last.target_ref.id)):
        return last.turn_id
    return None


def _one_action(hits: list[ActionTraceEntry], rank: str, t: _Turn, scope: str) -> _Slots:
    distinct = {(a.target_ref.id, a.type) for a in hits}
    refs = tuple(ReferentRef(kind="action_target", id=a.target_ref.id, scope=scope,
                             option_set_id=a.option_set_id) for a in hits)
    if len(distinct) != 1:
        t.missing_reasons["lastResolvedAction"] = f"{len(distinct)} referents at rank {rank}"
        return _Slots(missing=("lastResolvedAction",), referents=refs,
                      options=tuple(a.target_ref.label for a in hits))
    t.emit("continuity_slot_filled", rank, slot="lastResolvedAction")
    return _Slots(referents=refs[:1], action=hits[0])


def _bind_entity(text: str, state: ContinuityState, scope: str, option_set_id: str | None,
                 candidates: list[ScopedEvidenceCandidate], now_ms: int, t: _Turn,
                 caps: ContinuityCaps) -> _Slots:
    match = _ENTITY.search(text)
    raw = next((g for g in match.groups() if g), "") if match else ""
    raw = re.sub(r"^(?:the|a|an)\s+", "", raw.strip(" ?.!"), flags=re.I)
    refs: list[ReferentRef] = []
    if raw and not _DEICTIC.match(raw):
        refs.append(ReferentRef(kind="entity", id=entity_key(raw), scope=scope,
                                option_set_id=option_set_id))
    elif _MARKER.search(text):
        focus = state.focus.object_ref
        last = state.last_resolved_action
        if focus is not None:
            ref_id = focus.symbol or focus.path or focus.label
            refs.append(ReferentRef(kind="entity", id=entity_key(ref_id), scope=scope,
                                    option_set_id=option_set_id))
        elif last is not None and _within_ttl(state, last.timestamp, now_ms, last.turn_id,
                                              caps):
            ref = last.target_ref
            refs.append(ReferentRef(kind="action_target", id=entity_key(
                ref.symbol or ref.path or ref.label), scope=scope,
                option_set_id=last.option_set_id))
    else:
        t.emit("continuity_no_referent_marker", "no entity and no referent marker")
    if not refs:
        t.missing_reasons["entityReferent"] = "no entity named or bound"
        t.missing_reasons["scopedEvidence"] = "no referent to look up"
        return _Slots(missing=("entityReferent", "scopedEvidence"))
    t.emit("continuity_slot_filled", "entity referent", slot="entityReferent", id=refs[0].id)
    unique = unique_scoped_evidence(refs, scope, candidates, now_ms, caps)
    if unique is not None:
        t.emit("continuity_slot_filled", unique.source_type, slot="scopedEvidence")
        return _Slots(referents=tuple(refs), evidence=unique)
    eligible, conflict = select_eligible_scoped_evidence(candidates, refs[0], now_ms, caps)
    if eligible or conflict:
        t.emit("continuity_non_unique_scoped_evidence",
               "source conflict" if conflict else f"{len(eligible)} candidates",
               candidates=[c.excerpt_id for c in eligible])
    t.missing_reasons["scopedEvidence"] = (f"{len(eligible)} scoped excerpts for "
                                           f"'{refs[0].id}'")
    options = tuple(f"{c.source_type}: {truncate_tokens(c.text, 12)}" for c in eligible)
    return _Slots(missing=("scopedEvidence",), referents=tuple(refs), options=options,
                  candidates=tuple(eligible))


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


def run_semantic_lane(
    text: str, state: ContinuityState, settings: ContinuitySettings, *, now_ms: int,
    intent: SemanticIntent | None = None, history: Sequence[TurnSummary] = (),
    snapshots: Sequence[ScopedSnapshot] = (), explanation_scope: str | None = None,
    explanation_ms: int | None = None, llm: LLM | None = None, model: str | None = None,
    api_base: str | None = None, enricher: SemanticEnricher | None = None,
    extended_budget: bool = False, caps: ContinuityCaps = CAPS,
) -> SemanticDecision:
    """Answer one semantic follow-up, or ask ONE packed clarifier. Never executes."""
    cues = parse_selection_input(text)
    if cues.interrupt:
        return SemanticDecision(kind="escape", reason="hard_interrupt")
    option_set, _, cue_scope = scoped_pool(state, cues)
    explicit_scope = cues.scope_kind is not None or cues.path_scope is not None
    scope = (cue_scope or cues.scope_kind or cues.path_scope or "session") if explicit_scope \
        else (state.active_scope or "session")
    option_set_id = option_set.id if option_set else state.active_option_set_id
    intent = intent or classify_semantic_intent(_strip_cue(text, cues.scope_phrase))
    budget = caps.semantic_enrichment_budget(extended_budget)
    t = _Turn(short_id("semantic-cycle", state.session_id, state.turn_count + 1, intent,
                       cues.key_text), scope, option_set_id, budget, caps)
    # selection-like: an ordinal or "the test one" with no question ("the second one")
    selection_like = not cues.question_intent and (cues.ordinal is not None
                                                   or cues.kind_word is not None)
    if state.pending_clarifier_type == "selection_disambiguation" or cues.command_like \
            or selection_like:
        why = ("selection arbitration pending"
               if state.pending_clarifier_type == "selection_disambiguation"
               else "command-like turn on a bounded target")
        t.emit("semantic_followup_handoff_to_selection_lane", why)
        return SemanticDecision(kind="handoff", reason=why, intent=intent, scope=scope,
                                events=tuple(t.events))
    if not settings.semantic_lane:
        t.emit("lane_disabled", "semantic_lane off: one safe clarifier")
        clar = SemanticClarifier(question="Follow-up answers about earlier turns are turned "
                                 "off (continuity.semantic_lane); please ask the question in "
                                 "full, naming the file or symbol.", missing_slots=())
        return SemanticDecision(kind="clarify", reason="lane_disabled", intent=intent,
                                clarifier=clar, scope=scope, events=tuple(t.events))
    if intent is None:
        t.emit("semantic_followup_context_insufficient", "not a semantic follow-up")
        clar = packed_clarifier(("lastResolvedAction",), ())
        return SemanticDecision(kind="clarify", reason="context_insufficient", clarifier=clar,
                                missing_slots=clar.missing_slots, scope=scope,
                                events=tuple(t.events),
                                mutations=LaneMutations(pending_clarifier_type="missing_slot"))
    body = _strip_cue(cues.text, cues.scope_phrase)
    history = tuple(history)
    snaps = tuple(snapshots)
    explanation_ms = now_ms if explanation_ms is None else explanation_ms
    while True:
        candidates = build_candidates(snaps, state.last_assistant_explanation,
                                      explanation_scope, explanation_ms, scope)
        t.missing_reasons = {}
        fp = _fingerprint(scope, option_set_id or state.session_id, option_set_id,
                          candidates, history)
        t.fp_before = t.fp_before or fp
        t.fp_after = fp
        if intent == "summarize_recent_activity":
            entries = [e for e in state.recent_action_trace
                       if not explicit_scope or e.source_scope == scope]
            slots = _Slots() if entries else _Slots(missing=("recentActionTrace",))
            if not entries:
                t.missing_reasons["recentActionTrace"] = "no actions recorded"
        elif intent == "explain_entity_meaning":
            slots = _bind_entity(body, state, scope, option_set_id, candidates, now_ms, t, caps)
        else:
            slots = _bind_action(body, state, scope, now_ms, t, caps)
        excerpt = slots.evidence.text if slots.evidence else ""
        context = assemble_context(state, history, excerpt, caps)
        t.window, t.fields_used = len(context.history), tuple(
            k for k, v in context.structured.items() if v not in (None, [], ""))
        if not slots.missing:
            break
        t.emit("semantic_followup_missing_slot", "required slot missing",
               missing=list(slots.missing))
        stop: Condition | None = None
        if enricher is None:
            stop = None
        elif t.step >= budget:
            stop = "budget_exhausted"
            t.emit("semantic_enrichment_budget_exhausted", "continuity_enrichment_budget_exhausted")
        else:
            t.step += 1
            got = enricher.enrich(t.step, intent, slots.missing, scope)
            snaps += got.snapshots
            merged = {h.turn_id: h for h in (*history, *got.history)}
            history = tuple(merged[k] for k in sorted(merged, reverse=True))
            new_candidates = build_candidates(snaps, state.last_assistant_explanation,
                                              explanation_scope, explanation_ms, scope)
            before, t.fp_after = fp, _fingerprint(scope, option_set_id or state.session_id,
                                                  option_set_id, new_candidates, history)
            t.fp_before = before
            if t.fp_after == before:
                stop = "fingerprint_unchanged"
                t.emit("semantic_enrichment_fingerprint_unchanged",
                       "continuity_enrichment_fingerprint_unchanged")
            else:
                t.emit("semantic_enrichment_retry_called", "continuity_enrichment_retry_called")
                continue
        if not slots.options and not slots.candidates:
            t.emit("semantic_followup_context_insufficient", "nothing to offer")
        d = degrade(stop, "semantic") if stop else None
        clar = packed_clarifier(slots.missing, slots.options, d.note if d else "")
        t.emit("semantic_followup_single_clarifier_asked", d.reason if d else "missing slot",
               missing=list(slots.missing))
        return SemanticDecision(
            kind="clarify", reason="missing_slot", intent=intent, clarifier=clar,
            missing_slots=slots.missing, referents=slots.referents, context=context,
            fallback_reason=d.reason if d else None, scope=scope, events=tuple(t.events),
            mutations=LaneMutations(pending_clarifier_type="missing_slot"))

    llm_calls = 0
    if intent == "summarize_recent_activity":
        answer = summarize_trace(state, scope if explicit_scope else None)
    elif intent == "explain_entity_meaning" and slots.evidence is not None:
        answer = (f"From the {slots.evidence.source_type.replace('_', ' ')} in the {scope} "
                  f"scope: {context.excerpt}")
        if llm is not None and model is not None:
            llm_calls = 1
            phrased, failure = ask_answer_llm(llm, model, api_base, body, context, caps)
            if failure is None:
                answer = phrased
            else:
                d = degrade(failure, "semantic")
                clar = packed_clarifier(("scopedEvidence",), (
                    f"{slots.evidence.source_type}: {truncate_tokens(slots.evidence.text, 12)}",),
                    d.note)
                t.emit("semantic_followup_single_clarifier_asked", d.reason)
                return SemanticDecision(
                    kind="clarify", reason="degraded", intent=intent, clarifier=clar,
                    missing_slots=("scopedEvidence",), referents=slots.referents,
                    evidence=slots.evidence, context=context, fallback_reason=d.reason,
                    scope=scope, llm_calls=llm_calls, events=tuple(t.events),
                    mutations=LaneMutations(pending_clarifier_type="missing_slot"))
    else:
        assert slots.action is not None
        answer = answer_action(slots.action, state, history)
    t.emit("semantic_followup_answered", intent)
    return SemanticDecision(
        kind="answer", reason="answered", intent=intent, answer=answer,
        referents=slots.referents, evidence=slots.evidence, bound_action=slots.action,
        context=context, scope=scope, llm_calls=llm_calls, events=tuple(t.events),
        mutations=LaneMutations(pending_clarifier_type="none",
                                last_assistant_explanation=answer))


class MixedOutcome(Frozen):
    selection: Any  # SelectionDecision (kept loose to avoid a cycle in type hints)
    semantic: SemanticDecision | None
    state: ContinuityState


def run_mixed_intent(text: str, state: ContinuityState, settings: ContinuitySettings, *,
                     now_ms: int, **selection_kwargs: Any) -> MixedOutcome:
    """`open 2 and explain why`: the selection lane first; if it executed, the explanation
    clause is answered by this lane from the new lastResolvedAction. If it clarified, the
    clause stays on the selection decision (`followup_clause`) for after the choice."""
    from controller.continuity.selection import run_selection_lane

    sel = run_selection_lane(text, state, settings, now_ms=now_ms, **selection_kwargs)
    new_state = apply_lane_mutations(state, sel.mutations)
    if sel.kind != "execute" or not sel.followup_clause:
        return MixedOutcome(selection=sel, semantic=None, state=new_state)
    sem = run_semantic_lane(sel.followup_clause, new_state, settings, now_ms=now_ms,
                            intent="reflective_why_followup")
    return MixedOutcome(selection=sel, semantic=sem,
                        state=apply_lane_mutations(new_state, sem.mutations))
