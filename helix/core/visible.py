"""What a terminal or a model must never receive raw: one rule for every printer and the prompt.

Characters a terminal acts on or that hide text: C0 and C1 controls, DEL, bidi embeddings,
overrides, isolates and marks, zero-width characters, line and paragraph separators, the BOM,
interlinear annotation, variation selectors and the Unicode tag block (U+E0000-E007F: invisible
ASCII look-alikes that smuggle text past a reader). Each is written out (`\\x1b`, `\\u202e`,
`\\U000e0041`) instead of shown.

    visible(text)       newlines and tabs kept, everything unsafe written out
    visible_line(text)  one line: newlines and tabs as spaces first
    visible_field(text) one field of a line (a path, a name): newlines and tabs written out
                        too (`a\\nb.py`), so a file named with a newline stays one line
    json_visible(doc)   a JSON document with the unsafe characters json.dumps leaves raw
                        escaped as \\uXXXX (still valid JSON, the same values)
"""

from __future__ import annotations

import re

UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e"
                    "\u2060-\u2064\u2066-\u206f\ufe00-\ufe0f\ufeff\ufff9-\ufffb"
                    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]")
_NAMED = {"\r": "\\r", "\x0b": "\\v", "\x0c": "\\f", "\x08": "\\b", "\x07": "\\a"}


def _show(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def visible(text: str) -> str:
    """`text` with every character a terminal would act on made visible."""
    return UNSAFE.sub(_show, text)


def visible_line(message: str) -> str:
    """One line: newlines and tabs as spaces, every other unsafe character written out."""
    return visible(message.replace("\n", " ").replace("\t", " "))


def visible_field(value: str) -> str:
    """A path or a name inside a line: every unsafe character written out, newlines, carriage
    returns and tabs included."""
    return visible(value.replace("\n", "\\n").replace("\t", "\\t"))


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # a surrogate pair, as JSON spells characters outside the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_visible(dumped: str) -> str:
    return UNSAFE.sub(_json_escape, dumped)
