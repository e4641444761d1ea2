"""`helix eval qa`: natural questions with reference answers, Helix against whole-file BM25."""

from __future__ import annotations

from pathlib import Path

import click

from evals.cli.run_common import cluster_option, run_options
from helix.cli.safe_text import echo
from helix.core.paths import user_path

QA = "qa"


@click.command(name=QA)
@click.argument("questions", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--repo", "repos", multiple=True, required=True, metavar="PATH",
              help="The repository: a work tree, or with --rev any git directory (a bare "
                   "snapshot too).")
@click.option("--rev", default=None, metavar="REV",
              help="Answer at this commit (its tree is written under $HELIX_HOME/qa/).")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Only the first N questions.")
@run_options
@cluster_option
@click.option("-v", "--verbose", is_flag=True, help="Progress on stderr; list every question.")
def qa(questions: Path, repos: tuple[str, ...], rev: str | None, limit: int | None, as_json: bool,
       out: Path | None, no_embed: bool, candidate: str | None, html_out: Path | None,
       cluster: str | None, verbose: bool) -> None:
    """Score Helix's dry runs on natural questions (JSONL lines of {"question", "answer"}, the
    SWE-QA format) against gold derived from each reference answer: files it names, line
    ranges stated next to them, backticked names defined there. Reports file@1/3/5/10 and MRR
    for Helix and whole-file BM25 in the same run, span@5/10, symbol@5 and the share of
    questions whose gold span is in the evidence sent, overall and by wording. A question
    with no gold file, or one naming a project reserved for checks run elsewhere
    (data/reserved_projects.txt), is dropped and counted."""
    from evals.qa import report
    from evals.qa.run import run_qa
    from helix.outfile import check_out_path

    for target in (out, html_out):
        if target is not None:
            check_out_path(target, "--out" if target is out else "--html")
    from evals.cli.run_common import candidate_overrides, emit, on_cluster
    from helix.cli.common import one_repo

    repo = one_repo(repos) or "."

    progress = (lambda line: echo(line, err=True)) if verbose else None
    overrides = candidate_overrides(candidate)
    fan = fan_out = None
    if cluster is not None:
        from evals.cluster import FanOut, qa_fan_out

        fan = FanOut(cluster)
        fan_out = qa_fan_out(fan, overrides, no_embed)
    result = on_cluster(run_qa(user_path(questions), user_path(repo), rev=rev, limit=limit,
                               overrides=overrides, no_embed=no_embed, progress=progress,
                               fan_out=fan_out), fan)
    emit(result, out, as_json, lambda: report.render(result, verbose=verbose), html_out,
         f"helix eval qa: {questions.name}")
