"""Passwords said in a sentence or in a record's free text, linked to their word from afar:

- a password's value later in the sentence that names it, after a link (`is`, `ist`, `was`,
  `to`, a colon) with words between the name and the link (`root pw on the routers (RUT955)
  is X`, `password from the rescue email: `X``, `admin pw: 1234 changed to X`, `Passwort ist
  X`): the value a password's (letters and digits, a capital inside the word or a symbol);
- an EDIFACT element whose free text names a password or an authorization before its escaped
  colon (`FTX+AAI+++AUTH?:user/X'`, `...+APP-PW?:X++1'`): the element, its label with it
  (the segment's `?:` is prose's `:`).

    linked_findings(text, lowered) -> [(start, end, kind)]

No trigger of their own: a password's word wakes its line (the prefilter's KEYWORDS: `pass`,
`pw`, `auth`).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator

from helix.core.english import word_alternation
from helix.core.secret_gates import looks_password
from helix.core.secret_structure import Found
from helix.core.secret_values import placeholder

__all__ = ["linked_findings"]

# --- a password's value after a link later in its sentence
_PASSWORD_NAMES = ("password", "passwort", "passwd", "passphrase", "passcode", "pw", "pwd")
_PASSWORD_NAME = re.compile(r"(?i)(?<![a-z])(?:" + word_alternation(_PASSWORD_NAMES)
                            + r")s?(?![a-z])")
_LINK_WORDS = ("is", "ist", "was", "to", "now")
# the link, then the value (maybe in backticks, quotes or Markdown's bold)
_LINKED = re.compile(r"(?:(?<![\w\-])(?:" + word_alternation(_LINK_WORDS)
                     + r")[ \t]+|:[ \t]+)(?:`|\"|'|\*\*)?([^\s`\"'*]{8,64})")
LINK_REACH = 100  # characters from the name's end to the value's
_SENTENCE_END = re.compile(r"[.!?][ \t]")
_VALUE_ENDS = ".,;:?)"
_NOT_IN_VALUE = frozenset("/@=<>(){}[]$%\\|")
_SYMBOLS = frozenset("!#&*+?~^")
_WORD_AND_NUMBER = re.compile(r"[0-9]*[A-Za-z][a-z]*[0-9]*")  # `1Password`, `Argon2id`, `Vault2`
_TRAILING_DIGITS = re.compile(r"[A-Za-z_]+[0-9]*")  # `AuthService2`: a name in code


def _linked_value(value: str) -> bool:
    """A password's: letters and digits, a capital inside it or a password's symbol; no path,
    address, host, call or template."""
    if (_NOT_IN_VALUE.intersection(value) or "." in value or placeholder(value)
            or not looks_password(value)):
        return False
    if (not any(c.isdigit() for c in value) or sum(c.isalpha() for c in value) < 3
            or _WORD_AND_NUMBER.fullmatch(value) or _TRAILING_DIGITS.fullmatch(value)):
        return False
    inner_capital = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    return inner_capital or bool(_SYMBOLS.intersection(value))


def _line_values(text: str, name: re.Match[str], end: int) -> Iterator[Found]:
    reach = min(end, name.end() + LINK_REACH)
    for link in _LINKED.finditer(text, name.end(), reach):
        if _SENTENCE_END.search(text, name.end(), link.start()) is not None:
            return  # the name's sentence ended before the link
        trimmed = link.group(1).rstrip(_VALUE_ENDS)
        if _linked_value(trimmed):
            yield Found(link.start(1), link.start(1) + len(trimmed), "keyword")
            return


def _sentences(text: str) -> Iterator[Found]:
    line_end = -1
    for name in _PASSWORD_NAME.finditer(text):
        if name.start() < line_end:
            continue  # (the line's first name only)
        line_end = text.find("\n", name.end())
        line_end = len(text) if line_end == -1 else line_end
        yield from _line_values(text, name, line_end)


# --- an EDIFACT element naming a password before its escaped colon (the release character `?`)
_EDI_LABELS = ("auth", "authorization", "authorisation", "authcode", "authkey", "pw", "pwd",
               "pass", "password", "passwd", "passcode")
_EDI_LABEL = re.compile(r"(?i)(?<![a-z])(?:" + word_alternation(_EDI_LABELS) + r")\?:")
_EDI_SEGMENT = re.compile(r"[A-Z]{3}\+")


# an unescaped `+` (an element starts after it) and an element's end (`+` or the segment's `'`)
_ELEMENT_START = re.compile(r"(?<!\?)\+")
_ELEMENT_END = re.compile(r"(?<!\?)[+']")
MAX_EDI_VALUE = 512  # characters of an element's value after its label (EDIFACT's an..512)


def _edi_lines(text: str) -> Iterator[tuple[re.Match[str], int, int, list[int], list[int]]]:
    """Each label on a segment's line, with the line [start, end) and its elements' starts and
    ends, found once per line (a long line of labels is read once, not once per label)."""
    line: tuple[int, int, list[int], list[int]] | None = None
    line_end = -1
    for label in _EDI_LABEL.finditer(text):
        if label.start() >= line_end:
            start = text.rfind("\n", 0, label.start()) + 1
            line_end = text.find("\n", label.end())
            line_end = len(text) if line_end == -1 else line_end
            line = None if _EDI_SEGMENT.match(text, start) is None else (  # a segment's line
                start, line_end,
                [m.end() for m in _ELEMENT_START.finditer(text, start, line_end)],
                [m.start() for m in _ELEMENT_END.finditer(text, start, line_end)])
        if line is not None:
            yield (label, *line)


def _element(start: int, end: int, starts: list[int], ends: list[int], at: int) -> tuple[int, int]:
    """The element around `at` in the segment line [start, end): between unescaped `+`s or
    the segment's `'`."""
    before = bisect_right(starts, at)
    after = bisect_left(ends, at)
    return (starts[before - 1] if before else start), (ends[after] if after < len(ends) else end)


def _edi_elements(text: str) -> Iterator[Found]:
    for label, start, end, starts, ends in _edi_lines(text):
        left, right = _element(start, end, starts, ends, label.start())
        if right - label.end() > MAX_EDI_VALUE:
            continue
        value = text[label.end():right].replace("?:", ":")
        if (len(value) >= 6 and " " not in value and any(c.isdigit() for c in value)
                and sum(c.isalpha() for c in value) >= 3 and not placeholder(value)):
            yield Found(left, right, "assignment")


def linked_findings(text: str, lowered: str) -> list[Found]:
    """(`lowered`: the text in lower case)"""
    found: list[Found] = []
    if "pass" in lowered or "pw" in lowered:
        found += _sentences(text)
    if "?:" in text:
        found += _edi_elements(text)
    return found
