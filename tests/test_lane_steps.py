"""Continuity lanes are pure steps: they yield requests and return outcomes; the session's driver
(`helix.session.lane_driver.LanePorts`) is the only place their I/O happens.

These tests drive the lanes with scripted results and no port at all: what a lane asks for, and
what it makes of the answer, follow from its inputs alone."""

from __future__ import annotations

from typing import Any

import pytest
from controller_helpers import ask, files_index
from lane_fixtures import EVIDENCE_ITEMS, NOW_MS, option_set, state_with

from controller.continuity.lanes import TurnContext, execute
from controller.continuity.requests import (
    LoadGraph,
    ModelCall,
    OpenSpan,
    Request,
    Retrieve,
    drive,
)
from controller.continuity.router import route_turn
from controller.continuity.selection import selection_steps
from controller.continuity.state import ContinuityState, CoverageGateState, initial_state
from helix.core.config import ContinuitySettings, HelixConfig
from helix.core.errors import BadPathError, HelixError, LLMTimeoutError

SETTINGS = ContinuitySettings()
GROUNDED = CoverageGateState(coverage_status="full", evidence_grade=1.0,  # its list carries over
                             grounding_status="grounded", truth_mode="confirmed",
                             carryover_eligibility="full")
FILES = {"search/bm25.py": "def build_bm25_index(docs):\n    \"\"\"Build the index.\"\"\"\n"
                           "    return sorted(docs)\n",
         "docs/search.md": "# Search\n\nThe BM25 index is built by build_bm25_index.\n"}


def _context(text: str, state: ContinuityState | None = None,
             models: dict[str, str] | None = None) -> TurnContext:
    state = state or initial_state("s1")
    plan = route_turn(state, text, None, SETTINGS, now_ms=NOW_MS)
    return TurnContext(plan=plan, state=state, turns=(), turn_id=state.turn_count + 1,
                       now_ms=NOW_MS, repo_name="repo", config=HelixConfig(),
                       session_id=state.session_id, lane_models=models or {})  # type: ignore[arg-type]


def _scripted(answers: dict[type, Any]) -> tuple[list[Request], Any]:
    """A performer answering each kind of request from `answers` (an exception is raised at
    the lane's yield), and the list of requests it saw."""
    seen: list[Request] = []

    def perform(request: Request) -> Any:
        seen.append(request)
        answer = answers[type(request)]
        if isinstance(answer, BaseException):
            raise answer
        return answer(request) if callable(answer) else answer

    return seen, perform


def test_a_root_question_asks_the_controller_once_and_builds_its_turn_from_the_answer() -> None:
    envelope = ask(files_index(FILES), "where is the BM25 index built?")
    seen, perform = _scripted({Retrieve: envelope})
    out = drive(execute(_context("where is the BM25 index built?")), perform)
    assert seen == [Retrieve("where is the BM25 index built?", None, None)]
    assert out.transition == "T1" and out.envelope is envelope
    assert out.answer == envelope.answer and out.shown is not None


def test_a_failure_raised_at_the_yield_is_the_lanes_to_handle() -> None:
    seen, perform = _scripted({Retrieve: HelixError("index locked")})
    out = drive(execute(_context("where is the BM25 index built?")), perform)
    assert len(seen) == 1 and out.transition == "T10"
    assert "the question could not run (index locked)" in out.answer


def test_what_a_lane_cannot_handle_propagates() -> None:
    _seen, perform = _scripted({Retrieve: KeyError("bug")})
    with pytest.raises(KeyError):
        drive(execute(_context("where is the BM25 index built?")), perform)


def test_small_talk_asks_a_model_only_when_one_is_configured() -> None:
    seen, perform = _scripted({ModelCall: "Hi there!"})
    plain = drive(execute(_context("hello")), perform)
    assert seen == [] and plain.answer.startswith("Hello!")
    written = drive(execute(_context("hello", models={"small_talk": "fake/chat"})), perform)
    assert [type(r) for r in seen] == [ModelCall] and seen[0].purpose == "small_talk"
    assert written.answer == "Hi there!" and "model fake/chat" in written.reasons
    seen2, failing = _scripted({ModelCall: LLMTimeoutError("slow")})
    degraded = drive(execute(_context("hello", models={"small_talk": "fake/chat"})), failing)
    assert degraded.answer.startswith("Hello!") and len(seen2) == 1


def test_opening_an_item_reads_its_span_through_a_request() -> None:
    state = state_with(option_set("os1", EVIDENCE_ITEMS), coverage_gate_state=GROUNDED)
    def span(request: OpenSpan) -> Any:
        assert request.target == EVIDENCE_ITEMS[1].target
        raise BadPathError("cannot open it: not a file inside the repository")

    seen, perform = _scripted({OpenSpan: span})
    out = drive(execute(_context("open the second one", state)), perform)
    assert [type(r) for r in seen] == [OpenSpan]
    assert out.transition == "T10" and "not a file inside" in out.answer


def test_a_graph_follow_up_asks_for_the_graph() -> None:
    state = state_with(option_set("os1", EVIDENCE_ITEMS), coverage_gate_state=GROUNDED)
    seen, perform = _scripted({LoadGraph: HelixError("no index yet")})
    out = drive(execute(_context("who calls the second one?", state)), perform)
    assert [type(r) for r in seen] == [LoadGraph]
    assert "the index graph is not available (no index yet)" in out.answer


def test_the_selection_lane_decides_the_same_on_the_same_reply() -> None:
    """The advisory call is a request; the same reply gives the same decision, twice."""
    state = state_with(option_set("os1", EVIDENCE_ITEMS), coverage_gate_state=GROUNDED)
    pick = EVIDENCE_ITEMS[2].id
    reply = f'{{"decision": "select", "choice_id": "{pick}", "confidence": 0.95}}'
    decisions = []
    for _ in range(2):
        seen, perform = _scripted({ModelCall: reply})
        decisions.append(drive(selection_steps("open the one about ranking", state, SETTINGS,
                                               now_ms=NOW_MS, model_ready=True), perform))
        assert [(type(r), r.purpose) for r in seen if isinstance(r, ModelCall)] == [
            (ModelCall, "selection_advisory")]
    assert decisions[0] == decisions[1] and decisions[0].llm_calls == 1
    without = drive(selection_steps("open the one about ranking", state, SETTINGS,
                                    now_ms=NOW_MS), _scripted({})[1])
    assert without.reason == "llm_unavailable"  # no model configured: no request at all


def test_a_search_that_finds_nothing_leaves_the_earlier_answers_gate() -> None:
    # router18: the list and answer on screen are still the earlier root's; a new question
    # that found nothing must not judge them ("2" was refused as if turn 1 found nothing)
    from controller.continuity.state import AddressNavigationState, RootFrameState

    partial = CoverageGateState(coverage_status="partial", evidence_grade=0.5,
                                grounding_status="ungrounded", truth_mode="unsupported",
                                carryover_eligibility="object_only")
    frame = RootFrameState(question="where is the index built?", domain_id="search",
                           root_route_id="location", path_scope=None, revision="r",
                           root_result_set_id="ev-1", root_answer_object_ref=1)
    earlier = state_with(option_set("os1", EVIDENCE_ITEMS), coverage_gate_state=partial,
                         address_navigation_state=AddressNavigationState(root_frame=frame))
    empty = ask(files_index(FILES), "zyzzyva quuxplonk frobnitz")
    assert not empty.evidence and empty.clarify is None
    _seen, perform = _scripted({Retrieve: empty})
    out = drive(execute(_context("where is the zyzzyva quuxplonk frobnitz?", earlier)), perform)
    assert out.transition == "T10" and "coverage_gate" not in out.updates
    # with no earlier root, the gate records that nothing was found
    first = drive(execute(_context("where is the zyzzyva quuxplonk frobnitz?")), perform)
    assert first.updates["coverage_gate"].carryover_eligibility == "meta_only"
