"""Small helpers shared by commands: JSON output, repository resolution."""

from __future__ import annotations

import json
from typing import Any

import click
from pydantic import BaseModel


def echo_json(obj: Any) -> None:
    if isinstance(obj, BaseModel):
        obj = obj.model_dump(mode="json")
    click.echo(json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False))
