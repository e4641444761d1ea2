"""After a sense of the question was chosen and an item was explained or shown again, "the X
one" that names nothing the list on screen shows ("the slab memory one now", misspelt sense
words) points back at the one choice made, the sense: the question in the other sense (T2). Main
read it as a pick from the list and refused it as a boundary (T10: nothing like it listed). A
message naming the chosen sense's own word, a number, or no "one" keeps main's reading
(router28a, issue 32). Real sessions over the continuity fixture with the meaning router."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, indexed_copy


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_copy(tmp_path_factory.mktemp("repo"))


def _after_explained(repo: Path, name: str, option: str, then: str) -> Talk:
    talk = Talk(repo, name=name)
    assert talk("what is a cavity?").answer.startswith("'cavity' means different things")
    assert talk(option).transition == "T7"
    assert talk(then).transition in {"T4", "T5"}
    return talk


@pytest.mark.parametrize(("option", "then", "text", "sense"), [
    ("the optical one", "show it again", "fine, now the memroy one", "storage"),
    ("the optical one", "explain it", "now the slab memory one please", "storage"),
    ("the storage one", "explain it", "ok and now the optcal one", "optics"),
])
def test_a_pick_naming_nothing_listed_after_a_sense_is_the_other_sense(repo, option, then,
                                                                        text, sense):
    talk = _after_explained(repo, f"o{abs(hash(text))}", option, then)
    turn = talk(text)
    assert (turn.transition, turn.lane, turn.intent) == ("T2", "root", "correct_choice"), \
        turn.reasons
    assert sense in (talk.state().root_frame.sense or "")


@pytest.mark.parametrize("text", ["now the storage one again", "open the 40th one"])
def test_the_chosen_senses_own_word_or_a_number_is_no_switch(repo, text):
    talk = _after_explained(repo, f"k{abs(hash(text))}", "the storage one", "explain it")
    turn = talk(text)
    assert turn.intent != "correct_choice", turn.reasons
