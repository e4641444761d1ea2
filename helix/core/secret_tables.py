"""Secrets in a table written as delimited text (a CSV or TSV export, a `;`-separated sheet, a
Markdown table):
a header row names the columns, and a column whose name says secret (`password`, `api_key`,
`credential`: `name_strength`) holds one in each row below that has as many cells, when the
cell reads as one (the name's strength decides, as for `name = value`).

    table_findings(text, lines) -> [(start, end, kind)]   (lines: those holding TABLE_WORDS)
A Markdown row whose first cell names a secret (`| Pre-shared key | `X` |`, a settings
table's rows) holds one in its second cell.

    rows_end(text, line_start, line_end) -> where the rows below a header line naming a secret
        column end (the prefilter's window reaches that far), or None

Interchange segments carry their own credentials by position: X12's ISA header (ISA02, the
authorization information, when ISA01 says one is present; ISA04, the security information,
when ISA03 does: `01`, a password), EDIFACT's UNB (its sixth element: the recipient's reference or
password), HL7 v2's MSH (MSH-8, the security field): `segment_findings(text)`.

A header's cells are names (letters, digits, `_`, `-`, `.`, spaces; quoted or not), the line
flush left (an export's; an indented one is code or prose); the rows are the lines below with
the header's count of cells, up to MAX_ROWS of them. A quoted cell holding the delimiter ends
the table there (its count differs): both the rule and the prefilter read the same rows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from helix.core.secret_gates import MIN_VALUE
from helix.core.secret_hl7 import hl7_logins
from helix.core.secret_names import name_strength
from helix.core.secret_structure import Found, placeholder, quoted_ok, unquoted_ok

__all__ = ["INDENTS", "MAX_ROWS", "SEGMENT_TRIGGER", "TABLE_WORDS", "rows_end", "segment_findings",
           "table_findings"]

MAX_ROWS = 1000  # rows read below a header (a long export: its first thousand)
_DELIMITERS = (",", "\t", ";", "|")  # (`|`: a Markdown table's, its edges' bars empty cells)
INDENTS = frozenset({" ", "\t", ""})
# a header's characters only, a delimiter among them
HEADER_LINE = re.compile(r"[\w .\-\"|]*[,;\t|][\w .\-\"\t,;|\r]*")
_HEADER_CELL = re.compile(r"[ \t]*(\"?)([A-Za-z_][\w .\-]{0,60}?)\1[ \t]*\r?")
# the words one of a secret column's names holds (a line without any is no such header)
TABLE_WORDS = ("pass", "pwd", "pw", "secret", "token", "key", "cred", "auth", "pin")
_USABLE = frozenset({"strong", "keyed", "weak", "paired", "pin"})


def _header(line: str) -> tuple[str, list[str | None]] | None:
    """(delimiter, each column's name strength) of a header naming a secret column."""
    for delimiter in _DELIMITERS:
        if delimiter not in line:
            continue
        parts = line.split(delimiter)
        edges = delimiter == "|" and not parts[0].strip() and not parts[-1].strip()
        cells = [_HEADER_CELL.fullmatch(cell) for cell in parts[1:-1] if edges] or [
            _HEADER_CELL.fullmatch(cell) for cell in parts]
        if any(cell is None for cell in cells):
            continue
        strengths = [name_strength(cell.group(2).strip().replace(" ", "_"))
                     for cell in cells if cell is not None]
        if edges:  # `| a | b |`: the bars' empty cells at the edges
            strengths = [None, *strengths, None]
        if any(strength in _USABLE for strength in strengths):
            return delimiter, [s if s in _USABLE else None for s in strengths]
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


def _header_at(text: str, line_start: int, line_end: int) -> tuple[str, list[str | None]] | None:
    """`_header` of a line flush left (an export's header is: most trigger lines are indented
    code or prose), its characters a header's."""
    if (line_start >= line_end or text[line_start] in " \t"
            or HEADER_LINE.fullmatch(text, line_start, line_end) is None):
        return None
    return _header(text[line_start:line_end])


def rows_end(text: str, line_start: int, line_end: int) -> int | None:
    if text[line_start:line_start + 1] in INDENTS:
        return None  # (most trigger lines)
    header = _header_at(text, line_start, line_end)
    if header is None:
        return None
    rows = list(_rows(text, line_end, header[0], len(header[1])))
    return rows[-1][1] if rows else None


def _cell_found(text: str, start: int, end: int, strength: str) -> Found | None:
    while start < end and text[start] in " \t":
        start += 1
    while end > start and text[end - 1] in " \t\r":
        end -= 1
    if end - start >= 2 and text[start] == text[end - 1] and text[start] in "\"`":
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


# a Markdown table's row naming a setting in its first cell (`| Pre-shared key | `X` |`, a
# settings table's `| Setting | Value |`): the name, bold or backticked maybe
_ROW_NAME = re.compile(r"[ \t]*[*`]{0,2}([A-Za-z][\w .\-]{0,60}?)[*`]{0,2}[ \t]*")


def _row_pair(text: str, line_start: int, line_end: int) -> Found | None:
    """The second cell of a Markdown row whose first cell names a secret, judged under it."""
    first = text.find("|", line_start + 1, line_end)
    if first == -1:
        return None
    second = text.find("|", first + 1, line_end)
    name = _ROW_NAME.fullmatch(text, line_start + 1, first)
    if second == -1 or name is None:
        return None
    strength = name_strength(name.group(1).replace(" ", "_"))
    if strength not in _USABLE:
        return None
    return _cell_found(text, first + 1, second, strength)


def table_findings(text: str, lines: list[tuple[int, int]]) -> Iterator[Found]:
    """The secret columns' cells of the tables whose header is one of `lines`, and the value
    cells of Markdown rows whose first cell names a secret."""
    if lines == [(0, len(text))]:  # (the text unsearched in lower case: its every line)
        lines = list(_all_lines(text))
    for line_start, line_end in lines:
        if text[line_start:line_start + 1] == "|":
            row = _row_pair(text, line_start, line_end)
            if row is not None:
                yield row
        header = _header_at(text, line_start, line_end)
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


# a segment opening an interchange: its name, then its element separator (HL7's is `|`)
SEGMENT_TRIGGER = r"ISA[*|^~!]|UNB\+|MSH\|"
_SEGMENT = re.compile(r"ISA([*|^~!])|UNB(\+)|MSH(\|)")  # (what stands before: by hand)
_BEFORE_SEGMENT = " \t\r\n\"'`>"
# a segment ends at its terminator (X12's `~`, EDIFACT's `'`), a line's end or a literal's
_SEGMENT_ENDS = {"ISA": "~\r\n\"`", "UNB": "'\r\n\"`", "MSH": "\r\n\"`"}
# (element index, the qualifier's index and the values saying none is there, or None)
_POSITIONS: dict[str, tuple[tuple[int, int | None, tuple[str, ...]], ...]] = {
    "ISA": ((2, 1, ("00", "")), (4, 3, ("00", ""))),
    "UNB": ((6, None, ()),),
    "MSH": ((7, None, ()),),
}


def _elements(text: str, start: int, separator: str, ends: str) -> list[tuple[int, int]]:
    """(start, end) of each element of the segment whose first element starts at `start`."""
    out = []
    at = start
    while True:
        end = at
        while end < len(text) and text[end] != separator and text[end] not in ends:
            end += 1
        out.append((at, end))
        if end >= len(text) or text[end] != separator or len(out) > 16:
            return out
        at = end + 1


def segment_findings(text: str) -> Iterator[Found]:
    line_end = -1  # the end of the line below which `secret_hl7` read (once a line)
    for match in _SEGMENT.finditer(text):
        if match.start() > 0 and text[match.start() - 1] not in _BEFORE_SEGMENT:
            continue  # inside a word (`VISA*`, `RMSH|`)
        separator = match.group(1) or match.group(2) or match.group(3)
        name = text[match.start():match.start() + 3]
        if name == "MSH" and match.end() > line_end:  # (a login and its password below)
            line_end = text.find("\n", match.end()) % (len(text) + 1)  # (-1: the text's end)
            yield from hl7_logins(text, match.end())
        elements = [(0, 0), *_elements(text, match.end(), separator, _SEGMENT_ENDS[name])]
        for index, qualifier, none in _POSITIONS[name]:
            if index >= len(elements):
                continue
            start, end = elements[index]
            if qualifier is not None and text[slice(*elements[qualifier])].strip() in none:
                continue
            if name == "UNB":  # (the password, its qualifier after a `:`)
                cut = text.find(":", start, end)
                end = end if cut == -1 else cut
            while end > start and text[end - 1] == " ":
                end -= 1  # (X12 pads its fixed-width elements with spaces)
            value = text[start:end]
            if len(value) >= MIN_VALUE and not placeholder(value, quoted=True):
                yield Found(start, end, "assignment")
