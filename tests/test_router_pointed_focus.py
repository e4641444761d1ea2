"""A capability asked in a full question that points back at the object in focus (issue 32,
router24b): "and is that covered by any test at all? asking for the release notes" after the
user opened an item reads as a graph follow-up on it (T4) at a lower probability than a new
question needs (`router.RESCUE_POINTED`), since its pronoun or "that" says what it is about;
the same reading of a question that names no pointer stays a new question (T1). On main the
pointed question needed the rescue bar (0.45) and became a new search for its own words."""

from __future__ import annotations

import pytest
from test_router_objects import ON, TARGETS, _state

from controller.continuity.meaning import Features
from controller.continuity.router import route_turn
from controller.continuity.turn_plan import Reading


def _unsure(meaning: str, p: float = 0.4):
    def reader(f: Features) -> Reading:
        return Reading(meaning=meaning, confidence=p,
                       alternatives=(("new_question", 0.3), ("meta", 0.2)))
    return reader


@pytest.mark.parametrize("text,meaning,lane", [
    ("and is that covered by any test at all? asking for the release notes", "tests", "graph"),
    ("does anything in the other packages call this, before I rename it?", "callers", "graph"),
    ("how does it handle an empty document, in plain words please?", "explain",
     "explain"),
])
def test_a_pointed_question_acts_on_the_object_in_focus(text, meaning, lane):
    plan = route_turn(_state(focus=2), text, None, ON, reader=_unsure(meaning))
    assert (plan.transition, plan.lane) == ("T4", lane)
    assert plan.target is not None and plan.target.id == TARGETS[1].id


def test_the_same_reading_of_a_question_with_no_pointer_stays_a_new_question():
    text = "which test covers the retry policy of the uploader module, in the whole repo?"
    plan = route_turn(_state(focus=2), text, None, ON, reader=_unsure("tests"))
    assert plan.transition == "T1"


def test_nothing_in_focus_keeps_the_rescue_bar():
    text = "and is that covered by any test at all? asking for the release notes"
    plan = route_turn(_state(focus=None), text, None, ON, reader=_unsure("tests"))
    assert plan.transition != "T4"
