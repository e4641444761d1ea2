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
