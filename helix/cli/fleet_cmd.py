"""Many repositories: `helix index --cluster|--repos-file|PATH PATH...` (thin: `helix.cluster`
does the work) and `helix repos` (the registry)."""

from __future__ import annotations

from pathlib import Path

import click

from helix.cli.common import echo_json
from helix.cli.safe_text import echo, visible_field
from helix.core.errors import UserError


def index_many(paths: list[str], repos_file: Path | None, *, cluster: str | None,
               store_root: Path | None, group: str | None, no_embed: bool, force: bool,
               as_json: bool) -> None:
    from helix.cli.common import repo_root
    from helix.cluster.fleet import index_fleet
    from helix.cluster.repos_file import DEFAULT_GROUP, from_paths, load_repos_file
    from helix.core.config import helix_home
    from helix.core.paths import user_path

    if repos_file is not None and (paths or group):
        raise UserError("--repos-file names the repositories and their groups; not with "
                        "PATHs or --group")
    if repos_file is not None:
        sources = load_repos_file(repos_file)
    else:
        roots = list(dict.fromkeys(repo_root(p) for p in paths)) or [repo_root(None)]
        sources = from_paths(roots, group or DEFAULT_GROUP)
    root = (user_path(store_root) if store_root is not None else helix_home()).absolute()
    from helix.core.config import resolve_config

    # how a repository is split into parse shards is the command's to say (its config)
    split = resolve_config(None)[0].cluster
    flags = {"cluster.shard_above_files": split.shard_above_files,
             "cluster.shard_files": split.shard_files,
             **({"index.embed_enabled": False} if no_embed else {})}
    report = index_fleet(sources, cluster=cluster, store_root=root, flags=flags, force=force)
    if as_json:
        echo_json(report)
    else:
        for r in report.repos:
            shards = f", {r.shards} parse shards" if r.shards else ""
            echo(f"{visible_field(r.name)} [{visible_field(r.group)}]: {r.files} files, "
                 f"{r.chunks} chunks{shards} in {r.seconds:.1f} s on {visible_field(r.node)}; "
                 f"index_rev {r.index_rev}")
        for name, why in report.failed.items():
            echo(f"{visible_field(name)}: failed: {visible_field(why)}")
        speed = f", {report.speedup:.2f}x the tasks' own time" if report.speedup else ""
        echo(f"{len(report.repos)} indexed, {len(report.failed)} failed "
             f"({report.executor}) in {report.wall_s:.1f} s{speed}; store root "
             f"{visible_field(report.store_root)}")
    if report.failed:
        raise SystemExit(1)


@click.command()
@click.option("--group", default=None, metavar="NAME", help="Only the repositories of NAME.")
@click.option("--json", "as_json", is_flag=True, help="Print the registry as JSON.")
def repos(group: str | None, as_json: bool) -> None:
    """List the registered repositories (`helix index --repos-file`): group, revision,
    index revision, where the work tree and the index are."""
    from helix.cluster.repos_file import NAME_RE
    from helix.store.repos import ALL, Registry

    if group is not None and group != ALL and not NAME_RE.fullmatch(group):
        raise UserError(f"--group {visible_field(group)}: not a group name (letters, digits, "
                        "'.', '_', '-'; at most 80)")

    registry = Registry()
    try:
        rows = registry.rows(group)
    finally:
        registry.close()
    if as_json:
        echo_json([row.model_dump(mode="json", exclude={"summary"}) for row in rows])
        return
    if not rows:
        echo("no repositories registered yet (helix index --repos-file FILE)")
        return
    for row in rows:
        echo(f"{visible_field(row.name)} [{visible_field(row.group)}] rev {row.rev[:12]} "
             f"index_rev {row.index_rev} {visible_field(row.root)}")

