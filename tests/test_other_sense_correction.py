"""After a sense of the question was chosen, a correction pointing at the other one means the
other sense (T2) whatever words follow it, unless they name an item of the list on screen;
and a message pointing away that names a word only the other sense's option says means the
other sense even after an item was opened (issue 32, router25a). Real sessions over the
continuity fixture (dry run)."""

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


@pytest.mark.parametrize("text", ["no, the other one, hurry up",
                                  "the other one - the allocation kind",
                                  "other one, go on"])
def test_a_correction_after_a_sense_means_the_other_sense(repo, text):
    talk = _sense_chosen(repo, "the optical one")
    turn = talk(text)
    assert (turn.transition, turn.lane, turn.intent) == ("T2", "root", "correct_choice"), \
        turn.answer
    assert "storage/cavity_pool.py" in (talk.state().root_frame.sense or "")


def test_a_correction_naming_a_listed_item_is_another_item(repo):
    talk = _sense_chosen(repo, "the storage one")
    shown = {i.label for s in talk.state().option_sets for i in s.items}
    assert any("Carving" in label for label in shown)
    turn = talk("no, the other one, the carving part")
    assert turn.transition == "T3", turn.answer


def test_pointing_away_with_the_other_senses_word_after_an_item_was_opened(repo):
    talk = _sense_chosen(repo, "the storage one")
    assert talk("open the first one").transition == "T3"
    turn = talk("the other one then, optics")
    assert (turn.transition, turn.lane, turn.intent) == ("T2", "root", "correct_choice"), \
        turn.answer
    assert "optics/resonator.py" in (talk.state().root_frame.sense or "")


def test_another_item_after_an_item_was_opened_stays_a_selection(repo):
    talk = _sense_chosen(repo, "the storage one")
    assert talk("open the first one").transition == "T3"
    assert talk("open the other one").transition == "T3"
