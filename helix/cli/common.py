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
