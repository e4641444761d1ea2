"""A tool's way of pointing at the object in focus (issue 32, router27c): an agent or editor
plugin says "it" as a target given as the current or focused one (`usages_of(target=current)`,
`{"op": "dependents", "target": "focus"}`) or as "the selected function". Such a message points
back at the object in focus like a pronoun does: a graph or explain reading of it acts on that
object (T4), at the pointed bar. Before, the operation's snake_case name ("usages_of") read as
another thing named in code, so a sure graph reading (0.6) still became a new search. A message
whose target is another thing by name keeps that bar; with nothing in focus it is no T4."""

from __future__ import annotations

import pytest
from test_router_objects import ON, TARGETS, _state

from controller.continuity.meaning import Features
from controller.continuity.router import route_turn
from controller.continuity.turn_plan import Reading


def _reader(meaning: str, confidence: float):
    def reader(f: Features) -> Reading:
        return Reading(meaning=meaning, confidence=confidence,
                       alternatives=(("new_question", 0.2), ("pick", 0.1)))
    return reader


@pytest.mark.parametrize("text,meaning,lane,confidence", [
    ("usages_of(target=current)", "callers", "graph", 0.6),
    ('{"op": "covering_tests", "target": "focus"}', "tests", "graph", 0.6),
    ("op=describe_logic target=current depth=full", "explain", "explain", 0.6),
    ("agent_step: list every caller of the selected method", "callers", "graph", 0.3),
    ("[editor_bot] walk_through the focused function", "explain", "explain", 0.3),
])
def test_a_target_given_as_the_focused_one_acts_on_the_object_in_focus(
        text, meaning, lane, confidence):
    plan = route_turn(_state(focus=2), text, None, ON, reader=_reader(meaning, confidence))
    assert (plan.transition, plan.lane) == ("T4", lane)
    assert plan.target is not None and plan.target.id == TARGETS[1].id


def test_a_target_named_as_another_thing_stays_a_new_question():
    plan = route_turn(_state(focus=2), "usages_of(target=retry_queue_flush)", None, ON,
                      reader=_reader("callers", 0.6))
    assert plan.transition == "T1"


def test_nothing_in_focus_is_no_short_action():
    plan = route_turn(_state(focus=None), "usages_of(target=current)", None, ON,
                      reader=_reader("callers", 0.3))
    assert plan.transition != "T4"
