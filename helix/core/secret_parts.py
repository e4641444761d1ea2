"""A secret written in parts and put together where it is used: identifiers joined
(`token = part1 + part2`, `TOKEN="${P1}${P2}"`), adjacent literals in parentheses over lines
(`SECRET = (\n "abc"\n "def"\n)`) under a name that holds a secret, a list of literals joined
(`['sk-', 'abc'].join('')`).
The parts are each too short or too plain to read as a secret; the whole they make is judged
by the detectors themselves (a line `name = "whole"`), and when it is one, every part is.

    part_findings(text, detect) -> [(start, end, "split_secret")] in `text`'s offsets
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from helix.core.english import word_alternation
from helix.core.secret_gates import hinted
from helix.core.secret_names import name_strength

# the words that may declare the name (`export const`, `private static final`)
DECLARERS = ("export", "const", "let", "var", "final", "readonly", "static", "private", "public")
_DECLARE = rf"(?:(?:{word_alternation(DECLARERS)})[ \t]+){{0,3}}"
# a name given identifiers joined: `a + b`, `"${A}${B}"`, `$A$B` (a comment may follow)
_JOINED = re.compile(
    r"(?m)^[ \t]*" + _DECLARE + r"([A-Za-z_][\w.]*)[ \t]*[:=][ \t]*"
    r"(\"?(?:\$\{[A-Za-z_]\w*\}|\$[A-Za-z_]\w*){2,}\"?|"
    r"[A-Za-z_]\w*(?:[ \t]*\+[ \t]*[A-Za-z_]\w*)+)[ \t]*;?[ \t]*(?:(?://|#)[^\n]*)?$")
_JOINED_HINT = re.compile(r"[+$]")  # in every _JOINED match (its joint), on its one line
# a name given adjacent literals in parentheses, one a line (Python's implicit concatenation)
_ADJACENT = re.compile(
    r"(?m)^[ \t]*([A-Za-z_][\w.]*)[ \t]*=[ \t]*\([ \t]*\n"
    r"((?:[ \t]*(?:\"[^\"\n]*\"|'[^'\n]*')[ \t]*\n){2,})[ \t]*\)")
# what ends the line every _ADJACENT match starts on (a search skips to its literal)
_ADJACENT_HINT = re.compile(r"\([ \t]*\n")
# literals in a list joined with nothing between them
_LISTED = re.compile(r"\[((?:[ \t]*(?:\"[^\"\n]*\"|'[^'\n]*')[ \t]*,)+[ \t]*"
                     r"(?:\"[^\"\n]*\"|'[^'\n]*'))[ \t]*,?[ \t]*\]"
                     r"\.join\([ \t]*(?:\"\"|'')[ \t]*\)")
_LITERAL = re.compile(r"\"([^\"\n]*)\"|'([^'\n]*)'")
_NAME_BEFORE = re.compile(r"([A-Za-z_][\w.]*)[ \t]*[:=][ \t]*$")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
MIN_WHOLE = 16  # a whole shorter than this is no secret made of parts
MAX_PARTS = 8

Detect = Callable[[str], Sequence[tuple[int, int, str]]]
Windows = list[tuple[int, int]] | tuple[tuple[int, int], ...]


def _literals(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The spans of the string literals' contents in text[start:end]."""
    return [(m.start(1), m.end(1)) if m.group(1) is not None else (m.start(2), m.end(2))
            for m in _LITERAL.finditer(text, start, end)]


def _assigned(text: str, identifier: str, before: int) -> tuple[int, int] | None:
    """The span of the literal last assigned to `identifier` before `before`."""
    pattern = re.compile(r"(?m)^[ \t]*" + _DECLARE + re.escape(identifier)
                         + r"[ \t]*(?::[ \t]*[A-Za-z_][\w.<>]*[ \t]*)?=[ \t]*"
                         r"(?:\"([^\"\n]*)\"|'([^'\n]*)')")
    found = None
    for match in pattern.finditer(text, 0, before):
        group = 1 if match.group(1) is not None else 2
        found = (match.start(group), match.end(group))
    return found


def _adjacent(text: str, start: int, end: int) -> Iterator[re.Match[str]]:
    """`_ADJACENT.finditer(text, start, end)`: a match starts only a line that ends in `(`,
    so only those lines' starts are tried (each once, none inside a match before it)."""
    at = start
    for opening in _ADJACENT_HINT.finditer(text, start, end):
        line_start = max(start, text.rfind("\n", 0, opening.start()) + 1)
        match = _ADJACENT.match(text, line_start, end) if line_start >= at else None
        if match is not None:
            yield match
            at = match.end()


def _named(text: str, windows: Windows) -> Iterator[tuple[str, list[tuple[int, int]]]]:
    """The wholes assigned to a name that holds a secret, the name on a line of `windows`."""
    matches = [m for start, end in windows for m in hinted(_JOINED, _JOINED_HINT, text, start, end)]
    for match in matches:
        if name_strength(match.group(1)) is None:
            continue  # `total = a + b`: only a name that holds a secret is built so
        identifiers = _IDENTIFIER.findall(match.group(2))
        if len(identifiers) > MAX_PARTS:
            continue
        spans = [_assigned(text, identifier, match.start()) for identifier in identifiers]
        if all(span is not None for span in spans):
            yield match.group(1), [span for span in spans if span is not None]
    if windows and "(\n" in text:
        for start, end in windows:
            for match in _adjacent(text, start, end):
                if name_strength(match.group(1)) is None:
                    continue  # a message over lines
                yield match.group(1), _literals(text, match.start(2), match.end(2))


def _parts(text: str, windows: Windows) -> Iterator[tuple[str, list[tuple[int, int]]]]:
    """(the name, the parts' spans) of each whole written in parts."""
    yield from _named(text, windows)
    if "].join(" in text:
        for match in _LISTED.finditer(text):
            line_start = text.rfind("\n", 0, match.start()) + 1
            named = _NAME_BEFORE.search(text, line_start, match.start())
            yield (named.group(1) if named else "value"), _literals(text, match.start(1),
                                                                     match.end(1))


def part_findings(text: str, detect: Detect,
                  windows: Windows | None = None) -> list[tuple[int, int, str]]:
    """The parts of every whole that `detect` finds a secret in (most of it); a name that
    holds a secret is looked for on the lines of `windows` only (the prefilter's lines of the
    structure detector; None: the whole text)."""
    found = []
    for name, spans in _parts(text, [(0, len(text))] if windows is None else windows):
        whole = "".join(text[start:end] for start, end in spans)
        if len(spans) < 2 or len(whole) < MIN_WHOLE or '"' in whole:
            continue
        line = f'{name} = "{whole}"\n'
        offset = len(name) + 4
        covered = sum(min(end, offset + len(whole)) - max(start, offset)
                      for start, end, _ in detect(line))
        if covered >= 0.8 * len(whole):
            found += [(start, end, "split_secret") for start, end in spans if end > start]
    return found
