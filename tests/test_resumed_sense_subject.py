"""A question resumed with the sense the user chose asks about the one word that had two senses
(issue 32, router23). Its subject was the question's own words ("kindly cavity", "cavity lol"):
a word the repository never uses left the subject unfound, the resumed answer ungrounded, and
the coverage gate refused the follow-up that acted on it ("Would you explain how the offset is
computed?" -> T10) in three tune files. A question asked without a sense is read as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, indexed_copy

from controller.route import route_question
from helix.core.policy import RoutingPolicy


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


@pytest.mark.parametrize("asked", ["Could you kindly tell me what a cavity is here?",
                                   "cavity — what is it, fast",
                                   "Excuse me, what is a cavity in this project? I'm a little "
                                   "confused by the word."])
def test_a_resumed_sense_question_asks_about_its_ambiguous_word(asked):
    plain = route_question(asked, routing=RoutingPolicy())
    resumed = route_question(asked, routing=RoutingPolicy(), sense="storage/cavity_pool.py")
    slot = resumed.intent.slots[0]
    assert plain.ambiguous_term == resumed.ambiguous_term == "cavity"
    assert resumed.subjects[slot] == ("cavity",)


def test_a_question_without_a_sense_keeps_its_own_subject():
    asked = "Could you kindly tell me what a cavity is here?"
    assert route_question(asked, routing=RoutingPolicy()).subjects["term"] == ("kindly cavity",)


def test_the_resumed_answer_carries_into_a_follow_up_on_it(repo):
    talk = Talk(repo)
    assert talk("Could you kindly tell me what a cavity is here?").answer_mode == "clarify"
    resumed = talk("The second option, please.")
    assert resumed.transition == "T7" and "defines a cavity" in resumed.answer
    assert talk.state().coverage_gate_state.carryover_eligibility == "full"
    after = talk("Would you explain how the offset is computed?")
    assert (after.transition, after.lane) == ("T4", "explain")
