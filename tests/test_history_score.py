"""Acc@k (every gold file in the top k distinct files), MRR (first gold file), percentiles;
and the whole-file BM25 baseline's tokens and ranking."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.history.bm25 import BM25Tree, tokens
from evals.history.score import distinct_files, gold_ranks, score, summarize


def test_ranks_use_distinct_files_and_need_every_gold_file() -> None:
    ranked = ["a.py", "a.py", "b.py", "c.py", "b.py", "d.py"]
    assert distinct_files(ranked) == ["a.py", "b.py", "c.py", "d.py"]
    s = score(ranked, ("c.py", "a.py"), 0.5)
    assert (s.first_rank, s.all_rank, s.ranked) == (1, 3, 4)
    s = score(ranked, ("d.py", "zzz.py"), 0.5)
    assert (s.first_rank, s.all_rank) == (4, None)  # one gold file never ranked
    assert gold_ranks([], ("a.py",)) == (None, None)
    assert gold_ranks(["x", "a.py"], ("a.py", "a.py")) == (2, 2)  # a repeated gold path


def test_acc_at_k_and_mrr_arithmetic() -> None:
    scores = [
        score(["g.py", "x.py"], ("g.py",), 1.0),  # first 1, all 1
        score(["x.py", "y.py", "g.py"], ("g.py",), 2.0),  # 3, 3
        score(["g.py", "x", "y", "z", "w", "h.py"], ("g.py", "h.py"), 3.0),  # 1, 6
        score(["x.py"], ("g.py",), 4.0),  # missed: 0 to MRR
    ]
    out = summarize(scores)
    assert out["cases"] == 4 and out["errors"] == 0
    assert out["acc@1"] == 0.25
    assert out["acc@3"] == 0.5
    assert out["acc@5"] == 0.5
    assert out["acc@10"] == 0.75
    assert out["mrr"] == pytest.approx(round((1 + 1 / 3 + 1 + 0) / 4, 4))
    assert out["p50_s"] == 2.0 and out["p95_s"] == 4.0 and out["mean_s"] == 2.5
    empty = summarize([])
    assert empty["acc@1"] is None and empty["mrr"] is None and empty["cases"] == 0


def test_bm25_tokens_split_identifiers_and_keep_them_whole() -> None:
    assert tokens("getUserName") == ["getusername", "get", "user", "name"]
    assert tokens("httpx/_client.py") == ["httpx", "_client", "client", "py"]
    assert tokens("HTTPServerError") == ["httpservererror", "http", "server", "error"]
    assert tokens("parse_line x") == ["parse_line", "parse", "line", "x"]


def test_bm25_ranks_code_files_by_path_and_text(tmp_path: Path) -> None:
    files = {"pkg/cache.py": "class ExpiringCache:\n    ttl = 1\n",
             "pkg/parser.py": "def parse_line(line):\n    return line\n",
             "docs/cache.md": "ExpiringCache ExpiringCache ttl ttl\n",
             **{f"pkg/other{i}.py": f"VALUE_{i} = {i}\n" for i in range(4)}}
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    bm25 = BM25Tree()
    blobs = {p: f"blob-{i}" for i, p in enumerate(files)}
    ranked = bm25.rank(tmp_path, blobs, "ExpiringCache forgets items after the ttl")
    assert ranked[0] == "pkg/cache.py"
    assert "docs/cache.md" not in ranked and len(ranked) == 6  # code files only
    assert bm25.rank(tmp_path, blobs, "the parser of a line")[0] == "pkg/parser.py"
    assert bm25.rank(tmp_path, {}, "anything") == []
