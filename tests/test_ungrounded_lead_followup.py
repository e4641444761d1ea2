"""An answer the coverage gate leaves ungrounded for one word of its subject the code does not
say, or a slip in it, still puts the object asked about first: its lead is selected (the gate's
object_only carryover), so "who calls it?" acts on that object instead of being refused. A
subject with a word shown and another missing is not what "it" means: its lead is shown only.
Real sessions over the continuity fixture (dry run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, copy_fixture

from controller.continuity.lead_subject import mostly_shown
from controller.continuity.state import ANSWER_SHOWN_FAMILY
from helix.core.hashing import short_id


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_fixture(tmp_path_factory.mktemp("lead"))


ASKED_OBJECT = [
    # a slip of a word the lead says ("raize" for raise)
    ("where does carve raize MemoryError?", "who calls it?", "CavityPool.carve", "graph"),
    # one word of four the code never says ("equation")
    ("where is the optical cavity finesse equation?", "who tests it?", "OpticalCavity", "graph"),
    # a kind of code named in the plural is no word of the subject
    ("where are the bm25 k1 constants?", "why 1.5?", "BM25Index.score", "explain"),
]


@pytest.mark.parametrize(("question", "follow_up", "lead", "lane"), ASKED_OBJECT)
def test_a_follow_up_acts_on_the_lead_that_shows_the_subject_but_one_word(
        repo, question, follow_up, lead, lane):
    talk = Talk(repo, name=f"lead-{short_id('lead', question)}")
    talk(question)
    state = talk.state()
    assert state.coverage_gate_state.carryover_eligibility == "object_only"
    assert state.selected_object is not None
    assert state.selected_object.focus_object_ref.label == lead
    turn = talk(follow_up)
    assert (turn.transition, turn.lane) == ("T4", lane), turn.answer


@pytest.mark.parametrize("question", ["where is the SearchEngine cache?",
                                      "where are the idf smoothing constants?"])
def test_a_lead_lacking_the_subjects_distinguishing_word_is_not_it(repo, question):
    talk = Talk(repo, name=f"guard-{short_id('guard', question)}")
    talk(question)
    selected = talk.state().selected_object  # at most shown (router24b), never what "it" means
    assert selected is None or selected.compatible_route_family == ANSWER_SHOWN_FAMILY
    # router26c: "it" is read as the closest match shown, and the reply says so first
    turn = talk("who calls it?")
    assert turn.transition == "T10" if selected is None else turn.answer.startswith("Read 'it'")


@pytest.mark.parametrize(("need", "tokens", "shown"), [
    (("cavity", "finesse", "equation"), {"cavity", "finesse"}, True),
    (("carve", "raize"), {"carve", "raise"}, True),  # a slip
    (("k1", "constant"), {"k1"}, True),  # a kind noun
    (("tokenizer", "cache"), {"tokenizer"}, False),  # one shown, one missing
    (("engine", "cache", "size"), {"engine"}, False),
])
def test_mostly_shown(need, tokens, shown):
    assert mostly_shown(need, frozenset(tokens)) is shown
