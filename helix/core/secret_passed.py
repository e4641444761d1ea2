"""Literals a client takes by their variables' names, where the name itself says nothing:

- the variables passed to a client's constructor (`plivo.NewClient(authID, authToken, ...)`,
  `new ObsClient(ak, sk, endpoint)`): each one's literal assigned in the text;
- the variables an `Authorization` header spells out (`"Authorization: Bearer ${TOKEN_A}"`).

The literal must read as an issued key (one run of letters and digits, `random_token`'s
variety, no counting run; hex 32 long or more): a host, a region, a user agent, a path or a
request id passed beside it is none.

    passed_findings(text) -> [(start, end, kind)]

The prefilter wakes the call's line (CALL_TRIGGER: `Client(` with a literal after it, or
PASSED_TRIGGER: a client's constructor given names only) and the header's (`auth`, KEYWORDS);
the assignments read are those within the woken window.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from helix.core.secret_structure import Found, quoted_ok, random_token

__all__ = ["PASSED_TRIGGER", "passed_findings"]

# a client's constructor: a callee whose last name ends in `Client` (Go's `NewClient`, Java's
# `new ObsClient`), its arguments on the line (no nested call)
PASSED_TRIGGER = r"[A-Za-z0-9_]Client[ \t]*\([ \t]*[A-Za-z_]"
# (the callee's name before `Client` is not matched: `[\w.$:]*` there tried every start in a
# long word, quadratic on one line; the arguments are the same without it)
_CLIENT_CALL = re.compile(r"[Cc]lient[ \t]*\(([^()\n]{1,300})\)")
_NAME = re.compile(r"[A-Za-z_][\w]{0,63}")
_HEADER = re.compile(r"(?i)authorization[\"']?[ \t]*[:=,][^\n]{0,40}?"
                     r"((?:\$\{?[A-Za-z_]\w{0,63}\}?){1,4})")
_VARIABLE = re.compile(r"\$\{?([A-Za-z_]\w{0,63})")
MAX_NAMES = 8  # a call's names looked up
_RUN = re.compile(r"[A-Za-z0-9+/]{16,256}={0,2}")  # one run: no host, path, slug or version
_HEX = re.compile(r"[0-9a-fA-F]+")
MIN_HEX_KEY = 32  # a hex value shorter than this passed by name: an id, a hash's prefix


def _issued(value: str) -> bool:
    """One run of letters and digits (base64's too) that reads as an issued key: varied, no
    counting run (`quoted_ok`), a short hex value none."""
    if (_RUN.fullmatch(value) is None or not random_token(value)
            or not quoted_ok(value, "keyed")):
        return False
    if _HEX.fullmatch(value) is not None:
        return len(value) >= MIN_HEX_KEY
    return sum(c.isdigit() for c in value) >= 2 and sum(c.isalpha() for c in value) >= 4


def _assigned(text: str, name: str) -> Iterator[Found]:
    """The literals assigned to `name` (`name = "..."`, `name := '...'`, `X name = "..."`)."""
    pattern = re.compile(rf"(?<![\w.$]){re.escape(name)}[ \t]*(?::=|=|:)[ \t]*([\"'])"
                         r"([^\"'\n\\]{16,256})\1")
    for match in pattern.finditer(text):
        if _issued(match.group(2)):
            yield Found(match.start(2), match.end(2), "assignment")


def _passed_names(text: str) -> list[str]:
    names: list[str] = []
    for call in _CLIENT_CALL.finditer(text):
        for argument in call.group(1).split(","):
            argument = argument.strip()
            if _NAME.fullmatch(argument) is not None:
                names.append(argument)
    if "uthorization" in text or "UTHORIZATION" in text:
        for header in _HEADER.finditer(text):
            names += (m.group(1) for m in _VARIABLE.finditer(header.group(1)))
    return names


def passed_findings(text: str) -> list[Found]:
    if "lient" not in text and "uthoriz" not in text and "UTHORIZ" not in text:
        return []
    names = sorted(set(_passed_names(text)))[:MAX_NAMES]
    return [found for name in names for found in _assigned(text, name)]
