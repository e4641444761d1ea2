"""Small helpers shared by commands: JSON output, repository resolution."""

from __future__ import annotations

import json
from typing import Any

import click
from pydantic import BaseModel

from helix.cli.safe_text import json_visible


def echo_json(obj: Any) -> None:
    if isinstance(obj, BaseModel):
        obj = obj.model_dump(mode="json")
    # exact JSON; the characters a terminal acts on that json.dumps leaves raw are \u-escaped
    click.echo(json_visible(json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False)))


# `helix ask` and `helix index`: the guard-rail override, said once.
yes_option = click.option(
    "--yes", is_flag=True,
    help="Index the current directory even when it looks like no repository "
         "(home, /, the temp dir, or outside git with over index.max_files files).")
