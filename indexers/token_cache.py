"""The BM25 token cache: every chunk's token list, kept with the index so a refresh only
tokenizes the chunks of changed files.

Stored as a vocabulary (JSON) + one flat int32 array of token ids + row offsets (`.npy`),
aligned with the generation's chunks (`BM25Index.build_from_term_ids` reads the ids as they
are: no strings). Merging old rows with new token lists renumbers the vocabulary in sorted
order of the tokens in use, so an incremental build writes the very same table as a fresh build
of the same files (no sort of the token stream: a bincount finds the tokens in use).
"""

from __future__ import annotations

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


def merge(rows: Sequence[int | list[str]], old: TokenTable | None) -> TokenTable:
    """Rows are row numbers of the `old` table or fresh token lists. Returns the canonical
    table (vocabulary: the tokens in use, sorted). Runs of consecutive old rows are copied
    as one slice."""
    old_vocab = old.vocab if old is not None else []
    ext: dict[str, int] = {token: i for i, token in enumerate(old_vocab)}
    ext_vocab = list(old_vocab)
    arrays: list[np.ndarray] = []
    lengths: list[int] = []
    run_start = run_end = -1  # a run of consecutive old rows: [run_start, run_end)

    def flush() -> None:
        if old is not None and run_end > run_start:
            arrays.append(old.flat[int(old.offsets[run_start]):int(old.offsets[run_end])]
                          .astype(np.int64))
            lengths.extend(np.diff(old.offsets[run_start:run_end + 1]).tolist())

    for row in rows:
        if isinstance(row, int):
            if old is None or not 0 <= row < len(old.offsets) - 1:
                raise ValueError(f"no row {row} in the old token table")
            if row != run_end:
                flush()
                run_start = row
            run_end = row + 1
            continue
        flush()
        run_start = run_end = -1
        ids = np.empty(len(row), dtype=np.int64)
        for position, token in enumerate(row):
            index = ext.get(token)
            if index is None:
                index = ext[token] = len(ext_vocab)
                ext_vocab.append(token)
            ids[position] = index
        arrays.append(ids)
        lengths.append(len(row))
    flush()
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(np.array(lengths, dtype=np.int64), out=offsets[1:])
    flat = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)
    used = np.flatnonzero(np.bincount(flat, minlength=len(ext_vocab)))
    if len(ext_vocab) == len(old_vocab):  # no new token: the old vocabulary is sorted already
        keep = used.astype(np.int64)
    else:
        keep = np.array(sorted(used.tolist(), key=ext_vocab.__getitem__), dtype=np.int64)
    remap = np.zeros(len(ext_vocab), dtype=np.int32)
    remap[keep] = np.arange(len(keep), dtype=np.int32)
    new_flat = remap[flat] if len(flat) else np.zeros(0, dtype=np.int32)
    vocab = [ext_vocab[i] for i in keep.tolist()]
    return TokenTable(vocab, new_flat.astype(np.int32, copy=False), offsets)


def token_lists(table: TokenTable) -> list[list[str]]:
    """Every row as its list of token strings."""
    with paused_gc():  # 30k new lists would trigger many full young-generation scans
        strings = (np.array(table.vocab, dtype=object)[table.flat].tolist()
                   if table.vocab else [])
        return [strings[a:b] for a, b in pairwise(table.offsets.tolist())]
