"""The sense check reads the index's vocabulary (router22, issue 32): an opening question about
one plain word keeps its two-option clarifier when words around it name nothing in the
repository ("whats a cavity lol", "so what even is a cavity, I keep seeing the word
everywhere"); only a message asking what a word is or means, and a word that follows another
content word is no word asked about ("where the program counts how often each word appears");
main searched all of these as asked."""

from __future__ import annotations

import pytest
from controller_helpers import ask, fixture_index

from controller.question import read_question, respell
from controller.route import route_question
from helix.core.config import RetrievalSettings
from helix.core.policy import RoutingPolicy

# a small repository's words: what `IndexReader.knows` answers
VOCABULARY = frozenset({"cavity", "pool", "carve", "count", "counts", "word", "def", "query",
                        "index", "tokenizer", "defined"})


def knows(word: str) -> bool:
    return word in VOCABULARY


def plan(question: str, with_vocabulary: bool = True):  # type: ignore[no-untyped-def]
    return route_question(question, routing=RoutingPolicy(),
                          knows=knows if with_vocabulary else None)


@pytest.mark.parametrize("question", [
    "so what even is a cavity in this project, I keep seeing the word everywhere",
    "whats cavity lol",
    "I was hoping you could explain what a cavity means here.",
    "So I keep hearing the word cavity in this codebase",
    "Hello hello. What's a cavity, in plain words?",
    "I'd be grateful if you could tell me what a cavity is in this code.",
    "what is a cavity question mark"])
def test_words_the_repository_never_uses_leave_the_one_word_asked_about(question: str) -> None:
    assert not plan(question, with_vocabulary=False).sense_check_only  # as main read it
    read = plan(question)
    assert read.sense_check_only and read.ambiguous_term == "cavity"


@pytest.mark.parametrize("question", [
    "Please could you find where the program counts how often each word appears?",
    "where does the pool carve a cavity",  # two words the repository uses
    "who calls the tokenizer, honestly"])
def test_no_sense_check_for_a_question_about_more_than_one_word(question: str) -> None:
    assert not plan(question).sense_check_only


@pytest.mark.parametrize("question", [
    "where is the cavity pull defined", "what happens if no cavity is big enough"])
def test_words_the_repository_lacks_name_no_sense_of_it(question: str) -> None:
    """No meaning asked, but the only word of the repository is 'cavity': a word it never uses
    cannot say which of its senses is meant, so the senses are checked (router29: main read
    these as questions about more than one word, and left every question in another language
    or with typos around the one word unchecked too); a dominant sense runs it as asked."""
    read = plan(question)
    assert read.sense_check_only and read.ambiguous_term == "cavity"


@pytest.mark.parametrize("question", ["What is cavity meaning in this repo?",
                                      "What is meaning of cavity in this repository?"])
def test_the_word_asked_about_is_the_word_not_its_phrase(question: str) -> None:
    """A definition asked with 'meaning' beside the word checks the word's senses (main looked
    for senses of 'cavity meaning' and found none)."""
    assert route_question(question, routing=RoutingPolicy()).ambiguous_term == "cavity"


def test_def_is_a_word_of_asking_what_a_word_means() -> None:
    """'cavity def?': the shorthand for definition names no subject, though code says 'def'."""
    read = plan("cavity def?")
    assert read.sense_check_only and read.ambiguous_term == "cavity"


def test_respell_with_the_vocabulary_starts_the_sense_check() -> None:
    settings = RetrievalSettings()
    question = read_question("whats cavity lol", settings)  # read before the index was open
    assert question.plan.ambiguous_term is None
    late = respell(question, settings, lambda word: None, knows)
    assert late.plan.sense_check_only and late.plan.ambiguous_term == "cavity"
    relayed = read_question('A customer asks what "cavity" means in our library. Could you '
                            'help me answer?', settings)
    assert relayed.plan.ambiguous_term == "answer"  # the clause that asks, without the index
    assert respell(relayed, settings, lambda word: None, knows).plan.ambiguous_term == "cavity"
    plain = read_question("where does the pool carve a cavity", settings)
    assert respell(plain, settings, lambda word: None, knows).plan == plain.plan


@pytest.mark.parametrize("question", [
    "whats cavity lol", "I was hoping you could explain what a cavity means here.",
    "what is a cavity question mark", "New query: define cavity.",
    '@helper relaying from @dev-oncall: "what is a cavity in this repo?"',
    "What is cavity meaning in this repo?"])
def test_an_opening_question_with_chit_chat_asks_which_sense(question: str) -> None:
    """End to end over a repository where 'cavity' has two senses: the clarifier, as for the
    bare 'what is a cavity?'."""
    env = ask(fixture_index("matrix_repo"), question)
    assert env.stop_reason == "dominance_split"
    assert env.clarify is not None and len(env.clarify.options) == 2


@pytest.mark.parametrize("question", [
    "New query: define cavity.", "TASK: explain term 'cavity' in repo",
    "[ci-bot] query: what is a cavity",
    '@helper relaying from @dev-oncall: "what is a cavity in this repo?"',
    'A customer asks what "cavity" means in our library. Could you help me answer?'])
def test_a_label_a_relayed_question_or_a_quoted_word_is_sense_checked(question: str) -> None:
    """What follows a short label and a colon when it reads as a question, a quoted question,
    a quoted word asked about with a phrase naming the whole repository ('our library'): the
    same sense check as the bare question (main searched them as asked, or checked 'answer')."""
    read = plan(question)
    assert read.sense_check_only and read.ambiguous_term == "cavity"


def test_a_quoted_word_with_its_article_is_the_word() -> None:
    read = plan('So I keep hearing people talk about "the cavity" in standup and honestly I '
                'have no idea what it is. What is it?')
    assert read.sense_check_only and read.ambiguous_term == "cavity"


@pytest.mark.parametrize("question", ["Fix: handle the timeout in the tokenizer and the index",
                                      "Note: the index is rebuilt on every query."])
def test_a_label_before_a_statement_asks_nothing(question: str) -> None:
    assert not plan(question).sense_check_only
