"""'position' names an entry of a list (router25b, issue 32): "then the first position" was read
as a thing the list never showed ("the list on screen shows no position", T10), and "position
two" named no position (a number word counts only after a list noun)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, indexed_copy
from test_meaning_router import ReaderTalk

from controller.continuity.meaning import ordinals_in


def test_a_number_word_after_position_is_a_position() -> None:
    assert ordinals_in("position two please") == [2]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


def test_the_second_position_opens_item_two(repo: Path) -> None:
    talk = ReaderTalk(repo)
    asked = talk(Q)
    assert asked.shown is not None
    turn = talk("alright, then the second position")
    assert (turn.transition, turn.lane, turn.intent) == ("T3", "selection", "select_item")
    assert turn.opened is not None
    assert turn.opened.target.id == asked.shown.items[1].target.id
