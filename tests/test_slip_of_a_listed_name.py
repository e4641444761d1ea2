"""A command naming a listed entry with a slip ("open the engnie one") is a pick of the list on
screen (T3), not a thing never shown (issue 32, router28b): on main `unshown_thing` compared the
typed word only, found no "engn" among the listed names and answered with a boundary ("the list
on screen shows no engnie one"); the word as the router respells it names search/engine.py.
A thing no listed entry has stays a boundary. Real sessions over the continuity fixture."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, indexed_copy

pytestmark = pytest.mark.usefixtures("cached_builds")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


def test_a_slip_of_a_listed_file_name_is_a_pick(repo):
    talk = Talk(repo)
    first = talk("where is the search engine class?")
    assert first.shown is not None
    assert any("engine" in (i.target.path or "") for i in first.shown.items)
    turn = talk("open the engnie one")
    assert (turn.transition, turn.lane) == ("T3", "selection"), turn.answer


def test_a_thing_no_entry_has_is_still_a_boundary(repo):
    talk = Talk(repo)
    talk("where is text tokenized?")
    turn = talk("show me the pie chart of token counts")
    assert turn.transition == "T10", turn.answer
