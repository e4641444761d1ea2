"""Terminal safety: text from the repository, the model or a file name is shown, never obeyed.

A repository can hold escape sequences that a terminal would act on: OSC 52 clipboard writes,
window titles, hidden text, cursor moves, BEL, backspace and carriage-return overwrites, bidi
overrides that reorder what is shown (U+202E). Every human-readable line Helix prints goes
through `visible`, which makes each such character visible instead (`\\x1b`, `\\r`, `\\u202e`)
and leaves everything else, newlines and tabs included, as it is:

- `echo(text)`: `click.echo` for human output (commands use it instead of `click.echo`);
- `visible_field(path)`: a path or a name inside a line, its newlines and tabs written out
  too, so a file named `a\\nb.py` never breaks a listing into two lines;
- `console()`: a rich Console whose every string (printed text, table cells) passes through
  `visible` before rich reads its markup, so rich's own styling still works;
- JSON output (`helix.cli.common.echo_json`) stays exact JSON: `json.dumps` escapes C0
  controls, and `json_visible` escapes the rest as `\\uXXXX`, which decodes to the same text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from helix.core.visible import json_visible, visible, visible_field

__all__ = ["console", "echo", "json_visible", "visible", "visible_field"]

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text


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
