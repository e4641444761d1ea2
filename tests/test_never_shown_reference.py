"""A message that refers to a thing the assistant supposedly mentioned or showed ('the latency
histogram you talked about') that nothing in the conversation ever named (no listed item, no
answer, no question asked) is a boundary (T10): it was never shown, so there is nothing to
open or to search around. A thing that was named ('the index you mentioned' after an answer
about the BM25 index) or a kind of listed thing ('the bm25 module you showed') is not. Real
sessions over the continuity fixture (dry run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, Talk, copy_fixture

from helix.core.hashing import short_id


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_fixture(tmp_path_factory.mktemp("shown"))


def _after_answer(repo: Path, message: str):
    talk = Talk(repo, name=f"shown-{short_id('shown', message)}")
    talk(Q)
    return talk(message)


@pytest.mark.parametrize("message", [
    "and the latency histogram you talked about earlier, where is it?",
    "could you bring up the flame graph you mentioned?",
])
def test_a_thing_never_named_in_the_conversation_is_a_boundary(repo, message):
    turn = _after_answer(repo, message)
    assert (turn.transition, turn.lane) == ("T10", "boundary"), turn.reasons
    assert "nothing shown in this conversation" in turn.answer


@pytest.mark.parametrize("message", ["tell me more about the index you mentioned",
                                     "what does the bm25 module you showed do"])
def test_a_thing_the_conversation_named_is_no_boundary(repo, message):
    assert _after_answer(repo, message).transition != "T10"
