"""After a sense of the question was chosen, a narrowing message that speaks of a sense ("the
optics meaning this time", "the light/mirrors interpretation") asks the question in the other
sense (T2), even when the word naming it is also a folder of the repository ("optics/") or
looks like a path ("light/mirrors"); main re-ran the question in that folder, with the
chosen sense still on, and found nothing (a T10). A message naming the chosen sense's own
word does not switch (router26a, issue 32). Real sessions over the continuity fixture."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, indexed_copy


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


def _sense_chosen(repo: Path, option: str) -> Talk:
    talk = Talk(repo)
    assert talk("what is a cavity?").answer.startswith("'cavity' means different things")
    assert talk(option).transition == "T7"
    return talk


@pytest.mark.parametrize("text", ["give me the optics meaning this time",
                                  "swap over to the light/mirrors interpretation now",
                                  "alright, the optics sense next please"])
@pytest.mark.parametrize("opened", [False, True])
def test_a_sense_named_after_a_sense_was_chosen_is_the_other_sense(repo, text, opened):
    talk = _sense_chosen(repo, "the storage one")
    if opened:  # an item of the answer opened since
        assert talk("open 1").transition == "T3"
    turn = talk(text)
    assert (turn.transition, turn.lane, turn.intent) == ("T2", "root", "correct_choice"), \
        turn.answer
    assert "optics" in (talk.state().root_frame.sense or "")


def test_the_chosen_senses_own_word_does_not_switch(repo):
    talk = _sense_chosen(repo, "the storage one")
    turn = talk("the storage meaning, only in the docs")
    assert turn.intent != "correct_choice", turn.answer
