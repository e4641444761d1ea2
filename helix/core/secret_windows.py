"""The prefilter's windows of a text joined into one text, and a span found in it mapped back
to the text's offsets (`secret_prefilter.plan` chooses the windows; `secrets.find_secrets`
reads them).

    compact(text, windows) -> (joined window text, each window's start in it and in `text`)
    map_back(start, end, compact_starts, starts, windows) -> (start, end) in `text`
"""

from __future__ import annotations

import bisect

from helix.core.secret_gates import SEPARATOR

__all__ = ["compact", "map_back"]


def compact(text: str, windows: tuple[tuple[int, int], ...]) -> tuple[str, list[int], list[int]]:
    """The windows' text joined by `separator`, the start of each window in it, and in
    `text` (a span found in the joined text maps back window by window)."""
    separator = SEPARATOR
    pieces, compact_starts, starts = [], [], []
    at = 0
    for start, end in windows:
        compact_starts.append(at)
        starts.append(start)
        pieces.append(text[start:end])
        at += end - start + len(separator)
    return separator.join(pieces), compact_starts, starts


def map_back(span_start: int, span_end: int, compact_starts: list[int], starts: list[int],
             windows: tuple[tuple[int, int], ...]) -> tuple[int, int]:
    """A span of the joined text in the original's offsets (clipped to its window)."""
    index = bisect.bisect_right(compact_starts, span_start) - 1
    offset = starts[index] - compact_starts[index]
    start = span_start + offset
    end = min(span_end + offset, windows[index][1])
    return start, end
