"""What an answer denies, clause by clause (issue 32, absence29): features of the learned
absence head (`helix.synthesis.absence_head`) for claims the encoder never compares because
their sentence names no material nor speaker ("firing.rs shows a hold function, but nothing
about a failed sensor", "Hold at peak: not stated."), each a class of sentence structure:

    denied_asked   the share of the question's words the evidence holds that the answer
                   names in a clause that negates ("...; nothing about what happens when the
                   sensor fails" for "... and what happens if the sensor fails?"; a label
                   before a colon whose value negates, "Hold time: not stated"): the asked
                   thing said missing while the excerpts hold it
    telling        clauses that negate a verb or participle of telling or showing, or name
                   information ("doesn't say", "not stated", "isn't specified", "nothing
                   about", "no information on"): a claim about the material, its subject
                   named or not
    partial        sentences that state something and, after a contrast word or a colon,
                   negate ("the assigner shows the bounds, but doesn't say ...", "Timeout:
                   not stated"): a partial answer's denial of the rest
    elided         sentences whose negation after a contrast word or a comma has no verb of
                   its own and so denies the verb of showing or seeing before it ("the
                   firmware shows the pause, but not how many attempts", "I see the gust
                   limit, but nothing about the restart"): the material said to lack the rest
    conceded       sentences that deny a verb of telling before a contrast word and state
                   something after it in their own voice ("the docs don't say whether it can
                   be changed, but the default is 90 seconds"): a side note conceded on the
                   way to an answer, not a claim that the answer is missing

A clause is a piece of a sentence cut at clause marks (";", a dash, a colon, a comma) and at
contrast words. Deterministic, no encoder call; word lists are helix.core.english's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from helix.core.english import (
    NEGATION_WORDS,
    SAYING_VERBS,
    SHOWN_PARTICIPLES,
    stems,
    word_alternation,
)
from helix.synthesis.absence import content_terms

__all__ = ["DENIAL", "clauses", "denial"]

DENIAL = ("denied_asked", "telling", "partial", "elided", "conceded")
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))+(?:[.!?]+|(?=\n)|$)")
_CONTRAST = word_alternation(("but", "however", "though", "although", "yet", "whereas", "while"))
# (blanks read from the first of their run: from every one, a long run was quadratic)
_CUT = re.compile(rf"(?<!\s)\s*[;:,—–()]\s*|(?<=\s)[;:,—–()]\s*|(?<!\s)\s+-\s+"
                  rf"|(?<!\s)\s+(?={_CONTRAST}\b)", re.I)
_TURN = re.compile(rf"(?:^|[\s,;])(?:{_CONTRAST})\b|:\s", re.I)
_SAID = re.compile(r"[a-z]+(?:['’]t)?")
# a verb or participle of telling or showing, or a word naming information ("nothing about
# X", "no information on X", "no word on X", "no details")
_TELLING = frozenset(SAYING_VERBS) | frozenset(SHOWN_PARTICIPLES) | frozenset(
    ("said", "told", "explained", "indicated", "addressed", "answered", "defined", "detailed",
     "clear", "known", "specify", "spelled", "spelt", "noted", "discussed", "about",
     "information", "info", "details", "detail", "word"))
# a verb of showing or seeing that an elided negation after it denies ("shows A, but not B")
_SHOWING = frozenset(SAYING_VERBS) | frozenset(SHOWN_PARTICIPLES) | frozenset(
    ("see", "sees", "saw", "seen", "showed", "lists", "list", "gives", "give"))
# a negation with no verb of its own right after a contrast word or a comma (the blanks before
# the contrast word read from their first: from every one, a long run of them was quadratic)
_BARE_NEGATIONS = ("not", "nothing", "none", "neither", "nor")
_BARE = re.compile(rf"(?:(?<!\s)\s+(?:{_CONTRAST})\b,?|,)\s+"
                   rf"(?:{word_alternation(_BARE_NEGATIONS)})\b", re.I)
_CONCEDE = re.compile(rf"(?:^|[\s,;])(?:{_CONTRAST})\b", re.I)
_SPEAKER = frozenset(("i", "i'm", "i'd", "i've", "me", "my"))


def _negates(words: Sequence[str]) -> bool:
    return any(w in NEGATION_WORDS or w.endswith(("'t", "’t")) for w in words)


def _forms(word: str) -> set[str]:
    return {*stems(word, "inflection"), *stems(word, "suffix")}


def clauses(text: str) -> list[str]:
    """The clauses of `text`: each sentence cut at clause marks and contrast words."""
    return [c.strip() for s in _SENTENCE.finditer(text) for c in _CUT.split(s.group())
            if c.strip()]


def _labelled(text: str) -> list[str]:
    """The labels of the sentences whose value after a colon negates ("Full disk: not
    stated"): what the value says is missing."""
    out = []
    for s in _SENTENCE.finditer(text):
        label, colon, value = s.group().partition(": ")
        if colon and _negates(_SAID.findall(value.lower())) \
                and not _negates(_SAID.findall(label.lower())):
            out.append(label)
    return out


def _partial(sentence: str) -> bool:
    """A sentence that states before a contrast word or a colon and negates after it."""
    turn = _TURN.search(sentence)
    if turn is None or turn.start() == 0:
        return False
    before = _SAID.findall(sentence[:turn.start()].lower())
    after = _SAID.findall(sentence[turn.end():].lower())
    return bool(before) and not _negates(before) and _negates(after)


def _elided(sentence: str) -> bool:
    """A negation with no verb of its own after a contrast or a comma (`_BARE`), a verb of
    showing or seeing before it, not negated."""
    bare = _BARE.search(sentence)
    if bare is None:
        return False
    before = _SAID.findall(sentence[:bare.start()].lower())
    return bool(set(before) & _SHOWING) and not _negates(before)


def _conceded(sentence: str) -> bool:
    """A negated verb of telling before a contrast word, a statement after it with no negated
    telling and no first person singular."""
    turn = _CONCEDE.search(sentence)
    if turn is None or turn.start() == 0:
        return False
    before = _SAID.findall(sentence[:turn.start()].lower().replace("’", "'"))
    after = _SAID.findall(sentence[turn.end():].lower().replace("’", "'"))
    told = _negates(before) and bool(set(before) & _TELLING)
    return told and bool(after) and not set(after) & _SPEAKER \
        and not (_negates(after) and set(after) & _TELLING)


def denial(text: str, question: str | None, held: frozenset[str]) -> tuple[float, ...]:
    """The `DENIAL` features of `text` (`held`: the forms of the evidence's words)."""
    negated = [c for c in clauses(text) if _negates(_SAID.findall(c.lower()))]
    denied = {f for c in negated + _labelled(text) for t in content_terms(c) for f in _forms(t)}
    asked = [t for t in content_terms(question or "") if _forms(t) & held]
    share = sum(1 for t in asked if _forms(t) & denied) / len(asked) if asked else 0.0
    telling = sum(1 for c in negated if set(_SAID.findall(c.lower())) & _TELLING)
    sentences = [s.group() for s in _SENTENCE.finditer(text)]
    partial = sum(1 for s in sentences if _partial(s))
    elided = sum(1 for s in sentences if _elided(s))
    conceded = sum(1 for s in sentences if _conceded(s))
    return (round(share, 6), math.log1p(telling), math.log1p(partial), math.log1p(elided),
            math.log1p(conceded))
