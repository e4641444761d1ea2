"""Secrets in a table exported as delimited text (a CSV or TSV export, a `;`-separated sheet):
a header row names the columns, and a column whose name says secret (`password`, `api_key`,
`credential`: `name_strength`) holds one in each row below that has as many cells, when the
cell reads as one (the name's strength decides, as for `name = value`).

    table_findings(text, lines) -> [(start, end, kind)]   (lines: those holding TABLE_WORDS)
    rows_end(text, line_start, line_end) -> where the rows below a header line naming a secret
        column end (the prefilter's window reaches that far), or None

A header's cells are names (letters, digits, `_`, `-`, `.`, spaces; quoted or not); the rows
are the lines below with the header's count of cells, up to MAX_ROWS of them. A quoted cell
holding the delimiter ends the table there (its count differs): both the rule and the
prefilter read the same rows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from helix.core.secret_names import name_strength
from helix.core.secret_structure import Found, quoted_ok, unquoted_ok

__all__ = ["MAX_ROWS", "TABLE_WORDS", "rows_end", "table_findings"]

MAX_ROWS = 1000  # rows read below a header (a long export: its first thousand)
_DELIMITERS = (",", "\t", ";")
_HEADER_CELL = re.compile(r"[ \t]*(\"?)([A-Za-z_][\w .\-]{0,60}?)\1[ \t]*\r?")
# the words one of a secret column's names holds (a line without any is no such header)
TABLE_WORDS = ("pass", "pwd", "pw", "secret", "token", "key", "cred", "auth", "pin")
_USABLE = frozenset({"strong", "keyed", "weak", "paired", "pin"})


def _header(line: str) -> tuple[str, list[str | None]] | None:
    """(delimiter, each column's name strength) of a header naming a secret column."""
    for delimiter in _DELIMITERS:
        if delimiter not in line:
            continue
        strengths: list[str | None] = []
        for cell in line.split(delimiter):
            match = _HEADER_CELL.fullmatch(cell)
            if match is None:
                break
            strength = name_strength(match.group(2).strip().replace(" ", "_"))
            strengths.append(strength if strength in _USABLE else None)
        else:
            if any(strengths):
                return delimiter, strengths
    return None


def _rows(text: str, line_end: int, delimiter: str, count: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each row below the header ending at `line_end`."""
    at = line_end
    for _ in range(MAX_ROWS):
        if at >= len(text):
            return
        end = text.find("\n", at + 1)
        end = len(text) if end == -1 else end
        if text.count(delimiter, at + 1, end) != count - 1:
            return
        yield at + 1, end
        at = end


def rows_end(text: str, line_start: int, line_end: int) -> int | None:
    header = _header(text[line_start:line_end])
    if header is None:
        return None
    rows = list(_rows(text, line_end, header[0], len(header[1])))
    return rows[-1][1] if rows else None


def _cell_found(text: str, start: int, end: int, strength: str) -> Found | None:
    while start < end and text[start] in " \t":
        start += 1
    while end > start and text[end - 1] in " \t\r":
        end -= 1
    if end - start >= 2 and text[start] == text[end - 1] == '"':
        if quoted_ok(text[start + 1:end - 1], strength):
            return Found(start + 1, end - 1, "assignment")
        return None
    if start < end and unquoted_ok(text[start:end], strength, False):
        return Found(start, end, "assignment")
    return None


def _all_lines(text: str) -> Iterator[tuple[int, int]]:
    at = 0
    while at <= len(text):
        end = text.find("\n", at)
        end = len(text) if end == -1 else end
        yield at, end
        at = end + 1


def table_findings(text: str, lines: list[tuple[int, int]]) -> Iterator[Found]:
    """The secret columns' cells of the tables whose header is one of `lines`."""
    if lines == [(0, len(text))]:  # (the text unsearched in lower case: its every line)
        lines = list(_all_lines(text))
    for line_start, line_end in lines:
        header = _header(text[line_start:line_end])
        if header is None:
            continue
        delimiter, strengths = header
        for row_start, row_end in _rows(text, line_end, delimiter, len(strengths)):
            at = row_start
            for strength in strengths:
                cut = text.find(delimiter, at, row_end)
                cell_end = row_end if cut == -1 else cut
                if strength is not None:
                    found = _cell_found(text, at, cell_end, strength)
                    if found is not None:
                        yield found
                at = cell_end + 1
