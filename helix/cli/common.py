"""Small helpers shared by commands: JSON output, repository resolution."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

import helix.inputs as inputs
from helix.cli.safe_text import echo, json_visible, visible_field
from helix.core.errors import BadPathError
from helix.core.paths import user_path


def echo_json(obj: Any, *, lines: bool = False) -> None:
    """`obj` as exact JSON (the characters a terminal acts on that json.dumps leaves raw are
    escaped as \\uXXXX); `lines`: on one line (JSON Lines, one object per stream record)."""
    from pydantic import BaseModel  # not at start: a command's bad input is refused before it

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


def index_note(report: Any) -> str | None:
    """What the indexing before an answer did, one line (None when it used the index as it
    was): a first index is built, with its size; a later one is refreshed, with its changes.
    `report`: a BuildReport or its dict."""
    get = report.get if isinstance(report, dict) else (lambda key: getattr(report, key, None))
    if not get("refreshed"):
        return None
    if get("built_whole"):
        return f"index built ({int(get('files_indexed') or 0):,} files)"
    return f"index refreshed ({len(get('changed_files') or ())} changed file(s))"


def announce_first_index(root: Path) -> None:
    """Before a first question on a repository (no index under $HELIX_HOME yet), say at once
    that it is being indexed: the build takes seconds to minutes, and silence reads as a hang.
    Cheap: a file test, before anything heavy is imported."""
    from helix.core.paths import index_dir_for

    if (index_dir_for(root) / "CURRENT").exists():
        return
    echo(f"helix: no index of {root} yet: building it first (files, symbols, graph, BM25; "
         "later questions re-index only what changed)", err=True)


def citations_in_order(citations: Sequence[Any]) -> list[Any]:
    """The citations as a reference list: by evidence number (E1, E2, E3: the rank order), not
    in the order the answer happens to mention them; any other kind of ref after, as given."""
    def key(pair: tuple[int, Any]) -> tuple[int, int]:
        ref = pair[1].ref
        number = int(ref[1:]) if ref[:1] == "E" and ref[1:].isdigit() else None
        return (0, number) if number is not None else (1, pair[0])

    return [c for _, c in sorted(enumerate(citations), key=key)]


def limits_line(limits: Sequence[str]) -> str:
    """The line that shows what an accepted answer notes the evidence does not show (the
    envelope's `answer_limits`), as every view prints it."""
    return ("limited: the answer notes the evidence does not show: "
            + visible_field("; ".join(limits)))
