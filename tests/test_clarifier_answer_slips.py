"""An answer to the two-option sense clarifier with a slip in the word that tells the options
apart (issue 32, router23): "the memroy one", "the mirrirs one". The options are scored against
the message with the slip read as the word of an option's description (`respelt_against`); as
typed, the word is read in pieces and scores near neither option, and the answer was taken for
a pick from the options list, which asked again (three tune files)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, indexed_copy

from controller.continuity.spelling import respelt_against

DESCRIBED = frozenset({"the", "cavity", "pool", "a", "free", "region", "of", "memory", "slab",
                       "optical", "resonator", "two", "mirrors", "facing", "each", "other"})


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


@pytest.mark.parametrize(("typed", "read"), [("the memroy one", "the memory one"),
                                             ("the mirrirs one", "the mirrors one"),
                                             ("memry 1", "memory 1")])
def test_a_slip_of_an_options_word_is_read_as_that_word(typed, read):
    assert respelt_against(typed, DESCRIBED) == read


@pytest.mark.parametrize("typed", ["the memory one", "the second one", "the storage one",
                                   "the mirror one", "open it"])
def test_a_message_without_such_a_slip_is_left_alone(typed):
    assert respelt_against(typed, DESCRIBED) is None


@pytest.mark.parametrize(("answer", "sense"), [("the memroy one", "storage"),
                                               ("the mirrirs one", "optics")])
def test_a_misspelt_answer_to_the_sense_clarifier_resumes_the_question(repo, answer, sense):
    talk = Talk(repo)
    asked = talk("what is a cavity?")
    assert asked.answer_mode == "clarify"
    chose = talk(answer)
    assert (chose.transition, chose.lane) == ("T7", "clarify_resume")
    assert sense in (talk.state().root_frame.sense or "")
