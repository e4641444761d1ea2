"""The root sense check decides by what the question is about, not by its length or language
(router29, issue 32): an opening question whose only word the repository uses is one plain word
asks the two-option clarifier when that word has two senses, whatever words around it (another
language, a typo, a greeting) name nothing in the repository; main searched such questions as
asked, so the follow-up answering the clarifier had nothing to resume. A question whose other
words are the repository's own stays an ordinary search, and other words that only one sense's
text uses pick that sense (the run goes on as asked, no clarifier)."""

from __future__ import annotations

import pytest
from controller_helpers import fixture_index

from controller.driver import run_controller
from controller.question import read_question
from controller.route import route_question
from helix.core.config import HelixConfig
from helix.core.envelope import Envelope
from helix.core.policy import RoutingPolicy
from helix.core.ports import FakeClock, FakeEmbedder

# a small repository's words (what `IndexReader.knows` answers): "bucket" is a plain word
VOCABULARY = frozenset({"bucket", "refill", "tokens", "hash", "entries", "slot", "rate"})


def knows(word: str) -> bool:
    return word in VOCABULARY


@pytest.mark.parametrize("question", [
    "c'est quoi exactement un bucket dans ce projet ?",
    "yaar bucket ka scene kya hai idhar, samjha do",
    "gud mornin, cud ya tell me wot bucket iz",
    "Greetings from the night shift, could you point me at where the bucket gets described?",
])
def test_one_plain_word_among_words_the_repository_never_uses_is_sense_checked(
        question: str) -> None:
    assert route_question(question, routing=RoutingPolicy()).ambiguous_term is None  # as main
    plan = route_question(question, routing=RoutingPolicy(), knows=knows)
    assert plan.ambiguous_term == "bucket" and plan.sense_check_only


@pytest.mark.parametrize("question", [
    "where does the bucket refill its tokens",
    "which entries does a hash bucket keep",
    "the hash bucket, what is it made of",  # a word of the repository before it: a phrase
])
def test_other_words_of_the_repository_keep_an_ordinary_search(question: str) -> None:
    assert not route_question(question, routing=RoutingPolicy(), knows=knows).sense_check_only


def run(question: str) -> Envelope:
    config = HelixConfig()
    index = fixture_index("matrix_repo")  # "cavity": an optics sense and a storage sense
    read = read_question(question, config.retrieval, knows=index.knows)
    return run_controller(read, index, config, query_embedder=FakeEmbedder(), clock=FakeClock())


@pytest.mark.parametrize("question", [
    "bhai ye cavity kya cheez hai, thoda batao",
    "dites-moi, la cavity, ça sert à quoi ?",
    "Howdy partner, whaddya reckon this here cavity is all about?",
])
def test_the_split_senses_ask_the_two_option_clarifier(question: str) -> None:
    env = run(question)
    assert env.stop_reason == "dominance_split"
    assert env.clarify is not None and len(env.clarify.options) == 2
