"""`helix eval corpus`: the training corpus mined from many repositories' histories (issue 31).

    helix eval corpus build --mirrors DIR     mine every listed repository (resumable), write
                                              data/corpus/cases.jsonl and manifest.json;
                                              --cluster: one Ray task per repository
    helix eval corpus pin --mirrors DIR --add NAME=github:OWNER/NAME:LANGUAGE ...
                                              a new repository list: R and U pinned, splits
    helix eval corpus trees --mirrors DIR --into DIR [--split S]
                                              each repository's tree at R, from git objects
    helix eval corpus ranker-rows / train-ranker  the learned ranker (evals/cli/ranker_cmd.py)
    helix eval corpus qa-add / qa-rows / train-qranker  the question model (qranker_cmd.py)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from helix.cli.safe_text import echo
from helix.core.paths import user_path

CORPUS = "corpus"
ROOT = Path(__file__).resolve().parent.parent.parent
DEFAULT_LIST = ROOT / "data" / "evals" / "corpus_repos.json"
DEFAULT_OUT = ROOT / "data" / "corpus"
_MIRRORS = click.option("--mirrors", required=True, metavar="DIR",
                        help="Where the snapshots are: DIR/<owner>+<name>/repo (the fetch "
                             "layout) or DIR/<owner>+<name> (a bare clone).")
_LIST = click.option("--repos", "repos_file", default=str(DEFAULT_LIST), show_default=True,
                     metavar="FILE", help="The repository list (JSON).")


@click.group(name=CORPUS)
def corpus() -> None:
    """The training corpus: (commit message -> changed definitions at an indexed revision)
    cases from many repositories' histories, split by repository."""


def _progress(verbose: bool) -> Any:
    return (lambda line: echo(line, err=True)) if verbose else None


@corpus.command(name="build")
@_LIST
@_MIRRORS
@click.option("--work", metavar="DIR", default=None,
              help="Per-repository results (resumable); default $HELIX_HOME/corpus.")
@click.option("--out", "out_dir", metavar="DIR", default=str(DEFAULT_OUT), show_default=True,
              help="Where cases.jsonl and manifest.json are written.")
@click.option("--only", multiple=True, metavar="NAME",
              help="Mine only these repositories (the outputs hold only them).")
@click.option("--json", "as_json", is_flag=True, help="Print the manifest as JSON.")
@click.option("--cluster", metavar="ADDRESS|local", default=None,
              help="Mine each repository as a Ray task on this cluster (`local`: one started "
                   "here); --mirrors and --work must be paths every worker sees. The outputs "
                   "are the serial build's, byte for byte.")
@click.option("-v", "--verbose", is_flag=True, help="Progress on stderr.")
def build_cmd(repos_file: str, mirrors: str, work: str | None, out_dir: str,
              only: tuple[str, ...], as_json: bool, cluster: str | None, verbose: bool
              ) -> None:
    """Mine every listed repository once at its pinned revision R (cases: the commits in
    R..U whose changed definitions exist at R) and write the case list and its manifest
    (corpus hash, drops per reason, counts per split and language)."""
    from evals.corpus.build import build
    from evals.corpus.repos import load_repo_list
    from helix.core.config import helix_home
    from helix.core.errors import ConfigError

    listing = load_repo_list(user_path(repos_file))
    if only:
        unknown = sorted(set(only) - {e.name for e in listing.repos})
        if unknown:
            raise ConfigError(f"not in the repository list: {', '.join(unknown)}")
        listing = listing.model_copy(update={
            "repos": tuple(e for e in listing.repos if e.name in set(only))})
    work_dir = user_path(work) if work else helix_home() / "corpus"
    fan = mine_map = None
    if cluster is not None:
        from evals.cluster import FanOut, corpus_fan_out

        fan = FanOut(cluster)
        mine_map = corpus_fan_out(fan)
    result = build(listing, user_path(mirrors), work_dir, user_path(out_dir),
                   progress=_progress(verbose), mine_map=mine_map)
    if fan is not None:
        echo(f"helix: {fan.line()}", err=True)
    if as_json:
        from helix.cli.common import echo_json

        echo_json(result)
        return
    counts = result["counts"]
    echo(f"{counts['cases']} cases from {len(result['repos'])} repositories; "
         f"by split {counts['by_split']}; by language {counts['by_language']}")
    echo(f"corpus hash {result['corpus_hash']}")
    echo("dropped: " + ", ".join(f"{k} {v}" for k, v in result["dropped"].items()))


@corpus.command(name="pin")
@_MIRRORS
@click.option("--add", "adds", multiple=True, required=True, metavar="NAME=SOURCE:LANGUAGE",
              help="A repository, e.g. httpx=github:encode/httpx:python (repeat).")
@click.option("--seed", default=31, show_default=True, type=int, help="The split seed.")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The repository list to write (JSON).")
def pin_cmd(mirrors: str, adds: tuple[str, ...], seed: int, out: Path) -> None:
    """Write a repository list: each snapshot's HEAD as U, R by the pinning rule, splits by
    the split rule (evals/corpus/repos.py)."""
    import json

    from evals.corpus.repos import check_repos, load_repo_list, pinned_list
    from helix.core.errors import ConfigError
    from helix.outfile import check_out_path, write_out

    check_out_path(out)
    triples = []
    for item in adds:
        name, eq, rest = item.partition("=")
        source, colon, language = rest.rpartition(":")
        if not eq or not colon or not name or rest.count(":") < 2:
            raise ConfigError(f"--add takes NAME=github:OWNER/NAME:LANGUAGE, not {item!r}")
        triples.append((name, source, language))
    listing = pinned_list(triples, user_path(mirrors), seed,
                          "Repositories of the training corpus (issue 31).")
    write_out(out, (json.dumps(listing, indent=1) + "\n").encode("utf-8"))
    check_repos(load_repo_list(out))
    echo(f"{len(triples)} repositories pinned in {out}")


@corpus.command(name="trees")
@_LIST
@_MIRRORS
@click.option("--into", required=True, metavar="DIR", help="Trees go to DIR/<name>.")
@click.option("--split", "splits", multiple=True,
              type=click.Choice(["train", "validation", "test"]),
              help="Only these splits' repositories (repeat; default: all).")
@click.option("--history", is_flag=True,
              help="Give each tree a .git whose HEAD is R (objects borrowed from the snapshot, "
                   "no ref), so an index of it reads the history before R and nothing after.")
def trees_cmd(repos_file: str, mirrors: str, into: str, splits: tuple[str, ...],
              history: bool) -> None:
    """Write each repository's tree at its revision R from git objects (no checkout: none of
    the repository's hooks or filters runs), to index it with Helix."""
    from evals.corpus.history_git import point_head
    from evals.corpus.repos import load_repo_list, mirror_dir
    from evals.history.trees import TreeWriter

    listing = load_repo_list(user_path(repos_file))
    target = user_path(into)
    for entry in listing.repos:
        if splits and entry.split not in splits:
            continue
        gitdir = mirror_dir(user_path(mirrors), entry.source)
        stats = TreeWriter(gitdir, target / entry.name).move_to(entry.revision)
        if history:
            point_head(target / entry.name, gitdir, entry.revision)
        echo(f"{entry.name} [{entry.split}] at {entry.revision[:12]}: {stats}")


def _ranker_commands() -> None:
    from evals.cli import qranker_cmd
    from evals.cli.ranker_cmd import rows_cmd, train_cmd

    corpus.add_command(rows_cmd)
    corpus.add_command(train_cmd)
    corpus.add_command(qranker_cmd.add_cmd)
    corpus.add_command(qranker_cmd.rows_cmd)
    corpus.add_command(qranker_cmd.train_cmd)


_ranker_commands()
