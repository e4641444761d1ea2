"""A command to show a thing no listed item or the object in focus is called by (issue 32,
router23): "show me the pie chart of cavity sizes", "Open the Makefile target that runs its
tests", "Show me the coverage report of these tests" over a list of code and documents. The
thing was never shown: a boundary (T10) that says so, not a pick for the lane to ask about
(any word of the message that a label shared made it one: "cavity" in "cavity sizes"). Seven
tune files had such turns."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, indexed_copy


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


ASKED = "how does carve pick a cavity"


@pytest.mark.parametrize("command", ["can you show me the pie chart of cavity sizes",
                                     "Show me the coverage report of these tests.",
                                     "Open the Makefile target that runs its tests.",
                                     "show me the yaml config for the pool"])
def test_a_thing_never_shown_is_a_boundary(repo, command):
    talk = Talk(repo)
    talk(ASKED)
    turn = talk(command)
    assert (turn.transition, turn.lane) == ("T10", "selection")
    assert "shows no" in turn.answer


@pytest.mark.parametrize("command", ["show me the carve code", "open the class",
                                     "Could you open the section on carving, please?",
                                     "open the cavity pool docs", "opne the resontor"])
def test_a_command_naming_something_listed_or_a_kind_of_item_is_no_such_thing(repo, command):
    talk = Talk(repo)
    talk(ASKED)
    turn = talk(command)
    assert "shows no" not in turn.answer
