"""The question model offline: leave-one-project-out on the writers' question cases, then the
SWE-QA dev questions' rows (validation) scored by each candidate order.

    python benchmarks/qa_ranker.py --rows ROWS --dev-rows DEVROWS [--lopo FILE]
        [--commit-rows DIR] [--out FILE]

ROWS: `helix eval corpus qa-rows --out ROWS` (the six train-split projects of
data/evals/qa_train/); DEVROWS: the dev questions collected the same way (validation: scored,
never trained on). With --commit-rows (collected `helix eval corpus ranker-rows` rows of the
commit corpus), the mixed model is tried too: question cases plus the commit corpus's train
cases down-weighted. Orders compared, each by hit@1 / hit@5 / hit@10 / file@1 over the
candidates (a target definition among the first k; the first candidate's file a target's):
the pool order (the hand order first), the shipped commit model, the question model (the grid
point and tree count LOPO chose, trained on every project), a handful of linear weights over
the hand order's signals (LOPO-chosen L2), and the mixed model. Writes
benchmarks/results/qa_ranker.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from _result import load_average, write_result

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "evals"))
OUT = ROOT / "benchmarks" / "results" / "qa_ranker.json"
QA_LIST = ROOT / "data" / "evals" / "qa_train" / "manifest.json"
DEV = ("reflex", "sqlfluff", "streamlink", "shiro", "strata")


def _commit_groups(rows: Path, cases_per_repo: int):  # type: ignore[no-untyped-def]
    from evals.corpus.build import load_cases
    from evals.corpus.ranker_train import Groups, repo_groups
    from evals.corpus.repos import load_repo_list

    listing = load_repo_list(ROOT / "data" / "evals" / "corpus_repos.json")
    by_id = {c.id: c for c in load_cases(ROOT / "data" / "corpus" / "cases.jsonl")}
    parts = []
    for entry in listing.repos:
        if entry.split == "train" and (rows / f"{entry.name}.json").is_file():
            g = repo_groups(rows / entry.name, by_id)
            n = min(cases_per_repo, len(g.group))
            stop = int(g.group[:n].sum())
            parts.append(Groups(g.x[:stop], g.y[:stop], g.group[:n], g.target_of[:stop],
                                g.targets[:n], g.files[:n], g.target_files[:n]))
    return Groups.concat(parts), len(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=Path, required=True)
    parser.add_argument("--dev-rows", type=Path, required=True)
    parser.add_argument("--lopo", type=Path, default=None,
                        help="The LOPO table `train-qranker --lopo-out` wrote (else computed).")
    parser.add_argument("--commit-rows", type=Path, default=None)
    parser.add_argument("--commit-cases", type=int, default=60,
                        help="At most this many commit cases per train repository.")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    import numpy as np

    from controller.rank_step import load_ranker
    from evals.corpus.qa_cases import load_question_list
    from evals.corpus.qa_train import (
        fit,
        fit_linear,
        linear_scores,
        lopo,
        lopo_linear,
        project_groups,
        question_metrics,
    )
    from evals.corpus.ranker_train import Groups, hand_scores
    from helix.core.policy import RankerPolicy

    names = [e.name for e in load_question_list(QA_LIST)]
    projects = {n: project_groups(args.rows, n) for n in names}
    dev = {n: project_groups(args.dev_rows, n) for n in DEV
           if (args.dev_rows / f"{n}.cases.jsonl").is_file()}
    dev_all = Groups.concat([dev[n] for n in sorted(dev)])
    shipped = load_ranker(RankerPolicy()).model
    result: dict = {"load_before": load_average(2), "projects": {
        n: len(g.group) for n, g in projects.items()}, "dev_questions": {
        n: len(g.group) for n, g in dev.items()}}

    def on_dev(score) -> dict:  # type: ignore[no-untyped-def]
        per = {n: question_metrics(np.asarray(score(g)), g) for n, g in dev.items()}
        return {"pooled": question_metrics(np.asarray(score(dev_all)), dev_all), **per}

    tree = (json.loads(args.lopo.read_text(encoding="utf-8")) if args.lopo is not None
            else lopo(projects))
    best = tree["best"]
    lopo_shipped = {n: question_metrics(np.asarray(shipped.scores(g.x)), g)
                    for n, g in projects.items()}
    result["lopo"] = {"hand": tree["hand"], "shipped_commit_model": {
        "folds": lopo_shipped, "mean": {k: round(float(np.mean([m[k] for m in
                                                                lopo_shipped.values()])), 4)
                                        for k in ("hit@1", "hit@5", "hit@10", "file@1")}},
        "lightgbm": [{k: row[k] for k in ("params", "trees", "mean")} for row in tree["table"]],
        "lightgbm_best": best}
    order = sorted(projects)
    model = fit([projects[n] for n in order], [1.0] * len(order), best["params"],
                best["trees"])
    linear = lopo_linear(projects)
    result["lopo"]["linear"] = linear["table"]
    result["lopo"]["linear_best"] = linear["best"]
    weights = fit_linear([projects[n] for n in order], linear["best"]["l2"])
    result["dev"] = {
        "hand": on_dev(hand_scores),
        "shipped_commit_model": on_dev(lambda g: shipped.scores(g.x)),
        "question_model": on_dev(lambda g: model.predict(g.x)),
        "linear_weights": on_dev(lambda g: linear_scores(weights, g)),
    }
    result["linear_weights"] = {
        "features": list(__import__("evals.corpus.qa_train", fromlist=["x"]).LINEAR_FEATURES),
        "weights": [round(float(w), 4) for w in weights[0]]}
    if args.commit_rows is not None:
        commit, repos = _commit_groups(args.commit_rows, args.commit_cases)
        result["mixed"] = {"commit_repos": repos, "commit_cases": len(commit.group)}
        for weight in (0.1, 0.3):
            mixed = lopo(projects, grid=[best["params"]], extra=commit, extra_weight=weight)
            mb = mixed["best"]
            result["mixed"][f"weight_{weight}"] = {"lopo": mb["mean"], "trees": mb["trees"]}
            mixed_model = fit([projects[n] for n in order] + [commit],
                              [1.0] * len(order) + [weight], best["params"], mb["trees"])
            result["dev"][f"mixed_{weight}"] = on_dev(lambda g, m=mixed_model: m.predict(g.x))
    result["load_after"] = load_average(2)
    result["command"] = ("python benchmarks/qa_ranker.py " + " ".join(sys.argv[1:]))
    print(json.dumps({"lopo_best": best["mean"], "lopo_hand": tree["hand"]["mean"],
                      "dev": {k: v["pooled"] for k, v in result["dev"].items()}}, indent=1))
    write_result(args.out, result, indent=1)


if __name__ == "__main__":
    main()
