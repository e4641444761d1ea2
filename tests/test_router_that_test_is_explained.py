"""A question pointing at the focus as a test (issue 32, router28c): "what is that test making
sure of?" asks what it checks, whatever is in focus (a listed code object the user takes for
the test, a doc section): the graph reading the word "test" draws (callers, tests) is no
action on it, the explanation is (T4 explain), and two close readings, graph and explain,
need no clarifier. A question naming an edge of the graph stays a graph question.
Pure: the reading is given (state and reader: tests/test_router_graph_on_a_test.py's)."""

from __future__ import annotations

import pytest
from test_router_graph_on_a_test import ON, TARGETS, _reader, _state

from controller.continuity.router import route_turn
from controller.continuity.turn_plan import Reading


@pytest.mark.parametrize("text", [
    "so what is that test making sure of",
    "what are these tests checking for, exactly?",
    "this test: what does it guarantee",
])
@pytest.mark.parametrize("meaning", ["callers", "tests"])
def test_a_question_pointing_at_the_focus_as_a_test_is_its_explanation(text, meaning):
    plan = route_turn(_state(4), text, None, ON, reader=_reader(meaning, 0.75, "explain", 0.2))
    assert (plan.transition, plan.lane, plan.intent) == ("T4", "explain", "explain_focused")
    assert plan.target is not None and plan.target.id == TARGETS[3].id


def test_close_graph_and_explain_readings_of_it_ask_nothing():
    def reader(f):
        return Reading(meaning="callers", confidence=0.46,
                       alternatives=(("explain", 0.41), ("new_question", 0.13)))
    plan = route_turn(_state(4), "what exactly is that test asserting", None, ON, reader=reader)
    assert (plan.transition, plan.lane, plan.intent) == ("T4", "explain", "explain_focused")


@pytest.mark.parametrize("text", ["what does that test call into?",
                                  "which modules does this test import"])
def test_a_question_naming_a_graph_edge_stays_a_graph_question(text):
    plan = route_turn(_state(4), text, None, ON, reader=_reader("callers", 0.75, "explain", 0.2))
    assert (plan.transition, plan.lane) == ("T4", "graph")


@pytest.mark.parametrize("text", ["anything that tests this?", "is there code that tests it",
                                  "whatever tests the cache, show me"])
def test_that_as_a_relative_pronoun_before_the_verb_tests_is_no_pointer(text):
    """'that tests X' is a relative clause ('anything that tests this'): a graph question about
    the focus's tests (found by the lead: tests/test_pointing_after_ungrounded.py failed after
    the merge), not a pointer at the focus as a test."""
    plan = route_turn(_state(4), text, None, ON, reader=_reader("tests", 0.75, "explain", 0.2))
    assert (plan.transition, plan.lane) == ("T4", "graph")
