"""Where things live on disk: repository roots, index directories, caches, the run log."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from helix.core.config import helix_home
from helix.core.errors import BadPathError
from helix.core.hashing import short_id


def find_repo_root(start: Path | str | None = None) -> Path:
    """The enclosing git repository's root, else the directory itself."""
    path = Path(start or ".").expanduser()
    if not path.exists():
        raise BadPathError(f"path does not exist: {path}")
    path = path.resolve()
    if not path.is_dir():
        raise BadPathError(f"not a directory: {path}")
    for candidate in (path, *path.parents):
        if (candidate / ".git").exists():
            return candidate
    return path


def index_dir_for(root: Path, env: Mapping[str, str] | None = None) -> Path:
    """Per-repository index directory, keyed by the root's absolute path."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", root.name) or "root"
    return helix_home(env) / "indexes" / f"{name}-{short_id(str(root.resolve()))}"


def embedding_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Shared by all indexes: embeddings keyed by model + chunk content hash."""
    return helix_home(env) / "embeddings"


def runlog_path(env: Mapping[str, str] | None = None) -> Path:
    return helix_home(env) / "helix.sqlite"
