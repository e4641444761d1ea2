"""Typos in the router's own words are read as those words, only when that turns a would-be
new question into a follow-up (`controller.continuity.spelling`, `router.route_turn`)."""

from __future__ import annotations

import pytest
from talk_fixtures import Q, Talk, copy_fixture

from controller.continuity.spelling import one_edit, respelled


@pytest.mark.parametrize(("typed", "read"), [
    ("thnaks", "thanks"), ("who clals it", "who calls it"), ("satrt over", "start over"),
    ("wehre is it used", "where is it used"), ("nveer mind", "never mind"),
    ("what tsets cover it", "what tests cover it")])
def test_a_swapped_or_dropped_letter_in_a_router_word_is_read_as_that_word(typed, read):
    assert respelled(typed)[0] == read


def test_words_that_are_not_one_edit_from_exactly_one_router_word_stay():
    assert respelled("where is the BM25 index built")[1] == ()
    assert respelled("how is the resnoator modelled")[1] == ()
    assert not one_edit("it", "is")  # short words are never respelt
    assert one_edit("tset", "test") and not one_edit("test", "test")


def test_a_misspelt_follow_up_is_routed_as_the_follow_up(tmp_path):
    talk = Talk(copy_fixture(tmp_path))
    talk(Q)
    turn = talk("who clals it?")
    assert turn.intent == "graph_callers" and turn.retrieval is False
    assert any("read 'clals' as 'calls'" in r for r in turn.reasons)
    assert talk("satrt over").intent == "reset"


def test_a_real_question_is_never_respelt(tmp_path):
    talk = Talk(copy_fixture(tmp_path))
    talk(Q)
    turn = talk("what does the form validation do?")  # 'form' is one swap from 'from'
    assert turn.lane == "root" and not any("read '" in r for r in turn.reasons)
    assert talk.asked[-1][0] == "what does the form validation do?"
