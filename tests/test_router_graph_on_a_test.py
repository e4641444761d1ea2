"""A graph reading of a question about an open test (issue 32, router27c): with a test in focus
(a test function, or a test file), "what is that test making sure of?" reads to the classifier
like a question about tests, but nothing calls, imports or tests a test (the test runner runs
it): the state rules the graph reading out and the question is read as the runner-up reading,
an explanation of the test (T4 explain). A graph question about a definition that is not a
test (a helper in a test file, the code under test), or one naming an edge of the graph ("what
does that test call?"), is unchanged. Pure: the reading is given."""

from __future__ import annotations

import pytest

from controller.continuity.meaning import Features
from controller.continuity.router import route_turn
from controller.continuity.state import TargetRef
from controller.continuity.turn_plan import Reading
from helix.core.config import ContinuitySettings
from tests.router_states import answered, focused

ON = ContinuitySettings()
SPEC = "spec/upload_spec.py"
TEST_FILE = "tests/test_upload_queue.py"
TARGETS = (
    TargetRef(kind="symbol", id=f"def:{TEST_FILE}::test_retry_gives_up_after_three",
              label="test_retry_gives_up_after_three", path=TEST_FILE, start_line=8,
              end_line=20, symbol="test_retry_gives_up_after_three"),
    TargetRef(kind="file", id=f"file:{TEST_FILE}", label=TEST_FILE, path=TEST_FILE),
    TargetRef(kind="symbol", id=f"def:{TEST_FILE}::make_fake_queue", label="make_fake_queue",
              path=TEST_FILE, start_line=1, end_line=6, symbol="make_fake_queue"),
    TargetRef(kind="symbol", id="def:upload/queue.py::UploadQueue.retry",
              label="UploadQueue.retry", path="upload/queue.py", start_line=30, end_line=52,
              symbol="UploadQueue.retry"),
)


def _state(focus: int):
    state = answered("how are failed uploads retried?", "upload", TARGETS, 4, "upload/queue.py")
    return focused(state, TARGETS[focus - 1])


def _reader(meaning: str, p: float, second: str, q: float):
    def reader(f: Features) -> Reading:
        return Reading(meaning=meaning, confidence=p,
                       alternatives=((second, q), ("new_question", round(1 - p - q, 2))))
    return reader


@pytest.mark.parametrize("focus,text,meaning", [
    (1, "what is that test making sure of?", "callers"),
    (1, "what does this one assert, really", "tests"),
    (2, "so what are these tests checking for", "tests"),
])
def test_a_graph_reading_of_a_question_about_an_open_test_is_its_explanation(
        focus, text, meaning):
    plan = route_turn(_state(focus), text, None, ON, reader=_reader(meaning, 0.75, "explain", 0.2))
    assert (plan.transition, plan.lane, plan.intent) == ("T4", "explain", "explain_focused")
    assert plan.target is not None and plan.target.id == TARGETS[focus - 1].id


@pytest.mark.parametrize("focus,text", [
    (3, "who calls it?"), (4, "who calls it?"),
    # what a test calls or imports is a graph question about it
    (1, "and which helpers does that test invoke?"), (2, "list what this file imports"),
])
def test_a_graph_question_about_code_or_naming_an_edge_stays_a_graph_question(focus, text):
    plan = route_turn(_state(focus), text, None, ON,
                      reader=_reader("callers", 0.75, "explain", 0.2))
    assert (plan.transition, plan.lane) == ("T4", "graph")
    assert plan.target is not None and plan.target.id == TARGETS[focus - 1].id
