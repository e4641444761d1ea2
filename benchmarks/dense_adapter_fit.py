"""Fit the dense channel's query-side adapter on the corpus's train split and choose it on
validation by the rule in docs/ranker.md ("Round 31"); measure the choice once on test.

    python benchmarks/dense_adapter_fit.py point --rank 16 --l2 0.01   # each grid point
    python benchmarks/dense_adapter_fit.py choose \
        --out benchmarks/results/dense_adapter_round31.json
    python benchmarks/dense_adapter_fit.py test \
        --result benchmarks/results/dense_adapter_round31.json

Reads the sets `benchmarks/dense_corpus.py embed` wrote under /work/tmp/rank31. `point` fits
one grid point on train and reads validation at the checkpoint steps; `choose` applies the
choice rule over the points and writes the chosen adapter (U, V) to
/work/tmp/rank31/chosen.npz. `test` adds the corpus test split's figures for the identity
and the chosen adapter (nothing is chosen there).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "evals"), str(ROOT / "benchmarks")]

from dense_corpus import WORK, dense_ranks, load_set, split_names  # noqa: E402

from evals.corpus.dense_adapter import FitConfig, RepoSet, adapter_matrix, fit  # noqa: E402
from evals.corpus.dense_cards import rank_summary  # noqa: E402

RANKS = (16, 64)
L2S = (0.01, 0.1)
STEPS = (25, 50, 100, 200)
LR = 2e-3
OTHERS = 100  # sampled other cards per case, besides its gold and BM25's top 30 cards
MIN_ACC5_GAIN = 0.03


def repo_sets(split: str) -> dict[str, dict[str, np.ndarray]]:
    return {name: load_set(name) for name in split_names(split)}


def measure(sets: dict[str, dict[str, np.ndarray]], matrix: np.ndarray | None
            ) -> dict[str, Any]:
    pooled: list[int] = []
    per_repo: dict[str, Any] = {}
    for name, data in sets.items():
        ranks = dense_ranks(data, matrix)
        per_repo[name] = rank_summary(ranks)
        pooled += ranks
    return {"pooled": rank_summary(pooled), "per_repo": per_repo}


def _key(point: dict[str, Any]) -> tuple[float, int, float, int]:
    return (-point["validation"]["pooled"]["mrr"], point["rank"], -point["l2"], point["steps"])


def clearly(base: dict[str, Any], point: dict[str, Any]) -> bool:
    b, p = base["pooled"], point["pooled"]
    losing = sum(1 for name, row in point["per_repo"].items()
                 if row["mrr"] < base["per_repo"][name]["mrr"])
    return (p["acc@5"] - b["acc@5"] >= MIN_ACC5_GAIN and p["mrr"] > b["mrr"]
            and losing <= len(point["per_repo"]) / 3)


def _uv_path(rank: int, l2: float, steps: int) -> Path:
    return WORK / f"uv_r{rank}_l{l2}_s{steps}.npz"


def cmd_point(args: argparse.Namespace) -> None:
    """Fit one (rank, l2) on train; validation at each checkpoint, to WORK/point_*.json."""
    train = repo_sets("train")
    val = repo_sets("validation")
    train_sets = [RepoSet(d["cards"], d["queries"], d["gold"], d["hard"])
                  for d in train.values()]
    started = time.monotonic()
    config = FitConfig(rank=args.rank, l2=args.l2, steps=max(STEPS), lr=LR, others=OTHERS)
    points = []
    for steps, (u, v) in sorted(fit(train_sets, config, at=STEPS).items()):
        mat = adapter_matrix(u, v)
        np.savez(_uv_path(args.rank, args.l2, steps), u=u, v=v)
        points.append({"rank": args.rank, "l2": args.l2, "steps": steps,
                       "train": measure(train, mat)["pooled"],
                       "validation": measure(val, mat)})
    out = WORK / f"point_r{args.rank}_l{args.l2}.json"
    out.write_text(json.dumps(points, sort_keys=True) + "\n", "utf-8")
    print(json.dumps({"rank": args.rank, "l2": args.l2, "seconds":
                      round(time.monotonic() - started, 1),
                      "val": [p["validation"]["pooled"] for p in points]}), flush=True)


def cmd_choose(args: argparse.Namespace) -> None:
    """The rule over every grid point's file; the chosen (U, V) to WORK/chosen.npz."""
    train = repo_sets("train")
    val = repo_sets("validation")
    base = {"train": measure(train, None), "validation": measure(val, None)}
    points: list[dict[str, Any]] = []
    missing = []
    for rank in RANKS:
        for l2 in L2S:
            path = WORK / f"point_r{rank}_l{l2}.json"
            if path.is_file():
                points += json.loads(path.read_text("utf-8"))
            else:
                missing.append({"rank": rank, "l2": l2})
    best = min(points, key=_key)
    with np.load(_uv_path(best["rank"], best["l2"], best["steps"])) as data:
        np.savez(WORK / "chosen.npz", u=data["u"], v=data["v"])
    out = {"train_repos": sorted(train), "validation_repos": sorted(val), "identity": base,
           "points": points, "chosen": {k: best[k] for k in ("rank", "l2", "steps")},
           "gains_clearly": clearly(base["validation"], best["validation"]),
           "fit": {"lr": LR, "others": OTHERS, "steps": list(STEPS)}, "not_run": missing}
    Path(args.out).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", "utf-8")
    print(json.dumps({"chosen": out["chosen"], "gains_clearly": out["gains_clearly"],
                      "identity": base["validation"]["pooled"],
                      "adapter": best["validation"]["pooled"]}))


def cmd_test(args: argparse.Namespace) -> None:
    result = json.loads(Path(args.result).read_text("utf-8"))
    with np.load(WORK / "chosen.npz") as data:
        mat = adapter_matrix(data["u"], data["v"])
    test = repo_sets("test")
    bm25 = [int(r) for d in test.values() for r in d["bm25_ranks"]]
    result["test"] = {"repos": sorted(test), "identity": measure(test, None),
                      "adapter": measure(test, mat), "bm25": rank_summary(bm25)}
    Path(args.result).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", "utf-8")
    print(json.dumps({k: result["test"][k]["pooled"] for k in ("identity", "adapter")}
                     | {"bm25": result["test"]["bm25"]}))


FIT_FILES = ("evals/corpus/dense_adapter.py", "evals/corpus/dense_cards.py",
             "benchmarks/dense_adapter_fit.py", "benchmarks/dense_corpus.py", "indexers/dense.py")


def cmd_ship(args: argparse.Namespace) -> None:
    """controller/dense_adapter_model/ (shipped with Helix, read by controller.dense_adapter):
    the chosen (U, V) as one .npy (2, d, r) and its manifest (corpus hash, the fitting code's
    digest, the choice, metrics per split)."""
    from helix.core.hashing import digest

    result = json.loads(Path(args.result).read_text("utf-8"))
    with np.load(WORK / "chosen.npz") as data:
        stacked = np.stack([data["u"], data["v"]]).astype("<f4")
    out = ROOT / "controller" / "dense_adapter_model"
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / "adapter.npy.tmp"
    with tmp.open("wb") as handle:
        np.save(handle, stacked, allow_pickle=False)
    tmp.replace(out / "adapter.npy")
    corpus = json.loads((ROOT / "data/corpus/manifest.json").read_text("utf-8"))
    chosen = result["chosen"]
    best = next(p for p in result["points"] if all(p[k] == chosen[k] for k in chosen))
    manifest = {
        "description": "Query-side adapter of the dense channel: q -> q (I + U V^T), "
                       "renormalised; fitted on the history corpus's train split "
                       "(docs/ranker.md, Round 31).",
        "file": "adapter.npy", "file_digest": digest((out / "adapter.npy").read_bytes()),
        "corpus_hash": corpus["corpus_hash"],
        "code_digest": digest(b"".join(n.encode() + b"\0" + (ROOT / n).read_bytes()
                                       for n in FIT_FILES)),
        "chosen": chosen, "fit": result["fit"], "gains_clearly": result["gains_clearly"],
        "metrics": {"train": {"identity": result["identity"]["train"]["pooled"],
                              "adapter": best["train"]},
                    "validation": {"identity": result["identity"]["validation"]["pooled"],
                                   "adapter": best["validation"]["pooled"]},
                    "test": {k: result["test"][k]["pooled"] for k in ("identity", "adapter")}
                    if "test" in result else None},
        "repositories": {"train": result["train_repos"],
                         "validation": result["validation_repos"],
                         "test": result.get("test", {}).get("repos", [])},
    }
    text = json.dumps(manifest, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    (out / "manifest.json").write_text(text, "utf-8")
    print(json.dumps({"manifest_digest": digest(text.encode()), "bytes": stacked.nbytes}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    point = sub.add_parser("point")
    point.add_argument("--rank", type=int, required=True)
    point.add_argument("--l2", type=float, required=True)
    choose = sub.add_parser("choose")
    choose.add_argument("--out", required=True)
    test = sub.add_parser("test")
    test.add_argument("--result", required=True)
    ship = sub.add_parser("ship")
    ship.add_argument("--result", required=True)
    args = parser.parse_args()
    {"point": cmd_point, "choose": cmd_choose, "test": cmd_test,
     "ship": cmd_ship}[args.cmd](args)


if __name__ == "__main__":
    main()
