"""Does dense retrieval over code bodies pay on the history benchmark? (issue 10, section 4)

Helix's dense channel embeds cards (path, name, signature, first doc paragraph). This measures
the other choice: every code chunk's whole text (with its path and qualified name) embedded by
the same model, a file ranked by its best chunk's cosine with the question, fused by RRF with
Helix's own file ranking. Tuning repositories only (the held-out ones are never scored here),
the first `--per-repo` cases of each, the trees moved case by case as `helix eval history`
does. Writes benchmarks/results/history_body_dense.json: per case the gold, Helix's files and
the body channel's files; Acc@k for Helix, bodies alone and each fusion weight.

    HELIX_HOME=DIR python benchmarks/history_body_dense.py [--per-repo N] [--out F]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _result import write_result

from evals.history import devset
from evals.history.bm25 import is_code_file
from evals.history.mine import git_dir, mine
from evals.history.run import HelixSide
from evals.history.trees import TreeWriter
from evals.metrics import ranked_items
from helix.core.config import helix_home
from helix.core.hashing import digest

RESULT = Path(__file__).parent / "results" / "history_body_dense.json"
CODE_KINDS = ("code_def", "code_module")
KS = (1, 3, 5, 10)
WEIGHTS = (0.1, 0.2, 0.3, 0.5, 1.0)
RRF_K = 60
DEPTH = 100


def _unique(paths: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(paths))


class BodyChannel:
    """Code chunk bodies embedded once each (keyed by text hash), ranked per question."""

    def __init__(self) -> None:
        self.encoder: Any = None
        self.vectors: dict[str, np.ndarray] = {}

    def rank(self, index: Any, config: Any, question: str) -> tuple[list[str], int]:
        if self.encoder is None:
            from indexers.onnx_encoder import OnnxEncoder

            self.encoder = OnnxEncoder.from_settings(config.index)
        chunks = [c for c in index.chunks() if c.kind in CODE_KINDS and is_code_file(c.path)]
        texts = [f"{c.path} :: {c.symbol or ''}\n{c.text}" for c in chunks]
        keys = [digest(t) for t in texts]
        todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in self.vectors}
        if todo:
            for key, vec in zip(todo, self.encoder.embed(list(todo.values())), strict=True):
                self.vectors[key] = np.asarray(vec, dtype=np.float32)
        if not chunks:
            return [], 0
        query = np.asarray(self.encoder.embed([question])[0], dtype=np.float32)
        sims = np.stack([self.vectors[k] for k in keys]) @ query
        best: dict[str, float] = {}
        for chunk, sim in zip(chunks, sims.tolist(), strict=True):
            best[chunk.path] = max(best.get(chunk.path, -2.0), sim)
        ranked = sorted(best.items(), key=lambda item: (-item[1], item[0]))
        return [path for path, _ in ranked[:DEPTH]], len(todo)


def fused(helix: Sequence[str], body: Sequence[str], weight: float) -> list[str]:
    score: dict[str, float] = {}
    for rank, path in enumerate(helix[:DEPTH], 1):
        score[path] = score.get(path, 0.0) + 1 / (RRF_K + rank)
    for rank, path in enumerate(body[:DEPTH], 1):
        score[path] = score.get(path, 0.0) + weight / (RRF_K + rank)
    return [p for p, _ in sorted(score.items(), key=lambda item: (-item[1], item[0]))]


def accuracy(rows: Sequence[dict[str, Any]], rank: Any) -> dict[str, float]:
    def hit(row: dict[str, Any], k: int) -> bool:
        top = rank(row)[:k]
        return all(g in top for g in row["gold"])
    return {f"acc@{k}": round(sum(hit(r, k) for r in rows) / max(len(rows), 1), 4) for k in KS}


def collect(per_repo: int, home: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    body = BodyChannel()
    for spec in devset.specs(devset.load()):
        if spec.held_out:
            continue
        gitdir = git_dir(Path(spec.path))
        mined = mine(gitdir, rev=spec.rev, seed=spec.seed, limit=spec.limit, since=spec.since,
                     name=spec.name)
        writer = TreeWriter(gitdir, home / "history-body-dense" / mined.repo)
        helix = HelixSide(writer.target, {}, no_embed=False)
        try:
            for case in mined.cases[:per_repo]:
                writer.move_to(case.parent)
                gold = [g for g in case.gold if g in writer.files]
                if not gold:
                    continue
                index, config = helix.refresh(), helix.config()
                env = helix.ask(case.question)
                files = _unique([item.path for item in ranked_items(env)])
                bodies, embedded = body.rank(index, config, case.question)
                rows.append({"repo": mined.repo, "id": case.id, "gold": gold,
                             "helix": files[:DEPTH], "body": bodies})
                print(f"{mined.repo} {case.id} embedded={embedded}", file=sys.stderr, flush=True)
        finally:
            writer.remove()  # no copy of the repository outlives its cases
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-repo", type=int, default=20)
    parser.add_argument("--out", type=Path, default=RESULT)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rows = collect(args.per_repo, helix_home())
    systems: dict[str, dict[str, float]] = {
        "helix": accuracy(rows, lambda r: r["helix"]),
        "body": accuracy(rows, lambda r: r["body"])}
    for weight in WEIGHTS:
        systems[f"rrf body w={weight}"] = accuracy(
            rows, lambda r, w=weight: fused(r["helix"], r["body"], w))
    payload = {"benchmark": "history_body_dense", "cases": len(rows), "per_repo": args.per_repo,
               "rrf_k": RRF_K, "systems": systems, "rows": rows,
               "wall_s": round(time.perf_counter() - started, 1)}
    write_result(args.out, payload)
    for name, acc in systems.items():
        print(f"{name:18s} " + " ".join(f"{k}={v:.3f}" for k, v in acc.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
