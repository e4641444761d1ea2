"""Small helpers shared by commands: JSON output, repository resolution."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from pydantic import BaseModel

import helix.inputs as inputs
from helix.cli.safe_text import json_visible
from helix.core.errors import BadPathError
from helix.core.paths import user_path


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
        raise UserError(f"one repository per command, got {len(given)} ({shown}); only "
                        "`helix ask` asks across several repositories")
    return given[0] if given else None


def repo_root(repo: str | None, yes: bool = False) -> Path:
    """The repository: `--repo`, else the enclosing git repository of the current directory,
    else that directory, unless it is no repository by the look of it (the filesystem root,
    home, the temporary directory, or outside git with more than `index.max_files` files):
    then one line asking for --repo (`yes` indexes it anyway)."""
    from helix.core.paths import (
        find_repo_root,
        refuse_dangerous_root,
        refuse_implicit_root,
        user_max_files,
    )

    if repo is None:
        root = inputs.check_path_text(find_repo_root(Path.cwd()), "the repository path")
        if not yes:
            refuse_implicit_root(root, user_max_files())
        return root
    path = user_path(repo)
    if not path.is_dir():
        raise BadPathError(f"not a directory: {repo}")
    root = inputs.check_path_text(path.resolve(), "the repository path")
    if not yes:
        refuse_dangerous_root(root)
    return root
