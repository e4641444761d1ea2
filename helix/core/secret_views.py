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
# literals joined with `+` on one line (`key: "a7c2" + "4b3d-" + "f5a9..."`): the closing
# quote, the `+`, the opening quote
# quote, the `+`, the opening quote (`+` first: a literal the search skips to; the quote before
# it read back by hand, `_joined_strings`)
_JOINED_STRING = re.compile(r"\+[ \t]*([\"'])")
# literals joined with Perl's and PHP's ` . ` (`"StudentCard-" . "Sync-Q7w2"`): the spaced dot
# first, the closing quote before it read back the same way (`"x".join(`, `'.'` are none)
_DOT_JOINED = re.compile(r" \.[ \t]*([\"'])")
_JOINED_REACH = 400  # characters of the line before the closing quote
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


def _joined_strings(text: str, pattern: re.Pattern[str] = _JOINED_STRING
                    ) -> list[tuple[int, int]]:
    """From each closing quote to the next literal's opening quote, a `+` (or the pattern's
    operator) between them."""
    cuts = []
    for match in pattern.finditer(text):
        quote = match.group(1)
        before = match.start() - 1
        while before >= 0 and text[before] in " \t":
            before -= 1
        if (before >= 0 and text[before] == quote
                and before - text.rfind("\n", 0, before) <= _JOINED_REACH
                and _closes(text, before)  # (a minified line's: too long to count quotes)
                and not _operated(text, match.end(), quote)):
            cuts.append((before, match.end()))
    return cuts


def _operated(text: str, at: int, quote: str) -> bool:
    """The literal opening at `at` is an operand of an operator binding before `+` (`"0" * 36`,
    `"a" % x`) or a method's (`"x".join(...)`): the sum is no literal's text."""
    close = text.find(quote, at)
    if close == -1:
        return True
    after = close + 1
    while after < len(text) and text[after] in " \t":
        after += 1
    if text[after:after + 1] == ".":  # a method's (`"x".join`), not Perl's ` . ` joining on
        return text[after + 1:after + 2] not in (" ", "\t")
    return text[after:after + 1] in ("*", "%", "[", "(")


def _cuts(text: str, joined: list[tuple[int, int]]) -> list[tuple[int, int]]:
    cuts = [(m.start(), m.end()) for m in _CONTINUED.finditer(text)] + joined
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
    joined = _joined_strings(text) if "+" in text else []
    if " . " in text:
        joined = sorted(joined + _joined_strings(text, _DOT_JOINED))
    if ("\\\n" not in text and "\\\r\n" not in text and not _SPLIT_STRING.search(text)
            and not _ASSIGNED_BELOW.search(text) and not joined):
        return None
    cuts = _cuts(text, joined)
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
