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


def _sums(flags: list[bool]) -> list[int]:
    """Prefix counts: `sums[n]`, the flags set among the first n tokens."""
    sums = [0]
    for flag in flags:
        sums.append(sums[-1] + flag)
    return sums


class _History:
    """What `superseded` asks of one reading, found once for all its tokens (a scan per rival
    unit was quadratic on a long line of them): each token's clause (its sentence, between clause
    marks and the words that open a clause), the counts of
    cues of what holds now, past verbs and reports, the next cue of what holds now after each
    token, and per unit the last mention no report holds (in its clause) and no negation
    reaches."""

    def __init__(self, reading: Reading) -> None:
        tokens, c, count = reading.tokens, cues(), len(reading.tokens)
        self.reading = reading
        edge = [t.text in _CLAUSE_MARKS or t.lower in c.boundary_words for t in tokens]

        def joined(n: int) -> bool:  # tokens n - 1 and n: one clause, walking from either
            return tokens[n - 1].sentence == tokens[n].sentence

        self.first, self.last = list(range(count)), list(range(count))
        for n in range(1, count):
            if not edge[n - 1] and joined(n):
                self.first[n] = self.first[n - 1]
        for n in range(count - 2, -1, -1):
            if not edge[n + 1] and joined(n + 1):
                self.last[n] = self.last[n + 1]
        now = [_now(reading, n) for n in range(count)]
        self.now, self.past = _sums(now), _sums([_past_verb(reading, n) for n in range(count)])
        self.reports = _sums([t.lower in c.reports for t in tokens])
        self.next_now: list[int | None] = [None] * (count + 1)
        for n in range(count - 1, -1, -1):
            self.next_now[n] = n if now[n] else self.next_now[n + 1]
        self.held: dict[str, int] = {}

    def clause(self, at: int) -> range:
        return range(self.first[at], self.last[at] + 1)

    @staticmethod
    def among(sums: list[int], span: range) -> int:
        return sums[span.stop] - sums[span.start]

    def last_held(self, unit: str) -> int:
        """The last mention of `unit` that no report holds and no negation reaches, else -1."""
        if unit not in self.held:
            tokens, denied = self.reading.tokens, self.reading.denied
            self.held[unit] = next(
                (n for n in range(len(tokens) - 1, -1, -1) if not denied[n]
                 and same_unit(tokens[n].text, unit)
                 and not self.among(self.reports, self.clause(n))), -1)
        return self.held[unit]


_LAST: list[_History] = []  # the last reading's (`unit_lines` asks of one reading at a time)


def _history(reading: Reading) -> _History:
    last = _LAST[0] if _LAST else None
    if last is None or last.reading is not reading:
        last = _History(reading)
        _LAST[:] = [last]
    return last


def superseded(reading: Reading, at: int, unit: str) -> bool:
    """Token `at` is in a clause of the past; after that clause a cue of what holds now
    precedes a mention of `unit` that no report holds and no negation reaches: the history is
    over, no second answer."""
    history = _history(reading)
    clause = history.clause(at)
    past = history.among(history.past, clause) - (history.among(history.past, range(at, at + 1)))
    if history.among(history.now, clause) or not past:
        return False
    now = history.next_now[clause.stop]
    return now is not None and history.last_held(unit) > now
