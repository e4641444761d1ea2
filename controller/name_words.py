"""Definitions whose names spell the question's words (the `name_words` channel).

Natural questions describe what they ask about instead of naming it: "the string
representation method of the base component class" is `BaseComponent.__repr__`, "the flag
that records whether setup already ran" `_setup_done`. Whole-chunk BM25 sees a definition's
name among hundreds of body words; this channel reads the names alone. Every definition is a
short document of its qualified name's parts (the owner's too, stemmed like the question, short
forms spelled out: `ctx` also reads "context"); the question's content words rank them by BM25
over those documents (a word many names share says little; a long qualified name is damped),
and a definition needs two of the words. The table is built once per index revision and kept
in memory (the last few revisions); the ranking itself is pure.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

from controller.revision_cache import PerRevision
from controller.text import name_tokens, spelled_out
from indexers.api import IndexReader
from indexers.formats import DefRow

# BM25's saturation and length damping (tf is 1: a name word counts once)
_K1 = 1.2
_B = 0.75
_MIN_WORDS = 2


class NameTable:
    """Each definition's name words and each word's postings and idf."""

    def __init__(self, defs: Sequence[DefRow]) -> None:
        self.defs = list(defs)
        self.lengths: list[int] = []
        postings: dict[str, list[int]] = {}
        parts: dict[str, frozenset[str]] = {}  # an owner's name is every member's
        for number, definition in enumerate(self.defs):
            words: frozenset[str] = frozenset()
            for part in definition.qualname.split("."):
                found = parts.get(part)
                if found is None:
                    found = parts[part] = spelled_out(name_tokens(part))
                words = words | found
            self.lengths.append(len(words))
            for word in words:
                postings.setdefault(word, []).append(number)
        self.postings = postings
        count = max(len(self.defs), 1)
        self.average = (sum(self.lengths) / count) or 1.0
        self.idf = {w: math.log(1.0 + (count - len(p) + 0.5) / (len(p) + 0.5))
                    for w, p in postings.items()}
        # BM25's denominator of each definition (its length damping), once per table
        self.damping = [1.0 + _K1 * (1.0 - _B + _B * length / self.average)
                        for length in self.lengths]

    def rank(self, words: frozenset[str], limit: int) -> list[tuple[float, DefRow]]:
        """The definitions whose names hold at least two of `words`, best first (by idf);
        ties in (path, start line, qualified name) order. One shared word says little: every
        question word names something somewhere."""
        scores: dict[int, float] = {}
        hits: dict[int, int] = {}
        damping = self.damping
        for word in sorted(words):
            weight = self.idf.get(word, 0.0) * (_K1 + 1)
            for number in self.postings.get(word, ()):
                scores[number] = scores.get(number, 0.0) + weight / damping[number]
                hits[number] = hits.get(number, 0) + 1
        kept = [(round(s, 9), n) for n, s in scores.items() if hits[n] >= _MIN_WORDS]
        # the first `limit` of the sorted list (nsmallest is that, stable), without sorting all
        first = heapq.nsmallest(limit, kept, key=lambda t: (
            -t[0], self.defs[t[1]].path, self.defs[t[1]].start_line, self.defs[t[1]].qualname))
        return [(score, self.defs[n]) for score, n in first]


_TABLES: PerRevision[NameTable] = PerRevision(lambda index: NameTable(index.definition_rows()))


def name_table(index: IndexReader) -> NameTable:
    """The table of the index's revision, built on first use (`controller.revision_cache`)."""
    return _TABLES(index)
