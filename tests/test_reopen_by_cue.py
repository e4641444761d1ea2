"""A request to show again the object in focus is that object shown again (T5) whatever the
reading made of it (router25b, issue 32): a show or re-show verb with a word of again, naming
nothing but the focused object, a kind or part of an item, or words saying it was shown before
("re-display the function body", "tool> show again", "display the previous snippet once
again"). Main took such turns for a new question, small talk, a cancel or a boundary when the
meaning router read them unsurely (controller.continuity.reopen)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, indexed_copy
from test_meaning_router import ReaderTalk


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


def _focused(repo: Path) -> ReaderTalk:
    talk = ReaderTalk(repo)
    talk(Q)
    opened = talk("open 2")
    assert opened.opened is not None
    return talk


@pytest.mark.parametrize("again", [
    "kindly display the relevant source once again",  # T10 on main
    "PLUGIN: reshow selected",  # T10 on main
    "BOT: redisplay previous result",  # small talk on main
    "okay, re-display the function body please",
    "brb, phone rang. display the previous snippet once again",
])
def test_showing_the_focus_again_is_t5(repo: Path, again: str) -> None:
    talk = _focused(repo)
    turn = talk(again)
    assert (turn.transition, turn.lane, turn.intent) == ("T5", "selection", "select_focused")


@pytest.mark.parametrize("other", [
    "same again but only the docs",  # the question again in a scope
    "why does it sort the scores again?",  # a question about it
])
def test_no_reopen_for_a_question_or_a_thing_never_shown(repo: Path, other: str) -> None:
    talk = _focused(repo)
    assert talk(other).transition != "T5"
