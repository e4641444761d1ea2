"""Training the learned ranker: LightGBM lambdarank on the corpus's candidate rows.

Rows come from `evals.corpus.features` (one group per case: its candidates, label 1 for a
target definition) and, optionally, from Helix's own exported training records
(`evals.corpus.export_rows`). The train split's repositories train; the validation split's
choose the number of trees (early stopping) and the hyperparameters (a small fixed grid:
binary or graded labels, leaves, leaf size) by function Acc@5 plus file Acc@1 of the
candidates' order (`selection`; ties: function Acc@1, then fewer trees). The test split is
never read here. Everything LightGBM could vary is fixed: `deterministic`, one thread,
`force_row_wise`, a fixed seed, no bagging or feature sampling, so the same rows give the same
model, byte for byte.

Written: `model.txt` (LightGBM's text format, read by `controller.learned_rank`) and
`manifest.json` (the corpus hash, the feature list in order, the parameters, the metrics of
each split, each part's digest).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from controller.rank_features import FEATURES
from evals.corpus.features import load
from evals.corpus.mine import CorpusCase
from evals.corpus.policy import is_target
from helix.core.errors import ConfigError
from helix.core.hashing import digest

Progress = Callable[[str], None]
SEED = 31
BASE_PARAMS: dict[str, Any] = {
    "objective": "lambdarank", "metric": "None", "deterministic": True, "num_threads": 1,
    "force_row_wise": True, "seed": SEED, "bagging_fraction": 1.0, "bagging_freq": 0,
    "feature_fraction": 1.0, "verbosity": -1, "lambdarank_truncation_level": 30,
    "max_bin": 255, "max_depth": 6,
}
# labels: "binary" (a target 1, the rest 0) or "graded" (a target 2, another candidate of a
# target's file 1: the order learns the file when it misses the definition). At most 15
# leaves a tree: the evaluator tests every node of every tree for every candidate, and 31
# leaves cost twice the time per question (`controller.learned_rank`).
GRID: tuple[dict[str, Any], ...] = tuple(
    {"labels": labels, "num_leaves": leaves, "learning_rate": 0.05, "min_data_in_leaf": leaf}
    for labels in ("binary", "graded") for leaves in (7, 15) for leaf in (20, 100))
MAX_ROUNDS = 600
PATIENCE = 60
KS = (1, 5, 10)


@dataclass
class Groups:
    """Rows of many questions: features, labels, group sizes, and per candidate the target it
    is (-1: none) with each question's number of targets (for Acc@k)."""

    x: np.ndarray
    y: np.ndarray
    group: np.ndarray
    target_of: np.ndarray
    targets: np.ndarray
    files: list[list[str]]  # each question's candidates' paths
    target_files: list[list[str]]

    @staticmethod
    def concat(parts: Sequence[Groups]) -> Groups:
        if not parts:
            raise ConfigError("no training rows")
        return Groups(np.concatenate([p.x for p in parts]), np.concatenate([p.y for p in parts]),
                      np.concatenate([p.group for p in parts]),
                      np.concatenate([p.target_of for p in parts]),
                      np.concatenate([p.targets for p in parts]),
                      [f for p in parts for f in p.files],
                      [f for p in parts for f in p.target_files])


# Candidate sources Helix no longer has, by the feature that flagged them: rows collected
# before one was retired read as if it never ran (its candidates dropped; what else it moved,
# a file's share of the pool, is kept as collected). The association table (issue 31) added
# nothing in the ablation (benchmarks/results/ranker_ablation.json) and was removed.
RETIRED_SOURCES = ("from_assoc",)
_RETIRED_FEATURES = frozenset({*RETIRED_SOURCES, "assoc_score", "assoc_hits"})


def _current(x: np.ndarray, y: np.ndarray, group: np.ndarray, side: Mapping[str, Any],
             path: Path, features: Sequence[str] = FEATURES
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[list[Any]]]:
    """(rows, labels, group sizes, each case's candidates) in `features`' columns: rows of
    this feature list as they are, rows of a wider one (retired features, the question
    model's bridging columns) narrowed."""
    from controller.rank_bridge import BRIDGE_FEATURES

    names = list(side.get("features") or [])
    entries = [list(e["candidates"]) for e in side["cases"]]
    if names == list(features):
        return x, y, group, entries
    if not set(features) <= set(names) or (
            set(names) - set(features) - _RETIRED_FEATURES - set(BRIDGE_FEATURES)):
        raise ConfigError(f"{path}: rows of another feature list; collect them again")
    flags = [names.index(f) for f in RETIRED_SOURCES if f in names]
    keep = ~np.any(x[:, flags] != 0, axis=1) if flags else np.ones(len(x), dtype=bool)
    sizes, kept, at = [], [], 0
    for size, candidates in zip(group, entries, strict=True):
        mask = keep[at:at + size]
        sizes.append(int(mask.sum()))
        kept.append([c for c, k in zip(candidates, mask, strict=True) if k])
        at += size
    return (x[keep][:, [names.index(f) for f in features]], y[keep],
            np.asarray(sizes, dtype=np.int64), kept)


def repo_groups(path: Path, cases: Mapping[str, CorpusCase],
                features: Sequence[str] = FEATURES) -> Groups:
    """A repository's collected rows with each candidate's target index (from the case list),
    in `features`' columns."""
    x, y, group, side = load(path)
    x, y, group, entries = _current(x, y, group, side, path, features)
    target_of: list[int] = []
    targets: list[int] = []
    files: list[list[str]] = []
    target_files: list[list[str]] = []
    for entry, candidates in zip(side["cases"], entries, strict=True):
        case = cases[entry["id"]]
        targets.append(len(case.targets))
        target_files.append(sorted({t.path for t in case.targets}))
        files.append([c[0] for c in candidates])
        for cpath, symbol, start, end in candidates:
            target_of.append(next((n for n, t in enumerate(case.targets) if is_target(
                _Span(cpath, symbol, start, end), t)), -1))
    return Groups(x, y, group, np.asarray(target_of, dtype=np.int64),
                  np.asarray(targets, dtype=np.int64), files, target_files)


@dataclass(frozen=True)
class _Span:
    path: str
    symbol: str
    start_line: int
    end_line: int


def _orders(scores: np.ndarray, group: np.ndarray) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    at = 0
    for size in group:
        part = scores[at:at + size]
        out.append(np.lexsort((np.arange(size), -np.round(part, 12))))
        at += size
    return out


def accuracy(scores: np.ndarray, data: Groups) -> dict[str, float]:
    """Function and file Acc@k of the candidates ordered by `scores` (ties: pool order)."""
    hits = {f"{level}_acc@{k}": 0 for level in ("function", "file") for k in KS}
    at = 0
    for case, order in enumerate(_orders(scores, data.group)):
        size = data.group[case]
        targets = data.target_of[at:at + size][order]
        paths = [data.files[case][i] for i in order]
        first: dict[int, int] = {}
        for rank, t in enumerate(targets, start=1):
            if t >= 0 and t not in first:
                first[int(t)] = rank
        files: dict[str, int] = {}
        for p in paths:
            files.setdefault(p, len(files) + 1)
        function_rank = (max(first.values()) if len(first) == data.targets[case] else None)
        wanted = [files.get(p) for p in data.target_files[case]]
        file_rank = None if None in wanted else max(w for w in wanted if w is not None)
        for k in KS:
            hits[f"function_acc@{k}"] += function_rank is not None and function_rank <= k
            hits[f"file_acc@{k}"] += file_rank is not None and file_rank <= k
        at += size
    cases = max(len(data.group), 1)
    return {key: round(value / cases, 4) for key, value in hits.items()} | {
        "cases": len(data.group)}


def hand_scores(data: Groups) -> np.ndarray:
    """The pool order itself (the hand order first) as scores."""
    return np.concatenate([-np.arange(size, dtype=np.float64) for size in data.group])


def masked(x: np.ndarray, columns: Sequence[int]) -> np.ndarray:
    """`x` with every column but `columns` zero (a constant column never splits: the model
    still takes every feature, in order)."""
    if len(columns) == x.shape[1]:
        return x
    out = np.zeros_like(x)
    out[:, list(columns)] = x[:, list(columns)]
    return out


def graded(data: Groups) -> np.ndarray:
    """2 for a target definition, 1 for another candidate in one of its question's target
    files, 0 for the rest."""
    out = (data.y > 0).astype(np.int32) * 2
    at = 0
    for q, size in enumerate(data.group):
        wanted = set(data.target_files[q])
        for i, path in enumerate(data.files[q]):
            if out[at + i] == 0 and path in wanted:
                out[at + i] = 1
        at += size
    return out


def grid_point(manifest: Path) -> dict[str, Any]:
    """The grid point a model manifest was trained with (`train-ranker --params-from`)."""
    try:
        params = json.loads(manifest.read_text(encoding="utf-8"))["params"]
        return {"labels": params.get("labels", "binary"),
                **{k: params[k] for k in ("num_leaves", "learning_rate", "min_data_in_leaf")}}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"{manifest} is not a ranker manifest with parameters: "
                          f"{exc}") from None


def selection(metrics: Mapping[str, float]) -> float:
    """What the validation split chooses by: function Acc@5 plus file Acc@1 (the two
    measures the issue sets targets on), function Acc@1 breaking ties."""
    return metrics["function_acc@5"] + metrics["file_acc@1"] + metrics["function_acc@1"] / 1000


def _train_one(train: Groups, valid: Groups, params: Mapping[str, Any],
               columns: Sequence[int]) -> tuple[Any, int, dict[str, float]]:
    import lightgbm as lgb

    params = dict(params)
    labels = graded(train) if params.pop("labels", "binary") == "graded" else train.y
    xv = masked(valid.x, columns)
    dtrain = lgb.Dataset(masked(train.x, columns), label=labels, group=train.group,
                         feature_name=list(FEATURES), free_raw_data=False)
    dvalid = lgb.Dataset(xv, label=valid.y, group=valid.group, reference=dtrain)

    def acc5(scores: np.ndarray, dataset: Any) -> tuple[str, float, bool]:
        return "selection", selection(accuracy(np.asarray(scores), valid)), True

    booster = lgb.train({**BASE_PARAMS, **params}, dtrain, num_boost_round=MAX_ROUNDS,
                        valid_sets=[dvalid], valid_names=["validation"], feval=acc5,
                        callbacks=[lgb.early_stopping(PATIENCE, verbose=False)])
    best = int(booster.best_iteration) or MAX_ROUNDS
    return booster, best, accuracy(np.asarray(booster.predict(xv, num_iteration=best)), valid)


_SHARED: list[Groups] = []  # the rows a grid worker reads (sent once per worker process)


def _share(train_data: Groups, valid_data: Groups) -> None:
    _SHARED[:] = [train_data, valid_data]


def _grid_point(job: tuple[Mapping[str, Any], Sequence[int]]) -> dict[str, Any]:
    """One grid point on the rows in `_SHARED` (train, validation): its result, text included."""
    params, keep = job
    train_data, valid_data = _SHARED
    booster, rounds, metrics = _train_one(train_data, valid_data, params, keep)
    return {"params": dict(params), "trees": rounds, "validation": metrics,
            "train": accuracy(np.asarray(booster.predict(masked(train_data.x, keep),
                                                         num_iteration=rounds)), train_data),
            "text": str(booster.model_to_string(num_iteration=rounds))}


def grid_task(item: tuple[Mapping[str, Any], Sequence[int], Any]) -> dict[str, Any]:
    """One grid point as a cluster task: the rows come with it (on Ray, a reference to the
    one copy the driver put in the object store)."""
    params, keep, rows = item
    if not isinstance(rows, tuple):  # an ObjectRef: fetched from the object store
        import ray

        rows = ray.get(rows)
    _SHARED[:] = list(rows)
    try:
        return _grid_point((params, keep))
    finally:
        _SHARED.clear()


def _on_cluster(points: Sequence[tuple[Mapping[str, Any], Sequence[int]]], rows: tuple[
        Groups, Groups], fan: Any) -> list[dict[str, Any]]:
    """The grid points as tasks of `fan` (`evals.cluster.FanOut`), the rows put once."""
    shared = fan.runner.ray.put(rows) if fan.runner.name == "ray" else rows
    return list(fan.map(grid_task, [(params, keep, shared) for params, keep in points]))


def train(train_data: Groups, valid_data: Groups, columns: Sequence[int] | None = None,
          grid: Sequence[Mapping[str, Any]] = GRID, progress: Progress | None = None,
          jobs: int = 1, fan: Any = None) -> dict[str, Any]:
    """The best model of the grid on the validation split (its parameters, trees, metrics,
    text: a model over every feature, the left-out columns zero). `jobs` > 1 trains that many
    grid points at once in worker processes, `fan` (an `evals.cluster.FanOut`) each as a task
    on its cluster; each point is deterministic on its own (LightGBM, one thread, a fixed
    seed), so the choice and the model's bytes are the same as one at a time (the first best
    in grid order)."""
    keep = list(range(len(FEATURES))) if columns is None else list(columns)
    points = [(params, keep) for params in grid]
    _SHARED[:] = [train_data, valid_data]
    try:
        if fan is not None:
            results = _on_cluster(points, (train_data, valid_data), fan)
        elif jobs > 1 and len(points) > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # forkserver, not fork: a fork of a process whose LightGBM (OpenMP) or Ray
            # threads ran deadlocks; each worker gets the rows once, by its initializer
            with ProcessPoolExecutor(min(jobs, len(points)),
                                     mp_context=multiprocessing.get_context("forkserver"),
                                     initializer=_share,
                                     initargs=(train_data, valid_data)) as pool:
                results = list(pool.map(_grid_point, points))
        else:
            results = [_grid_point(point) for point in points]
    finally:
        _SHARED.clear()
    best: tuple[tuple[float, float, int], dict[str, Any]] | None = None
    for result in results:
        metrics, rounds = result["validation"], result["trees"]
        key = (selection(metrics), metrics["function_acc@1"], -rounds)
        if progress is not None:
            progress(f"{json.dumps(result['params'], sort_keys=True)} trees {rounds}: {metrics}")
        if best is None or key > best[0]:
            best = (key, result)
    assert best is not None
    return best[1]


def trained_routes(cases: Sequence[CorpusCase], repos: Sequence[tuple[str, str]],
                   min_share: float) -> list[str]:
    """The routes Helix reads the train split's messages as, each holding at least
    `min_share` of them: the questions the model learned to order."""
    from collections import Counter

    from controller.question import read_question
    from helix.core.config import HelixConfig

    settings = HelixConfig().retrieval
    train_repos = {name for name, split in repos if split == "train"}
    counts = Counter(read_question(c.message, settings).plan.intent.route
                     for c in cases if c.repo in train_repos)
    total = sum(counts.values())
    return sorted(r for r, n in counts.items() if total and n >= min_share * total)


def write_model(out: Path, text: str, manifest: dict[str, Any]) -> str:
    """model.txt and manifest.json under `out` (its features `FEATURES` unless `manifest`
    names them); the manifest's digest (what `retrieval.ranker.digest` pins)."""
    out.mkdir(parents=True, exist_ok=True)
    model_bytes = text.encode("utf-8")
    manifest = {"features": list(FEATURES), **manifest, "model": "model.txt",
                "model_digest": digest(model_bytes)}
    _atomic(out / "model.txt", model_bytes)
    raw = (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode("utf-8")
    _atomic(out / "manifest.json", raw)
    return digest(raw)


def _atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def rows_groups(rows: Sequence[Any]) -> Groups:
    """Groups of `CaseRows` that are not corpus cases (exported records): each relevant
    candidate counts as the question's one target."""
    x = np.asarray([r for c in rows for r in c.rows], dtype=np.float64).reshape(
        -1, len(FEATURES))
    labels = [v for c in rows for v in c.labels]
    return Groups(x, np.asarray(labels, dtype=np.int32),
                  np.asarray([len(c.labels) for c in rows], dtype=np.int64),
                  np.asarray([0 if v else -1 for v in labels], dtype=np.int64),
                  np.ones(len(rows), dtype=np.int64),
                  [[cand[0] for cand in c.candidates] for c in rows],
                  [sorted({cand[0] for cand, v in zip(c.candidates, c.labels, strict=True)
                           if v}) for c in rows])


def split_groups(rows_dir: Path, cases: Sequence[CorpusCase], split: str,
                 repos: Sequence[tuple[str, str]]) -> Groups:
    """Every collected repository of `split` (`repos`: (name, split) pairs, in list order)."""
    by_id = {c.id: c for c in cases}
    parts = [repo_groups(rows_dir / name, by_id) for name, s in repos if s == split
             and (rows_dir / f"{name}.json").is_file()]
    if not parts:
        raise ConfigError(f"no collected rows of the {split} split under {rows_dir}")
    return Groups.concat(parts)


SOURCE_FLAGS = {"history": "from_history"}


def without_sources(data: Groups, groups: Sequence[str]) -> Groups:
    """`data` less the candidates only the left-out sources brought (history): what
    the pool would hold without them."""
    flags = [FEATURES.index(SOURCE_FLAGS[g]) for g in groups if g in SOURCE_FLAGS]
    if not flags:
        return data
    keep = ~np.any(data.x[:, flags] != 0, axis=1)
    sizes, files, at = [], [], 0
    for q, size in enumerate(data.group):
        mask = keep[at:at + size]
        sizes.append(int(mask.sum()))
        files.append([p for p, k in zip(data.files[q], mask, strict=True) if k])
        at += size
    return Groups(data.x[keep], data.y[keep], np.asarray(sizes, dtype=np.int64),
                  data.target_of[keep], data.targets, files, data.target_files)
