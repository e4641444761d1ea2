"""The question model: a small LightGBM lambdarank on natural-question cases, chosen by
leave-one-project-out (LOPO), and a handful of linear weights over the hand order's own
signals for comparison.

Rows are the question cases' (`evals.corpus.qa_cases`, collected as a commit case's), one
group a question, label 1 for a target definition. With six projects of 30 questions the model
is kept small: few leaves, a large `min_data_in_leaf`, and the number of trees chosen as the
one with the best mean over the held-out projects (each fold trained on the other five). The
commit corpus's rows may join the training folds, down-weighted (`commit_weight`): the two
sources are told apart by their weight, the features being the shipped model's.

Measures of a candidate order (`question_metrics`), per question: `hit@k`, a target within the
first k candidates (span@k's unit: one answering definition suffices); `file@1`, the first
candidate lies in a file of a target. Everything is deterministic: LightGBM as the trainer
runs it (`evals.corpus.ranker_train.BASE_PARAMS`), the linear weights by full-batch gradient
steps in a fixed order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from controller.learned_rank import blend
from controller.rank_features import FEATURES
from evals.corpus.mine import CorpusCase
from evals.corpus.ranker_train import BASE_PARAMS, Groups, _orders, hand_scores, repo_groups
from helix.core.errors import ConfigError

# small and strongly regularised: 3 leaves with at least 200 rows a leaf (round 10's choice
# among 3 or 7 leaves and 50 or 200 rows), or 7 leaves with 50 (the other corner); two points,
# as 18 folds of 145,000 rows take 20 s a fit on this shared machine
QA_GRID: tuple[dict[str, Any], ...] = tuple(
    {"num_leaves": leaves, "min_data_in_leaf": leaf, "learning_rate": 0.05,
     "lambda_l2": 10.0}
    for leaves, leaf in ((3, 200), (7, 50)))
ROUNDS = (10, 20, 40, 80, 120, 160, 240)
# the model's share when its order is fused with the hand order's (1.0: the model alone)
BLENDS = (1.0, 0.75, 0.5, 0.25)
# the hand order's own signals the linear weights may use
LINEAR_FEATURES = ("hand_rr", "fused_score", "bm25_q", "file_bm25_q", "file_rr", "name_cov",
                   "name_idf_share", "sig_cov", "doc_cov", "body_cov", "is_def", "is_test",
                   "rank_in_file", "hist_bm25")


def load_cases(path: Path) -> dict[str, CorpusCase]:
    return {c.id: c for c in (CorpusCase.model_validate_json(line) for line in
                              path.read_text(encoding="utf-8").splitlines() if line.strip())}


def project_groups(rows: Path, name: str, features: Sequence[str] = FEATURES) -> Groups:
    """A question project's rows (`qa-rows` wrote <name>.npz, .json, .cases.jsonl), in
    `features`' columns."""
    cases = rows / f"{name}.cases.jsonl"
    if not cases.is_file():
        raise ConfigError(f"no question rows of {name} under {rows} (helix eval corpus qa-rows)")
    return repo_groups(rows / name, load_cases(cases), features)


def blended(scores: np.ndarray, group: np.ndarray, share: float) -> np.ndarray:
    """`scores` fused with each question's pool order (`controller.learned_rank.blend`, as
    the served model fuses them); share 1.0: the scores as they are."""
    if share >= 1.0:
        return scores
    out: list[float] = []
    at = 0
    for size in group:
        out.extend(blend([float(v) for v in scores[at:at + size]], share))
        at += int(size)
    return np.asarray(out, dtype=np.float64)


def headed(scores: np.ndarray, data: Groups, head: int, features: Sequence[str],
           start: int = 0) -> np.ndarray:
    """`scores` applied to the hand order's first `head` candidates only (those whose
    `hand_rr`, 1 / the hand order's place, is at least 1 / `head`), every other candidate after
    them in pool order (the hand order's), the first `start` kept first in the hand order's
    order: `controller.learned_rank.reorder_head` offline. head 0: the scores as they are."""
    if head <= 0:
        return scores
    rr = data.x[:, list(features).index("hand_rr")]
    out = np.where(rr >= 1.0 / head - 1e-9, scores, -1e9)
    return np.where(rr >= 1.0 / start - 1e-9, 1e9 + rr, out) if start > 0 else out


def parse_head(text: str, option: str = "--head") -> tuple[int, int]:
    """`K` or `S:K` -> (S, K): the hand order's items S+1 to K reordered (S < K; 0: none)."""
    import click

    start, _, head = text.strip().rpartition(":")
    try:
        pair = (int(start or 0), int(head))
    except ValueError:
        raise click.BadParameter(f"{text!r} is not K or S:K", param_hint=option) from None
    if pair[0] < 0 or pair[1] < 0 or (pair[1] and pair[0] >= pair[1]):
        raise click.BadParameter(f"{text!r}: 0 <= S < K", param_hint=option)
    return pair


def question_metrics(scores: np.ndarray, data: Groups) -> dict[str, float]:
    """hit@1, hit@5, hit@10 and file@1 of the candidates ordered by `scores` (ties: pool
    order), as shares of the questions."""
    hits = {"hit@1": 0, "hit@5": 0, "hit@10": 0, "file@1": 0}
    at = 0
    for case, order in enumerate(_orders(scores, data.group)):
        size = int(data.group[case])
        relevant = data.target_of[at:at + size][order] >= 0
        first = int(np.argmax(relevant)) + 1 if relevant.any() else None
        for k in (1, 5, 10):
            hits[f"hit@{k}"] += first is not None and first <= k
        hits["file@1"] += bool(size) and data.files[case][int(order[0])] in set(
            data.target_files[case])
        at += size
    n = max(len(data.group), 1)
    return {k: round(v / n, 4) for k, v in hits.items()} | {"questions": len(data.group)}


def selection(metrics: Mapping[str, float]) -> float:
    """What LOPO chooses by: hit@5 (span@5's unit) plus file@1, hit@1 breaking ties."""
    return metrics["hit@5"] + metrics["file@1"] + metrics["hit@1"] / 1000


def _dataset(parts: Sequence[Groups], weights: Sequence[float]) -> tuple[Any, ...]:
    data = Groups.concat(parts)
    w = np.concatenate([np.full(len(p.y), wt, dtype=np.float64) for p, wt in
                        zip(parts, weights, strict=True)])
    return data, w


def fit(parts: Sequence[Groups], weights: Sequence[float], params: Mapping[str, Any],
        rounds: int, features: Sequence[str] = FEATURES) -> Any:
    """A LightGBM lambdarank booster on `parts` (each part's rows weighted, in `features`'
    columns)."""
    import lightgbm as lgb

    data, w = _dataset(parts, weights)
    params = {**BASE_PARAMS, **params}
    dtrain = lgb.Dataset(data.x, label=data.y, group=data.group, weight=w,
                         feature_name=list(features), free_raw_data=False)
    return lgb.train(params, dtrain, num_boost_round=rounds)


def lopo(projects: Mapping[str, Groups], grid: Sequence[Mapping[str, Any]] = QA_GRID,
         rounds: Sequence[int] = ROUNDS, extra: Groups | None = None,
         extra_weight: float = 0.0, fold_of: Mapping[str, str] | None = None,
         features: Sequence[str] = FEATURES, blends: Sequence[float] = (1.0,),
         heads: Sequence[tuple[int, int]] = ((0, 0),)) -> dict[str, Any]:
    """Each grid point, tree count and blend share scored on each question file, by a model
    trained on every file of the other folds (`fold_of`: a file's fold, its repository, so
    two files about one project are held out together; None: each file its own fold), plus
    `extra` at `extra_weight` when given; each `heads` pair (start, head) reorders only the
    hand order's candidates from place start + 1 to head ((0, 0): the model's whole order,
    `headed`). `best`: the best by
    mean selection with the model alone (share 1.0, head 0); `best_blend`: the best of any
    share (ties: the larger share); `best_head`: the best of a head > 0 (None without one)."""
    names = sorted(projects)
    folds = dict(fold_of or {n: n for n in names})
    table: list[dict[str, Any]] = []
    for params in grid:
        per: dict[tuple[int, float, tuple[int, int]], dict[str, dict[str, float]]] = {
            (r, b, h): {} for r in rounds for b in blends for h in heads}
        for held in sorted(set(folds[n] for n in names)):
            train = [n for n in names if folds[n] != held]
            parts = [projects[n] for n in train]
            weights = [1.0] * len(parts)
            if extra is not None and extra_weight > 0:
                parts.append(extra)
                weights.append(extra_weight)
            booster = fit(parts, weights, params, max(rounds), features)
            for name in (n for n in names if folds[n] == held):
                test = projects[name]
                for r in rounds:
                    raw = np.asarray(booster.predict(test.x, num_iteration=r))
                    for b in blends:
                        for pair in heads:
                            per[(r, b, pair)][name] = question_metrics(headed(
                                blended(raw, test.group, b), test, pair[1], features,
                                pair[0]), test)
        for (r, b, (start, size)), folds_of in per.items():
            table.append({"params": dict(params), "trees": r, "blend": b, "head": size,
                          "head_start": start, "folds": folds_of,
                          "mean": _mean(folds_of.values())})
    whole = [row for row in table if not row["head"]] or table
    alone = [row for row in whole if row["blend"] >= 1.0] or whole
    with_head = [row for row in table if row["head"]]
    best = max(alone, key=lambda row: (selection(row["mean"]), -row["trees"]))
    best_blend = max(whole, key=lambda row: (selection(row["mean"]), row["blend"],
                                             -row["trees"]))
    best_head = max(with_head, key=lambda row: (selection(row["mean"]), row["blend"],
                                                -row["head"], -row["trees"]), default=None)
    hand = {n: question_metrics(hand_scores(projects[n]), projects[n]) for n in names}
    return {"table": table, "best": best, "best_blend": best_blend, "best_head": best_head,
            "hand": {"folds": hand, "mean": _mean(hand.values())}}


def by_style(result: Mapping[str, Any], style_of: Mapping[str, str], row: str = "best"
             ) -> dict[str, dict[str, Any]]:
    """The hand order's and `result[row]`'s held-out metrics per question style, each style's
    files' metrics weighted by their questions (pooled questions)."""
    out: dict[str, dict[str, Any]] = {}
    for style in sorted(set(style_of.values())):
        mine = [n for n in sorted(style_of) if style_of[n] == style]
        out[style] = {"files": mine,
                      "hand": _pooled([result["hand"]["folds"][n] for n in mine]),
                      "model": _pooled([result[row]["folds"][n] for n in mine])}
    return out


def _pooled(metrics: Sequence[Mapping[str, float]]) -> dict[str, float]:
    total = sum(m["questions"] for m in metrics) or 1
    return {k: round(sum(m[k] * m["questions"] for m in metrics) / total, 4)
            for k in ("hit@1", "hit@5", "hit@10", "file@1")} | {
        "questions": sum(m["questions"] for m in metrics)}


def _mean(metrics: Any) -> dict[str, float]:
    rows = list(metrics)
    keys = ("hit@1", "hit@5", "hit@10", "file@1")
    return {k: round(float(np.mean([m[k] for m in rows])), 4) for k in keys}


def linear_columns() -> list[int]:
    return [FEATURES.index(f) for f in LINEAR_FEATURES]


def fit_linear(parts: Sequence[Groups], l2: float = 1.0, steps: int = 300,
               rate: float = 0.5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(weights, mean, scale) of a pairwise logistic scorer (RankNet's loss: each target
    above each other candidate of its question) over `LINEAR_FEATURES`, standardised."""
    data = Groups.concat(parts)
    cols = linear_columns()
    x = data.x[:, cols]
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    z = (x - mean) / scale
    pos: list[int] = []
    neg: list[int] = []
    at = 0
    for size in data.group:
        y = data.y[at:at + size]
        good = np.flatnonzero(y > 0) + at
        bad = np.flatnonzero(y == 0) + at
        for g in good:
            pos.extend([int(g)] * len(bad))
            neg.extend(int(b) for b in bad)
        at += int(size)
    if not pos:
        raise ConfigError("no question with a target among its candidates")
    diff = z[np.asarray(pos)] - z[np.asarray(neg)]
    w = np.zeros(len(cols))
    for _ in range(steps):
        margin = diff @ w
        grad = -(diff * (1.0 / (1.0 + np.exp(margin)))[:, None]).mean(axis=0) + l2 * w / len(
            diff) * 100
        w -= rate * grad
    return w, mean, scale


def linear_scores(model: tuple[np.ndarray, np.ndarray, np.ndarray], data: Groups
                  ) -> np.ndarray:
    w, mean, scale = model
    return np.asarray(((data.x[:, linear_columns()] - mean) / scale) @ w)


def lopo_linear(projects: Mapping[str, Groups], l2s: Sequence[float] = (0.1, 1.0, 10.0)
                ) -> dict[str, Any]:
    names = sorted(projects)
    table: list[dict[str, Any]] = []
    for l2 in l2s:
        folds = {}
        for held in names:
            model = fit_linear([projects[n] for n in names if n != held], l2)
            folds[held] = question_metrics(linear_scores(model, projects[held]),
                                           projects[held])
        table.append({"l2": l2, "folds": folds, "mean": _mean(folds.values())})
    best = max(table, key=lambda row: (selection(row["mean"]), -row["l2"]))
    return {"table": table, "best": best}


def dump(result: Any) -> str:
    return json.dumps(result, indent=1, sort_keys=True)


def question_routes(questions: Sequence[str], min_share: float) -> list[str]:
    """The routes Helix reads the training questions as, each holding at least `min_share`
    of them: the questions the model learned to order."""
    from collections import Counter

    from controller.question import read_question
    from helix.core.config import HelixConfig

    settings = HelixConfig().retrieval
    counts = Counter(read_question(q, settings).plan.intent.route for q in questions)
    total = sum(counts.values())
    return sorted(r for r, n in counts.items() if total and n >= min_share * total)
