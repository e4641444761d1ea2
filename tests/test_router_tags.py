"""Follow-ups as people and agents type them (issue 32, router21): a sender's tag or a step
label asks nothing ("[ci-bot] reopen: current item", "Step 3: who calls it?"), a hyphenated
word names no list position ("the third-party notices"), an assent before a continuing lead
keeps it continuing ("ok and where is it used?"), and a participle before the noun of a pick
is no unshown thing ("the first listed result")."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, indexed_copy
from test_meaning_router import ReaderTalk, fixed

from controller.continuity.meaning import ordinals_in
from controller.continuity.phrases import without_channel_tag


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


@pytest.mark.parametrize(("typed", "message"), [
    ("[ci-bot] reopen: current item", "reopen: current item"),
    ("agent> Open result 2.", "Open result 2."),
    ("@helper maria asks: who calls it?", "who calls it?"),
    ("@helper explain the loop", "explain the loop"),
    ("Step 3: identify the tests that exercise this method.",
     "identify the tests that exercise this method."),
    ("Automated query #4: what about the constant?", "what about the constant?"),
])
def test_a_senders_tag_or_a_step_label_is_read_off_the_message(typed, message):
    assert without_channel_tag(typed) == message


@pytest.mark.parametrize("typed", ["open the second one", "[E2] explain it", "[1] who calls it",
                                   "item 3: who calls it?", "who calls it? step 2: the tests",
                                   "[ci-bot]"])
def test_a_message_without_a_tag_is_left_as_typed(typed):
    assert without_channel_tag(typed) == typed


def test_a_hyphenated_word_names_no_position():
    assert ordinals_in("Could you show me the third-party notices file?") == []
    assert ordinals_in("a one-off first-class fix") == []
    assert ordinals_in("open the third one") == [3]


def _intent(turn) -> str:
    return next(e.data["intent"] for e in turn.events if e.name == "turn_routed")


def test_a_step_label_is_no_list_position(repo):
    talk = ReaderTalk(repo)
    talk(Q)
    talk("open the first one")
    turn = talk("Step 3: who calls it?")
    assert (turn.transition, turn.lane) == ("T4", "graph")


def test_a_tagged_reopen_reopens_the_item_in_focus(repo):
    talk = ReaderTalk(repo)
    talk(Q)
    talk("[ci-bot] open the first one")
    turn = talk("[ci-bot] reopen: current item")
    assert (turn.transition, turn.lane) == ("T5", "selection")


def test_an_assent_before_a_continuing_lead_keeps_it_continuing(repo):
    asked = "ok and where is the tokenizer used?"
    talk = ReaderTalk(repo, fixed("new_question", on=asked))
    talk(Q)
    turn = talk(asked)
    assert (turn.transition, turn.lane) == ("T6", "root")


def test_a_participle_before_the_noun_of_a_pick_is_no_unshown_thing(repo):
    talk = ReaderTalk(repo)
    talk(Q)
    turn = talk("explain the first listed result.")
    assert (turn.transition, turn.lane) == ("T3", "selection")
