"""A word that sounds like a number after 'one' is no position (router25b, issue 32): the
dictation reading ("number to", "option won", "entry for" = entry 4) took "one" for a list noun
too, so "show that one again for me" named item 4 and "the storage one too" item 2
(`meaning.ordinals_in`; `item_names.item_position` already left 'one' out)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, indexed_copy
from test_meaning_router import ReaderTalk

from controller.continuity.meaning import ordinals_in


@pytest.mark.parametrize("said", ["bring that one for me", "the docs one too",
                                  "this one to the top"])
def test_a_sound_alike_after_one_is_no_position(said: str) -> None:
    assert ordinals_in(said) == []


@pytest.mark.parametrize(("said", "position"), [("entry for", 4), ("option won", 1),
                                                ("open the third one for me", 3)])
def test_dictated_positions_still_read(said: str, position: int) -> None:
    assert ordinals_in(said) == [position]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


def test_showing_that_one_for_me_again_is_the_focus_again(repo: Path) -> None:
    talk = ReaderTalk(repo)
    talk(Q)
    assert talk("open 2").opened is not None
    turn = talk("show that one for me again")
    assert (turn.transition, turn.intent) == ("T5", "select_focused")
