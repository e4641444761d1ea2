"""`helix eval corpus qa-add`, `qa-rows` and `train-qranker`: the question model's data and model.

    helix eval corpus qa-add --name NAME --source github:OWNER/NAME --revision SHA \\
            --file FILE --writer WHO [--list MANIFEST]
        copy a question file (SWE-QA format, written about NAME at SHA) into the question list
        (default data/evals/qa_train/) with its digest
    helix eval corpus qa-rows --mirrors DIR --out ROWS [--list MANIFEST] [--home DIR]
        each listed question converted to a case (the cited lines' definitions) and asked with
        a recorder in the model's place: the same candidates and features as a commit case
    helix eval corpus train-qranker --rows ROWS --out DIR [--list MANIFEST]
        LightGBM lambdarank on the question cases, its parameters and trees chosen by
        leave-one-project-out; model.txt and manifest.json under DIR
"""

from __future__ import annotations

from pathlib import Path

import click

from helix.cli.safe_text import echo
from helix.core.paths import user_path

ROOT = Path(__file__).resolve().parent.parent.parent
DEFAULT_QA_LIST = ROOT / "data" / "evals" / "qa_train" / "manifest.json"
_QA_LIST = click.option("--list", "list_file", default=str(DEFAULT_QA_LIST), show_default=True,
                        metavar="MANIFEST", help="The question list.")


@click.command(name="qa-add")
@_QA_LIST
@click.option("--name", required=True, help="The project's name (the file is NAME.jsonl).")
@click.option("--source", required=True, metavar="github:OWNER/NAME")
@click.option("--revision", required=True, metavar="SHA", help="The commit the answers cite.")
@click.option("--file", "jsonl", required=True, metavar="FILE")
@click.option("--writer", required=True, help="Who wrote the questions.")
@click.option("--split", default="train", show_default=True,
              type=click.Choice(["train", "validation"]))
def add_cmd(list_file: str, name: str, source: str, revision: str, jsonl: str, writer: str,
            split: str) -> None:
    """Copy a question file into the question list, with its digest."""
    import json

    from evals.corpus.qa_cases import add_question_file

    entry = add_question_file(user_path(list_file), name, source, revision, user_path(jsonl),
                              writer, split)
    echo(json.dumps(entry.__dict__, sort_keys=True))


@click.command(name="qa-rows")
@_QA_LIST
@click.option("--mirrors", required=True, metavar="DIR",
              help="Where the snapshots are: DIR/<owner>+<name>/repo or DIR/<owner>+<name>.")
@click.option("--out", "out_dir", required=True, metavar="DIR",
              help="Rows go to DIR/<name>.* (a project already there is kept).")
@click.option("--home", "home", default=None, metavar="DIR",
              help="Where the trees are written (default $HELIX_HOME).")
@click.option("--candidate-config", "candidate", metavar="TOML", default=None,
              help="Settings to collect with (a TOML overrides file).")
def rows_cmd(list_file: str, mirrors: str, out_dir: str, home: str | None,
             candidate: str | None) -> None:
    """Convert every listed question to a case and record its candidates and features."""
    import json

    from evals.cli.run_common import candidate_overrides
    from evals.corpus.qa_cases import collect_questions, load_question_list
    from evals.corpus.repos import mirror_dir
    manifest = user_path(list_file)
    out = user_path(out_dir)
    overrides = candidate_overrides(candidate)
    where = user_path(home) if home else None
    for entry in load_question_list(manifest):
        if (out / f"{entry.name}.cases.jsonl").is_file():
            echo(f"{entry.name}: kept")
            continue
        summary = collect_questions(manifest.parent / entry.file, entry.name,
                                    mirror_dir(user_path(mirrors), entry.source),
                                    entry.revision, out, entry.split, where, overrides)
        echo(f"{entry.name}: {json.dumps(summary, sort_keys=True)}")


@click.command(name="train-qranker")
@_QA_LIST
@click.option("--rows", "rows_dir", required=True, metavar="DIR",
              help="The question rows (`helix eval corpus qa-rows --out DIR`).")
@click.option("--out", "out_dir", required=True, metavar="DIR",
              help="Where model.txt and manifest.json go.")
@click.option("--lopo-out", "lopo_out", default=None, metavar="FILE",
              help="Write the leave-one-project-out table (JSON) here too.")
@click.option("--min-route-share", "min_route_share", type=click.FloatRange(0.0, 1.0),
              default=0.05, show_default=True,
              help="The model orders questions of the routes that hold at least this share "
                   "of the training questions (the manifest's `routes`).")
def train_cmd(list_file: str, rows_dir: str, out_dir: str, lopo_out: str | None,
              min_route_share: float) -> None:
    """Train the question model: parameters and trees chosen by leave-one-project-out, then
    trained on every project; print the digest to pin."""
    import json

    from evals.corpus.qa_cases import load_question_list, read_questions
    from evals.corpus.qa_train import dump, fit, lopo, project_groups, question_routes
    from evals.corpus.ranker_train import BASE_PARAMS, write_model
    from helix.core.hashing import digest

    manifest_path = user_path(list_file)
    entries = load_question_list(manifest_path)
    rows = user_path(rows_dir)
    projects = {e.name: project_groups(rows, e.name) for e in entries}
    result = lopo(projects)
    if lopo_out:
        user_path(lopo_out).write_text(dump(result) + "\n", encoding="utf-8")
    best = result["best"]
    names = sorted(projects)
    booster = fit([projects[n] for n in names], [1.0] * len(names), best["params"],
                  best["trees"])
    questions = [q.question for e in entries
                 for q in read_questions(manifest_path.parent / e.file)]
    model = {
        "description": "The question model (issue 31, round 10): LightGBM lambdarank over "
                       "controller.rank_features.FEATURES trained on natural questions "
                       "(helix eval corpus train-qranker); it orders questions only.",
        "questions_digest": digest(manifest_path.read_bytes()),
        "projects": {e.name: e.questions for e in entries},
        "params": {**BASE_PARAMS, **best["params"]}, "trees": best["trees"],
        "questions": True,
        "routes": question_routes(questions, min_route_share),
        "metrics": {"lopo": best["mean"], "lopo_hand": result["hand"]["mean"]},
    }
    pinned = write_model(user_path(out_dir),
                         str(booster.model_to_string(num_iteration=best["trees"])), model)
    echo(json.dumps(model["metrics"], sort_keys=True))
    echo(f"model written to {user_path(out_dir)}; to use it:\n  [retrieval.ranker]\n"
         f"  question_manifest = \"{user_path(out_dir) / 'manifest.json'}\"\n"
         f"  question_digest = \"{pinned}\"")
