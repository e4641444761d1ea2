"""An ungrounded answer's lead is the object asked about when the question writes the lead's
own name as words ("the optical cavity" for OpticalCavity, "the free spectral range" for
free_spectral_range, a section's heading): "it" in the follow-up is that object (the gate's
object_only carryover), not a refusal (issue 32, router25a). Real sessions over the
continuity fixture (dry run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, copy_fixture

from controller.continuity.item_names import spelt_as_words
from helix.core.hashing import short_id


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_fixture(tmp_path_factory.mktemp("words"))


NAMED_IN_WORDS = [
    ("is the free spectral range formula tested?", "explain it", "explain"),
    ("do we test the optical cavity anywhere, yes or no?", "who uses it?", "graph"),
    ("the cavity pool, how does it pick where a block goes?", "why keep it sorted?", "explain"),
]


@pytest.mark.parametrize(("question", "follow_up", "lane"), NAMED_IN_WORDS)
def test_a_follow_up_acts_on_the_lead_the_question_named_in_words(repo, question, follow_up,
                                                                    lane):
    talk = Talk(repo, name=f"words-{short_id('words', question)}")
    talk(question)
    state = talk.state()
    assert state.coverage_gate_state.carryover_eligibility == "object_only"
    turn = talk(follow_up)
    assert (turn.transition, turn.lane) == ("T4", lane), turn.answer


@pytest.mark.parametrize(("name", "text", "said"), [
    ("OpticalCavity", "any test for the optical cavity?", True),
    ("free_spectral_range", "how is the free spectral range computed", True),
    ("cavity_pool", "the cavity pools of the slab", True),  # a plural on the last word
    ("OpticalCavity", "the cavity that is optical", False),  # not side by side
    ("OpticalCavity", "the cavity optical", False),  # not in order
    ("carve", "who calls carve", False),  # one word: a name, not words (name_like's)
])
def test_spelt_as_words(name, text, said):
    assert spelt_as_words(name, text) is said
