"""The hand order and the learned ranker combined (issue 31): orders made from the model's
scores and the hand order, scored offline on the corpus validation rows (function Acc@1/5/10,
file Acc@1) and on the history benchmark's rows (file Acc@1/3/5/10 and MRR of the evidence,
tuning and held-out repositories apart).

    python benchmarks/ranker_combine.py --rows DIR --history-rows DIR [--out FILE]
        [--test-rows DIR --combination NAME]

--rows: `helix eval corpus ranker-rows` output (the validation split is read; the test split
only with --test-rows, once, for the one --combination named). --history-rows:
`benchmarks/ranker_history_rows.py` output. Each history case's evidence is made from its rows
as the ask makes it (`controller.learned_rank.order`: the first `retrieval.ranker.lead` by
score, then the files not yet listed), and the result says for how many cases the files of that
evidence equal those of the live learned ask (and the hand order's those of the live hand ask):
the rows are what the live path scores. Questions of a route the model was not trained on keep
the hand order, as they do in the ask.

Combinations (each a name in the result):
- hand: the pool order (the hand order first); learned: the model's scores.
- keep_first:M: the hand order's first item first unless the model's best leads its score
  by more than M, the rest by the model.
- keep_file:M: the best (by the model) item of the hand order's first file first unless the
  model's best leads it by more than M, the rest by the model (`retrieval.ranker.keep_file`).
- keep_text: the hand order's first item first when it is not a definition (a module's or a
  document's text), the rest by the model (`retrieval.ranker.keep_text`); keep_text+keep_file:M
  both, as the ask applies them (`controller.learned_rank.keep_hand`).
- hand_bonus:W: the model's score plus W times the hand order's reciprocal place (1/1, 1/2...).
- file_bonus:W: the model's score plus W times the reciprocal place of the candidate's file in
  the hand order.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import load_average, write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "ranker_combine.json"
KS = (1, 3, 5, 10)
MARGINS = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0)
WEIGHTS = (0.25, 0.5, 1.0, 2.0, 4.0)

Combine = Callable[[np.ndarray, np.ndarray, list[str]], list[int]]


def _by_score(scores: np.ndarray) -> list[int]:
    return sorted(range(len(scores)), key=lambda n: (-round(float(scores[n]), 12), n))


def _keep_first(margin: float) -> Combine:
    def run(scores: np.ndarray, x: np.ndarray, paths: list[str]) -> list[int]:
        ranked = _by_score(scores)
        if not len(ranked) or float(scores[ranked[0]]) - float(scores[0]) > margin:
            return ranked
        return [0, *(n for n in ranked if n != 0)]
    return run


@dataclass(frozen=True)
class _Chunk:
    kind: str
    path: str


@dataclass(frozen=True)
class _Pooled:
    chunk: _Chunk
    hand: object


def _keep_hand(columns: tuple[int, int], keep_text: bool, keep_file: float) -> Combine:
    """The ask's own rule (`controller.learned_rank.keep_hand`) on a row's columns: the
    candidate's kind (is_def) and whether the hand order holds it (hand_rr)."""
    from controller.learned_rank import keep_hand

    is_def, hand_rr = columns

    def run(scores: np.ndarray, x: np.ndarray, paths: list[str]) -> list[int]:
        pooled = [_Pooled(_Chunk("code_def" if x[n, is_def] else "code_module", paths[n]),
                          True if x[n, hand_rr] > 0 else None) for n in range(len(paths))]
        return keep_hand(pooled, [float(v) for v in scores], _by_score(scores), keep_text,
                         keep_file)
    return run


def _bonus(column: int, weight: float) -> Combine:
    def run(scores: np.ndarray, x: np.ndarray, paths: list[str]) -> list[int]:
        return _by_score(scores + weight * x[:, column])
    return run


def combinations(features: Sequence[str]) -> dict[str, Combine]:
    out: dict[str, Combine] = {
        "hand": lambda s, x, p: list(range(len(s))),
        "learned": lambda s, x, p: _by_score(s)}
    out.update({f"keep_first:{m:g}": _keep_first(m) for m in MARGINS})
    columns = (features.index("is_def"), features.index("hand_rr"))
    out.update({f"keep_file:{m:g}": _keep_hand(columns, False, m) for m in MARGINS})
    out.update({f"hand_bonus:{w:g}": _bonus(features.index("hand_rr"), w) for w in WEIGHTS})
    out.update({f"file_bonus:{w:g}": _bonus(features.index("file_rr"), w) for w in WEIGHTS})
    out["keep_text"] = _keep_hand(columns, True, -1.0)
    out.update({f"keep_text+keep_file:{m:g}": _keep_hand(columns, True, m) for m in MARGINS})
    return out


def _as_scores(orders: Sequence[list[int]]) -> np.ndarray:
    """Scores that sort each question's candidates into `orders` (ties: none)."""
    parts = []
    for order in orders:
        part = np.zeros(len(order), dtype=np.float64)
        part[order] = -np.arange(len(order), dtype=np.float64)
        parts.append(part)
    return np.concatenate(parts) if parts else np.zeros(0)


def corpus_metrics(combine: Combine, scores: np.ndarray, data: Any, routed: np.ndarray,
                   lead: int | None) -> dict[str, float]:
    """`evals.corpus.ranker_train.accuracy` of the combination's order, spread over files
    after the first `lead` as the ask spreads it (None: not spread; a question of a route the
    model does not order: the pool order)."""
    from controller.learned_rank import spread
    from evals.corpus.ranker_train import accuracy

    orders, at = [], 0
    for q, size in enumerate(data.group):
        part = scores[at:at + size]
        if not routed[q]:
            orders.append(list(range(size)))
        else:
            order = combine(part, data.x[at:at + size], data.files[q])
            orders.append(order if lead is None else spread(order, data.files[q], size, lead))
        at += size
    metrics = accuracy(_as_scores(orders), data)
    return {k: v for k, v in metrics.items()
            if k in ("function_acc@1", "function_acc@5", "function_acc@10", "file_acc@1",
                     "cases")}


@dataclass
class HistoryCase:
    repo: str
    held_out: bool
    route: str
    gold: list[str]
    x: np.ndarray
    paths: list[str]
    hand: list[bool]
    learned_files: list[str]
    hand_files: list[str]
    scores: np.ndarray


def load_history(directory: Path, model: Any) -> list[HistoryCase]:
    out: list[HistoryCase] = []
    for side_path in sorted(directory.glob("*.json")):
        side = json.loads(side_path.read_text(encoding="utf-8"))
        with np.load(side_path.with_suffix(".npz")) as data:
            x, group = data["x"], data["group"]
        scores = np.asarray(model.scores(x)) if len(x) else np.zeros(0)
        at = 0
        for case, size in zip(side["cases"], group, strict=True):
            cands = case["candidates"]
            out.append(HistoryCase(
                side["repo"], bool(side["held_out"]), case["route"], case["gold"],
                x[at:at + size], [c[0] for c in cands], [bool(c[4]) for c in cands],
                case["learned_files"], case["hand_files"], scores[at:at + size]))
            at += size
    return out


def evidence_files(order: Sequence[int], paths: Sequence[str], limit: int, lead: int
                   ) -> list[str]:
    """The files of the evidence the ask makes of `order` (`learned_rank.spread`)."""
    from controller.learned_rank import spread

    ranked = spread(list(order), list(paths), limit, lead)
    return list(dict.fromkeys(paths[n] for n in ranked))


def hand_files(case: HistoryCase, limit: int) -> list[str]:
    hand = [n for n, h in enumerate(case.hand) if h][:limit]
    return list(dict.fromkeys(case.paths[n] for n in hand))


def _ranks(files: Sequence[str], gold: Sequence[str]) -> tuple[int | None, int | None]:
    from evals.history.score import gold_ranks

    return gold_ranks(list(files), list(gold))


def history_metrics(ranks: Sequence[tuple[int | None, int | None]]) -> dict[str, float]:
    n = max(len(ranks), 1)
    out = {f"acc@{k}": round(sum(a is not None and a <= k for _, a in ranks) / n, 4)
           for k in KS}
    out["mrr"] = round(sum(1.0 / f for f, _ in ranks if f) / n, 4)
    out["cases"] = len(ranks)
    return out


def history_files(case: HistoryCase, combine: Combine | None,
                  routes: frozenset[str] | None, limit: int, lead: int) -> list[str]:
    """The files of the case's evidence: the hand order's (`combine` None, or a route the
    model does not order), else the combination's spread."""
    if combine is None or (routes is not None and case.route not in routes):
        return hand_files(case, limit)
    return evidence_files(combine(case.scores, case.x, case.paths), case.paths, limit, lead)


def history_groups(cases: Sequence[HistoryCase], combine: Combine | None,
                   routes: frozenset[str] | None, limit: int, lead: int
                   ) -> dict[str, dict[str, float]]:
    ranks = {"tuning": [], "held_out": []}  # type: dict[str, list[Any]]
    for case in cases:
        files = history_files(case, combine, routes, limit, lead)
        ranks["held_out" if case.held_out else "tuning"].append(_ranks(files, case.gold))
    return {group: history_metrics(r) for group, r in ranks.items() if r}


def skew(cases: Sequence[HistoryCase], routes: frozenset[str] | None, limit: int,
         lead: int) -> dict[str, Any]:
    """How many cases' offline evidence files equal the live asks' (first file, first 10)."""
    learned = _by_score_combine()
    same = {"learned_first": 0, "learned_top10": 0, "hand_first": 0, "hand_top10": 0}
    differ: list[str] = []
    for case in cases:
        mine = history_files(case, learned, routes, limit, lead)
        hand = hand_files(case, limit)
        same["learned_first"] += mine[:1] == case.learned_files[:1]
        same["learned_top10"] += mine[:10] == case.learned_files[:10]
        same["hand_first"] += hand[:1] == case.hand_files[:1]
        same["hand_top10"] += hand[:10] == case.hand_files[:10]
        if mine[:10] != case.learned_files[:10]:
            differ.append(case.repo)
    return {**same, "cases": len(cases), "learned_top10_differ_by_repo": {
        r: differ.count(r) for r in sorted(set(differ))}}


def causes(cases: Sequence[HistoryCase], routes: frozenset[str] | None, limit: int,
           lead: int, features: Sequence[str]) -> dict[str, dict[str, int]]:
    """The tuning repositories' cases where the hand order puts a changed file first and the
    model's order does not (hand_wins), and the reverse (learned_wins), counted by what is
    true of them: the hand order's first item is not a definition (the corpus's targets
    always are); the model's first candidate is not in the hand order (the pool's widening
    brought it); it carries a higher history score (hist_bm25) or more commits than the best
    candidate of the changed file; the changed file has no candidate."""
    col = {name: features.index(name) for name in (
        "is_def", "hand_rr", "hist_bm25", "hist_commits")}
    learned = _by_score_combine()
    out: dict[str, dict[str, int]] = {"hand_wins": {}, "learned_wins": {}}
    for case in cases:
        if case.held_out:
            continue
        hand_hit = _ranks(hand_files(case, limit), case.gold)[1] == 1
        mine_hit = _ranks(history_files(case, learned, routes, limit, lead), case.gold)[1] == 1
        if hand_hit == mine_hit:
            continue
        group = out["hand_wins" if hand_hit else "learned_wins"]
        x, order = case.x, _by_score(case.scores)
        top = order[0]
        gold = next((n for n in order if case.paths[n] in case.gold), None)
        flags = ["all"]
        if not x[0, col["is_def"]]:
            flags.append("hand_first_not_a_definition")
        if not x[top, col["hand_rr"]]:
            flags.append("model_first_not_in_hand_order")
        if gold is None:
            flags.append("changed_file_no_candidate")
        elif top != gold:
            if x[top, col["hist_bm25"]] > x[gold, col["hist_bm25"]]:
                flags.append("model_first_higher_history_score")
            if x[top, col["hist_commits"]] > x[gold, col["hist_commits"]]:
                flags.append("model_first_more_commits")
        for flag in flags:
            group[flag] = group.get(flag, 0) + 1
    return out


def same_rows(mine: Path, other: Path) -> dict[str, dict[str, int]]:
    """Per repository of both history rows directories: cases, cases with the same
    candidates, cases with identical rows (every cell), and within 1e-9."""
    out: dict[str, dict[str, int]] = {}
    for side_path in sorted(mine.glob("*.json")):
        theirs = other / side_path.name
        if not theirs.is_file():
            continue
        cases = []
        for path in (side_path, theirs):
            side = json.loads(path.read_text(encoding="utf-8"))
            with np.load(path.with_suffix(".npz")) as data:
                x, group = data["x"], data["group"]
            starts = np.concatenate([[0], np.cumsum(group)[:-1]]).astype(np.int64)
            cases.append([(c["candidates"], x[a:a + g]) for c, a, g in
                          zip(side["cases"], starts, group, strict=True)])
        same = [a[0] == b[0] for a, b in zip(*cases, strict=True)]
        pairs = [(a[1], b[1]) for s, a, b in zip(same, *cases, strict=True)
                 if s and a[1].shape == b[1].shape]
        out[side_path.stem] = {
            "cases": len(same), "same_candidates": sum(same),
            "identical_rows": sum(bool(np.all(a == b)) for a, b in pairs),
            # a sum over a set of words (hist_bm25) may differ in its last bits between
            # processes: string hashes, and so the set's order, differ
            "rows_within_1e-9": sum(bool(np.all(np.abs(a - b) <= 1e-9)) for a, b in pairs)}
    return out


def _by_score_combine() -> Combine:
    return lambda s, x, p: _by_score(s)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rows", type=Path, required=True)
    parser.add_argument("--history-rows", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--test-rows", type=Path, default=None)
    parser.add_argument("--combination", default=None)
    parser.add_argument("--compare-rows", type=Path, action="append", default=[],
                        metavar="DIR", help="other history rows of the same cases: how many "
                        "cases have the same candidates and identical rows")
    parser.add_argument("--combinations", default=None,
                        help="comma-separated combinations to score (default: every one)")
    parser.add_argument("--leads", default=None,
                        help="comma-separated `retrieval.ranker.lead` values to try "
                             "(default: the configured one)")
    args = parser.parse_args()
    if args.test_rows is not None and args.combination is None:
        parser.error("--test-rows reads the test split once: name the one --combination")

    from controller.rank_features import FEATURES
    from controller.rank_step import SHIPPED_MANIFEST, load_ranker
    from evals.corpus.build import load_cases
    from evals.corpus.ranker_train import split_groups
    from evals.corpus.repos import load_repo_list
    from helix.core.config import load_config

    started, cpu = time.monotonic(), time.process_time()
    load_start = load_average()
    config = load_config(None)
    policy = config.retrieval.ranker
    ranker = load_ranker(policy)
    limit, lead = config.retrieval.max_evidence, policy.lead
    combos = combinations(FEATURES)
    if args.combinations:
        wanted = ["hand", "learned", *args.combinations.split(",")]
        unknown = sorted(set(wanted) - set(combos))
        if unknown:
            parser.error(f"unknown combinations: {', '.join(unknown)}")
        combos = {name: combos[name] for name in dict.fromkeys(wanted)}
    listing = load_repo_list(ROOT / "data" / "evals" / "corpus_repos.json")
    cases = load_cases(ROOT / "data" / "corpus" / "cases.jsonl")
    repos = [(e.name, e.split) for e in listing.repos]

    leads = ([int(v) for v in args.leads.split(",")] if args.leads else [lead])
    chosen, _, chosen_lead = (args.combination or "").partition("@")
    if chosen_lead:  # a combination named with its lead: name@lead
        leads = [int(chosen_lead)]

    def named(names: Sequence[str]) -> list[tuple[str, str, int]]:
        """(result key, combination, lead): the hand order once, the rest at every lead."""
        out = [("hand", "hand", lead)] if "hand" in names else []
        for name in names:
            if name != "hand":
                out.extend((name if len(leads) == 1 else f"{name}@{v}", name, v)
                           for v in leads)
        return out

    def corpus(split: str, rows: Path, names: Sequence[str]) -> dict[str, Any]:
        data = split_groups(rows, cases, split, repos)
        scores = np.asarray(ranker.model.scores(data.x))
        # every corpus question ordered by the model, as train-ranker scores them (the rows
        # carry no route name; 99% of the corpus's messages take the `issue` route)
        routed = np.ones(len(data.group), dtype=bool)
        return {key: corpus_metrics(combos[name], scores, data, routed,
                                    None if name == "hand" else v)
                for key, name, v in named(names)}

    history = load_history(args.history_rows, ranker.model)
    result: dict[str, Any] = {
        "benchmark": "ranker_combine",
        "command": shlex.join(["python", "benchmarks/ranker_combine.py", *sys.argv[1:]]),
        "model": str(SHIPPED_MANIFEST.relative_to(ROOT)), "model_digest": ranker.digest,
        "rows": str(args.rows), "history_rows": str(args.history_rows), "leads": leads,
        "skew": skew(history, ranker.routes, limit, lead),
        "causes": causes(history, ranker.routes, limit, lead, FEATURES),
        "same_rows": {str(d): same_rows(args.history_rows, d) for d in args.compare_rows}}
    if args.test_rows is not None:
        result["test"] = corpus("test", args.test_rows, ["hand", "learned", chosen])
    else:
        result["validation"] = corpus("validation", args.rows, list(combos))
        result["history"] = {
            key: history_groups(history, None if name == "hand" else combos[name],
                                ranker.routes, limit, v)
            for key, name, v in named(list(combos))}
    result.update({"load_average": {"start": load_start, "end": load_average()},
                   "cpu_s": round(time.process_time() - cpu, 1),
                   "wall_s": round(time.monotonic() - started, 1)})
    write_result(args.out, result, indent=1)
    for key in result.get("validation", {}):
        v, h = result["validation"][key], result["history"][key]
        print(f"{key:28s} val {v['function_acc@1']:.3f}/{v['function_acc@5']:.3f}/"
              f"{v['function_acc@10']:.3f} file@1 {v['file_acc@1']:.3f} | tuning "
              + " ".join(f"{h.get('tuning', {}).get(f'acc@{k}', 0):.3f}" for k in KS)
              + " | held " + " ".join(f"{h.get('held_out', {}).get(f'acc@{k}', 0):.3f}"
                                      for k in KS), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
