"""The dense channel's cards of a corpus repository at its revision, and ranks over them.

A card is what `indexers.dense` embeds for a definition (`card_of`: `path :: qualname (kind)`,
the signature, the docstring's first paragraph), built here from the snapshot's blobs at R with
the indexer's own parser (`indexers.parse.parse_file`), so a card's text is the one a Helix
index of R holds. One card per (path, qualname): the definition's first code_def chunk (a long
definition cut into windows keeps its head). Private definitions without a docstring have no
card, as in the index; a case whose targets all lack one is counted and left out.

Embedding a whole repository on a shared 2-core machine is slow, so a repository's card set is
capped: every card some case of the repository targets, then the others in the order of
`digest(["rank31-cap", chunk id])` (a seeded spread over the tree) up to `cap`. Ranks are
measured within that set: the same set for the dense channel, BM25 and the adapter.
"""

from __future__ import annotations

import math
import subprocess
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evals.corpus.defs import language_of
from evals.corpus.mine import CorpusCase
from evals.corpus.patches import read_present_blobs
from helix.core.config import IndexSettings
from helix.core.git import git_command, git_env
from helix.core.hashing import digest, hash_obj
from helix.core.schemas import FileRecord
from indexers.dense import card_of
from indexers.parse import parse_file
from indexers.tokenize import tokenize

CAP_SPREAD = "rank31-cap"
KS = (1, 5, 10)
BM25_K1 = 1.2
BM25_B = 0.75


@dataclass(frozen=True)
class Cards:
    """A repository's capped card set: keys (path, qualname) and texts, in key order."""

    keys: tuple[tuple[str, str], ...]
    texts: tuple[str, ...]
    total: int  # cards before the cap


def _tree_files(gitdir: Path, revision: str) -> list[tuple[str, str]]:
    """(path, blob id) of R's code files Helix parses, in path order."""
    out = subprocess.run(git_command(gitdir, "ls-tree", "-r", "-z", revision),
                         capture_output=True, check=True, env=git_env()).stdout
    files: list[tuple[str, str]] = []
    for entry in out.split(b"\0"):
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        parts = meta.split()
        path = raw_path.decode("utf-8", errors="replace")
        if len(parts) == 3 and parts[1] == b"blob" and language_of(path) is not None:
            files.append((path, parts[2].decode("ascii")))
    return sorted(files)


def all_cards(gitdir: Path, revision: str, settings: IndexSettings
              ) -> dict[tuple[str, str], tuple[str, str]]:
    """(path, qualname) -> (chunk id, card text) for every embeddable definition at R."""
    files = _tree_files(gitdir, revision)
    by_blob = dict((blob, path) for path, blob in files)
    cards: dict[tuple[str, str], tuple[str, str]] = {}
    for blob, data in read_present_blobs(gitdir, sorted(by_blob)):
        if data is None or len(data) > settings.max_parse_bytes:
            continue
        path = by_blob[blob]
        text = data.decode("utf-8", errors="replace")
        record = FileRecord(path=path, content_hash=digest(text), size=len(data), kind="code",
                            lang=language_of(path))
        chunks = sorted((c for c in parse_file(record, text, settings).chunks
                         if c.kind == "code_def" and c.symbol), key=lambda c: c.start_line)
        for chunk in chunks:
            key = (path, chunk.symbol or "")
            if key in cards:
                continue
            card = card_of(chunk, settings)
            if card is not None:
                cards[key] = (chunk.id, card[2])
    return cards


def capped(cards: Mapping[tuple[str, str], tuple[str, str]], keep: Iterable[tuple[str, str]],
           cap: int) -> Cards:
    """Every card in `keep`, then the others by their seeded digest, up to `cap` in all."""
    kept = {key for key in keep if key in cards}
    others = sorted((hash_obj([CAP_SPREAD, cards[key][0]]), key)
                    for key in cards if key not in kept)
    room = max(cap - len(kept), 0)
    chosen = sorted(kept | {key for _, key in others[:room]})
    return Cards(keys=tuple(chosen), texts=tuple(cards[key][1] for key in chosen),
                 total=len(cards))


def gold_rows(case: CorpusCase, keys: Sequence[tuple[str, str]]) -> list[int]:
    """Rows of `keys` the case targets (a target without a card has none)."""
    where = {key: row for row, key in enumerate(keys)}
    return sorted({where[(t.path, t.qualname)] for t in case.targets
                   if (t.path, t.qualname) in where})


def best_rank(scores: np.ndarray, gold: Sequence[int]) -> int:
    """1-based rank of the best gold row; ties counted against it (rows scored equal or
    higher than it, other than the gold rows themselves, all come first)."""
    best = max(float(scores[g]) for g in gold)
    ahead = int(np.sum(scores >= best)) - sum(1 for g in gold if float(scores[g]) >= best)
    return ahead + 1


def rank_summary(ranks: Sequence[int]) -> dict[str, float]:
    n = len(ranks)
    if n == 0:
        return {"cases": 0}
    out: dict[str, float] = {"cases": n}
    for k in KS:
        out[f"acc@{k}"] = round(sum(r <= k for r in ranks) / n, 4)
    out["mrr"] = round(sum(1.0 / r for r in ranks) / n, 4)
    return out


class CardBM25:
    """Okapi BM25 over card texts with Helix's code-aware tokenizer (the lexical baseline on
    exactly the dense channel's documents)."""

    def __init__(self, texts: Sequence[str]) -> None:
        self._docs = [Counter(tokenize(text)) for text in texts]
        self._lengths = np.array([sum(d.values()) for d in self._docs], dtype=np.float64)
        self._avg = float(self._lengths.mean()) if len(self._docs) else 0.0
        df: Counter[str] = Counter()
        for doc in self._docs:
            df.update(doc.keys())
        n = len(self._docs)
        self._idf = {t: math.log(1.0 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def scores(self, query: str) -> np.ndarray:
        out = np.zeros(len(self._docs), dtype=np.float64)
        terms = [t for t in dict.fromkeys(tokenize(query)) if t in self._idf]
        norm = BM25_K1 * (1.0 - BM25_B + BM25_B * self._lengths / max(self._avg, 1e-9))
        for row, doc in enumerate(self._docs):
            total = 0.0
            for term in terms:
                tf = doc.get(term, 0)
                if tf:
                    total += self._idf[term] * tf * (BM25_K1 + 1.0) / (tf + norm[row])
            out[row] = total
        return out
