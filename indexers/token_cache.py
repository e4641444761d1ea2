"""The BM25 token cache: every chunk's token list, kept with the index so a refresh only
tokenizes the chunks of changed files.

Stored as a vocabulary (JSON) + one flat int32 array of token ids + row offsets (`.npy`),
aligned with the generation's chunks (`BM25Index.build_from_term_ids` reads the ids as they
are: no strings). Merging old rows with new token lists renumbers the vocabulary in sorted
order of the tokens in use, so an incremental build writes the very same table as a fresh build
of the same files (no sort of the token stream: a bincount finds the tokens in use).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import NamedTuple

import numpy as np
import orjson

from helix.core.errors import IndexCorruptError
from indexers.formats import paused_gc

DIR_TOKENS = "tokens"
_VOCAB = "vocab.json"
_IDS = "ids.npy"
_OFFSETS = "offsets.npy"


class TokenTable(NamedTuple):
    vocab: list[str]
    flat: np.ndarray  # int32 token ids, all rows concatenated
    offsets: np.ndarray  # int64, len(rows) + 1

    def row(self, index: int) -> np.ndarray:
        return self.flat[int(self.offsets[index]):int(self.offsets[index + 1])]

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        (directory / _VOCAB).write_bytes(orjson.dumps(self.vocab))
        np.save(directory / _IDS, self.flat, allow_pickle=False)
        np.save(directory / _OFFSETS, self.offsets, allow_pickle=False)

    @classmethod
    def load(cls, directory: Path) -> TokenTable:
        try:
            vocab = orjson.loads((directory / _VOCAB).read_bytes())
            flat = np.load(directory / _IDS, allow_pickle=False)
            offsets = np.load(directory / _OFFSETS, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise IndexCorruptError(f"index token cache unreadable: {exc}") from None
        if (not isinstance(vocab, list) or flat.ndim != 1 or offsets.ndim != 1
                or (len(offsets) and int(offsets[-1]) != len(flat))
                or (len(flat) and int(flat.max()) >= len(vocab))):
            raise IndexCorruptError("index token cache is inconsistent")
        return cls(vocab, flat, offsets)


class TokenTableBuilder:
    """`merge` one row at a time: rows of the `old` table by number (`add_old`) or fresh token
    lists (`add_tokens`), kept as one flat int32 array (no per-row objects), so a build never
    holds every chunk's token strings. `finish` gives what `merge` gives."""

    def __init__(self, old: TokenTable | None) -> None:
        self.old = old
        self._ext: dict[str, int] = {t: i for i, t in enumerate(old.vocab)} if old else {}
        self._vocab: list[str] = list(old.vocab) if old else []
        self._old_size = len(self._vocab)
        self._flat = array("i")
        self._lengths = array("q")
        self._run = (-1, -1)  # consecutive old rows not yet copied: [start, end)

    def _flush(self) -> None:
        start, end = self._run
        if self.old is not None and end > start:
            a, b = int(self.old.offsets[start]), int(self.old.offsets[end])
            self._flat.frombytes(self.old.flat[a:b].astype(np.int32).tobytes())
            self._lengths.frombytes(
                np.diff(self.old.offsets[start:end + 1]).astype(np.int64).tobytes())
        self._run = (-1, -1)

    def add_old(self, row: int) -> None:
        if self.old is None or not 0 <= row < len(self.old.offsets) - 1:
            raise ValueError(f"no row {row} in the old token table")
        start, end = self._run
        if row != end:
            self._flush()
            start = row
        self._run = (start, row + 1)

    def add_tokens(self, tokens: Sequence[str]) -> None:
        self._flush()
        ext = self._ext
        ids = list(map(ext.get, tokens))  # known tokens in one C-level pass
        if None in ids:
            vocab = self._vocab
            for position, index in enumerate(ids):
                if index is None:
                    token = tokens[position]
                    index = ext.get(token)  # (a new token repeated in the same row)
                    if index is None:
                        index = ext[token] = len(vocab)
                        vocab.append(token)
                    ids[position] = index
        self._flat.extend(ids)  # type: ignore[arg-type]
        self._lengths.append(len(tokens))

    def finish(self) -> TokenTable:
        """The canonical table (vocabulary: the tokens in use, sorted)."""
        self._flush()
        lengths = np.frombuffer(self._lengths, dtype=np.int64) if self._lengths else (
            np.zeros(0, dtype=np.int64))
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        flat = np.frombuffer(self._flat, dtype=np.int32) if self._flat else (
            np.zeros(0, dtype=np.int32))
        ext_vocab = self._vocab
        used = np.flatnonzero(np.bincount(flat, minlength=len(ext_vocab)))
        if len(ext_vocab) == self._old_size:  # no new token: the old vocabulary is sorted
            keep = used.astype(np.int64)
        else:
            keep = np.array(sorted(used.tolist(), key=ext_vocab.__getitem__), dtype=np.int64)
        remap = np.zeros(len(ext_vocab), dtype=np.int32)
        remap[keep] = np.arange(len(keep), dtype=np.int32)
        new_flat = remap[flat] if len(flat) else np.zeros(0, dtype=np.int32)
        vocab = [ext_vocab[i] for i in keep.tolist()]
        return TokenTable(vocab, new_flat.astype(np.int32, copy=False), offsets)


def merge(rows: Sequence[int | list[str]], old: TokenTable | None) -> TokenTable:
    """Rows are row numbers of the `old` table or fresh token lists. Returns the canonical
    table (vocabulary: the tokens in use, sorted). Runs of consecutive old rows are copied
    as one slice."""
    builder = TokenTableBuilder(old)
    for row in rows:
        if isinstance(row, int):
            builder.add_old(row)
        else:
            builder.add_tokens(row)
    return builder.finish()


def token_lists(table: TokenTable) -> list[list[str]]:
    """Every row as its list of token strings."""
    with paused_gc():  # 30k new lists would trigger many full young-generation scans
        strings = (np.array(table.vocab, dtype=object)[table.flat].tolist()
                   if table.vocab else [])
        return [strings[a:b] for a, b in pairwise(table.offsets.tolist())]
