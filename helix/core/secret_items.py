"""A password set apart in backticks at the end of a list item that names a login, where no
`name = value` says so:

- after an arrow from the account, one space each side (`* NAS admin -> `X``, `- root => `X``);
- as the second of a backticked pair (`- SSH uses device auth: `ubnt` / `X``);
- after a password's word (`- parts portal: user `ops.north`, pass `X``, `pw: `X``).

The value a password's: 8 to 64 characters, no space, path, address, call or template, a
digit and three letters or more, letters of both cases or a password's symbol, not all one
case's letters and digits joined by `_` (a constant's name), not words and numbers run
together (`getUser2Name`: an identifier). A list item is a line whose first
characters (after indentation) are a bullet (`-`, `*`, `+`) or a number (`1.`, `2)`); the value
ends the line.

    item_values(text, lowered) -> [(start, end, kind)]

The prefilter wakes such a line by ITEM_TRIGGER (`-> ``, `=> ``, `` ` / ` ``, `pass ``); the
other password's words wake their line already (KEYWORDS).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from helix.core.english import word_alternation
from helix.core.secret_gates import looks_password
from helix.core.secret_structure import Found
from helix.core.secret_values import placeholder

__all__ = ["ITEM_TRIGGER", "item_values"]

# the value: backticked, ending its line (maybe a full stop or a bracket after)
_VALUE = re.compile(r"`([^\s`\-][^\s`]{7,63})`[ \t]*[.,;)]?[ \t]*\r?$", re.MULTILINE)
_BULLET = re.compile(r"[ \t]*(?:[-*+]|[0-9]{1,3}[.)])[ \t]+")
# what links the value to its item: an arrow, a backticked user and a slash, a password's word
_ARROW = re.compile(r"[-=]> $")
_PAIR = re.compile(r"`[^\s`]{1,64}` / $")
_PASSWORD_WORDS = ("pw", "pwd", "pass", "password", "passwd", "passphrase", "passcode",
                   "passwort")
_PASSWORD_WORD = re.compile(r"(?i)(?<![\w\-])(" + word_alternation(_PASSWORD_WORDS)
                            + r")([ \t]*(?::|=|is)?[ \t]*)$")
# a login's words in the item before its link (the account whose password it is)
_LOGIN_WORDS = ("admin", "administrator", "root", "user", "login", "account", "auth",
                "credentials", "creds", "ssh", "console", "portal")
_LOGIN = re.compile(r"(?i)(?<![a-z])(?:" + word_alternation(_LOGIN_WORDS) + r")s?(?![a-z])")
_NOT_IN_VALUE = frozenset("/.()=<>{}[]\\,;:'\"@$%|")
_CONSTANT = re.compile(r"[A-Z0-9]+(?:_[A-Z0-9]+)+|[a-z0-9]+(?:_[a-z0-9]+)+")
# an identifier of words (`getUser2Name`, `AdminPanel2`): a name in code, not a password
_CAMEL = re.compile(r"[a-z]{2,}(?:[A-Z][a-z]{2,}|[0-9]+)+|(?:[A-Z][a-z]{2,}|[0-9]+){2,}")
# (what the rule reads before the value, one space each side: no value's run, no loop; the
# other password's words, and `pass` with a colon or `=`, woken by KEYWORDS. Its DFA states
# cost the prefilter's pass over networkx +0.75% by cachegrind however it is written)
ITEM_TRIGGER = r"(?i)(?:[-=]> |` / |pass )`"
_WORDS = ("->", "=>", "/ `", "/`", "pw", "pass")  # (one in each text the rule can read)


def _password(value: str) -> bool:
    if (_NOT_IN_VALUE.intersection(value) or not any(c.isdigit() for c in value)
            or sum(c.isalpha() for c in value) < 3 or _CONSTANT.fullmatch(value)
            or _CAMEL.fullmatch(value)
            or placeholder(value) or not looks_password(value)):
        return False
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    symbol = any(not c.isalnum() for c in value)
    return mixed or symbol


def _linked(item: str) -> bool:
    """The item before the value: a password's word right before it, or an arrow or a pair
    after a login's word."""
    word = _PASSWORD_WORD.search(item)
    if word is not None:  # (`pass` and a colon or `=`: KEYWORDS wake it; one space: ours)
        return (word.group(1).lower() != "pass" or any(c in word.group(2) for c in ":=")
                or word.group(2) == " ")
    link = _ARROW.search(item) or _PAIR.search(item)
    return link is not None and _LOGIN.search(item, 0, link.start()) is not None


def item_values(text: str, lowered: str) -> Iterator[Found]:
    """(`lowered`: the text in lower case)"""
    if "`" not in text or not any(word in lowered for word in _WORDS):
        return
    for match in _VALUE.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        bullet = _BULLET.match(text, line_start, match.start())
        if bullet is None or not _password(match.group(1)):
            continue
        if _linked(text[bullet.end():match.start()]):
            yield Found(match.start(1), match.end(1), "keyword")
