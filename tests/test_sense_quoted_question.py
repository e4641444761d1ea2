"""A question handed over in quotes is the question asked (router26d, issue 32): a tool call
or a JSON request carrying the question as a quoted argument ('run(question="...")'), or a
question relayed in quotes inside a longer message, gets the sense check of the word it asks
about, and the words of a call's form ("LOOKUP word=cavity") are never its subject; and a
quoted word between "what" and "is" ("what a 'cavity' is") asks what a word is.
Main searched these as asked, with no two-option clarifier, whenever the words of the
wrapping (tool, key, greeting) are words the repository also uses."""

from __future__ import annotations

import pytest

from controller.route import asked_clause, route_question
from helix.core.policy import RoutingPolicy

# the repository uses the wrapping's words too ("query", "run", "new", "python" ...)
VOCABULARY = frozenset({"cavity", "pool", "carve", "query", "run", "question", "top", "new",
                        "python", "project", "tell", "good", "morning", "prompt", "helix", "lookup",
                        "word", "mode", "explain"})


def plan(question: str):  # type: ignore[no-untyped-def]
    return route_question(question, routing=RoutingPolicy(), knows=VOCABULARY.__contains__)


@pytest.mark.parametrize("question", [
    'run(question="what does cavity mean")',
    '{"ask": "what is a cavity", "top": 3}',
    "helix_ask(prompt='what is a cavity', top=3)",
    "Good morning. I am new to Python, could you tell me what a 'cavity' is in this project?",
    "LOOKUP word=cavity mode=explain",  # the call's command and argument names: its form
])
def test_the_quoted_question_is_sense_checked(question: str) -> None:
    read = plan(question)
    assert read.ambiguous_term == "cavity"


@pytest.mark.parametrize("text", [
    'grep for "what is" in the pool',  # a quoted text, no question of its own
    '"what is a cavity"',  # the quote is the whole message: nothing around it
    "compare 'what is a pool' with 'where is carve'",  # two quoted questions: which one?
])
def test_no_quoted_question_taken(text: str) -> None:
    assert asked_clause(text) is None or asked_clause(text) != text.strip('"')


def test_the_quoted_question_is_the_clause_asked() -> None:
    assert asked_clause('tool(call="where is carve defined", depth=2)') == \
        "where is carve defined"
