"""Issue 32's semantic-lane and state items, each as a real session (dry run, no network):
a meaning question that names its entity, a source-cued meaning question, a pending selection
clarifier that keeps the semantic lane out, "open it" after a semantic answer, the packed
clarifier's pendingClarifierType, and the continuity A/B gates on clarifier rate and p95."""

from __future__ import annotations

from pathlib import Path

import pytest
from retry_fixture import RETRIES_MD, RETRY_PY
from talk_fixtures import Q, Talk, copy_fixture

from evals.gates import evaluate_gates
from evals.runner import RunResult, SuiteResult

ASKED = "where is the retry policy decided?"


@pytest.fixture
def retry_repo(tmp_path: Path) -> Path:
    root = tmp_path / "retry"
    (root / "src").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "src" / "retry.py").write_text(RETRY_PY, encoding="utf-8")
    (root / "docs" / "retries.md").write_text(RETRIES_MD, encoding="utf-8")
    return root


def test_a_meaning_question_that_names_its_entity_is_answered_not_asked_back(retry_repo):
    talk = Talk(retry_repo)
    talk(ASKED)
    turn = talk("what's backoff_seconds mean?")
    assert (turn.lane, turn.transition, turn.answer_mode) == ("semantic", "T8", "continuity")
    assert "def backoff_seconds" in turn.answer and "which name" not in turn.answer


@pytest.mark.parametrize("asked", ["what is backoff_seconds supposed to mean",
                                   "meaning of backoff_seconds?"])
def test_other_wordings_of_a_named_meaning_question_are_answered(retry_repo, asked):
    talk = Talk(retry_repo)
    talk(ASKED)
    turn = talk(asked)
    assert (turn.lane, turn.transition, turn.answer_mode) == ("semantic", "T8", "continuity")
    assert "def backoff_seconds" in turn.answer and turn.opened is None


@pytest.mark.parametrize("asked", ["based on the answer, explain what decide_retry means",
                                   "from your answer, what does decide_retry mean?"])
def test_other_source_cues_explain_instead_of_opening_or_searching(retry_repo, asked):
    talk = Talk(retry_repo)
    talk(ASKED)
    turn = talk(asked)
    assert (turn.lane, turn.transition, turn.intent) == ("semantic", "T8",
                                                         "explain_entity_meaning")
    assert turn.opened is None and "def decide_retry" in turn.answer


def test_a_source_cued_meaning_question_explains_instead_of_opening(retry_repo):
    talk = Talk(retry_repo)
    talk(ASKED)
    turn = talk("from the answer, explain what decide_retry means")
    assert (turn.lane, turn.transition, turn.intent) == ("semantic", "T8",
                                                         "explain_entity_meaning")
    assert turn.opened is None and "def decide_retry" in turn.answer


def test_a_pending_selection_clarifier_keeps_the_semantic_lane_out(tmp_path):
    talk = Talk(copy_fixture(tmp_path))
    talk(Q)
    asked = talk("open the bm25 one")
    assert asked.answer_mode == "clarify" and talk.state().pending_clarifier_type == \
        "selection_disambiguation"
    turn = talk("what does BM25Index mean?")
    # the selection ladder keeps the turn: the choice is asked again, nothing explained
    assert turn.lane == "selection" and turn.answer_mode == "clarify"
    assert "semantic_followup_handoff_to_selection_lane" in [e.name for e in turn.events]
    assert "Postings and statistics" not in turn.answer
    assert talk.state().pending_clarifier_type == "selection_disambiguation"
    opened = talk("the first")  # the pending choice still resolves
    assert opened.opened is not None and opened.opened.target.label == "BM25Index"


def test_open_it_after_a_semantic_answer_opens_what_it_explained(retry_repo):
    talk = Talk(retry_repo)
    talk(ASKED)
    talk("what's backoff_seconds mean?")
    turn = talk("open it")
    assert turn.answer_mode != "clarify", turn.answer
    assert turn.opened is not None and turn.opened.target.label == "backoff_seconds"


def test_a_packed_semantic_clarifier_sets_pending_clarifier_type(retry_repo):
    talk = Talk(retry_repo)
    # nothing answered or opened yet and no name: one packed clarifier (after a grounded answer
    # "it" is the item the answer led with: tests/test_answer_lead.py)
    turn = talk("what does it mean?")
    assert (turn.lane, turn.answer_mode) == ("semantic", "clarify")
    state = talk.state()
    assert state.pending_clarifier_type == "missing_slot"
    assert state.pending is not None and state.pending.kind == "slot_request"
    after = talk("where is backoff_seconds defined?")  # the next turn is routed afresh
    assert after.transition == "T1"
    assert talk.state().pending_clarifier_type == "none"


def _continuity_run(label: str, modes: list[str], ms: float) -> RunResult:
    rows = [{"turn": i, "passed": True, "retries": 0, "unchanged_retries": 0,
             "answer_mode": mode, "time_ms": ms} for i, mode in enumerate(modes, start=1)]
    suite = SuiteResult(name="continuity/T3", kind="continuity", continuity={
        "cases": [{"id": "c1", "passed": True, "per_turn": rows}], "by_class": {}})
    return RunResult(label=label, overrides={}, config_hash="sha256:x", no_embed=True,
                     suites=(suite,))


def test_continuity_ab_runs_are_gated_on_clarifier_rate_and_p95():
    base = _continuity_run("base", ["continuity"] * 9 + ["clarify"], ms=100.0)
    chatty = evaluate_gates(base, _continuity_run("c", ["continuity"] * 8 + ["clarify"] * 2,
                                                  ms=100.0))
    assert chatty.decision == "rollback"
    assert [g.metric for g in chatty.gates if not g.passed] == ["clarifier_rate (continuity)"]
    slow = evaluate_gates(base, _continuity_run("s", ["continuity"] * 9 + ["clarify"],
                                                ms=400.0))
    assert [g.metric for g in slow.gates if not g.passed] == ["p95_ms (continuity)"]
    same = evaluate_gates(base, _continuity_run("same", ["continuity"] * 9 + ["clarify"],
                                                ms=300.0))
    assert same.decision == "hold"


def test_scenario_rows_carry_the_answer_mode_and_time(tmp_path, monkeypatch):
    from evals.scenarios import run_case
    from helix.core.config import load_config

    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    root = copy_fixture(tmp_path)
    case = {"id": "c", "turns": [{"text": "what is a cavity?"}]}
    row = run_case(case, root=root, config=load_config(root))["per_turn"][0]
    assert row["answer_mode"] == "clarify" and row["time_ms"] > 0
