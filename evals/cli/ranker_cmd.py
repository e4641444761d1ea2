"""`helix eval corpus ranker-rows` and `train-ranker`: the learned ranker's data and model.

    helix eval corpus ranker-rows --trees DIR --out ROWS [--split train --split validation]
        every case of the corpus asked with a recorder in the model's place: candidates,
        features and labels per repository (resumable); --cluster: one Ray task a repository
    helix eval corpus train-ranker --rows ROWS --out DIR [--export FILE --export-repo DIR]
        LightGBM lambdarank on the train split, chosen on the validation split; model.txt and
        manifest.json under DIR, and the digest to pin in `retrieval.ranker.digest`;
        --cluster: one Ray task a grid point (the same model bytes as on one machine)
"""

from __future__ import annotations

from pathlib import Path

import click

from helix.cli.safe_text import echo
from helix.core.paths import user_path

ROOT = Path(__file__).resolve().parent.parent.parent
DEFAULT_LIST = ROOT / "data" / "evals" / "corpus_repos.json"
DEFAULT_CASES = ROOT / "data" / "corpus" / "cases.jsonl"
_LIST = click.option("--repos", "repos_file", default=str(DEFAULT_LIST), show_default=True,
                     metavar="FILE", help="The repository list (JSON).")
_CASES = click.option("--cases", "cases_file", default=str(DEFAULT_CASES), show_default=True,
                      metavar="FILE", help="The case list (JSONL).")


def _progress(verbose: bool) -> object:
    return (lambda line: echo(line, err=True)) if verbose else None


@click.command(name="ranker-rows")
@_LIST
@_CASES
@click.option("--trees", required=True, metavar="DIR",
              help="The trees at R (`helix eval corpus trees --into DIR`).")
@click.option("--out", "out_dir", required=True, metavar="DIR", help="Rows go to DIR/<name>.*")
@click.option("--split", "splits", multiple=True,
              type=click.Choice(["train", "validation", "test"]),
              help="Only these splits (repeat; default train and validation). test only when "
                   "asked, to report on (benchmarks/ranker_ablation.py --test-rows): "
                   "train-ranker never reads it.")
@click.option("--candidate-config", "candidate", metavar="TOML", default=None,
              help="Settings to collect with (a TOML overrides file).")
@click.option("--cluster", metavar="ADDRESS|local", default=None,
              help="Collect each repository as a Ray task on this cluster (`local`: one "
                   "started here); --trees and --out must be paths every worker sees. The "
                   "row files are the serial run's, byte for byte.")
@click.option("-v", "--verbose", is_flag=True, help="Progress on stderr.")
def rows_cmd(repos_file: str, cases_file: str, trees: str, out_dir: str,
             splits: tuple[str, ...], candidate: str | None, cluster: str | None,
             verbose: bool) -> None:
    """Ask every case of the train and validation splits with a recorder in the model's
    place; write each repository's candidates, feature rows and labels."""
    import json

    from evals.cli.run_common import candidate_overrides
    from evals.corpus.build import load_cases
    from evals.corpus.features import collect
    from evals.corpus.repos import load_repo_list

    wanted = splits or ("train", "validation")
    listing = load_repo_list(user_path(repos_file))
    repos = [(e.name, e.split) for e in listing.repos if e.split in wanted]
    fan = collect_map = None
    if cluster is not None:
        from evals.cluster import FanOut, rows_fan_out

        fan = FanOut(cluster)
        collect_map = rows_fan_out(fan)
    done = collect(user_path(trees), user_path(out_dir), repos,
                   load_cases(user_path(cases_file)), candidate_overrides(candidate),
                   progress=_progress(verbose),  # type: ignore[arg-type]
                   collect_map=collect_map)
    if fan is not None:
        echo(f"helix: {fan.line()}", err=True)
        done = {**done, "cluster": fan.report()}
    echo(json.dumps(done, sort_keys=True))


@click.command(name="train-ranker")
@_LIST
@_CASES
@click.option("--rows", "rows_dir", required=True, metavar="DIR",
              help="The collected rows (`helix eval corpus ranker-rows --out DIR`).")
@click.option("--out", "out_dir", required=True, metavar="DIR",
              help="Where model.txt and manifest.json go (data/ranker ships with Helix).")
@click.option("--export", "exports", multiple=True, metavar="FILE",
              help="Exported training records (`helix export`) to train on too (repeat; "
                   "with --export-repo).")
@click.option("--export-repo", "export_repo", metavar="DIR", default=None,
              help="The repository the exported records are about.")
@click.option("--without", "without", multiple=True, metavar="GROUP",
              help="Leave a feature group out (ablation: history, graph, hand, words; "
                   "history also drops the candidates only it brought).")
@click.option("--jobs", "jobs", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Grid points trained at once (worker processes; the same model as one "
                   "at a time).")
@click.option("--cluster", metavar="ADDRESS|local", default=None,
              help="Train each grid point as a Ray task on this cluster (`local`: one started "
                   "on this machine; the same model as one at a time).")
@click.option("--min-route-share", "min_route_share", type=click.FloatRange(0.0, 1.0),
              default=0.05, show_default=True,
              help="The model orders only questions of the routes that hold at least this "
                   "share of the train split's messages (the manifest's `routes`); other "
                   "questions keep the hand order.")
@click.option("--params-from", "params_from", metavar="MANIFEST", default=None,
              help="Train with that model manifest's parameters only (no grid; the number of "
                   "trees is still chosen on the validation split).")
@click.option("-v", "--verbose", is_flag=True, help="Progress on stderr.")
def train_cmd(repos_file: str, cases_file: str, rows_dir: str, out_dir: str,
              exports: tuple[str, ...], export_repo: str | None,
              without: tuple[str, ...], jobs: int, cluster: str | None,
              min_route_share: float, params_from: str | None, verbose: bool) -> None:
    """Train the learned ranker (LightGBM lambdarank, deterministic) on the train split,
    choose it on the validation split, write it with its manifest; print the digest to pin."""
    import json

    from controller.rank_features import FEATURE_GROUPS, FEATURES
    from evals.corpus.build import load_cases
    from evals.corpus.export_rows import export_rows, read_records
    from evals.corpus.ranker_train import (
        BASE_PARAMS,
        GRID,
        Groups,
        accuracy,
        grid_point,
        hand_scores,
        rows_groups,
        split_groups,
        train,
        trained_routes,
        without_sources,
        write_model,
    )
    from evals.corpus.repos import load_repo_list
    from helix.core.errors import ConfigError
    from helix.core.hashing import digest
    from helix.core.policy import RankerPolicy

    unknown = sorted(set(without) - set(FEATURE_GROUPS))
    if unknown:
        raise ConfigError(f"unknown feature group(s) {', '.join(unknown)} (known: "
                          f"{', '.join(sorted(FEATURE_GROUPS))})")
    if exports and not export_repo:
        raise ConfigError("--export needs --export-repo: the repository the records are about")
    if cluster is not None and jobs > 1:
        raise ConfigError("--jobs trains on this machine, --cluster on the cluster: give one")
    dropped = {f for g in without for f in FEATURE_GROUPS[g]}
    columns = [n for n, f in enumerate(FEATURES) if f not in dropped]
    listing = load_repo_list(user_path(repos_file))
    cases = load_cases(user_path(cases_file))
    repos = [(e.name, e.split) for e in listing.repos]
    rows = user_path(rows_dir)
    train_data = without_sources(split_groups(rows, cases, "train", repos), without)
    valid = without_sources(split_groups(rows, cases, "validation", repos), without)
    export_counts: dict[str, int] = {}
    if exports and export_repo:
        records = [r for path in exports for r in read_records(user_path(path))]
        extra, export_counts = export_rows(records, user_path(export_repo), {})
        if extra:
            train_data = Groups.concat([train_data, rows_groups(extra)])
    grid = GRID if params_from is None else (grid_point(user_path(params_from)),)
    fan = None
    if cluster is not None:
        from evals.cluster import FanOut

        fan = FanOut(cluster)
    chosen = train(train_data, valid, columns, grid=grid,
                   progress=_progress(verbose), jobs=jobs, fan=fan)  # type: ignore[arg-type]
    if fan is not None:
        echo(f"helix: {fan.line()}", err=True)
    beside = user_path(cases_file).parent / "manifest.json"  # the corpus's own manifest
    corpus = json.loads(beside.read_text(encoding="utf-8")) if beside.is_file() else {}
    manifest = {
        "description": "The learned ranker of issue 31: LightGBM lambdarank over "
                       "controller.rank_features.FEATURES (helix eval corpus train-ranker).",
        "corpus_hash": corpus.get("corpus_hash"), "cases_digest": digest(
            user_path(cases_file).read_bytes()),
        "params": {**BASE_PARAMS, **chosen["params"]}, "trees": chosen["trees"],
        "ranker_policy": RankerPolicy().model_dump(mode="json"),
        "without": sorted(without), "export": export_counts,
        "routes": trained_routes(cases, repos, min_route_share),
        "metrics": {"train": chosen["train"], "validation": chosen["validation"],
                    "validation_hand": accuracy(hand_scores(valid), valid)},
    }
    pinned = write_model(user_path(out_dir), chosen["text"], manifest)
    echo(json.dumps(manifest["metrics"], sort_keys=True))
    echo(f"model written to {user_path(out_dir)}; to use it:\n"
         f"  [retrieval.ranker]\n  mode = \"learned\"\n"
         f"  manifest = \"{user_path(out_dir) / 'manifest.json'}\"\n  digest = \"{pinned}\"")
