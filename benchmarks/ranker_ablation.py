"""What each source adds to the learned ranker on its own (issue 31): an ablation on the
validation split, the candidates' order scored offline (function and file Acc@k).

    python benchmarks/ranker_ablation.py --rows DIR --manifest data/ranker/manifest.json
        [--test-rows DIR] [--models DIR] [--out FILE]

Every variant is retrained with the shipped model's parameters (read from its manifest; no grid
again), at most its number of trees (the best count on validation): all features; without the
history field (its features and the candidates only it brought); without the calls graph's
features (calls in and out, tests, PageRank, nearness to named definitions); and the hand order
itself. (The association table was a variant too until it was retired: it added nothing,
validation file Acc@1 0.440 without it against 0.443 with it, function Acc@5 0.414 against
0.405.) `all` retrained from the shipped model's rows scores as it does (the manifest's
validation figures); `all_is_shipped` says whether the model text is byte-identical too (it was
not on 2026-11-29: same figures, another digest). The result carries the command, the load
average at the start and the end, and the CPU seconds.
With `--test-rows DIR` (`helix eval corpus ranker-rows --split test`), the same models
are also scored on the test split, reported apart: nothing is chosen on it. `--models DIR`
keeps each variant's model (DIR/<variant>/). Writes benchmarks/results/ranker_ablation.json.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "ranker_ablation.json"
VARIANTS: dict[str, tuple[str, ...]] = {
    "all": (), "without_history": ("history",), "without_graph": ("graph",),
}


def pool_recall(data: Any) -> float:
    at = hits = 0
    for q, size in enumerate(data.group):
        found = data.target_of[at:at + size]
        hits += len(set(found[found >= 0].tolist())) == data.targets[q]
        at += size
    return round(hits / max(len(data.group), 1), 4)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rows", type=Path, required=True)
    parser.add_argument("--manifest", type=Path, default=ROOT / "data" / "ranker" /
                        "manifest.json")
    parser.add_argument("--test-rows", type=Path, default=None)
    parser.add_argument("--models", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    from controller.rank_features import FEATURE_GROUPS, FEATURES
    from evals.corpus.build import load_cases
    from evals.corpus.ranker_train import (
        accuracy,
        hand_scores,
        masked,
        split_groups,
        train,
        without_sources,
        write_model,
    )
    from evals.corpus.repos import load_repo_list
    from helix.core.hashing import digest

    shipped = json.loads(args.manifest.read_text(encoding="utf-8"))
    params = {k: shipped["params"][k] for k in ("num_leaves", "learning_rate",
                                                 "min_data_in_leaf")}
    params["labels"] = shipped["params"].get("labels", "binary")
    cases = load_cases(ROOT / "data" / "corpus" / "cases.jsonl")
    listing = load_repo_list(ROOT / "data" / "evals" / "corpus_repos.json")
    repos = [(e.name, e.split) for e in listing.repos]
    train_all = split_groups(args.rows, cases, "train", repos)
    valid_all = split_groups(args.rows, cases, "validation", repos)
    results: dict[str, Any] = {"benchmark": "ranker_ablation", "split": "validation",
                               "params": params, "trees": shipped["trees"],
                               "command": shlex.join(["python", *sys.argv]),
                               "model_digest": shipped["model_digest"]}
    load_start, started = os.getloadavg(), time.process_time()
    hand = without_sources(valid_all, ("history",))
    results["hand"] = {**accuracy(hand_scores(hand), hand), "pool_recall": pool_recall(hand)}
    test_all = None
    if args.test_rows is not None:
        test_all = split_groups(args.test_rows, cases, "test", repos)
        hand_t = without_sources(test_all, ("history",))
        results["test"] = {"hand": {**accuracy(hand_scores(hand_t), hand_t),
                                    "pool_recall": pool_recall(hand_t)}}
    print(json.dumps({"hand": results["hand"]}), flush=True)
    import evals.corpus.ranker_train as trainer

    trainer.MAX_ROUNDS = int(shipped["trees"])  # the shipped model's trees, no early choice
    trainer.PATIENCE = trainer.MAX_ROUNDS + 1
    for name, groups in VARIANTS.items():
        dropped = {f for g in groups for f in FEATURE_GROUPS[g]}
        columns = [n for n, f in enumerate(FEATURES) if f not in dropped]
        train_data = without_sources(train_all, groups)
        valid = without_sources(valid_all, groups)
        chosen = train(train_data, valid, columns, grid=(params,))
        results[name] = {**chosen["validation"], "pool_recall": pool_recall(valid),
                         "trees": chosen["trees"]}
        if name == "all":
            results["all_is_shipped"] = digest(chosen["text"].encode("utf-8")) == \
                shipped["model_digest"]
        if test_all is not None:
            import lightgbm as lgb

            test = without_sources(test_all, groups)
            booster = lgb.Booster(model_str=chosen["text"])
            results["test"][name] = {**accuracy(booster.predict(masked(test.x, columns)), test),
                                     "pool_recall": pool_recall(test)}
        if args.models is not None:
            write_model(args.models / name, chosen["text"],
                        {"variant": name, "without": list(groups)})
        print(json.dumps({name: results[name]}), flush=True)
    results["load_average"] = {"start": [round(v, 2) for v in load_start],
                               "end": [round(v, 2) for v in os.getloadavg()]}
    results["cpu_s"] = round(time.process_time() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
