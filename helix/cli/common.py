"""Small helpers shared by commands: JSON output, repository resolution."""

from __future__ import annotations

import json
from typing import Any

import click
from pydantic import BaseModel

from helix.cli.safe_text import json_visible


def echo_json(obj: Any, *, lines: bool = False) -> None:
    """`obj` as exact JSON (the characters a terminal acts on that json.dumps leaves raw are
    escaped as \\uXXXX); `lines`: on one line (JSON Lines, one object per stream record)."""
    if isinstance(obj, BaseModel):
        obj = obj.model_dump(mode="json")
    dumped = json.dumps(obj, indent=None if lines else 2, sort_keys=True, ensure_ascii=False,
                        separators=(",", ":") if lines else None)
    click.echo(json_visible(dumped))


# `helix ask` and `helix index`: the guard-rail override, said once.
yes_option = click.option(
    "--yes", is_flag=True,
    help="Index the current directory even when it looks like no repository "
         "(home, /, the temp dir, or outside git with over index.max_files files).")


def repo_option(help_text: str = "The repository (default: the current directory's).") -> Any:
    """`--repo PATH` on every command that reads a repository. Repeating it is refused in one
    line rather than keeping the last one silently: a question is about one repository."""
    return click.option("--repo", "repos", multiple=True, metavar="PATH", help=help_text)


def one_repo(repos: tuple[str, ...], path: str | None = None) -> str | None:
    """The repository named by `--repo` (or the positional PATH, its alias); None for here."""
    from helix.core.errors import UserError

    given = [*repos, *([path] if path else [])]
    if len(set(given)) > 1:
        shown = ", ".join(given[:3]) + (", ..." if len(given) > 3 else "")
        raise UserError(f"one repository per command, got {len(given)} ({shown}); asking "
                        "across several repositories is not supported")
    return given[0] if given else None
