"""A credential said as a pair, or said in a sentence, where no name is assigned the value:

- a login pasted in a chat, a note or a comment as `<user> / <password>` (`used_pairs`);
- HTTP Basic authentication's user and password given together: a call's arguments after
  the scheme's name (Faraday's `f.request :authorization, :basic, "user", "X"`), or a
  `user:password` value under a name naming the scheme (`-Dbasicauth=user:X`,
  `BASIC_AUTH=user:X`): `basic_pairs`;
- a PIN said in prose (`the override PIN is 4471`): `pin_digits`, the prose rule's test for a
  value of digits (secret_shapes).

    used_pairs(text), basic_pairs(text) -> [(start, end, kind)]
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from helix.core.secret_gates import looks_password
from helix.core.secret_structure import Found, placeholder, quoted_ok

__all__ = ["PLAIN_PAIR_TRIGGER", "USED_PAIR_TRIGGER", "basic_pairs", "pin_digits", "used_pairs"]

# A login pasted in a chat, a note or a comment as `<user> / <password>` (`use ledger_ro /
# Neb*31x`, `admin / Nv9k-Rout3r#MCR`, a table's `` `ops@x.de` / `0nfl33t-B4ckup!HH` ``): the
# password with a symbol of a password's among digits and letters of both cases (not `use tabs
# / spaces`, `use python3 / Python3.11`, a path, a division)
# (the password: a capital before or after a symbol, no call's parenthesis: `1 / m**2`, `1.0 /
# math.hypot(*x)` are none)
USED_PAIR_TRIGGER = (r" / `?[^\s/`(]*(?:[A-Z][^\s/`(]*[!@#$%^&*+=?~]|"
                     r"[!@#$%^&*+=?~][^\s/`(]*[A-Z])")
# ... or with letters, digits and dashes only when the pair ends its line after a label or a
# login's word (`UniFi controller: admin / Unif1-Crag-Ctrl`, `wifi is Home / sunnyday4321`)
PLAIN_PAIR_TRIGGER = (r"(?m) / `?(?:[A-Za-z][\w\-]*[0-9]|[0-9][\w\-]*[A-Za-z])[\w\-]*`?"
                      r"[ \t]*[.)]?\r?$")  # (RE2's `$`: the text's end or a line's in the set)
# (` / ` first: a literal the search skips to; the user before it read back by hand)
_USED_PAIR = re.compile(r" / `?([^\s/`'\"]{8,64})")
# (a domain's or the machine's account before the user: `CORP\svc-share`, `.\admin`)
_PAIR_USER = re.compile(r"(?:^|[\s(:|])`?(?:[A-Za-z][\w\-]{0,30}\\|\.\\)?"
                        r"[A-Za-z][\w.\-@+]{1,60}`?$")
_PASSWORD_SYMBOLS = frozenset("!@#$%^&*+=?~")
_LINKED_FILE = re.compile(r"\.[a-z]{2,4}(?:[#?]|$)")  # `README.md#setup-2024`: a link
_HEX = re.compile(r"[0-9a-fA-F]+")


# a login's words on the pair's line before the user (or the user an account's: `x@y`, `D\u`)
_LOGIN_WORDS = ("login", "log in", "logon", "sign in", "account", "acct", "admin", "user",
                "wifi", "wi-fi", "wlan", "ssid", "network", "credential", "creds", "password",
                "pw", "ftp", "vpn", "portal")
_PLAIN = re.compile(r"[\w\-]{8,64}")
_PAIR_END = re.compile(r"`?[ \t]*[.)]?[ \t]*\r?(?:\n|$)")


def _symbol_password(value: str) -> bool:
    return bool(_PASSWORD_SYMBOLS.intersection(value) and any(c.isdigit() for c in value)
                and sum(c.isalpha() for c in value) >= 3 and not value.islower()
                and not value.isupper() and looks_password(value)
                and _LINKED_FILE.search(value) is None and not placeholder(value))


def _plain_password(text: str, user: re.Match[str], value: str, end: int) -> bool:
    """Letters, digits, dashes: the pair ends its line, a login's word before it or in the user
    (or the user an account's and the password's letters of both cases)."""
    if (_PLAIN.fullmatch(value) is None or _PAIR_END.match(text, end) is None
            or sum(c.isalpha() for c in value) < 3 or not any(c.isdigit() for c in value)
            or _HEX.fullmatch(value) is not None or not looks_password(value)
            or placeholder(value)):
        return False
    before = text[text.rfind("\n", 0, user.start()) + 1:user.end()].lower()  # (the user too)
    worded = any(word in before for word in _LOGIN_WORDS)
    account = any(c in user.group() for c in "@\\")
    mixed = not value.islower() and not value.isupper()
    return worded or (account and mixed)


def used_pairs(text: str) -> Iterator[Found]:
    for match in _USED_PAIR.finditer(text):
        at = match.start()
        line_start = text.rfind("\n", 0, at) + 1
        user = _PAIR_USER.search(text, max(line_start, at - 64), at)
        if user is None or "=" in text[line_start:at]:
            continue  # (`x = total / Rate#2`: code dividing)
        value = match.group(1).rstrip(".,;:)")
        end = match.start(1) + len(value)
        if _symbol_password(value) or _plain_password(text, user, value, end):
            yield Found(match.start(1), end, "assignment")


# a PIN said in prose (`the override PIN is 4471`, ``the crew PIN `551290` ``): four to eight
# digits, said with "is" or ":" or set apart in quotes or backticks (a GPIO's `pin 13` is none)
_PIN_NAMES = ("pin", "passcode")
_PIN_DIGITS = re.compile(r"[0-9]{4,8}")


def pin_digits(text: str, match: re.Match[str], value: str, said: bool) -> bool:
    opened = text[match.end() - 1] in "\"'`*"
    return ((said or opened) and match.group(0).lower().startswith(_PIN_NAMES)
            and _PIN_DIGITS.fullmatch(value) is not None and len(set(value)) > 1)


# Basic authentication's scheme named, then its user and password: a call's two literals after
# the scheme's symbol or string (`:basic, "u", "X"`, `'basic', 'u', 'X'`), or `user:password`
# under a name naming the scheme (`-Dbasicauth=u:X`, `basic_auth: "u:X"`)
_BASIC_ARGUMENTS = re.compile(r"(?i)(?::basic|([\"'])basic\1)[ \t]*,[ \t]*([\"'])[^\"'\n]{1,64}\2"
                              r"[ \t]*,[ \t]*([\"'])([^\"'\n]{1,200})\3")
_BASIC_VALUE = re.compile(r"(?i)basic[_.\-]?auth(?:entication)?[\"']?[ \t]*[:=][ \t]*[\"']?"
                          r"([\w.@\-]{1,64}):([^\s\"'`:]{1,200})")


_ARGUMENT_WORDS = (":basic", "'basic'", '"basic"')
_VALUE_WORDS = ("basicauth", "basic_auth", "basic-auth", "basic.auth")


def basic_pairs(text: str, lowered: str) -> Iterator[Found]:
    """(`lowered`: the text in lower case; each pattern read only where its words are)"""
    arguments = any(word in lowered for word in _ARGUMENT_WORDS)
    for match in _BASIC_ARGUMENTS.finditer(text) if arguments else ():
        if quoted_ok(match.group(4), "strong"):
            yield Found(match.start(4), match.end(4), "assignment")
    for match in _BASIC_VALUE.finditer(text) if any(w in lowered for w in _VALUE_WORDS) else ():
        value = match.group(2)
        if value == match.group(1) or value.isalpha():
            continue  # `admin:admin`, `user:secret`: the user's name again, a word
        if looks_password(value) or quoted_ok(value, "strong"):
            yield Found(match.start(2), match.end(2), "assignment")
