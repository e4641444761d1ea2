"""A login and its password in two adjacent fields of an HL7 v2 message's segment (a site's own
segment carrying an interface's credentials: `ZAU|1|LABIF|lab_if_user|V|https://...`).

HL7's standard fields hold codes, names and numbers in upper case (`DOE^JANE`, `MRN7731902`,
`ORU^R01`); a login is written in lower case with an underscore or a digit (`lab_if_user`), and
the field right after it is its password when it reads as one: letters and digits with both
cases or a password's symbol, no component separator (`^`, `&`, `~`, `\\`) in it.

    hl7_logins(text, at) -> [(start, end, kind)]   (at: the end of an `MSH|`'s match)

The message's segments are the lines below its MSH line, up to HL7_LINES of them (the
prefilter's window reaches as far: `secret_prefilter._below`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise

from helix.core.secret_gates import looks_password
from helix.core.secret_structure import Found, placeholder

__all__ = ["HL7_LINES", "hl7_logins"]

HL7_LINES = 12  # segments read below the MSH line
_SEGMENT = re.compile(r"[A-Z][A-Z0-9]{2}\|")
_LOGIN = re.compile(r"[a-z][a-z0-9]*(?:[_.\-][a-z0-9]+)+|[a-z]+[0-9][a-z0-9]*")
MAX_LOGIN = 64
_PASSWORD = re.compile(r"[A-Za-z0-9!@#$%*+=?_.\-]{8,64}")
_SYMBOLS = frozenset("!@#$%*+=?")
MAX_FIELDS = 32


def _password(value: str) -> bool:
    """Letters and digits, both cases or a password's symbol; not a login's shape."""
    if (_PASSWORD.fullmatch(value) is None or _LOGIN.fullmatch(value) is not None
            or not any(c.isdigit() for c in value) or not any(c.isalpha() for c in value)):
        return False
    mixed = not value.islower() and not value.isupper()
    return ((mixed or bool(_SYMBOLS.intersection(value))) and looks_password(value)
            and not placeholder(value))


def _fields(text: str, start: int, end: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    at = start
    while at <= end and len(out) < MAX_FIELDS:
        cut = text.find("|", at, end)
        cut = end if cut == -1 else cut
        out.append((at, cut))
        at = cut + 1
    return out


def hl7_logins(text: str, at: int) -> Iterator[Found]:
    start = text.find("\n", at) + 1
    for _ in range(HL7_LINES):
        if start == 0 or start >= len(text):
            return
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        line_end = end - (text[end - 1:end] == "\r")
        if _SEGMENT.match(text, start) is None or text.startswith("MSH|", start):
            return  # (the message ends at a line that is no segment, or the next message's)
        fields = _fields(text, start + 4, line_end)
        for (login_start, login_end), (value_start, value_end) in pairwise(fields):
            if (login_end - login_start <= MAX_LOGIN and value_end - value_start <= 64
                    and _LOGIN.fullmatch(text, login_start, login_end) is not None
                    and _password(text[value_start:value_end])):
                yield Found(value_start, value_end, "assignment")
        start = end + 1
