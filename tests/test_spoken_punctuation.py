"""Dictated punctuation: a voice follow-up says its marks by name ("is there a test for it
question mark", "same question comma but only in docs period"); the router reads them as the
marks, where a mark goes, so the message is routed (and searched) as the typed one is; a mark's
name that is a thing asked about stays a word (issue 32, router25a)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, Talk, indexed_copy

from controller.continuity.phrases import spoken_marks


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


@pytest.mark.parametrize(("said", "typed"), [
    ("who tests it question mark", "who tests it?"),
    ("okay comma and the tokenizer question mark", "okay, and the tokenizer?"),
    ("next one colon what is a slab question mark", "next one: what is a slab?"),
    ("open the third comma please period", "open the third, please."),
])
def test_dictated_marks_are_written_as_marks(said, typed):
    assert spoken_marks(said) == typed


@pytest.mark.parametrize("text", [
    "how does the parser treat a question mark",  # the mark is what is asked about
    "where is the retry period set",  # a word, no other mark said
    "does it split on the comma",
    "comma separated values in the config",
    "what is the cooldown period",
])
def test_a_marks_name_that_is_a_word_stays(text):
    assert spoken_marks(text) == text


def test_a_dictated_question_about_the_answer_is_the_follow_up_typed(repo):
    talk = Talk(repo)
    talk(Q)
    turn = talk("is there a test for it question mark")
    assert (turn.transition, turn.lane) == ("T4", "graph"), turn.answer
