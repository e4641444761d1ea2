"""A rival unit in a history a line ends with what holds now (pure, meaning33): "Release 1 stored
the heading in radians; today it is kept in degrees" gives no second answer to "is the heading
in degrees?".

    superseded(reading, at, unit) -> token `at` is in a clause of the past, and a cue of what
        holds now follows that clause, then the asked unit, no report's ("the docs now say ...")

A clause is of the past when it holds a verb in the past tense (`past_tense`, `past_forms`, a
word ending in "-ed" no form of "be" or "have" governs: "stored", "switched", "showed"), and no
cue of what holds now (`superseded_by`: "now", "since", "today", "no longer"). The leftovers of
two tune sets show it: "1.0 used kgf·cm, 2.0 switched to lbf·in, and since 3.0 every torque value
is N·m" (fresh22); "The old greenhouse panel showed percent, ... That is no longer an issue:
every CO2 value we store and display is in ppm." (fresh32).
"""

from __future__ import annotations

from controller.unit_names import same_unit
from helix.core.negation import Reading
from helix.core.negation_cues import cues
from helix.core.negation_tokens import match

_CLAUSE_MARKS = frozenset(",;:—–|()")
_REGULAR_PAST = "ed"
_NOT_PAST = "eed"  # "speed", "need": no past tense
_CONJUNCTIONS = frozenset({"since", "once", "before", "until"})  # of time, cause or order
_VERSION_WORDS = 3  # "since 3.0", "since release 3", "since v3"
_SHORTEST_PAST = 5  # "moved"; shorter words in "-ed" are no verbs ("red", "bed")


def _clause(reading: Reading, at: int) -> range:
    """The tokens of token `at`'s clause: its sentence, between clause marks and the words that
    open a clause."""
    tokens, c = reading.tokens, cues()
    sentence = tokens[at].sentence

    def edge(n: int) -> bool:
        return (tokens[n].sentence != sentence or tokens[n].text in _CLAUSE_MARKS
                or tokens[n].lower in c.boundary_words)

    first = at
    while first > 0 and not edge(first - 1):
        first -= 1
    last = at
    while last + 1 < len(tokens) and not edge(last + 1):
        last += 1
    return range(first, last + 1)


def _past_verb(reading: Reading, n: int) -> bool:
    tokens, c = reading.tokens, cues()
    word = tokens[n].lower
    if match(tokens, n, c.past_tense) or word in c.past_forms:
        return True
    governed = n > 0 and tokens[n - 1].lower in c.present_auxiliaries
    return (word.endswith(_REGULAR_PAST) and not word.endswith(_NOT_PAST)
            and len(word) >= _SHORTEST_PAST and word.isalpha() and not governed)


def _now(reading: Reading, n: int) -> bool:
    """Token `n` is a cue of what holds now; one of time that is also a conjunction of cause or
    order ("since", "once") only before a version or a year ("since 3.0", not "since the
    manual says ...")."""
    tokens = reading.tokens
    if not match(tokens, n, cues().superseded_by):
        return False
    after = [t for t in tokens[n + 1:n + 1 + _VERSION_WORDS] if t.sentence == tokens[n].sentence]
    return tokens[n].lower not in _CONJUNCTIONS or any(
        ch.isdigit() for t in after for ch in t.text)


def _held(reading: Reading, n: int) -> bool:
    """The mention at token `n` is no report's ("the docs now say ppm") and no negation
    reaches it."""
    return not reading.denied[n] and not any(
        reading.tokens[j].lower in cues().reports for j in _clause(reading, n))


def superseded(reading: Reading, at: int, unit: str) -> bool:
    """Token `at` is in a clause of the past; after that clause a cue of what holds now
    precedes a mention of `unit` that no report holds and no negation reaches: the history is
    over, no second answer."""
    tokens = reading.tokens
    clause = _clause(reading, at)
    if any(_now(reading, n) for n in clause) \
            or not any(_past_verb(reading, n) for n in clause if n != at):
        return False
    now = next((n for n in range(clause.stop, len(tokens)) if _now(reading, n)), None)
    return now is not None and any(same_unit(tokens[n].text, unit) and _held(reading, n)
                                   for n in range(now + 1, len(tokens)))
