"""A sender's name written as a hyphenated handle before a colon ("lint-bot: ...", "vim-helix ::
...") says who sends the message, not what it asks (issue 32, router27a): the router and its
reader read the rest. A hyphenated word that is not followed by a colon, and a bare word before
a colon (a topic said first: "carve: who calls it?"), stay part of the message."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, indexed_copy
from test_meaning_router import ReaderTalk, fixed

from controller.continuity.phrases import without_channel_tag


@pytest.mark.parametrize(("typed", "message"), [
    ("lint-bot: who calls it?", "who calls it?"),
    ("vim-helix :: open 2", "open 2"),
    ("code-review-agent: same search, docs only", "same search, docs only"),
    ("qa-2: how sure are you?", "how sure are you?"),
])
def test_a_hyphenated_handle_before_a_colon_is_read_off(typed, message):
    assert without_channel_tag(typed) == message


@pytest.mark.parametrize("typed", ["carve: who calls it?", "side-effects of carve?",
                                   "the read-only flag: where is it set?", "lint-bot:"])
def test_other_words_before_a_colon_stay(typed):
    assert without_channel_tag(typed) == typed


def test_the_reader_reads_the_message_without_the_handle(tmp_path: Path):
    reader = fixed("meta", on="why that file and not the tests?")
    talk = ReaderTalk(indexed_copy(tmp_path), reader=reader)
    talk(Q)
    turn = talk("ide-bridge: why that file and not the tests?")
    assert reader.seen[-1].text == "why that file and not the tests?"
    assert (turn.transition, turn.lane) == ("T8", "meta")
