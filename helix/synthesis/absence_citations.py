"""The citations of an answer's text (`[E1, E2]`, `path/to/file.py:12-30`) for the absence
readers (`helix.synthesis.absence`), found as one regex's `finditer`, `search` and `sub` would
find them, but reading a run of non-blank characters once: the regex tried `\\S+:\\d+` from
every character of a run and read the rest of the run each time (an answer holding a long
word took seconds: 1.1 s at 30 KB). Only a start before the run's last `:` and digit may end
in one; after it only `[` may open one (review30); where a run of digits and colons refuses
one, no match is tried (review32). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

PATTERN = re.compile(r"\[\s*E\d+(?:\s*[,;\-–]\s*E\d+)*\s*\]|(?![\d:]+\b)\S+:\d+(?:-\d+)?",
                     re.I)
_BRACKETED = re.compile(r"\[\s*E\d+(?:\s*[,;\-–]\s*E\d+)*\s*\]", re.I)
_RUN = re.compile(r"\S+")
_COLON_DIGIT = re.compile(r":\d")
_DIGITS_COLONS = re.compile(r"[\d:]+")
_BOUNDARY = re.compile(r"\b")


def _refused(text: str, start: int, end: int) -> set[int]:
    """The starts in [start, end) where `PATTERN`'s `(?![\\d:]+\\b)` refuses a citation: a run of
    digits and colons from there with a word boundary after some of it, that is before the last
    boundary of the run (`::1::1...` read once, not from each of its characters: 22 s at
    100 KB)."""
    out: set[int] = set()
    for run in _DIGITS_COLONS.finditer(text, start, end):
        last = next((p for p in range(run.end(), run.start(), -1)
                     if _BOUNDARY.match(text, p) is not None), run.start())
        out.update(range(run.start(), last))
    return out


class Citations:
    """`PATTERN`'s `finditer`, `search` and `sub`, reading each run once."""

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        if "[" not in text and _COLON_DIGIT.search(text) is None:
            return  # neither form can open (most prose): no run read
        pos = 0
        for run in _RUN.finditer(text):
            if run.end() <= pos:
                continue
            last = max((m.start() for m in _COLON_DIGIT.finditer(text, run.start(), run.end())),
                       default=-1)
            at, refused = max(run.start(), pos), _refused(text, run.start(), last)
            while at < run.end():
                if at < last and at in refused:
                    match = None  # `(?![\d:]+\b)` refuses it: read once for the run
                elif at < last:
                    match = PATTERN.match(text, at)
                else:  # no `:` and digit after it: only a bracketed citation may open here
                    at = text.find("[", at, run.end())
                    if at < 0:
                        break
                    match = _BRACKETED.match(text, at)
                if match is None:
                    at += 1
                    continue
                yield match
                pos = at = match.end()

    def search(self, text: str) -> re.Match[str] | None:
        return next(self.finditer(text), None)

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str) -> str:
        pieces, last = [], 0
        for match in self.finditer(text):
            pieces += [text[last:match.start()], repl if isinstance(repl, str) else repl(match)]
            last = match.end()
        return "".join(pieces) + text[last:]
