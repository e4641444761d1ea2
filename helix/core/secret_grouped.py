"""A key written in groups of capitals and digits joined by dashes after the words `licence
key` (`license key`) with no operator between, as prose and notes write it (`re-enter the
licence key NQ7XK-2MB3T-8RYW4-VD9GF-J6CPH`): a software licence's or a product's key, maybe
with its vendor's words before it (`ZL-PRO-2026-4838C765-995BAE7D`). (With an operator,
`licence key: X`, the name's value is the structure's.)

Five groups or more of two to eight characters, at least three of four or more; half the
groups or more hold a digit and one mixes letters and digits in turn (`7Q4K`): an issued
key's groups. A cipher suite's name (`ECDHE-RSA-AES256-GCM-SHA384`: words, a number after
some), a UUID (a twelve-character group), a MAC address (short), an order number (digits
only between words: `TC-ORD-2026-11-0048812`) are none.

    licence_keys(text, name_start, name_end) -> [(start, end, kind)] after a `key` name
    listed_keys(text) -> [(start, end, kind)] in a list or table that names keys or licences

A list's or a table's grouped key is found without an operator when its line, or one of the
CONTEXT_BEFORE lines above it, names a key, a licence, an activation or a serial (the list's
item, the table's header `| Product | Key |`, a heading): the prefilter wakes the key's line by
GROUPED_TRIGGER and reads those lines above it (`grouped_line`).

`secret_structure` finds the name `key` (the prefilter wakes it on such a line by its
KEYWORDS' `licen[cs]e key`); this module reads the rest of the name's line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise

from helix.core.secret_gates import CONTEXT_BEFORE, hinted
from helix.core.secret_values import placeholder

__all__ = ["GROUPED_TRIGGER", "grouped_line", "issued_groups", "licence_keys", "listed_keys"]

_LICENCE_WORDS = ("licence", "license")  # before a `key` name (lower case)
_GROUPED = re.compile(r"(?<![\w\-])[A-Z0-9]{2,8}(?:-[A-Z0-9]{2,8}){4,9}(?![\w\-])")
# the prefilter's trigger for listed_keys (no counted runs: the set's DFA stays small), and the
# hint the rule's search skips to (a literal first)
GROUPED_TRIGGER = r"[A-Z0-9]-[A-Z0-9]+-[A-Z0-9]+-[A-Z0-9]+-[A-Z0-9]"
_GROUPED_HINT = re.compile(r"-[A-Z0-9]{2,8}-[A-Z0-9]{2,8}-")
_NAMING = re.compile(r"(?i)licen[cs]|activation|serial|registration|\bkeys?\b")
MIN_GROUPED_KEY = 20  # characters, dashes counted
MIN_LONG_GROUPS = 3  # groups of four characters or more


def _interleaved(group: str) -> bool:
    """Letters and digits in turn, twice or more (`7Q4K`, `PL3T`; not `AES256`, `99XZ`)."""
    return sum(a.isdigit() != b.isdigit() for a, b in pairwise(group)) >= 2


def issued_groups(value: str) -> bool:
    groups = value.split("-")
    with_digit = sum(any(c.isdigit() for c in g) for g in groups)
    return (len(value) >= MIN_GROUPED_KEY and 2 * with_digit >= len(groups)
            and sum(len(g) >= 4 for g in groups) >= MIN_LONG_GROUPS
            and any(_interleaved(g) for g in groups) and not placeholder(value))


def licence_keys(text: str, name_start: int,
                 name_end: int) -> Iterator[tuple[int, int, str]]:
    """The grouped keys on the rest of the line after a `key` name that `licence` or
    `license` opens."""
    if not text[max(0, name_start - 9):name_start].rstrip(" \t").lower().endswith(
            _LICENCE_WORDS):
        return
    line_end = text.find("\n", name_end)
    for match in _GROUPED.finditer(text, name_end, len(text) if line_end == -1 else line_end):
        if issued_groups(match.group()):
            yield match.start(), match.end(), "grouped_key"


def grouped_line(line: str) -> bool:
    """The line holds a grouped key's run (its naming line may lie above it)."""
    return line.count("-") >= 4 and _GROUPED.search(line) is not None


def listed_keys(text: str) -> Iterator[tuple[int, int, str]]:
    """The grouped keys whose line or one of the CONTEXT_BEFORE lines above names them."""
    for match in hinted(_GROUPED, _GROUPED_HINT, text):
        if not issued_groups(match.group()):
            continue
        start = text.rfind("\n", 0, match.start()) + 1
        for _ in range(CONTEXT_BEFORE):
            start = text.rfind("\n", 0, start - 1) + 1 if start > 0 else 0
        end = text.find("\n", match.end())
        if _NAMING.search(text, start, len(text) if end == -1 else end) is not None:
            yield match.start(), match.end(), "grouped_key"
