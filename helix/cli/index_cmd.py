"""`helix index`, `helix status`, `helix find`: thin wrappers over `indexers.build`."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

import helix.inputs as inputs
from helix.cli.common import echo_json
from helix.cli.safe_text import echo
from helix.core.config import HelixConfig, load_config
from helix.core.errors import HelixError, UserError
from helix.core.paths import find_repo_root

DEFAULT_FIND_LIMIT = 20
STAGE_LABELS = {"walk": "walking", "parse": "parsing", "embed": "embedding",
                "graph": "building graph", "write": "writing"}


class NoMatchError(HelixError):
    """`helix find` found nothing (exit 1, like grep)."""


def _root(path: str | None) -> Path:
    if path is None:
        return inputs.check_path_text(find_repo_root(Path.cwd()), "the repository path")
    from helix.core.errors import BadPathError

    candidate = Path(path).expanduser()
    if not candidate.exists():
        raise BadPathError(f"path does not exist: {path}")
    if not candidate.is_dir():
        raise BadPathError(f"not a directory: {path}")
    return inputs.check_path_text(candidate.resolve(), "the repository path")


def _config(root: Path, no_embed: bool = False) -> HelixConfig:
    return load_config(root, flags={"index.embed_enabled": False if no_embed else None})


@contextmanager
def _progress(enabled: bool) -> Iterator[Any]:
    """A rich progress bar on a terminal (stderr); nothing otherwise."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   console=Console(stderr=True), transient=True)
    tasks: dict[str, Any] = {}

    def update(stage: str, done: int, total: int) -> None:
        if stage not in tasks:
            tasks[stage] = bar.add_task(STAGE_LABELS.get(stage, stage), total=total or None)
        bar.update(tasks[stage], completed=done, total=total or None)

    with bar:
        yield update


def _kv(counts: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items() if k != "total") or "none"


def _render_report(report: Any) -> None:
    if report.noop:
        echo(f"index is up to date (no changes) - {report.files_indexed} files, "
             f"{report.chunks.get('total', 0)} chunks, {report.seconds['total']:.2f} s")
        return
    for warning in report.warnings:
        echo(f"note: {warning}")
    skipped = sum(report.files_skipped.values())
    echo(f"files: {report.files_seen} seen, {report.files_indexed} indexed, "
         f"{skipped} skipped ({_kv(report.files_skipped)})")
    echo(f"changed: {len(report.changed_files)} files "
         f"({len(report.added)} added, {len(report.modified)} modified, "
         f"{len(report.removed)} removed); parsed {report.files_parsed}")
    echo(f"chunks: {report.chunks.get('total', 0)} ({_kv(report.chunks)})")
    echo(f"symbols: {report.symbols.get('defs', 0)} definitions, "
         f"{report.symbols.get('refs', 0)} references")
    echo(f"graph: {report.graph_nodes} nodes, {report.graph_edges.get('total', 0)} edges "
         f"({_kv(report.graph_edges)})")
    echo(f"embeddings: {report.embeddings.get('computed', 0)} computed, "
         f"{report.embeddings.get('cached', 0)} cached")
    echo("seconds: " + ", ".join(f"{k} {v:.2f}" for k, v in report.seconds.items()))
    echo(f"repo_rev {report.repo_rev}  index_rev {report.index_rev}")
    echo(f"index: {report.index_dir}")


@click.command()
@click.argument("path", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the build report as JSON.")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the index lives (default: per-user cache keyed by the root).")
@click.option("--force", is_flag=True, help="Rebuild from scratch (embeddings stay cached).")
@click.option("--no-embed", is_flag=True, help="Skip embeddings (BM25, symbols, graph only).")
def index(path: str | None, as_json: bool, index_dir: Path | None, force: bool,
          no_embed: bool) -> None:
    """Index a repository (incremental: only changed files are re-parsed and re-embedded).

    PATH defaults to the current directory's repository root.
    """
    from indexers.build import build_index

    root = _root(path)
    with _progress(not as_json) as progress:
        report = build_index(root, _config(root, no_embed), index_dir=index_dir,
                             progress=progress, force=force)
    if as_json:
        echo_json(report)
    else:
        _render_report(report)


@click.command()
@click.argument("path", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the index lives (default: per-user cache keyed by the root).")
def status(path: str | None, as_json: bool, index_dir: Path | None) -> None:
    """Say whether the index is fresh: changed files, revisions, size on disk."""
    from indexers.build import index_status

    root = _root(path)
    report = index_status(root, _config(root), index_dir=index_dir)
    if as_json:
        echo_json(report)
        return
    state = "fresh" if report.fresh else ("not indexed" if not report.exists else "stale")
    echo(f"index: {state}" + (f" ({report.problem})" if report.problem else ""))
    for label, paths in (("added", report.added), ("modified", report.modified),
                         ("removed", report.removed)):
        for changed in paths:
            echo(f"  {label}: {changed}")
    if report.exists:
        echo(f"built at repo_rev {report.built_repo_rev}; now {report.current_repo_rev}")
        echo(f"index_rev {report.index_rev}; {report.files_indexed} files; "
             f"{report.size_bytes / 1e6:.1f} MB at {report.index_dir}")


@click.command()
@click.argument("name")
@click.argument("path", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print matches as JSON.")
@click.option("--limit", type=click.IntRange(min=1, max=inputs.MAX_COUNT),
              default=DEFAULT_FIND_LIMIT,
              show_default=True, help="At most this many definitions.")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the index lives (default: per-user cache keyed by the root).")
def find(name: str, path: str | None, as_json: bool, limit: int,
         index_dir: Path | None) -> None:
    """Look a symbol up: definitions (path:line, kind, scope) and reference counts.

    Exact matches on name or qualified name; close names (labelled fuzzy) when none.
    """
    from indexers.build import ensure_index

    if not name.strip():
        raise UserError("empty symbol name (give the name of a class, function or method)")
    root = _root(path)
    idx, report = ensure_index(root, _config(root), index_dir=index_dir)
    defs = idx.find_definitions(name, limit=limit)
    fuzzy = not defs
    if fuzzy:
        defs = idx.find_definitions(name, fuzzy=True, limit=limit)
    if not defs:
        raise NoMatchError(f"no definition matches {inputs.shown(name)}")
    rows = [{"name": d.name, "qualname": d.qualname, "kind": d.kind, "path": d.path,
             "line": d.start_line, "end_line": d.end_line, "scope": d.scope,
             "references": len(idx.references_to(d.name))} for d in defs]
    if as_json:
        echo_json({"query": name, "fuzzy": fuzzy, "definitions": rows,
                   "refreshed": report.refreshed, "index_rev": idx.index_rev})
        return
    if report.refreshed:
        why = f"; {report.rebuild_reason}" if report.rebuild_reason else ""
        echo(f"(index refreshed: {len(report.changed_files)} files changed{why})",
             err=True)
    if fuzzy:
        echo(f"no exact match for '{name}'; fuzzy matches:")
    for row in rows:
        scope = f" in {row['scope']}" if row["scope"] else ""
        echo(f"{row['path']}:{row['line']}  {row['kind']} {row['qualname']}{scope}  "
             f"({row['references']} references)")
