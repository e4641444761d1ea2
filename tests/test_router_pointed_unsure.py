"""A pointed follow-up on the object in focus read at a low probability (issue 32, router26b):
"so which tests touch that one?" after an item was opened is a graph follow-up on it (T4) when
the classifier reads a graph question at 0.3, since its "that" says what it is about; the head
spreads its probability over the look-alike readings of short or oddly worded pointed questions
("the user wants the tests for it", "which tests cover that?"), and at the old bar (0.35) they
became new searches for their own words. A question with no pointer, or nothing in focus, keeps
the rescue bar."""

from __future__ import annotations

import pytest
from test_router_objects import ON, TARGETS, _state

from controller.continuity.meaning import Features
from controller.continuity.router import route_turn
from controller.continuity.turn_plan import Reading

UNSURE = 0.3


def _reader(meaning: str):
    def reader(f: Features) -> Reading:
        return Reading(meaning=meaning, confidence=UNSURE,
                       alternatives=(("new_question", 0.25), ("narrow", 0.2)))
    return reader


@pytest.mark.parametrize("text,meaning,lane", [
    ("so which tests touch that one?", "tests", "graph"),
    ("the reviewer wants to know what calls it", "callers", "graph"),
    ("why does that loop stop early", "explain", "explain"),
])
def test_an_unsure_pointed_reading_acts_on_the_object_in_focus(text, meaning, lane):
    plan = route_turn(_state(focus=2), text, None, ON, reader=_reader(meaning))
    assert (plan.transition, plan.lane) == ("T4", lane)
    assert plan.target is not None and plan.target.id == TARGETS[1].id


def test_the_same_reading_without_a_pointer_stays_a_new_question():
    plan = route_turn(_state(focus=2), "which tests touch the upload retry queue in the "
                      "whole repository?", None, ON, reader=_reader("tests"))
    assert plan.transition == "T1"


def test_nothing_in_focus_keeps_the_rescue_bar():
    plan = route_turn(_state(focus=None), "so which tests touch that one?", None, ON,
                      reader=_reader("tests"))
    assert plan.transition != "T4"
