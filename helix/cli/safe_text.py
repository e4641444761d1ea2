"""Terminal safety: text from the repository, the model or a file name is shown, never obeyed.

A repository can hold escape sequences that a terminal would act on: OSC 52 clipboard writes,
window titles, hidden text, cursor moves, BEL, backspace and carriage-return overwrites, bidi
overrides that reorder what is shown (U+202E). Every human-readable line Helix prints goes
through `visible`, which makes each such character visible instead (`\\x1b`, `\\r`, `\\u202e`)
and leaves everything else, newlines and tabs included, as it is:

- `echo(text)`: `click.echo` for human output (commands use it instead of `click.echo`);
- `console()`: a rich Console whose every string (printed text, table cells) passes through
  `visible` before rich reads its markup, so rich's own styling still works;
- JSON output (`helix.cli.common.echo_json`) stays exact JSON: `json.dumps` escapes C0
  controls, and `json_visible` escapes the rest as `\\uXXXX`, which decodes to the same text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

# C0 controls but newline and tab, DEL, C1 controls; bidi embeddings, overrides, isolates and
# marks; zero-width characters; line and paragraph separators; the BOM; interlinear annotation.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e"
                     "\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]")
_NAMED = {"\r": "\\r", "\x0b": "\\v", "\x0c": "\\f", "\x08": "\\b", "\x07": "\\a"}


def _show(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with every character a terminal would act on made visible."""
    return _UNSAFE.sub(_show, text)


def json_visible(dumped: str) -> str:
    """A JSON document with the unsafe characters `json.dumps` leaves raw (DEL, C1, bidi,
    separators) escaped as `\\uXXXX`: still valid JSON, the same values."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", dumped)


def echo(message: Any = "", *, err: bool = False, nl: bool = True) -> None:
    """`click.echo` for human output: the message made visible first."""
    click.echo(visible(str(message)), err=err, nl=nl)


def console(**kwargs: Any) -> Console:
    """A rich Console that makes every string visible before rendering it."""
    from rich.console import Console

    class SafeConsole(Console):
        def render_str(self, text: str, **options: Any) -> Text:
            return super().render_str(visible(text), **options)

    kwargs.setdefault("highlight", False)
    kwargs.setdefault("soft_wrap", True)
    return SafeConsole(**kwargs)
