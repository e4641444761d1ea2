"""The layout and markup of a text a unit is read in (pure): what only looks like a unit, the
lines one sentence spans, and what markup says of a line (`controller.units` reads each
sentence).

    blanked(text)        -> `text` with what only looks like a unit blanked (format specifiers,
                            a plural mark, a quote's marks opening a line), same offsets
    paragraphs(text)     -> (first line, offset, text) of each run of lines one sentence spans
                            (a line continuing a sentence; a question and the line answering it,
                            past blank lines)
    noted(words)         -> `words` end with a number and a comment's opener ("2000 /*")
    struck(para, at)     -> what follows a strike-out holding offset `at` ("~~mV~~ V")
    retracted(text)      -> a diff's removed lines, a code condition whose next line rejects
    replacement(text, line, unit) -> the unit the line after a retracted one names
    foreign_rows(text, quantity)  -> rows of a list or table labelled with another quantity
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from itertools import pairwise

from controller.unit_identifiers import names_quantity
from controller.unit_names import WORD, is_number, names, rival, shown

_SENTENCE_END = re.compile(r"[.;:!?]\s*$")
_MARKUP_ONLY = re.compile(r"^\s*$")  # a blank line (a quote's marks are blanked)
_CONTINUES = re.compile(r"^\s*[a-z]")
_DIFF_REMOVED = re.compile(r"^\s*-(?!-)\s")
_DIFF_ADDED = re.compile(r"^\s*\+(?!\+)\s")
# a row of a list or a table and its label: "- `max_upload_size`: bytes", "| cooling_temp | K |"
_ROW = re.compile(r"^\s*(?:[-*]\s+(?P<item>[^:|—–]+?)\s*[:—–]|\|\s*(?P<cell>[^|]+?)\s*\|)"
                  r"(?=.*\S)")
# struck-out text, retracted by markup: "~~mV~~ V", "<del>GPa</del> pascal"
_STRUCK = re.compile(r"~~(?=\S)[^~\n]+?~~|<(del|s|strike)>[^<\n]+?</\1>", re.I)
# a value's unit in its comment: "12  # C", "5 // s", "2000 /* g */", "3 -- V"
_COMMENT_OPENERS = frozenset({"#", "/", "//", "/*", "--", "(*"})
# a line that is a code comment: its sentence ends with the line where code follows
_LINE_COMMENT = re.compile(r"^\s*(?://|#|--|/?\*)")
_MIN_ROWS = 2  # a list or a table has two rows at least


# what only looks like a unit, blanked before a text is read (same length, so offsets hold):
# a plural mark ("hour(s)": never "(s)" seconds), a printf or format specifier ("%s", "%H",
# "{:>5s}"): never a unit; a number's ("%.4f", "%5d", "{:.1}", "{energy * 3.6:.1f}": a
# precision or a number's type) reads as a number (a value's unit after)
_FORMAT_NUMBER = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?[dfeEgGiu](?![A-Za-z])"
                            r"|\{[^{}\n:]*:[^{}\s]*?(?:\.\d+[A-Za-z%]?|[dfeEgGn%])\}")
# (a space flag only before a specifier that ends there: "100 % of peak" is a percentage)
_NOT_UNITS = re.compile(r"(?<=[A-Za-z])\((?:s|es)\)|%[-+#0]*\d*(?:\.\d+)?[A-Za-z]"
                        r"|% [-+ #0]*\d*(?:\.\d+)?[A-Za-z](?![A-Za-z])"
                        r"|\{[^{}\s]*:[^{}\s]*\}")
_QUOTE_MARKS = re.compile(r"(?m)^[ \t]*>[> \t]*")  # a quote's marks opening a line: markup


def blanked(text: str) -> str:
    text = _FORMAT_NUMBER.sub(lambda m: "0" * len(m.group()), text)
    text = _QUOTE_MARKS.sub(lambda m: " " * len(m.group()), text)
    return _NOT_UNITS.sub(lambda m: " " * len(m.group()), text)


def _joined(text: str) -> str:
    """`text` with a line break that continues a sentence made a space (same offsets), so a
    negation on one line reaches the unit on the next ("it is not\\nexpressed in GPa"), and a
    question is read with the line that answers it ("Q: Is it in GPa?\\nA: No."), past blank
    lines and lines of markup alone ("> Is it in GPa?\\n>\\n> No, pascal."); never a code
    comment's line into the code after it ("// gain in dB, not validated\\nfloat gain_db")."""
    lines = text.split("\n")
    out = []
    asked = False  # a question waits for the line that answers it
    for number, line in enumerate(lines):
        nxt = lines[number + 1] if number + 1 < len(lines) else ""
        bare = _MARKUP_ONLY.match(line) is not None
        # a question in emphasis ("**Q: Is it in GPa?**") asks as one without it
        asked = (asked and bare) or (not bare and line.rstrip().rstrip("*_").endswith("?"))
        commented = _LINE_COMMENT.match(line) is not None and not _LINE_COMMENT.match(nxt)
        joins = (not bare and not _SENTENCE_END.search(line) and bool(_CONTINUES.match(nxt))
                 and not commented) or (asked and number + 1 < len(lines))
        out.append(line + (" " if joins else "\n"))
    return "".join(out)[:len(text)]


def paragraphs(text: str) -> list[tuple[int, int, str]]:
    """(first line, start offset, text) of each run of lines one sentence may span."""
    out: list[tuple[int, int, str]] = []
    line = offset = 0
    for part in _joined(text).split("\n"):
        original = text[offset:offset + len(part)]
        out.append((line, offset, original))
        line += original.count("\n") + 1
        offset += len(part) + 1
    return out


def noted(before: list[str]) -> bool:
    """The words `before` end with a number and a comment's opener ("12  #", "2000 /*"): a
    unit next is the value's."""
    marks = 0
    while marks < len(before) and len(before[-1 - marks]) == 1 \
            and before[-1 - marks] in "#/*-(":
        marks += 1
    opener = "".join(before[len(before) - marks:])
    return opener in _COMMENT_OPENERS and marks < len(before) and is_number(
        before[-1 - marks])


def replacement(text: str, line: int, unit: str) -> str | None:
    """The unit of `unit`'s dimension the line after a retracted one names (a diff's "+"
    line: `- unit = "GPa"` / `+ unit = "kPa"` -> kPa)."""
    lines = text.split("\n")
    after = lines[line + 1] if line + 1 < len(lines) else ""
    return next((shown(w) for w in WORD.findall(after) if rival(w, unit)), None)


def struck(para: str, at: int) -> str | None:
    """Where the mention at `at` is struck out by markup: what follows the strike on its line
    (what replaces it, "~~mV~~ V (fixed)" -> " V (fixed)"), else None."""
    starts, ends = _strikes(para)
    found = bisect_right(starts, at) - 1  # (strikes do not overlap: the last opened before it)
    if found < 0 or at >= ends[found]:
        return None
    line_end = para.find("\n", ends[found])
    return para[ends[found]:line_end if line_end >= 0 else len(para)]


@lru_cache(maxsize=4)  # a paragraph's strikes, read once for all its mentions
def _strikes(para: str) -> tuple[list[int], list[int]]:
    spans = [match.span() for match in _STRUCK.finditer(para)]
    return [start for start, _ in spans], [end for _, end in spans]


def retracted(text: str) -> set[int]:
    """Lines whose mentions do not hold: a diff's removed line (a "-" line right before the
    "+" line that replaces it), and a code condition whose next line rejects what it tests
    (`if unit == "GPa":` then `raise ...`)."""
    lines = text.split("\n")
    out = {n for n, (line, nxt) in enumerate(pairwise(lines))
           if _DIFF_REMOVED.match(line) and _DIFF_ADDED.match(nxt)}
    rejects = names().rejects
    for n, line in enumerate(lines):
        if not names().condition.match(line):
            continue  # (the next line with words is looked for after a condition only)
        body = next((lines[k].split() for k in range(n + 1, len(lines)) if lines[k].strip()),
                    [""])
        if re.split(r"\W", body[0])[0].lower() in rejects:
            out.add(n)
    return out


def foreign_rows(text: str, quantity: tuple[str, ...]) -> tuple[set[int], list[str]]:
    """Rows of a list or table (a line opening with "-", "*" or "|", or a `label: value` line)
    whose label names something other than the asked quantity, where another row of the text
    names it: "- cooling temperature: K" / "- ambient temperature: °C" (°C is the ambient's)."""
    rows: dict[int, str] = {}
    for n, line in enumerate(text.split("\n")):
        match = _ROW.match(line)
        if match:
            rows[n] = match.group("item") or match.group("cell")
    if len(rows) < _MIN_ROWS or not quantity:
        return set(), []
    named = {n for n, label in rows.items() if names_quantity(label, quantity)}
    lines = text.split("\n")
    return (set(rows) - named if named else set()), [lines[n] for n in sorted(named)]


