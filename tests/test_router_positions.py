"""A list position said without an ordinal word (issue 32, router23): "the top one", "top
result", "the bottom one", "the one before last", "second to last". Writers who never saw the
router picked items this way in three tune files; each was read as a name the list does not
have ("nothing like 'the top one' is in the list on screen"), and the follow-up after it had no
object to act on."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, indexed_copy
from test_meaning_router import ReaderTalk

from controller.continuity.meaning import ordinals_in
from controller.continuity.pending import parse_ordinal
from controller.continuity.phrases import body
from controller.continuity.selection_match import parse_selection_input
from helix.core import english


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


@pytest.mark.parametrize(("said", "position"), [
    ("the top one", 1), ("top one", 1), ("the top one pls", 1), ("the bottom one", 9),
    ("the bottom one please", 9), ("the one before last", 8), ("the one befor last", 8),
    ("second to last one", 8), ("the last but one", 8),
])
def test_a_position_said_without_an_ordinal_is_a_position(said, position):
    assert parse_ordinal(said, 9) == position
    assert parse_ordinal(body(f"Please open {said}."), 9) == position


def test_a_position_in_a_sentence_is_found_as_an_ordinal_is():
    assert ordinals_in("top result") == [1] == ordinals_in("show me the top hit")


@pytest.mark.parametrize("said", ["Why you show this one on the top?", "why engine.py top",
                                  "the top of the list", "bottom line: who calls it?",
                                  "show me the stop words"])
def test_a_word_of_position_before_no_list_entry_names_none(said):
    assert english.said_positions(said) == said
    assert parse_ordinal(said, 9) is None and ordinals_in(said) == []


def test_the_one_before_last_counts_from_the_end():
    assert english.ordinal_value("penultimate") == english.BEFORE_LAST
    assert english.from_end(english.BEFORE_LAST, 5) == 4 and english.from_end(3, 5) == 3
    assert parse_selection_input("open the one before last").ordinal == english.BEFORE_LAST
    assert parse_selection_input("open the top result").ordinal == 1


@pytest.mark.parametrize(("pick", "then"), [("the top one", "who calls it?"),
                                            ("top result", "who calls it?"),
                                            ("the bottom one please", "show it again")])
def test_a_pick_by_position_opens_the_item_and_the_next_turn_acts_on_it(repo, pick, then):
    talk = ReaderTalk(repo)
    talk(Q)
    picked = talk(pick)
    assert (picked.transition, picked.lane, picked.intent) == ("T3", "selection", "select_item")
    assert picked.opened is not None
    after = talk(then)
    assert after.transition in ("T4", "T5") and after.lane in ("graph", "selection")
