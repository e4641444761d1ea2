"""Views of a text in which a value split over lines reads whole, with a map back to the
original offsets (pure), so the rules that read one line find it and mask it where it stands.

- `joined_view`: lines continued with a backslash (`.properties`, shell `export X=\\`, a curl
  command over several lines) joined, the next line's indentation dropped; and a string
  literal continued on the next line (`"abc"\\n "def"` in Python, `"abc" +\\n "def"` in
  JavaScript and Java) joined into one literal; a literal opening the line after its
  assignment's `=` (`KEY =\n "abc" +\n "def";`) brought up to it.
- `unescaped_view` (helix.core.escapes): a notebook's JSON strings with their escapes undone.

    joined_view(text) -> (view, offsets) | None   (offsets[i]: where view[i] stands in text)
"""

from __future__ import annotations

import re

# a backslash ending a line, and the next line's indentation
_CONTINUED = re.compile(r"\\\r?\n[ \t]*")
# a string literal closed at the end of a line and another opened on the next: the closing
# quote, an optional `+`, the line break and indentation, and the opening quote
_SPLIT_STRING = re.compile(r"([\"'])[ \t]*\+?[ \t]*\r?\n[ \t]*\+?[ \t]*\1")
# an assignment's `=` ending a line, its literal opening the next (`API_SECRET =\n "abc" +`):
# the line break and indentation before the literal (`=` first: a literal the search skips to;
# `==`, `!=`, `<=` ... are no assignment's: `_assigning`)
_ASSIGNED_BELOW = re.compile(r"=[ \t]*(\r?\n[ \t]*)[\"']")


def _assigning(text: str, at: int) -> bool:
    return at > 0 and (text[at - 1].isalnum() or text[at - 1] in "_] \t")


def _closes(text: str, at: int) -> bool:
    """The quote at `at` closes a literal: an even count of that quote up to it on its line."""
    line_start = text.rfind("\n", 0, at) + 1
    quote = text[at]
    count, index = 0, line_start
    while index <= at:
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == quote:
            count += 1
        index += 1
    return count % 2 == 0


def _cuts(text: str) -> list[tuple[int, int]]:
    cuts = [(m.start(), m.end()) for m in _CONTINUED.finditer(text)]
    if "\n" in text and ("\"" in text or "'" in text):
        cuts += [(m.start(), m.end()) for m in _SPLIT_STRING.finditer(text)
                 if _closes(text, m.start())]
        cuts += [(m.start(1), m.end(1)) for m in _ASSIGNED_BELOW.finditer(text)
                 if _assigning(text, m.start())]
    cuts.sort()
    merged: list[tuple[int, int]] = []
    for start, end in cuts:
        if merged and start < merged[-1][1]:
            continue
        merged.append((start, end))
    return merged


def joined_view(text: str) -> tuple[str, list[int]] | None:
    """The text with continued lines and split literals joined, and each view character's
    offset in `text` (one more entry: the end). None when nothing is continued."""
    found = joined_changes(text)
    return None if found is None else found[:2]


def joined_changes(text: str) -> tuple[str, list[int], list[int]] | None:
    """`joined_view`, and the view positions where lines were joined."""
    if ("\\\n" not in text and "\\\r\n" not in text and not _SPLIT_STRING.search(text)
            and not _ASSIGNED_BELOW.search(text)):
        return None
    cuts = _cuts(text)
    if not cuts:
        return None
    parts: list[str] = []
    offsets: list[int] = []
    changed: list[int] = []
    at = 0
    for start, end in cuts:
        parts.append(text[at:start])
        offsets.extend(range(at, start))
        changed.append(len(offsets))
        at = end
    parts.append(text[at:])
    offsets.extend(range(at, len(text)))
    offsets.append(len(text))
    return "".join(parts), offsets, changed
