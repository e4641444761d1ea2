"""A list position counted from the end in a sentence (router25b, issue 32): "the bottom one
looks good, open it", "the one at the very bottom", "the final result", "the second-to-last
entry". The meaning router read them as picks, but only a position counted from the start was
taken from a sentence (`number_named` keeps positive numbers), so the words were matched as a
name the list lacks ("the list on screen shows no penultimate entry", T10)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, indexed_copy
from test_meaning_router import ReaderTalk

from helix.core import english


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


@pytest.mark.parametrize(("said", "read"), [
    ("open the one at the very bottom", "open the last one"),
    ("the item on the top, please", "the first item, please"),
    ("pick the final result", "pick the last result"),
])
def test_a_position_at_the_end_or_top_is_said_as_an_ordinal(said: str, read: str) -> None:
    assert english.said_positions(said) == read


@pytest.mark.parametrize("said", ["what happens at the end of the scoring",
                                  "is that the final answer?", "the one at the top of the file",
                                  "why is this one on the top?"])
def test_an_end_or_final_before_no_list_entry_is_no_position(said: str) -> None:
    assert english.said_positions(said) == said


@pytest.mark.parametrize(("pick", "from_end"), [
    ("oh the bottom one seems neat, let's open that", 0),
    ("could you bring up the second-to-last entry, thanks", 1),
    ("grab the final result please", 0),
    ("show me the one at the very bottom", 0),
])
def test_a_pick_counted_from_the_end_opens_that_item(repo: Path, pick: str,
                                                     from_end: int) -> None:
    talk = ReaderTalk(repo)
    asked = talk(Q)
    assert asked.shown is not None
    picked = talk(pick)
    assert (picked.transition, picked.lane, picked.intent) == ("T3", "selection", "select_item")
    assert picked.opened is not None
    assert picked.opened.target.id == asked.shown.items[-1 - from_end].target.id
