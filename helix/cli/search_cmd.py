"""`helix search`: the raw BM25 / dense channels over the index, for looking under the hood."""

from __future__ import annotations

from pathlib import Path

import click

import helix.inputs as inputs
from helix.cli.common import echo_json, one_repo, repo_option
from helix.cli.safe_text import echo, visible_field
from helix.core.config import load_config
from helix.core.errors import BadPathError
from helix.core.paths import find_repo_root, user_path

DEFAULT_K = 10
CHANNELS = ("bm25", "dense", "all")


def _root(path: str | None) -> Path:
    if path is None:
        return inputs.check_path_text(find_repo_root(Path.cwd()), "the repository path")
    candidate = user_path(path)
    if not candidate.is_dir():
        raise BadPathError(f"not a directory: {path}")
    return inputs.check_path_text(candidate.resolve(), "the repository path")


@click.command()
@click.argument("query")
@click.argument("path", required=False)
@repo_option("The repository (same as PATH).")
@click.option("--channel", type=click.Choice(CHANNELS), default="all", show_default=True,
              help="Which index to search.")
@click.option("-k", "k", type=click.IntRange(min=1, max=inputs.MAX_COUNT), default=DEFAULT_K,
              show_default=True,
              help="Results per channel.")
@click.option("--json", "as_json", is_flag=True, help="Print hits as JSON.")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the index lives (default: per-user cache keyed by the root).")
@click.option("--no-embed", is_flag=True, help="Do not embed when refreshing the index.")
def search(query: str, path: str | None, repos: tuple[str, ...], channel: str, k: int,
           as_json: bool, index_dir: Path | None, no_embed: bool) -> None:
    """Search the index of PATH (default: this repository) with BM25 and/or dense retrieval,
    exactly as the controller's channels see it: chunk, lines, score, rank."""
    from helix.lookups import search_hits
    from indexers.build import ensure_index

    root = _root(one_repo(repos, path))
    config = load_config(root, flags={"index.embed_enabled": False if no_embed else None})
    index, _ = ensure_index(root, config, index_dir=index_dir)
    rows = search_hits(index, query, channel, k)  # type: ignore[arg-type]
    if as_json:
        echo_json({"query": query, "index_rev": index.index_rev, "hits": rows})
        return
    if not rows:
        echo("no results")
    for row in rows:
        echo(f"{row['channel']:5} {row['rank']:3}  {row['score']:8.3f}  "
             f"{visible_field(row['path'])}:{row['start_line']}-{row['end_line']}  "
             f"{row['kind']}" + (f"  {visible_field(row['label'])}" if row["label"] else ""))
