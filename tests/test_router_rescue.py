"""The meaning router's rescue bar for a message the vocabulary rules took for a new question:
lower (router.RESCUE_NOT_ASKED) when the message does not ask a question in full (no question
word up front, or a follow-up's few words), `router_rescue` for one that does."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, indexed_copy
from test_meaning_router import ReaderTalk, fixed


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


@pytest.mark.parametrize(("text", "expected"), [
    ("folks leaning on this", ("T4", "graph")),
    ("where is the tokenizer defined in the search package?", ("T1", "root"))])
def test_a_follow_up_read_at_0_40_is_rescued_but_a_full_question_is_not(
        repo: Path, text: str, expected: tuple[str, str]) -> None:
    """Read as 'callers' at 0.40 (below router_rescue 0.45, above RESCUE_NOT_ASKED 0.35): the
    few words with no question word up front are acted on as the reading (a graph follow-up
    on the opened item); the full question stays the new search the rules read. The first
    case fails on main, where it stays a new question."""
    talk = ReaderTalk(repo, fixed("callers", 0.40, "new_question", 0.30, on=text))
    talk(Q)
    talk("open the second one")
    turn = talk(text)
    assert (turn.transition, turn.lane) == expected


@pytest.mark.parametrize(("text", "confidence", "expected"), [
    ("where is the tokenizer defined in the search package?", 0.60, ("T1", "root")),
    ("where is the tokenizer defined in the search package?", 0.85, ("T4", "graph")),
    ("where is it called from in the search package?", 0.60, ("T4", "graph"))])
def test_a_full_question_that_never_points_at_the_focus_needs_a_sure_reading(
        repo: Path, text: str, confidence: float, expected: tuple[str, str]) -> None:
    """A full question that names neither the opened item nor 'it'/'that' is self-contained
    (T1), not a short action on the selected object (T4): read as 'callers' above
    router_rescue (0.45) but below router_phrase (0.8) it stays the rules' new question; a
    sure reading, or the same question pointing at the item with 'it', is acted on. The first
    case fails on main (a graph question on the opened item)."""
    talk = ReaderTalk(repo, fixed("callers", confidence, "new_question", 0.30, on=text))
    talk(Q)
    talk("open the second one")
    turn = talk(text)
    assert (turn.transition, turn.lane) == expected
