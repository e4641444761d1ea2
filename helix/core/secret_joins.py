"""A secret split into literals that code joins where it names it (round 24's tune sets):
`KEY = [part1, part2].join("")` with `const part1 = "..."` above it, `GEO_KEY =
parts.join("")` with `const parts = ["...", "..."]`, Python's `TOKEN = "".join([...])`.
The name must say secret (`name_strength`) and the joined value read as its value would
(`quoted_ok`); each literal is then a part of the secret, masked where it stands. Or a
header's scheme joined to a name (`"Bearer " + _k`): the literal assigned to that name above,
when it reads as an issued token (`random_token`).

    join_findings(text) -> [Found]
    reads_above(line) -> bool   (the prefilter reads JOIN_BEFORE lines above such a line)
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from helix.core.secret_names import name_strength
from helix.core.secret_passed import PASSED_TRIGGER
from helix.core.secret_structure import Found, quoted_ok, random_token

__all__ = ["JOIN_BEFORE", "join_findings", "reads_above"]

# (no trigger of its own: the secret's name wakes the detector, the prefilter reads the lines
# above a line holding `.join(`)
_PASSED = re.compile(PASSED_TRIGGER)
JOIN_BEFORE = 8  # lines above a join its parts' definitions may stand on
_PARTS = r"(\[[^\]\n]{1,400}\]|[A-Za-z_$][\w$]{0,60})"
_JOINED = re.compile(
    r"([A-Za-z_$][\w$.\-]{0,79})[\"']?[ \t]*[:=][ \t]*(?:" + _PARTS
    + r"\.join\([ \t]*([\"'])\3[ \t]*\)|([\"'])\4\.join\([ \t]*" + _PARTS + r"[ \t]*\))")
_ELEMENT = re.compile(r"[ \t\r\n]*(?:([\"'])([^\"'\n]{1,200})\1|([A-Za-z_$][\w$]{0,60}))"
                      r"[ \t\r\n]*,?")
# a header's scheme literal joined to a name (`"Bearer " + _k`, `'Token ' + API_KEY`)
_SCHEMED = re.compile(r"(?i)[\"'](?:bearer|token|basic)[ \t]+[\"'][ \t]*\+[ \t]*"
                      r"([A-Za-z_$][\w$]{0,60})\b")
_SCHEMES = ("Bearer ", "bearer ", "Token ", "token ", "Basic ", "basic ")  # found by `in`
_REACH = 800  # characters above the join read for a part's definition
_MAX_PARTS = 8
_ASSIGNED_LITERAL = re.compile(r"\(?[ \t]*([\"'])([^\"'\n]{1,200})\1[ \t]*\)?[ \t]*[;,]?[ \t]*\r?$",
                               re.M)


def _definition(text: str, name: str, before: int) -> re.Match[str] | None:
    """The last `name = ` (or `name: `) above `before`, within reach."""
    pattern = re.compile(r"(?<![\w$.])" + re.escape(name) + r"[ \t]*[:=][ \t]*")
    found = None
    for match in pattern.finditer(text, max(0, before - _REACH), before):
        found = match
    return found


def _elements(text: str, start: int, end: int) -> list[tuple[int, int]] | None:
    """The literals of an array's elements in text[start:end] (inside its brackets), each
    identifier's the literal assigned to it above; None when an element is anything else."""
    spans: list[tuple[int, int]] = []
    at = start
    while at < end and text[at:end].strip():  # (a trailing comma's line break: the end)
        element = _ELEMENT.match(text, at, end)
        if element is None or element.end() == at:
            return None
        if element.group(2) is not None:
            spans.append((element.start(2), element.end(2)))
        else:
            literal = _literal_of(text, element.group(3), start)
            if literal is None:
                return None
            spans.append(literal)
        at = element.end()
    return spans


def _literal_of(text: str, name: str, before: int) -> tuple[int, int] | None:
    """The literal assigned to `name` above `before` (parenthesized or not), a line's last."""
    defined = _definition(text, name, before)
    if defined is None:
        return None
    literal = _ASSIGNED_LITERAL.match(text, defined.end())
    return None if literal is None else (literal.start(2), literal.end(2))


def _array_of(text: str, name: str, before: int) -> list[tuple[int, int]] | None:
    defined = _definition(text, name, before)
    if defined is None or text[defined.end():defined.end() + 1] != "[":
        return None
    close = text.find("]", defined.end(), before)
    if close == -1 or any(c in text[defined.end() + 1:close] for c in "[({"):
        return None
    return _elements(text, defined.end() + 1, close)


def _parts(text: str, parts: str, at: int) -> list[tuple[int, int]] | None:
    if parts.startswith("["):
        return _elements(text, at + 1, at + len(parts) - 1)
    return _array_of(text, parts, at)


def _joins(text: str) -> Iterator[re.Match[str]]:
    """The joins of the lines holding `.join(` (found by `find`: a literal)."""
    at = text.find(".join(")
    while at != -1:
        line_start = text.rfind("\n", 0, at) + 1
        line_end = text.find("\n", at)
        line_end = len(text) if line_end == -1 else line_end
        yield from _JOINED.finditer(text, line_start, line_end)
        at = text.find(".join(", line_end)


def join_findings(text: str) -> Iterator[Found]:
    for match in _joins(text):
        strength = name_strength(match.group(1))
        if strength is None:
            continue
        group = 2 if match.group(2) is not None else 5
        spans = _parts(text, match.group(group), match.start(group))
        if spans is None or not 2 <= len(spans) <= _MAX_PARTS:
            continue
        if quoted_ok("".join(text[s:e] for s, e in spans), strength):
            yield from (Found(s, e, "assignment") for s, e in spans)
    if any(scheme in text for scheme in _SCHEMES):
        yield from _schemed(text)


def _schemed(text: str) -> Iterator[Found]:
    for match in _SCHEMED.finditer(text):
        literal = _literal_of(text, match.group(1), match.start())
        if literal is not None and random_token(text[literal[0]:literal[1]]):
            yield Found(literal[0], literal[1], "assignment")


def reads_above(line: str) -> bool:
    """A line whose rule reads the lines above it: a join, a scheme joined to a name, a
    client's constructor given names (`secret_passed`: their literals above)."""
    return (".join(" in line or ("+" in line and any(s in line for s in _SCHEMES))
            or ("Client" in line and _PASSED.search(line) is not None))
