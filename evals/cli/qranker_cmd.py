"""`helix eval corpus qa-add`, `qa-rows` and `train-qranker`: the question model's data and model.

    helix eval corpus qa-add --name NAME --source github:OWNER/NAME --revision SHA \\
            --file FILE --writer WHO [--style named|hidden] [--list MANIFEST]
        copy a question file (SWE-QA format, written about NAME at SHA) into the question list
        (default data/evals/qa_train/) with its digest and style
    helix eval corpus qa-rows --mirrors DIR --out ROWS [--list MANIFEST] [--home DIR]
        each listed question converted to a case (the cited lines' definitions) and asked with
        a recorder in the model's place: the same candidates and features as a commit case
    helix eval corpus train-qranker --rows ROWS --out DIR [--list MANIFEST]
            [--blend-out DIR] [--lopo-out FILE] [--labels exact|overlap] [--tests keep|drop]
            [--params-from MANIFEST | --grid-from MANIFEST] [--heads 5,1:10 --head-out DIR]
            [--head [S:]K]
        LightGBM lambdarank on the question cases, its feature list (with or without the
        bridging columns), parameters and trees chosen by leave-one-project-out (the files
        of one repository held out together); model.txt and manifest.json under DIR; with
        --blend-out, the best blend with the hand order too. --labels overlap and --tests
        drop train on dev-like labels and without test candidates (evals.corpus.qa_labels);
        --params-from trains one model with a manifest's features, parameters and trees
        (no leave-one-project-out), --grid-from runs leave-one-project-out at its grid
        point only; --heads adds to leave-one-project-out the model
        reordering only the hand order's first K items (the rest of the evidence the hand
        order's; S:K: its items S+1 to K, the first S kept), --head-out writes the best such
        model, --head pins one with --params-from
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
@click.option("--style", default="named", show_default=True,
              type=click.Choice(["named", "hidden", "process", "report"]),
              help="named: the questions name what they ask about; hidden: SWE-QA's style; "
                   "process: made by SWE-QA's own process (its templates by category, tests "
                   "included, answers citing several places); report: a few sentences of what "
                   "the user saw ending in a short question referring back to them.")
def add_cmd(list_file: str, name: str, source: str, revision: str, jsonl: str, writer: str,
            split: str, style: str) -> None:
    """Copy a question file into the question list, with its digest."""
    import json

    from evals.corpus.qa_cases import add_question_file

    entry = add_question_file(user_path(list_file), name, source, revision, user_path(jsonl),
                              writer, split, style)
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
@click.option("--blend-out", "blend_dir", default=None, metavar="DIR",
              help="Also write the model LOPO chose fused with the hand order here.")
@click.option("--lopo-out", "lopo_out", default=None, metavar="FILE",
              help="Write the leave-one-project-out tables (JSON) here too.")
@click.option("--min-route-share", "min_route_share", type=click.FloatRange(0.0, 1.0),
              default=0.05, show_default=True,
              help="The model orders questions of the routes that hold at least this share "
                   "of the training questions (the manifest's `routes`).")
@click.option("--features", "feature_set", default="both", show_default=True,
              type=click.Choice(["both", "base", "bridge"]),
              help="The feature lists LOPO chooses among: the commit model's, with the "
                   "bridging columns, or both (one list each: two runs side by side).")
@click.option("--labels", default="exact", show_default=True,
              type=click.Choice(["exact", "overlap"]),
              help="exact: a target definition is positive; overlap: any candidate overlapping "
                   "a target or a cited range (as SWE-QA dev's gold counts a hit).")
@click.option("--tests", "tests", default="keep", show_default=True,
              type=click.Choice(["keep", "drop"]),
              help="drop: leave test candidates out of training and zero is_test.")
@click.option("--params-from", "params_from", default=None, metavar="MANIFEST",
              help="Train one model with this model manifest's features, parameters and "
                   "trees (no leave-one-project-out).")
@click.option("--grid-from", "grid_from", default=None, metavar="MANIFEST",
              help="Leave-one-project-out over this model manifest's features and grid point "
                   "only (the number of trees, blends and heads still chosen by it).")
@click.option("--heads", "heads_text", default="", metavar="[S:]K,...",
              help="Heads leave-one-project-out also scores: the model reorders only the "
                   "hand order's first K items (S:K: the first S kept in place).")
@click.option("--head-out", "head_dir", default=None, metavar="DIR",
              help="Also write the best model of a head size (--heads) here.")
@click.option("--head", "head_text", default="0", show_default=True, metavar="[S:]K",
              help="With --params-from: the model reorders only the hand order's first K "
                   "items, the first S kept (0: its own order).")
def train_cmd(list_file: str, rows_dir: str, out_dir: str, blend_dir: str | None,
              lopo_out: str | None, min_route_share: float, feature_set: str, labels: str,
              tests: str, params_from: str | None, grid_from: str | None, heads_text: str,
              head_dir: str | None,
              head_text: str) -> None:
    """Train the question model: features, parameters and trees chosen by
    leave-one-project-out, then trained on every project; print the digest to pin."""
    import json

    from controller.rank_bridge import QUESTION_FEATURES
    from controller.rank_features import FEATURES
    from evals.corpus.qa_cases import load_question_list, read_questions
    from evals.corpus.qa_train import (
        BLENDS,
        QA_GRID,
        by_style,
        dump,
        fit,
        lopo,
        parse_head,
        project_groups,
        question_routes,
        selection,
    )
    from evals.corpus.ranker_train import BASE_PARAMS, Groups, write_model
    from helix.core.hashing import digest

    heads = tuple(parse_head(k, "--heads") for k in heads_text.split(",") if k.strip())
    head = parse_head(head_text, "--head")
    if any(k <= 0 for _s, k in heads) or (head_dir and not heads):
        raise click.BadParameter("head sizes are positive and --head-out needs them",
                                 param_hint="--heads")
    manifest_path = user_path(list_file)
    entries = load_question_list(manifest_path)
    rows = user_path(rows_dir)
    fold_of = {e.name: e.source for e in entries}
    style_of = {e.name: e.style for e in entries}
    grid = QA_GRID
    if grid_from:
        point = json.loads(user_path(grid_from).read_text(encoding="utf-8"))
        feature_set = "bridge" if point.get("features") == list(QUESTION_FEATURES) else "base"
        grid = ({k: point["params"][k] for k in QA_GRID[0]},)
    if params_from:
        fixed = json.loads(user_path(params_from).read_text(encoding="utf-8"))
        feature_set = "bridge" if fixed.get("features") == list(QUESTION_FEATURES) else "base"

    def groups(name: str, file: str, features: tuple[str, ...]) -> Groups:
        from evals.corpus.qa_labels import overlap_groups, without_tests

        data = (overlap_groups(rows, name, [q.answer for q in read_questions(
            manifest_path.parent / file)], features) if labels == "overlap"
            else project_groups(rows, name, features))
        return without_tests(data, features) if tests == "drop" else data

    results = {}
    for label, features in (("base", FEATURES), ("bridge", QUESTION_FEATURES)):
        if feature_set not in ("both", label):
            continue
        projects = {e.name: groups(e.name, e.file, tuple(features)) for e in entries}
        results[label] = (features, projects, {"best": {
            "params": {k: fixed["params"][k] for k in QA_GRID[0]}, "trees": fixed["trees"],
            "mean": {}, "head": head[1], "head_start": head[0]}, "hand": {"mean": {}},
            "best_blend": None}
            if params_from else lopo(projects, grid, fold_of=fold_of, features=features,
                                     blends=BLENDS, heads=((0, 0), *heads)))
    chosen = max(results, key=lambda k: (selection(results[k][2]["best"]["mean"])
                                         if not params_from else 0.0, k))
    features, projects, result = results[chosen]
    if lopo_out and not params_from:
        tables = {label: {"result": r, "by_style": by_style(r, style_of),
                          "by_style_blend": by_style(r, style_of, "best_blend")}
                  for label, (_f, _p, r) in results.items()}
        user_path(lopo_out).write_text(dump({"chosen": chosen, "tables": tables}) + "\n",
                                       encoding="utf-8")
    names = sorted(projects)
    questions = [q.question for e in entries
                 for q in read_questions(manifest_path.parent / e.file)]
    targets = [(user_path(out_dir), result["best"], 1.0)]
    if blend_dir and not params_from:
        targets.append((user_path(blend_dir), result["best_blend"],
                        float(result["best_blend"]["blend"])))
    if head_dir and not params_from:
        targets.append((user_path(head_dir), result["best_head"],
                        float(result["best_head"]["blend"])))
    for where, best, share in targets:
        booster = fit([projects[n] for n in names], [1.0] * len(names), best["params"],
                      best["trees"], features)
        model = {
            "description": "The question model (issue 31): LightGBM lambdarank over "
                           "controller.rank_features.FEATURES (and, when listed, "
                           "controller.rank_bridge.BRIDGE_FEATURES) trained on natural "
                           "questions (helix eval corpus train-qranker); it orders questions "
                           "only.",
            "features": list(features),
            "questions_digest": digest(manifest_path.read_bytes()),
            "projects": {e.name: e.questions for e in entries},
            "params": {**BASE_PARAMS, **best["params"]}, "trees": best["trees"],
            "questions": True,
            "routes": question_routes(questions, min_route_share),
            "metrics": {"lopo": best["mean"], "lopo_hand": result["hand"]["mean"],
                        "by_style": by_style({**result, "best": best}, style_of)}
            if not params_from else {},
        }
        if params_from:  # the point another run chose: that run's model manifest, by digest
            model["params_from"] = digest(user_path(params_from).read_bytes())
        if labels != "exact" or tests != "keep":
            model["training"] = {"labels": labels, "tests": tests}
        if share < 1.0:
            model["blend"] = share
        if best.get("head"):
            model["head"] = int(best["head"])
            if best.get("head_start"):
                model["head_start"] = int(best["head_start"])
        pinned = write_model(where, str(booster.model_to_string(num_iteration=best["trees"])),
                             model)
        echo(json.dumps({"blend": share, **model["metrics"]}, sort_keys=True))
        echo(f"model written to {where}; to use it:\n  [retrieval.ranker]\n"
             f"  question_manifest = \"{where / 'manifest.json'}\"\n"
             f"  question_digest = \"{pinned}\"")
