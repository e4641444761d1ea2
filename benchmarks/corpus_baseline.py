"""A first baseline on the corpus's test split: whole-function BM25, function and file level.

For each test repository, every definition of every code file at the repository's revision R
(Helix's extractor, tests included: what a plain full-text search sees) is one document: its
path's tokens, its qualified name's and its whole text's (decorators and leading comments
included; a class holds its methods' text). The query is the case's message. bm25s (k1 1.5,
b 0.75) scores every definition; ties go by (path, start line, qualified name). Function
Acc@k: every target definition of the case is in the top k (the LocAgent / SweRank measure);
file Acc@k: every target file is among the first k distinct files of the same ranking. Reported
per repository, pooled, and split by whether the message names a target (`names_target`).

    python benchmarks/corpus_baseline.py --mirrors DIR [--cases data/corpus/cases.jsonl]
        [--repos data/evals/corpus_repos.json] [--split test] [--out FILE]

DIR holds the snapshots (DIR/<owner>+<name>/repo); nothing is checked out: blobs are read
from git objects. Writes benchmarks/results/corpus_baseline.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _result import show, write_result

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evals.corpus.build import load_cases  # noqa: E402
from evals.corpus.defs import file_definitions, language_of  # noqa: E402
from evals.corpus.mine import CorpusCase  # noqa: E402
from evals.corpus.policy import summary  # noqa: E402
from evals.corpus.repos import load_repo_list, mirror_dir  # noqa: E402
from evals.corpus.rules import is_vendored  # noqa: E402
from evals.history.bm25 import tokens  # noqa: E402
from evals.history.trees import read_blobs, read_tree  # noqa: E402
from helix.core.config import IndexSettings  # noqa: E402
from helix.core.hashing import digest_file  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "corpus_baseline.json"
K1, B = 1.5, 0.75
Doc = tuple[str, str, int]  # (path, qualname, start)


def definitions_at(gitdir: Path, revision: str) -> tuple[list[Doc], list[list[str]]]:
    """Every definition at R with its document tokens (file order)."""
    tree = read_tree(gitdir, revision)
    wanted = {path: e.blob for path, e in tree.items()
              if e.mode in ("100644", "100755") and language_of(path) is not None
              and not is_vendored(path)}
    by_blob: dict[str, bytes] = {}
    for blob, data in read_blobs(gitdir, sorted(set(wanted.values()))):
        by_blob[blob] = data
    settings = IndexSettings()
    docs: list[Doc] = []
    texts: list[list[str]] = []
    for path in sorted(wanted):
        data = by_blob[wanted[path]]
        defs = file_definitions(path, data, settings)
        if not defs:
            continue
        lines = data.decode("utf-8", errors="replace").split("\n")
        path_tokens = tokens(path)
        for site in defs:
            body = "\n".join(lines[site.extent_start - 1:site.end])
            docs.append((path, site.qualname, site.start))
            texts.append(path_tokens + tokens(site.qualname) + tokens(body))
    return docs, texts


def ranks(case: CorpusCase, order: Sequence[Doc]) -> dict[str, int | None]:
    """The rank (1-based) by which every target definition / file is listed; None: never."""
    position = {doc: i + 1 for i, doc in enumerate(order)}
    wanted = [(t.path, t.qualname, t.start) for t in case.targets]
    found = [position.get(w) for w in wanted]
    function_rank = None if None in found else max(f for f in found if f is not None)
    files: dict[str, int] = {}
    for doc in order:
        files.setdefault(doc[0], len(files) + 1)
    file_found = [files.get(t.path) for t in case.targets]
    file_rank = None if None in file_found else max(f for f in file_found if f is not None)
    return {"function_rank": function_rank, "file_rank": file_rank}


def run_repo(gitdir: Path, revision: str, cases: Sequence[CorpusCase]) -> list[dict[str, Any]]:
    import bm25s
    import numpy as np

    docs, texts = definitions_at(gitdir, revision)
    index = bm25s.BM25(k1=K1, b=B)
    index.index(texts, show_progress=False)
    tie = sorted(range(len(docs)), key=lambda i: docs[i])
    tie_rank = np.empty(len(docs), dtype=np.int64)
    tie_rank[tie] = np.arange(len(docs))
    rows = []
    for case in cases:
        scores = index.get_scores(tokens(case.message))
        order_idx = np.lexsort((tie_rank, -scores))
        order = [docs[i] for i in order_idx]
        rows.append({"id": case.id, "targets": len(case.targets),
                     "names_target": case.names_target, **ranks(case, order)})
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mirrors", required=True, type=Path)
    parser.add_argument("--cases", type=Path, default=ROOT / "data" / "corpus" / "cases.jsonl")
    parser.add_argument("--repos", type=Path, default=ROOT / "data" / "evals" /
                        "corpus_repos.json")
    parser.add_argument("--split", default="test", choices=("train", "validation", "test"))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    listing = load_repo_list(args.repos)
    cases = [c for c in load_cases(args.cases) if c.split == args.split]
    results: dict[str, Any] = {}
    all_rows: list[dict[str, Any]] = []
    for entry in listing.repos:
        mine = [c for c in cases if c.repo == entry.name]
        if entry.split != args.split or not mine:
            continue
        started = time.monotonic()
        rows = run_repo(mirror_dir(args.mirrors, entry.source), entry.revision, mine)
        results[entry.name] = {"language": entry.language, **summary(rows),
                               "seconds": round(time.monotonic() - started, 1), "rows": rows}
        all_rows += rows
        print(f"{entry.name}: {json.dumps(summary(rows))}", flush=True)
    payload = {
        "benchmark": "corpus_baseline", "split": args.split, "system": "whole-function BM25 "
        f"(bm25s k1 {K1} b {B}; documents: path + qualname + definition text at R)",
        "cases_file_hash": digest_file(args.cases),
        "pooled": summary(all_rows),
        "pooled_names_target": summary([r for r in all_rows if r["names_target"]]),
        "pooled_no_name": summary([r for r in all_rows if not r["names_target"]]),
        "repos": results,
    }
    write_result(args.out, payload, indent=1)
    show({k: payload[k] for k in ("pooled", "pooled_names_target", "pooled_no_name")},
         indent=None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
