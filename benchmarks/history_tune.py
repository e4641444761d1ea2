"""Tune retrieval on the history benchmark quickly: index each case once, score configs often.

`snapshot` moves each dev-set repository's tree through its cases (as `helix eval history`
does), builds Helix's index at every case's parent (embeddings included, synchronously) and
keeps that generation by hard links under DIR/<repo>/<case>/, with the cases (question, gold)
and BM25's ranking of the same tree in DIR/cases.json. `score` then runs the dry-run controller
on every snapshot under a candidate configuration (TOML overrides, as `helix eval
--candidate-config` takes) and prints Acc@k / MRR for the tuning repositories, the held-out
ones and all, against BM25: a config is scored in a minute instead of an hour.

    python benchmarks/history_tune.py snapshot DIR [--only NAME ...]
    python benchmarks/history_tune.py score DIR [--config F.toml] [--only NAME ...]
        [--cases-out F.json] [--held-out]

The held-out repositories are scored only with --held-out (report runs, never while tuning).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

from evals.history import devset
from evals.history.bm25 import BM25Tree
from evals.history.mine import git_dir, mine
from evals.history.run import tree_dir
from evals.history.score import KS, score, summarize
from evals.history.trees import TreeWriter
from evals.metrics import ranked_items
from helix.core.config import load_config


def _flags(config: Path | None) -> dict[str, Any]:
    flags: dict[str, Any] = {"index.background_dense": False}
    if config is None:
        return flags
    data = tomllib.loads(config.read_text(encoding="utf-8"))
    for section, values in data.items():
        for key, value in values.items():
            flags[f"{section}.{key}"] = value
    return flags


def snapshot(out: Path, only: tuple[str, ...]) -> None:
    from indexers.build import ensure_index

    dev = devset.load()
    out.mkdir(parents=True, exist_ok=True)
    listing_path = out / "cases.json"
    listing: dict[str, Any] = (json.loads(listing_path.read_text())
                               if listing_path.is_file() else {})
    for spec in devset.specs(dev, only=only):
        gitdir = git_dir(Path(spec.path))
        mined = mine(gitdir, rev=spec.rev, seed=spec.seed, limit=spec.limit, since=spec.since,
                     name=spec.name)
        writer = TreeWriter(gitdir, tree_dir(gitdir))
        try:
            bm25 = BM25Tree()
            cases = []
            started = time.perf_counter()
            for case in mined.cases:
                writer.move_to(case.parent)
                gold = tuple(g for g in case.gold if g in writer.files)
                if not gold:
                    continue
                config = load_config(writer.target, flags=_flags(None))
                index, _ = ensure_index(writer.target, config)
                target = out / spec.name / case.id.replace("@", "_")
                if target.exists():
                    shutil.rmtree(target)
                shutil.copytree(index._gen, target / "gen", copy_function=os.link)
                ranked = bm25.rank(writer.target, writer.files, case.question)
                cases.append({"id": case.id, "question": case.question, "gold": list(gold),
                              "snapshot": str(target / "gen"), "root": str(writer.target),
                              "bm25": score(ranked, gold, 0.0).model_dump(mode="json")})
                print(f"{spec.name} {len(cases)}/{len(mined.cases)} "
                      f"{time.perf_counter() - started:.0f}s", file=sys.stderr, flush=True)
        finally:
            writer.remove()  # no copy of the repository outlives its cases
        listing[spec.name] = {"held_out": spec.held_out, "kind": spec.kind, "cases": cases}
        listing_path.write_text(json.dumps(listing, indent=1), encoding="utf-8")


def _open(case: dict[str, Any], config: Any, embedder: Any) -> Any:
    from indexers.reader import Index
    from indexers.store import IndexStore

    generation = Path(case["snapshot"])
    store = IndexStore(generation.parent)
    manifest = store.read_manifest(generation)
    return Index(Path(case["root"]), generation, manifest, config.index, embedder,
                 verified=True)


def score_all(out: Path, config_path: Path | None, only: tuple[str, ...], held_out: bool,
              cases_out: Path | None) -> dict[str, Any]:
    from controller.driver import run_controller
    from controller.question import read_question
    from helix.core.ports import SystemClock
    from indexers.encoder import query_embedder

    listing = json.loads((out / "cases.json").read_text())
    config = load_config(None, flags=_flags(config_path))
    embedder = query_embedder(config.index)
    groups: dict[str, list[tuple[Any, Any]]] = {"tuning": [], "held_out": []}
    per_repo: dict[str, Any] = {}
    detail: list[dict[str, Any]] = []
    for name, repo in listing.items():
        if (only and name not in only) or (repo["held_out"] and not held_out):
            continue
        scores = []
        for case in repo["cases"]:
            index = _open(case, config, embedder)
            started = time.perf_counter()
            env = run_controller(read_question(case["question"], config.retrieval), index,
                                 config, query_embedder=embedder, clock=SystemClock())
            got = score((i.path for i in ranked_items(env)), tuple(case["gold"]),
                        time.perf_counter() - started)
            base = case["bm25"]
            scores.append((got, base))
            detail.append({"repo": name, "id": case["id"], "gold": case["gold"],
                           "route": env.route, "helix": got.model_dump(mode="json"),
                           "bm25_rank": base["all_rank"], "question": case["question"][:300]})
        from evals.history.score import SystemScore

        helix_scores = [s for s, _ in scores]
        bm25_scores = [SystemScore.model_validate(b) for _, b in scores]
        per_repo[name] = {"helix": summarize(helix_scores), "bm25": summarize(bm25_scores)}
        pairs = list(zip(helix_scores, bm25_scores, strict=True))
        groups["held_out" if repo["held_out"] else "tuning"] += pairs
    summary = {g: {"helix": summarize([h for h, _ in v]), "bm25": summarize([b for _, b in v])}
               for g, v in groups.items() if v}
    if cases_out is not None:
        cases_out.write_text(json.dumps(detail, indent=1), encoding="utf-8")
    return {"repos": per_repo, "groups": summary}


def _line(label: str, s: dict[str, Any]) -> str:
    cells = " ".join(f"@{k}={s[f'acc@{k}']:.2f}" for k in KS)
    return f"{label:<28} n={s['cases']:<4} {cells} mrr={s['mrr']:.3f} p50={s['p50_s']:.2f}s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    snap = sub.add_parser("snapshot")
    snap.add_argument("dir", type=Path)
    snap.add_argument("--only", nargs="*", default=())
    sc = sub.add_parser("score")
    sc.add_argument("dir", type=Path)
    sc.add_argument("--config", type=Path)
    sc.add_argument("--only", nargs="*", default=())
    sc.add_argument("--held-out", action="store_true")
    sc.add_argument("--cases-out", type=Path)
    args = parser.parse_args()
    if args.command == "snapshot":
        snapshot(args.dir, tuple(args.only))
        return
    result = score_all(args.dir, args.config, tuple(args.only), args.held_out, args.cases_out)
    for name, r in result["repos"].items():
        print(_line(f"{name} helix", r["helix"]))
        print(_line(f"{name} bm25", r["bm25"]))
    for name, r in result["groups"].items():
        print(_line(f"[{name}] helix", r["helix"]))
        print(_line(f"[{name}] bm25", r["bm25"]))


if __name__ == "__main__":
    main()
