"""`helix index`, `helix status`, `helix find`: thin wrappers over `indexers.build`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

import helix.inputs as inputs
from helix.cli.common import echo_json, index_note, one_repo, repo_option, yes_option
from helix.cli.safe_text import echo, visible_field
from helix.core.errors import (
    UserError,
)
from helix.core.paths import find_repo_root, user_path

if TYPE_CHECKING:
    from helix.core.config import HelixConfig

DEFAULT_FIND_LIMIT = 20


def _root(path: str | None, guard: bool = False) -> Path:
    """PATH, else the current directory's repository; `guard`: refuse one that looks like no
    repository (`helix.core.paths.refuse_implicit_root`; --yes turns the guard off)."""
    if path is None:
        root = inputs.check_path_text(find_repo_root(Path.cwd()), "the repository path")
        if guard:
            from helix.core.paths import refuse_implicit_root, user_max_files

            refuse_implicit_root(root, user_max_files(), how="helix index PATH")
        return root
    from helix.core.errors import BadPathError

    candidate = user_path(path)
    if not candidate.exists():
        raise BadPathError(f"path does not exist: {path}")
    if not candidate.is_dir():
        raise BadPathError(f"not a directory: {path}")
    root = inputs.check_path_text(candidate.resolve(), "the repository path")
    if guard:
        from helix.core.paths import refuse_dangerous_root

        refuse_dangerous_root(root)
    return root


def _config(root: Path, no_embed: bool = False) -> HelixConfig:
    from helix.core.config import load_config  # the settings: after the input is checked

    return load_config(root, flags={"index.embed_enabled": False if no_embed else None})


def _kv(counts: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items() if k != "total") or "none"


def _render_report(report: Any) -> None:
    from helix.cli.progress import dense_line

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
    scan = report.secret_scan
    if scan:
        by = (f", {scan.get('scanned_by_workers', 0)} by {scan['workers']} worker processes"
              if scan.get("workers") else "")
        echo(f"secrets: {scan.get('scanned', 0)} files scanned{by}, "
             f"{scan.get('cached', 0)} from the scan cache" if scan.get("masked")
             else "secrets: not masked (index.mask_secrets = false)")
    echo(f"embeddings: {report.embeddings.get('computed', 0)} computed, "
         f"{report.embeddings.get('cached', 0)} cached")
    building = dense_line(report.dense_state, report.worker_pid)
    if building:
        echo(f"{building}: the dense worker embeds the rest in the background "
             "(`helix status` shows it, `helix index --stop` stops it)")
    echo("seconds: " + ", ".join(f"{k} {v:.2f}" for k, v in report.seconds.items()))
    echo(f"repo_rev {report.repo_rev}  index_rev {report.index_rev}")
    echo(f"index: {report.index_dir}")


@click.command()
@click.argument("paths", nargs=-1)
@repo_option("The repository (same as PATH).")
@click.option("--json", "as_json", is_flag=True, help="Print the build report as JSON.")
@click.option("--cluster", metavar="ADDRESS|local",
              help="Index every repository as a Ray task on this cluster (`local`: one "
                   "started on this machine); see docs/deploy.md.")
@click.option("--repos-file", type=click.Path(dir_okay=False, path_type=Path),
              help="A TOML file of [[repo]] entries (name, path or git URL and rev, group) "
                   "to index and register.")
@click.option("--store-root", type=click.Path(file_okay=False, path_type=Path),
              help="With several repositories: the shared directory the indexes (and git "
                   "checkouts) go to, seen by every worker (default: HELIX_HOME).")
@click.option("--group", default=None, metavar="NAME",
              help="With several PATHs: the group they are registered in (default: default).")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the index lives (default: per-user cache keyed by the root).")
@click.option("--force", is_flag=True, help="Rebuild from scratch (embeddings stay cached).")
@click.option("--no-embed", is_flag=True, help="Skip embeddings (BM25, symbols, graph only).")
@click.option("--background", is_flag=True,
              help="Build the lexical index now and embed in a background worker (what "
                   "`helix ask` does on a new repository).")
@click.option("--stop", is_flag=True,
              help="Stop the background dense worker (it keeps what it embedded; asks do "
                   "not restart it until the next `helix index`).")
@yes_option
@click.option("--embed-all", is_flag=True,
              help="Embed every eligible chunk, not index.embed_max_chunks of them; kept by "
                   "this index from now on (until --force). With --background the worker "
                   "embeds them over time.")
def index(paths: tuple[str, ...], repos: tuple[str, ...], as_json: bool, cluster: str | None,
          repos_file: Path | None, store_root: Path | None, group: str | None,
          index_dir: Path | None, force: bool,
          no_embed: bool, background: bool, stop: bool, yes: bool, embed_all: bool) -> None:
    """Index a repository (incremental: only changed files are re-parsed and re-embedded).

    PATH defaults to the current directory's repository root. Every card is embedded before
    it returns (a running background worker is waited for), unless --background. Several
    PATHs, --repos-file or --cluster index many repositories (each a task: on the Ray
    cluster, or one after another here) into --store-root and register them for
    `helix ask --repos`.
    """
    # several PATHs are many repositories; `--repo` names the one (twice: refused below)
    if cluster or repos_file or store_root or group or len(set(paths)) > 1:
        from helix.cli.fleet_cmd import index_many

        if stop or background or embed_all or index_dir:
            raise UserError("--stop, --background, --embed-all and --index-dir index one "
                            "repository; not with --cluster, --repos-file or several PATHs")
        index_many([*repos, *paths], repos_file, cluster=cluster, store_root=store_root,
                   group=group, no_embed=no_embed, force=force, as_json=as_json)
        return
    path = paths[0] if paths else None

    if stop and (background or force or no_embed or embed_all):
        raise UserError("--stop does not combine with --background, --force, --no-embed "
                        "or --embed-all")
    if embed_all and no_embed:
        raise UserError("--embed-all does not combine with --no-embed")
    if stop:
        _stop_worker(_root(path), index_dir, as_json)
        return
    root = _root(one_repo(repos, path), guard=not yes)
    from helix.cli.progress import progress_bar, wanted
    from indexers.build import build_index  # after the input is checked: a bad one is quick

    with progress_bar(wanted(as_json)) as progress:
        report = build_index(root, _config(root, no_embed), index_dir=index_dir,
                             progress=progress, force=force,
                             dense="background" if background else "wait",
                             embed_all=embed_all)
    if as_json:
        echo_json(report)
    else:
        _render_report(report)


def _stop_worker(root: Path, index_dir: Path | None, as_json: bool) -> None:
    from indexers import dense_worker
    from indexers.build import index_store

    stopped = dense_worker.stop(index_store(root, index_dir))
    if as_json:
        echo_json(stopped)
        return
    state = stopped["state"]
    if stopped["stopped"] is None:
        echo("no dense worker was running; asks will not start one until the next "
             "`helix index`")
        return
    done = f" at {state.get('vectors', 0):,} of {state.get('total', 0):,} vectors" if (
        isinstance(state.get("total"), int)) else ""
    echo(f"stopped the dense worker (pid {stopped['stopped']}){done}; what it embedded is "
         "kept: `helix index` finishes the rest (--background: in a new worker)")


@click.command()
@click.argument("path", required=False)
@repo_option("The repository (same as PATH).")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the index lives (default: per-user cache keyed by the root).")
def status(path: str | None, repos: tuple[str, ...], as_json: bool,
           index_dir: Path | None) -> None:
    """Say whether the index is fresh: changed files, revisions, size on disk."""
    root = _root(one_repo(repos, path))
    from helix.core.config import helix_home
    from helix.servers.discovery import running_server
    from indexers.build import declined_embeddings, index_status

    config = declined_embeddings(root, _config(root), index_dir, quiet=True)
    report = index_status(root, config, index_dir=index_dir)
    server = running_server(helix_home())
    served = server is not None and str(root) in server.repos
    if as_json:
        echo_json({**report.model_dump(mode="json"), "server": None if server is None else {
            "pid": server.pid, "url": server.base, "serves_this_repository": served}})
        return
    state = "fresh" if report.fresh else ("not indexed" if not report.exists else "stale")
    echo(f"index: {state}" + (f" ({report.problem})" if report.problem else ""))
    if server is not None:
        echo(f"server: running at {server.base} (pid {server.pid}); "
             + ("`helix ask` here answers through it" if served
                else "it does not serve this repository"))
    for label, paths in (("added", report.added), ("modified", report.modified),
                         ("removed", report.removed)):
        for changed in paths:
            echo(f"  {label}: {visible_field(changed)}")
    if report.exists:
        echo(f"built at repo_rev {report.built_repo_rev}; now {report.current_repo_rev}")
        echo(f"index_rev {report.index_rev}; {report.files_indexed} files; "
             f"{report.size_bytes / 1e6:.1f} MB at {report.index_dir}")
        for line in _dense_status(report.dense_state, report.worker):
            echo(line)
        coverage = coverage_line(report.dense_state, config.index.embed_max_chunks)
        if coverage:
            echo(coverage)


def coverage_line(state: dict[str, Any] | None, budget: int) -> str | None:
    """How much of the repository has vectors (issue 13), when the index records it."""
    if not state or not state.get("eligible"):
        return None
    vectors, eligible, chunks = state["vectors"], state["eligible"], state.get("chunks")
    share = f"{100 * vectors / eligible:.1f}%"
    whole = f"; {chunks:,} chunks in all" if isinstance(chunks, int) else ""
    if state.get("all"):
        scope = "every one selected (helix index --embed-all)"
    elif state["total"] < eligible:
        scope = (f"the {state['total']:,} first by priority selected (index.embed_max_chunks = "
                 f"{budget:,}; `helix index --embed-all` selects every one)")
    else:
        scope = "every one selected"
    return (f"dense coverage: {vectors:,} of {eligible:,} embeddable chunks have vectors "
            f"({share}{whole}); {scope}")


def _dense_status(state: dict[str, Any] | None, worker: dict[str, Any] | None) -> list[str]:
    """`helix status`'s lines on the vectors and the background worker."""
    if state is None:
        return ["dense: off (embeddings disabled)"]
    lines = [f"dense: {'complete' if state['complete'] else 'incomplete'} "
             f"({state['vectors']:,} of {state['total']:,} vectors)"]
    if worker is None:
        return lines
    if worker.get("running"):
        done, total = worker.get("vectors"), worker.get("total")
        progress = (f"{done:,} of {total:,} embedded" if isinstance(done, int)
                    and isinstance(total, int) else str(worker.get("status") or "starting"))
        rate = f", {worker['rate']:.1f} vectors/s" if worker.get("rate") else ""
        eta = f", ETA {worker['eta_s']:.0f} s" if worker.get("eta_s") is not None else ""
        lines.append(f"dense worker: running, pid {worker.get('pid')} alive; "
                     f"{progress}{rate}{eta}")
    elif worker.get("paused") and not state["complete"]:
        lines.append("dense worker: stopped (`helix index` finishes the vectors, "
                     "--background in a new worker)")
    elif worker.get("status") == "failed":
        lines.append(f"dense worker: failed: {worker.get('error')} (`helix index` embeds "
                     "in the foreground and shows the error)")
    elif not state["complete"]:
        lines.append(f"dense worker: not running (pid {worker.get('pid')} exited, "
                     f"{worker.get('status')}); the next `helix ask` resumes it")
    return lines


@click.command()
@click.argument("name")
@click.argument("path", required=False)
@repo_option("The repository (same as PATH).")
@click.option("--json", "as_json", is_flag=True, help="Print matches as JSON.")
@click.option("--limit", type=click.IntRange(min=1, max=inputs.MAX_COUNT),
              default=DEFAULT_FIND_LIMIT,
              show_default=True, help="At most this many definitions.")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the index lives (default: per-user cache keyed by the root).")
def find(name: str, path: str | None, repos: tuple[str, ...], as_json: bool, limit: int,
         index_dir: Path | None) -> None:
    """Look a symbol up: definitions (path:line, kind, scope) and reference counts.

    Exact matches on name or qualified name; close names (labelled fuzzy) when none.
    """
    if not name.strip():
        raise UserError("empty symbol name (give the name of a class, function or method)")
    root = _root(one_repo(repos, path))
    from helix.lookups import find_symbol
    from indexers.build import ensure_index

    idx, report = ensure_index(root, _config(root), index_dir=index_dir, dense="background")
    found = find_symbol(idx, name, limit)
    fuzzy, rows = found["fuzzy"], found["definitions"]
    if as_json:
        echo_json({**found, "refreshed": report.refreshed})
        return
    note = index_note(report)
    if note:
        why = f"; {report.rebuild_reason}" if report.rebuild_reason else ""
        echo(f"({note}{why})", err=True)
    if fuzzy:
        echo(f"no exact match for '{name}'; fuzzy matches:")
    for row in rows:
        scope = f" in {visible_field(row['scope'])}" if row["scope"] else ""
        echo(f"{visible_field(row['path'])}:{row['line']}  {row['kind']} "
             f"{visible_field(row['qualname'])}{scope}  "
             f"({row['references']} references: {row['calls']} calls; "
             f"{row['imports']} imports)")
