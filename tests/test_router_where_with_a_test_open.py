"""A "where" question with a test open (issue 32, router28c): the test is on screen, so "where
is that implemented in the queue module?" asks where another thing (the conversation's subject)
is defined or found: a new root question (T1), not the test's callers nor its explanation, even
when the classifier reads it as a graph question on the focus. Questions about the test itself
keep last round's reading (its explanation); a "where" question with code in focus is unchanged.
Pure: the reading is given (state and reader: tests/test_router_graph_on_a_test.py's)."""

from __future__ import annotations

import pytest
from test_router_graph_on_a_test import ON, TARGETS, _reader, _state

from controller.continuity.router import route_turn


@pytest.mark.parametrize("focus", [1, 2])
@pytest.mark.parametrize("text", [
    "where is that implemented in the queue module?",
    "and where does it live in the upload code",
    "where can I find it in the source",
])
@pytest.mark.parametrize("meaning", ["callers", "tests"])
def test_a_where_question_with_a_test_open_is_a_new_question(focus, text, meaning):
    plan = route_turn(_state(focus), text, None, ON, reader=_reader(meaning, 0.75, "explain", 0.2))
    assert (plan.transition, plan.lane, plan.intent) == ("T1", "root", "root_question")


@pytest.mark.parametrize("text", ["what is that test making sure of?",
                                  "what does this one assert, really"])
def test_a_question_about_the_open_test_is_still_its_explanation(text):
    plan = route_turn(_state(1), text, None, ON, reader=_reader("callers", 0.75, "explain", 0.2))
    assert (plan.transition, plan.lane, plan.intent) == ("T4", "explain", "explain_focused")


def test_a_where_question_read_as_a_graph_question_on_code_stays_one():
    plan = route_turn(_state(4), "where is it used?", None, ON,
                      reader=_reader("callers", 0.75, "explain", 0.2))
    assert (plan.transition, plan.lane) == ("T4", "graph")
    assert plan.target is not None and plan.target.id == TARGETS[3].id
