"""Whether a question's subject is a test, read from the syntax of its first clause.

Pure. Round 29 (docs/ranker.md) found that a test word anywhere in a question ("the
strictness-aware test listener", "injected as test method parameters") is a poor sign that the
answer is a test: the word often modifies a noun of the code or sits in a prepositional phrase.
This reads, without a parser library, the two noun phrases a wh-question is about: the
wh-phrase itself ("which test ...", "what fixture ...") and the phrase after the question's
auxiliary ("how does the suite ...", "where is the test that ...", "why do the mapping tests
..."). The subject is a test when a test word heads one of them: nothing follows it in the
phrase but other test words or nouns that name a part of a test suite ("test class", "test
helpers"), or the phrase's main verb ("how does the cache test avoid ...").

A phrase runs from its first word to a preposition, a relative or conjunction word, another
auxiliary or determiner, or the clause's end. The word after the test words is read as the verb
by the clause's shape: after a do-type auxiliary any plain word (the subject's verb comes next,
"how does the test check ..."), unless the phrase ends there at punctuation (then it is the
phrase's own head noun, "the test listener, in ..."); after a form of be or have a participle
("-ed", "-en", "-ing": "where is the test ensuring ..."); after a wh-phrase with no auxiliary
a finite verb ("-s", "-ed": "which test verifies ...").
"""

from __future__ import annotations

import re

from helix.core import english

WH = english.WH_WORDS
WH_DETERMINERS = frozenset(("which", "what", "whose"))
DO_AUX = english.DO_AUXILIARIES
BE_AUX = english.BE_AUXILIARIES
AUX = DO_AUX | BE_AUX
DETERMINERS = english.DETERMINERS
ENDS_PHRASE = english.PHRASE_CLOSERS | AUX | DETERMINERS
TEST_WORDS = frozenset(("test", "tests", "testing", "unittest", "unittests", "pytest",
                        "fixture", "fixtures", "suite", "suites"))
# nouns that name a part of a test suite, so "test class" or "test helpers" is still a test
TEST_PARTS = frozenset((
    "case", "cases", "class", "classes", "method", "methods", "function", "functions",
    "module", "modules", "file", "files", "helper", "helpers", "utility", "utilities",
    "util", "utils", "double", "doubles", "stub", "stubs", "setup", "data", "resource",
    "resources", "harness", "code", "sources", "suite", "suites", "fixture", "fixtures",
))
_CLAUSE_END = re.compile(r"[?;:,()\[\]!]|\s[-\u2013\u2014]\s|\.\s")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'/\-]*")


def first_clause(question: str) -> list[str]:
    """The question's words up to its first clause mark, lower-cased."""
    text = " ".join(question.split())
    end = _CLAUSE_END.search(text)
    return [w.lower() for w in _WORD.findall(text[:end.start()] if end else text)]


def _phrase(words: list[str], start: int) -> tuple[list[str], bool]:
    """The noun phrase from `start` (its leading determiners skipped) and whether it runs to
    the clause's end (no phrase-ending word closed it)."""
    i = start
    while i < len(words) and words[i] in DETERMINERS:
        i += 1
    out: list[str] = []
    for word in words[i:]:
        if word in ENDS_PHRASE:
            return out, False
        out.append(word)
    return out, True


def _is_verb(word: str, shape: str, last: bool, to_end: bool) -> bool:
    if word.endswith("'s"):
        return False  # a possessive: the phrase goes on ("the test runner's ...")
    if shape == "do":
        return not (last and to_end)
    if shape == "be":
        return word.endswith(("ed", "en", "ing"))
    return english.looks_finite_verb(word)


def _headed_by_test(phrase: list[str], shape: str, to_end: bool) -> bool:
    j = 0
    while j < len(phrase):
        if phrase[j] not in TEST_WORDS:
            j += 1
            continue
        k = j + 1
        while k < len(phrase) and phrase[k] in TEST_PARTS:
            k += 1
        if k == len(phrase) or _is_verb(phrase[k], shape, k == len(phrase) - 1, to_end):
            return True
        j = k  # (a test word before `k` is followed by the same parts and word: once a run)
    return False


def _phrases(words: list[str]) -> list[tuple[list[str], str, bool]]:
    """(phrase, clause shape, runs to the clause's end) for the wh-phrase and the phrase after
    the first auxiliary of a wh-question."""
    out: list[tuple[list[str], str, bool]] = []
    if words[0] in WH_DETERMINERS and len(words) > 1 and words[1] not in AUX:
        phrase, to_end = _phrase(words, 1)
        out.append((phrase, "wh", to_end))
    aux = next((i for i, w in enumerate(words) if w in AUX), None)
    if aux is not None:
        phrase, to_end = _phrase(words, aux + 1)
        out.append((phrase, "do" if words[aux] in DO_AUX else "be", to_end))
    return out


def subject_is_test(question: str) -> bool:
    """A test word heads the wh-phrase or the subject of the question's first clause."""
    words = first_clause(question)
    if not words or words[0] not in WH:
        return False
    return any(_headed_by_test(p, shape, to_end) for p, shape, to_end in _phrases(words))
