"""Selection lane (selection-continuity-execution-lane.md): every blocker of its test plan."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st
from lane_fixtures import (
    EVIDENCE_ITEMS,
    NOW_MS,
    SAMPLE_ITEMS,
    FakeLLM,
    focus_on,
    item,
    option_set,
    resolved,
    run_selection_lane,
    state_with,
)

from controller.continuity.caps import CAPS
from controller.continuity.events import SELECTION_EVENTS
from controller.continuity.requests import returns
from controller.continuity.selection import (
    SelectionEnrichment,
    apply_lane_mutations,
    parse_verdict,
    validate_needed_types,
)
from controller.continuity.selection_match import parse_selection_input
from helix.core.config import ContinuitySettings

ON = ContinuitySettings()
OFF = ContinuitySettings(selection_lane=False)
PHASE_C = ContinuitySettings(phase_c_auto_execute=True)
EVIDENCE = option_set("os1", EVIDENCE_ITEMS)
SAMPLES = option_set("os-samples", SAMPLE_ITEMS, kind="options", scope="options")


def select(choice: str, confidence: float = 0.9) -> str:
    return json.dumps({"decision": "select", "choice_id": choice, "confidence": confidence})


NEED_MORE = json.dumps({"decision": "need_more_info",
                        "needed_evidence_types": ["chat_active_options"]})


def run(text: str, state=None, settings=ON, **kw):  # type: ignore[no-untyped-def]
    return run_selection_lane(text, state or state_with(EVIDENCE), settings, now_ms=NOW_MS,
                              **kw)


def names(decision) -> list[str]:  # type: ignore[no-untyped-def]
    return [e.name for e in decision.events]


class RefreshEnricher:
    """Orchestrator enrichment: adds metadata (sublabels) for current candidates only."""

    def __init__(self, sublabels: dict[str, str], extra_item: bool = False) -> None:
        self.sublabels, self.extra_item, self.calls = sublabels, extra_item, 0

    def enrich(self, types, option_set, pool):  # type: ignore[no-untyped-def]
        self.calls += 1
        items = tuple(i.model_copy(update={"sublabel": self.sublabels.get(i.id, i.sublabel),
                                           "label": self.sublabels.get(i.id, i.label)})
                      for i in pool)
        if self.extra_item:  # an attempt to inject a candidate outside the pool
            items += (item(9, "intruder", "intruder", "x/intruder.py"),)
        return returns(SelectionEnrichment(items=items, excerpt_hashes=("sha256:enriched",)))


class SameEnricher:
    def __init__(self) -> None:
        self.calls = 0

    def enrich(self, types, option_set, pool):  # type: ignore[no-untyped-def]
        self.calls += 1
        return returns(SelectionEnrichment(items=pool))


# --- blockers -------------------------------------------------------------------------------

def test_blocker_01_open_sample2_pls_resolves_without_repeated_clarifier() -> None:
    """`open the sample2 pls` resolves without repeated clarifier when unique safe winner
    exists."""
    llm = FakeLLM()
    d = run("open the sample2 pls", state_with(SAMPLES), llm=llm, model="m")
    assert d.kind == "execute" and d.candidate is not None and d.candidate.id == "s2"
    assert d.reason == "deterministic_continuity_resolve"
    assert llm.calls == []
    assert names(d) == ["selection_deterministic_continuity_resolve"]
    assert d.events[0].data["winner_id"] == "s2"
    assert d.events[0].data["non_winner_ids"] == ["s1", "s3"]
    # and the numbered forms of the conversation
    for text, want in [("open the second one", "e2"), ("open 3", "e3"), ("the last one", "e4"),
                       ("the tests one", "e3"), ("open tokenize.py", "e2"),
                       ("show BM25Index.build", "e1"), ("open #1 please", "e1")]:
        got = run(text)
        assert got.kind == "execute" and got.candidate is not None, text
        assert got.candidate.id == want, text


def test_blocker_02_true_ambiguity_still_clarifies() -> None:
    """True ambiguity still clarifies."""
    two_tests = option_set("os2", (*EVIDENCE_ITEMS[:2],
                                   item(3, "t1", "tests/test_a.py: t", "tests/test_a.py"),
                                   item(4, "t2", "tests/test_b.py: t", "tests/test_b.py")))
    d = run("open the tests one", state_with(two_tests))
    assert d.kind == "clarify" and d.unresolved_reason == "ambiguous"
    assert [o.id for o in d.options] == ["t1", "t2"]
    assert d.mutations.pending_clarifier_type == "selection_disambiguation"
    # the options are numbered as offered: "the second" answers with the second shown
    assert "1. tests/test_a.py" in d.clarifier_text and "2. tests/test_b.py" in d.clarifier_text
    # "open it" with nothing focused and several candidates: no guess
    assert run("open it").kind == "clarify"


def test_candidates_all_in_the_one_file_named_are_that_file_not_an_ambiguity() -> None:
    """Naming a file listed as a whole ("the cli.py one" over two spans of search/cli.py,
    "the test cli one" over tests/test_cli.py and a test in it) opens the file: the span the
    list puts first. Two files stay a clarifier (blocker 02), and so do two definitions of a
    file not listed as a whole (which one is meant)."""
    spans = option_set("os3", (item(1, "c1", "search/cli.py", "search/cli.py", kind="file"),
                               item(2, "m", "main", "search/cli.py", "main"),
                               item(3, "e", "SearchEngine", "search/engine.py", "SearchEngine"),
                               item(4, "c2", "search/cli.py", "search/cli.py", kind="file")))
    d = run("the cli.py one", state_with(spans))
    assert d.kind == "execute" and d.candidate is not None and d.candidate.id == "c1"
    parts = option_set("os4", (item(1, "t1", "test_min_length", "tests/test_tokenizer.py",
                                    "test_min_length"),
                               item(2, "b", "build", "search/bm25.py", "build"),
                               item(3, "t2", "test_stop_words", "tests/test_tokenizer.py",
                                    "test_stop_words"),
                               item(4, "f", "tests/test_tokenizer.py",
                                    "tests/test_tokenizer.py", kind="file")))
    for text in ("test_tokenizer.py please", "the test tokenizer one"):
        d = run(text, state_with(parts))
        assert d.kind == "execute" and d.candidate is not None and d.candidate.id == "f", text
    only_defs = option_set("os5", (parts.items[0], parts.items[1], parts.items[2]))
    for text in ("open test_tokenizer.py", "open the test one"):  # which test is meant
        assert run(text, state_with(only_defs)).kind == "clarify", text


def test_a_name_said_with_its_kind_noun_is_that_name() -> None:
    """"the Tokenizer class item", "the section on carving": the kind of thing a name is
    (class, function, method, section, module) is no part of the name (vocabulary.toml's
    label fillers), so the name still picks its item instead of matching nothing."""
    listed = option_set("os6", (
        item(1, "a", "tokenize", "search/tokenizer.py", "tokenize"),
        item(2, "b", "Tokenizer", "search/tokenizer.py", "Tokenizer"),
        item(3, "c", "Search > Tokenizer", "docs/search.md", kind="section"),
        item(4, "d", "The cavity pool > Carving", "docs/storage/cavity-pool.md", kind="section"),
        item(5, "e", "CavityPool.carve", "storage/cavity_pool.py", "CavityPool.carve")))
    for text, want in (("open the Tokenizer class item, please", "b"),
                       ("could you open the section on carving", "d"),
                       ("the carve method", "e")):
        d = run(text, state_with(listed))
        assert d.kind == "execute" and d.candidate is not None and d.candidate.id == want, text


def test_blocker_03_stale_option_set_does_not_force_old_winner() -> None:
    """Stale `activeOptionSetId` does not force old winner."""
    old = EVIDENCE
    new = option_set("os2", (item(1, "n1", "controller/loop.py: step", "controller/loop.py"),
                             item(2, "n2", "controller/route.py: route", "controller/route.py")),
                     turn=3)
    chosen = EVIDENCE_ITEMS[2]  # e3, accepted from the OLD list and focused
    state = state_with(old, new, active="os2", turn_count=3, last_accepted_choice_id="e3",
                       last_resolved_action=resolved(chosen, "os1"), focus=focus_on(chosen))
    for text in ("open it", "open that again", "the tests one", "open test_bm25.py"):
        d = run(text, state)
        assert d.kind == "clarify", text
        assert d.candidate is None and all(o.id in {"n1", "n2"} for o in d.options), text
        assert d.option_set_id == "os2"


def test_blocker_04_question_intent_and_hard_interrupts_bypass() -> None:
    """Question-intent and hard interrupts still bypass correctly."""
    llm = FakeLLM()
    for text in ("stop", "cancel that", "start over", "never mind"):
        d = run(text, llm=llm, model="m")
        assert (d.kind, d.reason) == ("escape", "hard_interrupt"), text
    for text in ("why did you open that?", "what happened last?", "which one is the test?",
                 "from the evidence, what does BM25 mean?"):
        d = run(text, llm=llm, model="m")
        assert (d.kind, d.reason) == ("escape", "question_intent"), text
    assert llm.calls == []
    # a polite command phrased as a question is still a command
    assert run("can you open the second one?").kind == "execute"


def test_blocker_05_no_execution_outside_bounded_candidates() -> None:
    """No execution outside bounded candidates."""
    llm = FakeLLM(select("not-a-candidate", 0.99))
    d = run("open the one about ranking", llm=llm, model="m", settings=PHASE_C)
    assert d.kind == "clarify" and d.fallback_reason == "abstain" and d.candidate is None
    # enrichment cannot smuggle a candidate in either
    llm = FakeLLM(NEED_MORE, select("intruder", 0.99))
    enricher = RefreshEnricher({"e2": "ranking"}, extra_item=True)
    d = run("open the one about scoring", llm=llm, model="m", settings=PHASE_C,
            enricher=enricher)
    assert d.candidate is None or d.candidate.id in {i.id for i in EVIDENCE_ITEMS}
    assert d.kind == "clarify"
    assert "intruder" not in json.dumps(llm.calls[-1])
    # nothing active at all: the lane does not act
    empty = state_with()
    assert run("open the second one", empty).reason == "no_active_option_set"


def test_blocker_06_explicit_scope_cue_precedence_before_focus_bypass() -> None:
    """Explicit scope cue precedence: `from chat` (Helix: `from the options`) is evaluated
    before widget bypass (Helix: the focused-object bypass) in unresolved selection flows."""
    focused = EVIDENCE_ITEMS[1]
    state = state_with(SAMPLES, EVIDENCE, active="os1", turn_count=2, focus=focus_on(focused),
                       last_accepted_choice_id="e2",
                       last_resolved_action=resolved(focused, "os1"))
    assert run("open it", state).candidate.id == "e2"  # focus bypass without a cue
    d = run("open it from the options", state)
    assert d.option_set_id == "os-samples" and d.kind == "clarify"
    assert {o.id for o in d.options} == {"s1", "s2", "s3"}
    d = run("open the second one from the options", state)
    assert d.kind == "execute" and d.candidate.id == "s2"


def test_blocker_07_scope_bound_candidates_not_mixed() -> None:
    """Scope-bound candidates: scoped arbitration calls do not mix candidates from other
    scopes."""
    llm = FakeLLM(select("e9", 0.5))
    state = state_with(SAMPLES, EVIDENCE, active="os1", turn_count=2)
    d = run("open the one about ranking in tests/", state, llm=llm, model="m")
    sent = json.loads(llm.calls[0][1]["content"])
    assert [c["id"] for c in sent["candidates"]] == ["e3"]  # only tests/ of the active list
    # the continuity block is structured and bounded: no transcript, ids are the boundary
    assert set(sent) == {"input", "continuityContext", "candidates"}
    assert set(sent["continuityContext"]) == {
        "activeOptionSetId", "activeScope", "lastAcceptedChoiceId", "recentAcceptedChoiceIds",
        "recentRejectedChoiceIds", "lastResolvedAction"}
    assert d.scope == "evidence|path:tests/"
    llm = FakeLLM(select("s1", 0.5))
    run("pick the right one from the options", state, llm=llm, model="m")
    sent = json.loads(llm.calls[0][1]["content"])
    assert [c["id"] for c in sent["candidates"]] == ["s1", "s2", "s3"]


def test_blocker_08_fingerprint_unchanged_after_enrichment_no_second_llm_call() -> None:
    """Fingerprint unchanged after enrichment -> no second LLM call; grounded clarifier is
    returned."""
    llm = FakeLLM(NEED_MORE, select("e1"))
    enricher = SameEnricher()
    d = run("open the one about ranking", llm=llm, model="m", enricher=enricher)
    assert len(llm.calls) == 1 and enricher.calls == 1
    assert d.kind == "clarify" and d.fallback_reason == "no_new_evidence"
    assert d.options and d.option_set_id == "os1"
    ev = names(d)
    assert ev[-1] == "selection_enrichment_fingerprint_unchanged"
    last = d.events[-1]
    assert last.fingerprint_before == last.fingerprint_after is not None
    # no enricher at all behaves the same (nothing new can appear)
    d = run("open the one about ranking", llm=FakeLLM(NEED_MORE), model="m")
    assert d.fallback_reason == "no_new_evidence"


def test_blocker_09_selection_enrichment_budget_exhausted_no_further_retry() -> None:
    """Selection enrichment budget exhausted -> no further retry; grounded clarifier is
    returned."""
    llm = FakeLLM(NEED_MORE, NEED_MORE, select("e1"))
    enricher = RefreshEnricher({"e1": "scoring helper"})
    d = run("open the one about ranking", llm=llm, model="m", enricher=enricher)
    assert len(llm.calls) == 2 and enricher.calls == 1  # budgets: 2 calls, 1 enrichment
    assert d.kind == "clarify" and d.fallback_reason == "budget_exhausted"
    assert names(d) == [
        "selection_llm_need_more_info", "selection_need_more_info_veto_blocked_reason",
        "selection_enrichment_retry_called", "selection_llm_need_more_info",
        "selection_need_more_info_veto_blocked_reason", "selection_enrichment_budget_exhausted"]
    retry = d.events[2]
    assert retry.fingerprint_before != retry.fingerprint_after
    assert d.events[-1].retry_budget_remaining == 0 and d.events[-1].retry_attempt_index == 1
    assert len({e.loop_cycle_id for e in d.events}) == 1


def test_blocker_10_phase_c_interaction_with_enrichment() -> None:
    """Phase C interaction: with auto-exec ON/OFF, enrichment flow must still respect
    governing Phase C gates and must not create a new execute path."""
    for settings, want in ((PHASE_C, "execute"), (ON, "clarify")):
        llm = FakeLLM(NEED_MORE, select("e2", 0.9))
        d = run("open the one about ranking", llm=llm, model="m", settings=settings,
                enricher=RefreshEnricher({"e1": "scoring helper"}))
        assert d.kind == want
        if want == "execute":
            assert d.reason == "phase_c_auto_execute" and d.candidate.id == "e2"
        else:
            assert d.reason == "llm_suggestion" and d.options[0].id == "e2"
    # gates: confidence below 0.85 never executes
    d = run("open the one about ranking", llm=FakeLLM(select("e2", 0.84)), model="m",
            settings=PHASE_C)
    assert d.kind == "clarify" and d.fallback_reason == "low_confidence"
    # gates: only reason no_deterministic_match (here: ambiguous "the tests one")
    two = option_set("os2", (item(1, "t1", "tests/a.py: a", "tests/a.py"),
                             item(2, "t2", "tests/b.py: b", "tests/b.py")))
    d = run("open the tests one", state_with(two), llm=FakeLLM(select("t1", 0.99)),
            model="m", settings=PHASE_C)
    assert d.kind == "clarify" and d.unresolved_reason == "ambiguous"
    # enrichment that makes a deterministic winner executes via the deterministic veto only
    llm = FakeLLM(NEED_MORE)
    d = run("open the scoring helper", llm=llm, model="m", settings=ON,
            enricher=RefreshEnricher({"e1": "scoring helper"}))
    assert d.kind == "execute" and d.reason == "need_more_info_veto_applied"
    assert d.candidate.id == "e1" and len(llm.calls) == 1


def test_phase_c_never_after_llm_failure_or_on_loop_guard_repeat() -> None:
    """Phase C gates: never after an LLM failure, never on a loop-guard repeat."""
    from helix.core.errors import LLMTimeoutError

    state = state_with(EVIDENCE)
    d = run("open the one about ranking", state, llm=FakeLLM(LLMTimeoutError("t")), model="m",
            settings=PHASE_C)
    assert d.kind == "clarify" and d.fallback_reason == "timeout"
    after = apply_lane_mutations(state, d.mutations, CAPS)
    assert after.selection_loop_guard is not None and after.selection_loop_guard.llm_failed
    llm = FakeLLM(select("e2", 0.99))
    d2 = run("open the one about ranking", after, llm=llm, model="m", settings=PHASE_C)
    assert d2.kind == "clarify" and d2.reason == "loop_guard_repeat" and llm.calls == []


def test_blocker_11_loop_guard_reuses_prior_suggestion_order() -> None:
    """Loop-guard continuity: same-cycle guard hit reuses prior suggestion ordering for the
    same option-set cycle (no random reorder drift)."""
    state = state_with(EVIDENCE)
    d1 = run("open the one about ranking", state, llm=FakeLLM(select("e3")), model="m")
    assert d1.reason == "llm_suggestion"
    order = [o.id for o in d1.options]
    assert order[0] == "e3" and sorted(order) == ["e1", "e2", "e3", "e4"]
    state2 = apply_lane_mutations(state, d1.mutations, CAPS)
    llm = FakeLLM(select("e1"))  # would reorder if it were asked again
    d2 = run("open the one about ranking", state2, llm=llm, model="m")
    assert llm.calls == [] and d2.reason == "loop_guard_repeat"
    assert [o.id for o in d2.options] == order
    assert d2.loop_cycle_id == d1.loop_cycle_id
    # a different input is a different cycle: the LLM is asked again
    d3 = run("open the one about tokens", state2, llm=FakeLLM(select("e2")), model="m")
    assert d3.reason == "llm_suggestion" and d3.options[0].id == "e2"
    # executing ends the cycle
    d4 = run("open the second one", state2)
    assert apply_lane_mutations(state2, d4.mutations, CAPS).selection_loop_guard is None


def test_blocker_12_scope_cued_polite_command_stays_in_scoped_unresolved_handling() -> None:
    """Scope-cued filler/polite command (`open the panel d from chat pls thank you`) with no
    deterministic winner still stays in scoped unresolved handling (deterministic-or-LLM),
    never unrelated downstream clarifier."""
    state = state_with(SAMPLES, EVIDENCE, active="os1", turn_count=2)
    llm = FakeLLM(select("s3", 0.5))
    d = run("open the panel d from the options pls thank you", state, llm=llm, model="m")
    assert d.kind == "clarify" and d.option_set_id == "os-samples"
    assert len(llm.calls) == 1 and {o.id for o in d.options} == {"s1", "s2", "s3"}
    # without an LLM: still the scoped clarifier, not an escape
    d = run("open the panel d from the options pls thank you", state)
    assert d.kind == "clarify" and d.reason == "llm_unavailable"
    assert d.option_set_id == "os-samples"


def test_blocker_13_scope_cued_that_one_does_not_trigger_command_bypass() -> None:
    """Scope-cued ambiguous selection-like input (`that one from chat`) does not trigger
    command bypass and still enters scoped unresolved handling."""
    state = state_with(SAMPLES, EVIDENCE, active="os1", turn_count=2)
    llm = FakeLLM(select("s1", 0.5))
    d = run("that one from the options", state, llm=llm, model="m")
    assert d.kind == "clarify" and d.option_set_id == "os-samples" and len(llm.calls) == 1
    cues = parse_selection_input("that one from the options")
    assert not cues.question_intent and cues.scope_kind == "options"
    # a cue naming a list the session never showed stays scoped too
    d = run("that one from the callers", state)
    assert d.kind == "clarify" and d.reason == "no_scoped_options"
    assert d.mutations.pending_clarifier_type == "scope_disambiguation"


# --- flag off, mixed intent, state mutations, telemetry ------------------------------------

def test_selection_lane_off_explicit_matches_only_no_llm() -> None:
    """Flag-off behaviour (`selection_lane = false`): no continuity borrowing, no LLM, no
    enrichment; explicit ordinals / labels still act, anything else is a safe clarifier in the
    same active context."""
    focused = EVIDENCE_ITEMS[1]
    state = state_with(EVIDENCE, turn_count=2, focus=focus_on(focused),
                       last_accepted_choice_id="e2", last_resolved_action=resolved(focused, "os1"))
    d = run("open the second one", state, settings=OFF)
    assert d.kind == "execute" and d.reason == "explicit_selection_lane_off"
    assert d.events == ()
    llm = FakeLLM(select("e2", 0.99))
    d = run("open it", state, settings=OFF, llm=llm, model="m")
    assert d.kind == "clarify" and d.reason == "lane_disabled" and llm.calls == []
    assert names(d) == ["lane_disabled"] and d.option_set_id == "os1"
    assert run("open it", state).candidate.id == "e2"  # on: continuity binds "it"


def test_mixed_intent_keeps_the_explanation_clause() -> None:
    """`open 2 and explain why`: selection first; the explanation clause is kept for the
    semantic answer even through an enrichment retry."""
    d = run("open 2 and explain why")
    assert d.kind == "execute" and d.candidate.id == "e2"
    assert d.followup_clause == "explain why"
    llm = FakeLLM(NEED_MORE, NEED_MORE)
    d = run("open the ranking one and explain why", llm=llm, model="m",
            enricher=RefreshEnricher({"e4": "other"}))
    assert d.kind == "clarify" and d.followup_clause == "explain why"


def test_execute_mutations_update_the_sidecar() -> None:
    state = state_with(EVIDENCE)
    d = run("open the second one", state)
    new = apply_lane_mutations(state, d.mutations, CAPS)
    assert new.last_resolved_action is not None
    assert new.last_resolved_action.target_ref.path == "indexers/tokenize.py"
    assert new.last_resolved_action.option_set_id == "os1"
    assert new.last_resolved_action.turn_id == 2 and "ordinal" in new.last_resolved_action.reason
    assert new.recent_action_trace[0].type == "open_span"
    assert new.last_accepted_choice_id == "e2" and new.recent_accepted_choice_ids == ("e2",)
    assert new.pending_clarifier_type == "none"
    assert set(d.mutations.changed_fields()) >= {"last_resolved_action", "recent_action_trace"}
    # the trace stays capped at 5, newest first
    for k in range(7):
        step = run_selection_lane("open the first one", new, ON, now_ms=NOW_MS + k + 1)
        new = apply_lane_mutations(new, step.mutations, CAPS)
    assert len(new.recent_action_trace) == 5
    assert new.recent_action_trace[0].timestamp == NOW_MS + 7


def test_events_carry_loop_cycle_fields_and_documented_names() -> None:
    d = run("open the one about ranking", llm=FakeLLM(NEED_MORE, select("e1", 0.5)), model="m",
            enricher=RefreshEnricher({"e1": "scoring helper"}))
    assert d.events and all(e.name in SELECTION_EVENTS for e in d.events)
    for e in d.events:
        assert e.loop_cycle_id and e.fingerprint_before and e.fingerprint_after
        assert e.retry_budget_remaining is not None and e.active_option_set_id == "os1"
        assert "candidate_count" in e.data and "collision" in e.data
    assert d.fallback_reason == "low_confidence"


def test_collision_between_selectors_is_unresolved() -> None:
    """Command-selection collision: an ordinal and a label naming different items."""
    state = state_with(SAMPLES)
    d = run("open the first sample2", state)
    assert d.kind == "clarify" and d.unresolved_reason == "collision"


def test_rejected_choice_is_a_loop_guard_conflict() -> None:
    state = state_with(EVIDENCE, recent_rejected_choice_ids=("e2",))
    d = run("open the second one", state)
    assert d.kind == "clarify" and d.unresolved_reason == "loop_guard_conflict"


@pytest.mark.parametrize("text,decision", [
    ('{"decision": "select", "choice_id": "e1", "confidence": 0.9}', "select"),
    ('sure: {"decision": "request_context", "neededEvidenceTypes": ["x"]}', "need_more_info"),
    ("no json here", "abstain"),
    ('{"decision": "maybe"}', "abstain"),
])
def test_parse_verdict(text: str, decision: str) -> None:
    assert parse_verdict(text).decision == decision


def test_needed_evidence_types_validated_against_allowlist_and_cap() -> None:
    got = validate_needed_types(["active_dashboard_items", "free_search", "chat_active_options",
                                 "chat_recoverable_options", "active_widget_items"], CAPS)
    assert got == ("chat_active_options", "chat_recoverable_options")
    assert validate_needed_types([], CAPS) == ("chat_active_options",)


def test_deterministic_and_repeatable() -> None:
    a = run("open the one about ranking", llm=FakeLLM(select("e3")), model="m")
    b = run("open the one about ranking", llm=FakeLLM(select("e3")), model="m")
    assert a == b


def test_from_the_answer_cue_binds_the_answers_list() -> None:
    """`from the answer` names the answer's own numbered list (its evidence list when the
    session keeps no separate answer list); never a mix of lists."""
    state = state_with(EVIDENCE, SAMPLES, active="os-samples", turn_count=2)
    d = run("open the second one from the answer", state)
    assert d.kind == "execute" and d.candidate.id == "e2" and d.option_set_id == "os1"
    answer = option_set("os-ans", (item(1, "c1", "cited: a.py", "a.py"),
                                   item(2, "c2", "cited: b.py", "b.py")), kind="answer",
                        scope="answer", turn=3)
    state = state_with(EVIDENCE, SAMPLES, answer, active="os-samples", turn_count=3)
    d = run("open the second one from the answer", state)
    assert d.kind == "execute" and d.candidate.id == "c2"


WORDS = ["open", "show", "the", "second", "it", "that", "one", "tests", "from", "evidence",
         "options", "answer", "in", "tests/", "bm25.py", "sample2", "why", "and", "explain",
         "please", "last", "3", "#9", "stop", "?", "BM25Index.build", "ranking"]


@given(words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=8),
       reply=st.sampled_from([select("e1", 0.99), select("s2", 0.99), select("x", 1.0),
                              NEED_MORE, "garbage", json.dumps({"decision": "abstain"})]),
       phase_c=st.booleans())
@hyp_settings(max_examples=150, deadline=None)
def test_property_never_executes_outside_the_bounded_pool(words: list[str], reply: str,
                                                          phase_c: bool) -> None:
    """Whatever the text and the model say: an executed id is in the arbitrated option set,
    the LLM is called at most SELECTION_MAX_LLM_CALLS times, and the result is repeatable."""
    state = state_with(SAMPLES, EVIDENCE, active="os1", turn_count=2)
    text = " ".join(words)
    conf = ContinuitySettings(phase_c_auto_execute=phase_c)
    llm = FakeLLM(reply, reply)
    d = run_selection_lane(text, state, conf, now_ms=NOW_MS, llm=llm, model="m",
                           enricher=RefreshEnricher({"e1": "ranking"}))
    assert len(llm.calls) <= CAPS.selection_max_llm_calls
    if d.kind == "execute":
        option_set_ = state.option_set(d.option_set_id or "")
        assert option_set_ is not None
        assert d.candidate.id in {i.id for i in option_set_.items}
    again = run_selection_lane(text, state, conf, now_ms=NOW_MS, llm=FakeLLM(reply, reply),
                               model="m", enricher=RefreshEnricher({"e1": "ranking"}))
    assert again == d
