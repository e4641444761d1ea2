"""The selection lane: bounded follow-ups that act on a numbered list ("open the second one").

selection-continuity-execution-lane.md, under the umbrella contract. The ladder, per turn:

    hard interrupt / question intent ........................ escape (never handled here)
    explicit scope cue -> scope-bound candidate pool ......... before any other bypass
    deterministic matcher (ordinal, label, path, symbol, "the test one", "it" = focus)
        unique winner, same option-set id, same scope, no collision, no loop-guard conflict
                                                          ... execute
    lane setting off ......................................... explicit matches only, else clarifier
    loop-guard repeat (same cycle, LLM already asked) ........ clarifier, prior suggestion order
    one bounded advisory LLM call (ids validated against the pool)
        select, confidence >= 0.85, Phase C on and gated ..... execute (phase_c_auto_execute)
        select otherwise ..................................... clarifier, suggestion first
        need_more_info ....................................... veto (deterministic gates only),
            else orchestrator enrichment, fingerprint-gated retry within the budgets
        failure / abstain / low confidence / no new evidence / budget exhausted
                                                          ... degradation matrix clarifier

Pure: the LLM and the enricher are handed in; the clock's reading is an argument. The result
is a decision, the events to store and the sidecar mutations; the caller applies them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from pydantic import Field

from controller.continuity.caps import CAPS, ContinuityCaps
from controller.continuity.degradation import (
    Condition,
    FallbackReason,
    condition_for_llm_error,
    degrade,
)
from controller.continuity.events import ContinuityEvent
from controller.continuity.fingerprint import (
    CandidateSignature,
    FingerprintInput,
    ScopeBinding,
    evidence_fingerprint,
    normalize_label,
)
from controller.continuity.selection_match import (
    Resolution,
    UnresolvedReason,
    parse_selection_input,
    resolve_deterministic,
    scoped_pool,
)
from controller.continuity.state import (
    ActionTraceEntry,
    ActionType,
    ContinuityState,
    LoopGuardState,
    OptionItem,
    OptionSet,
    PendingClarifierType,
    ResolvedAction,
)
from helix.core.config import ContinuitySettings
from helix.core.errors import LLMError
from helix.core.hashing import canonical_json, short_id
from helix.core.ports import LLM
from helix.core.schemas import Frozen

EnrichmentType = Literal["chat_active_options", "chat_recoverable_options",
                         "active_widget_items", "active_dashboard_items",
                         "active_workspace_items", "scope_disambiguation_hint"]
ENRICHMENT_ALLOWLIST: tuple[EnrichmentType, ...] = (
    "chat_active_options", "chat_recoverable_options", "active_widget_items",
    "active_dashboard_items", "active_workspace_items", "scope_disambiguation_hint")
# What Helix can refresh for the selection lane: the active list, recoverable lists in the same
# scope, the focused object's snapshot, a scope hint. Dashboards / workspaces do not exist here.
SELECTION_ENRICHMENT_TYPES: tuple[EnrichmentType, ...] = (
    "chat_active_options", "chat_recoverable_options", "active_widget_items",
    "scope_disambiguation_hint")
DEFAULT_ENRICHMENT: tuple[EnrichmentType, ...] = ("chat_active_options",)

DecisionKind = Literal["execute", "clarify", "escape"]
SelectionReason = Literal[
    # execute
    "deterministic_continuity_resolve", "need_more_info_veto_applied", "phase_c_auto_execute",
    "explicit_selection_lane_off",
    # clarify
    "ambiguous", "llm_suggestion", "llm_unavailable", "loop_guard_repeat", "lane_disabled",
    "no_scoped_options", "degraded",
    # escape
    "hard_interrupt", "question_intent", "no_active_option_set",
]


class SelectionEnrichment(Frozen):
    """What the orchestrator returns: refreshed metadata for current candidates only."""

    items: tuple[OptionItem, ...] = ()
    excerpt_hashes: tuple[str, ...] = ()


class SelectionEnricher(Protocol):
    def enrich(self, types: tuple[EnrichmentType, ...], option_set: OptionSet,
               pool: tuple[OptionItem, ...]) -> SelectionEnrichment: ...


class LaneMutations(Frozen):
    """Sidecar changes a lane asks for; `apply_lane_mutations` builds the new state."""

    last_resolved_action: ResolvedAction | None = None
    push_trace: ActionTraceEntry | None = None
    accept_choice_id: str | None = None
    pending_clarifier_type: PendingClarifierType | None = None
    selection_loop_guard: LoopGuardState | None = None
    clear_selection_loop_guard: bool = False
    last_assistant_explanation: str | None = None

    def changed_fields(self) -> tuple[str, ...]:
        names = []
        if self.last_resolved_action is not None:
            names.append("last_resolved_action")
        if self.push_trace is not None:
            names.append("recent_action_trace")
        if self.accept_choice_id is not None:
            names += ["last_accepted_choice_id", "recent_accepted_choice_ids"]
        if self.pending_clarifier_type is not None:
            names.append("pending_clarifier_type")
        if self.selection_loop_guard is not None or self.clear_selection_loop_guard:
            names.append("selection_loop_guard")
        if self.last_assistant_explanation is not None:
            names.append("last_assistant_explanation")
        return tuple(names)


def apply_lane_mutations(state: ContinuityState, m: LaneMutations,
                         caps: ContinuityCaps = CAPS) -> ContinuityState:
    update: dict[str, Any] = {}
    if m.last_resolved_action is not None:
        update["last_resolved_action"] = m.last_resolved_action
    if m.push_trace is not None:
        trace = (m.push_trace, *state.recent_action_trace)
        update["recent_action_trace"] = trace[: caps.recent_action_trace_max_entries]
    if m.accept_choice_id is not None:
        rest = tuple(i for i in state.recent_accepted_choice_ids if i != m.accept_choice_id)
        update["last_accepted_choice_id"] = m.accept_choice_id
        update["recent_accepted_choice_ids"] = ((m.accept_choice_id, *rest)
                                                [: caps.recent_choice_window])
    if m.pending_clarifier_type is not None:
        update["pending_clarifier_type"] = m.pending_clarifier_type
    if m.clear_selection_loop_guard:
        update["selection_loop_guard"] = None
    if m.selection_loop_guard is not None:
        update["selection_loop_guard"] = m.selection_loop_guard
    if m.last_assistant_explanation is not None:
        update["last_assistant_explanation"] = m.last_assistant_explanation
    return state.model_copy(update=update)


class SelectionDecision(Frozen):
    kind: DecisionKind
    reason: SelectionReason
    candidate: OptionItem | None = None  # execute: the winner (always an id of the pool)
    option_set_id: str | None = None  # the arbitrated option set
    scope: str | None = None
    options: tuple[OptionItem, ...] = ()  # clarify: same-context options, suggestion order
    clarifier_text: str = ""
    unresolved_reason: UnresolvedReason | None = None
    fallback_reason: FallbackReason | None = None
    followup_clause: str | None = None  # mixed intent: the explanation clause, kept intact
    llm_calls: int = 0
    loop_cycle_id: str | None = None
    events: tuple[ContinuityEvent, ...] = ()
    mutations: LaneMutations = Field(default_factory=LaneMutations)


class _Verdict(Frozen):
    decision: Literal["select", "need_more_info", "abstain"]
    choice_id: str | None = None
    confidence: float = 0.0
    needed_evidence_types: tuple[str, ...] = ()


def parse_verdict(text: str) -> _Verdict:
    """The advisory call's JSON verdict; anything unparseable is an abstain."""
    start, end = text.find("{"), text.rfind("}")
    try:
        raw = json.loads(text[start:end + 1]) if 0 <= start < end else None
    except ValueError:
        raw = None
    if not isinstance(raw, dict):
        return _Verdict(decision="abstain")
    decision = str(raw.get("decision", "abstain"))
    if decision == "request_context":  # structured need_more_info variant, no own path
        decision = "need_more_info"
    if decision not in ("select", "need_more_info", "abstain"):
        decision = "abstain"
    try:
        confidence = min(1.0, max(0.0, float(raw.get("confidence", 0.0))))
    except (TypeError, ValueError):
        confidence = 0.0
    choice = raw.get("choice_id", raw.get("choiceId"))
    needed = raw.get("needed_evidence_types", raw.get("neededEvidenceTypes")) or []
    return _Verdict(decision=decision,  # type: ignore[arg-type]
                    choice_id=str(choice) if choice is not None else None,
                    confidence=confidence,
                    needed_evidence_types=tuple(str(n) for n in needed
                                                if isinstance(n, str)))


def validate_needed_types(requested: Sequence[str],
                          caps: ContinuityCaps = CAPS) -> tuple[EnrichmentType, ...]:
    """Allowlist + lane scope + cap; duplicates dropped, order kept."""
    out: list[EnrichmentType] = []
    for name in requested:
        if name in SELECTION_ENRICHMENT_TYPES and name not in out:
            out.append(name)
    return tuple(out[: caps.needed_evidence_types_max]) or DEFAULT_ENRICHMENT


def pool_fingerprint(option_set: OptionSet, scope: str, pool: tuple[OptionItem, ...],
                     excerpt_hashes: tuple[str, ...] = ()) -> str:
    sigs = tuple(CandidateSignature(id=i.id, label_normalized=normalize_label(i.label),
                                    path=i.target.path, kind=i.target.kind,
                                    owner=i.target.symbol, sublabel=i.sublabel or None)
                 for i in pool)
    return evidence_fingerprint(FingerprintInput(
        scope_binding=ScopeBinding(active_scope=scope, scope_instance_id=option_set.id),
        active_option_set_id=option_set.id, candidate_signatures=sigs,
        excerpt_hashes=excerpt_hashes))


_SYSTEM = (
    "You decide which numbered candidate a follow-up refers to. Reply with one JSON object "
    'only: {"decision": "select" | "need_more_info" | "abstain", "choice_id": "<candidate '
    'id>", "confidence": <0..1>, "needed_evidence_types": [...]}. Use only ids listed in '
    "candidates; if unsure, say need_more_info or abstain.")


def _advisory_messages(text: str, pool: tuple[OptionItem, ...], state: ContinuityState,
                       option_set: OptionSet, scope: str,
                       caps: ContinuityCaps) -> list[dict[str, str]]:
    last = state.last_resolved_action
    context = {  # structured and bounded, never a transcript
        "activeOptionSetId": option_set.id, "activeScope": scope,
        "lastAcceptedChoiceId": state.last_accepted_choice_id,
        "recentAcceptedChoiceIds": list(state.recent_accepted_choice_ids),
        "recentRejectedChoiceIds": list(state.recent_rejected_choice_ids),
        "lastResolvedAction": None if last is None else {
            "type": last.type, "target": last.target_ref.label[: caps.label_max_chars],
            "optionSetId": last.option_set_id},
    }
    payload = {"input": text, "continuityContext": context, "candidates": [
        {"id": i.id, "index": i.index, "label": i.label[: caps.label_max_chars],
         "sublabel": i.sublabel[: caps.label_max_chars]} for i in pool]}
    return [{"role": "system", "content": _SYSTEM},
            {"role": "user", "content": canonical_json(payload)}]


_ACTION_BY_TARGET: dict[str, ActionType] = {
    "symbol": "focus_symbol", "option": "resume_clarified", "question": "resume_clarified"}


def _execute_mutations(state: ContinuityState, winner: OptionItem, option_set: OptionSet,
                       scope: str, text: str, why: str, now_ms: int) -> LaneMutations:
    action = _ACTION_BY_TARGET.get(winner.target.kind, "open_span")
    resolved = ResolvedAction(type=action, target_ref=winner.target, source_scope=scope,
                              option_set_id=option_set.id, timestamp=now_ms,
                              outcome="executed", turn_id=state.turn_count + 1,
                              user_text=text, reason=why)
    trace = ActionTraceEntry(type=action, target_ref=winner.target, source_scope=scope,
                             option_set_id=option_set.id, timestamp=now_ms, outcome="executed")
    return LaneMutations(last_resolved_action=resolved, push_trace=trace,
                         accept_choice_id=winner.id, pending_clarifier_type="none",
                         clear_selection_loop_guard=True)


def _describe(res: Resolution, option_set: OptionSet) -> str:
    index = res.winner.index if res.winner else "?"
    return (f"it is item {index} of the {option_set.kind} list shown in turn "
            f"{option_set.origin_turn_id} (matched by {', '.join(res.signals) or 'continuity'})")


def _clarifier_text(options: tuple[OptionItem, ...], option_set: OptionSet | None,
                    note: str, caps: ContinuityCaps) -> str:
    where = (f" in the {option_set.kind} list (turn {option_set.origin_turn_id})"
             if option_set else "")
    lines = [f"Which one do you mean{where}?" + (f" ({note})" if note else "")]
    for item in options:
        extra = f" - {item.sublabel}" if item.sublabel else ""
        lines.append(f"  {item.index}. {item.label[: caps.label_max_chars]}{extra}")
    return "\n".join(lines)


class _Cycle:
    """Accumulates one turn's events with the umbrella's loop-cycle fields."""

    def __init__(self, cycle_id: str, option_set_id: str | None, scope: str | None,
                 candidate_count: int, collision: bool, caps: ContinuityCaps) -> None:
        self.cycle_id, self.option_set_id, self.scope = cycle_id, option_set_id, scope
        self.candidate_count, self.collision, self.caps = candidate_count, collision, caps
        self.events: list[ContinuityEvent] = []
        self.fp_before: str | None = None
        self.fp_after: str | None = None
        self.calls = 0

    def emit(self, name: Any, reason: str, **data: Any) -> None:
        self.events.append(ContinuityEvent(
            name=name, lane="selection", loop_cycle_id=self.cycle_id,
            fingerprint_before=self.fp_before, fingerprint_after=self.fp_after,
            retry_attempt_index=max(0, self.calls - 1),
            retry_budget_remaining=self.caps.selection_max_llm_calls - self.calls,
            active_option_set_id=self.option_set_id, active_scope=self.scope, reason=reason,
            data={"candidate_count": self.candidate_count, "collision": self.collision, **data}))


def run_selection_lane(
    text: str, state: ContinuityState, settings: ContinuitySettings, *, now_ms: int,
    llm: LLM | None = None, model: str | None = None, api_base: str | None = None,
    enricher: SelectionEnricher | None = None, caps: ContinuityCaps = CAPS,
) -> SelectionDecision:
    """Decide one selection turn. Executes only ids of the bounded pool; never does I/O
    beyond the injected `llm` (at most `caps.selection_max_llm_calls` calls) and `enricher`."""
    cues = parse_selection_input(text)
    if cues.interrupt:
        return SelectionDecision(kind="escape", reason="hard_interrupt")
    if cues.question_intent:
        return SelectionDecision(kind="escape", reason="question_intent",
                                 followup_clause=cues.followup_clause)
    option_set, pool, scope = scoped_pool(state, cues)
    if option_set is None or scope is None:
        if cues.scope_kind or cues.path_scope:
            # A scope cue keeps the turn in scoped handling: say what is missing, no escape.
            note = f"no list {cues.scope_phrase} in this session"
            return SelectionDecision(
                kind="clarify", reason="no_scoped_options", clarifier_text=f"There is {note}.",
                followup_clause=cues.followup_clause,
                mutations=LaneMutations(pending_clarifier_type="scope_disambiguation"))
        return SelectionDecision(kind="escape", reason="no_active_option_set",
                                 followup_clause=cues.followup_clause)
    explicit = cues.scope_kind is not None or cues.path_scope is not None
    use_continuity = settings.selection_lane
    res = resolve_deterministic(cues, pool, state, option_set, scope, explicit=explicit,
                                use_continuity=use_continuity)
    cycle_id = short_id("selection-cycle", option_set.id, scope, cues.key_text)
    cyc = _Cycle(cycle_id, option_set.id, scope, len(pool), res.collision, caps)

    def execute(winner: OptionItem, reason: SelectionReason, why: str) -> SelectionDecision:
        if winner.id not in {i.id for i in pool}:  # the bounded-pool invariant, never relaxed
            raise ValueError(f"selection winner {winner.id} is not a bounded candidate")
        return SelectionDecision(
            kind="execute", reason=reason, candidate=winner, llm_calls=cyc.calls,
            events=tuple(cyc.events), option_set_id=option_set.id, scope=scope,
            loop_cycle_id=cycle_id, followup_clause=cues.followup_clause,
            mutations=_execute_mutations(state, winner, option_set, scope, text, why, now_ms))

    def clarify(reason: SelectionReason, order: tuple[OptionItem, ...], note: str = "",
                fallback: FallbackReason | None = None,
                guard_calls: int | None = None, failed: bool = False) -> SelectionDecision:
        options = order or res.narrowed or pool
        guard = None
        if guard_calls is not None:
            guard = LoopGuardState(key=cycle_id, loop_cycle_id=cycle_id,
                                   option_set_id=option_set.id, scope=scope,
                                   suggestion_order=tuple(i.id for i in options),
                                   llm_calls=guard_calls, llm_failed=failed,
                                   turn_id=state.turn_count + 1)
        return SelectionDecision(
            kind="clarify", reason=reason, options=options, fallback_reason=fallback,
            clarifier_text=_clarifier_text(options, option_set, note, caps),
            llm_calls=cyc.calls, events=tuple(cyc.events), option_set_id=option_set.id,
            scope=scope, loop_cycle_id=cycle_id, followup_clause=cues.followup_clause,
            unresolved_reason=res.reason,
            mutations=LaneMutations(pending_clarifier_type="selection_disambiguation",
                                    selection_loop_guard=guard))

    if res.winner is not None and res.safe:
        if not use_continuity:
            return execute(res.winner, "explicit_selection_lane_off", _describe(res, option_set))
        cyc.emit("selection_deterministic_continuity_resolve",
                 "deterministic_continuity_resolve", winner_id=res.winner.id,
                 non_winner_ids=[i.id for i in pool if i.id != res.winner.id],
                 signals=list(res.signals))
        return execute(res.winner, "deterministic_continuity_resolve",
                       _describe(res, option_set))
    if not use_continuity:
        cyc.emit("lane_disabled", "selection_lane off: explicit matches only")
        return clarify("lane_disabled", ())

    guard = state.selection_loop_guard
    if (guard is not None and guard.key == cycle_id and guard.option_set_id == option_set.id
            and guard.llm_calls >= caps.loop_guard_max_calls_per_key):
        by_id = {i.id: i for i in pool}
        prior = tuple(by_id[i] for i in guard.suggestion_order if i in by_id)
        return clarify("loop_guard_repeat", prior, "asked already",
                       guard_calls=guard.llm_calls, failed=guard.llm_failed)
    if llm is None or model is None:
        return clarify("llm_unavailable", (), guard_calls=0)

    def degraded(condition: Condition, order: tuple[OptionItem, ...] = (),
                 failed: bool = False) -> SelectionDecision:
        d = degrade(condition, "selection")
        return clarify("degraded", order, d.note, fallback=d.reason, guard_calls=cyc.calls,
                       failed=failed)

    current = pool
    cyc.fp_before = cyc.fp_after = pool_fingerprint(option_set, scope, current)
    enrich_steps = 0
    while True:
        messages = _advisory_messages(cues.command_text, current, state, option_set, scope, caps)
        cyc.calls += 1
        try:
            completion = llm.complete(messages, model=model, api_base=api_base,
                                      timeout_s=caps.advisory_llm_timeout_s,
                                      max_tokens=caps.advisory_llm_max_tokens,
                                      temperature=caps.advisory_llm_temperature)
        except LLMError as exc:
            return degraded(condition_for_llm_error(exc), failed=True)
        verdict = parse_verdict(completion.text)
        by_id = {i.id: i for i in current}
        if verdict.decision == "select":
            choice = by_id.get(verdict.choice_id or "")
            if choice is None:  # never trusted beyond the bounded ids
                return degraded("abstain")
            cyc.emit("selection_llm_select", "llm_select", choice_id=choice.id,
                     confidence=verdict.confidence,
                     non_winner_ids=[i.id for i in current if i.id != choice.id])
            if verdict.confidence < caps.phase_c_min_confidence:
                return degraded("low_confidence")
            if (settings.phase_c_auto_execute and res.reason == "no_deterministic_match"
                    and not (guard is not None and guard.key == cycle_id and guard.llm_failed)):
                return execute(choice, "phase_c_auto_execute",
                               f"model pick (confidence {verdict.confidence:.2f}), Phase C")
            order = (choice, *(i for i in (res.narrowed or current) if i.id != choice.id))
            return clarify("llm_suggestion", order, "suggested first", guard_calls=cyc.calls)
        if verdict.decision == "abstain":
            return degraded("abstain")
        cyc.emit("selection_llm_need_more_info", "llm_need_more_info",
                 needed_evidence_types=list(verdict.needed_evidence_types))
        veto = resolve_deterministic(cues, current, state, option_set, scope,
                                     explicit=explicit, use_continuity=True)
        if veto.winner is not None and veto.safe:
            cyc.emit("selection_need_more_info_veto_applied", "need_more_info_veto_applied",
                     winner_id=veto.winner.id)
            return execute(veto.winner, "need_more_info_veto_applied", _describe(veto, option_set))
        cyc.emit("selection_need_more_info_veto_blocked_reason",
                 "need_more_info_veto_blocked_reason", blocked_reason=veto.reason)
        if (enrich_steps >= caps.selection_max_enrichment_steps
                or cyc.calls >= caps.selection_max_llm_calls):
            cyc.emit("selection_enrichment_budget_exhausted",
                     "continuity_enrichment_budget_exhausted")
            return degraded("budget_exhausted")
        types = validate_needed_types(verdict.needed_evidence_types, caps)
        enrich_steps += 1
        enriched = (enricher.enrich(types, option_set, current) if enricher is not None
                    else SelectionEnrichment())
        refreshed = {i.id: i for i in enriched.items if i.id in by_id}  # current ids only
        current = tuple(refreshed.get(i.id, i) for i in current)
        cyc.fp_after = pool_fingerprint(option_set, scope, current, enriched.excerpt_hashes)
        if cyc.fp_after == cyc.fp_before:
            cyc.emit("selection_enrichment_fingerprint_unchanged",
                     "continuity_enrichment_fingerprint_unchanged", enrichment_types=list(types))
            return degraded("fingerprint_unchanged")
        veto = resolve_deterministic(cues, current, state, option_set, scope,
                                     explicit=explicit, use_continuity=True)
        if veto.winner is not None and veto.safe:
            cyc.emit("selection_need_more_info_veto_applied", "need_more_info_veto_applied",
                     winner_id=veto.winner.id, after_enrichment=True)
            return execute(veto.winner, "need_more_info_veto_applied", _describe(veto, option_set))
        cyc.emit("selection_enrichment_retry_called", "continuity_enrichment_retry_called",
                 enrichment_types=list(types))
        cyc.fp_before = cyc.fp_after
