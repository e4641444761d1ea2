"""The plain baseline Helix must beat: BM25 (rank-bm25's BM25Okapi) over whole files.

Every text file under the root is one document, tokenized simply (lowercased `\\w+` runs);
a question is tokenized the same way and files are ranked by score, ties by path. No chunks,
no symbols, no graph, no embeddings: what a developer gets from a naive full-text search.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evals.metrics import KS, path_matches
from indexers.languages import CODE_EXTENSIONS, DOC_EXTENSIONS

# Every language Helix parses and every prose format it reads, plus common config formats: the
# baseline sees the same files Helix can rank (a Java repository is not empty to it).
TEXT_SUFFIXES = (frozenset(CODE_EXTENSIONS) | frozenset(DOC_EXTENSIONS)
                 | frozenset({".json", ".toml", ".cfg", ".ini", ".yaml", ".yml", ".sh"}))
SKIP_DIRS = frozenset({".git", "__pycache__", "node_modules", ".venv", ".mypy_cache",
                       ".ruff_cache", ".pytest_cache", ".hypothesis"})
MAX_FILE_BYTES = 1024 * 1024
_WORD = re.compile(r"\w+")


def simple_tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _files(root: Path) -> list[str]:
    out: list[str] = []
    for current, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith(".helix"))
        for name in names:
            path = Path(current) / name
            if path.suffix not in TEXT_SUFFIXES or path.is_symlink():
                continue
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            out.append(path.relative_to(root).as_posix())
    return sorted(out)


class BM25Files:
    def __init__(self, paths: Sequence[str], docs: Sequence[list[str]]) -> None:
        from rank_bm25 import BM25Okapi

        self.paths = list(paths)
        self._bm25 = BM25Okapi(list(docs)) if docs else None

    @classmethod
    def build(cls, root: Path) -> BM25Files:
        paths = _files(root)
        docs = [simple_tokens((root / p).read_text(encoding="utf-8", errors="replace"))
                for p in paths]
        return cls(paths, docs)

    def rank(self, question: str, k: int | None = None) -> list[str]:
        """Paths by descending score, ties by path."""
        if self._bm25 is None:
            return []
        scores = self._bm25.get_scores(simple_tokens(question))
        order = sorted(range(len(self.paths)), key=lambda i: (-float(scores[i]), self.paths[i]))
        ranked = [self.paths[i] for i in order]
        return ranked[:k] if k is not None else ranked

    def file_rank(self, question: str, expected: Sequence[str]) -> int | None:
        for rank, path in enumerate(self.rank(question), start=1):
            if any(path_matches(path, value) for value in expected):
                return rank
        return None

    @staticmethod
    def summarize(ranks: Mapping[str, int | None]) -> dict[str, Any]:
        """file_hit@k and MRR over the cases with expected files."""
        n = len(ranks)
        out: dict[str, Any] = {"cases": n, "ranks": dict(sorted(ranks.items()))}
        for k in KS:
            out[f"file_hit@{k}"] = (round(sum(1 for r in ranks.values() if r and r <= k) / n, 4)
                                    if n else None)
        out["mrr"] = round(sum(1.0 / r for r in ranks.values() if r) / n, 4) if n else None
        return out
