"""`helix eval changes`: what changed under a repository's answers and documents, as a page of
the eval report: `helix drift` and `helix stale-docs` run through the product's own functions,
the two reports in one result (`--html` draws it)."""

from __future__ import annotations

from pathlib import Path

import click

from evals.cli.run_common import run_options

CHANGES = "changes"


def result(root: Path, overrides: dict[str, object], *, since: str | None = None,
           no_embed: bool = False) -> dict[str, object]:
    """The drift of the run log's recent questions and the stale sections, for one
    repository."""
    from helix.core.config import load_config
    from helix.drift.run import drift, since_time
    from helix.staledocs.run import stale_docs

    flags = {**overrides, **({"index.embed_enabled": False} if no_embed else {})}
    config = load_config(root, flags=flags)
    after = since_time(root, since) if since is not None else None
    return {"benchmark": CHANGES, "repo": root.name, "root": str(root),
            "drift": drift(root, config, since=after).model_dump(mode="json"),
            "stale_docs": stale_docs(root, config).model_dump(mode="json")}


def render_text(payload: dict[str, object]) -> str:
    from helix.core.changes import DriftReport, StaleReport
    from helix.drift.render import render as drift_text
    from helix.staledocs.render import render as stale_text

    return "\n\n".join((drift_text(DriftReport.model_validate(payload["drift"])),
                        stale_text(StaleReport.model_validate(payload["stale_docs"]))))


@click.command(name=CHANGES)
@click.option("--repo", "repos", multiple=True, metavar="PATH",
              help="The repository (default: the current one).")
@click.option("--since", default=None, metavar="REV|DATE",
              help="Only questions asked since a date (YYYY-MM-DD) or a revision.")
@run_options
def changes(repos: tuple[str, ...], since: str | None, as_json: bool, out: Path | None,
            no_embed: bool, candidate: str | None, html_out: Path | None) -> None:
    """The drift of the run log's recent questions of a repository and its stale
    documentation sections, as one result (`--html`: a page of the eval report)."""
    from evals.cli.run_common import candidate_overrides, emit
    from helix.cli.common import one_repo, repo_root
    from helix.outfile import check_out_path

    for target in (out, html_out):
        if target is not None:
            check_out_path(target, "--out" if target is out else "--html")
    root = repo_root(one_repo(repos))
    payload = result(root, candidate_overrides(candidate), since=since, no_embed=no_embed)
    emit(payload, out, as_json, lambda: render_text(payload), html_out,
         f"helix eval changes: {root.name}")
