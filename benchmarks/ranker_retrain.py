"""Models of the learned ranker compared on the same validation rows (issue 31): the shipped
model against models retrained on rows collected with another candidate pool.

    python benchmarks/ranker_retrain.py --rows DIR --model NAME=MODEL_DIR [--model ...]
        [--out FILE]

Each MODEL_DIR holds a LightGBM text model (model.txt; `helix eval corpus train-ranker
--out` writes one with its manifest, whose parameters and trees the result repeats). Every
model scores the validation split's rows under DIR offline (`helix eval corpus ranker-rows`:
every candidate of every case, as the ask saw them), and the candidates' order is scored as
`train-ranker` scores it (function and file Acc@1/5/10; `evals.corpus.ranker_train.accuracy`),
beside the hand order (the pool order), and file Acc@1 of a few file-level decisions made on
its scores (`file_decisions`: the hand order's first file unless the model is confident, the
largest softmax mass, a vote of the first k). The test split is never read. The result carries the
command, the load average at the start and the end and the CPU seconds. Writes
benchmarks/results/ranker_retrain.json.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import load_average, write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "ranker_retrain.json"


def _model_arg(text: str) -> tuple[str, Path]:
    name, eq, path = text.partition("=")
    if not eq or not name or not path:
        raise argparse.ArgumentTypeError(f"--model takes NAME=MODEL_DIR, not {text!r}")
    return name, Path(path)


def _described(directory: Path) -> dict[str, Any]:
    """What the model's manifest says of it (parameters, trees, its own validation figures)."""
    manifest = directory / "manifest.json"
    if not manifest.is_file():
        return {}
    data = json.loads(manifest.read_text(encoding="utf-8"))
    return {"params": {k: data["params"][k] for k in (
        "labels", "num_leaves", "learning_rate", "min_data_in_leaf") if k in data["params"]},
        "trees": data.get("trees"), "model_digest": data.get("model_digest")}


# file-level decisions tried on the definition scores (the evidence's first file): the hand
# order's first file kept unless the model's best file leads it by more than a margin; the
# file with the largest softmax mass of its candidates' scores (a temperature); the file with
# the most candidates among the model's first k
MARGINS = (0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0)
TEMPERATURES = (0.25, 0.5, 1.0, 2.0)
VOTES = (3, 5, 10)


def _first_file(scores: Any, files: list[str], rule: str, arg: float) -> str:
    import math

    order = sorted(range(len(scores)), key=lambda n: (-round(float(scores[n]), 12), n))
    if rule == "model":
        return files[order[0]]
    if rule == "hand_unless":
        best: dict[str, float] = {}
        for n in order:
            best.setdefault(files[n], float(scores[n]))
        top = files[order[0]]
        return top if best[top] - best[files[0]] > arg else files[0]
    place: dict[str, int] = {}
    for n in order:
        place.setdefault(files[n], len(place))
    weight: dict[str, float] = {}
    if rule == "mass":
        lead = float(scores[order[0]])
        for n in order:
            weight[files[n]] = weight.get(files[n], 0.0) + math.exp(
                (float(scores[n]) - lead) / arg)
    else:  # vote
        for n in order[:int(arg)]:
            weight[files[n]] = weight.get(files[n], 0.0) + 1.0
    return max(weight, key=lambda f: (weight[f], -place[f]))


def file_decisions(scores: Any, data: Any) -> dict[str, float]:
    """File Acc@1 of each decision (a question changing two files never counts)."""
    rules = [("model", 0.0), *(("hand_unless", m) for m in MARGINS),
             *(("mass", t) for t in TEMPERATURES), *(("vote", float(k)) for k in VOTES)]
    hits = dict.fromkeys(rules, 0)
    at = 0
    for q, size in enumerate(data.group):
        wanted = data.target_files[q]
        for rule in rules:
            first = _first_file(scores[at:at + size], data.files[q], *rule)
            hits[rule] += len(wanted) == 1 and first == wanted[0]
        at += size
    cases = max(len(data.group), 1)
    return {f"{rule} {arg:g}": round(n / cases, 4) for (rule, arg), n in hits.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rows", type=Path, required=True)
    parser.add_argument("--model", type=_model_arg, action="append", required=True)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    import lightgbm as lgb
    import numpy as np

    from evals.corpus.build import load_cases
    from evals.corpus.ranker_train import accuracy, hand_scores, split_groups
    from evals.corpus.repos import load_repo_list

    started, cpu = time.monotonic(), time.process_time()
    load_start = load_average()
    listing = load_repo_list(ROOT / "data" / "evals" / "corpus_repos.json")
    cases = load_cases(ROOT / "data" / "corpus" / "cases.jsonl")
    valid = split_groups(args.rows, cases, "validation",
                         [(e.name, e.split) for e in listing.repos])
    models: dict[str, Any] = {}
    for name, directory in args.model:
        booster = lgb.Booster(model_file=str(directory / "model.txt"))
        scores = np.asarray(booster.predict(valid.x))
        models[name] = {**_described(directory), "validation": accuracy(scores, valid),
                        "validation_file_acc@1_by_decision": file_decisions(scores, valid)}
        print(name, json.dumps(models[name]["validation"]), flush=True)
    result = {
        "benchmark": "ranker_retrain", "split": "validation",
        "command": shlex.join(["python", "benchmarks/ranker_retrain.py", *sys.argv[1:]]),
        "rows": str(args.rows), "hand_order": accuracy(hand_scores(valid), valid),
        "models": models,
        "load_average": {"start": load_start, "end": load_average()},
        "cpu_s": round(time.process_time() - cpu, 1),
        "wall_s": round(time.monotonic() - started, 1)}
    write_result(args.out, result, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
