"""What the text before a unit's mention says, read once per text (`controller.units`).

A line of thousands of mentions was read again from its start for each one (its tokens, an
equation of units ending there): `Before` tokenizes a text once and answers for the tokens
before any offset as `pattern.findall(text[:offset])` would; `defined` reads only the two
words before the mention's `=` (review30). Pure.
"""

from __future__ import annotations

import re
from bisect import bisect_left

TOKEN = re.compile(r"[\w.,]+|[^\w\s]")  # a word, a number or a mark
WORD = re.compile(r"[\w.,]+")
_MARKS = "#/*-("  # one-character tokens a comment's opener is made of (`unit_markup.noted`)
_ONE = re.compile(r"[\w.,]")
_EQUALS = re.compile(r"\s*[=≈]\s*[\d.,]+\s*[^\W\d_]")
_WORTH_ONE = re.compile(r"(?<![\w.,])[\d.,]*\d\s*[^\W\d_][^\s=≈]*\s*[=≈]\s*1\s*$")


class Before:
    """The tokens of `text` by `pattern`, for those before an offset."""

    def __init__(self, text: str, pattern: re.Pattern[str] = TOKEN) -> None:
        self.text = text
        spans = [m.span() for m in pattern.finditer(text)]
        self.starts = [s for s, _ in spans]
        self.ends = [e for _, e in spans]

    def _tokens(self, first: int, stop: int, at: int) -> list[str]:
        out = [self.text[s:e] for s, e in zip(self.starts[first:stop], self.ends[first:stop],
                                              strict=True)]
        if out and self.ends[stop - 1] > at:  # a word running past `at` ends there
            out[-1] = self.text[self.starts[stop - 1]:at]
        return out

    def last(self, at: int, count: int) -> list[str]:
        """The last `count` tokens of `pattern.findall(text[:at])`."""
        stop = bisect_left(self.starts, at)
        return self._tokens(max(0, stop - count), stop, at)

    def marked(self, at: int) -> list[str]:
        """The end of `pattern.findall(text[:at])` that `noted` and the word before read: its
        run of one-character comment marks and the token before the run."""
        stop = bisect_left(self.starts, at)
        first = stop - 1
        while first >= 0 and self.ends[first] - self.starts[first] == 1 \
                and self.text[self.starts[first]] in _MARKS:
            first -= 1
        return self._tokens(max(0, first), stop, at)


def _back(text: str, at: int, space: bool) -> int:
    """Where the run of blanks (`space`) or of other characters ending at `at` starts."""
    while at > 0 and text[at - 1].isspace() == space:
        at -= 1
    return at


def defined(text: str, start: int, end: int) -> bool:
    """The mention at `start`..`end` is one of the unit in a definition of a unit by another
    ("1 mm = 36000 EMU", "1000 mA = 1 A"): an equation of one unit, which says what a unit is
    worth, not which the quantity is given in."""
    one = _back(text, start, True)  # both forms end with "1" and blanks before the mention
    if one == 0 or text[one - 1] != "1":
        return False
    if (one == 1 or _ONE.match(text, one - 2) is None) and _EQUALS.match(text, end):
        return True  # "1 mm = 36000 EMU"
    equals = _back(text, one - 1, True)
    if equals == 0 or text[equals - 1] not in "=≈":
        return False
    # "1000 mA = 1 A": the equation's two words before the `=` (number and unit, apart or not)
    window = _back(text, _back(text, _back(text, _back(text, equals - 1, True), False), True),
                   False)
    return _WORTH_ONE.search(text, window, start) is not None
