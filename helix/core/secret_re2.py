"""RE2's compiled program searched directly: the wrapper's `search` and `finditer` build a
generator and a match object per call, which the scan's hot loops (a trigger per line, a
secret word per name) pay thousands of times a text; on bytes its offsets need no decoding.

    first(pattern, subject, at) -> (start, end) of the first match at or after `at`, or None
    spans(pattern, subject) -> each match's (start, end), as `finditer` finds them
    line_spans(pattern, subject) -> each matching line's first match start and the line's end
"""

from __future__ import annotations

from collections.abc import Iterator

import re2

_UNANCHORED = re2._re2.RE2.Anchor.UNANCHORED


def first(pattern: object, subject: bytes, at: int = 0) -> tuple[int, int] | None:
    """The first match of a compiled `re2` pattern in `subject[at:]` (byte offsets)."""
    start, end = pattern._regexp.Match(  # type: ignore[attr-defined]
        _UNANCHORED, subject, at, len(subject))[0]
    return None if start < 0 else (start, end)


def spans(pattern: object, subject: bytes) -> Iterator[tuple[int, int]]:
    """Every match of a compiled `re2` pattern in `subject`, left to right, as the wrapper's
    `finditer` finds them (past an empty match, the next search starts one byte on)."""
    search = pattern._regexp.Match  # type: ignore[attr-defined]
    size = len(subject)
    at = 0
    while True:
        start, end = search(_UNANCHORED, subject, at, size)[0]
        if start < 0:
            return
        yield start, end
        if at == size:
            return
        at = at + 1 if at == end else end


def line_spans(pattern: object, subject: bytes) -> list[tuple[int, int]]:
    """Each trigger match's start and the end of the line it ends on; the next search from
    that line's end (a line is matched once)."""
    spans = []
    at = 0
    size = len(subject)
    while (match := first(pattern, subject, at)) is not None:
        end = subject.find(b"\n", match[1])
        end = size if end == -1 else end
        spans.append((match[0], end))
        if end == size:
            break
        at = max(end, match[0] + 1)  # an empty match on a newline still moves on
    return spans
