"""What a question says besides its route: the facts its answer echoes, read once.

The router (`controller.route.route_question`) builds an `Asked` with the plan; the answer
writers (`controller.answer_routes`, `controller.answer_spans`) and the driver read its fields
and never the question's text: the subject as a sentence says it (with the question's own
article), a location question's auxiliary and verb for "The retry policy is decided in ...",
an explanation's topic as a noun phrase, whether a usage question asks for the calls only and
whether the question names tests. Pure functions of the question's words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pydantic import Field

from controller.test_subject import subject_is_test
from controller.text import contains_phrase, is_identifier, token_set
from controller.vocabulary import load
from helix.core.english import looks_past_tense
from helix.core.schemas import Frozen

VOCABULARY = load()
MAX_SUBJECT_WORDS = 6  # a longer subject is never pasted into a sentence
MAX_SUBJECT_CHARS = 60
MAX_ECHO_WORDS = 8  # a where question's subject echoed by the answer's lead, at most
_PATHLIKE = re.compile(r"/|\.[A-Za-z]\w{0,7}$")  # helix/core/config.py, README.md
_WORDS = re.compile(r"\w+")


class Asked(Frozen):
    """What the answer echoes of the question (`route_question` fills it)."""

    # the main slot's phrases, a location question's unknown trailing verb dropped
    main: tuple[str, ...] = ()
    subject: str | None = None  # main[0] as a sentence says it (None: too long to say)
    # every subject phrase -> as a sentence says it ("the retry policy", "`compute_backoff`")
    shown: dict[str, str] = Field(default_factory=dict)
    # a location question's subject, auxiliary and verb: "the retry policy is decided"
    where_echo: str | None = None
    noun_topic: str | None = None  # "explain X" / "how does X work": X as a noun phrase
    calls_only: bool = False  # a usage question asks who calls (not every reference)
    names_tests: bool = False  # the question says test, tests, tested or testing
    # a test word heads its first clause's subject, read with the question's punctuation
    # (`controller.test_subject`; the routed text drops it)
    test_subject: bool = False
    reads_as_question: bool = False  # a question word first or a question mark last

    def shown_as(self, phrase: str | None) -> str | None:
        return self.shown.get(phrase) if phrase else None


def words_of(text: str) -> list[str]:
    return _WORDS.findall(text.lower())


def _spaced(text: str) -> str:
    return " " + " ".join(words_of(text)) + " "


def with_article(phrase: str, question_words: str) -> str:
    """The phrase with the article the question put before it ("the retry policy")."""
    words = r"\W+".join(re.escape(w) for w in _WORDS.findall(phrase))
    match = re.search(rf"(?i)\b(the|a|an)\s+{words}\b", question_words) if words else None
    return f"{match.group(1).lower()} {phrase}" if match else phrase


def subject_phrase(phrase: str | None, question_words: str = "") -> str | None:
    """The subject as a sentence may say it: an identifier in backticks, a short phrase as
    asked; None for a long one (or one the question never says word for word, such as a topic
    assembled from a long question's words) - a sentence then says "this" instead."""
    if not phrase:
        return None
    bare = phrase.strip().strip("`")
    if (is_identifier(bare) or (bare.isidentifier() and any(c.isupper() for c in bare[1:]))
            or (" " not in bare and _PATHLIKE.search(bare))):
        return f"`{bare}`"
    words = bare.split()
    if not words or len(words) > MAX_SUBJECT_WORDS or len(bare) > MAX_SUBJECT_CHARS:
        return None
    if question_words and _spaced(bare) not in _spaced(question_words):
        return None
    return with_article(bare, question_words)


def main_subject(route: str, main: tuple[str, ...], text: str) -> tuple[str, ...]:
    """"where is the size of a batch calculated?": the subject ends before the verb the
    question ends on (the route keeps verbs it does not know)."""
    if route != "location" or not main or len(main[0].split()) < 2:
        return main
    last = main[0].split()[-1]
    if looks_past_tense(last) and text.lower().endswith(last.lower()):
        return (main[0].rsplit(" ", 1)[0], *main[1:])
    return main


def where_echo(text: str, subject: str | None, main: tuple[str, ...]) -> str | None:
    """"the retry policy is decided": a where question's own subject and verb (its agreement
    is the asker's), when the subject is what stands between the auxiliary and the verb."""
    match = VOCABULARY["WHERE_ECHO"].match(text)
    if not match or not subject or not main:
        return None
    verbs = {*VOCABULARY.actions, *(v for v in VOCABULARY.lists["where_verbs"] if " " not in v)}
    aux, asked, verb = match.group(1).lower(), match.group("subject"), match.group("verb")
    if verb and verb.lower() not in verbs and not looks_past_tense(verb):
        asked, verb = f"{asked} {verb}", None  # the last word belongs to the subject
    bare = VOCABULARY["LEADING_ARTICLE"].sub("", asked)
    if len(asked.split()) > MAX_ECHO_WORDS or words_of(bare) != words_of(main[0]):
        return None
    return f"{subject} {aux} {verb or 'found'}"


def noun_topic(text: str, main: Sequence[str]) -> str | None:
    """The topic as a noun phrase, only when the question is "explain X" / "how does X work"
    (and it names the main subject: `main`, or the terms when there is none)."""
    match = VOCABULARY["EXPLAIN_TOPIC"].match(text)
    topic = (match.group("topic") or match.group("working")) if match else None
    if not topic or VOCABULARY["CLAUSE_LEAD"].match(topic):
        return None
    shown = subject_phrase(VOCABULARY["LEADING_ARTICLE"].sub("", topic), text)
    said = token_set(topic)
    return shown if shown and main and any(contains_phrase(said, p) for p in main if p) else None


def read_asked(route: str, subjects: Mapping[str, Sequence[str]], slot: str, text: str,
               terms: Sequence[str], reads_as_question: bool, as_said: str = "") -> Asked:
    """The facts of `Asked` for a routed question: `text` is its words as asked (scope clause
    removed), `as_said` the same with its punctuation, `slot` its route's main slot, `terms` its
    terms."""
    main = main_subject(route, tuple(subjects.get(slot, ())), text)
    subject = subject_phrase(main[0] if main else None, text)
    phrases = dict.fromkeys((*main, *terms, *(p for values in subjects.values() for p in values)))
    shown = {p: said for p in phrases if (said := subject_phrase(p, text))}
    return Asked(
        main=main, subject=subject, shown=shown,
        where_echo=where_echo(text, subject, main) if route == "location" else None,
        noun_topic=noun_topic(text, main or terms) if route == "explanation" else None,
        calls_only=route == "usage" and bool(VOCABULARY["CALLERS"].search(text)),
        names_tests=bool(VOCABULARY["TESTS"].search(text)),
        reads_as_question=reads_as_question, test_subject=subject_is_test(as_said or text))
