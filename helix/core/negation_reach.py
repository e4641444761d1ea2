"""Where a scope of `helix.core.negation` ends, found without walking it, and the counts of the
cues reaching each token kept by range (pure): a line of thousands of cues in one clause is
read in about linear time, not once per cue.

    Levels(tokens, boundary) -> .forward_end(origin, start), .backward_end(origin)
    Counts(n) -> .add(lo, hi, value), .get(i), .values(): a Fenwick tree of range additions
    Parities(n) -> Counts that .make_even(indexes) too, run by run of one parity
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import pairwise
from typing import Protocol

_PARENS = frozenset({"(", ")"})


class _Token(Protocol):
    @property
    def text(self) -> str: ...
    @property
    def depth(self) -> int: ...
    @property
    def sentence(self) -> int: ...


class Levels:
    """A scope opened at token `origin` (sentence s, depth d) stops at the first token of
    another sentence, of a smaller depth, or at depth d a clause boundary that is no
    parenthesis. As one number, `level` = 2 * depth - (1 at such a boundary): the scope stops at
    a level below 2 * d. The nearest lower level each way is a chain of next-smaller pointers,
    each step strictly lower, so a search takes about as many steps as the depths it crosses."""

    def __init__(self, tokens: Sequence[_Token], boundary: Sequence[bool]) -> None:
        n = len(tokens)
        self.level = [2 * t.depth - (1 if b and t.text not in _PARENS else 0)
                      for t, b in zip(tokens, boundary, strict=True)]
        self.sentence, self.depth = [t.sentence for t in tokens], [t.depth for t in tokens]
        self.after, self.before = [n] * n, [-1] * n  # the next / previous lower level
        stack: list[int] = []
        for i, level in enumerate(self.level):
            while stack and self.level[stack[-1]] > level:
                self.after[stack.pop()] = i
            stack.append(i)
        stack = []
        for i in range(n - 1, -1, -1):
            while stack and self.level[stack[-1]] > self.level[i]:
                self.before[stack.pop()] = i
            stack.append(i)
        self.first: dict[int, int] = {}  # each sentence's first token and the one after its last
        self.last: dict[int, int] = {}
        for i, s in enumerate(self.sentence):
            self.first.setdefault(s, i)
            self.last[s] = i + 1

    def forward_end(self, origin: int, start: int) -> int:
        """The first token from `start` on that ends the scope opened at `origin` (or len)."""
        limit = self.last[self.sentence[origin]]
        floor, i = 2 * self.depth[origin], start
        while i < limit and self.level[i] >= floor:
            i = self.after[i]
        return min(i, limit) if start < limit else start

    def backward_end(self, origin: int) -> int:
        """The first token before `origin`, walking back, that ends its scope (or -1)."""
        limit = self.first[self.sentence[origin]] - 1
        floor, i = 2 * self.depth[origin], origin - 1
        while i > limit and self.level[i] >= floor:
            i = self.before[i]
        return max(i, limit)


class Counts:
    """Counts per index under additions over ranges: a Fenwick tree of the differences."""

    def __init__(self, n: int) -> None:
        self.n, self.tree, self.diff = n, [0] * (n + 1), [0] * (n + 1)

    def _add_from(self, i: int, value: int) -> None:
        i += 1
        while i <= self.n:
            self.tree[i] += value
            i += i & -i

    def add(self, lo: int, hi: int, value: int = 1) -> None:
        if lo < hi:
            self.diff[lo] += value
            self.diff[hi] -= value
            self._add_from(lo, value)
            if hi < self.n:
                self._add_from(hi, -value)

    def get(self, i: int) -> int:
        total, i = 0, i + 1
        while i > 0:
            total += self.tree[i]
            i -= i & -i
        return total

    def values(self) -> list[int]:
        out, running = [], 0
        for i in range(self.n):
            running += self.diff[i]
            out.append(running)
        return out


class Parities(Counts):
    """Counts that can also be made even over indexes (a double negation: every odd count one
    more), kept with the places where the parity changes (from index i - 1 to i), so a range is
    made even run by run of one parity, not index by index (a line of "not wrong" repeated made
    each of its thousands of cues walk the rest of the line)."""

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.changes: list[int] = []  # sorted

    def _toggle(self, i: int) -> None:
        if 0 < i < self.n:
            k = bisect_left(self.changes, i)
            if k < len(self.changes) and self.changes[k] == i:
                del self.changes[k]
            else:
                self.changes.insert(k, i)

    def add(self, lo: int, hi: int, value: int = 1) -> None:
        super().add(lo, hi, value)
        if lo < hi and value % 2:
            self._toggle(lo)
            self._toggle(hi)

    def make_even(self, indexes: Sequence[int]) -> None:
        spans = [(indexes.start, indexes.stop)] if isinstance(indexes, range) and \
            indexes.step == 1 else [(j, j + 1) for j in indexes]
        for lo, hi in spans:
            if lo >= hi:
                continue
            a, b = bisect_right(self.changes, lo), bisect_left(self.changes, hi)
            cuts, odd = [lo, *self.changes[a:b], hi], self.get(lo) % 2 == 1
            for k, (start, stop) in enumerate(pairwise(cuts)):
                if odd != (k % 2 == 1):
                    super().add(start, stop, 1)
            del self.changes[a:b]
            if odd:
                self._toggle(lo)
            if odd != ((b - a) % 2 == 1):
                self._toggle(hi)
