"""The two places the history field (indexers.history) meets a build: whether the current
generation is still current (with the field on, at the same HEAD too), and the history part of
a new generation, built incrementally from the previous one's."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from helix.core.config import HelixConfig, IndexSettings
from helix.core.errors import IndexCorruptError
from helix.core.git import head_commit
from indexers.build_lexical import Lexical
from indexers.formats import PART_HISTORY
from indexers.previous import parse_hash
from indexers.store import Manifest


def is_current(manifest: Manifest, hashes: dict[str, str], config: HelixConfig,
                root: Path) -> bool:
    """The generation is what a build of these files under this config would write: with the
    history field on, at the same HEAD too (a commit that changed no indexed file still adds
    its message to the field)."""
    if not (manifest.files == hashes and manifest.index_hash == config.index_hash
            and manifest.counts.get("parse_hash") == parse_hash(config.index)):
        return False
    if not config.index.history_commits:
        return True
    head = head_commit(root)
    return head is None or (manifest.report.get("history") or {}).get("head") == head


def build_history_part(root: Path, settings: IndexSettings, lexical: Lexical, prev_index: Any
                       ) -> tuple[bytes, dict[str, Any]] | None:
    """The history part (`indexers.history`) of HEAD's commits, with what building it did;
    None when it is off or the repository has no git history."""
    from indexers.history import build_history

    if not settings.history_commits:
        return None
    head = head_commit(root)
    if head is None:
        return None
    by_path: dict[str, list[Any]] = {}
    for row in lexical.rows.all_def_rows():
        by_path.setdefault(row.path, []).append(row)
    previous = None
    if prev_index is not None and PART_HISTORY in prev_index.manifest.parts:
        with contextlib.suppress(IndexCorruptError):
            previous = prev_index.history_bytes()
    return build_history(root, head, by_path, {"commits": settings.history_commits,
                                                "per_def": settings.history_per_def},
                         previous)
