"""A code name the answered question asked about (issue 32, router28c): after "what is
max_attempts for?" the answer's object is the one in focus, so "who reads max_attempts" asks
about it (a short action on the selected object, T4), not about another thing: the name does not
raise the bar the classifier's reading must clear (`router_phrase`) as a name the conversation
never asked about does ("who reads upload_deadline": a new question, T1, never acted on the
focus). Pure: the reading is given (state and reader: tests/test_router_graph_on_a_test.py's)."""

from __future__ import annotations

import pytest
from test_router_graph_on_a_test import ON, TARGETS, _reader, _state

from controller.continuity.router import route_turn

ASKED = "what is max_attempts for in the upload queue?"


def _asked(question: str):
    state = _state(4)
    nav = state.address_navigation_state
    frame = nav.root_frame.model_copy(update={"question": question})
    return state.model_copy(update={"address_navigation_state": nav.model_copy(
        update={"root_frame": frame})})


@pytest.mark.parametrize("text,meaning,lane", [
    ("who reads max_attempts", "callers", "graph"),
    ("which tests touch max_attempts?", "tests", "graph"),
    ("explain max_attempts, briefly", "explain", "explain"),
])
def test_a_name_the_question_asked_about_is_the_focus(text, meaning, lane):
    plan = route_turn(_asked(ASKED), text, None, ON, reader=_reader(meaning, 0.6, "pick", 0.2))
    assert (plan.transition, plan.lane) == ("T4", lane)
    assert plan.target is not None and plan.target.id == TARGETS[3].id


@pytest.mark.parametrize("text", ["who reads upload_deadline", "explain upload_deadline"])
def test_a_name_the_conversation_never_asked_about_is_a_new_question(text):
    plan = route_turn(_asked(ASKED), text, None, ON,
                      reader=_reader("callers", 0.6, "explain", 0.2))
    assert (plan.transition, plan.lane) == ("T1", "root")
