"""Close names among many: `resolve.fuzzy_names`' answer without its cost on a large index.

`fuzzy_names(name, keys, limit)` scans every key three times and runs difflib's
`get_close_matches` over all of them: on the 300,000 names of a 20,000-file repository that is
2-3 s, paid by every question whose symbol has no exact definition. `FuzzyNames` gives the same
list (same names, same order) faster:

- the lowercase keys are computed once, and the substring matches are found in one pass over
  the keys in (length, name) order (`fuzzy_names` sorts them that way);
- difflib's ratio is 2M/T where M, the characters of its matching blocks, is at most the length
  of the longest common subsequence of the two names: keys whose LCS bound 2*LCS/T is below the
  cutoff can never be close matches. The LCS length of the name against every key is computed
  at once, bit-parallel (Hyyro's algorithm: one 64-bit word per key, one numpy step per
  character position), and only the survivors go through difflib, scored exactly as
  `get_close_matches` scores them (same SequenceMatcher, same checks, same tie order). A name
  over 64 characters uses the weaker bound of difflib's own `quick_ratio` (the size of the
  character multiset intersection).
"""

from __future__ import annotations

import difflib
import heapq
from collections import Counter
from collections.abc import Sequence

import numpy as np

from indexers.resolve import FUZZY_CUTOFF

_SLACK = 1e-9  # the numpy bound may round differently: keep anything within it


class FuzzyNames:
    """The names `fuzzy_names` would search, prepared once for many lookups."""

    def __init__(self, keys: Sequence[str]) -> None:
        self.keys = list(keys)
        self.lower = [k.lower() for k in self.keys]
        lengths = np.fromiter(map(len, self.keys), dtype=np.int64, count=len(self.keys))
        self._lengths = lengths
        # (length, name) order; the keys come sorted, so a stable sort by length gives it
        order = np.argsort(lengths, kind="stable")
        if any(a > b for a, b in zip(self.keys, self.keys[1:], strict=False)):
            order = np.array(sorted(range(len(self.keys)),
                                    key=lambda i: (len(self.keys[i]), self.keys[i])),
                             dtype=np.int64)
        self._by_length = order.tolist()
        joined = "".join(self.keys)
        self._codes = (np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32)
                       if joined else np.zeros(0, dtype=np.uint32))
        # Bit-parallel LCS, by character position: the keys at least j+1 characters long are a
        # prefix of the longest-first order; their j-th characters, as indexes into the keys'
        # alphabet, are laid out per position once.
        if len(self._codes) and int(self._codes.max()) < 1 << 16:  # a lookup table: no sort
            present = np.bincount(self._codes, minlength=1 << 16) > 0
            alphabet = np.flatnonzero(present).astype(np.uint32)
            lookup = np.cumsum(present) - 1
            small = lookup[self._codes]
        elif len(self._codes):
            alphabet, small = np.unique(self._codes, return_inverse=True)
        else:
            alphabet, small = np.zeros(0, dtype=np.uint32), np.zeros(0, dtype=np.int64)
        self._alphabet = alphabet
        starts = np.zeros(len(self.keys), dtype=np.int64)
        if len(self.keys) > 1:
            np.cumsum(lengths[:-1], out=starts[1:])
        self._longest_first = np.argsort(-lengths, kind="stable")
        ordered_lengths = lengths[self._longest_first]
        ordered_starts = starts[self._longest_first]
        small = small.astype(np.int32)
        self._columns: list[np.ndarray] = []
        for position in range(int(ordered_lengths[0]) if len(self.keys) else 0):
            active = int(np.searchsorted(-ordered_lengths, -position, side="left"))
            self._columns.append(small[ordered_starts[:active] + position])

    def _lcs_lengths(self, name: str) -> np.ndarray:
        """Length of the longest common subsequence of `name` (at most 64 characters) and
        every key, bit-parallel over the keys (Hyyro 2004: V' = (V + U) | (V - U), U = V & M)."""
        masks = np.zeros(len(self._alphabet), dtype=np.uint64)
        for bit, c in enumerate(name):
            found = int(np.searchsorted(self._alphabet, ord(c)))
            if found < len(self._alphabet) and int(self._alphabet[found]) == ord(c):
                masks[found] |= np.uint64(1 << bit)
        full = np.uint64((1 << len(name)) - 1)
        state = np.full(len(self.keys), full, dtype=np.uint64)  # in longest-first order
        for column in self._columns:
            v = state[:len(column)]
            u = v & masks[column]
            state[:len(column)] = ((v + u) | (v - u)) & full
        lcs = np.empty(len(self.keys), dtype=np.int64)
        lcs[self._longest_first] = len(name) - np.bitwise_count(state).astype(np.int64)
        return lcs

    def _quick_ratios(self, name: str) -> np.ndarray:
        """difflib's quick_ratio of `name` against every key."""
        counts = Counter(name)
        chars = np.array(sorted(ord(c) for c in counts), dtype=np.uint32)
        limits = np.array([counts[chr(c)] for c in chars.tolist()], dtype=np.int64)
        matches = np.zeros(len(self.keys), dtype=np.int64)
        if len(self._codes) and len(chars):
            position = np.searchsorted(chars, self._codes)
            clipped = np.minimum(position, len(chars) - 1)
            hit = chars[clipped] == self._codes
            owner = np.repeat(np.arange(len(self.keys), dtype=np.int64), self._lengths)
            owners, which = owner[hit], clipped[hit]
            for index in range(len(chars)):  # per distinct character of the name
                per_key = np.bincount(owners[which == index], minlength=len(self.keys))
                matches += np.minimum(per_key, limits[index])
        total = self._lengths + len(name)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(total > 0, 2.0 * matches / np.maximum(total, 1), 1.0)

    def _close(self, name: str, n: int, cutoff: float) -> list[str]:
        """`difflib.get_close_matches(name, self.keys, n, cutoff)`."""
        if n <= 0 or not self.keys:
            return []
        if 0 < len(name) <= 64:
            bound = 2.0 * self._lcs_lengths(name) / (self._lengths + len(name))
        else:
            bound = self._quick_ratios(name)
        candidates = np.flatnonzero(bound >= cutoff - _SLACK)
        matcher = difflib.SequenceMatcher()
        matcher.set_seq2(name)
        result: list[tuple[float, str]] = []
        for index in candidates.tolist():
            x = self.keys[index]
            matcher.set_seq1(x)
            if (matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff
                    and matcher.ratio() >= cutoff):
                result.append((matcher.ratio(), x))
        return [x for _, x in heapq.nlargest(n, result)]

    def close_names(self, name: str, limit: int) -> list[str]:
        """`indexers.resolve.fuzzy_names(name, self.keys, limit)`."""
        lowered = name.lower()
        exactish = [k for k, low in zip(self.keys, self.lower, strict=True) if low == lowered]
        taken = set(exactish)
        contains: list[str] = []
        for index in self._by_length:  # (len, name) order: the first `limit` are the ones kept
            if len(contains) >= limit:
                break
            key = self.keys[index]
            if lowered in self.lower[index] and key not in taken:
                contains.append(key)
        shown = taken | set(contains)
        close = [k for k in self._close(name, limit, FUZZY_CUTOFF) if k not in shown]
        return (exactish + contains + sorted(close))[:limit]
