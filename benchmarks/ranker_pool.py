"""The learned ranker's candidate pool (issue 31): how often is a changed definition (and its
file) among the candidates at all, by route and by what the message names, and how much of
that a budget keeps when the pool is cut by the cheap score (`controller.rank_features.select`)
instead of in the order the candidates were found?

    python benchmarks/ranker_pool.py --collect DIR [--split validation] [--ranker JSON]
        [--trees DIR] [--only NAME ...]
    python benchmarks/ranker_pool.py --probe DIR [--split validation] [--caps 160,240]
        [--weights JSON ...] [--out FILE]

`--collect` asks every case of the split (train or validation: the test split is refused, it
is read only for a shipped change) through `helix.service.ask` with the learned ranker's
candidates recorded (`evals.corpus.features.Recorder`), under the `retrieval.ranker` keys of
`--ranker` (e.g. `{"max_candidates": 10000, "considered": 10000, "files": 12}`: every
candidate, uncut), and writes DIR/<repo>.json (each candidate's path, symbol, lines, source
and whether it is a target) and DIR/<repo>.npy (its feature row). Use a HELIX_HOME of its own
(`index.history_commits = 1000`, as the rows were collected).

The report reads such probes (keyed by the directory's name): for each cap, the share of
cases whose every target definition (and every target file) is among the first `cap`
candidates in the order found (the cut before the budget) and among the `cap` that `select`
keeps for each weight setting (its score recomputed from the rows' columns: `bm25_q`,
`body_score`, `name_idf_share`, `file_rr`, the same sums), overall, by route (the rows'
`q_route`) and by what the message names (an error or stack frame, a path, an identifier,
nothing: `controller.issue_text`, `controller.route`). Writes
benchmarks/results/ranker_pool.json with the command and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "ranker_pool.json"
TREES = Path("/work/tmp/corpus_trees_h")
DEFAULT_WEIGHTS = ({"bm25": 1.0, "body": 1.0, "name": 1.0, "file": 0.5},
                   {"bm25": 2.0, "body": 1.0, "name": 1.0, "file": 0.5})
_PATH = re.compile(r"\b[\w.-]+/[\w./-]+|\b[\w-]+\.(?:py|rs|go|js|ts|tsx|jsx|java|mjs|cjs|kt)\b")


def _cases() -> dict[str, Any]:
    from evals.corpus.build import load_cases

    return {c.id: c for c in load_cases(ROOT / "data" / "corpus" / "cases.jsonl")}


def collect(out: Path, split: str, ranker: Mapping[str, Any], trees: Path,
            only: Sequence[str]) -> None:
    import sqlite_utils

    from evals.corpus.features import Recorder
    from evals.corpus.policy import index_tree, is_target
    from evals.corpus.repos import load_repo_list
    from helix.runlog import RunLog
    from helix.service import ask

    listing = load_repo_list(ROOT / "data" / "evals" / "corpus_repos.json")
    cases = list(_cases().values())
    overrides = {"index.history_commits": 1000,
                 "retrieval.ranker": {"mode": "learned", **ranker}}
    out.mkdir(parents=True, exist_ok=True)
    for entry in listing.repos:
        if entry.split != split or (only and entry.name not in only):
            continue
        mine = [c for c in cases if c.repo == entry.name]
        if not mine or (out / f"{entry.name}.json").is_file():
            continue
        _index, config, _s = index_tree(trees / entry.name, overrides)
        runlog = RunLog(sqlite_utils.Database(memory=True))
        records, rows = [], []
        for case in mine:
            recorder = Recorder()
            ask(case.message, root=trees / entry.name, config=config, dry_run=True,
                runlog=runlog, notify=lambda _line: None, ranker=recorder)
            records.append({"id": case.id, "candidates": [
                [p.chunk.path, p.chunk.symbol or "", p.chunk.start_line, p.chunk.end_line,
                 p.source, int(any(is_target(p.chunk, t) for t in case.targets))]
                for p in recorder.pooled]})
            rows.extend(recorder.rows)
        runlog.close()
        np.save(out / f"{entry.name}.npy", np.asarray(rows, dtype=np.float64))
        tmp = out / f"{entry.name}.json.tmp"
        tmp.write_text(json.dumps({"repo": entry.name, "split": split, "cases": records}),
                       encoding="utf-8")
        tmp.replace(out / f"{entry.name}.json")
        print(f"{entry.name}: {len(records)} cases", flush=True)


def names_what(message: str) -> str:
    """What a message names: an error or stack frame, a path, an identifier, or nothing."""
    from controller.issue_text import frame_names, frame_paths
    from controller.route import route_question
    from controller.text import is_identifier
    from helix.core.policy import RoutingPolicy

    if frame_paths(message) or frame_names(message) or re.search(
            r"\b[A-Z]\w*(?:Error|Exception)\b|panicked at", message):
        return "error"
    if _PATH.search(message):
        return "path"
    plan = route_question(message, routing=RoutingPolicy())
    if any(is_identifier(t) for t in plan.intent.terms):
        return "identifier"
    return "nothing"


def _covered(candidates: Sequence[Sequence[Any]], case: Any) -> tuple[bool, bool]:
    found = set()
    for path, symbol, start, end, *_rest in candidates:
        for n, t in enumerate(case.targets):
            if path == t.path and symbol == t.qualname and start <= t.end and end >= t.start:
                found.add(n)
    files = {c[0] for c in candidates}
    return len(found) == len(case.targets), {t.path for t in case.targets} <= files


Order = Callable[[list[list[Any]], np.ndarray], list[int]]


def by_select(weights: Mapping[str, float]) -> Order:
    """The candidates `select` keeps first: the hand order's, then the others by the cheap
    score (descending; ties: pool order)."""
    from controller.rank_features import FEATURES

    col = {f: FEATURES.index(f) for f in ("bm25_q", "body_score", "name_idf_share", "file_rr")}

    def order(candidates: list[list[Any]], x: np.ndarray) -> list[int]:
        hand = [n for n, c in enumerate(candidates) if c[4] == "hand"]
        rest = [n for n, c in enumerate(candidates) if c[4] != "hand"]
        if not rest:
            return hand
        part = x[rest]
        score = (weights["bm25"] * part[:, col["bm25_q"]]
                 + weights["body"] * part[:, col["body_score"]]
                 + weights["name"] * part[:, col["name_idf_share"]]
                 + weights["file"] * part[:, col["file_rr"]])
        return hand + [rest[i] for i in np.lexsort((np.arange(len(rest)), -score))]
    return order


def report(probe: Path, split: str, caps: Sequence[int],
           weights: Sequence[Mapping[str, float]]) -> dict[str, Any]:
    from controller.rank_features import FEATURES, ROUTES

    cases = _cases()
    route_col = FEATURES.index("q_route")
    orders: dict[str, Order] = {"found": lambda cands, _x: list(range(len(cands)))}
    for w in weights:
        orders["select " + json.dumps(w, sort_keys=True)] = by_select(w)
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    sizes: list[int] = []
    sources: Counter[str] = Counter()
    for side in sorted(probe.glob("*.json")):
        data = json.loads(side.read_text(encoding="utf-8"))
        if data["split"] != split:
            continue
        x_all = np.load(side.with_suffix(".npy"))
        at = 0
        for entry in data["cases"]:
            cands = entry["candidates"]
            x = x_all[at:at + len(cands)]
            at += len(cands)
            case = cases[entry["id"]]
            sizes.append(len(cands))
            sources.update(c[4] for c in cands if c[5])
            route = ROUTES[int(x[0, route_col])] if len(cands) and int(
                x[0, route_col]) < len(ROUTES) else "other"
            groups = ("all", f"names:{names_what(case.message)}", f"route:{route}",
                      f"language:{case.language}")
            whole = _covered(cands, case)
            for g in groups:
                counts[g]["cases"] += 1
                counts[g]["uncut def"] += whole[0]
                counts[g]["uncut file"] += whole[1]
            for name, order in orders.items():
                ranked = order(cands, x)
                for cap in caps:
                    got = _covered([cands[i] for i in ranked[:cap]], case)
                    for g in groups:
                        counts[g][f"{name} @{cap} def"] += got[0]
                        counts[g][f"{name} @{cap} file"] += got[1]
    table = {g: {"cases": c["cases"], **{k: round(v / c["cases"], 4) for k, v in c.items()
                                         if k != "cases"}} for g, c in sorted(counts.items())}
    sizes.sort()
    return {"split": split, "caps": list(caps), "groups": table,
            "pool_size": {"median": sizes[len(sizes) // 2] if sizes else 0,
                          "p90": sizes[int(len(sizes) * 0.9)] if sizes else 0,
                          "max": sizes[-1] if sizes else 0},
            "target_candidates_by_source": dict(sorted(sources.items()))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--collect", type=Path, default=None)
    parser.add_argument("--probe", type=Path, action="append", default=[])
    parser.add_argument("--split", default="validation", choices=("train", "validation"))
    parser.add_argument("--ranker", default="{}")
    parser.add_argument("--trees", type=Path, default=TREES)
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--caps", default="160,240")
    parser.add_argument("--weights", action="append", default=[])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if args.collect is not None:
        collect(args.collect, args.split, json.loads(args.ranker), args.trees, args.only)
        return 0
    load = os.getloadavg()
    started = time.process_time()
    weights = [json.loads(w) for w in args.weights] or list(DEFAULT_WEIGHTS)
    caps = [int(c) for c in args.caps.split(",")]
    result: dict[str, Any] = {
        "benchmark": "ranker_pool",
        "command": shlex.join(["python", "benchmarks/ranker_pool.py", *sys.argv[1:]]),
        "load_average": [round(v, 2) for v in load],
        "probe_dirs": {p.name: str(p) for p in args.probe},
        "probes": {p.name: report(p, args.split, caps, weights) for p in args.probe},
        "cpu_s": round(time.process_time() - started, 1)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps({p: r["groups"]["all"] for p, r in result["probes"].items()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
