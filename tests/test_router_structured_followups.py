"""A follow-up sent as structured data is read as the words it carries (issue 32, router27a):
a markup element's text (an empty element: its name and attributes), a JSON object's or
key=value pairs' values, an operation name as words, the exchange's plumbing (repository,
session) left out. Anything else is read as typed."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, indexed_copy
from test_meaning_router import ReaderTalk, fixed

from controller.continuity.structured import plain_words


@pytest.mark.parametrize(("sent", "words"), [
    ('<ask kind="followup">And who builds the index?</ask>', "And who builds the index?"),
    ("<cancel/>", "cancel"),
    ('<go to="previous_list"/>', "go previous_list"),
    ('{"op": "list_callers", "name": "build_bm25_index"}', "list callers build_bm25_index"),
    ('{"command": "narrow", "include": ["search/", "docs/"]}',
     "narrow include search/ include docs/"),
    ('{"text": "how sure are you?", "session": "s-17", "repo": "acme"}', "how sure are you?"),
    ("cmd=show_again target=focused", "show again focused"),
    ("VERB=explain; NAME=Tokenizer", "explain Tokenizer"),
])
def test_structured_follow_ups_are_read_as_their_words(sent, words):
    assert plain_words(sent) == words


@pytest.mark.parametrize("typed", ["who calls it?", "is x=1 ever set?", "a < b and c > d",
                                   "{not json}", '["a", "list"]', "<br> open 2"])
def test_other_messages_are_read_as_typed(typed):
    assert plain_words(typed) == typed


def test_the_reader_reads_a_json_follow_up_as_words(tmp_path: Path):
    reader = fixed("meta", on="why this file")
    talk = ReaderTalk(indexed_copy(tmp_path), reader=reader)
    talk(Q)
    turn = talk('{"action": "why_this_file", "session": "s-9"}')
    assert reader.seen[-1].text == "why this file"
    assert (turn.transition, turn.lane) == ("T8", "meta")
