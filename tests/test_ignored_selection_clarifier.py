"""A selection clarifier the user does not answer keeps the answer's lead selected: the next
message drops the pending (focus-context-pending-state step 3: it must not hijack routing)
and "it" is what the last answer led with, as if the clarifier had not been asked: a short
action on it (T4), not a selection of it first, nor a refusal (issue 32, router25a). Real
sessions over the continuity fixture (dry run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, copy_fixture

from helix.core.hashing import short_id


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_fixture(tmp_path_factory.mktemp("ignored"))


CASES = [
    ("where is the BM25 index built?", "open the bm25.py one", "who calls it?", "graph",
     "build_bm25_index"),
    ("where is the BM25 index built?", "show me the bm25 file",
     "why count document frequencies there?", "explain", "build_bm25_index"),
    ("how does carve choose a cavity?", "the cavity_pool.py one please", "explain the loop in it",
     "explain", "CavityPool.carve"),
]


@pytest.mark.parametrize(("question", "pick", "follow_up", "lane", "lead"), CASES)
def test_a_follow_up_after_an_unanswered_clarifier_acts_on_the_lead(repo, question, pick,
                                                                     follow_up, lane, lead):
    talk = Talk(repo, name=f"ignored-{short_id('ignored', question, pick)}")
    talk(question)
    asked = talk(pick)
    assert asked.answer_mode == "clarify", asked.answer
    turn = talk(follow_up)
    assert (turn.transition, turn.lane) == ("T4", lane), turn.answer
    assert talk.state().selected_object.focus_object_ref.label == lead


def test_an_answer_to_the_clarifier_still_opens_the_option(repo):
    talk = Talk(repo, name="ignored-answered")
    talk("where is the BM25 index built?")
    assert talk("open the bm25.py one").answer_mode == "clarify"
    turn = talk("the first one")
    assert turn.transition == "T3" and turn.opened is not None, turn.answer
