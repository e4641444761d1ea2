"""The umbrella contract's degradation matrix (both lanes) and its Step 6 blocker tests."""

from __future__ import annotations

import json

import pytest
from lane_fixtures import (
    EVIDENCE_ITEMS,
    MINUTE_MS,
    NOW_MS,
    SAMPLE_ITEMS,
    FakeLLM,
    item,
    option_set,
    run_selection_lane,
    run_semantic_lane,
    state_with,
)

from controller.continuity.degradation import (
    FALLBACK_REASONS,
    MATRIX,
    condition_for_llm_error,
    degrade,
)
from controller.continuity.requests import returns
from controller.continuity.selection import SelectionEnrichment
from controller.continuity.semantic import SemanticEnrichment
from controller.continuity.semantic_evidence import ScopedSnapshot
from helix.core.config import ContinuitySettings
from helix.core.errors import (
    LLMAuthError,
    LLMEmptyError,
    LLMError,
    LLMRateLimitError,
    LLMTimeoutError,
    LLMTransportError,
)

ON = ContinuitySettings()
PHASE_C = ContinuitySettings(phase_c_auto_execute=True)
EVIDENCE = option_set("os1", EVIDENCE_ITEMS)
UNRESOLVED = "open the one about ranking"  # no deterministic winner in EVIDENCE
NEED_MORE = json.dumps({"decision": "need_more_info"})
ENTITY_SNAP = ScopedSnapshot(source_type="active_widget_snapshot", source_id="w1",
                             scope="evidence", text="summary155 is the nightly roll-up.",
                             timestamp=NOW_MS - MINUTE_MS)

ERRORS: list[tuple[LLMError, str]] = [
    (LLMTimeoutError("slow"), "timeout"),
    (LLMRateLimitError("429"), "rate_limited"),
    (LLMTransportError("502"), "transport_error"),
    (LLMAuthError("401"), "transport_error"),
    (LLMEmptyError("empty"), "abstain"),
]


def _no_action(decision) -> None:  # type: ignore[no-untyped-def]
    m = decision.mutations
    assert m.last_resolved_action is None and m.push_trace is None and m.accept_choice_id is None


def test_matrix_is_the_canonical_table() -> None:
    """Every condition, both lanes: a clarifier with the canonical reason, never an action,
    never a retry; selection clarifies in the active context, semantic packs one clarifier."""
    assert len(MATRIX) == 14
    assert {d.reason for d in MATRIX.values()} == set(FALLBACK_REASONS)
    for (condition, lane), d in MATRIX.items():
        assert d.condition == condition and d.lane == lane
        assert d.executes is False and d.retry_allowed is False
        assert d.clarifier == ("safe_clarifier" if lane == "selection"
                               else "packed_grounded_clarifier")
        assert d.in_active_context == (lane == "selection")
    assert degrade("fingerprint_unchanged", "semantic").reason == "no_new_evidence"
    assert degrade("budget_exhausted", "selection").reason == "budget_exhausted"


@pytest.mark.parametrize("exc,reason", ERRORS)
def test_llm_error_maps_to_reason(exc: LLMError, reason: str) -> None:
    assert condition_for_llm_error(exc) == reason


@pytest.mark.parametrize("exc,reason", ERRORS)
def test_selection_lane_llm_failure_is_a_safe_clarifier_in_active_context(
        exc: LLMError, reason: str) -> None:
    """Timeout / 429 / transport error / abstain -> safe clarifier in the active context."""
    llm = FakeLLM(exc)
    d = run_selection_lane(UNRESOLVED, state_with(EVIDENCE), PHASE_C, now_ms=NOW_MS, llm=llm,
                           model="m")
    assert d.kind == "clarify" and d.fallback_reason == reason and d.candidate is None
    assert d.option_set_id == "os1" and {o.id for o in d.options} <= {"e1", "e2", "e3", "e4"}
    assert len(llm.calls) == 1
    _no_action(d)


@pytest.mark.parametrize("reply,reason", [
    ("I am not sure", "abstain"),
    (json.dumps({"decision": "abstain"}), "abstain"),
    (json.dumps({"decision": "select", "choice_id": "e1", "confidence": 0.3}), "low_confidence"),
])
def test_selection_lane_abstain_and_low_confidence(reply: str, reason: str) -> None:
    d = run_selection_lane(UNRESOLVED, state_with(EVIDENCE), PHASE_C, now_ms=NOW_MS,
                           llm=FakeLLM(reply), model="m")
    assert d.kind == "clarify" and d.fallback_reason == reason
    _no_action(d)


@pytest.mark.parametrize("exc,reason", ERRORS)
def test_semantic_lane_llm_failure_is_a_packed_grounded_clarifier(
        exc: LLMError, reason: str) -> None:
    d = run_semantic_lane("what does summary155 mean?", state_with(EVIDENCE), ON,
                          now_ms=NOW_MS, snapshots=[ENTITY_SNAP], llm=FakeLLM(exc), model="m")
    assert d.kind == "clarify" and d.fallback_reason == reason
    assert d.clarifier is not None and d.clarifier.options  # grounded: shows the evidence
    assert [e.name for e in d.events].count("semantic_followup_single_clarifier_asked") == 1


@pytest.mark.parametrize("reply,reason", [
    (json.dumps({"answer": "", "confidence": 0}), "abstain"),
    ("ABSTAIN", "abstain"),
    (json.dumps({"answer": "maybe a roll-up", "confidence": 0.2}), "low_confidence"),
])
def test_semantic_lane_abstain_and_low_confidence(reply: str, reason: str) -> None:
    d = run_semantic_lane("what does summary155 mean?", state_with(EVIDENCE), ON,
                          now_ms=NOW_MS, snapshots=[ENTITY_SNAP], llm=FakeLLM(reply), model="m")
    assert d.kind == "clarify" and d.fallback_reason == reason and d.answer == ""


class _Same:
    def enrich(self, *args):  # type: ignore[no-untyped-def]
        return returns(SelectionEnrichment())


class _SemSame:
    def enrich(self, *args):  # type: ignore[no-untyped-def]
        return returns(SemanticEnrichment())


class _SemNoise:
    def __init__(self) -> None:
        self.n = 0

    def enrich(self, *args):  # type: ignore[no-untyped-def]
        self.n += 1
        return returns(SemanticEnrichment(snapshots=(ENTITY_SNAP.model_copy(update={
            "source_id": f"n{self.n}", "text": f"unrelated {self.n}"}),)))


class _SelRefresh:
    def enrich(self, types, option_set, pool):  # type: ignore[no-untyped-def]
        return returns(SelectionEnrichment(
            items=tuple(i.model_copy(update={"sublabel": "fresh"}) for i in pool)))


# --- umbrella contract, Step 6 blockers -----------------------------------------------------

def test_umbrella_blocker_1_open_sample2_pls_resolves_without_repeated_clarifier() -> None:
    """`open the sample2 pls` resolves without repeated clarifier when unique safe winner
    exists."""
    samples = option_set("os-s", SAMPLE_ITEMS, kind="options", scope="options")
    llm = FakeLLM()
    d = run_selection_lane("open the sample2 pls", state_with(samples), ON, now_ms=NOW_MS,
                           llm=llm, model="m")
    assert d.kind == "execute" and d.candidate.id == "s2" and llm.calls == []


def test_umbrella_blocker_2_true_ambiguity_still_clarifies() -> None:
    """True ambiguity still clarifies."""
    two = option_set("os2", (item(1, "a", "tests/a.py: t", "tests/a.py"),
                             item(2, "b", "tests/b.py: t", "tests/b.py")))
    d = run_selection_lane("open the test one", state_with(two), PHASE_C, now_ms=NOW_MS)
    assert d.kind == "clarify" and len(d.options) == 2


def test_umbrella_blocker_3_stale_continuity_does_not_force_old_winner() -> None:
    """Stale continuity (`activeOptionSetId` changed) does not force old winner."""
    new = option_set("os2", (item(1, "n1", "a.py: a", "a.py"), item(2, "n2", "b.py: b", "b.py")),
                     turn=3)
    state = state_with(EVIDENCE, new, active="os2", turn_count=3, last_accepted_choice_id="e2")
    d = run_selection_lane("open tokenize.py", state, ON, now_ms=NOW_MS)
    assert d.kind == "clarify" and d.candidate is None and d.option_set_id == "os2"


def test_umbrella_blocker_4_question_intent_and_stop_cancel_escape() -> None:
    """Question-intent and stop/cancel still escape correctly."""
    state = state_with(EVIDENCE)
    for text, reason in (("stop", "hard_interrupt"), ("cancel", "hard_interrupt"),
                         ("what is the second one?", "question_intent")):
        d = run_selection_lane(text, state, ON, now_ms=NOW_MS)
        assert (d.kind, d.reason) == ("escape", reason)
    assert run_semantic_lane("stop", state, ON, now_ms=NOW_MS).kind == "escape"


def test_umbrella_blocker_5_no_execution_outside_bounded_candidates() -> None:
    """No execution outside bounded candidates."""
    llm = FakeLLM(json.dumps({"decision": "select", "choice_id": "zzz", "confidence": 1.0}))
    d = run_selection_lane(UNRESOLVED, state_with(EVIDENCE), PHASE_C, now_ms=NOW_MS, llm=llm,
                           model="m")
    assert d.kind == "clarify" and d.candidate is None
    d = run_selection_lane("open the ninth one", state_with(EVIDENCE), PHASE_C, now_ms=NOW_MS)
    assert d.kind == "clarify" and d.candidate is None


@pytest.mark.parametrize("lane", ["selection", "semantic"])
def test_umbrella_blocker_6_unchanged_fingerprint_blocks_retry(lane: str) -> None:
    """Unchanged `evidenceFingerprint` blocks retry and falls back to grounded clarifier."""
    if lane == "selection":
        llm = FakeLLM(NEED_MORE, NEED_MORE)
        d = run_selection_lane(UNRESOLVED, state_with(EVIDENCE), ON, now_ms=NOW_MS, llm=llm,
                               model="m", enricher=_Same())
        assert len(llm.calls) == 1 and d.options
    else:
        d = run_semantic_lane("what does summary155 mean?", state_with(EVIDENCE), ON,
                              now_ms=NOW_MS, enricher=_SemSame())
    assert d.kind == "clarify" and d.fallback_reason == "no_new_evidence"


@pytest.mark.parametrize("lane", ["selection", "semantic"])
def test_umbrella_blocker_7_budget_exhausted_blocks_further_retry(lane: str) -> None:
    """Enrichment budget exhausted blocks further retry and falls back deterministically."""
    if lane == "selection":
        llm = FakeLLM(NEED_MORE, NEED_MORE)
        d = run_selection_lane(UNRESOLVED, state_with(EVIDENCE), ON, now_ms=NOW_MS, llm=llm,
                               model="m", enricher=_SelRefresh())
        assert len(llm.calls) == 2
        again = run_selection_lane(UNRESOLVED, state_with(EVIDENCE), ON, now_ms=NOW_MS,
                                   llm=FakeLLM(NEED_MORE, NEED_MORE), model="m",
                                   enricher=_SelRefresh())
        assert again == d  # deterministic fallback
    else:
        d = run_semantic_lane("what does summary155 mean?", state_with(EVIDENCE), ON,
                              now_ms=NOW_MS, enricher=_SemNoise())
    assert d.kind == "clarify" and d.fallback_reason == "budget_exhausted"
