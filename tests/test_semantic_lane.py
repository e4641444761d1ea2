"""Semantic lane (semantic-continuity-answer-lane.md): every blocker of its test plan."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st
from lane_fixtures import (
    EVIDENCE_ITEMS,
    MINUTE_MS,
    NOW_MS,
    FakeLLM,
    focus_on,
    option_set,
    run_mixed_intent,
    run_selection_lane,
    run_semantic_lane,
    state_with,
    trace_entry,
)

from controller.continuity.caps import CAPS
from controller.continuity.events import SEMANTIC_EVENTS
from controller.continuity.focus import TurnSummary
from controller.continuity.requests import returns
from controller.continuity.selection import apply_lane_mutations
from controller.continuity.semantic import (
    SLOT_SCHEMA,
    SemanticEnrichment,
    assemble_context,
    classify_semantic_intent,
)
from controller.continuity.semantic_evidence import (
    ReferentRef,
    ScopedSnapshot,
    build_candidates,
    select_eligible_scoped_evidence,
    unique_scoped_evidence,
)
from controller.continuity.state import ContinuityState
from helix.core.config import ContinuitySettings
from helix.core.english import count_tokens

ON = ContinuitySettings()
EVIDENCE = option_set("os1", EVIDENCE_ITEMS)


def opened_state(ago_ms: int = MINUTE_MS) -> ContinuityState:
    """Turn 1 showed the evidence list; turn 2 was "open the second one" (real lane)."""
    state = state_with(EVIDENCE, turn_count=1)
    d = run_selection_lane("open the second one", state, ON, now_ms=NOW_MS - ago_ms)
    state = apply_lane_mutations(state, d.mutations, CAPS)
    return state.model_copy(update={"turn_count": 2, "focus": focus_on(EVIDENCE_ITEMS[1])})


def snap(text: str, source: str = "active_widget_snapshot", scope: str = "evidence",
         sid: str = "w1", ts: int = NOW_MS - MINUTE_MS) -> ScopedSnapshot:
    return ScopedSnapshot(source_type=source, source_id=sid, scope=scope, text=text,  # type: ignore[arg-type]
                          timestamp=ts)


def run(text: str, state: ContinuityState | None = None, **kw):  # type: ignore[no-untyped-def]
    return run_semantic_lane(text, state if state is not None else opened_state(), ON,
                             now_ms=NOW_MS, **kw)


def names(d) -> list[str]:  # type: ignore[no-untyped-def]
    return [e.name for e in d.events]


def clarifiers(d) -> int:  # type: ignore[no-untyped-def]
    return names(d).count("semantic_followup_single_clarifier_asked")


class Enricher:
    def __init__(self, *steps: SemanticEnrichment) -> None:
        self.steps, self.calls = list(steps), 0

    def enrich(self, step, intent, missing, scope):  # type: ignore[no-untyped-def]
        self.calls += 1
        return returns(self.steps.pop(0) if self.steps else SemanticEnrichment())


SUMMARY_1 = "summary155 is the nightly roll-up of index statistics written by build.py."
SUMMARY_2 = "summary155 is a deprecated alias of summary154 kept for old runs."


# --- blockers -------------------------------------------------------------------------------

def test_blocker_01_why_did_you_open_that_answers_directly() -> None:
    """`Why did you open that?` with `lastResolvedAction` present answers directly (no
    clarifier)."""
    d = run("Why did you open that?")
    assert d.kind == "answer" and d.clarifier is None and clarifiers(d) == 0
    assert "indexers/tokenize.py" in d.answer and "open the second one" in d.answer
    assert "ordinal" in d.answer  # the recorded reason, not an invented one
    assert d.bound_action is not None and d.bound_action.target_ref.id == "node:e2"
    assert names(d)[-1] == "semantic_followup_answered"
    assert run("what did you just open?").kind == "answer"


def test_blocker_02_what_happened_last_summarizes_from_trace() -> None:
    """`What happened last?` with non-empty `recentActionTrace[]` summarizes recent actions
    (no clarifier)."""
    state = opened_state().model_copy(update={"recent_action_trace": (
        trace_entry(EVIDENCE_ITEMS[1], NOW_MS - MINUTE_MS),
        trace_entry(EVIDENCE_ITEMS[0], NOW_MS - 2 * MINUTE_MS, "focus_symbol"))})
    d = run("What happened last?", state)
    assert d.kind == "answer" and clarifiers(d) == 0
    lines = d.answer.splitlines()
    assert "tokenize" in lines[1] and "BM25Index.build" in lines[2]  # newest first
    d = run("can you summarize what we just did?", state)
    assert d.kind == "answer" and d.intent == "summarize_recent_activity"


def test_blocker_03_what_happened_last_with_empty_trace_asks_one_combined_clarifier() -> None:
    """`What happened last?` with empty trace and insufficient context asks one combined
    clarifier only."""
    d = run("What happened last?", state_with(EVIDENCE))
    assert d.kind == "clarify" and clarifiers(d) == 1
    assert d.missing_slots == ("recentActionTrace",)
    assert "semantic_followup_context_insufficient" in names(d)
    assert d.mutations.pending_clarifier_type == "missing_slot"


def test_blocker_04_entity_meaning_with_one_scoped_excerpt_answers_directly() -> None:
    """`What does <entity> mean?` with exactly one scoped excerpt answers directly (no
    clarifier)."""
    d = run("What does summary155 mean?", snapshots=[snap(SUMMARY_1)])
    assert d.kind == "answer" and clarifiers(d) == 0
    assert "nightly roll-up" in d.answer
    assert d.evidence is not None and d.evidence.source_type == "active_widget_snapshot"


def test_blocker_05_entity_meaning_with_multiple_referents_asks_one_clarifier() -> None:
    """`What does <entity> mean?` with multiple plausible referents asks one combined
    clarifier."""
    d = run("What does summary155 mean?",
            snapshots=[snap(SUMMARY_1, sid="w1"), snap(SUMMARY_2, sid="w2")])
    assert d.kind == "clarify" and clarifiers(d) == 1
    assert len(d.clarifier.options) == 2
    assert "continuity_non_unique_scoped_evidence" in names(d)


def test_blocker_06_semantic_lane_does_not_execute_actions() -> None:
    """Semantic lane does not execute actions."""
    state = opened_state()
    for text in ("why did you open that?", "what happened last?", "what does summary155 mean?",
                 "what does that mean?", "open the first one"):
        d = run(text, state, snapshots=[snap(SUMMARY_1)])
        assert d.executes is False
        m = d.mutations
        assert m.last_resolved_action is None and m.push_trace is None
        assert m.accept_choice_id is None
        after = apply_lane_mutations(state, m, CAPS)
        assert after.recent_action_trace == state.recent_action_trace


def test_blocker_07_command_like_turn_after_semantic_answer_hands_off() -> None:
    """Command-like turn after semantic answer hands off to selection lane correctly."""
    state = opened_state()
    first = run("why did you open that?", state)
    state = apply_lane_mutations(state, first.mutations, CAPS)
    d = run("open the first one", state)
    assert d.kind == "handoff" and names(d) == ["semantic_followup_handoff_to_selection_lane"]
    assert run("the third one", state).kind == "handoff"  # selection-like, no verb
    sel = run_selection_lane("open the first one", state, ON, now_ms=NOW_MS)
    assert sel.kind == "execute" and sel.candidate.id == "e1"


def test_blocker_08_two_missing_slots_one_packed_clarifier() -> None:
    """Missing 2+ required slots triggers one packed clarifier (no sequential clarifier
    loop)."""
    d = run("what does that mean?", state_with(EVIDENCE))
    assert d.kind == "clarify" and clarifiers(d) == 1
    assert set(d.missing_slots) == {"entityReferent", "scopedEvidence"}
    q = d.clarifier.question
    assert "which name, file or symbol" in q and "which source" in q
    assert q.count("?") == 0 and q.startswith("To answer that, tell me")


def test_blocker_09_borrowing_blocked_on_ttl_expiry_or_explicit_conflict() -> None:
    """Continuity borrowing is blocked when TTL expires or explicit target conflict is
    present."""
    stale = opened_state(ago_ms=CAPS.continuity_ttl_max_ms + MINUTE_MS)
    d = run("why did you open that?", stale.model_copy(update={"focus": focus_on(
        EVIDENCE_ITEMS[1]).model_copy(update={"object_ref": None})}))
    assert d.kind == "clarify" and "continuity_ttl_expired" in names(d)
    many_turns = opened_state().model_copy(update={
        "turn_count": 2 + CAPS.continuity_ttl_max_turns,
        "focus": focus_on(EVIDENCE_ITEMS[1]).model_copy(update={"object_ref": None})})
    assert run("why did you open that?", many_turns).kind == "clarify"
    d = run("why did you open summary155?")
    assert d.kind == "clarify" and "continuity_blocked_conflict" in names(d)
    assert clarifiers(d) == 1


def test_blocker_10_pending_selection_arbitration_blocks_semantic_entry() -> None:
    """Pending active-option unresolved arbitration blocks semantic-lane entry and keeps
    control in selection ladder."""
    state = opened_state().model_copy(update={"pending_clarifier_type":
                                              "selection_disambiguation"})
    d = run("why did you open that?", state)
    assert d.kind == "handoff" and d.reason == "selection arbitration pending"
    assert d.answer == "" and d.clarifier is None


def test_blocker_11_referent_binding_strict_priority() -> None:
    """Referential binding uses strict priority order (explicit target > scoped active entity >
    lastResolvedAction > recentActionTrace); ambiguous cross-rank tie asks one clarifier."""
    base = opened_state()  # last = e2 (tokenize), focus = e2
    trace = (trace_entry(EVIDENCE_ITEMS[1], NOW_MS - MINUTE_MS),
             trace_entry(EVIDENCE_ITEMS[0], NOW_MS - 2 * MINUTE_MS, "focus_symbol"))
    state = base.model_copy(update={"recent_action_trace": trace})
    # rank 2 (scoped active entity = focus on e1) beats rank 3 (last = e2)
    focused_e1 = state.model_copy(update={"focus": focus_on(EVIDENCE_ITEMS[0])})
    assert run("why did you do that?", focused_e1).bound_action.target_ref.id == "node:e1"
    # rank 1 (explicit target) beats rank 2
    d = run("why did you open tokenize.py?", focused_e1)
    assert d.bound_action.target_ref.id == "node:e2"
    # rank 3 without focus
    no_focus = state.model_copy(update={"focus": focus_on(EVIDENCE_ITEMS[0]).model_copy(
        update={"object_ref": None})})
    assert run("why did you open that?", no_focus).bound_action.target_ref.id == "node:e2"
    # rank 4: no lastResolvedAction, the newest trace entry
    only_trace = no_focus.model_copy(update={"last_resolved_action": None})
    d = run("why did you open that?", only_trace)
    assert d.kind == "answer" and d.bound_action.target_ref.id == "node:e2"
    # tie inside one rank: "indexers" names both e1 and e2
    d = run("why did you open indexers?", focused_e1)
    assert d.kind == "clarify" and clarifiers(d) == 1 and len(d.clarifier.options) == 2


def test_blocker_12_scope_cued_question_stays_in_semantic_lane() -> None:
    """Scope-cued question-intent (e.g., `from links panel d, what does summary155 mean?`)
    stays in semantic lane and uses scope-constrained binding."""
    callers = option_set("os2", EVIDENCE_ITEMS[:2], kind="callers", scope="callers", turn=2)
    state = state_with(EVIDENCE, callers, active="os2", turn_count=2)
    snaps = [snap(SUMMARY_1, scope="evidence", sid="a"), snap(SUMMARY_2, scope="callers",
                                                               sid="b")]
    d = run_semantic_lane("from the evidence, what does summary155 mean?", state, ON,
                          now_ms=NOW_MS, snapshots=snaps)
    assert d.kind == "answer" and d.scope == "evidence" and "nightly" in d.answer
    d = run_semantic_lane("what does summary155 mean?", state, ON, now_ms=NOW_MS,
                          snapshots=snaps)
    assert d.kind == "answer" and d.scope == "callers" and "deprecated" in d.answer


def test_blocker_13_unique_scoped_evidence_needs_one_referent_and_one_candidate() -> None:
    """`unique scoped evidence` requires exactly one referent and one scoped evidence candidate
    after filtering; otherwise one clarifier."""
    cands = build_candidates([snap(SUMMARY_1, sid="a")], "", None, NOW_MS, "evidence")
    one = ReferentRef(kind="entity", id="summary155", scope="evidence")
    other = ReferentRef(kind="entity", id="build.py", scope="evidence")
    assert unique_scoped_evidence([one], "evidence", cands, NOW_MS, CAPS) is not None
    assert unique_scoped_evidence([one, other], "evidence", cands, NOW_MS, CAPS) is None
    two = build_candidates([snap(SUMMARY_1, sid="a"), snap(SUMMARY_2, sid="b")], "", None,
                           NOW_MS, "evidence")
    assert unique_scoped_evidence([one], "evidence", two, NOW_MS, CAPS) is None
    # a duplicate excerpt is normalised away and stays unique
    dup = build_candidates([snap(SUMMARY_1, sid="a"), snap(SUMMARY_1, sid="a")], "", None,
                           NOW_MS, "evidence")
    assert unique_scoped_evidence([one], "evidence", dup, NOW_MS, CAPS) is not None
    # TTL filtering: an old excerpt is not eligible
    old = build_candidates([snap(SUMMARY_1, ts=NOW_MS - CAPS.continuity_ttl_max_ms - 1)], "",
                           None, NOW_MS, "evidence")
    assert unique_scoped_evidence([one], "evidence", old, NOW_MS, CAPS) is None


def test_blocker_14_cross_source_conflict_without_priority_winner_is_non_unique() -> None:
    """Cross-source conflict with no strict-priority winner is treated as non-unique scoped
    evidence and asks one clarifier."""
    ref = ReferentRef(kind="entity", id="summary155", scope="evidence")
    same_rank = build_candidates([snap(SUMMARY_1, "active_scoped_entity", sid="a"),
                                  snap(SUMMARY_2, "active_scoped_entity", sid="b")], "", None,
                                 NOW_MS, "evidence")
    _, conflict = select_eligible_scoped_evidence(same_rank, ref, NOW_MS, CAPS)
    assert conflict
    d = run("what does summary155 mean?", snapshots=[
        snap(SUMMARY_1, "active_scoped_entity", sid="a"),
        snap(SUMMARY_2, "active_scoped_entity", sid="b")])
    assert d.kind == "clarify" and clarifiers(d) == 1
    # different sources: the strict priority (entity > widget > explanation) decides
    d = run("what does summary155 mean?", snapshots=[
        snap(SUMMARY_1, "active_scoped_entity", sid="a"),
        snap(SUMMARY_2, "active_widget_snapshot", sid="b")])
    assert d.kind == "answer" and "nightly" in d.answer


def test_blocker_15_cross_scope_candidates_excluded() -> None:
    """Cross-scope evidence candidates are excluded from eligibility and cannot be merged to
    force uniqueness."""
    snaps = [snap(SUMMARY_1, scope="evidence", sid="a"), snap(SUMMARY_2, scope="tests", sid="b")]
    assert [c.scope for c in build_candidates(snaps, "", None, NOW_MS, "evidence")] == [
        "evidence"]
    d = run("what does summary155 mean?", snapshots=[snap(SUMMARY_2, scope="tests")])
    assert d.kind == "clarify" and d.missing_slots == ("scopedEvidence",)


def test_blocker_16_fingerprint_unchanged_after_enrichment_no_retry() -> None:
    """Fingerprint unchanged after semantic enrichment -> no further retry; one packed grounded
    clarifier."""
    enricher = Enricher(SemanticEnrichment())
    d = run("what does summary155 mean?", enricher=enricher)
    assert enricher.calls == 1 and d.kind == "clarify" and clarifiers(d) == 1
    assert d.fallback_reason == "no_new_evidence"
    ev = d.events[names(d).index("semantic_enrichment_fingerprint_unchanged")]
    assert ev.fingerprint_before == ev.fingerprint_after


def test_blocker_17_enrichment_budget_exhausted_one_packed_clarifier() -> None:
    """Semantic enrichment budget exhausted with missing critical slots -> one packed grounded
    clarifier and stop."""
    noise = [SemanticEnrichment(snapshots=(snap(f"unrelated text {k}", sid=f"n{k}"),))
             for k in range(5)]
    enricher = Enricher(*noise)
    d = run("what does summary155 mean?", enricher=enricher)
    assert enricher.calls == CAPS.semantic_max_enrichment_steps
    assert d.kind == "clarify" and clarifiers(d) == 1
    assert d.fallback_reason == "budget_exhausted"
    assert names(d).count("semantic_enrichment_retry_called") == 2
    assert d.events[-1].retry_budget_remaining == 0
    enricher = Enricher(*noise)
    d = run("what does summary155 mean?", enricher=enricher, extended_budget=True)
    assert enricher.calls == CAPS.semantic_max_enrichment_steps_extended


def test_blocker_18_mixed_intent_selection_first_then_answer() -> None:
    """Mixed intent (`open sample2 and explain why`) resolves via selection lane first, then
    semantic answer; enrichment retry must not consume/drop the explanation clause."""
    state = state_with(EVIDENCE, turn_count=1)
    out = run_mixed_intent("open 2 and explain why", state, ON, now_ms=NOW_MS)
    assert out.selection.kind == "execute" and out.selection.candidate.id == "e2"
    assert out.semantic is not None and out.semantic.kind == "answer"
    assert "tokenize" in out.semantic.answer and "open 2" in out.semantic.answer
    assert out.state.last_resolved_action.target_ref.id == "node:e2"
    # the semantic lane itself hands a mixed turn to selection
    assert run("open tokenize.py and explain why", state).kind == "handoff"
    # an enrichment retry in the selection lane keeps the clause
    need = json.dumps({"decision": "need_more_info"})
    out = run_mixed_intent("open the ranking one and explain why", state, ON, now_ms=NOW_MS,
                           llm=FakeLLM(need, need), model="m")
    assert out.selection.kind == "clarify" and out.selection.followup_clause == "explain why"
    assert out.semantic is None
    # routing examples of the lane document
    assert classify_semantic_intent("why did you open sample2") == "reflective_why_followup"
    assert classify_semantic_intent("what does summary155 mean") == "explain_entity_meaning"


# --- flag off, caps, schema, enrichment success, telemetry ---------------------------------

def test_semantic_lane_off_returns_one_safe_clarifier() -> None:
    """Flag-off behaviour (`semantic_lane = false`): a bounded safe clarifier in the same
    semantic context, then stop (no downstream escape, no answer)."""
    d = run_semantic_lane("why did you open that?", opened_state(),
                          ContinuitySettings(semantic_lane=False), now_ms=NOW_MS)
    assert d.kind == "clarify" and d.reason == "lane_disabled" and d.answer == ""
    assert names(d) == ["lane_disabled"]


def test_hard_caps_of_the_blended_context() -> None:
    """Hard caps: 8 turns / 1200 tokens history, 12 structured keys, 5 trace entries,
    400-token excerpt, 1800 total."""
    history = [TurnSummary(turn_id=k, user_text="word " * 150, lane="root", transition="T1",
                           answer_excerpt="x") for k in range(1, 21)]
    ctx = assemble_context(opened_state(), history, "tok " * 1000, CAPS)
    assert len(ctx.history) <= CAPS.chat_history_max_turns
    assert ctx.history_tokens <= CAPS.chat_history_max_tokens
    assert ctx.excerpt_tokens == CAPS.snapshot_excerpt_max_tokens
    assert len(ctx.structured) <= CAPS.structured_fields_max_keys
    assert len(ctx.structured["recentActionTrace"]) <= CAPS.recent_action_trace_max_entries
    assert ctx.total_tokens <= CAPS.blended_context_max_tokens
    assert ctx.history[0].startswith("turn 20")  # newest first
    assert sum(count_tokens(h) for h in ctx.history) == ctx.history_tokens
    short = [TurnSummary(turn_id=k, user_text="hi", lane="root", transition="T1")
             for k in range(1, 21)]
    assert len(assemble_context(opened_state(), short, "", CAPS).history) == 8


def test_slot_schema_is_the_documented_one() -> None:
    assert SLOT_SCHEMA["explain_last_action"][0] == ("lastResolvedAction",)
    assert SLOT_SCHEMA["summarize_recent_activity"][0] == ("recentActionTrace",)
    assert SLOT_SCHEMA["explain_entity_meaning"][0] == ("entityReferent", "scopedEvidence")
    assert SLOT_SCHEMA["reflective_why_followup"][0] == ("lastResolvedAction",)


def test_enrichment_that_finds_the_excerpt_answers_after_retry() -> None:
    enricher = Enricher(SemanticEnrichment(snapshots=(snap(SUMMARY_1),)))
    d = run("what does summary155 mean?", enricher=enricher)
    assert d.kind == "answer" and enricher.calls == 1
    assert "semantic_enrichment_retry_called" in names(d)


def test_entity_pronoun_binds_to_focus_and_last_explanation_is_a_source() -> None:
    state = opened_state().model_copy(update={
        "last_assistant_explanation": "tokenize splits identifiers on case and underscores."})
    d = run("what does that mean?", state, explanation_scope="evidence")
    assert d.kind == "answer" and d.evidence.source_type == "last_assistant_explanation"


def test_llm_answer_mode_used_for_entity_meaning() -> None:
    llm = FakeLLM(json.dumps({"answer": "A nightly statistics roll-up.", "confidence": 0.9}))
    d = run("what does summary155 mean?", snapshots=[snap(SUMMARY_1)], llm=llm, model="m")
    assert d.kind == "answer" and d.answer == "A nightly statistics roll-up."
    assert d.llm_calls == 1 and len(llm.calls) == 1
    assert "nightly roll-up" in llm.calls[0][1]["content"]


def test_events_are_documented_names_with_loop_cycle_fields() -> None:
    d = run("what does summary155 mean?", enricher=Enricher(SemanticEnrichment()))
    assert d.events and all(e.name in SEMANTIC_EVENTS for e in d.events)
    for e in d.events:
        assert e.loop_cycle_id and e.fingerprint_before and e.fingerprint_after
        assert e.retry_budget_remaining is not None
        assert {"window_size", "structured_fields_used", "slot_missing_reasons"} <= set(e.data)


def test_interrupt_preempts() -> None:
    assert run("stop").kind == "escape"


SEM_WORDS = ["why", "did", "you", "open", "that", "what", "happened", "last", "does",
             "summary155", "mean", "?", "from", "the", "evidence", "summarize", "we", "it",
             "explain", "tokenize.py", "and", "stop", "second", "one", "in", "tests/"]


@given(words=st.lists(st.sampled_from(SEM_WORDS), min_size=1, max_size=9),
       opened=st.booleans(), with_snap=st.booleans())
@hyp_settings(max_examples=150, deadline=None)
def test_property_semantic_lane_never_executes_and_asks_at_most_one_clarifier(
        words: list[str], opened: bool, with_snap: bool) -> None:
    state = opened_state() if opened else state_with(EVIDENCE)
    d = run_semantic_lane(" ".join(words), state, ON, now_ms=NOW_MS,
                          snapshots=[snap(SUMMARY_1)] if with_snap else [],
                          enricher=Enricher(SemanticEnrichment()))
    assert d.executes is False and d.mutations.push_trace is None
    assert d.mutations.last_resolved_action is None and d.mutations.accept_choice_id is None
    assert clarifiers(d) <= 1
    assert (d.kind == "answer") == bool(d.answer)


def _listed_after_open() -> ContinuityState:
    """Turn 2 opened item 2 (real lane); turn 3 listed the tests of the same object (T4): the
    list is now lastResolvedAction and the newest trace entry, in another scope."""
    state = opened_state(ago_ms=2 * MINUTE_MS)
    assert state.last_resolved_action is not None
    listed = state.last_resolved_action.model_copy(update={
        "type": "list_tests", "source_scope": "tests", "timestamp": NOW_MS - MINUTE_MS,
        "turn_id": 3, "user_text": "where is it tested?", "reason": "tests of the focused"})
    return state.model_copy(update={
        "turn_count": 3, "last_resolved_action": listed, "active_scope": "tests",
        "recent_action_trace": (listed, *state.recent_action_trace)})


def test_the_verb_in_why_did_you_picks_the_action_kind():
    state = _listed_after_open()
    history = (TurnSummary(turn_id=2, user_text="open the second one", lane="selection",
                           transition="T3", object_ref=EVIDENCE_ITEMS[1].target),)
    opened = run("why did you open that?", state, history=history)
    assert opened.kind == "answer" and opened.bound_action is not None
    assert opened.bound_action.type == "open_span"  # not the newer list action
    assert opened.answer.startswith("I opened indexers/tokenize.py: tokenize")
    assert '"open the second one" (turn 2): it is item 2 of the evidence list' in opened.answer
    listed = run("why did you list those?", state)
    assert listed.kind == "answer" and listed.bound_action is not None
    assert listed.bound_action.type == "list_tests"
    assert listed.answer.startswith("I listed the tests of")
    plain = run("why?", state)  # no verb: the newest action, as before
    assert plain.bound_action is not None and plain.bound_action.type == "list_tests"


def test_a_verb_with_no_such_action_asks_instead_of_answering_another():
    state = opened_state()
    d = run("why did you list those?", state)  # only an open happened
    assert d.kind == "clarify" and d.bound_action is None
    assert clarifiers(d) == 1


def test_a_retry_after_an_explanation_only_binding_logs_the_changed_fingerprint() -> None:
    """An entity bound only through the last explanation is looked for in the evidence first;
    when that enrichment changes the evidence, the retry event records the fingerprint before
    and after it (the A/B gate counts a retry whose two are equal as an unchanged-fingerprint
    retry, which the umbrella contract forbids)."""
    state = opened_state().model_copy(update={
        "last_assistant_explanation": "tokenize splits identifiers on case and underscores."})
    d = run("what does that mean?", state, explanation_scope="evidence",
            enricher=Enricher(SemanticEnrichment(snapshots=(snap(SUMMARY_1),))))
    retried = [e for e in d.events if e.name == "semantic_enrichment_retry_called"]
    assert retried
    assert all(e.fingerprint_before != e.fingerprint_after for e in retried)
