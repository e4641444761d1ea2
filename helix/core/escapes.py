"""String escapes undone, with a map back to the original offsets (pure).

A notebook keeps its cells as JSON strings: `"API_TOKEN = \\"abc\\"\\n"`. A detector that
reads the raw text sees `\\"` where the code has `"`; `unescaped_view` gives the text as the
code reads, and for each of its characters where it stands in the original, so that a span
found in the view is masked in the original.
"""

from __future__ import annotations

_ESCAPES = {"\\\"": "\"", "\\'": "'", "\\\\": "\\", "\\n": "\n", "\\t": "\t", "\\/": "/",
            "\\r": "\r"}


def unescaped_view(text: str) -> tuple[str, list[int]] | None:
    """The text with string escapes undone, and each view character's offset in `text`
    (one more entry: the end). None when the text has no escaped quote."""
    if "\\\"" not in text and "\\'" not in text:
        return None  # no escaped quote: no value can hide behind an escape
    view: list[str] = []
    offsets: list[int] = []
    index, size = 0, len(text)
    while index < size:
        pair = text[index:index + 2]
        if pair in _ESCAPES:
            view.append(_ESCAPES[pair])
            offsets.append(index)
            index += 2
            continue
        view.append(text[index])
        offsets.append(index)
        index += 1
    offsets.append(size)
    return "".join(view), offsets
