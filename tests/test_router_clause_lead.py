"""A later clause that asks "what about <another subject>" continues the conversation as much
as a message that opens with it (issue 32, router27a): after an answer, "right, one more thing:
what about X?" is the root question of X with the context kept (T6), not a search for the
whole message."""

from __future__ import annotations

from pathlib import Path

from talk_fixtures import Q, indexed_copy
from test_meaning_router import ReaderTalk, fixed


def test_a_later_what_about_clause_pivots(tmp_path: Path):
    talk = ReaderTalk(indexed_copy(tmp_path), reader=fixed("new_question", 0.9))
    talk(Q)
    turn = talk("Great, that helps. Next thing, how about the tokenizer module?")
    assert (turn.transition, turn.lane) == ("T6", "root")


def test_what_about_inside_a_clause_is_no_lead(tmp_path: Path):
    talk = ReaderTalk(indexed_copy(tmp_path), reader=fixed("new_question", 0.9))
    talk(Q)
    turn = talk("where is the note on what about scoring is still open")
    assert (turn.transition, turn.lane) == ("T1", "root")
