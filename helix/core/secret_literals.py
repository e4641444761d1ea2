"""Every occurrence of a set of literal values in a text, as one RE2 alternation of them finds
them (pure): left to right, not overlapping, at each place the first value listed that is there.

    literal_spans(text, values) -> [(start, end)]

RE2 keeps such an alternation linear while its DFA fits its memory; a literal of tens of
thousands of characters (a whole adversarial line found as one secret) does not fit, and RE2's
fallback then read the text once per character of the pattern (6.5 s for one 100 KB value).
Past `DFA_LITERALS` characters of values, each value's next place is found by `str.find`."""

from __future__ import annotations

from collections.abc import Sequence

import re2

from helix.core.secret_gates import DFA_MEMORY

DFA_LITERALS = 16_384  # characters of values an alternation holds before `str.find` is used
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.max_mem = DFA_MEMORY
_RE2_OPTIONS.log_errors = False


def literal_spans(text: str, values: Sequence[str]) -> list[tuple[int, int]]:
    if sum(map(len, values)) <= DFA_LITERALS:
        subject: str | bytes = text.encode("ascii") if text.isascii() else text
        pattern = re2.compile("|".join(re2.escape(v) for v in values), options=_RE2_OPTIONS)
        return [m.span() for m in pattern.finditer(subject)]
    out: list[tuple[int, int]] = []
    at = 0
    nexts = [text.find(v) for v in values]  # each value's next place from `at` on (-1: none)
    while True:
        for k, value in enumerate(values):
            if 0 <= nexts[k] < at:
                nexts[k] = text.find(value, at)
        found = [(place, k) for k, place in enumerate(nexts) if place >= 0]
        if not found:
            return out
        place, k = min(found)  # the leftmost, the first listed there
        out.append((place, place + len(values[k])))
        at = place + len(values[k])
