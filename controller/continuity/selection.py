"""The selection lane: bounded follow-ups that act on a numbered list ("open the second one").

selection-continuity-execution-lane.md, under the umbrella contract. `LADDER` is the lane, top to
bottom, first step that decides wins:

    step            when                                              decision
    hard_interrupt  "stop", "start over"                              escape
    question_intent "why ...?", "what ...?"                           escape (semantic lane)
    scoped_pool     no list in the cued / active scope                clarifier (scope cue) or
                                                                      escape (no list at all)
    safe_winner     unique winner, same option-set id, same scope,    execute
                    no collision, not rejected (deterministic:
                    ordinal, label, path, symbol, "the test one",
                    "it" = focus, "the other one")
    lane_off        continuity.selection_lane false                   clarifier (explicit only)
    loop_guard      the same unresolved cycle, the model asked        clarifier, prior order,
                    already                                           no model call
    no_model        no model configured                               clarifier
    advisory_model  one bounded advisory call (ids checked against the pool)
                      select >= 0.85 with Phase C on and eligible     execute
                      select otherwise                                clarifier, suggestion first
                      need_more_info                                  veto (deterministic gates
                                                                      only), else enrichment and
                                                                      a fingerprint-gated retry
                      failure / abstain / low confidence / no new     degradation-matrix
                      evidence / budget exhausted                     clarifier

Pure: `selection_steps` is a lane step (`controller.continuity.requests`): the advisory call is a
`ModelCall` it yields and the enricher's span reads are `OpenSpan`s, answered by the session's
driver; the clock's reading is an argument. The result is a decision, the events to store
and the sidecar mutations; the caller applies them. A clarifier offers its options as their own
numbered list (`offered`, numbered from 1, `parent_id` = the list they came from), so "the
second" after "Which one do you mean?" means the second option shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import Field

from controller.continuity.caps import ContinuityCaps
from controller.continuity.degradation import (
    Condition,
    FallbackReason,
    condition_for_llm_error,
    degrade,
)
from controller.continuity.events import ContinuityEvent
from controller.continuity.lane_mutations import LaneMutations, apply_lane_mutations
from controller.continuity.requests import ModelCall, Steps, at_once
from controller.continuity.selection_advisory import (
    ENRICHMENT_ALLOWLIST,
    SELECTION_ENRICHMENT_TYPES,
    EnrichmentType,
    SelectionEnricher,
    SelectionEnrichment,
    Verdict,
    advisory_messages,
    parse_verdict,
    pool_fingerprint,
    validate_needed_types,
)
from controller.continuity.selection_match import (
    Resolution,
    SelectionCues,
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
    ResolvedAction,
)
from helix.core.config import ContinuitySettings
from helix.core.errors import LLMError
from helix.core.hashing import short_id
from helix.core.schemas import Frozen

__all__ = ["ENRICHMENT_ALLOWLIST", "LADDER", "SELECTION_ENRICHMENT_TYPES", "EnrichmentType",
           "LaneMutations", "SelectionDecision", "SelectionEnricher", "SelectionEnrichment",
           "apply_lane_mutations", "offered_option_set", "parse_verdict", "selection_steps",
           "validate_needed_types"]

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


_ACTION_BY_TARGET: dict[str, ActionType] = {
    "symbol": "focus_symbol", "option": "resume_clarified", "question": "resume_clarified"}


def offered_option_set(option_set: OptionSet, options: tuple[OptionItem, ...],
                       turn_id: int) -> OptionSet:
    """A clarifier's options as their own numbered list (1..n), tied to the list they came
    from: its id is derived from the parent's and the offered ids (same offer, same id)."""
    items = tuple(i.model_copy(update={"index": n}) for n, i in enumerate(options, start=1))
    parent = option_set.parent_id or option_set.id
    return OptionSet(id="os-" + short_id("offered", parent, [i.id for i in items]),
                     kind=option_set.kind, scope=option_set.scope, origin_turn_id=turn_id,
                     items=items, parent_id=parent)


class _Cycle:
    """One turn of arbitration: the context every step reads, the events it emits with the
    umbrella's loop-cycle fields, and the two ways it ends (execute, clarify)."""

    def __init__(self, text: str, state: ContinuityState, settings: ContinuitySettings,
                 now_ms: int, model_ready: bool, enricher: SelectionEnricher | None,
                 caps: ContinuityCaps, said: str | None = None) -> None:
        self.text, self.state, self.settings, self.now_ms = text, state, settings, now_ms
        self.said = said or text  # the user's own words (the action quotes them)
        self.model_ready, self.enricher, self.caps = model_ready, enricher, caps
        self.cues: SelectionCues = parse_selection_input(text)
        self.option_set, self.pool, scope = scoped_pool(state, self.cues)
        self.scope = scope or ""
        self.explicit = self.cues.scope_kind is not None or self.cues.path_scope is not None
        self.use_continuity = settings.selection_lane
        self.res = Resolution()
        self.cycle_id = ""
        self.events: list[ContinuityEvent] = []
        self.fp_before: str | None = None
        self.fp_after: str | None = None
        self.calls = 0
        if self.option_set is not None:
            self.res = resolve_deterministic(self.cues, self.pool, state, self.option_set,
                                             self.scope, explicit=self.explicit,
                                             use_continuity=self.use_continuity)
            # one cycle per list lineage: a clarifier's offered options share their parent's
            lineage = self.option_set.parent_id or self.option_set.id
            self.cycle_id = short_id("selection-cycle", lineage, self.scope, self.cues.key_text)

    def emit(self, name: Any, reason: str, **data: Any) -> None:
        self.events.append(ContinuityEvent(
            name=name, lane="selection", loop_cycle_id=self.cycle_id or None,
            fingerprint_before=self.fp_before, fingerprint_after=self.fp_after,
            retry_attempt_index=max(0, self.calls - 1),
            retry_budget_remaining=self.caps.selection_max_llm_calls - self.calls,
            active_option_set_id=self.option_set.id if self.option_set else None,
            active_scope=self.scope or None, reason=reason,
            data={"candidate_count": len(self.pool), "collision": self.res.collision, **data}))

    def decision(self, **kw: Any) -> SelectionDecision:
        return SelectionDecision(llm_calls=self.calls, events=tuple(self.events),
                                 followup_clause=self.cues.followup_clause, **kw)

    def execute(self, winner: OptionItem, reason: SelectionReason, why: str) -> SelectionDecision:
        assert self.option_set is not None
        if winner.id not in {i.id for i in self.pool}:  # the bounded-pool invariant, never relaxed
            raise ValueError(f"selection winner {winner.id} is not a bounded candidate")
        return self.decision(kind="execute", reason=reason, candidate=winner,
                             option_set_id=self.option_set.id, scope=self.scope,
                             loop_cycle_id=self.cycle_id,
                             mutations=self._executed(winner, why))

    def _executed(self, winner: OptionItem, why: str) -> LaneMutations:
        assert self.option_set is not None
        action = _ACTION_BY_TARGET.get(winner.target.kind, "open_span")
        entry = ActionTraceEntry(type=action, target_ref=winner.target, source_scope=self.scope,
                                 option_set_id=self.option_set.id, timestamp=self.now_ms,
                                 outcome="executed")
        return LaneMutations(
            last_resolved_action=ResolvedAction(**entry.model_dump(), user_text=self.said,
                                                turn_id=self.state.turn_count + 1, reason=why),
            push_trace=entry, accept_choice_id=winner.id,
            pending_clarifier_type="none", clear_selection_loop_guard=True)

    def clarify(self, reason: SelectionReason, order: tuple[OptionItem, ...] = (),
                note: str = "", fallback: FallbackReason | None = None,
                guard_calls: int | None = None, failed: bool = False) -> SelectionDecision:
        assert self.option_set is not None
        rejected = set(self.state.recent_rejected_choice_ids) if self.use_continuity else set()
        options = order or self.res.narrowed or self.pool
        options = tuple(i for i in options if i.id not in rejected) or options
        guard = None
        if guard_calls is not None:
            guard = LoopGuardState(key=self.cycle_id, loop_cycle_id=self.cycle_id,
                                   option_set_id=self.option_set.id, scope=self.scope,
                                   suggestion_order=tuple(i.id for i in options),
                                   llm_calls=guard_calls, llm_failed=failed,
                                   turn_id=self.state.turn_count + 1)
        return self.decision(
            kind="clarify", reason=reason, options=options, fallback_reason=fallback,
            clarifier_text=self._clarifier_text(options, note), option_set_id=self.option_set.id,
            scope=self.scope, loop_cycle_id=self.cycle_id, unresolved_reason=self.res.reason,
            mutations=LaneMutations(pending_clarifier_type="selection_disambiguation",
                                    selection_loop_guard=guard))

    def _clarifier_text(self, options: tuple[OptionItem, ...], note: str) -> str:
        assert self.option_set is not None
        where = f" in the {self.option_set.kind} list (turn {self.option_set.origin_turn_id})"
        lines = [f"Which one do you mean{where}?" + (f" ({note})" if note else "")]
        for n, item in enumerate(options, start=1):  # numbered as offered: "the second" = 2.
            extra = f" - {item.sublabel}" if item.sublabel else ""
            lines.append(f"  {n}. {item.label[: self.caps.label_max_chars]}{extra}")
        return "\n".join(lines)

    def describe(self, res: Resolution) -> str:
        assert self.option_set is not None
        index = res.winner.index if res.winner else "?"
        return (f"it is item {index} of the {self.option_set.kind} list shown in turn "
                f"{self.option_set.origin_turn_id} (matched by "
                f"{', '.join(res.signals) or 'continuity'})")

    def degraded(self, condition: Condition, failed: bool = False) -> SelectionDecision:
        d = degrade(condition, "selection")
        return self.clarify("degraded", (), d.note, fallback=d.reason, guard_calls=self.calls,
                            failed=failed)


Rung = Callable[[_Cycle], Steps[SelectionDecision | None]]


def hard_interrupt(c: _Cycle) -> SelectionDecision | None:
    return c.decision(kind="escape", reason="hard_interrupt") if c.cues.interrupt else None


def question_intent(c: _Cycle) -> SelectionDecision | None:
    return c.decision(kind="escape", reason="question_intent") if c.cues.question_intent \
        else None


def scoped_pool_missing(c: _Cycle) -> SelectionDecision | None:
    if c.option_set is not None and c.scope:
        return None
    if c.cues.scope_kind or c.cues.path_scope:
        # A scope cue keeps the turn in scoped handling: say what is missing, no escape.
        note = f"no list {c.cues.scope_phrase} in this session"
        return c.decision(kind="clarify", reason="no_scoped_options",
                          clarifier_text=f"There is {note}.",
                          mutations=LaneMutations(pending_clarifier_type="scope_disambiguation"))
    return c.decision(kind="escape", reason="no_active_option_set")


def safe_winner(c: _Cycle) -> SelectionDecision | None:
    res = c.res
    if res.winner is None or not res.safe:
        return None
    if not c.use_continuity:
        return c.execute(res.winner, "explicit_selection_lane_off", c.describe(res))
    assert c.option_set is not None
    c.emit("selection_deterministic_continuity_resolve", "deterministic_continuity_resolve",
           winner_id=res.winner.id, non_winner_ids=[i.id for i in c.pool if i.id != res.winner.id],
           signals=list(res.signals))
    return c.execute(res.winner, "deterministic_continuity_resolve", c.describe(res))


def lane_off(c: _Cycle) -> SelectionDecision | None:
    if c.use_continuity:
        return None
    c.emit("lane_disabled", "selection_lane off: explicit matches only")
    return c.clarify("lane_disabled")


def loop_guard(c: _Cycle) -> SelectionDecision | None:
    guard = c.state.selection_loop_guard
    if (guard is None or guard.key != c.cycle_id
            or guard.llm_calls < c.caps.loop_guard_max_calls_per_key):
        return None
    by_id = {i.id: i for i in c.pool}
    prior = tuple(by_id[i] for i in guard.suggestion_order if i in by_id)
    return c.clarify("loop_guard_repeat", prior, "asked already", guard_calls=guard.llm_calls,
                     failed=guard.llm_failed)


def no_model(c: _Cycle) -> SelectionDecision | None:
    return c.clarify("llm_unavailable", (), guard_calls=0) if not c.model_ready else None


def advisory_model(c: _Cycle) -> Steps[SelectionDecision]:
    """One bounded advisory call; need_more_info -> veto, else enrichment and a retry only
    when the evidence fingerprint changed, within SELECTION_MAX_* budgets."""
    assert c.model_ready and c.option_set is not None
    caps, option_set = c.caps, c.option_set
    current = c.pool
    c.fp_before = c.fp_after = pool_fingerprint(option_set, c.scope, current)
    enrich_steps = 0
    while True:
        messages = advisory_messages(c.cues.command_text, current, c.state, option_set, c.scope,
                                     caps)
        c.calls += 1
        try:
            verdict = parse_verdict((yield ModelCall("selection_advisory", tuple(messages))))
        except LLMError as exc:
            return c.degraded(condition_for_llm_error(exc), failed=True)
        if verdict.decision == "select":
            return _advised_pick(c, verdict, current)
        if verdict.decision == "abstain":
            return c.degraded("abstain")
        c.emit("selection_llm_need_more_info", "llm_need_more_info",
               needed_evidence_types=list(verdict.needed_evidence_types))
        vetoed = _veto(c, current)
        if vetoed is not None:
            return vetoed
        if (enrich_steps >= caps.selection_max_enrichment_steps
                or c.calls >= caps.selection_max_llm_calls):
            c.emit("selection_enrichment_budget_exhausted",
                   "continuity_enrichment_budget_exhausted")
            return c.degraded("budget_exhausted")
        types = validate_needed_types(verdict.needed_evidence_types, caps)
        enrich_steps += 1
        current = yield from _enriched(c, types, current)
        if c.fp_after == c.fp_before:
            c.emit("selection_enrichment_fingerprint_unchanged",
                   "continuity_enrichment_fingerprint_unchanged", enrichment_types=list(types))
            return c.degraded("fingerprint_unchanged")
        vetoed = _veto(c, current, after_enrichment=True)
        if vetoed is not None:
            return vetoed
        c.emit("selection_enrichment_retry_called", "continuity_enrichment_retry_called",
               enrichment_types=list(types))
        c.fp_before = c.fp_after


def _advised_pick(c: _Cycle, verdict: Verdict,
                  current: tuple[OptionItem, ...]) -> SelectionDecision:
    """The model picked an item: executed (Phase C, confident, no failed call this cycle),
    offered first in a clarification, or declined (not an open candidate, low confidence)."""
    guard = c.state.selection_loop_guard
    choice = {i.id: i for i in current}.get(verdict.choice_id or "")
    if choice is None or choice.id in set(c.state.recent_rejected_choice_ids):
        return c.degraded("abstain")  # never beyond the bounded, open ids
    c.emit("selection_llm_select", "llm_select", choice_id=choice.id,
           confidence=verdict.confidence,
           non_winner_ids=[i.id for i in current if i.id != choice.id])
    if verdict.confidence < c.caps.phase_c_min_confidence:
        return c.degraded("low_confidence")
    if (c.settings.phase_c_auto_execute and c.res.reason == "no_deterministic_match"
            and not (guard is not None and guard.key == c.cycle_id and guard.llm_failed)):
        return c.execute(choice, "phase_c_auto_execute",
                         f"model pick (confidence {verdict.confidence:.2f}), Phase C")
    order = (choice, *(i for i in (c.res.narrowed or current) if i.id != choice.id))
    return c.clarify("llm_suggestion", order, "suggested first", guard_calls=c.calls)


def _veto(c: _Cycle, current: tuple[OptionItem, ...],
          after_enrichment: bool = False) -> SelectionDecision | None:
    """The deterministic resolver over the pool overrides a need_more_info when it is safe;
    None when it is not (the first time, with the blocked reason emitted)."""
    assert c.option_set is not None
    veto = resolve_deterministic(c.cues, current, c.state, c.option_set, c.scope,
                                 explicit=c.explicit, use_continuity=True)
    if veto.winner is not None and veto.safe:
        extra = {"after_enrichment": True} if after_enrichment else {}
        c.emit("selection_need_more_info_veto_applied", "need_more_info_veto_applied",
               winner_id=veto.winner.id, **extra)
        return c.execute(veto.winner, "need_more_info_veto_applied", c.describe(veto))
    if not after_enrichment:
        c.emit("selection_need_more_info_veto_blocked_reason",
               "need_more_info_veto_blocked_reason", blocked_reason=veto.reason)
    return None


def _enriched(c: _Cycle, types: tuple[EnrichmentType, ...],
              current: tuple[OptionItem, ...]) -> Steps[tuple[OptionItem, ...]]:
    """The pool refreshed by one enrichment step (current ids only); sets the fingerprint
    after it."""
    assert c.option_set is not None
    enriched = ((yield from c.enricher.enrich(types, c.option_set, current))
                if c.enricher is not None else SelectionEnrichment())
    by_id = {i.id: i for i in current}
    refreshed = {i.id: i for i in enriched.items if i.id in by_id}  # current ids only
    current = tuple(refreshed.get(i.id, i) for i in current)
    c.fp_after = pool_fingerprint(c.option_set, c.scope, current, enriched.excerpt_hashes)
    return current


LADDER: tuple[tuple[str, Rung], ...] = (
    ("hard_interrupt", at_once(hard_interrupt)),
    ("question_intent", at_once(question_intent)),
    ("scoped_pool", at_once(scoped_pool_missing)),
    ("safe_winner", at_once(safe_winner)),
    ("lane_off", at_once(lane_off)),
    ("loop_guard", at_once(loop_guard)),
    ("no_model", at_once(no_model)),
    ("advisory_model", advisory_model),  # the one rung that asks the outside world
)


def selection_steps(
    text: str, state: ContinuityState, settings: ContinuitySettings, *, now_ms: int,
    model_ready: bool = False, enricher: SelectionEnricher | None = None,
    caps: ContinuityCaps | None = None, said: str | None = None,
) -> Steps[SelectionDecision]:
    """Decide one selection turn. Executes only ids of the bounded pool; asks the model
    (`model_ready`: one is configured) at most `caps.selection_max_llm_calls` times. `said`:
    the user's words when `text` is the router's reading of them ("open 3")."""
    caps = caps or settings.caps  # the settings' limits unless a caller names others
    cycle = _Cycle(text, state, settings, now_ms, model_ready, enricher, caps, said)
    for _name, step in LADDER:
        decided = yield from step(cycle)
        if decided is not None:
            return decided
    raise AssertionError("advisory_model always decides")
