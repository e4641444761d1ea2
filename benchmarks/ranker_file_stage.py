"""A file stage for the learned ranker (issue 31), measured on the validation split: does a
second model over files put the changed file first more often than the definition model's order?

    python benchmarks/ranker_file_stage.py --rows DIR [--manifest data/ranker/manifest.json]
        [--folds 4] [--out FILE]

The definition model is retrained with the shipped model's parameters and trees on the train
split's rows, and on `--folds` folds of the train split's repositories (each fold scored by the
model trained on the others: out-of-fold scores, so the file model never learns from scores
the definition model fitted). Each question's candidate files then get one row: the definition
scores of their candidates (best, second, mean of the best three, mean, how many, the gap to
the question's best, the file's place, its share of the softmax mass, how many of them the
definition order puts in its first 5 and 10) and, per feature, the
best value among its candidates. A LightGBM lambdarank model over files (label: a changed
file) is trained on the train split's file rows over a small grid and scored on the
validation split's; reported per grid point and tree count: file Acc@1 of the file model's
order against the definition model's. The test split is not read. Writes
benchmarks/results/ranker_file_stage.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "ranker_file_stage.json"
SCORE_FEATURES = ("s_max", "s_second", "s_top3", "s_mean", "log_count", "s_gap", "s_place_rr",
                  "s_share", "in_top5", "in_top10")
TOP_K = (5, 10)  # how many of the file's candidates the definition order puts in its first k
GRID = tuple({"num_leaves": leaves, "min_data_in_leaf": leaf, "learning_rate": 0.05}
             for leaves in (7, 15) for leaf in (20, 100))
TREES = (50, 100, 200, 300, 400, 600)


def file_rows(x: np.ndarray, paths: list[str], s: np.ndarray) -> tuple[list[str], np.ndarray]:
    """A question's candidate files (best definition first) and their rows."""
    groups: dict[str, list[int]] = {}
    for n in sorted(range(len(s)), key=lambda n: (-round(float(s[n]), 12), n)):
        groups.setdefault(paths[n], []).append(n)
    top = float(s.max())
    mass = np.exp(s - top)
    rank = {n: r for r, n in enumerate(
        sorted(range(len(s)), key=lambda n: (-round(float(s[n]), 12), n)))}
    out = []
    for place, members in enumerate(groups.values(), start=1):
        own = s[members]
        second = float(own[1]) if len(own) > 1 else float(own[0]) - 1.0
        out.append([float(own[0]), second, float(own[:3].mean()), float(own.mean()),
                    math.log1p(len(own)), float(own[0]) - top, 1.0 / place,
                    float(mass[members].sum() / mass.sum()),
                    *(float(sum(rank[n] < k for n in members)) for k in TOP_K),
                    *x[members].max(axis=0)])
    return list(groups), np.asarray(out)


def file_data(data: Any, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    xs, ys, sizes, at = [], [], [], 0
    for q, size in enumerate(data.group):
        names, rows = file_rows(data.x[at:at + size], data.files[q], scores[at:at + size])
        wanted = set(data.target_files[q])
        xs.append(rows)
        ys.extend(int(p in wanted) for p in names)
        sizes.append(len(names))
        at += size
    return np.vstack(xs), np.asarray(ys), np.asarray(sizes)


def file_acc1(scores: np.ndarray, y: np.ndarray, sizes: np.ndarray) -> float:
    """Share of questions whose one changed file is first (a question changing two files
    never counts, as in the corpus's file Acc@1)."""
    hits, at = 0, 0
    for size in sizes:
        part = scores[at:at + size]
        first = int(np.lexsort((np.arange(size), -np.round(part, 12)))[0])
        hits += bool(y[at + first] == 1 and y[at:at + size].sum() == 1)
        at += size
    return round(hits / max(len(sizes), 1), 4)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rows", type=Path, required=True)
    parser.add_argument("--manifest", type=Path, default=ROOT / "data" / "ranker" /
                        "manifest.json")
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    import lightgbm as lgb

    from evals.corpus.build import load_cases
    from evals.corpus.ranker_train import BASE_PARAMS, Groups, accuracy, repo_groups
    from evals.corpus.repos import load_repo_list

    started = time.monotonic()
    load = os.getloadavg()
    shipped = json.loads(args.manifest.read_text(encoding="utf-8"))
    params = {**BASE_PARAMS, **{k: shipped["params"][k] for k in (
        "num_leaves", "learning_rate", "min_data_in_leaf")}}
    trees = int(shipped["trees"])
    by_id = {c.id: c for c in load_cases(ROOT / "data" / "corpus" / "cases.jsonl")}
    listing = load_repo_list(ROOT / "data" / "evals" / "corpus_repos.json")
    parts = {split: [repo_groups(args.rows / e.name, by_id) for e in listing.repos
                     if e.split == split and (args.rows / f"{e.name}.json").is_file()]
             for split in ("train", "validation")}
    train, valid = Groups.concat(parts["train"]), Groups.concat(parts["validation"])

    def fit(data: Groups) -> Any:
        return lgb.train(params, lgb.Dataset(data.x, label=data.y, group=data.group),
                         num_boost_round=trees)

    valid_scores = fit(train).predict(valid.x)
    scores_by_part: list[np.ndarray] = [np.zeros(0)] * len(parts["train"])
    for fold in range(args.folds):  # repository k in fold k % folds
        members = [k for k in range(len(parts["train"])) if k % args.folds == fold]
        if not members:
            continue
        model = fit(Groups.concat([p for k, p in enumerate(parts["train"])
                                   if k % args.folds != fold]))
        for k in members:
            scores_by_part[k] = model.predict(parts["train"][k].x)
    train_scores = np.concatenate(scores_by_part)
    xt, yt, gt = file_data(train, train_scores)
    xv, yv, gv = file_data(valid, valid_scores)
    result: dict[str, Any] = {
        "benchmark": "ranker_file_stage", "split": "validation", "folds": args.folds,
        "definition_model": {"params": {k: params[k] for k in (
            "num_leaves", "learning_rate", "min_data_in_leaf")}, "trees": trees},
        "definition_order": {"train_out_of_fold": accuracy(train_scores, train),
                             "validation": accuracy(valid_scores, valid),
                             "validation_file_acc@1_of_files": file_acc1(
                                 -np.concatenate([np.arange(n) for n in gv]).astype(float),
                                 yv, gv)},
        "file_rows": {"train": len(yt), "validation": len(yv),
                      "features": len(SCORE_FEATURES) + train.x.shape[1]},
        "grid": []}
    for point in GRID:
        booster = lgb.train({**BASE_PARAMS, **point, "lambdarank_truncation_level": 10},
                            lgb.Dataset(xt, label=yt, group=gt), num_boost_round=max(TREES))
        result["grid"].append({"params": point, "validation_file_acc@1": {
            str(k): file_acc1(booster.predict(xv, num_iteration=k), yv, gv) for k in TREES}})
        print(json.dumps(result["grid"][-1]), flush=True)
    best = max(v for g in result["grid"] for v in g["validation_file_acc@1"].values())
    base = result["definition_order"]["validation_file_acc@1_of_files"]
    result["best_file_stage_file_acc@1"] = best
    result["gain_points"] = round(100 * (best - base), 2)
    result["note"] = (f"python benchmarks/ranker_file_stage.py {' '.join(sys.argv[1:])}; "
                      f"{time.monotonic() - started:.0f} s; load average at the start "
                      f"{[round(v, 2) for v in load]}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
