"""String escapes undone, with a map back to the original offsets (pure).

A notebook keeps its cells as JSON strings: `"API_TOKEN = \\"abc\\"\\n"`. A detector that
reads the raw text sees `\\"` where the code has `"`; `unescaped_view` gives the text as the
code reads, and for each of its characters where it stands in the original, so that a span
found in the view is masked in the original.
"""

from __future__ import annotations

import re

_ESCAPES = {"\\\"": "\"", "\\'": "'", "\\\\": "\\", "\\n": "\n", "\\t": "\t", "\\/": "/",
            "\\r": "\r"}
_ESCAPE = re.compile(r"\\[\"'\\nt/r]")


def unescaped_view(text: str) -> tuple[str, list[int]] | None:
    """The text with string escapes undone, and each view character's offset in `text`
    (one more entry: the end). None when the text has no escaped quote."""
    found = unescaped_changes(text)
    return None if found is None else found[:2]


def unescaped_changes(text: str) -> tuple[str, list[int], list[int]] | None:
    """`unescaped_view`, and the view positions of the characters an escape became."""
    if "\\\"" not in text and "\\'" not in text:
        return None  # no escaped quote: no value can hide behind an escape
    parts: list[str] = []
    offsets: list[int] = []
    changed: list[int] = []
    at = 0
    for match in _ESCAPE.finditer(text):
        start = match.start()
        parts.append(text[at:start])
        offsets.extend(range(at, start))
        changed.append(len(offsets))
        parts.append(_ESCAPES[match.group()])
        offsets.append(start)
        at = match.end()
    parts.append(text[at:])
    offsets.extend(range(at, len(text)))
    offsets.append(len(text))
    return "".join(parts), offsets, changed
