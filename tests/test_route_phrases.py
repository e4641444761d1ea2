"""The question router's vocabulary is data (controller/route_phrases.toml), compiled by one
compiler (controller/vocabulary.py): every route pattern's examples route to its route by that
pattern (the first that takes them), every named pattern takes its examples, and the compiler
composes lists and fragments without touching a regex's own braces."""

from __future__ import annotations

import pytest
from route_helpers import route_question

from controller.route import _match
from controller.vocabulary import compile_vocabulary, load

VOCABULARY = load()
ROUTE_EXAMPLES = [(phrase.name, phrase.route, example) for phrase in VOCABULARY.routes
                  for example in phrase.examples]


@pytest.mark.parametrize(("name", "route", "example"), ROUTE_EXAMPLES,
                         ids=[f"{n}:{e}" for n, _, e in ROUTE_EXAMPLES])
def test_every_route_example_routes_by_its_pattern(name: str, route: str, example: str) -> None:
    first = next(p.name for p in VOCABULARY.routes if p.regex.match(" ".join(example.split())))
    assert first == name
    assert route_question(example).intent.route == route


@pytest.mark.parametrize("name", sorted(VOCABULARY.patterns))
def test_every_named_pattern_takes_its_examples(name: str) -> None:
    phrase = VOCABULARY.patterns[name]
    assert len(phrase.examples) >= 2 and phrase.purpose
    for example in phrase.examples:
        assert phrase.regex.search(example), example


def test_every_route_has_two_examples() -> None:
    assert all(len(p.examples) >= 2 for p in VOCABULARY.routes)
    assert {p.route for p in VOCABULARY.routes} == {
        "doc_summary", "relation", "usage", "value_check", "location", "explanation",
        "definition"}


def test_the_compiler_composes_lists_fragments_and_actions() -> None:
    vocabulary = compile_vocabulary({
        "fragments": {"tail": r"\s*[?]*$"},
        "lists": {"verbs": ["build", "mak(?:e|es)"]},
        "actions": {"built": "build"},
        "patterns": {"P": {"regex": r"^(?:{verbs}) (?:\w+\s+){0,3}?{actions}{tail}",
                           "flags": ""}}})
    assert vocabulary["P"].pattern == r"^(?:build|mak(?:e|es)) (?:\w+\s+){0,3}?built\s*[?]*$"
    assert vocabulary["P"].match("makes it built?")
    assert not vocabulary["P"].match("Makes it built?")  # flags "": case counts


def test_a_matched_route_keeps_every_group() -> None:
    assert _match("what timeout does connect use by default?") == (
        "value_check", {"quantity": "connect timeout"})
    plan = route_question("what does docs/setup.md say about proxies?")
    assert plan.groups == {"document": "docs/setup.md", "topic": "proxies"}
