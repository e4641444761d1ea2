"""The dense channel alone on the history corpus: gold definitions' best rank among their
repository's cards, dense (shipped MiniLM) vs BM25 over the same cards (issue 31, round 31).

    python benchmarks/dense_corpus.py embed --split validation [--cap 2000]
    python benchmarks/dense_corpus.py measure --split validation [--out results.json]

`embed` writes, per repository with a local snapshot, WORK/<repo>.npz: the capped card keys,
their vectors, the cases' message vectors, gold rows and BM25's top rows (hard negatives for
the adapter). Vectors are cached by text digest, so a rerun embeds nothing new. Repositories
without a snapshot under /work/.mirror are listed as skipped. The test split is embedded only
when asked (`--split test`) and is never used for a choice.
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
sys.path[:0] = [str(ROOT), str(ROOT / "evals")]

from evals.corpus.build import load_cases  # noqa: E402
from evals.corpus.dense_cards import (  # noqa: E402
    CardBM25,
    all_cards,
    best_rank,
    capped,
    gold_rows,
    rank_summary,
)
from evals.corpus.repos import load_repo_list  # noqa: E402
from helix.core.config import IndexSettings  # noqa: E402
from helix.core.hashing import digest  # noqa: E402

MIRRORS = Path("/work/.mirror")
WORK = Path("/work/tmp/rank31")
HARD_NEGATIVES = 30  # BM25's top rows kept per case (the adapter's hard negatives)


def _gitdir(source: str) -> Path:
    return MIRRORS / source.split(":", 1)[1].replace("/", "+") / "repo"


class VectorCache:
    """text digest -> vector, one .npz per repository (written atomically)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.known: dict[str, np.ndarray] = {}
        if path.is_file():
            with np.load(path, allow_pickle=False) as data:
                self.known = dict(zip(data["hashes"].tolist(), data["vectors"], strict=True))

    def vectors(self, texts: list[str], embedder: Any, batch: int = 64) -> np.ndarray:
        hashes = [digest(t) for t in texts]
        todo = sorted({h: t for h, t in zip(hashes, texts, strict=True)
                       if h not in self.known}.items())
        for start in range(0, len(todo), batch):
            part = todo[start:start + batch]
            got = np.asarray(embedder.embed([t for _, t in part]), dtype=np.float32)
            self.known.update((h, got[i]) for i, (h, _) in enumerate(part))
            if (start // batch) % 10 == 9:
                self.save()
        self.save()
        return np.stack([self.known[h] for h in hashes]).astype(np.float32)

    def save(self) -> None:
        keys = sorted(self.known)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, hashes=np.array(keys), vectors=np.stack([self.known[k] for k in keys]))
        tmp.replace(self.path)


def embed_repo(entry: Any, cases: list[Any], cap: int, embedder: Any) -> dict[str, Any]:
    settings = IndexSettings()
    started = time.monotonic()
    cards_all = all_cards(_gitdir(entry.source), entry.revision, settings)
    keep = [(t.path, t.qualname) for c in cases for t in c.targets]
    cards = capped(cards_all, keep, cap)
    usable = [(c, gold_rows(c, cards.keys)) for c in cases]
    usable = [(c, g) for c, g in usable if g]
    cache = VectorCache(WORK / f"vec_{entry.name}.npz")
    card_vecs = cache.vectors(list(cards.texts), embedder)
    query_vecs = cache.vectors([c.message for c, _ in usable], embedder)
    bm25 = CardBM25(cards.texts)
    gold = np.full((len(usable), 8), -1, dtype=np.int64)
    hard = np.zeros((len(usable), HARD_NEGATIVES), dtype=np.int64)
    bm25_ranks = []
    for i, (case, rows) in enumerate(usable):
        gold[i, :min(len(rows), 8)] = rows[:8]
        scores = bm25.scores(case.message)
        bm25_ranks.append(best_rank(scores, rows))
        order = np.lexsort((np.arange(len(scores)), -scores))
        hard[i] = order[:HARD_NEGATIVES] if len(order) >= HARD_NEGATIVES else np.resize(
            order, HARD_NEGATIVES)
    np.savez(WORK / f"set_{entry.name}.npz", cards=card_vecs, queries=query_vecs, gold=gold,
             hard=hard, bm25_ranks=np.array(bm25_ranks, dtype=np.int64),
             case_ids=np.array([c.id for c, _ in usable]))
    return {"cards": len(cards.keys), "cards_total": cards.total, "cases": len(cases),
            "cases_with_card": len(usable), "seconds": round(time.monotonic() - started, 1)}


def cmd_embed(args: argparse.Namespace) -> None:
    from helix.core.config import helix_home
    from indexers.encoder import default_model_path
    from indexers.onnx_encoder import shared_encoder

    WORK.mkdir(parents=True, exist_ok=True)
    listing = load_repo_list(ROOT / "data/evals/corpus_repos.json")
    cases = load_cases(ROOT / "data/corpus/cases.jsonl")
    # the build's ONNX fp32 encoder: the query encoder's vectors and key, ~6x its texts per s
    embedder = shared_encoder(default_model_path(IndexSettings()), helix_home())
    only = set(args.repos.split(",")) if args.repos else None
    for entry in listing.repos:
        if entry.split != args.split or (only and entry.name not in only):
            continue
        if not _gitdir(entry.source).is_dir():
            print(json.dumps({"repo": entry.name, "skipped": "no snapshot"}), flush=True)
            continue
        if (WORK / f"set_{entry.name}.npz").is_file() and not args.force:
            print(json.dumps({"repo": entry.name, "kept": True}), flush=True)
            continue
        mine = [c for c in cases if c.repo == entry.name]
        print(json.dumps({"repo": entry.name, **embed_repo(entry, mine, args.cap, embedder)}),
              flush=True)


def load_set(name: str) -> dict[str, np.ndarray]:
    with np.load(WORK / f"set_{name}.npz", allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def dense_ranks(data: dict[str, np.ndarray], adapter: np.ndarray | None = None) -> list[int]:
    queries = data["queries"] if adapter is None else data["queries"] @ adapter
    scores = queries @ data["cards"].T
    return [best_rank(scores[i], [g for g in data["gold"][i] if g >= 0])
            for i in range(len(queries))]


def split_names(split: str) -> list[str]:
    listing = load_repo_list(ROOT / "data/evals/corpus_repos.json")
    return [e.name for e in listing.repos
            if e.split == split and (WORK / f"set_{e.name}.npz").is_file()]


def cmd_measure(args: argparse.Namespace) -> None:
    per_repo: dict[str, Any] = {}
    dense_all: list[int] = []
    bm25_all: list[int] = []
    for name in split_names(args.split):
        data = load_set(name)
        dense = dense_ranks(data)
        bm25 = data["bm25_ranks"].tolist()
        per_repo[name] = {"cards": len(data["cards"]), "dense": rank_summary(dense),
                          "bm25": rank_summary(bm25)}
        dense_all += dense
        bm25_all += bm25
    out = {"split": args.split, "dense": rank_summary(dense_all), "bm25": rank_summary(bm25_all),
           "per_repo": per_repo}
    text = json.dumps(out, indent=1, sort_keys=True)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    emb = sub.add_parser("embed")
    emb.add_argument("--split", required=True, choices=("train", "validation", "test"))
    emb.add_argument("--cap", type=int, default=2000)
    emb.add_argument("--repos", default="")
    emb.add_argument("--force", action="store_true")
    mea = sub.add_parser("measure")
    mea.add_argument("--split", required=True, choices=("train", "validation", "test"))
    mea.add_argument("--out", default="")
    args = parser.parse_args()
    {"embed": cmd_embed, "measure": cmd_measure}[args.cmd](args)


if __name__ == "__main__":
    main()
