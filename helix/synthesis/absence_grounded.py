"""What an answer's negations rest on (issue 32, absence31): features of the learned absence
head (`helix.synthesis.absence_head`) that tell an answer stating the code's own negatives
("non-transient errors are never retried", "there's no path-based versioning") from a claim
that the material lacks the answer. The difference is where the negation comes from: an
answer's negation repeats one the evidence states (a `not`, `never`, `None`, `False`, `0` in a
code line, a doc sentence with its own negation), a claim's negation is about what was found
and rests on no line.

    grounded        negating clauses of the answer, about no material, telling or speaker, at
                    least half of whose words the evidence holds sit in one negating line or
                    sentence of the evidence ("drafts never appear" beside "Drafts ... never
                    appear in the feed"; "no upscaling" beside "never upscale")

Measured (absence31, at main's per-set settings, left out writer by writer): with `grounded`
the cost 93 -> 84; with also a count of those clauses citing the item holding the line
(83, but one set +3) or of the system negations no line holds (93), not kept.

Deterministic, no encoder call; word lists are helix.core.english's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache

from helix.core.english import (
    MATERIAL_OR_CODE_WORDS,
    MATERIAL_WORDS,
    NEGATION_WORDS,
    SAYING_VERBS,
    SHOWN_PARTICIPLES,
    stems,
    word_alternation,
)
from helix.core.envelope import EvidenceItem
from helix.synthesis.absence import content_terms, evidence_words

__all__ = ["GROUNDED", "grounded"]

GROUNDED = ("grounded",)
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))+(?:[.!?]+|(?=\n)|$)")
_SAID = re.compile(r"[a-z]+(?:['’]t)?")
_CLAUSE_CUT = re.compile(r"[;:,—–()]|\s-\s")
# an evidence line's negation: a word that denies (not "fails", "empty" or "outside", which a
# line states of the code as often as it denies), n't, or a false, empty or zero value
_LINE_NEGATIONS = frozenset(("no", "not", "never", "none", "nothing", "neither", "nor",
                             "cannot", "without", "nowhere"))
_CODE_NEGATIVES = frozenset(("false", "null", "nil", "0"))
_CODE_TOKEN = re.compile(r"[A-Za-z0-9_]+")
# words about the material, telling, the speaker or the speaker's finding: a clause holding one
# is about what was found, not about the code ("appear", "include", "return" stay: code does
# them too)
_ABOUT_FINDING = (MATERIAL_WORDS | MATERIAL_OR_CODE_WORDS | frozenset(SAYING_VERBS)
                  | frozenset(SHOWN_PARTICIPLES)
                  | frozenset(("i", "me", "my", "see", "saw", "seen", "find", "spot", "spotted",
                               "information", "info", "details", "detail", "mention",
                               "mentions", "mentioned")))
# a clause that places what it denies in the material ("isn't in there", "in what was
# returned", "in these files"), or a bare negation continuing a sentence about the material
# ("the evidence shows X, but not Y")
_POINTERS = ("these", "them", "there", "what", "those")
_IN_MATERIAL = re.compile(rf"\bin\s+(?:{word_alternation(_POINTERS)})\b", re.I)
_JOINS = ("but", "and", "yet", "though", "although", "however", "while", "whereas")
_BARE_NEGATIONS = ("not", "nothing", "none", "no")
_TO_LAST_BLANK = re.compile(r"[\s\S]*\s")  # up to the last blank (greedy)
_BARE = re.compile(rf"^\W*(?:(?:{word_alternation(_JOINS)})\s+)?"
                   rf"(?:{word_alternation(_BARE_NEGATIONS)})\b", re.I)
# a path or file name the answer cites or names ("docs/x.md", "retry.py:4-8"): not a word of
# the clause ("docs" names the material only as a word of its own)
# (only from a word's start: tried inside a long word, the pattern was quadratic in its length)
_EXTENSION = r"\.[A-Za-z]{1,5}\b(?::[\d\-–]+)?"  # a file name's end from its dot (":4-8" too)
_PATH = re.compile(rf"(?<![^\s(\[])(?:[^\s(\[]*/\S*|[^\s(\[]+{_EXTENSION})")
_EXTENSION_AT = re.compile(_EXTENSION)
_PIECE_END = re.compile(r"[(\[]")  # where _PATH may start again inside a blank-free word


def _negates(words: Sequence[str]) -> bool:
    """A word of negation, n't, or a code negative ("returns False", "defaults to null")."""
    return any(w in NEGATION_WORDS or w in _CODE_NEGATIVES or w.endswith(("'t", "’t"))
               for w in words)


def _forms(word: str) -> set[str]:
    return {*stems(word, "inflection"), *stems(word, "suffix")}


def _unit_forms(unit: str) -> frozenset[str]:
    return frozenset(f for w in evidence_words((unit,)) for f in _forms(w))


def sentence_units(evidence: Sequence[EvidenceItem]) -> list[tuple[frozenset[str], bool]]:
    """The forms of the words of every line or sentence of the evidence, and whether it
    negates: a word of negation, a contraction in n't, or a code negative (absence_held reads
    the ones that do not)."""
    return list(_text_units(tuple(item.text for item in evidence)))


# the same evidence's units are read twice for every answer checked (grounded, then
# absence_held.held): the last few evidence lists' units remembered
@lru_cache(maxsize=16)
def _text_units(texts: tuple[str, ...]) -> tuple[tuple[frozenset[str], bool], ...]:
    out = []
    for text in texts:
        for line in text.splitlines():
            for s in _SENTENCE.finditer(line):
                unit = s.group()
                said = set(_SAID.findall(unit.lower()))
                codes = {t.lower() for t in _CODE_TOKEN.findall(unit)}
                negates = bool(said & _LINE_NEGATIONS or codes & _CODE_NEGATIVES
                               or any(w.endswith(("'t", "’t")) for w in said))
                out.append((_unit_forms(unit), negates))
    return tuple(out)


def _negating_units(evidence: Sequence[EvidenceItem]) -> list[frozenset[str]]:
    return [forms for forms, negates in sentence_units(evidence) if negates]


def _about_finding(clause: str, before: _Before, start: int) -> bool:
    """A clause about the material, telling or the speaker: its own words, a place in the
    material, or a bare negation after such words earlier in its sentence (before `start`)."""
    clause = _PATH.sub(" ", clause)
    if _IN_MATERIAL.search(clause) or set(_SAID.findall(clause.lower())) & _ABOUT_FINDING:
        return True
    return bool(_BARE.match(clause)) and before.about_finding(start)


def _words_about_finding(text: str) -> bool:
    return bool(set(_SAID.findall(_PATH.sub(" ", text).lower())) & _ABOUT_FINDING)


def _said_about_finding(text: str) -> bool:
    return bool(set(_SAID.findall(text.lower())) & _ABOUT_FINDING)


def _apart(char: str) -> bool:
    """A character no word of _SAID holds (lowered): the words on either side are read apart."""
    return not any(c in "'’" or "a" <= c <= "z" for c in char.lower())


class _Piece:
    """`_words_about_finding` of one piece of a blank-free word (from its start or a `(` or `[`,
    where _PATH may start, to the next), read to ever later ends: _PATH there takes the piece
    up to the end of the file name at its rightmost dot (its run is greedy), so what is read
    is what follows that end. A dot once 6 characters before the end is judged for good
    and its words are read on from where they were (every clause re-read the word: 7 s at
    24 KB of 'no.,')."""

    def __init__(self, text: str, start: int) -> None:
        self.text, self.start = text, start
        self.judged, self.dot = start + 1, -1  # dots before `judged` judged; the rightmost one
        self.name = (-1, 0, 0)  # a dot, the end it was read to, where its file name ends
        self.read: dict[int, tuple[int, bool]] = {}  # from a name's end: read to, about

    def about(self, end: int) -> bool:
        text, name_end = self.text, self._name_end(end)
        upto, about = self.read.get(name_end, (name_end, False))
        if upto > end or (upto > name_end and not _apart(text[upto - 1])):
            upto, about = name_end, False
        about = about or _said_about_finding(text[upto:end])
        self.read[name_end] = (end, about)
        return about

    def _name_end(self, end: int) -> int:
        text, settled = self.text, max(self.judged, end - 6)
        for dot in range(end - 1, settled - 1, -1):  # dots a later character may judge again
            if text[dot] == "." and _EXTENSION_AT.match(text, dot, end):
                return self._ends_at(dot, end)
        dot = text.rfind(".", self.judged, settled)
        while dot >= 0 and not _EXTENSION_AT.match(text, dot, end):
            dot = text.rfind(".", self.judged, dot)
        self.dot, self.judged = self.dot if dot < 0 else dot, settled
        return self.start if self.dot < 0 else self._ends_at(self.dot, end)

    def _ends_at(self, dot: int, end: int) -> int:
        """The file name's end: the same at any later end once it stops 2 before one."""
        last, read_to, name_end = self.name
        if last != dot or name_end + 1 >= read_to:
            match = _EXTENSION_AT.match(self.text, dot, end)
            assert match is not None
            self.name = (dot, end, match.end())
        return self.name[2]


class _PathWord:
    """`_words_about_finding(text[start:end])` of a blank-free word holding a `/` or `.`, for
    ever later ends: piece by piece, a piece's words read once; from a piece holding a `/`
    (_PATH takes the rest of the word) only the pieces before it count."""

    def __init__(self, text: str, start: int) -> None:
        self.text, self.upto, self.slashed, self.before = text, start, False, False
        self.piece = _Piece(text, start)

    def about(self, end: int) -> bool:
        text = self.text
        while not self.slashed:
            cut = _PIECE_END.search(text, self.upto, end)
            stop = end if cut is None else cut.start()
            self.slashed = text.find("/", self.upto, stop) >= 0
            if self.slashed or cut is None:
                self.upto = stop
                break
            self.before = self.before or self.piece.about(stop + 1)
            self.upto, self.piece = stop + 1, _Piece(text, stop + 1)
        return self.before or (not self.slashed and self.piece.about(end))


class _Before:
    """Whether a sentence's words before a point, paths taken out, are about the material: the
    part up to the last blank before it read once (a path never holds a blank, so what a blank
    ends is the same before every later point), the word after it as far as it was not read
    (every clause re-read the whole sentence before it: 6 s at 24 KB)."""

    def __init__(self, sentence: str) -> None:
        self.sentence, self.upto, self.about = sentence, 0, False
        self.scanned = self.cut = 0  # blanks looked for up to `scanned`; the last ends at `cut`
        # the last word: read how far, its finding, and how it is read once it holds a / or .
        self.word: tuple[int, bool, _PathWord | None] = (0, False, None)

    def about_finding(self, start: int) -> bool:
        blank = _TO_LAST_BLANK.match(self.sentence, self.scanned, start)
        self.scanned = start
        if blank is not None:
            self.cut = blank.end()
            self.about = self.about or _words_about_finding(self.sentence[self.upto:self.cut])
            self.upto, self.word = self.cut, (self.cut, False, None)
        return self.about or self._word_about_finding(start)

    def _word_about_finding(self, start: int) -> bool:
        """The word from the last blank to `start`: what it adds to the same word read to an
        earlier clause, while it holds no `/` or `.` (no path: its words are its parts')."""
        upto, about, path = self.word
        part = self.sentence[upto:start]
        if path is None and ("/" in part or "." in part):
            path = _PathWord(self.sentence, self.cut)
        about = path.about(start) if path is not None else about or _words_about_finding(part)
        self.word = (start, about, path)
        return about


def _grounded(clause: str, held: frozenset[str], units: Sequence[frozenset[str]]) -> bool:
    """Whether one negating unit of the evidence holds at least half (and one) of the clause's
    words the evidence holds."""
    terms = [t for t in content_terms(clause) if t not in NEGATION_WORDS]
    known = [_forms(t) for t in terms if _forms(t) & held]
    return bool(known) and any(2 * sum(1 for f in known if f & forms) >= len(known)
                               for forms in units)


def grounded(text: str, evidence: Sequence[EvidenceItem] | None) -> tuple[float, ...]:
    """The `GROUNDED` features of `text` against `evidence`."""
    items = tuple(evidence or ())
    units = _negating_units(items)
    if not units:
        return (0.0,)
    held = frozenset(f for w in evidence_words(e.text for e in items) for f in _forms(w))
    count = 0
    for s in _SENTENCE.finditer(text):
        sentence = s.group().replace("’", "'")
        start, before = 0, _Before(sentence)
        for cut in [*_CLAUSE_CUT.finditer(sentence), None]:
            end = len(sentence) if cut is None else cut.start()
            clause, clause_start = sentence[start:end], start
            start = end if cut is None else cut.end()
            if not _negates(_SAID.findall(clause.lower())) or _about_finding(
                    clause, before, clause_start):
                continue
            count += _grounded(clause, held, units)
    return (math.log1p(count),)
