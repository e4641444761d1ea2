"""A word mentioned as a word is the word asked about (router25b, issue 32): the sense check
reads the index's vocabulary not only for a message asking what a word is or means ('meanings'
too), but for one that quotes a single plain word ("folks here keep saying 'cavity'") or sets
a word of the repository alone before the rest ("cavity — spill it"); a quoted word asked
about is that word whatever else the message names ("Python newbie, what does 'cavity'
mean?"); a number ("two senses", "5 lines") is never the subject; the quote around a word is
no clitic, so a quoted word heads its phrase. Main searched these as asked (no two-option
clarifier)."""

from __future__ import annotations

import pytest
from controller_helpers import ask, fixture_index

from controller.route import RoutePlan, route_question
from helix.core.policy import RoutingPolicy

VOCABULARY = frozenset({"cavity", "pool", "carve", "two", "5", "tokenizer", "defined", "max",
                        "python"})


def plan(question: str) -> RoutePlan:
    return route_question(question, routing=RoutingPolicy(), knows=VOCABULARY.__contains__)


@pytest.mark.parametrize("question", [
    "folks in the team chat keep saying 'cavity', any clue what that is?",
    "My manager used the word \u201ccavity\u201d earlier, what does it mean around here?",
    'lookup "cavity" for me',
    "cavity — spill it",
    "cavity; gimme the gist",
    "what is a cavity? 5 lines max",
    "so cavity has two meanings? which are they",
    "wats a cavity around here",
    "total Python newbie here, what does 'cavity' mean in this code?",  # the quoted word
])
def test_a_word_mentioned_as_a_word_is_sense_checked(question: str) -> None:
    read = plan(question)
    assert read.sense_check_only and read.ambiguous_term == "cavity"


@pytest.mark.parametrize("question", [
    "hello, where does the pool carve a cavity",  # a greeting alone first: no subject
    'does "carve" touch "pool" anywhere?',  # two words quoted: no one word asked about
    "cavity pool. where is it defined",  # two words first
])
def test_no_sense_check_without_one_word_mentioned(question: str) -> None:
    assert not plan(question).sense_check_only


@pytest.mark.parametrize("question", ["cavity — spill it",
                                      "my lead says 'cavity' all the time. what is it?"])
def test_a_mentioned_word_with_two_senses_asks_which(question: str) -> None:
    env = ask(fixture_index("matrix_repo"), question)
    assert env.stop_reason == "dominance_split"
    assert env.clarify is not None and len(env.clarify.options) == 2
