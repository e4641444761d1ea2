"""The baseline in the same run: rank-bm25 (`BM25Okapi`, k1 1.5, b 0.75) over whole files.

Documents are the materialized tree's code files (a suffix in `rules.SOURCE_SUFFIXES`, tests
included: every code file a user's plain full-text search would see), each one document made
of its path's tokens and its text's tokens. The query is the case's whole question (the
commit message, cut like Helix's). Tokens: lowercased `\\w+` runs, kept whole, plus the parts
of an identifier (`snake_case` and `camelCase` pieces of two characters or more). Ranking by
descending score, ties by path. A file's tokens are cached by its blob id, so moving the tree
from case to case tokenizes only the files that changed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from evals.history.rules import SOURCE_SUFFIXES

_WORD = re.compile(r"\w+")
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def tokens(text: str) -> list[str]:
    out: list[str] = []
    for word in _WORD.findall(text):
        lowered = word.lower()
        out.append(lowered)
        parts = [p.lower() for p in _PART.findall(word) if len(p) >= 2]
        if len(parts) > 1 or (parts and parts[0] != lowered):
            out.extend(p for p in parts if p != lowered)
    return out


def is_code_file(path: str) -> bool:
    return PurePosixPath(path).suffix.lower() in SOURCE_SUFFIXES


class BM25Tree:
    """Whole-file BM25 over a materialized tree, rebuilt per case from cached tokens."""

    def __init__(self) -> None:
        self._by_blob: dict[str, list[str]] = {}

    def rank(self, root: Path, files: Mapping[str, str], question: str) -> list[str]:
        """Every code file of `files` (path -> blob id, as written under `root`), best first."""
        from rank_bm25 import BM25Okapi

        paths = sorted(p for p in files if is_code_file(p))
        if not paths:
            return []
        docs = [tokens(path) + self._content_tokens(root, path, files[path]) for path in paths]
        live = {files[p] for p in paths}
        self._by_blob = {b: t for b, t in self._by_blob.items() if b in live}
        scores = BM25Okapi(docs).get_scores(tokens(question))
        order = sorted(range(len(paths)), key=lambda i: (-float(scores[i]), paths[i]))
        return [paths[i] for i in order]

    def _content_tokens(self, root: Path, path: str, blob: str) -> list[str]:
        cached = self._by_blob.get(blob)
        if cached is None:
            text = (root / path).read_bytes().decode("utf-8", errors="replace")
            cached = self._by_blob[blob] = tokens(text)
        return cached
