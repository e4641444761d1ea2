"""A message that opens with a continuing lead ('and ...') is a related question in the same
context (T6 root) when the meaning router reads another kind of follow-up in it but not surely
enough to act on: before, it became a brand new question (T1). A sure follow-up is still acted
on, and the same words without the lead are still a new question. Real sessions over the
continuity fixture (dry run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, Talk, copy_fixture

from helix.core.hashing import short_id


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_fixture(tmp_path_factory.mktemp("lead"))


def _after_answer(repo: Path, message: str):
    talk = Talk(repo, name=f"lead-{short_id('lead', message)}")
    talk(Q)
    return talk(message)


@pytest.mark.parametrize("message", ["and who constructs the search engine",
                                     "and how are words split into terms"])
# (no pronoun pointing back: "and how does it split words" points at the focused object, and
# a question that points back at it is acted on at a lower bar: router._pointed_focus_action)
def test_a_continuing_lead_with_an_unsure_follow_up_reading_is_a_related_question(repo, message):
    turn = _after_answer(repo, message)
    assert (turn.transition, turn.lane, turn.intent) == ("T6", "root", "pivot"), turn.reasons


def test_the_same_words_without_the_lead_are_a_new_question(repo):
    turn = _after_answer(repo, "who constructs the search engine")
    assert (turn.transition, turn.lane) == ("T1", "root"), turn.reasons


def test_a_sure_follow_up_after_the_lead_is_acted_on(repo):
    turn = _after_answer(repo, "and who calls it?")
    assert (turn.transition, turn.lane) == ("T4", "graph"), turn.reasons
