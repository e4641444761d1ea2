"""A misspelt question word is read as the word (router26d, issue 32): the question words are
a closed class, so a slip of one is found by how it sounds ("wot", "hoo", "y") or by one edit
("wher", "wich"), only where a question word stands (first in a clause, with a word after
it), and a word English has ("wat", "wen") only before a word that follows question words.
Main read "hoo calls the tokenizer" as a report about "hoo", and "wot is a cavity round here"
with no two-option clarifier."""

from __future__ import annotations

import pytest

from controller.continuity.router import route_turn
from controller.continuity.state import ContinuityState
from controller.question_words import question_word, respelt_question_words
from controller.route import route_question
from helix.core.config import ContinuitySettings
from helix.core.policy import RoutingPolicy

VOCABULARY = frozenset({"cavity", "pool", "carve", "tokenizer"})


@pytest.mark.parametrize(("typed", "following", "word"), [
    ("wot", "is", "what"), ("whut", "does", "what"), ("hoo", "wrote", "who"),
    ("hu", "imports", "who"), ("y", "does", "why"), ("wy", "is", "why"),
    ("wher", "is", "where"), ("wear", "is", "where"), ("wich", "module", "which"),
    ("wen", "does", "when"), ("wat", "happens", "what"), ("haw", "does", "how"),
])
def test_a_misspelt_question_word_is_read_as_the_word(typed: str, following: str,
                                                       word: str) -> None:
    assert question_word(typed, following) == word


@pytest.mark.parametrize(("typed", "following"), [
    ("wen", "i"),  # a word English has, before no question word's follower
    ("y", "el"),  # "y" alone before no word that follows "why"
    ("hoe", "sure"),
    ("war", "is"), ("way", "is"), ("hi", "there"), ("were", "they"), ("what", "is"),
])
def test_other_words_are_left_alone(typed: str, following: str) -> None:
    assert question_word(typed, following) is None


@pytest.mark.parametrize("text", ["yes/no? y/n", "set config.y to 2", "the wot module",
                                  "pool hoo"])
def test_only_where_a_question_word_stands(text: str) -> None:
    assert respelt_question_words(text) == (text, ())


def test_a_clause_after_a_label_and_a_clitic() -> None:
    assert respelt_question_words("next one: wot's the pool for") == (
        "next one: what's the pool for", (("wot", "what"),))


def plan_of(question: str):  # type: ignore[no-untyped-def]
    return route_question(question, routing=RoutingPolicy(), knows=VOCABULARY.__contains__)


@pytest.mark.parametrize(("typed", "spelt"), [
    ("hoo calls the tokenizer", "who calls the tokenizer"),
    ("wen does the pool carve", "when does the pool carve"),
    ("y does carve fail", "why does carve fail"),
])
def test_a_question_routes_as_if_spelt(typed: str, spelt: str) -> None:
    assert plan_of(typed).intent.route == plan_of(spelt).intent.route
    assert plan_of(typed).subjects == plan_of(spelt).subjects


@pytest.mark.parametrize("question", ["wot is a cavity round here", "whut's a cavity"])
def test_the_word_asked_about_is_sense_checked(question: str) -> None:
    assert plan_of(question).ambiguous_term == "cavity"


def test_the_router_reads_the_message_respelt() -> None:
    state = ContinuityState(session_id="s")
    typed = route_turn(state, "hoo calls carve", None, ContinuitySettings())
    spelt = route_turn(state, "who calls carve", None, ContinuitySettings())
    assert typed.intent == spelt.intent and typed.transition == spelt.transition
