"""A question whether a topic came up in this conversation is a recap (T9), however it is put:
'we' with a verb of talking about something in the past, its passive, the topic 'mentioned
earlier', 'which X we went over'. The present ('do we check X' asks about the code), test
coverage ('covered by a test') and a statement that asks nothing are not. Real sessions over
the continuity fixture (dry run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Q, Talk, copy_fixture

from controller.continuity import phrases as say
from helix.core.hashing import short_id


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_fixture(tmp_path_factory.mktemp("recap"))


ASKED = [
    "have we already gone over the tokenizer?",
    "hmm, did we ever get to the cavity pool at all?",
    "I'd like to know whether we looked at the engine earlier",
    "We went over the idf formula before, or not?",
    "Was the stop word list brought up in this conversation?",
    "the cavity pool mentioned before?",
    "remind me which parts of the engine we touched on",
]


@pytest.mark.parametrize("message", ASKED)
def test_asking_whether_a_topic_came_up_is_a_recap(repo, message):
    talk = Talk(repo, name=f"recap-{short_id('recap', message)}")
    talk(Q)
    turn = talk(message)
    assert (turn.transition, turn.lane) == ("T9", "recap"), turn.reasons


NOT_ASKED = [
    "do we lowercase the query before scoring?",  # the present: the code
    "is carve covered by a test?",  # test coverage
    "we went over the engine, now how does the tokenizer split words?",  # a statement, then
    "if we looked at the engine, what else builds an index?",  # another question
    "can you show the benchmark chart you mentioned earlier?",  # a thing referred to
]


@pytest.mark.parametrize("message", NOT_ASKED)
def test_the_present_test_coverage_and_statements_are_no_recap(repo, message):
    assert say.RECAP_ASKED.match(say.body(say.without_small_talk_lead(message))) is None
    talk = Talk(repo, name=f"other-{short_id('other', message)}")
    talk(Q)
    assert talk(message).transition != "T9"


def test_a_statement_that_we_talked_about_a_topic_is_a_recap_only_when_asked(repo):
    talk = Talk(repo, name="stated")
    talk(Q)
    assert talk("we looked at the tokenizer already?").transition == "T9"
    assert talk("we looked at the tokenizer already").transition != "T9"
