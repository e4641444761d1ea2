"""A password named in prose and said later than right after its name: a second password after
one already said (`my password is X and I also tried the old one Y`), the value on the line
after the one naming it (`the admin password had been reset,` / `set it back to `Y``), the value
in the field after the one holding the name (`<Key>Password</Key><Value>Y</Value>`).

    recalled_values(text, lowered) -> [(start, end, kind)]

Only a word a person chose or a generator made reads as one so far from its name: at least
RECALLED_LEN ASCII characters with capitals, lower case letters, digits and a symbol, all four
(`Winter2023Kidney!`, `Timetable-Grid-5050`), none of a path's, a host's, an address's or a
template's characters (`/ . @ : = \\ $ % { }`), no command's flag before it (`-pX`: the
command's own rule reads it): a site's name (`Booster-03`), a version, a
file name or a URL never is. Read after the name's own clause ends (a sentence's end, a tag or
a cell opening, the line's end: `the password on North-Pump-7` names a machine) to the end of
the next line when that one is not blank (a sentence going on, the next field of a record).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from helix.core.english import word_alternation
from helix.core.secret_structure import Found, placeholder

__all__ = ["RECALLED_LEN", "RECALLED_WORDS", "recalled_values"]

RECALLED_LEN = 12  # (a chosen password's length: `Booster-03`, a site's name, is shorter)
RECALLED_WORDS = ("password", "passphrase", "passwort")  # what a line must hold (lower case)
_NAME = re.compile(rf"(?i)\b(?:{word_alternation(RECALLED_WORDS)})s?\b")
_WORD = re.compile(r"[^\s\"'`,;()<>\[\]{}*|]{12,}")
_LONGEST = 200  # a longer word is no chosen password (and is never cut to this length)
_NOT_IN = frozenset("/.@:=\\$%{}")
# where the name's own clause ends: a sentence's end, a field's (a tag, a cell), the line's
_BREAK = re.compile(r"[.!?][ \t]+|</?[A-Za-z]|\||\r?\n")


def _chosen(word: str) -> bool:
    """Capitals, lower case letters, digits and a symbol, no path's or host's characters."""
    if (len(word) < RECALLED_LEN or word[0] == "-" or not word.isascii() or placeholder(word)
            or any(c in _NOT_IN for c in word)):
        return False
    return (any(c.isupper() for c in word) and any(c.islower() for c in word)
            and any(c.isdigit() for c in word) and any(not c.isalnum() for c in word))


def _code_name(text: str, start: int, end: int) -> bool:
    """A name code gives, no password: an identifier called or defined (`validate_Password2(`,
    `resetPassword_Expired2()`), a tag's name (`<ServiceAccount_Login2>`)."""
    return (start > 0 and text[start - 1] == "<") or (
        text.startswith("(", end) and text[start:end].replace("_", "").isalnum())


def _reach(text: str, at: int) -> tuple[int, int]:
    """The end of the line holding `at`, and of the next line when that one is not blank (the
    line's end again when it is)."""
    end = text.find("\n", at)
    if end == -1:
        return len(text), len(text)
    after = text.find("\n", end + 1)
    after = len(text) if after == -1 else after
    return end, (after if text[end + 1:after].strip() else end)


def recalled_values(text: str, lowered: str) -> Iterator[Found]:
    if not any(word in lowered for word in RECALLED_WORDS):
        return
    line_end = last = -1
    for name in _NAME.finditer(text):
        if name.end() <= line_end:
            continue  # (a name before it on the line read all this one would: once a line)
        last_before = last
        line_end, last = _reach(text, name.end())
        cut = _BREAK.search(text, name.end(), last)
        if cut is None:
            continue  # (the value right after the name: the prose rule's)
        for word in _WORD.finditer(text, max(cut.end(), last_before), last):
            if word.end() - word.start() > _LONGEST:
                continue
            value = word.group().rstrip(".,;:?")
            if _chosen(value) and not _code_name(text, word.start(), word.start() + len(value)):
                yield Found(word.start(), word.start() + len(value), "keyword")
