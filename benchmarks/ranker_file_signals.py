"""File-level signals the learned ranker's rows lack (issue 31's file target), on validation.

Does a file's own history (its commits before the revision, their recency,
a BM25 of the question over their messages), its share of the question's BM25 mass and its
in-degree in the graph (`evals.corpus.file_signals`) raise file Acc@1, as columns of every
candidate row or as a file model added to the definition model?

    python benchmarks/ranker_file_signals.py --rows DIR --homes DIR [DIR ...]
        [--variants base signals history graph all file_model] [--cache DIR]
        [--test-rows DIR --test-homes DIR ... --test-variant NAME] [--out FILE]

The rows are `helix eval corpus ranker-rows` output (with `[index] history_commits = 1000`);
the columns are computed from them and from each repository's index they were asked against
(`--homes`: HELIX_HOME directories whose indexes/ hold `<repo>-*`: its history field's read
log, its graph). Each variant is trained with the shipped model's parameters on the train
split, its trees chosen on validation as `train-ranker` chooses (function Acc@5 + file Acc@1),
and compared with the shipped model and with `base` (the shipped model's columns retrained on
the same rows). `file_model`: a lambdarank model whose label is every candidate of a changed
file (every column), added at a weight chosen on validation to `base`'s scores. With
`--test-rows`, the one variant named by `--test-variant` (the validation choice) is scored
once on the test split, with the shipped model and `base`. Writes
benchmarks/results/ranker_file_signals.json.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import load_average, write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "ranker_file_signals.json"
WEIGHTS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
HISTORY = ("g_commits", "g_recent", "g_since", "g_bm25", "g_bm25_top", "g_bm25_rr", "g_cov",
           "g_last_cov")
GRAPH = ("f_mass", "f_mass_rr", "f_imports_in", "f_calls_in", "f_tests_in")
VARIANTS: dict[str, tuple[str, ...] | None] = {
    "base": (), "history": HISTORY, "graph": GRAPH, "signals": HISTORY + GRAPH,
    "all": None,  # the signals and evals.corpus.file_features' 15 columns
}


def _index_dir(homes: list[Path], name: str) -> Path | None:
    for home in homes:
        for found in sorted((home / "indexes").glob(f"{name}-*")):
            current = found / (found / "CURRENT").read_text(encoding="utf-8").strip()
            if (current / "history.json").is_file():
                return current
    return None


def repo_sources(homes: list[Path], name: str) -> tuple[Any, Any, Any, dict[str, Any]]:
    """(the definitions' file history, the file log, the history index, the file degrees)
    of a repository's index."""
    from evals.corpus.file_features import file_history
    from evals.corpus.file_signals import file_degrees, file_log
    from indexers.graph_store import GraphReader
    from indexers.history import HistoryIndex, load

    where = _index_dir(homes, name)
    if where is None:
        return None, None, None, {}
    table = load((where / "history.json").read_bytes(), with_log=True)
    if table is None:
        return None, None, None, {}
    log = file_log([(c.sha, [(f.old, f.new) for f in c.files]) for c in table.log],
                   table.words)
    degrees: dict[str, Any] = {}
    graph = next(iter(sorted(where.glob("graph*.sqlite"))), None)
    if graph is not None:
        reader = GraphReader(graph)
        edges = reader.rows("SELECT a.id, b.id, e.kind FROM edges e JOIN nodes a ON "
                            "a.idx = e.src JOIN nodes b ON b.idx = e.dst "
                            "WHERE e.kind IN ('imports', 'calls', 'tests')")
        degrees = file_degrees((str(s), str(d), str(k)) for s, d, k in edges)
        reader.close()
    return file_history(table.defs, table.words), log, HistoryIndex(table), degrees


def extend(rows_dir: Path, homes: list[Path], split: str, cases: dict[str, Any],
           listing: Any, stats: dict[str, int]) -> Any:
    """The split's groups with `FILE_FEATURES` then `SIGNALS` appended."""
    from controller.file_defs import question_tokens
    from controller.question import read_question
    from controller.rank_features import FEATURES
    from evals.corpus.features import load
    from evals.corpus.file_features import column_places, file_columns
    from evals.corpus.file_signals import signal_columns
    from evals.corpus.ranker_train import Groups, repo_groups
    from helix.core.config import HelixConfig

    settings = HelixConfig().retrieval
    places = column_places(FEATURES)
    bm25_at = places["bm25_q"]
    parts = []
    for entry in listing.repos:
        if entry.split != split or not (rows_dir / f"{entry.name}.json").is_file():
            continue
        groups = repo_groups(rows_dir / entry.name, cases)
        ids = [c["id"] for c in load(rows_dir / entry.name)[3]["cases"]]
        files, log, _defs, degrees = repo_sources(homes, entry.name)
        stats["repos"] += 1
        stats["repos_with_history"] += log is not None
        stats["repos_with_graph"] += bool(degrees)
        extra: list[list[float]] = []
        at = 0
        for q, size in enumerate(groups.group):
            words = question_tokens(read_question(cases[ids[q]].message, settings).plan)
            rows = groups.x[at:at + size]
            old = file_columns(rows.tolist(), groups.files[q], places, words, files)
            new = signal_columns(rows[:, bm25_at].tolist(), groups.files[q], words, log,
                                 degrees)
            extra.extend(a + b for a, b in zip(old, new, strict=True))
            at += size
        width = len(extra[0]) if extra else 0
        x = np.hstack([groups.x, np.asarray(extra, dtype=np.float64).reshape(len(groups.x),
                                                                             width)])
        parts.append(Groups(x, groups.y, groups.group, groups.target_of, groups.targets,
                            groups.files, groups.target_files))
    return Groups.concat(parts)


def cached(cache: Path | None, key: str, make: Any) -> Any:
    """`make()`, kept as a pickle under `cache` (scratch; one process writes each key)."""
    import pickle

    if cache is None:
        return make()
    path = cache / f"{key}.pkl"
    if path.is_file():
        return pickle.loads(path.read_bytes())
    value = make()
    cache.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(pickle.dumps(value))
    tmp.replace(path)
    return value


def columns_of(variant: str) -> list[int]:
    from controller.rank_features import FEATURES
    from evals.corpus.file_features import FILE_FEATURES
    from evals.corpus.file_signals import SIGNALS

    width = len(FEATURES)
    keep = VARIANTS[variant]
    if keep is None:
        return list(range(width + len(FILE_FEATURES) + len(SIGNALS)))
    return list(range(width)) + [width + len(FILE_FEATURES) + SIGNALS.index(f) for f in keep]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rows", type=Path, required=True)
    parser.add_argument("--homes", type=Path, nargs="+", required=True)
    parser.add_argument("--manifest", type=Path, default=ROOT / "data" / "ranker" /
                        "manifest.json")
    parser.add_argument("--variants", nargs="*", default=[*VARIANTS, "file_model"],
                        choices=[*VARIANTS, "file_model"])
    parser.add_argument("--cache", type=Path, default=None,
                        help="Scratch directory for the extended rows (reused by a second run).")
    parser.add_argument("--test-rows", type=Path, default=None)
    parser.add_argument("--test-homes", type=Path, nargs="*", default=[])
    parser.add_argument("--test-variant", default=None, choices=[*VARIANTS, "file_model"])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    import lightgbm as lgb
    from ranker_file_features import file_labels, fit

    from controller.rank_features import FEATURES
    from evals.corpus.build import load_cases
    from evals.corpus.file_signals import SIGNALS
    from evals.corpus.ranker_train import accuracy, hand_scores, selection
    from evals.corpus.repos import load_repo_list

    started, load_start = time.process_time(), load_average()
    shipped = __import__("json").loads(args.manifest.read_text(encoding="utf-8"))
    params = {k: shipped["params"][k] for k in ("num_leaves", "learning_rate",
                                                 "min_data_in_leaf")}
    cases = {c.id: c for c in load_cases(ROOT / "data" / "corpus" / "cases.jsonl")}
    listing = load_repo_list(ROOT / "data" / "evals" / "corpus_repos.json")
    stats = {"repos": 0, "repos_with_history": 0, "repos_with_graph": 0}
    train, valid, stats = cached(args.cache, "rows", lambda: (
        extend(args.rows, args.homes, "train", cases, listing, stats),
        extend(args.rows, args.homes, "validation", cases, listing, stats), stats))
    width = len(FEATURES)
    model = lgb.Booster(model_file=str(args.manifest.parent / shipped["model"]))
    result: dict[str, Any] = {
        "benchmark": "ranker_file_signals", "command": shlex.join(["python", *sys.argv]),
        "params": params, "signals": list(SIGNALS), "stats": stats,
        "cases": {"train": len(train.group), "validation": len(valid.group)},
        "validation": {"hand": accuracy(hand_scores(valid), valid),
                       "shipped": {**accuracy(np.asarray(model.predict(valid.x[:, :width])),
                                              valid), "trees": shipped["trees"]}}}
    print(result["validation"], stats, flush=True)
    fitted_by: dict[str, tuple[Any, list[int]]] = {}
    for name in [v for v in args.variants if v != "file_model"]:
        columns = columns_of(name)
        fitted = fit(train, valid, columns, params)
        result["validation"][name] = {**fitted["validation"], "trees": fitted["trees"],
                                      "selection": round(selection(fitted["validation"]), 4)}
        fitted_by[name] = (fitted, columns)
        print({name: result["validation"][name]}, flush=True)
    if "file_model" in args.variants:
        base = fitted_by.get("base") or (fit(train, valid, columns_of("base"), params),
                                         columns_of("base"))
        columns = columns_of("all")
        fitted = fit(train, valid, columns, params, labels=file_labels(train), by_file=True)
        weights = {str(w): accuracy(base[0]["scores"] + w * fitted["scores"], valid)
                   for w in WEIGHTS}
        best = max(WEIGHTS, key=lambda w: (selection(weights[str(w)]), -w))
        result["validation"]["file_model"] = {
            **weights[str(best)], "weight": best, "trees": fitted["trees"],
            "alone": fitted["validation"], "weights": weights,
            "selection": round(selection(weights[str(best)]), 4)}
        print({"file_model": result["validation"]["file_model"]}, flush=True)
        fitted_by["file_model"] = (fitted, columns)
    if args.test_rows is not None and args.test_variant is not None:
        test = extend(args.test_rows, args.test_homes, "test", cases, listing, stats)
        result["test"] = {"hand": accuracy(hand_scores(test), test),
                          "shipped": accuracy(np.asarray(model.predict(test.x[:, :width])),
                                              test)}
        for name in sorted({"base", args.test_variant} - {"file_model"}):
            fitted, columns = fitted_by[name]
            result["test"][name] = accuracy(fitted["booster"].predict(
                test.x[:, columns], num_iteration=fitted["trees"]), test)
        if args.test_variant == "file_model":
            fitted, columns = fitted_by["file_model"]
            base_fit, base_cols = fitted_by["base"]
            weight = result["validation"]["file_model"]["weight"]
            result["test"]["file_model"] = accuracy(
                base_fit["booster"].predict(test.x[:, base_cols], num_iteration=base_fit[
                    "trees"]) + weight * fitted["booster"].predict(
                        test.x[:, columns], num_iteration=fitted["trees"]), test)
        print({"test": result["test"]}, flush=True)
    result["load_average"] = {"start": load_start, "end": load_average()}
    result["cpu_s"] = round(time.process_time() - started, 1)
    write_result(args.out, result, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
