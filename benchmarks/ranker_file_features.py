"""File-level features for the learned ranker (issue 31), chosen on the validation split: do
columns that compare a candidate's file with the question's other candidate files
(`evals.corpus.file_features`: places by whole-file BM25, best and second-best candidate BM25, name,
body and path words, candidate count; the file's history of commits) raise file Acc@1?

    python benchmarks/ranker_file_features.py --rows DIR --homes DIR [DIR ...]
        [--variants all rows history] [--test-rows DIR --test-homes DIR ...] [--out FILE]

The rows are those the shipped model was trained from (`helix eval corpus ranker-rows`); the
file columns are computed from them and from each repository's history field, read from the
index the rows were asked against (`--homes`: HELIX_HOME directories whose indexes/ hold
`<repo>-*`; the question's words are read as the ask read them, `controller.question`; how
often they reproduce the rows' own `hist_cov` is reported as `question_words_agree`). Each
variant is trained with the shipped model's parameters on the train split, its trees chosen
on validation (early stopping on function Acc@5 + file Acc@1, as `train-ranker` chooses) and
compared with the shipped model scored on the same validation rows. With `--test-rows`, the
variants chosen on validation are scored once on the test split. Writes
benchmarks/results/ranker_file_features.json with the command and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "ranker_file_features.json"
WEIGHTS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0)
VARIANTS = {
    "all": None,
    "rows": ("f_bm25_rr", "f_best_bm25", "f_second_bm25", "f_best_bm25_rr", "f_best_name",
             "f_best_name_rr", "f_best_body", "f_best_body_rr", "f_path_rr", "f_count_rr"),
    "history": ("f_hist_commits", "f_hist_cov", "f_hist_bm25", "f_hist_rr", "f_best_hist"),
}


def history_of(homes: list[Path], name: str) -> Any:
    from evals.corpus.file_features import file_history
    from indexers.history import load

    for home in homes:
        for found in sorted((home / "indexes").glob(f"{name}-*")):
            current = (found / "CURRENT").read_text(encoding="utf-8").strip()
            part = found / current / "history.json"
            if part.is_file():
                table = load(part.read_bytes())
                if table is not None:
                    return file_history(table.defs, table.words), table
    return None, None


def extend(rows_dir: Path, homes: list[Path], split: str, cases: dict[str, Any],
           listing: Any, stats: dict[str, int]) -> Any:
    """The split's groups with the file columns appended (in `FILE_FEATURES` order)."""
    from controller.file_defs import question_tokens
    from controller.question import read_question
    from controller.rank_features import FEATURES
    from evals.corpus.features import load
    from evals.corpus.file_features import column_places, file_columns
    from evals.corpus.ranker_train import Groups, _current, repo_groups
    from helix.core.config import HelixConfig
    from indexers.history import HistoryIndex

    settings = HelixConfig().retrieval
    places = column_places(FEATURES)
    parts = []
    for entry in listing.repos:
        side = rows_dir / f"{entry.name}.json"
        if entry.split != split or not side.is_file():
            continue
        groups = repo_groups(rows_dir / entry.name, cases)
        raw = load(rows_dir / entry.name)
        _, _, _, kept = _current(*raw, rows_dir / entry.name)
        ids = [c["id"] for c in raw[3]["cases"]]
        files, table = history_of(homes, entry.name)
        stats["repos_with_history"] += files is not None
        defs = HistoryIndex(table) if table is not None else None
        extra, at = [], 0
        for q, size in enumerate(groups.group):
            words = question_tokens(read_question(cases[ids[q]].message, settings).plan)
            rows = groups.x[at:at + size]
            extra.extend(file_columns(rows.tolist(), groups.files[q], places, words, files))
            if defs is not None and size:  # do the words reproduce the rows' hist_cov?
                stats["questions"] += 1
                stats["question_words_agree"] += _agrees(
                    rows, [c[1] for c in kept[q]], groups.files[q], words, defs, places)
            at += size
        x = np.hstack([groups.x, np.asarray(extra, dtype=np.float64).reshape(len(groups.x), -1)])
        parts.append(Groups(x, groups.y, groups.group, groups.target_of, groups.targets,
                            groups.files, groups.target_files))
    return Groups.concat(parts)


def _agrees(rows: np.ndarray, symbols: list[str], paths: list[str], words: frozenset[str],
            defs: Any, places: dict[str, int]) -> bool:
    """Whether `words` give the rows' own hist_cov for the first candidate with history."""
    col = rows[:, places["hist_cov"]]
    where = np.nonzero(col)[0]
    if not len(where):
        return True
    n = int(where[0])
    found = defs.docs.get(f"def:{paths[n]}::{symbols[n]}", frozenset())
    return abs(float(col[n]) - len(found & words) / (len(words) or 1)) < 1e-9


def file_labels(data: Any) -> np.ndarray:
    """1 for every candidate of one of its question's target files, else 0."""
    out, at = np.zeros(len(data.y), dtype=np.int32), 0
    for q, size in enumerate(data.group):
        wanted = set(data.target_files[q])
        out[at:at + size] = [p in wanted for p in data.files[q]]
        at += size
    return out


def fit(train: Any, valid: Any, columns: list[int], params: dict[str, Any],
        labels: np.ndarray | None = None, by_file: bool = False) -> dict[str, Any]:
    """A lambdarank model over `columns`, its trees chosen on validation (`by_file`: by its
    own order's file Acc@1 alone); `labels`: other than the targets (the file model)."""
    import lightgbm as lgb

    from evals.corpus.ranker_train import BASE_PARAMS, MAX_ROUNDS, PATIENCE, accuracy, selection

    xt, xv = train.x[:, columns], valid.x[:, columns]
    dtrain = lgb.Dataset(xt, label=train.y if labels is None else labels, group=train.group,
                         free_raw_data=False)
    dvalid = lgb.Dataset(xv, label=valid.y, group=valid.group, reference=dtrain)

    def sel(scores: np.ndarray, _: Any) -> tuple[str, float, bool]:
        found = accuracy(np.asarray(scores), valid)
        return "selection", found["file_acc@1"] if by_file else selection(found), True

    booster = lgb.train({**BASE_PARAMS, **params}, dtrain, num_boost_round=MAX_ROUNDS,
                        valid_sets=[dvalid], feval=sel,
                        callbacks=[lgb.early_stopping(PATIENCE, verbose=False)])
    best = int(booster.best_iteration) or MAX_ROUNDS
    found = np.asarray(booster.predict(xv, num_iteration=best))
    return {"booster": booster, "trees": best, "scores": found,
            "validation": accuracy(found, valid)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rows", type=Path, required=True)
    parser.add_argument("--homes", type=Path, nargs="+", required=True)
    parser.add_argument("--manifest", type=Path, default=ROOT / "data" / "ranker" /
                        "manifest.json")
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--file-model", action="store_true",
                        help="Also a file model (label: any candidate of a changed file, "
                        "every column) added to the shipped model's scores, its weight "
                        "chosen on validation; its trees chosen by its own file Acc@1.")
    parser.add_argument("--test-rows", type=Path, default=None)
    parser.add_argument("--test-homes", type=Path, nargs="*", default=[])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    import lightgbm as lgb

    from controller.rank_features import FEATURES
    from evals.corpus.build import load_cases
    from evals.corpus.file_features import FILE_FEATURES
    from evals.corpus.ranker_train import accuracy, selection
    from evals.corpus.repos import load_repo_list

    load_start, cpu = os.getloadavg(), time.process_time()
    shipped = json.loads(args.manifest.read_text(encoding="utf-8"))
    params = {k: shipped["params"][k] for k in ("num_leaves", "learning_rate",
                                                 "min_data_in_leaf")}
    cases = {c.id: c for c in load_cases(ROOT / "data" / "corpus" / "cases.jsonl")}
    listing = load_repo_list(ROOT / "data" / "evals" / "corpus_repos.json")
    stats = {"repos_with_history": 0, "questions": 0, "question_words_agree": 0}
    train = extend(args.rows, args.homes, "train", cases, listing, stats)
    valid = extend(args.rows, args.homes, "validation", cases, listing, stats)
    width = len(FEATURES)
    shipped_model = lgb.Booster(model_file=str(args.manifest.parent / shipped["model"]))
    result: dict[str, Any] = {
        "benchmark": "ranker_file_features", "command": shlex.join(["python", *sys.argv]),
        "params": params, "file_features": list(FILE_FEATURES), "stats": stats,
        "validation": {"shipped": {**accuracy(np.asarray(shipped_model.predict(valid.x[:, :width])),
                                            valid),
                                   "trees": shipped["trees"]}}}
    print(json.dumps(result["validation"]), json.dumps(stats), flush=True)
    chosen: dict[str, tuple[Any, list[int]]] = {}
    for name in args.variants:
        keep: tuple[str, ...] = VARIANTS[name] or FILE_FEATURES
        columns = list(range(width)) + [width + FILE_FEATURES.index(f) for f in keep]
        fitted = fit(train, valid, columns, params)
        result["validation"][name] = {**fitted["validation"], "trees": fitted["trees"]}
        chosen[name] = (fitted, columns)
        print(json.dumps({name: result["validation"][name]}), flush=True)
    file_model = None
    if args.file_model:
        base = np.asarray(shipped_model.predict(valid.x[:, :width]))
        columns = list(range(valid.x.shape[1]))
        fitted = fit(train, valid, columns, params, labels=file_labels(train), by_file=True)
        weights = {}
        for w in WEIGHTS:
            weights[str(w)] = accuracy(base + w * fitted["scores"], valid)
        best_w = max(WEIGHTS, key=lambda w: (selection(weights[str(w)]), -w))
        result["validation"]["file_model"] = {"trees": fitted["trees"], "weights": weights,
                                              "alone": fitted["validation"],
                                              "chosen_weight": best_w}
        file_model = (fitted, columns, best_w)
        print(json.dumps({"file_model": result["validation"]["file_model"]}), flush=True)
    if args.test_rows is not None:
        test = extend(args.test_rows, args.test_homes, "test", cases, listing, stats)
        result["test"] = {"shipped": accuracy(np.asarray(shipped_model.predict(
            test.x[:, :width])), test)}
        for name, (fitted, columns) in chosen.items():
            result["test"][name] = accuracy(fitted["booster"].predict(
                test.x[:, columns], num_iteration=fitted["trees"]), test)
        if file_model is not None:
            fitted, columns, w = file_model
            result["test"]["file_model"] = accuracy(
                shipped_model.predict(test.x[:, :width]) + w * fitted["booster"].predict(
                    test.x[:, columns], num_iteration=fitted["trees"]), test)
        print(json.dumps({"test": result["test"]}), flush=True)
    result["load_average"] = {"start": [round(v, 2) for v in load_start],
                              "end": [round(v, 2) for v in os.getloadavg()]}
    result["cpu_s"] = round(time.process_time() - cpu, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
