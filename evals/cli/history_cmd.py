"""`helix eval history`: measure Helix on a repository's own history (dry runs, no LLM).

`helix eval` takes suite names; `helix eval history ...` is routed here instead (the
`WithHistory` command class), so the suite command's own options stay as they are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from evals.cli.run_common import (
    candidate_overrides,
    cluster_option,
    emit,
    on_cluster,
    run_options,
    write_json,
)
from helix.cli.safe_text import echo
from helix.core.paths import user_path

HISTORY = "history"
SUB_COMMANDS = (HISTORY, "qa", "corpus", "changes")
_META_KEY = "helix.eval.history_args"


@click.command(name=HISTORY)
@click.option("--repo", "repos", multiple=True, metavar="PATH",
              help="A git repository: work tree, directory inside one, or bare git dir "
                   "(default: the current one; repeat for several).")
@click.option("--rev", default="HEAD", show_default=True,
              help="Mine the history reachable from REV.")
@click.option("--seed", default=0, show_default=True, type=int, help="Sampling seed.")
@click.option("--limit", default=40, show_default=True, type=click.IntRange(min=1),
              help="Cases per repository.")
@click.option("--since", default=None, metavar="YYYY-MM-DD",
              help="Only commits made on or after this date (UTC).")
@run_options
@cluster_option
@click.option("--cases", "cases_only", is_flag=True,
              help="Only list the mined and sampled cases; run nothing.")
@click.option("-v", "--verbose", is_flag=True,
              help="Progress on stderr; list every case, not only the misses.")
def history(repos: tuple[str, ...], rev: str, seed: int, limit: int, since: str | None,
            as_json: bool, out: Path | None, no_embed: bool, candidate: str | None,
            html_out: Path | None, cluster: str | None, cases_only: bool,
            verbose: bool) -> None:
    """Mine localization cases from git history (a commit message as the question, the
    non-test source files it changed as the answer, the tree at its parent) and score Helix's
    dry runs against whole-file BM25: file Acc@1/3/5/10 (all gold files in the top k), MRR,
    seconds per case. The tree is written under $HELIX_HOME/history/ from git objects; no
    checkout, so none of the repository's hooks or filters runs."""
    from evals.history import report
    from evals.history.mine import git_dir, mine
    from evals.history.run import RepoSpec, result_json, run_repo

    paths = list(repos) or ["."]
    from helix.outfile import check_out_path

    for target in (out, html_out):
        if target is not None:
            check_out_path(target, "--out" if target is out else "--html")  # before any run
    if cases_only:
        mined = [mine(git_dir(user_path(p)), rev=rev, seed=seed, limit=limit,
                      since=since) for p in paths]
        payload: Any = {"repos": [report.cases_json(m) for m in mined]}
        if out is not None:
            write_json(out, payload)
        if as_json:
            from helix.cli.common import echo_json

            echo_json(payload)
        else:
            echo("\n".join(report.cases_text(m) for m in mined))  # commit messages: made visible
        return
    overrides = candidate_overrides(candidate)
    progress = (lambda line: echo(line, err=True)) if verbose else None
    specs = [RepoSpec(path=p, rev=rev, seed=seed, limit=limit, since=since) for p in paths]
    for spec in specs:  # a bad path fails before any long run
        git_dir(user_path(spec.path))
    fan = None
    if cluster is not None:
        from evals.cluster import FanOut, history_runs

        fan = FanOut(cluster)
        runs = history_runs(specs, fan, overrides, no_embed)
    else:
        runs = [run_repo(spec, overrides=overrides, no_embed=no_embed, progress=progress)
                for spec in specs]
    payload = on_cluster(result_json(runs, no_embed=no_embed, overrides=overrides), fan)
    emit(payload, out, as_json, lambda: report.render(payload, verbose=verbose), html_out,
         "helix eval history")


def _sub_command(name: str) -> click.Command:
    if name == HISTORY:
        return history
    if name == "corpus":
        from evals.cli.corpus_cmd import corpus

        return corpus
    if name == "changes":
        from evals.cli.changes_cmd import changes

        return changes
    from evals.cli.qa_cmd import qa

    return qa


class WithHistory(click.Command):
    """A command whose first argument `history`, `qa`, `corpus` or `changes` hands the rest
    to `helix eval history`, `helix eval qa`, `helix eval corpus` or `helix eval changes`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] in SUB_COMMANDS:
            ctx.meta[_META_KEY] = (args[0], list(args[1:]))
            args = []
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        pending = ctx.meta.pop(_META_KEY, None)
        if pending is None:
            return super().invoke(ctx)
        name, rest = pending
        command = _sub_command(name)
        # named "eval history" under eval's parent, so usage reads `helix eval history`
        with command.make_context(f"{ctx.info_name} {name}", rest, parent=ctx.parent) as sub:
            return command.invoke(sub)
