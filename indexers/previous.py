"""The previous index generation as the next build's cache, and when it may not be one.

A build reuses the previous generation's parses (by path and content hash), token rows (by
chunk id, looked up per file) and embed cards, unless the indexing code, the parse settings or
the generation itself (corrupt, another schema) say otherwise; each refusal comes with the
reason the build reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from helix.core.config import HelixConfig, IndexSettings
from helix.core.errors import IndexCorruptError, IndexVersionError
from helix.core.hashing import hash_obj
from helix.core.schemas import FileRecord, SymbolDef
from indexers import version
from indexers.formats import PART_CARDS, CachedParse, cards_from
from indexers.reader import Index
from indexers.store import IndexStore
from indexers.trees import TreeNode

# Settings the parse results depend on: a change of any other setting keeps the parse cache.
PARSE_SETTINGS = ("max_file_bytes", "skip_secrets", "mask_secrets", "window_lines",
                  "window_overlap", "max_chunk_lines", "trees", "max_tree_nodes",
                  "max_tree_depth")


def parse_hash(settings: IndexSettings) -> str:
    """What the parse and token caches depend on: the indexing code (its digest replaces a
    hand-kept parser version) and the parse settings."""
    return hash_obj({"code": version.index_code_digest(),
                     "settings": {k: getattr(settings, k) for k in PARSE_SETTINGS}})


class Previous:
    """The previous generation as a cache: parses by (path, content hash), token rows by chunk
    id, read from its rows database one file at a time (a large repository's every parse is
    never in memory at once)."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.rows = index.rows()
        self.files = {f.path: f.content_hash for f in index.files()}
        self._tree_files = self.rows.tree_files()
        self.token_table = index.tokens()
        if len(self.token_table.offsets) != self.rows.count("chunks") + 1:
            raise IndexCorruptError("index token cache does not match the chunks")

    def parse(self, record: FileRecord) -> tuple[CachedParse, list[TreeNode]] | None:
        """The file's parse in the previous generation when its content is the same."""
        path = record.path
        if self.files.get(path) != record.content_hash:
            return None
        cached = CachedParse(path, record.content_hash, tuple(self.rows.chunks_for_path(path)),
                             tuple(self.rows.defs_for_path(path)),
                             tuple(self.rows.refs_for_path(path)))
        return cached, self.trees_of(path)

    def trees_of(self, path: str) -> list[TreeNode]:
        return self.rows.trees_for_file(path) if path in self._tree_files else []

    def defs_of(self, path: str) -> Sequence[SymbolDef]:
        return self.rows.defs_for_path(path)

    def cards(self, unchanged: set[str]) -> dict[str, Any]:
        """The previous build's embed cards of these (unchanged) chunks; {} without any."""
        if PART_CARDS not in self.index.manifest.parts:
            return {}
        try:
            known = cards_from(self.index._raw(PART_CARDS))
        except IndexCorruptError:
            return {}  # only a cache: the cards are computed again
        return {cid: card for cid, card in known.items() if cid in unchanged}

    def had_trees(self, path: str) -> bool:
        return path in self._tree_files

    def token_rows(self, path: str) -> dict[str, int]:
        """Chunk id -> row in the previous token table, for the chunks the path had."""
        return dict(self.rows.chunk_rows_for_path(path))


def load_previous(store: IndexStore, root: Path, config: HelixConfig, force: bool
                   ) -> tuple[Index | None, str | None]:
    """The previous generation if its manifest is sound, else None and why. Part digests
    are checked by `is_sound` (for a no-op) or when the cache reads them."""
    try:
        generation = store.current_dir()
        if generation is None:
            return None, None
        manifest = store.read_manifest(generation)
    except IndexVersionError as exc:
        return None, f"index was written by another Helix version ({exc}); rebuilding"
    except IndexCorruptError as exc:
        return None, f"index was corrupt ({exc}); rebuilding from scratch"
    if force:
        return None, "forced full rebuild"
    return Index(root, generation, manifest, config.index), None


def is_sound(store: IndexStore, index: Index) -> str | None:
    """None when every part matches its digest, else why the index must be rebuilt."""
    try:
        store.verify_all(index.generation, index.manifest)
    except IndexCorruptError as exc:
        return f"index was corrupt ({exc}); rebuilding from scratch"
    return None


def reusable(index: Index | None, config: HelixConfig) -> tuple[Previous | None, str | None]:
    if index is None:
        return None, None
    if index.manifest.counts.get("index_code") != version.index_code_digest():
        return None, "Helix's indexing code changed; re-parsing every file"
    if index.manifest.counts.get("parse_hash") != parse_hash(config.index):
        return None, "indexing settings changed; re-parsing every file"
    try:
        return Previous(index), None
    except IndexCorruptError as exc:
        return None, f"index was corrupt ({exc}); rebuilding from scratch"
